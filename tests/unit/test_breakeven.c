/* trial/breakeven.c: from what run length the slower-starting system pays
 * off, for time and for cost, and the cases with no crossing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "breakeven.h"
#include "error.h"

/* The issue's example: baseline 60 s then 2.0 s/step, candidate 3,600 s
 * then 1.0 s/step: 60 + 2n = 3600 + n at n = 3540. */
static void test_issue_example(void **state)
{
	mt_breakeven_side b = {60, 2.0, NAN}, c = {3600, 1.0, NAN};
	mt_breakeven r;

	(void)state;
	assert_int_equal(mt_breakeven_compute(&r, &b, &c), 0);
	assert_float_equal(r.steps, 3540, 0);
	assert_float_equal(r.hours_baseline, (60 + 3540 * 2.0) / 3600, 1e-12);
	assert_float_equal(r.hours_candidate, r.hours_baseline, 1e-12);
	assert_string_equal(r.winner_before, "baseline");
	assert_string_equal(r.winner_after, "candidate");
	assert_null(r.reason);
	assert_true(isnan(r.cost_steps));
	assert_non_null(r.cost_reason);

	/* priced: the candidate's hour costs 1.5x: 90 + 3n = 5400 + 1.5n... */
	b.price_per_hour = 2.0, c.price_per_hour = 3.0;
	assert_int_equal(mt_breakeven_compute(&r, &b, &c), 0);
	/* 2(60 + 2n) = 3(3600 + n): 120 + 4n = 10800 + 3n, n = 10680 */
	assert_float_equal(r.cost_steps, 10680, 0);
	assert_string_equal(r.cost_winner_before, "baseline");
	assert_string_equal(r.cost_winner_after, "candidate");

	/* a fractional crossing rounds up to the first whole step */
	c.clock1_s = 3600.5;
	assert_int_equal(mt_breakeven_compute(&r, &b, &c), 0);
	assert_float_equal(r.crossing, 3540.5, 1e-9);
	assert_float_equal(r.steps, 3541, 0);
}

static void test_no_crossing(void **state)
{
	mt_breakeven_side b = {60, 2.0, NAN}, c = {30, 1.0, NAN};
	mt_breakeven r;

	(void)state;
	/* the candidate starts sooner and steps faster */
	assert_int_equal(mt_breakeven_compute(&r, &b, &c), 0);
	assert_true(isnan(r.steps));
	assert_string_equal(r.winner_before, "candidate");
	assert_string_equal(r.winner_after, "candidate");
	assert_non_null(strstr(r.reason, "every run length"));

	/* the same step: the shorter start wins at every length */
	c = (mt_breakeven_side){600, 2.0, NAN};
	assert_int_equal(mt_breakeven_compute(&r, &b, &c), 0);
	assert_true(isnan(r.steps));
	assert_string_equal(r.winner_after, "baseline");

	/* identical systems */
	c = b;
	assert_int_equal(mt_breakeven_compute(&r, &b, &c), 0);
	assert_true(isnan(r.steps));
	assert_string_equal(r.winner_before, "neither");
	assert_non_null(strstr(r.reason, "same time"));

	/* JSON: steps null with a reason */
	{
		json_t *j = mt_breakeven_json(&r);
		assert_non_null(j);
		assert_true(json_is_null(json_object_get(j, "steps")));
		assert_true(json_is_string(json_object_get(j, "reason")));
		json_decref(j);
	}
}

static void test_bad_values(void **state)
{
	mt_breakeven_side b = {60, -2.0, NAN}, c = {30, 1.0, NAN};
	mt_breakeven r;

	(void)state;
	assert_int_equal(mt_breakeven_compute(&r, &b, &c), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "baseline step"));
	b.step_s = 2, c.clock1_s = NAN;
	assert_int_equal(mt_breakeven_compute(&r, &b, &c), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "candidate clock 1"));
	c.clock1_s = 1, c.price_per_hour = -1;
	assert_int_equal(mt_breakeven_compute(&r, &b, &c), MT_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_issue_example),
	    cmocka_unit_test(test_no_crossing),
	    cmocka_unit_test(test_bad_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
