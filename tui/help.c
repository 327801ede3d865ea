/* The help screen, generated from the action table: every binding in
 * actions.h appears here with its keys, its name and its help text. */
#include "screen.h"

#define HELP_KEYS_COL 2
#define HELP_TEXT_COL 24

static void help_draw(void *state, const struct tui_ctx *ctx, struct tui_page *p)
{
	char keys[96];

	(void)state;
	(void)ctx;
	page_line(p);
	page_add(p, STYLE_HEADING, "Keys");
	page_add(p, STYLE_DIM, "  (Esc, q or ? closes this help)");
	for (int a = 0; a < TUI_ACT__COUNT; a++) {
		tui_action_keys(a, keys, sizeof(keys));
		page_line(p);
		page_add_at(p, HELP_KEYS_COL, STYLE_KEY, keys);
		page_add_at(p, HELP_TEXT_COL, STYLE_DIM, tui_action_name(a));
		page_para(p, HELP_TEXT_COL + 2, STYLE_NORMAL, tui_action_help(a));
	}
	page_line(p);
	page_line(p);
	page_add(p, STYLE_HEADING, "The record");
	page_para(p, HELP_KEYS_COL, STYLE_NORMAL,
		  "The wizard shows the trial's record as `mtrial report` does and reloads "
		  "it every 2 seconds, so notes and timers from other terminals "
		  "(`mtrial note TEXT`, `mtrial effort start`) appear here too.");
	page_para(p, HELP_KEYS_COL, STYLE_NORMAL,
		  "Step marks: filled = done, half = partly recorded, empty = nothing yet.");
}

static int help_handle(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	(void)state;
	(void)ctx;
	switch (a) {
	case TUI_ACT_HELP:
	case TUI_ACT_BACK:
	case TUI_ACT_QUIT:
		return TUI_HANDLED | TUI_CLOSE | TUI_REDRAW;
	case TUI_ACT_FOCUS:
	case TUI_ACT_OPEN:
		return TUI_HANDLED; /* nothing to focus or open in help */
	default:
		return TUI_UNHANDLED;
	}
}

const struct tui_screen_ops tui_help_ops = {
	.name = "Help",
	.draw = help_draw,
	.handle = help_handle,
};
