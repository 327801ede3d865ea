/* Events into index rows: the one function per kind that a write and a
 * replay both run (journal_event.c). Each checks its payload, since a
 * replayed event may come from another writer, another version or a
 * tampered file: what does not hold is refused, never half applied. */
#include "journal_int.h"
#include "error.h"
#include "jsonutil.h"
#include "objects.h"
#include "sha256.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int mt_japply_ref(mt_journal *j, const char *table, const char *what, const char *uid,
		  int64_t *id)
{
	sqlite3_stmt *st = NULL;
	char sql[80];
	int rc;

	snprintf(sql, sizeof(sql), "SELECT id FROM %s WHERE uid = ?", table);
	rc = mt_jstmt_first(j, &st, "reading the record", sql, "t", uid ? uid : "");
	if (rc == 1)
		*id = sqlite3_column_int64(st, 0);
	else if (rc == 0)
		rc = mt_error_set(MT_ENOTFOUND, "names %s %s, which is not in the record", what,
				  uid ? uid : "(none)");
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

/* The optional reference `key` of e's data resolved to a row of `table`:
 * 0 when the data holds none. */
static int opt_ref(mt_journal *j, const mt_event *e, const char *key, const char *table,
		   const char *what, int64_t *id)
{
	const char *uid = mt_json_str(e->data, key);

	*id = 0;
	return uid ? mt_japply_ref(j, table, what, uid, id) : 0;
}

/* The compact JSON text of data[key] (an object), into *out (caller frees);
 * NULL when absent or null, MT_EINVALID when another type. */
static int json_text(const mt_event *e, const char *key, char **out)
{
	json_t *v = json_object_get(e->data, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v) || !(*out = json_dumps(v, JSON_COMPACT)))
		return mt_error_set(MT_EINVALID, "a %s event's \"%s\" is not an object", e->kind,
				    key);
	return 0;
}

static int64_t ms_of(const mt_event *e, const char *key)
{
	return (int64_t)json_integer_value(json_object_get(e->data, key));
}

static int last_row(mt_journal *j, int error, int64_t *rowid_out)
{
	if (error == 0 && rowid_out)
		*rowid_out = sqlite3_last_insert_rowid(j->db);
	return error;
}

static int apply_note(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const char *text = mt_json_str(e->data, "text"), *track = mt_json_str(e->data, "track");
	json_t *tags = json_object_get(e->data, "tags"), *tag;
	int64_t interval = 0, id;
	size_t i;
	int error;

	if (!text || !*text)
		return mt_error_set(MT_EINVALID, "a note needs text");
	if (tags && !json_is_array(tags))
		return mt_error_set(MT_EINVALID, "a note's tags are not a list");
	json_array_foreach(tags, i, tag)
		if (!json_is_string(tag))
			return mt_error_set(MT_EINVALID, "a note's tag is not text");
	if ((error = mt_journal_check_choice("track", track, mt_tracks)) < 0 ||
	    (error = opt_ref(j, e, "interval", "effort", "effort interval", &interval)) < 0)
		return error;
	/* every check made: the writes cannot be refused, only fail (a full
	 * disk), and then undo themselves (applied without a SAVEPOINT) */
	if ((error = mt_jstmt_run(j, "adding note", "INSERT INTO notes (uid, created_ms, track,"
				  " text, interval_id) VALUES (?, ?, ?, ?, ?)", "tIttN", e->id, e->t,
				  track, text, interval)) < 0)
		return error;
	id = sqlite3_last_insert_rowid(j->db);
	json_array_foreach(tags, i, tag)
		if (error == 0)
			error = mt_jstmt_run(j, "adding tag", "INSERT OR IGNORE INTO note_tags"
					     " VALUES (?, ?)", "It", id, json_string_value(tag));
	if (error < 0) {
		char *why = mt_strdup(mt_error_last());
		mt_jstmt_run(j, "undoing a note", "DELETE FROM note_tags WHERE note_id = ?", "I", id);
		mt_jstmt_run(j, "undoing a note", "DELETE FROM notes WHERE id = ?", "I", id);
		mt_error_clear();
		error = mt_error_set(error, "%s", why);
		free(why);
		return error;
	}
	if (rowid_out)
		*rowid_out = id;
	return 0;
}

static int check_effort(const char *track, const char *category)
{
	int error = mt_journal_check_choice("track", track, mt_tracks);
	if (error == 0 && !category)
		error = mt_error_set(MT_EINVALID, "an effort interval needs a category");
	return error < 0 ? error : mt_journal_check_choice("category", category, mt_effort_categories);
}

/* effort.start (running from the event's time) and effort.add (a finished
 * interval recorded after the fact). */
static int apply_effort(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const char *track = mt_json_str(e->data, "track"), *cat = mt_json_str(e->data, "category");
	int running = strcmp(e->kind, "effort.start") == 0;
	int64_t started = running ? e->t : ms_of(e, "started"), stopped = ms_of(e, "stopped");
	int error;

	if ((error = check_effort(track, cat)) < 0)
		return error;
	if (!running && (started <= 0 || stopped <= started))
		return mt_error_set(MT_EINVALID, "an effort interval must have a positive duration");
	error = mt_jstmt_run(j, "recording effort", "INSERT INTO effort (uid, track, category, text,"
			     " started_ms, stopped_ms) VALUES (?, ?, ?, ?, ?, ?)", "tTtTIN", e->id,
			     track, cat, mt_json_str(e->data, "text"), started,
			     running ? (int64_t)0 : stopped);
	if (error < 0 && running && sqlite3_extended_errcode(j->db) == SQLITE_CONSTRAINT_UNIQUE)
		return mt_error_set(MT_ESTATE, "an effort timer is already running");
	return last_row(j, error, rowid_out);
}

static int apply_effort_stop(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	int64_t id, stopped = ms_of(e, "stopped");
	int error = mt_japply_ref(j, "effort", "effort interval", mt_json_str(e->data, "interval"),
				  &id);

	if (error == 0)
		error = mt_jstmt_run(j, "stopping timer", "UPDATE effort SET stopped_ms = max(?,"
				     " started_ms) WHERE id = ? AND stopped_ms IS NULL", "II", stopped,
				     id);
	if (error == 0 && sqlite3_changes(j->db) != 1)
		error = mt_error_set(MT_ESTATE, "effort #%lld is not running", (long long)id);
	if (error == 0 && rowid_out)
		*rowid_out = id;
	return error;
}

static int apply_scan(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const char *repo = mt_json_str(e->data, "repo"), *rev = mt_json_str(e->data, "rev");
	const char *tree = mt_json_str(e->data, "tree");
	char *summary = NULL, *result = NULL;
	int error = json_text(e, "summary", &summary);

	if (error == 0)
		error = json_text(e, "result", &result);
	if (error == 0 && (!repo || !rev || !tree || !summary || !result))
		error = mt_error_set(MT_EINVALID, "a scan needs repo, rev, tree, summary and result");
	if (error == 0)
		error = mt_jstmt_run(j, "recording scan", "INSERT INTO scans (uid, created_ms, repo,"
				     " rev, tree, worktree, summary, result) VALUES (?, ?, ?, ?, ?, ?,"
				     " ?, ?)", "tItttitt", e->id, e->t, repo, rev, tree,
				     json_is_true(json_object_get(e->data, "worktree")), summary,
				     result);
	free(summary);
	free(result);
	return last_row(j, error, rowid_out);
}

static int apply_probe(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	json_t *table = json_object_get(e->data, "table");
	static const char *const keys[] = {"name", "version", "retrieved", "source"};
	const char *v[4];
	char *text = NULL;
	int64_t scan = 0;
	int error = json_text(e, "result", &text);

	if (error == 0 && (!text || !mt_json_str(table, "name")))
		error = mt_error_set(MT_EINVALID, "a probe needs its table's name and its result");
	for (int i = 0; i < 4; i++)
		v[i] = json_string_value(json_object_get(table, keys[i])) ?: "";
	if (error == 0)
		error = opt_ref(j, e, "scan", "scans", "scan", &scan);
	if (error == 0)
		error = mt_jstmt_run(j, "recording probe", "INSERT INTO probes (uid, created_ms,"
				     " table_name, table_version, table_retrieved, table_source,"
				     " scan_id, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", "tIttttNt",
				     e->id, e->t, v[0], v[1], v[2], v[3], scan, text);
	free(text);
	return last_row(j, error, rowid_out);
}

char *mt_japply_inventory_text(json_t *inv, char digest[65])
{
	/* sorted keys: the digest tells the same inventory whatever its order */
	char *text = json_dumps(inv, JSON_COMPACT | JSON_SORT_KEYS);

	if (text)
		mt_sha256_hex(digest, text, strlen(text));
	return text;
}

/* An inventory's text and digest as stored: a reference to its artefact
 * (named by the digest of its sorted text) as it is, or the inventory
 * itself (version 1). */
static char *inventory_text(json_t *inv, char digest[65])
{
	const char *ref;

	if (!json_is_object(inv))
		return NULL;
	if (!mt_object_ref_of(inv, &ref, NULL))
		return mt_japply_inventory_text(inv, digest);
	snprintf(digest, 65, "%s", ref + strlen("sha256:"));
	return json_dumps(inv, JSON_COMPACT);
}

static int apply_inventory(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	json_t *inv = json_object_get(e->data, "inventory");
	const char *source = mt_json_str(e->data, "source"), *file = mt_json_str(e->data, "file");
	char digest[65], *text = inventory_text(inv, digest);
	int error = 0;

	if (!text || !source || !file)
		error = mt_error_set(MT_EINVALID, "an inventory needs its source and file");
	else
		error = mt_jstmt_run(j, "recording inventory", "INSERT INTO inventories (uid,"
				     " created_ms, source, file, digest, result) VALUES (?, ?, ?, ?,"
				     " ?, ?)", "tItttt", e->id, e->t, source, file, digest, text);
	free(text);
	return last_row(j, error, rowid_out);
}

static int apply_check(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const char *kind = mt_json_str(e->data, "kind"), *ref = mt_json_str(e->data, "reference");
	const char *cand = mt_json_str(e->data, "candidate");
	json_t *passed = json_object_get(e->data, "passed");
	char *text = NULL;
	int error = json_text(e, "result", &text);

	if (error == 0 && (!text || !kind || !ref || !cand || !json_is_boolean(passed)))
		error = mt_error_set(MT_EINVALID, "a check result needs reference, candidate and "
				     "passed");
	if (error == 0)
		error = mt_jstmt_run(j, "recording check", "INSERT INTO checks (uid, created_ms, kind,"
				     " passed, reference, candidate, result, rehearsal)"
				     " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", "tItittti", e->id, e->t, kind,
				     json_is_true(passed), ref, cand, text,
				     json_is_true(json_object_get(e->data, "rehearsal")));
	free(text);
	return last_row(j, error, rowid_out);
}

/* run.mark and check.mark: {"run"|"check": the event, "rehearsal"}. */
static int apply_rehearsal(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	int run = strcmp(e->kind, "run.mark") == 0;
	const char *table = run ? "runs" : "checks";
	int64_t id;
	char sql[64];
	int error = mt_japply_ref(j, table, run ? "run" : "check",
				  mt_json_str(e->data, run ? "run" : "check"), &id);

	snprintf(sql, sizeof(sql), "UPDATE %s SET rehearsal = ? WHERE id = ?", table);
	if (error == 0)
		error = mt_jstmt_run(j, run ? "marking run" : "marking check", sql, "iI",
				     json_is_true(json_object_get(e->data, "rehearsal")), id);
	if (error == 0 && rowid_out)
		*rowid_out = id;
	return error;
}

static const char *const override_statuses[] = {"device", "cpu_fallback", "unsupported",
						"partial", NULL};

static int apply_override(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const char *op = mt_json_str(e->data, "op"), *status = mt_json_str(e->data, "status");
	const char *note = mt_json_str(e->data, "note");
	int error;

	if (!mt_override_key_kind(op))
		return mt_error_set(MT_EINVALID, "'%s' is neither an aten op (aten::add) nor a "
				    "dotted torch API (torch.cumsum, torch.Tensor.masked_scatter)",
				    op ? op : "");
	if ((error = mt_journal_check_choice("status", status ? status : "", override_statuses)) < 0)
		return error;
	if (!note || !*note)
		return mt_error_set(MT_EINVALID, "an override needs a note: who found it, where, "
				    "on which version");
	error = mt_jstmt_run(j, "recording override", "INSERT INTO op_overrides (uid, created_ms,"
			     " op, status, note) VALUES (?, ?, ?, ?, ?)", "tIttt", e->id, e->t, op,
			     status, note);
	return last_row(j, error, rowid_out);
}

static int apply_mark(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const char *track = mt_json_str(e->data, "track"), *path = mt_json_str(e->data, "path");
	const char *mark = mt_json_str(e->data, "mark");
	int error;

	if (!track || !path || !*path || !mark)
		return mt_error_set(MT_EINVALID, "a mark needs a track, a path and a mark");
	if ((error = mt_journal_check_choice("track", track, mt_tracks)) < 0 ||
	    (error = mt_journal_check_choice("mark", mark, mt_change_marks)) < 0)
		return error;
	/* a new mark of the same file replaces the old one, note and time too */
	error = mt_jstmt_run(j, "recording mark", "INSERT OR REPLACE INTO change_marks (uid,"
			     " created_ms, track, path, mark, note) VALUES (?, ?, ?, ?, ?, ?)",
			     "tItttT", e->id, e->t, track, path, mark, mt_json_str(e->data, "note"));
	return last_row(j, error, rowid_out);
}

static int apply_mark_clear(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const char *track = mt_json_str(e->data, "track"), *path = mt_json_str(e->data, "path");
	int error = mt_jstmt_run(j, "clearing mark", "DELETE FROM change_marks WHERE track = ? AND"
				 " path = ?", "tt", track ? track : "", path ? path : "");

	(void)rowid_out;
	if (error == 0 && sqlite3_changes(j->db) == 0)
		error = mt_error_set(MT_ENOTFOUND, "%s is not marked in the %s track",
				     path ? path : "", track ? track : "");
	return error;
}

/* atomic: the applier checks everything before its one write (or its one
 * write is the check, changing nothing when it fails), so a refusal needs
 * no SAVEPOINT to undo half of it. */
static const struct applier {
	const char *kind;
	int (*apply)(mt_journal *j, const mt_event *e, int64_t *rowid_out);
	int atomic;
} appliers[] = {
	{"note.add", apply_note, 1}, /* a row, then its tags, undone when one fails */
	{"effort.start", apply_effort, 1},
	{"effort.add", apply_effort, 1},
	{"effort.stop", apply_effort_stop, 1},
	{"scan.add", apply_scan, 1},
	{"probe.add", apply_probe, 1},
	{"inventory.add", apply_inventory, 1},
	{"check.add", apply_check, 1},
	{"check.mark", apply_rehearsal, 1},
	{"run.add", mt_japply_run_add, 0},
	{"run.end", mt_japply_run_end, 0},
	{"run.mark", apply_rehearsal, 1},
	{"run.design", mt_japply_run_design, 1},
	{"override.add", apply_override, 1},
	{"mark.set", apply_mark, 1},
	{"mark.clear", apply_mark_clear, 1},
	{"withdraw", mt_japply_withdraw, 0},
};

static const struct applier *applier_of(const char *kind)
{
	for (size_t i = 0; i < sizeof(appliers) / sizeof(appliers[0]); i++)
		if (strcmp(appliers[i].kind, kind) == 0)
			return &appliers[i];
	return NULL;
}

int mt_japply_atomic(const mt_event *e)
{
	const struct applier *a = applier_of(e->kind);

	return a ? a->atomic : 1; /* an unknown kind writes nothing */
}

int mt_japply(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const struct applier *a = applier_of(e->kind);

	if (a)
		return a->apply(j, e, rowid_out);
	return mt_error_set(MT_EINVALID, "unknown event kind '%s' (a newer mtrial wrote it?)",
			    e->kind);
}
