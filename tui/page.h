/* A page: the virtual screen a step draws into (as tmux's window modes draw
 * into their own screen). Lines of styled segments, as tall as the content
 * needs; the frame shows the part that fits and scrolls the rest. A segment
 * that does not fit the width is cut with an ellipsis when shown. */
#ifndef MT_TUI_PAGE_H
#define MT_TUI_PAGE_H

#include <stddef.h>
#include "draw.h"

struct page_seg {
	int line;
	int col;
	enum draw_style style;
	char *text;
};

struct tui_page {
	struct page_seg *segs;
	size_t nsegs, cap;
	int nlines;  /* lines started so far */
	int cur_col; /* where the next segment on the current line goes */
	int width;   /* the columns it will be shown in, for layout decisions */
	int height;  /* the rows it will be shown in (set by the frame after
			page_reset; 0 when unknown): a screen that lays out a
			list and a detail pane fills exactly this many */
};

void page_init(struct tui_page *p, int width);
void page_dispose(struct tui_page *p);

/* Empties the page for a new draw at `width` columns. */
void page_reset(struct tui_page *p, int width);

/* Starts a new line; segments added next go on it. */
void page_line(struct tui_page *p);

/* Appends text to the current line (starting one when there is none). */
void page_add(struct tui_page *p, enum draw_style s, const char *text);
void page_addf(struct tui_page *p, enum draw_style s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Appends text at column `col` of the current line (or right after the text
 * already there, when that reaches past col). */
void page_add_at(struct tui_page *p, int col, enum draw_style s, const char *text);

/* Appends text in style s in which `quoted` parts are commands (STYLE_CMD). */
void page_add_rich(struct tui_page *p, enum draw_style s, const char *text);

/* Appends rich text (as page_add_rich) on new lines starting at column
 * `indent`, wrapped at word boundaries to the page width. */
void page_para(struct tui_page *p, int indent, enum draw_style s, const char *text);

/* Same, with the lines after the first at column `next_indent`. */
void page_para_hanging(struct tui_page *p, int indent, int next_indent, enum draw_style s,
		       const char *text);

/* Appends rich text to the current line from where it ends, wrapping at
 * word boundaries onto new lines that start at column `next_indent`. */
void page_wrap(struct tui_page *p, int next_indent, enum draw_style s, const char *text);

/* Shows page lines top.. in r. */
void page_render(const struct tui_page *p, const struct draw_rect *r, int top);

#endif
