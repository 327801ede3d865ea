/* The Runs step's dialogue that starts a run or imports one (runstart.c):
 * for an import the log in the step's prompt first; the system and the
 * track in the step's menus, the design when trial.yaml sets
 * precision.best; for a run the command in its prompt (tui_screen_menu,
 * tui_screen_prompt); then `mtrial run`'s core function in the
 * background, or `mtrial runs import`'s. The step keeps the dialogue in
 * its state and hands it every key while it is open. */
#ifndef MT_TUI_RUNSTART_H
#define MT_TUI_RUNSTART_H

#include "wizard.h"

struct tui_runstart {
	enum { RUNSTART_NONE, RUNSTART_LOG, RUNSTART_SYSTEM, RUNSTART_TRACK, RUNSTART_DESIGN,
	       RUNSTART_COMMAND } stage;
	int system, track; /* the items chosen in the two menus */
	int design;        /* 0 matched, 1 best: asked when trial.yaml sets precision.best */
	char title[160];   /* the track menu's title, made for it */
	char *log;         /* owned: an import's log, NULL when starting a run */
	int format;        /* its layout (enum mt_runs_log_format) */
	int64_t imported;  /* the run the last import recorded, for the step to
			      select; 0 none. The step resets it */
};

/* Opens the system menu. Returns result bits. */
int runstart_begin(struct tui_runstart *rs, struct tui_wizard *w);

/* Opens the prompt for the log of a run to import. Returns result bits. */
int runstart_import_begin(struct tui_runstart *rs, struct tui_wizard *w);

/* Takes a key while the dialogue is open (stage not NONE) and, after the
 * command, starts the run, or after the last menu imports the log;
 * TUI_UNHANDLED when it is not open. */
int runstart_input(struct tui_runstart *rs, struct tui_wizard *w, const struct tui_key *k);

/* Releases what the dialogue owns. */
void runstart_done(struct tui_runstart *rs);

#endif
