/* POSIX tar (ustar) streams of regular files, gzip-compressed through
 * libdeflate, written and read whole in memory: what `mtrial bundle`
 * writes. The reader is strict, since a bundle comes from someone else:
 * every header's checksum, octal fields and size against the data present,
 * names that stay inside the directory they are read into (no absolute
 * path, no "." or ".." component, no control character), regular files
 * and directories only (no link, device or extended header), no name
 * twice, and gzip's CRC-32 and length. */
#ifndef MT_TAR_H
#define MT_TAR_H

#include <stddef.h>
#include <stdint.h>
#include "util.h"

/* The most a reader inflates: bundles are modest (a trial's record, its
 * logs and a report), and a gzip stream claiming more is refused before
 * anything is allocated for it. */
#define MT_TAR_MAX_SIZE ((uint64_t)512 << 20)
/* A name's longest form (ustar's prefix, '/', name). */
#define MT_TAR_NAME_MAX 255

/* Appends a regular file `name` (relative, '/'-separated, checked as the
 * reader checks it) of `len` bytes to the tar stream in `tar`; mtime is
 * seconds since the epoch. MT_EINVALID naming the entry for a name the
 * reader would refuse or ustar cannot hold. */
int mt_tar_add(mt_buf *tar, const char *name, const void *data, size_t len, int64_t mtime);

/* Ends the stream in `tar` (two zero blocks) and compresses it into *out
 * (caller frees, *len bytes) as one gzip member. */
int mt_tar_finish_gz(unsigned char **out, size_t *len, mt_buf *tar);

/* One regular file of a stream read. data points into the inflated
 * stream; name and data live as long as the mt_tar. */
typedef struct {
	const char *name;
	const unsigned char *data;
	size_t size;
} mt_tar_entry;

typedef struct {
	unsigned char *raw; /* the inflated stream */
	size_t raw_len;
	mt_tar_entry *entries; /* in the stream's order, n */
	size_t n;
} mt_tar;

/* Inflates gzip data `gz` (one member, nothing after it) and reads the
 * tar stream in it into *out (mt_tar_dispose it). MT_EINVALID with a
 * message naming the entry (its index and name) and the field that is
 * wrong, or the gzip fault; out is left empty then. */
int mt_tar_read_gz(mt_tar *out, const unsigned char *gz, size_t len);

/* Reads an uncompressed tar stream (copied) the same way. */
int mt_tar_read(mt_tar *out, const unsigned char *data, size_t len);

void mt_tar_dispose(mt_tar *t);

/* The entry named `name`, or NULL. */
const mt_tar_entry *mt_tar_find(const mt_tar *t, const char *name);

/* 0 when `name` may name a file inside the directory it is read into;
 * else MT_EINVALID saying why (the caller names the entry). */
int mt_tar_name_check(const char *name);

#endif
