/* Reading compatibility tables (docs/compat-tables.md). */
#include "compat.h"
#include "arena.h"
#include "embedded.h"
#include "error.h"
#include "util.h"
#include "ytree.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mt_compat_table {
	mt_arena *arena;
	const char *name, *backend, *version, *device, *kind, *retrieved, *source;
	mt_compat_op *ops; /* sorted by op */
	size_t nops;
	mt_compat_api *apis; /* in file order */
	const mt_compat_api **api_index; /* the same, sorted by api */
	size_t napis;
	mt_compat_rule *rules;
	size_t nrules;
};

static const char *const status_names[] = {"unknown", "device", "cpu_fallback", "unsupported",
					   "partial"};

const char *const mt_compat_status_order[] = {"unsupported", "partial", "cpu_fallback",
					      "unknown", "device", NULL};

const char *mt_compat_status_str(mt_compat_status s)
{
	return (unsigned)s < 5 ? status_names[s] : "unknown";
}

int mt_compat_status_parse(const char *s)
{
	for (int i = 0; s && i < 5; i++)
		if (strcmp(s, status_names[i]) == 0)
			return i;
	return -1;
}

static const char *const kind_names[] = {NULL, "native", "host-only", "process-group"};

const char *mt_compat_api_kind_str(mt_compat_api_kind k)
{
	return (unsigned)k < 4 ? kind_names[k] : NULL;
}

int mt_compat_api_kind_parse(const char *s)
{
	for (int i = 1; s && i < 4; i++)
		if (strcmp(s, kind_names[i]) == 0)
			return i;
	return -1;
}

/* --- validation --------------------------------------------------------------- */

struct reader {
	const char *name; /* for messages */
	mt_compat_table *t;
};

static int bad(const struct reader *rd, const mt_ynode *n, const char *fmt, const char *what)
{
	char msg[512];
	snprintf(msg, sizeof(msg), fmt, what);
	return mt_error_set(MT_EINVALID, "%s:%u:%u: %s", rd->name, n ? n->line : 1,
			    n ? n->col : 1, msg);
}

static int bad_key(const struct reader *rd, const mt_ynode *member, const char *where)
{
	char msg[512];
	snprintf(msg, sizeof(msg), "unknown key '%s' in %s", member->key, where);
	return mt_error_set(MT_EINVALID, "%s:%u:%u: %s", rd->name, member->key_line,
			    member->key_col, msg);
}

static int only_keys(const struct reader *rd, const mt_ynode *map, const char *where,
		     const char *const *allowed)
{
	for (size_t i = 0; i < map->n; i++)
		if (!mt_str_in(map->kids[i]->key, allowed))
			return bad_key(rd, map->kids[i], where);
	return 0;
}

/* A scalar member as an arena string; NULL when absent. `required` makes
 * absence an error naming the map. */
static int scalar(const struct reader *rd, const mt_ynode *map, const char *key, int required,
		  const char **out)
{
	const mt_ynode *n = mt_ytree_get(map, key);
	*out = NULL;
	if (!n || mt_ytree_is_null(n)) {
		if (!required)
			return 0;
		return mt_error_set(MT_EINVALID, "%s:%u:%u: '%s' is required", rd->name, map->line,
				    map->col, key);
	}
	if (n->kind != MT_YNODE_SCALAR)
		return bad(rd, n, "'%s' must be a single value", key);
	*out = mt_arena_strdup(&rd->t->arena, n->text);
	return 0;
}

/* A list of scalars as a NULL-terminated arena array (empty when absent). */
static int strv(const struct reader *rd, const mt_ynode *map, const char *key,
		const char *const **out)
{
	const mt_ynode *n = mt_ytree_get(map, key);
	const char **v;
	size_t count = n && n->kind == MT_YNODE_LIST ? n->n : 0;

	if (n && !mt_ytree_is_null(n) && n->kind != MT_YNODE_LIST)
		return bad(rd, n, "'%s' must be a list", key);
	v = mt_arena_alloc(&rd->t->arena, (count + 1) * sizeof(*v));
	for (size_t i = 0; i < count; i++) {
		if (n->kids[i]->kind != MT_YNODE_SCALAR)
			return bad(rd, n->kids[i], "items of '%s' must be single values", key);
		v[i] = mt_arena_strdup(&rd->t->arena, n->kids[i]->text);
	}
	v[count] = NULL;
	*out = v;
	return 0;
}

static const char *const no_strings[] = {NULL};

/* dtypes.fallback: dtype names as torch spells them without "torch."
 * (int64, bfloat16), as a dispatch trace records them. */
static int read_fallback(const struct reader *rd, const mt_ynode *d, const char *const **out)
{
	const mt_ynode *f = mt_ytree_get(d, "fallback");
	int error = strv(rd, d, "fallback", out);

	for (size_t i = 0; error == 0 && (*out)[i]; i++) {
		const char *s = (*out)[i];
		if (!islower((unsigned char)*s) ||
		    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(s))
			error = bad(rd, f->kids[i], "'%s' is not a dtype name (float32, int64, "
				    "bfloat16, ...)", s);
	}
	return error;
}

static int read_dtypes(const struct reader *rd, const mt_ynode *op, mt_compat_op *o)
{
	static const char *const keys[] = {"supported", "demoted", "fallback", NULL};
	const mt_ynode *d = mt_ytree_get(op, "dtypes");
	const mt_ynode *demoted;
	int error;

	o->dtypes_fallback = no_strings;
	if (!d || mt_ytree_is_null(d))
		return strv(rd, op, "dtypes", &o->dtypes_supported);
	if (d->kind != MT_YNODE_MAP)
		return bad(rd, d, "'%s' must be a map with supported, demoted and fallback",
			   "dtypes");
	if ((error = only_keys(rd, d, "dtypes", keys)) < 0 ||
	    (error = strv(rd, d, "supported", &o->dtypes_supported)) < 0 ||
	    (error = read_fallback(rd, d, &o->dtypes_fallback)) < 0)
		return error;
	demoted = mt_ytree_get(d, "demoted");
	if (demoted && !mt_ytree_is_null(demoted) && demoted->kind != MT_YNODE_MAP)
		return bad(rd, demoted, "'%s' must map a dtype to the one it runs as", "demoted");
	return 0;
}

/* A fallback limited to some dtypes says when an op runs on the CPU; on any
 * other status it would claim something the status contradicts. */
static int fallback_fits(const struct reader *rd, const mt_ynode *m, mt_compat_status st,
			 const char *const *fallback)
{
	if (!fallback[0] || st == MT_COMPAT_CPU_FALLBACK)
		return 0;
	return mt_error_set(MT_EINVALID, "%s:%u:%u: '%s' is %s but names dtypes.fallback (only a "
			    "cpu_fallback is limited to dtypes)", rd->name, m->key_line,
			    m->key_col, m->key, mt_compat_status_str(st));
}

/* The required status of an op or API entry (map m), never unknown. */
static int read_status(const struct reader *rd, const mt_ynode *m, mt_compat_status *out)
{
	const char *status;
	int st, error;

	if ((error = scalar(rd, m, "status", 1, &status)) < 0)
		return error;
	if ((st = mt_compat_status_parse(status)) <= 0)
		return bad(rd, mt_ytree_get(m, "status"), "unknown status '%s' (expected device, "
			   "cpu_fallback, unsupported or partial)", status);
	*out = (mt_compat_status)st;
	return 0;
}

static int partial_needs_conditions(const struct reader *rd, const mt_ynode *m,
				    const char *what, mt_compat_status st,
				    const char *const *conditions)
{
	if (st != MT_COMPAT_PARTIAL || conditions[0])
		return 0;
	return mt_error_set(MT_EINVALID, "%s:%u:%u: %s '%s' is partial but says no conditions",
			    rd->name, m->key_line, m->key_col, what, m->key);
}

static int read_op(const struct reader *rd, const mt_ynode *m, mt_compat_op *o)
{
	static const char *const keys[] = {"status", "conditions", "dtypes", "modes", "since",
					   "removed", "notes", NULL};
	int error;

	if (m->kind != MT_YNODE_MAP)
		return bad(rd, m, "op '%s' must be a map with at least a status", m->key);
	if (strncmp(m->key, "aten::", 6) != 0 && !strstr(m->key, "::"))
		return mt_error_set(MT_EINVALID, "%s:%u:%u: '%s' is not an operator name "
				    "(namespace::name, e.g. aten::add; a Python API goes under "
				    "apis)", rd->name, m->key_line, m->key_col, m->key);
	if ((error = only_keys(rd, m, m->key, keys)) < 0 ||
	    (error = read_status(rd, m, &o->status)) < 0)
		return error;
	o->op = mt_arena_strdup(&rd->t->arena, m->key);
	o->line = m->key_line;
	if ((error = strv(rd, m, "conditions", &o->conditions)) < 0 ||
	    (error = strv(rd, m, "modes", &o->modes)) < 0 || (error = read_dtypes(rd, m, o)) < 0 ||
	    (error = scalar(rd, m, "since", 0, &o->since)) < 0 ||
	    (error = scalar(rd, m, "removed", 0, &o->removed)) < 0 ||
	    (error = scalar(rd, m, "notes", 0, &o->notes)) < 0 ||
	    (error = partial_needs_conditions(rd, m, "op", o->status, o->conditions)) < 0)
		return error;
	return fallback_fits(rd, m, o->status, o->dtypes_fallback);
}

static int cmp_op(const void *a, const void *b)
{
	return strcmp(((const mt_compat_op *)a)->op, ((const mt_compat_op *)b)->op);
}

static int read_ops(const struct reader *rd, const mt_ynode *ops)
{
	mt_compat_table *t = rd->t;
	int error;

	if (!ops || mt_ytree_is_null(ops))
		return 0;
	if (ops->kind != MT_YNODE_MAP)
		return bad(rd, ops, "'%s' must map op names to their status", "ops");
	t->ops = mt_arena_alloc(&t->arena, (ops->n + 1) * sizeof(*t->ops));
	memset(t->ops, 0, (ops->n + 1) * sizeof(*t->ops));
	for (size_t i = 0; i < ops->n; i++)
		if ((error = read_op(rd, ops->kids[i], &t->ops[t->nops++])) < 0)
			return error;
	qsort(t->ops, t->nops, sizeof(*t->ops), cmp_op);
	return 0;
}

/* --- API entries ---------------------------------------------------------------- */

/* "torch.Tensor.abs": Python identifiers joined by dots, at least two. */
static int is_api_name(const char *s)
{
	int parts = 0;

	for (;;) {
		size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789_");
		if (!n || isdigit((unsigned char)*s))
			return 0;
		parts++;
		s += n;
		if (!*s)
			return parts >= 2;
		if (*s++ != '.')
			return 0;
	}
}

/* dtypes of an API entry: only {fallback: [...]}. */
static int read_api_dtypes(const struct reader *rd, const mt_ynode *m, mt_compat_api *a)
{
	static const char *const keys[] = {"fallback", NULL};
	const mt_ynode *d = mt_ytree_get(m, "dtypes");
	int error;

	a->fallback_dtypes = no_strings;
	if (!d || mt_ytree_is_null(d))
		return 0;
	if (d->kind != MT_YNODE_MAP)
		return bad(rd, d, "'%s' of an API must be a map: {fallback: [dtype, ...]}",
			   "dtypes");
	if ((error = only_keys(rd, d, "dtypes of an API", keys)) < 0)
		return error;
	return read_fallback(rd, d, &a->fallback_dtypes);
}

/* ops of an API entry: each an operator name. */
static int read_api_ops(const struct reader *rd, const mt_ynode *m, mt_compat_api *a)
{
	int error = strv(rd, m, "ops", &a->ops);

	for (size_t i = 0; error == 0 && a->ops[i]; i++)
		if (!strstr(a->ops[i], "::"))
			error = bad(rd, mt_ytree_get(m, "ops")->kids[i], "'%s' is not an operator "
				    "name (namespace::name, e.g. aten::cumsum)", a->ops[i]);
	return error;
}

static int read_api(const struct reader *rd, const mt_ynode *m, mt_compat_api *a)
{
	static const char *const keys[] = {"status", "kind", "ops", "dtypes", "conditions",
					   "notes", NULL};
	const char *kind;
	int k = 0, error;

	if (m->kind != MT_YNODE_MAP)
		return bad(rd, m, "API '%s' must be a map with at least a status", m->key);
	if (!is_api_name(m->key))
		return mt_error_set(MT_EINVALID, "%s:%u:%u: '%s' is not a fully qualified API "
				    "name (torch.Tensor.abs; an aten op goes under ops)", rd->name,
				    m->key_line, m->key_col, m->key);
	if ((error = only_keys(rd, m, m->key, keys)) < 0 ||
	    (error = read_status(rd, m, &a->status)) < 0 ||
	    (error = scalar(rd, m, "kind", 0, &kind)) < 0)
		return error;
	if (kind && (k = mt_compat_api_kind_parse(kind)) < 0)
		return bad(rd, mt_ytree_get(m, "kind"), "unknown kind '%s' (expected native, "
			   "host-only or process-group)", kind);
	a->api = mt_arena_strdup(&rd->t->arena, m->key);
	a->kind = kind ? (mt_compat_api_kind)k : MT_COMPAT_API_UNSPECIFIED;
	a->line = m->key_line;
	if ((error = read_api_ops(rd, m, a)) < 0 || (error = read_api_dtypes(rd, m, a)) < 0 ||
	    (error = strv(rd, m, "conditions", &a->conditions)) < 0 ||
	    (error = scalar(rd, m, "notes", 0, &a->notes)) < 0 ||
	    (error = partial_needs_conditions(rd, m, "API", a->status, a->conditions)) < 0)
		return error;
	return fallback_fits(rd, m, a->status, a->fallback_dtypes);
}

static int cmp_api(const void *a, const void *b)
{
	return strcmp((*(const mt_compat_api *const *)a)->api,
		      (*(const mt_compat_api *const *)b)->api);
}

static int read_apis(const struct reader *rd, const mt_ynode *apis)
{
	mt_compat_table *t = rd->t;
	int error;

	if (!apis || mt_ytree_is_null(apis))
		return 0;
	if (apis->kind != MT_YNODE_MAP)
		return bad(rd, apis, "'%s' must map API names to their status", "apis");
	t->apis = mt_arena_alloc(&t->arena, (apis->n + 1) * sizeof(*t->apis));
	t->api_index = mt_arena_alloc(&t->arena, (apis->n + 1) * sizeof(*t->api_index));
	memset(t->apis, 0, (apis->n + 1) * sizeof(*t->apis));
	for (size_t i = 0; i < apis->n; i++) {
		if ((error = read_api(rd, apis->kids[i], &t->apis[i])) < 0)
			return error;
		t->api_index[t->napis++] = &t->apis[i];
	}
	qsort(t->api_index, t->napis, sizeof(*t->api_index), cmp_api);
	return 0;
}

static int read_rules(const struct reader *rd, const mt_ynode *rules)
{
	static const char *const keys[] = {"id", "text", "applies", NULL};
	mt_compat_table *t = rd->t;
	int error;

	if (!rules || mt_ytree_is_null(rules))
		return 0;
	if (rules->kind != MT_YNODE_LIST)
		return bad(rd, rules, "'%s' must be a list", "rules");
	t->rules = mt_arena_alloc(&t->arena, (rules->n + 1) * sizeof(*t->rules));
	for (size_t i = 0; i < rules->n; i++) {
		const mt_ynode *r = rules->kids[i];
		mt_compat_rule *o = &t->rules[t->nrules++];
		if (r->kind != MT_YNODE_MAP)
			return bad(rd, r, "a rule must be a map with %s", "id and text");
		if ((error = only_keys(rd, r, "a rule", keys)) < 0 ||
		    (error = scalar(rd, r, "id", 1, &o->id)) < 0 ||
		    (error = scalar(rd, r, "text", 1, &o->text)) < 0 ||
		    (error = strv(rd, r, "applies", &o->applies)) < 0)
			return error;
		o->line = r->line;
	}
	return 0;
}

/* "repo path@commit", or the url, or both. */
static int read_source(const struct reader *rd, const mt_ynode *src)
{
	static const char *const keys[] = {"repository", "path", "commit", "url", NULL};
	const char *repo, *path, *commit, *url;
	mt_buf b = MT_BUF_INIT;
	int error;

	if (!src || src->kind != MT_YNODE_MAP)
		return bad(rd, src, "'%s' must name where the data came from (repository, path "
			   "and commit, or url)", "source");
	if ((error = only_keys(rd, src, "source", keys)) < 0 ||
	    (error = scalar(rd, src, "repository", 0, &repo)) < 0 ||
	    (error = scalar(rd, src, "path", 0, &path)) < 0 ||
	    (error = scalar(rd, src, "commit", 0, &commit)) < 0 ||
	    (error = scalar(rd, src, "url", 0, &url)) < 0)
		return error;
	if (!url && !(repo && path && commit))
		return bad(rd, src, "'%s' needs repository, path and commit, or a url", "source");
	if (repo)
		mt_buf_printf(&b, "%s %s@%s", repo, path, commit);
	if (url)
		mt_buf_printf(&b, "%s%s", b.len ? " " : "", url);
	rd->t->source = mt_arena_strdup(&rd->t->arena, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	return 0;
}

static int read_table(const struct reader *rd, const mt_ynode *root)
{
	static const char *const keys[] = {"schema", "name", "backend", "version", "device",
					   "kind", "source", "retrieved", "default", "note",
					   "rules", "ops", "apis", NULL};
	mt_compat_table *t = rd->t;
	const char *schema, *def, *note;
	int error;

	if (root->kind != MT_YNODE_MAP)
		return bad(rd, root, "a compatibility table must be a map (%s)",
			   "docs/compat-tables.md");
	if ((error = only_keys(rd, root, "the table", keys)) < 0 ||
	    (error = scalar(rd, root, "schema", 1, &schema)) < 0)
		return error;
	if (strcmp(schema, "mtrial-compat/1") != 0)
		return bad(rd, mt_ytree_get(root, "schema"), "schema '%s' is not mtrial-compat/1",
			   schema);
	if ((error = scalar(rd, root, "name", 1, &t->name)) < 0 ||
	    (error = scalar(rd, root, "backend", 1, &t->backend)) < 0 ||
	    (error = scalar(rd, root, "version", 1, &t->version)) < 0 ||
	    (error = scalar(rd, root, "device", 0, &t->device)) < 0 ||
	    (error = scalar(rd, root, "kind", 1, &t->kind)) < 0 ||
	    (error = scalar(rd, root, "retrieved", 1, &t->retrieved)) < 0 ||
	    (error = scalar(rd, root, "default", 0, &def)) < 0 ||
	    (error = scalar(rd, root, "note", 0, &note)) < 0)
		return error;
	if (strcmp(t->kind, "documented") != 0 && strcmp(t->kind, "observed") != 0)
		return bad(rd, mt_ytree_get(root, "kind"), "kind '%s' is neither documented nor "
			   "observed", t->kind);
	if (def && strcmp(def, "unknown") != 0)
		return bad(rd, mt_ytree_get(root, "default"), "default '%s': an op a table does "
			   "not list is unknown, never assumed", def);
	if ((error = read_source(rd, mt_ytree_get(root, "source"))) < 0 ||
	    (error = read_rules(rd, mt_ytree_get(root, "rules"))) < 0)
		return error;
	if ((error = read_ops(rd, mt_ytree_get(root, "ops"))) < 0)
		return error;
	return read_apis(rd, mt_ytree_get(root, "apis"));
}

/* --- loading -------------------------------------------------------------------- */

int mt_compat_parse(mt_compat_table **out, const char *text, size_t len, const char *name)
{
	mt_compat_table *t = calloc(1, sizeof(*t));
	struct reader rd = {name, t};
	mt_ytree *tree = NULL;
	int error;

	*out = NULL;
	if (!t)
		return mt_error_set(MT_EIO, "out of memory");
	if ((error = mt_ytree_parse(&tree, text, len, name, MT_YTREE_NULL_EMPTY, NULL)) == 0)
		error = read_table(&rd, mt_ytree_root(tree));
	mt_ytree_free(tree);
	if (error < 0) {
		mt_compat_free(t);
		return error;
	}
	*out = t;
	return 0;
}

/* Where imported and updated tables are kept. Caller frees. */
char *mt_compat_user_dir(void)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	mt_buf b = MT_BUF_INIT;
	if (xdg && *xdg)
		mt_buf_printf(&b, "%s/mtrial/tables", xdg);
	else
		mt_buf_printf(&b, "%s/.local/share/mtrial/tables", home && *home ? home : "/tmp");
	return mt_buf_detach(&b);
}

/* Where mt_compat_load finds a table: a file (*path, caller frees) or a
 * bundled text (*text, static); *file is "compat-NAME.yaml". */
static int locate(const char *name_or_path, char **path, const char **text, char file[512])
{
	char *dir;

	*path = NULL;
	*text = NULL;
	if (strchr(name_or_path, '/') || mt_path_exists(name_or_path)) {
		*path = mt_strdup(name_or_path);
		return 0;
	}
	snprintf(file, 512, "compat-%s.yaml", name_or_path);
	dir = mt_compat_user_dir();
	*path = mt_path_join(dir, file);
	free(dir);
	if (mt_path_exists(*path)) /* imported or updated: newer than the bundle */
		return 0;
	free(*path);
	*path = NULL;
	for (const struct mt_embedded *e = mt_embedded_tables; e->name; e++)
		if (strcmp(e->name, file) == 0) {
			*text = e->text;
			return 0;
		}
	return mt_error_set(MT_ENOTFOUND, "no compatibility table named '%s' (mtrial tables "
			    "list shows them)", name_or_path);
}

int mt_compat_load(mt_compat_table **out, const char *name_or_path)
{
	char file[512], *path, *text = NULL;
	const char *bundled;
	size_t len = 0;
	int error;

	*out = NULL;
	if ((error = locate(name_or_path, &path, &bundled, file)) < 0)
		return error;
	if (bundled)
		return mt_compat_parse(out, bundled, strlen(bundled), file);
	if ((error = mt_file_read(&text, &len, path)) == 0)
		error = mt_compat_parse(out, text, len, path);
	free(text);
	free(path);
	return error;
}

int mt_compat_read_text(char **out, size_t *len, const char *name_or_path)
{
	char file[512], *path;
	const char *bundled;
	int error;

	*out = NULL;
	if ((error = locate(name_or_path, &path, &bundled, file)) < 0)
		return error;
	if (bundled) {
		*out = mt_strdup(bundled);
		if (len)
			*len = strlen(bundled);
		return 0;
	}
	error = mt_file_read(out, len, path);
	free(path);
	return error;
}

void mt_compat_free(mt_compat_table *t)
{
	if (!t)
		return;
	mt_arena_free(t->arena);
	free(t);
}

const char *mt_compat_name(const mt_compat_table *t) { return t->name; }
const char *mt_compat_backend(const mt_compat_table *t) { return t->backend; }
const char *mt_compat_version(const mt_compat_table *t) { return t->version; }
const char *mt_compat_kind(const mt_compat_table *t) { return t->kind; }
const char *mt_compat_retrieved(const mt_compat_table *t) { return t->retrieved; }
const char *mt_compat_source(const mt_compat_table *t) { return t->source; }
size_t mt_compat_nops(const mt_compat_table *t) { return t->nops; }
size_t mt_compat_nrules(const mt_compat_table *t) { return t->nrules; }

const mt_compat_op *mt_compat_op_at(const mt_compat_table *t, size_t i)
{
	return i < t->nops ? &t->ops[i] : NULL;
}

const mt_compat_rule *mt_compat_rule_at(const mt_compat_table *t, size_t i)
{
	return i < t->nrules ? &t->rules[i] : NULL;
}

const mt_compat_op *mt_compat_lookup(const mt_compat_table *t, const char *op)
{
	mt_compat_op key = {.op = op};
	const mt_compat_op *hit = t->nops ? bsearch(&key, t->ops, t->nops, sizeof(*t->ops), cmp_op)
					  : NULL;
	const char *dot = strchr(op, '.');
	char base[256];

	if (hit || !dot || (size_t)(dot - op) >= sizeof(base))
		return hit;
	/* aten::add.Tensor falls back to aten::add */
	memcpy(base, op, (size_t)(dot - op));
	base[dot - op] = '\0';
	key.op = base;
	return t->nops ? bsearch(&key, t->ops, t->nops, sizeof(*t->ops), cmp_op) : NULL;
}

size_t mt_compat_napis(const mt_compat_table *t) { return t->napis; }

const mt_compat_api *mt_compat_api_at(const mt_compat_table *t, size_t i)
{
	return i < t->napis ? &t->apis[i] : NULL;
}

const mt_compat_api *mt_compat_lookup_api(const mt_compat_table *t, const char *api)
{
	mt_compat_api key = {.api = api};
	const mt_compat_api *k = &key, *const *hit;

	if (!t->napis || !api)
		return NULL;
	hit = bsearch(&k, t->api_index, t->napis, sizeof(*t->api_index), cmp_api);
	return hit ? *hit : NULL;
}

/* 1 when name is op, or op's base name ("aten::add" for "aten::add.Tensor"). */
static int names_op(const char *name, const char *op, size_t base_len)
{
	return strcmp(name, op) == 0 || (strlen(name) == base_len && !strncmp(name, op, base_len));
}

size_t mt_compat_apis_naming(const mt_compat_table *t, const char *op, const mt_compat_api **out,
			     size_t max)
{
	const char *colons = op ? strstr(op, "::") : NULL;
	const char *dot = strchr(colons ? colons + 2 : op ? op : "", '.');
	size_t base_len = dot ? (size_t)(dot - op) : op ? strlen(op) : 0, n = 0;

	for (size_t i = 0; op && i < t->napis; i++) {
		const mt_compat_api *a = &t->apis[i];
		size_t k = 0;
		while (a->ops[k] && !names_op(a->ops[k], op, base_len))
			k++;
		if (!a->ops[k])
			continue;
		if (n < max)
			out[n] = a;
		n++;
	}
	return n;
}

/* "compat-NAME.yaml" -> "NAME" (caller frees), NULL for other files. */
static char *name_of(const char *file)
{
	size_t len = strlen(file);
	char *name;

	if (strncmp(file, "compat-", 7) != 0 || len < 13 || strcmp(file + len - 5, ".yaml") != 0)
		return NULL;
	name = mt_strdup(file + 7);
	name[len - 12] = '\0';
	return name;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends name unless listed already; takes ownership. */
static void add_name(char ***v, size_t *n, size_t *cap, char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], name) == 0) {
			free(name);
			return;
		}
	if (*n + 2 > *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = realloc(*v, *cap * sizeof(**v));
		if (!*v)
			abort();
	}
	(*v)[(*n)++] = name;
	(*v)[*n] = NULL;
}

char **mt_compat_names(size_t *nuser)
{
	char *dir = mt_compat_user_dir(), **v = NULL, *name;
	size_t n = 0, cap = 0, user;
	DIR *d = opendir(dir);
	struct dirent *de;

	add_name(&v, &n, &cap, mt_strdup("")); /* keeps v non-NULL; removed below */
	n = 0;
	free(v[0]);
	v[0] = NULL;
	while (d && (de = readdir(d)))
		if ((name = name_of(de->d_name)))
			add_name(&v, &n, &cap, name);
	if (d)
		closedir(d);
	free(dir);
	user = n;
	qsort(v, user, sizeof(*v), cmp_name);
	if (nuser)
		*nuser = user;
	for (const struct mt_embedded *e = mt_embedded_tables; e->name; e++)
		if ((name = name_of(e->name)))
			add_name(&v, &n, &cap, name);
	return v;
}

void mt_compat_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

int mt_compat_is_bundled(const char *name)
{
	char file[300];
	snprintf(file, sizeof(file), "compat-%s.yaml", name);
	for (const struct mt_embedded *e = mt_embedded_tables; e->name; e++)
		if (strcmp(e->name, file) == 0)
			return 1;
	return 0;
}
