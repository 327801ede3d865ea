/* The Runs step's compilation and shapes page (B): the report's section
 * for the runs as they are now. */
#ifndef MT_TUI_COMPILATION_PAGE_H
#define MT_TUI_COMPILATION_PAGE_H

#include <jansson.h>

#include "page.h"
#include "trial.h"

struct tui_compilation {
	json_t *model; /* {compilation: the report's section}, read by its paths */
	json_t *of;    /* a copy of the attempts it was worked out from */
};

/* Draws the page in `height` lines; works the section out again only when
 * `attempts` (the step's runs, as the record gives them) changed since the
 * last time: it reads the runs' logs again, which every reload would
 * otherwise repeat. */
void tui_compilation_draw(struct tui_compilation *c, struct tui_page *p, mt_trial *t,
			  json_t *attempts, int height);

void tui_compilation_done(struct tui_compilation *c);

#endif
