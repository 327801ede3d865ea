/* What a track changed: the diff between its base and head revisions
 * (libgit2, no checkout), each changed line platform-specific or generic by
 * the rules of tables/platform_changes.yaml, each file model code, training
 * harness or other by its path, or harness by its text (a training script). */
#ifndef MT_TRACKS_H
#define MT_TRACKS_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "trial.h"
#include "util.h"

typedef struct mt_tracks_rules mt_tracks_rules;

/* The bundled rules, or $MTRIAL_TABLES_DIR's platform_changes.yaml. */
int mt_tracks_rules_load(mt_tracks_rules **out);

/* Rules from text; a malformed file is MT_EINVALID "name:LINE:COL: what". */
int mt_tracks_rules_parse(mt_tracks_rules **out, const char *text, size_t len,
			  const char *name);

void mt_tracks_rules_free(mt_tracks_rules *r);

/* The platform rule a line matches ("neuron-device"), or NULL. */
const char *mt_tracks_rules_match(const mt_tracks_rules *r, const char *line, size_t len);

/* "model", "harness" or "other" for a file: harness when it is Python and
 * its text (may be NULL) holds one of training_script's entry strings (argparse, a
 * __main__ block) and one of its loop strings (backward, an optimizer
 * step), else by its path's globs. Static. */
const char *mt_tracks_rules_kind(const mt_tracks_rules *r, const char *path, const char *text,
				 size_t len);

/* The changes from `base` to `head` (any revision libgit2 reads) in the
 * repository at (or above) `repo`, renames found. *out: {base, head (full
 * commit ids), files [{path, old_path?, status, kind, binary, added,
 * deleted, platform, generic, rules {id: lines}}], totals {files, added,
 * deleted, platform, generic, by_kind {model, harness, other: lines},
 * by_rule {id: lines}}, examples [{rule, why, file, line, text}] (the first
 * 3 lines of each rule)}. Counts are of added plus deleted lines.
 * MT_ENOTFOUND for a revision that does not exist, naming it. */
int mt_tracks_diff(json_t **out, const char *repo, const char *base, const char *head,
		    const mt_tracks_rules *rules);

/* The tracks of trial `t` (mt_tracks, in order), each {name, base, head,
 * description, budget_hours, effort {total_ms, by_category} (running
 * timers counted up to now_ms), budget_used (a fraction, with a budget),
 * changes (mt_tracks_diff of base..head, each file with its "mark"
 * (reusable, model-specific or null) and "mark_note", and totals.by_mark
 * {reusable, model-specific, unmarked: lines}) or null with "missing" (no
 * revisions in trial.yaml) or "error" (the diff failed: why), and
 * stale_marks: marks of files the diff no longer has}. The revisions live
 * in workload.repository when it is a directory, else the repository
 * holding the trial. */
int mt_tracks_json(json_t **out, mt_trial *t, const mt_tracks_rules *rules, int64_t now_ms);

/* In a trial made from a bundle (trial/events.h, MT_EVENTS_FROM_BUNDLE):
 * the directory holding each track's changes as the bundle carried them,
 * NAME.json, read instead of the diff. */
#define MT_TRACKS_SAVED_DIR "tracks"

/* Track `name`'s changes as mt_tracks_diff gives them (in a trial made from
 * a bundle, as the bundle carries them), for a bundle to carry.
 * MT_ENOTFOUND when trial.yaml gives the track no base and head. */
int mt_tracks_changes(json_t **out, mt_trial *t, const mt_tracks_rules *rules, const char *name);

/* The changes from base to head in the repository of trial t's tracks
 * (as mt_tracks_json finds it) as a unified patch, appended to *out. */
int mt_tracks_patch(mt_buf *out, const mt_trial *t, const char *base, const char *head);

/* Marks PATH as changed by `track` (NULL: the one track that changed it)
 * `mark` (one of mt_change_marks) with an optional note; mark NULL clears
 * the mark (track NULL: the one track where PATH is marked). A path the
 * track did not change, or a track whose changes are not known, is
 * MT_EINVALID naming the track and its revisions. *track_out (may be
 * NULL) gets the track marked (static). */
int mt_tracks_mark(mt_trial *t, const mt_tracks_rules *rules, const char *track,
		   const char *path, const char *mark, const char *note, const char **track_out);

/* A platform-specific line a track changed. */
typedef struct {
	const char *sign; /* "+" added, "-" deleted */
	int64_t line;     /* its number in the new (added) or old (deleted) file */
	const char *rule; /* the platform rule it matched */
	const char *text; /* without its line break */
} mt_track_line;

/* A file a track changed. */
typedef struct {
	const char *path, *old_path; /* old_path: a rename's, else NULL */
	const char *status;          /* added, modified, deleted, renamed, ... */
	const char *kind;            /* model, harness or other */
	const char *mark, *mark_note; /* the team's mark and its note, NULL for none */
	int binary;
	int64_t added, deleted, platform; /* lines */
	mt_track_line *lines;             /* its platform-specific lines, nlines */
	size_t nlines;
} mt_track_file;

/* Lines by platform rule. */
typedef struct {
	const char *rule;
	int64_t lines;
} mt_track_rule_lines;

/* A mark on a file the track's diff no longer has. */
typedef struct {
	const char *path, *mark;
	const char *note; /* the mark's note, NULL for none */
} mt_track_stale;

/* One track of mt_tracks_json as other layers read it. Strings are
 * borrowed from the JSON read, which must outlive the view; NULL is none. */
typedef struct {
	const char *name, *base, *head, *description;
	const char *missing; /* what to set in trial.yaml for the changes to be known */
	const char *error;   /* why the diff failed */
	int has_changes;     /* 0: the changes are not known (missing or error) */
	struct {
		int64_t files, added, deleted, platform, generic;
		int64_t model, harness, other;               /* lines by kind of file */
		int64_t reusable, model_specific, unmarked; /* lines by mark */
	} totals;
	mt_track_rule_lines *by_rule; /* in the JSON's order, nby_rule */
	size_t nby_rule;
	mt_track_file *files; /* nfiles */
	size_t nfiles;
	mt_track_stale *stale; /* nstale */
	size_t nstale;
	int64_t effort_ms;   /* engineering time recorded on the track */
	double budget_hours; /* NAN without a budget */
	double budget_used;  /* a fraction of the budget; NAN without one */
} mt_track_view;

/* Reads mt_tracks_json's array (borrowed) into *out (*n tracks; free with
 * mt_tracks_view_free): 0, or MT_EINVALID naming the first key missing
 * (the views are filled as far as they go either way). */
int mt_tracks_view_read(mt_track_view **out, size_t *n, const json_t *tracks);
void mt_tracks_view_free(mt_track_view *v, size_t n);

#endif
