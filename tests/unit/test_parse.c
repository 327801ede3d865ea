/* common/parse.c: the command line's values. Each refusal here was once an
 * acceptance: a duration whose hours overflowed int64 (undefined, then any
 * value), "nan" seconds cast to long (undefined), a NaN or negative
 * tolerance through strtod, and a --tol glob cut at 511 bytes (a rule for
 * another set of tensors). Found by fuzz/fuzz_values.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "parse.h"

static int64_t duration_ok(const char *s)
{
	int64_t ms = -1;
	if (mt_parse_duration(s, &ms) != 0)
		fail_msg("'%s' refused: %s", s, mt_error_last());
	return ms;
}

static void duration_bad(const char *s)
{
	int64_t ms = -1;
	mt_error_clear();
	assert_int_equal(mt_parse_duration(s, &ms), MT_EUSAGE);
	assert_int_equal(ms, -1);
	assert_non_null(strstr(mt_error_last(), "--duration"));
}

static void test_duration(void **state)
{
	(void)state;
	assert_int_equal(duration_ok("90m"), 90 * 60000);
	assert_int_equal(duration_ok("1h30m"), 90 * 60000);
	assert_int_equal(duration_ok("45s"), 45000);
	assert_int_equal(duration_ok("1.5h"), 90 * 60000);
	assert_int_equal(duration_ok("168h"), 168LL * 3600000);
	duration_bad("169h"); /* more than a week */
	duration_bad("9223372036854775807h");
	duration_bad("26476201841349237h"); /* * 3600000 wrapped to 128 ms: accepted */
	duration_bad("99999999999999999999999999m");
	duration_bad("100h100h");
	duration_bad("0h");
	duration_bad("-5m");
	duration_bad("+5m");
	duration_bad("5");
	duration_bad("");
}

static void test_seconds(void **state)
{
	(void)state;
	long ms = -1;
	assert_int_equal(mt_parse_seconds_ms("2.5", 3600, &ms), 0);
	assert_int_equal(ms, 2500);
	assert_int_equal(mt_parse_seconds_ms("3600", 3600, &ms), 0);
	assert_int_equal(ms, 3600000);
	ms = -1;
	for (const char *const *s = (const char *const[]){"nan", "NAN", "inf", "-1", "0", "3601",
							   "1e400", "0x10", " 1", "1s", "", NULL};
	     *s; s++)
		if (mt_parse_seconds_ms(*s, 3600, &ms) != MT_EUSAGE || ms != -1)
			fail_msg("'%s' accepted as %ld ms", *s, ms);
}

static void test_nonneg(void **state)
{
	(void)state;
	double v = -1;
	assert_int_equal(mt_parse_nonneg("1e-5", &v), 0);
	assert_true(v == 1e-5);
	assert_int_equal(mt_parse_nonneg("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(mt_parse_nonneg(".5", &v), 0);
	v = -1;
	for (const char *const *s = (const char *const[]){"nan", "-0.1", "inf", "1e999", "", "1x",
							   "0x1p3", " 1", NULL};
	     *s; s++)
		if (mt_parse_nonneg(*s, &v) != MT_EUSAGE || v != -1)
			fail_msg("'%s' accepted as %g", *s, v);
}

static void test_tol(void **state)
{
	(void)state;
	char arg[1200], *glob = NULL;
	double r = -1, a = -1;

	assert_int_equal(mt_parse_tol("layer.*.weight=1e-3,1e-5", &glob, &r, &a), 0);
	assert_string_equal(glob, "layer.*.weight");
	assert_true(r == 1e-3 && a == 1e-5);
	free(glob);
	/* the last '=' splits: a glob may hold one */
	assert_int_equal(mt_parse_tol("a=b=0,0", &glob, &r, &a), 0);
	assert_string_equal(glob, "a=b");
	free(glob);
	/* a long glob is kept whole, never cut */
	memset(arg, 'x', 1000);
	strcpy(arg + 1000, "=0.1,0.2");
	assert_int_equal(mt_parse_tol(arg, &glob, &r, &a), 0);
	assert_int_equal(strlen(glob), 1000);
	free(glob);
	assert_int_equal(mt_parse_tol("=1,1", &glob, &r, &a), MT_EUSAGE);
	assert_int_equal(mt_parse_tol("x=1", &glob, &r, &a), MT_EUSAGE);
	assert_int_equal(mt_parse_tol("x=nan,1", &glob, &r, &a), MT_EUSAGE);
	assert_non_null(strstr(mt_error_last(), "--tol x=nan,1: expected GLOB=RTOL,ATOL"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_nonneg),
		cmocka_unit_test(test_tol),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
