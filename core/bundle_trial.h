/* `mtrial bundle`: a trial packed for another team to inspect and repeat
 * (issue 20), and the read-only trial made again from one.
 *
 * A bundle is one gzip-compressed ustar stream (common/tar.h) of regular
 * files, MANIFEST first:
 *   MANIFEST             "SHA256  SIZE  NAME" for every other entry, one a
 *                        line, sorted by name (bytewise)
 *   FORMAT               what each entry is, in words
 *   trial.yaml           as it is (--redact: its paths and host names replaced)
 *   record/events/W.jsonl  the record, the events files as they are
 *   record/objects/...   content-hashed artefacts, when the trial has them
 *                        (--redact: redacted, named by their new hash)
 *   logs/ID-SYSTEM.log   each run's log, wherever it was
 *   checks.json          the checks' summaries
 *   environment.json     each system's software versions (trial.yaml)
 *   origin.json          the trial's directory and repository, as read there
 *   tracks/NAME.patch    each track's changes, base to head
 *   tracks/NAME.json     the same as probes/tracks.c counts them
 *   report.md, report.html
 * The names and their order are fixed so that a reader can check it. */
#ifndef MT_BUNDLE_TRIAL_H
#define MT_BUNDLE_TRIAL_H

#include <stddef.h>
#include <stdint.h>

#include "trial.h"
#include "util.h"

#define MT_BUNDLE_MANIFEST "MANIFEST"

typedef struct {
	const char *output; /* FILE.tar.gz */
	int redact;         /* drop private notes, host names and absolute paths */
	int64_t now_ms;     /* the report's time */
} mt_bundle_options;

/* The artefacts by what they hold, as mt_bundle_redacted counts them. */
enum { MT_BUNDLE_ART_SCAN, MT_BUNDLE_ART_PROBE, MT_BUNDLE_ART_INVENTORY, MT_BUNDLE_ART_RUN_LOG,
       MT_BUNDLE_ART_OTHER, MT_BUNDLE_ART_KINDS };
/* Their names: "scan", "probe", "inventory", "run log", "other". */
extern const char *const mt_bundle_artefact_kinds[MT_BUNDLE_ART_KINDS];

/* What --redact took out, by kind. */
typedef struct {
	size_t notes;        /* events of notes tagged private (and their edits) */
	size_t hosts;        /* host names replaced by "{host}" */
	size_t paths;        /* absolute paths replaced by "{path}/NAME" */
	size_t files;        /* events files renamed (their names hold the host) */
	size_t artefacts;    /* artefacts redacted: their content rewritten, named by its new hash */
	size_t artefacts_by_kind[MT_BUNDLE_ART_KINDS]; /* the same by what they hold */
	size_t artefacts_same; /* artefacts carried as they were: nothing in them to redact */
	size_t artefacts_missing; /* named by the record, not in the trial: not carried */
	size_t objects_unnamed;   /* in the trial's objects, named by no event: not carried */
} mt_bundle_redacted;

/* What --redact took out, in one sentence ending in '.', as `mtrial
 * bundle` and the wizard say it: "Redacted: N event(s) of private notes
 * dropped, ...". */
void mt_bundle_redacted_text(mt_buf *out, const mt_bundle_redacted *d);

typedef struct {
	size_t files;        /* entries, MANIFEST included */
	uint64_t bytes;      /* of the bundle written */
	size_t logs;         /* run logs included */
	size_t logs_missing; /* runs whose log could not be read */
	size_t tracks;       /* tracks with a patch */
	size_t tracks_skipped; /* tracks whose changes are not known (no revisions, no repository) */
	mt_bundle_redacted redacted;
	char *notes;         /* what was left out and why, one line each; NULL none */
} mt_bundle_result;

void mt_bundle_result_dispose(mt_bundle_result *r);

/* Writes trial t's bundle to o->output (through a temporary name). */
int mt_bundle_write(mt_bundle_result *out, mt_trial *t, const mt_bundle_options *o);

/* What a verified bundle holds. */
typedef struct {
	size_t files; /* entries the manifest lists, MANIFEST included */
	uint64_t bytes; /* their sizes, inflated */
	size_t events_files, logs;
} mt_bundle_verified;

/* Reads bundle `path` and checks every entry against its MANIFEST:
 * MT_EINVALID naming the entry for a tar or gzip fault (common/tar.h), an
 * entry missing, not listed, of another size or another sha256, or a
 * manifest line that does not parse (its line). */
int mt_bundle_verify(mt_bundle_verified *out, const char *path);

/* Verifies bundle `path` whole, then makes `dir` (absent or empty) a
 * read-only trial from it: trial.yaml, events/ and objects/, the logs
 * under logs/, the index made from the events, and the marker naming the
 * bundle. Nothing is written when the bundle is refused. */
int mt_bundle_init(mt_bundle_verified *out, const char *path, const char *dir);

#endif
