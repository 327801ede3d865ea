/* check_trial: the comparison of two tensor files as `mtrial check compare`
 * and the wizard's Correctness step run it, one core function: the rules
 * in their order (the given globs, the typed rtol/atol, trial.yaml's
 * overrides, its default), equal_nan from trial.yaml unless typed, and the
 * check recorded. The files and the trial are made here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_trial.h"
#include "error.h"
#include "fixtures.h"
#include "util.h"

#define SPEC                                                                                       \
	"schema: 1\n"                                                                             \
	"name: t\n"                                                                               \
	"tolerances:\n"                                                                            \
	"  default: {rtol: 0, atol: 0.3}\n"                                                       \
	"  overrides:\n"                                                                           \
	"    - {name: 'w*', rtol: 0, atol: 0}\n"                                                   \
	"  equal_nan: true\n"

static struct {
	char *tmp, *trial_dir, *ref, *cand;
} fx;

/* A safetensors file of two float32 tensors of two elements, w and b. */
static char *write_tensors(const char *name, const float w[2], const float b[2])
{
	const char *h = "{\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
			"\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}";
	char *path = mt_path_join(fx.tmp, name);
	uint64_t len = strlen(h);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	fwrite(&len, 8, 1, f); /* little-endian, as the format and this machine */
	fwrite(h, 1, len, f);
	fwrite(b, sizeof(float), 2, f);
	fwrite(w, sizeof(float), 2, f);
	fclose(f);
	return path;
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
	fx.tmp = mt_fx_tmpdir("check_trial");
	fx.trial_dir = mt_path_join(fx.tmp, ".mtrial");
	if (mt_trial_create(fx.trial_dir, "t", NULL, NULL) < 0)
		fail_msg("%s", mt_error_last());
	mt_fx_write(fx.trial_dir, "trial.yaml", SPEC);
	fx.ref = write_tensors("ref.safetensors", (float[]){1, 2}, (float[]){1, 2});
	fx.cand = write_tensors("cand.safetensors", (float[]){1, 2.25f}, (float[]){1, 2.25f});
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mt_fx_rmtree(fx.tmp);
	free(fx.tmp);
	free(fx.trial_dir);
	free(fx.ref);
	free(fx.cand);
	return 0;
}

static mt_check_trial_compare_options typed(double rtol, double atol)
{
	return (mt_check_trial_compare_options){.rtol = rtol, .atol = atol,
						.typed_source = "typed here"};
}

/* The given globs first, then what was typed, then trial.yaml's override,
 * then its default; trial.yaml's equal_nan unless typed. */
static void test_rules_order(void **state)
{
	mt_check_trial_compare_options o = typed(0.1, NAN);
	mt_cmp_rules r = {0};
	mt_trial *t = open_trial();

	(void)state;
	assert_int_equal(mt_cmp_rules_add(&r, "b", 1, 1, "--tol b"), 0);
	assert_int_equal(mt_check_trial_rules(&r, &o, t), 0);
	assert_int_equal(o.cmp.nrules, 4);
	assert_string_equal(o.cmp.rules[0].source, "--tol b");
	assert_string_equal(o.cmp.rules[1].source, "typed here");
	assert_null(o.cmp.rules[1].glob);
	assert_true(isnan(o.cmp.rules[1].atol));
	assert_string_equal(o.cmp.rules[2].glob, "w*");
	assert_string_equal(o.cmp.rules[3].source, "trial.yaml tolerances.default");
	assert_true(o.cmp.equal_nan);
	mt_cmp_rules_dispose(&r);

	o = typed(NAN, NAN);
	o.equal_nan_given = 1; /* --equal-nan not given stays off: trial.yaml is not read */
	assert_int_equal(mt_check_trial_rules(&r, &o, t), 0);
	assert_int_equal(o.cmp.nrules, 2);
	assert_false(o.cmp.equal_nan);
	mt_cmp_rules_dispose(&r);

	o = typed(NAN, NAN);
	assert_int_equal(mt_check_trial_rules(&r, &o, NULL), 0); /* no trial: no rules */
	assert_int_equal(o.cmp.nrules, 0);
	mt_cmp_rules_dispose(&r);
	mt_trial_free(t);
}

/* 2.25 against 2: within trial.yaml's default atol 0.3 (b), not within its
 * override for w*: the check fails, and is recorded as it ran. */
static void test_compare_records(void **state)
{
	mt_check_trial_compare_options o = typed(NAN, NAN);
	mt_check_trial_result r;
	mt_trial *t = open_trial();
	json_t *checks;

	(void)state;
	o.rehearsal = 1;
	assert_int_equal(mt_check_trial_compare(&r, t, fx.ref, fx.cand, NULL, &o), 0);
	assert_false(r.passed);
	assert_true(r.check_id > 0);
	assert_int_equal(json_integer_value(json_object_get(r.result, "check_id")), r.check_id);
	checks = mt_journal_checks_json(t->journal, "compare", 0);
	assert_int_equal(json_array_size(checks), 1);
	assert_true(json_is_true(json_object_get(json_array_get(checks, 0), "rehearsal")));
	json_decref(checks);
	mt_check_trial_result_dispose(&r);

	o = typed(NAN, 0.5); /* typed outranks trial.yaml's override */
	assert_int_equal(mt_check_trial_compare(&r, t, fx.ref, fx.cand, NULL, &o), 0);
	assert_true(r.passed);
	assert_true(json_is_false(json_object_get(r.result, "rehearsal")));
	assert_int_equal(json_integer_value(json_object_get(r.result, "check_id")), r.check_id);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(r.result, "tensors"), 0),
				    "tolerance_source")),
			    "typed here");
	mt_check_trial_result_dispose(&r);
	mt_trial_free(t);
}

/* Without a trial: compared with the dtype's defaults, not recorded. */
static void test_compare_no_trial(void **state)
{
	mt_check_trial_compare_options o = typed(NAN, NAN);
	mt_check_trial_result r;

	(void)state;
	assert_int_equal(mt_check_trial_compare(&r, NULL, fx.ref, fx.cand, NULL, &o), 0);
	assert_false(r.passed);
	assert_int_equal(r.check_id, 0);
	/* the result says it is no rehearsal, as `mtrial check` recorded it
	 * and the wizard did not */
	assert_true(json_is_false(json_object_get(r.result, "rehearsal")));
	assert_null(json_object_get(r.result, "check_id"));
	mt_check_trial_result_dispose(&r);
}

/* A side that does not open: no result, the file named. */
static void test_compare_bad_file(void **state)
{
	mt_check_trial_compare_options o = typed(NAN, NAN);
	mt_check_trial_result r;

	(void)state;
	assert_true(mt_check_trial_compare(&r, NULL, fx.ref, "/nonexistent.safetensors", NULL,
					   &o) < 0);
	assert_null(r.result);
	assert_non_null(strstr(mt_error_last(), "/nonexistent.safetensors"));
	mt_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_order),
		cmocka_unit_test(test_compare_records),
		cmocka_unit_test(test_compare_no_trial),
		cmocka_unit_test(test_compare_bad_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
