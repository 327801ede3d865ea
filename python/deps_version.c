/* PEP 440 versions and sets of them (deps_version.h). A set is a sorted
 * list of disjoint intervals over version keys: a version's key orders it
 * as PEP 440 does (packaging's _cmpkey), and three synthetic keys stand for
 * "the first version of release R" (R.dev0), "the first post-release of R"
 * (R.post0.dev0) and "above every version of release R" (no version has
 * it). Lower bounds are kept inclusive (`> v` becomes `>= next(v)`, where
 * next(v) is the smallest public version above v), so an interval is empty
 * exactly when its bounds say so. */
#include "deps_version.h"
#include "deps_int.h"
#include "error.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- versions ----------------------------------------------------------------- */

struct cur {
	const char *s;
	size_t i, n;
};

static int peek(const struct cur *c, size_t k)
{
	return c->i + k < c->n ? tolower((unsigned char)c->s[c->i + k]) : -1;
}

static int eat_word(struct cur *c, const char *w)
{
	size_t k = strlen(w);

	for (size_t j = 0; j < k; j++)
		if (peek(c, j) != w[j])
			return 0;
	c->i += k;
	return 1;
}

static int eat_sep(struct cur *c)
{
	if (peek(c, 0) == '-' || peek(c, 0) == '_' || peek(c, 0) == '.') {
		c->i++;
		return 1;
	}
	return 0;
}

/* Digits into *v; -1 when there are none, -2 on overflow. */
static int number(struct cur *c, uint64_t *v)
{
	size_t start = c->i;

	*v = 0;
	while (peek(c, 0) >= '0' && peek(c, 0) <= '9') {
		unsigned d = (unsigned)(peek(c, 0) - '0');
		if (*v > (UINT64_MAX / 2 - d) / 10) /* half the range: next() adds one */
			return -2;
		*v = *v * 10 + d;
		c->i++;
	}
	return c->i > start ? 0 : -1;
}

static int bad_version(const struct cur *c, const char *what)
{
	return mt_error_set(MT_EINVALID, "not a PEP 440 version: '%.*s' (%s)",
			    (int)(c->n > 60 ? 60 : c->n), c->s, what);
}

/* An optional separator, a word of words[], an optional separator and
 * number: *n (0 when omitted); the index of the word, or -1 (nothing eaten). */
static int tagged(struct cur *c, const char *const *words, uint64_t *n)
{
	size_t save = c->i;

	eat_sep(c);
	for (int w = 0; words[w]; w++) {
		if (!eat_word(c, words[w]))
			continue;
		size_t after = c->i;
		eat_sep(c);
		if (number(c, n) == -1) {
			c->i = after;
			*n = 0;
		}
		return w;
	}
	c->i = save;
	return -1;
}

static int parse_release(struct cur *c, mt_version *v)
{
	uint64_t x;
	int r;

	if (peek(c, 0) == 'v')
		c->i++;
	if ((r = number(c, &x)) < 0)
		return bad_version(c, r == -2 ? "a number too large" : "no release number");
	if (peek(c, 0) == '!') {
		v->epoch = x;
		c->i++;
		if ((r = number(c, &x)) < 0)
			return bad_version(c, r == -2 ? "a number too large" : "no release after the epoch");
	}
	v->release[v->nrelease++] = x;
	while (peek(c, 0) == '.' && peek(c, 1) >= '0' && peek(c, 1) <= '9') {
		c->i++;
		if (v->nrelease == MT_VERSION_MAX_RELEASE)
			return bad_version(c, "too many release numbers");
		if (number(c, &v->release[v->nrelease++]) < 0)
			return bad_version(c, "a number too large");
	}
	return 0;
}

static int parse_local(struct cur *c, mt_version *v)
{
	size_t k = 0;

	c->i++; /* '+' */
	while (c->i < c->n) {
		int ch = peek(c, 0);
		int sep = ch == '-' || ch == '_' || ch == '.';
		if (!sep && !isalnum(ch))
			return bad_version(c, "a local label is letters, digits and . - _");
		if (k + 1 >= sizeof(v->local))
			return bad_version(c, "a local label too long");
		if (sep && (k == 0 || v->local[k - 1] == '.' || c->i + 1 == c->n))
			return bad_version(c, "an empty local label segment");
		v->local[k++] = sep ? '.' : (char)ch;
		c->i++;
	}
	v->local[k] = '\0';
	return k ? 0 : bad_version(c, "an empty local label");
}

/* Pre-, post- and development release, then the local label. */
static int parse_suffixes(struct cur *c, mt_version *v)
{
	static const char *const pre[] = {"preview", "alpha", "beta", "pre", "rc", "a", "b", "c",
					  NULL};
	static const int pre_kind[] = {2, 0, 1, 2, 2, 0, 1, 2};
	static const char *const post[] = {"post", "rev", "r", NULL};
	static const char *const dev[] = {"dev", NULL};
	int w;

	v->pre = -1;
	if ((w = tagged(c, pre, &v->pre_n)) >= 0)
		v->pre = pre_kind[w];
	if (peek(c, 0) == '-' && peek(c, 1) >= '0' && peek(c, 1) <= '9') {
		c->i++; /* 1.0-1 is 1.0.post1 */
		v->has_post = 1;
		number(c, &v->post_n);
	} else if (tagged(c, post, &v->post_n) >= 0) {
		v->has_post = 1;
	}
	v->has_dev = tagged(c, dev, &v->dev_n) >= 0;
	if (peek(c, 0) == '+' && parse_local(c, v) < 0)
		return MT_EINVALID;
	return c->i == c->n ? 0 : bad_version(c, "unexpected text after the version");
}

int mt_version_parse(mt_version *out, const char *s, size_t len)
{
	struct cur c = {s, 0, len};
	int error;

	memset(out, 0, sizeof(*out));
	while (c.n && isspace((unsigned char)c.s[0]))
		c.s++, c.n--;
	while (c.n && isspace((unsigned char)c.s[c.n - 1]))
		c.n--;
	if ((error = parse_release(&c, out)) < 0)
		return error;
	return parse_suffixes(&c, out);
}

/* --- keys: a version's place in PEP 440 order ---------------------------------- */

enum { PRE_NEG = 0, PRE_POS = 4 };   /* pre: -inf, a=1, b=2, rc=3, +inf */
enum { POST_NONE, POST_N, POST_SUP }; /* post: -inf, N, above every N */
enum { DEV_N, DEV_NONE };             /* dev: N, +inf */

struct vkey {
	uint64_t epoch;
	uint64_t rel[MT_VERSION_MAX_RELEASE + 1];
	size_t nrel;
	int pre, post, dev;
	uint64_t pre_n, post_n, dev_n;
};

static struct vkey key_of(const mt_version *v)
{
	struct vkey k = {.epoch = v->epoch, .nrel = v->nrelease};

	memcpy(k.rel, v->release, v->nrelease * sizeof(*k.rel));
	if (v->pre >= 0)
		k.pre = v->pre + 1, k.pre_n = v->pre_n;
	else
		k.pre = v->has_dev && !v->has_post ? PRE_NEG : PRE_POS;
	k.post = v->has_post ? POST_N : POST_NONE;
	k.post_n = v->post_n;
	k.dev = v->has_dev ? DEV_N : DEV_NONE;
	k.dev_n = v->dev_n;
	return k;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Releases compare as if padded with zeros: 1.0 == 1.0.0. */
static int cmp_release(const struct vkey *a, const struct vkey *b)
{
	size_t n = a->nrel > b->nrel ? a->nrel : b->nrel;

	for (size_t i = 0; i < n; i++) {
		int c = cmp_u64(i < a->nrel ? a->rel[i] : 0, i < b->nrel ? b->rel[i] : 0);
		if (c)
			return c;
	}
	return 0;
}

static int key_cmp(const struct vkey *a, const struct vkey *b)
{
	int c = cmp_u64(a->epoch, b->epoch);

	if (!c)
		c = cmp_release(a, b);
	if (!c)
		c = a->pre != b->pre ? (a->pre < b->pre ? -1 : 1) : cmp_u64(a->pre_n, b->pre_n);
	if (!c)
		c = a->post != b->post ? (a->post < b->post ? -1 : 1) : cmp_u64(a->post_n, b->post_n);
	if (!c)
		c = a->dev != b->dev ? (a->dev < b->dev ? -1 : 1) : cmp_u64(a->dev_n, b->dev_n);
	return c;
}

/* Local labels: none < any; segment by segment, a number above a word,
 * numbers by value, words by text; a shorter label first. */
static int cmp_local(const char *a, const char *b)
{
	while (*a && *b) {
		size_t la = strcspn(a, "."), lb = strcspn(b, ".");
		int na = strspn(a, "0123456789") == la, nb = strspn(b, "0123456789") == lb, c;
		if (na != nb)
			return na ? 1 : -1;
		if (na)
			c = cmp_u64(strtoull(a, NULL, 10), strtoull(b, NULL, 10));
		else
			c = strncmp(a, b, la < lb ? la : lb) ? strncmp(a, b, la < lb ? la : lb)
							       : cmp_u64(la, lb);
		if (c)
			return c < 0 ? -1 : 1;
		a += la + (a[la] == '.');
		b += lb + (b[lb] == '.');
	}
	return *a ? 1 : *b ? -1 : 0;
}

int mt_version_cmp(const mt_version *a, const mt_version *b)
{
	struct vkey ka = key_of(a), kb = key_of(b);
	int c = key_cmp(&ka, &kb);

	return c ? c : cmp_local(a->local, b->local);
}

void mt_version_format(char *buf, size_t size, const mt_version *v)
{
	static const char *const pre[] = {"a", "b", "rc"};
	mt_buf b = MT_BUF_INIT;

	if (v->epoch)
		mt_buf_printf(&b, "%llu!", (unsigned long long)v->epoch);
	for (size_t i = 0; i < v->nrelease; i++)
		mt_buf_printf(&b, "%s%llu", i ? "." : "", (unsigned long long)v->release[i]);
	if (v->pre >= 0)
		mt_buf_printf(&b, "%s%llu", pre[v->pre], (unsigned long long)v->pre_n);
	if (v->has_post)
		mt_buf_printf(&b, ".post%llu", (unsigned long long)v->post_n);
	if (v->has_dev)
		mt_buf_printf(&b, ".dev%llu", (unsigned long long)v->dev_n);
	if (v->local[0])
		mt_buf_printf(&b, "+%s", v->local);
	snprintf(buf, size, "%s", mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

/* The first version of release R of v (R.dev0), and the first after every
 * version of R (a synthetic key), and R.post0.dev0. */
static struct vkey release_min(const struct vkey *v)
{
	struct vkey k = *v;
	k.pre = PRE_NEG, k.post = POST_NONE, k.dev = DEV_N;
	k.pre_n = k.post_n = k.dev_n = 0;
	return k;
}

static struct vkey release_sup(const struct vkey *v)
{
	struct vkey k = *v;
	k.pre = PRE_POS, k.post = POST_SUP, k.dev = DEV_NONE;
	k.pre_n = k.post_n = k.dev_n = 0;
	return k;
}

static struct vkey post_start(const struct vkey *v)
{
	struct vkey k = release_sup(v);
	k.post = POST_N, k.dev = DEV_N;
	return k;
}

/* A key some public version has (every key but release_sup's). */
static int key_real(const struct vkey *k)
{
	return k->post != POST_SUP;
}

/* The smallest public version above a real key. */
static struct vkey key_next(const struct vkey *k)
{
	struct vkey n = *k;

	if (k->dev == DEV_N) {
		n.dev_n++;
	} else {
		n.post_n = k->post == POST_N ? k->post_n + 1 : 0;
		n.post = POST_N;
		n.dev = DEV_N, n.dev_n = 0;
	}
	return n;
}

/* --- sets --------------------------------------------------------------------- */

struct ival {
	struct vkey lo, hi;
	int lo_inf, hi_inf; /* unbounded below / above */
	int hi_incl;        /* lower bounds are always inclusive */
};

struct mt_vset {
	struct ival *v;
	size_t n, cap;
};

static mt_vset *vset_new(void)
{
	mt_vset *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	return s;
}

void mt_vset_free(mt_vset *s)
{
	if (!s)
		return;
	free(s->v);
	free(s);
}

static int ival_empty(const struct ival *iv)
{
	int c;

	if (iv->lo_inf || iv->hi_inf)
		return 0;
	c = key_cmp(&iv->lo, &iv->hi);
	return c > 0 || (c == 0 && !(iv->hi_incl && key_real(&iv->lo)));
}

/* Appends iv unless it is empty; callers append in ascending order. */
static void vset_push(mt_vset *s, const struct ival *iv)
{
	if (ival_empty(iv))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n++] = *iv;
}

/* An interval [lo, hi] or [lo, hi); NULL for an unbounded side. */
static void push_range(mt_vset *s, const struct vkey *lo, const struct vkey *hi, int hi_incl)
{
	struct ival iv = {.lo_inf = !lo, .hi_inf = !hi, .hi_incl = hi_incl};

	if (lo)
		iv.lo = *lo;
	if (hi)
		iv.hi = *hi;
	vset_push(s, &iv);
}

mt_vset *mt_vset_any(void)
{
	mt_vset *s = vset_new();
	push_range(s, NULL, NULL, 0);
	return s;
}

static int lo_cmp(const struct ival *a, const struct ival *b)
{
	if (a->lo_inf || b->lo_inf)
		return a->lo_inf == b->lo_inf ? 0 : a->lo_inf ? -1 : 1;
	return key_cmp(&a->lo, &b->lo);
}

static int hi_cmp(const struct ival *a, const struct ival *b)
{
	int c;

	if (a->hi_inf || b->hi_inf)
		return a->hi_inf == b->hi_inf ? 0 : a->hi_inf ? 1 : -1;
	c = key_cmp(&a->hi, &b->hi);
	return c ? c : a->hi_incl - b->hi_incl;
}

mt_vset *mt_vset_intersect(const mt_vset *a, const mt_vset *b)
{
	mt_vset *s = vset_new();
	size_t i = 0, j = 0;

	while (i < a->n && j < b->n) {
		const struct ival *x = &a->v[i], *y = &b->v[j];
		struct ival iv = lo_cmp(x, y) >= 0 ? *x : *y;
		const struct ival *hi = hi_cmp(x, y) <= 0 ? x : y;
		iv.hi = hi->hi, iv.hi_inf = hi->hi_inf, iv.hi_incl = hi->hi_incl;
		vset_push(s, &iv);
		if (hi == x)
			i++;
		else
			j++;
	}
	return s;
}

mt_vset *mt_vset_complement(const mt_vset *a)
{
	mt_vset *s = vset_new();
	struct ival gap = {.lo_inf = 1};

	for (size_t i = 0; i < a->n; i++) {
		const struct ival *iv = &a->v[i];
		if (!iv->lo_inf) {
			gap.hi = iv->lo, gap.hi_inf = 0, gap.hi_incl = 0;
			vset_push(s, &gap);
		}
		if (iv->hi_inf)
			return s;
		gap.lo_inf = 0;
		gap.lo = iv->hi_incl && key_real(&iv->hi) ? key_next(&iv->hi) : iv->hi;
	}
	gap.hi_inf = 1;
	vset_push(s, &gap);
	return s;
}

mt_vset *mt_vset_union(const mt_vset *a, const mt_vset *b)
{
	mt_vset *ca = mt_vset_complement(a), *cb = mt_vset_complement(b);
	mt_vset *both = mt_vset_intersect(ca, cb), *s = mt_vset_complement(both);

	mt_vset_free(ca);
	mt_vset_free(cb);
	mt_vset_free(both);
	return s;
}

int mt_vset_is_empty(const mt_vset *s)
{
	return s->n == 0;
}

int mt_vset_is_any(const mt_vset *s)
{
	return s->n == 1 && s->v[0].lo_inf && s->v[0].hi_inf;
}

int mt_vset_is_subset(const mt_vset *a, const mt_vset *b)
{
	mt_vset *cb = mt_vset_complement(b), *out = mt_vset_intersect(a, cb);
	int sub = mt_vset_is_empty(out);

	mt_vset_free(cb);
	mt_vset_free(out);
	return sub;
}

int mt_vset_contains(const mt_vset *s, const mt_version *v)
{
	struct vkey k = key_of(v);

	for (size_t i = 0; i < s->n; i++) {
		const struct ival *iv = &s->v[i];
		int lo = iv->lo_inf || key_cmp(&iv->lo, &k) <= 0;
		int c = iv->hi_inf ? -1 : key_cmp(&k, &iv->hi);
		if (lo && (c < 0 || (c == 0 && iv->hi_incl)))
			return 1;
	}
	return 0;
}

/* --- one clause ------------------------------------------------------------------ */

/* The release prefix R of v with its last number raised by one: the first
 * release after every R.* (1.15 -> 1.16). */
static struct vkey prefix_end(const struct vkey *v, size_t n)
{
	struct vkey k = *v;

	k.nrel = n;
	k.rel[n - 1]++;
	return release_min(&k);
}

/* == R.*: every version whose release starts with R (zero-padded). */
static void push_prefix(mt_vset *s, const struct vkey *v, size_t n)
{
	struct vkey lo = *v, hi = prefix_end(v, n);

	lo.nrel = n;
	lo = release_min(&lo);
	push_range(s, &lo, &hi, 0);
}

/* < V: below V, but no pre-release of V's release unless V is one. */
static void push_below(mt_vset *s, const mt_version *v, const struct vkey *k)
{
	struct vkey base = release_min(k), final = release_sup(k);

	if (v->pre >= 0 || v->has_dev) {
		push_range(s, NULL, k, 0);
		return;
	}
	push_range(s, NULL, &base, 0);
	final.pre = PRE_POS, final.post = POST_NONE, final.dev = DEV_NONE;
	if (v->has_post) /* < 1.15.post2: 1.15 and its earlier post-releases */
		push_range(s, &final, k, 0);
}

/* > V: above V, but no post-release of V's release unless V is one. */
static void push_above(mt_vset *s, const mt_version *v, const struct vkey *k)
{
	struct vkey next = key_next(k), posts = post_start(k), sup = release_sup(k);

	if (v->has_post) {
		push_range(s, &next, NULL, 0);
		return;
	}
	if (v->pre >= 0) { /* > 1.15a1.dev2: 1.15a1.dev3 to 1.15a1, none of 1.15a1.postN */
		struct vkey pre = *k, pre_posts = *k;
		pre.dev = DEV_NONE, pre.dev_n = 0;
		pre_posts.post = POST_SUP, pre_posts.dev = DEV_NONE;
		if (v->has_dev)
			push_range(s, &next, &pre, 1);
		next = pre_posts;
	}
	push_range(s, &next, &posts, 0);
	push_range(s, &sup, NULL, 0);
}

mt_vset *mt_vset__clause(enum mt_vop op, const mt_version *v)
{
	struct vkey k = key_of(v);
	mt_vset *s = vset_new(), *c;

	switch (op) {
	case MT_VOP_EQ:
	case MT_VOP_NE:
		push_range(s, &k, &k, 1);
		break;
	case MT_VOP_PREFIX:
	case MT_VOP_NOT_PREFIX:
		push_prefix(s, &k, v->nrelease);
		break;
	case MT_VOP_LT:
		push_below(s, v, &k);
		break;
	case MT_VOP_LE:
		push_range(s, NULL, &k, 1);
		break;
	case MT_VOP_GT:
		push_above(s, v, &k);
		break;
	case MT_VOP_GE:
		push_range(s, &k, NULL, 0);
		break;
	case MT_VOP_COMPAT: /* ~= 1.4.5: >= 1.4.5, == 1.4.* (the caller checks 2+ numbers) */
		push_prefix(s, &k, v->nrelease - 1);
		c = vset_new();
		push_range(c, &k, NULL, 0);
		mt_vset *both = mt_vset_intersect(s, c);
		mt_vset_free(s);
		mt_vset_free(c);
		return both;
	}
	if (op == MT_VOP_NE || op == MT_VOP_NOT_PREFIX) {
		c = mt_vset_complement(s);
		mt_vset_free(s);
		return c;
	}
	return s;
}

/* The release of v cut to n numbers and its last raised by one, as a
 * version (poetry's ^ and ~ bounds). */
void mt_version__bump(mt_version *out, const mt_version *v, size_t n)
{
	memset(out, 0, sizeof(*out));
	out->epoch = v->epoch;
	out->pre = -1;
	for (size_t i = 0; i < n; i++)
		out->release[i] = i < v->nrelease ? v->release[i] : 0;
	out->nrelease = n;
	out->release[n - 1]++;
}
