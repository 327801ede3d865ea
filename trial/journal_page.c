/* Pages of the journal's notes and their counts (journal_page.h): one query
 * a page, the tags gathered by SQLite into a JSON array, so that a page of
 * N notes is one statement, not N + 1. */
#include "journal_page.h"
#include "journal_int.h"
#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mt_journal_note_count(mt_journal *j, int64_t after_id, size_t *out)
{
	sqlite3_stmt *st = NULL;
	int error = mt_jstmt_first(j, &st, "counting notes",
				   "SELECT count(*) FROM notes WHERE id > ? AND" NOT_WITHDRAWN("note"),
				   "I", after_id);

	*out = error == 1 ? (size_t)sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return error < 0 ? error : 0;
}

int mt_journal_track_notes(mt_journal *j, const char *track, size_t *count, char **newest)
{
	sqlite3_stmt *st = NULL;
	int error = mt_jstmt_first(j, &st, "reading notes",
				   "SELECT count(*), (SELECT text FROM notes WHERE track = ?1 AND"
				   NOT_WITHDRAWN("note") " ORDER BY id DESC LIMIT 1)"
				   " FROM notes WHERE track = ?1 AND" NOT_WITHDRAWN("note"), "t", track);

	*count = error == 1 ? (size_t)sqlite3_column_int64(st, 0) : 0;
	*newest = error == 1 ? mt_jstmt_col_text(st, 1) : NULL;
	sqlite3_finalize(st);
	return error < 0 ? error : 0;
}

int mt_journal_run_id_max(mt_journal *j, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int error = mt_jstmt_first(j, &st, "reading runs", "SELECT coalesce(max(id), 0) FROM runs",
				   "");

	*out = error == 1 ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return error < 0 ? error : 0;
}

/* The tables mt_journal_has asks, each with its kind's withdrawals: SQL
 * constants, never user text. */
static const struct {
	const char *kind, *sql;
} has_sql[] = {
	{"note", "SELECT EXISTS (SELECT 1 FROM notes WHERE" NOT_WITHDRAWN("note") ")"},
	{"effort", "SELECT EXISTS (SELECT 1 FROM effort WHERE" NOT_WITHDRAWN("effort") ")"},
	{"run", "SELECT EXISTS (SELECT 1 FROM runs WHERE" NOT_WITHDRAWN("run") ")"},
	{"scan", "SELECT EXISTS (SELECT 1 FROM scans)"},
	{"probe", "SELECT EXISTS (SELECT 1 FROM probes)"},
};

int mt_journal_has(mt_journal *j, const char *kind, int *out)
{
	sqlite3_stmt *st = NULL;
	int error;

	*out = 0;
	for (size_t i = 0; i < sizeof(has_sql) / sizeof(has_sql[0]); i++) {
		if (strcmp(has_sql[i].kind, kind) != 0)
			continue;
		error = mt_jstmt_first(j, &st, "reading the journal", has_sql[i].sql, "");
		*out = error == 1 && sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
		return error < 0 ? error : 0;
	}
	return mt_error_set(MT_EINVALID, "the journal has no records of kind '%s'", kind);
}

/* A tag as hex(tag) wrote it: bytes another tool stored need not be UTF-8,
 * which SQLite's JSON would pass on and jansson refuse. */
static char *unhex(const char *hex)
{
	size_t n = strlen(hex) / 2;
	char *s = malloc(n + 1);
	unsigned v;

	if (!s)
		abort();
	for (size_t i = 0; i < n; i++)
		s[i] = sscanf(hex + 2 * i, "%2x", &v) == 1 ? (char)v : '?';
	s[n] = '\0';
	return s;
}

/* The tags of the row, a JSON array of hex strings made by SQLite, into n. */
static int page_tags(mt_journal *j, sqlite3_stmt *st, mt_note *n)
{
	json_t *tags = NULL, *tag;
	size_t i;
	int error = mt_jstmt_col_json(j, st, 5, "note tags", &tags);

	if (error < 0)
		return error;
	n->tags = json_array_size(tags) ? calloc(json_array_size(tags), sizeof(*n->tags)) : NULL;
	json_array_foreach(tags, i, tag) {
		if (!n->tags)
			abort();
		n->tags[n->ntags++] = unhex(json_is_string(tag) ? json_string_value(tag) : "");
	}
	json_decref(tags);
	return 0;
}

int mt_journal_notes_page(mt_journal *j, int64_t before, size_t limit, mt_note_cb cb,
			  void *payload)
{
	sqlite3_stmt *st = NULL;
	int error, rc = SQLITE_DONE;

	if ((error = mt_jstmt_prepare(
		     j, &st,
		     "SELECT id, created_ms, track, text, interval_id,"
		     " (SELECT json_group_array(hex(tag)) FROM (SELECT tag FROM note_tags"
		     " WHERE note_id = notes.id ORDER BY rowid)),"
		     MT_JAUTHOR_COLS " FROM notes" MT_JAUTHOR_JOIN("notes")
		     " WHERE (?1 = 0 OR id < ?1) AND" NOT_WITHDRAWN("note")
		     " ORDER BY id DESC LIMIT ?2", "II", before, (int64_t)limit)) < 0)
		return error;
	while (error == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		mt_note n = {.id = sqlite3_column_int64(st, 0),
			     .created_ms = sqlite3_column_int64(st, 1),
			     .track = mt_jstmt_col_text(st, 2),
			     .text = mt_jstmt_col_text(st, 3),
			     .interval_id = sqlite3_column_int64(st, 4)};
		mt_jauthor_of_row(st, 6, &n.author, &n.email, &n.host);
		if ((error = page_tags(j, st, &n)) == 0)
			error = cb(&n, payload);
		mt_note_dispose(&n);
	}
	if (error == 0 && rc != SQLITE_DONE)
		error = mt_jstmt_error(j, "reading notes");
	sqlite3_finalize(st);
	return error;
}
