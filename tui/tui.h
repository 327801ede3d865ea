/* The ncurses wizard. tui/ is the only code that includes curses. */
#ifndef MT_TUI_H
#define MT_TUI_H

#include "trial.h"

/* Runs the wizard on an open trial until the user quits. The terminal is
 * restored on return, on SIGINT/SIGTERM and on fatal errors. Returns 0, or a
 * negative MT_E* code with mt_error_last() set. */
int mt_tui_run(mt_trial *trial);

/* ncurses' version string ("ncurses 6.4.20221231"), for 'mtrial doctor'.
 * Static. Lives in tui/ because only tui/ includes curses. */
const char *mt_tui_curses_version(void);

#endif
