/* The go/no-go decision from a spec and evidence held in memory: each kind
 * of criterion met, not met and unknown; the verdict's precedence (a failure
 * outranks missing evidence, missing evidence outranks conditions); and that
 * no criterion is met from missing data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "decide_view.h"
#include "probe_trial.h"
#include "runs.h"
#include "error.h"
#include "spec.h"

#define SPEC_HEAD                                                                                  \
	"schema: 1\nname: t\n"                                                                     \
	"systems:\n"                                                                               \
	"  baseline: {count: 8, hosts: 1, price: {hourly: 32, currency: USD}}\n"                   \
	"  candidate: {count: 16, hosts: 1, price: {hourly: 40, currency: USD}}\n"                 \
	"quality_target: {metric: eval_loss, threshold: 2.1, direction: lower}\n"                  \
	"tracks:\n  optimized: {budget_hours: 40}\n"

/* Every kind the record judges, each with a threshold. */
static const char all_criteria[] =
	SPEC_HEAD
	"criteria:\n"
	"  - {name: quality-target, kind: quality, threshold: 2.1}\n"
	"  - {name: first-steps-match, kind: correctness, threshold: 0.01}\n"
	"  - {name: no-cpu-fallback, kind: ops, threshold: 0}\n"
	"  - {name: time-to-quality, kind: time_to_quality, threshold: 1.0}\n"
	"  - {name: cost-to-quality, kind: cost_to_quality, threshold: 1.2}\n"
	"  - {name: porting-effort, kind: effort, threshold: 40}\n";

/* One run as mt_decision_evidence flattens it: a finished run that reached
 * eval_loss `best` after `ttt` seconds (ttt < 0: did not reach it). */
static json_t *run(int id, const char *system, const char *track, const char *status,
		   double best, double ttt)
{
	double price = strcmp(system, "baseline") == 0 ? 32 : 40;
	int reached = ttt >= 0;
	return json_pack("{si, ss, ss?, ss, s{s[{ss, sf}]}, sb, so, so, so, sf}", "id", id, "system",
			 system, "track", track, "status", status, "metrics", "evaluations", "metric",
			 "eval_loss", "value", best, "reached", reached, "time_to_target_s",
			 reached ? json_real(ttt) : json_null(), "time_to_target_from_submission_s",
			 reached ? json_real(ttt + 300) : json_null(), "cost_to_target",
			 reached ? json_real(price * ttt / 3600) : json_null(), "devices",
			 strcmp(system, "baseline") == 0 ? 8.0 : 16.0);
}

static json_t *op(const char *name, const char *status, const char *source)
{
	return json_pack("{ss, ss, ss, si}", "op", name, "status", status, "source", source, "count", 1);
}

static json_t *probe(json_t *ops)
{
	return json_pack("{si, ss, s{ss, ss, ss}, s{ss}, so}", "id", 4, "created",
			 "2026-11-20T10:00:00Z", "table", "name", "mine", "version", "1", "retrieved",
			 "2026-11-01", "from", "source", "trace", "ops", ops);
}

static json_t *check(int id, const char *kind, const char *ref, int passed)
{
	return json_pack("{si, ss, ss, ss, sb}", "id", id, "kind", kind, "reference", ref,
			 "candidate", "cand", "passed", passed);
}

/* Evidence on which every criterion of all_criteria is met: three runs of
 * each system on the portability track, candidate 0.9x, a passed check,
 * every op on the device, 12 h of effort. */
static json_t *complete_evidence(void)
{
	json_t *runs = json_array();
	for (int i = 0; i < 3; i++) {
		json_array_append_new(runs, run(1 + i, "baseline", NULL, "success", 2.05, 1000 + 10 * i));
		json_array_append_new(runs, run(10 + i, "candidate", "portability", "success", 2.04,
						900 + 10 * i));
	}
	return json_pack("{so, s[o], so, s[], s{sI, s{s{sI}}}, sb}", "runs", runs, "checks",
			 check(7, "compare", "ref", 1), "probe",
			 probe(json_pack("[oo]", op("aten::add", "device", "table:mine:3"),
					 op("aten::mm", "device", "table:mine:4"))),
			 "overrides", "effort", "total_ms", (json_int_t)12 * 3600000, "by_track",
			 "portability", "total_ms", (json_int_t)12 * 3600000, "effort_running", 0);
}

/* Sets `key` of every candidate run to `value` (stolen). */
static void set_candidates(json_t *ev, const char *key, json_t *value)
{
	json_t *r;
	size_t i;
	json_array_foreach(json_object_get(ev, "runs"), i, r)
		if (strcmp(json_string_value(json_object_get(r, "system")), "candidate") == 0)
			json_object_set(r, key, value);
	json_decref(value);
}

static mt_spec *parse(const char *text)
{
	mt_spec *spec = NULL;
	if (mt_spec_parse(&spec, text, strlen(text), "t.yaml") < 0)
		fail_msg("%s", mt_error_last());
	return spec;
}

static json_t *decide(const char *spec_text, json_t *ev)
{
	mt_spec *spec = parse(spec_text);
	json_t *d = NULL;
	if (mt_decide_from(&d, spec, ev) < 0)
		fail_msg("%s", mt_error_last());
	mt_spec_free(spec);
	json_decref(ev);
	return d;
}

static json_t *crit(json_t *d, const char *name)
{
	json_t *c;
	size_t i;
	json_array_foreach(json_object_get(d, "criteria"), i, c)
		if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
			return c;
	fail_msg("no criterion %s", name);
	return NULL;
}

static const char *get(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void assert_has(const char *hay, const char *needle)
{
	if (!hay || !strstr(hay, needle))
		fail_msg("expected '%s' in '%s'", needle, hay ? hay : "(null)");
}

static int mt_dc_value_near(json_t *v, double want)
{
	return json_is_number(v) && fabs(json_number_value(v) - want) < 1e-9;
}

/* Sets `key` of the runs of `system` to `value` (stolen). */
static void set_system(json_t *ev, const char *system, const char *key, json_t *value)
{
	json_t *r;
	size_t i;
	json_array_foreach(json_object_get(ev, "runs"), i, r)
		if (strcmp(json_string_value(json_object_get(r, "system")), system) == 0)
			json_object_set(r, key, value);
	json_decref(value);
}

/* Issue 20: matched baseline runs and best-recipe candidate runs are two
 * experiments, each missing a side: the matched comparison lacks a
 * candidate run, and no ratio is taken across them. */
static void test_designs_never_compared(void **state)
{
	json_t *ev = complete_evidence(), *d, *c;

	(void)state;
	set_system(ev, "candidate", "design", json_string("best"));
	d = decide(all_criteria, ev);
	c = crit(d, "time-to-quality");
	assert_string_equal(get(c, "status"), "unknown");
	assert_string_equal(get(c, "design"), "matched");
	assert_true(json_is_null(json_object_get(c, "value")));
	assert_has(get(c, "evidence"), "the matched comparison lacks a candidate run");
	assert_has(get(c, "evidence"), "best-recipe runs #10, #11, #12 left out: another design");
	assert_has(get(json_array_get(json_object_get(c, "missing"), 0), "command"),
		   "mtrial run --design matched --system candidate");
	/* quality reads the candidate's runs of the matched design: none */
	assert_string_equal(get(crit(d, "quality-target"), "status"), "unknown");
	assert_string_equal(get(d, "verdict"), MT_VERDICT_NOT_ENOUGH_EVIDENCE);
	json_decref(d);

	/* a criterion of the best design compares the best runs alone: its
	 * baseline has none */
	ev = complete_evidence();
	set_system(ev, "candidate", "design", json_string("best"));
	d = decide(SPEC_HEAD "precision: {best: {candidate: {weights: bf16}}}\ncriteria:\n"
		   "  - {name: fast, kind: time_to_quality, threshold: 1.0, design: best}\n"
		   "  - {name: fast-matched, kind: time_to_quality, threshold: 1.0}\n", ev);
	c = crit(d, "fast");
	assert_string_equal(get(c, "design"), "best");
	assert_string_equal(get(c, "status"), "unknown");
	assert_has(get(c, "evidence"), "the best comparison lacks a baseline run");
	assert_has(get(c, "evidence"), "matched-recipe runs #1, #2, #3 left out");
	assert_string_equal(get(crit(d, "fast-matched"), "status"), "unknown");
	json_decref(d);

	/* both sides best: judged, the matched runs (none) not needed */
	ev = complete_evidence();
	set_system(ev, "candidate", "design", json_string("best"));
	set_system(ev, "baseline", "design", json_string("best"));
	d = decide(SPEC_HEAD "precision: {best: {candidate: {weights: bf16}}}\ncriteria:\n"
		   "  - {name: fast, kind: time_to_quality, threshold: 1.0, design: best}\n", ev);
	c = crit(d, "fast");
	assert_string_equal(get(c, "status"), "met");
	assert_has(get(c, "source"), "#10, #11, #12 (candidate) and #1, #2, #3 (baseline)");
	json_decref(d);
}

/* The decision's caveat that contains `text`, or NULL. */
static const char *caveat_with(json_t *d, const char *text)
{
	json_t *c;
	size_t i;
	json_array_foreach(json_object_get(d, "caveats"), i, c)
		if (strstr(json_string_value(c), text))
			return json_string_value(c);
	return NULL;
}

/* Sets the design of run `id`. */
static void set_design(json_t *ev, json_int_t id, const char *design)
{
	json_t *r;
	size_t i;
	json_array_foreach(json_object_get(ev, "runs"), i, r)
		if (json_integer_value(json_object_get(r, "id")) == id)
			json_object_set_new(r, "design", json_string(design));
}

/* Issue 20: the "too few runs" caveat counts the runs of the met
 * criterion's design only, never the other design's with them. */
static void test_too_few_runs_per_design(void **state)
{
	json_t *ev = complete_evidence(), *d;

	(void)state;
	/* three runs a side, all matched: enough, no caveat */
	d = decide(all_criteria, ev);
	assert_string_equal(get(crit(d, "time-to-quality"), "status"), "met");
	assert_null(caveat_with(d, "too few"));
	json_decref(d);

	/* one run a side re-marked best: the matched comparison rests on two */
	ev = complete_evidence();
	set_design(ev, 12, "best"), set_design(ev, 3, "best");
	d = decide(all_criteria, ev);
	assert_string_equal(get(crit(d, "time-to-quality"), "status"), "met");
	assert_non_null(caveat_with(d, "the matched design's run figures rest on 2 candidate and 2 "
				       "baseline run(s) of it that reached the target: too few"));
	json_decref(d);

	/* a best criterion met on those two best runs: one a side, whatever
	 * the four matched ones */
	ev = complete_evidence();
	set_design(ev, 12, "best"), set_design(ev, 3, "best");
	d = decide(SPEC_HEAD "precision: {best: {candidate: {weights: bf16}}}\ncriteria:\n"
		   "  - {name: fast, kind: time_to_quality, threshold: 1.0, design: best}\n", ev);
	assert_string_equal(get(crit(d, "fast"), "status"), "met");
	assert_non_null(caveat_with(d, "the best design's run figures rest on 1 candidate and 1 "
				       "baseline run(s)"));
	assert_null(caveat_with(d, "the matched design's run figures"));
	json_decref(d);
}

/* Issue 20: the fastest run by throughput missed the target: it never
 * wins time to quality (the ratio is of the runs that reached it), and
 * the evidence says so. */
static void test_fastest_missed(void **state)
{
	json_t *ev = complete_evidence(), *d, *c, *fast;

	(void)state;
	set_candidates(ev, "throughput", json_pack("{sf, ss}", "value", 100.0, "unit", "tokens/s"));
	fast = run(13, "candidate", "portability", "success", 2.3, -1);
	json_object_set_new(fast, "throughput", json_pack("{sf, ss}", "value", 500.0, "unit", "tokens/s"));
	json_object_set_new(fast, "reached", json_false());
	json_array_append_new(json_object_get(ev, "runs"), fast);
	d = decide(all_criteria, ev);
	c = crit(d, "time-to-quality");
	assert_string_equal(get(c, "status"), "met");
	assert_true(mt_dc_value_near(json_object_get(c, "value"), 910.0 / 1010.0));
	assert_has(get(c, "evidence"), "the candidate's fastest run by throughput, #13 (500 tokens/s), "
		   "missed the quality target: it does not enter this figure");
	json_decref(d);

	/* a fastest run that reached it says nothing */
	ev = complete_evidence();
	set_candidates(ev, "throughput", json_pack("{sf, ss}", "value", 100.0, "unit", "tokens/s"));
	d = decide(all_criteria, ev);
	assert_null(strstr(get(crit(d, "time-to-quality"), "evidence"), "fastest run"));
	json_decref(d);
}

static void test_complete_is_go(void **state)
{
	json_t *d = decide(all_criteria, complete_evidence());
	json_t *c;
	size_t i;

	(void)state;
	assert_string_equal(get(d, "verdict"), MT_VERDICT_GO);
	assert_true(mt_decide_is_go(d));
	json_array_foreach(json_object_get(d, "criteria"), i, c)
		if (strcmp(get(c, "status"), "met") != 0)
			fail_msg("%s: %s: %s", get(c, "name"), get(c, "status"), get(c, "evidence"));
	c = crit(d, "time-to-quality");
	/* medians 910 s over 1010 s */
	assert_float_equal(json_real_value(json_object_get(c, "value")), 910.0 / 1010.0, 1e-9);
	assert_has(get(c, "evidence"), "0.90x, threshold 1.00x");
	assert_has(get(c, "evidence"), "device-hours to the target 4.04 vs 2.24");
	assert_has(get(c, "source"), "#10, #11, #12 (candidate)");
	c = crit(d, "cost-to-quality"); /* 40 x 910 over 32 x 1010 */
	assert_float_equal(json_real_value(json_object_get(c, "value")), 40 * 910.0 / (32 * 1010.0), 1e-9);
	assert_string_equal(get(crit(d, "quality-target"), "track"), "portability");
	c = json_object_get(json_object_get(crit(d, "quality-target"), "by_track"), "portability");
	assert_float_equal(json_real_value(json_object_get(c, "best")), 2.04, 1e-9);
	assert_true(json_is_true(json_object_get(c, "reached")));
	c = json_object_get(crit(d, "time-to-quality"), "figures");
	assert_float_equal(json_real_value(json_object_get(json_object_get(c, "candidate"), "median")), 910, 1e-9);
	assert_float_equal(json_real_value(json_object_get(json_object_get(c, "baseline"), "device_hours")),
			   8 * 1010 / 3600.0, 1e-9);
	assert_float_equal(json_real_value(json_object_get(crit(d, "porting-effort"), "value")), 12, 1e-9);
	assert_int_equal(json_array_size(json_object_get(d, "conditions")), 0);
	assert_int_equal(json_array_size(json_object_get(d, "missing")), 0);
	assert_string_equal(get(d, "summary"), "6 of 6 criteria met, 0 not met, 0 unknown");
	json_decref(d);
}

/* Candidate runs that name no track: the evidence says so in words, never
 * "reached on the no track track". */
static void test_no_track_wording(void **state)
{
	json_t *ev = complete_evidence(), *d;

	(void)state;
	set_candidates(ev, "track", json_null());
	d = decide(all_criteria, ev);
	assert_has(get(crit(d, "quality-target"), "evidence"), "reached by runs of no track;");
	if (strstr(get(crit(d, "quality-target"), "evidence"), "no track track"))
		fail_msg("%s", get(crit(d, "quality-target"), "evidence"));
	json_decref(d);
}

static void test_failure_outranks_missing(void **state)
{
	json_t *ev = complete_evidence(), *d;

	(void)state;
	/* the candidate 1.5x slower */
	set_candidates(ev, "time_to_target_s", json_real(1515));
	json_array_clear(json_object_get(ev, "checks")); /* and correctness unknown */
	d = decide(all_criteria, ev);
	assert_string_equal(get(d, "verdict"), MT_VERDICT_NO_GO);
	assert_false(mt_decide_is_go(d));
	assert_string_equal(get(crit(d, "time-to-quality"), "status"), "not_met");
	assert_has(get(crit(d, "time-to-quality"), "evidence"), "1.50x, threshold 1.00x");
	assert_string_equal(get(crit(d, "first-steps-match"), "status"), "unknown");
	assert_int_equal(json_array_size(json_object_get(d, "failed")), 1);
	assert_string_equal(get(json_array_get(json_object_get(d, "failed"), 0), "criterion"),
			    "time-to-quality");
	assert_has(get(json_array_get(json_object_get(d, "missing"), 0), "command"), "mtrial check compare");
	assert_has(get(d, "caveat"), "time-to-quality is not met");
	json_decref(d);
}

static void test_no_runs_is_not_enough_evidence(void **state)
{
	json_t *ev = complete_evidence(), *d, *c;
	size_t i;

	(void)state;
	json_array_clear(json_object_get(ev, "runs"));
	d = decide(all_criteria, ev);
	assert_string_equal(get(d, "verdict"), MT_VERDICT_NOT_ENOUGH_EVIDENCE);
	for (const char *const *n = (const char *const[]){"quality-target", "time-to-quality",
							   "cost-to-quality", NULL}; *n; n++) {
		c = crit(d, *n);
		assert_string_equal(get(c, "status"), "unknown");
		assert_true(json_is_null(json_object_get(c, "value")));
		assert_true(json_array_size(json_object_get(c, "missing")) > 0);
	}
	/* both sides of the ratio are missing, and each is named */
	assert_int_equal(json_array_size(json_object_get(crit(d, "time-to-quality"), "missing")), 2);
	assert_has(get(crit(d, "time-to-quality"), "evidence"),
		   "the matched comparison lacks a baseline and a candidate run");
	json_array_foreach(json_object_get(d, "missing"), i, c)
		assert_has(get(c, "command"), "mtrial ");
	assert_has(get(d, "caveat"), "3 of 6 criteria cannot be judged yet");
	json_decref(d);
}

static void test_no_criteria(void **state)
{
	json_t *d = decide(SPEC_HEAD, complete_evidence());
	(void)state;
	assert_string_equal(get(d, "verdict"), MT_VERDICT_NOT_ENOUGH_EVIDENCE);
	assert_has(get(d, "caveat"), "lists no criteria");
	json_decref(d);
}

static void test_optimized_only_is_a_condition(void **state)
{
	json_t *ev = complete_evidence(), *d;

	(void)state;
	set_candidates(ev, "track", json_string("optimized"));
	/* the port's one finished run does not reach the target */
	json_array_append_new(json_object_get(ev, "runs"),
			      run(20, "candidate", "portability", "success", 2.3, -1));
	d = decide(all_criteria, ev);
	assert_string_equal(get(crit(d, "quality-target"), "status"), "met");
	assert_string_equal(get(crit(d, "quality-target"), "track"), "optimized");
	assert_string_equal(get(d, "verdict"), MT_VERDICT_GO_WITH_CONDITIONS);
	assert_has(get(d, "caveat"), "only on the optimized track");
	json_decref(d);
}

static void test_quality_not_reached(void **state)
{
	json_t *ev = complete_evidence(), *d, *r;
	size_t i;

	(void)state;
	json_array_foreach(json_object_get(ev, "runs"), i, r)
		if (strcmp(get(r, "system"), "candidate") == 0) {
			json_object_set_new(json_array_get(json_object_get(json_object_get(r, "metrics"),
									   "evaluations"), 0),
					    "value", json_real(2.4));
			json_object_set_new(r, "reached", json_false());
			json_object_set_new(r, "time_to_target_s", json_null());
			json_object_set_new(r, "cost_to_target", json_null());
		}
	d = decide(all_criteria, json_incref(ev));
	assert_string_equal(get(crit(d, "quality-target"), "status"), "not_met");
	assert_float_equal(json_real_value(json_object_get(crit(d, "quality-target"), "value")), 2.4, 1e-9);
	assert_string_equal(get(crit(d, "time-to-quality"), "status"), "not_met");
	assert_has(get(crit(d, "time-to-quality"), "evidence"), "did not reach");
	assert_string_equal(get(d, "verdict"), MT_VERDICT_NO_GO);
	json_decref(d);
	/* the same evaluations from runs still going: no verdict on quality yet */
	set_candidates(ev, "status", json_string("running"));
	d = decide(all_criteria, ev);
	assert_string_equal(get(crit(d, "quality-target"), "status"), "unknown");
	assert_string_equal(get(crit(d, "time-to-quality"), "status"), "unknown");
	assert_string_equal(get(d, "verdict"), MT_VERDICT_NOT_ENOUGH_EVIDENCE);
	json_decref(d);
}

static void test_failed_attempts_are_a_condition(void **state)
{
	json_t *ev = complete_evidence(), *d;
	(void)state;
	json_array_append_new(json_object_get(ev, "runs"),
			      run(30, "candidate", "portability", "failed", 3.5, -1));
	d = decide(all_criteria, ev);
	assert_string_equal(get(d, "verdict"), MT_VERDICT_GO_WITH_CONDITIONS);
	assert_int_equal(json_array_size(json_object_get(d, "conditions")), 1);
	assert_has(get(json_array_get(json_object_get(d, "conditions"), 0), "text"),
		   "1 of 4 candidate attempts failed, were aborted or lost (runs #30)");
	json_decref(d);
}

/* Rehearsals alone, even ones that missed the target or failed, never make
 * a criterion not met: the run criteria are unknown and say a real run is
 * needed, and how many rehearsals were left out. */
static void test_rehearsals_only_are_unknown(void **state)
{
	json_t *ev = complete_evidence(), *d, *r, *m;
	size_t i;

	(void)state;
	json_array_append_new(json_object_get(ev, "runs"),
			      run(30, "candidate", "portability", "failed", 3.5, -1));
	json_array_foreach(json_object_get(ev, "runs"), i, r) {
		json_object_set_new(r, "rehearsal", json_true());
		if (strcmp(get(r, "system"), "candidate") == 0) { /* a CPU run misses the target */
			json_object_set_new(r, "reached", json_false());
			json_object_set_new(r, "time_to_target_s", json_null());
			json_object_set_new(r, "cost_to_target", json_null());
		}
	}
	d = decide(all_criteria, ev);
	assert_string_equal(get(d, "verdict"), MT_VERDICT_NOT_ENOUGH_EVIDENCE);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "counts"), "not_met")), 0);
	for (const char *const *n = (const char *const[]){"quality-target", "time-to-quality",
							   "cost-to-quality", NULL}; *n; n++) {
		assert_string_equal(get(crit(d, *n), "status"), "unknown");
		assert_has(get(crit(d, *n), "evidence"), "left out: not evidence");
	}
	m = json_object_get(crit(d, "quality-target"), "missing");
	assert_int_equal(json_array_size(m), 1);
	assert_has(get(json_array_get(m, 0), "what"),
		   "a real run, not a rehearsal (4 candidate rehearsal run(s) left out");
	assert_has(get(crit(d, "quality-target"), "evidence"),
		   "rehearsal runs #10, #11, #12, #30 left out");
	m = json_object_get(crit(d, "time-to-quality"), "missing");
	assert_int_equal(json_array_size(m), 2);
	assert_has(get(json_array_get(m, 0), "what"), "(3 baseline rehearsal run(s) left out");
	assert_has(get(json_array_get(m, 1), "what"), "(4 candidate rehearsal run(s) left out");
	assert_has(get(crit(d, "time-to-quality"), "evidence"),
		   "rehearsal runs #1, #10, #2, #11, #3, #12, #30 left out");
	assert_int_equal(json_array_size(json_object_get(d, "conditions")), 0);
	json_decref(d);
}

/* Beside real runs, rehearsals change nothing: not a failed attempt, not
 * a miss, not in the medians; the evidence names them. */
static void test_rehearsals_beside_real_runs(void **state)
{
	json_t *ev = complete_evidence(), *d, *rh;

	(void)state;
	rh = run(40, "candidate", "portability", "failed", 5.5, -1);
	json_object_set_new(rh, "rehearsal", json_true());
	json_array_append_new(json_object_get(ev, "runs"), rh);
	rh = run(41, "candidate", NULL, "success", 2.0, 5); /* fast, but a CPU stand-in */
	json_object_set_new(rh, "rehearsal", json_true());
	json_array_append_new(json_object_get(ev, "runs"), rh);
	d = decide(all_criteria, ev);
	assert_string_equal(get(d, "verdict"), MT_VERDICT_GO);
	assert_has(get(crit(d, "quality-target"), "evidence"), "best per track: portability 2.04 (run #10)");
	assert_has(get(crit(d, "quality-target"), "evidence"), "; rehearsal runs #40, #41 left out");
	assert_float_equal(json_real_value(json_object_get(crit(d, "time-to-quality"), "value")),
			   910.0 / 1010.0, 1e-9);
	json_decref(d);
}

/* Faster from run start, slower once compilation counts: a condition. */
static void test_compilation_is_a_condition(void **state)
{
	json_t *ev = complete_evidence(), *d, *r;
	size_t i;

	(void)state;
	set_candidates(ev, "time_to_target_from_submission_s", json_real(3910));
	d = decide(all_criteria, json_incref(ev));
	assert_string_equal(get(crit(d, "time-to-quality"), "status"), "met");
	assert_string_equal(get(d, "verdict"), MT_VERDICT_GO_WITH_CONDITIONS);
	assert_has(get(json_array_get(json_object_get(d, "conditions"), 0), "text"),
		   "the candidate takes 2.98x the baseline's time");
	json_decref(d);
	/* not known: a caveat, not a condition */
	json_array_foreach(json_object_get(ev, "runs"), i, r)
		json_object_set_new(r, "time_to_target_from_submission_s", json_null());
	d = decide(all_criteria, ev);
	assert_string_equal(get(d, "verdict"), MT_VERDICT_GO);
	assert_has(get(d, "caveat"), "the time from submission (compilation and start-up) is not known");
	json_decref(d);
}

static json_t *with_ops(json_t *ops)
{
	json_t *ev = complete_evidence();
	json_object_set_new(ev, "probe", probe(ops));
	return ev;
}

static void test_ops(void **state)
{
	json_t *d, *ops;
	(void)state;
	d = decide(all_criteria, with_ops(json_pack("[oo]", op("aten::add", "device", "table:mine:3"),
						    op("aten::foo", "unsupported", "table:mine:9"))));
	assert_string_equal(get(crit(d, "no-cpu-fallback"), "status"), "not_met");
	assert_has(get(crit(d, "no-cpu-fallback"), "evidence"), "1 of 2 ops are unsupported");
	assert_has(get(crit(d, "no-cpu-fallback"), "evidence"), "aten::foo");
	assert_has(get(crit(d, "no-cpu-fallback"), "source"), "probe #4 (table mine 1");
	json_decref(d);

	d = decide(all_criteria, with_ops(json_pack("[o]", op("aten::add", "cpu_fallback", "table:mine:3"))));
	assert_string_equal(get(crit(d, "no-cpu-fallback"), "status"), "not_met");
	assert_float_equal(json_real_value(json_object_get(crit(d, "no-cpu-fallback"), "value")), 1, 0);
	json_decref(d);

	d = decide(all_criteria, with_ops(json_pack("[oo]", op("aten::add", "device", "table:mine:3"),
						    op("aten::bar", "unknown", "none"))));
	assert_string_equal(get(crit(d, "no-cpu-fallback"), "status"), "unknown");
	assert_has(get(json_array_get(json_object_get(crit(d, "no-cpu-fallback"), "missing"), 0),
		       "command"), "mtrial override");
	json_decref(d);

	/* an op made to work by the team's override: met, on that condition */
	d = decide(all_criteria, with_ops(json_pack("[oo]", op("aten::add", "device", "table:mine:3"),
						    op("aten::foo", "device", "override:journal#2"))));
	assert_string_equal(get(crit(d, "no-cpu-fallback"), "status"), "met");
	assert_string_equal(get(d, "verdict"), MT_VERDICT_GO_WITH_CONDITIONS);
	assert_has(get(d, "caveat"), "aten::foo (device: override:journal#2)");
	json_decref(d);

	/* a partial op: met, on the table's condition */
	ops = json_pack("[o]", op("aten::where", "partial", "table:mine:5"));
	json_object_set_new(json_array_get(ops, 0), "conditions",
			    json_pack("[s]", "Supported as a 3-argument selection."));
	d = decide(all_criteria, with_ops(ops));
	assert_string_equal(get(crit(d, "no-cpu-fallback"), "status"), "met");
	assert_has(get(d, "caveat"), "aten::where (Supported as a 3-argument selection.)");
	json_decref(d);
}

static void test_correctness_latest_of_each_pair(void **state)
{
	json_t *ev = complete_evidence(), *d;
	(void)state;
	/* newest first: a failed compare of "ref" was fixed by a later pass */
	json_array_append_new(json_object_get(ev, "checks"), check(3, "compare", "ref", 0));
	d = decide(all_criteria, json_incref(ev));
	assert_string_equal(get(crit(d, "first-steps-match"), "status"), "met");
	assert_string_equal(get(crit(d, "first-steps-match"), "source"), "checks #7 (mtrial check list)");
	json_decref(d);
	json_array_insert_new(json_object_get(ev, "checks"), 0, check(9, "curves", "loss-a", 0));
	d = decide(all_criteria, json_incref(ev));
	assert_string_equal(get(crit(d, "first-steps-match"), "status"), "not_met");
	assert_has(get(crit(d, "first-steps-match"), "evidence"), "#9 curves loss-a vs cand");
	assert_has(get(crit(d, "first-steps-match"), "evidence"), "the threshold 0.01 is not applied");
	json_decref(d);
	/* a CPU estimate alone says nothing about the candidate system */
	json_array_clear(json_object_get(ev, "checks"));
	json_array_append_new(json_object_get(ev, "checks"), check(11, "model", "m.pt", 1));
	d = decide(all_criteria, ev);
	assert_string_equal(get(crit(d, "first-steps-match"), "status"), "unknown");
	json_decref(d);
}

static json_t *systems_check(int id, const char *ref_system, const char *cand_system, int passed)
{
	json_t *c = check(id, "curves", ref_system, passed);
	json_object_set_new(c, "reference_system", json_string(ref_system));
	json_object_set_new(c, "candidate_system", json_string(cand_system));
	return c;
}

/* Only checks between the two systems count: baseline against baseline
 * (its run-to-run spread) is listed in the evidence, and not counted. */
static void test_correctness_counts_two_systems_only(void **state)
{
	json_t *ev = complete_evidence(), *d, *checks = json_object_get(ev, "checks"), *c;
	(void)state;
	/* a failed baseline-vs-baseline check beside the passed compare */
	json_array_insert_new(checks, 0, systems_check(12, "baseline", "baseline", 0));
	d = decide(all_criteria, json_incref(ev));
	c = crit(d, "first-steps-match");
	assert_string_equal(get(c, "status"), "met");
	assert_string_equal(get(c, "source"), "checks #7 (mtrial check list)");
	assert_has(get(c, "evidence"), "all 1 comparisons");
	assert_has(get(c, "evidence"), "1 check of a system against itself not counted "
				       "(#12 curves baseline vs cand)");
	json_decref(d);
	/* alone, a passed one settles nothing */
	json_array_clear(checks);
	json_array_append_new(checks, systems_check(13, "candidate", "candidate", 1));
	d = decide(all_criteria, json_incref(ev));
	c = crit(d, "first-steps-match");
	assert_string_equal(get(c, "status"), "unknown");
	assert_has(get(c, "evidence"), "only checks of a system against itself are recorded");
	assert_string_equal(get(c, "source"),
			    "only checks of a system against itself recorded (mtrial check list)");
	json_decref(d);
	/* the two systems' runs compared: counted, its failure fails */
	json_array_append_new(checks, systems_check(14, "baseline", "candidate", 0));
	d = decide(all_criteria, ev);
	assert_string_equal(get(crit(d, "first-steps-match"), "status"), "not_met");
	json_decref(d);
}

static json_t *rehearsal_check(int id, const char *kind, const char *ref, int passed)
{
	json_t *c = check(id, kind, ref, passed);
	json_object_set_new(c, "rehearsal", json_true());
	return c;
}

/* Rehearsal checks compared stand-ins: never evidence, passed or failed. */
static void test_rehearsal_checks_are_not_evidence(void **state)
{
	json_t *ev = complete_evidence(), *d, *checks = json_object_get(ev, "checks"), *m;
	(void)state;
	/* only rehearsals, one of them failed: unknown, never not_met or met */
	json_array_clear(checks);
	json_array_append_new(checks, rehearsal_check(5, "curves", "cpu-a", 0));
	json_array_append_new(checks, rehearsal_check(4, "curves", "cpu-b", 1));
	d = decide(all_criteria, json_incref(ev));
	assert_string_equal(get(crit(d, "first-steps-match"), "status"), "unknown");
	assert_string_equal(get(d, "verdict"), "NOT_ENOUGH_EVIDENCE");
	assert_has(get(crit(d, "first-steps-match"), "evidence"), "only rehearsal checks are recorded");
	assert_has(get(crit(d, "first-steps-match"), "evidence"), "rehearsal checks #4, #5 left out");
	assert_string_equal(get(crit(d, "first-steps-match"), "source"),
			    "only rehearsal checks recorded (mtrial check list)");
	m = json_array_get(json_object_get(crit(d, "first-steps-match"), "missing"), 0);
	assert_has(get(m, "what"), "a real comparison, not a rehearsal (2 rehearsal check(s) left out");
	assert_has(get(m, "command"), "mtrial check compare");
	json_decref(d);
	/* beside a real passed check, a newer failed rehearsal of the same pair
	 * hides nothing and fails nothing */
	json_array_clear(checks);
	json_array_append_new(checks, rehearsal_check(8, "compare", "ref", 0));
	json_array_append_new(checks, check(7, "compare", "ref", 1));
	d = decide(all_criteria, json_incref(ev));
	assert_string_equal(get(crit(d, "first-steps-match"), "status"), "met");
	assert_string_equal(get(crit(d, "first-steps-match"), "source"), "checks #7 (mtrial check list)");
	assert_has(get(crit(d, "first-steps-match"), "evidence"), "all 1 comparisons");
	assert_has(get(crit(d, "first-steps-match"), "evidence"), "rehearsal check #8 left out: not evidence");
	json_decref(d);
	/* marked evidence (no longer a rehearsal), its failure counts */
	json_object_set_new(json_array_get(checks, 0), "rehearsal", json_false());
	d = decide(all_criteria, ev);
	assert_string_equal(get(crit(d, "first-steps-match"), "status"), "not_met");
	assert_has(get(crit(d, "first-steps-match"), "evidence"), "#8 compare ref vs cand");
	json_decref(d);
}

static void test_cost_needs_prices(void **state)
{
	static const char text[] =
		"schema: 1\nname: t\n"
		"systems:\n  baseline: {count: 8}\n  candidate: {count: 16, price: {hourly: 40}}\n"
		"quality_target: {metric: eval_loss, threshold: 2.1, direction: lower}\n"
		"criteria:\n  - {name: cost, kind: cost_to_quality, threshold: 1}\n"
		"  - {name: fast, kind: time_to_quality}\n";
	json_t *d = decide(text, complete_evidence()), *m;

	(void)state;
	assert_string_equal(get(crit(d, "cost"), "status"), "unknown");
	m = json_array_get(json_object_get(crit(d, "cost"), "missing"), 0);
	assert_string_equal(get(m, "what"), "systems.baseline.price.hourly");
	assert_string_equal(get(crit(d, "fast"), "status"), "unknown");
	assert_string_equal(get(json_array_get(json_object_get(crit(d, "fast"), "missing"), 0), "what"),
			    "criteria.1.threshold");
	assert_has(json_string_value(json_array_get(json_object_get(d, "caveats"), 1)),
		   "no criterion judges the model's quality");
	json_decref(d);
}

/* The cost criterion judges the medians of the runs that reached the
 * target, and says what the other attempts cost inside the same boundary:
 * a failed candidate attempt is never out of sight. */
static void test_cost_says_what_failures_cost(void **state)
{
	json_t *ev = complete_evidence(), *d, *failed = run(20, "candidate", "portability", "failed", 9, -1);
	static const char text[] = SPEC_HEAD "criteria:\n  - {name: cost, kind: cost_to_quality, threshold: 1}\n";

	(void)state;
	json_object_set_new(failed, "cost", json_real(0.5));
	json_array_append_new(json_object_get(ev, "runs"), failed);
	d = decide(text, json_incref(ev));
	assert_has(get(crit(d, "cost"), "evidence"), "over 3 run(s) vs baseline");
	assert_has(get(crit(d, "cost"), "evidence"),
		   "the attempts that did not reach the target cost 0.5 USD more on the candidate (1) "
		   "and 0 on the baseline (0)");
	json_decref(d);
	/* none: nothing said */
	json_array_remove(json_object_get(ev, "runs"), json_array_size(json_object_get(ev, "runs")) - 1);
	d = decide(text, ev);
	assert_null(strstr(get(crit(d, "cost"), "evidence"), "outside the medians"));
	json_decref(d);
}

/* An API-keyed probe: an unsupported API that runs no aten op of its own
 * (torch.onnx.export) is a blocker the op counts cannot see. */
static void test_ops_unsupported_api_without_op(void **state)
{
	json_t *ev = complete_evidence(), *d;
	static const char text[] = SPEC_HEAD "criteria:\n  - {name: ops, kind: ops}\n";

	(void)state;
	json_object_set_new(json_object_get(ev, "probe"), "apis",
			    json_pack("[{ss, ss, sn, ss}, {ss, ss, ss, ss}]", "api", "torch.onnx.export",
				      "status", "unsupported", "op", "source", "table:mine:9", "api",
				      "torch.add", "status", "device", "op", "aten::add", "source",
				      "table:mine:3"));
	d = decide(text, json_incref(ev));
	assert_string_equal(get(crit(d, "ops"), "status"), "not_met");
	assert_has(get(crit(d, "ops"), "evidence"),
		   "1 API(s) that run no aten op of their own are unsupported: torch.onnx.export "
		   "(table:mine:9)");
	json_decref(d);
	/* the same API with its op: the op's own status decides, as before */
	json_object_set_new(json_array_get(json_object_get(json_object_get(ev, "probe"), "apis"), 0),
			    "op", json_string("aten::add"));
	d = decide(text, ev);
	assert_string_equal(get(crit(d, "ops"), "status"), "met");
	json_decref(d);
}

static void test_effort(void **state)
{
	static const char budget_only[] = SPEC_HEAD "criteria:\n  - {name: e, kind: effort}\n";
	json_t *ev = complete_evidence(), *d;

	(void)state;
	json_object_set_new(json_object_get(ev, "effort"), "total_ms", json_integer(41 * 3600000LL));
	d = decide(budget_only, json_incref(ev)); /* the optimized budget when no threshold */
	assert_string_equal(get(crit(d, "e"), "status"), "not_met");
	assert_float_equal(json_real_value(json_object_get(crit(d, "e"), "threshold")), 40, 0);
	assert_has(get(crit(d, "e"), "evidence"), "41.0 h timed");
	json_decref(d);
	json_object_set_new(json_object_get(ev, "effort"), "total_ms", json_integer(0));
	d = decide(budget_only, ev);
	assert_string_equal(get(crit(d, "e"), "status"), "unknown");
	json_decref(d);
}

static void test_custom_judgement(void **state)
{
	static const char text[] = SPEC_HEAD
		"criteria:\n"
		"  - {name: a, kind: custom}\n"
		"  - {name: b, kind: custom, judgement: met, evidence: \"the on-call team signed off\"}\n"
		"  - {name: c, kind: custom, judgement: not_met, evidence: \"no support contract\"}\n"
		"  - {name: d, kind: effort, judgement: met}\n";
	json_t *d = decide(text, complete_evidence());

	(void)state;
	assert_string_equal(get(crit(d, "a"), "status"), "unknown");
	assert_string_equal(get(crit(d, "b"), "status"), "met");
	assert_has(get(crit(d, "b"), "evidence"), "signed off");
	assert_string_equal(get(crit(d, "c"), "status"), "not_met");
	assert_string_equal(get(d, "verdict"), MT_VERDICT_NO_GO);
	/* a judgement does not overrule the record: effort is judged from it */
	assert_string_equal(get(crit(d, "d"), "status"), "met");
	assert_has(json_string_value(json_array_get(json_object_get(d, "caveats"), 2)),
		   "criteria.3.judgement is ignored");
	json_decref(d);
}

/* Quality met by one candidate run while another finished short of the
 * target: met, but only on the condition that the candidate reaches it
 * reliably, with the run that missed named. */
static void test_quality_met_some_missed(void **state)
{
	json_t *ev = complete_evidence(), *d, *r;
	size_t i;
	int first = 1;

	(void)state;
	json_array_foreach(json_object_get(ev, "runs"), i, r)
		if (strcmp(get(r, "system"), "candidate") == 0) {
			json_object_set_new(r, "outcome", json_string(first ? "missed" : "reached"));
			first = 0;
		}
	d = decide(all_criteria, ev);
	assert_string_equal(get(crit(d, "quality-target"), "status"), "met");
	assert_has(json_string_value(json_array_get(json_object_get(crit(d, "quality-target"),
									 "conditions"), 0)),
		   "1 of 3 finished candidate runs did not reach the target (runs #10)");
	json_decref(d);
}

/* The target is read from trial.yaml when a run is read, never frozen when
 * it is recorded: the same stored figures of a real MLPerf log (eval_accuracy
 * 0.7597 at epoch 35) reach 0.759 and miss 0.77, and decide follows. */
static void test_target_follows_spec(void **state)
{
	static const char head[] = "schema: 1\nname: t\n"
				   "systems:\n  candidate: {count: 4, price: {hourly: 20}}\n"
				   "  baseline: {count: 4, price: {hourly: 20}}\n"
				   "criteria:\n  - {name: q, kind: quality}\n"
				   "quality_target: {metric: eval_accuracy, direction: higher, threshold: ";
	char text[512];
	mt_spec *a, *b;
	json_t *m = NULL, *r, *ev, *d = NULL;
	(void)state;

	snprintf(text, sizeof(text), "%s0.759}\n", head);
	a = parse(text);
	snprintf(text, sizeof(text), "%s0.77}\n", head);
	b = parse(text);
	assert_int_equal(mt_runs_metrics(&m, MT_SOURCE_DIR "/tests/data/curves/"
					 "Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt",
					 MT_RUNS_LOG_RAW, a, 0, -1), 0);
	assert_true(json_is_null(json_object_get(m, "target"))); /* nothing frozen */
	r = json_pack("{si, ss, ss, so}", "id", 1, "system", "candidate", "status", "success",
		      "metrics", m);
	mt_runs_flatten(r, a);
	assert_true(json_is_true(json_object_get(r, "reached")));
	assert_true(json_is_number(json_object_get(r, "cost_to_target")));
	mt_runs_flatten(r, b);
	assert_true(json_is_false(json_object_get(r, "reached")));
	assert_string_equal(json_string_value(json_object_get(r, "outcome")), "missed");
	assert_true(json_is_null(json_object_get(r, "time_to_target_s")));
	assert_true(json_is_null(json_object_get(r, "cost_to_target")));
	ev = json_pack("{s[O], s[], sn, s[], s{sI}, sb}", "runs", r, "checks", "probe", "overrides",
		       "effort", "total_ms", (json_int_t)0, "effort_running", 0);
	assert_int_equal(mt_decide_from(&d, b, ev), 0);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(d, "criteria"), 0), "status")),
			    "not_met");
	{ /* the view of a decision from a real log's figures: every key there */
		mt_decision_view dv;
		mt_criterion_view cv;
		assert_int_equal(mt_decide_view_read(&dv, d), 0);
		assert_string_equal(dv.verdict, MT_VERDICT_NO_GO);
		assert_int_equal(dv.not_met, 1);
		assert_int_equal(mt_decide_view_criterion(&cv, &dv, 0), 0);
		assert_int_equal(cv.state, MT_CRITERION_NOT_MET);
		assert_string_equal(cv.name, "q");
		assert_float_equal(cv.value, 0.7597, 1e-3); /* the best evaluation */
		assert_int_equal(mt_decide_view_criterion(&cv, &dv, 1), MT_ENOTFOUND);
	}
	json_decref(d);
	json_decref(ev);
	json_decref(r);
	mt_spec_free(a);
	mt_spec_free(b);
}

/* decide.h's views read every criterion of a decision on each kind, and a
 * key renamed on one side is caught. */
static void test_decision_view(void **state)
{
	json_t *ev = complete_evidence(), *d = decide(all_criteria, json_incref(ev)), *c;
	const char *what, *command;
	mt_decision_view dv;
	mt_criterion_view cv;
	size_t i;

	(void)state;
	assert_int_equal(mt_decide_view_read(&dv, d), 0);
	assert_string_equal(dv.verdict, get(d, "verdict"));
	assert_string_equal(dv.summary, get(d, "summary"));
	assert_int_equal(dv.n_criteria, 6);
	assert_int_equal(dv.met + dv.not_met + dv.unknown, 6);
	json_array_foreach(json_object_get(d, "criteria"), i, c) {
		assert_int_equal(mt_decide_view_criterion(&cv, &dv, i), 0);
		assert_string_equal(cv.name, get(c, "name"));
		assert_string_equal(cv.status, get(c, "status"));
		assert_int_equal(cv.state, strcmp(get(c, "status"), "met") == 0 ? MT_CRITERION_MET
					   : strcmp(get(c, "status"), "not_met") == 0
					       ? MT_CRITERION_NOT_MET
					       : MT_CRITERION_UNKNOWN);
		assert_int_equal(cv.n_conditions, json_array_size(json_object_get(c, "conditions")));
	}
	assert_int_equal(mt_decide_view_criterion(&cv, &dv, 0), 0);
	assert_float_equal(cv.threshold, 2.1, 1e-12);
	json_decref(d);

	/* without a probe: ops unknown, with what is missing and its command */
	json_object_set_new(ev, "probe", json_null());
	d = decide(all_criteria, json_incref(ev));
	assert_int_equal(mt_decide_view_read(&dv, d), 0);
	assert_int_equal(mt_decide_view_criterion(&cv, &dv, 2), 0);
	assert_int_equal(cv.state, MT_CRITERION_UNKNOWN);
	assert_int_equal(mt_decide_view_missing(&cv, 0, &what, &command), 0);
	assert_non_null(strstr(command, "mtrial"));
	assert_int_equal(mt_decide_view_missing(&cv, cv.n_missing, &what, &command), MT_ENOTFOUND);

	/* a renamed key: counted and named */
	c = json_array_get(json_object_get(d, "criteria"), 1);
	json_object_set(c, "proof", json_object_get(c, "evidence"));
	json_object_del(c, "evidence");
	assert_int_equal(mt_decide_view_criterion(&cv, &dv, 1), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "evidence"));
	json_object_del(d, "headline");
	assert_int_equal(mt_decide_view_read(&dv, d), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "headline"));
	json_decref(d);
	json_decref(ev);
}

/* decide names the same default table as `mtrial probe` uses. */
static void test_default_table(void **state)
{
	(void)state;
	assert_string_equal(MT_DECIDE_DEFAULT_TABLE, MT_PROBE_DEFAULT_TABLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete_is_go),
		cmocka_unit_test(test_no_track_wording),
		cmocka_unit_test(test_failure_outranks_missing),
		cmocka_unit_test(test_no_runs_is_not_enough_evidence),
		cmocka_unit_test(test_no_criteria),
		cmocka_unit_test(test_optimized_only_is_a_condition),
		cmocka_unit_test(test_quality_not_reached),
		cmocka_unit_test(test_failed_attempts_are_a_condition),
		cmocka_unit_test(test_rehearsals_only_are_unknown),
		cmocka_unit_test(test_rehearsals_beside_real_runs),
		cmocka_unit_test(test_compilation_is_a_condition),
		cmocka_unit_test(test_ops),
		cmocka_unit_test(test_correctness_latest_of_each_pair),
		cmocka_unit_test(test_correctness_counts_two_systems_only),
		cmocka_unit_test(test_rehearsal_checks_are_not_evidence),
		cmocka_unit_test(test_cost_needs_prices),
		cmocka_unit_test(test_cost_says_what_failures_cost),
		cmocka_unit_test(test_ops_unsupported_api_without_op),
		cmocka_unit_test(test_effort),
		cmocka_unit_test(test_custom_judgement),
		cmocka_unit_test(test_target_follows_spec),
		cmocka_unit_test(test_decision_view),
		cmocka_unit_test(test_quality_met_some_missed),
		cmocka_unit_test(test_default_table),
		cmocka_unit_test(test_designs_never_compared),
		cmocka_unit_test(test_fastest_missed),
		cmocka_unit_test(test_too_few_runs_per_design),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
