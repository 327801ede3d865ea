/* A one-key chooser in a box: items numbered 1..9, picked by their number,
 * or with Up/Down and Enter; Esc cancels. */
#ifndef MT_TUI_MENU_H
#define MT_TUI_MENU_H

#include "draw.h"
#include "input.h"

#define TUI_MENU_MAX 9

struct tui_menu {
	const char *title;                /* borrowed */
	const char *items[TUI_MENU_MAX];  /* borrowed */
	int n;
	int sel;
};

enum { MENU_CONTINUE = -1, MENU_CANCEL = -2 };

/* Starts a menu over a NULL-terminated list (at most TUI_MENU_MAX items are
 * used), with item `sel` highlighted. */
void menu_start(struct tui_menu *m, const char *title, const char *const *items, int sel);

/* Applies one key: the index of the chosen item, MENU_CONTINUE or MENU_CANCEL. */
int menu_input(struct tui_menu *m, const struct tui_key *k);

/* The columns the menu's box needs to show every item whole. */
int menu_width(const struct tui_menu *m);

/* Draws the menu as a box centred in area. */
void menu_draw(const struct tui_menu *m, const struct draw_rect *area);

#endif
