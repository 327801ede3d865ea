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

/* Typed reads of the JSON that stays between layers (the report's model,
 * stored results and metrics): a missing key or a value of another type
 * reads as "none" (NULL, NAN, 0), never as a crash. Borrowed values. */

/* The string member `key` of object o, or NULL. */
const char *mt_json_str(const json_t *o, const char *key);

/* The number (integer or real) member `key` of o, or NAN. */
double mt_json_num(const json_t *o, const char *key);

/* The integer member `key` of o, or 0. */
json_int_t mt_json_int(const json_t *o, const char *key);

/* The value at a dotted path of objects ("target.value"), or NULL. */
json_t *mt_json_path(const json_t *o, const char *path);

/* The string at a dotted path of objects, or NULL. */
const char *mt_json_str_at(const json_t *o, const char *path);

#endif
