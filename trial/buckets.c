/* Compile economics, the shapes: the exact bucket optimum (see buckets.h).
 *
 * Steps are grouped by their length rounded up to a multiple of M: every
 * candidate bucket is such a rounded length, so the smallest chosen bucket
 * >= L is also the smallest chosen bucket >= round(L), and a group is served
 * whole by one bucket. Over the groups in ascending order, the last chosen
 * bucket serves every group since the previous one:
 *   D[k][i] = min over p < i of D[k-1][p] + compile_s + steps(p+1..i) x step_s(r_i)
 * O(K m^2) for m groups and K buckets, O(m^2) without a limit. Costs are
 * compared with a relative tolerance so that equal totals computed in a
 * different order still tie, and a tie goes to fewer buckets. */
#include "buckets.h"

#include "error.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct group {
	int64_t r;      /* the rounded length: a candidate bucket */
	uint64_t steps; /* steps whose length rounds to r */
	double lensum;  /* the sum of their lengths, for the padding */
};

/* One DP cell: the best total so far, its bucket count and where the
 * previous bucket was (-1: none before). */
struct cell {
	double cost;
	size_t k;
	long prev;
};

void mt_bucket_opts_init(mt_bucket_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->multiple = 1;
}

double mt_bucket_step_s(const mt_bucket_opts *o, int64_t B)
{
	double x = (double)B;
	return o->a + o->b * x + o->c * x * x;
}

void mt_bucket_advice_dispose(mt_bucket_advice *a)
{
	if (!a)
		return;
	free(a->best.buckets);
	free(a->pad_to_max.buckets);
	free(a->per_length.buckets);
	memset(a, 0, sizeof(*a));
}

static int cmp_lc(const void *x, const void *y)
{
	const mt_length_count *a = x, *b = y;
	return (a->length > b->length) - (a->length < b->length);
}

/* 1 when cost a is better than b: smaller beyond the tolerance, or equal
 * within it with fewer buckets. */
static int better(double a, size_t ka, double b, size_t kb)
{
	double tol = 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
	if (a < b - tol)
		return 1;
	if (a > b + tol)
		return 0;
	return ka < kb;
}

/* Groups v by rounded length into *out (ascending); sets the totals. */
static int group(struct group **out, size_t *m, mt_bucket_advice *adv, const mt_length_count *v,
                 size_t n, int64_t M)
{
	mt_length_count *s = malloc(n * sizeof(*s));
	struct group *g = calloc(n, sizeof(*g));
	size_t k = 0;

	if (!s || !g) {
		free(s);
		free(g);
		return mt_error_set(MT_EIO, "out of memory");
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_lc);
	for (size_t i = 0; i < n; i++) {
		int64_t r = (s[i].length + M - 1) / M * M;
		adv->distinct += i == 0 || s[i].length != s[i - 1].length;
		adv->steps += s[i].count;
		if (k == 0 || g[k - 1].r != r)
			g[k++].r = r;
		g[k - 1].steps += s[i].count;
		g[k - 1].lensum += (double)s[i].length * (double)s[i].count;
	}
	adv->candidates = k;
	adv->longest = s[n - 1].length;
	free(s);
	*out = g;
	*m = k;
	return 0;
}

/* Fills a plan from a choice of groups (chosen[i] nonzero: r_i is a bucket;
 * the last one always is). */
static int plan_from(mt_bucket_plan *p, const struct group *g, size_t m, const unsigned char *chosen,
                     const mt_bucket_opts *o)
{
	double padded = 0, lens = 0, steps_s = 0;
	size_t nb = 0, from = 0;

	for (size_t i = 0; i < m; i++)
		nb += chosen[i] != 0;
	if (!(p->buckets = malloc(nb * sizeof(*p->buckets))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < m; i++) {
		if (!chosen[i])
			continue;
		for (size_t j = from; j <= i; j++) {
			padded += (double)g[i].r * (double)g[j].steps;
			lens += g[j].lensum;
			steps_s += (double)g[j].steps * mt_bucket_step_s(o, g[i].r);
		}
		p->buckets[p->n_buckets++] = g[i].r;
		from = i + 1;
	}
	p->compile_s = (double)nb * o->compile_s;
	p->predicted_s = p->compile_s + steps_s;
	p->padding_fraction = padded > 0 ? (padded - lens) / padded : 0;
	return 0;
}

/* The DP with at most K buckets (K >= 1, K <= m): marks the optimum's
 * buckets in chosen[]. Row k holds the best totals using exactly k+1
 * buckets, the last one at group i. */
static int optimum(unsigned char *chosen, const struct group *g, size_t m, size_t K,
                   const mt_bucket_opts *o)
{
	struct cell *D = malloc(K * m * sizeof(*D));
	double *prefix = malloc((m + 1) * sizeof(*prefix)), *cost = malloc(m * sizeof(*cost));
	size_t best_k = 0;
	long at;

	if (!D || !prefix || !cost) {
		free(D), free(prefix), free(cost);
		return mt_error_set(MT_EIO, "out of memory");
	}
	prefix[0] = 0;
	for (size_t i = 0; i < m; i++) {
		prefix[i + 1] = prefix[i] + (double)g[i].steps;
		cost[i] = mt_bucket_step_s(o, g[i].r);
	}
	for (size_t k = 0; k < K; k++) {
		for (size_t i = 0; i < m; i++) {
			struct cell *c = &D[k * m + i];
			c->cost = INFINITY, c->k = k + 1, c->prev = -1;
			if (k == 0) {
				c->cost = o->compile_s + prefix[i + 1] * cost[i];
				continue;
			}
			/* the same count of buckets on every side: the least total wins */
			const struct cell *row = &D[(k - 1) * m];
			double best = INFINITY, pi = prefix[i + 1], ci = cost[i];
			for (size_t p = k - 1; p < i; p++) {
				double v = row[p].cost + (pi - prefix[p + 1]) * ci;
				if (v < best)
					best = v, c->prev = (long)p;
			}
			c->cost = best + o->compile_s;
		}
		if (k > 0 && better(D[k * m + m - 1].cost, k + 1, D[best_k * m + m - 1].cost, best_k + 1))
			best_k = k;
	}
	memset(chosen, 0, m);
	at = (long)m - 1;
	for (size_t k = best_k + 1; k-- > 0 && at >= 0;) {
		chosen[at] = 1;
		at = D[k * m + (size_t)at].prev;
	}
	free(D), free(prefix), free(cost);
	return 0;
}

/* The optimum without a limit on buckets: one row, the count carried along
 * as the tie-breaker. */
static int optimum_free(unsigned char *chosen, const struct group *g, size_t m,
                        const mt_bucket_opts *o)
{
	struct cell *D = malloc(m * sizeof(*D));
	double *prefix = malloc((m + 1) * sizeof(*prefix));
	long at;

	if (!D || !prefix) {
		free(D), free(prefix);
		return mt_error_set(MT_EIO, "out of memory");
	}
	prefix[0] = 0;
	for (size_t i = 0; i < m; i++)
		prefix[i + 1] = prefix[i] + (double)g[i].steps;
	for (size_t i = 0; i < m; i++) {
		double s = mt_bucket_step_s(o, g[i].r);
		D[i] = (struct cell){o->compile_s + prefix[i + 1] * s, 1, -1};
		for (size_t p = 0; p < i; p++) {
			double v = D[p].cost + o->compile_s + (prefix[i + 1] - prefix[p + 1]) * s;
			if (better(v, D[p].k + 1, D[i].cost, D[i].k))
				D[i] = (struct cell){v, D[p].k + 1, (long)p};
		}
	}
	memset(chosen, 0, m);
	for (at = (long)m - 1; at >= 0; at = D[at].prev)
		chosen[at] = 1;
	free(D), free(prefix);
	return 0;
}

static int check_opts(const mt_length_count *v, size_t n, const mt_bucket_opts *o)
{
	if (!n)
		return mt_error_set(MT_EINVALID, "no lengths to plan buckets for");
	if (!isfinite(o->compile_s) || o->compile_s < 0)
		return mt_error_set(MT_EINVALID, "compile seconds: %g is not a number of seconds >= 0",
		                    o->compile_s);
	if (!isfinite(o->a) || !isfinite(o->b) || !isfinite(o->c))
		return mt_error_set(MT_EINVALID, "step seconds: the coefficients must be finite");
	if (o->multiple < 1 || o->multiple > (int64_t)1 << 40)
		return mt_error_set(MT_EINVALID, "--multiple-of: %lld is not between 1 and 2^40",
		                    (long long)o->multiple);
	for (size_t i = 0; i < n; i++)
		if (v[i].length < 1 || v[i].length > (int64_t)1 << 40 || v[i].count < 1)
			return mt_error_set(MT_EINVALID, "length %lld (count %llu): lengths and counts "
			                    "must be positive", (long long)v[i].length,
			                    (unsigned long long)v[i].count);
	return 0;
}

int mt_buckets_advise(mt_bucket_advice *out, const mt_length_count *v, size_t n,
                      const mt_bucket_opts *o)
{
	struct group *g = NULL;
	unsigned char *chosen = NULL;
	size_t m = 0;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = check_opts(v, n, o)) < 0 || (error = group(&g, &m, out, v, n, o->multiple)) < 0)
		return error;
	if (!(chosen = malloc(m))) {
		error = mt_error_set(MT_EIO, "out of memory");
		goto done;
	}
	error = o->max_buckets && o->max_buckets < m ? optimum(chosen, g, m, o->max_buckets, o)
	                                             : optimum_free(chosen, g, m, o);
	if (!error)
		error = plan_from(&out->best, g, m, chosen, o);
	memset(chosen, 0, m);
	chosen[m - 1] = 1;
	if (!error)
		error = plan_from(&out->pad_to_max, g, m, chosen, o);
	memset(chosen, 1, m);
	if (!error)
		error = plan_from(&out->per_length, g, m, chosen, o);
done:
	free(g);
	free(chosen);
	if (error)
		mt_bucket_advice_dispose(out);
	return error;
}

/* The lengths read so far, one entry per distinct length in the order
 * first seen, found again through an open-addressing table of indices: a
 * file of a million steps keeps a few thousand entries. */
struct lengths {
	mt_length_count *v;
	size_t n, cap;
	size_t *slot; /* index + 1, 0: empty */
	size_t nslot; /* a power of two, > 2n */
};

static int lengths_grow(struct lengths *L)
{
	size_t ns = L->nslot ? L->nslot * 2 : 1024, *slot = calloc(ns, sizeof(*slot));
	mt_length_count *v = realloc(L->v, ns / 2 * sizeof(*v));

	if (!slot || !v) {
		free(slot);
		if (v)
			L->v = v;
		return mt_error_set(MT_EIO, "out of memory");
	}
	L->v = v, L->cap = ns / 2;
	for (size_t i = 0; i < L->n; i++) {
		size_t h = (size_t)((uint64_t)L->v[i].length * 0x9E3779B97F4A7C15ull >> 20) & (ns - 1);
		while (slot[h])
			h = (h + 1) & (ns - 1);
		slot[h] = i + 1;
	}
	free(L->slot);
	L->slot = slot, L->nslot = ns;
	return 0;
}

static int lengths_add(struct lengths *L, int64_t len, uint64_t count)
{
	size_t h;
	int error;

	if (L->n + 1 > L->cap && (error = lengths_grow(L)) < 0)
		return error;
	h = (size_t)((uint64_t)len * 0x9E3779B97F4A7C15ull >> 20) & (L->nslot - 1);
	while (L->slot[h] && L->v[L->slot[h] - 1].length != len)
		h = (h + 1) & (L->nslot - 1);
	if (L->slot[h]) {
		L->v[L->slot[h] - 1].count += count;
	} else {
		L->v[L->n] = (mt_length_count){len, count};
		L->slot[h] = ++L->n;
	}
	return 0;
}

/* A whole number of at most 13 digits at *p (advanced past it), or -1. */
static long long digits(const char **p, const char *end)
{
	long long v = 0;
	int k = 0;

	while (*p < end && **p >= '0' && **p <= '9' && k < 14)
		v = v * 10 + (*(*p)++ - '0'), k++;
	return k == 0 || k > 13 ? -1 : v;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* One line s[0..end) of a lengths file: "L" or "L,COUNT" (spaces around
 * either allowed) into *len, *count. 0, or MT_EINVALID with what is wrong
 * (the caller adds FILE:LINE). */
static int parse_length_line(long long *len, long long *count, const char *s, const char *end)
{
	const char *p = s;
	int n = (int)(end - s > 40 ? 40 : end - s);

	*count = 1;
	if ((*len = digits(&p, end)) < 1 || *len > (1LL << 40))
		return mt_error_set(MT_EINVALID, "'%.*s' is not a positive integer length", n, s);
	p = skip_blank(p, end);
	if (p < end && *p == ',') {
		p = skip_blank(p + 1, end);
		if ((*count = digits(&p, end)) < 1)
			return mt_error_set(MT_EINVALID, "'%.*s': the count is not a positive integer", n, s);
		p = skip_blank(p, end);
	}
	if (p < end)
		return mt_error_set(MT_EINVALID, "'%.*s': expected LENGTH or LENGTH,COUNT", n, s);
	return 0;
}

int mt_buckets_read_lengths(mt_length_count **out, size_t *n, const char *path)
{
	const unsigned char *data = NULL;
	uint64_t size = 0;
	struct lengths L = {0};
	size_t line = 0;
	const char *p, *end;
	int error;

	*out = NULL, *n = 0;
	if ((error = mt_file_map(path, &data, &size)) < 0)
		return error;
	p = (const char *)data, end = p + size;
	while (!error && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		const char *s = skip_blank(p, e);
		long long len, count;
		line++;
		if (s < e && *s != '#' && !(line == 1 && e - s >= 6 && memcmp(s, "length", 6) == 0)) {
			if ((error = parse_length_line(&len, &count, s, e)) < 0)
				mt_error_prefix(error, "%s:%zu: ", path, line);
			else
				error = lengths_add(&L, len, (uint64_t)count);
		}
		p = nl ? nl + 1 : end;
	}
	mt_file_unmap(data, size);
	free(L.slot);
	if (!error && !L.n)
		error = mt_error_set(MT_EINVALID, "%s: no lengths (one positive integer per line, "
		                     "or LENGTH,COUNT)", path);
	if (error) {
		free(L.v);
		return error;
	}
	*out = L.v, *n = L.n;
	return 0;
}

/* Solves the 3x3 (or 2x2) normal equations by Gaussian elimination with
 * partial pivoting; MT_EINVALID when singular. */
static int solve(double A[3][4], int k)
{
	for (int c = 0; c < k; c++) {
		int piv = c;
		for (int r = c + 1; r < k; r++)
			if (fabs(A[r][c]) > fabs(A[piv][c]))
				piv = r;
		if (fabs(A[piv][c]) < 1e-300)
			return mt_error_set(MT_EINVALID, "the step-time fit is singular");
		for (int j = 0; j <= k; j++) {
			double t = A[c][j];
			A[c][j] = A[piv][j], A[piv][j] = t;
		}
		for (int r = 0; r < k; r++) {
			double f = A[r][c] / A[c][c];
			if (r == c)
				continue;
			for (int j = c; j <= k; j++)
				A[r][j] -= f * A[c][j];
		}
	}
	for (int c = 0; c < k; c++)
		A[c][k] /= A[c][c];
	return 0;
}

int mt_buckets_fit(double coef[3], const double *len, const double *secs, size_t n,
                   int quadratic)
{
	int k = quadratic ? 3 : 2;
	double A[3][4] = {{0}}, mean = 0, scale = 0;
	size_t distinct = 0;

	for (size_t i = 0; i < n; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen && distinct < 4; j++)
			seen = len[j] == len[i];
		distinct += !seen;
		mean += len[i] / (double)n;
	}
	if (n == 0 || distinct < (size_t)k)
		return mt_error_set(MT_EINVALID, "a fit of step time against length needs steps of at "
		                    "least %d different padded lengths", k);
	for (size_t i = 0; i < n; i++)
		scale = fmax(scale, fabs(len[i] - mean));
	/* Centred and scaled, so that B^2 of long sequences keeps its precision. */
	for (size_t i = 0; i < n; i++) {
		double x = (len[i] - mean) / scale, p[3] = {1, x, x * x};
		for (int r = 0; r < k; r++) {
			for (int c = 0; c < k; c++)
				A[r][c] += p[r] * p[c];
			A[r][k] += p[r] * secs[i];
		}
	}
	if (solve(A, k) < 0)
		return MT_EINVALID;
	{
		double u = A[0][k], v = A[1][k], w = k == 3 ? A[2][k] : 0;
		/* s = u + v (B-m)/S + w (B-m)^2/S^2, expanded in powers of B */
		coef[2] = w / (scale * scale);
		coef[1] = v / scale - 2 * w * mean / (scale * scale);
		coef[0] = u - v * mean / scale + w * mean * mean / (scale * scale);
	}
	return 0;
}

static json_t *plan_json(const mt_bucket_plan *p)
{
	json_t *b = json_array();

	for (size_t i = 0; b && i < p->n_buckets; i++)
		json_array_append_new(b, json_integer(p->buckets[i]));
	return json_pack("{s:o*, s:I, s:f, s:f, s:f}", "buckets", b, "compiles",
	                 (json_int_t)p->n_buckets, "compile_seconds", p->compile_s,
	                 "predicted_seconds", p->predicted_s, "padding_fraction",
	                 p->padding_fraction);
}

json_t *mt_bucket_advice_json(const mt_bucket_advice *a)
{
	json_t *j = plan_json(&a->best);
	double alt = fmin(a->pad_to_max.predicted_s, a->per_length.predicted_s);

	if (!j)
		return NULL;
	if (json_object_set_new(j, "alternatives",
	                        json_pack("{s:o*, s:o*}", "pad_to_max", plan_json(&a->pad_to_max),
	                                  "per_length", plan_json(&a->per_length))) ||
	    json_object_set_new(j, "steps", json_integer((json_int_t)a->steps)) ||
	    json_object_set_new(j, "distinct_lengths", json_integer((json_int_t)a->distinct)) ||
	    json_object_set_new(j, "candidates", json_integer((json_int_t)a->candidates)) ||
	    json_object_set_new(j, "longest", json_integer(a->longest)) ||
	    json_object_set_new(j, "saving_seconds", json_real(alt - a->best.predicted_s))) {
		json_decref(j);
		return NULL;
	}
	return j;
}
