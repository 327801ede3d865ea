/* The six steps of a trial, in order, and what they draw with. Each step
 * is a screen in its own file that draws what the record holds, read from
 * the report model so that the wizard shows what the report shows; a step
 * with nothing recorded says what will appear there and which command fills
 * it: Repository (repository.c), Ops (ops.c), Correctness (correctness.c),
 * Runs & clocks (runs.c), Tracks & effort (tracks.c), Summary (summary.c). */
#include "screen.h"
#include "model_path.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#define LABEL_COL TUI_LABEL_COL
#define VALUE_COL TUI_VALUE_COL

void tui_elapsed_fmt(char *buf, size_t size, int64_t ms)
{
	int64_t s = ms > 0 ? ms / 1000 : 0;
	snprintf(buf, size, "%lld:%02lld:%02lld", (long long)(s / 3600),
		 (long long)(s / 60 % 60), (long long)(s % 60));
}

/* The index of the model's step step_id, or the number of steps (which
 * reads as none) when it has none. */
static size_t model_step(json_t *model, const char *step_id)
{
	size_t i, n = json_array_size(jv_get(model, "steps"));

	for (i = 0; i < n; i++) {
		const char *id = jv_string_at(model, "steps.*.id", i);
		if (id && step_id && strcmp(id, step_id) == 0)
			break;
	}
	return i;
}

const char *tui_step_status(json_t *model, const char *step_id)
{
	return jv_string_at(model, "steps.*.status", model_step(model, step_id));
}

const char *tui_step_label(json_t *model, const char *step_id)
{
	size_t i = model_step(model, step_id);

	/* the Summary's verdict says more than "done" */
	return jv_string_at(model, "steps.*.verdict", i)
		       ?: jv_string_at(model, "steps.*.status", i);
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

const struct tui_screen_ops *const tui_step_ops[TUI_NSTEPS] = {
	&tui_repository_ops, &tui_ops_ops, &tui_correctness_ops, &tui_runs_ops, &tui_tracks_ops, &tui_summary_ops,
};
