/* The parsed tree, shared only by spec.c (YAML -> tree, paths) and
 * spec_schema.c (the schema table: validation, JSON, template). Private to
 * mt_spec. The tree is common/ytree's, read with plain nulls (~, null) as
 * empty text; the names below are the ones spec_schema.c was written with. */
#ifndef MT_SPEC_INT_H
#define MT_SPEC_INT_H

#include "spec.h"
#include "ytree.h"
#include "util.h"

#include <stddef.h>

typedef mt_ynode mt_snode;
#define MT_SNODE_SCALAR MT_YNODE_SCALAR
#define MT_SNODE_MAP MT_YNODE_MAP
#define MT_SNODE_LIST MT_YNODE_LIST

/* The schema (spec_schema.c): one row per key; spec_template.c writes the
 * template from it. */
enum field_type { F_STRING, F_INTEGER, F_NUMBER, F_BOOLEAN, F_ENUM, F_MAP, F_DICT, F_LIST };

/* B_COUNT: 1 to COUNT_MAX (devices, hosts, batch sizes: every consumer reads
 * them into an int, and 0 of them is no system); B_AMOUNT: 0 or more (a
 * tolerance, a price, hours). Anything else is only bounded by its type. */
enum field_bound { B_ANY, B_COUNT, B_AMOUNT };
#define COUNT_MAX 2147483647LL

struct field {
	const char *path;          /* dotted; "*" is any item of a list */
	enum field_type type;
	int required;              /* must be present and not empty */
	const char *const *values; /* F_ENUM: the allowed values, NULL-terminated */
	const char *example;       /* F_DICT: a sample line for the template */
	const char *help;          /* one line: what it means, how to fill it */
	enum field_bound bound;    /* F_INTEGER, F_NUMBER: the values that make sense */
};

extern const struct field mt_spec__fields[];
extern const size_t mt_spec__nfields;

/* The schema's helpers the template shares: a list's item field, a key's
 * name under its parent, an enum's values written out, a value cut to fit
 * a message. */
const struct field *mt_spec__field_item(const struct field *list);
const char *mt_spec__child_key(const struct field *f, const struct field *parent);
void mt_spec__put_values(mt_buf *b, const char *const *values);
const char *mt_spec__shown(const char *text, char *buf, size_t size);

/* Checks the tree against the schema; MT_EINVALID, "name:line:col: ...". */
int mt_spec__validate(const mt_snode *root, const char *name);

/* The tree as JSON, scalars typed by the schema. New reference. */
json_t *mt_spec__json(const mt_snode *root);

#endif
