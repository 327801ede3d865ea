/* Run attempts in the journal: recorded as they start, ended when they
 * end, and told "lost" when the process that ran them is gone. */
#include "journal_int.h"
#include "error.h"
#include "events.h"
#include "jsonutil.h"
#include "objects.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const run_statuses[] = {"running", "success", "failed", "aborted", NULL};
static const char *const run_designs[] = {"matched", "best", NULL};

/* 1 when the process `pid` of `host` (this machine) no longer exists; 0
 * when it does, or when it cannot be told (another host, no pid). */
static int run_process_gone(int64_t pid, const char *host)
{
	char here[256] = "";
	if (pid <= 0 || !host || gethostname(here, sizeof(here) - 1) != 0 || strcmp(here, host) != 0)
		return 0;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Run JSON text (metrics) given to the journal as an event value: parsed
 * when it is JSON, kept as text when not. */
static json_t *metrics_json(const char *text)
{
	json_t *v = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
	return v ? v : mt_json_text(text);
}

static json_t *exit_json(int has, int status)
{
	return has ? json_integer(status) : json_null();
}

/* data's "log_object": the log at `path` stored as an artefact, when the
 * file is there (a run that wrote none, or a log gone, names none); ref
 * (may be NULL) its name, "" for none, and *bytes its size. The one read
 * and hash of the log. */
static int store_log(mt_journal *j, json_t *data, const char *path,
		     char ref[MT_OBJECT_REF_LEN + 1], uint64_t *bytes)
{
	char own[MT_OBJECT_REF_LEN + 1];
	uint64_t size = 0;
	int error;

	ref = ref ? ref : own;
	ref[0] = '\0';
	if (!path || !mt_path_exists(path))
		return 0;
	if ((error = mt_object_put_file(mt_events_trial_dir(j->events), path, ref, &size)) == 0)
		json_object_set_new(data, "log_object", mt_object_ref_json(ref, size));
	else
		ref[0] = '\0';
	if (bytes)
		*bytes = size;
	return error;
}

/* A log already a standing run's (imported before, or kept by `mtrial
 * run`), artefact `ref` of `bytes`: refused naming the run. One attempt
 * recorded twice would count twice in every median and count of the trial;
 * the same bytes under another name are the same log. */
static int refuse_known_log(mt_journal *j, const char *path, const char *ref, uint64_t bytes)
{
	int64_t id = 0;
	int rc = *ref ? mt_journal_run_with_log(j, ref, &id) : 0;

	if (rc <= 0)
		return rc;
	return mt_error_set(MT_EEXISTS, "%s: this log is run #%lld's (the same %llu bytes, %.*s...); "
			    "nothing imported: one attempt counts once. To move #%lld to the other "
			    "comparison: mtrial runs design %lld matched|best --why TEXT; to import "
			    "it anew: mtrial rm run %lld --why TEXT first",
			    path, (long long)id, (unsigned long long)bytes, 19, ref, (long long)id,
			    (long long)id, (long long)id);
}

int mt_journal_run_add(mt_journal *j, const mt_journal_run *run, int64_t *id_out)
{
	json_t *data = json_pack("{so, so, so, so, so, so, so, so, so, sI, sI, so, sI, so, sb}",
				 "system", mt_json_text(run->system), "track", mt_json_text(run->track),
				 "label", mt_json_text(run->label), "cache", mt_json_text(run->cache),
				 "origin", mt_json_text(run->origin), "command",
				 mt_json_text(run->command), "log", mt_json_text(run->log), "status",
				 mt_json_text(run->status), "exit_status",
				 exit_json(run->has_exit_status, run->exit_status), "started",
				 (json_int_t)run->started_ms, "ended", (json_int_t)run->ended_ms,
				 "metrics", metrics_json(run->metrics), "pid", (json_int_t)run->pid,
				 "host", mt_json_text(run->host), "rehearsal", run->rehearsal != 0);
	char ref[MT_OBJECT_REF_LEN + 1];
	uint64_t bytes = 0;
	int error = 0;

	/* an older event has none: it reads as matched */
	if (run->design && strcmp(run->design, "matched") != 0)
		json_object_set_new(data, "design", json_string(run->design));

	/* a live log is read where it is written; stored once it is whole
	 * (the artefact before the event, outside the lock); a trial made from
	 * a bundle takes no run, said before its log is stored or compared
	 * with the record's, in the words every append says */
	ref[0] = '\0';
	if (run->status && strcmp(run->status, "running") != 0 &&
	    ((error = mt_events_refuse_read_only(j->events)) < 0 ||
	     (error = store_log(j, data, run->log, ref, &bytes)) < 0)) {
		json_decref(data);
		return error;
	}
	if ((error = mt_jevent_begin(j)) < 0) {
		json_decref(data);
		return error;
	}
	/* under the lock, the record caught up: two imports of one log at
	 * once record it once */
	if ((error = refuse_known_log(j, run->log, ref, bytes)) < 0)
		json_decref(data);
	else
		error = mt_jevent_emit(j, "run.add", mt_now_ms(), data, id_out);
	return mt_jstmt_finish(j, error);
}

/* Text for a column: "" binds NULL, as an optional field of a run. */
static const char *opt(const json_t *data, const char *key)
{
	const char *s = mt_json_str(data, key);
	return s && *s ? s : NULL;
}

/* The metrics of a run event as the index stores them: JSON text. */
static char *metrics_text(const json_t *data)
{
	json_t *m = json_object_get(data, "metrics");

	if (!m || json_is_null(m))
		return NULL;
	return json_is_string(m) ? mt_strdup(json_string_value(m)) : json_dumps(m, JSON_COMPACT);
}

/* The log's artefact an event names, or NULL. Borrowed from data. */
static const char *log_object(const json_t *data)
{
	const char *ref = NULL;

	return mt_object_ref_of(json_object_get(data, "log_object"), &ref, NULL) ? ref : NULL;
}

int mt_japply_run_add(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const json_t *d = e->data;
	json_t *exit = json_object_get(d, "exit_status");
	const char *status = mt_json_str(d, "status");
	int64_t started = (int64_t)mt_json_int(d, "started");
	char *metrics;
	int error;

	if (!mt_json_str(d, "system") || !mt_json_str(d, "origin") || !mt_json_str(d, "log") ||
	    !status || started <= 0)
		return mt_error_set(MT_EINVALID, "a run needs its system, origin, log, status and start");
	if ((error = mt_journal_check_choice("status", status, run_statuses)) < 0 ||
	    (error = mt_journal_check_choice("design", mt_json_str(d, "design"), run_designs)) < 0)
		return error;
	metrics = metrics_text(d);
	error = mt_jstmt_run(j, "recording run", "INSERT INTO runs (uid, created_ms, system,"
			     " track, label, cache, origin, command, log, status, exit_status,"
			     " started_ms, ended_ms, metrics, pid, host, rehearsal, log_object,"
			     " design) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			     "tItTTTtTttXINTNTitt", e->id,
			     e->t, mt_json_str(d, "system"), opt(d, "track"), opt(d, "label"),
			     opt(d, "cache"), mt_json_str(d, "origin"), opt(d, "command"),
			     mt_json_str(d, "log"), status, json_is_integer(exit),
			     (int)json_integer_value(exit), started,
			     (int64_t)mt_json_int(d, "ended"), metrics, (int64_t)mt_json_int(d, "pid"),
			     opt(d, "host"), json_is_true(json_object_get(d, "rehearsal")),
			     log_object(d), mt_json_str(d, "design") ?: "matched");
	free(metrics);
	if (error == 0 && rowid_out)
		*rowid_out = sqlite3_last_insert_rowid(j->db);
	return error;
}

/* Run id's log path (its file where it was written) into *out, NULL when
 * it has none; MT_ENOTFOUND "no run #ID". */
static int log_path(mt_journal *j, int64_t id, char **out)
{
	sqlite3_stmt *st = NULL;
	int rc = mt_jstmt_first(j, &st, "reading runs", "SELECT log FROM runs WHERE id = ?", "I", id);

	*out = rc == 1 ? mt_jstmt_col_text(st, 0) : NULL;
	if (rc == 0)
		rc = mt_error_set(MT_ENOTFOUND, "no run #%lld", (long long)id);
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

int mt_journal_run_log(mt_journal *j, int64_t id, char **path, int *temp)
{
	sqlite3_stmt *st = NULL;
	int rc = mt_jstmt_first(j, &st, "reading runs", "SELECT log, log_object, uid FROM runs"
				" WHERE id = ?", "I", id);
	const char *log = rc == 1 ? (const char *)sqlite3_column_text(st, 0) : NULL;
	const char *ref = rc == 1 ? (const char *)sqlite3_column_text(st, 1) : NULL;

	*path = NULL;
	*temp = 0;
	if (rc == 0)
		rc = mt_error_set(MT_ENOTFOUND, "no run #%lld", (long long)id);
	else if (rc == 1 && log && mt_path_exists(log))
		*path = mt_strdup(log);
	else if (rc == 1 && !ref)
		rc = mt_error_set(MT_ENOTFOUND, "run #%lld: its log %s is not on this machine and "
				  "the record has no copy of it", (long long)id, log ? log : "");
	else if (rc == 1 && (rc = mt_object_get_file(mt_events_trial_dir(j->events), ref, log,
						       path)) == 0)
		*temp = 1;
	else if (rc < 0 && ref)
		mt_error_prefix(rc, "run #%lld (event %s): its log %s is not on this machine, and ",
				(long long)id, (const char *)sqlite3_column_text(st, 2), log ? log : "");
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

int mt_journal_run_end(mt_journal *j, int64_t id, const char *status, int has_exit_status,
		       int exit_status, int64_t ended_ms, const char *metrics)
{
	char uid[MT_EVENT_ID_LEN + 1], *log = NULL;
	json_t *data = json_pack("{so, so, sI, so}", "status", mt_json_text(status), "exit_status",
				 exit_json(has_exit_status, exit_status), "ended",
				 (json_int_t)ended_ms, "metrics", metrics_json(metrics));
	int error = log_path(j, id, &log);

	/* the artefact before the event, outside the lock */
	if (error == 0)
		error = store_log(j, data, log, NULL, NULL);
	free(log);
	if (error < 0 || (error = mt_jevent_begin(j)) < 0) {
		json_decref(data);
		return error;
	}
	if ((error = mt_jevent_uid_of(j, "runs", "run", id, uid)) == 0) {
		json_object_set_new(data, "run", json_string(uid));
		error = mt_jevent_emit(j, "run.end", mt_now_ms(), data, NULL);
	} else {
		json_decref(data);
	}
	return mt_jstmt_finish(j, error);
}

int mt_japply_run_end(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const char *status = mt_json_str(e->data, "status");
	json_t *exit = json_object_get(e->data, "exit_status");
	char *metrics = NULL;
	int64_t id;
	int error = mt_journal_check_choice("status", status ? status : "", run_statuses);

	if (error == 0)
		error = mt_japply_ref(j, "runs", "run", mt_json_str(e->data, "run"), &id);
	if (error == 0) {
		metrics = metrics_text(e->data);
		error = mt_jstmt_run(j, "ending run", "UPDATE runs SET status = ?, exit_status = ?,"
				     " ended_ms = ?, metrics = coalesce(?, metrics), log_object ="
				     " coalesce(?, log_object) WHERE id = ?", "tXITtI", status,
				     json_is_integer(exit), (int)json_integer_value(exit),
				     (int64_t)mt_json_int(e->data, "ended"), metrics,
				     log_object(e->data), id);
	}
	free(metrics);
	if (error == 0 && rowid_out)
		*rowid_out = id;
	return error;
}

int mt_journal_run_design(mt_journal *j, int64_t id, const char *design, const char *why)
{
	char uid[MT_EVENT_ID_LEN + 1];
	int error = mt_journal_check_choice("design", design ? design : "", run_designs);

	if (error == 0 && (!why || !*why))
		error = mt_error_set(MT_EINVALID, "a run's design is changed with a reason (--why)");
	if (error < 0 || (error = mt_jevent_begin(j)) < 0)
		return error;
	if ((error = mt_jevent_uid_of(j, "runs", "run", id, uid)) == 0)
		error = mt_jevent_emit(j, "run.design", mt_now_ms(),
				       json_pack("{ss, ss, ss}", "run", uid, "design", design,
						 "why", why),
				       NULL);
	return mt_jstmt_finish(j, error);
}

/* The design changes a row holds (a JSON array), with one more appended. New
 * reference. */
static json_t *changes_with(sqlite3_stmt *st, int col, json_t *change)
{
	const char *text = (const char *)sqlite3_column_text(st, col);
	json_t *all = text ? json_loads(text, 0, NULL) : NULL;

	if (!json_is_array(all)) {
		json_decref(all);
		all = json_array();
	}
	json_array_append_new(all, change);
	return all;
}

int mt_japply_run_design(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const char *design = mt_json_str(e->data, "design"), *why = mt_json_str(e->data, "why");
	sqlite3_stmt *st = NULL;
	char when[32], *text = NULL;
	json_t *all = NULL;
	int64_t id;
	int error = mt_journal_check_choice("design", design ? design : "", run_designs), rc;

	if (error == 0 && (!why || !*why))
		error = mt_error_set(MT_EINVALID, "a design change needs its reason (why)");
	if (error == 0)
		error = mt_japply_ref(j, "runs", "run", mt_json_str(e->data, "run"), &id);
	if (error < 0)
		return error;
	rc = mt_jstmt_first(j, &st, "reading runs", "SELECT design, design_changes FROM runs"
			    " WHERE id = ?", "I", id);
	if (rc == 1) {
		mt_time_iso(when, sizeof(when), e->t);
		all = changes_with(st, 1, json_pack("{ss, ss, ss, ss, ss}", "from",
						    (const char *)sqlite3_column_text(st, 0), "to",
						    design, "why", why, "when", when, "event",
						    e->id));
		text = all ? json_dumps(all, JSON_COMPACT) : NULL;
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	error = mt_jstmt_run(j, "changing a run's design", "UPDATE runs SET design = ?,"
			     " design_changes = ? WHERE id = ?", "ttI", design, text, id);
	free(text);
	json_decref(all);
	if (error == 0 && rowid_out)
		*rowid_out = id;
	return error;
}

int mt_journal_run_mark(mt_journal *j, int64_t id, int rehearsal)
{
	return mt_journal_mark_rehearsal(j, "runs", "run", id, rehearsal);
}

int mt_journal_run_with_log(mt_journal *j, const char *ref, int64_t *id_out)
{
	sqlite3_stmt *st = NULL;
	int rc = mt_jstmt_first(j, &st, "reading runs", "SELECT id FROM runs WHERE log_object = ?"
				" AND NOT EXISTS (SELECT 1 FROM withdrawals w WHERE w.kind = 'run'"
				" AND w.item_id = runs.id) ORDER BY id LIMIT 1", "t", ref);

	*id_out = rc == 1 ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc;
}

/* Reading a run row: the free text as mt_json_text, since a label, command
 * or log path that is not UTF-8 must not make the run vanish from every
 * view. */
static json_t *run_row(mt_journal *j, sqlite3_stmt *st, int64_t only_id)
{
	char started[32], ended[32];
	json_t *r, *metrics = NULL;
	json_error_t jerr;

	mt_time_iso(started, sizeof(started), sqlite3_column_int64(st, 11));
	mt_time_iso(ended, sizeof(ended), sqlite3_column_int64(st, 12));
	if (sqlite3_column_type(st, 13) != SQLITE_NULL)
		metrics = json_loads((const char *)sqlite3_column_text(st, 13), 0, &jerr);
	r = json_pack("{sI, ss, so, so, ss?, ss, so, so, ss, so, ss, so, so, sb}", "id",
		      (json_int_t)sqlite3_column_int64(st, 0), "system",
		      (const char *)sqlite3_column_text(st, 2), "track",
		      mt_json_text((const char *)sqlite3_column_text(st, 3)), "label",
		      mt_json_text((const char *)sqlite3_column_text(st, 4)), "cache",
		      (const char *)sqlite3_column_text(st, 5), "origin",
		      (const char *)sqlite3_column_text(st, 6), "command",
		      mt_json_text((const char *)sqlite3_column_text(st, 7)), "source",
		      mt_json_text((const char *)sqlite3_column_text(st, 8)), "status",
		      (const char *)sqlite3_column_text(st, 9), "exit_status",
		      sqlite3_column_type(st, 10) == SQLITE_NULL
			      ? json_null()
			      : json_integer(sqlite3_column_int(st, 10)),
		      "started", started, "ended",
		      sqlite3_column_type(st, 12) == SQLITE_NULL ? json_null() : json_string(ended),
		      "metrics", metrics ? metrics : json_null(), "rehearsal",
		      sqlite3_column_int(st, 16) != 0);
	if (!r)
		return NULL;
	json_object_set_new(r, "design", json_string((const char *)sqlite3_column_text(st, 17)
						     ?: "matched"));
	json_object_set_new(r, "design_changes",
			    sqlite3_column_type(st, 18) == SQLITE_NULL
				    ? json_array()
				    : json_loads((const char *)sqlite3_column_text(st, 18), 0, &jerr));
	if (!json_is_array(json_object_get(r, "design_changes")))
		json_object_set_new(r, "design_changes", json_array());
	/* who recorded it (the run.add event's author), not where it ran */
	json_object_set_new(r, "author", mt_jauthor_json(st, 19));
	/* to the ms: a live view's clock counts from it as the end's does */
	json_object_set_new(r, "started_ms", json_integer(sqlite3_column_int64(st, 11)));
	if (strcmp((const char *)sqlite3_column_text(st, 9), "running") == 0 &&
	    run_process_gone(sqlite3_column_int64(st, 14),
			     (const char *)sqlite3_column_text(st, 15))) {
		/* recorded as running by a process that is gone */
		json_object_set_new(r, "status", json_string("lost"));
		json_object_set_new(r, "note",
				    json_string("the mtrial process that ran it ended without "
						"recording the end (killed, crashed or rebooted); "
						"its log holds what was printed"));
	}
	/* the listing of standing runs (only_id 0) holds none withdrawn */
	json_object_set_new(r, "withdrawn",
			    only_id ? mt_journal_withdrawal_of(j, "run", sqlite3_column_int64(st, 0))
				    : json_null());
	return r;
}

static json_t *standing_run_row(mt_journal *j, sqlite3_stmt *st)
{
	return run_row(j, st, 0);
}

static json_t *any_run_row(mt_journal *j, sqlite3_stmt *st)
{
	return run_row(j, st, 1);
}

json_t *mt_journal_runs_json(mt_journal *j, int64_t only_id)
{
#define RUN_COLS                                                                 \
	"SELECT id, created_ms, system, track, label, cache, origin, command,"   \
	" log, status, exit_status, started_ms, ended_ms, metrics, pid,"        \
	" runs.host, rehearsal, design, design_changes," MT_JAUTHOR_COLS         \
	" FROM runs" MT_JAUTHOR_JOIN("runs")
	/* one run by its id alone: with the other cases OR'ed in, SQLite reads
	 * every row (and a report asking for runs one by one read the table
	 * once per run) */
	if (only_id > 0)
		return mt_jstmt_rows_json(j, any_run_row, "reading runs",
					  RUN_COLS " WHERE id = ?1", "I", only_id);
	return mt_jstmt_rows_json(j, only_id ? any_run_row : standing_run_row, "reading runs",
				  RUN_COLS " WHERE (?1 = 0 AND" NOT_WITHDRAWN("run") ") OR ?1 < 0"
				  " ORDER BY id", "I", only_id);
#undef RUN_COLS
}
