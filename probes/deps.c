/* Dependency manifests -> mt_dependency lists (see deps.h for what each
 * parser reads and its limits), plus the YAML tree reader that findings.c
 * shares. Nothing here executes or follows anything. */
#define MT_DEPS_INTERNAL
#include "deps.h"
#include "embedded.h"
#include "error.h"
#include "util.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Bounds recursion on hostile input ("[[[[..." in YAML or TOML). */
#define DEPS_MAX_DEPTH 64

/* --- YAML tree ------------------------------------------------------------ */

struct yreader {
	yaml_parser_t parser;
	const char *name;
};

static mt_ynode *ynode_new(enum mt_ynode_kind kind, const yaml_mark_t *m)
{
	mt_ynode *n = calloc(1, sizeof(*n));

	if (!n)
		abort(); /* as mt_strdup: the trees are small */
	n->kind = kind;
	n->line = (uint32_t)m->line + 1;
	n->col = (uint32_t)m->column + 1;
	return n;
}

void mt_deps__yfree(mt_ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		mt_deps__yfree(n->kids[i]);
	free(n->kids);
	free(n->key);
	free(n->text);
	free(n);
}

static void ynode_append(mt_ynode *parent, mt_ynode *kid)
{
	if (parent->n == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		mt_ynode **kids = realloc(parent->kids, cap * sizeof(*kids));
		if (!kids)
			abort();
		parent->kids = kids;
		parent->cap = cap;
	}
	parent->kids[parent->n++] = kid;
}

const mt_ynode *mt_deps__yget(const mt_ynode *map, const char *key)
{
	if (!map || map->kind != MT_YNODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->kids[i]->key, key) == 0)
			return map->kids[i];
	return NULL;
}

static int yfail(const struct yreader *r, const yaml_mark_t *m, const char *what, const char *arg)
{
	return mt_error_set(MT_EINVALID, "%s:%zu:%zu: %s%s", r->name, m->line + 1, m->column + 1,
			    what, arg ? arg : "");
}

/* libyaml's own words at its own position. */
static int yproblem(const struct yreader *r)
{
	const yaml_parser_t *p = &r->parser;
	yaml_mark_t m = p->problem_mark;

	if (p->error == YAML_MEMORY_ERROR)
		return mt_error_set(MT_EIO, "%s: out of memory while reading YAML", r->name);
	if (p->error == YAML_READER_ERROR)
		return mt_error_set(MT_EINVALID, "%s: %s at byte %zu", r->name,
				    p->problem ? p->problem : "unreadable", p->problem_offset);
	if (p->context)
		return mt_error_set(MT_EINVALID, "%s:%zu:%zu: %s %s", r->name, m.line + 1,
				    m.column + 1, p->problem ? p->problem : "invalid YAML",
				    p->context);
	return yfail(r, &m, p->problem ? p->problem : "invalid YAML", NULL);
}

static int ynext(struct yreader *r, yaml_event_t *ev)
{
	return yaml_parser_parse(&r->parser, ev) ? 0 : yproblem(r);
}

static char *scalar_copy(const yaml_event_t *ev)
{
	size_t len = ev->data.scalar.length;
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, ev->data.scalar.value, len);
	s[len] = '\0';
	return s;
}

static int yread_node(struct yreader *r, yaml_event_t *ev, int depth, mt_ynode **out);

/* Reads items (or key/value pairs) up to the end event. */
static int yread_kids(struct yreader *r, mt_ynode *parent, int depth)
{
	yaml_event_type_t end = parent->kind == MT_YNODE_MAP ? YAML_MAPPING_END_EVENT
							     : YAML_SEQUENCE_END_EVENT;
	yaml_event_t ev;
	mt_ynode *kid;
	int error;

	for (;;) {
		char *key = NULL;
		yaml_mark_t km;
		if ((error = ynext(r, &ev)) < 0)
			return error;
		if (ev.type == end) {
			yaml_event_delete(&ev);
			return 0;
		}
		km = ev.start_mark;
		if (parent->kind == MT_YNODE_MAP) {
			if (ev.type != YAML_SCALAR_EVENT) {
				yaml_event_delete(&ev);
				return yfail(r, &km, "a key must be plain text", NULL);
			}
			key = scalar_copy(&ev);
			yaml_event_delete(&ev);
			if (mt_deps__yget(parent, key)) {
				error = yfail(r, &km, "duplicate key ", key);
				free(key);
				return error;
			}
			if ((error = ynext(r, &ev)) < 0) {
				free(key);
				return error;
			}
		}
		if ((error = yread_node(r, &ev, depth + 1, &kid)) < 0) {
			free(key);
			return error;
		}
		kid->key = key;
		kid->key_line = (uint32_t)km.line + 1;
		kid->key_col = (uint32_t)km.column + 1;
		ynode_append(parent, kid);
	}
}

/* Reads the node that starts with *ev, which it consumes. */
static int yread_node(struct yreader *r, yaml_event_t *ev, int depth, mt_ynode **out)
{
	int error = 0;

	*out = NULL;
	if (depth > DEPS_MAX_DEPTH)
		error = yfail(r, &ev->start_mark, "nested too deeply", NULL);
	else if (ev->type == YAML_ALIAS_EVENT)
		error = yfail(r, &ev->start_mark, "aliases are not supported: write the value out",
			      NULL);
	else if (ev->type == YAML_SCALAR_EVENT) {
		*out = ynode_new(MT_YNODE_SCALAR, &ev->start_mark);
		(*out)->text = scalar_copy(ev);
	} else {
		int map = ev->type == YAML_MAPPING_START_EVENT;
		*out = ynode_new(map ? MT_YNODE_MAP : MT_YNODE_LIST, &ev->start_mark);
		if ((error = yread_kids(r, *out, depth)) < 0) {
			mt_deps__yfree(*out);
			*out = NULL;
		}
	}
	yaml_event_delete(ev);
	return error;
}

/* Skips stream and document starts; an empty stream is an empty map. */
static int yread_document(struct yreader *r, mt_ynode **out)
{
	yaml_event_t ev;
	int error;

	while ((error = ynext(r, &ev)) == 0 && (ev.type == YAML_STREAM_START_EVENT ||
						 ev.type == YAML_DOCUMENT_START_EVENT))
		yaml_event_delete(&ev);
	if (error < 0)
		return error;
	if (ev.type == YAML_STREAM_END_EVENT) {
		*out = ynode_new(MT_YNODE_MAP, &ev.start_mark);
		yaml_event_delete(&ev);
		return 0;
	}
	if ((error = yread_node(r, &ev, 0, out)) < 0)
		return error;
	if ((error = ynext(r, &ev)) == 0) { /* the document end */
		yaml_event_delete(&ev);
		if ((error = ynext(r, &ev)) == 0 && ev.type != YAML_STREAM_END_EVENT)
			error = yfail(r, &ev.start_mark, "only one YAML document is allowed", NULL);
		if (error == 0)
			yaml_event_delete(&ev);
	}
	if (error < 0) {
		mt_deps__yfree(*out);
		*out = NULL;
	}
	return error;
}

int mt_deps__yread(mt_ynode **out, const char *text, size_t len, const char *name)
{
	struct yreader r = {.name = name};
	int error;

	*out = NULL;
	if (!yaml_parser_initialize(&r.parser))
		return mt_error_set(MT_EIO, "%s: out of memory while reading YAML", name);
	yaml_parser_set_input_string(&r.parser, (const unsigned char *)(text ? text : ""),
				     text ? len : 0);
	error = yread_document(&r, out);
	yaml_parser_delete(&r.parser);
	return error;
}

/* --- the dependency list ---------------------------------------------------- */

struct deplist {
	mt_dependency *v;
	size_t n, cap;
	const char *file;
};

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

static void deplist_add(struct deplist *l, const char *name, size_t nlen, const char *spec,
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

static int fail_line(const struct deplist *l, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_line(const struct deplist *l, uint32_t line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mt_error_set(MT_EINVALID, "%s:%u: %s", l->file, line, msg);
}

/* --- one requirement (PEP 508, pip's requirement-file syntax) ---------------- */

/* strchr for a set, where NUL (possible in the input) is never a member. */
static int in_set(int c, const char *set)
{
	return c > 0 && strchr(set, c) != NULL;
}

static int is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

static void trim(const char **s, size_t *len)
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
		for (*nlen = 0; egg + *nlen < end && is_name_char(egg[*nlen]); (*nlen)++)
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
	while (base + *nlen < end && is_name_char(base[*nlen]))
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
	trim(arg, alen);
	return 1;
}

static int add_url(struct deplist *l, const char *s, size_t len, const char *spec, size_t slen,
		   uint32_t line)
{
	size_t nlen;
	const char *name = url_name(s, len, &nlen);

	if (nlen)
		deplist_add(l, name, nlen, spec, slen, line, 0);
	return 0;
}

/* One requirement as pip reads a logical line of a requirements file
 * (comment already removed). Per-line options after the requirement
 * (` --hash=...`) are dropped from the spec. */
static int add_requirement(struct deplist *l, const char *s, size_t len, uint32_t line)
{
	const char *arg, *opts;
	size_t alen, n = 0, m;

	trim(&s, &len);
	if (len == 0)
		return 0;
	if (option_arg(s, len, "-r", "--requirement", &arg, &alen) ||
	    option_arg(s, len, "-c", "--constraint", &arg, &alen)) {
		if (alen)
			deplist_add(l, arg, alen, s, len, line, 1);
		return 0;
	}
	if (option_arg(s, len, "-e", "--editable", &arg, &alen))
		return add_url(l, arg, alen, s, len, line);
	if (s[0] == '-')
		return 0; /* --index-url, -f, --pre: not a package */
	if ((opts = memmem(s, len, " --", 3)) || (opts = memmem(s, len, "\t--", 3)))
		len = (size_t)(opts - s);
	trim(&s, &len);
	while (n < len && is_name_char(s[n]))
		n++;
	for (m = n; m < len && (s[m] == ' ' || s[m] == '\t'); m++)
		;
	/* PEP 508: a name, then extras, a version, `@ url`, markers or nothing */
	if (n && isalnum((unsigned char)s[0]) &&
	    ((m < len && in_set(s[m], "[@")) ||
	     (!is_archive(s, len) && (m == len || in_set(s[m], "<>=!~;(")))))
		deplist_add(l, s, n, s, len, line, 0);
	else if (looks_like_url(s, len)) /* https://, ./pkg, git+ssh://, a wheel */
		return add_url(l, s, len, s, len, line);
	else
		return fail_line(l, line, "not a requirement: '%.*s'", (int)(len > 60 ? 60 : len), s);
	return 0;
}

/* --- requirements*.txt --------------------------------------------------------- */

/* Cuts a comment: `#` at the start or after whitespace (pip's rule, which
 * keeps `#egg=` and `#subdirectory=` of URLs). */
static size_t uncomment(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '#' && (i == 0 || isspace((unsigned char)s[i - 1])))
			return i;
	return len;
}

static int parse_requirements(struct deplist *l, const char *text, size_t len)
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
		n = uncomment(s, n);
		if (n && s[n - 1] == '\\') { /* continues on the next line */
			mt_buf_put(&logical, s, n - 1);
			mt_buf_put(&logical, " ", 1);
			if (pos < len)
				continue;
			n = 0;
		} else {
			mt_buf_put(&logical, s, n);
		}
		error = add_requirement(l, mt_buf_cstr(&logical), logical.len, first);
		logical.len = 0;
	}
	mt_buf_dispose(&logical);
	return error;
}

/* --- pyproject.toml: a TOML subset --------------------------------------------- */

enum toml_role { ROLE_NONE, ROLE_REQUIREMENTS, ROLE_POETRY, ROLE_INCLUDE };

struct toml {
	const char *s;
	size_t len, pos;
	uint32_t line;
	struct deplist *out;
	char table[512]; /* the current [table] as a dotted path, keys unquoted */
};

static int toml_fail(const struct toml *t, const char *what)
{
	return fail_line(t->out, t->line, "%s", what);
}

/* fnmatch over a dotted path, `*` kept within one segment. */
static int path_is(const char *path, const char *pattern)
{
	return fnmatch(pattern, path, FNM_PATHNAME) == 0;
}

static enum toml_role toml_role(const char *path)
{
	char p[512];

	/* FNM_PATHNAME treats '/' as the separator: map '.' to '/'. */
	snprintf(p, sizeof(p), "%s", path);
	for (char *c = p; *c; c++)
		*c = *c == '.' ? '/' : *c == '/' ? '.' : *c;
	if (path_is(p, "project/dependencies") || path_is(p, "build-system/requires") ||
	    path_is(p, "project/optional-dependencies/*") || path_is(p, "dependency-groups/*"))
		return ROLE_REQUIREMENTS;
	if (path_is(p, "tool/poetry/dependencies") || path_is(p, "tool/poetry/dev-dependencies") ||
	    path_is(p, "tool/poetry/group/*/dependencies"))
		return ROLE_POETRY;
	if (path_is(p, "tool/setuptools/dynamic/dependencies/file") ||
	    path_is(p, "tool/setuptools/dynamic/optional-dependencies/*/file"))
		return ROLE_INCLUDE;
	return ROLE_NONE;
}

static int toml_peek(const struct toml *t, size_t ahead)
{
	return t->pos + ahead < t->len ? (unsigned char)t->s[t->pos + ahead] : -1;
}

static void toml_advance(struct toml *t)
{
	if (t->pos < t->len && t->s[t->pos] == '\n')
		t->line++;
	t->pos++;
}

/* Skips blanks; with `newlines`, also line breaks and comments. */
static void toml_skip(struct toml *t, int newlines)
{
	for (int c; (c = toml_peek(t, 0)) != -1;) {
		if (c == ' ' || c == '\t' || (newlines && (c == '\n' || c == '\r')))
			toml_advance(t);
		else if (newlines && c == '#')
			while ((c = toml_peek(t, 0)) != -1 && c != '\n')
				toml_advance(t);
		else
			break;
	}
}

static int toml_starts(const struct toml *t, const char *s)
{
	return t->len - t->pos >= strlen(s) && memcmp(t->s + t->pos, s, strlen(s)) == 0;
}

static void put_utf8(mt_buf *b, unsigned long cp)
{
	char u[4];
	size_t n = 0;

	if (cp < 0x80)
		u[n++] = (char)cp;
	else if (cp < 0x800) {
		u[n++] = (char)(0xC0 | (cp >> 6));
		u[n++] = (char)(0x80 | (cp & 0x3F));
	} else {
		u[n++] = (char)(0xE0 | ((cp >> 12) & 0x0F));
		u[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[n++] = (char)(0x80 | (cp & 0x3F));
	}
	mt_buf_put(b, u, n);
}

/* One escape after a backslash in a basic string. */
static void toml_escape(struct toml *t, mt_buf *b)
{
	int c = toml_peek(t, 0);
	char hex[5] = {0};

	if (c == 'u' && t->len - t->pos > 4) {
		memcpy(hex, t->s + t->pos + 1, 4);
		put_utf8(b, strtoul(hex, NULL, 16));
		t->pos += 5;
		return;
	}
	if (c == -1)
		return; /* the caller reports the unterminated string */
	if (c == '\n' || c == '\r' || c == ' ' || c == '\t') {
		/* a line-ending backslash trims the blanks and breaks after it */
		while ((c = toml_peek(t, 0)) == ' ' || c == '\t' || c == '\n' || c == '\r')
			toml_advance(t);
		return;
	}
	mt_buf_put(b, c == 'n' ? "\n" : c == 't' ? "\t" : (const char *)t->s + t->pos, 1);
	toml_advance(t);
}

/* A string of any of the four kinds, decoded into *b. */
static int toml_string(struct toml *t, mt_buf *b)
{
	char q = t->s[t->pos];
	int multi = toml_starts(t, q == '"' ? "\"\"\"" : "'''");
	size_t qlen = multi ? 3 : 1;

	t->pos += qlen;
	if (multi && toml_peek(t, 0) == '\n')
		toml_advance(t); /* a newline right after the opening quotes is dropped */
	for (;;) {
		int c = toml_peek(t, 0);
		if (c == -1 || (!multi && c == '\n'))
			return toml_fail(t, "unterminated string");
		if (c == q && (!multi || toml_starts(t, q == '"' ? "\"\"\"" : "'''"))) {
			t->pos += qlen;
			return 0;
		}
		toml_advance(t);
		if (c == '\\' && q == '"')
			toml_escape(t, b);
		else
			mt_buf_put(b, t->s + t->pos - 1, 1);
	}
}

/* A key (bare, quoted, dotted) appended to *path with '.' separators. */
static int toml_key(struct toml *t, mt_buf *path)
{
	for (;;) {
		int c = toml_peek(t, 0);
		if (path->len)
			mt_buf_put(path, ".", 1);
		if (c == '"' || c == '\'') {
			if (toml_string(t, path) < 0)
				return MT_EINVALID;
		} else {
			size_t start = t->pos;
			while ((c = toml_peek(t, 0)) != -1 && (isalnum(c) || c == '-' || c == '_'))
				t->pos++;
			if (t->pos == start)
				return toml_fail(t, "expected a key");
			mt_buf_put(path, t->s + start, t->pos - start);
		}
		toml_skip(t, 0);
		if (toml_peek(t, 0) != '.')
			return 0;
		t->pos++;
		toml_skip(t, 0);
	}
}

static int toml_value(struct toml *t, const char *path, int depth);

/* The key's last segment: the package name in a poetry table. */
static const char *last_segment(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot ? dot + 1 : path;
}

/* Emits a poetry dependency: the key is the name, the value's source text
 * (blanks collapsed) the spec. */
static void poetry_dep(struct toml *t, const char *name, size_t start, uint32_t line)
{
	mt_buf spec = MT_BUF_INIT;

	for (size_t i = start; i < t->pos; i++) {
		char c = isspace((unsigned char)t->s[i]) ? ' ' : t->s[i];
		if (c != ' ' || (spec.len && spec.ptr[spec.len - 1] != ' '))
			mt_buf_put(&spec, &c, 1);
	}
	if (strcmp(name, "python") != 0)
		deplist_add(t->out, name, strlen(name), mt_buf_cstr(&spec), spec.len, line, 0);
	mt_buf_dispose(&spec);
}

/* `key = value`, the key relative to `base` (a table path). */
static int toml_keyval(struct toml *t, const char *base, int depth)
{
	mt_buf path = MT_BUF_INIT, key = MT_BUF_INIT;
	uint32_t line;
	size_t start;
	char *dot;
	int error;

	mt_buf_puts(&path, base);
	if ((error = toml_key(t, &key)) < 0)
		goto cleanup;
	if (toml_peek(t, 0) != '=') {
		error = toml_fail(t, "expected '=' after a key");
		goto cleanup;
	}
	t->pos++;
	toml_skip(t, 0);
	if (path.len)
		mt_buf_put(&path, ".", 1);
	mt_buf_puts(&path, mt_buf_cstr(&key));
	start = t->pos;
	line = t->line;
	if ((error = toml_value(t, mt_buf_cstr(&path), depth + 1)) < 0)
		goto cleanup;
	/* `torch = ...` under [tool.poetry.dependencies], or the dotted
	 * `dependencies.torch = ...` under [tool.poetry] */
	if ((dot = strrchr(mt_buf_cstr(&path), '.')) != NULL) {
		*dot = '\0';
		if (toml_role(path.ptr) == ROLE_POETRY)
			poetry_dep(t, dot + 1, start, line);
	}
cleanup:
	mt_buf_dispose(&path);
	mt_buf_dispose(&key);
	return error;
}

static int toml_array(struct toml *t, const char *path, int depth)
{
	t->pos++; /* [ */
	for (;;) {
		int error;
		toml_skip(t, 1);
		if (toml_peek(t, 0) == ']')
			break;
		if ((error = toml_value(t, path, depth + 1)) < 0)
			return error;
		toml_skip(t, 1);
		if (toml_peek(t, 0) == ',')
			t->pos++;
		else if (toml_peek(t, 0) != ']')
			return toml_fail(t, "expected ',' or ']' in an array");
	}
	t->pos++;
	return 0;
}

/* Inline tables: newlines are allowed inside (TOML 1.1), to be lenient. */
static int toml_inline_table(struct toml *t, const char *path, int depth)
{
	t->pos++; /* { */
	for (;;) {
		int error;
		toml_skip(t, 1);
		if (toml_peek(t, 0) == '}')
			break;
		if ((error = toml_keyval(t, path, depth)) < 0)
			return error;
		toml_skip(t, 1);
		if (toml_peek(t, 0) == ',')
			t->pos++;
		else if (toml_peek(t, 0) != '}')
			return toml_fail(t, "expected ',' or '}' in an inline table");
	}
	t->pos++;
	return 0;
}

static int toml_string_value(struct toml *t, const char *path)
{
	mt_buf s = MT_BUF_INIT;
	uint32_t line = t->line;
	enum toml_role role = toml_role(path);
	int error = toml_string(t, &s);

	if (error == 0 && role == ROLE_REQUIREMENTS)
		error = add_requirement(t->out, mt_buf_cstr(&s), s.len, line);
	else if (error == 0 && role == ROLE_INCLUDE && s.len)
		deplist_add(t->out, s.ptr, s.len, s.ptr, s.len, line, 1);
	mt_buf_dispose(&s);
	return error;
}

/* Any value; strings where `path` expects requirements are emitted. */
static int toml_value(struct toml *t, const char *path, int depth)
{
	int c = toml_peek(t, 0);
	size_t start = t->pos;

	if (depth > DEPS_MAX_DEPTH)
		return toml_fail(t, "nested too deeply");
	if (c == '"' || c == '\'')
		return toml_string_value(t, path);
	if (c == '[')
		return toml_array(t, path, depth);
	if (c == '{')
		return toml_inline_table(t, path, depth);
	/* numbers, booleans, dates: skipped as a word */
	while ((c = toml_peek(t, 0)) != -1 && !in_set(c, " \t\r\n,]}#"))
		t->pos++;
	if (t->pos == start)
		return toml_fail(t, "expected a value");
	return 0;
}

/* `[table]` or `[[array.of.tables]]`. */
static int toml_header(struct toml *t)
{
	mt_buf path = MT_BUF_INIT;
	int array = toml_starts(t, "[[");
	uint32_t line = t->line;
	int error;

	t->pos += array ? 2 : 1;
	toml_skip(t, 0);
	if ((error = toml_key(t, &path)) < 0)
		goto cleanup;
	if (!toml_starts(t, array ? "]]" : "]")) {
		error = toml_fail(t, "expected ']' after a table name");
		goto cleanup;
	}
	t->pos += array ? 2 : 1;
	snprintf(t->table, sizeof(t->table), "%s", mt_buf_cstr(&path));
	/* [tool.poetry.dependencies.torch] declares torch */
	if (strchr(t->table, '.')) {
		char parent[sizeof(t->table)];
		snprintf(parent, sizeof(parent), "%s", t->table);
		*strrchr(parent, '.') = '\0';
		if (toml_role(parent) == ROLE_POETRY)
			deplist_add(t->out, last_segment(t->table), strlen(last_segment(t->table)),
				    "", 0, line, 0);
	}
cleanup:
	mt_buf_dispose(&path);
	return error;
}

static int parse_pyproject(struct deplist *l, const char *text, size_t len)
{
	struct toml t = {.s = text, .len = len, .line = 1, .out = l};
	int error = 0;

	while (error == 0) {
		toml_skip(&t, 1);
		if (toml_peek(&t, 0) == -1)
			break;
		if (toml_peek(&t, 0) == '[')
			error = toml_header(&t);
		else
			error = toml_keyval(&t, t.table, 0);
		if (error < 0)
			break;
		toml_skip(&t, 0);
		if (toml_peek(&t, 0) == '#')
			toml_skip(&t, 1);
		else if (toml_peek(&t, 0) != -1 && toml_peek(&t, 0) != '\n' &&
			 toml_peek(&t, 0) != '\r')
			error = toml_fail(&t, "expected the end of the line");
	}
	return error;
}

/* --- setup.py: string literals inside the requirement arguments ---------------- */

struct pyscan {
	const char *s;
	size_t len, pos;
	uint32_t line;
};

static int py_string_start(const struct pyscan *p, size_t *prefix)
{
	size_t i = p->pos;

	while (i < p->len && i - p->pos < 2 && in_set(p->s[i], "rRbBuUfF"))
		i++;
	*prefix = i - p->pos;
	return i < p->len && (p->s[i] == '"' || p->s[i] == '\'') &&
	       (p->pos == 0 || *prefix == 0 || !is_name_char(p->s[p->pos - 1]));
}

/* Reads a string literal at p->pos (prefix included) into *b (may be NULL). */
static int py_string(struct pyscan *p, size_t prefix, mt_buf *b)
{
	int raw = memchr(p->s + p->pos, 'r', prefix) || memchr(p->s + p->pos, 'R', prefix);
	char q;
	size_t qlen;

	p->pos += prefix;
	q = p->s[p->pos];
	qlen = p->len - p->pos >= 3 && p->s[p->pos + 1] == q && p->s[p->pos + 2] == q ? 3 : 1;
	p->pos += qlen;
	while (p->pos < p->len) {
		char c = p->s[p->pos];
		if (c == q && (qlen == 1 || (p->len - p->pos >= 3 && p->s[p->pos + 1] == q &&
					     p->s[p->pos + 2] == q))) {
			p->pos += qlen;
			return 0;
		}
		if (c == '\n' && qlen == 1)
			return MT_EINVALID;
		p->line += c == '\n';
		if (c == '\\' && p->pos + 1 < p->len) {
			if (raw && b)
				mt_buf_put(b, "\\", 1);
			c = p->s[++p->pos];
			p->line += c == '\n';
		}
		if (b)
			mt_buf_put(b, &c, 1);
		p->pos++;
	}
	return MT_EINVALID;
}

/* Skips blanks, newlines and comments. */
static void py_skip(struct pyscan *p)
{
	while (p->pos < p->len) {
		char c = p->s[p->pos];
		if (c == '#')
			while (p->pos < p->len && p->s[p->pos] != '\n')
				p->pos++;
		else if (isspace((unsigned char)c) || c == '\\') {
			p->line += c == '\n';
			p->pos++;
		} else
			break;
	}
}

static int is_requirement_keyword(const char *s, size_t n)
{
	static const char *const words[] = {"install_requires", "setup_requires", "tests_require",
					    "extras_require", NULL};
	for (const char *const *w = words; *w; w++)
		if (strlen(*w) == n && memcmp(*w, s, n) == 0)
			return 1;
	return 0;
}

/* A bracket on the stack: a call's parentheses hold arguments (a file name
 * in `open("requirements.txt")`), not requirements. */
struct py_bracket {
	char close;
	int call;
};

/* The brackets after `install_requires=`: strings directly inside lists,
 * tuples and dicts (not calls, not dict keys) are requirements. A
 * comprehension (`for`) makes the whole value dynamic: nothing is taken. */
static int py_collect(struct pyscan *p, struct deplist *l)
{
	struct py_bracket stack[DEPS_MAX_DEPTH];
	struct deplist found = {.file = l->file};
	int depth = 0, dynamic = 0, error = 0;

	do {
		char c = p->s[p->pos];
		size_t prefix;
		if (in_set(c, "[({") && depth < DEPS_MAX_DEPTH) {
			size_t b = p->pos;
			while (b > 0 && (p->s[b - 1] == ' ' || p->s[b - 1] == '\t'))
				b--;
			stack[depth].call = c == '(' && b > 0 && (is_name_char(p->s[b - 1]) ||
								  p->s[b - 1] == ')');
			stack[depth++].close = c == '[' ? ']' : c == '(' ? ')' : '}';
			p->pos++;
		} else if (in_set(c, "])}")) {
			depth -= depth > 0;
			p->pos++;
		} else if (py_string_start(p, &prefix)) {
			mt_buf s = MT_BUF_INIT;
			uint32_t line = p->line;
			int call = 0;
			if (py_string(p, prefix, &s) < 0)
				error = fail_line(l, line, "unterminated string");
			for (int i = 0; i < depth; i++)
				call |= stack[i].call;
			py_skip(p);
			if (!error && !call && (p->pos >= p->len || p->s[p->pos] != ':'))
				error = add_requirement(&found, mt_buf_cstr(&s), s.len, line);
			mt_buf_dispose(&s);
			continue;
		} else if (is_name_char(c)) {
			size_t start = p->pos;
			while (p->pos < p->len && is_name_char(p->s[p->pos]))
				p->pos++;
			dynamic |= p->pos - start == 3 && memcmp(p->s + start, "for", 3) == 0;
		} else
			p->pos++;
		py_skip(p);
	} while (depth > 0 && p->pos < p->len && error == 0);
	for (size_t i = 0; i < found.n && !error && !dynamic; i++) {
		deplist_add(l, found.v[i].name, strlen(found.v[i].name), found.v[i].spec,
			    strlen(found.v[i].spec), found.v[i].line, found.v[i].include);
	}
	mt_deps_free(found.v, found.n);
	return error;
}

/* After a requirement keyword: `=` (a keyword argument) or `:` (a dict
 * entry), then a bracket. */
static int py_after_keyword(struct pyscan *p, struct deplist *l)
{
	py_skip(p);
	if (p->pos >= p->len || (p->s[p->pos] != '=' && p->s[p->pos] != ':') ||
	    (p->pos + 1 < p->len && p->s[p->pos + 1] == '='))
		return 0;
	p->pos++;
	py_skip(p);
	if (p->pos < p->len && in_set(p->s[p->pos], "[({"))
		return py_collect(p, l);
	return 0;
}

static int parse_setup_py(struct deplist *l, const char *text, size_t len)
{
	struct pyscan p = {.s = text, .len = len, .line = 1};
	int error = 0;

	while (p.pos < p.len && error == 0) {
		size_t prefix, start = p.pos;
		mt_buf s = MT_BUF_INIT;
		if (p.s[p.pos] == '#' || isspace((unsigned char)p.s[p.pos])) {
			py_skip(&p);
		} else if (py_string_start(&p, &prefix)) {
			if (py_string(&p, prefix, &s) < 0)
				error = fail_line(l, p.line, "unterminated string");
			else if (is_requirement_keyword(s.ptr ? s.ptr : "", s.len))
				error = py_after_keyword(&p, l); /* {"install_requires": [...]} */
		} else if (is_name_char(p.s[p.pos])) {
			while (p.pos < p.len && is_name_char(p.s[p.pos]))
				p.pos++;
			if (is_requirement_keyword(p.s + start, p.pos - start))
				error = py_after_keyword(&p, l);
		} else {
			p.pos++;
		}
		mt_buf_dispose(&s);
	}
	return error;
}

/* --- setup.cfg --------------------------------------------------------------- */

struct cfg {
	struct deplist *out;
	char section[128];
	int take; /* the current key's values are requirements (2: files) */
};

/* Which keys hold requirements: 1 requirement lines, 0 not. */
static int cfg_key_takes(const struct cfg *c, const char *key, size_t n)
{
	static const char *const keys[] = {"install_requires", "setup_requires", "tests_require",
					   NULL};
	if (strcmp(c->section, "options.extras_require") == 0)
		return 1;
	if (strcmp(c->section, "options") != 0)
		return 0;
	for (const char *const *k = keys; *k; k++)
		if (strlen(*k) == n && memcmp(*k, key, n) == 0)
			return 1;
	return 0;
}

/* A value line of a requirement key: `file: a.txt, b.txt` lists includes. */
static int cfg_value(struct cfg *c, const char *s, size_t n, uint32_t line)
{
	n = uncomment(s, n);
	trim(&s, &n);
	if (n > 5 && memcmp(s, "file:", 5) == 0) {
		s += 5;
		n -= 5;
		while (n) {
			const char *comma = memchr(s, ',', n);
			size_t part = comma ? (size_t)(comma - s) : n;
			const char *f = s;
			size_t flen = part;
			trim(&f, &flen);
			if (flen)
				deplist_add(c->out, f, flen, f, flen, line, 1);
			s += part + (comma != NULL);
			n -= part + (comma != NULL);
		}
		return 0;
	}
	return add_requirement(c->out, s, n, line);
}

static int cfg_line(struct cfg *c, const char *s, size_t n, uint32_t line)
{
	const char *t = s, *sep;
	size_t tn = n;

	trim(&t, &tn);
	if (tn == 0 || t[0] == '#' || t[0] == ';')
		return 0;
	if (isspace((unsigned char)s[0]))
		return c->take ? cfg_value(c, t, tn, line) : 0; /* a continuation */
	if (t[0] == '[') {
		const char *end = memchr(t, ']', tn);
		if (!end)
			return fail_line(c->out, line, "expected ']' after a section name");
		snprintf(c->section, sizeof(c->section), "%.*s", (int)(end - t - 1), t + 1);
		c->take = 0;
		return 0;
	}
	for (sep = t; sep < t + tn && *sep != '=' && *sep != ':'; sep++)
		;
	if (sep == t + tn)
		return fail_line(c->out, line, "expected 'key = value': '%.*s'",
				 (int)(tn > 60 ? 60 : tn), t);
	{
		const char *k = t;
		size_t kn = (size_t)(sep - t);
		trim(&k, &kn);
		c->take = cfg_key_takes(c, k, kn);
	}
	return c->take ? cfg_value(c, sep + 1, tn - (size_t)(sep + 1 - t), line) : 0;
}

static int parse_setup_cfg(struct deplist *l, const char *text, size_t len)
{
	struct cfg c = {.out = l};
	uint32_t line = 0;
	size_t pos = 0;
	int error = 0;

	while (pos < len && error == 0) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + (nl != NULL);
		line++;
		if (n && s[n - 1] == '\r')
			n--;
		error = cfg_line(&c, s, n, line);
	}
	return error;
}

/* --- environment.yml -------------------------------------------------------------- */

/* `channel::name=1.2=build`, `name>=1.0`, `name 1.2.*`, `name[version='>=1']`. */
static void add_conda(struct deplist *l, const char *s, uint32_t line)
{
	const char *name = s, *colons;
	size_t n = 0;

	while ((colons = strstr(name, "::")))
		name = colons + 2;
	while (isspace((unsigned char)*name))
		name++;
	while (is_name_char(name[n]))
		n++;
	if (n)
		deplist_add(l, name, n, s, strlen(s), line, 0);
}

static int env_pip(struct deplist *l, const mt_ynode *pip)
{
	int error = 0;

	if (pip->kind != MT_YNODE_LIST)
		return fail_line(l, pip->line, "pip: must be a list of requirements");
	for (size_t i = 0; i < pip->n && error == 0; i++)
		if (pip->kids[i]->kind == MT_YNODE_SCALAR)
			error = add_requirement(l, pip->kids[i]->text, strlen(pip->kids[i]->text),
						pip->kids[i]->line);
	return error;
}

static int parse_environment(struct deplist *l, const char *text, size_t len)
{
	mt_ynode *root = NULL;
	const mt_ynode *deps;
	int error = mt_deps__yread(&root, text, len, l->file);

	if (error < 0)
		return error;
	if (root->kind != MT_YNODE_MAP) {
		error = fail_line(l, root->line, "the top level must be a map (name:, dependencies:)");
		goto cleanup;
	}
	if (!(deps = mt_deps__yget(root, "dependencies")))
		goto cleanup;
	if (deps->kind == MT_YNODE_SCALAR && deps->text[0] == '\0')
		goto cleanup; /* `dependencies:` with nothing */
	if (deps->kind != MT_YNODE_LIST) {
		error = fail_line(l, deps->line, "dependencies: must be a list");
		goto cleanup;
	}
	for (size_t i = 0; i < deps->n && error == 0; i++) {
		const mt_ynode *d = deps->kids[i], *pip = mt_deps__yget(d, "pip");
		if (d->kind == MT_YNODE_SCALAR)
			add_conda(l, d->text, d->line);
		else if (pip)
			error = env_pip(l, pip);
	}
cleanup:
	mt_deps__yfree(root);
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
	const mt_ynode *nm = mt_deps__yget(e, "name"), *ef = mt_deps__yget(e, "effort"),
		       *why = mt_deps__yget(e, "why");

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
	const mt_ynode *schema = mt_deps__yget(root, "schema");
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
	*packages = mt_deps__yget(root, "packages");
	if (!*packages || (*packages)->kind != MT_YNODE_LIST)
		return table_fail(name, *packages ? *packages : root, "packages must be a list");
	for (size_t i = 0; i < (*packages)->n; i++)
		if ((error = table_entry_check(name, (*packages)->kids[i])) < 0)
			return error;
	return 0;
}

static int entry_matches(const mt_ynode *e, const char *pkg)
{
	const mt_ynode *nm = mt_deps__yget(e, "name");

	if (nm->kind == MT_YNODE_SCALAR)
		return fnmatch(nm->text, pkg, 0) == 0;
	for (size_t i = 0; i < nm->n; i++)
		if (fnmatch(nm->kids[i]->text, pkg, 0) == 0)
			return 1;
	return 0;
}

/* Sets cuda_only, why and effort from the bundled table: the first entry
 * whose name matches wins. */
static int classify(struct deplist *l)
{
	char *text = NULL;
	mt_ynode *root = NULL;
	const mt_ynode *packages = NULL;
	int error;

	if ((error = mt_embedded_load(&text, mt_embedded_tables, "MTRIAL_TABLES_DIR",
				      "cuda_packages.yaml")) < 0 ||
	    (error = mt_deps__yread(&root, text, strlen(text), "cuda_packages.yaml")) < 0 ||
	    (error = table_check("cuda_packages.yaml", root, &packages)) < 0)
		goto cleanup;
	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = 0; j < packages->n && !l->v[i].include; j++) {
			const mt_ynode *e = packages->kids[j];
			if (!entry_matches(e, l->v[i].name))
				continue;
			l->v[i].cuda_only = 1;
			l->v[i].why = mt_strdup(mt_deps__yget(e, "why")->text);
			l->v[i].effort = mt_strdup(mt_deps__yget(e, "effort")->text);
			break;
		}
	}
cleanup:
	mt_deps__yfree(root);
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
	struct deplist l = {.file = path};
	enum manifest kind = manifest_of(path);
	int error;

	*out = NULL;
	*n = 0;
	text = text ? text : "";
	switch (kind) {
	case MAN_REQUIREMENTS: error = parse_requirements(&l, text, len); break;
	case MAN_PYPROJECT: error = parse_pyproject(&l, text, len); break;
	case MAN_SETUP_PY: error = parse_setup_py(&l, text, len); break;
	case MAN_SETUP_CFG: error = parse_setup_cfg(&l, text, len); break;
	case MAN_ENVIRONMENT: error = parse_environment(&l, text, len); break;
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
