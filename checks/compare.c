/* The comparison of one tensor pair: one pass over both, in chunks
 * converted to double, the element range split across threads whose
 * partial results are merged in order (so sums and tie-breaks do not depend
 * on scheduling). */
#include "compare.h"

#include "error.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Elements per chunk: two chunks of doubles (128 KB) stay in L2. */
#define CHUNK 8192
/* Polygraphy's stand-in for a zero reference in relative errors. */
#define REL_EPS 2.220446049250313e-16

/* What one thread gathers over its range; merged in range order. */
struct acc {
	uint64_t mism, near;
	double mm_abs, mm_rel; /* over mismatches, assert_close's way */
	uint64_t mm_abs_i, mm_rel_i;
	double all_abs, all_rel; /* over all elements: min_atol, min_rtol */
	uint64_t all_abs_i, all_rel_i;
	double dot, saa, sbb;              /* cosine */
	double sum_abs, sum_rel, max_prel; /* Polygraphy's errors */
	int pnan;
};

struct job {
	const mt_tensor *ref, *cand;
	double rtol, atol;
	int equal_nan;
	double *store_abs, *store_rel; /* numel each, for median/quantile */
	_Atomic uint64_t bytes_done;
	uint64_t bytes_total;
	const mt_cmp_options *o;
};

struct part {
	struct job *job;
	uint64_t first, end;
	struct acc acc;
	int reports; /* the calling thread's part: it reports progress */
	pthread_t thread;
};

static void acc_init(struct acc *a)
{
	memset(a, 0, sizeof(*a));
	a->mm_abs = a->mm_rel = -1; /* any mismatch's difference beats it */
	a->all_abs = a->all_rel = -1;
	a->max_prel = -1;
}

/* torch.max over the mismatches: the first NaN wins, then the first of the
 * greatest. */
static int beats_nan_first(double v, double best)
{
	if (isnan(best))
		return 0;
	return isnan(v) || v > best;
}

/* One element, exactly: the rule of torch.isclose (equal values, Inf
 * included, always pass; NaN passes only against NaN with equal_nan). */
static void element(struct acc *a, const struct job *j, double c, double r, uint64_t i,
                    double *pabs, double *prel)
{
	double d = fabs(c - r), ar = fabs(r), pd, pr;
	int eq = c == r || (j->equal_nan && isnan(c) && isnan(r));
	int close = eq || (isfinite(d) && d <= j->atol + j->rtol * ar);
	double de = eq ? 0 : isnan(d) ? INFINITY : d;
	double re = de == 0 ? 0 : isnan(d) ? INFINITY : d / ar;

	if (!close) {
		double rel = d / ar;
		a->mism++;
		if (beats_nan_first(d, a->mm_abs))
			a->mm_abs = d, a->mm_abs_i = i;
		if (beats_nan_first(rel, a->mm_rel))
			a->mm_rel = rel, a->mm_rel_i = i;
	}
	if (de > a->all_abs)
		a->all_abs = de, a->all_abs_i = i;
	if (re > a->all_rel)
		a->all_rel = re, a->all_rel_i = i;
	a->dot += c * r;
	a->saa += c * c;
	a->sbb += r * r;
	a->near += ar <= j->atol;
	pd = eq ? 0 : d;
	pr = pd / (r == 0 ? REL_EPS : ar);
	a->pnan |= isnan(pd) || isnan(pr);
	a->sum_abs += pd;
	a->sum_rel += pr;
	if (pr > a->max_prel)
		a->max_prel = pr;
	if (pabs)
		*pabs = pd, *prel = pr;
}

/* The fast path works on two doubles at a time through GCC/clang vector
 * types (SSE2 on x86-64, NEON on arm64), in V independent vectors so the
 * sums do not wait on one another. The order of summation is fixed, so the
 * results do not depend on scheduling. */
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));
#define V 2
#define LANES (2 * V)

struct lanes {
	v2d amax[V], rmax[V], pmax[V], dot[V], saa[V], sbb[V], sa[V], sr[V];
	v2l bad[V], near[V];
};

static inline __attribute__((always_inline)) v2d vmax(v2d a, v2d b)
{
	v2l m = a > b;
	return (v2d)(((v2l)a & m) | ((v2l)b & ~m));
}

/* Two elements into vector l; `poly`: Polygraphy's relative errors too
 * (only the mean and max statistics read them, and they cost a division). */
static inline __attribute__((always_inline)) void vec_step(struct lanes *s, int l, v2d cv, v2d rv,
                                                           double atol, double rtol, int poly)
{
	const v2l sign = {INT64_MAX, INT64_MAX}, one = {1, 1};
	const v2d onev = {1, 1}, atolv = {atol, atol}, rtolv = {rtol, rtol};
	const v2d maxv = {DBL_MAX, DBL_MAX}, epsv = {REL_EPS, REL_EPS}, zero = {0, 0};
	v2d d = (v2d)((v2l)(cv - rv) & sign), ar = (v2d)((v2l)rv & sign);
	/* d / ar, 0 where equal, inf where ref is 0: divided only when it may
	 * beat the lane's maximum (d > max * den, a multiplication), which
	 * after the first elements of a chunk it seldom does */
	v2d den = ar + (v2d)((v2l)onev & (d == zero));
	v2l may = d > s->rmax[l] * den;

	/* NaN fails the first test; an infinite reference would pass it */
	s->bad[l] |= ~(d <= atolv + rtolv * ar) | ~(ar <= maxv);
	s->amax[l] = vmax(d, s->amax[l]);
	if (__builtin_expect(may[0] | may[1], 0))
		s->rmax[l] = vmax(d / den, s->rmax[l]);
	s->dot[l] += cv * rv;
	s->saa[l] += cv * cv;
	s->sbb[l] += rv * rv;
	s->near[l] += (ar <= atolv) & one;
	s->sa[l] += d;
	if (poly) {
		v2l z = ar == zero;
		v2d pr = d / (v2d)(((v2l)epsv & z) | ((v2l)ar & ~z));
		s->pmax[l] = vmax(pr, s->pmax[l]);
		s->sr[l] += pr;
	}
}

/* Over doubles c and r, or, when cf is not NULL, straight over float32
 * data cf and rf (converted in registers: no buffer written and read back). */
static inline __attribute__((always_inline)) void lanes_run(struct lanes *s, const struct job *j,
                                                            const double *c, const double *r,
                                                            const float *cf, const float *rf,
                                                            size_t n, int poly)
{
	const v2d minus1 = {-1, -1};
	size_t k = 0;

	for (int l = 0; l < V; l++)
		s->amax[l] = s->rmax[l] = s->pmax[l] = minus1;
	for (; k + LANES <= n; k += LANES)
		for (int l = 0; l < V; l++) {
			v2d cv, rv;
			if (cf) {
				float cp[2], rp[2];
				memcpy(cp, cf + k + 2 * l, sizeof(cp));
				memcpy(rp, rf + k + 2 * l, sizeof(rp));
				cv = (v2d){cp[0], cp[1]};
				rv = (v2d){rp[0], rp[1]};
			} else {
				memcpy(&cv, c + k + 2 * l, sizeof(cv));
				memcpy(&rv, r + k + 2 * l, sizeof(rv));
			}
			vec_step(s, l, cv, rv, j->atol, j->rtol, poly);
		}
	for (; k < n; k++) { /* the tail, one element (and a zero) at a time */
		float cp, rp;
		if (cf) {
			memcpy(&cp, cf + k, sizeof(cp));
			memcpy(&rp, rf + k, sizeof(rp));
		}
		v2d cv = {cf ? cp : c[k], 0}, rv = {cf ? rp : r[k], 0};
		vec_step(s, 0, cv, rv, j->atol, j->rtol, poly);
		s->near[0][1]--; /* the padding zero is within any atol */
	}
}

/* Where in the chunk the new maximum is: its first occurrence. */
static void find_max(const double *c, const double *r, size_t n, uint64_t first, double amax,
                     double rmax, struct acc *a)
{
	for (size_t k = 0; amax > a->all_abs && k < n; k++)
		if (fabs(c[k] - r[k]) == amax)
			a->all_abs = amax, a->all_abs_i = first + k;
	for (size_t k = 0; rmax > a->all_rel && k < n; k++) {
		double d = fabs(c[k] - r[k]);
		if (d / (fabs(r[k]) + (double)(d == 0)) == rmax)
			a->all_rel = rmax, a->all_rel_i = first + k;
	}
}

/* The common chunk: every element finite and within tolerance, so no
 * mismatch bookkeeping and no index search unless a maximum moves. Returns
 * 0 when the chunk needs the exact path instead. */
static int chunk_fast(struct acc *a, const struct job *j, double *c, double *r, const float *cf,
                      const float *rf, size_t n, uint64_t first, int poly)
{
	struct lanes s = {0};
	double amax = -1, rmax = -1;

	if (cf && poly)
		lanes_run(&s, j, NULL, NULL, cf, rf, n, 1);
	else if (cf)
		lanes_run(&s, j, NULL, NULL, cf, rf, n, 0);
	else if (poly)
		lanes_run(&s, j, c, r, NULL, NULL, n, 1);
	else
		lanes_run(&s, j, c, r, NULL, NULL, n, 0);
	for (int l = 0; l < V; l++)
		if (s.bad[l][0] | s.bad[l][1])
			return 0;
	for (int l = 0; l < V; l++)
		for (int e = 0; e < 2; e++) {
			amax = s.amax[l][e] > amax ? s.amax[l][e] : amax;
			rmax = s.rmax[l][e] > rmax ? s.rmax[l][e] : rmax;
			if (s.pmax[l][e] > a->max_prel)
				a->max_prel = s.pmax[l][e];
			a->dot += s.dot[l][e], a->saa += s.saa[l][e], a->sbb += s.sbb[l][e];
			a->sum_abs += s.sa[l][e], a->sum_rel += s.sr[l][e];
			a->near += (uint64_t)s.near[l][e];
		}
	if (amax > a->all_abs || rmax > a->all_rel) { /* a maximum moved: where? */
		if (cf) {
			mt_tensor_to_double(MT_DT_F32, cf, 0, n, c);
			mt_tensor_to_double(MT_DT_F32, rf, 0, n, r);
		}
		find_max(c, r, n, first, amax, rmax, a);
	}
	return 1;
}

static void *part_run(void *arg)
{
	struct part *p = arg;
	struct job *j = p->job;
	double c[CHUNK], r[CHUNK];
	size_t es = mt_dtype_size(j->ref->dtype) + mt_dtype_size(j->cand->dtype);
	unsigned step = 0;
	int poly = j->o->stat == MT_STAT_MEAN || j->o->stat == MT_STAT_MAX;
	int f32 = j->cand->dtype == MT_DT_F32 && j->ref->dtype == MT_DT_F32 && !j->store_abs;

	for (uint64_t i = p->first; i < p->end; i += CHUNK) {
		size_t n = p->end - i < CHUNK ? (size_t)(p->end - i) : CHUNK;
		const float *cf = NULL, *rf = NULL;
		if (f32) { /* the fast path reads the float32 data in place */
			cf = (const float *)j->cand->data + i;
			rf = (const float *)j->ref->data + i;
		} else {
			mt_tensor_to_double(j->cand->dtype, j->cand->data, i, n, c);
			mt_tensor_to_double(j->ref->dtype, j->ref->data, i, n, r);
		}
		if (j->store_abs || !chunk_fast(&p->acc, j, c, r, cf, rf, n, i, poly)) {
			if (f32) {
				mt_tensor_to_double(j->cand->dtype, j->cand->data, i, n, c);
				mt_tensor_to_double(j->ref->dtype, j->ref->data, i, n, r);
			}
			for (size_t k = 0; k < n; k++)
				element(&p->acc, j, c[k], r[k], i + k,
				        j->store_abs ? &j->store_abs[i + k] : NULL,
				        j->store_rel ? &j->store_rel[i + k] : NULL);
		}
		uint64_t done =
		    atomic_fetch_add_explicit(&j->bytes_done, n * es, memory_order_relaxed);
		if (p->reports && j->o->progress && ++step % 512 == 0) /* every 4M elements */
			j->o->progress(done + n * es, j->bytes_total, j->o->payload);
	}
	return NULL;
}

/* Folds b (the later range) into a. */
static void acc_merge(struct acc *a, const struct acc *b)
{
	a->mism += b->mism;
	a->near += b->near;
	if (b->mism && beats_nan_first(b->mm_abs, a->mm_abs))
		a->mm_abs = b->mm_abs, a->mm_abs_i = b->mm_abs_i;
	if (b->mism && beats_nan_first(b->mm_rel, a->mm_rel))
		a->mm_rel = b->mm_rel, a->mm_rel_i = b->mm_rel_i;
	if (b->all_abs > a->all_abs)
		a->all_abs = b->all_abs, a->all_abs_i = b->all_abs_i;
	if (b->all_rel > a->all_rel)
		a->all_rel = b->all_rel, a->all_rel_i = b->all_rel_i;
	a->dot += b->dot, a->saa += b->saa, a->sbb += b->sbb;
	a->sum_abs += b->sum_abs, a->sum_rel += b->sum_rel;
	if (b->max_prel > a->max_prel)
		a->max_prel = b->max_prel;
	a->pnan |= b->pnan;
}

static int thread_count(const mt_cmp_options *o, uint64_t numel)
{
	int n = o->threads;
	const char *env = getenv("MTRIAL_CHECK_THREADS");

	if (n <= 0)
		n = env && atoi(env) > 0 ? atoi(env) : 2;
	if (n > 64)
		n = 64;
	while (n > 1 && numel / (uint64_t)n < 4 * CHUNK) /* threads cost more than they save */
		n--;
	return n;
}

/* Runs the parts, the calling thread taking the first and reporting
 * progress while the others run. */
static void run_parts(struct part *parts, int n)
{
	int started[64] = {0};

	for (int t = 1; t < n; t++)
		started[t] = pthread_create(&parts[t].thread, NULL, part_run, &parts[t]) == 0;
	for (int t = 1; t < n; t++) /* a thread that could not start: run its range here */
		if (!started[t])
			part_run(&parts[t]);
	part_run(&parts[0]);
	for (int t = 1; t < n; t++)
		if (started[t])
			pthread_join(parts[t].thread, NULL);
}

/* The k-th smallest of v[0..n) (0-based), reordering v so that every
 * element after k is at least as great (quickselect, three-way partition:
 * errors hold many equal values, zeros above all). */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		double x = v[lo], y = v[lo + (hi - lo) / 2], z = v[hi - 1], pivot, t;
		size_t lt = lo, i = lo, gt = hi;

		pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
		while (i < gt) {
			if (v[i] < pivot)
				t = v[i], v[i++] = v[lt], v[lt++] = t;
			else if (v[i] > pivot)
				t = v[i], v[i] = v[--gt], v[gt] = t;
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[k];
}

/* The q-quantile with linear interpolation (numpy's and torch's default),
 * 0 for no elements; v is reordered. */
static double quantile(double *v, size_t n, double q)
{
	double pos, lo_v, hi_v = INFINITY;
	size_t lo;

	if (n == 0)
		return 0;
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	lo_v = select_kth(v, n, lo);
	if (lo + 1 >= n || pos == (double)lo)
		return lo_v;
	for (size_t i = lo + 1; i < n; i++) /* select_kth left the greater ones above lo */
		hi_v = v[i] < hi_v ? v[i] : hi_v;
	return lo_v + (pos - (double)lo) * (hi_v - lo_v);
}

/* The chosen statistic of the absolute and relative errors. */
static void finish_stat(mt_cmp_stats *s, const struct acc *a, const struct job *j,
                        const mt_cmp_options *o)
{
	double n = (double)s->numel, q = o->stat == MT_STAT_MEDIAN ? 0.5 : o->quantile;

	s->stat_abs = s->stat_rel = 0;
	if (s->numel == 0 || o->stat == MT_STAT_ELEMWISE)
		return;
	if (a->pnan) {
		s->stat_abs = s->stat_rel = NAN;
	} else if (o->stat == MT_STAT_MAX) {
		s->stat_abs = a->all_abs, s->stat_rel = a->max_prel;
	} else if (o->stat == MT_STAT_MEAN) {
		s->stat_abs = a->sum_abs / n, s->stat_rel = a->sum_rel / n;
	} else {
		s->stat_abs = quantile(j->store_abs, s->numel, q);
		s->stat_rel = quantile(j->store_rel, s->numel, q);
	}
	/* Polygraphy: fails when both statistics fail; a NaN always fails. */
	s->passed = !((isnan(s->stat_abs) || s->stat_abs > j->atol) &&
	              (isnan(s->stat_rel) || s->stat_rel > j->rtol));
}

static void finish(mt_cmp_stats *s, const struct acc *a, const struct job *j,
                   const mt_cmp_options *o)
{
	s->mismatched = a->mism;
	s->passed = a->mism == 0;
	s->min_atol = a->all_abs < 0 ? 0 : a->all_abs;
	s->min_rtol = a->all_rel < 0 ? 0 : a->all_rel;
	if (a->mism) {
		s->max_abs = a->mm_abs, s->max_abs_index = a->mm_abs_i;
		s->max_rel = a->mm_rel, s->max_rel_index = a->mm_rel_i;
	} else {
		s->max_abs = s->min_atol, s->max_abs_index = a->all_abs_i;
		s->max_rel = s->min_rtol, s->max_rel_index = a->all_rel_i;
	}
	if (a->saa == 0 && a->sbb == 0)
		s->cosine = 1;
	else if (a->saa == 0 || a->sbb == 0)
		s->cosine = 0;
	else
		s->cosine = a->dot / (sqrt(a->saa) * sqrt(a->sbb));
	s->near_zero = a->near;
	finish_stat(s, a, j, o);
}

int mt_cmp_tensors(mt_cmp_stats *out, const mt_tensor *ref, const mt_tensor *cand, double rtol,
                   double atol, const mt_cmp_options *o)
{
	struct job j = {.ref = ref,
	                .cand = cand,
	                .rtol = rtol,
	                .atol = atol,
	                .equal_nan = o->equal_nan,
	                .bytes_total = ref->nbytes + cand->nbytes,
	                .o = o};
	struct part parts[64];
	uint64_t numel = ref->numel < cand->numel ? ref->numel : cand->numel, per;
	int n = thread_count(o, numel);

	memset(out, 0, sizeof(*out));
	out->numel = numel;
	if (o->stat == MT_STAT_MEDIAN || o->stat == MT_STAT_QUANTILE) {
		j.store_abs = malloc((numel ? numel : 1) * sizeof(double));
		j.store_rel = malloc((numel ? numel : 1) * sizeof(double));
		if (!j.store_abs || !j.store_rel) {
			free(j.store_abs);
			free(j.store_rel);
			return mt_error_set(MT_EIO,
			                    "tensor '%s': out of memory for the %s of %llu "
			                    "errors",
			                    ref->name,
			                    o->stat == MT_STAT_MEDIAN ? "median" : "quantile",
			                    (unsigned long long)numel);
		}
	}
	per = (numel / (uint64_t)n + CHUNK - 1) / CHUNK * CHUNK;
	for (int t = 0; t < n; t++) {
		parts[t] = (struct part){.job = &j, .reports = t == 0};
		parts[t].first = per * (uint64_t)t < numel ? per * (uint64_t)t : numel;
		parts[t].end =
		    t == n - 1 || per * (uint64_t)(t + 1) > numel ? numel : per * (uint64_t)(t + 1);
		acc_init(&parts[t].acc);
	}
	run_parts(parts, n);
	for (int t = 1; t < n; t++)
		acc_merge(&parts[0].acc, &parts[t].acc);
	finish(out, &parts[0].acc, &j, o);
	if (o->progress)
		o->progress(j.bytes_total, j.bytes_total, o->payload);
	free(j.store_abs);
	free(j.store_rel);
	return 0;
}

void mt_cmp_default_tolerance(mt_dtype ref, mt_dtype cand, double *rtol, double *atol,
                              mt_dtype *which)
{
	/* torch.testing._comparison._DTYPE_PRECISIONS; default_tolerances()
	 * takes the max of each over both inputs' dtypes. */
	static const struct {
		mt_dtype t;
		double rtol, atol;
	} prec[] = {{MT_DT_F16, 1e-3, 1e-5},
	            {MT_DT_BF16, 1.6e-2, 1e-5},
	            {MT_DT_F32, 1.3e-6, 1e-5},
	            {MT_DT_F64, 1e-7, 1e-7}};
	mt_dtype both[2] = {ref, cand};

	*rtol = *atol = 0;
	*which = ref;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof(prec) / sizeof(prec[0]); i++)
			if (prec[i].t == both[k] &&
			    (prec[i].rtol > *rtol || prec[i].atol > *atol)) {
				*rtol = fmax(*rtol, prec[i].rtol);
				*atol = fmax(*atol, prec[i].atol);
				*which = both[k];
			}
}

int mt_cmp_parse_stat(mt_cmp_options *o, const char *s)
{
	static const char *const names[] = {"elemwise", "max", "mean", "median"};
	char *end;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0)
			return o->stat = (mt_cmp_stat)i, 0;
	if (strncmp(s, "quantile:", 9) == 0) {
		double q = strtod(s + 9, &end);
		if (end != s + 9 && !*end && q >= 0 && q <= 1)
			return o->stat = MT_STAT_QUANTILE, o->quantile = q, 0;
	}
	return mt_error_set(MT_EUSAGE,
	                    "--stat %s: expected elemwise, max, mean, median or "
	                    "quantile:Q with Q in [0, 1]",
	                    s);
}

const char *mt_cmp_stat_name(const mt_cmp_options *o, char *buf, size_t size)
{
	static const char *const names[] = {"elemwise", "max", "mean", "median", "quantile"};

	if (o->stat == MT_STAT_QUANTILE)
		snprintf(buf, size, "quantile:%g", o->quantile);
	else
		snprintf(buf, size, "%s", names[o->stat]);
	return buf;
}
