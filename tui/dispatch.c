/* From a key to its effect, as tig's: the open prompt or menu takes keys
 * first (a step's own through its screen's input), then the visible screen
 * gets the action, then the generic handling below (moving, scrolling,
 * focus, help, note, timer, scan, import, quit, and the actions a step
 * answers from any step: its summoned_by), and last the selected step, for
 * its own keys pressed from the step list. The dispatcher knows screens
 * only through struct tui_screen_ops. Everything returns tui_result bits;
 * the main loop acts on them. */
#include "dispatch.h"
#include "journal.h"
#include "model_path.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tui_ctx tui_make_ctx(struct tui_wizard *w)
{
	struct tui_ctx ctx = {.model = w->model,
			      .scan = w->scan,
			      .scan_id = w->scan_id,
			      .scan_view = &w->scan_view,
			      .probe = w->probe,
			      .probe_id = w->probe_id,
			      .probe_unread = w->probe_want != w->probe_id ? w->probe_want : 0,
			      .probe_unreadable = w->probe_want != w->probe_id &&
						  w->full_tried == w->reloads + 1,
			      .probe_steps = w->probe_steps,
			      .checks = w->checks,
			      .runs = w->runs.attempts ? &w->runs : NULL,
			      .trial = w->trial,
			      .now_ms = mt_now_ms(),
			      .timer = &w->timer,
			      .focused = w->help_open || w->focus == FOCUS_CONTENT,
			      .wizard = w};
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
	size_t n = record_part(w, "effort") < 0 ? 0 : json_array_size(jv_get(w->model, "effort.intervals"));
	const char *track = n ? jv_string_at(w->model, "effort.intervals.*.track", n - 1) : NULL;

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

/* --- the steps' own prompts and menus ------------------------------------------ */

void tui_screen_prompt(struct tui_wizard *w, const char *title, const char *initial)
{
	prompt_start_with(&w->prompt, title, initial);
	w->asker = w->selected;
	w->focus = FOCUS_CONTENT;
	w->mode = MODE_SCREEN_PROMPT;
}

void tui_screen_menu(struct tui_wizard *w, const char *title, const char *const *items, int sel)
{
	menu_start(&w->menu, title, items, sel);
	w->asker = w->selected;
	w->focus = FOCUS_CONTENT;
	w->mode = MODE_SCREEN_MENU;
}

void tui_screen_ask_done(struct tui_wizard *w)
{
	w->mode = MODE_NORMAL;
}

/* A key for the step whose prompt or menu is open. */
static int screen_input(struct tui_wizard *w, const struct tui_key *k)
{
	struct tui_screen *s = &w->steps[w->asker];
	struct tui_ctx ctx = tui_make_ctx(w);

	if (!s->ops->input) { /* cannot happen: only a screen with input asks */
		w->mode = MODE_NORMAL;
		return TUI_REDRAW;
	}
	return s->ops->input(s->state, &ctx, k);
}

static int summoned_by(const struct tui_screen_ops *ops, enum tui_action a)
{
	for (const enum tui_action *p = ops->summoned_by; p && *p != TUI_ACT_NONE; p++)
		if (*p == a)
			return 1;
	return 0;
}

/* An action a step answers from any step: that step is shown, help
 * closed, with the keyboard in its content, and takes it. */
static int summon(struct tui_wizard *w, enum tui_action a)
{
	struct tui_ctx ctx;
	int result = TUI_HANDLED | TUI_REDRAW;

	for (int i = 0; i < TUI_NSTEPS; i++) {
		if (!summoned_by(w->steps[i].ops, a) || !w->steps[i].ops->summon)
			continue;
		if (w->help_open)
			set_help(w, 0);
		result |= select_step(w, i);
		w->focus = FOCUS_CONTENT;
		ctx = tui_make_ctx(w);
		return result | w->steps[i].ops->summon(w->steps[i].state, &ctx, a);
	}
	return TUI_UNHANDLED;
}

/* What a step's own action pressed away from it says, or NULL. */
static const char *elsewhere(struct tui_wizard *w, enum tui_action a)
{
	const char *what = NULL;

	for (int i = 0; !what && i < TUI_NSTEPS; i++)
		if (w->steps[i].ops->elsewhere)
			what = w->steps[i].ops->elsewhere(a);
	return what;
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
		return summon(w, a);
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
	if (w->mode == MODE_SCREEN_PROMPT || w->mode == MODE_SCREEN_MENU)
		return screen_input(w, k);
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
	if (result == TUI_UNHANDLED && elsewhere(w, a)) {
		tui_message(w, 0, "%s", elsewhere(w, a));
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (result == TUI_UNHANDLED) {
		tui_message(w, 0, "%s does nothing here (? lists every key)", tui_action_name(a));
		return TUI_REDRAW;
	}
	return result;
}
