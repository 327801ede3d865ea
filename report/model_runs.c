/* The report model's sections over the run attempts, their costs and the
 * go/no-go decision. */
#include "model_int.h"
#include "error.h"
#include "jsonutil.h"
#include "compilation.h"
#include "decide.h"
#include "decide_view.h"
#include "decision.h"
#include "runs.h"
#include "runview.h"

#include <string.h>

/* Where a run's device count came from, compactly: "trial.yaml" (its
 * system's count x hosts or topologies), "system description FILE" (the
 * file without its directories), or the flag or launcher as recorded
 * ("--devices", "torchrun --nproc-per-node x --nnodes=2"). */
static json_t *devices_source(const mt_run_view *r)
{
	const char *from = r->devices.from;
	const char *prefix = "system description ", *base;

	if (!from)
		return json_null();
	if (strncmp(from, "trial.yaml", 10) == 0)
		return json_string("trial.yaml");
	if (strncmp(from, prefix, strlen(prefix)) != 0)
		return json_string(from);
	base = strrchr(from, '/');
	return json_pack("s+", prefix, base ? base + 1 : from + strlen(prefix));
}

/* The run's setup in one cell: its padding fraction, the compile cache
 * declared and inferred from the log, where its device count came from,
 * and the compilations its steps show; null when the log and the record
 * say none of these. */
static json_t *run_setup(json_t *r, const mt_run_view *v)
{
	const mt_run_compiles_view *c = &v->figures.compiles;
	json_t *src = devices_source(v), *out;
	mt_buf b = MT_BUF_INIT;

	if (!isnan(v->figures.padding_fraction))
		mt_buf_printf(&b, "padding %.3g%%", 100 * v->figures.padding_fraction);
	if (v->cache || v->cache_inferred)
		mt_buf_printf(&b, "%scache %s declared, %s in the log%s", b.len ? "; " : "",
			      v->cache ?: "not", v->cache_inferred ?: "nothing",
			      v->cache_warning ? " (they disagree)" : "");
	if (json_is_string(src))
		mt_buf_printf(&b, "%s%g devices (%s)", b.len ? "; " : "", v->devices.count,
			      json_string_value(src));
	if (c->count > 0)
		mt_buf_printf(&b, "%s%lld compilation%s, %.4g s each, %.0f%% of the attempt",
			      b.len ? "; " : "", (long long)c->count, c->count == 1 ? "" : "s",
			      c->seconds_each, 100 * c->share);
	out = b.len ? json_string(mt_buf_cstr(&b)) : json_null();
	json_object_set_new(r, "devices_source", src);
	mt_buf_dispose(&b);
	return out;
}

/* The figures of one run, formatted for the templates. */
static void run_figures(json_t *r, const mt_spec *spec)
{
	const char *outcome;
	mt_run_view v;

	(void)spec; /* r is flattened with it (mt_runs_standing) */
	(void)mt_runview_read(&v, r);
	mt_error_clear(); /* a key missing: its figure unknown, as before */
	outcome = v.outcome ?: "";
	/* the view borrows from r: every figure is made before r changes */
	json_t *clock1 = fig_of(v.clock1_s, 1), *step = fig_of(v.steady_step_s, 1);
	/* what became of the attempt when it has no time to the target */
	json_t *to_target = strcmp(outcome, "reached") == 0 ? fig_of(v.time_to_target_s, 1.0 / 60)
			    : strcmp(outcome, "missed") == 0 || strcmp(outcome, "failed") == 0
				? json_string("not reached")
			    : strcmp(outcome, "no_metric") == 0 ? json_string("metric not in the log")
							       : json_null();
	json_t *setup = run_setup(r, &v);

	json_object_set_new(r, "clock1", clock1);
	json_object_set_new(r, "step", step);
	json_object_set_new(r, "to_target", to_target);
	json_object_set_new(r, "mlperf_min", fig_of(v.run_minutes, 1));
	json_object_set_new(r, "to_target_submit", fig_of(v.time_to_target_from_submission_s, 1.0 / 60));
	json_object_set_new(r, "cost_fmt", fig_of(v.devices.cost, 1));
	json_object_set_new(r, "cost_to_target_fmt", fig_of(v.devices.cost_to_target, 1));
	json_object_set_new(r, "device_hours_fmt", fig_of(v.devices.device_hours, 1));
	json_object_set_new(r, "setup", setup);
}

/* Per system the summary across its runs (mt_runs_by_system: the matched
 * design's, and the best-recipe runs' in systems.best), formatted for the
 * templates. */
static void systems_format(json_t *systems)
{
	json_t *sys;
	const char *name;
	mt_run_system_view v;

	json_object_foreach(systems, name, sys) {
		const mt_run_spread *tt = &v.time_to_target_s;
		if (strcmp(name, "best") == 0) {
			systems_format(sys);
			continue;
		}
		(void)mt_runview_system(&v, systems, name);
		if (!v.known)
			continue;
		json_object_set_new(sys, "median_min", fig_of(tt->median, 1.0 / 60));
		json_object_set_new(sys, "olympic_min", fig_of(tt->olympic_mean, 1.0 / 60));
		json_object_set_new(sys, "fastest_min", fig_of(tt->min, 1.0 / 60));
		json_object_set_new(sys, "slowest_min", fig_of(tt->max, 1.0 / 60));
		/* MLPerf's own minutes (run_stop - run_start) of the successful runs */
		json_object_set_new(sys, "mlperf_median_min", fig_of(v.run_minutes.median, 1));
		json_object_set_new(sys, "mlperf_olympic_min", fig_of(v.run_minutes.olympic_mean, 1));
		/* the spread of repeated runs, as a share of the median */
		json_object_set_new(sys, "spread_pct",
				    v.reached > 1 ? fig_of((tt->max - tt->min) / tt->median, 100)
						  : json_null());
	}
	mt_error_clear();
}

static json_t *systems_model(json_t *runs, const mt_spec *spec)
{
	json_t *systems = mt_runs_by_system(runs, spec);

	systems_format(systems);
	return systems;
}

/* The two designs (issue 20), as two labelled comparisons: each with its
 * recipes side by side (trial.yaml's precision for both systems, or each
 * system's precision.best), its systems' figures (never pooled with the
 * other design's), "not run" when no run of it is evidence, and the
 * systems whose fastest run by throughput missed the target. */
static json_t *designs_model(json_t *evidence, json_t *systems, const mt_spec *spec)
{
	static const char *const keys[] = {"weights", "activations", "gradients", "optimizer_state",
					   "accumulation"};
	static const char *const names[] = {"matched", "best"};
	static const char *const titles[] = {
		"Implementation efficiency under a matched numerical recipe",
		"Practical performance with each platform's best supported recipe"};
	static const char *const whys[] = {
		"The same formats on both systems, wherever both support them: it compares the "
		"implementations; if it leaves useful hardware features idle, that is a limit of "
		"this comparison, not proof that the platform lacks potential",
		"Each system on its best supported recipe: it counts only where both reach the same "
		"independently measured quality target"};
	json_t *out = json_array();

	for (size_t d = 0; d < 2; d++) {
		json_t *recipe = json_array(), *missed, *m, *r, *notes = json_array();
		json_t *sys = d ? json_object_get(systems, "best") : systems;
		size_t i, n = 0, of[2] = {0, 0};
		for (size_t s = 0; s < 2; s++) {
			const char *system = s ? "candidate" : "baseline";
			json_t *row = json_pack("{ss}", "system", system);
			for (size_t k = 0; k < 5; k++) {
				char path[64];
				const char *v;
				if (d)
					snprintf(path, sizeof(path), "precision.best.%s.%s", system, keys[k]);
				else
					snprintf(path, sizeof(path), "precision.%s", keys[k]);
				v = spec ? mt_spec_get(spec, path) : NULL;
				json_object_set_new(row, keys[k], json_string(v ? v : "not set"));
			}
			json_array_append_new(recipe, row);
		}
		json_array_foreach(evidence, i, r)
			if (strcmp(json_string_value(json_object_get(r, "design")) ?: "matched",
				   names[d]) == 0) {
				n++;
				of[strcmp(json_string_value(json_object_get(r, "system")) ?: "",
					  "candidate") == 0]++;
			}
		missed = mt_runs_fastest_missed(evidence, names[d]);
		json_array_foreach(missed, i, m) {
			char text[300];
			snprintf(text, sizeof(text), "the %s's fastest run by throughput, #%lld (%.4g %s), "
				 "missed the quality target: it has not won the time-to-quality "
				 "comparison, and no figure to the target counts it",
				 json_string_value(json_object_get(m, "system")),
				 (long long)json_integer_value(json_object_get(m, "run")),
				 json_number_value(json_object_get(m, "throughput")),
				 json_string_value(json_object_get(m, "unit")) ?: "");
			json_array_append_new(notes, json_string(text));
		}
		json_decref(missed);
		json_array_append_new(out, json_pack("{ss, ss, ss, so, sI, so, so, sO, so}", "name", names[d],
						     "title", titles[d], "why", whys[d], "recipe", recipe,
						     "runs", (json_int_t)n, "not_run",
						     n ? json_null() : json_true(), "lacks",
						     !n || (of[0] && of[1]) ? json_null()
						     : json_string(of[0] ? "candidate" : "baseline"),
						     "systems",
						     n && sys ? sys : json_null(), "fastest_missed",
						     notes));
	}
	return out;
}

/* The boundary every attempt's cost is counted inside, whatever its
 * source (trial/runs.h: accounting). */
#define MT_REPORT_BOUNDARY                                                                         \
	"submission to the end of the attempt: from the process's start (mtrial run) or "          \
	"init_start (an imported log; else its first event) to the process's end or the log's "    \
	"last event, compilation, start-up and failed attempts included"

/* The run's warnings against trial.yaml, "#3: ...", appended to `out`. */
static void run_warnings(json_t *out, const mt_run_view *r)
{
	const char *texts[] = {r->metric_warning, r->workload_warning};

	for (size_t k = 0; k < 2; k++)
		if (texts[k])
			json_array_append_new(out, json_pack("{sI, ss}", "run", (json_int_t)r->id,
							     "text", texts[k]));
}

/* Every run attempt, oldest first, with its two clocks, time and cost to
 * the target, and per system the summary across its runs: "attempts" are
 * the evidence; "rehearsals" (runs that tested the pipeline) are listed
 * apart, never evidence, and not priced. */
json_t *mt_model_runs_list(mt_trial *t, json_t **attempts)
{
	const mt_spec *spec = t->spec;
	json_t *standing = mt_runs_standing(t), *runs, *r, *evidence, *rehearsals, *out, *warnings;
	json_t *systems;
	size_t i, failed = 0, missed = 0, no_metric = 0;

	*attempts = NULL;

	if (!standing) {
		mt_error_clear();
		return json_null();
	}
	if (!json_array_size(standing)) {
		json_decref(standing);
		return json_null();
	}
	/* the runs are shared (mt_runs_standing): each is copied to take the
	 * figures formatted for the page */
	runs = json_array();
	json_array_foreach(standing, i, r)
		json_array_append_new(runs, json_copy(r));
	json_decref(standing);
	evidence = json_array();
	rehearsals = json_array();
	warnings = json_array();
	json_array_foreach(runs, i, r) {
		const char *outcome;
		mt_run_view v;
		run_figures(r, spec);
		(void)mt_runview_read(&v, r);
		if (v.rehearsal) {
			json_array_append(rehearsals, r);
			continue;
		}
		outcome = v.outcome ?: "";
		failed += strcmp(outcome, "failed") == 0;
		missed += strcmp(outcome, "missed") == 0;
		no_metric += strcmp(outcome, "no_metric") == 0;
		run_warnings(warnings, &v);
		json_array_append(evidence, r);
	}
	mt_error_clear();
	systems = systems_model(runs, spec);
	out = json_pack("{so, sI, sI, sI, sI, so, so, so, so, so, so, so}", "attempts", evidence, "count",
		      (json_int_t)json_array_size(evidence), "failed", (json_int_t)failed, "missed",
		      (json_int_t)missed, "no_metric", (json_int_t)no_metric, "warnings", warnings,
		      "boundary", json_string(MT_REPORT_BOUNDARY),
		      "no_evidence", json_array_size(evidence) ? json_null() : json_true(),
		      "rehearsals", rehearsals, "rehearsal_count",
		      json_array_size(rehearsals) ? json_integer((json_int_t)json_array_size(rehearsals))
						  : json_null(),
		      "designs", designs_model(evidence, systems, spec), "systems", systems);
	json_decref(runs);
	*attempts = out ? evidence : NULL;
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
json_t *mt_model_runs_costs(json_t *runs, const mt_spec *spec)
{
	static const char *const systems[] = {"baseline", "candidate"};
	const char *currency = spec ? mt_spec_get(spec, "accounting.currency") : NULL;
	json_t *out = json_array(), *r;
	size_t i;

	for (size_t s = 0; s < 2; s++) {
		double to = 0, after = 0, failed = 0, short_of = 0, no_metric = 0;
		json_int_t attempts = 0, unpriced = 0;
		json_array_foreach(runs, i, r) {
			mt_run_view v;
			(void)mt_runview_read(&v, r);
			double cost = v.devices.cost;
			const char *outcome = v.outcome ?: "";
			if (strcmp(v.system ?: "", systems[s]) != 0)
				continue;
			attempts++;
			if (!isfinite(cost)) {
				unpriced++;
			} else if (strcmp(outcome, "reached") == 0) {
				/* spent up to the target inside the same boundary */
				double t = v.devices.cost_to_target;
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
json_t *mt_model_runs_decision(mt_trial *t, int64_t now_ms)
{
	json_t *d = NULL, *c;
	mt_decision_view dv;
	mt_criterion_view cv;
	const char *v;
	size_t i;

	if (!t->spec)
		return json_pack("{ss}", "error", "trial.yaml could not be read");
	if (mt_decision(&d, t, now_ms) < 0) {
		json_t *err = json_pack("{ss}", "error", mt_error_last());
		mt_error_clear();
		return err;
	}
	(void)mt_decide_view_read(&dv, d); /* mt_decide's own: complete */
	v = dv.verdict;
	json_object_set_new(d, "verdict_class",
			    json_string(!v ? "unknown" : strcmp(v, MT_VERDICT_GO) == 0 ? "go"
				       : strcmp(v, MT_VERDICT_NO_GO) == 0 ? "no-go"
				       : strcmp(v, MT_VERDICT_GO_WITH_CONDITIONS) == 0 ? "conditions"
										       : "unknown"));
	/* the main caveat is the first: the templates list the others apart,
	 * or it would be printed twice */
	c = json_array();
	for (i = 1; i < dv.n_caveats; i++)
		json_array_append_new(c, json_string(mt_decide_view_caveat(&dv, i)));
	for (i = 0; mt_decide_view_criterion(&cv, &dv, i) != MT_ENOTFOUND; i++)
		json_object_set_new(json_array_get(dv.criteria, i), "status_label",
				    json_string(cv.state == MT_CRITERION_NOT_MET ? "NOT MET"
						: cv.state == MT_CRITERION_MET	 ? "met"
										 : "unknown"));
	json_object_set_new(d, "other_caveats", c);
	mt_error_clear();
	return d;
}
