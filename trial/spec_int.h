/* The parsed tree, shared only by spec.c (YAML -> tree, paths) and
 * spec_schema.c (the schema table: validation, JSON, template). Private to
 * mt_spec. The tree is common/ytree's, read with plain nulls (~, null) as
 * empty text; the names below are the ones spec_schema.c was written with. */
#ifndef MT_SPEC_INT_H
#define MT_SPEC_INT_H

#include "spec.h"
#include "ytree.h"

typedef mt_ynode mt_snode;
#define MT_SNODE_SCALAR MT_YNODE_SCALAR
#define MT_SNODE_MAP MT_YNODE_MAP
#define MT_SNODE_LIST MT_YNODE_LIST

/* Checks the tree against the schema; MT_EINVALID, "name:line:col: ...". */
int mt_spec__validate(const mt_snode *root, const char *name);

/* The tree as JSON, scalars typed by the schema. New reference. */
json_t *mt_spec__json(const mt_snode *root);

#endif
