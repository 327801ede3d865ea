/* The Runs & clocks step: every attempt, newest first as the Correctness
 * step's checks, failed and aborted ones too, with its two clocks and its
 * time to target; under the list the selected run in short (a running
 * one's progress: elapsed, steps, latest loss and evaluation). Enter gives
 * a run the whole pane: both clocks explained, stalls, time and cost to
 * the target, MLPerf minutes, device-hours, its log, and its evaluations
 * plotted against time with the target line. S shows baseline and
 * candidate side by side, B compilation and shapes (the report's section:
 * each run's compilations, the break-even drawn, the bucket advice), E
 * scaling (each system per device count, tui/scaling_page.c). The
 * page is laid out to the pane's height.
 * Rehearsals (runs that test the pipeline, never evidence) are marked R in
 * the list, said in the preview and the run's page (not priced), and left
 * out of the side-by-side. */
#include "screen.h"
#include "wizard.h"
#include "rows.h"
#include "runstart.h"
#include "model_path.h"
#include "chartdraw.h"
#include "util.h"
#include "compilation.h"
#include "error.h"
#include "runview.h"
#include "journal_view.h"
#include "stats.h"
#include "scaling_page.h"
#include "compilation_page.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_W 4
#define SYSTEM_W 9
#define TRACK_W 11
#define STATUS_W 7
#define SECS_W 6
#define PREVIEW_ROWS 5
#define FIELD_COL 11 /* values after "  clock 1  " */

struct runs_state {
	struct tui_runs runs; /* own references to ctx->runs'; NULL with none */
	int64_t follow; /* the selected run's id, kept across reloads */
	int cursor, top, list_rows;
	int details; /* the selected run has the whole pane */
	int systems; /* baseline and candidate side by side */
	int compilation; /* compilation and shapes */
	int scaling;     /* each system per device count */
	struct tui_scaling scale;
	struct tui_compilation comp;
	int64_t withdraw_id; /* the run the withdrawal's prompt asks about */
	char title[64];      /* and that prompt's title */
	struct tui_runstart start; /* the dialogue that starts a run (x) or imports one (I) */
};

static json_t *attempts(const struct runs_state *st)
{
	return st->runs.attempts;
}

static int count(const struct runs_state *st)
{
	return (int)json_array_size(attempts(st));
}

/* How many runs are withdrawn, left out of the list. */
static int withdrawn(const struct runs_state *st)
{
	return (int)st->runs.withdrawn;
}

/* Row r of the list, newest first. */
static json_t *run_at(const struct runs_state *st, int r)
{
	return r < 0 || r >= count(st) ? NULL
	                               : json_array_get(attempts(st), (size_t)(count(st) - 1 - r));
}

static json_t *selected(const struct runs_state *st)
{
	return run_at(st, st->cursor);
}

/* Run r read into *v (a key missing leaves its field unknown, as the JSON
 * did); 0 without such a row. */
static int view_at(const struct runs_state *st, int r, mt_run_view *v)
{
	json_t *run = run_at(st, r);

	if (!run)
		return 0;
	(void)mt_runview_read(v, run);
	return 1;
}

/* The id of row r, 0 without one. */
static int64_t id_at(const struct runs_state *st, int r)
{
	mt_run_view v;
	return view_at(st, r, &v) ? v.id : 0;
}

/* Takes the runs the wizard read last; the selection follows its run. */
static void sync(struct runs_state *st, const struct tui_ctx *ctx)
{
	if (ctx->runs ? ctx->runs->attempts == st->runs.attempts : !st->runs.attempts)
		return;
	json_decref(st->runs.attempts);
	json_decref(st->runs.systems);
	memset(&st->runs, 0, sizeof(st->runs));
	if (ctx->runs)
		st->runs = (struct tui_runs){json_incref(ctx->runs->attempts),
					     json_incref(ctx->runs->systems), ctx->runs->withdrawn};
	st->cursor = 0;
	for (int r = 0; r < count(st); r++)
		if (id_at(st, r) == st->follow)
			st->cursor = r;
	if (id_at(st, st->cursor) != st->follow)
		st->details = 0;
	st->follow = id_at(st, st->cursor);
}

/* --- numbers as people read them ----------------------------------------- */

static enum draw_style status_style(const char *status)
{
	if (!status || strcmp(status, "success") == 0)
		return STYLE_OK;
	if (strcmp(status, "running") == 0)
		return STYLE_NEW;
	return STYLE_ERROR;
}

static int is_rehearsal(json_t *r)
{
	mt_run_view v;

	(void)mt_runview_read(&v, r);
	return v.rehearsal;
}

static int is_running(const mt_run_view *r)
{
	return r->status && strcmp(r->status, "running") == 0;
}

/* "2026-12-02 06:30" of an ISO time, as jv_time lays it out. */
static const char *when(const char *iso, char *buf, size_t size)
{
	if (!iso || strlen(iso) < 16)
		return iso ? iso : "";
	snprintf(buf, size, "%.10s %.5s", iso, iso + 11);
	return buf;
}

/* "12.3s", or what became of the attempt instead (its outcome, decided in
 * trial/runs.c from trial.yaml as it is now): "not reached", "failed after"
 * (it reached the target, then failed), "no metric"
 * (the log never evaluates the target's metric), "not yet" or "-". */
static const char *to_target(char *buf, size_t size, const mt_run_view *r)
{
	const char *outcome = r->outcome ?: "";

	if (strcmp(outcome, "reached") == 0)
		return tui_secs(buf, size, r->time_to_target_s);
	if (strcmp(outcome, "failed") == 0 && r->reached == 1)
		return "failed after"; /* reached, then the attempt failed: no time counted */
	if (strcmp(outcome, "missed") == 0 || strcmp(outcome, "failed") == 0)
		return "not reached";
	if (strcmp(outcome, "no_metric") == 0)
		return "no metric";
	return strcmp(outcome, "running") == 0 ? "not yet" : "-";
}

/* --- the list ------------------------------------------------------------ */

/* The list's columns for the page's width, compacted in cells[0..8):
 * the track from 64 columns, the steady step from 46 (the time to target
 * keeps its room), the system as "cand" and "base" under 50. Returns how
 * many. */
static int fit_columns(const struct tui_page *p, struct tui_cell *cells)
{
	int keep[8] = {1, 1, 1, p->width >= 64, 1, 1, p->width >= 46, 1}, n = 0;

	if (p->width < 50)
		cells[2].width = 4;
	for (int i = 0; i < 8; i++)
		if (keep[i])
			cells[n++] = cells[i];
	return n;
}

static void run_row(struct tui_page *p, const mt_run_view *r, int idw, int sel, int focused)
{
	char id[24], sys[16], c1[16], step[16], tt[16];

	snprintf(id, sizeof(id), "#%lld", (long long)r->id);
	snprintf(sys, p->width < 50 ? 5 : sizeof(sys), "%s", r->system ?: "?");
	struct tui_cell cells[] = {
		{id, idw, 1, 0, STYLE_DIM},
		{r->rehearsal ? "R" : "", 1, 0, 0, STYLE_WARN},
		{sys, SYSTEM_W, 0, 0, STYLE_NORMAL},
		{r->track ?: "-", TRACK_W, 0, 0, STYLE_DIM},
		{r->status, STATUS_W, 0, 0, status_style(r->status)},
		{tui_secs(c1, sizeof(c1), r->clock1_s), SECS_W, 1, 0, STYLE_NORMAL},
		{tui_secs(step, sizeof(step), r->steady_step_s), SECS_W, 1, 0, STYLE_NORMAL},
		{to_target(tt, sizeof(tt), r), 0, 0, 0,
		 strcmp(to_target(tt, sizeof(tt), r), "not reached") == 0 ||
			 strcmp(r->outcome ?: "", "no_metric") == 0
		     ? STYLE_WARN
		     : STYLE_NORMAL},
	};
	tui_row(p, cells, fit_columns(p, cells), sel, focused);
}

static void header_row(struct tui_page *p, int idw)
{
	struct tui_cell cells[] = {
		{"id", idw, 1, 0, STYLE_DIM},
		{"", 1, 0, 0, STYLE_DIM},
		{p->width < 50 ? "sys" : "system", SYSTEM_W, 0, 0, STYLE_DIM},
		{"track", TRACK_W, 0, 0, STYLE_DIM},
		{"status", STATUS_W, 0, 0, STYLE_DIM},
		{"clock1", SECS_W, 1, 0, STYLE_DIM},
		{"step", SECS_W, 1, 0, STYLE_DIM},
		{"to target", 0, 0, 0, STYLE_DIM},
	};
	tui_row(p, cells, fit_columns(p, cells), 0, 0);
}

/* How many of the runs are rehearsals. */
static int rehearsals(json_t *runs)
{
	json_t *r;
	size_t i;
	int n = 0;

	json_array_foreach(runs, i, r)
		n += is_rehearsal(r);
	return n;
}

static void title_row(struct tui_page *p, int n, int rehearsed, int withdrawn)
{
	char keys[32], title[128];
	int len;

	/* with rehearsals, what the R column means in place of the order,
	 * which the ids show, so that the keys still fit on 80 columns; the
	 * withdrawn runs, left out, are counted, never silently gone */
	len = snprintf(title, sizeof(title), "%d attempt%s", n, n == 1 ? "" : "s");
	if (rehearsed)
		len += snprintf(title + len, sizeof(title) - (size_t)len, ", %d rehearsal%s (R)",
				rehearsed, rehearsed == 1 ? "" : "s");
	if (withdrawn)
		snprintf(title + len, sizeof(title) - (size_t)len, ", %d withdrawn", withdrawn);
	else if (!rehearsed)
		snprintf(title + len, sizeof(title) - (size_t)len, ", newest first");
	if (rehearsed && withdrawn && draw_width(title) > p->width) /* no count cut off */
		snprintf(title, sizeof(title), "%d attempt%s, %d R, %d withdrawn", n,
			 n == 1 ? "" : "s", rehearsed, withdrawn);
	page_line(p);
	page_add(p, STYLE_HEADING, title);
	tui_action_keys(TUI_ACT_SYSTEMS, keys, sizeof(keys));
	if (draw_width(title) + 20 <= p->width)
		page_addf(p, STYLE_DIM, "  %s side by side", keys);
	tui_action_keys(TUI_ACT_START_RUN, keys, sizeof(keys));
	if (draw_width(title) + 24 <= p->width)
		page_addf(p, STYLE_DIM, "  %s run", keys);
}

/* A running run's progress: elapsed, steps, latest loss and evaluation. */
static void live_line(struct tui_page *p, const mt_run_view *r, const struct tui_ctx *ctx)
{
	const mt_run_figures *f = &r->figures;
	size_t n = json_array_size(f->evaluations);
	mt_run_eval_view ev;
	char clock[32];

	/* live (tui/record.c's add_live): the journal's start to the ms */
	tui_elapsed_fmt(clock, sizeof(clock),
	                ctx->now_ms - jv_int((json_t *)r->live, "started_ms", ctx->now_ms));
	page_line(p);
	page_add_at(p, 2, STYLE_NEW, "running");
	page_addf(p, STYLE_NORMAL, " %s", clock);
	if (f->last_step >= 0) {
		page_addf(p, STYLE_NORMAL, "  step %lld", (long long)f->last_step);
		if (!isnan(f->last_loss))
			page_addf(p, STYLE_NORMAL, "  loss %.4g", f->last_loss);
	} else {
		page_add(p, STYLE_DIM, "  no step yet");
	}
	if (n && mt_runview_eval(&ev, f, n - 1) != MT_ENOTFOUND)
		page_addf(p, STYLE_NORMAL, "  %s %.4g", ev.metric ?: "eval", ev.value);
}

static void field(struct tui_page *p, const char *label, enum draw_style s, const char *value,
		  int keep_end)
{
	char *fit = draw_fit(value ? value : "?", p->width - FIELD_COL, keep_end);

	page_line(p);
	page_add_at(p, 2, STYLE_DIM, label);
	page_add_at(p, FIELD_COL, s, fit);
	free(fit);
}

/* "reached at step 8, 1.2s after run start" or why not, into b. */
static void target_text(mt_buf *b, const mt_run_view *r)
{
	const mt_run_target_view *t = &r->figures.target;
	char s[16];

	if (!t->known) {
		mt_buf_puts(b, "no quality_target in trial.yaml");
	} else if (t->reached == 1 && t->at_step >= 0) {
		mt_buf_printf(b, "reached at step %lld, %s after run start", (long long)t->at_step,
		              tui_secs(s, sizeof(s), r->time_to_target_s));
	} else if (t->reached == 1) { /* an MLPerf log counts epochs, not steps */
		mt_buf_printf(b, "reached %s after run start", tui_secs(s, sizeof(s), r->time_to_target_s));
	} else if (strcmp(r->outcome ?: "", "no_metric") == 0) {
		mt_buf_printf(b, "%s never evaluated: the log evaluates %s", t->metric,
		              t->metrics_in_log && *t->metrics_in_log ? t->metrics_in_log : "nothing");
	} else {
		mt_buf_printf(b, "%s", is_running(r) ? "not yet reached" : "not reached");
		/* the reason, unless it only says the same ("did not reach target") */
		if (t->reason && !strstr(t->reason, "reach"))
			mt_buf_printf(b, ": %s", t->reason);
	}
}

/* The selected run under the list; `by` who recorded it (NULL: not known,
 * and not said: the details say it). */
static void preview(struct tui_page *p, const mt_run_view *r, const char *by,
		    const struct tui_ctx *ctx)
{
	mt_buf title = MT_BUF_INIT, t = MT_BUF_INIT;
	char a[16], b[16], at[32], keys[32];

	/* the author last in the rule, which a narrow pane cuts first; drawn
	 * through the terminal's sanitising (draw.c) */
	mt_buf_printf(&title, "#%lld %s%s%s, %s%s%s", (long long)r->id, r->system,
		      strcmp(r->design ?: "matched", "best") == 0 ? ", design best" : "",
		      r->rehearsal ? ", a rehearsal" : "", when(r->started, at, sizeof(at)),
		      by ? " by " : "", by ?: "");
	tui_rule(p, mt_buf_cstr(&title));
	if (is_running(r)) {
		live_line(p, r, ctx);
	} else {
		page_line(p);
		page_add_at(p, 2, status_style(r->status), r->status);
		if (r->has_exit)
			page_addf(p, STYLE_DIM, " (exit %lld)", (long long)r->exit_status);
	}
	page_addf(p, STYLE_NORMAL, "  clock 1 %s, step %s", tui_secs(a, sizeof(a), r->clock1_s),
		  tui_secs(b, sizeof(b), r->steady_step_s));
	target_text(&t, r);
	field(p, "target", STYLE_NORMAL, mt_buf_cstr(&t), 0);
	field(p, "log", STYLE_NORMAL, r->source ?: r->command, 1);
	tui_action_keys(TUI_ACT_WITHDRAW, keys, sizeof(keys));
	page_line(p);
	page_add_at(p, 2, STYLE_DIM, "Enter shows it");
	page_addf(p, STYLE_DIM, ", %s withdraws it", keys);
	mt_buf_dispose(&title);
	mt_buf_dispose(&t);
}

/* The largest id in the list (the column fits it). */
static long long max_id(const struct runs_state *st)
{
	json_int_t max = 0;
	json_t *r;
	size_t i;

	json_array_foreach(attempts(st), i, r) {
		json_int_t id = json_integer_value(json_object_get(r, "id"));
		max = id > max ? id : max;
	}
	return (long long)max;
}

static void list_draw(struct tui_page *p, struct runs_state *st, const struct tui_ctx *ctx,
		      int height)
{
	int n = count(st), below = height >= 14 ? PREVIEW_ROWS : 0;
	int rows = tui_list_fit(height - 2 - below, n), idw = tui_id_width(max_id(st), ID_W);
	mt_run_view v;

	st->list_rows = rows;
	tui_list_scroll(&st->cursor, &st->top, rows, n);
	title_row(p, n, rehearsals(attempts(st)), withdrawn(st));
	header_row(p, idw);
	for (int r = st->top; r < st->top + rows; r++)
		if (view_at(st, r, &v))
			run_row(p, &v, idw, r == st->cursor, ctx->focused);
	tui_list_more(p, st->top, rows, n);
	if (below && view_at(st, st->cursor, &v))
		preview(p, &v, mt_author_name(selected(st)), ctx);
}

/* --- a run in full --------------------------------------------------------- */

/* The compilations the run's log shows (how many, the median one, their
 * share of the attempt: B and `mtrial runs show` say more), then its
 * stalls, in one line: "compiles" when its steps show any, else "stalls". */
static void compiles_field(struct tui_page *p, const mt_run_view *r)
{
	const mt_run_compiles_view *c = &r->figures.compiles;
	const char *from = c->from;
	char s[16], t[16];
	mt_buf b = MT_BUF_INIT;
	mt_run_stall_view x;
	int n = (int)c->count;

	if (from && strcmp(from, "cache") == 0)
		mt_buf_printf(&b, "%d (compile-cache misses; no step times to measure them); ", n);
	else if (n > 0)
		mt_buf_printf(&b, "%d x %s (%.0f%%); ", n, tui_secs(s, sizeof(s), c->seconds_each),
			      100 * c->share);
	for (size_t i = 0; mt_runview_stall(&x, &r->figures, i) != MT_ENOTFOUND; i++)
		mt_buf_printf(&b, "%sstep %lld %s (median %s)", i ? "; " : "", (long long)x.step,
			      tui_secs(s, sizeof(s), x.seconds), tui_secs(t, sizeof(t), x.median_s));
	tui_wrap_field(p, 2, n > 0 || (from && strcmp(from, "cache") == 0) ? "compiles" : "stalls",
		       FIELD_COL, b.len ? mt_buf_cstr(&b) : "none", 1,
		       b.len ? STYLE_WARN : STYLE_DIM);
	mt_buf_dispose(&b);
}

static void clock_fields(struct tui_page *p, const mt_run_view *r)
{
	const mt_run_figures *f = &r->figures;
	mt_buf b = MT_BUF_INIT;
	char s[16];

	mt_buf_printf(&b, "%s submission to the first step: compilation and start-up",
		      tui_secs(s, sizeof(s), r->clock1_s));
	tui_wrap_field(p, 2, "clock 1", FIELD_COL, mt_buf_cstr(&b), 2, STYLE_NORMAL);
	mt_buf_dispose(&b);
	if (r->cache || r->cache_inferred) {
		if (r->cache_warning)
			mt_buf_puts(&b, r->cache_warning);
		else
			mt_buf_printf(&b, "%s declared, %s in the log", r->cache ?: "not",
				      r->cache_inferred ?: "nothing");
		tui_wrap_field(p, 2, "cache", FIELD_COL, mt_buf_cstr(&b), 2,
			       r->cache_warning ? STYLE_WARN : STYLE_NORMAL);
		mt_buf_dispose(&b);
	}
	if (isfinite(r->steady_step_s))
		mt_buf_printf(&b, "%s per step in steady state",
		              tui_secs(s, sizeof(s), r->steady_step_s));
	else
		mt_buf_puts(&b, "- no steady state measured");
	if (!isnan(r->throughput))
		mt_buf_printf(&b, ", %.4g %s", r->throughput, r->throughput_unit ?: "");
	if (!isnan(f->padding_fraction))
		mt_buf_printf(&b, ", %.1f%% padding", 100 * f->padding_fraction);
	if (f->steady)
		mt_buf_printf(&b, " (%lld intervals, %lld warm-up skipped)",
			      (long long)f->intervals, (long long)f->warmup_skipped);
	tui_wrap_field(p, 2, "clock 2", FIELD_COL, mt_buf_cstr(&b), 2, STYLE_NORMAL);
	mt_buf_dispose(&b);
	compiles_field(p, r);
}

static void cost_fields(struct tui_page *p, const mt_run_view *r, const char *currency)
{
	const mt_run_devices_view *d = &r->devices;
	mt_buf b = MT_BUF_INIT;

	target_text(&b, r);
	if (!isnan(d->cost_to_target))
		mt_buf_printf(&b, ", cost %.4g %s", d->cost_to_target, currency);
	tui_wrap_field(p, 2, "target", FIELD_COL, mt_buf_cstr(&b), 2,
		       r->reached == 1 ? STYLE_OK : STYLE_WARN);
	mt_buf_dispose(&b);
	if (!isnan(r->run_minutes)) { /* an MLPerf log's own clock */
		mt_buf_printf(&b, "%.4g min (run_stop - run_start)", r->run_minutes);
		tui_wrap_field(p, 2, "MLPerf", FIELD_COL, mt_buf_cstr(&b), 2, STYLE_NORMAL);
		mt_buf_dispose(&b);
	}
	/* the attempt inside the accounting boundary, whatever its source */
	if (d->not_priced)
		mt_buf_printf(&b, "not priced: %s", d->not_priced);
	else if (isfinite(d->count))
		mt_buf_printf(&b, "%g device%s", d->count, d->count == 1 ? "" : "s");
	else /* never a figure made up: trial.yaml does not say */
		mt_buf_puts(&b, "devices unknown (count and hosts in trial.yaml)");
	if (!isnan(d->device_hours))
		mt_buf_printf(&b, ", %.4g device-hours", d->device_hours);
	if (!isnan(d->cost))
		mt_buf_printf(&b, ", cost %.4g %s", d->cost, currency);
	tui_wrap_field(p, 2, "cost", FIELD_COL, mt_buf_cstr(&b), 2, STYLE_NORMAL);
	mt_buf_dispose(&b);
}

/* The plot's origin: run start (the target's eval less its time from run
 * start), else the log's first event. */
static int64_t run_origin(const mt_run_view *r)
{
	const mt_run_figures *f = &r->figures;
	const mt_run_target_view *t = &f->target;
	mt_run_eval_view ev;

	if (f->run_start_ms != MT_RUNLOG_NO_TIME)
		return f->run_start_ms;
	if (t->reached == 1 && !isnan(t->from_run_start_s))
		for (size_t i = 0; mt_runview_eval(&ev, f, i) != MT_ENOTFOUND; i++)
			if (ev.step >= 0 && ev.step == t->at_step)
				return (ev.t_ms == MT_RUNLOG_NO_TIME ? 0 : ev.t_ms) -
				       (int64_t)llround(t->from_run_start_s * 1000);
	return f->first_ms == MT_RUNLOG_NO_TIME ? 0 : f->first_ms;
}

static void details_draw(struct tui_page *p, const mt_run_view *r, const char *by,
			 const struct tui_ctx *ctx, int height)
{
	char path[64], cur[64], thr[32];
	const char *metric = jv_str(ctx->model, "spec.quality_target.metric", cur, sizeof(cur));

	page_line(p);
	page_addf(p, STYLE_HEADING, "Run #%lld %s", (long long)r->id, r->system);
	page_addf(p, status_style(r->status), " %s", r->status);
	page_addf(p, STYLE_DIM, "  %s %s", r->track ?: "", r->label ?: "");
	/* on the heading's line, so that the chart keeps its rows */
	page_addf(p, STYLE_DIM, "  by %s", by ?: "someone not known");
	if (r->rehearsal)
		tui_wrap_field(p, 2, "kind", FIELD_COL,
			       "rehearsal: it tests the pipeline and is never evidence", 2, STYLE_WARN);
	/* matched is every run's unless said: the other design is named */
	if (strcmp(r->design ?: "matched", "best") == 0)
		tui_wrap_field(p, 2, "design", FIELD_COL,
			       "best: each platform's best recipe (precision.best), never compared "
			       "with matched runs", 2, STYLE_NORMAL);
	if (is_running(r))
		live_line(p, r, ctx);
	clock_fields(p, r);
	snprintf(path, sizeof(path), "spec.systems.%s.price.currency", r->system ?: "");
	cost_fields(p, r, jv_str(ctx->model, path, thr, sizeof(thr)) ?: "");
	field(p, "log", STYLE_NORMAL, r->source ?: "(none)", 1);
	chart_evals(p, &r->figures, metric,
		    jv_str(ctx->model, "spec.quality_target.threshold", thr, sizeof(thr))
			    ? strtod(thr, NULL)
			    : NAN,
		    run_origin(r), height - p->nlines);
}

/* --- baseline and candidate side by side ---------------------------------- */

/* A figure of a run: clock 1, the steady step or the cost to the target. */
typedef double (*run_figure)(const mt_run_view *r);
static double clock1_of(const mt_run_view *r)
{
	return r->clock1_s;
}

static double step_of(const mt_run_view *r)
{
	return r->steady_step_s;
}

static double target_cost_of(const mt_run_view *r)
{
	return r->devices.cost_to_target;
}

/* The median of `fig` over the system's successful runs (rehearsals left
 * out), NaN with none. */
static double median_of(json_t *runs, const char *system, run_figure fig)
{
	double v[256];
	size_t n = 0, i;
	mt_run_view rv;
	json_t *r;

	json_array_foreach(runs, i, r) {
		(void)mt_runview_read(&rv, r);
		if (n < 256 && !rv.rehearsal && rv.system && strcmp(rv.system, system) == 0 &&
		    rv.status && strcmp(rv.status, "success") == 0 && isfinite(fig(&rv)))
			v[n++] = fig(&rv);
	}
	return mt_median(v, n);
}

/* One row: label, baseline, candidate, candidate/baseline (NaN: "-";
 * negative: none, for counts). */
static void side_row(struct tui_page *p, const char *label, const char *b, const char *c,
		     double ratio)
{
	char r[16] = "-";
	int narrow = p->width < 48;

	if (ratio < 0)
		r[0] = 0;
	else if (isfinite(ratio))
		snprintf(r, sizeof(r), narrow ? "%.2fx" : "%.3gx", ratio);
	struct tui_cell cells[] = {
		{label, narrow ? 13 : 15, 0, 0, STYLE_DIM},
		{b, narrow ? 7 : 11, 1, 0, STYLE_NORMAL},
		{c, narrow ? 7 : 11, 1, 0, STYLE_NORMAL},
		{r, 0, 0, 0, isfinite(ratio) ? STYLE_HEADING : STYLE_DIM},
	};
	tui_row(p, cells, 4, 0, 0);
}

static void side_secs(struct tui_page *p, json_t *runs, const char *label, run_figure fig)
{
	double b = median_of(runs, "baseline", fig), c = median_of(runs, "candidate", fig);
	char bs[16], cs[16];

	side_row(p, label, tui_secs(bs, sizeof(bs), b), tui_secs(cs, sizeof(cs), c), c / b);
}

/* The summary's counts (trial/runlog.h): failed or aborted by status,
 * finished short of the target, finished without its metric, reached. */
static void side_counts(struct tui_page *p, const mt_run_system_view *b,
			const mt_run_system_view *c)
{
	const struct {
		const char *label;
		int64_t b, c;
	} rows[] = {{"  runs", b->runs, c->runs},
		    {"  failed", b->failed, c->failed},
		    {"  short", b->missed, c->missed},
		    {"  no metric", b->no_metric, c->no_metric},
		    {"  reached", b->reached, c->reached}};
	char bs[32], cs[32];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(bs, sizeof(bs), "%lld", (long long)rows[i].b);
		snprintf(cs, sizeof(cs), "%lld", (long long)rows[i].c);
		side_row(p, rows[i].label, bs, cs, -1);
	}
}

static void systems_draw(struct tui_page *p, struct runs_state *st)
{
	json_t *sys = st->runs.systems, *runs = attempts(st);
	mt_run_system_view b, c;
	char bs[32], cs[32], keys[32];
	double bc, cc;

	(void)mt_runview_system(&b, sys, "baseline");
	(void)mt_runview_system(&c, sys, "candidate");

	page_line(p);
	page_add(p, STYLE_HEADING, "Baseline vs candidate");
	tui_action_keys(TUI_ACT_SYSTEMS, keys, sizeof(keys));
	page_addf(p, STYLE_DIM, "  %s the list", keys);
	struct tui_cell head[] = {
		{"", 15, 0, 0, STYLE_DIM},          {"baseline", 11, 1, 0, STYLE_DIM},
		{"candidate", 11, 1, 0, STYLE_DIM}, {"cand/base", 0, 0, 0, STYLE_DIM},
	};
	if (p->width < 48) /* as side_row */
		head[0].width = 13, head[1].width = head[2].width = 7, head[1].text = "base",
		head[2].text = "cand", head[3].text = "c/b";
	tui_row(p, head, 4, 0, 0);
	side_counts(p, &b, &c);
	bc = b.time_to_target_s.median, cc = c.time_to_target_s.median;
	side_row(p, "  to target", tui_secs(bs, sizeof(bs), bc), tui_secs(cs, sizeof(cs), cc), cc / bc);
	if (b.several_topologies || c.several_topologies) {
		/* medians over runs at several device counts would pool them */
		tui_action_keys(TUI_ACT_SCALING, keys, sizeof(keys));
		snprintf(bs, sizeof(bs), "%s", keys);
		page_line(p);
		page_addf(p, STYLE_WARN, "  runs at several device counts: per topology on the "
			  "scaling page (%s), never pooled", bs);
	} else {
		side_secs(p, runs, "  clock 1", clock1_of);
		side_secs(p, runs, "  steady step", step_of);
		bc = median_of(runs, "baseline", target_cost_of);
		cc = median_of(runs, "candidate", target_cost_of);
		snprintf(bs, sizeof(bs), isfinite(bc) ? "%.4g" : "-", bc);
		snprintf(cs, sizeof(cs), isfinite(cc) ? "%.4g" : "-", cc);
		side_row(p, "  target cost", bs, cs, cc / bc);
	}
	page_para(p, 2, STYLE_DIM,
		  "Medians over the successful runs; failed: attempts that failed or were "
		  "aborted; target cost: the price of the devices until the target. "
		  "cand/base below 1: the candidate is faster or cheaper.");
	if (rehearsals(runs)) {
		char text[96];
		snprintf(text, sizeof(text), "%d rehearsal%s left out: not evidence.", rehearsals(runs),
			 rehearsals(runs) == 1 ? "" : "s");
		page_para(p, 2, STYLE_WARN, text);
	}
	if (withdrawn(st)) {
		char text[96];
		snprintf(text, sizeof(text), "%d withdrawn run%s left out (`mtrial rm --list`).",
			 withdrawn(st), withdrawn(st) == 1 ? "" : "s");
		page_para(p, 2, STYLE_WARN, text);
	}
}

/* --- the screen ------------------------------------------------------------ */

/* A system of trial.yaml ("baseline", "candidate"): accelerator, then
 * count, hosts and price. */
static void system_lines(struct tui_page *p, json_t *model, const char *which)
{
	char b1[64], b2[64], b3[64], b4[16], acc[128];
	const char *count = jv_str_key(model, "spec.systems.*.count", which, b1, sizeof(b1));
	const char *hosts = jv_str_key(model, "spec.systems.*.hosts", which, b2, sizeof(b2));
	const char *price = jv_str_key(model, "spec.systems.*.price.hourly", which, b3, sizeof(b3));
	const char *currency =
		jv_str_key(model, "spec.systems.*.price.currency", which, b4, sizeof(b4));
	mt_buf line = MT_BUF_INIT;

	tui_field(p, which,
		  jv_str_key(model, "spec.systems.*.accelerator", which, acc, sizeof(acc)));
	if (count)
		mt_buf_printf(&line, "%s per host", count);
	if (hosts)
		mt_buf_printf(&line, "%s%s host(s)", line.len ? ", " : "", hosts);
	if (price)
		mt_buf_printf(&line, "%s%s %s/h", line.len ? ", " : "", price,
			      currency ? currency : "");
	page_line(p);
	page_add_at(p, TUI_VALUE_COL, STYLE_DIM,
		    line.len ? mt_buf_cstr(&line) : "(count, hosts and price not set)");
	mt_buf_dispose(&line);
}

/* "Press x to start a run from here", with the key from actions.h. */
static void start_hint(struct tui_page *p)
{
	char keys[32], import[32], text[320];

	tui_action_keys(TUI_ACT_START_RUN, keys, sizeof(keys));
	tui_action_keys(TUI_ACT_IMPORT_RUN, import, sizeof(import));
	snprintf(text, sizeof(text),
		 "Press %s to start one from here: choose the system and the track, type the "
		 "command; it runs in the background and shows here as it goes. %s imports a "
		 "log made elsewhere.",
		 keys, import);
	page_line(p);
	page_para(p, TUI_LABEL_COL, STYLE_NORMAL, text);
}

static void nothing_yet(struct tui_page *p, const struct tui_ctx *ctx)
{
	long long gone = ctx->runs ? (long long)ctx->runs->withdrawn : 0;
	char text[96];

	tui_heading(p, "Systems (trial.yaml)");
	system_lines(p, ctx->model, "baseline");
	system_lines(p, ctx->model, "candidate");
	tui_heading(p, "Runs");
	snprintf(text, sizeof(text), "No runs left: %lld withdrawn (`mtrial runs --all` lists them).",
		 gone);
	page_para(p, TUI_LABEL_COL, STYLE_WARN, gone > 0 ? text : "No runs recorded yet.");
	page_para(p, TUI_LABEL_COL, STYLE_NORMAL,
		  "`mtrial run -- CMD` records runs (`--system baseline|candidate`): each "
		  "attempt with its two clocks (clock 1: submission to the first step; clock "
		  "2: the steady step time) and its time to the quality target. `mtrial runs "
		  "import LOG` brings in runs made elsewhere (MLPerf logs, CSV or JSON Lines "
		  "series). A run started in another terminal shows here while it runs.");
	start_hint(p);
}

static void runs_draw(void *state, const struct tui_ctx *ctx, struct tui_page *p)
{
	struct runs_state *st = state;
	int height = p->height > 0 ? p->height : 20;
	mt_run_view v;

	sync(st, ctx);
	if (!ctx->runs && record_pending(ctx->wizard)) /* read after this frame */
		page_para(p, 2, STYLE_DIM, "Reading the runs and their logs...");
	else if (!selected(st))
		nothing_yet(p, ctx);
	else if (st->systems)
		systems_draw(p, st);
	else if (st->compilation)
		tui_compilation_draw(&st->comp, p, ctx->trial, attempts(st), height);
	else if (st->scaling)
		tui_scaling_draw(&st->scale, p, ctx->trial, attempts(st));
	else if (st->details && view_at(st, st->cursor, &v))
		details_draw(p, &v, mt_author_name(selected(st)), ctx, height);
	else
		list_draw(p, st, ctx, height);
}

#define WITHDRAW_HERE "W withdraws the run selected in Runs & clocks (mtrial rm withdraws any record)"

/* `W`: why the run under the cursor is withdrawn. */
static int withdraw_start(struct runs_state *st, const struct tui_ctx *ctx)
{
	int64_t id = st->systems ? 0 : id_at(st, st->cursor);

	if (!id) {
		tui_message(ctx->wizard, 0, WITHDRAW_HERE);
		return TUI_HANDLED | TUI_REDRAW;
	}
	st->withdraw_id = id;
	snprintf(st->title, sizeof(st->title), "withdraw run #%lld, why: ", (long long)id);
	tui_screen_prompt(ctx->wizard, st->title, NULL);
	return TUI_HANDLED | TUI_REDRAW;
}

static int withdraw_input(void *state, const struct tui_ctx *ctx, const struct tui_key *k)
{
	struct runs_state *st = state;
	struct tui_wizard *w = ctx->wizard;
	char *text;
	int result;

	switch (prompt_input(&w->prompt, k)) {
	case PROMPT_CANCEL:
		tui_screen_ask_done(w);
		tui_message(w, 0, "Nothing withdrawn");
		return TUI_REDRAW;
	case PROMPT_DONE:
		tui_screen_ask_done(w);
		text = prompt_text(&w->prompt);
		result = record_withdraw_run(w, st->withdraw_id, text);
		free(text);
		return result;
	default:
		return TUI_REDRAW;
	}
}

/* A key for the step's open prompt or menu: the run's dialogue, or the
 * withdrawal's reason. */
static int runs_input(void *state, const struct tui_ctx *ctx, const struct tui_key *k)
{
	struct runs_state *st = state;
	int result;

	if (st->start.stage == RUNSTART_NONE)
		return withdraw_input(state, ctx, k);
	result = runstart_input(&st->start, ctx->wizard, k);
	if (st->start.imported) { /* the list, with the run imported selected once read */
		st->follow = st->start.imported;
		st->start.imported = 0;
		st->details = st->systems = st->compilation = st->scaling = 0;
	}
	return result;
}

static const char *runs_elsewhere(enum tui_action a)
{
	return a == TUI_ACT_WITHDRAW ? WITHDRAW_HERE : NULL;
}

static int runs_handle(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	struct runs_state *st = state;
	long to;

	if (a == TUI_ACT_WITHDRAW)
		return withdraw_start(st, ctx);
	sync(st, ctx);
	if (a == TUI_ACT_START_RUN)
		return runstart_begin(&st->start, ctx->wizard);
	if (a == TUI_ACT_IMPORT_RUN)
		return runstart_import_begin(&st->start, ctx->wizard);
	if (!selected(st))
		return TUI_UNHANDLED;
	if (a == TUI_ACT_SYSTEMS || a == TUI_ACT_COMPILATION || a == TUI_ACT_SCALING) {
		int *page = a == TUI_ACT_SYSTEMS ? &st->systems
			    : a == TUI_ACT_COMPILATION ? &st->compilation : &st->scaling;
		int open = !*page;
		st->systems = st->compilation = st->scaling = 0; /* one page at a time */
		*page = open;
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (a == TUI_ACT_BACK && (st->systems || st->compilation || st->scaling || st->details)) {
		st->systems ? (st->systems = 0)
		: st->compilation ? (st->compilation = 0)
		: st->scaling ? (st->scaling = 0) : (st->details = 0);
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (st->systems || st->compilation || st->scaling || st->details)
		return TUI_UNHANDLED; /* the frame scrolls the page */
	if (tui_list_target(a, st->cursor, st->list_rows, &to)) {
		st->cursor = to >= count(st) ? count(st) - 1 : to < 0 ? 0 : (int)to;
		st->follow = id_at(st, st->cursor);
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (a == TUI_ACT_OPEN) {
		st->details = 1;
		return TUI_HANDLED | TUI_REDRAW;
	}
	return TUI_UNHANDLED;
}

static void runs_done(void *state)
{
	struct runs_state *st = state;
	json_decref(st->runs.attempts);
	json_decref(st->runs.systems);
	tui_compilation_done(&st->comp);
	tui_scaling_done(&st->scale);
	runstart_done(&st->start);
}

/* x and I from any step: this step shows the run it starts or imports. */
static const enum tui_action summoned_by[] = {TUI_ACT_START_RUN, TUI_ACT_IMPORT_RUN, TUI_ACT_NONE};

const struct tui_screen_ops tui_runs_ops = {
	.name = "Runs & clocks",
	.step_id = "runs",
	.draw = runs_draw,
	.handle = runs_handle,
	.summoned_by = summoned_by,
	.summon = runs_handle,
	.input = runs_input,
	.elsewhere = runs_elsewhere,
	.done = runs_done,
	.private_size = sizeof(struct runs_state),
};
