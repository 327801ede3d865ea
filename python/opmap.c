#include "opmap.h"
#include "opmap_int.h"

#include "embedded.h"
#include "error.h"
#include "util.h"
#include "ytree.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the operator registry ------------------------------------------------ */

#define ATEN_NAME(i) (mt_aten_strings + mt_aten_recs[i].name)

/* The first schema whose name is not below `name` (lower bound). */
static size_t aten_lower(const char *name)
{
	size_t lo = 0, hi = mt_aten_nops;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ATEN_NAME(mid), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t mt_aten_lookup(const char *name, size_t *first)
{
	size_t lo = aten_lower(name), end = lo;

	while (end < mt_aten_nops && strcmp(ATEN_NAME(end), name) == 0)
		end++;
	if (first)
		*first = lo;
	return end - lo;
}

int mt_aten_registered(const char *name)
{
	return mt_aten_lookup(name, NULL) > 0;
}

size_t mt_aten_count(void)
{
	return mt_aten_nops;
}

int mt_aten_at(size_t i, mt_aten_op *out)
{
	const mt_aten_rec *r;

	if (i >= mt_aten_nops)
		return -1;
	r = &mt_aten_recs[i];
	out->name = mt_aten_strings + r->name;
	out->overload = mt_aten_strings + r->overload;
	out->schema = mt_aten_strings + r->schema;
	out->self_tensor = r->self_tensor;
	out->method = r->method;
	return 0;
}

const char *mt_aten_version(void)
{
	return mt_aten_torch_version;
}

char *mt_aten_unregistered_warning(const char *op)
{
	const char *colons = op ? strstr(op, "::") : NULL;
	const char *dot = colons ? strchr(colons + 2, '.') : NULL;
	mt_buf b = MT_BUF_INIT;

	if (!colons) /* a torch API (torch.cumsum) is no operator */
		return NULL;
	mt_buf_put(&b, op, dot ? (size_t)(dot - op) : strlen(op)); /* the base name */
	if (mt_aten_registered(mt_buf_cstr(&b))) {
		mt_buf_dispose(&b);
		return NULL;
	}
	mt_buf_printf(&b, " is not in the operator registry of libtorch %s (a typo, or an op of "
		      "a newer PyTorch)", mt_aten_version());
	return mt_buf_detach(&b);
}

/* "aten::" + prefix + name when registered: its first schema's index, else
 * -1. No aten name comes near 128 bytes, so a longer one is simply not
 * registered. */
static ptrdiff_t aten_by_name(const char *prefix, const char *name)
{
	char buf[128];
	size_t np = strlen(prefix), nn = strlen(name), first;

	/* no snprintf: every tensor method call of a scan comes through here */
	if (6 + np + nn >= sizeof(buf))
		return -1;
	memcpy(buf, "aten::", 6);
	memcpy(buf + 6, prefix, np);
	memcpy(buf + 6 + np, name, nn + 1);
	return mt_aten_lookup(buf, &first) ? (ptrdiff_t)first : -1;
}

/* --- the tables ------------------------------------------------------------ */

/* A sorted list of names (`not_tensor_methods`) with where each was read. */
struct namelist {
	mt_opmap_entry *v; /* only name, line and col are used */
	size_t n, cap;
};

struct by_name {
	char *ns;     /* "torch.linalg" */
	char *prefix; /* "linalg_" */
};

struct mt_opmap {
	struct namelist apis;    /* api_map.yaml `apis:`, sorted by name */
	struct namelist methods; /* tensor_methods.yaml `methods:`, sorted */
	struct namelist deny;    /* tensor_methods.yaml `not_tensor_methods:` */
	struct by_name *by_name;
	size_t nby_name;
	char *source[2];
};

static void entry_dispose(mt_opmap_entry *e)
{
	free((char *)e->name);
	free((char *)e->op);
	free((char *)e->why);
	free((char *)e->note);
	free((char *)e->also);
}

static void namelist_dispose(struct namelist *l)
{
	for (size_t i = 0; i < l->n; i++)
		entry_dispose(&l->v[i]);
	free(l->v);
}

static mt_opmap_entry *namelist_add(struct namelist *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		mt_opmap_entry *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			abort();
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

void mt_opmap_free(mt_opmap *m)
{
	if (!m)
		return;
	namelist_dispose(&m->apis);
	namelist_dispose(&m->methods);
	namelist_dispose(&m->deny);
	for (size_t i = 0; i < m->nby_name; i++) {
		free(m->by_name[i].ns);
		free(m->by_name[i].prefix);
	}
	free(m->by_name);
	free(m->source[0]);
	free(m->source[1]);
	free(m);
}

/* Compares the key p[0..n) + suffix with `name`, as strcmp would compare
 * the concatenation (p holds at least n bytes before its NUL). */
static int key_cmp(const char *p, size_t n, const char *suffix, const char *name)
{
	int c = strncmp(p, name, n);

	return c ? c : strcmp(suffix, name + n);
}

static const mt_opmap_entry *namelist_find(const struct namelist *l, const char *p, size_t n,
					   const char *suffix)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(p, n, suffix, l->v[mid].name);
		if (c == 0)
			return &l->v[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static const mt_opmap_entry *namelist_get(const struct namelist *l, const char *name)
{
	return namelist_find(l, name, strlen(name), "");
}

static int entry_order(const void *a, const void *b)
{
	const mt_opmap_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* --- reading YAML ---------------------------------------------------------- */

/* A table is read whole (common/ytree.c), then checked node by node in file
 * order. When the YAML breaks further down, the part read up to the break
 * is checked first, so that an earlier mistake is the one reported, as when
 * the tables were read event by event: every check of a value is made
 * once the value is there, and those that need the end of a map are skipped
 * for a map the reader was still inside (marked open). */
#define TABLE_YAML (MT_YTREE_ANCHORS | MT_YTREE_TAGS | MT_YTREE_NUL | MT_YTREE_DUPLICATES | \
		    MT_YTREE_PARTIAL)

struct reader {
	const char *file; /* "api_map.yaml", for messages */
	int methods;      /* 1 for tensor_methods.yaml */
	int cut;          /* the YAML broke: the tree ends early */
	mt_opmap *m;
};

static int fail_at(const struct reader *r, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_at(const struct reader *r, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mt_error_vat(MT_EINVALID, r->file, line, col, fmt, ap);
	va_end(ap);
	return error;
}

/* The reader's faults that the tables said in other words before
 * common/ytree.c; the rest read the same. Anchors, tags, NULs and keys
 * given twice pass the reader: a key twice is this file's to report. */
static int yaml_words(const struct reader *r, const mt_yfault *f, int error)
{
	switch (f->kind) {
	case MT_YFAULT_ENCODING:
		return fail_at(r, f->line, f->col, "%s", f->problem);
	case MT_YFAULT_ALIAS: /* a table has no use for them: an entry would mean two things */
		return fail_at(r, f->line, f->col, "aliases are not supported in tables");
	case MT_YFAULT_DOCUMENTS:
		return fail_at(r, f->line, f->col, "expected one document only");
	default:
		return error;
	}
}

/* The value must be a scalar with text; a copy in *out. */
static int read_text(const struct reader *r, const mt_ynode *n, const char *what, char **out)
{
	if (n->kind != MT_YNODE_SCALAR || mt_ytree_is_null(n))
		return fail_at(r, n->line, n->col, "%s must be text", what);
	*out = mt_strdup(n->text);
	return 0;
}

static int is_ident_char(int c)
{
	return isalnum(c) || c == '_';
}

/* "aten::linear": a namespace and a name, no overload. */
static int valid_op(const char *s)
{
	const char *sep = strstr(s, "::");

	if (!sep || sep == s || !sep[2])
		return 0;
	for (const char *p = s; *p; p++) {
		if (p == sep) {
			p++;
			continue;
		}
		if (!is_ident_char((unsigned char)*p))
			return 0;
	}
	return 1;
}

/* An api: dotted identifiers, optionally ending in ".*" (a wildcard). A
 * method: one identifier. */
static int valid_name(const char *s, int methods)
{
	size_t n = strlen(s);

	if (!methods && n > 2 && strcmp(s + n - 2, ".*") == 0)
		n -= 2;
	if (n == 0 || s[0] == '.' || s[n - 1] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.' && !methods && s[i + 1] != '.')
			continue;
		if (!is_ident_char((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

static int is_wildcard(const char *name)
{
	size_t n = strlen(name);
	return n > 2 && strcmp(name + n - 2, ".*") == 0;
}

/* --- entries ---------------------------------------------------------------- */

enum field { F_OP, F_WHY, F_NOTE, F_REGISTRY, F_ALSO, F_UNKNOWN };

static const char *const field_names[] = {"op", "why", "note", "registry", "also"};

static enum field field_of(const char *key, int methods)
{
	for (int f = F_OP; f < F_UNKNOWN; f++) {
		if (strcmp(key, field_names[f]) == 0)
			return (f == F_ALSO && !methods) ? F_UNKNOWN : (enum field)f;
	}
	return F_UNKNOWN;
}

/* An op: a valid "ns::name", or null (e->op stays NULL). */
static int read_op(const struct reader *r, const mt_ynode *n, mt_opmap_entry *e)
{
	if (n->kind != MT_YNODE_SCALAR)
		return fail_at(r, n->line, n->col, "op must be \"ns::name\" or null");
	if (mt_ytree_is_null(n))
		return 0;
	if (!valid_op(n->text))
		return fail_at(r, n->line, n->col,
			       "'%s' is not an operator name like aten::linear (no overload)",
			       n->text);
	e->op = mt_strdup(n->text);
	return 0;
}

static int read_field(const struct reader *r, const mt_ynode *n, mt_opmap_entry *e, enum field f)
{
	char *text = NULL;
	int error;

	if (f == F_OP)
		return read_op(r, n, e);
	if (f == F_REGISTRY) {
		if (n->kind != MT_YNODE_SCALAR || strcmp(n->text, "newer") != 0)
			return fail_at(r, n->line, n->col, "registry: can only be 'newer'");
		e->newer = 1;
		return 0;
	}
	if ((error = read_text(r, n, field_names[f], &text)))
		return error;
	if (f == F_WHY)
		e->why = text;
	else if (f == F_NOTE)
		e->note = text;
	else
		e->also = text;
	return 0;
}

/* What makes an entry coherent, checked once all of its keys are read. */
static int check_entry(const struct reader *r, const mt_opmap_entry *e, const mt_ynode *at)
{
	if (!e->op && !e->why)
		return fail_at(r, at->line, at->col, "'%s': an entry with op: null needs a why:",
			       e->name);
	if (e->op && e->why)
		return fail_at(r, at->line, at->col, "'%s': why: is for op: null; say it in note:",
			       e->name);
	if (e->newer && !e->op)
		return fail_at(r, at->line, at->col, "'%s': registry: newer needs an op", e->name);
	if (e->op && is_wildcard(e->name))
		return fail_at(r, at->line, at->col, "'%s': a wildcard entry must be op: null",
			       e->name);
	return 0;
}

/* {op: ..., why: ..., note: ..., registry: newer, also: ...}. */
static int read_entry_map(const struct reader *r, const mt_ynode *map, mt_opmap_entry *e)
{
	unsigned seen = 0;
	int error;

	for (size_t i = 0; i < map->n; i++) {
		const mt_ynode *k = map->kids[i];
		enum field f = k->key ? field_of(k->key, r->methods) : F_UNKNOWN;
		if (!k->key)
			return fail_at(r, k->key_line, k->key_col, "expected a key");
		if (f == F_UNKNOWN)
			return fail_at(r, k->key_line, k->key_col,
				       "unknown key '%s' (op, why, note, %s)", k->key,
				       r->methods ? "registry, also" : "registry");
		if (seen & (1u << f))
			return fail_at(r, k->key_line, k->key_col, "duplicate key '%s'", k->key);
		seen |= 1u << f;
		if (k->kind == MT_YNODE_NONE)
			return 0; /* the YAML broke here */
		if ((error = read_field(r, k, e, f)))
			return error;
	}
	if (map->open)
		return 0;
	if (!(seen & (1u << F_OP)))
		return fail_at(r, map->line, map->col,
			       "'%s': the entry has no op: (an op name or null)", e->name);
	return check_entry(r, e, map);
}

/* One `name: value` of apis: or methods:. */
static int read_entry(const struct reader *r, const mt_ynode *n, struct namelist *l)
{
	mt_opmap_entry *e;
	int error;

	if (!n->key || !valid_name(n->key, r->methods))
		return fail_at(r, n->key_line, n->key_col, "expected %s",
			       r->methods ? "a method name" : "a dotted API name");
	e = namelist_add(l);
	e->name = mt_strdup(n->key);
	e->line = n->key_line;
	e->col = n->key_col;
	if (n->kind == MT_YNODE_NONE)
		return 0;
	if (n->kind == MT_YNODE_MAP)
		return read_entry_map(r, n, e);
	if (n->kind != MT_YNODE_SCALAR)
		return fail_at(r, n->line, n->col, "'%s': expected an op or {op: ..., ...}",
			       e->name);
	if ((error = read_op(r, n, e)))
		return error;
	return check_entry(r, e, n);
}

static int read_entries(const struct reader *r, const mt_ynode *map, struct namelist *l)
{
	int error;

	if (map->kind != MT_YNODE_MAP)
		return fail_at(r, map->line, map->col, "expected a mapping of names to ops");
	for (size_t i = 0; i < map->n; i++)
		if ((error = read_entry(r, map->kids[i], l)))
			return error;
	return 0;
}

/* not_tensor_methods: a list of method names. */
static int read_deny(const struct reader *r, const mt_ynode *list, struct namelist *l)
{
	if (list->kind != MT_YNODE_LIST)
		return fail_at(r, list->line, list->col, "expected a list of method names");
	for (size_t i = 0; i < list->n; i++) {
		const mt_ynode *n = list->kids[i];
		if (n->kind != MT_YNODE_SCALAR || !valid_name(n->text, 1))
			return fail_at(r, n->line, n->col, "expected a method name");
		mt_opmap_entry *e = namelist_add(l);
		e->name = mt_strdup(n->text);
		e->line = n->line;
		e->col = n->col;
	}
	return 0;
}

/* by_name: {"torch.linalg": "linalg_", ...}: API namespaces whose lower-case
 * functions are named after their op. */
static int read_by_name(const struct reader *r, const mt_ynode *map, mt_opmap *m)
{
	int error;

	if (map->kind != MT_YNODE_MAP)
		return fail_at(r, map->line, map->col,
			       "expected a mapping of namespaces to prefixes");
	for (size_t i = 0; i < map->n; i++) {
		const mt_ynode *k = map->kids[i];
		char *prefix = NULL;
		if (!k->key || !valid_name(k->key, 0) || is_wildcard(k->key))
			return fail_at(r, k->key_line, k->key_col, "expected a dotted namespace");
		if (k->kind == MT_YNODE_NONE)
			return 0;
		if ((error = read_text(r, k, "an op prefix", &prefix)))
			return error;
		struct by_name *v = realloc(m->by_name, (m->nby_name + 1) * sizeof(*v));
		if (!v)
			abort();
		m->by_name = v;
		v[m->nby_name++] = (struct by_name){mt_strdup(k->key), prefix};
	}
	return 0;
}

/* --- a table file ----------------------------------------------------------- */

enum section { S_SOURCE, S_BY_NAME, S_APIS, S_METHODS, S_DENY, S_UNKNOWN };

static enum section section_of(const char *key, int methods)
{
	if (strcmp(key, "source") == 0)
		return S_SOURCE;
	if (!methods && strcmp(key, "by_name") == 0)
		return S_BY_NAME;
	if (!methods && strcmp(key, "apis") == 0)
		return S_APIS;
	if (methods && strcmp(key, "methods") == 0)
		return S_METHODS;
	if (methods && strcmp(key, "not_tensor_methods") == 0)
		return S_DENY;
	return S_UNKNOWN;
}

static int read_section(const struct reader *r, enum section s, const mt_ynode *n)
{
	switch (s) {
	case S_SOURCE:
		return read_text(r, n, "source", &r->m->source[r->methods]);
	case S_BY_NAME:
		return read_by_name(r, n, r->m);
	case S_APIS:
		return read_entries(r, n, &r->m->apis);
	case S_METHODS:
		return read_entries(r, n, &r->m->methods);
	case S_DENY:
		return read_deny(r, n, &r->m->deny);
	case S_UNKNOWN:
		break;
	}
	return MT_ERROR;
}

static int read_table(const struct reader *r, const mt_ynode *root)
{
	unsigned seen = 0;
	int error;

	if (root->kind == MT_YNODE_NONE) /* no document, or the YAML broke at once */
		return r->cut ? 0 : fail_at(r, root->line, root->col, "expected a YAML document");
	if (root->kind != MT_YNODE_MAP)
		return fail_at(r, root->line, root->col, "expected a mapping at the top");
	for (size_t i = 0; i < root->n; i++) {
		const mt_ynode *k = root->kids[i];
		enum section s = k->key ? section_of(k->key, r->methods) : S_UNKNOWN;
		if (s == S_UNKNOWN)
			return fail_at(r, k->key_line, k->key_col, "unknown section (expected %s)",
				       r->methods ? "source, methods, not_tensor_methods"
						  : "source, by_name, apis");
		if (seen & (1u << s))
			return fail_at(r, k->key_line, k->key_col, "duplicate section '%s'",
				       k->key);
		seen |= 1u << s;
		if (k->kind == MT_YNODE_NONE)
			return 0;
		if ((error = read_section(r, s, k)))
			return error;
	}
	return 0;
}

/* The file's name in messages: the path when read from $MTRIAL_TABLES_DIR. */
static char *display_name(const char *file)
{
	const char *dir = getenv("MTRIAL_TABLES_DIR");

	return (dir && *dir) ? mt_path_join(dir, file) : mt_strdup(file);
}

static int fail_entry(const char *file, const mt_opmap_entry *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_entry(const char *file, const mt_opmap_entry *e, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mt_error_vat(MT_EINVALID, file, e->line, e->col, fmt, ap);
	va_end(ap);
	return error;
}

/* Sorts a list for bsearch; a name twice is an error at its second place. */
static int sort_unique(struct namelist *l, const char *file)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(l->v[0]), entry_order);
	for (size_t i = 1; i < l->n; i++) {
		if (strcmp(l->v[i - 1].name, l->v[i].name) == 0)
			return fail_entry(file, &l->v[i], "'%s' again (first at line %u)",
					  l->v[i].name, l->v[i - 1].line);
	}
	return 0;
}

/* Once a file is read: sorted lists, no duplicates, and no method both
 * described and denied. */
static int check_file(mt_opmap *m, const char *file, int methods)
{
	int error;

	if (!methods)
		return sort_unique(&m->apis, file);
	if ((error = sort_unique(&m->methods, file)) || (error = sort_unique(&m->deny, file)))
		return error;
	for (size_t i = 0; i < m->deny.n; i++) {
		const mt_opmap_entry *e = &m->deny.v[i];
		if (namelist_get(&m->methods, e->name))
			return fail_entry(file, e, "'%s' is both under methods: and denied",
					  e->name);
	}
	return 0;
}

/* Reads and checks one table. A mistake found in what was read comes before
 * the place where the YAML broke, so its message replaces the reader's. */
static int check_table(mt_opmap *m, const char *file, const char *text, int methods)
{
	struct reader r = {.file = file, .methods = methods, .m = m};
	mt_ytree *tree = NULL;
	mt_yfault fault;
	int cut = mt_ytree_parse(&tree, text, strlen(text), file, TABLE_YAML, &fault);
	int error = 0;

	r.cut = cut < 0;
	if (tree)
		error = read_table(&r, mt_ytree_root(tree));
	if (!error && cut < 0)
		error = yaml_words(&r, &fault, cut);
	if (!error && !m->source[methods])
		error = fail_at(&r, 1, 1, "no source: saying where the table comes from");
	if (!error)
		error = check_file(m, file, methods);
	mt_ytree_free(tree);
	return error;
}

static int load_file(mt_opmap *m, const char *file, int methods)
{
	char *text = NULL, *shown = NULL;
	int error = mt_embedded_load(&text, mt_embedded_tables, "MTRIAL_TABLES_DIR", file);

	if (error)
		return error;
	shown = display_name(file);
	error = check_table(m, shown, text, methods);
	free(shown);
	free(text);
	return error;
}

/* --- the API ----------------------------------------------------------------- */

int mt_opmap_load(mt_opmap **out)
{
	mt_opmap *m = calloc(1, sizeof(*m));
	int error;

	*out = NULL;
	if (!m)
		return mt_error_set(MT_EIO, "out of memory");
	if ((error = load_file(m, "api_map.yaml", 0)) ||
	    (error = load_file(m, "tensor_methods.yaml", 1))) {
		mt_opmap_free(m);
		return error;
	}
	*out = m;
	return 0;
}

/* The longest wildcard entry ("torch.cuda.*") that covers api. */
static const mt_opmap_entry *api_wildcard(const mt_opmap *m, const char *api)
{
	for (size_t i = strlen(api); i-- > 0;) {
		if (api[i] != '.')
			continue;
		const mt_opmap_entry *e = namelist_find(&m->apis, api, i, ".*");
		if (e)
			return e;
	}
	return NULL;
}

const mt_opmap_entry *mt_opmap_api_entry(const mt_opmap *m, const char *api)
{
	const mt_opmap_entry *e = namelist_get(&m->apis, api);

	return e ? e : api_wildcard(m, api);
}

/* Rule 2: a lower-case function in a by_name namespace, named after its op. */
static const char *api_by_name(const mt_opmap *m, const char *api)
{
	const char *dot = strrchr(api, '.');
	ptrdiff_t op;

	if (!dot || !dot[1] || isupper((unsigned char)dot[1]))
		return NULL;
	for (size_t i = 0; i < m->nby_name; i++) {
		const struct by_name *b = &m->by_name[i];
		if (strlen(b->ns) != (size_t)(dot - api) || strncmp(b->ns, api, dot - api) != 0)
			continue;
		op = aten_by_name(b->prefix, dot + 1);
		return op >= 0 ? ATEN_NAME(op) : NULL;
	}
	return NULL;
}

const char *mt_opmap_api(const mt_opmap *m, const char *api, enum mt_op_kind *kind)
{
	const mt_opmap_entry *e = mt_opmap_api_entry(m, api);
	enum mt_op_kind k = MT_OP_UNKNOWN;
	const char *op = NULL;

	if (e) {
		op = e->op;
		k = op ? MT_OP_MAPPED : MT_OP_NOT_AN_OP;
	} else if ((op = api_by_name(m, api))) {
		k = MT_OP_BY_NAME;
	}
	if (kind)
		*kind = k;
	return op;
}

const mt_opmap_entry *mt_opmap_method_entry(const mt_opmap *m, const char *name)
{
	return namelist_get(&m->methods, name);
}

const char *mt_opmap_method(const mt_opmap *m, const char *name, enum mt_op_kind *kind)
{
	enum mt_op_kind k = MT_OP_UNKNOWN;
	const char *op = NULL;

	if (!namelist_get(&m->deny, name)) {
		const mt_opmap_entry *e = namelist_get(&m->methods, name);
		ptrdiff_t a;
		if (e) {
			op = e->op;
			k = op ? MT_OP_MAPPED : MT_OP_NOT_AN_OP;
		} else if ((a = aten_by_name("", name)) >= 0 && mt_aten_recs[a].method) {
			op = ATEN_NAME(a);
			k = MT_OP_BY_NAME;
		}
	}
	if (kind)
		*kind = k;
	return op;
}

int mt_opmap_is_tensor_method(const mt_opmap *m, const char *name)
{
	enum mt_op_kind kind;

	mt_opmap_method(m, name, &kind);
	return kind != MT_OP_UNKNOWN;
}

const mt_opmap_entry *mt_opmap_entry_at(const mt_opmap *m, int methods, size_t i)
{
	const struct namelist *l = methods ? &m->methods : &m->apis;

	return i < l->n ? &l->v[i] : NULL;
}

const char *mt_opmap_source(const mt_opmap *m, int methods)
{
	return m->source[methods ? 1 : 0];
}

const char *mt_op_kind_str(enum mt_op_kind kind)
{
	switch (kind) {
	case MT_OP_MAPPED:
		return "mapped";
	case MT_OP_BY_NAME:
		return "by-name";
	case MT_OP_NOT_AN_OP:
		return "not-an-op";
	case MT_OP_UNKNOWN:
		break;
	}
	return "unknown";
}
