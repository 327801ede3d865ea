/* The Repository step: the workload as trial.yaml gives it (or as the latest
 * scan found it), the scan's summary from the report model, so the wizard
 * says what the report says, and the scan's whole inventory to browse by
 * op, by file and by finding (inventory.c). `s` from any step shows it and
 * asks what to scan: the repository, then the revision, in its prompts. */
#include "screen.h"
#include "inventory.h"
#include "model_path.h"
#include "util.h"
#include "wizard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHORT_ID 12
#define TOP_OPS 5

/* What the step shows: the summary, or one of the inventory's views. */
enum repo_view { VIEW_SUMMARY, VIEW_OPS, VIEW_FILES, VIEW_FINDINGS };

struct repo_state {
	enum repo_view view; /* calloc'ed: the summary */
	struct inventory inv;
	enum { ASK_NONE, ASK_REPO, ASK_REV } asking; /* the scan's prompts */
	char *scan_repo; /* owned: the repository the first prompt chose */
};

static enum inv_view inv_view_of(enum repo_view v)
{
	return v == VIEW_FILES ? INV_FILES : v == VIEW_FINDINGS ? INV_FINDINGS : INV_OPS;
}

/* --- the summary ---------------------------------------------------------- */

/* A spec value, or the scan's with a note that it came from there. */
static void spec_or_scan(struct tui_page *p, const char *key, const char *spec_value,
			 const char *scan_value)
{
	tui_field(p, key, spec_value ? spec_value : scan_value);
	if (!spec_value && scan_value)
		page_add(p, STYLE_DIM, " (scanned)");
}

static void workload_section(struct tui_page *p, const struct tui_ctx *ctx)
{
	json_t *model = ctx->model;
	char b1[64], b2[64], rev[SHORT_ID + 1];
	const char *name, *extra, *scanned = jv_string(model, "scan.rev");
	mt_buf line = MT_BUF_INIT;

	/* a relative repository ("..", as init writes it) read against the trial */
	char *repo = mt_trial_repository(ctx->trial);

	snprintf(rev, sizeof(rev), "%s", scanned ? scanned : "");
	tui_heading(p, "Workload");
	spec_or_scan(p, "repository",
		     repo ? repo : jv_str(model, "spec.workload.repository", b1, sizeof(b1)),
		     jv_string(model, "scan.repo"));
	free(repo);
	spec_or_scan(p, "revision", jv_str(model, "spec.workload.revision", b1, sizeof(b1)),
		     *rev ? rev : NULL);
	name = jv_str(model, "spec.workload.model.name", b1, sizeof(b1));
	extra = jv_str(model, "spec.workload.model.config", b2, sizeof(b2));
	if (name)
		mt_buf_printf(&line, "%s%s%s%s", name, extra ? " (" : "", extra ? extra : "",
			      extra ? ")" : "");
	tui_field(p, "model", name ? mt_buf_cstr(&line) : NULL);
	mt_buf_dispose(&line);
	tui_field(p, "dataset", jv_str(model, "spec.workload.dataset.name", b1, sizeof(b1)));
	tui_field(p, "token unit", jv_str(model, "spec.workload.token_unit", b1, sizeof(b1)));
}

/* "o by op  f by file  e by finding  s scans again", keys from actions.h. */
static void key_hints(struct tui_page *p, int scanned)
{
	static const struct {
		enum tui_action a;
		const char *what;
	} hints[] = {{TUI_ACT_BY_OP, "by op"},
		     {TUI_ACT_BY_FILE, "by file"},
		     {TUI_ACT_BY_FINDING, "by finding"},
		     {TUI_ACT_SCAN, "scans again"}};
	char keys[32];

	page_line(p);
	page_add_at(p, TUI_LABEL_COL, STYLE_DIM, "");
	for (size_t i = scanned ? 0 : 3; i < sizeof(hints) / sizeof(hints[0]); i++) {
		tui_action_keys(hints[i].a, keys, sizeof(keys));
		page_add(p, STYLE_KEY, keys);
		page_addf(p, STYLE_NORMAL, " %s%s", scanned ? hints[i].what : "scans",
			  i + 1 < sizeof(hints) / sizeof(hints[0]) ? "  " : "");
	}
}

/* The folders a scan was limited to (scan --path, trial.yaml scan.paths). */
static void paths_field(struct tui_page *p, json_t *paths)
{
	mt_buf b = MT_BUF_INIT;
	json_t *v;
	size_t i;

	json_array_foreach(paths, i, v)
		mt_buf_printf(&b, "%s%s", i ? ", " : "", json_string_value(v));
	tui_field(p, "limited to", mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

static void findings_field(struct tui_page *p, json_t *model)
{
	static const char *const levels[] = {"high", "medium", "low", "none"};
	const json_int_t by[] = {jv_int(model, "scan.totals.findings_by_effort.high", 0),
				 jv_int(model, "scan.totals.findings_by_effort.medium", 0),
				 jv_int(model, "scan.totals.findings_by_effort.low", 0),
				 jv_int(model, "scan.totals.findings_by_effort.none", 0)};
	char label[16];

	snprintf(label, sizeof(label), "%lld", (long long)jv_int(model, "scan.totals.findings", 0));
	tui_field(p, "findings", label);
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		json_int_t n = by[i];
		if (!n && !strcmp(levels[i], "none"))
			continue; /* only high, medium and low are always worth a zero */
		page_add(p, STYLE_NORMAL, i ? ", " : ": ");
		page_addf(p, n ? inventory_effort_style(levels[i]) : STYLE_DIM, "%lld %s",
			  (long long)n, levels[i]);
	}
}

static void top_ops_field(struct tui_page *p, json_t *model)
{
	size_t n = json_array_size(jv_get(model, "scan.top_ops"));
	mt_buf line = MT_BUF_INIT;
	char *fit;

	for (size_t i = 0; i < n && i < TOP_OPS; i++)
		mt_buf_printf(&line, "%s%s %lld", i ? ", " : "",
			      jv_string_at(model, "scan.top_ops.*.op", i),
			      (long long)jv_int_at(model, "scan.top_ops.*.count", i, 0));
	fit = draw_fit(line.len ? mt_buf_cstr(&line) : "none", p->width - TUI_VALUE_COL, 0);
	tui_field(p, "top ops", fit);
	free(fit);
	mt_buf_dispose(&line);
}

static void cuda_only_field(struct tui_page *p, json_t *model)
{
	size_t n = json_array_size(jv_get(model, "scan.cuda_only_dependencies"));
	mt_buf line = MT_BUF_INIT;
	char *fit;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		int64_t at = jv_int_at(model, "scan.cuda_only_dependencies.*.line", i, 0);
		mt_buf_printf(&line, "%s%s (%s:%lld)", i ? ", " : "",
			      jv_string_at(model, "scan.cuda_only_dependencies.*.name", i),
			      jv_string_at(model, "scan.cuda_only_dependencies.*.file", i), (long long)at);
	}
	fit = draw_fit(mt_buf_cstr(&line), p->width - TUI_VALUE_COL, 0);
	page_line(p);
	page_add_at(p, TUI_LABEL_COL, STYLE_DIM, "CUDA-only");
	page_add_at(p, TUI_VALUE_COL, STYLE_ERROR, fit);
	free(fit);
	mt_buf_dispose(&line);
}

/* The report model's scan section; what was asked for (requested_rev) is
 * the recorded scan's, read through its view (inventory.c's). */
static void scan_summary(struct tui_page *p, const struct tui_ctx *ctx, const mt_scan_view *v)
{
	json_t *model = ctx->model;
	const char *rev = jv_string(model, "scan.rev");
	const char *asked = v->requested_rev;
	char when[32], buf[128];

	snprintf(buf, sizeof(buf), "#%lld, %s", (long long)jv_int(model, "scan.id", 0),
		 jv_time(jv_get(model, "scan.created"), when, sizeof(when)));
	tui_field(p, "scan", buf);
	snprintf(buf, sizeof(buf), "%.*s", SHORT_ID, rev ? rev : "?");
	tui_field(p, "revision", buf);
	if (asked && ctx->scan_id == jv_int(model, "scan.id", 0) &&
	    (!rev || strncmp(rev, asked, strlen(asked)) != 0)) /* a name, not the id */
		page_addf(p, STYLE_DIM, " (%s)", asked);
	if (json_is_true(jv_get(model, "scan.worktree")))
		page_add(p, STYLE_WARN, " + work tree");
	if (json_array_size(jv_get(model, "scan.paths")))
		paths_field(p, jv_get(model, "scan.paths"));
	snprintf(buf, sizeof(buf), "%lld Python, %lld skipped, %lld lines",
		 (long long)jv_int(model, "scan.files_scanned", 0),
		 (long long)jv_int(model, "scan.files_skipped", 0),
		 (long long)jv_int(model, "scan.totals.lines", 0));
	tui_field(p, "files", buf);
	snprintf(buf, sizeof(buf), "%lld torch calls",
		 (long long)jv_int(model, "scan.totals.calls", 0));
	tui_field(p, "calls", buf);
	snprintf(buf, sizeof(buf), "%lld of them to an aten op",
		 (long long)jv_int(model, "scan.totals.calls_mapped", 0));
	tui_field(p, "mapped", buf);
	snprintf(buf, sizeof(buf), "%lld tensor methods (%lld certain)",
		 (long long)jv_int(model, "scan.totals.methods", 0),
		 (long long)jv_int(model, "scan.totals.methods_certain", 0));
	tui_field(p, "methods", buf);
	/* both kinds of site, as the probe judges them; an older scan record
	 * has only the torch calls' count, and says so */
	if (jv_get(model, "scan.totals.ops_with_methods"))
		snprintf(buf, sizeof(buf), "%lld distinct (%lld at torch calls)",
			 (long long)jv_int(model, "scan.totals.ops_with_methods", 0),
			 (long long)jv_int(model, "scan.totals.ops", 0));
	else
		snprintf(buf, sizeof(buf), "%lld distinct at torch calls",
			 (long long)jv_int(model, "scan.totals.ops", 0));
	tui_field(p, "ops", buf);
	findings_field(p, model);
	top_ops_field(p, model);
	cuda_only_field(p, model);
}

static void inventory_section(struct tui_page *p, const struct tui_ctx *ctx,
			      const mt_scan_view *v)
{
	tui_heading(p, "Op inventory");
	if (!json_is_object(jv_get(ctx->model, "scan"))) {
		page_line(p);
		page_add_at(p, TUI_LABEL_COL, STYLE_WARN, "Nothing scanned yet.");
		page_para(p, TUI_LABEL_COL, STYLE_NORMAL,
			  "A scan lists every torch call in the code at a revision with its aten "
			  "op, file by file, and what Trainium needs changed, by effort. Press "
			  "`s`, or run `mtrial scan`.");
		return;
	}
	scan_summary(p, ctx, v);
	page_line(p);
	key_hints(p, 1);
}

static void summary_draw(struct tui_page *p, const struct tui_ctx *ctx, const mt_scan_view *v)
{
	char buf[64];

	workload_section(p, ctx);
	inventory_section(p, ctx, v);
	tui_heading(p, "Trial record");
	tui_field(p, "directory", jv_str(ctx->model, "trial.dir", buf, sizeof(buf)));
}

/* --- the screen ----------------------------------------------------------- */

/* A scan that is not the one shown (a rescan, from here or from another
 * terminal) starts again at the summary: cursors into the old one mean
 * nothing in the new. */
static void sync(struct repo_state *st, const struct tui_ctx *ctx)
{
	int64_t had = st->inv.scan_id; /* 0: the full scan not read until a list asked */

	if (inventory_sync(&st->inv, ctx->scan, ctx->scan_id) && had)
		st->view = VIEW_SUMMARY;
}

static void repository_draw(void *state, const struct tui_ctx *ctx, struct tui_page *p)
{
	struct repo_state *st = state;

	sync(st, ctx);
	if (st->view == VIEW_SUMMARY) {
		summary_draw(p, ctx, &st->inv.view);
	} else if (!st->inv.scan) {
		tui_heading(p, "Op inventory");
		page_para(p, TUI_LABEL_COL, STYLE_WARN,
			  "Nothing scanned yet: press `s` to scan the repository.");
	} else {
		inventory_draw(&st->inv, inv_view_of(st->view), ctx, p);
	}
}

/* A view's key shows it, or the summary again when it is showing. The
 * lists need the scan's full result, read now (not before the first
 * frame: megabytes on a large repository). */
static int show(struct repo_state *st, const struct tui_ctx *ctx, enum repo_view v)
{
	st->view = st->view == v ? VIEW_SUMMARY : v;
	if (st->view != VIEW_SUMMARY)
		record_full(ctx->wizard);
	return TUI_HANDLED | TUI_REDRAW;
}

static int repository_handle(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	struct repo_state *st = state;
	int result;

	sync(st, ctx);
	switch (a) {
	case TUI_ACT_BY_OP:
		return show(st, ctx, VIEW_OPS);
	case TUI_ACT_BY_FILE:
		return show(st, ctx, VIEW_FILES);
	case TUI_ACT_BY_FINDING:
		return show(st, ctx, VIEW_FINDINGS);
	default:
		break;
	}
	if (st->view == VIEW_SUMMARY)
		return TUI_UNHANDLED; /* the frame scrolls the summary */
	result = inventory_handle(&st->inv, inv_view_of(st->view), a);
	if (result == TUI_UNHANDLED && a == TUI_ACT_BACK) {
		st->view = VIEW_SUMMARY;
		return TUI_HANDLED | TUI_REDRAW;
	}
	return result;
}

/* --- the scan's prompts ------------------------------------------------------- */

/* `s` from any step (shown, with the keyboard): the repository prompt, with
 * the trial's as its default. */
static int repository_summon(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	struct repo_state *st = state;
	char *repo, *rev;

	(void)a;
	record_scan_defaults(ctx->wizard, &repo, &rev);
	tui_screen_prompt(ctx->wizard, "scan repository: ", repo);
	st->asking = ASK_REPO;
	free(repo);
	free(rev);
	return TUI_HANDLED | TUI_REDRAW;
}

static void scan_asked(struct repo_state *st, struct tui_wizard *w)
{
	st->asking = ASK_NONE;
	free(st->scan_repo);
	st->scan_repo = NULL;
	tui_screen_ask_done(w);
}

/* A key for the repository prompt, then the revision's; an emptied
 * prompt takes its default. */
static int repository_input(void *state, const struct tui_ctx *ctx, const struct tui_key *k)
{
	struct repo_state *st = state;
	struct tui_wizard *w = ctx->wizard;
	char *text, *repo, *rev;
	int result = TUI_REDRAW;

	switch (prompt_input(&w->prompt, k)) {
	case PROMPT_CANCEL:
		scan_asked(st, w);
		tui_message(w, 0, "Scan cancelled");
		return TUI_REDRAW;
	case PROMPT_DONE:
		break;
	default:
		return TUI_REDRAW;
	}
	text = prompt_text(&w->prompt);
	record_scan_defaults(w, &repo, &rev);
	if (st->asking == ASK_REPO) {
		free(st->scan_repo);
		st->scan_repo = mt_strdup(*text ? text : repo);
		tui_screen_prompt(w, "scan revision: ", rev);
		st->asking = ASK_REV;
	} else {
		char *chosen = st->scan_repo;
		st->scan_repo = NULL;
		scan_asked(st, w);
		result = record_scan(w, chosen, text);
		free(chosen);
	}
	free(text);
	free(repo);
	free(rev);
	return result;
}

static void repository_done(void *state)
{
	struct repo_state *st = state;
	inventory_dispose(&st->inv);
	free(st->scan_repo);
}

static const enum tui_action summoned_by[] = {TUI_ACT_SCAN, TUI_ACT_NONE};

const struct tui_screen_ops tui_repository_ops = {
	.name = "Repository",
	.step_id = "repository",
	.draw = repository_draw,
	.handle = repository_handle,
	.summoned_by = summoned_by,
	.summon = repository_summon,
	.input = repository_input,
	.done = repository_done,
	.private_size = sizeof(struct repo_state),
};
