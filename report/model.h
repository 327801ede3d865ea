/* The trial record as one JSON document: what `mtrial report --format json`
 * prints, what the markdown template is rendered from, and what the wizard
 * shows. */
#ifndef MT_REPORT_MODEL_H
#define MT_REPORT_MODEL_H

#include <stdint.h>
#include <jansson.h>
#include "trial.h"

/* Builds the model of trial `t` as of now_ms (running timers count up to it).
 * Keys: "mtrial" {version, schema}, "generated", "trial" {dir, name},
 * "spec" (mt_spec_to_json), "effort" {summary, intervals}, "notes",
 * "decision" (mt_decision with labels, or {error}), "tracks" [{name, base,
 * head, totals (with by_mark), marked [{path, mark, note}], stale_marks,
 * or unknown: why}] (from mt_tracks_json), "runs" {attempts (the
 * evidence), count, failed, no_evidence (true without any), rehearsals
 * (listed apart, never evidence, not priced), rehearsal_count (null for
 * none), systems (the evidence's summaries)}, each run with its figures
 * formatted and setup (padding, compile cache declared and inferred, where
 * its device count came from); "costs" of the evidence, "steps" [{id, title, status:
 * empty|partial|done, hint, verdict: the Summary's headline when decided}].
 * New reference, NULL with mt_error_last() on failure. */
json_t *mt_report_model(mt_trial *t, int64_t now_ms);

/* The same without the notes: "notes" empty and "note_count" 0, for a
 * renderer that reads them itself, a page at a time (render.c). */
json_t *mt_report_model_without_notes(mt_trial *t, int64_t now_ms);

#endif
