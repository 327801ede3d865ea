/* Artefacts by content (trial/objects.c) and the journal's payloads kept
 * in them: named by the hash of what they hold, gzip, never rewritten, read
 * back verified; a missing or damaged one named with its event while the
 * rest of the record loads; an event of version 1 with its payload inline
 * read as ever; the temporary files of a writer killed mid-write swept, a
 * live writer's never. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "events.h"
#include "fixtures.h"
#include "journal.h"
#include "objects.h"
#include "sha256.h"
#include "util.h"

static int setup(void **state)
{
	*state = mt_fx_tmpdir("objects");
	return 0;
}

#define teardown mt_fx_teardown_tmpdir

static void test_named_by_content_gzip_never_rewritten(void **state)
{
	const char *dir = *state, text[] = "{\"ops\": {\"aten::add\": 3}}\n";
	char ref[MT_OBJECT_REF_LEN + 1], again[MT_OBJECT_REF_LEN + 1], hex[65], *path, *back = NULL;
	char *packed = NULL;
	size_t len = 0, plen = 0;
	struct stat a, b;

	assert_int_equal(mt_object_put(dir, text, strlen(text), ref), 0);
	mt_sha256_hex(hex, text, strlen(text));
	assert_memory_equal(ref, "sha256:", 7);
	assert_string_equal(ref + 7, hex);
	path = mt_object_path(dir, ref);
	assert_non_null(strstr(path, "/objects/sha256/"));
	assert_memory_equal(strstr(path, "/sha256/") + 8, hex, 2);
	assert_string_equal(strrchr(path, '/') + 1, hex + 2);
	assert_int_equal(mt_file_read(&packed, &plen, path), 0);
	assert_true(plen > 10 && (unsigned char)packed[0] == 0x1f &&
		    (unsigned char)packed[1] == 0x8b); /* gzip */
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(mt_object_put(dir, text, strlen(text), again), 0);
	assert_int_equal(stat(path, &b), 0);
	assert_string_equal(ref, again);
	assert_int_equal(a.st_ino, b.st_ino); /* exists = done */
	assert_int_equal(mt_object_get(dir, ref, &back, &len), 0);
	assert_int_equal(len, strlen(text));
	assert_string_equal(back, text);
	free(back);
	free(packed);
	free(path);
}

static void test_missing_and_corrupt_are_named(void **state)
{
	const char *dir = *state;
	char ref[MT_OBJECT_REF_LEN + 1], other[MT_OBJECT_REF_LEN + 1], *path, *opath, *back = NULL;
	char *packed = NULL;
	size_t len = 0, plen = 0;

	assert_int_equal(mt_object_put(dir, "one", 3, ref), 0);
	assert_int_equal(mt_object_put(dir, "two", 3, other), 0);
	path = mt_object_path(dir, ref);
	opath = mt_object_path(dir, other);
	/* another object's bytes under this name: inflates, hashes wrong */
	assert_int_equal(mt_file_read(&packed, &plen, opath), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mt_file_write_atomic(path, packed, plen, 0), 0);
	assert_int_equal(mt_object_get(dir, ref, &back, &len), MT_EINVALID);
	assert_null(back);
	assert_non_null(strstr(mt_error_last(), ref));
	assert_non_null(strstr(mt_error_last(), "corrupt"));
	assert_non_null(strstr(mt_error_last(), other + 7)); /* what it hashes to */
	/* cut short: not a whole gzip stream */
	assert_int_equal(mt_file_write_atomic(path, packed, plen - 5, 0), 0);
	assert_int_equal(mt_object_get(dir, ref, &back, &len), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "not a whole gzip stream"));
	unlink(path);
	assert_int_equal(mt_object_get(dir, ref, &back, &len), MT_ENOTFOUND);
	assert_non_null(strstr(mt_error_last(), ref));
	assert_non_null(strstr(mt_error_last(), "missing"));
	assert_int_equal(mt_object_get(dir, "sha256:../../etc/passwd", &back, &len), MT_EINVALID);
	assert_null(mt_object_path(dir, "sha256:ABCD"));
	mt_error_clear();
	free(packed);
	free(path);
	free(opath);
}

static void test_reference_shape(void **state)
{
	char ref[MT_OBJECT_REF_LEN + 1];
	const char *got = NULL;
	uint64_t bytes = 0;
	json_t *r, *extra = json_pack("{ss, si, si}", "object", "x", "bytes", 1, "more", 2);

	assert_int_equal(mt_object_put(*state, "abc", 3, ref), 0);
	r = mt_object_ref_json(ref, 3);
	assert_int_equal(mt_object_ref_of(r, &got, &bytes), 1);
	assert_string_equal(got, ref);
	assert_int_equal(bytes, 3);
	/* a result that is not a reference is a payload kept inline */
	assert_int_equal(mt_object_ref_of(extra, &got, &bytes), 0);
	json_object_set_new(r, "bytes", json_integer(-1));
	assert_int_equal(mt_object_ref_of(r, &got, &bytes), 0);
	json_decref(r);
	json_decref(extra);
}

/* The name checks every reader of names asks (sync, doctor, bundle
 * verify) and the content check of an object's file. */
static void test_names_and_content_checked(void **state)
{
	const char *dir = *state;
	char ref[MT_OBJECT_REF_LEN + 1], other[MT_OBJECT_REF_LEN + 1], got[MT_OBJECT_REF_LEN + 1];
	char rel[128], *path, *packed = NULL;
	size_t plen = 0;

	assert_int_equal(mt_object_put(dir, "planted?", 8, ref), 0);
	assert_int_equal(mt_object_put(dir, "genuine", 7, other), 0);
	snprintf(rel, sizeof(rel), "sha256/%.2s/%s", ref + 7, ref + 9);
	assert_int_equal(mt_object_ref_of_path(rel, got), 0);
	assert_string_equal(got, ref);
	/* XX not the first two digits of the name's hash: another name */
	snprintf(rel, sizeof(rel), "sha256/%.2s/%s", ref + 7, ref + 7 + 2);
	rel[7] = rel[7] == 'a' ? 'b' : 'a';
	assert_int_equal(mt_object_ref_of_path(rel, got), 0);
	assert_string_not_equal(got, ref);
	/* upper case, a digit short, a dot, another directory */
	snprintf(rel, sizeof(rel), "sha256/%.2s/%s", ref + 7, ref + 9);
	rel[20] = 'A';
	assert_int_equal(mt_object_ref_of_path(rel, got), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), rel));
	assert_string_equal(got, "");
	snprintf(rel, sizeof(rel), "sha256/%.2s/%.61s", ref + 7, ref + 9);
	assert_int_equal(mt_object_ref_of_path(rel, got), MT_EINVALID);
	snprintf(rel, sizeof(rel), "sha256/%.2s/%.61s.", ref + 7, ref + 9);
	assert_int_equal(mt_object_ref_of_path(rel, got), MT_EINVALID);
	snprintf(rel, sizeof(rel), "sha512/%.2s/%s", ref + 7, ref + 9);
	assert_int_equal(mt_object_ref_of_path(rel, got), MT_EINVALID);
	assert_int_equal(mt_object_ref_of_path("sha256/ab", got), MT_EINVALID);
	assert_false(mt_object_ref_valid("sha256:ABCD"));
	assert_true(mt_object_ref_valid(ref));
	/* the file's bytes hash to its name, or not */
	path = mt_object_path(dir, other);
	assert_int_equal(mt_file_read(&packed, &plen, path), 0);
	assert_int_equal(mt_object_check(other, packed, plen), 0);
	assert_int_equal(mt_object_check(ref, packed, plen), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), other + 7));
	assert_int_equal(mt_object_check(other, packed, plen - 3), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "gzip"));
	assert_int_equal(mt_object_check(other, "genuine", 7), MT_EINVALID);
	assert_int_equal(mt_object_check("sha256:../x", packed, plen), MT_EINVALID);
	mt_error_clear();
	free(packed);
	free(path);
}

/* A PID no process has: a child's, waited for. */
static long dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return (long)pid;
}

/* dir/name created, empty. */
static char *touch(const char *dir, const char *name)
{
	char *path = mt_path_join(dir, name);

	assert_int_equal(mt_file_write_atomic(path, "", 0, 0), 0);
	return path;
}

static void test_stale_temporaries_swept_live_kept(void **state)
{
	const char *dir = *state;
	char ref[MT_OBJECT_REF_LEN + 1], name[128], *packed = NULL, *opath, *odir;
	char *stale, *live, *other, *notmp, *half;
	size_t plen = 0;
	long dead = dead_pid();
	mt_objects_swept swept = {0};

	/* where "three" goes, before it is written: a writer killed there left
	 * its temporary file, another is writing its own */
	assert_int_equal(mt_object_pack("three", 5, ref, &packed, &plen), 0);
	opath = mt_object_path(dir, ref);
	odir = mt_strdup(opath);
	*strrchr(odir, '/') = '\0';
	assert_int_equal(mt_mkdir_p(odir), 0);
	snprintf(name, sizeof(name), "%s.tmp.%ld", strrchr(opath, '/') + 1, dead);
	stale = touch(odir, name);
	snprintf(name, sizeof(name), "%s.tmp.%ld", "0123", (long)getpid());
	live = touch(odir, name);
	notmp = touch(odir, "0123.tmp.12x"); /* not a temporary's name: left */
	assert_int_equal(mt_object_put(dir, "three", 5, ref), 0);
	assert_false(mt_path_exists(stale));
	assert_true(mt_path_exists(live));
	assert_true(mt_path_exists(notmp));
	assert_true(mt_path_exists(opath));
	/* the next write sweeps where it writes; the doctor's sweep all of it */
	assert_int_equal(mt_object_put(dir, "four", 4, ref), 0);
	free(opath);
	opath = mt_object_path(dir, ref);
	*strrchr(opath, '/') = '\0';
	snprintf(name, sizeof(name), "abcd.tmp.%ld", dead);
	other = touch(opath, name);
	snprintf(name, sizeof(name), "ef.tmp.%ld", dead);
	half = touch(odir, name);
	assert_int_equal(mt_objects_sweep(dir, &swept), 0);
	assert_int_equal(swept.removed, 2);
	assert_int_equal(swept.live, 1);
	assert_false(mt_path_exists(other));
	assert_false(mt_path_exists(half));
	assert_true(mt_path_exists(live));
	/* a trial with no artefacts: nothing to sweep */
	memset(&swept, 0, sizeof(swept));
	assert_int_equal(mt_objects_sweep("/nonexistent-mtrial", &swept), 0);
	assert_int_equal(swept.removed + swept.live, 0);
	free(packed);
	free(opath);
	free(odir);
	free(stale);
	free(live);
	free(other);
	free(notmp);
	free(half);
}

static mt_journal *journal_in(const char *dir)
{
	mt_journal *j = NULL;
	char *path = mt_path_join(dir, "journal.db");

	assert_int_equal(mt_journal_open(&j, path, 1), 0);
	free(path);
	return j;
}

/* The one events file's text. */
static char *events_text(const char *dir)
{
	char *edir = mt_path_join(dir, "events"), cmd[600], *text = NULL;
	size_t len;

	snprintf(cmd, sizeof(cmd), "cat %s/*.jsonl > %s/all.txt", edir, dir);
	assert_int_equal(system(cmd), 0);
	free(edir);
	edir = mt_path_join(dir, "all.txt");
	assert_int_equal(mt_file_read(&text, &len, edir), 0);
	unlink(edir);
	free(edir);
	return text;
}

static void test_scan_by_reference_missing_named(void **state)
{
	const char *dir = *state;
	mt_journal *j = journal_in(dir);
	mt_journal_scan scan = {.repo = "/r", .rev = "abc", .tree = "t1",
				.summary = "{\"files\":2}", .result = "{\"calls\":[1,2,3]}"}; /* as stored: compact */
	json_t *out = NULL;
	char ref[MT_OBJECT_REF_LEN + 1], *text, *path;
	int64_t id = 0;

	assert_int_equal(mt_journal_scan_add(j, &scan, &id, NULL), 0);
	assert_int_equal(mt_journal_note_add(j, "a note", NULL, NULL, 0, NULL), 0);
	/* the event names the result; the payload is not in it */
	text = events_text(dir);
	assert_null(strstr(text, "\"calls\""));
	assert_non_null(strstr(text, "\"result\":{\"object\":\"sha256:"));
	assert_non_null(strstr(text, "\"v\":2"));
	free(text);
	assert_int_equal(mt_journal_scan_latest(j, 1, &out, NULL, NULL), 0);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(out, "calls"), 2)), 3);
	json_decref(out);
	/* the result's artefact gone: named, with its event; the rest loads */
	mt_object_put(dir, scan.result, strlen(scan.result), ref);
	path = mt_object_path(dir, ref);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mt_journal_rebuild(j), 0);
	assert_int_equal(mt_journal_scan_latest(j, 1, &out, NULL, NULL), MT_ENOTFOUND);
	assert_null(out);
	assert_non_null(strstr(mt_error_last(), ref));
	assert_non_null(strstr(mt_error_last(), "of event "));
	assert_int_equal(mt_journal_scan_latest(j, 0, &out, NULL, NULL), 0); /* the summary */
	assert_int_equal(json_integer_value(json_object_get(out, "files")), 2);
	json_decref(out);
	out = mt_journal_notes_json(j);
	assert_int_equal(json_array_size(out), 1);
	json_decref(out);
	/* arrived later (a sync): read, no rebuild needed */
	assert_int_equal(mt_object_put(dir, scan.result, strlen(scan.result), ref), 0);
	assert_int_equal(mt_journal_scan_latest(j, 1, &out, NULL, NULL), 0);
	json_decref(out);
	free(path);
	mt_journal_free(j);
}

static void test_version_1_inline_payload_loads(void **state)
{
	const char *dir = *state;
	char *edir = mt_path_join(dir, "events");
	mt_journal *j;
	json_t *out = NULL;

	mt_fx_write(edir, "old-0000000000000001.jsonl",
		    "{\"v\":1,\"id\":\"0000000003e800000000000001\",\"t\":1000,\"author\":{\"name\":"
		    "\"a\",\"email\":\"a@b\"},\"host\":\"h\",\"kind\":\"scan.add\",\"data\":{\"repo\":"
		    "\"/r\",\"rev\":\"abc\",\"tree\":\"t\",\"worktree\":false,\"summary\":{\"files\":1},"
		    "\"result\":{\"calls\":[7]}}}\n");
	j = journal_in(dir);
	assert_int_equal(mt_journal_scan_latest(j, 1, &out, NULL, NULL), 0);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(out, "calls"), 0)), 7);
	json_decref(out);
	mt_journal_free(j);
	free(edir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_named_by_content_gzip_never_rewritten, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_missing_and_corrupt_are_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reference_shape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_and_content_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_temporaries_swept_live_kept, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scan_by_reference_missing_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_version_1_inline_payload_loads, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
