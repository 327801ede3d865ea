/* The report's "Compilation and shapes" section: each run's compilations,
 * the break-even run length of the two systems and the bucket advice, from
 * the trial's own runs (trial/econ.h), formatted for the templates. */
#ifndef MT_REPORT_COMPILATION_H
#define MT_REPORT_COMPILATION_H

#include <jansson.h>
#include <stddef.h>
#include "runview.h"
#include "trial.h"

/* {runs [{id, system, count, each_s, total_s, share_pct, from}] | null,
 * breakeven [{topology ("baseline 8 devices, candidate 32 devices": one per
 * pair of topologies, never pooled), steps, hours, winner_before,
 * winner_after, reason, cost_steps, cost_winner_after, cost_reason, baseline
 * {start_s, step_s, hourly_cost}, candidate {...}, runs}] | null, breakeven_missing (why none), buckets {run, best,
 * pad_to_max, per_length (each {buckets, compiles, predicted_s,
 * padding_pct}), saving_s, compile_s, compile_runs, step} | null,
 * buckets_missing, run_length_steps (the median steps of the runs that are
 * evidence, null without), design "matched" (the figures above are of its
 * runs), best_recipe {design "best", run_count, breakeven, breakeven_missing,
 * buckets, buckets_missing: the same of the best-recipe runs alone} | null
 * (null: none)}, of the n runs that are evidence, oldest first
 * (the runs section's attempts, read). New reference, or JSON null
 * without any. */
json_t *mt_report_compilation(mt_trial *t, const mt_run_view *attempts, size_t n);

#endif
