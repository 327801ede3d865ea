/* `mtrial run`: an attempt of the training command recorded in the trial,
 * failed or interrupted ones too. The child process is run_child.h's, the
 * log run_capture.h's; this is the recording: the log file in the trial's
 * runs/ directory, the journal's run from "running" to its end, and the
 * figures read from the log.
 *
 * A rehearsal is a run made to test the pipeline, the launcher or the log
 * format (a CPU, a smaller config): listed with the others but never
 * evidence (trial/decide.h). */
#ifndef MT_RUN_TRIAL_H
#define MT_RUN_TRIAL_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "trial.h"

/* What is recorded about an attempt besides its command. */
typedef struct {
	const char *system; /* "baseline" or "candidate" */
	const char *track, *label, *cache; /* NULL for none */
	int rehearsal;                     /* testing the pipeline, never evidence */
	const char *design;                /* "matched" (NULL: the same) or "best":
					      trial.yaml's precision.best */
	int64_t devices, hosts;            /* as the user gave them (--devices, --hosts);
	                                      0: not given, -1: not a whole number >= 1 */
} mt_run_attempt;

typedef struct mt_run_trial_result mt_run_trial_result;

/* What happens while the command runs, for the caller to say: the attempt
 * is recorded (id, command and log known) and the command about to start;
 * an interrupt is being passed on to it. `r` is borrowed for the call. */
typedef enum { MT_RUN_TRIAL_STARTED, MT_RUN_TRIAL_INTERRUPTING } mt_run_trial_event;
typedef void (*mt_run_trial_event_cb)(mt_run_trial_event ev, const mt_run_trial_result *r,
				      void *payload);

typedef struct {
	mt_run_attempt at;
	char **argv;             /* the command, NULL-terminated */
	FILE *out, *err;         /* where its output is passed through as it is */
	mt_run_trial_event_cb on_event; /* may be NULL */
	void *payload;
	char *const *envp;       /* the environment the launcher set (rank, job,
				    hosts: trial/launcher.h); NULL: environ */
} mt_run_trial_options;

struct mt_run_trial_result {
	int64_t id;          /* the run's id in the journal, 0 before it is recorded */
	char *command;       /* the command as one shell-quoted line */
	char *log;           /* the log's path */
	const char *status;  /* "success", "failed" or "aborted"; static */
	int exit_status;     /* the command's, 128 + the signal that ended it */
	size_t lines;        /* lines in the log */
	int interrupted;     /* the signal that interrupted mtrial (0: none) */
	char *no_figures;    /* why the log gave no figures, NULL when it did */
	json_t *run;         /* the record as `mtrial runs` lists it, flattened
				(mt_runs_flatten: cache_warning and the rest) */
	long rank;           /* under a launcher, this process's rank: above 0,
				the command ran and nothing was recorded (id 0,
				run NULL) */
	const char *rank_from; /* the variable it came from; NULL: no launcher */
};

/* The topology an attempt records: --devices and --hosts (at), then the
 * launcher argv wraps and the environment envp (trial/topology.h); NULL
 * when none says anything. New reference. */
json_t *mt_run_attempt_topology(const mt_run_attempt *at, char *const *argv, char *const *envp);

/* 0 when an attempt may be recorded under `design` (NULL: matched) in a
 * trial with `spec`: "matched" always, "best" only when trial.yaml sets
 * precision.best; else MT_EINVALID naming what is missing. */
int mt_run_design_check(const mt_spec *spec, const char *design);

/* The command as one shell-quoted line, for the record. Caller frees. */
char *mt_run_trial_command_line(char *const *argv);

/* Runs the command as an attempt of trial t (opened with its spec): logs
 * it in t's runs/ and records it in the journal, then ends the record
 * with the status, exit status and the log's figures. An attempt
 * interrupted (SIGINT, SIGTERM) is aborted, whatever the command made of
 * the signal. On an error after the attempt was recorded, it is ended as
 * failed. Under a launcher (trial/launcher.h), rank 0 records the attempt
 * with the job (metrics.launcher: its size, id and hosts) and any other
 * rank only runs the command: one attempt per job. The caller disposes
 * *out, filled as far as it got. */
int mt_run_trial(mt_run_trial_result *out, mt_trial *t, const mt_run_trial_options *o);

void mt_run_trial_result_dispose(mt_run_trial_result *r);

#endif
