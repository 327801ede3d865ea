/* The drawing API: screens say what a piece of text is (a heading, a
 * warning, a command to run) and this file decides how it looks, so colours,
 * NO_COLOR, UTF-8 and narrow terminals are handled in one place. Text is
 * clipped to a rectangle and ends with an ellipsis when it does not fit: it
 * never wraps into the next region. */
#ifndef MT_TUI_DRAW_H
#define MT_TUI_DRAW_H

#include <stddef.h>

enum draw_style {
	STYLE_NORMAL,
	STYLE_TITLE,        /* the title line */
	STYLE_STATUS,       /* the status bar */
	STYLE_STATUS_TIMER, /* the running timer inside the status bar */
	STYLE_HEADING,      /* section headings in the content */
	STYLE_DIM,          /* secondary text: times, ids, placeholders */
	STYLE_SELECTED,     /* the selected line of the focused list */
	STYLE_SELECTED_IDLE,/* the selected line of a list without focus */
	STYLE_OK,           /* a step that is done */
	STYLE_WARN,         /* something missing or partial */
	STYLE_ERROR,        /* an error message */
	STYLE_CMD,          /* a command the user can run */
	STYLE_KEY,          /* a key name in help */
	STYLE_NEW,          /* a record that appeared since the user last looked */
	STYLE_BORDER,
	/* An op's status on the candidate (Ops step): as text, then as a
	 * segment of a bar (the colour behind, for a stacked bar). Without
	 * colours the text is plain, bold when unsupported, and the segments
	 * are reversed: the letters in them tell them apart. */
	STYLE_OP_DEVICE,
	STYLE_OP_PARTIAL,
	STYLE_OP_FALLBACK,
	STYLE_OP_UNSUPPORTED,
	STYLE_OP_UNKNOWN,
	STYLE_BAR_DEVICE,
	STYLE_BAR_PARTIAL,
	STYLE_BAR_FALLBACK,
	STYLE_BAR_UNSUPPORTED,
	STYLE_BAR_UNKNOWN,
	/* Two curves overlaid (Correctness step): the reference's points, the
	 * candidate's, and both in one cell. Without colours the candidate is
	 * bold; the letters ('*', 'o', '#') tell them apart. */
	STYLE_PLOT_REF,
	STYLE_PLOT_CAND,
	STYLE_PLOT_BOTH,
	STYLE__COUNT
};

/* A region of the screen: rows y..y+h-1, columns x..x+w-1. */
struct draw_rect {
	int y, x, h, w;
};

enum draw_glyph {
	GLYPH_ELLIPSIS,
	GLYPH_DONE,
	GLYPH_PARTIAL,
	GLYPH_EMPTY,
	GLYPH_UNKNOWN, /* a status not worked out yet */
	GLYPH_MORE_UP,
	GLYPH_MORE_DOWN,
	GLYPH_DOT,
	GLYPH_ARROW,
	GLYPH_VLINE,
	GLYPH_HLINE,
	GLYPH_CORNER_TL,
	GLYPH_CORNER_TR,
	GLYPH_CORNER_BL,
	GLYPH_CORNER_BR,
	GLYPH_CLOSED,    /* a list item that can open */
	GLYPH_OPEN,      /* an open one */
	GLYPH_BAR_FULL,  /* the done part of a progress bar */
	GLYPH_BAR_EMPTY, /* the rest of it; the unknown share of a bar of statuses */
	GLYPH_POINT_LEFT, /* points at what its line is about */
	GLYPH__COUNT
};

/* Sets up colours after curses starts: none when $NO_COLOR is set and not
 * empty or the terminal has none (then only A_BOLD and A_REVERSE are used). */
void draw_init(void);

/* 1 when colours are in use. */
int draw_has_colors(void);

/* A symbol in UTF-8 when the locale is UTF-8, in ASCII otherwise. Static. */
const char *draw_glyph(enum draw_glyph g);

/* Display columns of UTF-8 text (control characters count as one). */
int draw_width(const char *text);

/* A copy of text cut to at most `cols` display columns: when it does not
 * fit, its end is replaced with an ellipsis, or with `keep_end` its start
 * ("…ir/file.py", for paths). Caller frees. */
char *draw_fit(const char *text, int cols, int keep_end);

/* Draws UTF-8 text at row/col relative to r, clipped to r; text that does
 * not fit ends with an ellipsis. Returns the column after the text. */
int draw_text(const struct draw_rect *r, int row, int col, enum draw_style s,
	      const char *text);
int draw_textf(const struct draw_rect *r, int row, int col, enum draw_style s,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Draws text so that it ends at the right edge of r. */
void draw_text_right(const struct draw_rect *r, int row, enum draw_style s, const char *text);

/* Fills one row of r with spaces in style s (a bar, a selection). */
void draw_fill(const struct draw_rect *r, int row, enum draw_style s);

/* Clears every row of r. */
void draw_clear(const struct draw_rect *r);

/* A vertical line at screen column x from row y, h rows. */
void draw_vline(int y, int x, int h);

/* A box along the edges of r, its inside cleared. */
void draw_box(const struct draw_rect *r, enum draw_style s);

/* Places the visible cursor at row/col of r (for the line editor), or hides it
 * when r is NULL. */
void draw_cursor(const struct draw_rect *r, int row, int col);

#endif
