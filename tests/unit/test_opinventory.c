/* Exact inventories without libtorch: a trace parsed field by field, the
 * zip checks in front of the TorchScript loader, and the differences
 * between inventories (a recorded scan, which carries no "source"; tensor
 * method calls; overloads folded into their base op; backward-only ops). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "opinventory.h"

static json_t *parse_ok(const char *text)
{
	json_t *inv = NULL;
	if (mt_opinventory_trace_parse(&inv, text, strlen(text), "t.json") < 0)
		fail_msg("%s", mt_error_last());
	return inv;
}

static void parse_fails(const char *text, const char *message)
{
	json_t *inv = NULL;
	assert_int_equal(mt_opinventory_trace_parse(&inv, text, strlen(text), "t.json"), MT_EINVALID);
	assert_null(inv);
	if (!strstr(mt_error_last(), message))
		fail_msg("expected '%s' in '%s'", message, mt_error_last());
}

#define TRACE(ops) "{\"format\": \"mtrial-optrace\", \"version\": 1, \"torch\": \"2.5.1\", " \
		   "\"steps\": 2, \"devices\": [\"cuda:0\"], \"ops\": [" ops "]}"

static void test_trace_fields(void **state)
{
	json_t *inv, *add;
	(void)state;

	inv = parse_ok(TRACE(
		"{\"op\": \"aten::add\", \"overload\": \"Tensor\", \"count\": 4, \"backward_only\": true,"
		" \"phases\": {\"forward\": 0, \"backward\": 4, \"optimizer\": 0},"
		" \"dtypes\": [\"float32\"], \"shapes\": [[[2, 3], [2, 3]]], \"distinct_shapes\": 1},"
		"{\"op\": \"aten::add\", \"overload\": \"Scalar\", \"count\": 1, \"backward_only\": false,"
		" \"phases\": {\"forward\": 1, \"backward\": 0, \"optimizer\": 0},"
		" \"dtypes\": [\"bfloat16\"], \"shapes\": [[[5]]], \"distinct_shapes\": 3},"
		"{\"op\": \"aten::mm\", \"overload\": \"default\", \"count\": 2, \"backward_only\": true},"
		"{\"op\": \"profiler::_record_function_enter\", \"overload\": \"default\", \"count\": 9}"));
	assert_string_equal(json_string_value(json_object_get(inv, "source")), "trace");
	assert_int_equal(json_object_size(json_object_get(inv, "ops")), 2); /* profiler dropped */
	add = json_object_get(json_object_get(inv, "ops"), "aten::add");
	assert_int_equal(json_integer_value(json_object_get(add, "count")), 5);
	assert_int_equal(json_array_size(json_object_get(add, "overloads")), 2);
	assert_false(json_is_true(json_object_get(add, "backward_only"))); /* one overload runs forward */
	assert_int_equal(json_integer_value(json_object_get(add, "distinct_shapes")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(add, "phases"), "backward")), 4);
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(inv, "ops"), "aten::mm"),
						 "backward_only")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_object_get(
					    json_object_get(inv, "ops"), "aten::mm"), "overloads"), 0)),
			    "");
	/* every op is one probe site carrying its dispatch count */
	assert_int_equal(json_array_size(json_object_get(inv, "calls")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(inv, "calls"), 0),
							    "count")), 4);
	json_decref(inv);

	parse_fails("{\"format\": ", "t.json:1:");
	parse_fails("[1, 2]", "not an optrace file");
	parse_fails("{\"format\": \"mtrial-optrace\", \"version\": \"1\", \"ops\": []}",
		    "version: missing or not an integer");
	parse_fails(TRACE("{\"op\": \"aten::add\", \"count\": 1.5}"),
		    "t.json: ops[0].count: expected a non-negative integer");
	parse_fails(TRACE("{\"op\": \"aten::add\", \"count\": 1}, 7"), "t.json: ops[1]: expected an object");
	parse_fails(TRACE("{\"count\": 1}"), "t.json: ops[0].op: missing");
	parse_fails(TRACE("{\"op\": \"aten::add\", \"count\": 1, \"backward_only\": \"no\"}"),
		    "ops[0].backward_only: expected true or false");
	parse_fails(TRACE("{\"op\": \"aten::add\", \"count\": 1, \"shapes\": {}}"),
		    "ops[0].shapes: expected an array");
	parse_fails("{\"format\": \"mtrial-optrace\", \"version\": 1, \"torch\": \"2.5\", \"steps\": -1, "
		    "\"ops\": []}",
		    "t.json: steps: expected a non-negative integer");
}

/* Every op of the diff in exactly one of its lists. */
static void each_op_once(json_t *d)
{
	static const char *const lists[] = {"both", "only_a", "only_b", "decomposed", "explained",
					    "backward_only", "missed_by_scan", NULL};
	json_t *seen = json_object(), *v;
	const char *op;
	size_t i;

	for (const char *const *l = lists; *l; l++)
		json_array_foreach(json_object_get(d, *l), i, v) {
			if (json_object_get(seen, json_string_value(v)))
				fail_msg("%s in %s and %s", json_string_value(v), *l,
					 json_string_value(json_object_get(seen, json_string_value(v))));
			json_object_set_new(seen, json_string_value(v), json_string(*l));
		}
	json_object_foreach(json_object_get(d, "counts"), op, v)
		if (!json_object_get(seen, op))
			fail_msg("%s in no list", op);
	json_decref(seen);
}

static void test_diff_against_a_recorded_scan(void **state)
{
	json_error_t jerr;
	/* what the journal gives back for a scan: no "source" key */
	json_t *scan = json_loads("{\"repo\": \"/r\", \"rev\": \"abc\", \"ops\": {"
				  " \"aten::linear\": {\"count\": 2}, \"aten::dropout\": {\"count\": 1},"
				  " \"aten::log_softmax\": {\"count\": 1}, \"aten::nll_loss_nd\": {\"count\": 1}},"
				  " \"methods\": [{\"name\": \"double\", \"op\": \"aten::to\"},"
				  " {\"name\": \"tolist\", \"op\": null}]}",
				  0, &jerr);
	json_t *trace = parse_ok(TRACE(
		"{\"op\": \"aten::to\", \"overload\": \"dtype\", \"count\": 3},"
		"{\"op\": \"aten::addmm\", \"overload\": \"default\", \"count\": 6},"
		"{\"op\": \"aten::_log_softmax\", \"overload\": \"default\", \"count\": 2},"
		"{\"op\": \"aten::nll_loss_forward\", \"overload\": \"default\", \"count\": 2},"
		"{\"op\": \"aten::lift_fresh\", \"overload\": \"default\", \"count\": 9},"
		"{\"op\": \"aten::mm\", \"overload\": \"default\", \"count\": 2, \"backward_only\": true}"));
	json_t *d = NULL;
	char *text;
	(void)state;

	assert_non_null(scan);
	assert_int_equal(mt_opinventory_diff(&d, scan, trace), 0);
	assert_non_null(d);
	text = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "a"), "source")), "scan");
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "a"), "rev")), "abc");
	assert_non_null(strstr(text, "\"both\":[\"aten::to\"]"));        /* x.double() counts */
	/* composites the scan found, run as what they decompose into */
	assert_non_null(strstr(text, "\"decomposed\":[\"aten::linear\",\"aten::log_softmax\","
				     "\"aten::nll_loss_nd\"]"));
	assert_non_null(strstr(text, "\"explained\":[\"aten::_log_softmax\",\"aten::addmm\","
				     "\"aten::nll_loss_forward\"]"));
	assert_non_null(strstr(text, "\"aten::log_softmax\":[\"aten::_log_softmax\"]"));
	assert_non_null(strstr(text, "\"only_a\":[\"aten::dropout\"]"));
	assert_non_null(strstr(text, "\"only_b\":[]"));     /* never a second time */
	assert_non_null(strstr(text, "\"missed_by_scan\":[\"aten::lift_fresh\"]"));
	/* linear's backward runs mm: backward, not linear's forward decomposition */
	assert_non_null(strstr(text, "\"backward_only\":[\"aten::mm\"]"));
	assert_non_null(strstr(text, "\"aten::to\":[1,3]"));
	assert_non_null(strstr(text, "\"aten::addmm\":[0,6]"));
	each_op_once(d);
	free(text);
	json_decref(d);

	/* the trace first: the same matching, sides swapped */
	assert_int_equal(mt_opinventory_diff(&d, trace, scan), 0);
	assert_int_equal(json_array_size(json_object_get(d, "explained")), 3);
	assert_int_equal(json_array_size(json_object_get(d, "only_b")), 1);
	each_op_once(d);
	json_decref(d);

	/* two exact sources: no missed_by_scan, no decomposition */
	assert_int_equal(mt_opinventory_diff(&d, trace, trace), 0);
	assert_null(json_object_get(d, "missed_by_scan"));
	assert_int_equal(json_array_size(json_object_get(d, "both")), 6);
	json_decref(d);
	json_decref(scan);
	json_decref(trace);
}

/* A composite is matched through an op of its own, never through a
 * generic op alone, nor through what only the optimizer's step ran: an
 * SGD's momentum aten::clone is no aten::batch_norm (a held-out trial's
 * trace of LeNet said batch_norm "ran as" clone). */
static void test_decomposition_needs_its_own_op(void **state)
{
	json_error_t jerr;
	json_t *scan = json_loads("{\"repo\": \"/r\", \"rev\": \"abc\", \"ops\": {"
				  " \"aten::batch_norm\": {\"count\": 3}, \"aten::reshape\": {\"count\": 1},"
				  " \"aten::conv2d\": {\"count\": 2}}}", 0, &jerr);
	json_t *opt_clone = parse_ok(TRACE(
		"{\"op\": \"aten::clone\", \"count\": 4, \"phases\": {\"setup\": 0, \"forward\": 0,"
		" \"backward\": 0, \"optimizer\": 4}},"
		"{\"op\": \"aten::empty\", \"count\": 2, \"phases\": {\"setup\": 2}},"
		"{\"op\": \"aten::convolution\", \"count\": 2, \"phases\": {\"forward\": 2}}"));
	json_t *bn = parse_ok(TRACE(
		"{\"op\": \"aten::clone\", \"count\": 4, \"phases\": {\"forward\": 4}},"
		"{\"op\": \"aten::native_batch_norm\", \"count\": 3, \"phases\": {\"forward\": 3}}"));
	json_t *d = NULL, *dec;
	(void)state;

	assert_non_null(scan);
	assert_int_equal(mt_opinventory_diff(&d, scan, opt_clone), 0);
	dec = json_object_get(d, "decompositions");
	assert_null(json_object_get(dec, "aten::batch_norm")); /* clone, empty: generic */
	assert_null(json_object_get(dec, "aten::reshape"));    /* clone only in the optimizer */
	assert_non_null(json_object_get(dec, "aten::conv2d"));  /* convolution: its own */
	each_op_once(d);
	json_decref(d);

	assert_int_equal(mt_opinventory_diff(&d, scan, bn), 0);
	dec = json_object_get(d, "decompositions");
	assert_int_equal(json_array_size(json_object_get(dec, "aten::batch_norm")), 2); /* with its clone */
	assert_non_null(json_object_get(dec, "aten::reshape")); /* generic only: matched by clone */
	each_op_once(d);
	json_decref(d);
	json_decref(scan);
	json_decref(opt_clone);
	json_decref(bn);
}

static char *write_tmp(const char *name, const void *data, size_t len)
{
	char *path = malloc(256);
	FILE *f;
	snprintf(path, 256, "%s/mtrial-exact-%d-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid(), name);
	f = fopen(path, "wb");
	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	return path;
}

static void check_refused(const char *name, const void *data, size_t len, const char *message)
{
	char *path = write_tmp(name, data, len);
	int64_t size = -1;
	assert_int_equal(mt_opinventory_torchscript_check(path, &size), MT_EINVALID);
	if (!strstr(mt_error_last(), message) || !strstr(mt_error_last(), name))
		fail_msg("%s: expected '%s' in '%s'", name, message, mt_error_last());
	unlink(path);
	free(path);
}

static void test_archive_checks(void **state)
{
	/* a zip with one stored entry and a valid end record, but no code/ */
	static const unsigned char empty_zip[22] = {'P', 'K', 5, 6};
	unsigned char local_only[64] = {'P', 'K', 3, 4};
	int64_t size = -1;
	(void)state;

	check_refused("empty.pt", "", 0, "empty file");
	check_refused("text.pt", "import torch\n", 13, "not a zip file");
	check_refused("pickle.pt", "\x80\x02}q\x00.", 6, "a pickle");
	check_refused("cut.pt", local_only, sizeof(local_only), "truncated or damaged zip");
	{
		unsigned char zip[26 + 22] = {'P', 'K', 3, 4};
		memcpy(zip + 26, empty_zip, sizeof(empty_zip));
		check_refused("bare.pt", zip, sizeof(zip), "without the code/ and constants.pkl");
	}
	assert_int_equal(mt_opinventory_torchscript_check("/nonexistent/model.pt", &size), MT_ENOTFOUND);
	assert_int_equal(mt_opinventory_torchscript_check("/", &size), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "not a regular file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_fields),
		cmocka_unit_test(test_diff_against_a_recorded_scan),
		cmocka_unit_test(test_decomposition_needs_its_own_op),
		cmocka_unit_test(test_archive_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
