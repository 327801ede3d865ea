/* run_trial: `mtrial run`'s attempt as one core function over the child
 * process (run_child.c), the log capture (run_capture.c) and the record:
 * every line of both streams in the log with its stream's tag, the
 * command's exit status as the attempt's, the journal's run ended. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixtures.h"
#include "run_trial.h"
#include "util.h"

static struct {
	char *tmp, *trial_dir;
	FILE *devnull;
} fx;

static int setup(void **state)
{
	(void)state;
	fx.tmp = mt_fx_tmpdir("run_trial");
	fx.trial_dir = mt_path_join(fx.tmp, ".mtrial");
	if (mt_trial_create(fx.trial_dir, "t", NULL, NULL) < 0)
		fail_msg("%s", mt_error_last());
	fx.devnull = fopen("/dev/null", "w");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fclose(fx.devnull);
	mt_fx_rmtree(fx.tmp);
	free(fx.tmp);
	free(fx.trial_dir);
	return 0;
}

static void on_event(mt_run_trial_event ev, const mt_run_trial_result *r, void *payload)
{
	int *started = payload;

	if (ev == MT_RUN_TRIAL_STARTED) {
		assert_true(r->id > 0);
		assert_non_null(r->log);
		(*started)++;
	}
}

/* A command that writes on both streams, a last line without its newline,
 * and fails. */
static void test_failed_attempt(void **state)
{
	char *argv[] = {"sh", "-c", "echo one; echo two >&2; printf 'three'; exit 3", NULL};
	mt_run_trial_options o = {.at = {.system = "candidate", .track = NULL},
				  .argv = argv, .out = fx.devnull, .err = fx.devnull,
				  .on_event = on_event};
	mt_run_trial_result r;
	mt_trial *t = NULL;
	char *log = NULL;
	int started = 0;

	(void)state;
	o.payload = &started;
	assert_int_equal(mt_trial_open(&t, fx.trial_dir, 1), 0);
	assert_int_equal(mt_run_trial(&r, t, &o), 0);
	assert_int_equal(started, 1);
	assert_string_equal(r.status, "failed");
	assert_int_equal(r.exit_status, 3);
	assert_int_equal(r.lines, 3);
	assert_int_equal(r.interrupted, 0);
	assert_string_equal(r.command, "sh -c 'echo one; echo two >&2; printf '\\''three'\\''; exit 3'");
	assert_int_equal(mt_file_read(&log, NULL, r.log), 0);
	assert_non_null(strstr(log, " o one\n"));
	assert_non_null(strstr(log, " e two\n"));
	assert_non_null(strstr(log, " o three\n"));
	assert_string_equal(json_string_value(json_object_get(r.run, "status")), "failed");
	assert_int_equal(json_integer_value(json_object_get(r.run, "id")), r.id);
	free(log);
	mt_run_trial_result_dispose(&r);
	mt_trial_free(t);
}

/* A command that cannot start: the child says so (127), the attempt failed. */
static void test_no_such_command(void **state)
{
	char *argv[] = {"/nonexistent/train", NULL};
	mt_run_trial_options o = {.at = {.system = "baseline", .rehearsal = 1}, .argv = argv,
				  .out = fx.devnull, .err = fx.devnull};
	mt_run_trial_result r;
	mt_trial *t = NULL;

	(void)state;
	assert_int_equal(mt_trial_open(&t, fx.trial_dir, 1), 0);
	assert_int_equal(mt_run_trial(&r, t, &o), 0);
	assert_string_equal(r.status, "failed");
	assert_int_equal(r.exit_status, 127);
	assert_true(json_is_true(json_object_get(r.run, "rehearsal")));
	mt_run_trial_result_dispose(&r);
	mt_trial_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_attempt),
		cmocka_unit_test(test_no_such_command),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
