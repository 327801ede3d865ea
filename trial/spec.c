/* trial.yaml -> a tree of maps, lists and scalars that remember where they
 * were written (common/ytree.c, at its strictest). What the keys mean is the
 * business of spec_schema.c; this file only knows the document's shape. */
#include "spec_int.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct mt_spec {
	mt_ytree *tree;
};

/* The top level is a map of keys; an empty file or document is named as
 * such, since that is what a fresh user sees first. */
static int check_root(const char *name, const mt_ynode *root)
{
	const char *what = "a single value";

	if (root->kind == MT_YNODE_MAP)
		return 0;
	if (root->kind == MT_YNODE_NONE)
		return mt_error_set(MT_EINVALID, "%s:%u:%u: the file is empty (expected keys such "
				    "as schema: and name:)", name, root->line, root->col);
	if (root->kind == MT_YNODE_SCALAR && root->text[0] == '\0')
		return mt_error_set(MT_EINVALID, "%s:%u:%u: the document is empty (expected keys "
				    "such as schema: and name:)", name, root->line, root->col);
	if (root->kind == MT_YNODE_LIST)
		what = "a list";
	return mt_error_set(MT_EINVALID, "%s:%u:%u: the top level must be a map of keys (schema:, "
			    "name:, ...), not %s", name, root->line, root->col, what);
}

int mt_spec_parse(mt_spec **out, const char *text, size_t len, const char *name)
{
	mt_ytree *tree = NULL;
	int error;

	*out = NULL;
	name = name ? name : "<input>";
	if ((error = mt_ytree_parse(&tree, text, len, name, MT_YTREE_NULL_EMPTY, NULL)) < 0)
		return error;
	if ((error = check_root(name, mt_ytree_root(tree))) < 0 ||
	    (error = mt_spec__validate(mt_ytree_root(tree), name)) < 0) {
		mt_ytree_free(tree);
		return error;
	}
	*out = calloc(1, sizeof(**out));
	if (!*out)
		abort();
	(*out)->tree = tree;
	return 0;
}

int mt_spec_load(mt_spec **out, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	int error;

	*out = NULL;
	if ((error = mt_file_read(&text, &len, path)) < 0)
		return error;
	error = mt_spec_parse(out, text, len, path);
	free(text);
	return error;
}

void mt_spec_free(mt_spec *spec)
{
	if (!spec)
		return;
	mt_ytree_free(spec->tree);
	free(spec);
}

/* A member of a map by key, or an item of a list by decimal index. */
static const mt_ynode *node_child(const mt_ynode *n, const char *part, size_t len)
{
	size_t index = 0;

	if (n->kind == MT_YNODE_MAP)
		return mt_ytree_getn(n, part, len);
	if (n->kind != MT_YNODE_LIST || len == 0 || len > 9)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (part[i] < '0' || part[i] > '9')
			return NULL;
		index = index * 10 + (size_t)(part[i] - '0');
	}
	return index < n->n ? n->kids[index] : NULL;
}

/* The node at a dotted path; "" or NULL is the top level. */
static const mt_ynode *node_at(const mt_spec *spec, const char *path)
{
	const mt_ynode *n = spec ? mt_ytree_root(spec->tree) : NULL;

	if (!path)
		return n;
	while (n && *path) {
		size_t len = strcspn(path, ".");
		n = node_child(n, path, len);
		path += len;
		if (*path == '.' && *++path == '\0')
			return NULL; /* "a." names nothing */
	}
	return n;
}

/* An empty value reads as NULL too: "not yet known" is not a fact, and
 * callers test for a filled-in value with a NULL check. */
const char *mt_spec_get(const mt_spec *spec, const char *path)
{
	const mt_ynode *n = node_at(spec, path);
	return n && n->kind == MT_YNODE_SCALAR && n->text[0] ? n->text : NULL;
}

int mt_spec_where(const mt_spec *spec, const char *path, unsigned *line, unsigned *col)
{
	const mt_ynode *n = node_at(spec, path);

	if (!n)
		return 0;
	*line = n->line;
	*col = n->col;
	return 1;
}

size_t mt_spec_count(const mt_spec *spec, const char *path)
{
	const mt_ynode *n = node_at(spec, path);
	return n && n->kind != MT_YNODE_SCALAR ? n->n : 0;
}

json_t *mt_spec_to_json(const mt_spec *spec)
{
	return spec ? mt_spec__json(mt_ytree_root(spec->tree)) : NULL;
}
