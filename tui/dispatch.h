/* Keys to effects (dispatch.c). */
#ifndef MT_TUI_DISPATCH_H
#define MT_TUI_DISPATCH_H

#include "wizard.h"
#include "input.h"

/* The context screens see, as of now. */
struct tui_ctx tui_make_ctx(struct tui_wizard *w);

/* Handles one key; returns tui_result bits for the main loop. */
int tui_dispatch(struct tui_wizard *w, const struct tui_key *k);

#endif
