#include "strtab.h"

#include <stdlib.h>
#include <string.h>

/* Eight bytes a step (the keys are dotted names of 10 to 40 bytes: FNV's
 * byte loop was most of a lookup), each word mixed by a multiply and a
 * shift; the table only needs the low bits spread. */
static uint64_t hash(uint64_t tag, const char *s, size_t n)
{
	uint64_t h = (tag + 1) * 0x9E3779B97F4A7C15ULL ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ h >> 29;
}

static mt_strtab_slot *probe(mt_strtab *t, uint64_t tag, const char *key, size_t len)
{
	size_t k = hash(tag, key, len) & (t->cap - 1);

	while (t->v[k].key && (t->v[k].tag != tag || t->v[k].len != len ||
			       memcmp(t->v[k].key, key, len) != 0))
		k = (k + 1) & (t->cap - 1);
	return &t->v[k];
}

/* Doubles the table (or makes the first) and places every slot again. */
static void grow(mt_strtab *t)
{
	mt_strtab_slot *old = t->v;
	size_t oldcap = t->cap;

	t->cap = t->cap ? t->cap * 2 : 512;
	t->v = calloc(t->cap, sizeof(*t->v));
	if (!t->v)
		abort();
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key)
			*probe(t, old[i].tag, old[i].key, old[i].len) = old[i];
	free(old);
}

mt_strtab_slot *mt_strtab_find(mt_strtab *t, uint64_t tag, const char *key, size_t len)
{
	if (2 * (t->n + 1) > t->cap) /* room for the key about to be claimed */
		grow(t);
	return probe(t, tag, key, len);
}

void mt_strtab_claim(mt_strtab *t, mt_strtab_slot *s, uint64_t tag, const char *key, size_t len)
{
	s->key = mt_arena_strndup(&t->keys, key, len);
	s->len = len;
	s->tag = tag;
	t->n++;
}

void mt_strtab_dispose(mt_strtab *t)
{
	free(t->v);
	mt_arena_free(t->keys);
	memset(t, 0, sizeof(*t));
}
