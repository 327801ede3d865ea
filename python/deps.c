/* Dependency manifests -> mt_dependency lists (see deps.h for what each
 * parser reads and its limits): the list itself, one requirement line,
 * requirements files, the CUDA package table and the choice of parser. The
 * other manifests are read in deps_toml.c, deps_setup.c and deps_conda.c.
 * Nothing here executes or follows anything. */
#include "deps.h"
#include "deps_int.h"
#include "embedded.h"
#include "error.h"
#include "util.h"
#include "ytree.h"

#include <ctype.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the dependency list ---------------------------------------------------- */

char *mt_deps_normalize(const char *name, size_t len)
{
	mt_buf b = MT_BUF_INIT;

	for (size_t i = 0; i < len; i++) {
		if (name[i] == '-' || name[i] == '_' || name[i] == '.') {
			if (b.len == 0 || b.ptr[b.len - 1] != '-')
				mt_buf_put(&b, "-", 1);
			continue;
		}
		char c = (char)tolower((unsigned char)name[i]);
		mt_buf_put(&b, &c, 1);
	}
	return mt_buf_detach(&b);
}

void mt_deps__add(struct mt_deplist *l, const char *name, size_t nlen, const char *spec,
		  size_t slen, uint32_t line, int include)
{
	mt_dependency *d;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		mt_dependency *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			abort();
		l->v = v;
		l->cap = cap;
	}
	d = &l->v[l->n++];
	memset(d, 0, sizeof(*d));
	d->name = include ? strndup(name, nlen) : mt_deps_normalize(name, nlen);
	d->spec = spec ? strndup(spec, slen) : NULL;
	d->file = mt_strdup(l->file);
	d->line = line;
	d->include = include;
	if (!d->name || (spec && !d->spec))
		abort();
}

void mt_deps_free(mt_dependency *deps, size_t n)
{
	for (size_t i = 0; deps && i < n; i++) {
		free(deps[i].name);
		free(deps[i].spec);
		free(deps[i].file);
		free(deps[i].why);
		free(deps[i].effort);
	}
	free(deps);
}

int mt_deps__fail(const struct mt_deplist *l, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mt_error_vat(MT_EINVALID, l->file, line, 0, fmt, ap);
	va_end(ap);
	return error;
}

/* --- one requirement (PEP 508, pip's requirement-file syntax) ---------------- */

int mt_deps__in_set(int c, const char *set)
{
	return c > 0 && strchr(set, c) != NULL;
}

int mt_deps__is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

void mt_deps__trim(const char **s, size_t *len)
{
	while (*len && isspace((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static int is_archive(const char *s, size_t len)
{
	return ends_with(s, len, ".whl") || ends_with(s, len, ".zip") ||
	       memmem(s, len, ".tar.", 5) != NULL;
}

/* The package a URL or path names: #egg=NAME, else a wheel or sdist file
 * name, else the last path component (a VCS repository), without .git and
 * @ref. Sets *nlen = 0 when nothing usable (`.`). */
static const char *url_name(const char *s, size_t len, size_t *nlen)
{
	const char *egg = memmem(s, len, "egg=", 4), *end = s + len, *base;

	if (egg) {
		egg += 4;
		for (*nlen = 0; egg + *nlen < end && mt_deps__is_name_char(egg[*nlen]); (*nlen)++)
			;
		return egg;
	}
	for (const char *p = s; p < end; p++)
		if (*p == '#' || *p == '?')
			end = p;
	while (end > s && end[-1] == '/')
		end--;
	base = end;
	while (base > s && base[-1] != '/' && base[-1] != ':')
		base--;
	for (const char *p = base; p < end; p++)
		if (*p == '@')
			end = p; /* repo.git@v1.0 */
	if (ends_with(base, (size_t)(end - base), ".git"))
		end -= 4;
	*nlen = 0;
	if (is_archive(base, (size_t)(end - base))) {
		/* name-1.0-py3-none-any.whl, name-1.0.tar.gz: the name ends at
		 * the first '-' that starts a version */
		for (const char *p = base; p < end; p++) {
			if (*p == '-' && p + 1 < end && isdigit((unsigned char)p[1])) {
				*nlen = (size_t)(p - base);
				return base;
			}
		}
	}
	while (base + *nlen < end && mt_deps__is_name_char(base[*nlen]))
		(*nlen)++;
	if (*nlen == (size_t)(end - base) && !(*nlen == 1 && *base == '.') &&
	    !(*nlen == 2 && base[0] == '.' && base[1] == '.'))
		return base;
	*nlen = 0;
	return base;
}

static int looks_like_url(const char *s, size_t len)
{
	static const char *const starts[] = {"git+", "hg+", "svn+", "bzr+", ".", "/", "file:", NULL};
	for (const char *const *p = starts; *p; p++)
		if (len >= strlen(*p) && memcmp(s, *p, strlen(*p)) == 0)
			return 1;
	return memmem(s, len, "://", 3) != NULL || is_archive(s, len);
}

/* `-r file`, `--requirement=file`, `-e url`: *arg is what follows. */
static int option_arg(const char *s, size_t len, const char *shrt, const char *lng,
		      const char **arg, size_t *alen)
{
	size_t ll = strlen(lng), sl = strlen(shrt), n;

	if (len > ll && memcmp(s, lng, ll) == 0 && (s[ll] == '=' || isspace((unsigned char)s[ll])))
		n = ll + 1;
	else if (len >= sl && memcmp(s, shrt, sl) == 0)
		n = sl;
	else
		return 0;
	*arg = s + n;
	*alen = len - n;
	mt_deps__trim(arg, alen);
	return 1;
}

static int add_url(struct mt_deplist *l, const char *s, size_t len, const char *spec, size_t slen,
		   uint32_t line)
{
	size_t nlen;
	const char *name = url_name(s, len, &nlen);

	if (nlen)
		mt_deps__add(l, name, nlen, spec, slen, line, 0);
	return 0;
}

/* One requirement as pip reads a logical line of a requirements file
 * (comment already removed). Per-line options after the requirement
 * (` --hash=...`) are dropped from the spec. */
int mt_deps__requirement(struct mt_deplist *l, const char *s, size_t len, uint32_t line)
{
	const char *arg, *opts;
	size_t alen, n = 0, m;

	mt_deps__trim(&s, &len);
	if (len == 0)
		return 0;
	if (option_arg(s, len, "-r", "--requirement", &arg, &alen) ||
	    option_arg(s, len, "-c", "--constraint", &arg, &alen)) {
		if (alen)
			mt_deps__add(l, arg, alen, s, len, line, 1);
		return 0;
	}
	if (option_arg(s, len, "-e", "--editable", &arg, &alen))
		return add_url(l, arg, alen, s, len, line);
	if (s[0] == '-')
		return 0; /* --index-url, -f, --pre: not a package */
	if ((opts = memmem(s, len, " --", 3)) || (opts = memmem(s, len, "\t--", 3)))
		len = (size_t)(opts - s);
	mt_deps__trim(&s, &len);
	while (n < len && mt_deps__is_name_char(s[n]))
		n++;
	for (m = n; m < len && (s[m] == ' ' || s[m] == '\t'); m++)
		;
	/* PEP 508: a name, then extras, a version, `@ url`, markers or nothing */
	if (n && isalnum((unsigned char)s[0]) &&
	    ((m < len && mt_deps__in_set(s[m], "[@")) ||
	     (!is_archive(s, len) && (m == len || mt_deps__in_set(s[m], "<>=!~;(")))))
		mt_deps__add(l, s, n, s, len, line, 0);
	else if (looks_like_url(s, len)) /* https://, ./pkg, git+ssh://, a wheel */
		return add_url(l, s, len, s, len, line);
	else
		return mt_deps__fail(l, line, "not a requirement: '%.*s'",
				     (int)(len > 60 ? 60 : len), s);
	return 0;
}

/* --- requirements*.txt --------------------------------------------------------- */

/* Cuts a comment: `#` at the start or after whitespace (pip's rule, which
 * keeps `#egg=` and `#subdirectory=` of URLs). */
size_t mt_deps__uncomment(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '#' && (i == 0 || isspace((unsigned char)s[i - 1])))
			return i;
	return len;
}

static int parse_requirements(struct mt_deplist *l, const char *text, size_t len)
{
	mt_buf logical = MT_BUF_INIT;
	uint32_t line = 0, first = 0;
	size_t pos = 0;
	int error = 0;

	while (pos < len && error == 0) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + (nl != NULL);
		line++;
		if (n && s[n - 1] == '\r')
			n--;
		if (logical.len == 0)
			first = line;
		n = mt_deps__uncomment(s, n);
		if (n && s[n - 1] == '\\') { /* continues on the next line */
			mt_buf_put(&logical, s, n - 1);
			mt_buf_put(&logical, " ", 1);
			if (pos < len)
				continue;
			n = 0;
		} else {
			mt_buf_put(&logical, s, n);
		}
		error = mt_deps__requirement(l, mt_buf_cstr(&logical), logical.len, first);
		logical.len = 0;
	}
	mt_buf_dispose(&logical);
	return error;
}

/* --- the CUDA package table ---------------------------------------------------- */

/* "name:LINE:COL: what" at the value. */
static int table_fail(const char *name, const mt_ynode *n, const char *what)
{
	return mt_error_set(MT_EINVALID, "%s:%u:%u: %s", name, n->line, n->col, what);
}

/* The same at a map member's key. */
static int table_fail_key(const char *name, const mt_ynode *n, const char *what)
{
	return mt_error_set(MT_EINVALID, "%s:%u:%u: %s", name, n->key_line, n->key_col, what);
}

static int is_effort(const char *s)
{
	static const char *const levels[] = {"none", "low", "medium", "high", NULL};
	return mt_str_in(s, levels);
}

/* Checks one entry of packages: name (text or list of text), effort, why. */
static int table_entry_check(const char *name, const mt_ynode *e)
{
	static const char *const keys[] = {"name", "effort", "why", NULL};
	const mt_ynode *nm = mt_ytree_get(e, "name"), *ef = mt_ytree_get(e, "effort"),
		       *why = mt_ytree_get(e, "why");

	if (e->kind != MT_YNODE_MAP)
		return table_fail(name, e, "a package must be a map (name:, effort:, why:)");
	for (size_t i = 0; i < e->n; i++)
		if (!mt_str_in(e->kids[i]->key, keys))
			return table_fail_key(name, e->kids[i],
					      "unknown key (expected name, effort, why)");
	if (!nm || !ef || !why)
		return table_fail(name, e, "a package needs name:, effort: and why:");
	if (ef->kind != MT_YNODE_SCALAR || !is_effort(ef->text))
		return table_fail(name, ef, "effort must be none, low, medium or high");
	if (why->kind != MT_YNODE_SCALAR)
		return table_fail(name, why, "why must be one line of text");
	for (size_t i = 0; nm->kind == MT_YNODE_LIST && i < nm->n; i++)
		if (nm->kids[i]->kind != MT_YNODE_SCALAR)
			return table_fail(name, nm->kids[i], "a name must be text");
	if (nm->kind == MT_YNODE_MAP)
		return table_fail(name, nm, "name must be text or a list of text");
	return 0;
}

static int table_check(const char *name, const mt_ynode *root, const mt_ynode **packages)
{
	static const char *const keys[] = {"schema", "sources", "packages", NULL};
	const mt_ynode *schema = mt_ytree_get(root, "schema");
	int error;

	if (root->kind != MT_YNODE_MAP)
		return table_fail(name, root, "the top level must be a map");
	for (size_t i = 0; i < root->n; i++)
		if (!mt_str_in(root->kids[i]->key, keys))
			return table_fail_key(name, root->kids[i],
					      "unknown key (expected schema, sources, packages)");
	if (!schema || schema->kind != MT_YNODE_SCALAR ||
	    strcmp(schema->text, "mtrial-cuda-packages/1") != 0)
		return table_fail(name, schema ? schema : root,
				  "schema must be mtrial-cuda-packages/1");
	*packages = mt_ytree_get(root, "packages");
	if (!*packages || (*packages)->kind != MT_YNODE_LIST)
		return table_fail(name, *packages ? *packages : root, "packages must be a list");
	for (size_t i = 0; i < (*packages)->n; i++)
		if ((error = table_entry_check(name, (*packages)->kids[i])) < 0)
			return error;
	return 0;
}

static int entry_matches(const mt_ynode *e, const char *pkg)
{
	const mt_ynode *nm = mt_ytree_get(e, "name");

	if (nm->kind == MT_YNODE_SCALAR)
		return fnmatch(nm->text, pkg, 0) == 0;
	for (size_t i = 0; i < nm->n; i++)
		if (fnmatch(nm->kids[i]->text, pkg, 0) == 0)
			return 1;
	return 0;
}

/* The last cuda_packages.yaml parsed, kept while its text stays the same:
 * a scan classifies every manifest of a repository, and parsing the table
 * again for each was most of the cost. A table that fails its checks is
 * not kept (each call reports it again). Guarded by table_lock, held
 * during a classification (it is short). */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char *text;
	mt_ytree *tree;
	const mt_ynode *packages;
} table;

/* Makes `table` hold `text`'s table (taking the text); table_lock held. */
static int table_use(char **text)
{
	mt_ytree *tree = NULL;
	const mt_ynode *packages = NULL;
	int error;

	if (table.text && strcmp(table.text, *text) == 0)
		return 0;
	if ((error = mt_ytree_parse_table(&tree, *text, strlen(*text), "cuda_packages.yaml")) < 0 ||
	    (error = table_check("cuda_packages.yaml", mt_ytree_root(tree), &packages)) < 0) {
		mt_ytree_free(tree);
		return error;
	}
	mt_ytree_free(table.tree);
	free(table.text);
	table.text = *text;
	table.tree = tree;
	table.packages = packages;
	*text = NULL;
	return 0;
}

/* Sets cuda_only, why and effort from the bundled table: the first entry
 * whose name matches wins. */
static int classify(struct mt_deplist *l)
{
	char *text = NULL;
	const mt_ynode *packages;
	int error;

	if ((error = mt_embedded_load(&text, mt_embedded_tables, "MTRIAL_TABLES_DIR",
				      "cuda_packages.yaml")) < 0)
		return error;
	pthread_mutex_lock(&table_lock);
	if ((error = table_use(&text)) < 0)
		goto cleanup;
	packages = table.packages;
	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = 0; j < packages->n && !l->v[i].include; j++) {
			const mt_ynode *e = packages->kids[j];
			if (!entry_matches(e, l->v[i].name))
				continue;
			l->v[i].cuda_only = 1;
			l->v[i].why = mt_strdup(mt_ytree_get(e, "why")->text);
			l->v[i].effort = mt_strdup(mt_ytree_get(e, "effort")->text);
			break;
		}
	}
cleanup:
	pthread_mutex_unlock(&table_lock);
	free(text);
	return error;
}

/* --- choosing the parser ------------------------------------------------------------- */

enum manifest { MAN_NONE, MAN_REQUIREMENTS, MAN_PYPROJECT, MAN_SETUP_PY, MAN_SETUP_CFG,
		MAN_ENVIRONMENT };

static enum manifest manifest_of(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t dirlen;

	base = base ? base + 1 : path;
	dirlen = (size_t)(base - path);
	if (strcmp(base, "pyproject.toml") == 0)
		return MAN_PYPROJECT;
	if (strcmp(base, "setup.py") == 0)
		return MAN_SETUP_PY;
	if (strcmp(base, "setup.cfg") == 0)
		return MAN_SETUP_CFG;
	if (fnmatch("environment*.yml", base, 0) == 0 || fnmatch("environment*.yaml", base, 0) == 0)
		return MAN_ENVIRONMENT;
	if (fnmatch("*requirements*.txt", base, 0) == 0 || fnmatch("*requirements*.in", base, 0) == 0)
		return MAN_REQUIREMENTS;
	if (fnmatch("*.txt", base, 0) == 0 && dirlen >= 13 &&
	    (memcmp(base - 13, "requirements/", 13) == 0) && (dirlen == 13 || base[-14] == '/'))
		return MAN_REQUIREMENTS;
	return MAN_NONE;
}

int mt_deps_is_manifest(const char *path)
{
	return manifest_of(path) != MAN_NONE;
}

int mt_deps_parse(mt_dependency **out, size_t *n, const char *path, const char *text, size_t len)
{
	struct mt_deplist l = {.file = path};
	enum manifest kind = manifest_of(path);
	int error;

	*out = NULL;
	*n = 0;
	text = text ? text : "";
	switch (kind) {
	case MAN_REQUIREMENTS: error = parse_requirements(&l, text, len); break;
	case MAN_PYPROJECT: error = mt_deps__pyproject(&l, text, len); break;
	case MAN_SETUP_PY: error = mt_deps__setup_py(&l, text, len); break;
	case MAN_SETUP_CFG: error = mt_deps__setup_cfg(&l, text, len); break;
	case MAN_ENVIRONMENT: error = mt_deps__environment(&l, text, len); break;
	default: return mt_error_set(MT_ENOTFOUND, "%s: not a dependency manifest", path);
	}
	if (error == 0)
		error = classify(&l);
	if (error < 0) {
		mt_deps_free(l.v, l.n);
		return error;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}
