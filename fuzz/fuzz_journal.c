/* libFuzzer harness for the journal's JSON columns and text columns as
 * another tool may have committed them (sqlite3 on journal.db, a newer or
 * broken mtrial): scans.summary and .result, probes.result,
 * inventories.result, checks.result, runs.metrics, and free text: notes,
 * tags, run labels, commands and log paths, overrides, marks, effort. Every reader must return its view or fail with a message,
 * never crash or leak; a note, run, override, mark or effort interval that
 * is in the database is never silently missing from its JSON view.
 *
 * The input is written into every such column of one row per table through
 * a second connection; the journal is made once in a private directory. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "error.h"
#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static mt_journal *journal;
static sqlite3 *db;

static const char *const inserts[] = {
	"INSERT INTO scans VALUES (1, 1, 'r', 'v', 't', 0, ?1, ?1, NULL)",
	"INSERT INTO probes VALUES (1, 1, 'n', 'v', 'r', 's', 1, ?1, NULL)",
	"INSERT INTO inventories VALUES (1, 1, 'trace', 'f', 'd', ?1, NULL)",
	"INSERT INTO checks (id, created_ms, kind, passed, reference, candidate, result)"
	" VALUES (1, 1, 'compare', 1, 'a', 'b', ?1)",
	"INSERT INTO runs (id, created_ms, system, track, label, origin, command, log, status,"
	" started_ms, ended_ms, metrics) VALUES (1, 1, 'baseline', ?1, ?1, 'import', ?1, ?1,"
	" 'success', 1, 2, ?1)",
	"INSERT INTO change_marks VALUES (1, 1, ?1, ?1, 'reusable', ?1, NULL)",
	"INSERT INTO effort VALUES (1, ?1, 'other', ?1, 1, 2, NULL)",
	"INSERT INTO notes VALUES (1, 1, ?1, ?1, NULL, NULL)",
	"INSERT INTO note_tags VALUES (1, ?1)",
	"INSERT INTO op_overrides VALUES (1, 1, ?1, 'device', ?1, NULL)",
};

static void setup(void)
{
	const char *tmp = getenv("TMPDIR"); /* /dev/shm: ten times the executions */
	char dir[256], path[300];

	snprintf(dir, sizeof(dir), "%s/fuzz_journal.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/journal.db", dir);
	if (mt_journal_open(&journal, path, 1) < 0 || sqlite3_open(path, &db) != SQLITE_OK)
		abort();
	sqlite3_exec(db, "PRAGMA synchronous=OFF", NULL, NULL, NULL);
}

static void fill(const uint8_t *data, size_t size)
{
	sqlite3_exec(db,
		     "BEGIN; DELETE FROM note_tags; DELETE FROM notes; DELETE FROM scans;"
		     "DELETE FROM probes; DELETE FROM inventories; DELETE FROM checks;"
		     "DELETE FROM runs; DELETE FROM op_overrides; DELETE FROM change_marks;"
		     "DELETE FROM effort",
		     NULL, NULL, NULL);
	for (size_t i = 0; i < sizeof(inserts) / sizeof(inserts[0]); i++) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, inserts[i], -1, &st, NULL) != SQLITE_OK)
			abort();
		sqlite3_bind_text(st, 1, (const char *)data, (int)size, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			abort();
		sqlite3_finalize(st);
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}

/* A reader's answer: a value, or a failure that says why. */
static void answer(int rc, json_t *v)
{
	if (rc < 0 && !mt_error_last()[0])
		abort();
	json_decref(v);
	mt_error_clear();
}

static void array(json_t *v, size_t want)
{
	if (!v) {
		answer(-1, NULL);
		return;
	}
	if (json_array_size(v) != want)
		abort(); /* a row lost from the view */
	json_decref(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *v = NULL;
	int rc;

	if (!journal)
		setup();
	if (size > 1 << 16)
		return 0;
	fill(data, size);
	for (int full = 0; full < 2; full++) {
		rc = mt_journal_scan_latest(journal, full, &v, NULL, NULL);
		answer(rc, rc == 0 ? v : NULL);
	}
	rc = mt_journal_probe_latest(journal, &v, NULL, NULL);
	answer(rc, rc == 0 ? v : NULL);
	rc = mt_journal_inventory_latest(journal, "trace", &v, NULL);
	answer(rc, rc == 0 ? v : NULL);
	v = mt_journal_checks_json(journal, NULL, 0);
	answer(v ? 0 : -1, v);
	array(mt_journal_runs_json(journal, 0), 1);
	array(mt_journal_notes_json(journal), 1);
	array(mt_journal_overrides_json(journal), 1);
	array(mt_journal_marks_json(journal), 1);
	array(mt_journal_effort_json(journal), 1);
	v = mt_journal_effort_summary_json(journal, 3);
	answer(v ? 0 : -1, v);
	return 0;
}
