/* The six steps of a trial. Each is a screen that draws what the record
 * holds, read from the report model so that the wizard shows what the report
 * shows; a step with nothing recorded says what will appear there and which
 * command fills it. The steps with records to browse are in their own
 * files: Repository (repository.c), Ops (ops.c), Correctness (correctness.c), Runs & clocks (runs.c),
 * Tracks & effort (tracks.c). */
#include "screen.h"
#include "jview.h"
#include "journal.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_COL TUI_LABEL_COL
#define VALUE_COL TUI_VALUE_COL

/* The command that fills each step, for the summary's "missing". */
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

void tui_elapsed_fmt(char *buf, size_t size, int64_t ms)
{
	int64_t s = ms > 0 ? ms / 1000 : 0;
	snprintf(buf, size, "%lld:%02lld:%02lld", (long long)(s / 3600),
		 (long long)(s / 60 % 60), (long long)(s % 60));
}

const char *tui_step_status(json_t *model, const char *step_id)
{
	size_t i;
	json_t *step;

	json_array_foreach(jv_get(model, "steps"), i, step) {
		const char *id = json_string_value(json_object_get(step, "id"));
		if (id && step_id && strcmp(id, step_id) == 0)
			return json_string_value(json_object_get(step, "status"));
	}
	return NULL;
}

void tui_heading(struct tui_page *p, const char *text)
{
	if (p->nlines)
		page_line(p); /* a blank line between sections */
	page_line(p);
	page_add(p, STYLE_HEADING, text);
}

void tui_field(struct tui_page *p, const char *key, const char *value)
{
	page_line(p);
	page_add_at(p, LABEL_COL, STYLE_DIM, key);
	page_add_at(p, p->cur_col < VALUE_COL ? VALUE_COL : p->cur_col + 1,
		    value ? STYLE_NORMAL : STYLE_DIM, value ? value : "(not set)");
}

/* A spec value by dotted path under "spec". */
static const char *spec_str(const struct tui_ctx *ctx, const char *path, char *buf, size_t size)
{
	return jv_str(jv_get(ctx->model, "spec"), path, buf, size);
}

static void spec_field(struct tui_page *p, const struct tui_ctx *ctx, const char *key,
		       const char *path)
{
	char buf[64];
	tui_field(p, key, spec_str(ctx, path, buf, sizeof(buf)));
}

/* --- Summary --------------------------------------------------------------- */

static void criteria_section(struct tui_page *p, const struct tui_ctx *ctx)
{
	json_t *crit = jv_get(ctx->model, "spec.criteria"), *c;
	char b1[64], b2[64], b3[32];
	size_t i;

	tui_heading(p, "Criteria (trial.yaml)");
	if (!json_array_size(crit))
		page_para(p, LABEL_COL, STYLE_DIM, "No go/no-go criteria in trial.yaml yet.");
	json_array_foreach(crit, i, c) {
		const char *name = jv_str(c, "name", b1, sizeof(b1));
		const char *kind = jv_str(c, "kind", b2, sizeof(b2));
		const char *threshold = jv_str(c, "threshold", b3, sizeof(b3));
		page_line(p);
		page_addf(p, STYLE_NORMAL, "  %s", name ? name : "(unnamed)");
		page_addf(p, STYLE_DIM, " (%s)", kind ? kind : "no kind");
		if (threshold)
			page_addf(p, STYLE_NORMAL, " threshold %s", threshold);
		const char *desc = json_string_value(json_object_get(c, "description"));
		if (desc && *desc)
			page_para(p, LABEL_COL + 2, STYLE_DIM, desc);
	}
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
	json_t *step, *fact;
	size_t i;

	tui_heading(p, "Missing");
	json_array_foreach(jv_get(ctx->model, "steps"), i, step) {
		const char *id = json_string_value(json_object_get(step, "id"));
		const char *status = json_string_value(json_object_get(step, "status"));
		if (!status || strcmp(status, "done") == 0 || strcmp(id, "summary") == 0)
			continue;
		page_line(p);
		page_addf(p, STYLE_WARN, "  %s %s",
			  draw_glyph(strcmp(status, "empty") ? GLYPH_PARTIAL : GLYPH_EMPTY),
			  json_string_value(json_object_get(step, "title")));
		page_add(p, STYLE_DIM, strcmp(status, "empty") ? " (partial): " : ": ");
		page_wrap(p, LABEL_COL + 4, STYLE_DIM, step_fills(id));
	}
	if (json_array_size(jv_get(ctx->model, "missing"))) {
		page_line(p);
		page_line(p);
		page_add_at(p, LABEL_COL, STYLE_NORMAL, "Facts trial.yaml does not give yet:");
	}
	json_array_foreach(jv_get(ctx->model, "missing"), i, fact) {
		char *text = NULL;
		if (asprintf(&text, "%s: %s", json_string_value(json_object_get(fact, "field")),
			     json_string_value(json_object_get(fact, "why"))) < 0)
			continue;
		page_para_hanging(p, LABEL_COL + 2, LABEL_COL + 4, STYLE_DIM, text);
		free(text);
	}
}

static void summary_draw(void *state, const struct tui_ctx *ctx, struct tui_page *p)
{
	char b1[32], b2[32];
	const char *threshold, *direction;
	mt_buf line = MT_BUF_INIT;

	(void)state;
	tui_heading(p, "Quality target (trial.yaml)");
	spec_field(p, ctx, "metric", "quality_target.metric");
	threshold = spec_str(ctx, "quality_target.threshold", b1, sizeof(b1));
	direction = spec_str(ctx, "quality_target.direction", b2, sizeof(b2));
	if (threshold)
		mt_buf_printf(&line, "%s%s%s%s", threshold, direction ? " (" : "",
			      direction ? direction : "", direction ? " is better)" : "");
	tui_field(p, "threshold", threshold ? mt_buf_cstr(&line) : NULL);
	mt_buf_dispose(&line);
	spec_field(p, ctx, "eval set", "quality_target.eval_set");
	criteria_section(p, ctx);
	tui_heading(p, "Go / no-go");
	page_line(p);
	page_add_at(p, LABEL_COL, STYLE_WARN, "verdict: not yet evaluated");
	page_add_rich(p, STYLE_NORMAL, " (`mtrial decide`)");
	missing_section(p, ctx);
}

static const struct tui_screen_ops summary_ops = {
	.name = "Summary",
	.step_id = "summary",
	.draw = summary_draw,
};

const struct tui_screen_ops *const tui_step_ops[TUI_NSTEPS] = {
	&tui_repository_ops, &tui_ops_ops, &tui_correctness_ops, &tui_runs_ops, &tui_tracks_ops, &summary_ops,
};
