/* Loss curves: the CSV, JSON Lines and MLPerf readers (variants and bad
 * input naming file and line), smoothing, and the band comparison against
 * expectations worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "curves.h"
#include "error.h"
#include "util.h"

static mt_curve *parse_ok(const char *text, const mt_curve_read_opts *o)
{
	mt_curve *c = NULL;
	if (mt_curve_parse(&c, text, strlen(text), "t", o) < 0)
		fail_msg("%s", mt_error_last());
	return c;
}

static void parse_fails(const char *text, const mt_curve_read_opts *o, const char *expect)
{
	mt_curve *c = NULL;
	assert_int_equal(mt_curve_parse(&c, text, strlen(text), "t", o), MT_EINVALID);
	assert_null(c);
	if (!strstr(mt_error_last(), expect))
		fail_msg("expected '%s' in '%s'", expect, mt_error_last());
}

static void assert_points(const mt_curve *c, size_t n, const double *steps, const double *values)
{
	assert_int_equal(c->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_true(c->pts[i].step == steps[i]);
		if (isnan(values[i]))
			assert_true(isnan(c->pts[i].value));
		else
			assert_true(c->pts[i].value == values[i]);
	}
}

static void test_csv_variants(void **state)
{
	(void)state;
	/* comma, the default names */
	mt_curve *c = parse_ok("step,loss\n1,2.0\n2,1.5\n3,1.0\n", NULL);
	assert_string_equal(c->format, "csv");
	assert_string_equal(c->step_name, "step");
	assert_string_equal(c->value_name, "loss");
	assert_points(c, 3, (double[]){1, 2, 3}, (double[]){2.0, 1.5, 1.0});
	mt_curve_free(c);

	/* tabs, other names, a column between */
	c = parse_ok("iteration\tlr\ttrain_loss\n10\t0.1\t3.5\n20\t0.1\t3.25\n", NULL);
	assert_string_equal(c->step_name, "iteration");
	assert_string_equal(c->value_name, "train_loss");
	assert_points(c, 2, (double[]){10, 20}, (double[]){3.5, 3.25});
	mt_curve_free(c);

	/* quoted header, CRLF, comments, blank lines; "loss" ranks before
	 * eval_loss whatever the column order; an empty cell skips the row */
	c = parse_ok("# from a logger\r\n\"global_step\",\"eval_loss\",\"loss\"\r\n"
		     "1,,0.5\r\n\r\n2,9,\r\n3,8,0.25\r\n",
		     NULL);
	assert_string_equal(c->step_name, "global_step");
	assert_string_equal(c->value_name, "loss");
	assert_points(c, 2, (double[]){1, 3}, (double[]){0.5, 0.25});
	mt_curve_free(c);

	/* named columns, case-insensitive; unsorted steps sorted; a step
	 * logged twice with the same value kept once */
	mt_curve_read_opts o = {.step = "Epoch", .value = "acc"};
	c = parse_ok("epoch,ACC,loss\n3,0.5,1\n1,0.25,2\n3,0.5,1\n", &o);
	assert_string_equal(c->step_name, "epoch");
	assert_string_equal(c->value_name, "ACC");
	assert_points(c, 2, (double[]){1, 3}, (double[]){0.25, 0.5});
	mt_curve_free(c);

	/* a diverged run keeps its NaN and inf */
	c = parse_ok("step,loss\n1,1.5\n2,nan\n3,inf\n4,\"-inf\"\n", NULL);
	assert_int_equal(c->n, 4);
	assert_int_equal(c->nonfinite, 3);
	assert_true(isnan(c->pts[1].value));
	assert_true(isinf(c->pts[3].value) && c->pts[3].value < 0);
	mt_curve_free(c);
}

static void test_csv_errors(void **state)
{
	(void)state;
	parse_fails("", NULL, "t: empty file");
	parse_fails("time,loss\n1,2\n", NULL,
		    "t:1: no step column in the header (looked for step, iteration");
	parse_fails("step,lr\n1,2\n", NULL, "t:1: no value column");
	mt_curve_read_opts o = {.value = "nope"};
	parse_fails("step,loss\n1,2\n", &o, "t:1: no value column 'nope'");
	parse_fails("step,loss\n1,2\n2,abc\n", NULL, "t:3: loss 'abc' is not a number");
	parse_fails("step,loss\n1,2\nx,3\n", NULL, "t:3: step 'x' is not a number");
	parse_fails("step,loss\n1,2\n2\n", NULL, "t:3: 1 fields, the header has 2");
	parse_fails("step,loss\n1,\"2\n", NULL, "t:2: unterminated quote");
	parse_fails("step,loss\n", NULL, "t: no 'loss' values: the series is empty");
	parse_fails("step,loss\n1,2\n2,3\n1,2.5\n", NULL,
		    "t:4: step 1 again, with loss 2.5 (line 2 had 2)");
}

static void test_jsonl(void **state)
{
	(void)state;
	/* Python's NaN and Infinity tokens; an eval line without "loss" is
	 * skipped; "NaN" inside a string is left alone */
	mt_curve *c = parse_ok("{\"step\": 1, \"loss\": 2.5, \"note\": \"NaN here\"}\n"
			       "{\"step\": 1, \"eval_loss\": 3}\n\n"
			       "{\"step\": 2, \"loss\": NaN}\n"
			       "{\"step\": 3, \"loss\": -Infinity}\n"
			       "{\"step\": 4, \"loss\": null}\n",
			       NULL);
	assert_string_equal(c->format, "jsonl");
	assert_string_equal(c->step_name, "step");
	assert_string_equal(c->value_name, "loss");
	assert_points(c, 4, (double[]){1, 2, 3, 4}, (double[]){2.5, NAN, -INFINITY, NAN});
	assert_int_equal(c->nonfinite, 3);
	mt_curve_free(c);

	/* --key, and a key chosen from the first line that has one */
	mt_curve_read_opts o = {.value = "eval_loss", .step = "iter"};
	c = parse_ok("{\"iter\": 5, \"eval_loss\": 1.25}\n{\"iter\": 6, \"loss\": 1}\n", &o);
	assert_points(c, 1, (double[]){5}, (double[]){1.25});
	mt_curve_free(c);

	parse_fails("{\"step\": 1, \"loss\": 2}\n{\"step\": 2, \"loss\": }\n", NULL,
		    "t:2: column ");
	parse_fails("{\"step\": 1, \"loss\": 2}\n[1, 2]\n", NULL, "t:2: expected a JSON object");
	parse_fails("{\"step\": 1, \"loss\": \"abc\"}\n", NULL, "t:1: 'loss' is not a number");
	parse_fails("{\"step\": 1, \"loss\": 2}\n{\"loss\": 2}\n", NULL, "t:2: no step 'step'");
	parse_fails("{\"loss\": 2}\n", NULL, "t:1: no step key (looked for step");
	parse_fails("{\"step\": 1, \"acc\": 2}\n", NULL, "t: no line has any of loss");
	parse_fails("{\"step\": 1, \"acc\": 2}\n", &o, "t: no line has 'eval_loss'");
}

static const char mllog[] =
	"+ echo 'Beginning trial 1 of 5'\n"
	":::MLLOG {\"key\": \"init_start\", \"value\": null, \"metadata\": {}}\n"
	":::MLLOG {\"key\": \"tracked_stats\", \"value\": {\"throughput\": 100.5}, "
	"\"metadata\": {\"step\": 1}}\n"
	"0: :::MLLOG {\"key\": \"eval_accuracy\", \"value\": 0.25, "
	"\"metadata\": {\"epoch_num\": 3}}\n"
	"a line that is not an event\n"
	":::MLLOG {\"key\": \"eval_accuracy\", \"value\": 0.5, \"metadata\": {\"epoch_num\": 7, "
	"\"samples_count\": 700}}\n"
	":::MLLOG {\"key\": \"run_stop\", \"value\": null, "
	"\"metadata\": {\"status\": \"aborted\"}}\n";

static void test_mllog(void **state)
{
	(void)state;
	mt_curve *c = parse_ok(mllog, NULL);
	assert_string_equal(c->format, "mllog");
	assert_string_equal(c->value_name, "eval_accuracy");
	assert_string_equal(c->step_name, "epoch_num");
	assert_string_equal(c->status, "aborted");
	assert_points(c, 2, (double[]){3, 7}, (double[]){0.25, 0.5});
	mt_curve_free(c);

	/* a member of an object value, and the step chosen */
	mt_curve_read_opts o = {.value = "tracked_stats.throughput"};
	c = parse_ok(mllog, &o);
	assert_string_equal(c->value_name, "tracked_stats");
	assert_string_equal(c->step_name, "step");
	assert_points(c, 1, (double[]){1}, (double[]){100.5});
	mt_curve_free(c);

	mt_curve_read_opts by_samples = {.step = "samples_count"};
	parse_fails(mllog, &by_samples,
		    "t:4: 'eval_accuracy' event without metadata.samples_count");
	mt_curve_read_opts missing = {.value = "train_loss"};
	parse_fails(mllog, &missing, "t: no MLLOG events with key 'train_loss'");
	parse_fails(":::MLLOG {\"key\": \"init_start\"}\n", NULL,
		    "t: no MLLOG events with any of train_loss");
	parse_fails("x\n:::MLLOG {\"key\": \"eval_accuracy\", \n", NULL, "t:2: column 34: ");
	parse_fails(":::MLLOG {\"value\": 1}\n", NULL, "t:1: an MLLOG event without a \"key\"");

	/* train_loss ranks before eval_accuracy; step_num before epoch_num */
	c = parse_ok(":::MLLOG {\"key\": \"eval_accuracy\", \"value\": 0.5, \"metadata\": "
		     "{\"epoch_num\": 1}}\n"
		     ":::MLLOG {\"key\": \"train_loss\", \"value\": 2, \"metadata\": "
		     "{\"step_num\": 10, \"epoch_num\": 1}}\n",
		     NULL);
	assert_string_equal(c->value_name, "train_loss");
	assert_string_equal(c->step_name, "step_num");
	assert_points(c, 1, (double[]){10}, (double[]){2});
	mt_curve_free(c);
}

/* The MLPerf log kept in tests/data: eval_accuracy every four epochs. */
static void test_mllog_file(void **state)
{
	mt_curve *c = NULL;
	(void)state;
	if (mt_curve_read(&c, MT_SOURCE_DIR "/tests/data/curves/"
			      "Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt",
			  NULL) < 0)
		fail_msg("%s", mt_error_last());
	assert_int_equal(c->n, 9);
	assert_string_equal(c->step_name, "epoch_num");
	assert_true(c->pts[0].step == 3 && c->pts[8].step == 35);
	assert_true(c->pts[0].value == 0.28490569811396227);
	assert_string_equal(c->status, "success");
	mt_curve_free(c);
}

static void test_within_and_smooth(void **state)
{
	double out[5];
	(void)state;
	assert_true(mt_curve_within(2, 2.5, 0.25, 0));  /* 0.5 <= 0.25 * 2 */
	assert_false(mt_curve_within(2, 2.5001, 0.25, 0));
	assert_true(mt_curve_within(2, 1.5, 0.25, 0));  /* either side */
	assert_true(mt_curve_within(0, 0.125, 0, 0.125));
	assert_false(mt_curve_within(NAN, NAN, 1, 1));
	assert_false(mt_curve_within(INFINITY, INFINITY, 1, 1));
	assert_false(mt_curve_within(1, NAN, 1, 1));

	mt_curve_smooth(out, (double[]){1, 2, 3, 4, 5}, 5, 2);
	assert_true(out[0] == 1 && out[1] == 1.5 && out[2] == 2.5 && out[4] == 4.5);
	mt_curve_smooth(out, (double[]){1, 2, 3, 4, 5}, 5, 3);
	assert_true(out[0] == 1 && out[1] == 1.5 && out[2] == 2 && out[3] == 3 && out[4] == 4);
	mt_curve_smooth(out, (double[]){1, NAN, 3, 4, 5}, 5, 2);
	assert_true(out[0] == 1 && isnan(out[1]) && isnan(out[2]) && out[3] == 3.5);
}

static mt_curve *curve(const char *csv)
{
	return parse_ok(csv, NULL);
}

/* ref 0..5: 4 3 2 1 1 1; cand 1..6: 3 2.5 1 2 2 2. Common steps 1..5:
 * gaps 0 .5 0 1 1, so with rtol .05 steps 2, 4 and 5 are outside. */
#define REF "step,loss\n0,4\n1,3\n2,2\n3,1\n4,1\n5,1\n"
#define CAND "step,loss\n1,3\n2,2.5\n3,1\n4,2\n5,2\n6,2\n"

static void test_compare_band(void **state)
{
	mt_curve *ref = curve(REF), *cand = curve(CAND);
	mt_curve_cmp_opts o = {.rtol = 0.05};
	mt_curve_cmp r;
	(void)state;

	assert_int_equal(mt_curve_compare(&r, ref, cand, &o), 0);
	assert_int_equal(r.n, 5);
	assert_int_equal(r.only_ref, 1);
	assert_int_equal(r.only_cand, 1);
	assert_int_equal(r.outside, 3);
	assert_true(r.first_divergent.has && r.first_divergent.step == 2);
	assert_true(r.diverged_from.has && r.diverged_from.step == 4);
	assert_true(r.max_abs_gap.step == 4 && r.max_abs_gap.value == 1);
	assert_true(r.max_rel_gap.step == 4 && r.max_rel_gap.value == 1);
	assert_true(r.mean_abs_gap == 0.5); /* 2.5 / 5 */
	assert_true(r.final_step == 5 && r.final_ref == 1 && r.final_cand == 2);
	assert_false(r.final_agree);
	assert_false(r.passed);
	mt_curve_cmp_dispose(&r);

	o.rtol = 1; /* a gap of 1 at a reference of 1 is inside */
	assert_int_equal(mt_curve_compare(&r, ref, cand, &o), 0);
	assert_true(r.passed && r.final_agree && !r.first_divergent.has && !r.diverged_from.has);
	mt_curve_cmp_dispose(&r);

	/* window 2: ref 3 2.5 1.5 1 1, cand 3 2.75 1.75 1.5 2; gaps 0 .25 .25
	 * .5 1; rtol .2 bands .6 .5 .3 .2 .2: outside at 4 and 5 */
	o = (mt_curve_cmp_opts){.rtol = 0.2, .window = 2};
	assert_int_equal(mt_curve_compare(&r, ref, cand, &o), 0);
	assert_true(r.ref[2] == 1.5 && r.cand[1] == 2.75);
	assert_int_equal(r.outside, 2);
	assert_true(r.first_divergent.step == 4 && r.diverged_from.step == 4);
	mt_curve_cmp_dispose(&r);

	/* --final-only judges the last point alone */
	o = (mt_curve_cmp_opts){.rtol = 0.05, .final_only = 1};
	assert_int_equal(mt_curve_compare(&r, cand, cand, &o), 0);
	assert_true(r.passed && r.n == 6);
	mt_curve_cmp_dispose(&r);
	mt_curve_free(ref);
	mt_curve_free(cand);
}

static void test_compare_align_and_target(void **state)
{
	mt_curve *ref = curve(REF), *cand = curve(CAND), *far = curve("step,loss\n100,1\n");
	mt_curve_cmp_opts o = {.rtol = 0.05, .align_index = 1};
	mt_curve_cmp r;
	(void)state;

	assert_int_equal(mt_curve_compare(&r, ref, cand, &o), 0);
	assert_int_equal(r.n, 6);
	assert_int_equal(r.only_ref + r.only_cand, 0);
	assert_true(r.steps[0] == 0 && r.ref[0] == 4 && r.cand[0] == 3); /* the reference's steps */
	mt_curve_cmp_dispose(&r);

	o = (mt_curve_cmp_opts){.rtol = 0.05};
	assert_int_equal(mt_curve_compare(&r, ref, far, &o), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "--align index"));
	mt_curve_cmp_dispose(&r);

	/* lower is better, 1.5: ref at step 3 (1), cand at step 3 (1);
	 * higher is better, 2.5: ref at step 0 (4), cand at step 1 (3) */
	o = (mt_curve_cmp_opts){.rtol = 0.05, .has_target = 1, .target = 1.5};
	assert_int_equal(mt_curve_compare(&r, ref, cand, &o), 0);
	assert_true(r.target_ref.step == 3 && r.target_cand.step == 3);
	mt_curve_cmp_dispose(&r);
	o.higher_is_better = 1;
	o.target = 2.5;
	assert_int_equal(mt_curve_compare(&r, ref, cand, &o), 0);
	assert_true(r.target_ref.step == 0 && r.target_cand.step == 1);
	mt_curve_cmp_dispose(&r);
	o.target = 10;
	assert_int_equal(mt_curve_compare(&r, ref, cand, &o), 0);
	assert_false(r.target_ref.has || r.target_cand.has);
	mt_curve_cmp_dispose(&r);
	mt_curve_free(ref);
	mt_curve_free(cand);
	mt_curve_free(far);
}

static void test_json_and_plot(void **state)
{
	mt_curve *ref = curve(REF), *cand = curve("step,loss\n1,3\n2,nan\n3,1\n4,2\n5,2\n");
	mt_curve_cmp_opts o = {.rtol = 0.05, .has_target = 1, .target = 1.5};
	mt_curve_cmp r;
	mt_buf plot = MT_BUF_INIT;
	json_t *j, *s;
	(void)state;

	assert_int_equal(mt_curve_compare(&r, ref, cand, &o), 0);
	j = mt_curve_cmp_json(&r, &o, 3);
	assert_false(json_is_true(json_object_get(j, "passed")));
	assert_int_equal(json_integer_value(json_object_get(j, "points")), 5);
	assert_int_equal(json_integer_value(json_object_get(j, "nonfinite_points")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "first_divergent_step")), 2);
	assert_int_equal(json_integer_value(json_object_get(j, "diverged_from_step")), 4);
	/* finite gaps 0 0 1 1 over four pairs */
	assert_true(json_real_value(json_object_get(j, "mean_abs_gap")) == 0.5);
	assert_true(json_is_false(json_object_get(json_object_get(j, "final"), "agree")));
	assert_true(json_real_value(json_object_get(json_object_get(j, "target"), "ratio")) == 1);
	/* five points to three: indices 0, 2, 4 */
	s = json_object_get(j, "series");
	assert_true(json_is_true(json_object_get(s, "downsampled")));
	assert_int_equal(json_integer_value(json_array_get(json_object_get(s, "steps"), 1)), 3);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(s, "steps"), 2)), 5);
	json_decref(j);

	mt_curve_plot(&plot, &r, 40, 6);
	assert_non_null(strstr(mt_buf_cstr(&plot), "* reference  o candidate"));
	assert_non_null(strstr(mt_buf_cstr(&plot), "#")); /* step 1: both at 3 */
	mt_buf_dispose(&plot);
	mt_curve_cmp_dispose(&r);
	mt_curve_free(ref);
	mt_curve_free(cand);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_variants),
		cmocka_unit_test(test_csv_errors),
		cmocka_unit_test(test_jsonl),
		cmocka_unit_test(test_mllog),
		cmocka_unit_test(test_mllog_file),
		cmocka_unit_test(test_within_and_smooth),
		cmocka_unit_test(test_compare_band),
		cmocka_unit_test(test_compare_align_and_target),
		cmocka_unit_test(test_json_and_plot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
