/* ustar written and read in memory, gzip through libdeflate. */
#include "tar.h"
#include "error.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 512

/* The ustar header's fields: offset and width. */
enum {
	F_NAME = 0, W_NAME = 100,
	F_MODE = 100, W_MODE = 8,
	F_UID = 108, W_UID = 8,
	F_GID = 116, W_GID = 8,
	F_SIZE = 124, W_SIZE = 12,
	F_MTIME = 136, W_MTIME = 12,
	F_CHKSUM = 148, W_CHKSUM = 8,
	F_TYPE = 156,
	F_LINK = 157, W_LINK = 100,
	F_MAGIC = 257, /* "ustar\0" then version "00" */
	F_PREFIX = 345, W_PREFIX = 155,
};

int mt_tar_name_check(const char *name)
{
	const char *p = name, *slash;

	if (!*name)
		return mt_error_set(MT_EINVALID, "an empty name");
	if (*name == '/')
		return mt_error_set(MT_EINVALID, "an absolute path");
	if (strlen(name) > MT_TAR_NAME_MAX)
		return mt_error_set(MT_EINVALID, "a name longer than %d bytes", MT_TAR_NAME_MAX);
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c < 0x20 || *c == 0x7f || *c == '\\')
			return mt_error_set(MT_EINVALID, "a control character or backslash in the name");
	for (;; p = slash + 1) {
		size_t n;
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return mt_error_set(MT_EINVALID, "a '..' component (a path leaving the directory)");
		if ((n == 1 && p[0] == '.') || (n == 0 && slash))
			return mt_error_set(MT_EINVALID, "an empty or '.' component");
		if (!slash)
			return 0;
	}
}

static void octal(unsigned char *field, size_t width, uint64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "%0*llo", (int)width - 1, (unsigned long long)v);
	memcpy(field, tmp, width - 1); /* and the NUL the header already has */
}

static unsigned header_sum(const unsigned char *h)
{
	unsigned sum = 0;

	for (size_t i = 0; i < BLOCK; i++)
		sum += (i >= F_CHKSUM && i < F_CHKSUM + W_CHKSUM) ? ' ' : h[i];
	return sum;
}

/* Splits name into ustar's prefix and name at a '/': 0, or -1 when it
 * cannot be held. */
static int split_name(const char *name, size_t *prefix_len)
{
	size_t len = strlen(name);

	*prefix_len = 0;
	if (len <= W_NAME)
		return 0;
	for (size_t i = len - 1; i > 0; i--)
		if (name[i] == '/' && i <= W_PREFIX && len - i - 1 <= W_NAME && len - i - 1 > 0) {
			*prefix_len = i;
			return 0;
		}
	return -1;
}

int mt_tar_add(mt_buf *tar, const char *name, const void *data, size_t len, int64_t mtime)
{
	unsigned char h[BLOCK] = {0};
	size_t plen, pad = (BLOCK - len % BLOCK) % BLOCK;
	static const char zeros[BLOCK];
	int error;

	if ((error = mt_tar_name_check(name)) < 0)
		return mt_error_prefix(error, "tar entry '%s': ", name);
	if (split_name(name, &plen) < 0)
		return mt_error_set(MT_EINVALID, "tar entry '%s': ustar cannot hold the name", name);
	if (plen) {
		memcpy(h + F_PREFIX, name, plen);
		memcpy(h + F_NAME, name + plen + 1, strlen(name) - plen - 1);
	} else {
		memcpy(h + F_NAME, name, strlen(name));
	}
	octal(h + F_MODE, W_MODE, 0644);
	octal(h + F_UID, W_UID, 0);
	octal(h + F_GID, W_GID, 0);
	octal(h + F_SIZE, W_SIZE, len);
	octal(h + F_MTIME, W_MTIME, mtime > 0 ? (uint64_t)mtime : 0);
	h[F_TYPE] = '0';
	memcpy(h + F_MAGIC, "ustar\0" "00", 8);
	snprintf((char *)h + F_CHKSUM, W_CHKSUM, "%06o", header_sum(h));
	h[F_CHKSUM + 7] = ' ';
	if (mt_buf_put(tar, (const char *)h, BLOCK) < 0 || mt_buf_put(tar, data, len) < 0 ||
	    mt_buf_put(tar, zeros, pad) < 0)
		return mt_error_set(MT_EIO, "out of memory");
	return 0;
}

int mt_tar_finish_gz(unsigned char **out, size_t *len, mt_buf *tar)
{
	static const char zeros[2 * BLOCK];
	struct libdeflate_compressor *c = NULL;
	size_t bound;

	*out = NULL;
	*len = 0;
	if (mt_buf_put(tar, zeros, sizeof(zeros)) < 0 || !(c = libdeflate_alloc_compressor(6)))
		return mt_error_set(MT_EIO, "out of memory");
	bound = libdeflate_gzip_compress_bound(c, tar->len);
	if (!(*out = malloc(bound))) {
		libdeflate_free_compressor(c);
		return mt_error_set(MT_EIO, "out of memory");
	}
	*len = libdeflate_gzip_compress(c, tar->ptr, tar->len, *out, bound);
	libdeflate_free_compressor(c);
	if (!*len) {
		free(*out);
		*out = NULL;
		return mt_error_set(MT_ERROR, "gzip: the stream did not compress");
	}
	return 0;
}

/* An octal field: digits, optionally led by spaces, ended by NUL or space
 * (or the field's end). 0 or -1. */
static int read_octal(const unsigned char *f, size_t width, uint64_t *v)
{
	size_t i = 0;
	int digits = 0;

	*v = 0;
	while (i < width && f[i] == ' ')
		i++;
	for (; i < width && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
		if (*v >> 60)
			return -1;
		*v = *v * 8 + (uint64_t)(f[i] - '0');
	}
	if (!digits)
		return -1;
	for (; i < width; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	return 0;
}

static int is_zero_block(const unsigned char *p)
{
	for (size_t i = 0; i < BLOCK; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The entry's full name from its header into name (>= 257 bytes). */
static void header_name(const unsigned char *h, char *name)
{
	size_t pl = strnlen((const char *)h + F_PREFIX, W_PREFIX);
	size_t nl = strnlen((const char *)h + F_NAME, W_NAME);

	name[0] = '\0';
	if (pl) {
		memcpy(name, h + F_PREFIX, pl);
		name[pl++] = '/';
	}
	memcpy(name + pl, h + F_NAME, nl);
	name[pl + nl] = '\0';
}

static int refuse(size_t index, const char *name, const char *why, const char *more)
{
	char shown[MT_TAR_NAME_MAX + 2];

	snprintf(shown, sizeof(shown), "%s", name);
	for (char *c = shown; *c; c++) /* the name itself may be the fault */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return mt_error_set(MT_EINVALID, "tar entry %zu ('%s'): %s%s", index + 1, shown, why,
			    more ? more : "");
}

/* Checks one header; *size and *type from it. */
static int read_header(const unsigned char *h, size_t index, const char *name, uint64_t *size,
		       int *type)
{
	uint64_t sum, v;

	if (read_octal(h + F_CHKSUM, W_CHKSUM, &sum) < 0)
		return refuse(index, name, "the header's checksum field is not octal", NULL);
	if (sum != header_sum(h))
		return refuse(index, name, "the header's checksum does not match its bytes", NULL);
	if (memcmp(h + F_MAGIC, "ustar", 5) != 0)
		return refuse(index, name, "not a ustar header (magic)", NULL);
	if (read_octal(h + F_SIZE, W_SIZE, size) < 0)
		return refuse(index, name, "the size field is not octal", NULL);
	if (read_octal(h + F_MODE, W_MODE, &v) < 0 || read_octal(h + F_MTIME, W_MTIME, &v) < 0)
		return refuse(index, name, "the mode or mtime field is not octal", NULL);
	*type = h[F_TYPE];
	if (*type == '1' || *type == '2')
		return refuse(index, name, "a link entry", *type == '1' ? " (hard link)" : " (symlink)");
	if (*type != '0' && *type != '\0' && *type != '5')
		return refuse(index, name, "not a regular file or directory (type flag)", NULL);
	if (*type == '5' && *size != 0)
		return refuse(index, name, "a directory with a size", NULL);
	return 0;
}

static int cmp_entry_names(const void *a, const void *b)
{
	return strcmp(((const mt_tar_entry *)a)->name, ((const mt_tar_entry *)b)->name);
}

/* The first name that comes twice, or NULL: sorted, neighbours compared,
 * so a stream of many entries costs n log n. */
static const char *twice(const mt_tar *t)
{
	mt_tar_entry *sorted = malloc((t->n ? t->n : 1) * sizeof(*sorted));
	const char *found = NULL;

	if (!sorted)
		return NULL;
	memcpy(sorted, t->entries, t->n * sizeof(*sorted));
	qsort(sorted, t->n, sizeof(*sorted), cmp_entry_names);
	for (size_t i = 1; i < t->n && !found; i++)
		if (strcmp(sorted[i - 1].name, sorted[i].name) == 0)
			found = sorted[i].name;
	free(sorted);
	return found;
}

static int add_entry(mt_tar *t, size_t *cap, const char *name, const unsigned char *data,
		     size_t size)
{
	if (t->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		mt_tar_entry *e = realloc(t->entries, ncap * sizeof(*e));
		if (!e)
			return mt_error_set(MT_EIO, "out of memory");
		t->entries = e;
		*cap = ncap;
	}
	t->entries[t->n] = (mt_tar_entry){.name = mt_strdup(name), .data = data, .size = size};
	t->n++;
	return 0;
}

/* Walks the headers of t->raw, filling t->entries. */
static int read_entries(mt_tar *t)
{
	size_t off = 0, index = 0, cap = 0;
	char name[MT_TAR_NAME_MAX + 2];
	const char *dup;

	for (;; index++) {
		const unsigned char *h = t->raw + off;
		uint64_t size;
		int type = 0, error;
		if (off + BLOCK > t->raw_len)
			return mt_error_set(MT_EINVALID,
					    "tar: truncated after %zu entries (no end-of-archive blocks)", index);
		if (is_zero_block(h))
			break;
		header_name(h, name);
		if ((error = read_header(h, index, name, &size, &type)) < 0)
			return error;
		if (mt_tar_name_check(name) < 0) {
			char why[128];
			snprintf(why, sizeof(why), "%s", mt_error_last());
			return refuse(index, name, "name: ", why);
		}
		if (size > t->raw_len - off - BLOCK)
			return refuse(index, name, "size: more than the data present (truncated)", NULL);
		if (type != '5' && (error = add_entry(t, &cap, name, h + BLOCK, (size_t)size)) < 0)
			return error;
		off += BLOCK + ((size_t)size + BLOCK - 1) / BLOCK * BLOCK;
	}
	if ((dup = twice(t)))
		return mt_error_set(MT_EINVALID, "tar entry '%s': the name comes twice", dup);
	if (off + 2 * BLOCK > t->raw_len || !is_zero_block(t->raw + off + BLOCK))
		return mt_error_set(MT_EINVALID, "tar: truncated (one end-of-archive block of two)");
	for (off += 2 * BLOCK; off < t->raw_len; off++)
		if (t->raw[off])
			return mt_error_set(MT_EINVALID, "tar: data after the end-of-archive blocks");
	return 0;
}

int mt_tar_read(mt_tar *out, const unsigned char *data, size_t len)
{
	int error;

	memset(out, 0, sizeof(*out));
	if (len > MT_TAR_MAX_SIZE)
		return mt_error_set(MT_EINVALID, "tar: larger than %llu bytes",
				    (unsigned long long)MT_TAR_MAX_SIZE);
	if (!(out->raw = malloc(len ? len : 1)))
		return mt_error_set(MT_EIO, "out of memory");
	memcpy(out->raw, data, len);
	out->raw_len = len;
	if ((error = read_entries(out)) < 0)
		mt_tar_dispose(out);
	return error;
}

/* The gzip header's own fields (RFC 1952): a single member whose ISIZE
 * trailer says how much to allocate. */
static int gzip_member_ok(const unsigned char *gz, size_t len)
{
	if (len < 18 || gz[0] != 0x1f || gz[1] != 0x8b)
		return mt_error_set(MT_EINVALID, "gzip: not a gzip stream (magic)");
	if (gz[2] != 8)
		return mt_error_set(MT_EINVALID, "gzip: compression method %u, not deflate", gz[2]);
	return 0;
}

int mt_tar_read_gz(mt_tar *out, const unsigned char *gz, size_t len)
{
	struct libdeflate_decompressor *d = NULL;
	size_t in_used = 0, got = 0;
	uint32_t isize;
	enum libdeflate_result r;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = gzip_member_ok(gz, len)) < 0)
		return error;
	isize = (uint32_t)gz[len - 4] | (uint32_t)gz[len - 3] << 8 | (uint32_t)gz[len - 2] << 16 |
		(uint32_t)gz[len - 1] << 24;
	if (isize > MT_TAR_MAX_SIZE) /* ISIZE is the length mod 2^32: the cap is under it */
		return mt_error_set(MT_EINVALID, "gzip: its trailer says %u bytes inflated, more than "
				    "the %llu read (cut short, or not a bundle)",
				    isize, (unsigned long long)MT_TAR_MAX_SIZE);
	if (!(out->raw = malloc(isize ? isize : 1)) || !(d = libdeflate_alloc_decompressor())) {
		free(out->raw);
		out->raw = NULL;
		return mt_error_set(MT_EIO, "out of memory");
	}
	r = libdeflate_gzip_decompress_ex(d, gz, len, out->raw, isize, &in_used, &got);
	libdeflate_free_decompressor(d);
	if (r != LIBDEFLATE_SUCCESS || got != isize)
		error = mt_error_set(MT_EINVALID, "gzip: %s",
				     r == LIBDEFLATE_BAD_DATA ? "corrupt or truncated data, or a CRC-32 "
								"or length (ISIZE) that does not match"
				     : r == LIBDEFLATE_INSUFFICIENT_SPACE || got != isize
					     ? "the length in the trailer (ISIZE) does not match the data"
					     : "truncated");
	else if (in_used != len)
		error = mt_error_set(MT_EINVALID, "gzip: %zu bytes after the stream", len - in_used);
	else {
		out->raw_len = isize;
		error = read_entries(out);
	}
	if (error < 0)
		mt_tar_dispose(out);
	return error;
}

void mt_tar_dispose(mt_tar *t)
{
	free(t->raw);
	for (size_t i = 0; i < t->n; i++)
		free((char *)t->entries[i].name);
	free(t->entries);
	memset(t, 0, sizeof(*t));
}

const mt_tar_entry *mt_tar_find(const mt_tar *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->entries[i].name, name) == 0)
			return &t->entries[i];
	return NULL;
}
