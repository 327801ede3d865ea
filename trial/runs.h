/* A run's figures from its log, with the trial's quality target and prices:
 * what `mtrial run` stores when a run ends, `mtrial runs import` when a log
 * comes in, and `mtrial runs` and the report show. */
#ifndef MT_RUNS_H
#define MT_RUNS_H

#include <stdint.h>
#include <jansson.h>
#include "runlog.h"
#include "spec.h"

/* How the log's lines are laid out. */
enum mt_runs_log_format {
	MT_RUNS_LOG_TIMED, /* `mtrial run`'s: "EPOCH_MS o|e LINE" */
	MT_RUNS_LOG_RAW,   /* an imported log: the lines as the training printed them */
};

/* The figures of the run logged at `path` (trial/runlog.h's JSON), with the
 * target of trial.yaml's quality_target (metric, threshold, direction) and
 * throughput in tokens when workload.token_unit is set, else samples.
 * submit_ms: when the command was started (0: unknown); exit_status -1:
 * unknown. *out is a new reference; MT_ENOTFOUND / MT_EIO for the file. */
int mt_runs_metrics(json_t **out, const char *path, enum mt_runs_log_format format,
		    const mt_spec *spec, int64_t submit_ms, int exit_status);

/* mt_runs_metrics with rules read once by the caller (borrowed), for a
 * command that reads many logs. */
int mt_runs_metrics_with(json_t **out, const mt_runlog_rules *rules, const char *path,
			 enum mt_runs_log_format format, const mt_spec *spec, int64_t submit_ms,
			 int exit_status);

/* One run of mt_journal_runs_json() flattened with its figures: clock1_s,
 * steady_step_s, throughput {value, unit}, time_to_target_s,
 * time_to_target_from_submission_s, reached, run_minutes, devices (count x
 * hosts of its system in trial.yaml), device_hours and cost (hourly price x
 * hours of the run) and cost_to_target (null without a price or a target).
 * Adds the keys to `run` in place. */
void mt_runs_flatten(json_t *run, const mt_spec *spec);

/* Per system: {baseline: summary, candidate: summary} with
 * trial/runlog.h's summary across the system's runs plus devices and the
 * hourly price. New reference. */
json_t *mt_runs_by_system(json_t *runs, const mt_spec *spec);

#endif
