/* The go/no-go decision of a trial (trial/decide.h's mt_decide_from) from
 * its record: the evidence gathered from the journal, each other layer's
 * record read through its typed view (a check through mt_check_view, a
 * probe through mt_probe_view) and written in the shape the decision
 * reads. The CLI's `decide` and the report's verdict call it. */
#ifndef MT_DECISION_H
#define MT_DECISION_H

#include <jansson.h>
#include <stdint.h>

#include "trial.h"

/* The evidence of trial t as of now_ms (a running effort timer counts up
 * to it), in mt_decide_from's shape. New reference, NULL with the error
 * set when the journal cannot be read. */
json_t *mt_decision_evidence(mt_trial *t, int64_t now_ms);

/* Decides trial t (opened with its spec) as of now_ms: *out as
 * mt_decide_from's. 0, or a negative MT_E* code with mt_error_last() set
 * when the journal cannot be read. */
int mt_decision(json_t **out, mt_trial *t, int64_t now_ms);

#endif
