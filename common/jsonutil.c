#include "jsonutil.h"

#include <stdlib.h>
#include <string.h>

void mt_json_array_sort(json_t *arr, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(arr), i;
	json_t **items = malloc((n ? n : 1) * sizeof(*items));

	if (!items)
		return;
	for (i = 0; i < n; i++)
		items[i] = json_incref(json_array_get(arr, i));
	qsort(items, n, sizeof(*items), cmp);
	json_array_clear(arr);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, items[i]);
	free(items);
}

int mt_json_cmp_strings(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}
