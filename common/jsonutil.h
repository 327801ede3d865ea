/* Small helpers over jansson values shared by the libraries. */
#ifndef MT_JSONUTIL_H
#define MT_JSONUTIL_H

#include <jansson.h>

/* Sorts an array in place; cmp compares two `json_t *const *` as qsort's
 * does. */
void mt_json_array_sort(json_t *arr, int (*cmp)(const void *, const void *));

/* A comparison for arrays of strings (strcmp order). */
int mt_json_cmp_strings(const void *a, const void *b);

#endif
