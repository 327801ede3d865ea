/* `mtrial scaling`, the report's Scaling section and the wizard's scaling
 * page: the trial's runs (rehearsals and withdrawn runs left out) at each
 * topology, with the topology each run was counted at worked out from its
 * record and trial.yaml as it is now. The callers print or draw. */
#ifndef MT_SCALING_TRIAL_H
#define MT_SCALING_TRIAL_H

#include <jansson.h>

#include "scaling.h"
#include "trial.h"

typedef struct {
	mt_scaling scaling;
	mt_scaling_run *runs;
	size_t n_runs;
	size_t ambiguous[2];   /* baseline, candidate runs without a device count
	                          while trial.yaml lists several topologies */
	char tradeoff[2][320]; /* mt_scaling_tradeoff per system, "" when none */
	char accelerator[2][96];
	json_t *record; /* the runs the figures borrow from */
	const char *design;     /* the design the figures are of: "matched" or "best"; static */
	size_t other_design[2]; /* baseline, candidate runs of the other design, left out:
	                           another experiment, never pooled with these */
} mt_scaling_trial_result;

/* The figures of t's runs of the matched design (mt_scaling_trial_design). */
int mt_scaling_trial(mt_scaling_trial_result *out, mt_trial *t);

/* The figures of t's runs of one design ("matched", NULL: the same, or
 * "best"); the other design's runs are counted in out->other_design, never
 * in a figure. 0, or MT_EIO. Dispose *out. */
int mt_scaling_trial_design(mt_scaling_trial_result *out, mt_trial *t, const char *design);

/* The same of runs already read and flattened against spec
 * (mt_journal_runs_json, mt_runs_flatten: the report's model has them),
 * rehearsals among them left out; runs is kept referenced by out->record. */
int mt_scaling_trial_runs(mt_scaling_trial_result *out, json_t *runs, const mt_spec *spec,
                          const char *design);

void mt_scaling_trial_result_dispose(mt_scaling_trial_result *r);

/* {design, systems: {baseline: {accelerator, topologies: [...], tradeoff,
 * unplaced, ambiguous, other_design_runs}, candidate: ...}} for `system`
 * (NULL: both).
 * New reference. */
json_t *mt_scaling_trial_json(const mt_scaling_trial_result *r, const char *system);

#endif
