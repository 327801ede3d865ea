/* The comparison of one pair: assert_close's rule and report at the edges
 * (NaN, Inf, zeros, ties), the same results through the fast path and the
 * exact one, on one thread and on several, and Polygraphy's statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "error.h"

static mt_tensor f64(const double *v, int64_t n)
{
	mt_tensor t = {.name = "t",
	               .dtype = MT_DT_F64,
	               .ndim = 1,
	               .numel = (uint64_t)n,
	               .data = v,
	               .nbytes = (uint64_t)n * 8};
	t.shape[0] = n;
	return t;
}

static mt_cmp_stats cmp(const double *r, const double *c, int64_t n, double rtol, double atol,
                        mt_cmp_options o)
{
	mt_cmp_stats s;
	mt_tensor rt = f64(r, n), ct = f64(c, n);
	assert_int_equal(mt_cmp_tensors(&s, &rt, &ct, rtol, atol, &o), 0);
	return s;
}

static void test_edges(void **state)
{
	const double r[] = {1, NAN, INFINITY, -INFINITY, 0, 2, 0};
	const double c[] = {1, NAN, INFINITY, INFINITY, 0, 2.5, 1e-3};
	mt_cmp_options o = {0};
	mt_cmp_stats s;
	(void)state;

	s = cmp(r, c, 7, 0, 1e-5, o);
	assert_int_equal(s.mismatched, 4); /* NaN, -inf vs inf, 2.5, 1e-3 */
	assert_true(isnan(s.max_abs));     /* a NaN outranks every number */
	assert_int_equal(s.max_abs_index, 1);
	assert_true(isinf(s.min_atol));
	assert_true(isinf(s.min_rtol));
	o.equal_nan = 1;
	s = cmp(r, c, 7, 0, 1e-5, o);
	assert_int_equal(s.mismatched, 3);
	assert_true(isinf(s.max_abs)); /* -inf vs inf */
	assert_int_equal(s.max_abs_index, 3);
	assert_true(isnan(s.max_rel) && s.max_rel_index == 3); /* inf / inf, as torch has it */
	s = cmp(r + 4, c + 4, 2, 0, 1e-5, o);                  /* 0 vs 0, 2 vs 2.5 */
	assert_int_equal(s.mismatched, 1);
	assert_true(s.max_abs == 0.5 && s.max_abs_index == 1);
	assert_true(s.min_rtol == 0.25 && s.min_atol == 0.5);
}

static void test_ties_and_empty(void **state)
{
	const double r[] = {0, 0, 0, 0, 0};
	const double c[] = {0, 1, 0, 1, 0};
	mt_cmp_options o = {0};
	mt_cmp_stats s;
	(void)state;

	s = cmp(r, c, 5, 1.3e-6, 1e-5, o);
	assert_int_equal(s.max_abs_index, 1); /* the first of equal maxima */
	s = cmp(r, c, 0, 1.3e-6, 1e-5, o);
	assert_true(s.passed && s.numel == 0 && s.cosine == 1);
	s = cmp(r, r, 5, 0, 0, o);
	assert_true(s.passed && s.cosine == 1 && s.near_zero == 5);
	s = cmp(r, c, 5, 0, 0, o);
	assert_true(!s.passed && s.cosine == 0);
}

/* A large pair through the fast path, compared with the same pair made to
 * take the exact path (one mismatch per chunk), on 1 and 3 threads. */
static void test_fast_matches_exact(void **state)
{
	int64_t n = 100003, i;
	double *r = malloc(n * sizeof(double)), *c = malloc(n * sizeof(double));
	mt_cmp_options o1 = {.threads = 1}, o3 = {.threads = 3};
	mt_cmp_stats a, b, x;
	(void)state;

	for (i = 0; i < n; i++) {
		r[i] = sin((double)i) * (i % 7 == 0 ? 1e-7 : 1);
		c[i] = r[i] * (1 + 1e-9 * (double)(i % 13));
	}
	a = cmp(r, c, n, 1e-6, 1e-5, o1);
	b = cmp(r, c, n, 1e-6, 1e-5, o3);
	assert_true(a.passed && b.passed);
	assert_true(a.min_atol == b.min_atol && a.max_abs_index == b.max_abs_index);
	assert_true(a.min_rtol == b.min_rtol && a.max_rel_index == b.max_rel_index);
	assert_int_equal(a.near_zero, b.near_zero);
	assert_true(fabs(a.cosine - b.cosine) < 1e-12);
	/* the exact path: a tolerance of 0 sends every chunk there */
	x = cmp(r, c, n, 0, 0, o1);
	assert_true(x.min_atol == a.min_atol && x.max_abs_index != 0);
	assert_true(x.min_rtol == a.min_rtol);
	assert_true(fabs(x.cosine - a.cosine) < 1e-12);
	free(r);
	free(c);
}

static void test_stats(void **state)
{
	const double r[] = {1, 1, 1, 1, 0};
	const double c[] = {1, 1, 1.1, 2, 0};
	mt_cmp_options o = {0};
	mt_cmp_stats s;
	(void)state;

	assert_int_equal(mt_cmp_parse_stat(&o, "median"), 0);
	s = cmp(r, c, 5, 0, 0, o);
	assert_true(s.passed && s.stat_abs == 0); /* median of 0,0,0.1,1,0 */
	assert_int_equal(mt_cmp_parse_stat(&o, "quantile:0.9"), 0);
	s = cmp(r, c, 5, 0, 0.5, o); /* 0.9 * 4 = 3.6: 0.1 + 0.6 * 0.9 */
	assert_true(fabs(s.stat_abs - 0.64) < 1e-12 && !s.passed);
	assert_int_equal(mt_cmp_parse_stat(&o, "mean"), 0);
	s = cmp(r, c, 5, 0, 0.3, o);
	assert_true(fabs(s.stat_abs - 0.22) < 1e-12 && s.passed);
	assert_int_equal(mt_cmp_parse_stat(&o, "max"), 0);
	s = cmp(r, c, 5, 1.0, 0, o); /* passes on rtol: max rel 1.0 */
	assert_true(s.passed && s.stat_rel == 1.0);
	assert_int_equal(mt_cmp_parse_stat(&o, "quantile:1.5"), MT_EUSAGE);
	assert_int_equal(mt_cmp_parse_stat(&o, "p99"), MT_EUSAGE);
}

static void test_defaults(void **state)
{
	double rtol, atol;
	mt_dtype w;
	(void)state;
	mt_cmp_default_tolerance(MT_DT_F32, MT_DT_BF16, &rtol, &atol, &w);
	assert_true(rtol == 1.6e-2 && atol == 1e-5 && w == MT_DT_BF16);
	mt_cmp_default_tolerance(MT_DT_F64, MT_DT_F64, &rtol, &atol, &w);
	assert_true(rtol == 1e-7 && atol == 1e-7);
	mt_cmp_default_tolerance(MT_DT_I32, MT_DT_BOOL, &rtol, &atol, &w);
	assert_true(rtol == 0 && atol == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_edges),
	    cmocka_unit_test(test_ties_and_empty),
	    cmocka_unit_test(test_fast_matches_exact),
	    cmocka_unit_test(test_stats),
	    cmocka_unit_test(test_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
