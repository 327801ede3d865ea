/* Rows, rules and held-to-size paragraphs, laid out in a page. */
#include "rows.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pad(mt_buf *b, int n)
{
	while (n-- > 0)
		mt_buf_put(b, " ", 1);
}

static void cell_text(mt_buf *b, const struct tui_cell *c)
{
	char *fit = draw_fit(c->text, c->width, c->keep_end);
	int room = c->width - draw_width(fit);

	if (c->right)
		pad(b, room);
	mt_buf_puts(b, fit);
	if (!c->right)
		pad(b, room);
	free(fit);
}

void tui_row(struct tui_page *p, struct tui_cell *cells, int n, int selected, int focused)
{
	mt_buf row = MT_BUF_INIT, one = MT_BUF_INIT;
	int used = 0;

	page_line(p);
	for (int i = 0; i < n; i++) {
		if (i == n - 1 || used + cells[i].width + 1 > p->width)
			cells[i].width = p->width - used > 0 ? p->width - used : 0;
		cell_text(selected ? &row : &one, &cells[i]);
		used += cells[i].width;
		if (i < n - 1 && used < p->width) {
			mt_buf_put(selected ? &row : &one, " ", 1);
			used++;
		}
		if (!selected)
			page_add(p, cells[i].style, mt_buf_cstr(&one));
		mt_buf_dispose(&one);
	}
	if (selected)
		page_add(p, focused ? STYLE_SELECTED : STYLE_SELECTED_IDLE, mt_buf_cstr(&row));
	mt_buf_dispose(&row);
}

void tui_rule(struct tui_page *p, const char *title)
{
	mt_buf b = MT_BUF_INIT;
	char *fit;

	page_line(p);
	mt_buf_printf(&b, "%s%s ", draw_glyph(GLYPH_HLINE), draw_glyph(GLYPH_HLINE));
	if (title && *title)
		mt_buf_printf(&b, "%s ", title);
	fit = draw_fit(mt_buf_cstr(&b), p->width, 0);
	page_add(p, STYLE_DIM, fit);
	for (int w = draw_width(fit); w < p->width; w++)
		page_add(p, STYLE_DIM, draw_glyph(GLYPH_HLINE));
	free(fit);
	mt_buf_dispose(&b);
}

/* The length of text's longest start that ends with a word and fits in
 * `room` columns; the first word's length when even it does not fit. */
static size_t wrap_point(const char *text, int room)
{
	size_t best = 0, end = 0, n = strlen(text);

	while (end < n) {
		size_t next = end + strspn(text + end, " ");
		char *piece;
		next += strcspn(text + next, " ");
		piece = strndup(text, next);
		int w = draw_width(piece);
		free(piece);
		if (w > room)
			break;
		best = end = next;
	}
	return best ? best : strcspn(text, " ");
}

/* The rows of text from column indent; the first on the current line when
 * `on_line`. */
static int wrap(struct tui_page *p, const char *text, int indent, int rows, enum draw_style s,
		int on_line)
{
	int room = p->width - indent, r;

	text = text ? text + strspn(text, " ") : NULL;
	for (r = 0; r < rows && text && *text; r++) {
		size_t cut = r < rows - 1 ? wrap_point(text, room) : strlen(text);
		char *piece = strndup(text, cut), *fit = draw_fit(piece, room, 0);
		if (r || !on_line)
			page_line(p);
		page_add_at(p, indent, s, fit);
		free(fit);
		free(piece);
		text += cut;
		text += strspn(text, " ");
	}
	return r;
}

int tui_wrap_rows(struct tui_page *p, const char *text, int indent, int rows,
		  enum draw_style s)
{
	return wrap(p, text, indent, rows, s, 0);
}

int tui_wrap_field(struct tui_page *p, int label_col, const char *label, int indent,
		   const char *text, int rows, enum draw_style s)
{
	if (rows < 1 || !text || !*text)
		return 0;
	page_line(p);
	page_add_at(p, label_col, STYLE_DIM, label);
	return wrap(p, text, indent, rows, s, 1);
}

int tui_wrap_count(const char *text, int room)
{
	int n = 0;

	text = text ? text + strspn(text, " ") : NULL;
	while (text && *text) {
		text += wrap_point(text, room);
		text += strspn(text, " ");
		n++;
	}
	return n;
}

int tui_list_target(enum tui_action a, int cur, int rows, long *to)
{
	int page = rows > 2 ? rows - 1 : 1; /* a page keeps one row in view */

	switch (a) {
	case TUI_ACT_MOVE_UP:
		return *to = (long)cur - 1, 1;
	case TUI_ACT_MOVE_DOWN:
		return *to = (long)cur + 1, 1;
	case TUI_ACT_PAGE_UP:
		return *to = (long)cur - page, 1;
	case TUI_ACT_PAGE_DOWN:
		return *to = (long)cur + page, 1;
	case TUI_ACT_FIRST:
		return *to = 0, 1;
	case TUI_ACT_LAST:
		return *to = INT32_MAX, 1;
	default:
		return 0;
	}
}

void tui_list_scroll(int *cursor, int *top, int rows, int n)
{
	*cursor = *cursor >= n ? n - 1 : *cursor;
	*cursor = *cursor < 0 ? 0 : *cursor;
	if (*cursor < *top)
		*top = *cursor;
	if (*cursor >= *top + rows)
		*top = *cursor - rows + 1;
	if (*top > n - rows)
		*top = n - rows > 0 ? n - rows : 0;
}

int tui_list_fit(int room, int n)
{
	if (n <= room)
		return n;
	return room > 1 ? room - 1 : 1;
}

int tui_id_width(long long max_id, int least)
{
	char id[24];
	int n = snprintf(id, sizeof(id), "#%lld", max_id);

	return n > least ? n : least;
}

int tui_list_more(struct tui_page *p, int top, int shown, int n)
{
	int below = n - top - shown;

	if (top <= 0 && below <= 0)
		return 0;
	page_line(p);
	if (top > 0)
		page_addf(p, STYLE_NORMAL, "  %s %d above", draw_glyph(GLYPH_MORE_UP), top);
	if (below > 0)
		page_addf(p, STYLE_NORMAL, "  %s %d more", draw_glyph(GLYPH_MORE_DOWN), below);
	return 1;
}

/* Seconds in at most 6 columns: "52.3ms", "1.23s", "12m05s", "2h03m"; "-". */
const char *tui_secs(char *buf, size_t size, double s)
{
	if (!isfinite(s))
		snprintf(buf, size, "-");
	else if (s < 1)
		snprintf(buf, size, "%.3gms", s * 1000);
	else if (s < 100)
		snprintf(buf, size, "%.3gs", s);
	else if (s < 3600)
		snprintf(buf, size, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, size, "%dh%02dm", (int)s / 3600, (int)s / 60 % 60);
	return buf;
}
