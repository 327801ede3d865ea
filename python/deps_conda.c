/* environment.yml -> dependencies: conda specs and the nested pip: list,
 * read as the bundled tables are (mt_ytree_parse_table). */
#include "deps.h"
#include "deps_int.h"
#include "error.h"
#include "util.h"
#include "ytree.h"

#include <ctype.h>
#include <string.h>

/* `channel::name=1.2=build`, `name>=1.0`, `name 1.2.*`, `name[version='>=1']`. */
static void add_conda(struct mt_deplist *l, const char *s, uint32_t line)
{
	const char *name = s, *colons;
	size_t n = 0;

	while ((colons = strstr(name, "::")))
		name = colons + 2;
	while (isspace((unsigned char)*name))
		name++;
	while (mt_deps__is_name_char(name[n]))
		n++;
	if (n) {
		mt_deps__add(l, name, n, s, strlen(s), line, 0);
		l->v[l->n - 1].syntax = MT_DEP_CONDA;
	}
}

static int env_pip(struct mt_deplist *l, const mt_ynode *pip)
{
	int error = 0;

	if (pip->kind != MT_YNODE_LIST)
		return mt_deps__fail(l, pip->line, "pip: must be a list of requirements");
	for (size_t i = 0; i < pip->n && error == 0; i++) {
		const mt_ynode *req = pip->kids[i];
		if (req->kind == MT_YNODE_SCALAR)
			error = mt_deps__requirement(l, req->text, strlen(req->text), req->line);
	}
	return error;
}

int mt_deps__environment(struct mt_deplist *l, const char *text, size_t len)
{
	mt_ytree *tree = NULL;
	const mt_ynode *root, *deps;
	int error = mt_ytree_parse_table(&tree, text, len, l->file);

	if (error < 0)
		return error;
	root = mt_ytree_root(tree);
	if (root->kind != MT_YNODE_MAP) {
		error = mt_deps__fail(l, root->line,
				      "the top level must be a map (name:, dependencies:)");
		goto cleanup;
	}
	if (!(deps = mt_ytree_get(root, "dependencies")))
		goto cleanup;
	if (deps->kind == MT_YNODE_SCALAR && deps->text[0] == '\0')
		goto cleanup; /* `dependencies:` with nothing */
	if (deps->kind != MT_YNODE_LIST) {
		error = mt_deps__fail(l, deps->line, "dependencies: must be a list");
		goto cleanup;
	}
	for (size_t i = 0; i < deps->n && error == 0; i++) {
		const mt_ynode *d = deps->kids[i], *pip = mt_ytree_get(d, "pip");
		if (d->kind == MT_YNODE_SCALAR)
			add_conda(l, d->text, d->line);
		else if (pip)
			error = env_pip(l, pip);
	}
cleanup:
	mt_ytree_free(tree);
	return error;
}
