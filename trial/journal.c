#include "journal.h"
#include "error.h"
#include "jsonutil.h"
#include "sha256.h"
#include "util.h"

#include <sqlite3.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

const char *const mt_tracks[] = {"portability", "optimized", NULL};
const char *const mt_change_marks[] = {"reusable", "model-specific", NULL};
const char *const mt_effort_categories[] = {
	"setup", "getting-a-correct-run", "debugging", "waiting-for-compile",
	"optimization", "other", NULL};

struct mt_journal {
	sqlite3 *db;
	char *path;
};

/* Forward migrations: migrations[i] takes the schema from version i to i+1.
 * Never edit a shipped entry; append a new one. */
static const char *const migrations[] = {
	"CREATE TABLE effort ("
	"  id INTEGER PRIMARY KEY,"
	"  track TEXT,"
	"  category TEXT NOT NULL,"
	"  text TEXT,"
	"  started_ms INTEGER NOT NULL,"
	"  stopped_ms INTEGER);"
	/* At most one running timer, enforced by the database itself. */
	"CREATE UNIQUE INDEX effort_one_running ON effort((stopped_ms IS NULL))"
	"  WHERE stopped_ms IS NULL;"
	"CREATE TABLE notes ("
	"  id INTEGER PRIMARY KEY,"
	"  created_ms INTEGER NOT NULL,"
	"  track TEXT,"
	"  text TEXT NOT NULL,"
	"  interval_id INTEGER REFERENCES effort(id));"
	"CREATE TABLE note_tags ("
	"  note_id INTEGER NOT NULL REFERENCES notes(id),"
	"  tag TEXT NOT NULL,"
	"  PRIMARY KEY (note_id, tag));",
	/* 2: static scans, each with its revision and the whole result */
	"CREATE TABLE scans ("
	"  id INTEGER PRIMARY KEY,"
	"  created_ms INTEGER NOT NULL,"
	"  repo TEXT NOT NULL,"
	"  rev TEXT NOT NULL,"
	"  tree TEXT NOT NULL,"
	"  worktree INTEGER NOT NULL,"
	"  summary TEXT NOT NULL,"
	"  result TEXT NOT NULL);",
	/* 3: probes, each with the identity of the table it used */
	"CREATE TABLE probes ("
	"  id INTEGER PRIMARY KEY,"
	"  created_ms INTEGER NOT NULL,"
	"  table_name TEXT NOT NULL,"
	"  table_version TEXT NOT NULL,"
	"  table_retrieved TEXT NOT NULL,"
	"  table_source TEXT NOT NULL,"
	"  scan_id INTEGER REFERENCES scans(id),"
	"  result TEXT NOT NULL);",
	/* 4: what the team found out about an op, recorded from the wizard or CLI */
	"CREATE TABLE op_overrides ("
	"  id INTEGER PRIMARY KEY,"
	"  created_ms INTEGER NOT NULL,"
	"  op TEXT NOT NULL,"
	"  status TEXT NOT NULL,"
	"  note TEXT NOT NULL);",
	/* 5: exact op inventories (TorchScript graphs, dispatch traces with their
	 *    distinct shapes per op), each with the file it came from */
	"CREATE TABLE inventories ("
	"  id INTEGER PRIMARY KEY,"
	"  created_ms INTEGER NOT NULL,"
	"  source TEXT NOT NULL,"
	"  file TEXT NOT NULL,"
	"  digest TEXT NOT NULL,"
	"  result TEXT NOT NULL);",
	/* 6: correctness checks (tensor comparisons, recipe runs, loss curves),
	 *    each with what it compared and whether it passed */
	"CREATE TABLE checks ("
	"  id INTEGER PRIMARY KEY,"
	"  created_ms INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  passed INTEGER NOT NULL,"
	"  reference TEXT NOT NULL,"
	"  candidate TEXT NOT NULL,"
	"  result TEXT NOT NULL);",
	/* 7: run attempts, failed ones too: what ran, where its log is, how it
	 *    ended, and what was computed from the log */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  created_ms INTEGER NOT NULL,"
	"  system TEXT NOT NULL,"
	"  track TEXT,"
	"  label TEXT,"
	"  cache TEXT,"
	"  origin TEXT NOT NULL,"
	"  command TEXT,"
	"  log TEXT NOT NULL,"
	"  status TEXT NOT NULL,"
	"  exit_status INTEGER,"
	"  started_ms INTEGER NOT NULL,"
	"  ended_ms INTEGER,"
	"  metrics TEXT);",
	/* 8: which process records a run, so that an attempt whose mtrial died
	 *    (kill -9, a crash, a reboot) is told from one still going */
	"ALTER TABLE runs ADD COLUMN pid INTEGER;"
	"ALTER TABLE runs ADD COLUMN host TEXT;",
	/* 9: what the team says a track's change to a file is: reusable (any
	 *    model on the platform needs it) or model-specific; one mark a file */
	"CREATE TABLE change_marks ("
	"  id INTEGER PRIMARY KEY,"
	"  created_ms INTEGER NOT NULL,"
	"  track TEXT NOT NULL,"
	"  path TEXT NOT NULL,"
	"  mark TEXT NOT NULL,"
	"  note TEXT,"
	"  UNIQUE (track, path));",
	/* 10: a rehearsal run tests the pipeline, the launcher or the log
	 *    format (on a CPU, a smaller config, another machine): recorded
	 *    and listed, never evidence */
	"ALTER TABLE runs ADD COLUMN rehearsal INTEGER NOT NULL DEFAULT 0;",
	/* 11: a rehearsal check compares stand-ins (two CPU runs, a smaller
	 *    config) to test the comparison itself: recorded and listed, never
	 *    evidence */
	"ALTER TABLE checks ADD COLUMN rehearsal INTEGER NOT NULL DEFAULT 0;",
	/* 12: a mistaken record (a run, check, override, effort interval or
	 *    note) is withdrawn, never deleted: who, when and why stay, and the
	 *    queries that feed figures leave it out */
	"CREATE TABLE withdrawals ("
	"  id INTEGER PRIMARY KEY,"
	"  created_ms INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  item_id INTEGER NOT NULL,"
	"  who TEXT NOT NULL,"
	"  why TEXT NOT NULL,"
	"  UNIQUE (kind, item_id));",
};

/* SQL: the row of a query over `kind`'s table is not withdrawn. */
#define NOT_WITHDRAWN(kind) " id NOT IN (SELECT item_id FROM withdrawals WHERE kind = '" kind "')"

#define N_MIGRATIONS (int)(sizeof(migrations) / sizeof(migrations[0]))
_Static_assert(N_MIGRATIONS == MT_JOURNAL_SCHEMA_VERSION, "one migration per schema version");

static int db_error(mt_journal *j, const char *what)
{
	int rc = sqlite3_errcode(j->db);
	int code = (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) ? MT_EIO : MT_EIO;
	return mt_error_set(code, "%s: %s: %s", j->path, what, sqlite3_errmsg(j->db));
}

static int exec(mt_journal *j, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(j->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int error = mt_error_set(MT_EIO, "%s: %s", j->path,
					 msg ? msg : sqlite3_errmsg(j->db));
		sqlite3_free(msg);
		return error;
	}
	return 0;
}

static int begin(mt_journal *j)
{
	return exec(j, "BEGIN IMMEDIATE");
}

static int finish(mt_journal *j, int error)
{
	if (error < 0) {
		sqlite3_exec(j->db, "ROLLBACK", NULL, NULL, NULL);
		return error;
	}
	return exec(j, "COMMIT");
}

static int prepare(mt_journal *j, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v2(j->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_error(j, "prepare");
	return 0;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int read_version(mt_journal *j, int *out)
{
	sqlite3_stmt *st = NULL;
	int error;

	if ((error = prepare(j, &st, "SELECT version FROM schema_version")) < 0)
		return error;
	*out = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return 0;
}

static int migrate(mt_journal *j)
{
	int version = 0, error;

	if ((error = begin(j)) < 0)
		return error;
	error = exec(j, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
	if (error == 0)
		error = read_version(j, &version);
	if (error == 0 && version > N_MIGRATIONS)
		error = mt_error_set(MT_EINVALID,
				     "%s: journal schema version %d is newer than this mtrial "
				     "understands (%d); upgrade mtrial",
				     j->path, version, N_MIGRATIONS);
	for (int v = version; error == 0 && v < N_MIGRATIONS; v++)
		error = exec(j, migrations[v]);
	if (error == 0 && version < N_MIGRATIONS) {
		char sql[128];
		snprintf(sql, sizeof(sql), "DELETE FROM schema_version;"
			 "INSERT INTO schema_version VALUES (%d)", N_MIGRATIONS);
		error = exec(j, sql);
	}
	return finish(j, error);
}

int mt_journal_open(mt_journal **out, const char *path, int create)
{
	mt_journal *j;
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	int error;

	*out = NULL;
	if (!create && !mt_path_exists(path))
		return mt_error_set(MT_ENOTFOUND, "%s: no journal", path);
	j = calloc(1, sizeof(*j));
	if (!j)
		return mt_error_set(MT_EIO, "out of memory");
	j->path = mt_strdup(path);
	if (sqlite3_open_v2(path, &j->db, flags, NULL) != SQLITE_OK) {
		error = mt_error_set(MT_EIO, "%s: %s", path,
				     j->db ? sqlite3_errmsg(j->db) : "cannot open");
		goto cleanup;
	}
	sqlite3_busy_timeout(j->db, 30000);
	if ((error = exec(j, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"
			     "PRAGMA synchronous=NORMAL")) < 0)
		goto cleanup;
	if ((error = migrate(j)) < 0)
		goto cleanup;
	*out = j;
	return 0;
cleanup:
	mt_journal_free(j);
	return error;
}

void mt_journal_free(mt_journal *j)
{
	if (!j)
		return;
	sqlite3_close(j->db);
	free(j->path);
	free(j);
}

int mt_journal_schema_version(mt_journal *j)
{
	int v = -1;
	read_version(j, &v);
	return v;
}

void mt_note_dispose(mt_note *n)
{
	free(n->track);
	free(n->text);
	for (size_t i = 0; i < n->ntags; i++)
		free(n->tags[i]);
	free(n->tags);
	memset(n, 0, sizeof(*n));
}

void mt_effort_dispose(mt_effort *e)
{
	free(e->track);
	free(e->category);
	free(e->text);
	memset(e, 0, sizeof(*e));
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? mt_strdup((const char *)s) : NULL;
}

static void effort_from_row(mt_effort *e, sqlite3_stmt *st)
{
	e->id = sqlite3_column_int64(st, 0);
	e->track = col_text(st, 1);
	e->category = col_text(st, 2);
	e->text = col_text(st, 3);
	e->started_ms = sqlite3_column_int64(st, 4);
	e->stopped_ms = sqlite3_column_type(st, 5) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 5);
}

#define EFFORT_COLS "id, track, category, text, started_ms, stopped_ms"

/* The running interval inside an open transaction; MT_ENOTFOUND when none. */
static int current_locked(mt_journal *j, mt_effort *out)
{
	sqlite3_stmt *st = NULL;
	int error, rc;

	if ((error = prepare(j, &st, "SELECT " EFFORT_COLS
			     " FROM effort WHERE stopped_ms IS NULL")) < 0)
		return error;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (out)
			effort_from_row(out, st);
		error = 0;
	} else if (rc == SQLITE_DONE) {
		error = mt_error_set(MT_ENOTFOUND, "no effort timer is running");
	} else {
		error = db_error(j, "reading effort");
	}
	sqlite3_finalize(st);
	return error;
}

static int check_choice(const char *what, const char *value, const char *const *allowed)
{
	mt_buf list = MT_BUF_INIT;
	int error;

	if (!value || mt_str_in(value, allowed))
		return 0;
	for (const char *const *p = allowed; *p; p++)
		mt_buf_printf(&list, "%s%s", p == allowed ? "" : ", ", *p);
	error = mt_error_set(MT_EINVALID, "unknown %s '%s' (expected one of: %s)", what, value,
			     mt_buf_cstr(&list));
	mt_buf_dispose(&list);
	return error;
}

static int insert_tags(mt_journal *j, int64_t note_id, const char *const *tags, size_t ntags)
{
	sqlite3_stmt *st = NULL;
	int error;

	if (ntags == 0)
		return 0;
	if ((error = prepare(j, &st, "INSERT OR IGNORE INTO note_tags VALUES (?, ?)")) < 0)
		return error;
	for (size_t i = 0; i < ntags && error == 0; i++) {
		sqlite3_bind_int64(st, 1, note_id);
		sqlite3_bind_text(st, 2, tags[i], -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "adding tag");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return error;
}

int mt_journal_note_add(mt_journal *j, const char *text, const char *track,
			const char *const *tags, size_t ntags, int64_t *id_out)
{
	sqlite3_stmt *st = NULL;
	mt_effort running = {0};
	int error, have_timer;
	int64_t id;

	if (!text || !*text)
		return mt_error_set(MT_EINVALID, "a note needs text");
	if ((error = check_choice("track", track, mt_tracks)) < 0)
		return error;
	if ((error = begin(j)) < 0)
		return error;
	error = current_locked(j, &running);
	have_timer = error == 0;
	if (error == MT_ENOTFOUND)
		error = 0;
	if (error == 0)
		error = prepare(j, &st, "INSERT INTO notes (created_ms, track, text, interval_id)"
				       " VALUES (?, ?, ?, ?)");
	if (error == 0) {
		sqlite3_bind_int64(st, 1, mt_now_ms());
		bind_text_or_null(st, 2, track ? track : (have_timer ? running.track : NULL));
		sqlite3_bind_text(st, 3, text, -1, SQLITE_TRANSIENT);
		if (have_timer)
			sqlite3_bind_int64(st, 4, running.id);
		else
			sqlite3_bind_null(st, 4);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "adding note");
	}
	sqlite3_finalize(st);
	id = sqlite3_last_insert_rowid(j->db);
	if (error == 0)
		error = insert_tags(j, id, tags, ntags);
	mt_effort_dispose(&running);
	if ((error = finish(j, error)) < 0)
		return error;
	if (id_out)
		*id_out = id;
	return 0;
}

static int load_tags(mt_journal *j, sqlite3_stmt *tag_st, mt_note *n)
{
	size_t cap = 0;
	int rc;

	sqlite3_bind_int64(tag_st, 1, n->id);
	while ((rc = sqlite3_step(tag_st)) == SQLITE_ROW) {
		if (n->ntags == cap) {
			cap = cap ? cap * 2 : 4;
			n->tags = realloc(n->tags, cap * sizeof(*n->tags));
			if (!n->tags)
				abort();
		}
		n->tags[n->ntags++] = col_text(tag_st, 0);
	}
	sqlite3_reset(tag_st);
	return rc == SQLITE_DONE ? 0 : db_error(j, "reading tags");
}

int mt_journal_notes_foreach(mt_journal *j, mt_note_cb cb, void *payload)
{
	sqlite3_stmt *st = NULL, *tag_st = NULL;
	int error, rc;

	if ((error = prepare(j, &st, "SELECT id, created_ms, track, text, interval_id"
				     " FROM notes WHERE" NOT_WITHDRAWN("note") " ORDER BY id")) < 0)
		return error;
	if ((error = prepare(j, &tag_st, "SELECT tag FROM note_tags WHERE note_id = ?"
					 " ORDER BY rowid")) < 0)
		goto cleanup;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		mt_note n = {0};
		n.id = sqlite3_column_int64(st, 0);
		n.created_ms = sqlite3_column_int64(st, 1);
		n.track = col_text(st, 2);
		n.text = col_text(st, 3);
		n.interval_id = sqlite3_column_int64(st, 4);
		error = load_tags(j, tag_st, &n);
		if (error == 0)
			error = cb(&n, payload);
		mt_note_dispose(&n);
		if (error != 0)
			goto cleanup;
	}
	if (rc != SQLITE_DONE)
		error = db_error(j, "reading notes");
cleanup:
	sqlite3_finalize(tag_st);
	sqlite3_finalize(st);
	return error;
}

/* Inserts one interval inside an open transaction; stopped_ms 0 leaves it
 * running. */
static int insert_interval(mt_journal *j, const char *track, const char *category,
			   const char *text, int64_t started_ms, int64_t stopped_ms)
{
	sqlite3_stmt *st = NULL;
	int error = prepare(j, &st, "INSERT INTO effort (track, category, text, started_ms,"
				    " stopped_ms) VALUES (?, ?, ?, ?, ?)");
	if (error < 0)
		return error;
	bind_text_or_null(st, 1, track);
	sqlite3_bind_text(st, 2, category, -1, SQLITE_TRANSIENT);
	bind_text_or_null(st, 3, text);
	sqlite3_bind_int64(st, 4, started_ms);
	if (stopped_ms)
		sqlite3_bind_int64(st, 5, stopped_ms);
	else
		sqlite3_bind_null(st, 5);
	if (sqlite3_step(st) != SQLITE_DONE)
		error = db_error(j, "recording effort");
	sqlite3_finalize(st);
	return error;
}

static int check_effort(const char *track, const char *category)
{
	int error = check_choice("track", track, mt_tracks);
	return error < 0 ? error : check_choice("category", category, mt_effort_categories);
}

int mt_journal_effort_start(mt_journal *j, const char *track, const char *category,
			    const char *text, mt_effort *out)
{
	mt_effort running = {0};
	int error;

	if (!category)
		category = "other";
	if ((error = check_effort(track, category)) < 0 || (error = begin(j)) < 0)
		return error;
	error = current_locked(j, &running);
	if (error == 0) {
		char since[32];
		mt_time_iso(since, sizeof(since), running.started_ms);
		error = mt_error_set(MT_ESTATE,
				     "an effort timer is already running (#%lld, %s, since %s); "
				     "stop it first with 'mtrial effort stop'",
				     (long long)running.id, running.category, since);
	} else if (error == MT_ENOTFOUND) {
		error = insert_interval(j, track, category, text, mt_now_ms(), 0);
	}
	mt_effort_dispose(&running);
	if (error == 0 && out)
		error = current_locked(j, out);
	return finish(j, error);
}

static int read_interval(mt_journal *j, int64_t id, mt_effort *out)
{
	sqlite3_stmt *st = NULL;
	int error;

	if ((error = prepare(j, &st, "SELECT " EFFORT_COLS " FROM effort WHERE id = ?")) < 0)
		return error;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		effort_from_row(out, st);
	else
		error = db_error(j, "reading effort");
	sqlite3_finalize(st);
	return error;
}

int mt_journal_effort_add(mt_journal *j, const char *track, const char *category,
			  const char *text, int64_t started_ms, int64_t stopped_ms,
			  mt_effort *out)
{
	int error;

	if (!category)
		category = "other";
	if ((error = check_effort(track, category)) < 0)
		return error;
	if (stopped_ms <= started_ms || stopped_ms > mt_now_ms() + 1000)
		return mt_error_set(MT_EINVALID, "an effort interval must have a positive "
				    "duration and end no later than now");
	if ((error = begin(j)) < 0)
		return error;
	error = insert_interval(j, track, category, text, started_ms, stopped_ms);
	if (error == 0 && out)
		error = read_interval(j, sqlite3_last_insert_rowid(j->db), out);
	return finish(j, error);
}

int mt_journal_effort_stop(mt_journal *j, mt_effort *out)
{
	sqlite3_stmt *st = NULL;
	mt_effort running = {0};
	int error;

	if ((error = begin(j)) < 0)
		return error;
	error = current_locked(j, &running);
	if (error == MT_ENOTFOUND)
		error = mt_error_set(MT_ESTATE, "no effort timer is running");
	if (error == 0)
		error = prepare(j, &st, "UPDATE effort SET stopped_ms = ? WHERE id = ?");
	if (error == 0) {
		running.stopped_ms = mt_now_ms();
		if (running.stopped_ms < running.started_ms)
			running.stopped_ms = running.started_ms;
		sqlite3_bind_int64(st, 1, running.stopped_ms);
		sqlite3_bind_int64(st, 2, running.id);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "stopping timer");
	}
	sqlite3_finalize(st);
	if ((error = finish(j, error)) == 0 && out) {
		*out = running;
		return 0;
	}
	mt_effort_dispose(&running);
	return error;
}

int mt_journal_effort_current(mt_journal *j, mt_effort *out)
{
	return current_locked(j, out);
}

int mt_journal_effort_foreach(mt_journal *j, mt_effort_cb cb, void *payload)
{
	sqlite3_stmt *st = NULL;
	int error, rc;

	if ((error = prepare(j, &st, "SELECT " EFFORT_COLS " FROM effort WHERE"
				     NOT_WITHDRAWN("effort") " ORDER BY id")) < 0)
		return error;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		mt_effort e = {0};
		effort_from_row(&e, st);
		error = cb(&e, payload);
		mt_effort_dispose(&e);
		if (error != 0)
			break;
	}
	if (error == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
		error = db_error(j, "reading effort");
	sqlite3_finalize(st);
	return error;
}

/* The latest scan's id when it has the same committed tree and summary as
 * the one being added (a rescan of an unchanged revision), else 0. */
static int64_t same_as_latest(mt_journal *j, const mt_journal_scan *scan)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0;

	if (scan->worktree || !scan->tree[0] ||
	    prepare(j, &st, "SELECT id FROM scans WHERE id = (SELECT MAX(id) FROM scans)"
			    " AND rev = ? AND tree = ? AND worktree = 0 AND summary = ?") < 0)
		return 0;
	sqlite3_bind_text(st, 1, scan->rev, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, scan->tree, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, scan->summary, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

int mt_journal_scan_add(mt_journal *j, const mt_journal_scan *scan, int64_t *id_out,
			int *unchanged)
{
	sqlite3_stmt *st = NULL;
	int64_t same;
	int error;

	if ((error = begin(j)) < 0)
		return error;
	same = same_as_latest(j, scan);
	if (unchanged)
		*unchanged = same != 0;
	if (same) {
		if (id_out)
			*id_out = same;
		return finish(j, 0);
	}
	error = prepare(j, &st, "INSERT INTO scans (created_ms, repo, rev, tree, worktree,"
			       " summary, result) VALUES (?, ?, ?, ?, ?, ?, ?)");
	if (error == 0) {
		sqlite3_bind_int64(st, 1, mt_now_ms());
		sqlite3_bind_text(st, 2, scan->repo, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, scan->rev, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, scan->tree, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 5, scan->worktree);
		sqlite3_bind_text(st, 6, scan->summary, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, scan->result, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "recording scan");
	}
	sqlite3_finalize(st);
	if (error == 0 && id_out)
		*id_out = sqlite3_last_insert_rowid(j->db);
	return finish(j, error);
}

int mt_journal_scan_latest(mt_journal *j, int full, json_t **out, int64_t *id_out,
			   int64_t *created_ms)
{
	sqlite3_stmt *st = NULL;
	json_error_t jerr;
	int error, rc;

	*out = NULL;
	if ((error = prepare(j, &st, full ? "SELECT id, created_ms, result, repo, rev, tree,"
					    " worktree FROM scans ORDER BY id DESC LIMIT 1"
					  : "SELECT id, created_ms, summary, repo, rev, tree,"
					    " worktree FROM scans ORDER BY id DESC LIMIT 1")) < 0)
		return error;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (id_out)
			*id_out = sqlite3_column_int64(st, 0);
		if (created_ms)
			*created_ms = sqlite3_column_int64(st, 1);
		*out = json_loads((const char *)sqlite3_column_text(st, 2), 0, &jerr);
		if (!*out)
			error = mt_error_set(MT_EINVALID, "%s: stored scan is not JSON: %s",
					     j->path, jerr.text);
		else if (!full) /* the summary leaves out what the columns hold */
			json_object_update_missing_new(
				*out, json_pack("{ss, ss, ss, sb}", "repo",
						(const char *)sqlite3_column_text(st, 3), "rev",
						(const char *)sqlite3_column_text(st, 4), "tree",
						(const char *)sqlite3_column_text(st, 5), "worktree",
						sqlite3_column_int(st, 6)));
	} else if (rc == SQLITE_DONE) {
		error = mt_error_set(MT_ENOTFOUND, "no scan recorded yet (run 'mtrial scan')");
	} else {
		error = db_error(j, "reading scans");
	}
	sqlite3_finalize(st);
	return error;
}

int mt_journal_probe_add(mt_journal *j, json_t *result, int64_t scan_id, int64_t *id_out)
{
	sqlite3_stmt *st = NULL;
	json_t *table = json_object_get(result, "table");
	char *text = json_dumps(result, JSON_COMPACT);
	int error;

	if (!text || !json_is_object(table)) {
		free(text);
		return mt_error_set(MT_EINVALID, "a probe result needs its table");
	}
	if ((error = begin(j)) < 0)
		goto cleanup;
	error = prepare(j, &st, "INSERT INTO probes (created_ms, table_name, table_version,"
			       " table_retrieved, table_source, scan_id, result)"
			       " VALUES (?, ?, ?, ?, ?, ?, ?)");
	if (error == 0) {
		sqlite3_bind_int64(st, 1, mt_now_ms());
		for (int i = 0; i < 4; i++) {
			static const char *const keys[] = {"name", "version", "retrieved", "source"};
			bind_text_or_null(st, 2 + i,
					  json_string_value(json_object_get(table, keys[i])) ?: "");
		}
		if (scan_id)
			sqlite3_bind_int64(st, 6, scan_id);
		else
			sqlite3_bind_null(st, 6);
		sqlite3_bind_text(st, 7, text, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "recording probe");
	}
	sqlite3_finalize(st);
	if (error == 0 && id_out)
		*id_out = sqlite3_last_insert_rowid(j->db);
	error = finish(j, error);
cleanup:
	free(text);
	return error;
}

int mt_journal_probe_latest(mt_journal *j, json_t **out, int64_t *id_out, int64_t *created_ms)
{
	return mt_journal_probe_latest_of(j, NULL, out, id_out, created_ms);
}

int mt_journal_probe_latest_of(mt_journal *j, const char *table, json_t **out, int64_t *id_out,
			       int64_t *created_ms)
{
	sqlite3_stmt *st = NULL;
	json_error_t jerr;
	int error, rc;

	*out = NULL;
	if ((error = prepare(j, &st, "SELECT id, created_ms, result FROM probes WHERE ?1 IS NULL"
				     " OR json_extract(result, '$.table.name') = ?1"
				     " ORDER BY id DESC LIMIT 1")) < 0)
		return error;
	bind_text_or_null(st, 1, table);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (id_out)
			*id_out = sqlite3_column_int64(st, 0);
		if (created_ms)
			*created_ms = sqlite3_column_int64(st, 1);
		if (!(*out = json_loads((const char *)sqlite3_column_text(st, 2), 0, &jerr)))
			error = mt_error_set(MT_EINVALID, "%s: stored probe is not JSON: %s",
					     j->path, jerr.text);
	} else if (rc == SQLITE_DONE) {
		error = mt_error_set(MT_ENOTFOUND, "no probe recorded yet%s%s (run 'mtrial probe')",
				     table ? " against table " : "", table ? table : "");
	} else {
		error = db_error(j, "reading probes");
	}
	sqlite3_finalize(st);
	return error;
}

int mt_journal_inventory_add(mt_journal *j, json_t *inv, int64_t *id_out, int *unchanged)
{
	const char *source = json_string_value(json_object_get(inv, "source"));
	const char *file = json_string_value(json_object_get(inv, "file"));
	char *text = json_dumps(inv, JSON_COMPACT | JSON_SORT_KEYS);
	sqlite3_stmt *st = NULL;
	char digest[65];
	int error, rc;

	if (unchanged)
		*unchanged = 0;
	if (!text || !source || !file) {
		free(text);
		return mt_error_set(MT_EINVALID, "an inventory needs its source and file");
	}
	mt_sha256_hex(digest, text, strlen(text));
	if ((error = begin(j)) < 0)
		goto cleanup;
	error = prepare(j, &st, "SELECT id, digest FROM inventories WHERE source = ?"
				" ORDER BY id DESC LIMIT 1");
	if (error == 0) {
		sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW &&
		    strcmp((const char *)sqlite3_column_text(st, 1), digest) == 0) {
			if (id_out)
				*id_out = sqlite3_column_int64(st, 0);
			if (unchanged)
				*unchanged = 1;
			sqlite3_finalize(st);
			error = finish(j, 0);
			goto cleanup;
		}
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			error = db_error(j, "reading inventories");
		sqlite3_finalize(st);
		st = NULL;
	}
	if (error == 0)
		error = prepare(j, &st, "INSERT INTO inventories (created_ms, source, file, digest,"
					" result) VALUES (?, ?, ?, ?, ?)");
	if (error == 0) {
		sqlite3_bind_int64(st, 1, mt_now_ms());
		sqlite3_bind_text(st, 2, source, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, file, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, digest, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, text, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "recording inventory");
	}
	sqlite3_finalize(st);
	if (error == 0 && id_out)
		*id_out = sqlite3_last_insert_rowid(j->db);
	error = finish(j, error);
cleanup:
	free(text);
	return error;
}

int mt_journal_inventory_latest(mt_journal *j, const char *source, json_t **out, int64_t *id_out)
{
	sqlite3_stmt *st = NULL;
	json_error_t jerr;
	int error, rc;

	*out = NULL;
	if ((error = prepare(j, &st, "SELECT id, result FROM inventories WHERE source = ?"
				     " ORDER BY id DESC LIMIT 1")) < 0)
		return error;
	sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (id_out)
			*id_out = sqlite3_column_int64(st, 0);
		if (!(*out = json_loads((const char *)sqlite3_column_text(st, 1), 0, &jerr)))
			error = mt_error_set(MT_EINVALID, "%s: stored inventory is not JSON: %s",
					     j->path, jerr.text);
		else
			json_object_set_new(*out, "inventory_id",
					    json_integer(sqlite3_column_int64(st, 0)));
	} else if (rc == SQLITE_DONE) {
		error = mt_error_set(MT_ENOTFOUND,
				     "no %s recorded yet (record one with 'mtrial ops show FILE')",
				     source);
	} else {
		error = db_error(j, "reading inventories");
	}
	sqlite3_finalize(st);
	return error;
}

/* Sets the rehearsal column of row `id` of `table` (runs or checks, a
 * constant: never user text); MT_ENOTFOUND names the `thing`. */
static int mark_row(mt_journal *j, const char *table, const char *thing, int64_t id, int rehearsal)
{
	sqlite3_stmt *st = NULL;
	char sql[64], what[32];
	int error;

	snprintf(sql, sizeof(sql), "UPDATE %s SET rehearsal = ? WHERE id = ?", table);
	snprintf(what, sizeof(what), "marking %s", thing);
	if ((error = begin(j)) < 0)
		return error;
	error = prepare(j, &st, sql);
	if (error == 0) {
		sqlite3_bind_int(st, 1, rehearsal != 0);
		sqlite3_bind_int64(st, 2, id);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, what);
		else if (sqlite3_changes(j->db) != 1)
			error = mt_error_set(MT_ENOTFOUND, "no %s #%lld", thing, (long long)id);
	}
	sqlite3_finalize(st);
	return finish(j, error);
}

/* ---- withdrawals ----------------------------------------------------------- */

/* What can be withdrawn: the kind's table, and a one-line description of a
 * row for the list of withdrawn entries (SQL over that table: constants,
 * never user text). */
static const struct withdrawable {
	const char *kind, *table, *what;
} withdrawables[] = {
	{"run", "runs", "system || ' run, ' || status || coalesce(', ' || label, '')"},
	{"check", "checks", "kind || ' check: ' || reference || ' vs ' || candidate"},
	{"override", "op_overrides", "op || ' ' || status || ': ' || note"},
	{"effort", "effort", "category || coalesce(' on ' || track, '') || coalesce(': ' || text, '')"},
	{"note", "notes", "text"},
};
#define N_WITHDRAWABLE (sizeof(withdrawables) / sizeof(withdrawables[0]))

const char *const mt_withdraw_kinds[] = {"run", "check", "override", "effort", "note", NULL};

static const struct withdrawable *withdrawable(const char *kind)
{
	for (size_t i = 0; kind && i < N_WITHDRAWABLE; i++)
		if (strcmp(withdrawables[i].kind, kind) == 0)
			return &withdrawables[i];
	return NULL;
}

/* {who, why, when} of kind's row id, or json_null() when it stands. */
static json_t *withdrawal_json(mt_journal *j, const char *kind, int64_t id)
{
	sqlite3_stmt *st = NULL;
	json_t *out = NULL;
	char when[32];

	if (prepare(j, &st, "SELECT who, why, created_ms FROM withdrawals"
			    " WHERE kind = ? AND item_id = ?") == 0) {
		sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			mt_time_iso(when, sizeof(when), sqlite3_column_int64(st, 2));
			out = json_pack("{ss, ss, ss}", "who", sqlite3_column_text(st, 0), "why",
					sqlite3_column_text(st, 1), "when", when);
		}
	}
	sqlite3_finalize(st);
	return out ? out : json_null();
}

/* The row must exist, not be withdrawn yet, and (effort) not be running:
 * a running timer is stopped first, so that its end is on record. */
static int withdraw_check(mt_journal *j, const struct withdrawable *w, int64_t id)
{
	sqlite3_stmt *st = NULL;
	char sql[160];
	json_t *before;
	int error, rc;

	snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE id = ?",
		 strcmp(w->kind, "effort") == 0 ? "stopped_ms IS NULL" : "0", w->table);
	if ((error = prepare(j, &st, sql)) < 0)
		return error;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int(st, 0))
		error = mt_error_set(MT_ESTATE, "effort #%lld is the running timer: stop it "
				     "first (mtrial effort stop)", (long long)id);
	else if (rc != SQLITE_ROW)
		error = rc == SQLITE_DONE ? mt_error_set(MT_ENOTFOUND, "no %s #%lld", w->kind,
							 (long long)id)
					  : db_error(j, "reading the record");
	sqlite3_finalize(st);
	if (error < 0)
		return error;
	before = withdrawal_json(j, w->kind, id);
	if (!json_is_null(before))
		error = mt_error_set(MT_EEXISTS, "%s #%lld was already withdrawn by %s on %s: %s",
				     w->kind, (long long)id,
				     json_string_value(json_object_get(before, "who")),
				     json_string_value(json_object_get(before, "when")),
				     json_string_value(json_object_get(before, "why")));
	json_decref(before);
	return error;
}

int mt_journal_withdraw(mt_journal *j, const char *kind, int64_t id, const char *who,
			const char *why, int64_t *id_out)
{
	const struct withdrawable *w = withdrawable(kind);
	sqlite3_stmt *st = NULL;
	int error;

	if (!w)
		return check_choice("kind", kind ? kind : "", mt_withdraw_kinds);
	if (!why || !*why)
		return mt_error_set(MT_EINVALID, "withdrawing needs a reason: why the %s is "
				    "mistaken", kind);
	if ((error = begin(j)) < 0)
		return error;
	if ((error = withdraw_check(j, w, id)) == 0)
		error = prepare(j, &st, "INSERT INTO withdrawals (created_ms, kind, item_id, who,"
				       " why) VALUES (?, ?, ?, ?, ?)");
	if (error == 0) {
		sqlite3_bind_int64(st, 1, mt_now_ms());
		sqlite3_bind_text(st, 2, w->kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, id);
		sqlite3_bind_text(st, 4, who && *who ? who : "unknown", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, why, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "recording the withdrawal");
	}
	sqlite3_finalize(st);
	if (error == 0 && id_out)
		*id_out = sqlite3_last_insert_rowid(j->db);
	return finish(j, error);
}

/* One withdrawal as JSON, with what the withdrawn row was. */
static json_t *withdrawal_row(mt_journal *j, sqlite3_stmt *st)
{
	const struct withdrawable *w = withdrawable((const char *)sqlite3_column_text(st, 2));
	sqlite3_stmt *what_st = NULL;
	char when[32], sql[256];
	json_t *what = NULL;

	snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE id = ?", w ? w->what : "''",
		 w ? w->table : "withdrawals");
	if (prepare(j, &what_st, sql) == 0) {
		sqlite3_bind_int64(what_st, 1, sqlite3_column_int64(st, 3));
		if (sqlite3_step(what_st) == SQLITE_ROW && sqlite3_column_text(what_st, 0))
			what = json_string((const char *)sqlite3_column_text(what_st, 0));
	}
	sqlite3_finalize(what_st);
	mt_time_iso(when, sizeof(when), sqlite3_column_int64(st, 1));
	return json_pack("{sI, ss, ss, sI, so, ss, ss}", "id",
			 (json_int_t)sqlite3_column_int64(st, 0), "when", when, "kind",
			 (const char *)sqlite3_column_text(st, 2), "item_id",
			 (json_int_t)sqlite3_column_int64(st, 3), "what", what ? what : json_null(),
			 "who", (const char *)sqlite3_column_text(st, 4), "why",
			 (const char *)sqlite3_column_text(st, 5));
}

json_t *mt_journal_withdrawals_json(mt_journal *j)
{
	sqlite3_stmt *st = NULL;
	json_t *arr = json_array(), *r;
	int rc;

	if (prepare(j, &st, "SELECT id, created_ms, kind, item_id, who, why FROM withdrawals"
			    " ORDER BY id") < 0) {
		json_decref(arr);
		return NULL;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((r = withdrawal_row(j, st)))
			json_array_append_new(arr, r);
	if (rc != SQLITE_DONE) {
		db_error(j, "reading withdrawals");
		json_decref(arr);
		arr = NULL;
	}
	sqlite3_finalize(st);
	return arr;
}

int mt_journal_check_add(mt_journal *j, const char *kind, json_t *result, int64_t *id_out)
{
	const char *ref = json_string_value(json_object_get(result, "reference"));
	const char *cand = json_string_value(json_object_get(result, "candidate"));
	json_t *passed = json_object_get(result, "passed");
	char *text = json_dumps(result, JSON_COMPACT);
	sqlite3_stmt *st = NULL;
	int error;

	if (!text || !kind || !ref || !cand || !json_is_boolean(passed)) {
		free(text);
		return mt_error_set(MT_EINVALID, "a check result needs reference, candidate and passed");
	}
	if ((error = begin(j)) < 0)
		goto cleanup;
	error = prepare(j, &st, "INSERT INTO checks (created_ms, kind, passed, reference, candidate,"
				" result, rehearsal) VALUES (?, ?, ?, ?, ?, ?, ?)");
	if (error == 0) {
		sqlite3_bind_int64(st, 1, mt_now_ms());
		sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, json_is_true(passed));
		sqlite3_bind_text(st, 4, ref, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, cand, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, text, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 7, json_is_true(json_object_get(result, "rehearsal")));
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "recording check");
	}
	sqlite3_finalize(st);
	if (error == 0 && id_out)
		*id_out = sqlite3_last_insert_rowid(j->db);
	error = finish(j, error);
cleanup:
	free(text);
	return error;
}

json_t *mt_journal_checks_json(mt_journal *j, const char *kind, int limit)
{
	sqlite3_stmt *st = NULL;
	json_t *arr = json_array();
	int rc;

	if (prepare(j, &st, "SELECT id, created_ms, kind, result, rehearsal FROM checks"
			    " WHERE (?1 IS NULL OR kind = ?1) AND" NOT_WITHDRAWN("check")
			    " ORDER BY id DESC LIMIT ?2") < 0) {
		json_decref(arr);
		return NULL;
	}
	if (kind)
		sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_error_t jerr;
		json_t *r = json_loads((const char *)sqlite3_column_text(st, 3), 0, &jerr);
		char when[32];
		if (!r)
			continue; /* a row some other writer damaged: skipped, not fatal */
		mt_time_iso(when, sizeof(when), sqlite3_column_int64(st, 1));
		json_object_set_new(r, "id", json_integer(sqlite3_column_int64(st, 0)));
		json_object_set_new(r, "created", json_string(when));
		json_object_set_new(r, "kind", json_string((const char *)sqlite3_column_text(st, 2)));
		json_object_set_new(r, "rehearsal", json_boolean(sqlite3_column_int(st, 4) != 0));
		json_array_append_new(arr, r);
	}
	if (rc != SQLITE_DONE) {
		db_error(j, "reading checks");
		json_decref(arr);
		arr = NULL;
	}
	sqlite3_finalize(st);
	return arr;
}

int mt_journal_check_mark(mt_journal *j, int64_t id, int rehearsal)
{
	return mark_row(j, "checks", "check", id, rehearsal);
}

static const char *const run_statuses[] = {"running", "success", "failed", "aborted", NULL};

/* 1 when the process `pid` of `host` (this machine) no longer exists; 0
 * when it does, or when it cannot be told (another host, no pid). */
static int run_process_gone(int64_t pid, const char *host)
{
	char here[256] = "";
	if (pid <= 0 || !host || gethostname(here, sizeof(here) - 1) != 0 || strcmp(here, host) != 0)
		return 0;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int mt_journal_run_add(mt_journal *j, const mt_journal_run *run, int64_t *id_out)
{
	sqlite3_stmt *st = NULL;
	int error;

	if (!run->system || !run->origin || !run->log || !run->status || !run->started_ms)
		return mt_error_set(MT_EINVALID, "a run needs its system, origin, log, status and start");
	if ((error = check_choice("status", run->status, run_statuses)) < 0)
		return error;
	if ((error = begin(j)) < 0)
		return error;
	error = prepare(j, &st, "INSERT INTO runs (created_ms, system, track, label, cache, origin,"
				" command, log, status, exit_status, started_ms, ended_ms, metrics, pid,"
				" host, rehearsal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (error == 0) {
		sqlite3_bind_int64(st, 1, mt_now_ms());
		sqlite3_bind_text(st, 2, run->system, -1, SQLITE_STATIC);
		bind_text_or_null(st, 3, run->track);
		bind_text_or_null(st, 4, run->label);
		bind_text_or_null(st, 5, run->cache);
		sqlite3_bind_text(st, 6, run->origin, -1, SQLITE_STATIC);
		bind_text_or_null(st, 7, run->command);
		sqlite3_bind_text(st, 8, run->log, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 9, run->status, -1, SQLITE_STATIC);
		if (run->has_exit_status)
			sqlite3_bind_int(st, 10, run->exit_status);
		else
			sqlite3_bind_null(st, 10);
		sqlite3_bind_int64(st, 11, run->started_ms);
		if (run->ended_ms)
			sqlite3_bind_int64(st, 12, run->ended_ms);
		else
			sqlite3_bind_null(st, 12);
		bind_text_or_null(st, 13, run->metrics);
		if (run->pid)
			sqlite3_bind_int64(st, 14, run->pid);
		else
			sqlite3_bind_null(st, 14);
		bind_text_or_null(st, 15, run->host);
		sqlite3_bind_int(st, 16, run->rehearsal != 0);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "recording run");
	}
	sqlite3_finalize(st);
	if (error == 0 && id_out)
		*id_out = sqlite3_last_insert_rowid(j->db);
	return finish(j, error);
}

int mt_journal_run_end(mt_journal *j, int64_t id, const char *status, int has_exit_status,
		       int exit_status, int64_t ended_ms, const char *metrics)
{
	sqlite3_stmt *st = NULL;
	int error;

	if ((error = check_choice("status", status, run_statuses)) < 0)
		return error;
	if ((error = begin(j)) < 0)
		return error;
	error = prepare(j, &st, "UPDATE runs SET status = ?, exit_status = ?, ended_ms = ?,"
				" metrics = coalesce(?, metrics) WHERE id = ?");
	if (error == 0) {
		sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
		if (has_exit_status)
			sqlite3_bind_int(st, 2, exit_status);
		else
			sqlite3_bind_null(st, 2);
		sqlite3_bind_int64(st, 3, ended_ms);
		bind_text_or_null(st, 4, metrics);
		sqlite3_bind_int64(st, 5, id);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "ending run");
		else if (sqlite3_changes(j->db) != 1)
			error = mt_error_set(MT_ENOTFOUND, "no run #%lld", (long long)id);
	}
	sqlite3_finalize(st);
	return finish(j, error);
}

int mt_journal_run_mark(mt_journal *j, int64_t id, int rehearsal)
{
	return mark_row(j, "runs", "run", id, rehearsal);
}

json_t *mt_journal_runs_json(mt_journal *j, int64_t only_id)
{
	sqlite3_stmt *st = NULL;
	json_t *arr = json_array();
	int rc;

	if (prepare(j, &st, "SELECT id, created_ms, system, track, label, cache, origin, command,"
			    " log, status, exit_status, started_ms, ended_ms, metrics, pid, host,"
			    " rehearsal FROM runs"
			    " WHERE (?1 = 0 AND" NOT_WITHDRAWN("run") ") OR ?1 < 0 OR id = ?1"
			    " ORDER BY id") < 0) {
		json_decref(arr);
		return NULL;
	}
	sqlite3_bind_int64(st, 1, only_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char started[32], ended[32];
		json_t *r, *metrics = NULL;
		json_error_t jerr;
		int lost = 0;
		mt_time_iso(started, sizeof(started), sqlite3_column_int64(st, 11));
		mt_time_iso(ended, sizeof(ended), sqlite3_column_int64(st, 12));
		if (sqlite3_column_type(st, 13) != SQLITE_NULL)
			metrics = json_loads((const char *)sqlite3_column_text(st, 13), 0, &jerr);
		if (strcmp((const char *)sqlite3_column_text(st, 9), "running") == 0 &&
		    run_process_gone(sqlite3_column_int64(st, 14),
				     (const char *)sqlite3_column_text(st, 15)))
			lost = 1;
		/* free text as mt_json_text: a label, command or log path that is
		 * not UTF-8 must not make the run vanish from every view */
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
			      sqlite3_column_type(st, 12) == SQLITE_NULL ? json_null()
									 : json_string(ended),
			      "metrics", metrics ? metrics : json_null(), "rehearsal",
			      sqlite3_column_int(st, 16) != 0);
		if (r) /* to the ms: a live view's clock 1 counts from it as the end's does */
			json_object_set_new(r, "started_ms", json_integer(sqlite3_column_int64(st, 11)));
		if (r && lost) { /* recorded as running by a process that is gone */
			json_object_set_new(r, "status", json_string("lost"));
			json_object_set_new(r, "note",
					    json_string("the mtrial process that ran it ended without "
							"recording the end (killed, crashed or rebooted); "
							"its log holds what was printed"));
		}
		if (r) /* the listing of standing runs (only_id 0) holds none withdrawn */
			json_object_set_new(r, "withdrawn",
					    only_id ? withdrawal_json(j, "run", sqlite3_column_int64(st, 0))
						    : json_null());
		if (r)
			json_array_append_new(arr, r);
	}
	if (rc != SQLITE_DONE) {
		db_error(j, "reading runs");
		json_decref(arr);
		arr = NULL;
	}
	sqlite3_finalize(st);
	return arr;
}

static const char *const override_statuses[] = {"device", "cpu_fallback", "unsupported",
						"partial", NULL};

/* Python identifiers joined by dots, at least two. */
static int is_dotted_name(const char *s)
{
	int parts = 0;
	size_t n;

	for (;; s++) {
		n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (!n || (*s >= '0' && *s <= '9'))
			return 0;
		parts++;
		s += n;
		if (!*s)
			return parts >= 2;
		if (*s != '.')
			return 0;
	}
}

const char *mt_override_key_kind(const char *key)
{
	if (!key)
		return NULL;
	if (strncmp(key, "aten::", 6) == 0 && key[6])
		return "op";
	/* the scan resolves calls to torch's own names only */
	if (strncmp(key, "torch.", 6) == 0 && is_dotted_name(key))
		return "api";
	return NULL;
}

int mt_journal_override_add(mt_journal *j, const char *op, const char *status, const char *note,
			    int64_t *id_out)
{
	sqlite3_stmt *st = NULL;
	int error;

	if (!mt_override_key_kind(op))
		return mt_error_set(MT_EINVALID, "'%s' is neither an aten op (aten::add) nor a "
				    "dotted torch API (torch.cumsum, torch.Tensor.masked_scatter)",
				    op ? op : "");
	if ((error = check_choice("status", status, override_statuses)) < 0)
		return error;
	if (!note || !*note)
		return mt_error_set(MT_EINVALID, "an override needs a note: who found it, where, "
				    "on which version");
	if ((error = begin(j)) < 0)
		return error;
	error = prepare(j, &st, "INSERT INTO op_overrides (created_ms, op, status, note)"
			       " VALUES (?, ?, ?, ?)");
	if (error == 0) {
		sqlite3_bind_int64(st, 1, mt_now_ms());
		sqlite3_bind_text(st, 2, op, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, status, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, note, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "recording override");
	}
	sqlite3_finalize(st);
	if (error == 0 && id_out)
		*id_out = sqlite3_last_insert_rowid(j->db);
	return finish(j, error);
}

json_t *mt_journal_overrides_json(mt_journal *j)
{
	sqlite3_stmt *st = NULL;
	json_t *arr;
	int rc;

	/* newest first: a later finding about the same op wins */
	if (prepare(j, &st, "SELECT id, created_ms, op, status, note FROM op_overrides WHERE"
			    NOT_WITHDRAWN("override") " ORDER BY id DESC") < 0)
		return NULL;
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char when[32], source[64];
		mt_time_iso(when, sizeof(when), sqlite3_column_int64(st, 1));
		snprintf(source, sizeof(source), "override:journal#%lld",
			 (long long)sqlite3_column_int64(st, 0));
		const char *key = (const char *)sqlite3_column_text(st, 2);
		const char *kind = mt_override_key_kind(key);
		json_array_append_new(arr, json_pack("{sI, ss, so, ss, so, ss}", "id",
						     (json_int_t)sqlite3_column_int64(st, 0),
						     "created", when,
						     /* "op" for anything else an older mtrial kept */
						     kind && strcmp(kind, "api") == 0 ? "api" : "op",
						     mt_json_text(key), "status",
						     (const char *)sqlite3_column_text(st, 3),
						     "note", mt_json_text((const char *)sqlite3_column_text(st, 4)),
						     "source", source));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_error(j, "reading overrides");
		json_decref(arr);
		return NULL;
	}
	return arr;
}

int mt_journal_mark_set(mt_journal *j, const char *track, const char *path, const char *mark,
			const char *note)
{
	sqlite3_stmt *st = NULL;
	int error;

	if (!track || !path || !*path || !mark)
		return mt_error_set(MT_EINVALID, "a mark needs a track, a path and a mark");
	if ((error = check_choice("track", track, mt_tracks)) < 0 ||
	    (error = check_choice("mark", mark, mt_change_marks)) < 0)
		return error;
	if ((error = begin(j)) < 0)
		return error;
	/* a new mark of the same file replaces the old one, note and time too */
	error = prepare(j, &st, "INSERT OR REPLACE INTO change_marks (created_ms, track, path, mark,"
				" note) VALUES (?, ?, ?, ?, ?)");
	if (error == 0) {
		sqlite3_bind_int64(st, 1, mt_now_ms());
		sqlite3_bind_text(st, 2, track, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, path, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, mark, -1, SQLITE_STATIC);
		bind_text_or_null(st, 5, note);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "recording mark");
	}
	sqlite3_finalize(st);
	return finish(j, error);
}

int mt_journal_mark_clear(mt_journal *j, const char *track, const char *path)
{
	sqlite3_stmt *st = NULL;
	int error;

	if ((error = begin(j)) < 0)
		return error;
	error = prepare(j, &st, "DELETE FROM change_marks WHERE track = ? AND path = ?");
	if (error == 0) {
		sqlite3_bind_text(st, 1, track, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			error = db_error(j, "clearing mark");
		else if (sqlite3_changes(j->db) == 0)
			error = mt_error_set(MT_ENOTFOUND, "%s is not marked in the %s track", path,
					     track);
	}
	sqlite3_finalize(st);
	return finish(j, error);
}

json_t *mt_journal_marks_json(mt_journal *j)
{
	sqlite3_stmt *st = NULL;
	json_t *arr;
	int rc;

	if (prepare(j, &st, "SELECT created_ms, track, path, mark, note FROM change_marks"
			    " ORDER BY track, path") < 0)
		return NULL;
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char when[32];
		mt_time_iso(when, sizeof(when), sqlite3_column_int64(st, 0));
		json_array_append_new(arr, json_pack("{ss, so, so, ss, so}", "created", when,
						     "track", mt_json_text((const char *)sqlite3_column_text(st, 1)),
						     "path", mt_json_text((const char *)sqlite3_column_text(st, 2)),
						     "mark", (const char *)sqlite3_column_text(st, 3),
						     "note", mt_json_text((const char *)sqlite3_column_text(st, 4))));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_error(j, "reading marks");
		json_decref(arr);
		return NULL;
	}
	return arr;
}
