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

/* The same model a section at a time, for a reader that shows one (the
 * wizard, on a trial of 100,000 notes and 1,000 runs: issue 18): each
 * top-level key of mt_report_model ("spec", "notes", "decision", ...) is
 * built when first asked for and kept until the builder is freed, as of
 * the builder's now_ms. mt_report_model is all of them in order. */
typedef struct mt_report_parts mt_report_parts;

/* "steps" does not work the decision out: the Summary's status is
 * "unknown" (and it has no verdict) until "decision" is built. */
#define MT_REPORT_PARTS_DEFER_DECISION 1u

/* A builder over trial t (borrowed for the builder's life); flags
 * MT_REPORT_PARTS_*. */
mt_report_parts *mt_report_parts_new(mt_trial *t, int64_t now_ms, unsigned flags);
void mt_report_parts_free(mt_report_parts *p);

/* The model's key `key`, built on first ask; borrowed until the builder is
 * freed or the key dropped. NULL with mt_error_last() when it cannot be
 * read or the model has no such key. */
json_t *mt_report_parts_get(mt_report_parts *p, const char *key);

/* Forgets `key`, to build it again (the steps once the decision is worked
 * out). A key made with another ("correctness" with "checks", "costs" and
 * "scaling" with "runs") goes with that one only. */
void mt_report_parts_drop(mt_report_parts *p, const char *key);

#endif
