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

/* "2026-11-29T14:30:05Z" shown as "2026-11-29 14:30" into buf. */
const char *jv_time(json_t *value, char *buf, size_t size);

#endif
