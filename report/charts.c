#include "charts.h"
#include "error.h"
#include "jsonutil.h"
#include "probe.h"
#include "runview.h"
#include "svg.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ROWS 16

static double num(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : (json_is_string(v) ? strtod(json_string_value(v), NULL) : NAN);
}

static json_t *take(mt_buf *b)
{
	json_t *s = json_string(mt_buf_cstr(b));
	mt_buf_dispose(b);
	return s;
}

/* --- quality versus time ---------------------------------------------------- */

static const char *series_color(const char *system, const char *track)
{
	int optimized = track && strcmp(track, "optimized") == 0;
	if (system && strcmp(system, "baseline") == 0)
		return optimized ? "#17becf" : "#1f77b4";
	if (system && strcmp(system, "candidate") == 0)
		return optimized ? "#2ca02c" : "#ff7f0e";
	return "#7f7f7f";
}

/* A time of the run's figures as a number, NAN when none. */
static double ms(int64_t t_ms)
{
	return t_ms == MT_RUNLOG_NO_TIME ? NAN : (double)t_ms;
}

/* An attempt's submission in ms since the epoch: from its target's
 * evaluation when it reached it (exact), else when `mtrial run` started it,
 * else its log's first event (an imported log's init_start, its anchor for
 * "from submission" too). NAN when none is known. */
static double submission_ms(const mt_run_view *r)
{
	const mt_run_target_view *target = &r->figures.target;
	const char *started = r->started;
	mt_run_eval_view ev;
	struct tm tm = {0};

	if (target->reached == 1 && !isnan(target->from_submission_s))
		for (size_t i = 0; mt_runview_eval(&ev, &r->figures, i) != MT_ENOTFOUND; i++)
			if (ev.step == target->at_step) /* -1: both none */
				return ms(ev.t_ms) - target->from_submission_s * 1000;
	if (strcmp(r->origin ?: "", "run") == 0 && started &&
	    sscanf(started, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec) == 6) {
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		return (double)timegm(&tm) * 1000;
	}
	return ms(r->figures.first_ms);
}

struct quality {
	mt_svg_series series[MAX_ROWS * 4];
	char names[MAX_ROWS * 4][64], labels[MAX_ROWS * 4][32];
	double *xs[MAX_ROWS * 4], *ys[MAX_ROWS * 4];
	size_t n;
};

/* Each system's shape for its points, so that its lines read apart in
 * grey or to a reader who cannot tell the colours. */
static mt_svg_marker series_marker(const char *system)
{
	if (system && strcmp(system, "baseline") == 0)
		return MT_SVG_CIRCLE;
	if (system && strcmp(system, "candidate") == 0)
		return MT_SVG_SQUARE;
	return MT_SVG_TRIANGLE;
}

/* One series per attempt with evaluations of `metric`, x in seconds from
 * submission; `rehearsal`: the attempts are rehearsals, drawn apart. */
static void quality_series(struct quality *q, json_t *attempts, const char *metric, int rehearsal,
			   double *max_s)
{
	mt_run_eval_view ev;
	mt_run_view v;
	json_t *r;
	size_t i;

	json_array_foreach(attempts, i, r) {
		size_t n_evals;
		double origin;
		mt_svg_series *s = &q->series[q->n];
		(void)mt_runview_read(&v, r);
		n_evals = json_array_size(v.figures.evaluations);
		origin = submission_ms(&v);
		if (q->n == sizeof(q->series) / sizeof(q->series[0]) || !n_evals || !isfinite(origin))
			continue;
		q->xs[q->n] = calloc(n_evals, sizeof(double));
		q->ys[q->n] = calloc(n_evals, sizeof(double));
		s->n = 0;
		for (size_t k = 0; mt_runview_eval(&ev, &v.figures, k) != MT_ENOTFOUND; k++) {
			if (!metric || strcmp(ev.metric ?: "", metric) != 0)
				continue;
			q->xs[q->n][s->n] = (ms(ev.t_ms) - origin) / 1000;
			q->ys[q->n][s->n] = ev.value;
			*max_s = fmax(*max_s, q->xs[q->n][s->n]);
			s->n++;
		}
		if (!s->n) {
			free(q->xs[q->n]);
			free(q->ys[q->n]);
			continue;
		}
		snprintf(q->names[q->n], sizeof(q->names[0]), "%s%s%s%s%s", rehearsal ? "rehearsal: " : "",
			 v.system ?: "?", v.track ? " (" : "", v.track ?: "", v.track ? ")" : "");
		snprintf(q->labels[q->n], sizeof(q->labels[0]), "run #%lld%s", (long long)v.id,
			 rehearsal ? " (rehearsal)" : "");
		s->name = q->names[q->n];
		s->label = q->labels[q->n];
		/* a rehearsal keeps its system's colour and shape, dashed */
		s->color = series_color(v.system, v.track);
		s->marker = series_marker(v.system);
		s->dashed = rehearsal;
		s->x = q->xs[q->n];
		s->y = q->ys[q->n];
		q->n++;
	}
}

static json_t *quality_chart(json_t *model)
{
	const char *metric = mt_json_str_at(model, "spec.quality_target.metric");
	struct quality q = {.n = 0};
	double max_s = 0, div = 1, target = num(mt_json_path(model, "spec.quality_target.threshold"));
	const char *unit = "seconds";
	char title[128], ylabel[96], tlabel[64], xlabel[64];
	mt_buf b = MT_BUF_INIT;

	quality_series(&q, mt_json_path(model, "runs.attempts"), metric, 0, &max_s);
	quality_series(&q, mt_json_path(model, "runs.rehearsals"), metric, 1, &max_s);
	if (max_s > 2 * 3600)
		div = 3600, unit = "hours";
	else if (max_s > 120)
		div = 60, unit = "minutes";
	for (size_t i = 0; i < q.n; i++)
		for (size_t k = 0; k < q.series[i].n; k++)
			q.xs[i][k] /= div;
	snprintf(title, sizeof(title), "Quality versus time: %s", metric ? metric : "no metric set");
	snprintf(ylabel, sizeof(ylabel), "%s (%s is better)", metric ? metric : "",
		 mt_json_str_at(model, "spec.quality_target.direction") ?: "?");
	snprintf(tlabel, sizeof(tlabel), "target %g", target);
	snprintf(xlabel, sizeof(xlabel), "%s from submission (start-up included)", unit);
	mt_svg_lines c = {
		.title = title, .x_label = xlabel, .y_label = ylabel, .series = q.series,
		.n_series = q.n, .target = target, .target_label = tlabel,
		.empty = metric ? "no run has evaluated the quality metric yet"
				: "no quality_target.metric in trial.yaml",
	};
	mt_svg_line_chart(&b, &c);
	for (size_t i = 0; i < q.n; i++) {
		free(q.xs[i]);
		free(q.ys[i]);
	}
	return take(&b);
}

/* --- ops by status ------------------------------------------------------------ */

/* By API when the probe lists APIs (an API-keyed table), as the report's
 * table and the wizard's bar count them, else by op; unknown is drawn at
 * its size like any other status. */
static json_t *ops_chart(json_t *model)
{
	static const char *const rows[] = {"on device", "partial", "CPU fallback", "unsupported", "unknown"};
	static const char *const colors[] = {"#2ca02c", "#bcbd22", "#ff7f0e", "#d62728", "#999999"};
	const json_t *probe = mt_json_path(model, "probe");
	double values[5] = {NAN, NAN, NAN, NAN, NAN};
	const mt_probe_counts *n;
	const char *const *segment;
	mt_probe_view pv;
	int by_api;
	char title[160];
	mt_buf b = MT_BUF_INIT;

	/* the model's probe is the probe's result, read by its own reader */
	if (mt_probe_view_read(&pv, probe) < 0)
		mt_error_clear();
	n = mt_probe_view_listed_counts(&pv);
	by_api = pv.by_api;
	if (json_is_object(probe)) { /* else unknown, not 0 */
		const int64_t counts[] = {n->device, n->partial, n->cpu_fallback, n->unsupported,
					  n->unknown};
		for (size_t i = 0; i < 5; i++)
			values[i] = (double)counts[i];
	}
	segment = by_api ? (const char *const[]){"APIs"} : (const char *const[]){"ops"};
	snprintf(title, sizeof(title), "%s by status on %s", by_api ? "APIs" : "Ops",
		 pv.table_name ?: "the target");
	mt_probe_view_dispose(&pv);
	mt_svg_bars c = {
		.title = title,
		.value_label = by_api ? "APIs called (the table lists APIs; the ops are counted above)"
				      : "ops",
		.rows = rows, .n_rows = 5, .segments = segment,
		.colors = colors, .n_segments = 1, .values = values,
		.empty = "no probe yet: mtrial probe",
	};
	mt_svg_bar_chart(&b, &c);
	return take(&b);
}

/* --- effort by category per track --------------------------------------------- */

static const char *const effort_categories[] = {"setup", "getting-a-correct-run", "debugging",
						"waiting-for-compile", "optimization", "other"};
static const char *const effort_colors[] = {"#8c564b", "#1f77b4", "#d62728",
					    "#bcbd22", "#2ca02c", "#999999"};
#define N_CATEGORIES 6

static size_t category_index(const char *name)
{
	for (size_t i = 0; i < N_CATEGORIES; i++)
		if (name && strcmp(effort_categories[i], name) == 0)
			return i;
	return N_CATEGORIES - 1; /* a category this build does not know counts as other */
}

/* The effort criterion's limit on both tracks together (its threshold,
 * else the optimized track's budget, as decide counts it) and its name;
 * NAN when trial.yaml has no effort criterion. */
static double effort_criterion(json_t *model, const char **name)
{
	json_t *c;
	size_t i;

	json_array_foreach(mt_json_path(model, "spec.criteria"), i, c) {
		double t = num(json_object_get(c, "threshold"));
		if (strcmp(mt_json_str_at(c, "kind") ?: "", "effort") != 0)
			continue;
		*name = mt_json_str_at(c, "name") ?: "effort";
		return isfinite(t) ? t : num(mt_json_path(model, "spec.tracks.optimized.budget_hours"));
	}
	return NAN;
}

/* Each limit over the row it applies to: the optimized track's budget over
 * that track, the effort criterion over all tracks together (the only row
 * when one track is timed, unless that is the optimized one). */
static void effort_limits(json_t *model, const char *const *rows, size_t n, double *limits,
			  char (*labels)[80])
{
	const char *name = NULL;
	double budget = num(mt_json_path(model, "spec.tracks.optimized.budget_hours"));
	double all = effort_criterion(model, &name);

	for (size_t i = 0; i < n; i++) {
		limits[i] = NAN;
		labels[i][0] = '\0';
		if (strcmp(rows[i], "optimized") == 0 && isfinite(budget)) {
			limits[i] = budget;
			snprintf(labels[i], sizeof(labels[i]), "optimized track's budget %g h", budget);
		} else if (i == n - 1 && isfinite(all)) {
			limits[i] = all;
			snprintf(labels[i], sizeof(labels[i]), "%s: %g h for all tracks", name, all);
		}
	}
}

static json_t *effort_chart(json_t *model)
{
	json_t *tracks = mt_json_path(model, "effort.tracks"), *t, *cat;
	const char *rows[MAX_ROWS + 1], *label_of[MAX_ROWS + 1];
	double values[(MAX_ROWS + 1) * N_CATEGORIES] = {0}, limits[MAX_ROWS + 1];
	char labels[MAX_ROWS + 1][80];
	size_t i, k, n = 0;
	mt_buf b = MT_BUF_INIT;

	json_array_foreach(tracks, i, t) {
		if (n == MAX_ROWS)
			break;
		rows[n] = mt_json_str_at(t, "track") ?: "(no track)";
		json_array_foreach(json_object_get(t, "categories"), k, cat) {
			double h = num(json_object_get(cat, "ms")) / 3600000.0;
			values[n * N_CATEGORIES + category_index(mt_json_str_at(cat, "category"))] += h;
		}
		n++;
	}
	if (n > 1) { /* the effort criterion counts both tracks together */
		rows[n] = "all tracks";
		for (i = 0; i < n; i++)
			for (k = 0; k < N_CATEGORIES; k++)
				values[n * N_CATEGORIES + k] += values[i * N_CATEGORIES + k];
		n++;
	}
	effort_limits(model, rows, n, limits, labels);
	for (i = 0; i < n; i++)
		label_of[i] = labels[i];
	mt_svg_bars c = {
		.title = "Effort by category per track", .value_label = "hours", .rows = rows,
		.n_rows = n, .segments = effort_categories, .colors = effort_colors,
		.n_segments = N_CATEGORIES, .values = values, .unit = "h", .limits = limits,
		.limit_labels = label_of, .empty = "no effort recorded yet: mtrial effort start",
	};
	mt_svg_bar_chart(&b, &c);
	return take(&b);
}

/* --- what the runs cost --------------------------------------------------------- */

static json_t *cost_chart(json_t *model)
{
	/* the attempts' outcomes kept apart (report/model.c costs_model) */
	static const char *const segments[] = {"up to the target (from the attempt's start)",
					       "after the target", "failed or aborted",
					       "finished short of the target",
					       "finished without the target's metric"};
	static const char *const colors[] = {"#1f77b4", "#aec7e8", "#d62728", "#ff9896", "#c7c7c7"};
	static const char *const keys[] = {"to_target", "after_target", "failed", "short", "no_metric"};
	enum { N_COST = 5 };
	json_t *systems = mt_json_path(model, "costs.systems"), *s;
	const char *rows[MAX_ROWS];
	double values[MAX_ROWS * N_COST];
	char title[96];
	size_t i, n = 0;
	mt_buf b = MT_BUF_INIT;

	json_array_foreach(systems, i, s) {
		if (n == MAX_ROWS)
			break;
		rows[n] = mt_json_str_at(s, "system") ?: "?";
		for (size_t k = 0; k < N_COST; k++)
			values[n * N_COST + k] = num(json_object_get(s, keys[k]));
		n++;
	}
	snprintf(title, sizeof(title), "What the runs cost (%s)",
		 mt_json_str_at(model, "costs.currency") ?: "no currency");
	mt_svg_bars c = {
		.title = title, .value_label = mt_json_str_at(model, "costs.currency") ?: "cost",
		.rows = rows,
		.n_rows = n, .segments = segments, .colors = colors, .n_segments = N_COST, .values = values,
		.unit = mt_json_str_at(model, "costs.currency"),
		.empty = "no priced run yet: mtrial run, and systems.*.price.hourly in trial.yaml",
	};
	mt_svg_bar_chart(&b, &c);
	return take(&b);
}

/* Total time against run length for both systems (start plus n steady
 * steps, from the break-even's figures), with the break-even and the
 * trial's own run length (the median steps of its runs) drawn as dashed
 * vertical lines. */
static json_t *breakeven_chart(json_t *model, const char *path, const char *title)
{
	/* the first pair of topologies: one chart never draws two pairs' lines */
	json_t *be = json_array_get(mt_json_path(model, path), 0);
	double bs = num(mt_json_path(be, "baseline.start_s")), bt = num(mt_json_path(be, "baseline.step_s"));
	double cs = num(mt_json_path(be, "candidate.start_s")), ct = num(mt_json_path(be, "candidate.step_s"));
	double n = num(mt_json_path(be, "steps")), len = num(mt_json_path(model, "compilation.run_length_steps"));
	double xmax = 100, x[2], yb[2], yc[2], xn[2], yv[2], xl[2];
	mt_svg_series s[4];
	size_t k = 0;
	mt_buf b = MT_BUF_INIT;

	if (isfinite(n) && 1.5 * n > xmax)
		xmax = 1.5 * n;
	if (isfinite(len) && 1.2 * len > xmax)
		xmax = 1.2 * len;
	x[0] = 0, x[1] = xmax;
	yb[0] = bs / 3600, yb[1] = (bs + xmax * bt) / 3600;
	yc[0] = cs / 3600, yc[1] = (cs + xmax * ct) / 3600;
	yv[0] = 0, yv[1] = fmax(yb[1], yc[1]);
	if (json_is_object(be)) {
		s[k++] = (mt_svg_series){"baseline", "baseline", series_color("baseline", NULL), x, yb, 2, 0, MT_SVG_CIRCLE};
		s[k++] = (mt_svg_series){"candidate", "candidate", series_color("candidate", NULL), x, yc, 2, 0, MT_SVG_SQUARE};
	}
	if (k && isfinite(n)) {
		xn[0] = xn[1] = n;
		s[k++] = (mt_svg_series){"break-even", "break-even", "#555", xn, yv, 2, 1, MT_SVG_DIAMOND};
	}
	if (k && isfinite(len)) {
		xl[0] = xl[1] = len;
		s[k++] = (mt_svg_series){"the trial's run length", "run length", "#999", xl, yv, 2, 1, MT_SVG_TRIANGLE};
	}
	mt_svg_line_chart(&b, &(mt_svg_lines){.title = title,
					      .x_label = "steps", .y_label = "hours",
					      .series = s, .n_series = k, .target = NAN,
					      .empty = "No break-even to draw: the two systems need runs "
						       "with clock 1 and a steady step"});
	return take(&b);
}

json_t *mt_report_charts(json_t *model)
{
	json_t *out = json_pack("{so, so, so, so, so}", "quality", quality_chart(model), "ops",
				ops_chart(model), "effort", effort_chart(model), "cost",
				cost_chart(model), "breakeven",
				breakeven_chart(model, "compilation.breakeven",
						"Total time against run length"));

	/* the best recipe's break-even: a chart of its own, never a line
	 * beside the matched design's */
	if (out && json_is_object(mt_json_path(model, "compilation.best_recipe")))
		json_object_set_new(out, "breakeven_best",
				    breakeven_chart(model, "compilation.best_recipe.breakeven",
						    "Best recipe: total time against run length"));
	return out;
}
