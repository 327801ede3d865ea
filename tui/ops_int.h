/* What ops.c (the Ops step's drawing and moving) and ops_prompt.c (its
 * prompts and menus) share. Private to the Ops step. */
#ifndef MT_TUI_OPS_INT_H
#define MT_TUI_OPS_INT_H

#include "screen.h"

/* The Ops step's open prompt or menu and what its earlier answers were. */
struct ops_prompt {
	int open;              /* which one is open (ops_prompt.c), 0: none */
	char *finding_op;      /* owned; the op a finding is about */
	const char *finding_status; /* chosen in the finding's menu */
	char *filter_before;   /* owned; the filter the text prompt started
				  from, for Esc to restore */
	char title[160];       /* a menu's title made for the occasion */
};

/* The prompt state inside the Ops step's state. */
struct ops_prompt *tui_ops_prompt(void *state);

/* The entry under the cursor by name (borrowed until the next draw or
 * reload): its API when listed by API, else its op; NULL when none. The
 * filter's text ("" for none; borrowed) and status (NULL for all). */
const char *tui_ops_selected_name(void *state);
/* The status of the entry under the cursor (borrowed likewise), NULL when
 * none. */
const char *tui_ops_selected_status(void *state);
const char *tui_ops_filter_text(void *state);
const char *tui_ops_filter_status(void *state);

/* Sets the filter: the text to look for in op names and APIs ("" for
 * none), or the one status to show (NULL for all; else one of
 * mt_compat_status_order). The cursor goes back to the top. */
void tui_ops_set_filter_text(void *state, const char *text);
void tui_ops_set_filter_status(void *state, const char *status);

/* Opens the differences view on `diff` (mt_opinventory_diff's result, a
 * reference taken) or, with no diff, on `why` (copied): what to record
 * first. Both NULL closes it. */
void tui_ops_show_diff(void *state, json_t *diff, const int64_t steps[2], const char *why);

/* Starts the prompt or menu of an action (p, i, D, r, /, S) on the Ops
 * step; TUI_UNHANDLED for other actions. */
int ops_prompt_action(void *state, const struct tui_ctx *ctx, enum tui_action a);

/* Takes a key while one of them is open. */
int ops_prompt_input(void *state, const struct tui_ctx *ctx, const struct tui_key *k);

/* What r says pressed away from the Ops step, NULL for other actions. */
const char *ops_prompt_elsewhere(enum tui_action a);

/* Releases what the prompt state owns. */
void ops_prompt_dispose(struct ops_prompt *pr);

#endif
