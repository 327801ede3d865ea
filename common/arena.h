/* A bump allocator: many small strings freed at once. Start with a NULL
 * pointer; mt_arena_free(NULL) is fine. Not thread-safe: one arena, one
 * thread at a time. */
#ifndef MT_ARENA_H
#define MT_ARENA_H

#include <stddef.h>

typedef struct mt_arena mt_arena;

/* n bytes, aligned for any scalar; aborts when memory runs out. */
void *mt_arena_alloc(mt_arena **a, size_t n);
/* A NUL-terminated copy of s[0..n). */
char *mt_arena_strndup(mt_arena **a, const char *s, size_t n);
/* A copy of s, or NULL for NULL. */
char *mt_arena_strdup(mt_arena **a, const char *s);
void mt_arena_free(mt_arena *a);

#endif
