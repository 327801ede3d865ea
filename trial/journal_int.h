/* What journal.c, journal_withdraw.c and journal_stmt.c share: the handle
 * and one way to run a statement. Private to the journal. */
#ifndef MT_JOURNAL_INT_H
#define MT_JOURNAL_INT_H

#include "journal.h"
#include "events.h"

#include <sqlite3.h>
#include <sys/types.h>

#define MT_JSTMT_CACHE 48

struct mt_journal {
	sqlite3 *db;
	char *path;
	mt_events *events; /* the record; the database is its index */
	/* the statements mt_jstmt_run prepared, kept: a rebuild runs the same
	 * few for each of 100,000 events */
	struct {
		char *sql;
		const char *given; /* the text as first given: compared by address */
		sqlite3_stmt *st;
	} cache[MT_JSTMT_CACHE];
	size_t ncache;
	/* events recorded in the transaction under way, and the last of them
	 * (time, then id): event_count gains them at its commit
	 * (mt_jstmt_finish) */
	int64_t recorded, last_t;
	char last_uid[MT_EVENT_ID_LEN + 1];
	/* while the index is made from nothing (mt_jevent_fresh_begin): the
	 * greatest id read so far. An id above it is not in the index, so its
	 * event needs no look-up there */
	struct mt_jfresh *fresh;
	/* why this handle made the index again when it opened it (an events
	 * file it had read is gone, or not the one read), "" when it did not */
	char healed[640];
	/* the file the connection reads (journal.db made again by another
	 * handle is a new file: this one is then reopened,
	 * mt_journal_data_version), and how many times it was */
	dev_t dev;
	ino_t ino;
	unsigned generation;
};

/* The index made again from the events files in a file of its own, then
 * put in place of journal.db (j's connection closed and reopened on it):
 * what mt_journal_rebuild does once the index's own rows are events. */
int mt_journal_build_aside(mt_journal *j);

/* SQL: who recorded a row of `table` (its event's author, email and host:
 * three columns, NULL when unknown), joined by the row's uid; read with
 * mt_jauthor_of_row. */
#define MT_JAUTHOR_COLS " ev.author, ev.email, ev.host"
#define MT_JAUTHOR_JOIN(table) " LEFT JOIN events ev ON ev.uid = " table ".uid"

/* The three MT_JAUTHOR_COLS from column `col` of st, copied (NULL: none). */
void mt_jauthor_of_row(sqlite3_stmt *st, int col, char **author, char **email, char **host);

/* {"name", "email", "host"} of st's MT_JAUTHOR_COLS at `col`, json_null()
 * when the row has no author. */
json_t *mt_jauthor_json(sqlite3_stmt *st, int col);

/* SQL: the row of a query over `kind`'s table is not withdrawn. */
#define NOT_WITHDRAWN(kind) " id NOT IN (SELECT item_id FROM withdrawals WHERE kind = '" kind "')"

/* The arguments of a statement, one letter each, in the order of its `?`:
 *   i  int
 *   I  int64_t
 *   N  int64_t, NULL when 0 (an optional id or time)
 *   t  const char *, NULL binds NULL
 *   T  const char *, NULL or "" binds NULL
 *   X  int has, int value: value, or NULL when !has
 * Text is copied by the statement, so it may die before the statement. */

/* The journal's error: `what` failed, with sqlite's own words. */
int mt_jstmt_error(mt_journal *j, const char *what);

/* Runs SQL text without arguments (schema, pragmas, transactions). */
int mt_jstmt_exec_sql(mt_journal *j, const char *sql);

/* Starts a write transaction (IMMEDIATE: writers queue on the busy
 * timeout instead of failing halfway). */
int mt_jstmt_begin(mt_journal *j);

/* Ends the transaction begun: commits when `error` is 0, else rolls back
 * and returns `error` unchanged. */
int mt_jstmt_finish(mt_journal *j, int error);

/* Prepares `sql` and binds the arguments `types` describes; *out is the
 * caller's to sqlite3_finalize (NULL on error). */
int mt_jstmt_prepare(mt_journal *j, sqlite3_stmt **out, const char *sql, const char *types, ...);

/* Prepares `sql`, binds, and steps to its first row: 1 a row (read it from
 * *out), 0 none, or a negative error naming `what`. The caller finalizes
 * *out in every case. */
int mt_jstmt_first(mt_journal *j, sqlite3_stmt **out, const char *what, const char *sql,
		   const char *types, ...);

/* mt_jstmt_first on a statement kept by the handle (a query run once an
 * event): the caller hands *out back with mt_jstmt_release, never
 * finalizes it. */
int mt_jstmt_first_kept(mt_journal *j, sqlite3_stmt **out, const char *what, const char *sql,
			const char *types, ...);
void mt_jstmt_release(sqlite3_stmt *st);

/* Finalizes the statements kept by mt_jstmt_run. */
void mt_jstmt_cache_free(mt_journal *j);

/* Runs one statement that returns no rows, inside the caller's
 * transaction; `what` names it in the error ("recording run").
 * sqlite3_changes(j->db) then counts the rows it changed. */
int mt_jstmt_run(mt_journal *j, const char *what, const char *sql, const char *types, ...);

/* A write of one statement in a transaction of its own; *id_out (may be
 * NULL) gets the inserted row's id. sqlite3_changes(j->db) as for run. */
int mt_jstmt_write(mt_journal *j, int64_t *id_out, const char *what, const char *sql,
		   const char *types, ...);

/* Makes a JSON value of the current row, or NULL to leave the row out. */
typedef json_t *(*mt_jstmt_row_fn)(mt_journal *j, sqlite3_stmt *st);

/* The rows of a query as a JSON array, one `row` each. New reference, NULL
 * with the error set (naming `what`). */
json_t *mt_jstmt_rows_json(mt_journal *j, mt_jstmt_row_fn row, const char *what, const char *sql,
			   const char *types, ...);

/* Column i as a new string, NULL for SQL NULL. */
char *mt_jstmt_col_text(sqlite3_stmt *st, int i);

/* Column i parsed as JSON into *out (new reference); a stored `what` that
 * is not JSON is MT_EINVALID naming the journal. */
int mt_jstmt_col_json(mt_journal *j, sqlite3_stmt *st, int i, const char *what, json_t **out);

/* {who, why, when} of kind's row id, or json_null() when it stands. */
json_t *mt_journal_withdrawal_of(mt_journal *j, const char *kind, int64_t id);

/* Sets the rehearsal column of row `id` of `table` (runs or checks, a
 * constant: never user text); MT_ENOTFOUND names the `thing`. */
int mt_journal_mark_rehearsal(mt_journal *j, const char *table, const char *thing, int64_t id,
			      int rehearsal);

/* Fails with MT_EINVALID unless `value` (NULL passes) is one of `allowed`,
 * naming `what` and the choices. */
int mt_journal_check_choice(const char *what, const char *value, const char *const *allowed);

/* The record as events (journal_event.c): every write makes an event,
 * applies it to the index with the function a replay uses (mt_japply),
 * then appends it to this writer's events file. */

/* Starts a write transaction and applies the events not in the index yet
 * (appended by another process, or a crash between append and commit). */
int mt_jevent_begin(mt_journal *j);

/* Inside the transaction begun: makes event `kind` at time `t` with `data`
 * (stolen), applies it, appends it. *rowid_out (may be NULL) is the row the
 * event made. On error nothing is appended; the caller rolls back. */
int mt_jevent_emit(mt_journal *j, const char *kind, int64_t t, json_t *data, int64_t *rowid_out);

/* begin, emit at the current time, finish. */
int mt_jevent_write(mt_journal *j, const char *kind, json_t *data, int64_t *rowid_out);

/* Applies, outside any transaction, the events appended since the index
 * last read them; writes nothing when there are none. */
int mt_jevent_catch_up(mt_journal *j);

/* The event id of row `id` of `table` (a constant) into uid; MT_ENOTFOUND
 * "no THING #ID". */
int mt_jevent_uid_of(mt_journal *j, const char *table, const char *thing, int64_t id,
		     char uid[MT_EVENT_ID_LEN + 1]);

/* While the index is empty of events (a database made anew, or a
 * rebuild after its DELETEs) until mt_jevent_fresh_end: lines whose id was
 * not read before skip the look-up for an earlier copy of their event. */
void mt_jevent_fresh_begin(mt_journal *j);
void mt_jevent_fresh_end(mt_journal *j);

/* Applies every event of the events files not in the index yet, inside
 * the caller's transaction. */
int mt_jevent_catch_up_locked(mt_journal *j);

/* Records event e (its digest of the line) as in the index. */
int mt_jevent_record(mt_journal *j, const mt_event *e, const char *digest);

/* How far the index has read events file `name`, and recording it. */
int mt_jevent_file_mark(mt_journal *j, const char *name, mt_events_mark *out);
int mt_jevent_set_file_mark(mt_journal *j, const char *name, const mt_events_mark *m);

/* 1 when event e's applier makes one write after all its checks: applied
 * without a SAVEPOINT, since a refusal leaves nothing behind. */
int mt_japply_atomic(const mt_event *e);

/* Applies one valid event to the index (journal_apply.c): the only code
 * that turns an event into rows. *rowid_out (may be NULL) the row made or
 * changed. A payload that does not hold is MT_EINVALID (or MT_ENOTFOUND for
 * a reference to an event not in the record) with the reason set. */
int mt_japply(mt_journal *j, const mt_event *e, int64_t *rowid_out);

/* The row id in `table` of the record event `uid` made, into *id;
 * MT_ENOTFOUND naming `what` when the record holds none. */
int mt_japply_ref(mt_journal *j, const char *table, const char *what, const char *uid,
		  int64_t *id);

/* An inventory's stored text (sorted keys) and its digest. Caller frees. */
char *mt_japply_inventory_text(json_t *inv, char digest[65]);

/* Artefacts (journal_object.c, trial/objects.h). */

/* v's compact JSON text (keys sorted when `sorted`: an inventory's digest
 * is of that text) stored as an artefact of the trial; *ref_out the
 * reference an event carries instead (new reference). */
int mt_jobject_put_json(mt_journal *j, const json_t *v, int sorted, json_t **ref_out);

/* Column i of st (a payload kept inline, or a reference to an artefact)
 * parsed into *out (new reference), the artefact read and verified; an
 * artefact missing or corrupt is an error naming it and event `uid`. */
int mt_jobject_col_json(mt_journal *j, sqlite3_stmt *st, int i, const char *uid,
			const char *what, json_t **out);

/* The artefacts the index names that are not in the trial's objects
 * directory, into *out (*n of them; the caller frees each's ref and uid,
 * then the array). Only their names are looked at, none is read. */
int mt_jobject_missing(mt_journal *j, mt_missing_artefact **out, size_t *n);

/* Exports the rows of a journal older than the event log (schema < 13)
 * as events, once, in the order they were made (journal_export.c). */
int mt_jexport_all(mt_journal *j);

/* The appliers that live with their records' readers. */
int mt_japply_run_add(mt_journal *j, const mt_event *e, int64_t *rowid_out);
int mt_japply_run_end(mt_journal *j, const mt_event *e, int64_t *rowid_out);
int mt_japply_run_design(mt_journal *j, const mt_event *e, int64_t *rowid_out);
int mt_japply_withdraw(mt_journal *j, const mt_event *e, int64_t *rowid_out);

#endif
