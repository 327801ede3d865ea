/* One keypress as curses reports it through get_wch: a function key code
 * (KEY_UP, KEY_RESIZE...) or a character, which may be any Unicode one. */
#ifndef MT_TUI_INPUT_H
#define MT_TUI_INPUT_H

#include <wchar.h>

struct tui_key {
	int fkey;   /* 1 when ch is a curses KEY_* code */
	wint_t ch;
};

/* The code to look up in the action table: the KEY_* code, or an ASCII
 * character; -1 for other characters, which no action is bound to. */
static inline int tui_key_code(const struct tui_key *k)
{
	if (k->fkey)
		return (int)k->ch;
	return k->ch < 128 ? (int)k->ch : -1;
}

#endif
