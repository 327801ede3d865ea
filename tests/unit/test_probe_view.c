/* probe_view: the probe's result as the CLI and the wizard read it. The
 * result is the real one: a trial's scan of a repository made of the scan
 * fixtures (tests/data/scan), probed against the default table; the view
 * must read every key, agree with the JSON, and name a key renamed on the
 * producer's side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "opinventory.h"
#include "fixtures.h"
#include "probe.h"
#include "probe_trial.h"
#include "scan_trial.h"
#include "util.h"

static struct {
	char *tmp;
	mt_trial *trial;
	json_t *probe;
} fx;

static int setup(void **state)
{
	mt_scan_trial_options o = {.scan = {.use_cache = 0}};
	mt_scan_trial_result r;
	json_t *inv = NULL;
	int64_t scan_id = 0;
	char *dir;

	(void)state;
	fx.tmp = mt_fx_tmpdir("probe_view");
	mt_fx_copy(fx.tmp, "train.py", "tests/data/scan/cuda_heavy.py");
	mt_fx_copy(fx.tmp, "pkg/data.py", "tests/data/scan/receivers.py");
	mt_fx_commit(fx.tmp, (const char *const[]){"train.py", "pkg/data.py", NULL});
	dir = mt_path_join(fx.tmp, ".mtrial");
	if (mt_trial_create(dir, "t", fx.tmp, NULL) < 0 || mt_trial_open(&fx.trial, dir, 1) < 0)
		fail_msg("%s", mt_error_last());
	free(dir);
	o.scan.repo = fx.tmp;
	if (mt_scan_trial_run(&r, fx.trial, &o, NULL) < 0 ||
	    mt_journal_scan_latest(fx.trial->journal, 1, &inv, &scan_id, NULL) < 0 ||
	    mt_probe_trial(&fx.probe, NULL, fx.trial, NULL, NULL, inv, scan_id) < 0)
		fail_msg("%s", mt_error_last());
	mt_scan_trial_result_dispose(&r);
	json_decref(inv);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	json_decref(fx.probe);
	mt_trial_free(fx.trial);
	mt_fx_rmtree(fx.tmp);
	free(fx.tmp);
	return 0;
}

static json_int_t num(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* Every entry read as the JSON has it, sites included. */
static void same_entries(const json_t *arr, const mt_probe_entry *e, size_t n, const char *key)
{
	const json_t *x;
	size_t i;

	assert_int_equal(n, json_array_size(arr));
	json_array_foreach(arr, i, x) {
		assert_string_equal(e[i].name, json_string_value(json_object_get(x, key)));
		assert_string_equal(e[i].status, json_string_value(json_object_get(x, "status")));
		assert_string_equal(e[i].source, json_string_value(json_object_get(x, "source")));
		assert_int_equal(e[i].count, num(x, "count"));
		assert_int_equal(e[i].nsites, json_array_size(json_object_get(x, "locations")));
		assert_int_equal(e[i].nconditions, json_array_size(json_object_get(x, "conditions")));
		assert_int_equal(e[i].certain, json_is_true(json_object_get(x, "certain")));
		assert_ptr_equal(e[i].json, x);
	}
}

static void test_reads_a_real_probe(void **state)
{
	const json_t *s = json_object_get(fx.probe, "summary");
	mt_probe_view v;
	size_t i, certain = 0;

	(void)state;
	if (mt_probe_view_read(&v, fx.probe) < 0)
		fail_msg("%s", mt_error_last());
	assert_true(v.nops > 0);
	same_entries(json_object_get(fx.probe, "ops"), v.ops, v.nops, "op");
	same_entries(json_object_get(fx.probe, "apis"), v.apis, v.napis, "api");
	assert_int_equal(v.op_counts.entries, (json_int_t)v.nops);
	assert_int_equal(v.op_counts.unknown, num(s, "unknown"));
	assert_int_equal(v.api_counts.entries, (json_int_t)v.napis);
	assert_string_equal(v.table_name, MT_PROBE_DEFAULT_TABLE);
	assert_string_equal(v.from_source, "scan");
	assert_string_equal(v.rev, json_string_value(json_object_get(fx.probe, "rev")));
	assert_true(v.probe_id > 0);
	assert_int_equal(v.from_inventory_id, -1); /* a scan's probe names no inventory */
	assert_int_equal(v.from_steps, -1);
	/* receivers.py's method calls: some sites are uncertain, others not */
	for (i = 0; i < v.nops; i++)
		for (size_t k = 0; k < v.ops[i].nsites; k++)
			certain += v.ops[i].sites[k].certain;
	assert_true(certain > 0);
	assert_true(v.op_counts.uncertain > 0);
	mt_probe_view_dispose(&v);
}

/* An entry passed on whole keeps its first sites only, as the view reads
 * them. */
static void test_cut_sites(void **state)
{
	json_t *copy = json_deep_copy(fx.probe);
	const mt_probe_entry *e = NULL;
	mt_probe_view v, cut;
	size_t i;

	(void)state;
	if (mt_probe_view_read(&v, copy) < 0)
		fail_msg("%s", mt_error_last());
	for (i = 0; i < v.nops && !e; i++)
		if (v.ops[i].nsites > 1)
			e = &v.ops[i];
	assert_non_null(e);
	mt_probe_entry_cut_sites((json_t *)e->json, 1);
	assert_int_equal(mt_probe_view_read(&cut, copy), 0);
	assert_int_equal(cut.ops[i - 1].nsites, 1);
	assert_int_equal(cut.ops[i - 1].sites[0].line,
			 num(json_array_get(json_object_get(json_array_get(json_object_get(fx.probe, "ops"),
									   i - 1),
							    "locations"),
					    0),
			     "line"));
	mt_probe_view_dispose(&cut);
	mt_probe_view_dispose(&v);
	json_decref(copy);
}

/* A key renamed in one entry (the producer's side) is named. */
static void test_names_a_renamed_key(void **state)
{
	json_t *copy = json_deep_copy(fx.probe);
	json_t *op = json_array_get(json_object_get(copy, "ops"), 0);
	mt_probe_view v;

	(void)state;
	json_object_set(op, "state", json_object_get(op, "status"));
	json_object_del(op, "status");
	assert_int_equal(mt_probe_view_read(&v, copy), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "'status'"));
	mt_probe_view_dispose(&v);
	json_object_del(json_object_get(copy, "summary"), "support_percentage");
	assert_int_equal(mt_probe_view_read(&v, copy), MT_EINVALID);
	mt_probe_view_dispose(&v);
	json_decref(copy);
}

/* A probe of a recorded trace names the inventory and its optimizer steps. */
static void test_trace_probe(void **state)
{
	static const char trace[] =
		"{\"format\": \"mtrial-optrace\", \"version\": 1, \"torch\": \"2.5.1\", "
		"\"steps\": 3, \"ops\": [{\"op\": \"aten::add\", \"overload\": \"Tensor\", "
		"\"count\": 4}]}";
	json_t *inv = NULL, *probe = NULL;
	mt_probe_view v;

	(void)state;
	if (mt_opinventory_trace_parse(&inv, trace, strlen(trace), "ops.json") < 0)
		fail_msg("%s", mt_error_last());
	json_object_set_new(inv, "inventory_id", json_integer(7));
	if (mt_probe_trial(&probe, NULL, NULL, NULL, NULL, inv, 0) < 0 ||
	    mt_probe_view_read(&v, probe) < 0)
		fail_msg("%s", mt_error_last());
	assert_string_equal(v.from_source, "trace");
	assert_int_equal(v.from_inventory_id, 7);
	assert_int_equal(v.from_steps, 3);
	mt_probe_view_dispose(&v);
	json_decref(probe);
	json_decref(inv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_a_real_probe),
		cmocka_unit_test(test_cut_sites),
		cmocka_unit_test(test_names_a_renamed_key),
		cmocka_unit_test(test_trace_probe),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
