/* The Summary step: the verdict on top (trial/decide.h, through the report
 * model's "decision", so the wizard shows what `mtrial decide` and the
 * report say), its summary and main caveat; the criteria as a checklist,
 * met, not met or unknown, j/k selecting one; the selected criterion's
 * evidence, source, threshold and value, conditions and what is missing
 * with the command that records it; then the report (w writes report.md
 * and report.html into the trial directory through report/render.h), the
 * quality target, the bundle for another team (b: tui/bundle.h) and the
 * facts trial.yaml does not give yet. One page that the frame scrolls; the
 * checklist is near its top. */
#include "screen.h"
#include "bundle.h"
#include "rows.h"
#include "model_path.h"
#include "render.h"
#include "error.h"
#include "util.h"
#include "jsonutil.h"
#include "decide.h"
#include "decide_view.h"
#include "sync_trial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LABEL_COL TUI_LABEL_COL
#define VALUE_COL TUI_VALUE_COL
#define FIELD_COL 13 /* values after "  threshold  " */

struct summary_state {
	int cursor;
	char follow[128];  /* the selected criterion's name, across reloads */
	char written[512]; /* what the last w did, "" before */
	int write_failed;
	struct tui_bundle bundle; /* b's dialogue, and what it wrote last */
};

/* The command that fills each step, for "Missing". */
static const struct {
	const char *id;
	const char *fills;
} step_commands[] = {
	{"repository", "`mtrial scan`"},
	{"ops", "`mtrial probe`"},
	{"correctness", "`mtrial check`"},
	{"runs", "`mtrial run -- CMD`"},
	{"effort", "`mtrial effort start`, `mtrial note TEXT`"},
	{"summary", "`mtrial decide`"},
};

/* The report model's decision (trial/decide.h) read into *d; the model's
 * own "error" when there is none, else NULL. */
static const char *decision_of(const struct tui_ctx *ctx, mt_decision_view *d)
{
	json_t *decision = jv_get(ctx->model, "decision");

	(void)mt_decide_view_read(d, decision); /* a key missing: that part unknown */
	mt_error_clear();
	return jv_string(ctx->model, "decision.error");
}

/* The name of criterion i, "" without one. */
static const char *criterion_name(const mt_decision_view *d, size_t i)
{
	mt_criterion_view c;

	(void)mt_decide_view_criterion(&c, d, i);
	return c.name ? c.name : "";
}

/* The cursor on the followed criterion, else held to the list. */
static void sync(struct summary_state *st, const struct tui_ctx *ctx)
{
	mt_decision_view d;
	int n;

	decision_of(ctx, &d);
	n = (int)d.n_criteria;
	for (size_t i = 0; i < d.n_criteria; i++)
		if (*criterion_name(&d, i) && strcmp(criterion_name(&d, i), st->follow) == 0)
			st->cursor = (int)i;
	st->cursor = st->cursor >= n ? n - 1 : st->cursor < 0 ? 0 : st->cursor;
	snprintf(st->follow, sizeof(st->follow), "%s", criterion_name(&d, (size_t)st->cursor));
	mt_error_clear();
}

/* --- the verdict and the checklist --------------------------------------------- */

static enum draw_style verdict_style(const char *verdict)
{
	if (!verdict)
		return STYLE_WARN;
	if (strcmp(verdict, "GO") == 0)
		return STYLE_OK;
	if (strcmp(verdict, "NO_GO") == 0)
		return STYLE_ERROR;
	return STYLE_WARN;
}

static void verdict_section(struct tui_page *p, const mt_decision_view *d, const char *error)
{
	page_line(p);
	page_add(p, STYLE_HEADING, "Verdict: ");
	page_add(p, verdict_style(d->verdict), d->headline ? d->headline : "not decided");
	if (!d->verdict) {
		page_para(p, LABEL_COL, STYLE_ERROR, error ? error : "the decision could not be made");
		return;
	}
	page_para(p, LABEL_COL, STYLE_NORMAL, d->summary);
	if (d->caveat) /* in two rows: the criteria follow on the first screen */
		tui_wrap_rows(p, d->caveat, LABEL_COL, 2, STYLE_DIM);
}

/* When the record last came and went with `mtrial sync` (h19sync): shown
 * once the trial has synced, read from its local record at each draw (a
 * small file). */
static void synced_line(struct tui_page *p, const struct tui_ctx *ctx)
{
	mt_sync_last l;
	int64_t min;
	char ago[48], *text = NULL;

	if (!ctx->trial || !mt_sync_trial_last(&l, ctx->trial->dir))
		return;
	min = (ctx->now_ms - l.at_ms) / 60000;
	if (min < 1)
		snprintf(ago, sizeof(ago), "just now");
	else if (min < 120)
		snprintf(ago, sizeof(ago), "%lld min ago", (long long)min);
	else if (min < 48 * 60)
		snprintf(ago, sizeof(ago), "%lld h ago", (long long)(min / 60));
	else
		snprintf(ago, sizeof(ago), "%lld days ago", (long long)(min / 1440));
	if (asprintf(&text, "Synced with %s %s (%zu events from %zu machine%s)", l.remote, ago,
		     l.events, l.machines, l.machines == 1 ? "" : "s") >= 0)
		page_para(p, LABEL_COL, STYLE_DIM, text);
	free(text);
	mt_sync_last_dispose(&l);
}

/* "[x] met", "[!] not met", "[?] unknown" and their style. */
static const char *status_text(const char *status, enum draw_style *s)
{
	if (status && strcmp(status, "met") == 0)
		return *s = STYLE_OK, "[x] met";
	if (status && strcmp(status, "not_met") == 0)
		return *s = STYLE_ERROR, "[!] not met";
	return *s = STYLE_WARN, "[?] unknown";
}

static void checklist(struct tui_page *p, const struct summary_state *st,
		      const struct tui_ctx *ctx, const mt_decision_view *d)
{
	mt_criterion_view c;

	tui_heading(p, "Criteria (trial.yaml)");
	if (!d->n_criteria) {
		page_para(p, LABEL_COL, STYLE_DIM,
			  "No go/no-go criteria in trial.yaml yet: without them the verdict "
			  "cannot be more than NOT ENOUGH EVIDENCE.");
		return;
	}
	page_add(p, STYLE_DIM, "  j/k select");
	for (size_t i = 0; mt_decide_view_criterion(&c, d, i) != MT_ENOTFOUND; i++) {
		enum draw_style s;
		const char *status = status_text(c.status, &s);
		mt_buf name = MT_BUF_INIT;
		mt_buf_printf(&name, "%s (%s)", c.name ?: "?", c.kind ?: "?");
		struct tui_cell cells[] = {
			{"", 1, 0, 0, STYLE_NORMAL},
			{status, 11, 0, 0, s},
			{mt_buf_cstr(&name), 0, 0, 0, STYLE_NORMAL},
		};
		tui_row(p, cells, 3, (int)i == st->cursor, ctx->focused);
		mt_buf_dispose(&name);
	}
}

/* --- the selected criterion ------------------------------------------------------ */

static void field(struct tui_page *p, const char *label, enum draw_style s, const char *text)
{
	if (!text || !*text)
		return;
	page_line(p);
	page_add_at(p, LABEL_COL, STYLE_DIM, label);
	page_add_at(p, FIELD_COL, s, "");
	page_wrap(p, FIELD_COL, s, text);
}

/* A number as the decision gives it ("2.1", "0.83"), or NULL. */
static const char *number(double v, char *buf, size_t size)
{
	if (isnan(v))
		return NULL;
	snprintf(buf, size, "%.4g", v);
	return buf;
}

static void criterion_detail(struct tui_page *p, const mt_criterion_view *c)
{
	enum draw_style s;
	const char *status = status_text(c->status, &s), *what, *command;
	char thr[32], val[32], title[192];

	snprintf(title, sizeof(title), "%s: %s", c->name ?: "?", status + 4);
	tui_rule(p, title);
	field(p, "evidence", s, c->evidence);
	field(p, "source", STYLE_DIM, c->source);
	if (!isnan(c->threshold) || !isnan(c->value)) {
		mt_buf b = MT_BUF_INIT;
		mt_buf_printf(&b, "%s, value %s", number(c->threshold, thr, sizeof(thr)) ?: "none",
			      number(c->value, val, sizeof(val)) ?: "not known");
		field(p, "threshold", STYLE_NORMAL, mt_buf_cstr(&b));
		mt_buf_dispose(&b);
	}
	field(p, "track", STYLE_NORMAL, c->track);
	if (c->design) /* which comparison: a reader must tell which recipe each side ran */
		field(p, "recipe", STYLE_NORMAL,
		      strcmp(c->design, "best") == 0
			      ? "best: each system its own (precision.best), same quality target"
			      : "matched: both systems the same (precision)");
	for (size_t i = 0; i < c->n_conditions; i++)
		field(p, i ? "" : "condition", STYLE_WARN, mt_decide_view_condition(c, i));
	for (size_t i = 0; mt_decide_view_missing(c, i, &what, &command) != MT_ENOTFOUND; i++) {
		field(p, i ? "" : "missing", STYLE_WARN, what);
		field(p, "", STYLE_CMD, command); /* wrapped, not cut as `quoted` */
	}
	field(p, "about", STYLE_DIM, c->description);
}

/* --- the report, the target, what is missing ------------------------------------- */

static void report_section(struct tui_page *p, const struct summary_state *st,
			   const struct tui_ctx *ctx)
{
	mt_buf b = MT_BUF_INIT;

	tui_heading(p, "Report");
	page_add(p, STYLE_DIM, "  w writes it");
	if (*st->written) {
		page_para(p, LABEL_COL, st->write_failed ? STYLE_ERROR : STYLE_OK, st->written);
		return;
	}
	mt_buf_printf(&b, "Not written from here yet: w writes report.md and report.html into %s "
		      "(`mtrial report --format md|html -o FILE` does the same).",
		      ctx->trial ? ctx->trial->dir : "the trial directory");
	page_para(p, LABEL_COL, STYLE_DIM, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

static void target_section(struct tui_page *p, const struct tui_ctx *ctx)
{
	json_t *m = ctx->model;
	char b1[64], b2[32], b3[32], b4[64];
	const char *threshold = jv_str(m, "spec.quality_target.threshold", b2, sizeof(b2));
	const char *direction = jv_str(m, "spec.quality_target.direction", b3, sizeof(b3));
	mt_buf line = MT_BUF_INIT;

	tui_heading(p, "Quality target (trial.yaml)");
	tui_field(p, "metric", jv_str(m, "spec.quality_target.metric", b1, sizeof(b1)));
	if (threshold)
		mt_buf_printf(&line, "%s%s%s%s", threshold, direction ? " (" : "",
			      direction ? direction : "", direction ? " is better)" : "");
	tui_field(p, "threshold", threshold ? mt_buf_cstr(&line) : NULL);
	mt_buf_dispose(&line);
	tui_field(p, "eval set", jv_str(m, "spec.quality_target.eval_set", b4, sizeof(b4)));
}

static const char *step_fills(const char *id)
{
	for (size_t i = 0; i < sizeof(step_commands) / sizeof(step_commands[0]); i++)
		if (id && strcmp(step_commands[i].id, id) == 0)
			return step_commands[i].fills;
	return "";
}

static void missing_section(struct tui_page *p, const struct tui_ctx *ctx)
{
	json_t *m = ctx->model;
	size_t n = json_array_size(jv_get(m, "steps"));

	tui_heading(p, "Missing");
	for (size_t i = 0; i < n; i++) {
		const char *id = jv_string_at(m, "steps.*.id", i);
		const char *status = jv_string_at(m, "steps.*.status", i);
		if (!status || !id || strcmp(status, "done") == 0 || strcmp(id, "summary") == 0)
			continue;
		page_line(p);
		page_addf(p, STYLE_WARN, "  %s %s",
			  draw_glyph(strcmp(status, "empty") ? GLYPH_PARTIAL : GLYPH_EMPTY),
			  jv_string_at(m, "steps.*.title", i));
		page_add(p, STYLE_DIM, strcmp(status, "empty") ? " (partial): " : ": ");
		page_wrap(p, LABEL_COL + 4, STYLE_DIM, step_fills(id));
	}
	n = json_array_size(jv_get(m, "missing"));
	if (n) {
		page_line(p);
		page_line(p);
		page_add_at(p, LABEL_COL, STYLE_NORMAL, "Facts trial.yaml does not give yet:");
	}
	for (size_t i = 0; i < n; i++) {
		char *text = NULL;
		if (asprintf(&text, "%s: %s", jv_string_at(m, "missing.*.field", i),
			     jv_string_at(m, "missing.*.why", i)) < 0)
			continue;
		page_para_hanging(p, LABEL_COL + 2, LABEL_COL + 4, STYLE_DIM, text);
		free(text);
	}
}

/* --- the screen -------------------------------------------------------------------- */

static void summary_draw(void *state, const struct tui_ctx *ctx, struct tui_page *p)
{
	struct summary_state *st = state;
	mt_decision_view d;
	mt_criterion_view c;
	const char *error = decision_of(ctx, &d);

	sync(st, ctx);
	if (!jv_get(ctx->model, "decision")) { /* the loop works it out after this frame */
		page_line(p);
		page_add(p, STYLE_HEADING, "Verdict: ");
		page_add(p, STYLE_DIM, "working out the decision from the record...");
		target_section(p, ctx);
		return;
	}
	verdict_section(p, &d, error);
	synced_line(p, ctx);
	checklist(p, st, ctx, &d);
	if (mt_decide_view_criterion(&c, &d, (size_t)st->cursor) != MT_ENOTFOUND)
		criterion_detail(p, &c);
	mt_error_clear();
	report_section(p, st, ctx);
	target_section(p, ctx); /* on the first screen at 80x24, before the bundle */
	tui_bundle_section(p, &st->bundle);
	missing_section(p, ctx);
}

/* Writes one format of the report into the trial directory, as `mtrial
 * report -o` does (long lists in full in the page beside it). */
static int write_one(const struct tui_ctx *ctx, const char *format, char **path)
{
	if (asprintf(path, "%s/report.%s", ctx->trial->dir, format) < 0) {
		*path = NULL;
		return mt_error_set(MT_EIO, "out of memory");
	}
	return mt_report_write(ctx->trial, format, ctx->now_ms, *path, NULL);
}

/* w: report.md, then report.html; what happened goes in the page. */
static int write_report(struct summary_state *st, const struct tui_ctx *ctx)
{
	char *md = NULL, *html = NULL, when[32];
	time_t now = (time_t)(ctx->now_ms / 1000);
	struct tm tm;
	int error;

	if (!ctx->trial) {
		snprintf(st->written, sizeof(st->written), "No trial open: nothing written");
		st->write_failed = 1;
		return TUI_HANDLED | TUI_REDRAW;
	}
	error = write_one(ctx, "md", &md);
	if (error == 0)
		error = write_one(ctx, "html", &html);
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	st->write_failed = error < 0;
	if (error < 0)
		snprintf(st->written, sizeof(st->written), "Not written (%s): %s", when,
			 mt_error_last());
	else
		snprintf(st->written, sizeof(st->written), "Written at %s: %s and report.html", when,
			 md);
	mt_error_clear();
	free(md);
	free(html);
	return TUI_HANDLED | TUI_REDRAW;
}

static int summary_handle(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	struct summary_state *st = state;
	mt_decision_view d;
	int n;

	sync(st, ctx);
	decision_of(ctx, &d);
	n = (int)d.n_criteria;
	if (a == TUI_ACT_WRITE_REPORT)
		return write_report(st, ctx);
	if (a == TUI_ACT_BUNDLE)
		return tui_bundle_begin(&st->bundle, ctx->wizard);
	if ((a != TUI_ACT_MOVE_UP && a != TUI_ACT_MOVE_DOWN) || n < 2)
		return TUI_UNHANDLED; /* the frame scrolls the page */
	st->cursor += a == TUI_ACT_MOVE_UP ? -1 : 1;
	st->cursor = st->cursor < 0 ? 0 : st->cursor >= n ? n - 1 : st->cursor;
	snprintf(st->follow, sizeof(st->follow), "%s", criterion_name(&d, (size_t)st->cursor));
	return TUI_HANDLED | TUI_REDRAW;
}

/* A key for b's prompt or menu. */
static int summary_input(void *state, const struct tui_ctx *ctx, const struct tui_key *k)
{
	struct summary_state *st = state;

	return tui_bundle_input(&st->bundle, ctx->wizard, k);
}

static const char *summary_elsewhere(enum tui_action a)
{
	return a == TUI_ACT_BUNDLE ? "b writes a bundle from the Summary step (mtrial bundle -o FILE "
				     "does it from anywhere)"
				   : NULL;
}

static void summary_done(void *state)
{
	struct summary_state *st = state;

	tui_bundle_done(&st->bundle);
}

const struct tui_screen_ops tui_summary_ops = {
	.name = "Summary",
	.step_id = "summary",
	.draw = summary_draw,
	.handle = summary_handle,
	.input = summary_input,
	.elsewhere = summary_elsewhere,
	.done = summary_done,
	.private_size = sizeof(struct summary_state),
};
