#include "model.h"
#include "compilation.h"
#include "error.h"
#include "tracks.h"
#include "decide.h"
#include "opinventory.h"
#include "runs.h"
#include "util.h"
#include "jsonutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Spec fields a go/no-go summary cannot do without; an empty one is listed
 * under "missing" so that no reader mistakes silence for a fact. */
static const struct {
	const char *path;
	const char *why;
} required_facts[] = {
	{"workload.repository", "which code is being moved"},
	{"workload.revision", "the exact revision the trial measures"},
	{"workload.token_unit", "what one counted token is"},
	{"systems.baseline.accelerator", "the current system"},
	{"systems.candidate.accelerator", "the trial system"},
	{"systems.baseline.price.hourly", "cost of the current system"},
	{"systems.candidate.price.hourly", "cost of the trial system"},
	{"quality_target.metric", "the quality target"},
	{"quality_target.threshold", "the quality target's threshold"},
	{"quality_target.direction", "whether lower or higher is better"},
	{"accounting.boundary", "what the cost figures include"},
	{"tracks.optimized.budget_hours", "the optimized track's engineering budget"},
};

static const struct {
	const char *id, *title, *empty_hint;
} steps[] = {
	{"repository", "Repository", "The op inventory appears here once 'mtrial scan' has run."},
	{"ops", "Ops & compatibility", "Each op's status on the target appears here after "
				       "'mtrial probe'."},
	{"correctness", "Correctness", "Tensor and loss-curve comparisons appear here after "
				       "'mtrial check'."},
	{"runs", "Runs & clocks", "Run attempts and their two clocks appear here after "
				  "'mtrial run -- CMD'."},
	{"effort", "Tracks & effort", "Effort intervals and friction notes appear here: "
				      "'mtrial effort start', 'mtrial note TEXT'."},
	{"summary", "Summary", "The go/no-go verdict appears here after 'mtrial decide'."},
};

static json_t *missing_facts(const mt_spec *spec)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < sizeof(required_facts) / sizeof(required_facts[0]); i++) {
		const char *v = spec ? mt_spec_get(spec, required_facts[i].path) : NULL;
		if (!v || !*v)
			json_array_append_new(arr, json_pack("{ss, ss}", "field",
							     required_facts[i].path, "why",
							     required_facts[i].why));
	}
	return arr;
}

static json_t *duration(int64_t ms)
{
	char text[32];
	mt_duration_fmt(text, sizeof(text), ms);
	return json_string(text);
}

static double num(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A number for the report: 3 significant digits, or null (hidden). */
static json_t *fig_of(double v, double scale)
{
	char buf[32];
	if (!isfinite(v))
		return json_null();
	snprintf(buf, sizeof(buf), "%.3g", v * scale);
	return json_string(buf);
}

/* fig_of() of a number in the JSON; not a number: null. */
static json_t *fig(json_t *v, double scale)
{
	return json_is_number(v) ? fig_of(json_number_value(v), scale) : json_null();
}

/* Turns the summary's objects into arrays with formatted durations, which
 * templates can iterate over. */
static json_t *effort_tracks(json_t *summary)
{
	json_t *arr = json_array(), *t, *ms;
	const char *track, *cat;

	json_object_foreach(json_object_get(summary, "by_track"), track, t) {
		json_t *cats = json_array();
		json_object_foreach(json_object_get(t, "by_category"), cat, ms)
			json_array_append_new(cats, json_pack("{ss, sO, so}", "category", cat,
							      "ms", ms, "duration",
							      duration(json_integer_value(ms))));
		json_array_append_new(
			arr, json_pack("{ss, sO, so, so}", "track", track, "ms",
				       json_object_get(t, "total_ms"), "duration",
				       duration(json_integer_value(json_object_get(t, "total_ms"))),
				       "categories", cats));
	}
	return arr;
}

static json_t *effort_model(mt_journal *j, int64_t now_ms)
{
	json_t *summary = mt_journal_effort_summary_json(j, now_ms);
	json_t *intervals = summary ? mt_journal_effort_json(j) : NULL;
	json_t *running = json_null(), *iv;
	size_t i;

	if (!intervals) {
		json_decref(summary);
		return NULL;
	}
	json_array_foreach(intervals, i, iv) {
		json_object_set_new(iv, "duration",
				    duration(json_integer_value(json_object_get(iv, "duration_ms"))));
		if (json_is_true(json_object_get(iv, "running")))
			running = json_incref(iv);
	}
	json_t *model = json_pack("{sO, so, so, so, so, so}", "total_ms",
				  json_object_get(summary, "total_ms"), "total",
				  duration(json_integer_value(json_object_get(summary, "total_ms"))),
				  "total_hours", fig(json_object_get(summary, "total_ms"), 1.0 / 3600000),
				  "tracks", effort_tracks(summary), "intervals", intervals,
				  "running", running);
	json_decref(summary);
	return model;
}

static int op_count_desc(const void *a, const void *b)
{
	json_int_t ca = json_integer_value(json_object_get(*(json_t *const *)a, "count"));
	json_int_t cb = json_integer_value(json_object_get(*(json_t *const *)b, "count"));
	const char *na = json_string_value(json_object_get(*(json_t *const *)a, "op"));
	const char *nb = json_string_value(json_object_get(*(json_t *const *)b, "op"));
	if (ca != cb || !na || !nb)
		return (cb > ca) - (cb < ca);
	return strcmp(na, nb); /* ties by name: the same order on every machine */
}

/* Items made from the ops of an inventory by `item` (NULL: left out), most
 * counted first, at most `max`. */
static json_t *top_items(json_t *ops, size_t max, json_t *(*item)(const char *, json_t *))
{
	json_t **items = malloc((json_object_size(ops) + 1) * sizeof(*items)), *arr = json_array();
	const char *name;
	json_t *v;
	size_t n = 0;

	json_object_foreach(ops, name, v)
		if ((items[n] = item(name, v)))
			n++;
	qsort(items, n, sizeof(*items), op_count_desc);
	for (size_t i = 0; i < n; i++) {
		if (i < max)
			json_array_append(arr, items[i]);
		json_decref(items[i]);
	}
	free(items);
	return arr;
}

/* An op of scan_inventory: its sites of both kinds as `count`, as the probe
 * counts them, and each kind apart. */
static json_t *site_item(const char *name, json_t *v)
{
	return json_pack("{ss, sO, sO, sO, sO, si}", "op", name, "count", json_object_get(v, "count"),
			 "calls", json_object_get(v, "calls"), "methods", json_object_get(v, "methods"),
			 "uncertain", json_object_get(v, "uncertain"), "files",
			 (int)json_object_size(json_object_get(v, "files")));
}

/* The entry of op in inv, made when absent: {count, calls, methods,
 * uncertain, files {name: true}}. */
static json_t *inventory_entry(json_t *inv, const char *op)
{
	json_t *e = json_object_get(inv, op);

	if (!e) {
		e = json_pack("{si, si, si, si, s{}}", "count", 0, "calls", 0, "methods", 0,
			      "uncertain", 0, "files");
		json_object_set_new(inv, op, e);
	}
	return e;
}

static void add_to(json_t *e, const char *key, json_int_t n)
{
	json_object_set_new(e, key, json_integer(json_integer_value(json_object_get(e, key)) + n));
}

/* Adds the ops of one kind of site (the summary's `ops` or `method_ops`)
 * to inv under `key`, with their files. */
static void add_sites(json_t *inv, json_t *ops, const char *key)
{
	json_t *v, *f, *e;
	const char *op;
	size_t k;

	json_object_foreach(ops, op, v) {
		json_int_t n = json_integer_value(json_object_get(v, "count"));
		e = inventory_entry(inv, op);
		add_to(e, key, n);
		add_to(e, "count", n);
		add_to(e, "uncertain", json_integer_value(json_object_get(v, "uncertain")));
		json_array_foreach(json_object_get(v, "files"), k, f)
			if (json_is_string(f))
				json_object_set_new(json_object_get(e, "files"), json_string_value(f), json_true());
	}
}

/* A scan's ops at torch calls and at tensor method calls together, as the
 * probe judges them: the ops section must not list one count and the
 * compatibility section another for the same op. (A scan recorded before
 * method_ops has the torch calls only; the template says so.) */
static json_t *scan_inventory(json_t *r)
{
	json_t *inv = json_object();

	add_sites(inv, json_object_get(r, "ops"), "calls");
	add_sites(inv, json_object_get(r, "method_ops"), "methods");
	return inv;
}

static const char *const effort_order[] = {"high", "medium", "low", "none", NULL};

/* The report lists this many of a scan's ops, most used first; the rest
 * are counted (the scan's JSON has them all). */
#define REPORT_SCAN_OPS 30

/* The report lists this many findings, most effort first; the rest are
 * counted (the scan's JSON has them all). */
#define REPORT_FINDINGS 50

/* Findings, most effort first (stable within a level), at most `max`. */
static json_t *sorted_findings(json_t *findings, size_t max)
{
	json_t *arr = json_array(), *f;
	size_t i;
	for (const char *const *e = effort_order; *e; e++)
		json_array_foreach(findings, i, f)
			if (json_array_size(arr) < max &&
			    strcmp(json_string_value(json_object_get(f, "effort")), *e) == 0)
				json_array_append(arr, f);
	return arr;
}

/* The latest scan, summarised: what the report and the wizard show. */
static json_t *scan_model(mt_journal *j)
{
	json_t *r = NULL, *deps = json_array(), *d, *m, *inv;
	int64_t id = 0, created = 0;
	char when[32];
	size_t i;

	if (mt_journal_scan_latest(j, 0, &r, &id, &created) < 0) {
		mt_error_clear();
		json_decref(deps);
		return json_null();
	}
	json_array_foreach(json_object_get(r, "dependencies"), i, d)
		if (json_is_true(json_object_get(d, "cuda_only")))
			json_array_append(deps, d);
	mt_time_iso(when, sizeof(when), created);
	inv = scan_inventory(r);
	m = json_pack("{sI, ss, sO, sO, sO, sO, sO, so, so, so, so, so, si}", "id", (json_int_t)id,
		      "created", when, "repo", json_object_get(r, "repo"), "rev",
		      json_object_get(r, "rev"), "worktree", json_object_get(r, "worktree"),
		      "files_scanned", json_object_get(r, "files_scanned"), "totals",
		      json_object_get(r, "totals"), "top_ops",
		      top_items(inv, REPORT_SCAN_OPS, site_item), "top_ops_more",
		      json_object_size(inv) > REPORT_SCAN_OPS
			      ? json_integer((json_int_t)(json_object_size(inv) - REPORT_SCAN_OPS))
			      : json_null(),
		      "findings",
		      sorted_findings(json_object_get(r, "findings"), REPORT_FINDINGS),
		      "findings_more", /* null, not 0: a section shows for any number */
		      json_array_size(json_object_get(r, "findings")) > REPORT_FINDINGS
			      ? json_integer((json_int_t)(json_array_size(json_object_get(r, "findings")) -
							  REPORT_FINDINGS))
			      : json_null(),
		      "cuda_only_dependencies",
		      deps, "files_skipped", (int)json_array_size(json_object_get(r, "files_skipped")));
	json_decref(inv);
	if (!json_object_get(r, "method_ops"))
		json_object_set_new(m, "top_ops_calls_only", json_true());
	if (json_array_size(json_object_get(r, "paths"))) /* scan --path, scan.paths */
		json_object_set(m, "paths", json_object_get(r, "paths"));
	if (json_array_size(json_object_get(r, "paths_missing")))
		json_object_set(m, "paths_missing", json_object_get(r, "paths_missing"));
	json_decref(r);
	return m;
}

/* The report lists this many ops per list of an exact source. */
#define REPORT_EXACT_OPS 30

/* The first `max` strings of arr joined as "`a`, `b`" with "and N more". */
static json_t *op_list(json_t *arr, size_t max)
{
	mt_buf b = MT_BUF_INIT;
	json_t *v, *out;
	size_t i;

	if (!json_array_size(arr))
		return json_null();
	json_array_foreach(arr, i, v) {
		if (i == max) {
			mt_buf_printf(&b, " and %zu more", json_array_size(arr) - max);
			break;
		}
		mt_buf_printf(&b, "%s`%s`", i ? ", " : "", json_string_value(v));
	}
	out = json_string(mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	return out;
}

/* Sets m[key] to op_list(arr) for Markdown and m[key + "_list"] to
 * {ops: the first REPORT_EXACT_OPS, more: how many are left or null} for
 * HTML, which marks each op up itself; both null for an empty list. */
static void set_op_list(json_t *m, const char *key, json_t *arr)
{
	char list_key[64];
	size_t n = json_array_size(arr);
	json_t *ops;

	snprintf(list_key, sizeof(list_key), "%s_list", key);
	json_object_set_new(m, key, op_list(arr, REPORT_EXACT_OPS));
	if (!n) {
		json_object_set_new(m, list_key, json_null());
		return;
	}
	ops = json_array();
	for (size_t i = 0; i < n && i < REPORT_EXACT_OPS; i++)
		json_array_append(ops, json_array_get(arr, i));
	json_object_set_new(m, list_key,
			    json_pack("{so, so}", "ops", ops, "more",
				      n > REPORT_EXACT_OPS ? json_integer((json_int_t)(n - REPORT_EXACT_OPS))
							   : json_null()));
}

static json_t *shapes_item(const char *name, json_t *v)
{
	if (json_integer_value(json_object_get(v, "distinct_shapes")) < 2)
		return NULL;
	return json_pack("{ss, sO}", "op", name, "count", json_object_get(v, "distinct_shapes"));
}

/* Ops whose input shapes varied in the trace's training steps (a new step
 * shape can mean a new graph to compile on the target), most shapes first. */
static json_t *varying_shapes(json_t *ops, size_t max)
{
	return top_items(ops, max, shapes_item);
}

/* The composites the scan names that the trace ran as other ops:
 * [{composite, ops: [...]}], at most REPORT_EXACT_OPS (then "more"); null
 * for none. */
static json_t *decomposed_items(json_t *d)
{
	json_t *names = json_object_get(d, "decomposed"), *map = json_object_get(d, "decompositions");
	json_t *items, *v;
	size_t i, n = json_array_size(names);

	if (!n)
		return json_null();
	items = json_array();
	json_array_foreach(names, i, v) {
		if (i == REPORT_EXACT_OPS)
			break;
		json_array_append_new(items, json_pack("{sO, sO}", "composite", v, "ops",
						       json_object_get(map, json_string_value(v))
							       ?: json_array()));
	}
	return json_pack("{so, so}", "items", items, "more",
			 n > REPORT_EXACT_OPS ? json_integer((json_int_t)(n - REPORT_EXACT_OPS))
					      : json_null());
}

/* The latest inventory of an exact source and how it differs from the
 * latest scan; null when none is recorded. */
static json_t *exact_model(mt_journal *j, const char *source, json_t *scan)
{
	json_t *inv = NULL, *d = NULL, *m;
	int64_t id = 0;

	if (mt_journal_inventory_latest(j, source, &inv, &id) < 0) {
		mt_error_clear();
		return json_null();
	}
	m = json_pack("{sI, sO, si}", "id", (json_int_t)id, "file", json_object_get(inv, "file"),
		      "ops", (int)json_object_size(json_object_get(inv, "ops")));
	json_object_set(m, "detail", json_object_get(inv, source));
	if (scan && mt_inventory_diff(&d, scan, inv) == 0) {
		set_op_list(m, "missed_by_scan", json_object_get(d, "missed_by_scan"));
		set_op_list(m, "only_in_scan", json_object_get(d, "only_a"));
		set_op_list(m, "backward_only", json_object_get(d, "backward_only"));
		if (strcmp(source, "trace") == 0)
			json_object_set_new(m, "decomposed", decomposed_items(d));
		json_decref(d);
	}
	if (strcmp(source, "trace") == 0) {
		json_t *shapes = varying_shapes(json_object_get(inv, "ops"), 10);
		json_object_set_new(m, "varying_shapes",
				    json_array_size(shapes) ? json_incref(shapes) : json_null());
		json_decref(shapes);
	}
	json_decref(inv);
	return m;
}

/* Both exact sources; null when neither is recorded. */
static json_t *exact_sources(mt_journal *j)
{
	json_t *scan = NULL, *ts, *tr;
	if (mt_journal_scan_latest(j, 1, &scan, NULL, NULL) < 0)
		mt_error_clear();
	ts = exact_model(j, "torchscript", scan);
	tr = exact_model(j, "trace", scan);
	json_decref(scan);
	if (json_is_null(ts) && json_is_null(tr))
		return json_null();
	return json_pack("{so, so}", "torchscript", ts, "trace", tr);
}

/* The report lists this many checks, newest first. */
#define REPORT_CHECKS 20

/* One line on a tensor comparison (compare, model): how many tensors
 * failed, the worst one, its tolerances and where they came from. */
static void tensors_summary(mt_buf *b, json_t *c)
{
	json_t *tensors = json_object_get(c, "tensors"), *t, *worst = json_array_get(tensors, 0);
	size_t i, failed = 0;

	json_array_foreach(tensors, i, t)
		failed += !json_is_true(json_object_get(t, "passed"));
	if (json_object_get(c, "recipe"))
		mt_buf_printf(b, "recipe %s (%s); ",
			      json_string_value(json_object_get(json_object_get(c, "recipe"), "name")),
			      json_string_value(json_object_get(json_object_get(c, "recipe"), "what")));
	mt_buf_printf(b, "%zu of %zu tensors failed", failed, json_array_size(tensors));
	if (json_array_size(json_object_get(c, "only_in_reference")) ||
	    json_array_size(json_object_get(c, "only_in_candidate")))
		mt_buf_printf(b, ", %zu only in the reference, %zu only in the candidate",
			      json_array_size(json_object_get(c, "only_in_reference")),
			      json_array_size(json_object_get(c, "only_in_candidate")));
	if (worst)
		mt_buf_printf(b, "; worst `%s`: %lld of %lld mismatched, greatest |diff| %.3g, "
			      "rtol %.3g atol %.3g (%s)",
			      json_string_value(json_object_get(worst, "name")),
			      (long long)json_integer_value(json_object_get(worst, "mismatched")),
			      (long long)json_integer_value(json_object_get(worst, "numel")),
			      num(json_object_get(worst, "max_abs")), num(json_object_get(worst, "rtol")),
			      num(json_object_get(worst, "atol")),
			      json_string_value(json_object_get(worst, "tolerance_source")) ?: "default");
}

/* One line on a loss-curve comparison. */
static void curves_summary(mt_buf *b, json_t *c)
{
	json_t *final = json_object_get(c, "final"), *div = json_object_get(c, "first_divergent_step");
	mt_buf_printf(b, "%lld steps compared, band rtol %.3g atol %.3g",
		      (long long)json_integer_value(json_object_get(c, "points")),
		      num(json_object_get(c, "rtol")), num(json_object_get(c, "atol")));
	if (json_integer_value(json_object_get(c, "window")) > 1)
		mt_buf_printf(b, ", smoothed over %lld",
			      (long long)json_integer_value(json_object_get(c, "window")));
	if (json_is_integer(div))
		mt_buf_printf(b, "; first outside the band at step %lld", (long long)json_integer_value(div));
	else if (json_is_object(div))
		mt_buf_printf(b, "; first outside the band at step %lld",
			      (long long)json_integer_value(json_object_get(div, "step")));
	if (final)
		mt_buf_printf(b, "; final values %.4g (reference) and %.4g: %s",
			      num(json_object_get(final, "reference")),
			      num(json_object_get(final, "candidate")),
			      json_is_true(json_object_get(final, "agree")) ? "agree" : "differ");
}

/* The recorded correctness checks, newest first, each in one line with
 * whether it is a rehearsal. null without any. */
static json_t *checks_model(mt_journal *j)
{
	json_t *all = mt_journal_checks_json(j, NULL, REPORT_CHECKS), *out = json_array(), *c;
	size_t i;

	if (!all) {
		mt_error_clear();
		json_decref(out);
		return json_null();
	}
	json_array_foreach(all, i, c) {
		const char *kind = json_string_value(json_object_get(c, "kind"));
		mt_buf b = MT_BUF_INIT;
		if (kind && strcmp(kind, "curves") == 0)
			curves_summary(&b, c);
		else
			tensors_summary(&b, c);
		json_array_append_new(
			out, json_pack("{sO, sO, sO, sO, sO, ss, ss, sb}", "id", json_object_get(c, "id"),
				       "created", json_object_get(c, "created"), "kind",
				       json_object_get(c, "kind"), "reference",
				       json_object_get(c, "reference"), "candidate",
				       json_object_get(c, "candidate"), "verdict",
				       json_is_true(json_object_get(c, "passed")) ? "pass" : "FAIL",
				       "summary", mt_buf_cstr(&b), "rehearsal",
				       json_is_true(json_object_get(c, "rehearsal"))));
		mt_buf_dispose(&b);
	}
	json_decref(all);
	if (!json_array_size(out)) {
		json_decref(out);
		return json_null();
	}
	return out;
}

/* The checks as the report's Correctness section shows them: "evidence",
 * the checks decide counts, and "rehearsals" (stand-ins compared to test
 * the comparison) listed apart, never evidence. null without any check. */
static json_t *correctness_model(json_t *checks)
{
	json_t *evidence, *rehearsals, *c;
	size_t i;

	if (json_is_null(checks))
		return json_null();
	evidence = json_array();
	rehearsals = json_array();
	json_array_foreach(checks, i, c)
		json_array_append(json_is_true(json_object_get(c, "rehearsal")) ? rehearsals : evidence, c);
	return json_pack("{so, so, so, so}", "evidence", evidence, "no_evidence",
			 json_array_size(evidence) ? json_null() : json_true(), "rehearsals", rehearsals,
			 "rehearsal_count",
			 json_array_size(rehearsals) ? json_integer((json_int_t)json_array_size(rehearsals))
						     : json_null());
}

/* Where a run's device count came from, compactly: "trial.yaml" (its
 * system's count x hosts) or "system description FILE" (the file without
 * its directories). */
static json_t *devices_source(json_t *r)
{
	const char *from = json_string_value(json_object_get(r, "devices_from"));
	const char *prefix = "system description ", *base;

	if (!from)
		return json_null();
	if (strncmp(from, prefix, strlen(prefix)) != 0)
		return json_string("trial.yaml");
	base = strrchr(from, '/');
	return json_pack("s+", prefix, base ? base + 1 : from + strlen(prefix));
}

/* The run's setup in one cell: its padding fraction, the compile cache
 * declared and inferred from the log, where its device count came from,
 * and the compilations its steps show; null when the log and the record
 * say none of these. */
static json_t *run_setup(json_t *r)
{
	json_t *pad = json_object_get(json_object_get(json_object_get(r, "metrics"), "steady"),
				      "padding_fraction");
	const char *declared = json_string_value(json_object_get(r, "cache"));
	const char *inferred = json_string_value(json_object_get(r, "cache_inferred"));
	json_t *src = devices_source(r), *out;
	mt_buf b = MT_BUF_INIT;

	if (json_is_number(pad))
		mt_buf_printf(&b, "padding %.3g%%", 100 * json_number_value(pad));
	if (declared || inferred)
		mt_buf_printf(&b, "%scache %s declared, %s in the log%s", b.len ? "; " : "",
			      declared ?: "not", inferred ?: "nothing",
			      json_object_get(r, "cache_warning") ? " (they disagree)" : "");
	if (json_is_string(src))
		mt_buf_printf(&b, "%s%g devices (%s)", b.len ? "; " : "",
			      num(json_object_get(r, "devices")), json_string_value(src));
	if (json_integer_value(mt_json_path(r, "metrics.compiles.count")) > 0)
		mt_buf_printf(&b, "%s%lld compilation%s, %.4g s each, %.0f%% of the attempt",
			      b.len ? "; " : "",
			      (long long)json_integer_value(mt_json_path(r, "metrics.compiles.count")),
			      json_integer_value(mt_json_path(r, "metrics.compiles.count")) == 1 ? "" : "s",
			      num(mt_json_path(r, "metrics.compiles.seconds_each")),
			      100 * num(mt_json_path(r, "metrics.compiles.share")));
	out = b.len ? json_string(mt_buf_cstr(&b)) : json_null();
	json_object_set_new(r, "devices_source", src);
	mt_buf_dispose(&b);
	return out;
}

/* The figures of one run, formatted for the templates. */
static void run_figures(json_t *r, const mt_spec *spec)
{
	const char *outcome;

	mt_runs_flatten(r, spec);
	outcome = json_string_value(json_object_get(r, "outcome")) ?: "";
	json_object_set_new(r, "clock1", fig(json_object_get(r, "clock1_s"), 1));
	json_object_set_new(r, "step", fig(json_object_get(r, "steady_step_s"), 1));
	/* what became of the attempt when it has no time to the target */
	json_object_set_new(r, "to_target",
			    strcmp(outcome, "reached") == 0 ? fig(json_object_get(r, "time_to_target_s"), 1.0 / 60)
			    : strcmp(outcome, "missed") == 0 || strcmp(outcome, "failed") == 0
				? json_string("not reached")
			    : strcmp(outcome, "no_metric") == 0 ? json_string("metric not in the log")
							       : json_null());
	json_object_set_new(r, "mlperf_min", fig(json_object_get(r, "run_minutes"), 1));
	json_object_set_new(r, "to_target_submit",
			    fig(json_object_get(r, "time_to_target_from_submission_s"), 1.0 / 60));
	json_object_set_new(r, "cost_fmt", fig(json_object_get(r, "cost"), 1));
	json_object_set_new(r, "cost_to_target_fmt", fig(json_object_get(r, "cost_to_target"), 1));
	json_object_set_new(r, "device_hours_fmt", fig(json_object_get(r, "device_hours"), 1));
	json_object_set_new(r, "setup", run_setup(r));
}

/* Per system the summary across its runs, formatted for the templates. */
static json_t *systems_model(json_t *runs, const mt_spec *spec)
{
	json_t *systems = mt_runs_by_system(runs, spec), *sys;
	const char *name;

	json_object_foreach(systems, name, sys) {
		json_t *tt = json_object_get(sys, "time_to_target_s");
		if (!json_is_object(sys))
			continue;
		json_object_set_new(sys, "median_min", fig(json_object_get(tt, "median"), 1.0 / 60));
		json_object_set_new(sys, "olympic_min", fig(json_object_get(tt, "olympic_mean"), 1.0 / 60));
		json_object_set_new(sys, "fastest_min", fig(json_object_get(tt, "min"), 1.0 / 60));
		json_object_set_new(sys, "slowest_min", fig(json_object_get(tt, "max"), 1.0 / 60));
		/* MLPerf's own minutes (run_stop - run_start) of the successful runs */
		json_object_set_new(sys, "mlperf_median_min",
				    fig(json_object_get(json_object_get(sys, "run_minutes"), "median"), 1));
		json_object_set_new(sys, "mlperf_olympic_min",
				    fig(json_object_get(json_object_get(sys, "run_minutes"), "olympic_mean"), 1));
		/* the spread of repeated runs, as a share of the median */
		json_object_set_new(sys, "spread_pct",
				    json_integer_value(json_object_get(sys, "reached")) > 1
					    ? fig_of((num(json_object_get(tt, "max")) -
						      num(json_object_get(tt, "min"))) /
							     num(json_object_get(tt, "median")),
						     100)
					    : json_null());
	}
	return systems;
}

/* The boundary every attempt's cost is counted inside, whatever its
 * source (trial/runs.h: accounting). */
#define MT_REPORT_BOUNDARY                                                                         \
	"submission to the end of the attempt: from the process's start (mtrial run) or "          \
	"init_start (an imported log; else its first event) to the process's end or the log's "    \
	"last event, compilation, start-up and failed attempts included"

/* The run's warnings against trial.yaml, "#3: ...", appended to `out`. */
static void run_warnings(json_t *out, json_t *r)
{
	static const char *const keys[] = {"metric_warning", "workload_warning"};

	for (size_t k = 0; k < 2; k++)
		if (json_string_value(json_object_get(r, keys[k])))
			json_array_append_new(out, json_pack("{sI, ss}", "run",
				json_integer_value(json_object_get(r, "id")), "text",
				json_string_value(json_object_get(r, keys[k]))));
}

/* Every run attempt, oldest first, with its two clocks, time and cost to
 * the target, and per system the summary across its runs: "attempts" are
 * the evidence; "rehearsals" (runs that tested the pipeline) are listed
 * apart, never evidence, and not priced. */
static json_t *runs_model(mt_journal *j, const mt_spec *spec)
{
	json_t *runs = mt_journal_runs_json(j, 0), *r, *evidence, *rehearsals, *out, *warnings;
	size_t i, failed = 0, missed = 0, no_metric = 0;

	if (!runs) {
		mt_error_clear();
		return json_null();
	}
	if (!json_array_size(runs)) {
		json_decref(runs);
		return json_null();
	}
	evidence = json_array();
	rehearsals = json_array();
	warnings = json_array();
	json_array_foreach(runs, i, r) {
		const char *outcome;
		run_figures(r, spec);
		if (json_is_true(json_object_get(r, "rehearsal"))) {
			json_array_append(rehearsals, r);
			continue;
		}
		outcome = json_string_value(json_object_get(r, "outcome")) ?: "";
		failed += strcmp(outcome, "failed") == 0;
		missed += strcmp(outcome, "missed") == 0;
		no_metric += strcmp(outcome, "no_metric") == 0;
		run_warnings(warnings, r);
		json_array_append(evidence, r);
	}
	out = json_pack("{so, sI, sI, sI, sI, so, so, so, so, so, so}", "attempts", evidence, "count",
		      (json_int_t)json_array_size(evidence), "failed", (json_int_t)failed, "missed",
		      (json_int_t)missed, "no_metric", (json_int_t)no_metric, "warnings", warnings,
		      "boundary", json_string(MT_REPORT_BOUNDARY),
		      "no_evidence", json_array_size(evidence) ? json_null() : json_true(),
		      "rehearsals", rehearsals, "rehearsal_count",
		      json_array_size(rehearsals) ? json_integer((json_int_t)json_array_size(rehearsals))
						  : json_null(),
		      "systems", systems_model(runs, spec));
	json_decref(runs);
	return out;
}

/* What the runs cost per system: each attempt's hours (submission to its
 * end) at the system's price, split into the part up to the target (from
 * the attempt's start: start-up and compilation are paid for too), the
 * rest of the runs that reached it, the attempts that failed or were
 * aborted, those that finished short of the target, and those that
 * finished without the target's metric in their log (not a failure: the
 * record cannot tell). An attempt without times has no cost and is counted
 * under "unpriced". */
static json_t *costs_model(json_t *runs, const mt_spec *spec)
{
	static const char *const systems[] = {"baseline", "candidate"};
	const char *currency = spec ? mt_spec_get(spec, "accounting.currency") : NULL;
	json_t *out = json_array(), *r;
	size_t i;

	for (size_t s = 0; s < 2; s++) {
		double to = 0, after = 0, failed = 0, short_of = 0, no_metric = 0;
		json_int_t attempts = 0, unpriced = 0;
		json_array_foreach(json_object_get(runs, "attempts"), i, r) {
			double cost = num(json_object_get(r, "cost"));
			const char *outcome = json_string_value(json_object_get(r, "outcome")) ?: "";
			if (strcmp(json_string_value(json_object_get(r, "system")) ?: "", systems[s]) != 0)
				continue;
			attempts++;
			if (!isfinite(cost)) {
				unpriced++;
			} else if (strcmp(outcome, "reached") == 0) {
				/* spent up to the target inside the same boundary */
				double t = num(json_object_get(r, "cost_to_target"));
				t = isfinite(t) ? fmin(t, cost) : 0;
				to += t;
				after += cost - t;
			} else if (strcmp(outcome, "no_metric") == 0 || strcmp(outcome, "no_target") == 0) {
				no_metric += cost;
			} else if (strcmp(outcome, "missed") == 0) {
				short_of += cost;
			} else {
				failed += cost; /* failed, aborted, lost, or still running */
			}
		}
		if (attempts)
			json_array_append_new(out, json_pack("{ss, sI, sI, sf, sf, sf, sf, sf, so, so, so, so, so, so}",
				"system", systems[s], "attempts", attempts, "unpriced", unpriced,
				"to_target", to, "after_target", after, "failed", failed, "short", short_of,
				"no_metric", no_metric, "to_target_fmt", fig_of(to, 1), "after_target_fmt",
				fig_of(after, 1), "failed_fmt", fig_of(failed, 1), "short_fmt",
				fig_of(short_of, 1), "no_metric_fmt", fig_of(no_metric, 1), "total_fmt",
				fig_of(to + after + failed + short_of + no_metric, 1)));
	}
	if (!currency && spec)
		currency = mt_spec_get(spec, "systems.candidate.price.currency");
	return json_pack("{ss?, so}", "currency", currency, "systems", out);
}

/* The go/no-go decision (trial/decide.h) with labels for the templates, or
 * why there is none. */
static json_t *decision_model(mt_trial *t, int64_t now_ms)
{
	json_t *d = NULL, *c, *item;
	const char *v;
	size_t i;

	if (!t->spec)
		return json_pack("{ss}", "error", "trial.yaml could not be read");
	if (mt_decide(&d, t, now_ms) < 0) {
		json_t *err = json_pack("{ss}", "error", mt_error_last());
		mt_error_clear();
		return err;
	}
	v = json_string_value(json_object_get(d, "verdict"));
	json_object_set_new(d, "verdict_class",
			    json_string(!v ? "unknown" : strcmp(v, MT_VERDICT_GO) == 0 ? "go"
				       : strcmp(v, MT_VERDICT_NO_GO) == 0 ? "no-go"
				       : strcmp(v, MT_VERDICT_GO_WITH_CONDITIONS) == 0 ? "conditions"
										       : "unknown"));
	/* the main caveat is the first: the templates list the others apart,
	 * or it would be printed twice */
	json_object_set_new(d, "other_caveats", c = json_array());
	json_array_foreach(json_object_get(d, "caveats"), i, item)
		if (i > 0)
			json_array_append(c, item);
	json_array_foreach(json_object_get(d, "criteria"), i, c) {
		const char *st = json_string_value(json_object_get(c, "status")) ?: "unknown";
		json_object_set_new(c, "status_label", json_string(strcmp(st, "not_met") == 0 ? "NOT MET"
								   : strcmp(st, "met") == 0  ? "met"
											     : "unknown"));
	}
	return d;
}

/* {path, mark, note} of a file marked in a track (a changed file, or a
 * stale mark's journal row). */
static json_t *mark_item(json_t *f, const char *note_key)
{
	return json_pack("{sO, sO, sO}", "path", json_object_get(f, "path"), "mark",
			 json_object_get(f, "mark"), "note",
			 json_object_get(f, note_key) ?: json_null());
}

/* One track of mt_tracks_json as the report shows it: name, base, head,
 * totals (with by_mark) and the marked files with their notes, or
 * "unknown" saying why the changes are not known; stale_marks either way. */
static json_t *track_item(json_t *tr)
{
	json_t *changes = json_object_get(tr, "changes"), *marked = json_array(), *stale = json_array();
	json_t *out = json_pack("{sO}", "name", json_object_get(tr, "name")), *f;
	size_t i;

	json_array_foreach(json_object_get(changes, "files"), i, f)
		if (json_is_string(json_object_get(f, "mark")))
			json_array_append_new(marked, mark_item(f, "mark_note"));
	json_array_foreach(json_object_get(tr, "stale_marks"), i, f)
		json_array_append_new(stale, mark_item(f, "note"));
	json_object_set_new(out, "marked", marked);
	json_object_set_new(out, "stale_marks", stale);
	if (json_is_object(changes)) {
		json_object_set(out, "totals", json_object_get(changes, "totals"));
		json_object_set(out, "base", json_object_get(tr, "base"));
		json_object_set(out, "head", json_object_get(tr, "head"));
	} else if (json_is_string(json_object_get(tr, "error"))) {
		json_object_set(out, "unknown", json_object_get(tr, "error"));
	} else {
		json_object_set_new(out, "unknown", json_string("no base and head in trial.yaml"));
	}
	return out;
}

/* Each track's code changes (base..head of trial.yaml) with the files the
 * team marked reusable or model-specific, or why they are not known: what
 * `mtrial tracks --json` says (mt_tracks_json), cut to what the report
 * shows. */
static json_t *tracks_model(mt_trial *t, int64_t now_ms)
{
	mt_change_rules *rules = NULL;
	json_t *all = NULL, *out, *tr;
	size_t i;

	if (!t->spec || mt_change_rules_load(&rules) < 0 ||
	    mt_tracks_json(&all, t, rules, now_ms) < 0) {
		mt_error_clear();
		mt_change_rules_free(rules);
		return json_null();
	}
	mt_change_rules_free(rules);
	out = json_array();
	json_array_foreach(all, i, tr)
		json_array_append_new(out, track_item(tr));
	json_decref(all);
	return out;
}

/* The latest probe: the table it used, blockers first, unknowns as open
 * questions, by API when the table listed APIs (listed_by), else by op;
 * each entry's `name` is what it is listed by, `api_op` an API's aten op.
 * Entries on the device under a condition (a process group, a dtype) are
 * also in device_conditional, the others the team's override put there in
 * device_override. Call sites are cut to a few per entry. */
static json_t *probe_model(mt_journal *j)
{
	json_t *r = NULL, *by = json_object(), *o, *list;
	int64_t id = 0, created = 0;
	char when[32];
	size_t i;
	int by_api;

	if (mt_journal_probe_latest(j, &r, &id, &created) < 0) {
		mt_error_clear();
		json_decref(by);
		return json_null();
	}
	by_api = !strcmp(json_string_value(json_object_get(r, "listed_by")) ?: "op", "api");
	json_array_foreach(json_object_get(r, by_api ? "apis" : "ops"), i, o) {
		const char *st = json_string_value(json_object_get(o, "status"));
		json_t *locs = json_object_get(o, "locations");
		if (!(list = json_object_get(by, st)))
			json_object_set_new(by, st, list = json_array());
		json_array_append(list, o);
		if (!strcmp(st, "device") && json_array_size(json_object_get(o, "conditions"))) {
			if (!(list = json_object_get(by, "device_conditional")))
				json_object_set_new(by, "device_conditional", list = json_array());
			json_array_append(list, o);
		} else if (!strcmp(st, "device") &&
			   !strncmp(json_string_value(json_object_get(o, "source")) ?: "",
				    "override:", 9)) {
			if (!(list = json_object_get(by, "device_override")))
				json_object_set_new(by, "device_override", list = json_array());
			json_array_append(list, o);
		}
		while (json_array_size(locs) > 3)
			json_array_remove(locs, json_array_size(locs) - 1);
		json_object_set(o, "name", json_object_get(o, by_api ? "api" : "op"));
		if (by_api && json_is_string(json_object_get(o, "op")))
			json_object_set(o, "api_op", json_object_get(o, "op"));
	}
	mt_time_iso(when, sizeof(when), created);
	json_object_set_new(r, "id", json_integer(id));
	json_object_set_new(r, "created", json_string(when));
	json_object_set_new(r, "by_status", by);
	json_object_set_new(r, "by_api", json_boolean(by_api));
	return r;
}

/* The Summary step's status: done with a verdict, partial when the verdict
 * is that evidence is missing, empty when there is no decision. */
static const char *summary_status(json_t *decision)
{
	const char *v = json_string_value(json_object_get(decision, "verdict"));
	if (!v)
		return "empty";
	return strcmp(v, MT_VERDICT_NOT_ENOUGH_EVIDENCE) == 0 ? "partial" : "done";
}

/* 0 no check, 1 only rehearsal checks, 2 a check that is evidence. */
static int checks_state(json_t *checks)
{
	json_t *c;
	size_t i;
	int state = 0;

	json_array_foreach(checks, i, c)
		if ((state = json_is_true(json_object_get(c, "rehearsal")) ? 1 : 2) == 2)
			break;
	return state;
}

static json_t *steps_model(json_t *effort, json_t *notes, const mt_spec *spec, json_t *scan,
			   int probed, int checked, int ran, json_t *decision)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const char *status = "empty", *verdict = NULL;
		if (strcmp(steps[i].id, "effort") == 0 &&
		    (json_array_size(json_object_get(effort, "intervals")) ||
		     json_array_size(notes)))
			status = "partial";
		if (strcmp(steps[i].id, "repository") == 0 && spec &&
		    mt_spec_get(spec, "workload.repository"))
			status = "partial";
		if (strcmp(steps[i].id, "repository") == 0 && !json_is_null(scan))
			status = "done";
		if (strcmp(steps[i].id, "ops") == 0 && probed)
			status = "done";
		if (strcmp(steps[i].id, "correctness") == 0 && checked)
			status = checked > 1 ? "done" : "partial"; /* partial: rehearsals alone */
		if (strcmp(steps[i].id, "runs") == 0 && ran)
			status = "partial"; /* done once clocks and time to quality are known */
		if (strcmp(steps[i].id, "summary") == 0) {
			status = summary_status(decision);
			verdict = json_string_value(json_object_get(decision, "headline"));
		}
		json_array_append_new(arr, json_pack("{ss, ss, ss, ss, ss*}", "id", steps[i].id,
						     "title", steps[i].title, "status", status,
						     "hint", steps[i].empty_hint, "verdict", verdict));
	}
	return arr;
}

/* The records withdrawn with `mtrial rm`, apart: left out of every figure
 * above (the journal's listings filter them), listed with who and why. */
static json_t *with_withdrawn(mt_journal *j, json_t *model)
{
	json_t *w = model ? mt_journal_withdrawals_json(j) : NULL;

	if (model)
		json_object_set_new(model, "withdrawn", w ? w : json_array());
	return model;
}

/* workload.repository as the path it names, when trial.yaml gives it
 * relative (".." from .mtrial/), so that the report names the folder, not
 * ".."; null when it is absolute, a URL, or not given. */
static json_t *resolved_repository(const mt_trial *t)
{
	const char *r = t->spec ? mt_spec_get(t->spec, "workload.repository") : NULL;
	char *abs = r && r[0] != '/' ? mt_trial_repository(t) : NULL;
	json_t *v = abs ? json_string(abs) : json_null();

	free(abs);
	return v ? v : json_null();
}

json_t *mt_report_model(mt_trial *t, int64_t now_ms)
{
	char iso[32];
	const char *name = t->spec ? mt_spec_get(t->spec, "name") : NULL;
	json_t *spec = t->spec ? mt_spec_to_json(t->spec) : json_null();
	json_t *effort = effort_model(t->journal, now_ms);
	json_t *notes = effort ? mt_journal_notes_json(t->journal) : NULL;
	json_t *scan, *probe, *checks, *runs, *decision;

	if (!effort || !notes) {
		json_decref(spec);
		json_decref(effort);
		return NULL;
	}
	scan = scan_model(t->journal);
	probe = probe_model(t->journal);
	checks = checks_model(t->journal);
	runs = runs_model(t->journal, t->spec);
	decision = decision_model(t, now_ms);
	mt_time_iso(iso, sizeof(iso), now_ms);
	return with_withdrawn(t->journal,
			      json_pack("{s{ss, si}, ss, s{ss, ss?, so}, so, so, so, so, so, so, so, so, so, so, so, so, "
			 "so, so, so, so}",
			 "mtrial",
			 "version", MT_VERSION, "journal_schema",
			 mt_journal_schema_version(t->journal), "generated", iso, "trial", "dir",
			 t->dir, "name", name, "repository", resolved_repository(t), "spec", spec, "decision", decision,
			 "effort", effort, "notes", notes,
			 "note_count", json_integer((json_int_t)json_array_size(notes)), "missing",
			 missing_facts(t->spec), "scan", scan, "exact", exact_sources(t->journal),
			 "probe", probe, "checks", checks, "correctness", correctness_model(checks),
			 "costs", costs_model(runs, t->spec), "compilation", mt_report_compilation(t, runs),
			 "runs", runs,
			 "tracks", tracks_model(t, now_ms), "steps",
			 steps_model(effort, notes, t->spec, scan, !json_is_null(probe),
				     checks_state(checks), !json_is_null(runs), decision)));
}
