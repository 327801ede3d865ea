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

/* Reads the log at `path` of `format` with `rules` (read once by the
 * caller for many logs) and records it in t (opened with its spec) as an
 * attempt `at`, with the system description's `topology` (may be NULL). A
 * log with no training event in it (no step, evaluation or run time) is
 * MT_EINVALID naming it (out->empty, out->metrics kept for its warnings). Dated by its
 * first event, or now for a series with no date. The caller disposes *out. */
int mt_run_import(mt_run_import_result *out, mt_trial *t, const mt_runlog_rules *rules,
		  const mt_run_attempt *at, const char *path, enum mt_runs_log_format format,
		  json_t *topology);

void mt_run_import_result_dispose(mt_run_import_result *r);

#endif
