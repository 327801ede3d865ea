/* What the report model's files share (model.c, model_runs.c,
 * model_probes.c, model_checks.c): the number formats and each section's
 * builder. Private to report/. */
#ifndef MT_MODEL_INT_H
#define MT_MODEL_INT_H

#include "journal.h"
#include "spec.h"
#include "trial.h"
#include "util.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

static inline json_t *duration(int64_t ms)
{
	char text[32];
	mt_duration_fmt(text, sizeof(text), ms);
	return json_string(text);
}

static inline double num(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A number for the report: 3 significant digits, or null (hidden). */
static inline json_t *fig_of(double v, double scale)
{
	char buf[32];
	if (!isfinite(v))
		return json_null();
	snprintf(buf, sizeof(buf), "%.3g", v * scale);
	return json_string(buf);
}

/* fig_of() of a number in the JSON; not a number: null. */
static inline json_t *fig(json_t *v, double scale)
{
	return json_is_number(v) ? fig_of(json_number_value(v), scale) : json_null();
}

/* Sections over the scan, the exact inventories, the tracks and the probe
 * (model_probes.c); each null when nothing is recorded. */
json_t *mt_model_probes_scan(mt_journal *j);
json_t *mt_model_probes_exact(mt_journal *j);
json_t *mt_model_probes_tracks(mt_trial *t, int64_t now_ms);
json_t *mt_model_probes_probe(mt_journal *j);

/* Sections over the correctness checks (model_checks.c). */
/* The list; *correctness the Correctness section (both null without
 * checks), *state 0 without checks, 1 with rehearsals alone, 2 with a
 * check that is evidence. */
json_t *mt_model_checks_list(mt_journal *j, json_t **correctness, int *state);

/* Sections over the runs, their costs and the decision (model_runs.c).
 * *attempts (borrowed from the section, NULL when it is null): the runs
 * that are evidence, flattened: the runs the costs are worked out from. */
json_t *mt_model_runs_list(mt_trial *t, json_t **attempts);
json_t *mt_model_runs_costs(json_t *runs, const mt_spec *spec);
json_t *mt_model_runs_decision(mt_trial *t, int64_t now_ms);

/* The Scaling section (model_scaling.c) of the runs section's attempts
 * (flattened; NULL when the runs could not be read): null without runs. */
json_t *mt_model_scaling(json_t *attempts, const mt_spec *spec);

#endif
