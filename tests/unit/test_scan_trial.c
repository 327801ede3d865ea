/* scan_trial: the scan as `mtrial scan` and the wizard run it, one core
 * function: trial.yaml's scan.paths as the limit, the scan recorded once
 * (a rescan of an unchanged tree is the same record), and no trial means
 * not recorded, with the reason given. The repository is built by
 * fixtures.c (libgit2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixtures.h"
#include "jsonutil.h"
#include "scan_trial.h"
#include "util.h"

#define TRAIN "import torch\nx = torch.zeros(3)\ny = torch.ones(3)\n"
#define MODEL "import torch\nz = torch.zeros(2)\n"

static struct {
	char *tmp, *trial_dir;
} fx;

/* trial.yaml's scan.paths set to `list` (a YAML flow list, "" for none). */
static void set_scan_paths(const char *list)
{
	char *path = mt_path_join(fx.trial_dir, "trial.yaml"), *text = NULL, *at;
	size_t len = 0;
	mt_buf b = MT_BUF_INIT;

	assert_int_equal(mt_file_read(&text, &len, path), 0);
	if (!(at = strstr(text, "\n  paths:")))
		fail_msg("no scan.paths in %s", path);
	mt_buf_put(&b, text, (size_t)(at - text));
	mt_buf_printf(&b, "\n  paths: %s", list);
	mt_buf_puts(&b, strchr(at + 1, '\n'));
	mt_fx_write(fx.trial_dir, "trial.yaml", mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	free(text);
	free(path);
}

static mt_trial *open_trial(void)
{
	mt_trial *t = NULL;

	if (mt_trial_open(&t, fx.trial_dir, 1) < 0)
		fail_msg("%s", mt_error_last());
	return t;
}

static int setup(void **state)
{
	(void)state;
	fx.tmp = mt_fx_tmpdir("scan_trial");
	mt_fx_write(fx.tmp, "train.py", TRAIN);
	mt_fx_write(fx.tmp, "pkg/model.py", MODEL);
	mt_fx_commit(fx.tmp, (const char *const[]){"train.py", "pkg/model.py", NULL});
	fx.trial_dir = mt_path_join(fx.tmp, ".mtrial");
	if (mt_trial_create(fx.trial_dir, "t", fx.tmp, NULL) < 0)
		fail_msg("%s", mt_error_last());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mt_fx_rmtree(fx.tmp);
	free(fx.tmp);
	free(fx.trial_dir);
	return 0;
}

static mt_scan_trial_options options(void)
{
	return (mt_scan_trial_options){.scan = {.repo = fx.tmp, .use_cache = 0}};
}

/* Recorded once; the same scan again is the same record, said unchanged. */
static void test_records_once(void **state)
{
	mt_scan_trial_options o = options();
	mt_scan_trial_result r, again;
	mt_trial *t = open_trial();

	(void)state;
	assert_int_equal(mt_scan_trial_run(&r, t, &o, NULL), 0);
	assert_null(r.not_recorded);
	assert_true(r.scan_id > 0);
	assert_false(r.unchanged);
	assert_int_equal(r.files_scanned, 2);
	assert_int_equal(r.calls, 3);
	assert_false(r.paths_from_trial);
	assert_int_equal(mt_scan_trial_run(&again, t, &o, NULL), 0);
	assert_true(again.unchanged);
	assert_int_equal(again.scan_id, r.scan_id);
	mt_scan_trial_result_dispose(&r);
	mt_scan_trial_result_dispose(&again);
	mt_trial_free(t);
}

/* No trial: the scan runs, and the result says why it is not recorded. */
static void test_no_trial(void **state)
{
	mt_scan_trial_options o = options();
	mt_scan_trial_result r;

	(void)state;
	assert_int_equal(mt_scan_trial_run(&r, NULL, &o, "no trial here"), 0);
	assert_int_equal(r.scan_id, 0);
	assert_string_equal(r.not_recorded, "no trial here");
	assert_int_equal(r.calls, 3);
	mt_scan_trial_result_dispose(&r);
}

/* trial.yaml's scan.paths limits the scan unless paths are given; one
 * with nothing there is listed as missing. */
static void test_trial_paths(void **state)
{
	const char *const given[] = {"train.py"};
	mt_scan_trial_options o = options();
	mt_scan_trial_result r;
	mt_trial *t;

	(void)state;
	set_scan_paths("[pkg, gone]");
	t = open_trial();
	assert_int_equal(mt_scan_trial_run(&r, t, &o, NULL), 0);
	assert_true(r.paths_from_trial);
	assert_int_equal(r.files_scanned, 1);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.npaths_missing, 1);
	assert_string_equal(r.paths_missing[0], "gone");
	mt_scan_trial_result_dispose(&r);
	o.scan.paths = given;
	o.scan.npaths = 1;
	assert_int_equal(mt_scan_trial_run(&r, t, &o, NULL), 0);
	assert_false(r.paths_from_trial);
	assert_int_equal(r.calls, 2);
	assert_int_equal(r.npaths_missing, 0);
	mt_scan_trial_result_dispose(&r);
	mt_trial_free(t);
	set_scan_paths("");
}

/* A scan that fails records nothing and leaves the error set. */
static void test_scan_fails(void **state)
{
	mt_scan_trial_options o = options();
	mt_scan_trial_result r;
	mt_trial *t = open_trial();

	(void)state;
	o.scan.rev = "no-such-rev";
	assert_true(mt_scan_trial_run(&r, t, &o, NULL) < 0);
	assert_non_null(strstr(mt_error_last(), "no-such-rev"));
	assert_int_equal(r.scan_id, 0);
	mt_error_clear();
	mt_trial_free(t);
}

/* The figures a scan gives typed are its summary's, on a fresh scan and on
 * a rescan served whole from the tree cache (which keeps them beside the
 * summary); another size limit is another result. */
static void check_figures(const mt_scan_trial_result *r, const char *hit)
{
	json_t *s = mt_scan_result_summary(&r->scan), *missing;

	assert_non_null(s);
	assert_string_equal(r->scan.cache_hit, hit);
	assert_int_equal(r->files_scanned, json_integer_value(json_object_get(s, "files_scanned")));
	assert_int_equal(r->calls, mt_json_num(json_object_get(s, "totals"), "calls"));
	assert_int_equal(r->findings, mt_json_num(json_object_get(s, "totals"), "findings"));
	missing = json_object_get(s, "paths_missing");
	assert_int_equal(r->npaths_missing, json_array_size(missing));
	for (size_t i = 0; i < r->npaths_missing; i++)
		assert_string_equal(r->paths_missing[i],
				    json_string_value(json_array_get(missing, i)));
	json_decref(s);
}

static void test_tree_cache_figures(void **state)
{
	const char *const paths[] = {"pkg", "gone", "train.py"};
	mt_scan_trial_options o = options();
	mt_scan_trial_result r, again;
	char *db = mt_path_join(fx.tmp, "cache.db");

	(void)state;
	o.scan.use_cache = 1;
	o.scan.cache_path = db;
	o.scan.paths = paths;
	o.scan.npaths = 3;
	assert_int_equal(mt_scan_trial_run(&r, NULL, &o, NULL), 0);
	check_figures(&r, "none");
	assert_int_equal(r.files_scanned, 2);
	assert_int_equal(r.calls, 3);
	assert_int_equal(r.npaths_missing, 1);
	assert_string_equal(r.paths_missing[0], "gone");
	assert_int_equal(mt_scan_trial_run(&again, NULL, &o, NULL), 0);
	check_figures(&again, "tree");
	assert_int_equal(again.files_scanned, r.files_scanned);
	assert_int_equal(again.calls, r.calls);
	assert_int_equal(again.findings, r.findings);
	assert_int_equal(again.npaths_missing, 1);
	assert_string_equal(again.paths_missing[0], "gone");
	mt_scan_trial_result_dispose(&again);
	o.scan.max_file_bytes = 10; /* each file too large: another result */
	assert_int_equal(mt_scan_trial_run(&again, NULL, &o, NULL), 0);
	check_figures(&again, "none");
	assert_int_equal(again.files_scanned, 0);
	mt_scan_trial_result_dispose(&again);
	o.scan.paths = NULL; /* no limit: not the limited result */
	o.scan.npaths = 0;
	o.scan.max_file_bytes = 0;
	assert_int_equal(mt_scan_trial_run(&again, NULL, &o, NULL), 0);
	assert_string_equal(again.scan.cache_hit, "blobs");
	check_figures(&again, "blobs");
	assert_int_equal(again.npaths_missing, 0);
	mt_scan_trial_result_dispose(&again);
	mt_scan_trial_result_dispose(&r);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_once),
		cmocka_unit_test(test_no_trial),
		cmocka_unit_test(test_trial_paths),
		cmocka_unit_test(test_scan_fails),
		cmocka_unit_test(test_tree_cache_figures),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
