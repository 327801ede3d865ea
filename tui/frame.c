/* The frame around the content: title line, step list, content heading,
 * status bar and message line, laid out for the terminal's size. */
#include "wizard.h"
#include "model_path.h"
#include "util.h"
#include "tui_curses.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIDE_WIDE 26   /* at 80 columns and more */
#define SIDE_NARROW 22

void frame_layout(struct tui_wizard *w)
{
	struct tui_layout *l = &w->layout;
	int side;

	getmaxyx(stdscr, l->lines, l->cols);
	l->too_small = l->cols < TUI_MIN_COLS || l->lines < TUI_MIN_LINES;
	side = l->cols >= 80 ? SIDE_WIDE : SIDE_NARROW;
	l->title = (struct draw_rect){0, 0, 1, l->cols};
	l->side = (struct draw_rect){1, 0, l->lines - 3, side};
	l->head = (struct draw_rect){1, side + 2, 1, l->cols - side - 3};
	l->content = (struct draw_rect){2, side + 2, l->lines - 4, l->cols - side - 3};
	l->status = (struct draw_rect){l->lines - 2, 0, 1, l->cols};
	l->message = (struct draw_rect){l->lines - 1, 0, 1, l->cols};
}

struct tui_screen *frame_content_screen(struct tui_wizard *w)
{
	return w->help_open ? &w->help : &w->steps[w->selected];
}

static void draw_title(struct tui_wizard *w)
{
	const struct draw_rect *r = &w->layout.title;
	char b1[128], b2[128], right[300];
	const char *base = jv_str(w->model, "spec.systems.baseline.accelerator", b1, sizeof(b1));
	const char *cand = jv_str(w->model, "spec.systems.candidate.accelerator", b2, sizeof(b2));
	int col;

	draw_fill(r, 0, STYLE_TITLE);
	col = draw_textf(r, 0, 1, STYLE_TITLE, "mtrial %s CUDA to Trainium migration trial",
			 draw_glyph(GLYPH_DOT));
	if (!base || !cand)
		return;
	snprintf(right, sizeof(right), "%s %s %s ", base, draw_glyph(GLYPH_ARROW), cand);
	if (col + 2 + draw_width(right) <= r->w)
		draw_text_right(r, 0, STYLE_TITLE, right);
}

static void draw_side_step(struct tui_wizard *w, int i)
{
	const struct draw_rect *r = &w->layout.side;
	struct draw_rect label = {r->y, r->x, r->h, r->w - 3};
	const char *status = tui_step_status(w->model, w->steps[i].ops->step_id);
	enum draw_style s = STYLE_NORMAL, gs = STYLE_DIM;
	enum draw_glyph g = GLYPH_EMPTY;
	int row = i + 2;

	if (i == w->selected)
		s = w->focus == FOCUS_SIDE && !w->help_open ? STYLE_SELECTED : STYLE_SELECTED_IDLE;
	if (status && strcmp(status, "done") == 0)
		g = GLYPH_DONE, gs = STYLE_OK;
	else if (status && strcmp(status, "partial") == 0)
		g = GLYPH_PARTIAL, gs = STYLE_WARN;
	draw_fill(r, row, s);
	if (status && strcmp(status, "unknown") == 0) /* not worked out yet: not "empty" */
		g = GLYPH_UNKNOWN;
	if (s == STYLE_SELECTED) /* focus shown by more than a colour */
		draw_text(r, row, 0, s, ">");
	draw_textf(&label, row, 1, s, "%d %s", i + 1, w->steps[i].ops->name);
	draw_text(r, row, r->w - 2, s == STYLE_SELECTED ? s : gs, draw_glyph(g));
}

static void draw_side(struct tui_wizard *w)
{
	const struct draw_rect *r = &w->layout.side;
	char legend[64];

	draw_text(r, 0, 1, STYLE_HEADING, "Steps");
	/* the content has focus: a mark pointing at its heading, beside the
	 * line, so that focus reads without colours (NO_COLOR, or a reader who
	 * cannot tell them); the list's mark is its selected step's '>' */
	if (w->focus == FOCUS_CONTENT && !w->help_open)
		draw_text(r, 0, r->w - 1, STYLE_HEADING, ">");
	for (int i = 0; i < TUI_NSTEPS; i++)
		draw_side_step(w, i);
	snprintf(legend, sizeof(legend), "%s done %s partial %s empty", draw_glyph(GLYPH_DONE),
		 draw_glyph(GLYPH_PARTIAL), draw_glyph(GLYPH_EMPTY));
	if (r->h >= TUI_NSTEPS + 6 && draw_width(legend) < r->w - 1) { /* only when it fits */
		draw_text(r, r->h - 2, 1, STYLE_DIM, legend);
		draw_text(r, r->h - 1, 1, STYLE_DIM, "Tab focus  Enter open");
	}
	draw_vline(r->y, r->x + r->w, r->h);
}

/* The heading over the content: the step's name, its status and, when the
 * page is taller than the pane, which lines show. */
static void draw_head(struct tui_wizard *w, const struct draw_rect *head,
		      const struct tui_screen *s, int content_h)
{
	const char *status = tui_step_label(w->model, s->ops->step_id);
	int focused = w->help_open || w->focus == FOCUS_CONTENT;
	enum draw_style style = focused ? STYLE_SELECTED : STYLE_HEADING;
	char pos[64];
	int col;

	draw_fill(head, 0, focused ? STYLE_SELECTED : STYLE_NORMAL);
	col = draw_text(head, 0, 0, style, s->ops->name);
	if (status)
		draw_textf(head, 0, col, style, " (%s)", status);
	if (s->page.nlines > content_h) {
		int last = s->top + content_h < s->page.nlines ? s->top + content_h : s->page.nlines;
		snprintf(pos, sizeof(pos), "%s%s %d-%d of %d",
			 s->top > 0 ? draw_glyph(GLYPH_MORE_UP) : " ",
			 last < s->page.nlines ? draw_glyph(GLYPH_MORE_DOWN) : " ", s->top + 1, last,
			 s->page.nlines);
		draw_text_right(head, 0, style, pos);
	}
}

static void draw_content(struct tui_wizard *w, const struct tui_ctx *ctx)
{
	struct tui_layout *l = &w->layout;
	struct tui_screen *s = frame_content_screen(w);
	struct draw_rect head = l->head, body = l->content;
	int max_top;

	if (w->help_open) { /* help uses the whole width */
		head = (struct draw_rect){l->head.y, 1, 1, l->cols - 2};
		body = (struct draw_rect){l->content.y, 1, l->content.h, l->cols - 2};
	}
	page_reset(&s->page, body.w);
	s->page.height = body.h;
	s->ops->draw(s->state, ctx, &s->page);
	max_top = s->page.nlines - body.h;
	if (s->top > max_top)
		s->top = max_top;
	if (s->top < 0)
		s->top = 0;
	draw_head(w, &head, s, body.h);
	page_render(&s->page, &body, s->top);
}

static void draw_status(struct tui_wizard *w, const struct tui_ctx *ctx)
{
	const struct draw_rect *r = &w->layout.status;
	static const char hints[] = "? help  q quit ";
	char name[128], clock[32];
	const char *trial = jv_str(w->model, "trial.name", name, sizeof(name));
	int col;

	draw_fill(r, 0, STYLE_STATUS);
	col = draw_text(r, 0, 1, STYLE_STATUS, trial ? trial : "(record not loaded)");
	col = draw_text(r, 0, col, STYLE_STATUS, "  ");
	if (w->timer.running) {
		tui_elapsed_fmt(clock, sizeof(clock), ctx->now_ms - w->timer.started_ms);
		col = draw_textf(r, 0, col, STYLE_STATUS_TIMER, " timer %s %s %s %s %s ",
				 w->timer.category, draw_glyph(GLYPH_DOT),
				 *w->timer.track ? w->timer.track : "no track", draw_glyph(GLYPH_DOT),
				 clock);
	} else {
		col = draw_text(r, 0, col, STYLE_STATUS, "timer off");
	}
	if (col + 2 + (int)strlen(hints) <= r->w)
		draw_text_right(r, 0, STYLE_STATUS, hints);
}

static void draw_message(struct tui_wizard *w)
{
	const struct draw_rect *r = &w->layout.message;

	draw_fill(r, 0, STYLE_NORMAL);
	if (tui_mode_prompts(w->mode))
		prompt_draw(&w->prompt, r);
	else if (w->message[0])
		draw_text(r, 0, 0, w->message_error ? STYLE_ERROR : STYLE_NORMAL, w->message);
	else
		draw_text(r, 0, 0, STYLE_DIM,
			  "Tab switches focus, Enter opens a step, ? lists every key");
}

static void draw_too_small(struct tui_wizard *w)
{
	struct draw_rect all = {0, 0, w->layout.lines, w->layout.cols};
	int row = all.h / 2 - 1;

	draw_clear(&all);
	draw_textf(&all, row, 1, STYLE_WARN, "terminal too small (need %dx%d, have %dx%d)",
		   TUI_MIN_COLS, TUI_MIN_LINES, all.w, all.h);
	draw_text(&all, row + 1, 1, STYLE_DIM, "enlarge it, or press q to quit");
}

/* "███░░░░ 12/40" filling `width` columns: the count is given as text. */
static void progress_bar(const struct draw_rect *r, int row, double share, const char *count)
{
	int width = r->w - draw_width(count), full = width > 0 ? (int)(width * share) : 0;
	mt_buf bar = MT_BUF_INIT;

	for (int i = 0; i < width; i++)
		mt_buf_puts(&bar, draw_glyph(i < full ? GLYPH_BAR_FULL : GLYPH_BAR_EMPTY));
	mt_buf_puts(&bar, count);
	draw_text(r, row, 0, STYLE_OK, mt_buf_cstr(&bar));
	mt_buf_dispose(&bar);
}

/* What a long job shows while it holds the main loop. */
struct progress_view {
	const char *head, *title;      /* the pane's heading, the title inside */
	const char *label[2], *value[2]; /* two fields; values are paths */
	const char *waiting;           /* with no total yet */
	size_t done, total;            /* total 0: still getting ready */
	const char *count;             /* the bar's count as text */
	const char *detail;            /* under the bar (a path) */
	const char *message;           /* the message line */
};

static void progress_show(struct tui_wizard *w, const struct progress_view *v)
{
	const struct tui_layout *l = &w->layout;
	struct draw_rect in = {l->content.y, l->content.x + 2, l->content.h, l->content.w - 4};
	char *fit;

	if (l->too_small)
		return;
	draw_fill(&l->head, 0, STYLE_SELECTED);
	draw_text(&l->head, 0, 0, STYLE_SELECTED, v->head);
	draw_clear(&l->content);
	draw_text(&in, 1, 0, STYLE_HEADING, v->title);
	for (int i = 0; i < 2; i++) {
		fit = draw_fit(v->value[i], in.w - 12, 1);
		draw_text(&in, 2 + i, 0, STYLE_DIM, v->label[i]);
		draw_text(&in, 2 + i, 12, STYLE_NORMAL, fit);
		free(fit);
	}
	if (!v->total) {
		draw_text(&in, 5, 0, STYLE_DIM, v->waiting);
	} else {
		progress_bar(&in, 5, (double)v->done / v->total, v->count);
		fit = draw_fit(v->detail ? v->detail : "", in.w, 1);
		draw_text(&in, 6, 0, STYLE_DIM, fit);
		free(fit);
	}
	draw_fill(&l->message, 0, STYLE_NORMAL);
	draw_text(&l->message, 0, 0, STYLE_NORMAL, v->message);
	draw_cursor(NULL, 0, 0);
	refresh();
}

void frame_progress(struct tui_wizard *w, const char *repo, const char *rev, size_t done,
		    size_t total, const char *path)
{
	char count[48];

	snprintf(count, sizeof(count), " %zu/%zu", done, total);
	progress_show(w, &(struct progress_view){
				 "Repository (scanning)", "Scanning", {"repository", "revision"},
				 {repo, rev}, "Listing the files...", done, total, count, path,
				 "Scanning: keys wait until it is done"});
}

void frame_check_progress(struct tui_wizard *w, const char *ref, const char *cand,
			  uint64_t done, uint64_t total)
{
	char count[64];

	snprintf(count, sizeof(count), " %.1f/%.1f MB", done / 1e6, total / 1e6);
	progress_show(w, &(struct progress_view){
				 "Correctness (comparing)", "Comparing tensors", {"reference", "candidate"},
				 {ref, cand}, "Opening the tensor files...", done, total, count, NULL,
				 "Comparing: keys wait until it is done"});
}

/* Over the content pane, or over the whole width when its items need it. */
static void draw_menu(struct tui_wizard *w)
{
	struct draw_rect area = w->layout.content;

	if (menu_width(&w->menu) > area.w)
		area = (struct draw_rect){area.y, 0, area.h, w->layout.cols};
	menu_draw(&w->menu, &area);
}

void frame_draw(struct tui_wizard *w, const struct tui_ctx *ctx)
{
	struct draw_rect body = {1, 0, w->layout.lines - 3, w->layout.cols};

	draw_cursor(NULL, 0, 0);
	if (w->layout.too_small) {
		draw_too_small(w);
		return;
	}
	draw_title(w);
	draw_clear(&body); /* curses sends only what changed */
	if (!w->help_open)
		draw_side(w);
	draw_content(w, ctx);
	draw_status(w, ctx);
	if (tui_mode_menu(w->mode))
		draw_menu(w);
	draw_message(w); /* last: the prompt places the cursor */
}
