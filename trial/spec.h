/* trial.yaml: the trial's specification, read and written with libyaml.
 *
 * The schema (every key, its type and allowed values) is one static table in
 * spec_schema.c; parsing builds a tree of nodes that keep their line and
 * column, and validation walks the tree against the table, so an unknown key
 * or a wrong type is reported as "file:line:column: message". */
#ifndef MT_SPEC_H
#define MT_SPEC_H

#include <stddef.h>
#include <jansson.h>

#define MT_SPEC_SCHEMA_VERSION 1

typedef struct mt_spec mt_spec;

/* Reads and validates `path`. On failure returns MT_ENOTFOUND (no file) or
 * MT_EINVALID with mt_error_last() = "path:line:col: what is wrong". */
int mt_spec_load(mt_spec **out, const char *path);

/* Same, from memory; `name` is used in messages in place of a path. */
int mt_spec_parse(mt_spec **out, const char *text, size_t len, const char *name);

void mt_spec_free(mt_spec *spec);

/* The scalar at a dotted path ("quality_target.metric", "criteria.0.name"),
 * or NULL when absent, empty ("not yet known") or not a scalar. Borrowed:
 * lives as long as spec. */
const char *mt_spec_get(const mt_spec *spec, const char *path);

/* Where the value at a dotted path is written (1-based); 0 and the line and
 * column unchanged when absent. */
int mt_spec_where(const mt_spec *spec, const char *path, unsigned *line, unsigned *col);

/* Number of items in the list or keys in the map at path; 0 when absent. */
size_t mt_spec_count(const mt_spec *spec, const char *path);

/* The whole spec as JSON, scalars typed by the schema (integers, numbers,
 * booleans, strings; null for an empty value). New reference. */
json_t *mt_spec_to_json(const mt_spec *spec);

/* The commented trial.yaml that `mtrial init` writes, with every section of
 * the schema; `revision` may be NULL. Caller frees. The text it returns
 * always passes mt_spec_parse(). */
char *mt_spec_template(const char *name, const char *repository, const char *revision);

/* The allowed values of an enum field at a dotted schema path (list items as
 * "criteria.*.kind"), NULL-terminated, or NULL when the field is not an enum.
 * Borrowed, static. */
const char *const *mt_spec_enum_values(const char *path);

#endif
