/* A decision (decide.h's mt_decide_from) as C structs: what the CLI, the wizard
 * and the report read of it, instead of its JSON's keys; decide_view.c is
 * the one reader of the shape decide.h documents. Texts and the arrays are
 * borrowed from the decision read: it must outlive the view. NULL is none;
 * NAN a number not known. */
#ifndef MT_DECIDE_VIEW_H
#define MT_DECIDE_VIEW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "decide.h"

typedef enum {
	MT_CRITERION_UNKNOWN, /* the record cannot tell yet: never a pass */
	MT_CRITERION_MET,
	MT_CRITERION_NOT_MET,
} mt_criterion_state;

typedef struct {
	const char *name, *kind, *description;
	const char *status; /* "met", "not_met" or "unknown", as the JSON says */
	mt_criterion_state state;
	const char *evidence; /* a sentence with the numbers */
	const char *source;   /* the records it read */
	const char *track;    /* the track that decided it */
	const char *design;   /* the comparison of a criterion judged from runs,
				 "matched" or "best"; NULL for the others */
	double threshold, value;
	size_t n_conditions, n_missing;
	const json_t *conditions, *missing; /* read with mt_decide_view_condition / _missing */
} mt_criterion_view;

typedef struct {
	const char *verdict;  /* MT_VERDICT_* */
	const char *headline; /* "GO WITH CONDITIONS" */
	const char *summary;  /* "4 of 6 criteria met, 1 not met, 1 unknown" */
	const char *caveat;   /* the main caveat */
	int64_t met, not_met, unknown;
	size_t n_criteria, n_caveats;
	const json_t *criteria, *caveats; /* read with mt_decide_view_criterion / _caveat */
} mt_decision_view;

/* Reads `decision` (from mt_decide_from). 0, or MT_EINVALID naming the first
 * key missing (what was there is read). */
int mt_decide_view_read(mt_decision_view *d, const json_t *decision);

/* Criterion i of d, in trial.yaml's order: 0, MT_ENOTFOUND past the end,
 * MT_EINVALID with a key missing. */
int mt_decide_view_criterion(mt_criterion_view *c, const mt_decision_view *d, size_t i);

/* Caveat i of d (0 is the main one), condition i of c; NULL past the end. */
const char *mt_decide_view_caveat(const mt_decision_view *d, size_t i);
const char *mt_decide_view_condition(const mt_criterion_view *c, size_t i);

/* What would settle c (i-th) and the command that records it: 0, or
 * MT_ENOTFOUND past the end. */
int mt_decide_view_missing(const mt_criterion_view *c, size_t i, const char **what,
			 const char **command);

#endif
