/* setup.py and setup.cfg -> dependencies. setup.py is read, never run: the
 * string literals inside its requirement arguments; setup.cfg is INI. */
#include "deps.h"
#include "deps_int.h"
#include "error.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

struct pyscan {
	const char *s;
	size_t len, pos;
	uint32_t line;
};

static int py_string_start(const struct pyscan *p, size_t *prefix)
{
	size_t i = p->pos;

	while (i < p->len && i - p->pos < 2 && mt_deps__in_set(p->s[i], "rRbBuUfF"))
		i++;
	*prefix = i - p->pos;
	return i < p->len && (p->s[i] == '"' || p->s[i] == '\'') &&
	       (p->pos == 0 || *prefix == 0 || !mt_deps__is_name_char(p->s[p->pos - 1]));
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

/* The bracket at p->pos, which opens a call when a name or a `)` is
 * before it. */
static struct py_bracket py_bracket_at(const struct pyscan *p)
{
	char c = p->s[p->pos];
	size_t b = p->pos;

	while (b > 0 && (p->s[b - 1] == ' ' || p->s[b - 1] == '\t'))
		b--;
	return (struct py_bracket){
		.close = c == '[' ? ']' : c == '(' ? ')' : '}',
		.call = c == '(' && b > 0 &&
			(mt_deps__is_name_char(p->s[b - 1]) || p->s[b - 1] == ')'),
	};
}

/* The brackets after `install_requires=`: strings directly inside lists,
 * tuples and dicts (not calls, not dict keys) are requirements. A
 * comprehension (`for`) makes the whole value dynamic: nothing is taken. */
static int py_collect(struct pyscan *p, struct mt_deplist *l)
{
	struct py_bracket stack[MT_DEPS_MAX_DEPTH];
	struct mt_deplist found = {.file = l->file};
	int depth = 0, dynamic = 0, error = 0;

	do {
		char c = p->s[p->pos];
		size_t prefix;
		if (mt_deps__in_set(c, "[({") && depth < MT_DEPS_MAX_DEPTH) {
			stack[depth++] = py_bracket_at(p);
			p->pos++;
		} else if (mt_deps__in_set(c, "])}")) {
			depth -= depth > 0;
			p->pos++;
		} else if (py_string_start(p, &prefix)) {
			mt_buf s = MT_BUF_INIT;
			uint32_t line = p->line;
			int call = 0;
			if (py_string(p, prefix, &s) < 0)
				error = mt_deps__fail(l, line, "unterminated string");
			for (int i = 0; i < depth; i++)
				call |= stack[i].call;
			py_skip(p);
			if (!error && !call && (p->pos >= p->len || p->s[p->pos] != ':'))
				error = mt_deps__requirement(&found, mt_buf_cstr(&s), s.len, line);
			mt_buf_dispose(&s);
			continue;
		} else if (mt_deps__is_name_char(c)) {
			size_t start = p->pos;
			while (p->pos < p->len && mt_deps__is_name_char(p->s[p->pos]))
				p->pos++;
			dynamic |= p->pos - start == 3 && memcmp(p->s + start, "for", 3) == 0;
		} else
			p->pos++;
		py_skip(p);
	} while (depth > 0 && p->pos < p->len && error == 0);
	for (size_t i = 0; i < found.n && !error && !dynamic; i++) {
		mt_deps__add(l, found.v[i].name, strlen(found.v[i].name), found.v[i].spec,
			     strlen(found.v[i].spec), found.v[i].line, found.v[i].include);
	}
	mt_deps_free(found.v, found.n);
	return error;
}

/* After a requirement keyword: `=` (a keyword argument) or `:` (a dict
 * entry), then a bracket. */
static int py_after_keyword(struct pyscan *p, struct mt_deplist *l)
{
	py_skip(p);
	if (p->pos >= p->len || (p->s[p->pos] != '=' && p->s[p->pos] != ':') ||
	    (p->pos + 1 < p->len && p->s[p->pos + 1] == '='))
		return 0;
	p->pos++;
	py_skip(p);
	if (p->pos < p->len && mt_deps__in_set(p->s[p->pos], "[({"))
		return py_collect(p, l);
	return 0;
}

int mt_deps__setup_py(struct mt_deplist *l, const char *text, size_t len)
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
				error = mt_deps__fail(l, p.line, "unterminated string");
			else if (is_requirement_keyword(s.ptr ? s.ptr : "", s.len))
				error = py_after_keyword(&p, l); /* {"install_requires": [...]} */
		} else if (mt_deps__is_name_char(p.s[p.pos])) {
			while (p.pos < p.len && mt_deps__is_name_char(p.s[p.pos]))
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
	struct mt_deplist *out;
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
	n = mt_deps__uncomment(s, n);
	mt_deps__trim(&s, &n);
	if (n > 5 && memcmp(s, "file:", 5) == 0) {
		s += 5;
		n -= 5;
		while (n) {
			const char *comma = memchr(s, ',', n);
			size_t part = comma ? (size_t)(comma - s) : n;
			const char *f = s;
			size_t flen = part;
			mt_deps__trim(&f, &flen);
			if (flen)
				mt_deps__add(c->out, f, flen, f, flen, line, 1);
			s += part + (comma != NULL);
			n -= part + (comma != NULL);
		}
		return 0;
	}
	return mt_deps__requirement(c->out, s, n, line);
}

static int cfg_line(struct cfg *c, const char *s, size_t n, uint32_t line)
{
	const char *t = s, *sep;
	size_t tn = n;

	mt_deps__trim(&t, &tn);
	if (tn == 0 || t[0] == '#' || t[0] == ';')
		return 0;
	if (isspace((unsigned char)s[0]))
		return c->take ? cfg_value(c, t, tn, line) : 0; /* a continuation */
	if (t[0] == '[') {
		const char *end = memchr(t, ']', tn);
		if (!end)
			return mt_deps__fail(c->out, line, "expected ']' after a section name");
		snprintf(c->section, sizeof(c->section), "%.*s", (int)(end - t - 1), t + 1);
		c->take = 0;
		return 0;
	}
	for (sep = t; sep < t + tn && *sep != '=' && *sep != ':'; sep++)
		;
	if (sep == t + tn)
		return mt_deps__fail(c->out, line, "expected 'key = value': '%.*s'",
				     (int)(tn > 60 ? 60 : tn), t);
	{
		const char *k = t;
		size_t kn = (size_t)(sep - t);
		mt_deps__trim(&k, &kn);
		c->take = cfg_key_takes(c, k, kn);
	}
	return c->take ? cfg_value(c, sep + 1, tn - (size_t)(sep + 1 - t), line) : 0;
}

int mt_deps__setup_cfg(struct mt_deplist *l, const char *text, size_t len)
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
