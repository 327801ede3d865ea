/* Recording runs: events read line by line from a training run's output,
 * and the figures a trial compares between runs (time to the first step,
 * steady step time and throughput, stalls, time to target, MLPerf's run
 * minutes), one run at a time and across runs.
 *
 * Two kinds of line become events; every other line is ordinary output and
 * is skipped without a word. What maps to what is in tables/run_events.yaml.
 *
 *  - MLPerf logging: `:::MLLOG {json}` with "key", "time_ms", "value" and
 *    "metadata" (epoch_num, samples_count, status). The prefix may follow
 *    other text (a launcher's "[1,0]<stdout>:"). A key the rules map to a
 *    step (train_loss: MLPerf's LLM logs print one per logged step) is a
 *    step event with the loss; its step is samples_count over the
 *    global_batch_size logged before it, else one after the previous one
 *    (samples_count counts the whole run, so it is not the step's batch).
 *  - mtrial's line protocol, for a training script without mllog:
 *
 *        mtrial:step=120 loss=2.31 tokens=65536
 *        mtrial:eval step=400 eval_loss=2.05 accuracy=0.61
 *
 *    A step line says a training step finished: step=N is required (a whole
 *    number >= 0), then any of loss=, tokens= and samples= (per step: the
 *    batch, so a script that prints every 10th step still says one batch;
 *    tokens counted as trial.yaml's workload.token_unit says), padded= (the
 *    batch's positions, padding included: the padding fraction is
 *    1 - tokens/padded), seq= (the step's longest sequence, its input
 *    shape: what `mtrial buckets --from run` plans for), epoch=, time_ms= (ms since the epoch; overrides
 *    the caller's time).
 *    An eval line (the word `eval` after the prefix) takes step=, epoch=,
 *    time_ms=, samples= the same way, and every other field is a metric:
 *    each becomes one eval event named by the field. Fields are separated
 *    by spaces or tabs; values are decimal numbers; unknown fields in a step
 *    line are ignored, so scripts may print more.
 *
 *  - Compile cache lines (a Neuron persistent cache hit, "Using a cached
 *    neff", or a compilation) anywhere in a line that holds no record:
 *    cache_hit and cache_miss events, by the patterns of the rules'
 *    compile_cache.
 *
 * Time: an MLLOG line's time_ms wins over the caller's timestamp, because
 * MLPerf's run minutes are defined on it and a pipe may deliver lines late;
 * a protocol line uses its time_ms= field when given, else the caller's.
 *
 * A line that looks like an event but is not one (truncated JSON, two
 * processes writing into one line, a bad number) becomes a warning with its
 * line number and the rest of the output still parses: feeding never fails
 * except when memory runs out. */
#ifndef MT_RUNLOG_H
#define MT_RUNLOG_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* A timestamp that is not known. */
#define MT_RUNLOG_NO_TIME INT64_MIN

/* Warnings beyond this many are counted, not kept. */
#define MT_RUNLOG_MAX_WARNINGS 200

enum mt_run_event_kind {
	MT_RUN_EV_OTHER, /* an MLLOG key the rules do not name, kept as is */
	MT_RUN_EV_CACHE_CLEAR,
	MT_RUN_EV_INIT_START,
	MT_RUN_EV_INIT_STOP,
	MT_RUN_EV_RUN_START,
	MT_RUN_EV_RUN_STOP,
	MT_RUN_EV_EPOCH_START,
	MT_RUN_EV_EPOCH_STOP,
	MT_RUN_EV_BLOCK_START,
	MT_RUN_EV_BLOCK_STOP,
	MT_RUN_EV_EVAL,  /* key: the metric ("eval_accuracy", "eval_loss") */
	MT_RUN_EV_PARAM, /* global_batch_size, train_samples, submission_* */
	MT_RUN_EV_STEP,  /* a training step finished */
	MT_RUN_EV_CACHE_HIT,  /* a compiled graph taken from a persistent compile cache */
	MT_RUN_EV_CACHE_MISS, /* the compiler ran: the graph was not in the cache */
};

/* The kind's name as written in tables/run_events.yaml and in JSON. Static. */
const char *mt_run_event_kind_name(enum mt_run_event_kind kind);

typedef struct {
	enum mt_run_event_kind kind;
	int64_t t_ms;   /* MT_RUNLOG_NO_TIME when neither the line nor the caller had one */
	size_t line;    /* 1-based, counted by the log over every line fed */
	char *key;      /* the MLLOG key, the eval metric, or "step" */
	char *text;     /* a string value (submission_org's "Dell"; run_stop's
	                   metadata.status), else NULL */
	double value;   /* a numeric value (eval result, loss, batch size), else NAN */
	int64_t step;   /* -1 when none */
	double epoch;   /* metadata.epoch_num or epoch=, else NAN */
	double samples; /* metadata.samples_count or samples=, else NAN */
	double tokens;  /* tokens=, else NAN */
	double padded;  /* padded=: the step's positions, padding included; else NAN */
	double seq;     /* seq=: the step's longest sequence (its shape), else NAN */
	double data_s;  /* data_s=: seconds the step waited for its input, else NAN */
	double comm_s;  /* comm_s=: seconds the step spent communicating, else NAN */
} mt_run_event;

typedef struct {
	size_t line;
	char *message;
} mt_run_warning;

/* The rules read from tables/run_events.yaml. Opaque, immutable once read. */
typedef struct mt_runlog_rules mt_runlog_rules;

/* Reads the rules bundled into the binary (or from $MTRIAL_TABLES_DIR). */
int mt_runlog_rules_load(mt_runlog_rules **out);

/* Reads rules from text[0..len); `name` prefixes messages. A mistake is
 * MT_EINVALID "name:LINE:COL: what". */
int mt_runlog_rules_parse(mt_runlog_rules **out, const char *text, size_t len, const char *name);

void mt_runlog_rules_free(mt_runlog_rules *rules);

/* What a CSV or JSONL series (trial/runs.c) names its columns or keys. */
enum mt_series_field {
	MT_SERIES_STEP,
	MT_SERIES_TIME,      /* seconds since the run started, or ISO 8601 text */
	MT_SERIES_TIME_MS,   /* ms since the Unix epoch */
	MT_SERIES_TIMESTAMP, /* seconds since the Unix epoch */
	MT_SERIES_LOSS,
	MT_SERIES_TOKENS,
	MT_SERIES_PADDED,
	MT_SERIES_SAMPLES,
	MT_SERIES_EPOCH,
	MT_SERIES_SEQ,  /* the step's longest sequence: its input shape */
	MT_SERIES_DATA, /* seconds the step waited for its input */
	MT_SERIES_COMM, /* seconds the step spent communicating */
	MT_SERIES_EVAL, /* a prefix: every column starting with it is a metric */
	MT_SERIES_COUNT
};

/* The names run_events.yaml's `series` gives `field`, NULL-terminated;
 * borrowed from the rules. */
const char *const *mt_runlog_rules_series(const mt_runlog_rules *rules, enum mt_series_field field);

/* The events of one run, in the order their lines came. The fields are
 * read-only for callers. */
typedef struct {
	const mt_runlog_rules *rules; /* borrowed: must outlive the log */
	mt_run_event *events;
	size_t n_events, cap_events;
	mt_run_warning *warnings; /* the first MT_RUNLOG_MAX_WARNINGS */
	size_t n_warnings, cap_warnings;
	size_t warnings_total; /* including those not kept */
	size_t lines;          /* lines fed so far */
	struct mt_runlog_strings *strings; /* where events' key and text live */
	double mllog_gbs;          /* the MLLOG global_batch_size so far, 0: none */
	int64_t mllog_last_step;   /* the step of the latest MLLOG step event, 0: none */
} mt_runlog;

/* Starts an empty log reading with `rules` (borrowed). */
void mt_runlog_init(mt_runlog *log, const mt_runlog_rules *rules);
void mt_runlog_dispose(mt_runlog *log);

/* Reads one line (without its newline; need not end with NUL) that the
 * caller saw at t_ms (MT_RUNLOG_NO_TIME when unknown). Returns 0, or MT_EIO
 * when memory runs out; a bad line is a warning, not an error. */
int mt_runlog_feed_line(mt_runlog *log, const char *line, size_t len, int64_t t_ms);

/* Reads a whole log (lines end with \n, an \r before it is dropped), every
 * line at t_ms: for an imported file whose lines carry their own times. */
int mt_runlog_feed_text(mt_runlog *log, const char *text, size_t len, int64_t t_ms);

/* Appends a copy of *ev (key and text copied) as read at ev->line, for
 * readers of other formats (CSV and JSONL series). 0 or MT_EIO. */
int mt_runlog_add_event(mt_runlog *log, const mt_run_event *ev);

/* A warning about `line`, for those readers. 0 or MT_EIO. */
int mt_runlog_warn_at(mt_runlog *log, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One event as JSON (new reference). */
json_t *mt_run_event_json(const mt_run_event *ev);

/* --- per-run figures -------------------------------------------------------- */

typedef struct {
	int64_t submit_ms;         /* when the run was submitted; MT_RUNLOG_NO_TIME: init_start */
	int64_t end_ms;            /* when the attempt ended (its process); MT_RUNLOG_NO_TIME:
	                              the log's last event */
	int exit_status;           /* the process's exit status, -1 when not known */
	size_t warmup_steps;       /* steady state skips the first max(warmup_steps, */
	double warmup_fraction;    /* ceil(warmup_fraction * intervals)) intervals */
	double stall_factor;       /* a stall takes more than stall_factor times */
	size_t stall_window;       /* the median of up to stall_window intervals before it */
	const char *unit;          /* "tokens" or "samples": what throughput counts */
	const char *token_unit;    /* with tokens: trial.yaml's workload.token_unit (input,
	                              target, padded), NULL when not declared */
	const char *target_metric; /* NULL: no target */
	double target;
	int higher_is_better; /* 1: value >= target meets it; 0: value <= target */
} mt_run_opts;

/* Defaults: no submit or end time, exit status unknown, warm-up 5 intervals or
 * 10%, stalls at 5x the median of the 10 before, unit samples, no target. */
void mt_run_opts_init(mt_run_opts *o);

typedef struct {
	int64_t step;    /* the step (or epoch, for epoch intervals) it ended */
	double seconds;  /* per step */
	double median_s; /* the median it was compared with */
} mt_run_stall;

typedef struct {
	const char *status;         /* "success", "failed", "aborted", "unknown"; static */
	const char *status_from;    /* "run_stop", "exit_status" or NULL; static */
	int64_t first_ms, last_ms;  /* MT_RUNLOG_NO_TIME without timed events */
	size_t steps;               /* step events */
	const mt_run_event *last_step; /* the latest step event, or NULL; borrowed from the log */
	const mt_run_event **evals; /* every eval event, borrowed from the log */
	size_t n_evals;

	double clock1_s;         /* NAN when no anchor or no end */
	const char *clock1_from; /* "submission" or "init_start"; static */
	const char *clock1_to;   /* "first_step" or "run_start"; static */

	double run_minutes; /* (run_stop - run_start) / 60000, NAN without both */

	/* The attempt as it is accounted for, the same for every source:
	 * submission (the process's start; else init_start; else the first
	 * event) to its end (the process's end; else the last event).
	 * MT_RUNLOG_NO_TIME when not known. */
	int64_t attempt_start_ms, attempt_end_ms;
	const char *attempt_start_from; /* "submission", "init_start", "first_event"; static */
	const char *attempt_end_from;   /* "process_end", "run_stop", "last_event"; static */
	int64_t run_start_ms;           /* run_start, else the first step */
	const char *run_start_from;     /* "run_start" or "first_step"; static */

	const char *interval; /* "step" or "epoch" (no step events), NULL: none */
	size_t intervals;     /* measured intervals */
	size_t warmup_skipped;
	double step_median_s, step_mean_s; /* steady state, NAN when none is left */
	double throughput;                 /* unit per second, NAN when units are not known:
	                                      units / time over the steady state, the same
	                                      mean as step_mean_s (clock 2) */
	const char *unit;                  /* borrowed from the options */

	mt_run_stall *stalls;
	size_t n_stalls;

	const char *target_metric; /* borrowed from the options; NULL: none asked */
	double target;
	int higher_is_better;
	int reached;
	double to_target_s;              /* from run start (run_start, else the first step) */
	double to_target_submit_s;       /* from submission; NAN when no anchor */
	const mt_run_event *target_eval; /* the first eval meeting it, or NULL */

	/* compile cache lines (run_events.yaml compile_cache) up to the first
	 * step, and in the whole log; inferred "cold" (only misses), "warm"
	 * (only hits), "mixed" or NULL (none seen); static */
	size_t cache_hits, cache_misses, cache_hits_all, cache_misses_all;
	const char *cache_inferred;

	/* Compilations (a new input shape compiles a new graph, which stalls
	 * the step that needs it): the first (clock 1 when it is a stall: its
	 * excess over the steady step, start-up included) and each stall's
	 * excess over the steady step, the median interval that is not a stall
	 * (compile_ref_s). compiles_from: "stalls", "both" (compile-cache lines
	 * too), "cache" (only misses counted: no step times) or NULL. */
	size_t compiles;
	double compile_each_s;  /* the median compilation; NAN when none */
	double compile_total_s; /* NAN when not estimable */
	double compile_first_s; /* NAN when clock 1 is no stall or unknown */
	double compile_ref_s;
	const char *compiles_from;

	double padding_fraction; /* 1 - tokens / padded over the steps giving both, else NAN */

	/* The share of the steady time the steps waited for their input
	 * (data_s=) and spent communicating (comm_s=), over the steady
	 * intervals that report it (*_intervals of them); NAN when none does:
	 * not measured. */
	double data_share, comm_share;
	size_t data_intervals, comm_intervals;
	const char *token_unit;  /* borrowed from the options */

	size_t warnings;
	const mt_runlog *log; /* borrowed: the log the figures come from */
} mt_run_metrics;

/* Works out one run's figures from its log into *m (dispose it after). m
 * borrows from log and opts: both must outlive it. MT_EIO when memory runs
 * out, with nothing left to dispose. */
int mt_run_metrics_compute(mt_run_metrics *m, const mt_runlog *log, const mt_run_opts *opts);
void mt_run_metrics_dispose(mt_run_metrics *m);

/* The figures as JSON (new reference; NULL when memory runs out). Keys:
 * status, status_from, first_ms, last_ms, steps, last_step {step, loss,
 * t_ms} | null, evaluations [{metric,
 * value, t_ms, step, epoch, samples}], clock1 {seconds, from, to} | null,
 * run_minutes, attempt {start_ms, start_from, end_ms, end_from} | null
 * (the accounting boundary; end_ms and end_from null when no line was
 * timed), run_start {t_ms, from} | null, params
 * {KEY: value} (the log's run settings: submission_benchmark, ...), steady
 * {interval, intervals, warmup_skipped, step_s (clock 2: the mean, as
 * throughput), statistic ("mean"), step_median_s, step_mean_s, throughput,
 * unit, token_unit, padding_fraction} | null,
 * stalls [{step, seconds, median_s}], target {metric, value, direction,
 * reached, from_run_start_s, from_submission_s, at_step, at_epoch, reason}
 * | null, compile_cache {inferred, hits, misses, hits_total, misses_total}
 * (hits and misses up to the first step), compiles {count, seconds_each,
 * seconds_total, first_seconds, steady_step_s, share (of the attempt),
 * from, cache_misses} | null, warnings.
 * Unknown numbers are null. */
json_t *mt_run_metrics_json(const mt_run_metrics *m);

/* What became of an attempt, from its status and its target block (both
 * may be NULL): "running"; "failed" (failed, aborted, lost: the status);
 * "no_target" (finished, no target asked); "no_metric" (finished, but its
 * log never evaluates the target's metric); "missed" (evaluated, never
 * reached); "reached". Static. */
const char *mt_run_outcome(const char *status, json_t *target);

/* A summary over per-run JSON objects from mt_run_metrics_json (each with
 * the attempt's "status"): runs, failed (failed or aborted: the status),
 * missed (finished, the target evaluated and not reached), no_metric
 * (finished without the target's metric in the log), running, reached,
 * time_to_target_s {min, median, max, olympic_mean} over the runs that
 * reached it, and run_minutes {the same} over successful MLPerf runs. The
 * olympic mean (MLPerf's: drop the fastest and the slowest, average the
 * rest) needs at least 3 values; with fewer it is null and "olympic_note"
 * says so. New reference, NULL when memory runs out. */
json_t *mt_run_summary_json(json_t *const *runs, size_t n);

#endif
