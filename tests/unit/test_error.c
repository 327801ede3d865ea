/* common/error.c: the one "file:LINE:COL: what" every reader's message
 * starts with, the line and column left out when not known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "error.h"

static void test_at(void **state)
{
	(void)state;
	assert_int_equal(mt_error_at(MT_EINVALID, "trial.yaml", 12, 5, "unknown key '%s'", "foo"),
			 MT_EINVALID);
	assert_string_equal(mt_error_last(), "trial.yaml:12:5: unknown key 'foo'");
	assert_int_equal(mt_error_last_code(), MT_EINVALID);
	mt_error_at(MT_EINVALID, "requirements.txt", 3, 0, "bad");
	assert_string_equal(mt_error_last(), "requirements.txt:3: bad");
	mt_error_at(MT_EIO, "x.csv", 0, 7, "empty");
	assert_string_equal(mt_error_last(), "x.csv: empty");
	assert_int_equal(mt_error_last_code(), MT_EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_at),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
