/* A journal made before the event log (schema < 13): its rows become
 * events once, in the order they were made, appended in one write; the
 * database stays their index (the rows keep their ids). A row whose
 * stored JSON is damaged stays in the index only, as it was. */
#include "journal_int.h"
#include "error.h"
#include "jsonutil.h"
#include "jsonw.h"
#include "objects.h"
#include "sha256.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct exporter {
	mt_journal *j;
	mt_buf lines;
	json_t *made; /* [[uid, kind, t, digest]] in the order appended */
};

static int export_row(struct exporter *x, const char *table, int64_t id);

/* The uid of row `id` of `table`, exporting that row first when it has
 * none (a note made in an interval exported later). NULL refs stay null. */
static json_t *ref_json(struct exporter *x, const char *table, sqlite3_stmt *st, int col)
{
	sqlite3_stmt *q = NULL;
	int64_t id = sqlite3_column_int64(st, col);
	char sql[64];
	json_t *out = json_null();

	if (sqlite3_column_type(st, col) == SQLITE_NULL || !id)
		return out;
	snprintf(sql, sizeof(sql), "SELECT uid FROM %s WHERE id = ?", table);
	for (int pass = 0; pass < 2 && json_is_null(out); pass++) {
		if (mt_jstmt_first(x->j, &q, "exporting", sql, "I", id) == 1 &&
		    sqlite3_column_type(q, 0) != SQLITE_NULL)
			out = json_string((const char *)sqlite3_column_text(q, 0));
		sqlite3_finalize(q);
		q = NULL;
		if (json_is_null(out) && (pass || export_row(x, table, id) < 0))
			break;
	}
	mt_error_clear();
	return out;
}

static json_t *col_text(sqlite3_stmt *st, int i)
{
	return mt_json_text((const char *)sqlite3_column_text(st, i));
}

/* Stored JSON: parsed, or NULL (damaged: the row is not exported). */
static json_t *col_json(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? json_loads(s, JSON_DECODE_ANY, NULL) : NULL;
}

/* Stored JSON (a result) as an artefact and its reference, as a write
 * makes it today; NULL when damaged, kept inline when the artefact cannot
 * be written (the export loses nothing for it). */
static json_t *col_object(struct exporter *x, sqlite3_stmt *st, int i, int sorted)
{
	json_t *v = col_json(st, i), *ref = NULL;
	const char *named;

	if (v && !mt_object_ref_of(v, &named, NULL) &&
	    mt_jobject_put_json(x->j, v, sorted, &ref) == 0) {
		json_decref(v);
		return ref;
	}
	mt_error_clear();
	return v;
}

/* A run that has ended, with its log file here: the log stored as an
 * artefact its event names and the index keeps, as a run ends today. */
static json_t *with_log(struct exporter *x, sqlite3_stmt *st, json_t *data)
{
	const char *log = (const char *)sqlite3_column_text(st, 8);
	const char *status = (const char *)sqlite3_column_text(st, 9);
	char ref[MT_OBJECT_REF_LEN + 1];
	uint64_t bytes = 0;

	if (!data || !log || !status || strcmp(status, "running") == 0 || !mt_path_exists(log))
		return data;
	if (mt_object_put_file(mt_events_trial_dir(x->j->events), log, ref, &bytes) == 0 &&
	    mt_jstmt_run(x->j, "exporting", "UPDATE runs SET log_object = ? WHERE id = ?", "tI",
			 ref, sqlite3_column_int64(st, 0)) == 0)
		json_object_set_new(data, "log_object", mt_object_ref_json(ref, bytes));
	mt_error_clear(); /* not stored: the run keeps its path, as before */
	return data;
}

static json_t *col_int_or_null(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? json_null()
							 : json_integer(sqlite3_column_int64(st, i));
}

/* Each table's row as the event its write makes today; *kind and *t set. */
static json_t *row_data(struct exporter *x, const char *table, sqlite3_stmt *st,
			const char **kind, int64_t *t)
{
	*t = sqlite3_column_int64(st, 1);
	if (strcmp(table, "effort") == 0) {
		int running = sqlite3_column_type(st, 5) == SQLITE_NULL;
		*kind = running ? "effort.start" : "effort.add";
		return json_pack("{so, so, so, sI, so}", "track", col_text(st, 2), "category",
				 col_text(st, 3), "text", col_text(st, 4), "started", (json_int_t)*t,
				 "stopped", col_int_or_null(st, 5));
	}
	if (strcmp(table, "notes") == 0) {
		sqlite3_stmt *tags = NULL;
		json_t *arr = json_array();
		if (mt_jstmt_prepare(x->j, &tags, "SELECT tag FROM note_tags WHERE note_id = ?"
				     " ORDER BY rowid", "I", sqlite3_column_int64(st, 0)) == 0)
			while (sqlite3_step(tags) == SQLITE_ROW)
				json_array_append_new(arr, col_text(tags, 0));
		sqlite3_finalize(tags);
		*kind = "note.add";
		return json_pack("{so, so, so, so}", "text", col_text(st, 3), "track",
				 col_text(st, 2), "tags", arr, "interval",
				 ref_json(x, "effort", st, 4));
	}
	if (strcmp(table, "scans") == 0) {
		*kind = "scan.add";
		return json_pack("{so, so, so, sb, so, so}", "repo", col_text(st, 2), "rev",
				 col_text(st, 3), "tree", col_text(st, 4), "worktree",
				 sqlite3_column_int(st, 5), "summary", col_object(x, st, 6, 0), "result",
				 col_object(x, st, 7, 0));
	}
	if (strcmp(table, "probes") == 0) {
		*kind = "probe.add";
		return json_pack("{s{so, so, so, so}, so, so}", "table", "name", col_text(st, 4),
				 "version", col_text(st, 5), "retrieved", col_text(st, 6), "source",
				 col_text(st, 7), "result", col_object(x, st, 3, 0), "scan",
				 ref_json(x, "scans", st, 2));
	}
	if (strcmp(table, "op_overrides") == 0) {
		*kind = "override.add";
		return json_pack("{so, so, so}", "op", col_text(st, 2), "status", col_text(st, 3),
				 "note", col_text(st, 4));
	}
	if (strcmp(table, "inventories") == 0) {
		*kind = "inventory.add";
		return json_pack("{so, so, so}", "source", col_text(st, 3), "file", col_text(st, 4),
				 "inventory", col_object(x, st, 2, 1));
	}
	if (strcmp(table, "checks") == 0) {
		*kind = "check.add";
		return json_pack("{so, so, so, sb, sb, so}", "kind", col_text(st, 2), "reference",
				 col_text(st, 5), "candidate", col_text(st, 6), "passed",
				 sqlite3_column_int(st, 7), "rehearsal", sqlite3_column_int(st, 4),
				 "result", col_json(st, 3));
	}
	if (strcmp(table, "runs") == 0) {
		const char *m = (const char *)sqlite3_column_text(st, 13);
		json_t *metrics = m ? json_loads(m, JSON_DECODE_ANY, NULL) : json_null();
		*kind = "run.add";
		return with_log(x, st, json_pack("{so, so, so, so, so, so, so, so, so, sI, so, so, so, so, sb}",
				 "system", col_text(st, 2), "track", col_text(st, 3), "label",
				 col_text(st, 4), "cache", col_text(st, 5), "origin", col_text(st, 6),
				 "command", col_text(st, 7), "log", col_text(st, 8), "status",
				 col_text(st, 9), "exit_status", col_int_or_null(st, 10), "started",
				 (json_int_t)sqlite3_column_int64(st, 11), "ended",
				 col_int_or_null(st, 12), "metrics",
				 metrics ? metrics : col_text(st, 13), "pid",
				 col_int_or_null(st, 14), "host", col_text(st, 15), "rehearsal",
				 sqlite3_column_int(st, 16)));
	}
	if (strcmp(table, "change_marks") == 0) {
		*kind = "mark.set";
		return json_pack("{so, so, so, so}", "track", col_text(st, 2), "path",
				 col_text(st, 3), "mark", col_text(st, 4), "note", col_text(st, 5));
	}
	*kind = "withdraw";
	{
		static const char *const tables[][2] = {{"run", "runs"}, {"check", "checks"},
							{"override", "op_overrides"},
							{"effort", "effort"}, {"note", "notes"}};
		const char *k = (const char *)sqlite3_column_text(st, 2), *item = NULL;
		for (size_t i = 0; k && i < sizeof(tables) / sizeof(tables[0]); i++)
			if (strcmp(tables[i][0], k) == 0)
				item = tables[i][1];
		return json_pack("{so, so, so, so}", "kind", col_text(st, 2), "item",
				 item ? ref_json(x, item, st, 3) : json_null(), "who",
				 col_text(st, 4), "why", col_text(st, 5));
	}
}

/* The columns row_data reads: id, time, then the table's own. */
static const struct {
	const char *table, *cols;
} exported[] = {
	{"effort", "id, started_ms, track, category, text, stopped_ms"},
	{"notes", "id, created_ms, track, text, interval_id"},
	{"scans", "id, created_ms, repo, rev, tree, worktree, summary, result"},
	{"probes", "id, created_ms, scan_id, result, table_name, table_version, table_retrieved,"
		   " table_source"},
	{"op_overrides", "id, created_ms, op, status, note"},
	{"inventories", "id, created_ms, result, source, file"},
	{"checks", "id, created_ms, kind, result, rehearsal, reference, candidate, passed"},
	{"runs", "id, created_ms, system, track, label, cache, origin, command, log, status,"
		 " exit_status, started_ms, ended_ms, metrics, pid, host, rehearsal"},
	{"change_marks", "id, created_ms, track, path, mark, note"},
	{"withdrawals", "id, created_ms, kind, item_id, who, why"},
};
#define N_EXPORTED (sizeof(exported) / sizeof(exported[0]))

/* The id of row `id` of `table` made at `t` as an event: its time, then
 * its place in the journal hashed, so that two machines exporting one
 * journal.db (a team committed it) make the same event, which the index
 * applies once. */
static void export_id(char uid[MT_EVENT_ID_LEN + 1], const char *table, int64_t id, int64_t t)
{
	char key[160], hex[65];

	snprintf(key, sizeof(key), "journal.db export %s %lld %lld", table, (long long)id,
		 (long long)t);
	mt_sha256_hex(hex, key, strlen(key));
	snprintf(uid, MT_EVENT_ID_LEN + 1, "%012llx%.14s", (unsigned long long)t & 0xffffffffffffULL,
		 hex);
}

static int export_row(struct exporter *x, const char *table, int64_t id)
{
	sqlite3_stmt *st = NULL;
	const char *kind = NULL, *cols = NULL;
	char sql[300], uid[MT_EVENT_ID_LEN + 1], digest[65], *text = NULL;
	json_t *data = NULL, *ev;
	int64_t t = 0;
	int rc;

	for (size_t i = 0; i < N_EXPORTED; i++)
		if (strcmp(exported[i].table, table) == 0)
			cols = exported[i].cols;
	snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE id = ? AND uid IS NULL", cols, table);
	if ((rc = mt_jstmt_first(x->j, &st, "exporting", sql, "I", id)) == 1)
		data = row_data(x, table, st, &kind, &t);
	sqlite3_finalize(st);
	if (rc <= 0 || !data)
		return rc < 0 ? rc : 0; /* damaged JSON: left in the index only */
	export_id(uid, table, id, t > 0 ? t : 1);
	ev = mt_events_make(x->j->events, uid, kind, t > 0 ? t : 1, data);
	/* who exported is not who recorded: an old journal names nobody, and
	 * two clones of one committed journal.db export the same lines */
	if (ev) {
		json_object_set_new(ev, "author", json_pack("{ss, sn}", "name",
							   "(journal.db, before events)", "email"));
		json_object_set_new(ev, "host", json_string(""));
	}
	if (ev && (text = mt_json_dumps(ev, JSON_COMPACT))) {
		snprintf(sql, sizeof(sql), "UPDATE %s SET uid = ? WHERE id = ?", table);
		rc = mt_jstmt_run(x->j, "exporting", sql, "tI", uid, id);
		mt_sha256_hex(digest, text, strlen(text));
		mt_buf_printf(&x->lines, "%s\n", text);
		json_array_append_new(x->made, json_pack("[ssIs]", uid, kind, (json_int_t)t, digest));
	}
	json_decref(ev);
	free(text);
	return rc < 0 ? rc : 0;
}

/* Appends what was exported and records it as read by the index. */
static int append_made(struct exporter *x)
{
	mt_events_pos pos;
	mt_events_mark m;
	json_t *r;
	size_t i;
	int error;

	if (!x->lines.len)
		return 0;
	if ((error = mt_events_append(x->j->events, x->lines.ptr, x->lines.len, &pos)) < 0 ||
	    (error = mt_jevent_file_mark(x->j, pos.file, &m)) < 0)
		return error;
	json_array_foreach(x->made, i, r) {
		mt_event e = {.file = pos.file, .id = json_string_value(json_array_get(r, 0)),
			      .kind = json_string_value(json_array_get(r, 1)),
			      .t = json_integer_value(json_array_get(r, 2))};
		int in_order = m.bytes == pos.start && m.tail == 0 && !pos.closed_tail;
		e.line = in_order ? m.lines + 1 + i : 0;
		if ((error = mt_jevent_record(x->j, &e, json_string_value(json_array_get(r, 3)))) < 0)
			return error;
	}
	if (m.bytes == pos.start && m.tail == 0 && !pos.closed_tail) {
		mt_events_mark_appended(&m, &pos);
		m.lines += json_array_size(x->made);
		error = mt_jevent_set_file_mark(x->j, pos.file, &m);
	}
	return error;
}

int mt_jexport_all(mt_journal *j)
{
	struct exporter x = {j, MT_BUF_INIT, json_array()};
	mt_buf sql = MT_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int error, rc;

	/* every table's rows without an event, oldest first */
	for (size_t i = 0; i < N_EXPORTED; i++)
		mt_buf_printf(&sql, "%sSELECT %zu, id, %s FROM %s WHERE uid IS NULL",
			      i ? " UNION ALL " : "", i,
			      strcmp(exported[i].table, "effort") ? "created_ms" : "started_ms",
			      exported[i].table);
	mt_buf_puts(&sql, " ORDER BY 3, 1, 2");
	if ((error = mt_jstmt_begin(j)) < 0)
		goto cleanup;
	if ((error = mt_jstmt_prepare(j, &st, mt_buf_cstr(&sql), "")) == 0) {
		while (error == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
			error = export_row(&x, exported[sqlite3_column_int(st, 0)].table,
					   sqlite3_column_int64(st, 1));
		sqlite3_finalize(st);
	}
	if (error == 0)
		error = append_made(&x);
	error = mt_jstmt_finish(j, error);
cleanup:
	mt_buf_dispose(&sql);
	mt_buf_dispose(&x.lines);
	json_decref(x.made);
	return error;
}
