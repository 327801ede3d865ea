/* trial/runview.c: a recorded run read into mt_run_view from the JSON the
 * real producers write (the journal's row, the log's figures, what
 * mt_runs_flatten derives from trial.yaml, mt_runs_by_system), on the
 * real logs of tests/data: every key the view asks for is there, and a
 * key renamed on one side is caught. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixtures.h"
#include "run_import.h"
#include "runs.h"
#include "runview.h"
#include "util.h"

#define DATA MT_SOURCE_DIR "/tests/data/"
#define RESNET DATA "curves/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt"
#define RESNET_ABORTED DATA "curves/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_2.txt"
#define DELL_SYSTEM DATA "runs/Dell_systems_XE9640x4H100-SXM-80GB.json"

static const char spec_text[] =
	"schema: 1\nname: t\n"
	"systems:\n  candidate: {count: 8, price: {hourly: 20, currency: USD}}\n"
	"  baseline: {count: 4, price: {hourly: 30, currency: USD}}\n"
	"criteria:\n  - {name: q, kind: quality}\n"
	"quality_target: {metric: eval_accuracy, direction: higher, threshold: 0.759}\n";

static struct {
	char *tmp, *dir;
	mt_trial *t;
	json_t *runs; /* flattened: resnet (candidate, with its system description),
			 the aborted one (baseline), protocol.log (candidate, a rehearsal) */
} fx;

static void import(const char *path, const char *system, int rehearsal, json_t *topology)
{
	mt_run_import_options o = {.path = path, .format = MT_RUNS_LOG_RAW,
				   .at = {.system = system, .rehearsal = rehearsal},
				   .topology = topology};
	mt_run_import_result r;

	if (mt_run_import(&r, fx.t, &o) < 0)
		fail_msg("%s", mt_error_last());
	mt_run_import_result_dispose(&r);
}

static int setup(void **state)
{
	json_t *topology = NULL, *r;
	size_t i;

	(void)state;
	fx.tmp = mt_fx_tmpdir("runview");
	fx.dir = mt_path_join(fx.tmp, ".mtrial");
	if (mt_trial_create(fx.dir, "t", NULL, NULL) < 0)
		fail_msg("%s", mt_error_last());
	mt_fx_write(fx.dir, "trial.yaml", spec_text);
	if (mt_trial_open(&fx.t, fx.dir, 1) < 0 || mt_runs_system_read(&topology, DELL_SYSTEM) < 0)
		fail_msg("%s", mt_error_last());
	import(RESNET, "candidate", 0, topology);
	import(RESNET_ABORTED, "baseline", 0, NULL);
	import(DATA "runs/protocol.log", "candidate", 1, NULL);
	json_decref(topology);
	fx.runs = mt_journal_runs_json(fx.t->journal, MT_JOURNAL_RUNS_ALL);
	assert_int_equal(json_array_size(fx.runs), 3);
	json_array_foreach(fx.runs, i, r)
		mt_runs_flatten(r, fx.t->spec);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	json_decref(fx.runs);
	mt_trial_free(fx.t);
	mt_fx_rmtree(fx.tmp);
	free(fx.tmp);
	free(fx.dir);
	return 0;
}

/* A real MLPerf run with its system description: every key there, the
 * figures as the producers worked them out. */
static void test_mlperf_run(void **state)
{
	json_t *r = json_array_get(fx.runs, 0);
	mt_run_eval_view ev;
	mt_run_view v;

	(void)state;
	if (mt_runview_read(&v, r) < 0)
		fail_msg("%s", mt_error_last());
	assert_int_equal(v.id, 1);
	assert_string_equal(v.system, "candidate");
	assert_string_equal(v.origin, "import");
	assert_string_equal(v.status, "success");
	assert_false(v.rehearsal);
	assert_false(v.withdrawn);
	assert_true(v.flattened);
	assert_string_equal(v.outcome, "reached");
	assert_int_equal(v.reached, 1);
	assert_true(v.figures.known);
	assert_true(v.figures.target.known);
	assert_string_equal(v.figures.target.metric, "eval_accuracy");
	assert_float_equal(v.figures.target.value, 0.759, 1e-12);
	assert_int_equal(v.figures.target.reached, 1);
	assert_float_equal(v.time_to_target_s, v.figures.target.from_run_start_s, 1e-9);
	assert_true(v.time_to_target_s > 0);
	assert_true(v.run_minutes > 0);
	/* 1 node x 4 H100 from the system description, not trial.yaml's 8 */
	assert_float_equal(v.devices.count, 4, 0);
	assert_non_null(strstr(v.devices.from, "system description"));
	assert_float_equal(v.devices.cost, 20 * v.accounting_hours, 1e-9);
	assert_null(v.devices.not_priced);
	assert_non_null(v.accounting_from);
	assert_true(v.figures.steps > 0 || json_array_size(v.figures.evaluations) > 0);
	/* the evaluation that reached the target is one of the log's */
	assert_int_equal(mt_runview_eval(&ev, &v.figures, 0), 0);
	assert_string_equal(ev.metric, "eval_accuracy");
	assert_true(ev.t_ms > v.figures.first_ms - 1);
	assert_int_equal(mt_runview_eval(&ev, &v.figures, json_array_size(v.figures.evaluations)),
			 MT_ENOTFOUND);
}

/* A protocol log with a stall: its compilation and stall are read, and
 * a rehearsal is not priced. */
static void test_protocol_rehearsal(void **state)
{
	mt_run_stall_view s;
	mt_run_view v;

	(void)state;
	if (mt_runview_read(&v, json_array_get(fx.runs, 2)) < 0)
		fail_msg("%s", mt_error_last());
	assert_true(v.rehearsal);
	assert_string_equal(v.devices.not_priced, "rehearsal");
	assert_true(isnan(v.devices.cost));
	assert_int_equal(v.figures.steps, 60);
	assert_int_equal(v.figures.last_step, 60);
	assert_true(v.figures.steady && v.figures.intervals > 0);
	/* clock 2 is the mean, the stall in it; the median is the 100 ms step */
	assert_float_equal(v.figures.step_median_s, 0.1, 1e-9);
	assert_true(v.steady_step_s > v.figures.step_median_s);
	assert_string_equal(v.throughput_unit, "samples/s");
	assert_true(v.figures.target.known);
	assert_int_equal(v.figures.target.evaluated, 0); /* eval_loss only */
	assert_string_equal(v.outcome, "no_metric");
	assert_int_equal(v.reached, -1);
	assert_int_equal(mt_runview_stall(&s, &v.figures, 0), 0);
	assert_int_equal(s.step, 30);
	assert_float_equal(s.seconds, 2.0, 1e-9);
	assert_true(v.figures.compiles.known);
	assert_int_equal(v.figures.compiles.count, 1);
	assert_string_equal(v.figures.compiles.from, "stalls");
}

/* The journal's row as trial/econ.c reads it, not flattened: the derived
 * part unknown, nothing missing. */
static void test_row_not_flattened(void **state)
{
	json_t *rows = mt_journal_runs_json(fx.t->journal, 2);
	mt_run_view v;

	(void)state;
	if (mt_runview_read(&v, json_array_get(rows, 0)) < 0)
		fail_msg("%s", mt_error_last());
	assert_false(v.flattened);
	assert_true(isnan(v.clock1_s));
	assert_string_equal(v.system, "baseline");
	assert_string_equal(v.figures.status, "aborted");
	assert_true(isfinite(v.figures.clock1_s) || v.figures.first_ms > 0);
	json_decref(rows);
}

/* A key renamed on one side is counted and named, at the top and nested. */
static void test_renamed_key(void **state)
{
	json_t *r = json_deep_copy(json_array_get(fx.runs, 2)), *c;
	mt_run_view v;

	(void)state;
	json_object_set(r, "clock_1_s", json_object_get(r, "clock1_s"));
	json_object_del(r, "clock1_s");
	assert_int_equal(mt_runview_read(&v, r), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "clock1_s"));
	json_decref(r);

	r = json_deep_copy(json_array_get(fx.runs, 2));
	c = json_object_get(json_object_get(r, "metrics"), "compiles");
	json_object_set(c, "each_s", json_object_get(c, "seconds_each"));
	json_object_del(c, "seconds_each");
	assert_int_equal(mt_runview_read(&v, r), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "seconds_each"));
	assert_int_equal(v.figures.compiles.count, 1); /* the rest still read */
	json_decref(r);
}

/* mt_runs_by_system over the standing runs, and a system description. */
static void test_systems_and_topology(void **state)
{
	json_t *systems = mt_runs_by_system(fx.runs, fx.t->spec), *tp = NULL;
	mt_run_system_view b, c;
	mt_run_topology_view t;

	(void)state;
	assert_int_equal(mt_runview_system(&c, systems, "candidate"), 0);
	assert_int_equal(mt_runview_system(&b, systems, "baseline"), 0);
	assert_true(c.known && b.known);
	assert_int_equal(c.runs, 1); /* the rehearsal left out */
	assert_int_equal(c.reached, 1);
	assert_true(c.time_to_target_s.median > 0);
	assert_float_equal(c.time_to_target_s.min, c.time_to_target_s.max, 0); /* one run */
	assert_true(isnan(c.time_to_target_s.olympic_mean));                     /* needs 3 */
	assert_float_equal(c.devices, 4, 0);
	assert_float_equal(c.price_hourly, 20, 0);
	assert_int_equal(b.runs, 1);
	assert_int_equal(b.failed, 1);
	assert_true(isnan(b.time_to_target_s.median));
	json_object_del(json_object_get(systems, "baseline"), "failed");
	assert_int_equal(mt_runview_system(&b, systems, "baseline"), MT_EINVALID);
	json_decref(systems);

	assert_int_equal(mt_runs_system_read(&tp, DELL_SYSTEM), 0);
	assert_int_equal(mt_runview_topology(&t, tp), 0);
	assert_float_equal(t.nodes, 1, 0);
	assert_float_equal(t.devices, 4, 0);
	assert_non_null(strstr(t.source, "XE9640"));
	json_decref(tp);
}

/* mt_run_import's options as the CLI and the wizard give them: what a
 * file is (a system description is not a log when only logs are taken),
 * the rules read for the call when the caller has none, and refusals that
 * record nothing: a system description, a log imported already. */
static void test_import_options(void **state)
{
	enum mt_runs_log_format format = MT_RUNS_LOG_TIMED;
	mt_run_import_options o = {.path = RESNET, .at = {.system = "baseline"}};
	mt_run_import_result r;
	json_t *runs;

	(void)state;
	assert_int_equal(mt_run_import_sniff(&format, RESNET, 1), 0);
	assert_int_equal(format, MT_RUNS_LOG_RAW);
	assert_int_equal(mt_run_import_sniff(&format, DELL_SYSTEM, 0), 0);
	assert_int_equal(format, MT_RUNS_SYSTEM);
	assert_int_equal(mt_run_import_sniff(&format, DELL_SYSTEM, 1), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "is a system description, not a run's log"));
	assert_int_equal(mt_run_import_sniff(&format, DATA "runs/none.log", 1), MT_ENOTFOUND);
	assert_non_null(strstr(mt_error_last(), "none.log"));
	mt_error_clear();

	o.format = MT_RUNS_SYSTEM;
	assert_int_equal(mt_run_import(&r, fx.t, &o), MT_EINVALID);
	mt_run_import_result_dispose(&r);
	o.format = MT_RUNS_LOG_RAW; /* rules NULL: read for the call */
	assert_int_equal(mt_run_import(&r, fx.t, &o), MT_EEXISTS);
	assert_non_null(strstr(mt_error_last(), "this log is run #1's"));
	mt_run_import_result_dispose(&r);
	mt_error_clear();
	runs = mt_journal_runs_json(fx.t->journal, MT_JOURNAL_RUNS_ALL);
	assert_int_equal(json_array_size(runs), 3);
	json_decref(runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlperf_run),
		cmocka_unit_test(test_protocol_rehearsal),
		cmocka_unit_test(test_row_not_flattened),
		cmocka_unit_test(test_renamed_key),
		cmocka_unit_test(test_systems_and_topology),
		cmocka_unit_test(test_import_options),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
