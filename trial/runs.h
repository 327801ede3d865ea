/* A run's figures from its log, with the trial's quality target and prices:
 * what `mtrial run` stores when a run ends, `mtrial runs import` when a log
 * comes in, and `mtrial runs` and the report show. */
#ifndef MT_RUNS_H
#define MT_RUNS_H

#include <stdint.h>
#include <jansson.h>
#include "runlog.h"
#include "spec.h"
#include "trial.h"

/* How the log's lines are laid out. */
enum mt_runs_log_format {
	MT_RUNS_LOG_TIMED, /* `mtrial run`'s: "EPOCH_MS o|e LINE" */
	MT_RUNS_LOG_RAW,   /* an imported log: the lines as the training printed them */
	MT_RUNS_LOG_CSV,   /* a series: a header row, then a row per step (run_events.yaml series) */
	MT_RUNS_LOG_JSONL, /* a series: one JSON object per line, keys as CSV columns */
	MT_RUNS_SYSTEM,    /* not a log: an MLPerf system description (mt_runs_system_read) */
};

/* What an imported file holds, from its name (.csv, .tsv, .jsonl, .ndjson)
 * or else its first bytes head[0..len): MLLOG or mtrial: lines a log, a
 * JSON object on the first line JSON Lines (unless it has number_of_nodes),
 * a JSON object over several lines a system description, anything else a
 * log. */
enum mt_runs_log_format mt_runs_sniff(const char *path, const char *head, size_t len);

/* An MLPerf submission's system description (systems/NAME.json of a
 * results repository): *out = {system_name, submitter, nodes,
 * accelerators_per_node, devices (nodes x accelerators per node),
 * accelerator, source: path}. Counts may be numbers or texts ("8"). A file
 * that is not JSON is MT_EINVALID "PATH:LINE:COL: ..."; a missing or bad
 * count, or none (a CPU-only system), MT_EINVALID naming the key. */
int mt_runs_system_read(json_t **out, const char *path);

/* The figures of the run logged at `path` (trial/runlog.h's JSON, plus
 * warning_list: the first 20 warnings {line, message}), with the target of
 * trial.yaml's quality_target (metric, threshold, direction) and throughput
 * in tokens as workload.token_unit counts them when it is set and the log
 * gives tokens, else samples. A CSV series without a step column, or with
 * an unreadable header, is MT_EINVALID "PATH:LINE: ..."; a bad row is a
 * warning and skipped.
 * submit_ms: when the command was started (0: unknown); exit_status -1:
 * unknown. *out is a new reference; MT_ENOTFOUND / MT_EIO for the file. */
int mt_runs_metrics(json_t **out, const char *path, enum mt_runs_log_format format,
		    const mt_spec *spec, int64_t submit_ms, int exit_status);

/* Reads the log at `path` laid out as `format` into `log` (started with
 * its rules by the caller), by the rules every run is read with: `metric`
 * (trial.yaml's target metric, or NULL) is an eval column of a series too.
 * MT_ENOTFOUND / MT_EIO for the file; a series without a step column is
 * MT_EINVALID "PATH:LINE: ...", and what was read stays in log. */
int mt_runs_log_feed(mt_runlog *log, const char *path, enum mt_runs_log_format format,
		     const char *metric);

/* mt_runs_metrics with rules read once by the caller (borrowed), for a
 * command that reads many logs. */
int mt_runs_metrics_with(json_t **out, const mt_runlog_rules *rules, const char *path,
			 enum mt_runs_log_format format, const mt_spec *spec, int64_t submit_ms,
			 int exit_status);

/* The quality target's part of a run's stored figures `metrics`, derived
 * from trial.yaml as it is now (never stored: a changed threshold changes
 * it): {metric, value, direction, evaluated (the log evaluates the metric),
 * reached, from_run_start_s, from_submission_s, from_attempt_start_s (the
 * accounting boundary's start to the evaluation), at_step, at_epoch,
 * metrics_in_log ("eval_accuracy, ..."), reason (when not reached), note},
 * or null without a target in `spec`. Figures recorded by an older mtrial
 * (a target frozen into them, no run_start) are read too: the frozen
 * verdict is ignored, only the times it implies are used. New reference. */
json_t *mt_runs_target(json_t *metrics, const mt_spec *spec);

/* 1 when trial.yaml sets precision.best: one of the five keys of either
 * system's best recipe (the second design, practical performance). */
int mt_runs_has_best(const mt_spec *spec);

/* 1 when an MLPerf submission_benchmark ("ssd", "llama2_70b_lora") may be
 * the workload trial.yaml names (workload.model.name): one contains the
 * other, letters and digits compared without case. */
int mt_runs_same_workload(const char *benchmark, const char *model);

/* Sets the end of the attempt in `metrics` (from mt_runs_metrics) to the
 * process's end, end_ms: what `mtrial run` saw, not its last line. */
void mt_runs_set_end(json_t *metrics, int64_t end_ms);

/* One run of mt_journal_runs_json() flattened with its figures, all those
 * that depend on trial.yaml derived from it as it is now (the stored
 * figures hold none): metrics.target replaced by mt_runs_target, outcome
 * (mt_run_outcome: running, failed, no_target, no_metric, missed,
 * reached), reached (true, false, or null when not known: no target, or a
 * log that never evaluates its metric), clock1_s, steady_step_s (clock 2,
 * the steady-state mean) with steady_statistic "mean", throughput {value,
 * unit} (the same mean), time_to_target_s (from run start),
 * time_to_target_from_submission_s, run_minutes, accounting {from, to,
 * hours}: the accounting boundary, the same for every source (from
 * "submission", "init_start" or "first_event"; to "process_end",
 * "run_stop" or "last_event"; an older record "recorded_start" to
 * "recorded_end": the journal's), devices (the system description
 * imported with the run, metrics.topology, else count x hosts of its
 * system in trial.yaml) and devices_from, device_hours, hourly_cost (the
 * price for the hosts or devices it used, mt_topology_hourly_cost) and cost
 * (hourly_cost x the attempt's hours), device_hours_to_target and cost_to_target
 * (from the attempt's start to the evaluation that reached it; null without a
 * price or a target), cache_inferred (the compile cache the log shows:
 * cold, warm, mixed or null) and, when it disagrees with the declared
 * cache, cache_warning; metric_warning (a finished run whose log never
 * evaluates the target's metric: which metrics it does evaluate) and
 * workload_warning (an MLPerf submission_benchmark that is not
 * workload.model.name). A rehearsal (run.rehearsal true) is not priced:
 * devices only from its system description, device_hours, cost and
 * cost_to_target null, and not_priced "rehearsal"; a priced system's run
 * whose hosts (devices) are not known has not_priced saying so. Adds the keys to `run`
 * in place. */
void mt_runs_flatten(json_t *run, const mt_spec *spec);

/* Per system, of the matched design's runs (a run recorded before designs
 * is one): {baseline: summary, candidate: summary}, and when best-recipe
 * runs are recorded, best: {baseline, candidate} of those alone (never
 * pooled with the matched ones); each with
 * trial/runlog.h's summary across the system's flattened runs (their
 * current target) (rehearsals left out:
 * they are not evidence; null for a system without other runs) plus
 * devices (as the runs count them when they agree, else trial.yaml's) and
 * the hourly price; "topologies" [{devices, summary}] per device count, and
 * with several ("several_topologies" true) the spreads over time
 * (time_to_target_s, run_minutes) are null with a "pooled_note": no figure
 * pools topologies. New reference. */
json_t *mt_runs_by_system(json_t *runs, const mt_spec *spec);

/* Per system, its fastest run by throughput among the flattened `runs` of
 * `design` (rehearsals left out) when that run missed the quality target
 * (reached false): [{system, run (id), throughput, unit}]. Such a run never
 * wins a time-to-quality figure, whatever its throughput: the figures count
 * only runs that reached the target, and a reader is told. New reference. */
json_t *mt_runs_fastest_missed(json_t *runs, const char *design);

/* The trial's standing runs (not withdrawn), oldest first, each flattened
 * with the trial's spec: a new reference to an array the caller reads and
 * never changes (a caller that adds keys copies the run first: json_copy).
 * NULL with the journal's error. Between mt_runs_hold and its
 * mt_runs_release, every call returns the same array, read once: for a
 * report, whose sections, decision and break-even all read them, during
 * which nothing is recorded. Holds nest. */
json_t *mt_runs_standing(mt_trial *t);
void mt_runs_hold(mt_trial *t);
void mt_runs_release(mt_trial *t);

#endif
