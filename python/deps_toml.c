/* pyproject.toml -> dependencies: a TOML subset, enough for the tables
 * that declare packages (see deps.h for what is read and what is not). */
#include "deps.h"
#include "deps_int.h"
#include "error.h"
#include "util.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum toml_role { ROLE_NONE, ROLE_REQUIREMENTS, ROLE_POETRY, ROLE_INCLUDE };

struct toml {
	const char *s;
	size_t len, pos;
	uint32_t line;
	struct mt_deplist *out;
	char table[512]; /* the current [table] as a dotted path, keys unquoted */
};

static int toml_fail(const struct toml *t, const char *what)
{
	return mt_deps__fail(t->out, t->line, "%s", what);
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
	if (strcmp(name, "python") != 0) {
		mt_deps__add(t->out, name, strlen(name), mt_buf_cstr(&spec), spec.len, line, 0);
		t->out->v[t->out->n - 1].syntax = MT_DEP_POETRY;
	}
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
		error = mt_deps__requirement(t->out, mt_buf_cstr(&s), s.len, line);
	else if (error == 0 && role == ROLE_INCLUDE && s.len)
		mt_deps__add(t->out, s.ptr, s.len, s.ptr, s.len, line, 1);
	mt_buf_dispose(&s);
	return error;
}

/* Any value; strings where `path` expects requirements are emitted. */
static int toml_value(struct toml *t, const char *path, int depth)
{
	int c = toml_peek(t, 0);
	size_t start = t->pos;

	if (depth > MT_DEPS_MAX_DEPTH)
		return toml_fail(t, "nested too deeply");
	if (c == '"' || c == '\'')
		return toml_string_value(t, path);
	if (c == '[')
		return toml_array(t, path, depth);
	if (c == '{')
		return toml_inline_table(t, path, depth);
	/* numbers, booleans, dates: skipped as a word */
	while ((c = toml_peek(t, 0)) != -1 && !mt_deps__in_set(c, " \t\r\n,]}#"))
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
		if (toml_role(parent) == ROLE_POETRY) {
			mt_deps__add(t->out, last_segment(t->table), strlen(last_segment(t->table)),
				     "", 0, line, 0);
			t->out->v[t->out->n - 1].syntax = MT_DEP_POETRY;
		}
	}
cleanup:
	mt_buf_dispose(&path);
	return error;
}

int mt_deps__pyproject(struct mt_deplist *l, const char *text, size_t len)
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
