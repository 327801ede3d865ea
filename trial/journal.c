#include "journal_int.h"
#include "error.h"
#include "jsonutil.h"
#include "objects.h"
#include "sha256.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

const char *const mt_tracks[] = {"portability", "optimized", NULL};
const char *const mt_change_marks[] = {"reusable", "model-specific", NULL};
const char *const mt_effort_categories[] = {
	"setup", "getting-a-correct-run", "debugging", "waiting-for-compile",
	"optimization", "other", NULL};

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
	/* 13: the record is the events files (.mtrial/events/, issue 19) and
	 *    this database their index: each row names the event that made it
	 *    (uid), each file how far it was read, each event its digest (a
	 *    replay tells a tampered duplicate), each refused line why */
	"ALTER TABLE effort ADD COLUMN uid TEXT;"
	"CREATE UNIQUE INDEX effort_uid ON effort(uid);"
	"ALTER TABLE notes ADD COLUMN uid TEXT;"
	"CREATE UNIQUE INDEX notes_uid ON notes(uid);"
	"ALTER TABLE scans ADD COLUMN uid TEXT;"
	"CREATE UNIQUE INDEX scans_uid ON scans(uid);"
	"ALTER TABLE probes ADD COLUMN uid TEXT;"
	"CREATE UNIQUE INDEX probes_uid ON probes(uid);"
	"ALTER TABLE op_overrides ADD COLUMN uid TEXT;"
	"CREATE UNIQUE INDEX op_overrides_uid ON op_overrides(uid);"
	"ALTER TABLE inventories ADD COLUMN uid TEXT;"
	"CREATE UNIQUE INDEX inventories_uid ON inventories(uid);"
	"ALTER TABLE checks ADD COLUMN uid TEXT;"
	"CREATE UNIQUE INDEX checks_uid ON checks(uid);"
	"ALTER TABLE runs ADD COLUMN uid TEXT;"
	"CREATE UNIQUE INDEX runs_uid ON runs(uid);"
	"ALTER TABLE change_marks ADD COLUMN uid TEXT;"
	"CREATE UNIQUE INDEX change_marks_uid ON change_marks(uid);"
	"ALTER TABLE withdrawals ADD COLUMN uid TEXT;"
	"CREATE UNIQUE INDEX withdrawals_uid ON withdrawals(uid);"
	"CREATE TABLE events ("
	"  uid TEXT PRIMARY KEY,"
	"  kind TEXT NOT NULL,"
	"  t INTEGER NOT NULL,"
	"  digest TEXT NOT NULL,"
	"  file TEXT NOT NULL,"
	"  line INTEGER NOT NULL) WITHOUT ROWID;"
	"CREATE TABLE event_files ("
	"  file TEXT PRIMARY KEY,"
	"  bytes INTEGER NOT NULL,"
	"  lines INTEGER NOT NULL,"
	"  tail INTEGER NOT NULL);"
	"CREATE TABLE refused_events ("
	"  file TEXT NOT NULL,"
	"  line INTEGER NOT NULL,"
	"  uid TEXT,"
	"  reason TEXT NOT NULL,"
	"  PRIMARY KEY (file, line));",
	/* 14: a run's log kept as an artefact (trial/objects.h) when the run
	 *    ends or is imported: "sha256:HEX", read when the file at `log`
	 *    (the path where it was written, on the machine that ran it) is
	 *    not there */
	"ALTER TABLE runs ADD COLUMN log_object TEXT;",
	/* 15 (MT_JOURNAL_AUTHORS_VERSION): who recorded each event and where
	 *    (its author's git name and email, its host); each events file's
	 *    identity when last read (inode, mtime, the digest of its first
	 *    line), so an unchanged file is skipped by one stat and a file made
	 *    anew is read again; the count of events, kept rather than counted,
	 *    and the last of them in the union's order (time, then id).
	 *    The index of an older version is made again from the events files
	 *    once opened (mt_journal_open): its events' authors are there */
	"ALTER TABLE events ADD COLUMN author TEXT;"
	"ALTER TABLE events ADD COLUMN email TEXT;"
	"ALTER TABLE events ADD COLUMN host TEXT;"
	"ALTER TABLE event_files ADD COLUMN ino INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE event_files ADD COLUMN mtime_ns INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE event_files ADD COLUMN head TEXT NOT NULL DEFAULT '';"
	"CREATE TABLE event_count (n INTEGER NOT NULL, last_t INTEGER NOT NULL,"
	"  last_uid TEXT NOT NULL);"
	"INSERT INTO event_count SELECT count(*), coalesce(max(t), 0), coalesce((SELECT uid"
	"  FROM events ORDER BY t DESC, uid DESC LIMIT 1), '') FROM events;",
	/* 16: the comparison a run belongs to (issue 20): "matched" (trial.yaml's
	 *    precision, the same recipe on both systems; every older run) or
	 *    "best" (precision.best, each platform's best recipe), and its
	 *    re-markings, a JSON array of {from, to, why, when, event} */
	"ALTER TABLE runs ADD COLUMN design TEXT NOT NULL DEFAULT 'matched';"
	"ALTER TABLE runs ADD COLUMN design_changes TEXT;",
	/* 17: what a reader worked out from a large record once and keeps
	 *    (issue 18: the report model's scan section, 28 KB, from a 2 MB
	 *    summary on diffusers), by a key naming the record it came from
	 *    and the code that made it: derived, never an event, dropped with
	 *    the index */
	"CREATE TABLE IF NOT EXISTS memo (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
};


#define N_MIGRATIONS (int)(sizeof(migrations) / sizeof(migrations[0]))
_Static_assert(N_MIGRATIONS == MT_JOURNAL_SCHEMA_VERSION, "one migration per schema version");
_Static_assert(MT_JOURNAL_AUTHORS_VERSION <= N_MIGRATIONS, "the authors' migration is one of them");

static int read_version(mt_journal *j, int *out)
{
	sqlite3_stmt *st = NULL;
	int rc = mt_jstmt_first(j, &st, "reading the schema version",
				"SELECT version FROM schema_version", "");

	*out = rc == 1 ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

static int migrate(mt_journal *j)
{
	int version = 0, error;

	if ((error = mt_jstmt_begin(j)) < 0)
		return error;
	error = mt_jstmt_exec_sql(j, "CREATE TABLE IF NOT EXISTS schema_version"
				     " (version INTEGER NOT NULL)");
	if (error == 0)
		error = read_version(j, &version);
	if (error == 0 && version > N_MIGRATIONS)
		error = mt_error_set(MT_EINVALID,
				     "%s: journal schema version %d is newer than this mtrial "
				     "understands (%d); upgrade mtrial",
				     j->path, version, N_MIGRATIONS);
	for (int v = version; error == 0 && v < N_MIGRATIONS; v++)
		error = mt_jstmt_exec_sql(j, migrations[v]);
	if (error == 0 && version < N_MIGRATIONS) {
		char sql[128];
		snprintf(sql, sizeof(sql), "DELETE FROM schema_version;"
			 "INSERT INTO schema_version VALUES (%d)", N_MIGRATIONS);
		error = mt_jstmt_exec_sql(j, sql);
	}
	return mt_jstmt_finish(j, error);
}

/* The schema version, read without a transaction: -1 when there is no
 * version table yet. */
static int version_now(mt_journal *j)
{
	sqlite3_stmt *st = NULL;
	int v = -1;

	if (sqlite3_prepare_v2(j->db, "SELECT version FROM schema_version", -1, &st, NULL) ==
		    SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The events directory of the trial holding journal `path` has events:
 * the journal is their index, made again when it is missing. */
static int has_events(mt_events *ev)
{
	char **names = NULL;
	int yes = mt_events_names(ev, &names) == 0 && names[0];

	mt_events_names_free(names);
	mt_error_clear();
	return yes;
}

/* The pragmas of a journal as it is used: concurrent readers and one
 * writer (WAL); temp_store: each event applied in a SAVEPOINT (a refused
 * one is rolled back alone), whose journal then stays in memory. */
#define OPEN_PRAGMAS                                                                       \
	"PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;"       \
	" PRAGMA temp_store=MEMORY"

/* How a journal is opened: one connection is never shared by two threads,
 * so SQLite's own mutexes are not needed. */
#define OPEN_FLAGS (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX)

/* The trial directory held shared (LOCK_SH) while a connection opens
 * journal.db and its -wal and -shm files, exclusive (LOCK_EX) while a new
 * index takes journal.db's place: an opener never pairs the new file with
 * the old one's WAL. -1 when it cannot be taken (a file system without
 * flock): the swap goes on, as before there was one. */
static int dir_lock(const mt_journal *j, int op)
{
	int fd = open(mt_events_trial_dir(j->events), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && flock(fd, op) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void dir_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* the lock goes with the descriptor */
}

/* A connection to journal.db as it is used, in *out (j's own untouched),
 * and the file it reads in j->dev and j->ino. */
static int open_db(mt_journal *j, sqlite3 **out)
{
	int lock = dir_lock(j, LOCK_SH), error = 0;
	struct stat st;
	sqlite3 *db = NULL;
	char *err = NULL;

	if (sqlite3_open_v2(j->path, &db, OPEN_FLAGS, NULL) != SQLITE_OK) {
		error = mt_error_set(MT_EIO, "%s: %s", j->path, db ? sqlite3_errmsg(db) : "cannot open");
	} else {
		sqlite3_busy_timeout(db, 30000);
		if (sqlite3_exec(db, OPEN_PRAGMAS, NULL, NULL, &err) != SQLITE_OK)
			error = mt_error_set(MT_EIO, "%s: %s", j->path, err ? err : sqlite3_errmsg(db));
	}
	sqlite3_free(err);
	if (error == 0 && stat(j->path, &st) == 0)
		j->dev = st.st_dev, j->ino = st.st_ino;
	dir_unlock(lock);
	if (error < 0) {
		sqlite3_close(db);
		db = NULL;
	}
	*out = db;
	return error;
}

/* The index made from nothing in a file of its own that no other process
 * opens: no WAL, no sync until it is whole, one transaction (SQLite's
 * default cache: a larger one made it slower, each of its pages a malloc);
 * then synced and put in place as `path`. Atomic: a crash leaves the old
 * index or none, never half of one. Its rollback journal is in memory: a
 * refused event's SAVEPOINT still undoes what it began. `replace`: over
 * the index there (mt_journal_build_aside); else linked, and a `path` made
 * meanwhile by another process is kept and this one dropped. j->db is
 * NULL before and after. */
static int build(mt_journal *j, const char *path, int replace)
{
	size_t size = strlen(path) + 32;
	char *tmp = malloc(size), *wal = NULL, *shm = NULL;
	int error, fd, lock;

	snprintf(tmp, size, "%s-rebuild-%ld", path, (long)getpid());
	(void)unlink(tmp); /* left by a process of this pid that crashed */
	if (sqlite3_open_v2(tmp, &j->db, OPEN_FLAGS, NULL) != SQLITE_OK) {
		error = mt_error_set(MT_EIO, "%s: %s", tmp,
				     j->db ? sqlite3_errmsg(j->db) : "cannot open");
		goto cleanup;
	}
	if ((error = mt_jstmt_exec_sql(j, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"
					  " PRAGMA locking_mode=EXCLUSIVE; PRAGMA foreign_keys=ON;"
					  " PRAGMA temp_store=MEMORY")) < 0 ||
	    (error = migrate(j)) < 0 || (error = mt_jstmt_begin(j)) < 0)
		goto cleanup;
	mt_jevent_fresh_begin(j);
	error = mt_jevent_catch_up_locked(j);
	mt_jevent_fresh_end(j);
	/* WAL now, as the journal is opened: nothing to convert once in place */
	if ((error = mt_jstmt_finish(j, error)) < 0 ||
	    (error = mt_jstmt_exec_sql(j, "PRAGMA journal_mode=WAL")) < 0)
		goto cleanup;
	mt_jstmt_cache_free(j);
	if (sqlite3_close(j->db) != SQLITE_OK) {
		error = mt_error_set(MT_EIO, "%s: %s", tmp, sqlite3_errmsg(j->db));
		goto cleanup;
	}
	j->db = NULL;
	if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) < 0 || fsync(fd) != 0) {
		error = mt_error_set(MT_EIO, "%s: cannot make the index: %s", path, strerror(errno));
	} else if (!replace) {
		if (link(tmp, path) != 0 && errno != EEXIST)
			error = mt_error_set(MT_EIO, "%s: cannot make the index: %s", path,
					     strerror(errno));
	} else {
		/* the old file's WAL and shared memory go first: a process
		 * that has them open keeps reading the old file, which it
		 * leaves when it sees journal.db is another file; one that
		 * opens now waits for the lock, then opens the new one alone */
		wal = malloc(size), shm = malloc(size);
		snprintf(wal, size, "%s-wal", path);
		snprintf(shm, size, "%s-shm", path);
		lock = dir_lock(j, LOCK_EX);
		(void)unlink(wal);
		(void)unlink(shm);
		if (rename(tmp, path) != 0)
			error = mt_error_set(MT_EIO, "%s: cannot put the index in place: %s", path,
					     strerror(errno));
		dir_unlock(lock);
	}
	if (fd >= 0)
		close(fd);
cleanup:
	mt_jstmt_cache_free(j);
	sqlite3_close(j->db);
	j->db = NULL;
	(void)unlink(tmp);
	free(tmp);
	free(wal);
	free(shm);
	return error;
}

int mt_journal_build_aside(mt_journal *j)
{
	int error, reopened;

	mt_jstmt_cache_free(j);
	sqlite3_close(j->db);
	j->db = NULL;
	error = build(j, j->path, 1);
	/* the new index, or the old one when it could not be made */
	reopened = open_db(j, &j->db);
	return error < 0 ? error : reopened;
}

int mt_journal_open(mt_journal **out, const char *path, int create)
{
	mt_journal *j;
	char *dir = mt_strdup(path), *slash = strrchr(dir, '/');
	int error, version;

	*out = NULL;
	j = calloc(1, sizeof(*j));
	if (!j) {
		free(dir);
		return mt_error_set(MT_EIO, "out of memory");
	}
	j->path = mt_strdup(path);
	if (slash)
		*slash = '\0';
	error = mt_events_open(&j->events, slash ? (dir[0] ? dir : "/") : ".");
	free(dir);
	if (error < 0)
		goto cleanup;
	if (!create && !mt_path_exists(path) && !has_events(j->events)) {
		error = mt_error_set(MT_ENOTFOUND, "%s: no journal", path);
		goto cleanup;
	}
	if (!mt_path_exists(path) && has_events(j->events) && (error = build(j, path, 0)) < 0)
		goto cleanup;
	if ((error = open_db(j, &j->db)) < 0)
		goto cleanup;
	/* a journal at this version needs no write transaction to be read:
	 * `notes` and the wizard never wait on a writer's lock to open it */
	version = version_now(j);
	if (version != N_MIGRATIONS && (error = migrate(j)) < 0)
		goto cleanup;
	if (version > 0 && version < 13 && (error = mt_jexport_all(j)) < 0)
		goto cleanup;
	/* an index from before the events had authors: made again from the
	 * events files, which hold them (and the rows of older versions,
	 * exported first, lose nothing) */
	if (version >= 13 && version < MT_JOURNAL_AUTHORS_VERSION &&
	    (error = mt_journal_rebuild(j)) < 0)
		goto cleanup;
	if ((error = mt_jevent_catch_up(j)) < 0)
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
	mt_jstmt_cache_free(j);
	sqlite3_close(j->db);
	mt_events_free(j->events);
	free(j->path);
	free(j);
}

int mt_journal_schema_version(mt_journal *j)
{
	int v = -1;
	read_version(j, &v);
	return v;
}

/* journal.db made again by another handle (index --rebuild, a sync that
 * reindexed: mt_journal_build_aside) is another file: this handle leaves
 * the old one for it, and takes the events since. 1 when it did. */
static int follow_rebuilt(mt_journal *j)
{
	struct stat st;
	sqlite3 *db = NULL;

	if (stat(j->path, &st) != 0 || (st.st_dev == j->dev && st.st_ino == j->ino))
		return 0;
	if (open_db(j, &db) < 0) {
		mt_error_clear(); /* the old file is still read; tried again next time */
		return 0;
	}
	mt_jstmt_cache_free(j);
	sqlite3_close(j->db);
	j->db = db;
	j->generation++;
	if (mt_jevent_catch_up(j) < 0)
		mt_error_clear(); /* what it could not read is said by what reads it */
	return 1;
}

int64_t mt_journal_data_version(mt_journal *j)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	(void)follow_rebuilt(j);
	if (sqlite3_prepare_v2(j->db, "PRAGMA data_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0) + ((int64_t)j->generation << 40);
	sqlite3_finalize(st);
	return v;
}

void mt_note_dispose(mt_note *n)
{
	free(n->track);
	free(n->text);
	for (size_t i = 0; i < n->ntags; i++)
		free(n->tags[i]);
	free(n->tags);
	free(n->author);
	free(n->email);
	free(n->host);
	memset(n, 0, sizeof(*n));
}

void mt_effort_dispose(mt_effort *e)
{
	free(e->track);
	free(e->category);
	free(e->text);
	free(e->author);
	free(e->email);
	free(e->host);
	memset(e, 0, sizeof(*e));
}

static void effort_from_row(mt_effort *e, sqlite3_stmt *st)
{
	e->id = sqlite3_column_int64(st, 0);
	e->track = mt_jstmt_col_text(st, 1);
	e->category = mt_jstmt_col_text(st, 2);
	e->text = mt_jstmt_col_text(st, 3);
	e->started_ms = sqlite3_column_int64(st, 4);
	e->stopped_ms = sqlite3_column_type(st, 5) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 5);
	mt_jauthor_of_row(st, 6, &e->author, &e->email, &e->host);
}

/* the columns effort_from_row reads, and the table with its authors */
#define EFFORT_COLS                                                                        \
	"id, track, category, text, started_ms, stopped_ms," MT_JAUTHOR_COLS " FROM effort"  \
	MT_JAUTHOR_JOIN("effort")

/* The running interval inside an open transaction; MT_ENOTFOUND when none. */
static int current_locked(mt_journal *j, mt_effort *out)
{
	sqlite3_stmt *st = NULL;
	int rc = mt_jstmt_first(j, &st, "reading effort", "SELECT " EFFORT_COLS
				" WHERE stopped_ms IS NULL", "");

	if (rc == 1 && out)
		effort_from_row(out, st);
	sqlite3_finalize(st);
	if (rc == 0)
		return mt_error_set(MT_ENOTFOUND, "no effort timer is running");
	return rc < 0 ? rc : 0;
}

int mt_journal_check_choice(const char *what, const char *value, const char *const *allowed)
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

/* The tags of a note as event data. */
static json_t *tags_json(const char *const *tags, size_t ntags)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < ntags; i++)
		json_array_append_new(arr, mt_json_text(tags[i]));
	return arr;
}

int mt_journal_note_add(mt_journal *j, const char *text, const char *track,
			const char *const *tags, size_t ntags, int64_t *id_out)
{
	mt_effort running = {0};
	char interval[MT_EVENT_ID_LEN + 1] = "";
	int error, have_timer;

	if ((error = mt_jevent_begin(j)) < 0)
		return error;
	error = current_locked(j, &running);
	have_timer = error == 0;
	if (error == MT_ENOTFOUND)
		error = 0;
	if (have_timer)
		error = mt_jevent_uid_of(j, "effort", "effort", running.id, interval);
	if (error == 0)
		error = mt_jevent_emit(j, "note.add", mt_now_ms(),
				       json_pack("{so, so, so, so}", "text", mt_json_text(text),
						 "track", mt_json_text(track ? track : running.track),
						 "tags", tags_json(tags, ntags), "interval",
						 mt_json_text(have_timer ? interval : NULL)),
				       id_out);
	mt_effort_dispose(&running);
	return mt_jstmt_finish(j, error);
}

static int load_tags(mt_journal *j, sqlite3_stmt *tag_st, mt_note *n)
{
	size_t cap = 0;
	int rc;

	int64_t *rowids = NULL;

	/* the tags in the order given (rowid), sorted here: an ORDER BY made
	 * SQLite build a sorter for every note (issue 18: 30% of a report) */
	sqlite3_bind_int64(tag_st, 1, n->id);
	while ((rc = sqlite3_step(tag_st)) == SQLITE_ROW) {
		size_t k = n->ntags;
		if (n->ntags == cap) {
			cap = cap ? cap * 2 : 4;
			n->tags = realloc(n->tags, cap * sizeof(*n->tags));
			rowids = realloc(rowids, cap * sizeof(*rowids));
			if (!n->tags || !rowids)
				abort();
		}
		for (; k > 0 && rowids[k - 1] > sqlite3_column_int64(tag_st, 1); k--) {
			rowids[k] = rowids[k - 1];
			n->tags[k] = n->tags[k - 1];
		}
		rowids[k] = sqlite3_column_int64(tag_st, 1);
		n->tags[k] = mt_jstmt_col_text(tag_st, 0);
		n->ntags++;
	}
	free(rowids);
	sqlite3_reset(tag_st);
	return rc == SQLITE_DONE ? 0 : mt_jstmt_error(j, "reading tags");
}

int mt_journal_notes_foreach(mt_journal *j, mt_note_cb cb, void *payload)
{
	sqlite3_stmt *st = NULL, *tag_st = NULL;
	int error, rc;

	if ((error = mt_jstmt_prepare(j, &st, "SELECT id, created_ms, track, text, interval_id,"
				      MT_JAUTHOR_COLS " FROM notes" MT_JAUTHOR_JOIN("notes")
				      " WHERE" NOT_WITHDRAWN("note") " ORDER BY id", "")) < 0)
		return error;
	if ((error = mt_jstmt_prepare(j, &tag_st, "SELECT tag, rowid FROM note_tags WHERE note_id = ?",
				      "")) < 0)
		goto cleanup;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		mt_note n = {0};
		n.id = sqlite3_column_int64(st, 0);
		n.created_ms = sqlite3_column_int64(st, 1);
		n.track = mt_jstmt_col_text(st, 2);
		n.text = mt_jstmt_col_text(st, 3);
		n.interval_id = sqlite3_column_int64(st, 4);
		mt_jauthor_of_row(st, 5, &n.author, &n.email, &n.host);
		error = load_tags(j, tag_st, &n);
		if (error == 0)
			error = cb(&n, payload);
		mt_note_dispose(&n);
		if (error != 0)
			goto cleanup;
	}
	if (rc != SQLITE_DONE)
		error = mt_jstmt_error(j, "reading notes");
cleanup:
	sqlite3_finalize(tag_st);
	sqlite3_finalize(st);
	return error;
}

/* An interval's fields as event data. */
static json_t *interval_json(const char *track, const char *category, const char *text)
{
	return json_pack("{so, ss, so}", "track", mt_json_text(track), "category",
			 category ? category : "other", "text", mt_json_text(text));
}

int mt_journal_effort_start(mt_journal *j, const char *track, const char *category,
			    const char *text, mt_effort *out)
{
	mt_effort running = {0};
	int64_t id = 0;
	int error;

	if ((error = mt_jevent_begin(j)) < 0)
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
		error = mt_jevent_emit(j, "effort.start", mt_now_ms(),
				       interval_json(track, category, text), &id);
	}
	mt_effort_dispose(&running);
	if (error == 0 && out)
		error = current_locked(j, out);
	return mt_jstmt_finish(j, error);
}

static int read_interval(mt_journal *j, int64_t id, mt_effort *out)
{
	sqlite3_stmt *st = NULL;
	int rc = mt_jstmt_first(j, &st, "reading effort",
				"SELECT " EFFORT_COLS " WHERE id = ?", "I", id);

	if (rc == 1)
		effort_from_row(out, st);
	else if (rc == 0)
		rc = mt_jstmt_error(j, "reading effort");
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

int mt_journal_effort_add(mt_journal *j, const char *track, const char *category,
			  const char *text, int64_t started_ms, int64_t stopped_ms,
			  mt_effort *out)
{
	json_t *data = interval_json(track, category, text);
	int64_t id = 0;
	int error;

	if (stopped_ms <= started_ms || stopped_ms > mt_now_ms() + 1000) {
		json_decref(data);
		return mt_error_set(MT_EINVALID, "an effort interval must have a positive "
				    "duration and end no later than now");
	}
	json_object_set_new(data, "started", json_integer(started_ms));
	json_object_set_new(data, "stopped", json_integer(stopped_ms));
	if ((error = mt_jevent_begin(j)) < 0) {
		json_decref(data);
		return error;
	}
	error = mt_jevent_emit(j, "effort.add", mt_now_ms(), data, &id);
	if (error == 0 && out)
		error = read_interval(j, id, out);
	return mt_jstmt_finish(j, error);
}

int mt_journal_effort_stop(mt_journal *j, mt_effort *out)
{
	mt_effort running = {0};
	char uid[MT_EVENT_ID_LEN + 1];
	int error;

	if ((error = mt_jevent_begin(j)) < 0)
		return error;
	error = current_locked(j, &running);
	if (error == MT_ENOTFOUND)
		error = mt_error_set(MT_ESTATE, "no effort timer is running");
	if (error == 0)
		error = mt_jevent_uid_of(j, "effort", "effort", running.id, uid);
	if (error == 0) {
		running.stopped_ms = mt_now_ms();
		if (running.stopped_ms < running.started_ms)
			running.stopped_ms = running.started_ms;
		error = mt_jevent_emit(j, "effort.stop", mt_now_ms(),
				       json_pack("{ss, sI}", "interval", uid, "stopped",
						 (json_int_t)running.stopped_ms), NULL);
	}
	if ((error = mt_jstmt_finish(j, error)) == 0 && out) {
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

	if ((error = mt_jstmt_prepare(j, &st, "SELECT " EFFORT_COLS " WHERE"
				      NOT_WITHDRAWN("effort") " ORDER BY id", "")) < 0)
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
		error = mt_jstmt_error(j, "reading effort");
	sqlite3_finalize(st);
	return error;
}

/* The latest scan's id when it has the same committed tree and summary as
 * the one being added (a rescan of an unchanged revision), else 0. The
 * summary is compared as the index stores it (`summary`). */
static int64_t same_as_latest(mt_journal *j, const mt_journal_scan *scan, const char *summary)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0;

	if (scan->worktree || !scan->tree[0])
		return 0;
	if (mt_jstmt_first(j, &st, "reading scans", "SELECT id FROM scans WHERE id ="
			   " (SELECT MAX(id) FROM scans) AND rev = ? AND tree = ? AND worktree = 0"
			   " AND summary = ?", "ttt", scan->rev, scan->tree, summary) == 1)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/* The artefact reference of `text` as the event and the index name it
 * ({"object", "bytes"}), written when `put` (else only named). */
static int text_ref(mt_journal *j, const char *text, int put, json_t **out)
{
	char ref[MT_OBJECT_REF_LEN + 1];
	size_t len = strlen(text);
	int error = 0;

	if (put)
		error = mt_object_put(mt_events_trial_dir(j->events), text, len, ref);
	else
		mt_object_ref_for(text, len, ref);
	*out = error < 0 ? NULL : mt_object_ref_json(ref, len);
	return error;
}

int mt_journal_scan_add(mt_journal *j, const mt_journal_scan *scan, int64_t *id_out,
			int *unchanged)
{
	json_t *ref = NULL, *summary_ref = NULL;
	char *stored = NULL, *made = NULL;
	const char *result = scan->result;
	int64_t same = 0;
	int error;

	if (unchanged)
		*unchanged = 0;
	if (!scan->summary || (!result && !scan->result_text))
		return mt_error_set(MT_EINVALID, "a scan to record needs its summary and result");
	/* the summary is named by its digest (2 MB on diffusers), which the
	 * index stores and compares as it is: the same summary, the same name;
	 * a rescan of the latest scan's tree stops here, before the result is
	 * even made (checked again under the lock: another writer may have
	 * recorded one meanwhile) */
	text_ref(j, scan->summary, 0, &summary_ref);
	stored = json_dumps(summary_ref, JSON_COMPACT);
	if ((same = same_as_latest(j, scan, stored)) != 0)
		goto done;
	/* the artefacts before the event that names them, outside the lock */
	if (!result && !(result = made = scan->result_text(scan->result_arg))) {
		error = mt_error_set(MT_ERROR, "%s: out of memory making the scan's result", j->path);
		goto cleanup;
	}
	json_decref(summary_ref);
	if ((error = text_ref(j, result, 1, &ref)) < 0 ||
	    (error = text_ref(j, scan->summary, 1, &summary_ref)) < 0)
		goto cleanup;
	if ((error = mt_jevent_begin(j)) < 0)
		goto cleanup;
	same = same_as_latest(j, scan, stored);
	if (!same)
		error = mt_jevent_emit(j, "scan.add", mt_now_ms(),
				       json_pack("{ss, ss, ss, sb, sO, sO}", "repo", scan->repo,
						 "rev", scan->rev, "tree", scan->tree, "worktree",
						 scan->worktree, "summary", summary_ref, "result", ref),
				       id_out);
	if ((error = mt_jstmt_finish(j, error)) < 0)
		goto cleanup;
done:
	if (unchanged)
		*unchanged = same != 0;
	if (same && id_out)
		*id_out = same;
	error = 0;
cleanup:
	free(made);
	free(stored);
	json_decref(ref);
	json_decref(summary_ref);
	return error;
}

/* The id and time of the row *st stands on (columns 0 and 1). */
static void row_id_time(sqlite3_stmt *st, int64_t *id_out, int64_t *created_ms)
{
	if (id_out)
		*id_out = sqlite3_column_int64(st, 0);
	if (created_ms)
		*created_ms = sqlite3_column_int64(st, 1);
}

int mt_journal_scan_latest(mt_journal *j, int full, json_t **out, int64_t *id_out,
			   int64_t *created_ms)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	rc = mt_jstmt_first(j, &st, "reading scans",
			    full ? "SELECT id, created_ms, result, repo, rev, tree,"
				   " worktree, uid FROM scans ORDER BY id DESC LIMIT 1"
				 : "SELECT id, created_ms, summary, repo, rev, tree,"
				   " worktree, uid FROM scans ORDER BY id DESC LIMIT 1", "");
	if (rc == 1) {
		row_id_time(st, id_out, created_ms);
		rc = mt_jobject_col_json(j, st, 2, (const char *)sqlite3_column_text(st, 7), "scan",
					 out);
		if (rc == 0 && !full) /* the summary leaves out what the columns hold */
			json_object_update_missing_new(
				*out, json_pack("{ss, ss, ss, sb}", "repo",
						(const char *)sqlite3_column_text(st, 3), "rev",
						(const char *)sqlite3_column_text(st, 4), "tree",
						(const char *)sqlite3_column_text(st, 5), "worktree",
						sqlite3_column_int(st, 6)));
	} else if (rc == 0) {
		rc = mt_error_set(MT_ENOTFOUND, "no scan recorded yet (run 'mtrial scan')");
	}
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

/* begin, the event id of `table`'s row `id` (none when 0) as data's `key`,
 * emit, finish: a record that names another. */
static int write_with_ref(mt_journal *j, const char *kind, json_t *data, const char *key,
			  const char *table, const char *thing, int64_t id, int64_t *id_out)
{
	char uid[MT_EVENT_ID_LEN + 1];
	int error = mt_jevent_begin(j);

	if (error < 0) {
		json_decref(data);
		return error;
	}
	if (id && (error = mt_jevent_uid_of(j, table, thing, id, uid)) == 0)
		json_object_set_new(data, key, json_string(uid));
	if (error == 0)
		error = mt_jevent_emit(j, kind, mt_now_ms(), data, id_out);
	else
		json_decref(data);
	return mt_jstmt_finish(j, error);
}

int mt_journal_probe_add(mt_journal *j, const mt_journal_probe *p, int64_t *id_out)
{
	json_t *ref = NULL;
	int error;

	if (!p->table_name || !p->result)
		return mt_error_set(MT_EINVALID, "a probe needs its table and its result");
	if ((error = mt_jobject_put_json(j, p->result, 0, &ref)) < 0)
		return error;
	return write_with_ref(j, "probe.add",
			      json_pack("{s{ss, so, so, so}, so, sn}", "table", "name",
					p->table_name, "version", mt_json_text(p->table_version),
					"retrieved", mt_json_text(p->table_retrieved), "source",
					mt_json_text(p->table_source), "result", ref, "scan"),
			      "scan", "scans", "scan", p->scan_id, id_out);
}

int mt_journal_probe_latest(mt_journal *j, json_t **out, int64_t *id_out, int64_t *created_ms)
{
	return mt_journal_probe_latest_of(j, NULL, out, id_out, created_ms);
}

int mt_journal_probe_latest_of(mt_journal *j, const char *table, json_t **out, int64_t *id_out,
			       int64_t *created_ms)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	rc = mt_jstmt_first(j, &st, "reading probes", "SELECT id, created_ms, result, uid FROM"
			    " probes WHERE ?1 IS NULL OR table_name = ?1"
			    " ORDER BY id DESC LIMIT 1", "T", table);
	if (rc == 1) {
		row_id_time(st, id_out, created_ms);
		rc = mt_jobject_col_json(j, st, 2, (const char *)sqlite3_column_text(st, 3), "probe",
					 out);
	} else if (rc == 0) {
		rc = mt_error_set(MT_ENOTFOUND, "no probe recorded yet%s%s (run 'mtrial probe')",
				  table ? " against table " : "", table ? table : "");
	}
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

int mt_journal_probe_latest_table(mt_journal *j, int64_t *id_out, char **table_out,
				  int64_t *bytes_out)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (table_out)
		*table_out = NULL;
	/* the result column holds the artefact's reference, {object, bytes};
	 * a record from before artefacts, the result itself */
	rc = mt_jstmt_first(j, &st, "reading probes",
			    "SELECT id, table_name, CASE WHEN json_valid(result) THEN"
			    " coalesce(json_extract(result, '$.bytes'), length(result))"
			    " ELSE length(result) END FROM probes ORDER BY id DESC LIMIT 1", "");
	if (rc == 1) {
		*id_out = sqlite3_column_int64(st, 0);
		if (bytes_out)
			*bytes_out = sqlite3_column_int64(st, 2);
		if (table_out && sqlite3_column_type(st, 1) != SQLITE_NULL)
			*table_out = mt_strdup((const char *)sqlite3_column_text(st, 1));
	} else if (rc == 0) {
		rc = mt_error_set(MT_ENOTFOUND, "no probe recorded yet (run 'mtrial probe')");
	}
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

int mt_journal_memo_get(mt_journal *j, const char *key, char **value)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*value = NULL;
	rc = mt_jstmt_first(j, &st, "reading the memo", "SELECT value FROM memo WHERE key = ?",
			    "t", key);
	if (rc == 1)
		*value = mt_strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc;
}

void mt_journal_memo_put(mt_journal *j, const char *key, const char *value)
{
	if (mt_jstmt_write(j, NULL, "keeping the memo",
			   "INSERT OR REPLACE INTO memo (key, value) VALUES (?, ?)", "tt", key,
			   value) < 0)
		mt_error_clear(); /* worked out again next time */
}

/* The latest scan's id and uid, from the index alone. */
int mt_journal_scan_latest_uid(mt_journal *j, int64_t *id_out, char **uid_out)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*uid_out = NULL;
	rc = mt_jstmt_first(j, &st, "reading scans",
			    "SELECT id, uid FROM scans ORDER BY id DESC LIMIT 1", "");
	if (rc == 1) {
		*id_out = sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			*uid_out = mt_strdup((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return rc;
}

/* The id of the latest inventory of `source` when its digest is `digest`
 * (the same inventory again), else 0; negative on error. */
static int64_t same_inventory(mt_journal *j, const char *source, const char *digest)
{
	sqlite3_stmt *st = NULL;
	int64_t id;
	int rc = mt_jstmt_first(j, &st, "reading inventories", "SELECT id, digest FROM inventories"
				" WHERE source = ? ORDER BY id DESC LIMIT 1", "t", source);

	id = rc < 0 ? rc : 0;
	if (rc == 1 && strcmp((const char *)sqlite3_column_text(st, 1), digest) == 0)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

int mt_journal_inventory_add(mt_journal *j, const char *source, const char *file, json_t *inv,
			     int64_t *id_out, int *unchanged)
{
	char digest[65], *text = inv ? mt_japply_inventory_text(inv, digest) : NULL;
	json_t *ref = NULL;
	int64_t same;
	int error;

	if (unchanged)
		*unchanged = 0;
	if (!text || !source || !file) {
		free(text);
		return mt_error_set(MT_EINVALID, "an inventory needs its source and file");
	}
	free(text);
	if ((error = mt_jobject_put_json(j, inv, 1, &ref)) < 0)
		return error;
	if ((error = mt_jevent_begin(j)) < 0) {
		json_decref(ref);
		return error;
	}
	same = same_inventory(j, source, digest);
	error = same < 0 ? (int)same : 0;
	if (same > 0) {
		if (id_out)
			*id_out = same;
		if (unchanged)
			*unchanged = 1;
	} else if (error == 0) {
		error = mt_jevent_emit(j, "inventory.add", mt_now_ms(),
				       json_pack("{ss, ss, sO}", "source", source, "file", file,
						 "inventory", ref),
				       id_out);
	}
	json_decref(ref);
	return mt_jstmt_finish(j, error);
}

int mt_journal_inventory_latest(mt_journal *j, const char *source, json_t **out, int64_t *id_out)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*out = NULL;
	rc = mt_jstmt_first(j, &st, "reading inventories", "SELECT id, result, uid FROM"
			    " inventories WHERE source = ? ORDER BY id DESC LIMIT 1", "t", source);
	if (rc == 1) {
		row_id_time(st, id_out, NULL);
		rc = mt_jobject_col_json(j, st, 1, (const char *)sqlite3_column_text(st, 2),
					 "inventory", out);
		if (rc == 0)
			json_object_set_new(*out, "inventory_id",
					    json_integer(sqlite3_column_int64(st, 0)));
	} else if (rc == 0) {
		rc = mt_error_set(MT_ENOTFOUND,
				  "no %s recorded yet (record one with 'mtrial ops show FILE')",
				  source);
	}
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

int mt_journal_mark_rehearsal(mt_journal *j, const char *table, const char *thing, int64_t id,
			      int rehearsal)
{
	char kind[32];

	snprintf(kind, sizeof(kind), "%s.mark", thing);
	return write_with_ref(j, kind, json_pack("{sb}", "rehearsal", rehearsal != 0), thing, table,
			      thing, id, NULL);
}

int mt_journal_check_add(mt_journal *j, const mt_journal_check *c, int64_t *id_out)
{
	if (!c->kind || !c->reference || !c->candidate || !c->result)
		return mt_error_set(MT_EINVALID, "a check result needs its kind, reference and "
				    "candidate");
	return mt_jevent_write(j, "check.add",
			       json_pack("{ss, ss, ss, sb, sb, sO}", "kind", c->kind, "reference",
					 c->reference, "candidate", c->candidate, "passed",
					 c->passed, "rehearsal", c->rehearsal, "result",
					 c->result),
			       id_out);
}

static json_t *check_row(mt_journal *j, sqlite3_stmt *st)
{
	json_error_t jerr;
	json_t *r = json_loads((const char *)sqlite3_column_text(st, 3), 0, &jerr);
	char when[32];

	(void)j;
	if (!r)
		return NULL; /* a row some other writer damaged: skipped, not fatal */
	mt_time_iso(when, sizeof(when), sqlite3_column_int64(st, 1));
	json_object_set_new(r, "id", json_integer(sqlite3_column_int64(st, 0)));
	json_object_set_new(r, "created", json_string(when));
	json_object_set_new(r, "kind", json_string((const char *)sqlite3_column_text(st, 2)));
	json_object_set_new(r, "rehearsal", json_boolean(sqlite3_column_int(st, 4) != 0));
	json_object_set_new(r, "author", mt_jauthor_json(st, 5));
	return r;
}

json_t *mt_journal_checks_json(mt_journal *j, const char *kind, int limit)
{
	return mt_jstmt_rows_json(j, check_row, "reading checks", "SELECT id, created_ms,"
				  " checks.kind, result, rehearsal," MT_JAUTHOR_COLS " FROM checks"
				  MT_JAUTHOR_JOIN("checks") " WHERE (?1 IS NULL OR checks.kind = ?1)"
				  " AND" NOT_WITHDRAWN("check") " ORDER BY id DESC LIMIT ?2", "ti",
				  kind, limit > 0 ? limit : -1);
}

int mt_journal_check_mark(mt_journal *j, int64_t id, int rehearsal)
{
	return mt_journal_mark_rehearsal(j, "checks", "check", id, rehearsal);
}

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
	return mt_jevent_write(j, "override.add", json_pack("{so, so, so}", "op", mt_json_text(op),
							    "status", mt_json_text(status), "note",
							    mt_json_text(note)),
			       id_out);
}

static json_t *override_row(mt_journal *j, sqlite3_stmt *st)
{
	char when[32], source[64];
	const char *key = (const char *)sqlite3_column_text(st, 2);
	const char *kind = mt_override_key_kind(key);

	(void)j;
	mt_time_iso(when, sizeof(when), sqlite3_column_int64(st, 1));
	snprintf(source, sizeof(source), "override:journal#%lld",
		 (long long)sqlite3_column_int64(st, 0));
	return json_pack("{sI, ss, so, ss, so, ss}", "id", (json_int_t)sqlite3_column_int64(st, 0),
			 /* "op" for anything else an older mtrial kept */
			 "created", when, kind && strcmp(kind, "api") == 0 ? "api" : "op",
			 mt_json_text(key), "status",
			 (const char *)sqlite3_column_text(st, 3), "note",
			 mt_json_text((const char *)sqlite3_column_text(st, 4)), "source", source);
}

json_t *mt_journal_overrides_json(mt_journal *j)
{
	/* newest first: a later finding about the same op wins */
	return mt_jstmt_rows_json(j, override_row, "reading overrides", "SELECT id, created_ms,"
				  " op, status, note FROM op_overrides WHERE"
				  NOT_WITHDRAWN("override") " ORDER BY id DESC", "");
}

int mt_journal_mark_set(mt_journal *j, const char *track, const char *path, const char *mark,
			const char *note)
{
	return mt_jevent_write(j, "mark.set", json_pack("{so, so, so, so}", "track",
							mt_json_text(track), "path",
							mt_json_text(path), "mark",
							mt_json_text(mark), "note",
							mt_json_text(note)), NULL);
}

int mt_journal_mark_clear(mt_journal *j, const char *track, const char *path)
{
	return mt_jevent_write(j, "mark.clear", json_pack("{so, so}", "track", mt_json_text(track),
							  "path", mt_json_text(path)), NULL);
}

static json_t *mark_row_json(mt_journal *j, sqlite3_stmt *st)
{
	char when[32];

	(void)j;
	mt_time_iso(when, sizeof(when), sqlite3_column_int64(st, 0));
	return json_pack("{ss, so, so, ss, so}", "created", when, "track",
			 mt_json_text((const char *)sqlite3_column_text(st, 1)), "path",
			 mt_json_text((const char *)sqlite3_column_text(st, 2)), "mark",
			 (const char *)sqlite3_column_text(st, 3), "note",
			 mt_json_text((const char *)sqlite3_column_text(st, 4)));
}

json_t *mt_journal_marks_json(mt_journal *j)
{
	return mt_jstmt_rows_json(j, mark_row_json, "reading marks", "SELECT created_ms, track, path,"
				  " mark, note FROM change_marks ORDER BY track, path", "");
}
