/* Objects straight from pack files, inflated with libdeflate. See gitpack.h
 * for why, and for the rule that any doubt means "ask libgit2".
 *
 * Formats (git's Documentation/gitformat-pack.txt): an .idx version 2 is
 * a magic and version, a 256-entry fan-out of cumulative counts by first
 * byte, the sorted 20-byte ids, their CRC-32s, 4-byte offsets (high bit:
 * an index into the 8-byte offsets that follow), and two checksums. A pack
 * entry is a type and size in a little-endian base-128 varint, then for an
 * OFS_DELTA a negative offset to its base (git's own "offset - 1" base-128
 * encoding), for a REF_DELTA the base's id, then a zlib stream. A delta is
 * the base's size and the result's size, then copy and insert
 * instructions. */
#include "gitpack.h"

#include <dirent.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define OBJ_OFS_DELTA 6
#define OBJ_REF_DELTA 7
/* git refuses deeper chains than this when it writes packs (pack.depth is
 * capped at 4095); deeper means a corrupt or hostile pack. */
#define MAX_DEPTH 4096
#define CACHE_SLOTS 256
#define CACHE_BYTES (8u << 20) /* per reader: bases are mostly small files */
#define CACHE_ITEM_MAX (CACHE_BYTES / 4)

struct pack {
	const unsigned char *idx, *data;
	size_t idx_len, data_len, n, n64;
	const unsigned char *ids, *off32, *off64;
};

struct slot {
	char *data;
	size_t size, pack;
	uint64_t off;
	int type;
};

/* The mapped packs, shared by the readers of one repository's threads (one
 * mapping per process: each mapped page counts once in the RSS). */
struct packset {
	struct pack *packs;
	size_t npacks;
	int refs; /* atomic */
};

struct mt_gitpack {
	struct packset *set;
	struct pack *packs; /* set->packs */
	size_t npacks;
	struct libdeflate_decompressor *dec;
	char *spare; /* an output buffer handed back by the caller */
	size_t spare_cap;
	char *lent; /* the last buffer handed out, and its capacity */
	size_t lent_cap;
	unsigned char *delta; /* scratch for inflated delta instructions */
	size_t delta_cap;
	struct slot cache[CACHE_SLOTS];
	size_t cache_bytes;
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static const void *map_file(const char *path, size_t *len)
{
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	*len = (size_t)st.st_size;
	return m;
}

/* Maps one .idx and its .pack, checking what lookups rely on: magic,
 * version, a fan-out that never decreases, a length that fits the count,
 * and a pack header with the same count. 0 when it is not usable. */
static int pack_open(struct pack *pk, const char *idx_path)
{
	size_t n, fixed, len = strlen(idx_path);
	char *pack_path = malloc(len + 2);
	int ok = 0;

	memset(pk, 0, sizeof(*pk));
	if (!pack_path)
		return 0;
	memcpy(pack_path, idx_path, len - 4);
	memcpy(pack_path + len - 4, ".pack", 6);
	pk->idx = map_file(idx_path, &pk->idx_len);
	pk->data = map_file(pack_path, &pk->data_len);
	free(pack_path);
	if (!pk->idx || !pk->data || pk->idx_len < 8 + 1024 + 40 || pk->data_len < 12 + 20)
		goto done;
	if (memcmp(pk->idx, "\377tOc", 4) != 0 || be32(pk->idx + 4) != 2)
		goto done;
	for (int i = 1; i < 256; i++)
		if (be32(pk->idx + 8 + 4 * i) < be32(pk->idx + 8 + 4 * (i - 1)))
			goto done;
	n = be32(pk->idx + 8 + 4 * 255);
	fixed = 8 + 1024 + n * 28 + 40;
	if (pk->idx_len < fixed || (pk->idx_len - fixed) % 8 != 0)
		goto done;
	if (memcmp(pk->data, "PACK", 4) != 0 || (be32(pk->data + 4) != 2 && be32(pk->data + 4) != 3) ||
	    be32(pk->data + 8) != n)
		goto done;
	pk->n = n;
	pk->n64 = (pk->idx_len - fixed) / 8;
	pk->ids = pk->idx + 8 + 1024;
	pk->off32 = pk->ids + n * 24; /* after the ids and the CRC-32s */
	pk->off64 = pk->off32 + n * 4;
	ok = 1;
done:
	if (!ok) {
		if (pk->idx)
			munmap((void *)pk->idx, pk->idx_len);
		if (pk->data)
			munmap((void *)pk->data, pk->data_len);
		memset(pk, 0, sizeof(*pk));
	}
	return ok;
}

static mt_gitpack *reader_new(struct packset *set)
{
	mt_gitpack *p = calloc(1, sizeof(*p));

	if (p && !(p->dec = libdeflate_alloc_decompressor())) {
		free(p);
		return NULL;
	}
	if (p) {
		p->set = set;
		p->packs = set->packs;
		p->npacks = set->npacks;
	}
	return p;
}

mt_gitpack *mt_gitpack_open(const char *objects_dir)
{
	const char *off = getenv("MTRIAL_GITPACK");
	struct packset *set;
	mt_gitpack *p;
	size_t dlen = strlen(objects_dir);
	char *dir, *path;
	struct dirent *de;
	DIR *d;

	if (off && strcmp(off, "0") == 0)
		return NULL;
	if (!(set = calloc(1, sizeof(*set))))
		return NULL;
	set->refs = 1;
	if (!(p = reader_new(set))) {
		free(set);
		return NULL;
	}
	if (!(dir = malloc(dlen + 6)))
		return p;
	memcpy(dir, objects_dir, dlen);
	memcpy(dir + dlen, "/pack", 6);
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			size_t nlen = strlen(de->d_name);
			struct pack *grown;
			if (nlen < 5 || strcmp(de->d_name + nlen - 4, ".idx") != 0)
				continue;
			if (!(grown = realloc(set->packs, (set->npacks + 1) * sizeof(*grown))))
				break;
			set->packs = grown;
			if (!(path = malloc(dlen + 6 + nlen + 2)))
				break;
			snprintf(path, dlen + 6 + nlen + 2, "%s/%s", dir, de->d_name);
			set->npacks += (size_t)pack_open(&set->packs[set->npacks], path);
			free(path);
		}
		closedir(d);
	}
	free(dir);
	p->packs = set->packs;
	p->npacks = set->npacks;
	return p;
}

mt_gitpack *mt_gitpack_share(const mt_gitpack *p)
{
	mt_gitpack *q;

	if (!p)
		return NULL;
	__atomic_add_fetch(&p->set->refs, 1, __ATOMIC_RELAXED);
	if (!(q = reader_new(p->set)))
		__atomic_sub_fetch(&p->set->refs, 1, __ATOMIC_RELAXED);
	return q;
}

static void cache_clear(mt_gitpack *p)
{
	for (size_t i = 0; i < CACHE_SLOTS; i++) {
		free(p->cache[i].data);
		p->cache[i].data = NULL;
	}
	p->cache_bytes = 0;
}

void mt_gitpack_free(mt_gitpack *p)
{
	if (!p)
		return;
	if (__atomic_sub_fetch(&p->set->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		for (size_t i = 0; i < p->set->npacks; i++) {
			munmap((void *)p->set->packs[i].idx, p->set->packs[i].idx_len);
			munmap((void *)p->set->packs[i].data, p->set->packs[i].data_len);
		}
		free(p->set->packs);
		free(p->set);
	}
	cache_clear(p);
	free(p->spare);
	free(p->delta);
	libdeflate_free_decompressor(p->dec);
	free(p);
}

/* The offset of an object in pack `pk`, or -1. */
static int64_t lookup(const struct pack *pk, const unsigned char id[20])
{
	size_t lo = id[0] ? be32(pk->idx + 8 + 4 * (id[0] - 1)) : 0;
	size_t hi = be32(pk->idx + 8 + 4 * id[0]);
	uint32_t o;

	if (hi > pk->n)
		return -1;
	uint64_t key = be64(id);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t at = be64(pk->ids + mid * 20);
		/* the first 8 bytes decide almost every step */
		int c = at != key ? (at < key ? -1 : 1) : memcmp(pk->ids + mid * 20, id, 20);
		if (c == 0) {
			o = be32(pk->off32 + mid * 4);
			if (!(o & 0x80000000u))
				return o;
			o &= 0x7fffffffu;
			if (o >= pk->n64)
				return -1;
			uint64_t big = (uint64_t)be32(pk->off64 + o * 8) << 32 | be32(pk->off64 + o * 8 + 4);
			return big > INT64_MAX ? -1 : (int64_t)big;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* An entry's header: type, size, and where its data (after the base's
 * offset or id, for a delta) starts. 0 when it does not parse. */
struct entry {
	int type;
	uint64_t size, data, base_off;
	const unsigned char *base_id;
};

static int parse_entry(struct entry *e, const struct pack *pk, uint64_t off)
{
	const unsigned char *p = pk->data;
	uint64_t end = pk->data_len - 20, size, base, entry_off = off;
	unsigned shift = 4, c;

	if (off < 12 || off >= end)
		return 0;
	c = p[off++];
	e->type = (int)(c >> 4 & 7);
	size = c & 15;
	while (c & 0x80) {
		if (off >= end || shift > 57)
			return 0;
		c = p[off++];
		size |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	e->size = size;
	if (e->type == OBJ_OFS_DELTA) {
		if (off >= end)
			return 0;
		c = p[off++];
		base = c & 0x7f;
		while (c & 0x80) {
			if (off >= end || base >> 56)
				return 0;
			c = p[off++];
			base = ((base + 1) << 7) | (c & 0x7f);
		}
		if (base == 0 || base > entry_off)
			return 0;
		e->base_off = entry_off - base;
	} else if (e->type == OBJ_REF_DELTA) {
		if (end - off < 20)
			return 0;
		e->base_id = p + off;
		off += 20;
	} else if (e->type < 1 || e->type > 4) {
		return 0;
	}
	e->data = off;
	return off < end;
}

static int inflate_to(mt_gitpack *p, const struct pack *pk, uint64_t at, void *out, size_t size)
{
	size_t got = 0;
	enum libdeflate_result r = libdeflate_zlib_decompress_ex(
		p->dec, pk->data + at, pk->data_len - 20 - at, out, size, NULL, &got);
	return r == LIBDEFLATE_SUCCESS && got == size;
}

static uint64_t delta_varint(const unsigned char **d, const unsigned char *end, int *ok)
{
	uint64_t v = 0;
	unsigned shift = 0, c;

	do {
		if (*d >= end || shift > 63) {
			*ok = 0;
			return 0;
		}
		c = *(*d)++;
		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	return v;
}

/* Applies delta instructions d..end (after the two sizes) to base. */
static int apply_delta(const unsigned char *base, size_t base_len, const unsigned char *d,
		       const unsigned char *end, unsigned char *out, size_t out_len)
{
	size_t at = 0;

	while (d < end) {
		unsigned op = *d++;
		if (op & 0x80) {
			size_t off = 0, n = 0;
			for (int i = 0; i < 4; i++)
				if (op & (1u << i)) {
					if (d >= end)
						return 0;
					off |= (size_t)*d++ << (8 * i);
				}
			for (int i = 0; i < 3; i++)
				if (op & (0x10u << i)) {
					if (d >= end)
						return 0;
					n |= (size_t)*d++ << (8 * i);
				}
			if (n == 0)
				n = 0x10000;
			if (off > base_len || n > base_len - off || n > out_len - at)
				return 0;
			memcpy(out + at, base + off, n);
			at += n;
		} else if (op) {
			if (op > (size_t)(end - d) || op > out_len - at)
				return 0;
			memcpy(out + at, d, op);
			d += op;
			at += op;
		} else {
			return 0; /* reserved */
		}
	}
	return at == out_len;
}

static int grow(void *bufp, size_t *cap, size_t need)
{
	void **buf = bufp, *n;

	if (*cap >= need)
		return 1;
	if (!(n = realloc(*buf, need)))
		return 0;
	*buf = n;
	*cap = need;
	return 1;
}

static int find(mt_gitpack *p, const unsigned char id[20], size_t *pack, uint64_t *off)
{
	for (size_t i = 0; i < p->npacks; i++) {
		int64_t o = lookup(&p->packs[i], id);
		if (o >= 0) {
			*pack = i;
			*off = (uint64_t)o;
			return 1;
		}
	}
	return 0;
}

static int unpack(mt_gitpack *p, size_t pack, uint64_t off, int depth, char **out, size_t *size,
		  int *type, uint64_t max, int for_caller);

/* An object that serves as a delta base, from the cache or unpacked (then
 * cached when small enough). *owned says the caller must free it. */
static const char *base_of(mt_gitpack *p, size_t pack, uint64_t off, int depth, size_t *size,
			   int *type, int *owned)
{
	struct slot *s = &p->cache[(off ^ off >> 9 ^ pack * 131) % CACHE_SLOTS];
	char *data = NULL;

	*owned = 0;
	if (s->data && s->off == off && s->pack == pack) {
		*size = s->size;
		*type = s->type;
		return s->data;
	}
	if (unpack(p, pack, off, depth, &data, size, type, UINT64_MAX, 0) != 1)
		return NULL;
	if (*size > CACHE_ITEM_MAX) {
		*owned = 1;
		return data;
	}
	if (p->cache_bytes + *size > CACHE_BYTES)
		cache_clear(p);
	free(s->data);
	p->cache_bytes -= s->data ? s->size : 0;
	*s = (struct slot){data, *size, pack, off, *type};
	p->cache_bytes += *size;
	return data;
}

/* A buffer of `need` bytes: for the caller of mt_gitpack_read() the spare
 * one it gave back (grown if need be), remembered as lent; for a delta base
 * a fresh one. */
static char *take_buffer(mt_gitpack *p, size_t need, int for_caller)
{
	char *buf;

	if (!for_caller)
		return malloc(need);
	if (p->spare && p->spare_cap < need) {
		free(p->spare);
		p->spare = NULL;
	}
	if (p->spare) {
		buf = p->spare;
		need = p->spare_cap;
		p->spare = NULL;
	} else {
		buf = malloc(need);
	}
	p->lent = buf;
	p->lent_cap = need;
	return buf;
}

static void drop(mt_gitpack *p, char *buf)
{
	if (buf && buf == p->lent)
		p->lent = NULL;
	free(buf);
}

/* 1 with the object (or *out NULL when it is over max), 0 for "ask
 * libgit2". */
static int unpack(mt_gitpack *p, size_t pack, uint64_t off, int depth, char **out, size_t *size,
		  int *type, uint64_t max, int for_caller)
{
	const struct pack *pk = &p->packs[pack];
	struct entry e = {0};
	char *buf;

	*out = NULL;
	if (depth > MAX_DEPTH || !parse_entry(&e, pk, off))
		return 0;
	/* deflate expands at most 1032:1: a larger size in the header is a
	 * corrupt or hostile pack, not something to allocate */
	if (e.size > (pk->data_len - 20 - e.data) * 1032 + 64)
		return 0;
	if (e.type != OBJ_OFS_DELTA && e.type != OBJ_REF_DELTA) {
		*type = e.type;
		*size = (size_t)e.size;
		if (e.size > max)
			return 1;
		if (e.size >= SIZE_MAX - 1)
			return 0;
		if (!(buf = take_buffer(p, (size_t)e.size + 1, for_caller)))
			return 0;
		if (!inflate_to(p, pk, e.data, buf, (size_t)e.size)) {
			drop(p, buf);
			return 0;
		}
		*out = buf;
		return 1;
	}

	/* a delta: its instructions first (they say the result's size), then
	 * the base, then the result */
	size_t base_pack = pack, base_size, dlen = (size_t)e.size;
	uint64_t base_off = e.base_off;
	const unsigned char *d, *dend;
	const char *base;
	int ok = 1, owned, base_type;
	uint64_t src_size, dst_size;

	if (e.type == OBJ_REF_DELTA && !find(p, e.base_id, &base_pack, &base_off))
		return 0;
	if (e.size >= SIZE_MAX / 2 || !grow(&p->delta, &p->delta_cap, dlen + 1) ||
	    !inflate_to(p, pk, e.data, p->delta, dlen))
		return 0;
	d = p->delta;
	dend = d + dlen;
	src_size = delta_varint(&d, dend, &ok);
	dst_size = delta_varint(&d, dend, &ok);
	/* each instruction byte yields at most 64 KiB (a copy of 0x10000) */
	if (!ok || dst_size >= SIZE_MAX - 1 || dst_size > (uint64_t)(dend - d) * 0x10000)
		return 0;
	if (dst_size > max) { /* the base's type is needed for the answer */
		if (!(base = base_of(p, base_pack, base_off, depth + 1, &base_size, type, &owned)))
			return 0;
		if (owned)
			free((char *)base);
		*size = (size_t)dst_size;
		return 1;
	}
	/* the base's unpacking reuses p->delta: keep ours aside */
	size_t ilen = (size_t)(dend - d);
	unsigned char *instr = malloc(ilen ? ilen : 1);
	if (!instr)
		return 0;
	memcpy(instr, d, ilen);
	base = base_of(p, base_pack, base_off, depth + 1, &base_size, &base_type, &owned);
	if (!base || base_size != src_size) {
		if (owned)
			free((char *)base);
		free(instr);
		return 0;
	}
	buf = take_buffer(p, (size_t)dst_size + 1, for_caller);
	ok = buf && apply_delta((const unsigned char *)base, base_size, instr, instr + ilen,
				(unsigned char *)buf, (size_t)dst_size);
	if (owned)
		free((char *)base);
	free(instr);
	if (!ok) {
		drop(p, buf);
		return 0;
	}
	*out = buf;
	*size = (size_t)dst_size;
	*type = base_type;
	return 1;
}

int mt_gitpack_read(mt_gitpack *p, const unsigned char id[20], int *type, char **data,
		    size_t *size, uint64_t max_size)
{
	size_t pack;
	uint64_t off;

	*data = NULL;
	*size = 0;
	if (!p || !find(p, id, &pack, &off))
		return 0;
	return unpack(p, pack, off, 0, data, size, type, max_size, 1);
}

int mt_gitpack_has(mt_gitpack *p, const unsigned char id[20])
{
	size_t pack;
	uint64_t off;

	return p && find(p, id, &pack, &off);
}

void mt_gitpack_release(mt_gitpack *p, char *data)
{
	if (!data)
		return;
	if (p && !p->spare && data == p->lent) {
		p->spare = data;
		p->spare_cap = p->lent_cap;
		p->lent = NULL;
		return;
	}
	free(data);
}
