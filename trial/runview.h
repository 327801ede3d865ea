/* A recorded run as C structs: the journal's row (mt_journal_runs_json),
 * its stored figures (mt_runs_metrics: trial/runlog.h's JSON) and what
 * mt_runs_flatten derives from trial.yaml, and the per-system summary
 * (mt_runs_by_system). The structs are what the CLI, the wizard, the
 * report and trial/econ.c read; runview.c is the one place the keys are
 * spelled. Unknown numbers are NAN, unknown texts NULL. Texts and the
 * json_t pointers are borrowed from the JSON read: it must outlive the
 * view. */
#ifndef MT_RUNVIEW_H
#define MT_RUNVIEW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "runlog.h" /* MT_RUNLOG_NO_TIME */

/* The quality target's part of the figures (mt_runs_target), known when
 * trial.yaml sets one. */
typedef struct {
	int known;                /* 0: no target (null), the rest unknown */
	const char *metric;       /* "eval_accuracy" */
	const char *direction;    /* "higher" or "lower" */
	double value;             /* the threshold */
	int evaluated;            /* 1: the log evaluates the metric; -1 unknown */
	int reached;              /* 1, 0; -1 unknown */
	double from_run_start_s, from_submission_s, from_attempt_start_s;
	int64_t at_step;          /* the evaluation that reached it; -1 none */
	const char *metrics_in_log; /* "eval_accuracy, eval_loss" */
	const char *reason;       /* why it was not reached */
} mt_run_target_view;

/* The compilations the steps show (metrics.compiles). */
typedef struct {
	int known;            /* 0: none measured (null, or an older record) */
	int64_t count;
	double seconds_each;  /* the median compilation, s */
	double seconds_total; /* s */
	double first_seconds; /* the first, when clock 1 is a stall */
	double steady_step_s; /* the interval they stall against */
	double share;         /* of the attempt, 0..1 */
	const char *from;     /* "stalls", "both" (cache lines too), "cache" */
} mt_run_compiles_view;

/* The figures stored with a run (metrics), or read from a log by
 * mt_runs_metrics. */
typedef struct {
	int known;               /* 0: none (a running run, a log without figures) */
	const char *status;      /* what the log says: success, failed, aborted, unknown */
	int64_t first_ms, last_ms; /* the log's first and last timed event, MT_RUNLOG_NO_TIME */
	int64_t steps;           /* step events */
	int64_t warnings;        /* warnings counted, kept or not */
	double clock1_s;         /* submission to the first step */
	int steady;              /* 1: a steady state was measured (the next three) */
	double step_median_s;    /* steady state */
	int64_t intervals, warmup_skipped; /* measured, and skipped as warm-up */
	double padding_fraction; /* 1 - tokens / padded; NAN */
	double data_wait_share, comm_wait_share; /* of the steady time: waiting for
	                                            input, communicating; NAN: not measured */
	int64_t last_step;       /* the latest step logged, -1 none */
	double last_loss;        /* its loss */
	int64_t run_start_ms;    /* run_start, else the first step; MT_RUNLOG_NO_TIME */
	double run_minutes;      /* MLPerf's */
	mt_run_target_view target;
	mt_run_compiles_view compiles;
	const json_t *topology;  /* an imported system description (mt_runs_system_read) */
	const json_t *launcher;  /* the job a launcher ran it in (trial/launcher.h),
				    recorded by its rank 0; NULL */
	/* arrays read with mt_runview_eval / _stall / _warning */
	const json_t *evaluations, *stalls, *warning_list;
} mt_run_figures;

/* One evaluation of the log (metrics.evaluations[i]). */
typedef struct {
	const char *metric;
	double value;
	int64_t t_ms, step; /* MT_RUNLOG_NO_TIME / -1 when unknown */
} mt_run_eval_view;

/* One stall (metrics.stalls[i]). */
typedef struct {
	int64_t step;
	double seconds, median_s;
} mt_run_stall_view;

/* One warning kept (warning_list[i]). */
typedef struct {
	int64_t line;
	const char *message;
} mt_run_warning_view;

/* Where the run's devices come from and what they cost (mt_runs_flatten).
 * A group of its own: the topology per run goes here. */
typedef struct {
	double count;              /* devices */
	const char *from;          /* "trial.yaml" or "system description PATH" */
	double device_hours, device_hours_to_target;
	double hourly_cost;          /* the price for the hosts or devices it used, NAN: none */
	double cost, cost_to_target; /* in the system's currency */
	const char *not_priced;    /* "rehearsal", its hosts not known, else NULL */
} mt_run_devices_view;

/* One run as `mtrial runs` lists it. */
typedef struct {
	int64_t id;
	const char *system, *track, *label, *cache, *origin; /* origin: "run" or "import" */
	const char *command, *source; /* the command run; the log's path */
	const char *status;    /* running, success, failed, aborted, lost */
	const char *note;      /* why a run is lost */
	const char *started, *ended; /* ISO 8601 */
	int64_t started_ms;
	int has_exit;
	int exit_status;
	int rehearsal;
	const char *design;    /* "matched" (also a run recorded before designs) or "best" */
	const json_t *design_changes; /* [{from, to, why, when, event}], NULL: none */
	const char *withdrawn_when, *withdrawn_who, *withdrawn_why; /* when withdrawn */
	int withdrawn;
	mt_run_figures figures;

	/* derived from trial.yaml (mt_runs_flatten); unknown when not flattened */
	int flattened;
	const char *outcome; /* mt_run_outcome's */
	int reached;         /* 1, 0; -1 not known */
	double clock1_s, steady_step_s;
	const char *steady_statistic;
	double throughput;
	const char *throughput_unit;
	double time_to_target_s, time_to_target_from_submission_s, run_minutes;
	const char *accounting_from, *accounting_to; /* NULL: no boundary */
	double accounting_hours;
	mt_run_devices_view devices;
	const char *cache_inferred, *cache_warning, *metric_warning, *workload_warning;
	const json_t *live; /* the wizard's live figures of a running run, NULL */
} mt_run_view;

/* Reads the figures `metrics` (null or not an object: known 0). 0, or
 * MT_EINVALID naming the first key missing (what was there is read). */
int mt_runview_figures(mt_run_figures *f, const json_t *metrics);

/* Reads run `run` (a row of mt_journal_runs_json, flattened or not). 0,
 * or MT_EINVALID naming the first key missing. */
int mt_runview_read(mt_run_view *v, const json_t *run);

/* The i-th evaluation, stall or kept warning of f; 0, MT_ENOTFOUND past
 * the end, MT_EINVALID with a key missing. */
int mt_runview_eval(mt_run_eval_view *out, const mt_run_figures *f, size_t i);
int mt_runview_stall(mt_run_stall_view *out, const mt_run_figures *f, size_t i);
int mt_runview_warning(mt_run_warning_view *out, const mt_run_figures *f, size_t i);

/* A figure across runs (mt_run_summary_json): NAN each without values;
 * the olympic mean (drop the fastest and the slowest) needs 3. */
typedef struct {
	double min, median, max, olympic_mean;
} mt_run_spread;

/* One system's summary of mt_runs_by_system. */
typedef struct {
	int known; /* 0: no runs of the system (null) */
	int64_t runs, failed, missed, no_metric, running, reached;
	mt_run_spread time_to_target_s; /* over the runs that reached it */
	mt_run_spread run_minutes;      /* MLPerf's, over its successful runs */
	double devices, price_hourly;
	int several_topologies; /* runs at several device counts: the spreads are
	                           unknown, never pooled (mtrial scaling has them) */
} mt_run_system_view;

/* Reads system `name` ("baseline", "candidate") of mt_runs_by_system's
 * `systems`. 0 or MT_EINVALID naming the first key missing. */
int mt_runview_system(mt_run_system_view *s, const json_t *systems, const char *name);

/* An imported system description (mt_runs_system_read). */
typedef struct {
	const char *source, *accelerator, *system_name;
	double nodes, accelerators_per_node, devices;
} mt_run_topology_view;

int mt_runview_topology(mt_run_topology_view *tp, const json_t *topology);

/* The job a launcher ran the attempt in (mt_launcher_json). */
typedef struct {
	const char *launcher, *rank_from, *job, *hosts_from, *hosts_text;
	int64_t ranks;       /* 0: not known */
	const json_t *hosts; /* array of strings, NULL: the launcher lists none */
} mt_run_launcher_view;

int mt_runview_launcher(mt_run_launcher_view *l, const json_t *launcher);

#endif
