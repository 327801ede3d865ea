/* The journal: notes, tags, effort timers, migrations and JSON views, on a
 * real SQLite file in a scratch directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "error.h"
#include "events.h"
#include "fixtures.h"
#include "journal.h"
#include "journal_view.h"
#include "jsonw.h"
#include "objects.h"
#include "util.h"

/* A check recorded as core/check_trial.c records one: what it compared,
 * from the test's result. */
static int check_add(mt_journal *j, const char *kind, json_t *r, int64_t *id)
{
	mt_journal_check rec = {kind, json_string_value(json_object_get(r, "reference")),
				json_string_value(json_object_get(r, "candidate")),
				json_is_true(json_object_get(r, "passed")),
				json_is_true(json_object_get(r, "rehearsal")), r};
	return mt_journal_check_add(j, &rec, id);
}

/* An inventory recorded under the source and file it names. */
static int inventory_add(mt_journal *j, json_t *inv, int64_t *id, int *unchanged)
{
	return mt_journal_inventory_add(j, json_string_value(json_object_get(inv, "source")),
					json_string_value(json_object_get(inv, "file")), inv, id,
					unchanged);
}

struct ctx {
	char *dir;
	char *path;
	mt_journal *j;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	c->dir = mt_fx_tmpdir("journal");
	c->path = mt_path_join(c->dir, "journal.db");
	assert_int_equal(mt_journal_open(&c->j, c->path, 1), 0);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	mt_journal_free(c->j);
	mt_fx_rmtree(c->dir);
	free(c->path);
	free(c->dir);
	free(c);
	return 0;
}

static void test_open_missing_without_create(void **state)
{
	struct ctx *c = *state;
	mt_journal *j = NULL;
	char *other = mt_path_join(c->dir, "nope.db");
	assert_int_equal(mt_journal_open(&j, other, 0), MT_ENOTFOUND);
	assert_null(j);
	assert_non_null(strstr(mt_error_last(), "nope.db"));
	assert_false(mt_path_exists(other));
	free(other);
}

static void test_schema_version_and_wal(void **state)
{
	struct ctx *c = *state;
	sqlite3 *db;
	sqlite3_stmt *st;

	assert_int_equal(mt_journal_schema_version(c->j), MT_JOURNAL_SCHEMA_VERSION);
	assert_int_equal(sqlite3_open(c->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void test_reopen_keeps_data_and_version(void **state)
{
	struct ctx *c = *state;
	json_t *notes;
	assert_int_equal(mt_journal_note_add(c->j, "first", NULL, NULL, 0, NULL), 0);
	mt_journal_free(c->j);
	assert_int_equal(mt_journal_open(&c->j, c->path, 0), 0);
	assert_int_equal(mt_journal_schema_version(c->j), MT_JOURNAL_SCHEMA_VERSION);
	notes = mt_journal_notes_json(c->j);
	assert_int_equal(json_array_size(notes), 1);
	json_decref(notes);
}

/* What the wizard reloads on: another handle's commit changes the data
 * version, its own writes and plain reads do not. */
static void test_data_version_moves_on_others_commits(void **state)
{
	struct ctx *c = *state;
	mt_journal *other = NULL;
	int64_t v0 = mt_journal_data_version(c->j), v1;

	assert_true(v0 >= 0);
	assert_int_equal(mt_journal_note_add(c->j, "mine", NULL, NULL, 0, NULL), 0);
	v1 = mt_journal_data_version(c->j);
	assert_int_equal(v1, v0);
	assert_int_equal(mt_journal_open(&other, c->path, 0), 0);
	json_decref(mt_journal_notes_json(other));
	assert_int_equal(mt_journal_data_version(c->j), v1);
	assert_int_equal(mt_journal_note_add(other, "theirs", NULL, NULL, 0, NULL), 0);
	assert_true(mt_journal_data_version(c->j) != v1);
	mt_journal_free(other);
}

static void test_newer_schema_is_refused(void **state)
{
	struct ctx *c = *state;
	sqlite3 *db;
	mt_journal *j = NULL;

	assert_int_equal(sqlite3_open(c->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE schema_version SET version = 99", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(mt_journal_open(&j, c->path, 0), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "newer"));
}

/* Turns the journal of c back into one made before the event log
 * (schema 12): no uid columns, no index tables, no events files. */
static void undo_events(struct ctx *c, sqlite3 *db)
{
	static const char *const tables[] = {"effort", "notes", "scans", "probes", "op_overrides",
					     "inventories", "checks", "runs", "change_marks",
					     "withdrawals"};
	char sql[160], *events = mt_path_join(c->dir, "events");

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(sql, sizeof(sql), "DROP INDEX %s_uid; ALTER TABLE %s DROP COLUMN uid",
			 tables[i], tables[i]);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	}
	assert_int_equal(sqlite3_exec(db, "DROP TABLE events; DROP TABLE event_files;"
				      " DROP TABLE refused_events; ALTER TABLE runs DROP COLUMN log_object;"
				      " DROP TABLE event_count;"
				      " ALTER TABLE runs DROP COLUMN design;"
				      " ALTER TABLE runs DROP COLUMN design_changes;"
				      " UPDATE schema_version SET version = 12",
				      NULL, NULL, NULL), SQLITE_OK);
	mt_fx_rmtree(events);
	free(events);
}

/* A version 9 journal's runs, made before rehearsals existed, are evidence. */
static void test_migrates_runs_to_rehearsals(void **state)
{
	struct ctx *c = *state;
	mt_journal_run run = {.system = "candidate", .origin = "run", .log = "/t/runs/1.log",
			      .status = "success", .started_ms = 1000};
	sqlite3 *db;
	json_t *runs;

	assert_int_equal(mt_journal_run_add(c->j, &run, NULL), 0);
	mt_journal_free(c->j);
	assert_int_equal(sqlite3_open(c->path, &db), SQLITE_OK);
	undo_events(c, db);
	assert_int_equal(sqlite3_exec(db, "ALTER TABLE runs DROP COLUMN rehearsal;"
				      " ALTER TABLE checks DROP COLUMN rehearsal; DROP TABLE withdrawals;"
				      " UPDATE schema_version SET version = 9",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(mt_journal_open(&c->j, c->path, 0), 0);
	assert_int_equal(mt_journal_schema_version(c->j), MT_JOURNAL_SCHEMA_VERSION);
	runs = mt_journal_runs_json(c->j, 0);
	assert_int_equal(json_array_size(runs), 1);
	assert_true(json_is_false(json_object_get(json_array_get(runs, 0), "rehearsal")));
	json_decref(runs);
	assert_int_equal(mt_journal_run_mark(c->j, 1, 1), 0);
	runs = mt_journal_runs_json(c->j, 1);
	assert_true(json_is_true(json_object_get(json_array_get(runs, 0), "rehearsal")));
	json_decref(runs);
}

/* A version 14 journal's runs, made before the two designs, read as matched;
 * a design change is recorded with its reason, and a bad one refused. */
static void test_migrates_runs_to_designs(void **state)
{
	struct ctx *c = *state;
	mt_journal_run run = {.system = "candidate", .origin = "run", .log = "/t/runs/1.log",
			      .status = "success", .started_ms = 1000};
	sqlite3 *db;
	json_t *runs, *r;

	assert_int_equal(mt_journal_run_add(c->j, &run, NULL), 0);
	mt_journal_free(c->j);
	assert_int_equal(sqlite3_open(c->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "ALTER TABLE runs DROP COLUMN design;"
				      " ALTER TABLE runs DROP COLUMN design_changes;"
				      /* and the authors' migration (15) before it */
				      " ALTER TABLE events DROP COLUMN author;"
				      " ALTER TABLE events DROP COLUMN email; ALTER TABLE events DROP COLUMN host;"
				      " ALTER TABLE event_files DROP COLUMN ino;"
				      " ALTER TABLE event_files DROP COLUMN mtime_ns;"
				      " ALTER TABLE event_files DROP COLUMN head; DROP TABLE event_count;"
				      " UPDATE schema_version SET version = 14",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(mt_journal_open(&c->j, c->path, 0), 0);
	assert_int_equal(mt_journal_schema_version(c->j), MT_JOURNAL_SCHEMA_VERSION);
	runs = mt_journal_runs_json(c->j, 0);
	r = json_array_get(runs, 0);
	assert_string_equal(json_string_value(json_object_get(r, "design")), "matched");
	assert_int_equal(json_array_size(json_object_get(r, "design_changes")), 0);
	json_decref(runs);
	assert_int_equal(mt_journal_run_design(c->j, 1, "fast", "x"), MT_EINVALID);
	assert_int_equal(mt_journal_run_design(c->j, 1, "best", ""), MT_EINVALID);
	assert_int_equal(mt_journal_run_design(c->j, 7, "best", "x"), MT_ENOTFOUND);
	assert_int_equal(mt_journal_run_design(c->j, 1, "best", "bf16 on the candidate"), 0);
	runs = mt_journal_runs_json(c->j, 1);
	r = json_array_get(runs, 0);
	assert_string_equal(json_string_value(json_object_get(r, "design")), "best");
	r = json_array_get(json_object_get(r, "design_changes"), 0);
	assert_string_equal(json_string_value(json_object_get(r, "from")), "matched");
	assert_string_equal(json_string_value(json_object_get(r, "to")), "best");
	assert_string_equal(json_string_value(json_object_get(r, "why")), "bf16 on the candidate");
	json_decref(runs);
}

/* A version 10 journal's checks, made before rehearsal checks existed, are
 * evidence. */
static void test_migrates_checks_to_rehearsals(void **state)
{
	struct ctx *c = *state;
	json_t *r = json_pack("{ss, ss, sb}", "reference", "a.csv", "candidate", "b.csv", "passed", 1);
	sqlite3 *db;
	json_t *list;

	assert_int_equal(check_add(c->j, "curves", r, NULL), 0);
	json_decref(r);
	mt_journal_free(c->j);
	assert_int_equal(sqlite3_open(c->path, &db), SQLITE_OK);
	undo_events(c, db);
	assert_int_equal(sqlite3_exec(db, "ALTER TABLE checks DROP COLUMN rehearsal;"
				      " DROP TABLE withdrawals; UPDATE schema_version SET version = 10",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(mt_journal_open(&c->j, c->path, 0), 0);
	assert_int_equal(mt_journal_schema_version(c->j), MT_JOURNAL_SCHEMA_VERSION);
	list = mt_journal_checks_json(c->j, NULL, 0);
	assert_int_equal(json_array_size(list), 1);
	assert_true(json_is_false(json_object_get(json_array_get(list, 0), "rehearsal")));
	json_decref(list);
	assert_int_equal(mt_journal_check_mark(c->j, 1, 1), 0);
	list = mt_journal_checks_json(c->j, NULL, 0);
	assert_true(json_is_true(json_object_get(json_array_get(list, 0), "rehearsal")));
	json_decref(list);
}

static const char *author_of_note(json_t *notes, size_t i, const char *key)
{
	return json_string_value(json_object_get(json_object_get(json_array_get(notes, i),
								 "author"), key));
}

/* An index from before the events had authors is made again once opened:
 * its notes then say who wrote them (the events files do). Undoes the
 * authors' migration alone: a migration after it is to be undone too. */
static void test_migrated_index_gets_its_authors(void **state)
{
	struct ctx *c = *state;
	sqlite3 *db;
	json_t *notes;
	char sql[400];

	setenv("GIT_AUTHOR_NAME", "Ada Migrated", 1);
	setenv("GIT_AUTHOR_EMAIL", "ada@example.com", 1);
	assert_int_equal(mt_journal_note_add(c->j, "first", NULL, NULL, 0, NULL), 0);
	assert_int_equal(mt_journal_note_add(c->j, "second", NULL, NULL, 0, NULL), 0);
	notes = mt_journal_notes_json(c->j);
	assert_string_equal(author_of_note(notes, 0, "name"), "Ada Migrated");
	assert_string_equal(author_of_note(notes, 1, "email"), "ada@example.com");
	assert_non_null(author_of_note(notes, 0, "host"));
	json_decref(notes);
	mt_journal_free(c->j);
	c->j = NULL;
	assert_int_equal(sqlite3_open(c->path, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql), "ALTER TABLE events DROP COLUMN author;"
		 " ALTER TABLE events DROP COLUMN email; ALTER TABLE events DROP COLUMN host;"
		 " ALTER TABLE event_files DROP COLUMN ino; ALTER TABLE event_files DROP COLUMN"
		 " mtime_ns; ALTER TABLE event_files DROP COLUMN head; DROP TABLE event_count;"
		 " ALTER TABLE runs DROP COLUMN design; ALTER TABLE runs DROP COLUMN design_changes;"
		 " UPDATE schema_version SET version = %d", MT_JOURNAL_AUTHORS_VERSION - 1);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	unsetenv("GIT_AUTHOR_NAME");
	assert_int_equal(mt_journal_open(&c->j, c->path, 0), 0);
	assert_int_equal(mt_journal_schema_version(c->j), MT_JOURNAL_SCHEMA_VERSION);
	notes = mt_journal_notes_json(c->j);
	assert_int_equal(json_array_size(notes), 2);
	assert_string_equal(author_of_note(notes, 0, "name"), "Ada Migrated");
	assert_string_equal(author_of_note(notes, 1, "name"), "Ada Migrated");
	json_decref(notes);
	unsetenv("GIT_AUTHOR_EMAIL");
}

static void test_migrates_an_older_journal(void **state)
{
	struct ctx *c = *state;
	sqlite3 *db;
	json_t *notes, *scan = NULL, *result;
	int64_t id = 0;

	assert_int_equal(mt_journal_note_add(c->j, "kept", NULL, NULL, 0, NULL), 0);
	mt_journal_free(c->j);
	/* turn it back into a version 1 journal */
	assert_int_equal(sqlite3_open(c->path, &db), SQLITE_OK);
	undo_events(c, db);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE withdrawals; DROP TABLE change_marks; DROP TABLE runs; DROP TABLE checks; DROP TABLE inventories; DROP TABLE op_overrides;"
				      " DROP TABLE probes; DROP TABLE scans;"
				      " UPDATE schema_version SET version = 1",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(mt_journal_open(&c->j, c->path, 0), 0);
	assert_int_equal(mt_journal_schema_version(c->j), MT_JOURNAL_SCHEMA_VERSION);
	notes = mt_journal_notes_json(c->j);
	assert_int_equal(json_array_size(notes), 1);
	json_decref(notes);
	assert_int_equal(mt_journal_scan_latest(c->j, 0, &scan, NULL, NULL), MT_ENOTFOUND);
	{ /* the runs of migration 7: a failed attempt is kept */
		mt_journal_run run = {.system = "candidate", .track = "portability", .origin = "run",
				      .command = "python train.py", .log = "/t/runs/1.log",
				      .status = "running", .started_ms = 1000};
		int64_t rid = 0;
		json_t *runs;
		assert_int_equal(mt_journal_run_add(c->j, &run, &rid), 0);
		assert_int_equal(mt_journal_run_end(c->j, rid, "failed", 1, 3, 5000, "{\"steps\": 2}"), 0);
		assert_int_equal(mt_journal_run_end(c->j, rid + 1, "failed", 0, 0, 5000, NULL),
				 MT_ENOTFOUND);
		assert_int_equal(mt_journal_run_end(c->j, rid, "exploded", 0, 0, 5000, NULL),
				 MT_EINVALID);
		run.status = "maybe";
		assert_int_equal(mt_journal_run_add(c->j, &run, NULL), MT_EINVALID);
		runs = mt_journal_runs_json(c->j, 0);
		assert_int_equal(json_array_size(runs), 1);
		assert_string_equal(json_string_value(json_object_get(json_array_get(runs, 0), "status")),
				    "failed");
		assert_int_equal(json_integer_value(json_object_get(json_array_get(runs, 0), "exit_status")), 3);
		assert_int_equal(json_integer_value(json_object_get(json_object_get(
					 json_array_get(runs, 0), "metrics"), "steps")), 2);
		json_decref(runs);
	}
	{ /* the marks of migration 9: one a file, a new one replaces it */
		json_t *marks;
		assert_int_equal(mt_journal_mark_set(c->j, "portability", "train.py", "reusable", "x"), 0);
		assert_int_equal(mt_journal_mark_set(c->j, "portability", "train.py", "model-specific",
						     NULL), 0);
		assert_int_equal(mt_journal_mark_set(c->j, "portability", "a.py", "maybe", NULL),
				 MT_EINVALID);
		marks = mt_journal_marks_json(c->j);
		assert_int_equal(json_array_size(marks), 1);
		assert_string_equal(json_string_value(json_object_get(json_array_get(marks, 0), "mark")),
				    "model-specific");
		assert_true(json_is_null(json_object_get(json_array_get(marks, 0), "note")));
		json_decref(marks);
		assert_int_equal(mt_journal_mark_clear(c->j, "portability", "train.py"), 0);
		assert_int_equal(mt_journal_mark_clear(c->j, "portability", "train.py"), MT_ENOTFOUND);
	}
	{ /* the rehearsals of migration 10: listed, marked and marked back */
		mt_journal_run run = {.system = "baseline", .origin = "import", .log = "/t/cpu.log",
				      .status = "success", .started_ms = 2000, .rehearsal = 1};
		int64_t rid = 0;
		json_t *runs;
		assert_int_equal(mt_journal_run_add(c->j, &run, &rid), 0);
		runs = mt_journal_runs_json(c->j, rid);
		assert_true(json_is_true(json_object_get(json_array_get(runs, 0), "rehearsal")));
		json_decref(runs);
		assert_int_equal(mt_journal_run_mark(c->j, rid, 0), 0);
		runs = mt_journal_runs_json(c->j, 0);
		assert_int_equal(json_array_size(runs), 2);
		assert_true(json_is_false(json_object_get(json_array_get(runs, 0), "rehearsal")));
		assert_true(json_is_false(json_object_get(json_array_get(runs, 1), "rehearsal")));
		json_decref(runs);
		assert_int_equal(mt_journal_run_mark(c->j, rid + 1, 1), MT_ENOTFOUND);
		assert_non_null(strstr(mt_error_last(), "no run #"));
	}
	{ /* the checks of migration 6 */
		json_t *r = json_pack("{ss, ss, sb, si}", "reference", "a.safetensors", "candidate",
				      "b.safetensors", "passed", 0, "mismatched", 3), *list;
		int64_t cid = 0;
		assert_int_equal(check_add(c->j, "compare", r, &cid), 0);
		assert_true(cid > 0);
		json_object_del(r, "reference");
		assert_int_equal(check_add(c->j, "compare", r, NULL), MT_EINVALID);
		list = mt_journal_checks_json(c->j, "compare", 0);
		assert_int_equal(json_array_size(list), 1);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(list, 0), "mismatched")), 3);
		json_decref(list);
		list = mt_journal_checks_json(c->j, "curves", 0);
		assert_int_equal(json_array_size(list), 0);
		json_decref(list);
		json_decref(r);
	}
	{ /* the rehearsal checks of migration 11: recorded, listed, marked both ways */
		json_t *r = json_pack("{ss, ss, sb, sb}", "reference", "cpu-a.csv", "candidate",
				      "cpu-b.csv", "passed", 1, "rehearsal", 1), *list;
		int64_t cid = 0;
		assert_int_equal(check_add(c->j, "curves", r, &cid), 0);
		list = mt_journal_checks_json(c->j, "curves", 0);
		assert_int_equal(json_array_size(list), 1);
		assert_true(json_is_true(json_object_get(json_array_get(list, 0), "rehearsal")));
		json_decref(list);
		assert_int_equal(mt_journal_check_mark(c->j, cid, 0), 0);
		list = mt_journal_checks_json(c->j, NULL, 0);
		assert_int_equal(json_array_size(list), 2);
		assert_true(json_is_false(json_object_get(json_array_get(list, 0), "rehearsal")));
		assert_true(json_is_false(json_object_get(json_array_get(list, 1), "rehearsal")));
		json_decref(list);
		assert_int_equal(mt_journal_check_mark(c->j, cid, 1), 0);
		list = mt_journal_checks_json(c->j, "curves", 0);
		assert_true(json_is_true(json_object_get(json_array_get(list, 0), "rehearsal")));
		json_decref(list);
		assert_int_equal(mt_journal_check_mark(c->j, cid + 1, 1), MT_ENOTFOUND);
		assert_non_null(strstr(mt_error_last(), "no check #"));
		json_decref(r);
	}
	{ /* the inventories of migration 5: recorded once per content, latest by source */
		json_t *inv = json_pack("{ss, ss, s{s{sI}}}", "source", "trace", "file", "/t/ops.json",
					"ops", "aten::mm", "count", (json_int_t)3), *got = NULL;
		int64_t first = 0, second = 0;
		int unchanged = -1;
		assert_int_equal(mt_journal_inventory_latest(c->j, "trace", &got, NULL), MT_ENOTFOUND);
		assert_int_equal(inventory_add(c->j, inv, &first, &unchanged), 0);
		assert_int_equal(unchanged, 0);
		assert_int_equal(inventory_add(c->j, inv, &second, &unchanged), 0);
		assert_int_equal(unchanged, 1);
		assert_int_equal(second, first);
		assert_int_equal(mt_journal_inventory_latest(c->j, "torchscript", &got, NULL),
				 MT_ENOTFOUND);
		assert_int_equal(mt_journal_inventory_latest(c->j, "trace", &got, &second), 0);
		assert_int_equal(second, first);
		assert_int_equal(json_integer_value(json_object_get(
					 json_object_get(json_object_get(got, "ops"), "aten::mm"), "count")),
				 3);
		json_object_del(inv, "file");
		assert_int_equal(inventory_add(c->j, inv, NULL, NULL), MT_EINVALID);
		json_decref(got);
		json_decref(inv);
	}
	{
		mt_journal_scan rec = {.repo = "/r", .rev = "abc", .tree = "t1",
				       .summary = "{\"totals\":{}}", .result = "{\"calls\":[]}"};
		int unchanged = -1;
		int64_t again = 0;
		assert_int_equal(mt_journal_scan_add(c->j, &rec, &id, &unchanged), 0);
		assert_int_equal(unchanged, 0);
		assert_int_equal(mt_journal_scan_latest(c->j, 0, &scan, NULL, NULL), 0);
		/* the summary, with what the columns hold */
		result = json_pack("{s{}, ss, ss, ss, sb}", "totals", "repo", "/r", "rev", "abc",
				   "tree", "t1", "worktree", 0);
		assert_true(json_equal(scan, result));
		json_decref(scan);
		json_decref(result);
		assert_int_equal(mt_journal_scan_latest(c->j, 1, &scan, NULL, NULL), 0);
		assert_non_null(json_object_get(scan, "calls"));
		json_decref(scan);
		/* the same tree again is not stored twice */
		assert_int_equal(mt_journal_scan_add(c->j, &rec, &again, &unchanged), 0);
		assert_int_equal(unchanged, 1);
		assert_int_equal(again, id);
		/* a work-tree scan always is */
		rec.worktree = 1;
		assert_int_equal(mt_journal_scan_add(c->j, &rec, &again, &unchanged), 0);
		assert_int_equal(unchanged, 0);
		assert_true(again > id);
	}
}

static void test_note_with_tags_and_track(void **state)
{
	struct ctx *c = *state;
	const char *tags[] = {"compile", "dtype"};
	int64_t id = 0;
	json_t *notes, *n;

	assert_int_equal(mt_journal_note_add(c->j, "float64 became float32", "portability", tags,
					     2, &id), 0);
	assert_true(id > 0);
	notes = mt_journal_notes_json(c->j);
	n = json_array_get(notes, 0);
	assert_string_equal(json_string_value(json_object_get(n, "text")), "float64 became float32");
	assert_string_equal(json_string_value(json_object_get(n, "track")), "portability");
	assert_int_equal(json_array_size(json_object_get(n, "tags")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(n, "tags"), 1)),
			    "dtype");
	assert_true(json_is_null(json_object_get(n, "interval")));
	json_decref(notes);
}

static void test_note_rejects_bad_track_and_empty_text(void **state)
{
	struct ctx *c = *state;
	json_t *notes;
	assert_int_equal(mt_journal_note_add(c->j, "x", "fast", NULL, 0, NULL), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "portability, optimized"));
	assert_int_equal(mt_journal_note_add(c->j, "", NULL, NULL, 0, NULL), MT_EINVALID);
	notes = mt_journal_notes_json(c->j);
	assert_int_equal(json_array_size(notes), 0);
	json_decref(notes);
}

static void test_timer_start_stop_and_one_at_a_time(void **state)
{
	struct ctx *c = *state;
	mt_effort e = {0};

	assert_int_equal(mt_journal_effort_current(c->j, &e), MT_ENOTFOUND);
	assert_int_equal(mt_journal_effort_stop(c->j, NULL), MT_ESTATE);
	assert_int_equal(mt_journal_effort_start(c->j, "optimized", "debugging", "nan loss", &e),
			 0);
	assert_string_equal(e.category, "debugging");
	assert_string_equal(e.track, "optimized");
	assert_int_equal(e.stopped_ms, 0);
	mt_effort_dispose(&e);
	assert_int_equal(mt_journal_effort_start(c->j, NULL, NULL, NULL, NULL), MT_ESTATE);
	assert_non_null(strstr(mt_error_last(), "already running"));
	assert_int_equal(mt_journal_effort_stop(c->j, &e), 0);
	assert_true(e.stopped_ms >= e.started_ms);
	mt_effort_dispose(&e);
	assert_int_equal(mt_journal_effort_current(c->j, NULL), MT_ENOTFOUND);
}

static void test_timer_rejects_unknown_category(void **state)
{
	struct ctx *c = *state;
	assert_int_equal(mt_journal_effort_start(c->j, NULL, "coffee", NULL, NULL), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "waiting-for-compile"));
	assert_int_equal(mt_journal_effort_current(c->j, NULL), MT_ENOTFOUND);
}

static void test_note_during_timer_belongs_to_interval(void **state)
{
	struct ctx *c = *state;
	mt_effort e = {0};
	json_t *notes;

	assert_int_equal(mt_journal_effort_start(c->j, "portability", "setup", NULL, &e), 0);
	assert_int_equal(mt_journal_note_add(c->j, "one", NULL, NULL, 0, NULL), 0);
	assert_int_equal(mt_journal_note_add(c->j, "two", "optimized", NULL, 0, NULL), 0);
	assert_int_equal(mt_journal_effort_stop(c->j, NULL), 0);
	assert_int_equal(mt_journal_note_add(c->j, "after", NULL, NULL, 0, NULL), 0);
	notes = mt_journal_notes_json(c->j);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(notes, 0), "interval")),
			 e.id);
	/* the timer's track is the default; an explicit one wins */
	assert_string_equal(json_string_value(json_object_get(json_array_get(notes, 0), "track")),
			    "portability");
	assert_string_equal(json_string_value(json_object_get(json_array_get(notes, 1), "track")),
			    "optimized");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(notes, 1), "interval")),
			 e.id);
	assert_true(json_is_null(json_object_get(json_array_get(notes, 2), "interval")));
	json_decref(notes);
	mt_effort_dispose(&e);
}

static void test_summary_by_track_and_category(void **state)
{
	struct ctx *c = *state;
	sqlite3 *db;
	json_t *s, *port;

	/* Known intervals written directly, so durations are exact. */
	assert_int_equal(sqlite3_open(c->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
		"INSERT INTO effort (track, category, started_ms, stopped_ms) VALUES"
		" ('portability', 'setup', 1000, 61000),"
		" ('portability', 'debugging', 100000, 130000),"
		" ('optimized', 'optimization', 0, 3600000),"
		" (NULL, 'other', 0, 5000);"
		"INSERT INTO effort (track, category, started_ms) VALUES ('portability', 'setup', 200000)",
		NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	s = mt_journal_effort_summary_json(c->j, 260000);
	port = json_object_get(json_object_get(s, "by_track"), "portability");
	assert_int_equal(json_integer_value(json_object_get(port, "total_ms")),
			 60000 + 30000 + 60000);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(port, "by_category"),
							    "setup")), 120000);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_object_get(s, "by_track"), "unassigned"),
				 "total_ms")), 5000);
	assert_int_equal(json_integer_value(json_object_get(s, "total_ms")),
			 150000 + 3600000 + 5000);
	json_decref(s);
}

static void test_add_interval_after_the_fact(void **state)
{
	struct ctx *c = *state;
	mt_effort e = {0};
	int64_t now = mt_now_ms();

	assert_int_equal(mt_journal_effort_start(c->j, NULL, "setup", NULL, NULL), 0);
	/* a running timer does not stop a past interval from being logged */
	assert_int_equal(mt_journal_effort_add(c->j, "portability", "debugging", "nan",
					       now - 600000, now - 60000, &e), 0);
	assert_int_equal(e.stopped_ms - e.started_ms, 540000);
	assert_string_equal(e.text, "nan");
	mt_effort_dispose(&e);
	assert_int_equal(mt_journal_effort_current(c->j, &e), 0);
	assert_string_equal(e.category, "setup");
	mt_effort_dispose(&e);
	assert_int_equal(mt_journal_effort_add(c->j, NULL, NULL, NULL, now, now, NULL),
			 MT_EINVALID);
	assert_int_equal(mt_journal_effort_add(c->j, NULL, NULL, NULL, now, now + 3600000, NULL),
			 MT_EINVALID);
	assert_int_equal(mt_journal_effort_add(c->j, "fast", NULL, NULL, 0, 1, NULL),
			 MT_EINVALID);
}

/* A withdrawn record stays in the journal, with who and why, and leaves
 * every listing that feeds a figure; it cannot be withdrawn twice, and the
 * running timer is stopped first. */
/* A probe against a table that says nothing of its version, date or
 * source (a team's own YAML, a table from an older mtrial) is recorded all
 * the same, with those fields empty: the columns take no NULL. */
static void test_probe_of_a_bare_table(void **state)
{
	struct ctx *c = *state;
	json_t *r = json_pack("{s{ss}, s[]}", "table", "name", "team", "ops"), *back = NULL;
	mt_journal_probe p = {"team", "1", "2026-01-01", "file:t", r, 0};
	int64_t id = 0, got = 0;

	assert_int_equal(mt_journal_probe_add(c->j, &p, &id), 0);
	assert_true(id > 0);
	assert_int_equal(mt_journal_probe_latest(c->j, &back, &got, NULL), 0);
	assert_int_equal(got, id);
	assert_string_equal(json_string_value(json_object_get(json_object_get(back, "table"), "name")),
			    "team");
	json_decref(back);
	json_decref(r);
}

/* A finished run's log stored once and compared with the record's: the
 * same bytes under another name are refused naming the run and how to
 * move or withdraw it, until it is withdrawn; a trial made from a bundle
 * refuses the run as read-only before storing anything. */
static void test_run_add_known_log(void **state)
{
	struct ctx *c = *state;
	char *a = mt_path_join(c->dir, "a.log"), *b = mt_path_join(c->dir, "b.log");
	char *n = mt_path_join(c->dir, "new.log"), *marker = mt_path_join(c->dir, MT_EVENTS_FROM_BUNDLE);
	char ref[MT_OBJECT_REF_LEN + 1], *obj;
	const char log[] = "mtrial:step=1 loss=2.0\n", other[] = "mtrial:step=1 loss=3.0\n";
	mt_journal_run run = {.system = "candidate", .origin = "import", .log = a,
			      .status = "success", .started_ms = 1000};
	json_t *runs;
	int64_t id = 0;

	assert_int_equal(mt_file_write_atomic(a, log, strlen(log), 0), 0);
	assert_int_equal(mt_file_write_atomic(b, log, strlen(log), 0), 0);
	assert_int_equal(mt_journal_run_add(c->j, &run, &id), 0);
	run.log = b;
	assert_int_equal(mt_journal_run_add(c->j, &run, NULL), MT_EEXISTS);
	assert_non_null(strstr(mt_error_last(), "b.log: this log is run #1's (the same 23 bytes"));
	assert_non_null(strstr(mt_error_last(), "mtrial runs design 1 matched|best"));
	assert_non_null(strstr(mt_error_last(), "mtrial rm run 1 --why TEXT first"));
	runs = mt_journal_runs_json(c->j, 0);
	assert_int_equal(json_array_size(runs), 1);
	json_decref(runs);
	assert_int_equal(mt_journal_withdraw(c->j, "run", id, "ada", "imported anew", NULL), 0);
	assert_int_equal(mt_journal_run_add(c->j, &run, NULL), 0);

	assert_int_equal(mt_file_write_atomic(marker, "b.tar.gz\n", 9, 0), 0);
	assert_int_equal(mt_file_write_atomic(n, other, strlen(other), 0), 0);
	run.log = n;
	assert_int_equal(mt_journal_run_add(c->j, &run, NULL), MT_ESTATE);
	assert_non_null(strstr(mt_error_last(), "this trial was made from bundle "));
	assert_non_null(strstr(mt_error_last(), "read-only"));
	mt_object_ref_for(other, strlen(other), ref);
	obj = mt_object_path(c->dir, ref);
	assert_false(mt_path_exists(obj));
	free(obj), free(a), free(b), free(n), free(marker);
}

static void test_withdraw(void **state)
{
	struct ctx *c = *state;
	mt_journal_run run = {.system = "candidate", .origin = "run", .log = "/t/runs/1.log",
			      .status = "success", .started_ms = 1000, .label = "wrong config"};
	json_t *r = json_pack("{ss, ss, sb}", "reference", "a.pt", "candidate", "b.pt", "passed", 1);
	json_t *list, *w;
	int64_t run1 = 0, run2 = 0, check = 0, ov = 0, note = 0;
	mt_effort e = {0};

	assert_int_equal(mt_journal_run_add(c->j, &run, &run1), 0);
	assert_int_equal(mt_journal_run_add(c->j, &run, &run2), 0);
	assert_int_equal(check_add(c->j, "compare", r, &check), 0);
	json_decref(r);
	assert_int_equal(mt_journal_override_add(c->j, "aten::foo", "device", "typo", &ov), 0);
	assert_int_equal(mt_journal_note_add(c->j, "oops", NULL, NULL, 0, &note), 0);
	assert_int_equal(mt_journal_effort_start(c->j, NULL, NULL, NULL, &e), 0);

	assert_int_equal(mt_journal_withdraw(c->j, "run", run1, "ada", "wrong config", NULL), 0);
	assert_int_equal(mt_journal_withdraw(c->j, "run", run1, "bob", "again", NULL), MT_EEXISTS);
	assert_non_null(strstr(mt_error_last(), "already withdrawn by ada"));
	assert_int_equal(mt_journal_withdraw(c->j, "run", 99, "ada", "x", NULL), MT_ENOTFOUND);
	assert_int_equal(mt_journal_withdraw(c->j, "run", run2, "ada", "", NULL), MT_EINVALID);
	assert_int_equal(mt_journal_withdraw(c->j, "scan", 1, "ada", "x", NULL), MT_EINVALID);
	assert_int_equal(mt_journal_withdraw(c->j, "effort", e.id, "ada", "x", NULL), MT_ESTATE);
	assert_int_equal(mt_journal_withdraw(c->j, "check", check, "ada", "stand-ins", NULL), 0);
	assert_int_equal(mt_journal_withdraw(c->j, "override", ov, "ada", "typo", NULL), 0);
	assert_int_equal(mt_journal_withdraw(c->j, "note", note, "ada", "dup", NULL), 0);
	assert_int_equal(mt_journal_effort_stop(c->j, NULL), 0);
	assert_int_equal(mt_journal_withdraw(c->j, "effort", e.id, "ada", "forgot", NULL), 0);
	mt_effort_dispose(&e);

	list = mt_journal_runs_json(c->j, 0);
	assert_int_equal(json_array_size(list), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(list, 0), "id")), run2);
	json_decref(list);
	list = mt_journal_runs_json(c->j, run1); /* asked for by id: shown, marked */
	w = json_object_get(json_array_get(list, 0), "withdrawn");
	assert_string_equal(json_string_value(json_object_get(w, "why")), "wrong config");
	json_decref(list);
	list = mt_journal_checks_json(c->j, NULL, 0);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	list = mt_journal_overrides_json(c->j);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	list = mt_journal_notes_json(c->j);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	list = mt_journal_effort_summary_json(c->j, mt_now_ms());
	assert_int_equal(json_integer_value(json_object_get(list, "total_ms")), 0);
	json_decref(list);

	list = mt_journal_withdrawals_json(c->j);
	assert_int_equal(json_array_size(list), 5);
	w = json_array_get(list, 0);
	assert_string_equal(json_string_value(json_object_get(w, "kind")), "run");
	assert_string_equal(json_string_value(json_object_get(w, "who")), "ada");
	assert_string_equal(json_string_value(json_object_get(w, "what")),
			    "candidate run, success, wrong config");
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 2), "what")),
			    "aten::foo device: typo");
	json_decref(list);
}

/* Every real in mtrial's JSON is the shortest text that reads back as the
 * same double; strings that look like numbers are left alone. */
static void test_json_shortest_reals(void **state)
{
	static const double values[] = {262.16, 0.1, 1e-7, 2.0, 1.0 / 3, -0.0, 5e300, 98.32,
					0.30000000000000004, 123456789.125};
	json_t *v = json_pack("{sf, ss, sI, s[fff]}", "price", 262.16, "text",
			      "1.50000000000000001 and \"0.1\"", "n", (json_int_t)12, "list", 0.1,
			      2.0, 1e-7);
	char *text = mt_json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	(void)state;

	assert_string_equal(text, "{\"list\":[0.1,2.0,1e-07],\"n\":12,"
				  "\"price\":262.16,\"text\":\"1.50000000000000001 and "
				  "\\\"0.1\\\"\"}");
	free(text);
	json_decref(v);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		json_t *r = json_real(values[i]), *back;
		char *t = mt_json_dumps(r, JSON_ENCODE_ANY);
		json_error_t err;

		back = json_loads(t, JSON_DECODE_ANY, &err);
		if (!back || json_real_value(back) != values[i] || strlen(t) > 24)
			fail_msg("%.17g written as '%s'", values[i], t);
		json_decref(back);
		json_decref(r);
		free(t);
	}
}

/* Durations as people write them; the field is named in every refusal. */
static void test_duration_parse(void **state)
{
	static const struct {
		const char *text;
		int64_t ms;
	} good[] = {{"1.5h", 5400000}, {"0.5m", 30000}, {"90s", 90000}, {"1h30m", 5400000},
		    {"1h 30m", 5400000}, {"1h 02m", 3720000}, {"2h", 7200000}, {".25h", 900000},
		    {"0m", 0}, {" 45m ", 2700000}, {"1.0005s", 1001}};
	static const char *const bad[] = {"-1h", "1h-5m", "1.5", "90", "1x", "h", "", "1e3s",
					  "1,5h", "0x10m", "99999999999999999999h", "1h30", "+1h"};
	int64_t ms = -1;
	(void)state;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (mt_duration_parse(&ms, good[i].text, "--duration") < 0)
			fail_msg("'%s' refused: %s", good[i].text, mt_error_last());
		if (ms != good[i].ms)
			fail_msg("'%s' read as %lld ms, want %lld", good[i].text, (long long)ms,
				 (long long)good[i].ms);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (mt_duration_parse(&ms, bad[i], "--duration") != MT_EUSAGE)
			fail_msg("'%s' accepted as %lld ms", bad[i], (long long)ms);
		assert_non_null(strstr(mt_error_last(), "--duration"));
	}
	assert_int_equal(mt_duration_parse(&ms, "-1h", "--duration"), MT_EUSAGE);
	assert_non_null(strstr(mt_error_last(), "negative"));
	assert_int_equal(mt_duration_parse(&ms, "99999999999999999999h", "--duration"), MT_EUSAGE);
	assert_non_null(strstr(mt_error_last(), "too long"));
}

static void test_duration_format(void **state)
{
	char buf[32];
	(void)state;
	mt_duration_fmt(buf, sizeof(buf), 12999);
	assert_string_equal(buf, "12s");
	mt_duration_fmt(buf, sizeof(buf), 185000);
	assert_string_equal(buf, "3m 05s");
	mt_duration_fmt(buf, sizeof(buf), 3720000);
	assert_string_equal(buf, "1h 02m");
}

/* journal_view: the overrides, withdrawals and effort summary as the CLI
 * reads them; a key renamed on the maker's side is named, not read as none. */
static void test_overrides(void **state)
{
	struct ctx *c = *state;
	int64_t op = 0, api = 0;
	mt_override_view v;
	json_t *all;

	assert_int_equal(mt_journal_override_add(c->j, "aten::cumsum", "device", "on 2.21", &op), 0);
	assert_int_equal(mt_journal_override_add(c->j, "torch.nn.functional.gelu", "partial",
						 "tanh only", &api), 0);
	assert_non_null(all = mt_journal_overrides_json(c->j));
	assert_int_equal(json_array_size(all), 2);
	/* newest first */
	assert_int_equal(mt_override_view_read(&v, json_array_get(all, 0)), 0);
	assert_int_equal(v.id, api);
	assert_true(v.is_api);
	assert_string_equal(v.key, "torch.nn.functional.gelu");
	assert_string_equal(v.status, "partial");
	assert_string_equal(v.note, "tanh only");
	assert_non_null(v.created);
	assert_int_equal(mt_override_view_read(&v, json_array_get(all, 1)), 0);
	assert_int_equal(v.id, op);
	assert_false(v.is_api);
	assert_string_equal(v.key, "aten::cumsum");
	assert_non_null(strstr(v.source, "override:journal#"));
	/* a key renamed on the maker's side */
	json_object_set_new(json_array_get(all, 1), "state", json_string("device"));
	json_object_del(json_array_get(all, 1), "status");
	assert_int_equal(mt_override_view_read(&v, json_array_get(all, 1)), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "status"));
	mt_error_clear();
	json_decref(all);
}

static void test_withdrawals(void **state)
{
	struct ctx *c = *state;
	int64_t note = 0, wid = 0;
	mt_withdrawal_view v;
	json_t *all;

	assert_int_equal(mt_journal_note_add(c->j, "oops", NULL, NULL, 0, &note), 0);
	assert_int_equal(mt_journal_withdraw(c->j, "note", note, "ada", "a typo", &wid), 0);
	assert_non_null(all = mt_journal_withdrawals_json(c->j));
	assert_int_equal(mt_withdrawal_view_read(&v, json_array_get(all, 0)), 0);
	assert_int_equal(v.id, wid);
	assert_string_equal(v.kind, "note");
	assert_int_equal(v.item_id, note);
	assert_string_equal(v.who, "ada");
	assert_string_equal(v.why, "a typo");
	assert_non_null(v.when);
	assert_non_null(v.what);
	assert_non_null(strstr(v.what, "oops"));
	json_object_del(json_array_get(all, 0), "item_id");
	assert_int_equal(mt_withdrawal_view_read(&v, json_array_get(all, 0)), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "item_id"));
	mt_error_clear();
	json_decref(all);
}

static void test_effort_summary(void **state)
{
	struct ctx *c = *state;
	int64_t now = mt_now_ms();
	mt_effort_summary_view v;
	json_t *s;

	assert_int_equal(mt_journal_effort_add(c->j, "portability", "debugging", NULL,
					       now - 600000, now - 60000, NULL), 0);
	assert_int_equal(mt_journal_effort_add(c->j, "portability", "setup", NULL,
					       now - 60000, now, NULL), 0);
	assert_int_equal(mt_journal_effort_add(c->j, NULL, "setup", NULL, now - 1000, now, NULL),
			 0);
	assert_non_null(s = mt_journal_effort_summary_json(c->j, now));
	assert_int_equal(mt_effort_summary_view_read(&v, s), 0);
	assert_int_equal(v.total_ms, 600000 + 1000);
	assert_int_equal(v.ntracks, 2);
	for (size_t i = 0; i < v.ntracks; i++) {
		const mt_effort_track_view *t = &v.tracks[i];
		if (strcmp(t->track, "portability") == 0) {
			assert_int_equal(t->total_ms, 600000);
			assert_int_equal(t->ncategories, 2);
		} else {
			assert_string_equal(t->track, "unassigned");
			assert_int_equal(t->total_ms, 1000);
			assert_int_equal(t->ncategories, 1);
			assert_string_equal(t->categories[0].category, "setup");
			assert_int_equal(t->categories[0].ms, 1000);
		}
	}
	mt_effort_summary_view_dispose(&v);
	json_object_del(json_object_get(json_object_get(s, "by_track"), "unassigned"), "total_ms");
	assert_int_equal(mt_effort_summary_view_read(&v, s), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "total_ms"));
	mt_error_clear();
	mt_effort_summary_view_dispose(&v);
	json_decref(s);
}

static size_t notes_in(mt_journal *j)
{
	json_t *notes = mt_journal_notes_json(j);
	size_t n = json_array_size(notes);

	json_decref(notes);
	return n;
}

/* mtrial index --rebuild makes the index aside and puts it in journal.db's
 * place: a handle open on the old file (the wizard in another terminal)
 * sees that it changed, reads the new one from then on and takes the
 * events since; what either writes reaches the other; no file of the
 * build is left; a rebuild loses nothing. */
static void test_rebuild_aside_followed(void **state)
{
	struct ctx *c = *state;
	mt_journal *b = NULL;
	char *tmp;
	int64_t v;
	struct stat before, after;

	assert_int_equal(mt_journal_note_add(c->j, "one", NULL, NULL, 0, NULL), 0);
	assert_int_equal(mt_journal_open(&b, c->path, 0), 0);
	assert_int_equal(notes_in(b), 1);
	v = mt_journal_data_version(c->j);
	assert_int_equal(stat(c->path, &before), 0);
	assert_int_equal(mt_journal_rebuild(b), 0);
	assert_int_equal(stat(c->path, &after), 0);
	assert_true(before.st_ino != after.st_ino); /* another file */
	assert_int_equal(notes_in(b), 1);
	tmp = mt_path_join(c->dir, "journal.db-rebuild-");
	assert_false(mt_path_exists(tmp)); /* not the pid's; none by this name either */
	free(tmp);
	assert_int_equal(mt_journal_note_add(b, "two", NULL, NULL, 0, NULL), 0);
	/* the first handle follows: another version, both notes */
	assert_true(mt_journal_data_version(c->j) != v);
	assert_int_equal(notes_in(c->j), 2);
	assert_int_equal(mt_journal_note_add(c->j, "three", NULL, NULL, 0, NULL), 0);
	assert_int_equal(mt_journal_data_version(b) >= 0, 1);
	assert_int_equal(notes_in(b), 3);
	mt_journal_free(b);
	/* and a journal opened afresh reads the three */
	assert_int_equal(mt_journal_open(&b, c->path, 0), 0);
	assert_int_equal(notes_in(b), 3);
	mt_journal_free(b);
}

/* What a reader worked out once is kept under its key, across handles,
 * replaced by a newer value, and gone with the index when it is made
 * again (it is derived, never an event). */
static void test_memo(void **state)
{
	struct ctx *c = *state;
	mt_journal *b = NULL;
	char *v = NULL;

	assert_int_equal(mt_journal_memo_get(c->j, "k/1:abc", &v), 0);
	assert_null(v);
	mt_journal_memo_put(c->j, "k/1:abc", "{\"a\":1}");
	mt_journal_memo_put(c->j, "k/1:abc", "{\"a\":2}");
	assert_int_equal(mt_journal_open(&b, c->path, 0), 0);
	assert_int_equal(mt_journal_memo_get(b, "k/1:abc", &v), 1);
	assert_string_equal(v, "{\"a\":2}");
	free(v);
	assert_int_equal(mt_journal_note_add(b, "a note", NULL, NULL, 0, NULL), 0);
	assert_int_equal(mt_journal_rebuild(b), 0);
	assert_int_equal(mt_journal_memo_get(b, "k/1:abc", &v), 0);
	assert_int_equal(notes_in(b), 1);
	mt_journal_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_missing_without_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overrides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_add_known_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_withdrawals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_effort_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schema_version_and_wal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen_keeps_data_and_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_data_version_moves_on_others_commits, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_newer_schema_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_an_older_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrated_index_gets_its_authors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_migrates_runs_to_rehearsals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_runs_to_designs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_checks_to_rehearsals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_note_with_tags_and_track, setup, teardown),
		cmocka_unit_test_setup_teardown(test_note_rejects_bad_track_and_empty_text, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_timer_start_stop_and_one_at_a_time, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_timer_rejects_unknown_category, setup, teardown),
		cmocka_unit_test_setup_teardown(test_note_during_timer_belongs_to_interval, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_summary_by_track_and_category, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_interval_after_the_fact, setup, teardown),
		cmocka_unit_test(test_duration_format),
		cmocka_unit_test(test_duration_parse),
		cmocka_unit_test(test_json_shortest_reals),
		cmocka_unit_test_setup_teardown(test_withdraw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_of_a_bare_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rebuild_aside_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memo, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
