#include "arena.h"

#include <stdlib.h>
#include <string.h>

struct mt_arena {
	struct mt_arena *next;
	size_t used, cap;
	max_align_t data[];
};

void *mt_arena_alloc(mt_arena **a, size_t n)
{
	mt_arena *c = *a;
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!c || c->cap - c->used < n) {
		/* 1 KiB first, doubling to 16 KiB: a scan keeps one arena per file
		 * until the end, most with a few hundred bytes in them */
		size_t want = c ? (c->cap >= 8192 ? 16384 : c->cap * 2) : 1024;
		size_t cap = n > want ? n : want;
		mt_arena *nc = malloc(sizeof(*nc) + cap);
		if (!nc)
			abort();
		nc->next = c;
		nc->used = 0;
		nc->cap = cap;
		*a = c = nc;
	}
	c->used += n;
	return (char *)c->data + c->used - n;
}

char *mt_arena_strndup(mt_arena **a, const char *s, size_t n)
{
	char *p = mt_arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *mt_arena_strdup(mt_arena **a, const char *s)
{
	return s ? mt_arena_strndup(a, s, strlen(s)) : NULL;
}

void mt_arena_free(mt_arena *a)
{
	while (a) {
		mt_arena *next = a->next;
		free(a);
		a = next;
	}
}
