/* The Runs step's scaling page (E): each system's runs per device count,
 * as `mtrial scaling` prints them (trial/scaling_trial.h works them out):
 * the matched design's runs, and when there are best-recipe runs, theirs
 * in a table of their own, labelled, never pooled with the matched ones
 * (as `mtrial scaling --design best`). */
#ifndef MT_TUI_SCALING_PAGE_H
#define MT_TUI_SCALING_PAGE_H

#include <jansson.h>

#include "page.h"
#include "scaling_trial.h"

struct tui_scaling {
	mt_scaling_trial_result r;    /* the matched design's */
	mt_scaling_trial_result best; /* the best recipes', when r left runs out */
	int have;      /* r is worked out */
	int have_best; /* best is */
	json_t *of; /* the attempts and trial.yaml it was worked out from */
};

/* Draws the page; works the figures out again only when `attempts` (the
 * step's runs, as the record gives them) or trial.yaml (its topologies)
 * changed since the last time, since they read every run again. */
void tui_scaling_draw(struct tui_scaling *s, struct tui_page *p, mt_trial *t, json_t *attempts);

void tui_scaling_done(struct tui_scaling *s);

#endif
