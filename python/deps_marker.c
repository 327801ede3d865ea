/* PEP 508 environment markers, judged for the target: Linux on x86_64 (the
 * trn1/trn2 hosts), CPython 3 of a version the requirement does not know.
 * Three-valued: a marker that tests what the target does not fix (the
 * Python version, an extra) is unknown, never guessed. */
#include "deps.h"

#include <ctype.h>
#include <string.h>

struct mk {
	const char *s;
	size_t i, n;
	int bad;
};

/* The target's value of a marker variable; NULL when it is not fixed. */
static const char *target_value(const char *name, size_t n)
{
	static const char *const vars[][2] = {
		{"sys_platform", "linux"}, {"platform_system", "Linux"},
		{"os_name", "posix"}, {"platform_machine", "x86_64"},
		{"implementation_name", "cpython"}, {"platform_python_implementation", "CPython"},
	};
	for (size_t k = 0; k < sizeof(vars) / sizeof(vars[0]); k++)
		if (strlen(vars[k][0]) == n && memcmp(vars[k][0], name, n) == 0)
			return vars[k][1];
	return NULL;
}

static void skip_ws(struct mk *m)
{
	while (m->i < m->n && isspace((unsigned char)m->s[m->i]))
		m->i++;
}

static int word_at(struct mk *m, const char *w)
{
	size_t k = strlen(w);

	skip_ws(m);
	if (m->i + k > m->n || memcmp(m->s + m->i, w, k) != 0 ||
	    (m->i + k < m->n && (isalnum((unsigned char)m->s[m->i + k]) || m->s[m->i + k] == '_')))
		return 0;
	m->i += k;
	return 1;
}

/* A quoted string or a variable: its text in *text and *len; *known 0 for a
 * variable the target does not fix. */
static void value(struct mk *m, const char **text, size_t *len, int *known)
{
	size_t a;

	skip_ws(m);
	*known = 1;
	if (m->i < m->n && (m->s[m->i] == '"' || m->s[m->i] == '\'')) {
		char q = m->s[m->i++];
		a = m->i;
		while (m->i < m->n && m->s[m->i] != q)
			m->i++;
		*text = m->s + a, *len = m->i - a;
		m->bad |= m->i >= m->n;
		m->i++;
		return;
	}
	a = m->i;
	while (m->i < m->n && (isalnum((unsigned char)m->s[m->i]) || m->s[m->i] == '_' || m->s[m->i] == '.'))
		m->i++;
	m->bad |= a == m->i;
	*text = target_value(m->s + a, m->i - a);
	*known = *text != NULL;
	*len = *text ? strlen(*text) : 0;
}

static const char *const ops[] = {"===", "==", "!=", "<=", ">=", "~=", "<", ">", NULL};

static mt_marker compare(struct mk *m)
{
	const char *l, *r, *op = NULL;
	size_t ln, rn;
	int lk, rk, neg = 0, in = 0, eq;

	value(m, &l, &ln, &lk);
	skip_ws(m);
	for (size_t k = 0; ops[k] && !op; k++)
		if (m->i + strlen(ops[k]) <= m->n && !strncmp(m->s + m->i, ops[k], strlen(ops[k])))
			op = ops[k], m->i += strlen(ops[k]);
	if (!op && word_at(m, "not") && word_at(m, "in"))
		op = "not in", neg = in = 1;
	else if (!op && word_at(m, "in"))
		op = "in", in = 1;
	if (!op) {
		m->bad = 1;
		return MT_MARKER_UNKNOWN;
	}
	value(m, &r, &rn, &rk);
	if (!lk || !rk)
		return MT_MARKER_UNKNOWN;
	if (in)
		eq = ln <= rn && (ln == 0 || memmem(r, rn, l, ln) != NULL);
	else if (!strcmp(op, "==") || !strcmp(op, "===") || !strcmp(op, "!="))
		eq = ln == rn && memcmp(l, r, ln) == 0, neg = op[0] == '!';
	else
		return MT_MARKER_UNKNOWN; /* an ordering of versions the target does not fix */
	return (eq != neg) ? MT_MARKER_TRUE : MT_MARKER_FALSE;
}

static mt_marker or_expr(struct mk *m, int depth);

static mt_marker atom(struct mk *m, int depth)
{
	mt_marker v;

	skip_ws(m);
	if (m->i < m->n && m->s[m->i] == '(' && depth < 32) {
		m->i++;
		v = or_expr(m, depth + 1);
		skip_ws(m);
		m->bad |= m->i >= m->n || m->s[m->i] != ')';
		m->i++;
		return v;
	}
	return compare(m);
}

/* Three-valued `and` (absorbing false) or `or` (absorbing true): the
 * absorbing value wins, two equal values stay, anything else is unknown. */
static mt_marker combine(mt_marker v, mt_marker w, mt_marker absorbing)
{
	return v == absorbing || w == absorbing ? absorbing : v == w ? v : MT_MARKER_UNKNOWN;
}

static mt_marker and_expr(struct mk *m, int depth)
{
	mt_marker v = atom(m, depth);

	while (!m->bad && word_at(m, "and"))
		v = combine(v, atom(m, depth), MT_MARKER_FALSE);
	return v;
}

static mt_marker or_expr(struct mk *m, int depth)
{
	mt_marker v = and_expr(m, depth);

	while (!m->bad && word_at(m, "or"))
		v = combine(v, and_expr(m, depth), MT_MARKER_TRUE);
	return v;
}

mt_marker mt_deps_marker_eval(const char *marker, size_t len)
{
	struct mk m = {.s = marker, .n = len};
	mt_marker v = or_expr(&m, 0);

	skip_ws(&m);
	return m.bad || m.i < m.n ? MT_MARKER_UNKNOWN : v;
}

mt_marker mt_deps_marker_of(const mt_dependency *d, const char **marker)
{
	const char *semi;

	*marker = NULL;
	if (d->syntax != MT_DEP_PEP508 || !d->spec || !(semi = strchr(d->spec, ';')))
		return MT_MARKER_TRUE;
	*marker = semi + 1;
	return mt_deps_marker_eval(semi + 1, strlen(semi + 1));
}
