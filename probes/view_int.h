/* What the readers of probes/'s results into their views (probe_view.c,
 * scan_view.c, tracks_view.c, opinventory_view.c) share: room for an
 * array's items, and an array's strings. */
#ifndef MT_VIEW_INT_H
#define MT_VIEW_INT_H

#include <jansson.h>
#include <stdlib.h>

/* Zeroed room for n items (one at least, so a view's arrays are never
 * NULL); aborts when there is no memory, as the rest of the view would
 * be wrong. */
static inline void *mt_view_items(size_t n, size_t size)
{
	void *v = calloc(n + 1, size);

	if (!v)
		abort();
	return v;
}

/* The strings of an array (others skipped), borrowed; *n their count. */
static inline const char **mt_view_strings(const json_t *arr, size_t *n)
{
	const char **v = mt_view_items(json_array_size(arr), sizeof(*v));
	const json_t *x;
	size_t i;

	*n = 0;
	json_array_foreach(arr, i, x)
		if (json_is_string(x))
			v[(*n)++] = json_string_value(x);
	return v;
}

#endif
