/* scan_view: the scan's result as the CLI and the wizard read it, from a
 * real scan of a repository made of the scan fixtures (tests/data/scan)
 * and a requirements file: the whole result, its summary and the record
 * in the journal all read completely and agree with the JSON; a key
 * renamed on the producer's side is named. */
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
#include "scan.h"
#include "scan_trial.h"
#include "scan_view.h"
#include "util.h"

static struct {
	char *tmp;
	json_t *whole, *summary, *recorded;
} fx;

static int setup(void **state)
{
	mt_scan_trial_options o = {.scan = {.use_cache = 0}};
	mt_scan_trial_result r;
	mt_trial *t = NULL;
	char *dir, *text;

	(void)state;
	fx.tmp = mt_fx_tmpdir("scan_view");
	mt_fx_copy(fx.tmp, "train.py", "tests/data/scan/cuda_heavy.py");
	mt_fx_copy(fx.tmp, "pkg/data.py", "tests/data/scan/receivers.py");
	mt_fx_write(fx.tmp, "requirements.txt", "torch==2.1.0+cu118\nnvidia-cudnn-cu12\n");
	mt_fx_commit(fx.tmp,
		     (const char *const[]){"train.py", "pkg/data.py", "requirements.txt", NULL});
	dir = mt_path_join(fx.tmp, ".mtrial");
	o.scan.repo = fx.tmp;
	if (mt_trial_create(dir, "t", fx.tmp, NULL) < 0 || mt_trial_open(&t, dir, 1) < 0 ||
	    mt_scan_trial_run(&r, t, &o, NULL) < 0 ||
	    mt_journal_scan_latest(t->journal, 1, &fx.recorded, NULL, NULL) < 0)
		fail_msg("%s", mt_error_last());
	text = mt_scan_result_json(&r.scan, NULL);
	fx.whole = json_loads(text, 0, NULL);
	fx.summary = mt_scan_result_summary(&r.scan);
	assert_non_null(fx.whole);
	assert_non_null(fx.summary);
	free(text);
	free(dir);
	mt_scan_trial_result_dispose(&r);
	mt_trial_free(t);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	json_decref(fx.whole);
	json_decref(fx.summary);
	json_decref(fx.recorded);
	mt_fx_rmtree(fx.tmp);
	free(fx.tmp);
	return 0;
}

static json_int_t num(const json_t *o, const char *path)
{
	return json_integer_value(json_object_get(o, path));
}

/* The view agrees with the JSON it read. */
static void agrees(const json_t *j, const mt_scan_view *v)
{
	const json_t *t = json_object_get(j, "totals");
	const json_t *f = json_array_get(json_object_get(j, "findings"), 0);
	size_t cuda_only = 0;

	assert_string_equal(v->rev, json_string_value(json_object_get(j, "rev")));
	assert_int_equal(v->files_scanned, 3 - 1); /* requirements.txt is no Python file */
	assert_int_equal(v->nfiles, json_array_size(json_object_get(j, "files")));
	assert_int_equal(v->nops, json_object_size(json_object_get(j, "ops")));
	assert_int_equal(v->totals.calls, num(t, "calls"));
	assert_int_equal(v->totals.methods_uncertain, num(t, "methods_uncertain"));
	assert_int_equal(v->totals.high + v->totals.medium + v->totals.low + v->totals.none,
			 v->totals.findings);
	assert_int_equal(v->nfindings, (size_t)v->totals.findings);
	assert_string_equal(v->findings[0].message,
			    json_string_value(json_object_get(f, "message")));
	for (size_t i = 0; i < v->ndeps; i++)
		cuda_only += v->deps[i].cuda_only;
	assert_int_equal(cuda_only, 1); /* nvidia-cudnn-cu12 */
}

static void test_whole_result(void **state)
{
	mt_scan_view v;
	size_t uncertain = 0;

	(void)state;
	if (mt_scan_view_read(&v, fx.whole) < 0)
		fail_msg("%s", mt_error_last());
	agrees(fx.whole, &v);
	assert_true(v.has_sites);
	assert_int_equal(v.ncalls, (size_t)v.totals.calls);
	assert_int_equal(v.nmethods, (size_t)v.totals.methods);
	for (size_t i = 0; i < v.nmethods; i++)
		uncertain += !v.methods[i].certain;
	assert_int_equal(uncertain, (size_t)v.totals.methods_uncertain);
	mt_scan_view_dispose(&v);
}

static void test_summary_and_record(void **state)
{
	mt_scan_view v;

	(void)state;
	if (mt_scan_view_read(&v, fx.summary) < 0)
		fail_msg("%s", mt_error_last());
	agrees(fx.summary, &v);
	assert_false(v.has_sites);
	mt_scan_view_dispose(&v);
	if (mt_scan_view_read(&v, fx.recorded) < 0)
		fail_msg("%s", mt_error_last());
	agrees(fx.recorded, &v);
	assert_true(v.ncalls > 0);
	mt_scan_view_dispose(&v);
}

/* Renames key of obj (inside copy, which it frees): the view names it. */
static void renamed_is_named(json_t *copy, json_t *obj, const char *key)
{
	char quoted[64];
	mt_scan_view v;

	json_object_set(obj, "renamed", json_object_get(obj, key));
	json_object_del(obj, key);
	assert_int_equal(mt_scan_view_read(&v, copy), MT_EINVALID);
	snprintf(quoted, sizeof(quoted), "'%s'", key);
	assert_non_null(strstr(mt_error_last(), quoted));
	mt_scan_view_dispose(&v);
	json_decref(copy);
}

/* The ops of the method sites with their uncertain sites and files, as
 * the summary and the record hold them, and the objects a reader passes
 * on whole. */
static void test_method_ops(void **state)
{
	const json_t *mops = json_object_get(fx.summary, "method_ops");
	json_int_t uncertain = 0;
	json_t *copy, *first;
	mt_scan_view v;

	(void)state;
	if (mt_scan_view_read(&v, fx.summary) < 0)
		fail_msg("%s", mt_error_last());
	assert_true(v.has_method_ops);
	assert_true(v.nmethod_ops > 0);
	assert_int_equal(v.nmethod_ops, json_object_size(mops));
	for (size_t i = 0; i < v.nmethod_ops; i++) {
		const json_t *o = json_object_get(mops, v.method_ops[i].name);
		assert_int_equal(v.method_ops[i].count, num(o, "count"));
		assert_int_equal(v.method_ops[i].uncertain, num(o, "uncertain"));
		assert_int_equal(v.method_ops[i].nfiles, json_array_size(json_object_get(o, "files")));
		assert_string_equal(v.method_ops[i].files[0],
				    json_string_value(json_array_get(json_object_get(o, "files"), 0)));
		uncertain += v.method_ops[i].uncertain;
	}
	assert_true(uncertain > 0); /* receivers.py's */
	assert_string_equal(v.ops[0].files[0], json_string_value(json_array_get(
		json_object_get(json_object_get(json_object_get(fx.summary, "ops"), v.ops[0].name), "files"), 0)));
	assert_ptr_equal(v.totals_json, json_object_get(fx.summary, "totals"));
	assert_ptr_equal(v.findings[0].json, json_array_get(json_object_get(fx.summary, "findings"), 0));
	assert_ptr_equal(v.deps[0].json, json_array_get(json_object_get(fx.summary, "dependencies"), 0));
	mt_scan_view_dispose(&v);

	/* a method op's uncertain renamed is named */
	copy = json_deep_copy(fx.summary);
	first = json_object_iter_value(json_object_iter(json_object_get(copy, "method_ops")));
	renamed_is_named(copy, first, "uncertain");
}

/* A key renamed in a nested object is named. */
static void test_names_a_renamed_key(void **state)
{
	json_t *copy = json_deep_copy(fx.whole);

	(void)state;
	renamed_is_named(copy, json_object_get(json_object_get(copy, "totals"), "findings_by_effort"),
			 "high");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_result),
		cmocka_unit_test(test_summary_and_record),
		cmocka_unit_test(test_method_ops),
		cmocka_unit_test(test_names_a_renamed_key),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
