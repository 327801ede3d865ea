/* Proportional shares of a bar's cells (report/share.h), as the wizard's ops
 * bar and the report's bar charts use them: the sum is the width, rounding
 * never takes from a part, a part with a count shows, and the part to keep
 * (unknown ops) is never made small. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "share.h"

#define N 5
#define UNKNOWN 4

static int sum(const int *cells, size_t n)
{
	int s = 0;
	for (size_t i = 0; i < n; i++)
		s += cells[i];
	return s;
}

/* 49 of 49 ops unknown: the whole bar, at every width. */
static void test_all_unknown(void **state)
{
	double counts[N] = {0, 0, 0, 0, 49};
	int cells[N];

	(void)state;
	for (int w = 1; w <= 200; w++) {
		mt_share_cells(counts, N, w, UNKNOWN, cells);
		assert_int_equal(cells[UNKNOWN], w);
		assert_int_equal(sum(cells, N), w);
	}
}

/* One op of 1000 on device still shows as one cell; the 999 unknown keep
 * the rest. */
static void test_one_of_a_thousand(void **state)
{
	double counts[N] = {1, 0, 0, 0, 999};
	int cells[N];

	(void)state;
	for (int w = 2; w <= 200; w++) {
		mt_share_cells(counts, N, w, UNKNOWN, cells);
		assert_int_equal(cells[0], 1);
		assert_int_equal(cells[UNKNOWN], w - 1);
	}
	mt_share_cells(counts, N, 1, UNKNOWN, cells);
	assert_int_equal(cells[UNKNOWN], 1); /* one cell: the larger part has it */
	assert_int_equal(cells[0], 0);
}

/* Every mix of small counts at every width 1..200: the cells add up to the
 * width, no part has less than its whole share unless a part with a count
 * needed a cell and rounding left none, no part has more than its share
 * rounded up (or one cell), and the part kept never goes below its share. */
static void test_invariants(void **state)
{
	int cells[N];

	(void)state;
	for (int mix = 1; mix < 6 * 6 * 6 * 6 * 6; mix++) {
		double counts[N], total = 0;
		int positive = 0;
		for (int i = 0, m = mix; i < N; i++, m /= 6) {
			static const double sizes[] = {0, 1, 2, 7, 49, 1000};
			counts[i] = sizes[m % 6];
			total += counts[i];
			positive += counts[i] > 0;
		}
		for (int w = 1; w <= 200; w++) {
			int gave = 0, tiny = 0, leftover = w;
			/* the cells the part kept holds whatever the others need */
			int kept = (int)floor(counts[UNKNOWN] / total * w + 1e-9);
			kept = kept ? kept : counts[UNKNOWN] > 0;
			mt_share_cells(counts, N, w, UNKNOWN, cells);
			assert_int_equal(sum(cells, N), w);
			for (int i = 0; i < N; i++) {
				double exact = counts[i] / total * w;
				assert_true(cells[i] <= (int)ceil(exact - 1e-9) || cells[i] == 1);
				if (counts[i] == 0)
					assert_int_equal(cells[i], 0);
				if (counts[i] > 0 && w - kept >= positive - (counts[UNKNOWN] > 0))
					assert_true(cells[i] >= 1);
				gave += cells[i] < (int)floor(exact + 1e-9);
				tiny += counts[i] > 0 && exact < 1 - 1e-9;
				leftover -= (int)floor(exact + 1e-9);
			}
			assert_true(cells[UNKNOWN] >= kept || w < positive);
			/* a part gives up a cell only when rounding left too few
			 * for the parts whose share is under one */
			if (gave)
				assert_true(tiny > leftover);
		}
	}
}

/* The rounding goes to the largest remainders, each part at most once. */
static void test_largest_remainder(void **state)
{
	double counts[3] = {10, 20, 30};
	int cells[3];

	(void)state;
	mt_share_cells(counts, 3, 7, -1, cells); /* 1.17, 2.33, 3.5 */
	assert_int_equal(cells[0], 1);
	assert_int_equal(cells[1], 2);
	assert_int_equal(cells[2], 4);
	mt_share_cells(counts, 3, 6, -1, cells); /* exact */
	assert_int_equal(cells[0], 1);
	assert_int_equal(cells[1], 2);
	assert_int_equal(cells[2], 3);
}

/* Three tiny parts beside a big one at width 10: each tiny part gets one
 * cell; taken from the big one, unless it is the one to keep. */
static void test_single_cells_and_keep(void **state)
{
	double counts[4] = {1000, 1, 1, 1};
	int cells[4];

	(void)state;
	mt_share_cells(counts, 4, 10, -1, cells);
	assert_int_equal(cells[0], 7);
	assert_int_equal(cells[1] + cells[2] + cells[3], 3);
	mt_share_cells(counts, 4, 10, 0, cells);
	assert_int_equal(cells[0], 9); /* its whole share of 9.97 */
	assert_int_equal(cells[1] + cells[2] + cells[3], 1);
}

/* No count, no width, counts that are not numbers: nothing drawn. */
static void test_nothing(void **state)
{
	double none[3] = {0, -4, NAN}, some[3] = {INFINITY, 3, 1};
	int cells[3] = {9, 9, 9};

	(void)state;
	mt_share_cells(none, 3, 80, -1, cells);
	assert_int_equal(sum(cells, 3), 0);
	mt_share_cells(some, 3, 0, -1, cells);
	assert_int_equal(sum(cells, 3), 0);
	mt_share_cells(some, 3, 8, -1, cells); /* infinity counts as 0 */
	assert_int_equal(cells[0], 0);
	assert_int_equal(cells[1], 6);
	assert_int_equal(cells[2], 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_unknown),
		cmocka_unit_test(test_one_of_a_thousand),
		cmocka_unit_test(test_invariants),
		cmocka_unit_test(test_largest_remainder),
		cmocka_unit_test(test_single_cells_and_keep),
		cmocka_unit_test(test_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
