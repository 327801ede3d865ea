/* What the steps with lists draw with (the Repository step's inventory, the
 * Ops step): rows of cells in fixed columns cut with an ellipsis, a rule
 * with a title, and wrapped text held to a number of rows. No curses here. */
#ifndef MT_TUI_ROWS_H
#define MT_TUI_ROWS_H

#include "page.h"
#include "actions.h"

/* A column of a row: text cut or padded to `width` columns. */
struct tui_cell {
	const char *text; /* NULL shows as empty */
	int width;
	int right;    /* aligned right */
	int keep_end; /* cut at the start (paths) */
	enum draw_style style;
};

/* One list row on a new line, cells one column apart; the last cell takes
 * what is left of the width (its width is overwritten, as is that of a
 * cell that would pass the edge). The selected row is one bar in the
 * selection style: STYLE_SELECTED when the list has focus, else
 * STYLE_SELECTED_IDLE. */
void tui_row(struct tui_page *p, struct tui_cell *cells, int n, int selected, int focused);

/* "── title ─────────" across the page's width on a new line, dim. */
void tui_rule(struct tui_page *p, const char *title);

/* Word-wrapped text from column `indent` on at most `rows` new lines; the
 * last one ends in an ellipsis when the text goes on. Returns the lines
 * added (0 for empty text). */
int tui_wrap_rows(struct tui_page *p, const char *text, int indent, int rows,
		  enum draw_style s);

/* A dim label at label_col on a new line, then text as tui_wrap_rows puts
 * it from column `indent`, its first row on the label's line. Nothing for
 * empty text or no rows; returns the lines added. */
int tui_wrap_field(struct tui_page *p, int label_col, const char *label, int indent,
		   const char *text, int rows, enum draw_style s);

/* The lines tui_wrap_rows would take for text with no limit on rows, in
 * `room` columns (the page's width less the indent). */
int tui_wrap_count(const char *text, int room);

/* Where a moving action (up, down, a page, first, last) takes a list's
 * cursor at `cur` when `rows` rows of it show: into *to, not yet held to
 * the list's length. 0 for an action that does not move a cursor. */
int tui_list_target(enum tui_action a, int cur, int rows, long *to);

/* Keeps a list's *cursor within its n rows and *top so that the cursor
 * shows in the `rows` rows from it (the Correctness and Runs steps). */
void tui_list_scroll(int *cursor, int *top, int rows, int n);

/* The rows of a list of n that show in `room` lines: all n when they fit,
 * else room - 1 (at least 1), the last line kept for tui_list_more, so that
 * a cut list never looks complete. */
int tui_list_fit(int room, int n);

/* Under a list of n rows of which `shown` show from row `top`: "↑ 3 above
 * ↓ 12 more" on a new line, what does not show counted; nothing when the
 * whole list shows. Returns the lines added (0 or 1). */
int tui_list_more(struct tui_page *p, int top, int shown, int n);

/* The width of a list's id column ("#1234") for ids up to max_id: at least
 * `least`, never cutting the largest id ("#10…" read as another run). */
int tui_id_width(long long max_id, int least);

/* Seconds in at most 6 columns: "52.3ms", "1.23s", "12m05s", "2h03m"; "-"
 * when not known. Returns buf. */
const char *tui_secs(char *buf, size_t size, double s);

#endif
