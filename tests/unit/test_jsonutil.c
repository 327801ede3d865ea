/* common/jsonutil.c's typed accessors: a key of the right type reads as its
 * value; a missing key, a key of another type or a path through a
 * non-object reads as "none" (NULL, NAN, 0), never as a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include <jansson.h>

#include "error.h"
#include "jsonutil.h"
#include "jview.h"

static json_t *sample(void)
{
	json_error_t err;
	json_t *o = json_loads("{\"name\": \"run\", \"steps\": 12, \"loss\": 0.5, \"n\": null,"
			       " \"target\": {\"metric\": \"eval_loss\", \"value\": 2},"
			       " \"list\": [1]}",
			       0, &err);
	assert_non_null(o);
	return o;
}

static void test_members(void **state)
{
	json_t *o = sample();

	(void)state;
	assert_string_equal(mt_json_str(o, "name"), "run");
	assert_null(mt_json_str(o, "steps"));   /* a number is not a string */
	assert_null(mt_json_str(o, "missing"));
	assert_null(mt_json_str(NULL, "name"));
	assert_true(mt_json_num(o, "steps") == 12.0); /* an integer is a number */
	assert_true(mt_json_num(o, "loss") == 0.5);
	assert_true(isnan(mt_json_num(o, "name")));
	assert_true(isnan(mt_json_num(o, "n")));
	assert_true(isnan(mt_json_num(o, "missing")));
	assert_int_equal(mt_json_int(o, "steps"), 12);
	assert_int_equal(mt_json_int(o, "loss"), 0); /* a real is not an integer */
	assert_int_equal(mt_json_int(o, "missing"), 0);
	json_decref(o);
}

static void test_paths(void **state)
{
	json_t *o = sample();

	(void)state;
	assert_string_equal(mt_json_str_at(o, "target.metric"), "eval_loss");
	assert_string_equal(mt_json_str_at(o, "name"), "run");
	assert_int_equal(json_integer_value(mt_json_path(o, "target.value")), 2);
	assert_ptr_equal(mt_json_path(o, ""), o);
	assert_null(mt_json_path(o, "target.missing"));
	assert_null(mt_json_path(o, "name.metric")); /* through a string */
	assert_null(mt_json_path(o, "list.0"));      /* objects only */
	assert_null(mt_json_str_at(o, "target.value"));
	assert_null(mt_json_path(NULL, "target"));
	/* a key longer than any the model has is no match, not an overflow */
	assert_null(mt_json_path(o, "target.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	json_decref(o);
}

/* common/jview.c: required keys that are absent are counted and the first
 * is named; null is a known "none", not a missing key; optional keys never
 * count. */
static void test_view(void **state)
{
	json_t *o = sample();
	mt_jview v, sub;

	(void)state;
	mt_jview_init(&v, o, "run metrics");
	assert_string_equal(mt_jview_str(&v, "name"), "run");
	assert_int_equal(mt_jview_int(&v, "steps", -1), 12);
	assert_int_equal(mt_jview_int(&v, "loss", -1), -1); /* a real is no integer */
	assert_true(isnan(mt_jview_num(&v, "n")));          /* null: none, not missing */
	assert_null(mt_jview_get(&v, "n"));
	assert_true(mt_jview_bool(&v, "name", 7) == 7);
	assert_null(mt_jview_opt_str(&v, "comment"));        /* optional: not counted */
	assert_true(isnan(mt_jview_opt_num(&v, "later")));
	mt_jview_sub(&sub, &v, "target");
	assert_string_equal(mt_jview_str(&sub, "metric"), "eval_loss");
	mt_jview_close(&sub, &v);
	assert_int_equal(v.missing, 0);
	assert_int_equal(mt_jview_complete(&v), 0);

	/* a renamed key: counted and named, with the nested shape's too */
	assert_null(mt_jview_str(&v, "nmae"));
	mt_jview_sub(&sub, &v, "target");
	assert_true(isnan(mt_jview_num(&sub, "valeu")));
	assert_true(isnan(mt_jview_num(&sub, "value2")));
	mt_jview_close(&sub, &v);
	assert_int_equal(v.missing, 3);
	assert_int_equal(mt_jview_complete(&v), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "run metrics: key 'nmae' missing"));

	/* not an object: every required key is missing, nothing crashes */
	mt_jview_init(&v, json_object_get(o, "list"), "run");
	assert_null(mt_jview_str(&v, "name"));
	mt_jview_sub(&sub, &v, "target");
	assert_null(mt_jview_str(&sub, "metric"));
	mt_jview_close(&sub, &v);
	assert_int_equal(v.missing, 3);
	assert_string_equal(v.first_missing, "name");
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
