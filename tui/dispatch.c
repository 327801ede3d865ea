/* From a key to its effect: the open prompt or menu takes keys first, then
 * the visible screen gets the action, then the generic handling below
 * (moving, scrolling, focus, help, note, timer, scan, the Ops step's probe,
 * source, differences, finding and filter, quit), and last the selected step, for its own keys
 * pressed from the step list. Everything returns tui_result bits; the main
 * loop acts on them. */
#include "dispatch.h"
#include "compat.h"
#include "journal.h"
#include "jview.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tui_ctx tui_make_ctx(struct tui_wizard *w)
{
	struct tui_ctx ctx = {.model = w->model,
			      .scan = w->scan,
			      .scan_id = w->scan_id,
			      .probe = w->probe,
			      .probe_id = w->probe_id,
			      .checks = w->checks,
			      .runs = w->runs,
			      .trial = w->trial,
			      .now_ms = mt_now_ms(),
			      .timer = &w->timer,
			      .focused = w->help_open || w->focus == FOCUS_CONTENT};
	return ctx;
}

static int select_step(struct tui_wizard *w, int i)
{
	struct tui_ctx ctx = tui_make_ctx(w);
	struct tui_screen *s;
	int result = TUI_HANDLED | TUI_REDRAW;

	i = i < 0 ? 0 : i >= TUI_NSTEPS ? TUI_NSTEPS - 1 : i;
	if (i == w->selected)
		return result;
	s = &w->steps[w->selected];
	if (s->ops->leave)
		s->ops->leave(s->state, &ctx);
	/* what the message line said was about the step left; the step entered
	 * may say something of its own, and a caller sets its message after */
	w->message[0] = '\0';
	w->message_error = 0;
	w->selected = i;
	s = &w->steps[i];
	if (s->ops->enter)
		result |= s->ops->enter(s->state, &ctx);
	return result;
}

static int scroll_by(struct tui_wizard *w, int delta)
{
	struct tui_screen *s = frame_content_screen(w);
	int max_top = s->page.nlines - w->layout.content.h;
	long top = (long)s->top + delta;

	top = top > max_top ? max_top : top;
	s->top = top < 0 ? 0 : (int)top;
	return TUI_HANDLED | TUI_REDRAW;
}

static int page_rows(const struct tui_wizard *w)
{
	return w->layout.content.h > 2 ? w->layout.content.h - 1 : 1;
}

static int set_help(struct tui_wizard *w, int open)
{
	w->help_open = open;
	w->help.top = 0;
	return TUI_HANDLED | TUI_REDRAW;
}

/* The track the last interval had, as an index into the track menu. */
static int last_track_item(struct tui_wizard *w)
{
	json_t *ivs = jv_get(w->model, "effort.intervals");
	size_t n = json_array_size(ivs);
	const char *track = n ? json_string_value(json_object_get(json_array_get(ivs, n - 1),
								  "track"))
			      : NULL;

	for (int i = 0; track && mt_tracks[i]; i++)
		if (strcmp(mt_tracks[i], track) == 0)
			return i + 1;
	return 0;
}

static int timer_toggle(struct tui_wizard *w)
{
	int other = 0;

	if (w->timer.running)
		return record_timer_stop(w);
	while (mt_effort_categories[other] && strcmp(mt_effort_categories[other], "other"))
		other++;
	menu_start(&w->menu, "Start the timer: what kind of work?", mt_effort_categories,
		   mt_effort_categories[other] ? other : 0);
	w->mode = MODE_CATEGORY;
	return TUI_HANDLED | TUI_REDRAW;
}

static int on_timer_menu(struct tui_wizard *w, const struct tui_key *k)
{
	static const char *track_items[TUI_MENU_MAX + 1] = {"no track"};
	int i = menu_input(&w->menu, k);

	if (i == MENU_CONTINUE)
		return TUI_REDRAW;
	if (i == MENU_CANCEL) {
		w->mode = MODE_NORMAL;
		tui_message(w, 0, "Timer not started");
		return TUI_REDRAW;
	}
	if (w->mode == MODE_CATEGORY) {
		for (int t = 0; mt_tracks[t] && t < TUI_MENU_MAX - 1; t++)
			track_items[t + 1] = mt_tracks[t];
		w->category = i;
		menu_start(&w->menu, "Start the timer: which track?", track_items,
			   last_track_item(w));
		w->mode = MODE_TRACK;
		return TUI_REDRAW;
	}
	w->mode = MODE_NORMAL;
	return record_timer_start(w, mt_effort_categories[w->category],
				  i == 0 ? NULL : mt_tracks[i - 1]);
}

/* A key for a prompt that asks one thing: Esc says `cancelled`, Enter
 * hands the text to `done` (text borrowed for the call). */
static int one_prompt(struct tui_wizard *w, const struct tui_key *k, const char *cancelled,
		      int (*done)(struct tui_wizard *w, const char *text))
{
	char *text;
	int result;

	switch (prompt_input(&w->prompt, k)) {
	case PROMPT_CANCEL:
		w->mode = MODE_NORMAL;
		tui_message(w, 0, "%s", cancelled);
		return TUI_REDRAW;
	case PROMPT_DONE:
		w->mode = MODE_NORMAL;
		text = prompt_text(&w->prompt);
		result = done(w, text);
		free(text);
		return result;
	default:
		return TUI_REDRAW;
	}
}

static int on_note_prompt(struct tui_wizard *w, const struct tui_key *k)
{
	return one_prompt(w, k, "Note cancelled: nothing saved", record_add_note);
}

/* `s` from any step: the Repository step shows the scan, so it is selected
 * first; then the repository and revision prompts, with their defaults. */
static int scan_start(struct tui_wizard *w)
{
	char *repo, *rev;
	int result = TUI_HANDLED | TUI_REDRAW;

	if (w->help_open)
		set_help(w, 0);
	result |= select_step(w, 0);
	record_scan_defaults(w, &repo, &rev);
	prompt_start_with(&w->prompt, "scan repository: ", repo);
	w->mode = MODE_SCAN_REPO;
	free(repo);
	free(rev);
	return result;
}

static int on_scan_prompt(struct tui_wizard *w, const struct tui_key *k)
{
	char *text, *repo, *rev;
	int result;

	switch (prompt_input(&w->prompt, k)) {
	case PROMPT_CANCEL:
		w->mode = MODE_NORMAL;
		free(w->scan_repo);
		w->scan_repo = NULL;
		tui_message(w, 0, "Scan cancelled");
		return TUI_REDRAW;
	case PROMPT_DONE:
		break;
	default:
		return TUI_REDRAW;
	}
	text = prompt_text(&w->prompt);
	record_scan_defaults(w, &repo, &rev);
	if (w->mode == MODE_SCAN_REPO) {
		free(w->scan_repo);
		w->scan_repo = mt_strdup(*text ? text : repo); /* emptied: the default */
		prompt_start_with(&w->prompt, "scan revision: ", rev);
		w->mode = MODE_SCAN_REV;
		result = TUI_REDRAW;
	} else {
		w->mode = MODE_NORMAL;
		result = record_scan(w, w->scan_repo, text);
		free(w->scan_repo);
		w->scan_repo = NULL;
	}
	free(text);
	free(repo);
	free(rev);
	return result;
}

/* --- the Ops step's prompts and menus ------------------------------------- */

/* The index of a step in the step list. */
static int step_index(const struct tui_screen_ops *ops)
{
	for (int i = 0; i < TUI_NSTEPS; i++)
		if (tui_step_ops[i] == ops)
			return i;
	return 0;
}

/* The Ops step's state when it is the step showing, else NULL. */
static void *ops_state(struct tui_wizard *w)
{
	struct tui_screen *s = &w->steps[w->selected];
	return !w->help_open && s->ops == &tui_ops_ops ? s->state : NULL;
}

static int index_of(const char *const *items, const char *item)
{
	for (int i = 0; item && items[i]; i++)
		if (strcmp(items[i], item) == 0)
			return i;
	return -1;
}

/* Selects the Ops step, help closed, the keyboard in its content: `p`, `i`
 * and `D` act on what it shows from any step. */
static int to_ops_step(struct tui_wizard *w)
{
	int result = TUI_HANDLED | TUI_REDRAW;

	if (w->help_open)
		set_help(w, 0);
	result |= select_step(w, step_index(&tui_ops_ops));
	w->focus = FOCUS_CONTENT;
	return result;
}

/* `p`: the menu of tables. */
static int probe_start(struct tui_wizard *w)
{
	int result = to_ops_step(w);

	if (!w->scan_id) {
		tui_message(w, 0, "Nothing scanned yet: press s to scan the repository first");
		return result;
	}
	menu_start(&w->menu, "Probe the ops with which table?",
		   (const char *const *)w->table_items, record_tables(w));
	w->mode = MODE_PROBE_TABLE;
	return result;
}

static int on_probe_menu(struct tui_wizard *w, const struct tui_key *k)
{
	int i = menu_input(&w->menu, k);

	if (i == MENU_CONTINUE)
		return TUI_REDRAW;
	w->mode = MODE_NORMAL;
	if (i == MENU_CANCEL) {
		tui_message(w, 0, "Probe cancelled");
		return TUI_REDRAW;
	}
	return record_probe(w, w->tables[i]);
}

/* `i`: the menu of sources, each saying what it is or how to record it. */
static int source_start(struct tui_wizard *w)
{
	int result = to_ops_step(w);

	menu_start(&w->menu, "Show the ops of which source?",
		   (const char *const *)w->source_items, record_sources(w));
	w->mode = MODE_OP_SOURCE;
	return result;
}

static int on_source_menu(struct tui_wizard *w, const struct tui_key *k)
{
	void *st = ops_state(w);
	int i = menu_input(&w->menu, k);

	if (i == MENU_CONTINUE)
		return TUI_REDRAW;
	w->mode = MODE_NORMAL;
	if (i == MENU_CANCEL) {
		tui_message(w, 0, "The ops' source is unchanged");
		return TUI_REDRAW;
	}
	if (st)
		tui_ops_show_diff(st, NULL, NULL); /* the list shows the new source */
	return record_probe_source(w, record_source_names[i]);
}

/* `D`: the differences, or what to record before there are any. */
static int diff_start(struct tui_wizard *w)
{
	int result = to_ops_step(w);
	json_t *diff = NULL;
	char *why = NULL;

	record_diff(w, &diff, &why);
	if (diff || why)
		tui_ops_show_diff(ops_state(w), diff, why);
	json_decref(diff);
	free(why);
	return result;
}

/* What a team can find out about an op or an API (`mtrial override`):
 * every status but unknown. */
static const char *const finding_statuses[] = {"device", "cpu_fallback", "unsupported",
					       "partial", NULL};

static int finding_start(struct tui_wizard *w)
{
	void *st = ops_state(w);
	/* the row selected: an API when the probe lists APIs, else an op */
	const char *op = st ? tui_ops_selected_name(st) : NULL;
	int api = op && !strstr(op, "::");
	json_t *o;
	size_t i;
	int sel = 0;

	if (!st) {
		tui_message(w, 0, "r records a finding about the op selected in Ops & "
			    "compatibility");
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (!op) {
		tui_message(w, 0, "No op selected: %s",
			    w->probe ? "the filter shows none" : "press p to probe the ops first");
		return TUI_HANDLED | TUI_REDRAW;
	}
	free(w->finding_op);
	w->finding_op = mt_strdup(op);
	json_array_foreach(json_object_get(w->probe, api ? "apis" : "ops"), i, o)
		if (strcmp(json_string_value(json_object_get(o, api ? "api" : "op")), op) == 0)
			sel = index_of(finding_statuses,
				       json_string_value(json_object_get(o, "status")));
	snprintf(w->menu_title, sizeof(w->menu_title), "%s on the candidate:", op);
	menu_start(&w->menu, w->menu_title, finding_statuses, sel < 0 ? 0 : sel);
	w->focus = FOCUS_CONTENT;
	w->mode = MODE_FINDING_STATUS;
	return TUI_HANDLED | TUI_REDRAW;
}

static int on_finding_menu(struct tui_wizard *w, const struct tui_key *k)
{
	int i = menu_input(&w->menu, k);

	if (i == MENU_CONTINUE)
		return TUI_REDRAW;
	if (i == MENU_CANCEL) {
		w->mode = MODE_NORMAL;
		tui_message(w, 0, "Finding cancelled: nothing recorded");
		return TUI_REDRAW;
	}
	w->finding_status = i;
	prompt_start(&w->prompt, "note (who, where, which version): ");
	w->mode = MODE_FINDING_NOTE;
	return TUI_REDRAW;
}

static int finding_done(struct tui_wizard *w, const char *note)
{
	return record_finding(w, w->finding_op, finding_statuses[w->finding_status], note);
}

static int on_finding_prompt(struct tui_wizard *w, const struct tui_key *k)
{
	return one_prompt(w, k, "Finding cancelled: nothing recorded", finding_done);
}

/* `/`: the list follows the text as it is typed; Esc puts back the filter
 * it started from. */
static int filter_start(struct tui_wizard *w)
{
	void *st = ops_state(w);

	if (!st)
		return TUI_UNHANDLED;
	free(w->filter_before);
	w->filter_before = mt_strdup(tui_ops_filter_text(st));
	prompt_start_with(&w->prompt, "filter ops: ", w->filter_before);
	w->focus = FOCUS_CONTENT;
	w->mode = MODE_FILTER;
	return TUI_HANDLED | TUI_REDRAW;
}

static int on_filter_prompt(struct tui_wizard *w, const struct tui_key *k)
{
	void *st = ops_state(w);
	enum prompt_result r = prompt_input(&w->prompt, k);
	char *text = r == PROMPT_CANCEL ? mt_strdup(w->filter_before) : prompt_text(&w->prompt);

	if (st && strcmp(text, tui_ops_filter_text(st)) != 0)
		tui_ops_set_filter_text(st, text);
	if (r != PROMPT_CONTINUE)
		w->mode = MODE_NORMAL;
	free(text);
	return TUI_REDRAW;
}

static int show_status_start(struct tui_wizard *w)
{
	static const char *items[TUI_MENU_MAX + 1] = {"all"};
	void *st = ops_state(w);
	int sel;

	if (!st)
		return TUI_UNHANDLED;
	for (int i = 0; mt_compat_status_order[i] && i < TUI_MENU_MAX - 1; i++)
		items[i + 1] = mt_compat_status_order[i];
	sel = index_of(items, tui_ops_filter_status(st));
	menu_start(&w->menu, "Show which ops?", items, sel < 0 ? 0 : sel);
	w->focus = FOCUS_CONTENT;
	w->mode = MODE_SHOW_STATUS;
	return TUI_HANDLED | TUI_REDRAW;
}

static int on_status_menu(struct tui_wizard *w, const struct tui_key *k)
{
	void *st = ops_state(w);
	int i = menu_input(&w->menu, k);

	if (i == MENU_CONTINUE)
		return TUI_REDRAW;
	w->mode = MODE_NORMAL;
	if (i >= 0 && st)
		tui_ops_set_filter_status(st, i == 0 ? NULL : w->menu.items[i]);
	return TUI_REDRAW;
}

/* The modes of the Ops step's prompts and menus; TUI_UNHANDLED in others. */
static int ops_mode_input(struct tui_wizard *w, const struct tui_key *k)
{
	switch (w->mode) {
	case MODE_PROBE_TABLE:
		return on_probe_menu(w, k);
	case MODE_FINDING_STATUS:
		return on_finding_menu(w, k);
	case MODE_FINDING_NOTE:
		return on_finding_prompt(w, k);
	case MODE_FILTER:
		return on_filter_prompt(w, k);
	case MODE_SHOW_STATUS:
		return on_status_menu(w, k);
	case MODE_OP_SOURCE:
		return on_source_menu(w, k);
	default:
		return TUI_UNHANDLED;
	}
}

/* --- the Correctness step's prompts ----------------------------------------- */

static void answers_clear(struct tui_wizard *w)
{
	for (size_t i = 0; i < sizeof(w->answers) / sizeof(w->answers[0]); i++) {
		free(w->answers[i]);
		w->answers[i] = NULL;
	}
}

/* The newest check of `kind`'s value at `key` (a path to start from), or NULL.
 * Borrowed from w->checks. */
static const char *last_check_path(struct tui_wizard *w, const char *kind, const char *key)
{
	json_t *c;
	size_t i;

	json_array_foreach(w->checks, i, c)
		if (strcmp(json_string_value(json_object_get(c, "kind")) ?: "", kind) == 0)
			return json_string_value(json_object_get(c, key));
	return NULL;
}

/* The prompts of each comparison, in order: where the answer goes in
 * w->answers (-1: the last, which runs it), and the newest check of which
 * kind gives the path to start from. */
static const struct {
	enum tui_mode mode;
	int slot;
	const char *label, *kind, *key;
} check_prompts[] = {
	{MODE_CMP_REF, 0, "reference tensors (file or directory): ", "compare", "reference"},
	{MODE_CMP_CAND, 1, "candidate tensors: ", "compare", "candidate"},
	{MODE_CMP_RTOL, 2, "rtol (empty: trial.yaml's, else the dtype's default): ", NULL, NULL},
	{MODE_CMP_ATOL, -1, "atol (empty: trial.yaml's, else the dtype's default): ", NULL,
	 NULL},
	{MODE_CURVES_REF, 0, "reference loss curve (a CSV, JSONL or MLPerf file, or run:N): ",
	 "curves", "reference"},
	{MODE_CURVES_CAND, -1, "candidate loss curve: ", "curves", "candidate"},
};

static void check_prompt(struct tui_wizard *w, size_t i)
{
	const char *initial = check_prompts[i].kind
				      ? last_check_path(w, check_prompts[i].kind, check_prompts[i].key)
				      : NULL;

	prompt_start_with(&w->prompt, check_prompts[i].label, initial);
	w->mode = check_prompts[i].mode;
}

/* `c` and `L` from any step: the Correctness step shows the result. */
static int check_start(struct tui_wizard *w, enum tui_mode first)
{
	int result = TUI_HANDLED | TUI_REDRAW;

	if (w->help_open)
		set_help(w, 0);
	result |= select_step(w, step_index(&tui_correctness_ops));
	w->focus = FOCUS_CONTENT;
	answers_clear(w);
	for (size_t i = 0; i < sizeof(check_prompts) / sizeof(check_prompts[0]); i++)
		if (check_prompts[i].mode == first)
			check_prompt(w, i);
	return result;
}

/* A tolerance typed: empty is NaN (the trial's or the dtype's); else a
 * number >= 0, or -1 after saying what is wrong. */
static int tolerance(struct tui_wizard *w, const char *name, const char *text, double *out)
{
	char *end;

	*out = NAN;
	if (!*text)
		return 0;
	*out = strtod(text, &end);
	if (end != text && !*end && *out >= 0 && isfinite(*out))
		return 0;
	tui_message(w, 1, "%s '%s' is not a number >= 0: nothing compared", name, text);
	return -1;
}

/* The last prompt answered: runs the comparison and shows its check. */
static int check_run(struct tui_wizard *w, const char *last)
{
	double rtol, atol;
	int64_t id = 0;
	int result;

	if (w->mode == MODE_CURVES_CAND)
		result = record_curves(w, w->answers[0], last, &id);
	else if (tolerance(w, "rtol", w->answers[2], &rtol) < 0 ||
		 tolerance(w, "atol", last, &atol) < 0)
		return TUI_REDRAW;
	else
		result = record_compare(w, w->answers[0], w->answers[1], rtol, atol, &id);
	if (id && w->steps[w->selected].ops == &tui_correctness_ops)
		tui_correctness_show(w->steps[w->selected].state, id);
	return result;
}

static int on_check_prompt(struct tui_wizard *w, const struct tui_key *k)
{
	enum prompt_result r = prompt_input(&w->prompt, k);
	size_t i = 0, n = sizeof(check_prompts) / sizeof(check_prompts[0]);
	char *text;
	int result = TUI_REDRAW;

	if (r == PROMPT_CONTINUE)
		return TUI_REDRAW;
	while (i < n && check_prompts[i].mode != w->mode)
		i++;
	text = prompt_text(&w->prompt);
	if (r == PROMPT_CANCEL || (!*text && check_prompts[i].kind)) {
		tui_message(w, 0, "%s: nothing compared", r == PROMPT_CANCEL ? "Cancelled"
									    : "No path given");
		w->mode = MODE_NORMAL;
	} else if (i + 1 < n && check_prompts[i].slot >= 0) {
		free(w->answers[check_prompts[i].slot]);
		w->answers[check_prompts[i].slot] = text;
		check_prompt(w, i + 1);
		return TUI_REDRAW;
	} else {
		result = check_run(w, text);
		w->mode = MODE_NORMAL;
	}
	free(text);
	answers_clear(w);
	return result;
}

/* --- withdrawing a run ---------------------------------------------------------- */

/* `W`: why the run under the Runs step's cursor is withdrawn. */
static int withdraw_start(struct tui_wizard *w)
{
	struct tui_screen *s = &w->steps[w->selected];
	int64_t id = !w->help_open && s->ops == &tui_runs_ops ? tui_runs_selected(s->state) : 0;

	if (!id) {
		tui_message(w, 0, "W withdraws the run selected in Runs & clocks (mtrial rm "
			    "withdraws any record)");
		return TUI_HANDLED | TUI_REDRAW;
	}
	w->withdraw_id = id;
	snprintf(w->menu_title, sizeof(w->menu_title), "withdraw run #%lld, why: ",
		 (long long)id);
	prompt_start(&w->prompt, w->menu_title);
	w->focus = FOCUS_CONTENT;
	w->mode = MODE_WITHDRAW_WHY;
	return TUI_HANDLED | TUI_REDRAW;
}

static int withdraw_done(struct tui_wizard *w, const char *why)
{
	return record_withdraw_run(w, w->withdraw_id, why);
}

static int on_withdraw_prompt(struct tui_wizard *w, const struct tui_key *k)
{
	return one_prompt(w, k, "Nothing withdrawn", withdraw_done);
}

/* --- importing a table ------------------------------------------------------------ */

/* `T`: which table to import. */
static int import_start(struct tui_wizard *w)
{
	prompt_start(&w->prompt, "import a table (file or https URL): ");
	w->mode = MODE_IMPORT_TABLE;
	return TUI_HANDLED | TUI_REDRAW;
}

static int on_import_prompt(struct tui_wizard *w, const struct tui_key *k)
{
	return one_prompt(w, k, "Nothing imported", record_import_table);
}

/* Moving and scrolling: in the step list or in the content with focus. */
static int generic_move(struct tui_wizard *w, enum tui_action a, int in_list)
{
	switch (a) {
	case TUI_ACT_MOVE_UP:
		return in_list ? select_step(w, w->selected - 1) : scroll_by(w, -1);
	case TUI_ACT_MOVE_DOWN:
		return in_list ? select_step(w, w->selected + 1) : scroll_by(w, 1);
	case TUI_ACT_PAGE_UP:
		return scroll_by(w, -page_rows(w));
	case TUI_ACT_PAGE_DOWN:
		return scroll_by(w, page_rows(w));
	case TUI_ACT_FIRST:
		return in_list ? select_step(w, 0) : scroll_by(w, INT_MIN / 2);
	case TUI_ACT_LAST:
		return in_list ? select_step(w, TUI_NSTEPS - 1) : scroll_by(w, INT_MAX / 2);
	default:
		return TUI_UNHANDLED;
	}
}

static int generic_action(struct tui_wizard *w, enum tui_action a)
{
	int in_list = w->focus == FOCUS_SIDE && !w->help_open;
	int result = generic_move(w, a, in_list);

	if (result != TUI_UNHANDLED)
		return result;
	switch (a) {
	case TUI_ACT_FOCUS:
		w->focus = w->focus == FOCUS_SIDE ? FOCUS_CONTENT : FOCUS_SIDE;
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_ACT_OPEN:
		w->focus = FOCUS_CONTENT;
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_ACT_BACK:
		w->focus = FOCUS_SIDE;
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_ACT_NOTE:
		prompt_start(&w->prompt, "note: ");
		w->mode = MODE_NOTE;
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_ACT_TIMER:
		return timer_toggle(w);
	case TUI_ACT_SCAN:
		return scan_start(w);
	case TUI_ACT_PROBE:
		return probe_start(w);
	case TUI_ACT_OP_SOURCE:
		return source_start(w);
	case TUI_ACT_OP_DIFF:
		return diff_start(w);
	case TUI_ACT_FINDING:
		return finding_start(w);
	case TUI_ACT_FILTER:
		return filter_start(w);
	case TUI_ACT_SHOW_STATUS:
		return show_status_start(w);
	case TUI_ACT_COMPARE:
		return check_start(w, MODE_CMP_REF);
	case TUI_ACT_CURVES:
		return check_start(w, MODE_CURVES_REF);
	case TUI_ACT_START_RUN: /* from any step: the Runs step shows it */
		if (w->help_open)
			set_help(w, 0);
		result = select_step(w, step_index(&tui_runs_ops));
		w->focus = FOCUS_CONTENT;
		return result | runstart_begin(w);
	case TUI_ACT_WITHDRAW:
		return withdraw_start(w);
	case TUI_ACT_IMPORT_TABLE:
		return import_start(w);
	case TUI_ACT_HELP:
		return set_help(w, !w->help_open);
	case TUI_ACT_RELOAD:
		tui_message(w, 0, "Record reloaded");
		return TUI_HANDLED | TUI_RELOAD | TUI_REDRAW;
	case TUI_ACT_REDRAW:
		return TUI_HANDLED | TUI_REPAINT | TUI_REDRAW;
	case TUI_ACT_QUIT:
		return TUI_HANDLED | TUI_QUIT;
	default:
		return TUI_UNHANDLED;
	}
}

/* Offers the action to the visible screen while it has focus. */
static int screen_action(struct tui_wizard *w, enum tui_action a)
{
	struct tui_screen *s = frame_content_screen(w);
	struct tui_ctx ctx = tui_make_ctx(w);
	int result;

	if (!s->ops->handle || (!w->help_open && w->focus != FOCUS_CONTENT))
		return TUI_UNHANDLED;
	result = s->ops->handle(s->state, &ctx, a);
	if ((result & TUI_CLOSE) && s == &w->help)
		set_help(w, 0);
	return result;
}

/* An action of the selected step's own (an inventory view) pressed in the
 * step list: the step takes it and the keyboard with it. */
static int step_action(struct tui_wizard *w, enum tui_action a)
{
	struct tui_screen *s = &w->steps[w->selected];
	struct tui_ctx ctx;
	int result;

	if (w->help_open || w->focus != FOCUS_SIDE || !s->ops->handle)
		return TUI_UNHANDLED;
	w->focus = FOCUS_CONTENT;
	ctx = tui_make_ctx(w);
	result = s->ops->handle(s->state, &ctx, a);
	if (result == TUI_UNHANDLED)
		w->focus = FOCUS_SIDE;
	return result;
}

int tui_dispatch(struct tui_wizard *w, const struct tui_key *k)
{
	enum tui_action a;
	int result;

	if (k->fkey && k->ch == KEY_RESIZE) {
		frame_layout(w);
		return TUI_REPAINT | TUI_REDRAW;
	}
	if (w->mode == MODE_NOTE)
		return on_note_prompt(w, k);
	if (w->mode == MODE_CATEGORY || w->mode == MODE_TRACK)
		return on_timer_menu(w, k);
	if (w->mode == MODE_SCAN_REPO || w->mode == MODE_SCAN_REV)
		return on_scan_prompt(w, k);
	if ((result = ops_mode_input(w, k)) != TUI_UNHANDLED)
		return result;
	if (w->mode >= MODE_CMP_REF && w->mode <= MODE_CURVES_CAND)
		return on_check_prompt(w, k);
	if ((result = runstart_input(w, k)) != TUI_UNHANDLED)
		return result;
	if (w->mode == MODE_WITHDRAW_WHY)
		return on_withdraw_prompt(w, k);
	if (w->mode == MODE_IMPORT_TABLE)
		return on_import_prompt(w, k);
	a = tui_action_for_key(tui_key_code(k));
	if (w->layout.too_small) /* nothing is shown to act on */
		return a == TUI_ACT_QUIT ? TUI_QUIT : TUI_HANDLED;
	if (a == TUI_ACT_NONE) {
		tui_message(w, 0, "That key does nothing here (? lists every key)");
		return TUI_REDRAW;
	}
	result = screen_action(w, a);
	if (result == TUI_UNHANDLED)
		result = generic_action(w, a);
	if (result == TUI_UNHANDLED)
		result = step_action(w, a);
	if (result == TUI_UNHANDLED) {
		tui_message(w, 0, "%s does nothing here (? lists every key)", tui_action_name(a));
		return TUI_REDRAW;
	}
	return result;
}
