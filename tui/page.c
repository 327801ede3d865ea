/* Pages: styled lines drawn once, shown through a scrolled window. */
#include "page.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void page_init(struct tui_page *p, int width)
{
	memset(p, 0, sizeof(*p));
	p->width = width;
}

void page_reset(struct tui_page *p, int width)
{
	for (size_t i = 0; i < p->nsegs; i++)
		free(p->segs[i].text);
	p->nsegs = 0;
	p->nlines = 0;
	p->cur_col = 0;
	p->width = width;
}

void page_dispose(struct tui_page *p)
{
	page_reset(p, 0);
	free(p->segs);
	memset(p, 0, sizeof(*p));
}

void page_line(struct tui_page *p)
{
	p->nlines++;
	p->cur_col = 0;
}

/* Takes ownership of text. Memory exhaustion aborts, as mt_strdup does: a
 * half-drawn page is not worth a recovery path. */
static void push(struct tui_page *p, int col, enum draw_style s, char *text)
{
	if (!text)
		abort();
	if (p->nlines == 0)
		page_line(p);
	if (p->nsegs == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct page_seg *segs = realloc(p->segs, cap * sizeof(*segs));
		if (!segs)
			abort();
		p->segs = segs;
		p->cap = cap;
	}
	if (col < p->cur_col)
		col = p->cur_col;
	p->segs[p->nsegs++] = (struct page_seg){p->nlines - 1, col, s, text};
	p->cur_col = col + draw_width(text);
}

void page_add(struct tui_page *p, enum draw_style s, const char *text)
{
	push(p, p->cur_col, s, strdup(text ? text : ""));
}

void page_add_at(struct tui_page *p, int col, enum draw_style s, const char *text)
{
	push(p, col, s, strdup(text ? text : ""));
}

void page_addf(struct tui_page *p, enum draw_style s, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	push(p, p->cur_col, s, text);
}

void page_add_rich(struct tui_page *p, enum draw_style s, const char *text)
{
	int in_cmd = 0;

	while (text && *text) {
		size_t n = strcspn(text, "`");
		if (n)
			push(p, p->cur_col, in_cmd ? STYLE_CMD : s, strndup(text, n));
		text += n;
		if (*text == '`') {
			in_cmd = !in_cmd;
			text++;
		}
	}
}

/* Splits one word at its backticks into segments, carrying the command state
 * across words (a command may span several). Returns the word's width. */
static int word_pieces(const char *w, size_t n, int in_cmd, struct tui_page *p, int emit,
		       enum draw_style s, int *in_cmd_out)
{
	int width = 0;

	while (n) {
		size_t k = 0;
		while (k < n && w[k] != '`')
			k++;
		if (k) {
			char *piece = strndup(w, k);
			width += draw_width(piece);
			if (emit)
				push(p, p->cur_col, in_cmd ? STYLE_CMD : s, piece);
			else
				free(piece);
		}
		if (k < n) {
			in_cmd = !in_cmd;
			k++;
		}
		w += k;
		n -= k;
	}
	*in_cmd_out = in_cmd;
	return width;
}

/* The length of the next chunk to place: up to a space, but a `command`
 * stays whole, spaces and all. */
static size_t chunk_len(const char *text, int in_cmd)
{
	size_t n = 0;
	for (; text[n] && (in_cmd || text[n] != ' '); n++)
		if (text[n] == '`')
			in_cmd = !in_cmd;
	return n;
}

void page_para(struct tui_page *p, int indent, enum draw_style s, const char *text)
{
	page_para_hanging(p, indent, indent, s, text);
}

void page_para_hanging(struct tui_page *p, int indent, int next_indent, enum draw_style s,
		       const char *text)
{
	page_line(p);
	p->cur_col = indent;
	page_wrap(p, next_indent, s, text);
}

void page_wrap(struct tui_page *p, int next_indent, enum draw_style s, const char *text)
{
	int in_cmd = 0, after, first = 1;
	int limit = p->width > next_indent + 10 ? p->width : next_indent + 10;

	if (p->nlines == 0)
		page_line(p);
	while (text && *text) {
		size_t n;
		text += strspn(text, " ");
		n = chunk_len(text, in_cmd);
		if (!n)
			break;
		int w = word_pieces(text, n, in_cmd, p, 0, s, &after);
		if (!first && p->cur_col + 1 + w > limit) {
			page_line(p);
			p->cur_col = next_indent;
		} else if (!first) {
			p->cur_col++;
		}
		word_pieces(text, n, in_cmd, p, 1, s, &in_cmd);
		text += n;
		first = 0;
	}
}

void page_render(const struct tui_page *p, const struct draw_rect *r, int top)
{
	for (size_t i = 0; i < p->nsegs; i++) {
		const struct page_seg *seg = &p->segs[i];
		int row = seg->line - top;
		if (row >= 0 && row < r->h)
			draw_text(r, row, seg->col, seg->style, seg->text);
	}
}
