/* Small helpers over jansson values shared by the libraries. */
#ifndef MT_JSONUTIL_H
#define MT_JSONUTIL_H

#include <jansson.h>

/* Sorts an array in place; cmp compares two `json_t *const *` as qsort's
 * does. */
void mt_json_array_sort(json_t *arr, int (*cmp)(const void *, const void *));

/* A comparison for arrays of strings (strcmp order). */
int mt_json_cmp_strings(const void *a, const void *b);

/* A JSON string of text read from outside (a journal row another tool
 * wrote, a file name): json_string() refuses text that is not UTF-8, and a
 * record would silently go missing from its view; here each bad byte
 * becomes U+FFFD instead. NULL gives null. New reference. */
json_t *mt_json_text(const char *s);

#endif
