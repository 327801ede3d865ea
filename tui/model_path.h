/* Reading the report model: values by dotted path ("spec.systems.baseline"),
 * scalars as text. Every returned json_t is borrowed from the model. */
#ifndef MT_TUI_MODEL_PATH_H
#define MT_TUI_MODEL_PATH_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* The value at path ("a.b.0.c": numbers index arrays), or NULL. */
json_t *jv_get(json_t *root, const char *path);

/* A scalar as text into buf ("12", "0.5", "true", the string itself); NULL
 * for null, a missing value, an empty string or a container. */
const char *jv_text(json_t *value, char *buf, size_t size);

/* jv_text of jv_get. */
const char *jv_str(json_t *root, const char *path, char *buf, size_t size);

/* An integer at path, or `dflt`. */
int64_t jv_int(json_t *root, const char *path, int64_t dflt);

/* A number (integer or real) at path, or NAN. */
double jv_num(json_t *root, const char *path);

/* The string at path as it is (an empty one too), or NULL. */
const char *jv_string(json_t *root, const char *path);

/* The same along a path through an array whose "*" stands for item i:
 * "scan.top_ops.*.op" with i 2 reads "scan.top_ops.2.op". A literal path
 * names every key a screen reads, so that tests/data/model/model_keys.py
 * pins it against the model (a "*" against its items). */
json_t *jv_get_at(json_t *root, const char *path, size_t i);
const char *jv_string_at(json_t *root, const char *path, size_t i);
int64_t jv_int_at(json_t *root, const char *path, size_t i, int64_t dflt);
double jv_num_at(json_t *root, const char *path, size_t i);

/* Two "*"s, for arrays in an array's items: item k of item i. */
json_t *jv_get_at2(json_t *root, const char *path, size_t i, size_t k);
const char *jv_string_at2(json_t *root, const char *path, size_t i, size_t k);

/* A "*" that stands for a member's name ("spec.tracks.*.base", "port"). */
json_t *jv_get_key(json_t *root, const char *path, const char *key);
const char *jv_str_key(json_t *root, const char *path, const char *key, char *buf, size_t size);
const char *jv_string_key(json_t *root, const char *path, const char *key);
int64_t jv_int_key(json_t *root, const char *path, const char *key, int64_t dflt);
double jv_num_key(json_t *root, const char *path, const char *key);

/* "2026-11-29T14:30:05Z" shown as "2026-11-29 14:30" into buf. */
const char *jv_time(json_t *value, char *buf, size_t size);

#endif
