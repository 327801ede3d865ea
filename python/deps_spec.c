/* Specifier text -> version sets (deps_version.h): PEP 440 specifier sets,
 * poetry constraints and conda match specs, and a declared dependency's
 * spec as each manifest writes it (PEP 508 requirements, poetry values,
 * conda specs). The set algebra lives in deps_version.c. */
#include "deps_version.h"
#include "deps_int.h"
#include "error.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)(*s)[0]))
		(*s)++, (*n)--;
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

static int bad_clause(const char *s, size_t n, const char *what)
{
	return mt_error_set(MT_EINVALID, "version specifier '%.*s': %s", (int)(n > 60 ? 60 : n),
			    s, what);
}

/* bad_clause with the message just set (copied: mt_error_set would read
 * the buffer it writes). */
static int bad_clause_last(const char *s, size_t n)
{
	char what[256];

	snprintf(what, sizeof(what), "%s", mt_error_last());
	return bad_clause(s, n, what);
}

static int starts(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && memcmp(s, p, k) == 0;
}

/* `V` or `V.*` after an operator; *prefix set for the latter. */
static int clause_version(mt_version *v, int *prefix, const char *s, size_t n)
{
	trim(&s, &n);
	*prefix = n >= 2 && s[n - 2] == '.' && s[n - 1] == '*';
	if (*prefix)
		n -= 2;
	if (n == 0)
		return MT_EINVALID;
	if (mt_version_parse(v, s, n) < 0)
		return MT_EINVALID;
	if (*prefix && (v->pre >= 0 || v->has_post || v->has_dev || v->local[0]))
		return mt_error_set(MT_EINVALID, "'.*' follows release numbers only");
	return 0;
}

/* One PEP 440 clause: an operator, then a version. */
static int pep440_clause(mt_vset **out, const char *s, size_t n)
{
	static const char *const ops[] = {"===", "~=", "==", "!=", "<=", ">=", "<", ">", NULL};
	static const enum mt_vop vops[] = {MT_VOP_EQ, MT_VOP_COMPAT, MT_VOP_EQ, MT_VOP_NE,
					   MT_VOP_LE, MT_VOP_GE,     MT_VOP_LT, MT_VOP_GT};
	mt_version v;
	int o = 0, prefix;

	trim(&s, &n);
	while (ops[o] && !starts(s, n, ops[o]))
		o++;
	if (!ops[o])
		return bad_clause(s, n, "no operator (==, !=, <, <=, >, >=, ~=, ===)");
	if (clause_version(&v, &prefix, s + strlen(ops[o]), n - strlen(ops[o])) < 0)
		return mt_error_last()[0] ? bad_clause_last(s, n) : bad_clause(s, n, "no version");
	if (prefix && vops[o] != MT_VOP_EQ && vops[o] != MT_VOP_NE)
		return bad_clause(s, n, "'.*' only after == or !=");
	if (prefix && o == 0)
		return bad_clause(s, n, "'.*' only after == or !=");
	if (vops[o] == MT_VOP_COMPAT && v.nrelease < 2)
		return bad_clause(s, n, "~= needs two release numbers or more");
	if (v.local[0] && vops[o] != MT_VOP_EQ && vops[o] != MT_VOP_NE)
		return bad_clause(s, n, "a local label only after == or !=");
	*out = mt_vset__clause(prefix ? (vops[o] == MT_VOP_EQ ? MT_VOP_PREFIX : MT_VOP_NOT_PREFIX)
				      : vops[o],
			       &v);
	return 0;
}

typedef int (*clause_fn)(mt_vset **out, const char *s, size_t n);

/* Clauses separated by any of `seps`, intersected; nothing is every
 * version. */
static int all_of(mt_vset **out, const char *s, size_t n, const char *seps, clause_fn clause)
{
	mt_vset *acc = mt_vset_any();
	size_t i = 0;

	trim(&s, &n);
	while (n && i <= n) {
		size_t j = i;
		mt_vset *one = NULL, *both;
		while (j < n && !strchr(seps, s[j]))
			j++;
		if (clause(&one, s + i, j - i) < 0) {
			mt_vset_free(acc);
			return MT_EINVALID;
		}
		both = mt_vset_intersect(acc, one);
		mt_vset_free(acc);
		mt_vset_free(one);
		acc = both;
		i = j + 1;
	}
	*out = acc;
	return 0;
}

/* Alternatives separated by `sep` (a string), united. */
static int any_of(mt_vset **out, const char *s, size_t n, const char *sep, const char *seps,
		  clause_fn clause)
{
	mt_vset *acc = NULL;
	size_t k = strlen(sep);

	for (;;) {
		const char *bar = memmem(s, n, sep, k);
		size_t len = bar ? (size_t)(bar - s) : n;
		mt_vset *one, *u;
		if (all_of(&one, s, len, seps, clause) < 0) {
			mt_vset_free(acc);
			return MT_EINVALID;
		}
		u = acc ? mt_vset_union(acc, one) : one;
		if (acc) {
			mt_vset_free(acc);
			mt_vset_free(one);
		}
		acc = u;
		if (!bar)
			break;
		n -= len + k;
		s = bar + k;
	}
	*out = acc;
	return 0;
}

int mt_vset_parse(mt_vset **out, const char *s, size_t len)
{
	*out = NULL;
	return all_of(out, s, len, ",", pep440_clause);
}

/* --- poetry -------------------------------------------------------------------- */

/* ^V: up to the next change of its first non-zero number (^1.2 <2,
 * ^0.2 <0.3, ^0.0.3 <0.0.4, ^0.0 <0.1). ~V: up to the next minor (~1.2.3
 * <1.3), or major when only one number is given. */
static mt_vset *poetry_range(const mt_version *v, int caret)
{
	mt_version top;
	size_t n = v->nrelease, at = 0;
	mt_vset *lo = mt_vset__clause(MT_VOP_GE, v), *hi, *both;

	if (caret) {
		while (at < n - 1 && v->release[at] == 0)
			at++;
	} else {
		at = n >= 2 ? 1 : 0;
	}
	mt_version__bump(&top, v, at + 1);
	hi = mt_vset__clause(MT_VOP_LT, &top);
	both = mt_vset_intersect(lo, hi);
	mt_vset_free(lo);
	mt_vset_free(hi);
	return both;
}

/* A bare version, `1.2.*` / `1.2.x` / `*` included. */
static int bare_version(mt_vset **out, const char *s, size_t n, int conda)
{
	mt_version v;
	int prefix = 0;

	if (n == 1 && s[0] == '*') {
		*out = mt_vset_any();
		return 0;
	}
	if (n >= 2 && (s[n - 1] == '*' || (!conda && s[n - 1] == 'x')) &&
	    (s[n - 2] == '.' || conda))
		n -= s[n - 2] == '.' ? 2 : 1, prefix = 1;
	if (mt_version_parse(&v, s, n) < 0)
		return bad_clause_last(s, n);
	if (prefix && (v.pre >= 0 || v.has_post || v.has_dev))
		return bad_clause(s, n, "'*' follows release numbers only");
	*out = mt_vset__clause(prefix ? MT_VOP_PREFIX : MT_VOP_EQ, &v);
	return 0;
}

static int poetry_clause(mt_vset **out, const char *s, size_t n)
{
	mt_version v;

	trim(&s, &n);
	if (n == 0)
		return bad_clause(s, n, "an empty constraint");
	if (s[0] == '^' || (s[0] == '~' && !starts(s, n, "~="))) {
		int caret = s[0] == '^';
		if (mt_version_parse(&v, s + 1, n - 1) < 0)
			return bad_clause_last(s, n);
		*out = poetry_range(&v, caret);
		return 0;
	}
	if (strchr("<>=!~", s[0])) {
		if (s[0] == '=' && !starts(s, n, "=="))
			return bare_version(out, s + 1, n - 1, 0); /* `=1.2` is `1.2` */
		return pep440_clause(out, s, n);
	}
	return bare_version(out, s, n, 0);
}

/* Joins `>= 1.2` into one token, so blanks between constraints separate
 * them: poetry's `>=1.2 <1.5`. */
static void join_ops(mt_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t next = i + strspn(s + i, " \t\r\n");
		if (!isspace((unsigned char)s[i])) {
			mt_buf_put(b, s + i, 1);
			continue;
		}
		if (b->len && !strchr("<>=!~^,|", b->ptr[b->len - 1]) && next < n &&
		    !strchr(",|", s[next]))
			mt_buf_put(b, ",", 1);
		i = next - 1;
	}
}

int mt_vset_parse_poetry(mt_vset **out, const char *s, size_t len)
{
	mt_buf b = MT_BUF_INIT;
	int error;

	*out = NULL;
	trim(&s, &len);
	join_ops(&b, s, len);
	error = any_of(out, mt_buf_cstr(&b), b.len, "||", ",", poetry_clause);
	mt_buf_dispose(&b);
	return error;
}

/* --- conda ---------------------------------------------------------------------- */

/* `=1.2`: conda's fuzzy match, 1.2.* (a pre- or post-release exactly). */
static int conda_fuzzy(mt_vset **out, const char *s, size_t n)
{
	mt_version v;

	trim(&s, &n);
	if (n && s[n - 1] == '*')
		n -= n >= 2 && s[n - 2] == '.' ? 2 : 1;
	if (mt_version_parse(&v, s, n) < 0)
		return bad_clause_last(s, n);
	*out = mt_vset__clause(v.pre < 0 && !v.has_post && !v.has_dev && !v.local[0]
				       ? MT_VOP_PREFIX
				       : MT_VOP_EQ,
			       &v);
	return 0;
}

static int conda_clause(mt_vset **out, const char *s, size_t n)
{
	trim(&s, &n);
	if (n == 0)
		return bad_clause(s, n, "an empty constraint");
	if (s[0] == '=' && !starts(s, n, "=="))
		return conda_fuzzy(out, s + 1, n - 1);
	if (strchr("<>=!~", s[0]))
		return pep440_clause(out, s, n);
	return bare_version(out, s, n, 1);
}

int mt_vset_parse_conda(mt_vset **out, const char *s, size_t len)
{
	*out = NULL;
	trim(&s, &len);
	return any_of(out, s, len, "|", ",", conda_clause);
}

/* --- a dependency's spec, by manifest --------------------------------------------- */

static const char *const NO_URL_VERSION =
	"a direct reference (a VCS URL, a path or an archive) whose version mtrial cannot read";

/* A version written in a direct reference: the archive's file name
 * (`trl-1.15.2-py3-none-any.whl`, `trl-1.15.2.tar.gz`) or a VCS ref that
 * is one (`git+https://...@v1.15.2`). */
static int url_versions(mt_vset **out, const char **why, const char *s, size_t n)
{
	static const char *const exts[] = {".whl", ".tar.gz", ".tar.bz2", ".zip", ".tgz", NULL};
	const char *base, *at, *dash;
	size_t len;
	mt_version v;

	trim(&s, &n);
	len = strcspn(s, "#?; \t");
	len = len < n ? len : n;
	base = memrchr(s, '/', len) ? (const char *)memrchr(s, '/', len) + 1 : s;
	len -= (size_t)(base - s);
	for (int e = 0; exts[e]; e++) {
		size_t k = strlen(exts[e]);
		if (len <= k || strncasecmp(base + len - k, exts[e], k) != 0)
			continue;
		len -= k; /* name-1.0-py3-none-any or name-1.0 */
		dash = memchr(base, '-', len);
		if (dash && e == 0 && memchr(dash + 1, '-', len - (size_t)(dash + 1 - base)))
			len = (size_t)((const char *)memchr(dash + 1, '-', len - (size_t)(dash + 1 - base)) - base);
		else if (e != 0)
			dash = memrchr(base, '-', len);
		if (dash && mt_version_parse(&v, dash + 1, len - (size_t)(dash + 1 - base)) == 0)
			return *out = mt_vset__clause(MT_VOP_EQ, &v), 0;
	}
	if ((at = memrchr(base, '@', len)) && mt_version_parse(&v, at + 1, len - (size_t)(at + 1 - base)) == 0)
		return *out = mt_vset__clause(MT_VOP_EQ, &v), 0;
	mt_error_clear();
	*why = NO_URL_VERSION;
	return MT_ENOTFOUND;
}

/* name [extras] specifiers ; markers, or name @ url, or a bare URL. */
static int pep508_versions(mt_vset **out, const char **why, const char *s)
{
	size_t n = strlen(s), i = 0, end;

	trim(&s, &n);
	if (n && s[0] == '-') { /* -e URL, --editable=URL */
		i = strcspn(s, " \t=");
		i = i < n ? i + 1 : n;
		return url_versions(out, why, s + i, n - i);
	}
	while (i < n && (isalnum((unsigned char)s[i]) || strchr("-_.", s[i])))
		i++;
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '[')
		while (i < n && s[i++] != ']')
			;
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '@')
		return url_versions(out, why, s + i + 1, n - i - 1);
	if (i == 0 || (i < n && !strchr("<>=!~(;", s[i])))
		return url_versions(out, why, s, n);
	end = i + strcspn(s + i, ";");
	end = end < n ? end : n;
	while (end > i && isspace((unsigned char)s[end - 1]))
		end--;
	if (end > i && s[i] == '(' && s[end - 1] == ')')
		i++, end--;
	return mt_vset_parse(out, s + i, end - i);
}

/* The quoted string after `key =` in a poetry table, from *pos on. */
static int quoted_value(const char *s, const char *key, size_t *pos, const char **v, size_t *vn)
{
	size_t k = strlen(key);
	const char *p = s + *pos;

	while ((p = strstr(p, key))) {
		const char *q = p + k;
		int word = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-');
		p = q;
		q += strspn(q, " \t");
		if (!word || *q != '=' || q[1] == '=')
			continue;
		q++;
		q += strspn(q, " \t");
		if (*q != '"' && *q != '\'')
			continue;
		*v = q + 1;
		*vn = strcspn(q + 1, *q == '"' ? "\"" : "'");
		*pos = (size_t)(*v + *vn - s);
		return 1;
	}
	return 0;
}

/* `"^1.2"`, `{version = "^1.2", ...}`, `[{version = ...}, {...}]`. */
static int poetry_versions(mt_vset **out, const char **why, const char *s)
{
	size_t n = strlen(s), pos = 0, vn;
	const char *v;
	mt_vset *acc = NULL;

	trim(&s, &n);
	if (n == 0) {
		*why = "its version sits in a [table] of its own, which mtrial does not read";
		return MT_ENOTFOUND;
	}
	if (s[0] == '"' || s[0] == '\'')
		return mt_vset_parse_poetry(out, s + 1, strcspn(s + 1, s[0] == '"' ? "\"" : "'"));
	while (quoted_value(s, "version", &pos, &v, &vn)) {
		mt_vset *one, *u;
		if (mt_vset_parse_poetry(&one, v, vn) < 0) {
			mt_vset_free(acc);
			return MT_EINVALID;
		}
		u = acc ? mt_vset_union(acc, one) : one;
		if (acc)
			mt_vset_free(acc), mt_vset_free(one);
		acc = u;
	}
	if (acc)
		return *out = acc, 0;
	pos = 0;
	if (quoted_value(s, "git", &pos, &v, &vn) || (pos = 0, quoted_value(s, "path", &pos, &v, &vn)) ||
	    (pos = 0, quoted_value(s, "url", &pos, &v, &vn))) {
		*why = NO_URL_VERSION;
		return MT_ENOTFOUND;
	}
	*out = mt_vset_any();
	return 0;
}

/* `channel::name=1.2=build`, `name >=1.2,<2`, `name 1.2.* build`,
 * `name[version='>=1.2']`. */
static int conda_versions(mt_vset **out, const char *s)
{
	const char *colons, *v;
	size_t n, vn, pos = 0;
	mt_buf b = MT_BUF_INIT;
	int error;

	while ((colons = strstr(s, "::")))
		s = colons + 2;
	s += strspn(s, " \t");
	while (*s && (isalnum((unsigned char)*s) || strchr("-_.", *s)))
		s++;
	n = strlen(s);
	trim(&s, &n);
	if (n && s[0] == '[')
		return quoted_value(s, "version", &pos, &v, &vn) ? mt_vset_parse_conda(out, v, vn)
							     : (*out = mt_vset_any(), 0);
	if (n && s[0] == '=' && s[1] != '=') /* =1.2=build */
		vn = 1 + strcspn(s + 1, "=");
	else /* an operator may stand apart from its version: `>= 1.2` */
		for (vn = 0; vn < n && (!isspace((unsigned char)s[vn]) ||
					(vn && strchr("<>=!~,|", s[vn - 1])));)
			vn++;
	for (size_t i = 0; i < vn; i++)
		if (!isspace((unsigned char)s[i]))
			mt_buf_put(&b, s + i, 1);
	error = mt_vset_parse_conda(out, mt_buf_cstr(&b), b.len);
	mt_buf_dispose(&b);
	return error;
}

int mt_deps_versions(mt_vset **out, const char **why, const mt_dependency *d)
{
	const char *spec = d->spec ? d->spec : "";

	*out = NULL;
	*why = NULL;
	if (d->include)
		return mt_error_set(MT_EINVALID, "'%s' is an included file, not a package", d->name);
	switch (d->syntax) {
	case MT_DEP_POETRY:
		return poetry_versions(out, why, spec);
	case MT_DEP_CONDA:
		return conda_versions(out, spec);
	default:
		return pep508_versions(out, why, spec);
	}
}

mt_vmatch mt_deps_version_match(const mt_dependency *d, const mt_vset *affected,
				const char **why)
{
	mt_vset *allowed = NULL, *both;
	mt_vmatch m;
	int error = mt_deps_versions(&allowed, why, d);

	if (error < 0) {
		if (error != MT_ENOTFOUND)
			*why = "its version specifier cannot be read";
		mt_error_clear();
		return MT_VMATCH_UNKNOWN;
	}
	both = mt_vset_intersect(allowed, affected);
	m = mt_vset_is_empty(both)                   ? MT_VMATCH_NONE
	    : mt_vset_is_subset(allowed, affected) ? MT_VMATCH_PINNED
						   : MT_VMATCH_POSSIBLE;
	if (m == MT_VMATCH_POSSIBLE)
		*why = mt_vset_is_any(allowed) ? "no version is pinned"
					       : "it admits other versions too";
	mt_vset_free(both);
	mt_vset_free(allowed);
	return m;
}
