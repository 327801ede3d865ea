/* The line editor behind `n`: Emacs-style keys as readline has them. */
#include "prompt.h"
#include "actions.h"

#include <stdlib.h>
#include <string.h>

void prompt_start(struct tui_prompt *p, const char *label)
{
	memset(p, 0, sizeof(*p));
	p->label = label;
}

static void insert(struct tui_prompt *p, wchar_t c)
{
	if (p->len >= TUI_PROMPT_MAX)
		return;
	memmove(p->buf + p->cur + 1, p->buf + p->cur, (p->len - p->cur) * sizeof(wchar_t));
	p->buf[p->cur++] = c;
	p->len++;
}

void prompt_start_with(struct tui_prompt *p, const char *label, const char *initial)
{
	mbstate_t st;
	wchar_t wc;

	prompt_start(p, label);
	memset(&st, 0, sizeof(st));
	while (initial && *initial) {
		size_t n = mbrtowc(&wc, initial, MB_CUR_MAX, &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) { /* not in the locale */
			memset(&st, 0, sizeof(st));
			wc = L'?';
			n = 1;
		}
		insert(p, wc);
		initial += n;
	}
}

/* Removes characters [from, to). */
static void cut(struct tui_prompt *p, size_t from, size_t to)
{
	if (from >= to || to > p->len)
		return;
	memmove(p->buf + from, p->buf + to, (p->len - to) * sizeof(wchar_t));
	p->len -= to - from;
	if (p->cur > to)
		p->cur -= to - from;
	else if (p->cur > from)
		p->cur = from;
}

static size_t word_start(const struct tui_prompt *p)
{
	size_t i = p->cur;
	while (i > 0 && p->buf[i - 1] == L' ')
		i--;
	while (i > 0 && p->buf[i - 1] != L' ')
		i--;
	return i;
}

static enum prompt_result edit_key(struct tui_prompt *p, int code)
{
	switch (code) {
	case KEY_ENTER:
		return PROMPT_DONE;
	case KEY_BACKSPACE:
		if (p->cur > 0)
			cut(p, p->cur - 1, p->cur);
		break;
	case KEY_DC:
		cut(p, p->cur, p->cur + 1);
		break;
	case KEY_LEFT:
		p->cur -= p->cur > 0;
		break;
	case KEY_RIGHT:
		p->cur += p->cur < p->len;
		break;
	case KEY_HOME:
		p->cur = 0;
		break;
	case KEY_END:
		p->cur = p->len;
		break;
	}
	return PROMPT_CONTINUE;
}

static enum prompt_result edit_char(struct tui_prompt *p, wint_t ch)
{
	switch (ch) {
	case L'\n':
	case L'\r':
		return PROMPT_DONE;
	case TUI_KEY_ESC:
	case TUI_CTRL('g'):
		return PROMPT_CANCEL;
	case 127:
	case TUI_CTRL('h'):
		return edit_key(p, KEY_BACKSPACE);
	case TUI_CTRL('d'):
		return edit_key(p, KEY_DC);
	case TUI_CTRL('b'):
		return edit_key(p, KEY_LEFT);
	case TUI_CTRL('f'):
		return edit_key(p, KEY_RIGHT);
	case TUI_CTRL('a'):
		return edit_key(p, KEY_HOME);
	case TUI_CTRL('e'):
		return edit_key(p, KEY_END);
	case TUI_CTRL('u'):
		cut(p, 0, p->cur);
		break;
	case TUI_CTRL('k'):
		cut(p, p->cur, p->len);
		break;
	case TUI_CTRL('w'):
		cut(p, word_start(p), p->cur);
		break;
	case L'\t':
		insert(p, L' ');
		break;
	default:
		if (ch >= 32 && ch != 127 && wcwidth((wchar_t)ch) >= 0)
			insert(p, (wchar_t)ch);
	}
	return PROMPT_CONTINUE;
}

enum prompt_result prompt_input(struct tui_prompt *p, const struct tui_key *k)
{
	return k->fkey ? edit_key(p, (int)k->ch) : edit_char(p, k->ch);
}

/* UTF-8 (in the locale's encoding) of buf[from, to); a character the locale
 * cannot encode becomes '?'. Caller frees. */
static char *encode(const wchar_t *buf, size_t from, size_t to)
{
	char *out = malloc((to - from) * MB_CUR_MAX + 1), *o = out;
	mbstate_t st;

	if (!out)
		abort();
	memset(&st, 0, sizeof(st));
	for (size_t i = from; i < to; i++) {
		size_t n = wcrtomb(o, buf[i], &st);
		if (n == (size_t)-1) {
			memset(&st, 0, sizeof(st));
			*o++ = '?';
		} else {
			o += n;
		}
	}
	*o = '\0';
	return out;
}

char *prompt_text(const struct tui_prompt *p)
{
	size_t from = 0, to = p->len;
	while (from < to && (p->buf[from] == L' '))
		from++;
	while (to > from && p->buf[to - 1] == L' ')
		to--;
	return encode(p->buf, from, to);
}

static int span_width(const struct tui_prompt *p, size_t from, size_t to)
{
	int w = 0;
	for (size_t i = from; i < to; i++) {
		int cw = wcwidth(p->buf[i]);
		w += cw < 0 ? 1 : cw;
	}
	return w;
}

void prompt_draw(struct tui_prompt *p, const struct draw_rect *r)
{
	int col = draw_text(r, 0, 0, STYLE_HEADING, p->label);
	int avail = r->w - col - 2; /* room for the left mark and the cursor */
	char *text;

	if (avail < 1)
		avail = 1;
	if (p->cur < p->first)
		p->first = p->cur;
	while (p->first < p->cur && span_width(p, p->first, p->cur) > avail)
		p->first++;
	while (p->first > 0 && span_width(p, p->first - 1, p->len) <= avail)
		p->first--;
	if (p->first > 0)
		col = draw_text(r, 0, col, STYLE_DIM, draw_glyph(GLYPH_ELLIPSIS));
	text = encode(p->buf, p->first, p->len);
	draw_text(r, 0, col, STYLE_NORMAL, text);
	free(text);
	draw_cursor(r, 0, col + span_width(p, p->first, p->cur));
}
