/* inventory_view: an inventory as `mtrial ops show` reads it, from the real
 * producers: a trace parsed by mt_opinventory_trace_parse (optrace.py's format, with
 * phases, dtypes, shapes and a run that ended early), and a trial's scan
 * of the scan fixtures resolved as "scan", and their difference. Every key
 * read, values as in the JSON, and a key renamed on the producer's side
 * named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixtures.h"
#include "opinventory.h"
#include "probe_trial.h"
#include "scan_trial.h"
#include "util.h"

static const char trace[] =
	"{\"format\": \"mtrial-optrace\", \"version\": 1, \"torch\": \"2.5.1\", "
	"\"python\": \"3.11.9\", \"steps\": 2, \"step_counter\": \"optimizer\", "
	"\"devices\": [\"cuda:0\"], \"ended\": \"max_steps\", \"incomplete\": \"stopped at 2 steps\", "
	"\"warnings\": [\"no torch.optim step seen in the first 100 ops\"], \"ops\": ["
	"{\"op\": \"aten::add\", \"overload\": \"Tensor\", \"count\": 4, \"backward_only\": false,"
	" \"phases\": {\"setup\": 0, \"forward\": 2, \"backward\": 2, \"optimizer\": 0},"
	" \"dtypes\": [\"float32\"], \"shapes\": [[[2, 3], [2, 3]]], \"distinct_shapes\": 1},"
	"{\"op\": \"aten::mm\", \"overload\": \"default\", \"count\": 2, \"backward_only\": true}]}";

static const mt_inventory_op *op_named(const mt_opinventory_view *v, const char *name)
{
	for (size_t i = 0; i < v->nops; i++)
		if (strcmp(v->ops[i].name, name) == 0)
			return &v->ops[i];
	fail_msg("no op %s", name);
	return NULL;
}

static void test_trace(void **state)
{
	json_t *inv = NULL;
	mt_opinventory_view v;
	const mt_inventory_op *add, *mm;

	(void)state;
	if (mt_opinventory_trace_parse(&inv, trace, strlen(trace), "ops.json") < 0 ||
	    mt_opinventory_view_read(&v, inv) < 0)
		fail_msg("%s", mt_error_last());
	assert_true(v.is_trace);
	assert_false(v.is_torchscript);
	assert_string_equal(v.source, "trace");
	assert_string_equal(v.trace.torch, "2.5.1");
	assert_string_equal(v.trace.incomplete, "stopped at 2 steps");
	assert_int_equal(v.trace.steps, 2);
	assert_true(v.has_trace_steps);
	assert_int_equal(v.trace.ndevices, 1);
	assert_int_equal(v.trace.nwarnings, 1);
	assert_int_equal(v.nops, json_object_size(json_object_get(inv, "ops")));
	add = op_named(&v, "aten::add");
	assert_true(add->has_phases);
	assert_int_equal(add->backward, 2);
	assert_int_equal(add->ndtypes, 1);
	assert_int_equal(add->distinct_shapes, 1);
	mm = op_named(&v, "aten::mm");
	assert_true(mm->backward_only);
	assert_int_equal(v.ncalls, json_array_size(json_object_get(inv, "calls")));
	assert_ptr_equal(v.detail, json_object_get(inv, "trace")); /* passed on whole */
	mt_opinventory_view_dispose(&v);
	/* a key renamed inside an op is named */
	json_object_set(json_object_get(json_object_get(inv, "ops"), "aten::mm"), "n",
			json_object_get(json_object_get(json_object_get(inv, "ops"), "aten::mm"),
					"count"));
	json_object_del(json_object_get(json_object_get(inv, "ops"), "aten::mm"), "count");
	assert_int_equal(mt_opinventory_view_read(&v, inv), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "'count'"));
	mt_opinventory_view_dispose(&v);
	json_decref(inv);
}

/* The difference between the scan and the trace, as mtrial ops diff reads
 * it: every op of either side in one list, with its counts. */
static void diff_against_trace(json_t *scan)
{
	json_t *tr = NULL, *d = NULL;
	mt_opinventory_diff_view v;
	size_t n;

	if (mt_opinventory_trace_parse(&tr, trace, strlen(trace), "ops.json") < 0 ||
	    mt_opinventory_diff(&d, scan, tr) < 0 || mt_opinventory_diff_view_read(&v, d) < 0)
		fail_msg("%s", mt_error_last());
	assert_string_equal(v.a.source, "scan");
	assert_string_equal(v.b.source, "trace");
	assert_true(v.has_missed_by_scan);
	n = v.both.n + v.only_a.n + v.only_b.n + v.backward_only.n + v.missed_by_scan.n +
	    v.ndecomposed;
	assert_true(n >= json_object_size(json_object_get(scan, "ops")));
	assert_int_equal(v.backward_only.n, 1); /* aten::mm */
	assert_string_equal(v.backward_only.v[0].op, "aten::mm");
	assert_int_equal(v.backward_only.v[0].b, 2);
	mt_opinventory_diff_view_dispose(&v);
	json_object_del(json_object_get(d, "a"), "source");
	assert_int_equal(mt_opinventory_diff_view_read(&v, d), MT_EINVALID);
	mt_opinventory_diff_view_dispose(&v);
	json_decref(d);
	json_decref(tr);
}

static void test_scan(void **state)
{
	mt_scan_trial_options o = {.scan = {.use_cache = 0}};
	mt_scan_trial_result r;
	mt_trial *t = NULL;
	json_t *inv = NULL;
	char *tmp = mt_fx_tmpdir("inventory_view"), *dir = mt_path_join(tmp, ".mtrial");
	mt_opinventory_view v;
	size_t sited = 0;

	(void)state;
	mt_fx_copy(tmp, "train.py", "tests/data/scan/cuda_heavy.py");
	mt_fx_commit(tmp, (const char *const[]){"train.py", NULL});
	o.scan.repo = tmp;
	if (mt_trial_create(dir, "t", tmp, NULL) < 0 || mt_trial_open(&t, dir, 1) < 0 ||
	    mt_scan_trial_run(&r, t, &o, NULL) < 0 ||
	    mt_inventory_resolve(&inv, t, "scan", NULL, NULL) < 0 ||
	    mt_opinventory_view_read(&v, inv) < 0)
		fail_msg("%s", mt_error_last());
	assert_string_equal(v.source, "scan");
	assert_false(v.is_trace || v.is_torchscript);
	assert_false(v.has_trace_steps);
	assert_null(v.detail);
	assert_string_equal(v.rev, r.scan.commit);
	assert_int_equal(v.nops, json_object_size(json_object_get(inv, "ops")));
	assert_int_equal(v.ncalls, r.calls);
	for (size_t i = 0; i < v.ncalls; i++)
		sited += v.calls[i].file && v.calls[i].line > 0;
	assert_int_equal(sited, v.ncalls);
	mt_opinventory_view_dispose(&v);
	diff_against_trace(inv);
	mt_scan_trial_result_dispose(&r);
	json_decref(inv);
	mt_trial_free(t);
	mt_fx_rmtree(tmp);
	free(dir);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_scan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
