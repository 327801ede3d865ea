/* journal.db: the trial's append-mostly record in SQLite (WAL mode).
 *
 * Several processes may write at once (the wizard open while `mtrial note`
 * runs in another terminal): every write is one IMMEDIATE transaction and the
 * busy timeout lets writers queue instead of failing. Schema changes are
 * forward migrations numbered in the schema_version table. */
#ifndef MT_JOURNAL_H
#define MT_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#define MT_JOURNAL_SCHEMA_VERSION 17
/* The migration that gave events their authors (journal.c): an index
 * migrated from before it is made again from the events files, which hold
 * them. (Renumbered with the migration.) */
#define MT_JOURNAL_AUTHORS_VERSION 15

typedef struct mt_journal mt_journal;

/* The tracks and effort categories a record accepts. NULL-terminated, static. */
extern const char *const mt_tracks[];
extern const char *const mt_effort_categories[];
/* What a track's change to a file is, as the team marks it. */
extern const char *const mt_change_marks[];

/* Opens (and with `create`, creates) the journal at path and migrates it to
 * the current schema. Without `create` a missing file is MT_ENOTFOUND. */
int mt_journal_open(mt_journal **out, const char *path, int create);
void mt_journal_free(mt_journal *j);

/* The schema version stored in the file. */
int mt_journal_schema_version(mt_journal *j);

/* A number that changes when another process (or another handle) commits
 * to the journal: the wizard rebuilds what it shows only then, not on a
 * clock. This handle's own writes do not change it. -1 when it cannot be
 * read. */
int64_t mt_journal_data_version(mt_journal *j);

typedef struct {
	int64_t id;
	int64_t created_ms;
	char *track;  /* NULL when none */
	char *text;
	int64_t interval_id; /* the effort interval it was made in, 0 when none */
	char **tags;
	size_t ntags;
	/* who recorded it, as its event says: git's user.name and user.email
	 * and the host (from other machines: sanitise before showing); NULL
	 * when unknown (a row no event made) */
	char *author, *email, *host;
} mt_note;

void mt_note_dispose(mt_note *n);

/* Adds a friction note. A NULL track takes the running timer's track. A note
 * made while a timer runs belongs to that interval. *id_out may be NULL. */
int mt_journal_note_add(mt_journal *j, const char *text, const char *track,
			const char *const *tags, size_t ntags, int64_t *id_out);

/* Calls cb for each note that is not withdrawn, oldest first. The note and its strings are
 * borrowed for the duration of the call. A non-zero return from cb stops the
 * walk and is returned. */
typedef int (*mt_note_cb)(const mt_note *note, void *payload);
int mt_journal_notes_foreach(mt_journal *j, mt_note_cb cb, void *payload);

typedef struct {
	int64_t id;
	char *track;    /* NULL when none */
	char *category;
	char *text;     /* NULL when none */
	int64_t started_ms;
	int64_t stopped_ms; /* 0 while running */
	char *author, *email, *host; /* who recorded it, as mt_note's */
} mt_effort;

void mt_effort_dispose(mt_effort *e);

/* Starts the effort timer. MT_ESTATE when one is already running. `out` may be
 * NULL; otherwise the caller disposes it. Category defaults to "other". */
int mt_journal_effort_start(mt_journal *j, const char *track, const char *category,
			    const char *text, mt_effort *out);

/* Records a finished interval after the fact (the timer was forgotten):
 * [started_ms, stopped_ms), which must not be empty or in the future. Does
 * not touch a running timer. `out` as for start. */
int mt_journal_effort_add(mt_journal *j, const char *track, const char *category,
			  const char *text, int64_t started_ms, int64_t stopped_ms,
			  mt_effort *out);

/* Stops the running timer; MT_ESTATE when none runs. */
int mt_journal_effort_stop(mt_journal *j, mt_effort *out);

/* The running interval, or MT_ENOTFOUND when no timer runs. */
int mt_journal_effort_current(mt_journal *j, mt_effort *out);

/* Calls cb for each interval not withdrawn, oldest first (borrowed, as for
 * notes). */
typedef int (*mt_effort_cb)(const mt_effort *e, void *payload);
int mt_journal_effort_foreach(mt_journal *j, mt_effort_cb cb, void *payload);

/* A scan to record: the whole result and its summary as compact JSON text
 * as probes/scan.h writes it, with the revision it describes. All borrowed.
 * The texts are stored as they are, never parsed here (a diffusers result
 * is 10 MB). When result is NULL, result_text(result_arg) makes it (a fresh
 * string, freed here; NULL when out of memory), and only when the scan is
 * not a rescan of the latest one: a warm rescan never builds it. */
typedef struct {
	const char *repo, *rev, *tree; /* tree "" for a work-tree scan */
	int worktree;
	const char *summary, *result;
	char *(*result_text)(void *arg);
	void *result_arg;
} mt_journal_scan;

/* Records a scan. A rescan of the same committed tree with the same summary
 * as the latest scan is not stored again: *unchanged (may be NULL) is set
 * and *id_out (may be NULL) is that scan's id. The summary is named by its
 * digest before anything is written, so such a rescan writes nothing. */
int mt_journal_scan_add(mt_journal *j, const mt_journal_scan *scan, int64_t *id_out,
			int *unchanged);

/* What a reader worked out once from a large record, kept in the index
 * under `key` (name the record, e.g. its uid, and the code's version):
 * get gives 1 and a fresh *value, 0 when none, negative on error; put
 * keeps it, a failure forgotten (it is worked out again). */
int mt_journal_memo_get(mt_journal *j, const char *key, char **value);
void mt_journal_memo_put(mt_journal *j, const char *key, const char *value);

/* The latest scan's id and event uid (a fresh string, NULL for a record
 * from before events) from the index alone: 1, 0 when none, negative on
 * error. */
int mt_journal_scan_latest_uid(mt_journal *j, int64_t *id_out, char **uid_out);

/* The latest scan's summary (full = 0) or whole result (full = 1) as a new
 * reference, its id and time; MT_ENOTFOUND when none. id_out and created_ms
 * may be NULL. */
int mt_journal_scan_latest(mt_journal *j, int full, json_t **out, int64_t *id_out,
			   int64_t *created_ms);

/* A probe as the journal keeps it: the identity of the table it used (what
 * the record is searched by) and the result whole, which the journal
 * stores and never reads. */
typedef struct {
	const char *table_name, *table_version, *table_retrieved, *table_source;
	json_t *result;  /* probes/probe.h's, borrowed */
	int64_t scan_id; /* the scan it was made from, 0 when not a recorded one */
} mt_journal_probe;

/* Records a probe; MT_EINVALID without its table's name. */
int mt_journal_probe_add(mt_journal *j, const mt_journal_probe *p, int64_t *id_out);

/* The latest probe result (new reference); MT_ENOTFOUND when none. */
int mt_journal_probe_latest(mt_journal *j, json_t **out, int64_t *id_out, int64_t *created_ms);

/* The latest probe made against compatibility table `table` (its
 * table.name; NULL: any), as mt_journal_probe_latest. */
int mt_journal_probe_latest_of(mt_journal *j, const char *table, json_t **out, int64_t *id_out,
			       int64_t *created_ms);

/* The latest probe's id, the name of the table it used (a fresh string,
 * NULL when the record has none; table_out may be NULL) and the size of
 * its result in bytes (bytes_out may be NULL), from the index alone: the
 * result is not read.
 * MT_ENOTFOUND when none. */
int mt_journal_probe_latest_table(mt_journal *j, int64_t *id_out, char **table_out,
				  int64_t *bytes_out);

/* Records an exact op inventory `inv` (probes/opinventory.h's, borrowed,
 * stored whole) of `source` ("torchscript" or "trace") read from `file`.
 * The same inventory as the latest of its source is not stored again:
 * *unchanged (may be NULL) is set and *id_out gets that id. */
int mt_journal_inventory_add(mt_journal *j, const char *source, const char *file, json_t *inv,
			     int64_t *id_out, int *unchanged);

/* The latest inventory of a source, with "inventory_id" added (new
 * reference); MT_ENOTFOUND when none. */
int mt_journal_inventory_latest(mt_journal *j, const char *source, json_t **out, int64_t *id_out);

/* A correctness check as the journal keeps it: what its listings and the
 * decision are searched by, and the result whole (stored, never read). */
typedef struct {
	const char *kind;                  /* "compare", "model", "curves" */
	const char *reference, *candidate; /* what was compared, as text */
	int passed;
	int rehearsal; /* stand-ins compared to test the check: listed, never evidence */
	json_t *result; /* checks/'s, borrowed */
} mt_journal_check;

/* Records a check; MT_EINVALID without its kind, reference or candidate. */
int mt_journal_check_add(mt_journal *j, const mt_journal_check *c, int64_t *id_out);

/* Marks check `id` a rehearsal (rehearsal 1) or evidence (0). MT_ENOTFOUND
 * for no such check. */
int mt_journal_check_mark(mt_journal *j, int64_t id, int rehearsal);

/* The recorded checks not withdrawn, newest first, of one kind (NULL: all), at most
 * `limit` (<= 0: all): each result with id, created, kind and rehearsal (a
 * boolean, from the record) added. New reference, NULL with the error set. */
json_t *mt_journal_checks_json(mt_journal *j, const char *kind, int limit);

/* A run attempt: made by `mtrial run` (origin "run") or imported (origin
 * "import"). Strings borrowed; NULL where the column allows it. */
typedef struct {
	const char *system;  /* "baseline" or "candidate" */
	const char *track;   /* "portability", "optimized", or NULL */
	const char *label, *cache; /* cache: "cold", "warm", or NULL (unknown) */
	const char *origin;
	const char *command; /* what ran, shell-quoted, or NULL for an import */
	const char *log;     /* the log file (timestamped lines, or the imported file) */
	const char *status;  /* running, success, failed, aborted */
	int has_exit_status, exit_status;
	int64_t started_ms, ended_ms; /* ended 0: not yet */
	const char *metrics; /* JSON text computed from the log, or NULL */
	int64_t pid;         /* the recording process (0: none, an import) */
	const char *host;    /* and its host, or NULL */
	int rehearsal;       /* 1: a rehearsal (testing the pipeline, a CPU or a smaller
			      * config): listed, never evidence */
	const char *design;  /* the comparison it belongs to: "matched" (NULL: the
			      * same) or "best" (trial.yaml's precision.best) */
} mt_journal_run;

/* Records a run; *id_out (may be NULL) its id. A run recorded already
 * ended (an import) has its log file stored as an artefact (trial/objects.h)
 * that the event names: the record reads it on any machine. A log that is
 * a standing run's already (the same bytes) is MT_EEXISTS naming that run:
 * one attempt counts once. In a trial made from a bundle: MT_ESTATE
 * (read-only), nothing stored. */
int mt_journal_run_add(mt_journal *j, const mt_journal_run *run, int64_t *id_out);

/* A path run `id`'s log can be read from: the file it was written to
 * when it is there, else its artefact written to a temporary file (*temp
 * 1: the caller unlinks it). *path the caller frees. MT_ENOTFOUND when
 * neither is there, naming both. */
int mt_journal_run_log(mt_journal *j, int64_t id, char **path, int *temp);

/* Ends run `id`: its status, exit status, end and metrics (NULL keeps them),
 * its log stored as an artefact as by mt_journal_run_add. MT_ENOTFOUND for
 * no such run. */
int mt_journal_run_end(mt_journal *j, int64_t id, const char *status, int has_exit_status,
		       int exit_status, int64_t ended_ms, const char *metrics);

/* Marks run `id` a rehearsal (rehearsal 1) or evidence (0). MT_ENOTFOUND
 * for no such run. */
int mt_journal_run_mark(mt_journal *j, int64_t id, int rehearsal);

/* The first standing (not withdrawn) run whose log is artefact `ref`
 * ("sha256:HEX"), into *id_out: 1 when there is one, 0 when none, < 0 on
 * error. One log is one attempt: imported twice, it would count twice. */
int mt_journal_run_with_log(mt_journal *j, const char *ref, int64_t *id_out);

/* Moves run `id` to `design` ("matched" or "best"), for the reason `why`
 * (required): an event of its own (run.design), so the run keeps the
 * change in its design_changes. MT_EINVALID for another design or no
 * reason, MT_ENOTFOUND for no such run. */
int mt_journal_run_design(mt_journal *j, int64_t id, const char *design, const char *why);

/* The runs not withdrawn, oldest first (only_id > 0: that one, withdrawn or
 * not; MT_JOURNAL_RUNS_ALL: every run, withdrawn ones too): [{id, system,
 * track, label, cache, origin, command, source, status, exit_status,
 * started, ended, metrics, rehearsal (boolean), design ("matched" or "best"),
 * design_changes [{from, to, why, when, event}], withdrawn ({who, why, when}
 * or null)}]. A run recorded as running by a process of this host
 * that no longer exists reads as status "lost" with a "note". New
 * reference, NULL with the error set. */
json_t *mt_journal_runs_json(mt_journal *j, int64_t only_id);
#define MT_JOURNAL_RUNS_ALL (-1)

/* What an override names: "op" for an aten op ("aten::add", an overload
 * "aten::add.Tensor"), "api" for a public torch API, dotted ("torch.cumsum",
 * "torch.Tensor.masked_scatter"); NULL for anything else. Static. */
const char *mt_override_key_kind(const char *key);

/* Records what the team found out about an op or a torch API (`op` holds
 * either, as mt_override_key_kind tells) on the candidate: status is
 * device, cpu_fallback, unsupported or partial; the note (required) says
 * who, where and on which version. */
int mt_journal_override_add(mt_journal *j, const char *op, const char *status, const char *note,
			    int64_t *id_out);

/* The recorded overrides not withdrawn, newest first: [{id, created, op (or
 * api, for an API's), status, note, source: "override:journal#ID"}]. New
 * reference, NULL on error. */
json_t *mt_journal_overrides_json(mt_journal *j);

/* Marks a track's change to a file (a path of its diff; the journal does
 * not check that) "reusable" (any model moved to the platform needs it) or
 * "model-specific", with an optional note; replaces an earlier mark of it. */
int mt_journal_mark_set(mt_journal *j, const char *track, const char *path, const char *mark,
			const char *note);

/* Removes a file's mark; MT_ENOTFOUND when it has none. */
int mt_journal_mark_clear(mt_journal *j, const char *track, const char *path);

/* The marks by track and path: [{created, track, path, mark, note?}]. New
 * reference, NULL with the error set. */
json_t *mt_journal_marks_json(mt_journal *j);

/* What can be withdrawn: "run", "check", "override", "effort", "note".
 * NULL-terminated, static. */
extern const char *const mt_withdraw_kinds[];

/* Withdraws a mistaken record: it stays in the journal with who withdrew it,
 * when and why (required), and the listings that feed figures (runs, checks,
 * overrides, effort, notes: the functions above) leave it out from then on.
 * MT_ENOTFOUND for no such record, MT_EEXISTS when already withdrawn,
 * MT_ESTATE for the running effort timer. *id_out (may be NULL) is the
 * withdrawal's id. `who` NULL: the events' author (mt_journal_author_name). */
int mt_journal_withdraw(mt_journal *j, const char *kind, int64_t id, const char *who,
			const char *why, int64_t *id_out);

/* The name every event this journal writes records as its author (git's
 * GIT_AUTHOR_NAME, else the repository's user.name over the global one).
 * Borrowed: lives as long as the journal. */
const char *mt_journal_author_name(mt_journal *j);

/* The withdrawals, oldest first: [{id, when, kind, item_id, what (the
 * record in one line), who, why}]. New reference, NULL with the error set. */
json_t *mt_journal_withdrawals_json(mt_journal *j);

/* How many records of `kind` ("run", ...) are withdrawn, into *out: what a
 * listing that leaves them out says it hid. */
int mt_journal_withdrawn_count(mt_journal *j, const char *kind, size_t *out);

/* One interval as JSON: id, track, category, text, started, stopped (ISO
 * UTC or null), running, duration_ms (up to now while running). */
json_t *mt_effort_json(const mt_effort *e);

/* One note as JSON: id, created (ISO UTC), track, text, interval (the
 * effort interval's id or null), tags. New reference. */
json_t *mt_note_json(const mt_note *n);

/* JSON views used by --json output and the report. New references. */
json_t *mt_journal_notes_json(mt_journal *j);
json_t *mt_journal_effort_json(mt_journal *j);
/* {"total_ms":..,"by_track":{track:{"total_ms":..,"by_category":{cat:ms}}}},
 * running intervals counted up to `now_ms`. Intervals with no track are under
 * "unassigned". */
json_t *mt_journal_effort_summary_json(mt_journal *j, int64_t now_ms);

/* The event log the journal indexes (issue 19): {dir, events (applied),
 * files: [{file, writer, lines, bytes, incomplete_bytes (a last line cut
 * short, left unread)}], refused: [{file, line, id, reason}]}. New
 * reference, NULL with the error set. */
json_t *mt_journal_events_json(mt_journal *j);

/* A line of an events file the index refused, and why. */
typedef struct {
	char *file;   /* the file's name in the events directory */
	int64_t line; /* 1-based; 0 for a file cut shorter than was read */
	char *uid;    /* the event's id, NULL when the line is not an event */
	char *reason;
} mt_refused_line;

/* An artefact (trial/objects.h) the record names that is not there. */
typedef struct {
	char *ref;  /* "sha256:HEX" */
	char *uid;  /* the event that names it */
	const char *what; /* "scan", "scan summary", "probe", "inventory", "run log": static */
} mt_missing_artefact;

/* What the record is made of (issue 19): the events applied, the writers'
 * files, the lines refused (the first `max` of them, in file and line
 * order, and their number) and the artefacts named but missing. */
typedef struct {
	int64_t events, writers, refused;
	mt_refused_line *first;
	size_t nfirst;
	mt_missing_artefact *missing;
	size_t nmissing;
} mt_record_summary;

/* Fills *out (the caller disposes of it, also on error) with the first
 * `max` refused lines. */
int mt_journal_record_summary(mt_journal *j, size_t max, mt_record_summary *out);
void mt_record_summary_dispose(mt_record_summary *s);

/* Makes the index again from the events files, in one transaction: the
 * local ids are given again from 1. Rows that another tool wrote into the
 * database alone become events first, so nothing is lost. */
int mt_journal_rebuild(mt_journal *j);

/* The last event the index holds in the union's order (time, then id):
 * *t 0 and uid "" when none. An event after it is indexed where a rebuild
 * would put it; one before it only by a rebuild. */
int mt_journal_last_event(mt_journal *j, int64_t *t, char *uid, size_t size);

#endif
