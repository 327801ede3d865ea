/* The probe against a table that lists public APIs: a call is judged by its
 * API's entry first, then by its op (the op's entry, else the worst of the
 * API entries naming it, else the entries of the APIs whose calls reached
 * it); a method call as torch.Tensor.NAME; an observation and an override
 * of the op outrank an API entry; a dtype-limited CPU fallback against the
 * inventory's dtypes; the summary counts APIs and ops apart. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "error.h"
#include "probe.h"

#define HEAD(kind)                                                                        \
	"schema: mtrial-compat/1\nname: t1\nbackend: b\nversion: \"1\"\nkind: " kind "\n" \
	"source: {url: https://example.com/t}\nretrieved: 2026-11-01\n"

/* Line 8 on: the entries, one a line. */
#define APIS                                                                                    \
	HEAD("documented")                                                                      \
	"ops:\n"                                                                                \
	"  aten::add: {status: device}\n"                                                      \
	"apis:\n"                                                                               \
	"  torch.add: {status: unsupported}\n"                                                 \
	"  torch.cumsum: {status: cpu_fallback, ops: [aten::cumsum], dtypes: {fallback: [int64]}}\n" \
	"  torch.Tensor.cumsum: {status: device, ops: [aten::cumsum]}\n"                      \
	"  torch.Tensor.view: {status: partial, conditions: [contiguous]}\n"                  \
	"  torch.manual_seed: {status: device, kind: host-only}\n"

static mt_compat_table *parse_ok(const char *text)
{
	mt_compat_table *t = NULL;
	if (mt_compat_parse(&t, text, strlen(text), "t.yaml") != 0)
		fail_msg("parse failed: %s", mt_error_last());
	return t;
}

/* torch.add, torch.cumsum twice, torch.manual_seed (no op), torch.sub; a
 * method view with an uncertain receiver. */
static void sites(json_t **calls, json_t **methods)
{
	*calls = json_pack("[{ss, ss, ss, si}, {ss, ss, ss, si}, {ss, ss, ss, si}, {ss, sn, ss, si},"
			   " {ss, ss, ss, si}]",
			   "api", "torch.add", "op", "aten::add", "file", "a.py", "line", 1,
			   "api", "torch.cumsum", "op", "aten::cumsum", "file", "a.py", "line", 2,
			   "api", "torch.cumsum", "op", "aten::cumsum", "file", "a.py", "line", 3,
			   "api", "torch.manual_seed", "op", "file", "a.py", "line", 4,
			   "api", "torch.sub", "op", "aten::sub", "file", "a.py", "line", 5);
	*methods = json_pack("[{ss, ss, ss, si, sb}]", "name", "view", "op", "aten::view", "file",
			     "a.py", "line", 6, "certain", 0);
}

static json_t *find(json_t *res, const char *list, const char *key, const char *name)
{
	json_t *o;
	size_t i;
	json_array_foreach(json_object_get(res, list), i, o)
		if (strcmp(json_string_value(json_object_get(o, key)), name) == 0)
			return o;
	fail_msg("no %s in the probe's %s", name, list);
	return NULL;
}

static const char *s(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void test_api_first_then_op(void **state)
{
	mt_compat_table *t = parse_ok(APIS);
	mt_probe_inputs in = {.table = t};
	json_t *calls, *methods, *res = NULL, *o;
	(void)state;

	sites(&calls, &methods);
	assert_int_equal(mt_probe_run(&res, &in, calls, methods), 0);
	assert_string_equal(s(res, "listed_by"), "api");
	/* the API's entry beats the op's */
	o = find(res, "apis", "api", "torch.add");
	assert_string_equal(s(o, "status"), "unsupported");
	assert_string_equal(s(o, "source"), "table:t1:11");
	o = find(res, "ops", "op", "aten::add");
	assert_string_equal(s(o, "status"), "device");
	assert_string_equal(s(o, "source"), "table:t1:9");
	/* two APIs name aten::cumsum: the op is as good as the worse */
	o = find(res, "ops", "op", "aten::cumsum");
	assert_string_equal(s(o, "status"), "cpu_fallback");
	assert_string_equal(s(o, "via"), "torch.cumsum");
	assert_null(json_object_get(o, "kind"));
	/* a method call is torch.Tensor.NAME, its receiver assumed */
	o = find(res, "apis", "api", "torch.Tensor.view");
	assert_string_equal(s(o, "status"), "partial");
	assert_string_equal(s(o, "receiver"), "assumed a tensor");
	assert_true(json_is_false(json_object_get(o, "certain")));
	/* ... and its op takes that entry: the API that reached it */
	o = find(res, "ops", "op", "aten::view");
	assert_string_equal(s(o, "status"), "partial");
	assert_string_equal(s(o, "via"), "torch.Tensor.view");
	/* a host-only API: supported, its kind a condition; no op */
	o = find(res, "apis", "api", "torch.manual_seed");
	assert_string_equal(s(o, "status"), "device");
	assert_string_equal(s(o, "kind"), "host-only");
	assert_true(json_is_null(json_object_get(o, "op")));
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(o, "conditions"), 0)),
			       "no device work"));
	/* nothing lists torch.sub or aten::sub */
	assert_string_equal(s(find(res, "apis", "api", "torch.sub"), "status"), "unknown");
	assert_string_equal(s(find(res, "ops", "op", "aten::sub"), "source"), "none");
	/* counted apart: 5 APIs, 4 ops (torch.manual_seed runs none) */
	o = json_object_get(res, "summary");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "apis"), "apis")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "apis"), "unsupported")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "ops")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "unsupported")), 0);
	assert_string_equal(s(o, "support_of"), "ops");
	json_decref(res);
	json_decref(calls);
	json_decref(methods);
	mt_compat_free(t);
}

static void test_observed_and_override_outrank_api_entries(void **state)
{
	mt_compat_table *t = parse_ok(APIS);
	mt_compat_table *seen = parse_ok(HEAD("observed") "ops:\n  aten::add: {status: device}\n");
	mt_probe_override ov = {.name = "aten::cumsum", .status = "unsupported"};
	mt_probe_inputs in = {.table = t, .observed = seen, .overrides = &ov, .noverrides = 1};
	json_t *calls, *methods, *res = NULL, *o;
	(void)state;

	sites(&calls, &methods);
	assert_int_equal(mt_probe_run(&res, &in, calls, methods), 0);
	o = find(res, "apis", "api", "torch.add");
	assert_string_equal(s(o, "status"), "device");
	assert_string_equal(s(o, "source"), "observed:t1:9");
	o = find(res, "apis", "api", "torch.cumsum");
	assert_string_equal(s(o, "status"), "unsupported");
	assert_string_equal(s(o, "source"), "override:trial.yaml#1");
	json_decref(res);
	json_decref(calls);
	json_decref(methods);
	mt_compat_free(t);
	mt_compat_free(seen);
}

/* aten::cumsum as a trace saw it: `dtypes` decides the int64 fallback. */
static const char *cumsum_with(mt_compat_table *t, json_t *dtypes, const char **cond)
{
	static char status[32];
	json_t *calls = json_pack("[{ss, ss, si}]", "api", "aten::cumsum", "op", "aten::cumsum",
				  "count", 4);
	json_t *ops = json_pack("{s{sO}}", "aten::cumsum", "dtypes", dtypes);
	mt_probe_inputs in = {.table = t, .inventory_ops = ops};
	json_t *res = NULL, *o;
	static char c[256];

	assert_int_equal(mt_probe_run(&res, &in, calls, NULL), 0);
	assert_string_equal(s(res, "listed_by"), "op"); /* a trace names no API */
	o = find(res, "ops", "op", "aten::cumsum");
	snprintf(status, sizeof(status), "%s", s(o, "status"));
	snprintf(c, sizeof(c), "%s", json_string_value(json_array_get(json_object_get(o, "conditions"), 0)) ?: "");
	*cond = c;
	json_decref(res);
	json_decref(ops);
	json_decref(calls);
	return status;
}

static void test_dtype_limited_fallback(void **state)
{
	mt_compat_table *t = parse_ok(HEAD("documented") "apis:\n  torch.cumsum: {status: "
				      "cpu_fallback, ops: [aten::cumsum], dtypes: {fallback: [int64]}}\n");
	json_t *f32 = json_pack("[s]", "float32"), *both = json_pack("[ss]", "float32", "int64");
	json_t *none = json_array();
	const char *cond;
	(void)state;

	assert_string_equal(cumsum_with(t, f32, &cond), "device");
	assert_string_equal(cond, "CPU fallback only for int64; seen only with float32, which run on "
				  "the device");
	assert_string_equal(cumsum_with(t, both, &cond), "cpu_fallback");
	assert_string_equal(cond, "CPU fallback only for int64; seen with float32, int64");
	/* no dtype known: the fallback holds, under its condition */
	assert_string_equal(cumsum_with(t, none, &cond), "cpu_fallback");
	assert_string_equal(cond, "CPU fallback only for int64; the dtypes it runs with are not known "
				  "here");
	json_decref(f32);
	json_decref(both);
	json_decref(none);
	mt_compat_free(t);
}

/* A module class with no entry of its own is judged by the op its forward
 * runs: a table API entry whose API runs that op by the API map
 * (F.linear, F.layer_norm) decides, the worse of two, and says which. */
static void test_module_class_by_its_op(void **state)
{
	mt_compat_table *t = parse_ok(HEAD("documented") "apis:\n"
				      "  torch.nn.functional.linear: {status: device}\n"
				      "  torch.nn.functional.layer_norm: {status: device}\n"
				      "  torch.layer_norm: {status: cpu_fallback}\n");
	mt_probe_inputs in = {.table = t};
	json_t *calls = json_pack("[{ss, ss, ss, si}, {ss, ss, ss, si}, {ss, ss, ss, si}]", "api",
				  "torch.nn.Linear", "op", "aten::linear", "file", "m.py", "line", 1,
				  "api", "torch.nn.LayerNorm", "op", "aten::layer_norm", "file",
				  "m.py", "line", 2, "api", "torch.nn.GELU", "op", "aten::gelu",
				  "file", "m.py", "line", 3);
	json_t *res = NULL, *o;
	(void)state;

	assert_int_equal(mt_probe_run(&res, &in, calls, NULL), 0);
	o = find(res, "apis", "api", "torch.nn.Linear");
	assert_string_equal(s(o, "status"), "device");
	assert_string_equal(s(o, "source"), "table:t1:9");
	assert_string_equal(s(o, "via"), "torch.nn.functional.linear");
	o = find(res, "apis", "api", "torch.nn.LayerNorm");
	assert_string_equal(s(o, "status"), "cpu_fallback");
	assert_string_equal(s(o, "via"), "torch.layer_norm");
	/* the op itself, reached by the class alone, the same */
	assert_string_equal(s(find(res, "ops", "op", "aten::linear"), "status"), "device");
	/* nothing in the table runs aten::gelu */
	assert_string_equal(s(find(res, "apis", "api", "torch.nn.GELU"), "status"), "unknown");
	json_decref(res);
	json_decref(calls);
	mt_compat_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api_first_then_op),
		cmocka_unit_test(test_observed_and_override_outrank_api_entries),
		cmocka_unit_test(test_dtype_limited_fallback),
		cmocka_unit_test(test_module_class_by_its_op),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
