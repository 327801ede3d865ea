/* `mtrial runs import`: a run made elsewhere (an MLPerf log, output with
 * mtrial: lines, a CSV or JSON Lines series) recorded in the trial as an
 * attempt, with the figures its log gives. */
#ifndef MT_RUN_IMPORT_H
#define MT_RUN_IMPORT_H

#include <stdint.h>
#include <jansson.h>

#include "run_trial.h"
#include "runlog.h"
#include "runs.h"

typedef struct {
	int64_t id;         /* the run's id in the journal */
	const char *status; /* as recorded; borrowed from metrics */
	int empty;          /* the log held no training event: nothing imported */
	json_t *metrics;    /* the log's figures (warnings, warning_list, ...) */
	json_t *run;        /* the record as `mtrial runs` lists it, flattened:
			       metric_warning, workload_warning against trial.yaml */
} mt_run_import_result;

/* What one import records: the log, how it is laid out, the attempt. */
typedef struct {
	const char *path;                /* the log */
	enum mt_runs_log_format format;  /* as mt_run_import_sniff says it is */
	mt_run_attempt at;               /* system, track, design, ... */
	json_t *topology;                /* the system description's (mt_runs_system_read),
					    borrowed; NULL: none */
	const mt_runlog_rules *rules;    /* read once by the caller for many logs,
					    borrowed; NULL: read for this one */
} mt_run_import_options;

/* How the file at `path` is laid out, from its name and first bytes
 * (mt_runs_sniff): MT_RUNS_SYSTEM for a system description, which is not a
 * log; with `logs_only` that is MT_EINVALID naming it, as mt_run_import
 * refuses it. MT_ENOTFOUND naming the file when it cannot be read. */
int mt_run_import_sniff(enum mt_runs_log_format *out, const char *path, int logs_only);

/* Reads the log o->path of o->format with o->rules and records it in t
 * (opened with its spec) as the attempt o->at, with the system
 * description's o->topology. A system description (MT_RUNS_SYSTEM) is
 * MT_EINVALID naming it. A log with no training event in it (no step,
 * evaluation or run time) is MT_EINVALID naming it (out->empty,
 * out->metrics kept for its warnings). A log already recorded as a
 * standing run is MT_EEXISTS naming the run. Dated by its first event, or
 * now for a series with no date. The caller disposes *out. */
int mt_run_import(mt_run_import_result *out, mt_trial *t, const mt_run_import_options *o);

void mt_run_import_result_dispose(mt_run_import_result *r);

#endif
