/* The chooser behind `t` (the effort category, then the track), `p` (the
 * table), `v` (a status) and `r` (a finding's status). */
#include "menu.h"
#include "actions.h"

#include <string.h>

void menu_start(struct tui_menu *m, const char *title, const char *const *items, int sel)
{
	memset(m, 0, sizeof(*m));
	m->title = title;
	while (m->n < TUI_MENU_MAX && items[m->n]) {
		m->items[m->n] = items[m->n];
		m->n++;
	}
	m->sel = sel >= 0 && sel < m->n ? sel : 0;
}

int menu_input(struct tui_menu *m, const struct tui_key *k)
{
	int code = tui_key_code(k);

	if (code >= '1' && code < '1' + m->n)
		return code - '1';
	switch (tui_action_for_key(code)) {
	case TUI_ACT_MOVE_UP:
		m->sel = m->sel > 0 ? m->sel - 1 : m->n - 1;
		return MENU_CONTINUE;
	case TUI_ACT_MOVE_DOWN:
		m->sel = m->sel + 1 < m->n ? m->sel + 1 : 0;
		return MENU_CONTINUE;
	case TUI_ACT_OPEN:
		return m->sel;
	case TUI_ACT_BACK:
	case TUI_ACT_QUIT:
		return MENU_CANCEL;
	default:
		return code == TUI_CTRL('g') ? MENU_CANCEL : MENU_CONTINUE;
	}
}

#define MENU_HINT "1-9 or Enter picks, Esc cancels"

int menu_width(const struct tui_menu *m)
{
	int w = draw_width(m->title) + 6;

	for (int i = 0; i < m->n; i++)
		if (draw_width(m->items[i]) + 8 > w)
			w = draw_width(m->items[i]) + 8;
	return w < draw_width(MENU_HINT) + 4 ? draw_width(MENU_HINT) + 4 : w;
}

void menu_draw(const struct tui_menu *m, const struct draw_rect *area)
{
	int w = menu_width(m), h = m->n + 4;
	struct draw_rect box, inner;

	w = w < area->w ? w : area->w;
	h = h < area->h ? h : area->h;
	box = (struct draw_rect){area->y + (area->h - h) / 2, area->x + (area->w - w) / 2, h, w};
	inner = (struct draw_rect){box.y + 1, box.x + 2, box.h - 2, box.w - 4};
	/* the box's rows cleared across the area: no word of the page behind
	 * is left cut by its edges, as if part of the menu */
	draw_clear(&(struct draw_rect){box.y, area->x, box.h, area->w});
	draw_box(&box, STYLE_BORDER);
	draw_text(&box, 0, 2, STYLE_HEADING, m->title);
	for (int i = 0; i < m->n; i++) {
		enum draw_style s = i == m->sel ? STYLE_SELECTED : STYLE_NORMAL;
		if (i == m->sel) { /* reverse video and a mark: not a colour alone */
			draw_fill(&inner, i, s);
			draw_text(&inner, i, 0, s, ">");
		}
		draw_textf(&inner, i, 1, s, "%d  %s", i + 1, m->items[i]);
	}
	draw_text(&inner, inner.h - 1, 0, STYLE_DIM, MENU_HINT);
}
