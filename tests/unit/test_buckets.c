/* trial/buckets.c: the shape-bucket optimum. The DP is checked against an
 * exhaustive search over every subset of candidate buckets, done here, on
 * small random cases; the cost model against sums worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buckets.h"
#include "error.h"
#include "fixtures.h"

/* The model's total for one subset of the sorted distinct rounded lengths
 * r[0..m) (bit i: r[i] is a bucket; the largest must be in it), computed
 * step by step from the raw lengths, without the DP's grouping. */
static double subset_cost(const mt_length_count *v, size_t n, const int64_t *r, size_t m,
                          unsigned mask, const mt_bucket_opts *o)
{
	double total = 0;

	for (size_t i = 0; i < m; i++)
		total += (mask >> i & 1) ? o->compile_s : 0;
	for (size_t s = 0; s < n; s++) {
		int64_t B = -1;
		for (size_t i = 0; i < m && B < 0; i++)
			if ((mask >> i & 1) && r[i] >= v[s].length)
				B = r[i];
		assert_true(B > 0);
		total += (double)v[s].count * mt_bucket_step_s(o, B);
	}
	return total;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The exhaustive optimum: the least cost over subsets with at most K
 * buckets that include the largest, and among equal costs the fewest. */
static void exhaustive(double *cost, unsigned *nb, const mt_length_count *v, size_t n,
                       const mt_bucket_opts *o)
{
	int64_t r[16];
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		r[m++] = (v[i].length + o->multiple - 1) / o->multiple * o->multiple;
	qsort(r, m, sizeof(*r), cmp_i64);
	{
		size_t k = 0;
		for (size_t i = 0; i < m; i++)
			if (k == 0 || r[k - 1] != r[i])
				r[k++] = r[i];
		m = k;
	}
	*cost = INFINITY;
	for (unsigned mask = 1u << (m - 1); mask < 1u << m; mask++) {
		unsigned bits = (unsigned)__builtin_popcount(mask);
		double c;
		if (o->max_buckets && bits > o->max_buckets)
			continue;
		c = subset_cost(v, n, r, m, mask, o);
		if (isinf(*cost) || c < *cost - 1e-9 * fmax(1, *cost) ||
		    (fabs(c - *cost) <= 1e-9 * fmax(1, *cost) && bits < *nb))
			*cost = c, *nb = bits;
	}
}

static void test_dp_matches_exhaustive_search(void **state)
{
	(void)state;
	srand(7733);
	for (int round = 0; round < 2000; round++) {
		mt_length_count v[10];
		size_t n = 1 + (size_t)rand() % 10;
		mt_bucket_opts o;
		mt_bucket_advice a;
		double want;
		unsigned want_nb = 0;

		mt_bucket_opts_init(&o);
		for (size_t i = 0; i < n; i++)
			v[i] = (mt_length_count){1 + rand() % 600, 1 + (uint64_t)(rand() % 50)};
		o.compile_s = (double)(rand() % 4000) / 10;
		o.a = (double)(rand() % 100) / 100;
		o.b = (double)(rand() % 100) / 1e4;
		o.c = round % 3 ? 0 : (double)(rand() % 100) / 1e7;
		o.multiple = round % 4 ? 1 : 1 + rand() % 128;
		o.max_buckets = round % 2 ? 0 : 1 + (size_t)(rand() % 4);
		exhaustive(&want, &want_nb, v, n, &o);
		if (mt_buckets_advise(&a, v, n, &o) != 0)
			fail_msg("advise: %s", mt_error_last());
		if (fabs(a.best.predicted_s - want) > 1e-6 * fmax(1, want) || a.best.n_buckets != want_nb)
			fail_msg("round %d: DP %.6f s with %zu buckets, exhaustive %.6f s with %u", round,
			         a.best.predicted_s, a.best.n_buckets, want, want_nb);
		assert_true(o.max_buckets == 0 || a.best.n_buckets <= o.max_buckets);
		assert_true(a.best.predicted_s <= a.pad_to_max.predicted_s + 1e-6 * fmax(1, want));
		assert_int_equal(a.pad_to_max.n_buckets, 1);
		assert_int_equal(a.per_length.n_buckets, a.candidates);
		assert_int_equal(a.best.buckets[a.best.n_buckets - 1], a.pad_to_max.buckets[0]);
		mt_bucket_advice_dispose(&a);
	}
}

/* Ten steps of 100 and one of 1000, 50 s to compile, 1 ms per token:
 * padding everything to 1000 costs 50 + 11 x 1.0 = 61 s; a bucket per
 * length 100 + 10 x 0.1 + 1.0 = 102 s. Padding wastes 9000 of 11000. */
static void test_model_by_hand(void **state)
{
	mt_length_count v[] = {{100, 10}, {1000, 1}};
	mt_bucket_opts o;
	mt_bucket_advice a;

	(void)state;
	mt_bucket_opts_init(&o);
	o.compile_s = 50, o.b = 0.001;
	assert_int_equal(mt_buckets_advise(&a, v, 2, &o), 0);
	assert_float_equal(a.pad_to_max.predicted_s, 61.0, 1e-9);
	assert_float_equal(a.per_length.predicted_s, 102.0, 1e-9);
	assert_float_equal(a.pad_to_max.padding_fraction, 9000.0 / 11000.0, 1e-12);
	assert_float_equal(a.per_length.padding_fraction, 0.0, 1e-12);
	assert_int_equal(a.best.n_buckets, 1);
	assert_int_equal(a.best.buckets[0], 1000);
	assert_int_equal(a.steps, 11);
	mt_bucket_advice_dispose(&a);

	/* cheap compiles: one bucket per length wins */
	o.compile_s = 0.5;
	assert_int_equal(mt_buckets_advise(&a, v, 2, &o), 0);
	assert_int_equal(a.best.n_buckets, 2);
	assert_float_equal(a.best.predicted_s, 1.0 + 1.0 + 1.0, 1e-9);
	mt_bucket_advice_dispose(&a);

	/* --multiple-of 256: 100 rounds to 256, 1000 to 1024 */
	o.multiple = 256;
	assert_int_equal(mt_buckets_advise(&a, v, 2, &o), 0);
	assert_int_equal(a.best.buckets[0], 256);
	assert_int_equal(a.best.buckets[1], 1024);
	mt_bucket_advice_dispose(&a);
}

/* Equal totals: every choice costs the same, the fewest buckets win. */
static void test_ties_go_to_fewer_buckets(void **state)
{
	mt_length_count v[] = {{5, 3}, {9, 1}, {2, 4}, {7, 2}};
	mt_bucket_opts o;
	mt_bucket_advice a;

	(void)state;
	mt_bucket_opts_init(&o);
	o.a = 0.25; /* step time independent of length, compilation free */
	assert_int_equal(mt_buckets_advise(&a, v, 4, &o), 0);
	assert_int_equal(a.best.n_buckets, 1);
	assert_int_equal(a.best.buckets[0], 9);
	assert_float_equal(a.best.predicted_s, 2.5, 1e-12);
	mt_bucket_advice_dispose(&a);
}

static void test_bad_options(void **state)
{
	mt_length_count v[] = {{5, 3}}, bad[] = {{0, 1}};
	mt_bucket_opts o;
	mt_bucket_advice a;

	(void)state;
	mt_bucket_opts_init(&o);
	o.compile_s = -1;
	assert_int_equal(mt_buckets_advise(&a, v, 1, &o), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "compile seconds"));
	o.compile_s = 1, o.multiple = 0;
	assert_int_equal(mt_buckets_advise(&a, v, 1, &o), MT_EINVALID);
	o.multiple = 1;
	assert_int_equal(mt_buckets_advise(&a, bad, 1, &o), MT_EINVALID);
	assert_int_equal(mt_buckets_advise(&a, v, 0, &o), MT_EINVALID);
}

static void test_read_lengths(void **state)
{
	char *dir = mt_fx_tmpdir("buckets");
	char path[1024];
	mt_length_count *v;
	size_t n;

	(void)state;
	mt_fx_write(dir, "ok.txt", "# longest sequence per step\n512\n\n 128 \n300,7\r\n");
	snprintf(path, sizeof(path), "%s/ok.txt", dir);
	assert_int_equal(mt_buckets_read_lengths(&v, &n, path), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].length, 512);
	assert_int_equal(v[1].length, 128);
	assert_int_equal(v[2].length, 300);
	assert_int_equal(v[2].count, 7);
	free(v);

	mt_fx_write(dir, "bad.txt", "512\n128\n-4\n");
	snprintf(path, sizeof(path), "%s/bad.txt", dir);
	assert_int_equal(mt_buckets_read_lengths(&v, &n, path), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "bad.txt:3: "));
	assert_null(v);

	mt_fx_write(dir, "frac.txt", "12.5\n");
	snprintf(path, sizeof(path), "%s/frac.txt", dir);
	assert_int_equal(mt_buckets_read_lengths(&v, &n, path), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "frac.txt:1: "));

	mt_fx_write(dir, "count.txt", "12,0\n");
	snprintf(path, sizeof(path), "%s/count.txt", dir);
	assert_int_equal(mt_buckets_read_lengths(&v, &n, path), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "count.txt:1: "));

	mt_fx_write(dir, "empty.txt", "# nothing\n");
	snprintf(path, sizeof(path), "%s/empty.txt", dir);
	assert_int_equal(mt_buckets_read_lengths(&v, &n, path), MT_EINVALID);

	snprintf(path, sizeof(path), "%s/missing.txt", dir);
	assert_int_equal(mt_buckets_read_lengths(&v, &n, path), MT_ENOTFOUND);
	mt_fx_rmtree(dir);
	free(dir);
}

/* The fit recovers a known model from exact samples at long lengths. */
static void test_fit(void **state)
{
	double len[40], secs[40], c[3];

	(void)state;
	for (int i = 0; i < 40; i++) {
		len[i] = 512 * (1 + i % 8);
		secs[i] = 0.3 + 2e-4 * len[i] + 3e-8 * len[i] * len[i];
	}
	assert_int_equal(mt_buckets_fit(c, len, secs, 40, 1), 0);
	assert_float_equal(c[0], 0.3, 1e-6);
	assert_float_equal(c[1], 2e-4, 1e-9);
	assert_float_equal(c[2], 3e-8, 1e-12);
	assert_int_equal(mt_buckets_fit(c, len, secs, 40, 0), 0);
	assert_float_equal(c[2], 0, 0);
	for (int i = 0; i < 40; i++)
		len[i] = 1024;
	assert_int_equal(mt_buckets_fit(c, len, secs, 40, 0), MT_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dp_matches_exhaustive_search),
	    cmocka_unit_test(test_model_by_hand),
	    cmocka_unit_test(test_ties_go_to_fewer_buckets),
	    cmocka_unit_test(test_bad_options),
	    cmocka_unit_test(test_read_lengths),
	    cmocka_unit_test(test_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
