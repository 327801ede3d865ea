/* Semantic styles, clipped UTF-8 text, lines and boxes: with tui.c (start,
 * refresh, input) the only file that calls curses to put things on screen. */
#include "draw.h"
#include "tui_curses.h"
#include "sanitize.h"

#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#ifndef __STDC_ISO_10646__
#error "the wizard draws code points as wchar_t"
#endif

struct style_def {
	short fg, bg;      /* colours, -1 for the terminal's default */
	attr_t color_attr; /* attributes with colours */
	attr_t mono_attr;  /* attributes without: only A_BOLD and A_REVERSE */
};

static const struct style_def style_defs[STYLE__COUNT] = {
	[STYLE_NORMAL] = {-1, -1, A_NORMAL, A_NORMAL},
	[STYLE_TITLE] = {COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD},
	[STYLE_STATUS] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
	[STYLE_STATUS_TIMER] = {COLOR_BLACK, COLOR_GREEN, A_BOLD, A_REVERSE | A_BOLD},
	[STYLE_HEADING] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
	[STYLE_DIM] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
	[STYLE_SELECTED] = {COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE},
	[STYLE_SELECTED_IDLE] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
	[STYLE_OK] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
	[STYLE_WARN] = {COLOR_YELLOW, -1, A_NORMAL, A_BOLD},
	[STYLE_ERROR] = {COLOR_RED, -1, A_BOLD, A_BOLD},
	[STYLE_CMD] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
	[STYLE_KEY] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
	[STYLE_NEW] = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
	[STYLE_BORDER] = {COLOR_BLUE, -1, A_NORMAL, A_NORMAL},
	[STYLE_OP_DEVICE] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
	[STYLE_OP_PARTIAL] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL},
	[STYLE_OP_FALLBACK] = {COLOR_MAGENTA, -1, A_NORMAL, A_NORMAL},
	[STYLE_OP_UNSUPPORTED] = {COLOR_RED, -1, A_BOLD, A_BOLD},
	[STYLE_OP_UNKNOWN] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
	[STYLE_BAR_DEVICE] = {COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_REVERSE},
	[STYLE_BAR_PARTIAL] = {COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE},
	[STYLE_BAR_FALLBACK] = {COLOR_BLACK, COLOR_MAGENTA, A_NORMAL, A_REVERSE},
	[STYLE_BAR_UNSUPPORTED] = {COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD},
	[STYLE_BAR_UNKNOWN] = {COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_REVERSE},
	[STYLE_PLOT_REF] = {COLOR_CYAN, -1, A_BOLD, A_NORMAL},
	[STYLE_PLOT_CAND] = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
	[STYLE_PLOT_BOTH] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
};

static int use_colors;
static int utf8_locale;

static const char *const glyphs_utf8[GLYPH__COUNT] = {
	[GLYPH_ELLIPSIS] = "\u2026", [GLYPH_DONE] = "\u25cf", [GLYPH_PARTIAL] = "\u25d0",
	[GLYPH_EMPTY] = "\u25cb", [GLYPH_UNKNOWN] = "?",    [GLYPH_MORE_UP] = "\u2191", [GLYPH_MORE_DOWN] = "\u2193",
	[GLYPH_DOT] = "\u00b7",      [GLYPH_ARROW] = "\u2192",
	[GLYPH_VLINE] = "\u2502",    [GLYPH_HLINE] = "\u2500",
	[GLYPH_CORNER_TL] = "\u250c", [GLYPH_CORNER_TR] = "\u2510",
	[GLYPH_CORNER_BL] = "\u2514", [GLYPH_CORNER_BR] = "\u2518",
	[GLYPH_CLOSED] = "\u25b8", [GLYPH_OPEN] = "\u25be",
	[GLYPH_BAR_FULL] = "\u2588", [GLYPH_BAR_EMPTY] = "\u2591",
	[GLYPH_POINT_LEFT] = "\u25c2",
};
static const char *const glyphs_ascii[GLYPH__COUNT] = {
	[GLYPH_ELLIPSIS] = "~", [GLYPH_DONE] = "*", [GLYPH_PARTIAL] = "+",
	[GLYPH_EMPTY] = "-", [GLYPH_UNKNOWN] = "?",    [GLYPH_MORE_UP] = "^", [GLYPH_MORE_DOWN] = "v",
	[GLYPH_DOT] = "-",      [GLYPH_ARROW] = "->",
	[GLYPH_VLINE] = "|",    [GLYPH_HLINE] = "-",
	[GLYPH_CORNER_TL] = "+", [GLYPH_CORNER_TR] = "+",
	[GLYPH_CORNER_BL] = "+", [GLYPH_CORNER_BR] = "+",
	[GLYPH_CLOSED] = "+", [GLYPH_OPEN] = "-",
	[GLYPH_BAR_FULL] = "#", [GLYPH_BAR_EMPTY] = ".",
	[GLYPH_POINT_LEFT] = "<",
};

void draw_init(void)
{
	const char *no_color = getenv("NO_COLOR");
	const char *codeset = nl_langinfo(CODESET);

	utf8_locale = codeset && (!strcmp(codeset, "UTF-8") || !strcmp(codeset, "utf8"));
	use_colors = !(no_color && *no_color) && has_colors() && start_color() == OK;
	if (!use_colors)
		return;
	int defaults = use_default_colors() == OK;
	for (int s = 1; s < STYLE__COUNT; s++) {
		short fg = style_defs[s].fg, bg = style_defs[s].bg;
		if (!defaults) {
			fg = fg < 0 ? COLOR_WHITE : fg;
			bg = bg < 0 ? COLOR_BLACK : bg;
		}
		init_pair((short)s, fg, bg);
	}
}

int draw_has_colors(void)
{
	return use_colors;
}

const char *draw_glyph(enum draw_glyph g)
{
	if (g < 0 || g >= GLYPH__COUNT)
		return "?";
	return utf8_locale ? glyphs_utf8[g] : glyphs_ascii[g];
}

static void set_style(enum draw_style s)
{
	if (use_colors)
		attr_set(style_defs[s].color_attr, s == STYLE_NORMAL ? 0 : (short)s, NULL);
	else
		attr_set(style_defs[s].mono_attr, 0, NULL);
}

/* Decodes one character of text; never fails. The record's text is UTF-8
 * whatever the locale, so it is decoded as UTF-8 and each character takes
 * one cell: a character the locale cannot show (in the C locale, any beyond
 * ASCII) becomes one '?', never one per byte, which would turn "→" into
 * "???". A byte that is not valid UTF-8 becomes '?', a control character a
 * space or '?', and so does whatever else the CLI's output filter replaces
 * (C1, bidi overrides: one rule, common/sanitize.c), so nothing from the
 * record can move the cursor, change the terminal's state or reorder what
 * is drawn. (wchar_t holds the code point: __STDC_ISO_10646__.) */
static size_t decode(const char *s, wchar_t *wc, int *width)
{
	uint32_t cp = MT_TERM_PLACEHOLDER;
	int n = mt_utf8_decode(s, strnlen(s, 4), &cp);

	if (n <= 0) {
		cp = MT_TERM_PLACEHOLDER;
		n = 1;
	}
	*wc = (wchar_t)cp;
	if (cp == '\t' || cp == '\n' || cp == '\r')
		*wc = L' ';
	else if (mt_term_cp_unsafe(cp))
		*wc = L'?';
	*width = wcwidth(*wc);
	if (*width < 0) {
		*wc = L'?';
		*width = 1;
	}
	return (size_t)n;
}

int draw_width(const char *text)
{
	int total = 0, w;
	wchar_t wc;

	while (text && *text) {
		text += decode(text, &wc, &w);
		total += w;
	}
	return total;
}

/* Where to cut text so that the part before the cut fits in `room`
 * columns, or with from_end, the part after it. */
static size_t fit_bytes(const char *text, int room, int from_end)
{
	int used = 0, w, total = draw_width(text);
	size_t off = 0;
	wchar_t wc;

	while (text[off]) {
		if (from_end && total - used <= room)
			break;
		size_t n = decode(text + off, &wc, &w);
		if (!from_end && used + w > room)
			break;
		used += w;
		off += n;
	}
	return off;
}

char *draw_fit(const char *text, int cols, int keep_end)
{
	const char *ell = draw_glyph(GLYPH_ELLIPSIS);
	int room = cols - draw_width(ell);
	char *out;
	size_t n;

	text = text ? text : "";
	if (draw_width(text) <= cols)
		return strdup(text);
	if (room < 0)
		return strdup("");
	n = fit_bytes(text, room, keep_end);
	if (keep_end) {
		if (asprintf(&out, "%s%s", ell, text + n) < 0)
			out = NULL;
	} else if (asprintf(&out, "%.*s%s", (int)n, text, ell) < 0) {
		out = NULL;
	}
	if (!out)
		abort();
	return out;
}

/* Writes characters while they fit in `room` columns; returns columns used. */
static int put_fitting(const char *text, int room)
{
	int used = 0, w;
	wchar_t wc;

	while (*text) {
		text += decode(text, &wc, &w);
		if (used + w > room)
			break;
		addnwstr(&wc, 1);
		used += w;
	}
	return used;
}

int draw_text(const struct draw_rect *r, int row, int col, enum draw_style s,
	      const char *text)
{
	int avail, used;

	if (!text || row < 0 || row >= r->h || col >= r->w)
		return col;
	if (col < 0)
		col = 0;
	avail = r->w - col;
	set_style(s);
	move(r->y + row, r->x + col);
	if (draw_width(text) <= avail) {
		used = put_fitting(text, avail);
	} else {
		const char *ell = draw_glyph(GLYPH_ELLIPSIS);
		int ell_w = draw_width(ell);
		used = put_fitting(text, avail - ell_w);
		for (; used < avail - ell_w; used++)
			addch(' ');
		used += put_fitting(ell, avail - used);
	}
	set_style(STYLE_NORMAL);
	return col + used;
}

int draw_textf(const struct draw_rect *r, int row, int col, enum draw_style s,
	       const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return draw_text(r, row, col, s, buf);
}

void draw_text_right(const struct draw_rect *r, int row, enum draw_style s, const char *text)
{
	int w = draw_width(text);
	draw_text(r, row, w < r->w ? r->w - w : 0, s, text);
}

void draw_fill(const struct draw_rect *r, int row, enum draw_style s)
{
	if (row < 0 || row >= r->h || r->w <= 0)
		return;
	set_style(s);
	mvhline(r->y + row, r->x, ' ', r->w);
	set_style(STYLE_NORMAL);
}

void draw_clear(const struct draw_rect *r)
{
	for (int row = 0; row < r->h; row++)
		draw_fill(r, row, STYLE_NORMAL);
}

/* Lines are drawn with the box-drawing characters themselves rather than
 * the terminal's alternate character set: the text a screen dump shows is
 * then the text the user sees. */
static void glyph_at(int y, int x, enum draw_glyph g, enum draw_style s)
{
	struct draw_rect cell = {y, x, 1, 1};
	draw_text(&cell, 0, 0, s, draw_glyph(g));
}

void draw_vline(int y, int x, int h)
{
	for (int i = 0; i < h; i++)
		glyph_at(y + i, x, GLYPH_VLINE, STYLE_BORDER);
}

void draw_box(const struct draw_rect *r, enum draw_style s)
{
	if (r->h < 2 || r->w < 2)
		return;
	draw_clear(r);
	for (int i = 1; i < r->w - 1; i++) {
		glyph_at(r->y, r->x + i, GLYPH_HLINE, s);
		glyph_at(r->y + r->h - 1, r->x + i, GLYPH_HLINE, s);
	}
	for (int i = 1; i < r->h - 1; i++) {
		glyph_at(r->y + i, r->x, GLYPH_VLINE, s);
		glyph_at(r->y + i, r->x + r->w - 1, GLYPH_VLINE, s);
	}
	glyph_at(r->y, r->x, GLYPH_CORNER_TL, s);
	glyph_at(r->y, r->x + r->w - 1, GLYPH_CORNER_TR, s);
	glyph_at(r->y + r->h - 1, r->x, GLYPH_CORNER_BL, s);
	glyph_at(r->y + r->h - 1, r->x + r->w - 1, GLYPH_CORNER_BR, s);
}

void draw_cursor(const struct draw_rect *r, int row, int col)
{
	if (!r) {
		curs_set(0);
		return;
	}
	move(r->y + row, r->x + (col < r->w ? col : r->w - 1));
	curs_set(1);
}
