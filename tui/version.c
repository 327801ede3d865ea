#include "tui.h"
#include "tui_curses.h"

const char *mt_tui_curses_version(void)
{
	return curses_version();
}
