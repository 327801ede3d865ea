/* The Runs step's dialogue that starts a run (runstart.c): the system and
 * the track in the step's menus, the design when trial.yaml sets
 * precision.best, then the command in its prompt
 * (tui_screen_menu, tui_screen_prompt), then `mtrial run`'s core function
 * in the background. The step keeps the dialogue in its state and hands
 * it every key while it is open. */
#ifndef MT_TUI_RUNSTART_H
#define MT_TUI_RUNSTART_H

#include "wizard.h"

struct tui_runstart {
	enum { RUNSTART_NONE, RUNSTART_SYSTEM, RUNSTART_TRACK, RUNSTART_DESIGN,
	       RUNSTART_COMMAND } stage;
	int system, track; /* the items chosen in the two menus */
	int design;        /* 0 matched, 1 best: asked when trial.yaml sets precision.best */
	char title[160];   /* the track menu's title, made for it */
};

/* Opens the system menu. Returns result bits. */
int runstart_begin(struct tui_runstart *rs, struct tui_wizard *w);

/* Takes a key while the dialogue is open (stage not NONE) and, after the
 * command, starts the run; TUI_UNHANDLED when it is not open. */
int runstart_input(struct tui_runstart *rs, struct tui_wizard *w, const struct tui_key *k);

#endif
