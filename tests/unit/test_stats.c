/* common/stats.c: the one median the run figures, the compile economics,
 * the report and the wizard share (each had its own copy). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "stats.h"

static void test_median(void **state)
{
	double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, one[] = {7.5}, none[1] = {0};
	double ties[] = {2, 2, 9, 2};

	(void)state;
	assert_float_equal(mt_median(odd, 3), 3, 0);
	/* an even count: the mean of the two middle values, not either one */
	assert_float_equal(mt_median(even, 4), 2.5, 0);
	assert_float_equal(mt_median(one, 1), 7.5, 0);
	assert_true(isnan(mt_median(none, 0)));
	assert_float_equal(mt_median(ties, 4), 2, 0);
	/* sorted in place: callers read the minimum and maximum after it */
	assert_float_equal(even[0], 1, 0);
	assert_float_equal(even[3], 4, 0);
	assert_float_equal(ties[3], 9, 0);
}

/* The olympic mean drops the fastest and the slowest: it needs 3 values. */
static void test_olympic(void **state)
{
	double v[] = {1, 2, 10, 100};

	(void)state;
	assert_true(isnan(mt_olympic_mean(v, 2)));
	assert_float_equal(mt_olympic_mean(v, 3), 2, 0);
	assert_float_equal(mt_olympic_mean(v, 4), 6, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_olympic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
