/* The Ops step's prompts and menus: the table to probe with (p), the
 * source of the ops (i), the differences (D), a team finding about the
 * selected op (r: a status, then a note) and the filter (/ its text, S its
 * status). The step owns them; the dispatcher only hands them keys. */
#include "ops_int.h"
#include "wizard.h"
#include "compat.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPEN_NONE, OPEN_PROBE_TABLE, OPEN_SOURCE, OPEN_FINDING_STATUS, OPEN_FINDING_NOTE,
       OPEN_FILTER, OPEN_SHOW_STATUS };

/* What a team can find out about an op or an API (`mtrial override`):
 * every status but unknown. */
static const char *const finding_statuses[] = {"device", "cpu_fallback", "unsupported",
					       "partial", NULL};

static int index_of(const char *const *items, const char *item)
{
	for (int i = 0; item && items[i]; i++)
		if (strcmp(items[i], item) == 0)
			return i;
	return -1;
}

static int open_menu(void *state, struct tui_wizard *w, int what, const char *title,
		     const char *const *items, int sel)
{
	tui_ops_prompt(state)->open = what;
	tui_screen_menu(w, title, items, sel);
	return TUI_HANDLED | TUI_REDRAW;
}

static int open_prompt(void *state, struct tui_wizard *w, int what, const char *title,
		       const char *initial)
{
	tui_ops_prompt(state)->open = what;
	tui_screen_prompt(w, title, initial);
	return TUI_HANDLED | TUI_REDRAW;
}

static int closed(void *state, struct tui_wizard *w)
{
	tui_ops_prompt(state)->open = OPEN_NONE;
	tui_screen_ask_done(w);
	return TUI_REDRAW;
}

/* `p`: the menu of tables. */
static int probe_start(void *state, const struct tui_ctx *ctx)
{
	struct tui_wizard *w = ctx->wizard;

	if (!ctx->scan_id) {
		tui_message(w, 0, "Nothing scanned yet: press s to scan the repository first");
		return TUI_HANDLED | TUI_REDRAW;
	}
	return open_menu(state, w, OPEN_PROBE_TABLE, "Probe the ops with which table?",
			 (const char *const *)w->table_items, record_tables(w));
}

/* `D`: the differences, or what to record before there are any. */
static int diff_start(void *state, const struct tui_ctx *ctx)
{
	json_t *diff = NULL;
	int64_t steps[2];
	char *why = NULL;

	record_diff(ctx->wizard, &diff, steps, &why);
	if (diff || why)
		tui_ops_show_diff(state, diff, steps, why);
	json_decref(diff);
	free(why);
	return TUI_HANDLED | TUI_REDRAW;
}

static int finding_start(void *state, const struct tui_ctx *ctx)
{
	struct ops_prompt *pr = tui_ops_prompt(state);
	/* the row selected: an API when the probe lists APIs, else an op */
	const char *op = tui_ops_selected_name(state);
	int sel;

	if (!op) {
		tui_message(ctx->wizard, 0, "No op selected: %s",
			    ctx->probe ? "the filter shows none" : "press p to probe the ops first");
		return TUI_HANDLED | TUI_REDRAW;
	}
	free(pr->finding_op);
	pr->finding_op = mt_strdup(op);
	sel = index_of(finding_statuses, tui_ops_selected_status(state));
	snprintf(pr->title, sizeof(pr->title), "%s on the candidate:", op);
	return open_menu(state, ctx->wizard, OPEN_FINDING_STATUS, pr->title, finding_statuses,
			 sel < 0 ? 0 : sel);
}

/* `S`: which statuses to show. */
static int show_status_start(void *state, const struct tui_ctx *ctx)
{
	static const char *items[TUI_MENU_MAX + 1] = {"all"};
	int sel;

	for (int i = 0; mt_compat_status_order[i] && i < TUI_MENU_MAX - 1; i++)
		items[i + 1] = mt_compat_status_order[i];
	sel = index_of(items, tui_ops_filter_status(state));
	return open_menu(state, ctx->wizard, OPEN_SHOW_STATUS, "Show which ops?", items,
			 sel < 0 ? 0 : sel);
}

int ops_prompt_action(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	struct ops_prompt *pr = tui_ops_prompt(state);
	struct tui_wizard *w = ctx->wizard;

	switch (a) {
	case TUI_ACT_PROBE:
		return probe_start(state, ctx);
	case TUI_ACT_OP_SOURCE: /* each source says what it is or how to record it */
		return open_menu(state, w, OPEN_SOURCE, "Show the ops of which source?",
				 (const char *const *)w->source_items, record_sources(w));
	case TUI_ACT_OP_DIFF:
		return diff_start(state, ctx);
	case TUI_ACT_FINDING:
		return finding_start(state, ctx);
	case TUI_ACT_FILTER: /* the list follows the text as it is typed */
		free(pr->filter_before);
		pr->filter_before = mt_strdup(tui_ops_filter_text(state));
		return open_prompt(state, w, OPEN_FILTER, "filter ops: ", pr->filter_before);
	case TUI_ACT_SHOW_STATUS:
		return show_status_start(state, ctx);
	default:
		return TUI_UNHANDLED;
	}
}

const char *ops_prompt_elsewhere(enum tui_action a)
{
	return a == TUI_ACT_FINDING ? "r records a finding about the op selected in Ops & "
				      "compatibility"
				    : NULL;
}

/* A menu's choice: MENU_CONTINUE and MENU_CANCEL as menu_input's. */
static int menu_chosen(void *state, const struct tui_ctx *ctx, int i)
{
	struct ops_prompt *pr = tui_ops_prompt(state);
	struct tui_wizard *w = ctx->wizard;
	int what = pr->open;
	static const char *const cancelled[] = {
		[OPEN_PROBE_TABLE] = "Probe cancelled",
		[OPEN_SOURCE] = "The ops' source is unchanged",
		[OPEN_FINDING_STATUS] = "Finding cancelled: nothing recorded",
	};

	if (i == MENU_CONTINUE)
		return TUI_REDRAW;
	closed(state, w);
	if (i == MENU_CANCEL) {
		if (what != OPEN_SHOW_STATUS)
			tui_message(w, 0, "%s", cancelled[what]);
		return TUI_REDRAW;
	}
	switch (what) {
	case OPEN_PROBE_TABLE:
		return record_probe(w, w->tables[i]);
	case OPEN_SOURCE:
		tui_ops_show_diff(state, NULL, NULL, NULL); /* the list shows the new source */
		return record_probe_source(w, record_source_names[i]);
	case OPEN_FINDING_STATUS:
		pr->finding_status = finding_statuses[i];
		return open_prompt(state, w, OPEN_FINDING_NOTE,
				   "note (who, where, which version): ", NULL) & ~TUI_HANDLED;
	default: /* OPEN_SHOW_STATUS */
		tui_ops_set_filter_status(state, i == 0 ? NULL : w->menu.items[i]);
		return TUI_REDRAW;
	}
}

/* The filter's prompt: the list follows each key; Esc puts back the
 * filter it started from. */
static int filter_input(void *state, struct tui_wizard *w, const struct tui_key *k)
{
	struct ops_prompt *pr = tui_ops_prompt(state);
	enum prompt_result r = prompt_input(&w->prompt, k);
	char *text = r == PROMPT_CANCEL ? mt_strdup(pr->filter_before) : prompt_text(&w->prompt);

	if (strcmp(text, tui_ops_filter_text(state)) != 0)
		tui_ops_set_filter_text(state, text);
	if (r != PROMPT_CONTINUE)
		closed(state, w);
	free(text);
	return TUI_REDRAW;
}

static int finding_note_input(void *state, struct tui_wizard *w, const struct tui_key *k)
{
	struct ops_prompt *pr = tui_ops_prompt(state);
	char *text;
	int result;

	switch (prompt_input(&w->prompt, k)) {
	case PROMPT_CANCEL:
		closed(state, w);
		tui_message(w, 0, "Finding cancelled: nothing recorded");
		return TUI_REDRAW;
	case PROMPT_DONE:
		closed(state, w);
		text = prompt_text(&w->prompt);
		result = record_finding(w, pr->finding_op, pr->finding_status, text);
		free(text);
		return result;
	default:
		return TUI_REDRAW;
	}
}

int ops_prompt_input(void *state, const struct tui_ctx *ctx, const struct tui_key *k)
{
	struct tui_wizard *w = ctx->wizard;

	switch (tui_ops_prompt(state)->open) {
	case OPEN_FILTER:
		return filter_input(state, w, k);
	case OPEN_FINDING_NOTE:
		return finding_note_input(state, w, k);
	case OPEN_NONE:
		return closed(state, w);
	default:
		return menu_chosen(state, ctx, menu_input(&w->menu, k));
	}
}

void ops_prompt_dispose(struct ops_prompt *pr)
{
	free(pr->finding_op);
	free(pr->filter_before);
	memset(pr, 0, sizeof(*pr));
}
