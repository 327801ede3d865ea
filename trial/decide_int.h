/* What decide.c, decide_runs.c and decide_records.c share: the context
 * every judge reads and the helpers that build a criterion's JSON. Private
 * to trial/. */
#ifndef MT_DECIDE_INT_H
#define MT_DECIDE_INT_H

#include <jansson.h>
#include <stddef.h>

#include "decide.h"
#include "spec.h"
#include "util.h"

/* What every judge reads, and what the decision collects across criteria. */
struct ctx {
	const mt_spec *spec;
	size_t index;      /* the criterion being judged: criteria.INDEX */
	json_t *ev;        /* the evidence, borrowed */
	json_t *caveats;   /* general caveats found while judging */
	int failures_told; /* the candidate's failed attempts are a condition once */
	const char *design; /* the comparison a run criterion judges: "matched"
			       (NULL: the same) or "best"; ev holds its runs alone */
	size_t other_design; /* runs of the other design left out of ev */
};

/* --- helpers (decide.c) --- */

double mt_dc_num(json_t *v);              /* NAN when not a number */
json_t *mt_dc_real_or_null(double v);     /* null when not finite */
const char *mt_dc_str(json_t *o, const char *key);
int mt_dc_streq(const char *a, const char *b); /* both set and equal */

/* A number of trial.yaml, NaN when absent or not a number. */
double mt_dc_spec_num(const mt_spec *spec, const char *path);

/* Sets the criterion's status, the value compared and the evidence. */
void mt_dc_judge(json_t *c, const char *status, double value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A criterion judged against a threshold it does not have: judged unknown,
 * and 1; else 0. */
int mt_dc_lacks_threshold(struct ctx *x, json_t *c, double threshold);

/* Adds what would settle an unknown criterion and the command recording it. */
void mt_dc_need(json_t *c, const char *what, const char *command);

/* A condition of a met criterion; a caveat of the whole decision. */
void mt_dc_condition(json_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mt_dc_caveat(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The records a criterion read, in words. */
void mt_dc_source(json_t *c, const char *text);

/* "#3, #5" for the ids of the runs in `runs`. */
void mt_dc_put_ids(mt_buf *b, json_t *runs);

/* The median of the finite values of `key` over `runs`; *n how many. */
double mt_dc_median_of(json_t *runs, const char *key, size_t *n);

/* --- the runs a criterion reads (decide_runs.c) --- */

/* 1 for a rehearsal: never evidence. */
int mt_dc_is_rehearsal(json_t *r);

/* "no track" for runs recorded without one (""), else the track. */
const char *mt_dc_track_label(const char *t);

/* Runs of `system` (and of `track` when not NULL; "" is no track) whose
 * status is one of `statuses` (NULL: any). Rehearsals are never evidence:
 * left out. New reference. */
json_t *mt_dc_runs_of(json_t *ev, const char *system, const char *track,
		      const char *const *statuses);

/* The rehearsals of `system` (NULL: either). New reference. */
json_t *mt_dc_rehearsals_of(json_t *ev, const char *system);

/* mt_dc_need() for a run of `system`: when only rehearsals of it are
 * recorded, says that a real run is needed and how many were left out. */
void mt_dc_need_run(struct ctx *x, json_t *c, const char *system, const char *what,
		    const char *command);

/* Appends to a run criterion's evidence the rehearsals of `system` (NULL:
 * both) it left out. */
void mt_dc_rehearsals_left_out(struct ctx *x, json_t *c, const char *system);

/* The comparison x judges, "matched" or "best". */
const char *mt_dc_design(const struct ctx *x);

/* `command` ("mtrial run --system candidate -- CMD") with the option that
 * records a run of x's design, for a criterion's missing; unchanged in a
 * trial of the matched design alone (no precision.best, no best run).
 * Static buffer or `command`: used at once. */
const char *mt_dc_design_command(const struct ctx *x, const char *command);

/* Runs of `runs` whose flattened `key` is a number. New reference. */
json_t *mt_dc_with_number(json_t *runs, const char *key);

/* The candidate's failed, aborted and lost attempts: a condition on the
 * first run-based criterion that is met. */
void mt_dc_attempts_condition(struct ctx *x, json_t *c);

/* --- the judges: criterion c of kind ..., against threshold (NAN: none) --- */

void mt_dc_judge_quality(struct ctx *x, json_t *c, double threshold);     /* decide_runs.c */
void mt_dc_judge_time(struct ctx *x, json_t *c, double threshold);        /* decide_runs.c */
void mt_dc_judge_cost(struct ctx *x, json_t *c, double threshold);        /* decide_runs.c */
void mt_dc_judge_device_hours(struct ctx *x, json_t *c, double threshold); /* decide_runs.c */
void mt_dc_judge_correctness(struct ctx *x, json_t *c, double threshold); /* decide_records.c */
void mt_dc_judge_ops(struct ctx *x, json_t *c, double threshold);         /* decide_records.c */
void mt_dc_judge_effort(struct ctx *x, json_t *c, double threshold);      /* decide_records.c */
void mt_dc_judge_custom(struct ctx *x, json_t *c, double threshold);      /* decide_records.c */

#endif
