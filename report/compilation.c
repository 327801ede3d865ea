/* The report's "Compilation and shapes" section (see compilation.h). Every
 * figure comes from trial/econ.c, the same functions `mtrial buckets` and
 * `mtrial breakeven` call; what cannot be worked out says why. */
#include "compilation.h"

#include "econ.h"
#include "error.h"
#include "runview.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *rounded(double v, double unit)
{
	return isfinite(v) ? json_real(round(v / unit) * unit) : json_null();
}

/* The attempts that are evidence with the compilations their logs show. */
static json_t *runs_compiles(const mt_run_view *runs, size_t n)
{
	json_t *out = json_array();

	for (size_t i = 0; i < n; i++) {
		const mt_run_view *v = &runs[i];
		const mt_run_compiles_view *c = &v->figures.compiles;
		if (!c->known)
			continue;
		/* each_s: a count from the compile cache alone has no time, said 0 s */
		json_array_append_new(
		    out, json_pack("{s:I, s:s?, s:I, s:o, s:o, s:o, s:s?}", "id", (json_int_t)v->id,
		                   "system", v->system, "count", (json_int_t)c->count, "each_s",
		                   rounded(isnan(c->seconds_each) ? 0 : c->seconds_each, 0.1),
		                   "total_s", rounded(c->seconds_total, 0.1), "share_pct",
		                   rounded(100 * c->share, 0.1), "from", c->from));
	}
	if (!json_array_size(out)) {
		json_decref(out);
		return json_null();
	}
	return out;
}

static json_t *side_json(const mt_breakeven_side *s)
{
	return json_pack("{s:o, s:o, s:o}", "start_s", rounded(s->clock1_s, 0.1), "step_s",
	                 rounded(s->step_s, 1e-4), "hourly_cost", rounded(s->price_per_hour, 0.01));
}

/* One pair of topologies' break-even for the templates. */
static json_t *pair_json(const mt_econ_breakeven_pair *p, const mt_breakeven *r)
{
	char label[96];

	mt_econ_breakeven_pair_label(p, label, sizeof(label));
	return json_pack("{s:s, s:o, s:o, s:s, s:s, s:s?, s:o, s:s?, s:s?, s:o, s:o, s:O}",
	                 "topology", label, "steps",
	                 isfinite(r->steps) ? json_integer((json_int_t)r->steps) : json_null(), "hours",
	                 rounded(r->hours_baseline, 0.01), "winner_before", r->winner_before,
	                 "winner_after", r->winner_after, "reason", r->reason, "cost_steps",
	                 isfinite(r->cost_steps) ? json_integer((json_int_t)r->cost_steps) : json_null(),
	                 "cost_winner_after", r->cost_winner_after, "cost_reason", r->cost_reason,
	                 "baseline", side_json(&p->side[0]), "candidate", side_json(&p->side[1]),
	                 "runs", p->runs);
}

/* The break-even from the trial's runs of one design, one per pair of
 * topologies (never pooled), or why there is none into *why. */
static json_t *breakeven(mt_trial *t, const char *design, json_t **why)
{
	mt_econ_breakeven_sides_result sides;
	mt_breakeven r;
	json_t *out = json_array();

	if (mt_econ_breakeven_sides(&sides, t, design) < 0) {
		*why = json_string(mt_error_last());
		mt_error_clear();
		json_decref(out);
		return json_null();
	}
	for (size_t i = 0; i < sides.n; i++)
		if (mt_econ_breakeven_pair_compute(&r, &sides.pairs[i]) == 0)
			json_array_append_new(out, pair_json(&sides.pairs[i], &r));
		else
			mt_error_clear(); /* a side that is not a number: that pair has none */
	mt_econ_breakeven_sides_dispose(&sides);
	if (!json_array_size(out)) {
		*why = json_string("no pair of topologies has figures to compare");
		json_decref(out);
		return json_null();
	}
	return out;
}

static json_t *plan_json(const mt_bucket_plan *p)
{
	char buf[160];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n_buckets && len < sizeof(buf) - 24; i++) {
		if (i == 8 && p->n_buckets > 9) {
			snprintf(buf + len, sizeof(buf) - len, ", ... (%zu in all)", p->n_buckets);
			break;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%lld", i ? ", " : "",
		                        (long long)p->buckets[i]);
	}
	return json_pack("{s:s, s:I, s:o, s:o}", "buckets", buf, "compiles", (json_int_t)p->n_buckets,
	                 "predicted_s", rounded(p->predicted_s, 0.1), "padding_pct",
	                 rounded(100 * p->padding_fraction, 0.1));
}

/* How many candidate runs' logs the bucket advice reads, newest first, for
 * one that gives its steps' lengths: a log that prints none is a training
 * script's habit, and reading a thousand logs for it made a large trial's
 * report slow. */
#define BUCKET_LOGS_TRIED 5

/* The bucket advice from the newest candidate run of one design whose log
 * gives its steps' lengths (of the newest BUCKET_LOGS_TRIED), with the
 * median compilation of the candidate's runs of that design and a fit of
 * that run's steps; why not into *why. */
static json_t *buckets(mt_trial *t, const mt_run_view *runs, size_t n, const char *design,
                       json_t **why)
{
	json_t *out = NULL;
	mt_econ_buckets_req req = {
	    .multiple = 1, .compile_auto = 1, .step_auto = 1, .design = design};
	mt_econ_buckets_result res;
	size_t tried = 0;

	for (size_t i = n; i-- > 0 && !out;) {
		if (!runs[i].system || strcmp(runs[i].system, "candidate") != 0)
			continue;
		if (strcmp(runs[i].design ? runs[i].design : "matched", design) != 0)
			continue; /* another experiment: its own advice */
		if (tried++ == BUCKET_LOGS_TRIED) {
			char *last = mt_strdup(json_string_value(*why) ? json_string_value(*why) : "");
			json_decref(*why);
			*why = json_sprintf("the newest %d candidate runs give no bucket advice "
					    "(the oldest of them, %s); `mtrial buckets --from run:ID` "
					    "reads an older one",
					    BUCKET_LOGS_TRIED, last);
			free(last);
			break;
		}
		req.from_run = runs[i].id;
		json_decref(*why);
		if (mt_econ_buckets(&res, t, &req) < 0) {
			*why = json_string(mt_error_last());
			mt_error_clear();
			continue;
		}
		*why = NULL;
		out = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:O, s:o, s:{s:f, s:f, s:f}, s:I}",
		                "run",
		                (json_int_t)req.from_run, "best", plan_json(&res.advice.best),
		                "pad_to_max", plan_json(&res.advice.pad_to_max), "per_length",
		                plan_json(&res.advice.per_length), "saving_s",
		                rounded(fmin(res.advice.pad_to_max.predicted_s,
		                             res.advice.per_length.predicted_s) -
		                            res.advice.best.predicted_s,
		                        0.1),
		                "compile_s", rounded(res.used.compile_s, 0.1), "compile_runs",
		                res.compile_runs, "compile_left_out",
		                res.compile_left_out ? json_integer((json_int_t)res.compile_left_out)
		                                     : json_null(),
		                "step", "a", res.used.a, "b", res.used.b, "c", res.used.c,
		                "steps", (json_int_t)res.advice.steps);
		mt_econ_buckets_dispose(&res);
	}
	if (!out && !*why)
		*why = json_sprintf("no candidate run of the %s design is recorded as evidence",
		                    design);
	return out ? out : json_null();
}

/* The median step count of the runs that are evidence: the trial's own run
 * length, marked on the chart. */
static json_t *run_length(const mt_run_view *runs, size_t nruns)
{
	double *v = malloc((nruns + 1) * sizeof(*v));
	size_t n = 0;
	json_t *out;

	if (!v)
		return json_null();
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].figures.steps > 0)
			v[n++] = (double)runs[i].figures.steps;
	out = n ? json_integer((json_int_t)mt_median(v, n)) : json_null();
	free(v);
	return out;
}

/* How many of the attempts are of the best design. */
static size_t best_runs(const mt_run_view *runs, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += runs[i].design && strcmp(runs[i].design, "best") == 0;
	return k;
}

/* The break-even and the bucket advice of one design's runs. */
static json_t *design_figures(mt_trial *t, const mt_run_view *attempts, size_t n,
                              const char *design)
{
	json_t *be_why = NULL, *bk_why = NULL, *be, *bk;
	int best = strcmp(design, "best") == 0;

	be = breakeven(t, design, &be_why);
	bk = buckets(t, attempts, n, design, &bk_why);
	/* every key set, null too: the best recipe's section never reads the
	 * matched design's through the template's outward lookup */
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "design", design, "other_design",
	                 best ? "matched" : "best-recipe", "design_option",
	                 best ? json_string("--design best") : json_null(), "breakeven", be,
	                 "breakeven_missing", be_why ? be_why : json_null(), "buckets", bk,
	                 "buckets_missing", bk_why ? bk_why : json_null());
}

json_t *mt_report_compilation(mt_trial *t, const mt_run_view *attempts, size_t n)
{
	json_t *out, *best = NULL;

	if (!n)
		return json_null();
	out = json_pack("{s:o}", "runs", runs_compiles(attempts, n));
	if (!out || json_object_update_new(out, design_figures(t, attempts, n, "matched")) < 0 ||
	    json_object_set_new(out, "run_length_steps", run_length(attempts, n)) < 0) {
		json_decref(out);
		return json_null();
	}
	/* the best recipe's runs are another experiment: figures of their own,
	 * labelled, never pooled with the matched ones */
	if (best_runs(attempts, n)) {
		best = design_figures(t, attempts, n, "best");
		if (best)
			json_object_set_new(best, "run_count",
			                    json_integer((json_int_t)best_runs(attempts, n)));
	}
	json_object_set_new(out, "best_recipe", best ? best : json_null());
	return out;
}
