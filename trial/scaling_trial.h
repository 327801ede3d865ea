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
} mt_scaling_trial_result;

/* The figures of t's runs. 0, or MT_EIO. Dispose *out. */
int mt_scaling_trial(mt_scaling_trial_result *out, mt_trial *t);

/* The same of runs already read and flattened against spec
 * (mt_journal_runs_json, mt_runs_flatten: the report's model has them),
 * rehearsals among them left out; runs is kept referenced by out->record. */
int mt_scaling_trial_runs(mt_scaling_trial_result *out, json_t *runs, const mt_spec *spec);

void mt_scaling_trial_result_dispose(mt_scaling_trial_result *r);

/* {systems: {baseline: {accelerator, topologies: [...], tradeoff,
 * unplaced, ambiguous}, candidate: ...}} for `system` (NULL: both).
 * New reference. */
json_t *mt_scaling_trial_json(const mt_scaling_trial_result *r, const char *system);

#endif
