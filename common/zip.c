#include "zip.h"

#include <stdlib.h>
#include <string.h>

#define EOCD_SIZE 22
#define EOCD_SEARCH (EOCD_SIZE + 65535) /* the record plus the longest comment */
#define ZIP64_LOCATOR_SIZE 20
#define ZIP64_EOCD_SIZE 56
#define CDIR_ENTRY_SIZE 46
#define LOCAL_SIZE 30

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* off + need within len, without overflow. */
static int fits(uint64_t off, uint64_t need, uint64_t len)
{
	return off <= len && need <= len - off;
}

/* The central directory from the end records; -1 with *why. */
static int central(const unsigned char *buf, uint64_t len, uint64_t *off, uint64_t *size,
		   uint64_t *count, const char **why)
{
	uint64_t from = len > EOCD_SEARCH ? len - EOCD_SEARCH : 0, eocd = UINT64_MAX;

	for (uint64_t i = len >= EOCD_SIZE ? len - EOCD_SIZE + 1 : 0; i-- > from;)
		if (memcmp(buf + i, "PK\5\6", 4) == 0) {
			eocd = i;
			break;
		}
	if (eocd == UINT64_MAX)
		return *why = "truncated or damaged zip (no end-of-central-directory record)", -1;
	*count = le16(buf + eocd + 10);
	*size = le32(buf + eocd + 12);
	*off = le32(buf + eocd + 16);
	if (*off == 0xffffffff || *size == 0xffffffff || *count == 0xffff) {
		uint64_t rec;
		if (eocd < ZIP64_LOCATOR_SIZE ||
		    memcmp(buf + eocd - ZIP64_LOCATOR_SIZE, "PK\6\7", 4) != 0)
			return *why = "damaged zip64 archive (no zip64 locator)", -1;
		rec = le64(buf + eocd - ZIP64_LOCATOR_SIZE + 8);
		if (!fits(rec, ZIP64_EOCD_SIZE, len) || memcmp(buf + rec, "PK\6\6", 4) != 0)
			return *why = "damaged zip64 archive (no zip64 end record)", -1;
		*count = le64(buf + rec + 32);
		*size = le64(buf + rec + 40);
		*off = le64(buf + rec + 48);
	}
	if (!fits(*off, *size, len))
		return *why = "truncated zip (the central directory is past the end)", -1;
	return 0;
}

/* zip64 extra field: the 64-bit values of the fields that are 0xffffffff,
 * in the order uncompressed size, compressed size, local header offset. */
static void zip64_extra(const unsigned char *x, size_t xlen, uint64_t *usize, uint64_t *csize,
			uint64_t *local)
{
	while (xlen >= 4) {
		uint16_t id = le16(x), n = le16(x + 2);
		const unsigned char *v = x + 4;
		if (n > xlen - 4)
			return;
		if (id == 1) {
			size_t k = 0;
			if (*usize == 0xffffffff && k + 8 <= n)
				*usize = le64(v + k), k += 8;
			if (*csize == 0xffffffff && k + 8 <= n)
				*csize = le64(v + k), k += 8;
			if (*local == 0xffffffff && k + 8 <= n)
				*local = le64(v + k);
			return;
		}
		x += 4 + n;
		xlen -= 4 + (size_t)n;
	}
}

int mt_zip_list(const unsigned char *buf, uint64_t len, mt_zip_entry **out, size_t *n,
		const char **why)
{
	uint64_t off, size, count, p;
	mt_zip_entry *e;

	*out = NULL;
	*n = 0;
	if (len < 4 || memcmp(buf, "PK\3\4", 4) != 0)
		return *why = "not a zip file", -1;
	if (central(buf, len, &off, &size, &count, why) < 0)
		return -1;
	if (count > size / CDIR_ENTRY_SIZE)
		return *why = "damaged zip (more entries than the central directory holds)", -1;
	if (!(e = calloc(count ? count : 1, sizeof(*e))))
		return *why = "out of memory", -1;
	p = off;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t usize, csize, local, data;
		uint16_t nlen, xlen, clen;
		if (!fits(p, CDIR_ENTRY_SIZE, off + size) || memcmp(buf + p, "PK\1\2", 4) != 0)
			goto damaged;
		nlen = le16(buf + p + 28);
		xlen = le16(buf + p + 30);
		clen = le16(buf + p + 32);
		if (!fits(p + CDIR_ENTRY_SIZE, (uint64_t)nlen + xlen + clen, off + size))
			goto damaged;
		csize = le32(buf + p + 20);
		usize = le32(buf + p + 24);
		local = le32(buf + p + 42);
		zip64_extra(buf + p + CDIR_ENTRY_SIZE + nlen, xlen, &usize, &csize, &local);
		if (!fits(local, LOCAL_SIZE, len) || memcmp(buf + local, "PK\3\4", 4) != 0)
			goto damaged;
		data = local + LOCAL_SIZE + le16(buf + local + 26) + le16(buf + local + 28);
		if (!fits(data, csize, len)) {
			free(e);
			return *why = "truncated zip (an entry's data is past the end)", -1;
		}
		e[i].name = (const char *)buf + p + CDIR_ENTRY_SIZE;
		e[i].name_len = nlen;
		e[i].offset = data;
		e[i].size = csize;
		e[i].method = le16(buf + p + 10);
		p += CDIR_ENTRY_SIZE + (uint64_t)nlen + xlen + clen;
	}
	*out = e;
	*n = count;
	return 0;
damaged:
	free(e);
	return *why = "damaged zip (a bad central directory entry)", -1;
}

const mt_zip_entry *mt_zip_find_suffix(const mt_zip_entry *e, size_t n, const char *suffix)
{
	size_t sl = strlen(suffix);
	for (size_t i = 0; i < n; i++)
		if (e[i].name_len >= sl && memcmp(e[i].name + e[i].name_len - sl, suffix, sl) == 0)
			return &e[i];
	return NULL;
}
