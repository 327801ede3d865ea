/* journal.db as an index of the events files: what each file has given
 * the index so far (event_files), the events applied (events: id and
 * digest, to tell a replayed event from a tampered one) and the lines
 * refused (refused_events), with their file and line. */
#include "journal_int.h"
#include "error.h"
#include "jsonutil.h"
#include "jsonw.h"
#include "sha256.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* One line read from a file, kept until the merge applies it. */
struct pending_event {
	char *text;
	size_t len;
	uint64_t line;
	json_t *obj;
	char *error;
};

/* The new lines of one file. */
struct pending_file {
	char *name;
	mt_events_mark from, at;
	struct pending_event *ev;
	size_t n, cap, next;
};

int mt_jevent_file_mark(mt_journal *j, const char *name, mt_events_mark *out)
{
	sqlite3_stmt *st = NULL;
	int rc = mt_jstmt_first_kept(j, &st, "reading event_files", "SELECT bytes, lines, tail,"
				     " ino, mtime_ns, head FROM event_files WHERE file = ?", "t", name);

	memset(out, 0, sizeof(*out));
	if (rc == 1) {
		out->bytes = (uint64_t)sqlite3_column_int64(st, 0);
		out->lines = (uint64_t)sqlite3_column_int64(st, 1);
		out->tail = (uint64_t)sqlite3_column_int64(st, 2);
		out->ino = (uint64_t)sqlite3_column_int64(st, 3);
		out->mtime_ns = sqlite3_column_int64(st, 4);
		snprintf(out->head, sizeof(out->head), "%s",
			 (const char *)sqlite3_column_text(st, 5) ?: "");
	}
	mt_jstmt_release(st);
	return rc < 0 ? rc : 0;
}

int mt_jevent_set_file_mark(mt_journal *j, const char *name, const mt_events_mark *m)
{
	return mt_jstmt_run(j, "recording event_files", "INSERT OR REPLACE INTO event_files (file,"
			    " bytes, lines, tail, ino, mtime_ns, head) VALUES (?, ?, ?, ?, ?, ?, ?)",
			    "tIIIIIt", name, (int64_t)m->bytes, (int64_t)m->lines, (int64_t)m->tail,
			    (int64_t)m->ino, m->mtime_ns, m->head);
}

static int keep_line(const mt_event *e, void *payload)
{
	struct pending_file *f = payload;
	struct pending_event *p;

	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		if (!(f->ev = realloc(f->ev, f->cap * sizeof(*f->ev))))
			abort();
	}
	p = &f->ev[f->n++];
	p->text = malloc(e->len + 1);
	memcpy(p->text, e->text, e->len);
	p->text[e->len] = '\0';
	p->len = e->len;
	p->line = e->line;
	p->obj = e->obj ? json_incref(e->obj) : NULL;
	p->error = e->error ? mt_strdup(e->error) : NULL;
	return 0;
}

static void pending_dispose(struct pending_file *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->ev[i].text);
		json_decref(f->ev[i].obj);
		free(f->ev[i].error);
	}
	free(f->ev);
	free(f->name);
}

static int refuse(mt_journal *j, const char *file, uint64_t line, const char *uid,
		  const char *reason)
{
	return mt_jstmt_run(j, "recording a refused event", "INSERT OR REPLACE INTO refused_events"
			    " (file, line, uid, reason) VALUES (?, ?, ?, ?)", "tItt", file,
			    (int64_t)line, uid, reason);
}

/* While the index is made from nothing: the greatest id read so far. An
 * id above it was not read before, so its event is not in the index (the
 * lines of a file, and a merge of files, come mostly in the ids' order);
 * any other is looked up. A set of every id read costs more: its look-ups
 * miss the CPU's caches, the index's own fall on its last pages. */
struct mt_jfresh {
	char max[MT_EVENT_ID_LEN + 1];
};

void mt_jevent_fresh_begin(mt_journal *j)
{
	mt_jevent_fresh_end(j);
	if (!(j->fresh = calloc(1, sizeof(*j->fresh))))
		abort();
}

void mt_jevent_fresh_end(mt_journal *j)
{
	free(j->fresh);
	j->fresh = NULL;
}

/* 1 when id may have been read before, 0 when it is new (and the
 * greatest now). */
static int fresh_seen(struct mt_jfresh *f, const char *id)
{
	if (strcmp(id, f->max) <= 0)
		return 1;
	memcpy(f->max, id, MT_EVENT_ID_LEN + 1);
	return 0;
}

/* 1 when event `uid` is in the index already with this digest (the same
 * event read again), 0 when it is not; a different digest refuses it. */
static int seen(mt_journal *j, const mt_event *e, const char *digest)
{
	sqlite3_stmt *st = NULL;
	char why[300];
	int rc;

	if (j->fresh && !fresh_seen(j->fresh, e->id))
		return 0;
	rc = mt_jstmt_first_kept(j, &st, "reading events", "SELECT digest, file, line FROM"
				 " events WHERE uid = ?", "t", e->id);
	if (rc == 1 && strcmp((const char *)sqlite3_column_text(st, 0), digest) != 0) {
		snprintf(why, sizeof(why), "event %s is already in the record with another payload"
			 " (%s:%lld)", e->id, (const char *)sqlite3_column_text(st, 1),
			 (long long)sqlite3_column_int64(st, 2));
		rc = refuse(j, e->file, e->line, e->id, why);
		rc = rc < 0 ? rc : 1;
	} else if (rc == 1 && sqlite3_column_int64(st, 2) == 0) {
		/* appended behind another writer's back: its place is known now */
		rc = mt_jstmt_run(j, "recording events", "UPDATE events SET file = ?, line = ? WHERE"
				  " uid = ?", "tIt", e->file, (int64_t)e->line, e->id);
		rc = rc < 0 ? rc : 1;
	}
	mt_jstmt_release(st);
	return rc;
}

int mt_jevent_record(mt_journal *j, const mt_event *e, const char *digest)
{
	json_t *author = json_object_get(e->obj, "author");
	const char *name = mt_json_str(author, "name"), *email = mt_json_str(author, "email");
	const char *host = mt_json_str(e->obj, "host");
	int error;

	if (!e->obj) /* an event this writer made without its text (an export) */
		mt_events_author(j->events, &name, &email, &host);
	error = mt_jstmt_run(j, "recording events", "INSERT INTO events (uid, kind, t, digest, file,"
			     " line, author, email, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			     "ttIttittt", e->id, e->kind, e->t, digest, e->file, (int)e->line, name,
			     email, host);
	if (error < 0)
		return error;
	j->recorded++;
	if (e->t > j->last_t || (e->t == j->last_t && strcmp(e->id, j->last_uid) > 0)) {
		j->last_t = e->t;
		snprintf(j->last_uid, sizeof(j->last_uid), "%s", e->id);
	}
	return 0;
}

/* Applies one line read from a file: refused lines are kept with their
 * reason and never stop the rest. */
static int apply_line(mt_journal *j, const mt_event *line)
{
	mt_event e = *line;
	char why[200], digest[65];
	int rc;

	if (!e.obj)
		return refuse(j, e.file, e.line, NULL, e.error ? e.error : "not an event");
	mt_event_parse(&e, why, sizeof(why));
	mt_sha256_hex(digest, e.text, e.len);
	if ((rc = seen(j, &e, digest)) != 0)
		return rc < 0 ? rc : 0;
	if (mt_japply_atomic(&e)) {
		/* one write, after every check: a refusal leaves nothing to
		 * roll back, and the SAVEPOINT's copy of each page is saved */
		if ((rc = mt_japply(j, &e, NULL)) == 0)
			return mt_jevent_record(j, &e, digest);
		char *reason = mt_strdup(mt_error_last());
		mt_error_clear();
		rc = refuse(j, e.file, e.line, e.id, reason);
		free(reason);
		return rc;
	}
	if ((rc = mt_jstmt_run(j, "starting an event", "SAVEPOINT event", "")) < 0)
		return rc;
	if ((rc = mt_japply(j, &e, NULL)) == 0)
		rc = mt_jevent_record(j, &e, digest);
	if (rc < 0) {
		char *reason = mt_strdup(mt_error_last());
		mt_jstmt_run(j, "refusing an event", "ROLLBACK TO event", "");
		mt_error_clear();
		rc = refuse(j, e.file, e.line, e.id, reason);
		free(reason);
	}
	mt_jstmt_run(j, "ending an event", "RELEASE event", "");
	return rc;
}

static int apply_read(mt_journal *j, const char *file, const struct pending_event *p)
{
	mt_event e = {.file = file, .line = p->line, .text = p->text, .len = p->len, .obj = p->obj,
		      .error = p->error};
	return apply_line(j, &e);
}

static int apply_streamed(const mt_event *e, void *payload)
{
	return apply_line(payload, e);
}

/* The file whose next line comes first: a line that is not an event at
 * once, then by time, then id (the union's order, issue 19). */
static struct pending_file *next_file(struct pending_file *files, size_t n)
{
	struct pending_file *best = NULL;
	const struct pending_event *b = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct pending_event *p;
		if (files[i].next >= files[i].n)
			continue;
		p = &files[i].ev[files[i].next];
		if (!p->obj)
			return &files[i];
		if (b) {
			json_int_t pt = json_integer_value(json_object_get(p->obj, "t"));
			json_int_t bt = json_integer_value(json_object_get(b->obj, "t"));
			if (pt > bt || (pt == bt && strcmp(json_string_value(json_object_get(p->obj, "id")),
							   json_string_value(json_object_get(b->obj, "id"))) >= 0))
				continue;
		}
		best = &files[i];
		b = p;
	}
	return best;
}

/* *from, the mark of what the index read of file `name`, made nothing
 * when the file is no longer that one (deleted by hand and written again,
 * restored from an older copy): it is read again from its start, its old
 * refusals forgotten, and that said as a refusal at line 0. Events read
 * from it before and in it no more stay in the index until a rebuild: a
 * file found so when the journal is opened makes one (lost_events); this
 * is for one found so by a writer between its open and its write. */
static int check_renewed(mt_journal *j, const char *name, mt_events_mark *from)
{
	char why[400];
	int error;

	if (!mt_events_renewed(j->events, name, from))
		return 0;
	snprintf(why, sizeof(why), "the file is not the one read before (%llu bytes and %llu "
		 "lines were read; it is shorter now, or begins with another line): read again "
		 "from its start", (unsigned long long)from->bytes,
		 (unsigned long long)from->lines);
	memset(from, 0, sizeof(*from));
	if ((error = mt_jstmt_run(j, "forgetting refused lines", "DELETE FROM refused_events"
				  " WHERE file = ?", "t", name)) < 0)
		return error;
	return refuse(j, name, 0, NULL, why);
}

/* Reads the new lines of every file into files (*n of them). */
static int read_new(mt_journal *j, const char **names, struct pending_file **out, size_t *n)
{
	size_t count = 0;
	struct pending_file *files;
	int error = 0;

	while (names[count])
		count++;
	files = calloc(count + 1, sizeof(*files));
	*out = files;
	*n = count;
	for (size_t i = 0; i < count && error == 0; i++) {
		files[i].name = mt_strdup(names[i]);
		if ((error = mt_jevent_file_mark(j, names[i], &files[i].from)) == 0 &&
		    (error = check_renewed(j, names[i], &files[i].from)) == 0)
			error = mt_events_read(j->events, names[i], &files[i].from, keep_line,
					       &files[i], &files[i].at);
	}
	return error;
}

/* The events files that have grown since the index read them, into
 * *grown (NULL-terminated, names borrowed from `names`). */
static int grown_files(mt_journal *j, char **names, const char ***grown)
{
	size_t n = 0, k = 0;
	mt_events_mark m;
	int error = 0;

	while (names[n])
		n++;
	*grown = calloc(n + 1, sizeof(**grown));
	for (size_t i = 0; i < n && error == 0; i++)
		if ((error = mt_jevent_file_mark(j, names[i], &m)) == 0 &&
		    mt_events_changed(j->events, names[i], &m))
			(*grown)[k++] = names[i];
	return error;
}

/* One file grew (the usual case: this host's, or one writer's after a
 * sync): its lines are applied as they are read, never all held. */
static int catch_up_one(mt_journal *j, const char *name)
{
	struct pending_file f = {.name = (char *)name};
	int error = mt_jevent_file_mark(j, name, &f.from);

	if (error == 0)
		error = check_renewed(j, name, &f.from);
	if (error == 0)
		error = mt_events_read(j->events, name, &f.from, apply_streamed, j, &f.at);
	if (error == 0 && mt_events_mark_differs(&f.at, &f.from))
		error = mt_jevent_set_file_mark(j, name, &f.at);
	return error;
}

/* Several grew: their new lines are merged in the union's order. */
static int catch_up_merged(mt_journal *j, const char **names)
{
	struct pending_file *files = NULL, *f;
	size_t n = 0;
	int error = read_new(j, names, &files, &n);

	while (error == 0 && (f = next_file(files, n)))
		error = apply_read(j, f->name, &f->ev[f->next++]);
	for (size_t i = 0; i < n; i++) {
		if (error == 0 && mt_events_mark_differs(&files[i].at, &files[i].from))
			error = mt_jevent_set_file_mark(j, files[i].name, &files[i].at);
		pending_dispose(&files[i]);
	}
	free(files);
	return error;
}

int mt_jevent_catch_up_locked(mt_journal *j)
{
	char **names = NULL;
	const char **grown = NULL;
	int error;

	if ((error = mt_events_names(j->events, &names)) < 0)
		return error;
	if ((error = grown_files(j, names, &grown)) == 0 && grown[0])
		error = grown[1] ? catch_up_merged(j, grown) : catch_up_one(j, grown[0]);
	free(grown);
	mt_events_names_free(names);
	return error;
}

int mt_jevent_begin(mt_journal *j)
{
	int error = mt_jstmt_begin(j);

	if (error == 0 && (error = mt_jevent_catch_up_locked(j)) < 0)
		mt_jstmt_finish(j, error);
	return error;
}

/* 1 when some events file has grown since the index read it. */
static int has_new(mt_journal *j)
{
	char **names = NULL;
	const char **grown = NULL;
	int found;

	if (mt_events_names(j->events, &names) < 0) {
		mt_error_clear();
		return 1; /* let the catch-up say what is wrong */
	}
	found = grown_files(j, names, &grown) < 0 || grown[0];
	free(grown);
	mt_events_names_free(names);
	mt_error_clear();
	return found;
}

static json_t *file_name_row(mt_journal *j, sqlite3_stmt *st)
{
	(void)j;
	return json_string((const char *)sqlite3_column_text(st, 0));
}

/* An events file the index read that is gone, or is not the one read
 * (shorter, or another first line: deleted by hand and made anew,
 * restored from an older copy): the index holds events no file does. Its
 * name into `file`, the reason into `why`; 0 when there is none. A file
 * whose size, inode and mtime are those read costs one stat. */
static int lost_events(mt_journal *j, char *file, size_t file_size, char *why, size_t why_size)
{
	json_t *files = mt_jstmt_rows_json(j, file_name_row, "reading event_files", "SELECT file"
					   " FROM event_files WHERE bytes > 0 ORDER BY file", "");
	mt_events_mark m;
	json_t *name;
	size_t i;
	int found = 0;

	json_array_foreach(files, i, name) {
		const char *n = json_string_value(name);
		char *path = mt_path_join(mt_events_dir(j->events), n);
		if (!mt_path_exists(path))
			found = snprintf(why, why_size, "the events file is gone") > 0;
		else if (mt_jevent_file_mark(j, n, &m) == 0 && mt_events_changed(j->events, n, &m) &&
			 mt_events_renewed(j->events, n, &m))
			found = snprintf(why, why_size, "the events file is not the one read before "
					 "(shorter, or it begins with another line)") > 0;
		free(path);
		if (found) {
			snprintf(file, file_size, "%s", n);
			break;
		}
	}
	json_decref(files);
	mt_error_clear(); /* a failed look makes nothing again: the catch-up says what is wrong */
	return found;
}

/* The index made again from the events files because an events file it
 * read is lost (lost_events): without the events only that file held.
 * Said at line 0 of that file among the refused lines (kept until the
 * next rebuild), and by mt_journal_events_json of this handle. */
static int heal(mt_journal *j, const char *file, const char *why)
{
	int error = mt_journal_rebuild(j);

	if (error < 0)
		return error;
	snprintf(j->healed, sizeof(j->healed), "%s: %s; the index was made again from the events "
		 "files, without the events only it held", file, why);
	return mt_jstmt_write(j, NULL, "recording the rebuild", "INSERT OR REPLACE INTO"
			      " refused_events (file, line, uid, reason) VALUES (?, 0, NULL, ?)",
			      "tt", file, j->healed + strlen(file) + 2);
}

int mt_jevent_catch_up(mt_journal *j)
{
	char file[256], why[200];
	int error;

	if (lost_events(j, file, sizeof(file), why, sizeof(why)))
		return heal(j, file, why);
	if (!has_new(j))
		return 0;
	if ((error = mt_jevent_begin(j)) < 0)
		return error;
	return mt_jstmt_finish(j, 0);
}

/* Records where this process's own event landed: the index has read its
 * file up to the event's end, unless something else was appended first
 * (then the next catch-up reads the file from where it stopped). */
static int record_own(mt_journal *j, const mt_event *e, const char *digest,
		      const mt_events_pos *pos)
{
	mt_events_mark m;
	mt_event placed = *e;
	int error = mt_jevent_file_mark(j, pos->file, &m);

	placed.file = pos->file;
	placed.line = 0;
	if (error == 0 && m.bytes == pos->start && m.tail == 0 && !pos->closed_tail) {
		mt_events_mark_appended(&m, pos);
		placed.line = ++m.lines;
		error = mt_jevent_set_file_mark(j, pos->file, &m);
	}
	return error < 0 ? error : mt_jevent_record(j, &placed, digest);
}

int mt_jevent_emit(mt_journal *j, const char *kind, int64_t t, json_t *data, int64_t *rowid_out)
{
	json_t *obj = mt_events_make(j->events, NULL, kind, t, data);
	char *text = obj ? mt_json_dumps(obj, JSON_COMPACT) : NULL, why[200], digest[65];
	mt_event e = {.file = "(new event)", .text = text, .len = text ? strlen(text) : 0};
	mt_events_pos pos;
	int error;

	json_decref(obj);
	if (!text)
		return mt_error_set(MT_ERROR, "%s: cannot encode a %s event", j->path, kind);
	/* applied as read back, exactly as a replay will read it */
	if ((error = mt_event_load(&e, why, sizeof(why))) < 0) {
		error = mt_error_set(MT_ERROR, "%s event: %s", kind, why);
		goto cleanup;
	}
	if ((error = mt_japply(j, &e, rowid_out)) < 0)
		goto cleanup;
	mt_sha256_hex(digest, text, e.len);
	text[e.len] = '\n'; /* the NUL after it is no longer needed */
	if ((error = mt_events_append(j->events, text, e.len + 1, &pos)) == 0)
		error = record_own(j, &e, digest, &pos);
cleanup:
	json_decref(e.obj);
	free(text);
	return error;
}

int mt_jevent_write(mt_journal *j, const char *kind, json_t *data, int64_t *rowid_out)
{
	int error = mt_jevent_begin(j);

	if (error < 0) {
		json_decref(data);
		return error;
	}
	error = mt_jevent_emit(j, kind, mt_now_ms(), data, rowid_out);
	return mt_jstmt_finish(j, error);
}

void mt_jauthor_of_row(sqlite3_stmt *st, int col, char **author, char **email, char **host)
{
	*author = mt_jstmt_col_text(st, col);
	*email = mt_jstmt_col_text(st, col + 1);
	*host = mt_jstmt_col_text(st, col + 2);
}

json_t *mt_jauthor_json(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	return json_pack("{so, so, so}", "name", mt_json_text((const char *)sqlite3_column_text(st, col)),
			 "email", mt_json_text((const char *)sqlite3_column_text(st, col + 1)),
			 "host", mt_json_text((const char *)sqlite3_column_text(st, col + 2)));
}

int mt_jevent_uid_of(mt_journal *j, const char *table, const char *thing, int64_t id,
		     char uid[MT_EVENT_ID_LEN + 1])
{
	sqlite3_stmt *st = NULL;
	char sql[80];
	int rc;

	snprintf(sql, sizeof(sql), "SELECT uid FROM %s WHERE id = ?", table);
	rc = mt_jstmt_first(j, &st, "reading the record", sql, "I", id);
	if (rc == 0)
		rc = mt_error_set(MT_ENOTFOUND, "no %s #%lld", thing, (long long)id);
	else if (rc == 1 && sqlite3_column_type(st, 0) == SQLITE_NULL)
		rc = mt_error_set(MT_ESTATE, "%s #%lld is in %s but in no events file (written "
				  "there by another tool)", thing, (long long)id, j->path);
	else if (rc == 1)
		snprintf(uid, MT_EVENT_ID_LEN + 1, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

static json_t *file_row(mt_journal *j, sqlite3_stmt *st)
{
	const char *file = (const char *)sqlite3_column_text(st, 0);
	size_t n = strlen(file), el = strlen(MT_EVENTS_EXT);

	(void)j;
	return json_pack("{ss, s s%, sI, sI, sI}", "file", file, "writer", file,
			 n > el ? n - el : n, "lines", (json_int_t)sqlite3_column_int64(st, 2),
			 "bytes", (json_int_t)sqlite3_column_int64(st, 1), "incomplete_bytes",
			 (json_int_t)sqlite3_column_int64(st, 3));
}

static json_t *refused_row(mt_journal *j, sqlite3_stmt *st)
{
	(void)j;
	return json_pack("{ss, sI, so, so}", "file", (const char *)sqlite3_column_text(st, 0),
			 "line", (json_int_t)sqlite3_column_int64(st, 1), "id",
			 mt_json_text((const char *)sqlite3_column_text(st, 2)), "reason",
			 mt_json_text((const char *)sqlite3_column_text(st, 3)));
}

json_t *mt_journal_events_json(mt_journal *j)
{
	sqlite3_stmt *st = NULL;
	json_t *files, *refused;
	int64_t events = 0;

	files = mt_jstmt_rows_json(j, file_row, "reading event_files", "SELECT file, bytes, lines,"
				   " tail FROM event_files ORDER BY file", "");
	refused = mt_jstmt_rows_json(j, refused_row, "reading refused_events", "SELECT file, line,"
				     " uid, reason FROM refused_events ORDER BY file, line", "");
	if (mt_jstmt_first(j, &st, "reading events", "SELECT n FROM event_count", "") == 1)
		events = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (!files || !refused) {
		json_decref(files);
		json_decref(refused);
		return NULL;
	}
	return json_pack("{ss, sI, so, so, so*}", "dir", mt_events_dir(j->events), "events",
			 (json_int_t)events, "files", files, "refused", refused, "rebuilt_because",
			 j->healed[0] ? json_string(j->healed) : NULL);
}

/* The refused lines, the first `max` of them, into s. */
static int refused_lines(mt_journal *j, size_t max, mt_record_summary *s)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int error, rc;

	if ((error = mt_jstmt_prepare(j, &st, "SELECT file, line, uid, reason FROM refused_events"
				      " ORDER BY file, line LIMIT ?", "I",
				      (int64_t)(max > INT64_MAX ? INT64_MAX : max))) < 0)
		return error;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		mt_refused_line *r;
		if (s->nfirst == cap &&
		    !(s->first = realloc(s->first, (cap = cap ? cap * 2 : 16) * sizeof(*s->first))))
			abort();
		r = &s->first[s->nfirst++];
		r->file = mt_jstmt_col_text(st, 0);
		r->line = sqlite3_column_int64(st, 1);
		r->uid = mt_jstmt_col_text(st, 2);
		r->reason = mt_jstmt_col_text(st, 3);
	}
	if (rc != SQLITE_DONE)
		error = mt_jstmt_error(j, "reading refused_events");
	sqlite3_finalize(st);
	return error;
}

int mt_journal_last_event(mt_journal *j, int64_t *t, char *uid, size_t size)
{
	sqlite3_stmt *st = NULL;
	int rc = mt_jstmt_first(j, &st, "reading event_count", "SELECT last_t, last_uid FROM"
				" event_count", "");

	*t = rc == 1 ? sqlite3_column_int64(st, 0) : 0;
	snprintf(uid, size, "%s", rc == 1 ? (const char *)sqlite3_column_text(st, 1) : "");
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

int mt_journal_record_summary(mt_journal *j, size_t max, mt_record_summary *out)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = mt_jstmt_first(j, &st, "reading events", "SELECT (SELECT n FROM event_count),"
			    " (SELECT count(*) FROM event_files), (SELECT count(*) FROM"
			    " refused_events)", "");
	if (rc == 1) {
		out->events = sqlite3_column_int64(st, 0);
		out->writers = sqlite3_column_int64(st, 1);
		out->refused = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (rc < 0 || (rc = refused_lines(j, max, out)) < 0)
		return rc;
	return mt_jobject_missing(j, &out->missing, &out->nmissing);
}

void mt_record_summary_dispose(mt_record_summary *s)
{
	for (size_t i = 0; i < s->nfirst; i++) {
		free(s->first[i].file);
		free(s->first[i].uid);
		free(s->first[i].reason);
	}
	for (size_t i = 0; i < s->nmissing; i++) {
		free(s->missing[i].ref);
		free(s->missing[i].uid);
	}
	free(s->first);
	free(s->missing);
	memset(s, 0, sizeof(*s));
}

int mt_journal_rebuild(mt_journal *j)
{
	int error;

	/* rows another tool wrote into the index become events first: a
	 * rebuild loses nothing; then the index is made aside, as from
	 * nothing, and put in its place */
	if ((error = mt_jexport_all(j)) < 0)
		return error;
	return mt_journal_build_aside(j);
}
