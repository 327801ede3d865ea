/* trial/scaling.c: runs grouped by system and device count, never pooled;
 * per topology the time to the target, device-hours at the median, the
 * scaling efficiency against the smallest topology and the throughput each
 * added device brings; the turnaround against device-hours trade-off in one
 * sentence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "scaling.h"

#define RUN(sys, d, t, x)                                                                          \
	{                                                                                          \
		sys, d, 1, 0, t, NAN, x, NAN, NAN                                                  \
	}

/* The issue's example: 10 h on 4 devices is 40 device-hours, 6 h on 8 is 48. */
static void test_issue_example(void **state)
{
	mt_scaling_run runs[] = {
	    RUN("candidate", 8, 6 * 3600.0, 1500),   RUN("candidate", 4, 10 * 3600.0, 1000),
	    RUN("candidate", 4, 11 * 3600.0, 950),   RUN("candidate", 4, 9 * 3600.0, 1050),
	    RUN("candidate", 8, 6.2 * 3600.0, 1450), RUN("baseline", 8, 5 * 3600.0, 2000),
	    RUN("candidate", 0, 1 * 3600.0, 9999), /* no device count: in no topology */
	};
	mt_scaling s;
	char text[256];
	json_t *j;

	(void)state;
	assert_int_equal(mt_scaling_compute(&s, runs, sizeof(runs) / sizeof(runs[0])), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.unplaced[1], 1);
	/* baseline first, then the candidate's topologies, smallest first */
	assert_string_equal(s.rows[0].system, "baseline");
	assert_int_equal(s.rows[1].devices, 4);
	assert_int_equal(s.rows[1].runs, 3);
	assert_float_equal(s.rows[1].median_s, 10 * 3600.0, 1e-9);
	assert_float_equal(s.rows[1].olympic_s, 10 * 3600.0, 1e-9);
	assert_float_equal(s.rows[1].device_hours, 40, 1e-9);
	assert_float_equal(s.rows[1].efficiency, 1, 0);
	assert_true(isnan(s.rows[1].marginal_per_device));
	assert_int_equal(s.rows[2].devices, 8);
	assert_float_equal(s.rows[2].median_s, 6.1 * 3600.0, 1e-6);
	assert_true(isnan(s.rows[2].olympic_s)); /* two runs */
	assert_float_equal(s.rows[2].device_hours, 8 * 6.1, 1e-9);
	/* (4 x 10) / (8 x 6.1): sublinear */
	assert_float_equal(s.rows[2].efficiency, 40 / (8 * 6.1), 1e-12);
	assert_int_equal(s.rows[2].efficiency_devices, 4);
	/* (1475 - 1000) / (8 - 4) */
	assert_float_equal(s.rows[2].marginal_per_device, (1475.0 - 1000) / 4, 1e-9);
	assert_float_equal(s.rows[2].throughput_per_device, 1475.0 / 8, 1e-9);
	assert_true(mt_scaling_tradeoff(&s, "candidate", text, sizeof(text)));
	assert_string_equal(text,
	                    "candidate: 8 devices reach the target in 6h 06m against 10h 00m on 4, "
	                    "but use 48.8 device-hours against 40: the faster topology costs "
	                    "more device-hours.");
	assert_false(mt_scaling_tradeoff(&s, "baseline", text, sizeof(text)));
	assert_string_equal(text, "");
	j = mt_scaling_json(&s, "candidate");
	assert_int_equal(json_array_size(j), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 1), "devices")), 8);
	assert_true(json_is_null(json_object_get(json_array_get(j, 0), "olympic_mean_time_s")) ==
	            0);
	assert_true(json_is_null(json_object_get(json_array_get(j, 1), "olympic_mean_time_s")));
	json_decref(j);
	mt_scaling_dispose(&s);
}

/* Runs that reach no target are timed by MLPerf's minutes, and only
 * compared with topologies timed the same way; failures are counted, not
 * timed. */
static void test_bases_and_failures(void **state)
{
	mt_scaling_run runs[] = {
	    {"baseline", 64, 8, 0, NAN, 20, NAN, NAN, NAN},
	    {"baseline", 64, 8, 1, NAN, 5, NAN, NAN, NAN},
	    {"baseline", 512, 64, 0, NAN, 3, NAN, 0.1, NAN},
	    {"baseline", 1024, 0, 0, 100, NAN, NAN, 0.2, 0.3},
	};
	mt_scaling s;
	char text[256];

	(void)state;
	assert_int_equal(mt_scaling_compute(&s, runs, 4), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.rows[0].failures, 1);
	assert_string_equal(s.rows[0].basis, "mlperf_minutes");
	assert_int_equal(s.rows[0].timed, 1); /* the failed attempt is not timed */
	assert_float_equal(s.rows[0].median_s, 1200, 0);
	assert_float_equal(s.rows[1].efficiency, 64 * 20.0 / (512 * 3.0), 1e-12);
	assert_string_equal(s.rows[2].basis, "time_to_target");
	assert_true(isnan(s.rows[2].efficiency) == 0); /* its own basis: 1 against itself */
	assert_int_equal(s.rows[2].efficiency_devices, 1024);
	assert_int_equal(s.rows[2].hosts, 0);
	assert_float_equal(s.rows[1].data_share, 0.1, 0);
	assert_int_equal(s.rows[2].comm_runs, 1);
	assert_true(isnan(s.rows[0].data_share));
	/* the target's time, where any topology has it */
	assert_false(mt_scaling_tradeoff(&s, "baseline", text, sizeof(text)));
	mt_scaling_dispose(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_issue_example),
	    cmocka_unit_test(test_bases_and_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
