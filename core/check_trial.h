/* The correctness checks of a trial, one function each for `mtrial check
 * compare`, `mtrial check curves` and the wizard's Correctness step: the
 * tolerances from what was typed and trial.yaml, the comparison, and the
 * check recorded in the trial's journal. The callers print or draw. */
#ifndef MT_CHECK_TRIAL_H
#define MT_CHECK_TRIAL_H

#include <stdint.h>
#include <jansson.h>

#include "check_view.h"
#include "compare.h"
#include "curves.h"
#include "tolerances.h"
#include "trial.h"

/* A recorded check: the result as the callers read it (`view`) and as
 * JSON (`result`, what --json prints and the journal keeps: kind's
 * reference, candidate, passed and the rest, with "rehearsal" and, when
 * recorded, "check_id"), and what became of it in the record. */
typedef struct {
	json_t *result;     /* NULL when the check did not run */
	mt_check_view view; /* of result, borrowing from it; zero when NULL */
	int passed;
	int64_t check_id; /* 0 when not recorded (no trial) */
} mt_check_trial_result;

void mt_check_trial_result_dispose(mt_check_trial_result *r);

/* Records out->result as a check of `kind` in t's journal, a rehearsal
 * (never evidence) when `rehearsal`; t NULL records nothing (check_id 0).
 * Sets the result's "rehearsal" and "check_id", then reads it into
 * out->view and out->passed, also when recording fails. */
int mt_check_trial_record(mt_check_trial_result *out, mt_trial *t, const char *kind,
			  int rehearsal);

/* `mtrial check compare`: what was given besides the two sides. */
typedef struct {
	const char *noise;          /* a second reference run; NULL for none */
	double rtol, atol;          /* typed for every tensor; NaN: not given */
	const char *typed_source;   /* what the result calls them ("--rtol/--atol") */
	int equal_nan_given;        /* cmp.equal_nan was typed: trial.yaml's is not read */
	int rehearsal;
	mt_cmp_options cmp;         /* stat, equal_nan, progress; rules are set here */
} mt_check_trial_compare_options;

/* The rules a comparison uses, the first that names a tensor winning:
 * `globs` (the command line's --tol, may be NULL), then the typed rtol and
 * atol, then trial.yaml's tolerances (t NULL or without a spec: none).
 * Sets o->cmp.equal_nan from trial.yaml unless it was typed. The caller
 * disposes *rules (already holding the globs). */
int mt_check_trial_rules(mt_cmp_rules *rules, mt_check_trial_compare_options *o,
			 const mt_trial *t);

/* Compares CAND's tensors with REF's under mt_check_trial_rules() and
 * records the check when t is not NULL. `globs` as there (may be NULL; the
 * function appends to it and leaves it to the caller). On a failure to
 * record, out->result is kept for the caller to show, with the error. */
int mt_check_trial_compare(mt_check_trial_result *out, mt_trial *t, const char *ref,
			   const char *cand, mt_cmp_rules *globs,
			   mt_check_trial_compare_options *o);

/* `mtrial check curves`: how to read and compare the curves. */
typedef struct {
	mt_curve_read_opts read;
	mt_curve_cmp_opts cmp;   /* higher_is_better is set here from direction */
	int direction;           /* 0: an accuracy by its name, else a loss; 1 higher, -1 lower */
	int rehearsal;
} mt_check_trial_curves_options;

/* The curves' comparison, for the caller to show: the curves and the
 * comparison besides the recorded check. */
typedef struct {
	mt_check_trial_result check;
	mt_curve *ref, *cand;
	mt_curve_cmp cmp;
} mt_check_trial_curves_result;

/* The options `mtrial check curves` starts from: rtol
 * MT_CURVE_DEFAULT_RTOL, no moving mean. */
void mt_check_trial_curves_defaults(mt_check_trial_curves_options *o);

/* Compares two loss or accuracy curves (files, or runs of the trial as
 * "run:N", which need t) and records the check when t is not NULL. */
int mt_check_trial_curves(mt_check_trial_curves_result *out, mt_trial *t, const char *ref,
			  const char *cand, mt_check_trial_curves_options *o);

void mt_check_trial_curves_dispose(mt_check_trial_curves_result *r);

#endif
