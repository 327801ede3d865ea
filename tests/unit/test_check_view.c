/* check_view: a check's result read into C structs, from the JSON the real
 * producers write (mt_cmp_run through check compare, the curves'
 * comparison) and from the journal's record of it, on the repository's
 * fixtures (tests/data/torchsave, tests/data/curves) and a pair of files
 * made here with a known difference. Each reader is complete on a real
 * result, and a key renamed on the producer's side is caught. */
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
#include "check_view.h"
#include "error.h"
#include "fixtures.h"
#include "jview.h"
#include "model_int.h"
#include "util.h"

#define TORCHSAVE MT_SOURCE_DIR "/tests/data/torchsave/"
#define CURVES MT_SOURCE_DIR "/tests/data/curves/"

static struct {
	char *tmp, *trial_dir, *ref, *cand;
} fx;

/* A safetensors file of one float32 tensor w of three elements. */
static char *write_w(const char *name, const float w[3])
{
	const char *h = "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}}";
	char *path = mt_path_join(fx.tmp, name);
	uint64_t len = strlen(h);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	fwrite(&len, 8, 1, f); /* little-endian, as the format and this machine */
	fwrite(h, 1, len, f);
	fwrite(w, sizeof(float), 3, f);
	fclose(f);
	return path;
}

static int setup(void **state)
{
	(void)state;
	fx.tmp = mt_fx_tmpdir("check_view");
	fx.trial_dir = mt_path_join(fx.tmp, ".mtrial");
	if (mt_trial_create(fx.trial_dir, "t", NULL, NULL) < 0)
		fail_msg("%s", mt_error_last());
	fx.ref = write_w("ref.safetensors", (float[]){1, 2, 3});
	fx.cand = write_w("cand.safetensors", (float[]){1, 2.5f, 3});
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

/* Reads r's result again, as a consumer would, and says whether every key
 * the reader asks for was there. */
static int reread(mt_check_view *v, json_t *result, const char *kind)
{
	mt_jview jv;

	mt_jview_init(&jv, result, "check result");
	assert_int_equal(mt_check_view_read(v, &jv, kind), 0);
	return mt_jview_complete(&jv);
}

/* The real torch.save fixture against its protocol-4 twin, with itself as
 * the noise run: every tensor is read with its figures. */
static void test_compare_torchsave(void **state)
{
	mt_check_trial_compare_options o = {.rtol = NAN, .atol = NAN, .noise = TORCHSAVE "tensors.pt"};
	json_t *expected = json_load_file(TORCHSAVE "expected.json", 0, NULL);
	mt_check_trial_result r;
	mt_check_view *v = &r.view, again;

	(void)state;
	assert_non_null(expected);
	assert_int_equal(mt_check_trial_compare(&r, NULL, TORCHSAVE "tensors.pt",
						 TORCHSAVE "tensors-p4.pt", NULL, &o),
			 0);
	assert_int_equal(reread(&again, r.result, "compare"), 0);
	mt_check_view_dispose(&again);
	assert_true(v->passed);
	assert_string_equal(v->kind, "compare");
	assert_string_equal(v->reference, TORCHSAVE "tensors.pt");
	assert_string_equal(v->t.stat, "elemwise");
	assert_int_equal(v->t.ntensors, json_object_size(expected));
	assert_int_equal(v->t.failed, 0);
	assert_true(v->t.has_noise);
	assert_string_equal(v->t.noise.reference2, TORCHSAVE "tensors.pt");
	for (size_t i = 0; i < v->t.ntensors; i++) {
		const mt_check_tensor *t = &v->t.tensors[i];
		json_t *e = json_object_get(expected, t->name);
		assert_non_null(e);
		assert_string_equal(t->dtype, json_string_value(json_object_get(e, "dtype")));
		assert_int_equal(t->shape.n, json_array_size(json_object_get(e, "shape")));
		assert_null(t->reason);
		assert_true(t->passed);
		int64_t numel = 1;
		for (int d = 0; d < t->shape.n; d++)
			numel *= t->shape.v[d];
		assert_int_equal(t->numel, numel);
		assert_int_equal(t->mismatched, 0);
		assert_true(t->has_noise);
	}
	json_decref(expected);
	mt_check_trial_result_dispose(&r);
}

/* w differs by 0.5 at index 1: the failure's figures as the comparison
 * computed them, in the result and in the journal's record. */
static void test_compare_failure_recorded(void **state)
{
	mt_check_trial_compare_options o = {.rtol = 0, .atol = 0.1, .typed_source = "typed"};
	mt_check_trial_result r;
	mt_check_view *views = NULL, check;
	mt_trial *t = NULL;
	json_t *records, *section;
	size_t n = 0;
	int checked;

	(void)state;
	assert_int_equal(mt_trial_open(&t, fx.trial_dir, 0), 0);
	assert_int_equal(mt_check_trial_compare(&r, t, fx.ref, fx.cand, NULL, &o), 0);
	assert_int_equal(reread(&check, r.result, "compare"), 0);
	mt_check_view_dispose(&check);
	assert_false(r.passed);
	assert_int_equal(r.view.t.failed, 1);
	assert_string_equal(r.view.t.tensors[0].name, "w");
	assert_string_equal(r.view.t.tensors[0].tolerance_source, "typed");
	assert_int_equal(r.view.t.tensors[0].mismatched, 1);
	assert_int_equal(r.view.t.tensors[0].numel, 3);
	assert_true(fabs(r.view.t.tensors[0].max_abs - 0.5) < 1e-6);
	assert_int_equal(r.view.t.tensors[0].max_abs_index.n, 1);
	assert_int_equal(r.view.t.tensors[0].max_abs_index.v[0], 1);
	assert_true(fabs(r.view.t.tensors[0].atol - 0.1) < 1e-12);
	assert_false(r.view.t.has_noise);

	records = mt_journal_checks_json(t->journal, NULL, 0);
	assert_int_equal(mt_check_view_read_list(&views, &n, records), 0);
	assert_int_equal(n, 1);
	assert_int_equal(views[0].id, r.check_id);
	assert_non_null(views[0].created);
	assert_string_equal(views[0].kind, "compare");
	assert_false(views[0].passed);
	assert_true(fabs(views[0].t.tensors[0].max_abs - 0.5) < 1e-6);
	mt_check_view_free_list(views, n);
	json_decref(records);

	/* the report's line on it, from the same view */
	records = mt_model_checks_list(t->journal, &section, &checked);
	assert_int_equal(json_array_size(records), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(records, 0), "summary")),
			    "1 of 1 tensors failed; worst `w`: 1 of 3 mismatched, greatest |diff| 0.5, "
			    "rtol 0 atol 0.1 (typed)");
	assert_int_equal(checked, 2); /* a check that is evidence */
	assert_int_equal(json_array_size(json_object_get(section, "evidence")), 1);
	assert_true(json_is_null(json_object_get(section, "rehearsal_count")));
	json_decref(section);
	json_decref(records);
	mt_check_trial_result_dispose(&r);
	mt_trial_free(t);
}

/* A key renamed on the producer's side (a tensor's max_abs, the result's
 * stat) is counted and named, not read as "none". */
static void test_renamed_key_caught(void **state)
{
	mt_check_trial_compare_options o = {.rtol = NAN, .atol = NAN};
	mt_check_trial_result r;
	mt_check_view v;
	json_t *t0;

	(void)state;
	assert_int_equal(mt_check_trial_compare(&r, NULL, fx.ref, fx.cand, NULL, &o), 0);
	t0 = json_array_get(json_object_get(r.result, "tensors"), 0);
	json_object_set(t0, "max_abs_diff", json_object_get(t0, "max_abs"));
	json_object_del(t0, "max_abs");
	assert_true(reread(&v, r.result, "compare") < 0);
	assert_non_null(strstr(mt_error_last(), "max_abs"));
	assert_true(isnan(v.t.tensors[0].max_abs));
	mt_check_view_dispose(&v);
	json_object_del(r.result, "stat");
	json_object_set_new(t0, "max_abs", json_real(0.5));
	assert_true(reread(&v, r.result, "compare") < 0);
	assert_non_null(strstr(mt_error_last(), "'stat'"));
	mt_check_view_dispose(&v);
	mt_error_clear();
	mt_check_trial_result_dispose(&r);
}

/* A series' value as the result writes it: a value not finite as none. */
static int as_written(double read, double computed)
{
	return isfinite(computed) ? read == computed : isnan(read);
}

/* The curves fixture against one that leaves the band: the view says what
 * the comparison found, the reference file's metric, and a record of it. */
static void test_curves(void **state)
{
	mt_check_trial_curves_options o;
	mt_check_trial_curves_result r;
	const mt_check_curves *c = &r.check.view.c;
	mt_check_view check;

	(void)state;
	mt_check_trial_curves_defaults(&o);
	assert_int_equal(mt_check_trial_curves(&r, NULL, CURVES "ref.csv", CURVES "diverged.jsonl", &o),
			 0);
	assert_int_equal(reread(&check, r.check.result, "curves"), 0);
	mt_check_view_dispose(&check);
	assert_true(r.check.view.is_curves);
	assert_int_equal(r.check.view.passed, r.cmp.passed);
	assert_int_equal(c->points, (int64_t)r.cmp.n);
	assert_int_equal(c->outside_band, (int64_t)r.cmp.outside);
	assert_string_equal(c->value_name, "loss");
	assert_string_equal(c->align, "step");
	assert_int_equal(!isnan(c->first_divergent_step), r.cmp.first_divergent.has);
	if (r.cmp.first_divergent.has)
		assert_true(c->first_divergent_step == r.cmp.first_divergent.step);
	assert_true(c->final_reference == r.cmp.final_ref);
	assert_int_equal(c->max_abs_gap.has, r.cmp.max_abs_gap.has);
	assert_true(c->has_max_abs_gap_key);
	/* the series the wizard plots: the first and the last point kept */
	assert_true(c->nseries > 1 && c->nseries <= r.cmp.n);
	assert_true(c->series_steps[0] == r.cmp.steps[0]);
	assert_true(c->series_reference[0] == r.cmp.ref[0]);
	assert_true(c->series_candidate[0] == r.cmp.cand[0]);
	assert_true(c->series_steps[c->nseries - 1] == r.cmp.steps[r.cmp.n - 1]);
	assert_true(as_written(c->series_candidate[c->nseries - 1], r.cmp.cand[r.cmp.n - 1]));
	mt_check_trial_curves_dispose(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_torchsave),
		cmocka_unit_test(test_compare_failure_recorded),
		cmocka_unit_test(test_renamed_key_caught),
		cmocka_unit_test(test_curves),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
