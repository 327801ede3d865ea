/* The one place tui/ includes curses: the wide-character API (get_wch,
 * addnwstr, cchar_t) needs _XOPEN_SOURCE_EXTENDED before the header. */
#ifndef MT_TUI_CURSES_H
#define MT_TUI_CURSES_H

#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>

#endif
