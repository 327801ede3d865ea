/* A string-keyed hash table for the per-thread memos of a scan: the same
 * few hundred names (apis, methods, keywords) come back tens of thousands
 * of times. Keys are copied; nothing is removed. Not thread-safe. */
#ifndef MT_STRTAB_H
#define MT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct {
	const char *key; /* NULL: a free slot */
	size_t len;
	uint64_t tag;    /* part of the key: a namespace */
	uint64_t value;  /* the caller's */
	const void *ptr; /* the caller's */
} mt_strtab_slot;

typedef struct {
	mt_strtab_slot *v;
	size_t n, cap; /* cap: 0 or a power of two */
	mt_arena *keys;
} mt_strtab; /* zero-initialise */

/* The slot of (tag, key[0..len)): a filled one when the key is there,
 * else the free slot for it, to fill with mt_strtab_claim() before the
 * next find. */
mt_strtab_slot *mt_strtab_find(mt_strtab *t, uint64_t tag, const char *key, size_t len);

/* Makes a free slot from mt_strtab_find() hold the key (copied). */
void mt_strtab_claim(mt_strtab *t, mt_strtab_slot *s, uint64_t tag, const char *key, size_t len);

void mt_strtab_dispose(mt_strtab *t);

#endif
