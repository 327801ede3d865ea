/* Recording runs: events from real MLPerf logs (tests/data/runs and
 * tests/data/curves, both verbatim from mlcommons/training_results_v3.1)
 * and from mtrial's line protocol, warnings for broken lines, bad rule
 * files, and the figures checked against values worked out by hand from the
 * logs' time_ms fields in the comments. */
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
#include "runlog.h"
#include "util.h"

#define DELL_0                                                                                     \
	MT_SOURCE_DIR "/tests/data/curves/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt"
#define DELL_2                                                                                     \
	MT_SOURCE_DIR "/tests/data/curves/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_2.txt"
#define ASUS MT_SOURCE_DIR "/tests/data/runs/ASUSTeK_results_ESC-N8-E11_dlrm_dcnv2_result_0.txt"
#define PROTOCOL MT_SOURCE_DIR "/tests/data/runs/protocol.log"

static mt_runlog_rules *rules;

static int setup(void **state)
{
	(void)state;
	unsetenv("MTRIAL_TABLES_DIR"); /* the bundled table */
	if (mt_runlog_rules_load(&rules) < 0)
		fail_msg("%s", mt_error_last());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mt_runlog_rules_free(rules);
	return 0;
}

static void feed_text(mt_runlog *log, const char *text)
{
	mt_runlog_init(log, rules);
	assert_int_equal(mt_runlog_feed_text(log, text, strlen(text), MT_RUNLOG_NO_TIME), 0);
}

static void feed_file(mt_runlog *log, const char *path)
{
	char *text = NULL;

	if (mt_file_read(&text, NULL, path) < 0)
		fail_msg("%s", mt_error_last());
	feed_text(log, text);
	free(text);
}

static void assert_near(double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * fmax(1, fabs(want))))
		fail_msg("got %.12g, want %.12g", got, want);
}

/* The result for one file with target eval_accuracy >= `target`. */
static void metrics_of(mt_run_metrics *m, mt_runlog *log, const char *path, mt_run_opts *o,
                       double target)
{
	mt_run_opts_init(o);
	o->target_metric = "eval_accuracy";
	o->target = target;
	feed_file(log, path);
	assert_int_equal(mt_run_metrics_compute(m, log, o), 0);
}

static void test_dell_success(void **state)
{
	mt_runlog log;
	mt_run_opts o;
	mt_run_metrics m;
	(void)state;

	metrics_of(&m, &log, DELL_0, &o, 0.759);
	assert_int_equal(log.warnings_total, 0); /* shell output is skipped quietly */
	assert_string_equal(m.status, "success");
	assert_string_equal(m.status_from, "run_stop");
	/* run_start 1695413607547, run_stop 1695415212472: 1604925 ms. */
	assert_near(m.run_minutes, 1604925.0 / 60000);
	assert_near(m.run_minutes, 26.74875);
	/* init_start 1695413551602 to run_start: 55945 ms (no step lines). */
	assert_string_equal(m.clock1_from, "init_start");
	assert_string_equal(m.clock1_to, "run_start");
	assert_near(m.clock1_s, 55.945);
	/* Nine evals, epochs 3..35; 0.759 first met at epoch 35 (0.7596...),
	 * at the run_stop time. */
	assert_int_equal(m.n_evals, 9);
	assert_true(m.reached);
	assert_near(m.target_eval->epoch, 35);
	assert_near(m.target_eval->value, 0.75967519350387);
	assert_near(m.to_target_s, 1604.925);
	/* submission (init_start, the anchor) 1695413551602 -> 1695415212472 */
	assert_near(m.to_target_submit_s, 1660.870);
	/* No step lines: 35 epoch intervals (epoch_start..epoch_stop). */
	assert_string_equal(m.interval, "epoch");
	assert_int_equal(m.intervals, 35);
	assert_int_equal(m.warmup_skipped, 5);
	assert_true(m.throughput > 20000 && m.throughput < 40000); /* ~1.28M images / ~45 s */
	assert_int_equal(m.first_ms, 1695413530272);               /* submission_benchmark */
	assert_int_equal(m.last_ms, 1695415212472);

	json_t *j = mt_run_metrics_json(&m);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "success");
	assert_true(json_is_true(json_object_get(json_object_get(j, "target"), "reached")));
	assert_int_equal(json_array_size(json_object_get(j, "evaluations")), 9);
	json_decref(j);
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);
}

static void test_dell_aborted(void **state)
{
	mt_runlog log;
	mt_run_opts o;
	mt_run_metrics m;
	(void)state;

	metrics_of(&m, &log, DELL_2, &o, 0.759);
	assert_string_equal(m.status, "aborted");
	/* run_start 1695417060391, run_stop 1695418757563: 1697172 ms. */
	assert_near(m.run_minutes, 1697172.0 / 60000);
	/* Best eval 0.75827...: never 0.759. */
	assert_false(m.reached);
	assert_null(m.target_eval);
	assert_true(isnan(m.to_target_s));
	json_t *j = mt_run_metrics_json(&m);
	json_t *t = json_object_get(j, "target");
	assert_string_equal(json_string_value(json_object_get(t, "reason")),
	                    "did not reach target");
	assert_true(json_is_null(json_object_get(t, "from_run_start_s")));
	json_decref(j);
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);
}

static void test_dlrm_and_params(void **state)
{
	mt_runlog log;
	mt_run_opts o;
	mt_run_metrics m;
	const char *org = NULL;
	double gbs = NAN;
	(void)state;

	metrics_of(&m, &log, ASUS, &o, 0.80275); /* DLRM-dcnv2's AUC target */
	for (size_t i = 0; i < log.n_events; i++) {
		const mt_run_event *ev = &log.events[i];
		if (ev->kind == MT_RUN_EV_PARAM && strcmp(ev->key, "submission_org") == 0)
			org = ev->text;
		if (ev->kind == MT_RUN_EV_PARAM && strcmp(ev->key, "global_batch_size") == 0)
			gbs = ev->value;
	}
	assert_string_equal(org, "ASUSTeK");
	assert_near(gbs, 55296);
	assert_string_equal(m.status, "success");
	/* run_start 1695894155101, run_stop 1695894397797 */
	assert_near(m.run_minutes, 242696.0 / 60000);
	/* 14 evals; 0.80275 first met by the last, 0.80282... at 1695894397796 */
	assert_int_equal(m.n_evals, 14);
	assert_true(m.reached);
	assert_ptr_equal(m.target_eval, m.evals[13]);
	assert_near(m.to_target_s, 242.695);
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);
}

static void test_protocol_with_stall(void **state)
{
	mt_runlog log;
	mt_run_opts o;
	mt_run_metrics m;
	(void)state;

	mt_run_opts_init(&o);
	o.submit_ms = 1700000000000;
	o.unit = "tokens";
	o.target_metric = "eval_loss";
	o.target = 2.5;
	o.higher_is_better = 0;
	o.exit_status = 0;
	feed_file(&log, PROTOCOL);
	assert_int_equal(log.warnings_total, 0);
	assert_int_equal(mt_run_metrics_compute(&m, &log, &o), 0);
	assert_string_equal(m.status, "success");
	assert_string_equal(m.status_from, "exit_status");
	assert_int_equal(m.steps, 60);
	assert_int_equal(m.n_evals, 3);
	/* submitted at t0, step 1 at t0 + 30 s */
	assert_string_equal(m.clock1_from, "submission");
	assert_string_equal(m.clock1_to, "first_step");
	assert_near(m.clock1_s, 30);
	assert_true(isnan(m.run_minutes));
	/* 59 intervals, warm-up max(5, ceil(5.9)) = 6; the 53 left (steps
	 * 8..60): 50 of 100 ms, 2 of 150 ms (after an eval), 1 of 2000 ms. */
	assert_string_equal(m.interval, "step");
	assert_int_equal(m.intervals, 59);
	assert_int_equal(m.warmup_skipped, 6);
	assert_near(m.step_median_s, 0.1);
	assert_near(m.step_mean_s, 7.3 / 53);
	assert_near(m.throughput, 53 * 4096 / 7.3);
	/* the stall: step 30, 2 s against a median of 0.1 s */
	assert_int_equal(m.n_stalls, 1);
	assert_int_equal(m.stalls[0].step, 30);
	assert_near(m.stalls[0].seconds, 2.0);
	assert_near(m.stalls[0].median_s, 0.1);
	/* eval_loss <= 2.5 first at step 40 (t0 + 35.9 s); run start is the
	 * first step (t0 + 30 s) for want of run_start. */
	assert_true(m.reached);
	assert_int_equal(m.target_eval->step, 40);
	assert_near(m.to_target_s, 5.9);
	assert_near(m.to_target_submit_s, 35.9);
	json_t *j = mt_run_metrics_json(&m);
	json_t *st = json_object_get(j, "steady");
	assert_string_equal(json_string_value(json_object_get(st, "unit")), "tokens/s");
	assert_int_equal(json_array_size(json_object_get(j, "stalls")), 1);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(j, "target"), "at_step")), 40);
	json_decref(j);
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);
}

static void test_protocol_live_times(void **state)
{
	mt_runlog log;
	const char *eval = "mtrial:eval step=4 eval_loss=2.05\taccuracy=0.61 epoch=1";
	(void)state;

	mt_runlog_init(&log, rules);
	assert_int_equal(mt_runlog_feed_line(&log, "[rank0]: mtrial:step=3 loss=2.31", 32, 5000),
	                 0);
	assert_int_equal(mt_runlog_feed_line(&log, eval, strlen(eval), 6000), 0);
	assert_int_equal(log.n_events, 3);
	assert_int_equal(log.events[0].kind, MT_RUN_EV_STEP);
	assert_int_equal(log.events[0].step, 3);
	assert_int_equal(log.events[0].t_ms, 5000);
	assert_near(log.events[0].value, 2.31);
	assert_int_equal(log.events[1].kind, MT_RUN_EV_EVAL);
	assert_string_equal(log.events[1].key, "eval_loss");
	assert_string_equal(log.events[2].key, "accuracy");
	assert_near(log.events[2].value, 0.61);
	assert_near(log.events[2].epoch, 1);
	assert_int_equal(log.events[2].t_ms, 6000);
	assert_int_equal(log.events[2].line, 2);
	json_t *j = mt_run_event_json(&log.events[2]);
	assert_string_equal(json_string_value(json_object_get(j, "kind")), "eval");
	json_decref(j);
	mt_runlog_dispose(&log);
}

/* Neuron persistent cache lines (as the Neuron documentation quotes them)
 * before the first step say how the run started; later ones are counted
 * too. */
static void test_compile_cache(void **state)
{
	static const char *cold_then_warm =
	    "2022-07-17 17:59:53.000541: INFO ||NCC_WRAPPER||: No candidate found under "
	    "/var/tmp/neuron-compile-cache/USER_neuroncc-2.0.0.48+e5fcdf753/MODULE_874\n"
	    "Compiler status PASS\n"
	    "2024-09-23 00:09:00.000437:  27  INFO ||NEURON_CC_WRAPPER||: Using a cached neff at "
	    "/var/tmp/neuron-compile-cache/neuronxcc-2.14.227.0/MODULE_b10/model.neff. Exiting "
	    "with a successfully compiled graph.\n"
	    "mtrial:step=1 loss=2.5\n"
	    "2024-07-27 15:22:50.000672:  7592  INFO ||NEURON_CC_WRAPPER||: Call compiler with "
	    "cmd: neuronx-cc compile --target=trn1 --framework=XLA /tmp/model.hlo_module.pb\n"
	    "mtrial:step=2 loss=2.4\n";
	mt_runlog log;
	mt_run_metrics m;
	mt_run_opts o;
	json_t *j;
	(void)state;

	feed_text(&log, cold_then_warm);
	assert_int_equal(log.n_events, 5);
	assert_int_equal(log.events[0].kind, MT_RUN_EV_CACHE_MISS);
	assert_int_equal(log.events[0].line, 1);
	assert_int_equal(log.events[1].kind, MT_RUN_EV_CACHE_HIT);
	assert_int_equal(log.events[1].line, 3);
	assert_int_equal(log.events[3].kind, MT_RUN_EV_CACHE_MISS);
	assert_int_equal(log.n_warnings, 0);
	mt_run_opts_init(&o);
	assert_int_equal(mt_run_metrics_compute(&m, &log, &o), 0);
	assert_string_equal(m.cache_inferred, "mixed");
	assert_int_equal(m.cache_hits, 1);
	assert_int_equal(m.cache_misses, 1);
	assert_int_equal(m.cache_misses_all, 2);
	j = mt_run_metrics_json(&m);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "compile_cache"),
	                                                      "inferred")),
	                    "mixed");
	json_decref(j);
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);

	/* only hits before the first step: warm; none at all: not known */
	feed_text(&log, "INFO ||NEURON_CC_WRAPPER||: Using a cached neff at /x/model.neff\n"
	                "mtrial:step=1\nCall compiler with cmd: neuronx-cc\n");
	assert_int_equal(mt_run_metrics_compute(&m, &log, &o), 0);
	assert_string_equal(m.cache_inferred, "warm");
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);
	feed_text(&log, "mtrial:step=1\n");
	assert_int_equal(mt_run_metrics_compute(&m, &log, &o), 0);
	assert_null(m.cache_inferred);
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);
}

/* tokens= in the declared unit and padded= positions: throughput says its
 * unit, and 1 - tokens/padded is the padding. */
static void test_token_unit_and_padding(void **state)
{
	mt_runlog log;
	mt_run_metrics m;
	mt_run_opts o;
	json_t *j, *st;
	char line[128];
	(void)state;

	mt_runlog_init(&log, rules);
	for (int s = 1; s <= 12; s++) {
		int n = snprintf(line, sizeof(line), "mtrial:step=%d loss=2 tokens=%d padded=4096", s,
		                 s % 2 ? 3000 : 3500);
		assert_int_equal(mt_runlog_feed_line(&log, line, (size_t)n, 1000 * s), 0);
	}
	assert_near(log.events[1].padded, 4096);
	mt_run_opts_init(&o);
	o.unit = "tokens";
	o.token_unit = "target";
	o.warmup_steps = 1;
	assert_int_equal(mt_run_metrics_compute(&m, &log, &o), 0);
	/* 6 x 3000 + 6 x 3500 of 12 x 4096 positions */
	assert_near(m.padding_fraction, 1 - 39000.0 / 49152);
	j = mt_run_metrics_json(&m);
	st = json_object_get(j, "steady");
	assert_string_equal(json_string_value(json_object_get(st, "unit")), "target tokens/s");
	assert_string_equal(json_string_value(json_object_get(st, "token_unit")), "target");
	assert_near(json_number_value(json_object_get(st, "padding_fraction")), 1 - 39000.0 / 49152);
	json_decref(j);
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);

	/* without padded= the fraction is not known */
	feed_text(&log, "mtrial:step=1 tokens=5\nmtrial:step=2 tokens=5\n");
	assert_int_equal(mt_run_metrics_compute(&m, &log, &o), 0);
	assert_true(isnan(m.padding_fraction));
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);
}

static void assert_warning(const mt_runlog *log, size_t line, const char *expect)
{
	for (size_t i = 0; i < log->n_warnings; i++)
		if (log->warnings[i].line == line && strstr(log->warnings[i].message, expect))
			return;
	for (size_t i = 0; i < log->n_warnings; i++)
		print_message("warning %zu: %s\n", log->warnings[i].line, log->warnings[i].message);
	fail_msg("no warning '%s' at line %zu", expect, line);
}

static void test_broken_lines(void **state)
{
	mt_runlog log;
	(void)state;

	feed_text(&log,
	          ":::MLLOG {\"key\": \"run_start\", \"time_ms\": 1000, \"value\": null}\n"
	          ":::MLLOG {\"namespace\": \"\", \"time_ms\": 17000\n"
	          ":::MLLOG {\"key\": \"eval_accuracy\", \"value\": 0.5, \"time_ms\": 2000}"
	          ":::MLLOG {\"key\": \"eval_accuracy\", \"value\": 0.6, \"time_ms\": 3000}\n"
	          "mtrial:step=1 loss=2.3mtrial:step=2 loss=2.1\r\n"
	          "mtrial:step=abc\n"
	          "mtrial:loss=2\n"
	          "mtrial:eval step=3\n"
	          "mtrial:step=5 garbage\n"
	          ":::MLLOG {\"key\": \"eval_accuracy\", \"value\": \"high\", \"time_ms\": 1}\n"
	          ":::MLLOG [1, 2]\n"
	          ":::MLLOG {\"time_ms\": 1} trailing\n"
	          ":::MLLOG {\"key\": \"run_stop\", \"time_ms\": 4000, \"metadata\": {\"status\": "
	          "\"success\"}} x\n"
	          "mtrial:step=9 loss=1.0\n");
	assert_warning(&log, 2, "not JSON");
	assert_warning(&log, 3, "2 records on one line");
	assert_warning(&log, 4, "2 records on one line");
	assert_warning(&log, 5, "not a number");
	assert_warning(&log, 6, "without step=");
	assert_warning(&log, 7, "without a metric");
	assert_warning(&log, 8, "not field=value");
	assert_warning(&log, 9, "without a numeric value");
	assert_warning(&log, 10, "not hold a JSON object");
	assert_warning(&log, 11, "without a \"key\"");
	assert_warning(&log, 12, "text after the MLLOG event");
	assert_int_equal(log.warnings_total, 11);
	/* What could be read was: run_start, 2 evals, steps 1 and 2, run_stop
	 * (kept, with a warning for the text after it), step 9. */
	assert_int_equal(log.n_events, 7);
	assert_int_equal(log.events[4].step, 2);
	assert_int_equal(log.events[6].step, 9);
	assert_int_equal(log.events[6].line, 13);
	mt_runlog_dispose(&log);
}

/* Lines the fast reader hands to jansson (escapes, non-ASCII, control
 * bytes, duplicates, long or huge numbers) read as jansson reads them, and
 * lines it takes itself (strings across 8-byte steps, reals) the same. */
static void test_mllog_like_jansson(void **state)
{
	mt_runlog log;
	(void)state;

	feed_text(&log,
	          ":::MLLOG {\"key\": \"eval_acc\\u0075racy\", \"value\": 0.25, \"time_ms\": 1}\n"
	          ":::MLLOG {\"key\": \"submission_org\", \"value\": \"Caf\u00c3\u00a9 \\\"x\\\"\"}\n"
	          ":::MLLOG {\"key\": \"a\", \"value\": \"tab\there\"}\n"
	          ":::MLLOG {\"key\": \"a\", \"metadata\": {\"s\": 1, \"s\": 2}}\n"
	          ":::MLLOG {\"key\": \"a\", \"value\": 1e400}\n"
	          ":::MLLOG {\"key\": \"a\", \"value\": 12345678901234567890123}\n"
	          ":::MLLOG {\"key\": \"eval_accuracy\", \"value\": 0.12345678901234567, "
	          "\"time_ms\": 1.5e3, \"metadata\": {\"epoch_num\": 2, \"samples_count\": -0.0, "
	          "\"file\": \"/a/rather/long/path/to/run_pretraining.py\", \"n\": [1, {}, []]}}\n"
	          ":::MLLOG {\"key\": \"run_stop\", \"value\": \"v\", \"metadata\": {\"status\": "
	          "\"aborted\"}}  \n");
	assert_warning(&log, 3, "not JSON");
	assert_warning(&log, 4, "not JSON");
	assert_warning(&log, 5, "not JSON");
	assert_warning(&log, 6, "not JSON");
	assert_int_equal(log.warnings_total, 4);
	assert_int_equal(log.n_events, 4);
	assert_int_equal(log.events[0].kind, MT_RUN_EV_EVAL); /* the escape decoded */
	assert_string_equal(log.events[0].key, "eval_accuracy");
	assert_string_equal(log.events[1].text, "Caf\u00c3\u00a9 \"x\"");
	assert_true(log.events[2].value == 0.12345678901234567);
	assert_int_equal(log.events[2].t_ms, 1500);
	assert_true(log.events[2].epoch == 2 && log.events[2].samples == 0);
	assert_int_equal(log.events[3].kind, MT_RUN_EV_RUN_STOP);
	assert_string_equal(log.events[3].text, "aborted");
	mt_runlog_dispose(&log);
}

static void bad_rules(const char *yaml, const char *expect)
{
	mt_runlog_rules *r = NULL;

	assert_int_equal(mt_runlog_rules_parse(&r, yaml, strlen(yaml), "rules.yaml"), MT_EINVALID);
	assert_null(r);
	if (!strstr(mt_error_last(), expect))
		fail_msg("expected '%s' in '%s'", expect, mt_error_last());
}

#define GOOD_PROTOCOL                                                                              \
	"protocol:\n  prefix: 'mtrial:'\n  eval: eval\n  fields: {step: step, loss: loss, "        \
	"tokens: tokens, samples: samples, epoch: epoch, time: time_ms}\n"

static void test_bad_rules(void **state)
{
	(void)state;
	bad_rules("source: x\nmllog:\n  prefix: ':::MLLOG'\n  keys:\n    run_start: "
	          "begin\n" GOOD_PROTOCOL,
	          "rules.yaml:5:16: 'begin' is not an event kind");
	bad_rules("source: x\nmllog:\n  prefix: ':::MLLOG'\n  keys: {}\n  extra: 1\n" GOOD_PROTOCOL,
	          "rules.yaml:5:3: unknown key 'extra' in mllog");
	bad_rules("source: x\nmllog:\n  prefix: ''\n  keys: {}\n" GOOD_PROTOCOL,
	          "rules.yaml:3:3: mllog.prefix must be text without blanks");
	bad_rules("source: x\nmllog: {prefix: ':::MLLOG', keys: {}}\n"
	          "protocol:\n  prefix: 'mtrial:'\n  eval: eval\n  fields: {step: step}\n",
	          "rules.yaml:6:3: protocol.fields needs 'loss'");
	bad_rules("source: x\nmllog: {prefix: ':::MLLOG', keys: {}}\n",
	          "rules.yaml:1:1: needs source, mllog and protocol");
	bad_rules("source: x\nmllog: [\n", "rules.yaml:");
	bad_rules("- a\n", "rules.yaml:1:1: expected a map");
	bad_rules("source: x\nmllog: {prefix: ':::MLLOG', keys: {}}\n" GOOD_PROTOCOL
	          "series:\n  time: [time]\n",
	          "rules.yaml:7:1: series needs 'step'");
	bad_rules("source: x\nmllog: {prefix: ':::MLLOG', keys: {}}\n" GOOD_PROTOCOL
	          "series:\n  step: step\n  when: [t]\n",
	          "rules.yaml:9:3: unknown series field 'when'");
	bad_rules("source: x\nmllog: {prefix: ':::MLLOG', keys: {}}\n" GOOD_PROTOCOL
	          "compile_cache:\n  hit: ['']\n",
	          "compile_cache.hit: each must be a non-empty text");
	bad_rules("source: x\nmllog: {prefix: ':::MLLOG', keys: {}}\n" GOOD_PROTOCOL
	          "compile_cache:\n  warm: [x]\n",
	          "rules.yaml:8:3: unknown key 'warm' in compile_cache");
}

/* A table directory with a broken run_events.yaml: the loader names it. */
static void test_bad_rules_file(void **state)
{
	char *dir = mt_fx_tmpdir("runlog");
	mt_runlog_rules *r = NULL;
	(void)state;

	mt_fx_write(dir, "run_events.yaml", "source: x\nmllog:\n  prefix: [a]\n");
	setenv("MTRIAL_TABLES_DIR", dir, 1);
	assert_int_equal(mt_runlog_rules_load(&r), MT_EINVALID);
	unsetenv("MTRIAL_TABLES_DIR");
	assert_null(r);
	assert_string_equal(mt_error_last(),
	                    "run_events.yaml:3:3: mllog.prefix must be text without blanks");
	mt_fx_rmtree(dir);
	free(dir);
}

/* Garbage by the page keeps the first MT_RUNLOG_MAX_WARNINGS and counts all. */
static void test_warnings_capped(void **state)
{
	mt_runlog log;
	(void)state;

	mt_runlog_init(&log, rules);
	for (int i = 0; i < 250; i++)
		assert_int_equal(mt_runlog_feed_line(&log, ":::MLLOG {", 10, 1), 0);
	assert_int_equal(mt_runlog_feed_line(&log, "mtrial:step=1", 13, 2), 0);
	assert_int_equal(log.n_warnings, MT_RUNLOG_MAX_WARNINGS);
	assert_int_equal(log.warnings_total, 250);
	assert_int_equal(log.warnings[199].line, 200);
	assert_int_equal(log.n_events, 1);
	mt_runlog_dispose(&log);
}

static json_t *run(const char *status, double ttt, int reached, double minutes)
{
	return json_pack("{s:s, s:o, s:{s:b, s:o}}", "status", status, "run_minutes",
	                 isnan(minutes) ? json_null() : json_real(minutes), "target", "reached",
	                 reached, "from_run_start_s", isnan(ttt) ? json_null() : json_real(ttt));
}

static void test_summary(void **state)
{
	json_t *runs[7];
	json_t *s, *t;
	(void)state;

	runs[0] = run("success", 40, 1, NAN);
	runs[1] = run("success", 10, 1, NAN);
	runs[2] = run("aborted", NAN, 0, NAN);
	runs[3] = run("success", 100, 1, NAN);
	runs[4] = run("success", 30, 1, NAN);
	runs[5] = run("failed", NAN, 0, NAN);
	runs[6] = run("success", 20, 1, NAN);
	s = mt_run_summary_json(runs, 7);
	assert_int_equal(json_integer_value(json_object_get(s, "runs")), 7);
	assert_int_equal(json_integer_value(json_object_get(s, "failed")), 2);
	assert_int_equal(json_integer_value(json_object_get(s, "reached")), 5);
	t = json_object_get(s, "time_to_target_s");
	assert_near(json_real_value(json_object_get(t, "min")), 10);
	assert_near(json_real_value(json_object_get(t, "median")), 30);
	assert_near(json_real_value(json_object_get(t, "max")), 100);
	/* drop 10 and 100: (20 + 30 + 40) / 3 */
	assert_near(json_real_value(json_object_get(t, "olympic_mean")), 30);
	json_decref(s);
	/* two runs: no olympic mean, and a note saying why */
	s = mt_run_summary_json(runs, 2);
	t = json_object_get(s, "time_to_target_s");
	assert_true(json_is_null(json_object_get(t, "olympic_mean")));
	assert_near(json_real_value(json_object_get(t, "median")), 25);
	assert_non_null(json_object_get(s, "olympic_note"));
	json_decref(s);
	for (size_t i = 0; i < 7; i++)
		json_decref(runs[i]);
}

/* Outcomes kept apart: a successful run that never evaluated the target's
 * metric is neither failed nor missed (ten such MLPerf runs once showed
 * "failed: 10"). */
static void test_summary_outcomes(void **state)
{
	json_t *runs[4], *s;
	(void)state;

	runs[0] = run("success", 10, 1, NAN);
	runs[1] = run("success", NAN, 0, NAN); /* evaluated, never reached: missed */
	runs[2] = run("success", NAN, 0, NAN);
	json_object_set_new(json_object_get(runs[2], "target"), "evaluated", json_false());
	runs[3] = run("aborted", NAN, 0, NAN);
	s = mt_run_summary_json(runs, 4);
	assert_int_equal(json_integer_value(json_object_get(s, "failed")), 1);
	assert_int_equal(json_integer_value(json_object_get(s, "missed")), 1);
	assert_int_equal(json_integer_value(json_object_get(s, "no_metric")), 1);
	assert_int_equal(json_integer_value(json_object_get(s, "reached")), 1);
	assert_string_equal(mt_run_outcome("success", json_object_get(runs[2], "target")), "no_metric");
	assert_string_equal(mt_run_outcome("running", NULL), "running");
	assert_string_equal(mt_run_outcome("success", NULL), "no_target");
	json_decref(s);
	for (size_t i = 0; i < 4; i++)
		json_decref(runs[i]);
}

/* MLPerf's LLM logs carry train_loss points with samples_count: each is a
 * step (samples over the global batch), so clock 2 exists; clock 2 and the
 * throughput are the same mean. */
static void test_mllog_train_loss_steps(void **state)
{
	mt_runlog log;
	mt_run_opts o;
	mt_run_metrics m;
	mt_buf b = MT_BUF_INIT;
	int64_t t = 1712000000000;
	(void)state;

	mt_buf_printf(&b, ":::MLLOG {\"key\": \"init_start\", \"time_ms\": %lld, \"value\": null}\n"
	              ":::MLLOG {\"key\": \"global_batch_size\", \"time_ms\": %lld, \"value\": 8}\n"
	              ":::MLLOG {\"key\": \"run_start\", \"time_ms\": %lld, \"value\": null}\n",
	              (long long)t, (long long)t, (long long)(t + 60000));
	/* steps 1..20 two seconds apart, step 15 half a second late */
	for (int i = 1; i <= 20; i++)
		mt_buf_printf(&b, ":::MLLOG {\"key\": \"train_loss\", \"time_ms\": %lld, \"value\": 2.5, "
		              "\"metadata\": {\"samples_count\": %d}}\n",
		              (long long)(t + 60000 + i * 2000 + (i >= 15 ? 500 : 0)), 8 * i);
	feed_text(&log, mt_buf_cstr(&b));
	mt_run_opts_init(&o);
	assert_int_equal(mt_run_metrics_compute(&m, &log, &o), 0);
	assert_int_equal(m.steps, 20);
	assert_int_equal(m.last_step->step, 20);
	assert_string_equal(m.interval, "step");
	/* 19 intervals, 5 warm-up skipped: 14 intervals over 28.5 s */
	assert_near(m.step_mean_s, 28.5 / 14);
	assert_near(m.throughput, 8 * 14 / 28.5);
	assert_near(m.step_mean_s * m.throughput, 8);
	assert_int_equal(m.attempt_start_ms, t); /* init_start */
	assert_string_equal(m.attempt_start_from, "init_start");
	json_t *j = mt_run_metrics_json(&m);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "steady"), "statistic")),
	                    "mean");
	json_decref(j);
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);
	mt_buf_dispose(&b);
}

/* The two Dell runs as a trial would keep them: one success, one aborted. */
static void test_summary_of_real_runs(void **state)
{
	const char *paths[] = {DELL_0, DELL_2};
	json_t *runs[2], *s;
	(void)state;

	for (size_t i = 0; i < 2; i++) {
		mt_runlog log;
		mt_run_opts o;
		mt_run_metrics m;
		metrics_of(&m, &log, paths[i], &o, 0.759);
		runs[i] = mt_run_metrics_json(&m);
		mt_run_metrics_dispose(&m);
		mt_runlog_dispose(&log);
	}
	s = mt_run_summary_json(runs, 2);
	assert_int_equal(json_integer_value(json_object_get(s, "failed")), 1);
	assert_near(json_real_value(json_object_get(json_object_get(s, "run_minutes"), "min")),
	            26.74875);
	json_decref(s);
	json_decref(runs[0]);
	json_decref(runs[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dell_success),
	    cmocka_unit_test(test_dell_aborted),
	    cmocka_unit_test(test_dlrm_and_params),
	    cmocka_unit_test(test_protocol_with_stall),
	    cmocka_unit_test(test_protocol_live_times),
	    cmocka_unit_test(test_compile_cache),
	    cmocka_unit_test(test_token_unit_and_padding),
	    cmocka_unit_test(test_broken_lines),
	    cmocka_unit_test(test_mllog_like_jansson),
	    cmocka_unit_test(test_bad_rules),
	    cmocka_unit_test(test_bad_rules_file),
	    cmocka_unit_test(test_warnings_capped),
	    cmocka_unit_test(test_summary),
	    cmocka_unit_test(test_summary_of_real_runs),
	    cmocka_unit_test(test_summary_outcomes),
	    cmocka_unit_test(test_mllog_train_loss_steps),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
