/* The journal's listings as other layers read them: an override
 * (mt_journal_overrides_json), a withdrawal (mt_journal_withdrawals_json),
 * who recorded a row (its "author") and the effort's summary (mt_journal_effort_summary_json), read into C
 * structs by the one reader of each shape (journal_view.c, the only place
 * outside their makers where the keys are spelled). Strings are borrowed
 * from the JSON read, which must outlive the view; NULL is none. */
#ifndef MT_JOURNAL_VIEW_H
#define MT_JOURNAL_VIEW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* What the team found out about an op or a torch API. */
typedef struct {
	int64_t id;
	const char *created; /* ISO 8601 */
	const char *key;     /* the op, or the API when is_api */
	int is_api;
	const char *status, *note;
	const char *source; /* "override:journal#ID" */
} mt_override_view;

/* Reads one row of mt_journal_overrides_json: 0, or MT_EINVALID naming
 * the first key missing (filled as far as it goes either way). */
int mt_override_view_read(mt_override_view *v, const json_t *row);

/* A record withdrawn, who withdrew it, when and why. */
typedef struct {
	int64_t id, item_id;
	const char *when, *kind;
	const char *what; /* the record in one line; NULL when it is gone */
	const char *who, *why;
} mt_withdrawal_view;

/* Reads one row of mt_journal_withdrawals_json, as mt_override_view_read. */
int mt_withdrawal_view_read(mt_withdrawal_view *v, const json_t *row);

/* Who recorded a row (a run, check, note or effort interval): its event's
 * author (git's user.name and user.email) and host, from whichever machine
 * wrote it: sanitise before a terminal sees them. All NULL when not known
 * (a row no event made). Not the host a run ran on (the run's own). */
typedef struct {
	const char *name, *email, *host;
} mt_author_view;

/* Reads row's "author" ({name, email, host} or null): 0, or MT_EINVALID
 * when the row has no such key or its object lacks one (filled as far as
 * it goes either way). */
int mt_author_view_read(mt_author_view *v, const json_t *row);

/* The name of who recorded row (borrowed), NULL when not known. */
const char *mt_author_name(const json_t *row);

/* The time recorded in a category of a track. */
typedef struct {
	const char *category;
	int64_t ms;
} mt_effort_category_view;

/* A track's time ("unassigned" for intervals with none), by category in
 * the summary's order. */
typedef struct {
	const char *track;
	int64_t total_ms;
	mt_effort_category_view *categories; /* ncategories */
	size_t ncategories;
} mt_effort_track_view;

typedef struct {
	int64_t total_ms;
	mt_effort_track_view *tracks; /* in the summary's order, ntracks */
	size_t ntracks;
} mt_effort_summary_view;

/* What the team says a track's change to a file is. */
typedef struct {
	const char *created; /* ISO 8601 */
	const char *track, *path;
	const char *mark; /* "reusable", "model-specific" */
	const char *note; /* NULL: none */
} mt_mark_view;

/* Reads mt_journal_marks_json's rows (borrowed: the array must outlive
 * them) into *out, n of them, in its order; free(*out) after. 0,
 * MT_EINVALID naming the first key missing, or MT_EIO. */
int mt_mark_view_read_list(mt_mark_view **out, size_t *n, const json_t *rows);

/* Reads mt_journal_effort_summary_json's object: 0, MT_EINVALID naming
 * the first key missing, or MT_EIO out of memory. Dispose of it with
 * mt_effort_summary_view_dispose (either way). */
int mt_effort_summary_view_read(mt_effort_summary_view *v, const json_t *summary);
void mt_effort_summary_view_dispose(mt_effort_summary_view *v);

#endif
