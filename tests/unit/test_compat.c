/* Compatibility tables and the probe: parsing with positions, overload
 * fallback, API entries (kinds, the aten ops they name, dtype-limited
 * fallbacks), the bundled tables, and precedence (observed > override >
 * table > unknown) with the source that decided each op. */
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

#define HEAD "schema: mtrial-compat/1\nname: t1\nbackend: b\nversion: \"1\"\nkind: documented\n" \
	     "source: {url: https://example.com/t}\nretrieved: 2026-11-01\n"

static mt_compat_table *parse_ok(const char *text)
{
	mt_compat_table *t = NULL;
	if (mt_compat_parse(&t, text, strlen(text), "t.yaml") != 0)
		fail_msg("parse failed: %s", mt_error_last());
	return t;
}

static void expect_error(const char *text, const char *msg)
{
	mt_compat_table *t = (mt_compat_table *)1;
	assert_int_equal(mt_compat_parse(&t, text, strlen(text), "t.yaml"), MT_EINVALID);
	assert_null(t);
	if (!strstr(mt_error_last(), msg))
		fail_msg("expected '%s' in '%s'", msg, mt_error_last());
}

static void test_parse_and_lookup(void **state)
{
	mt_compat_table *t = parse_ok(HEAD "ops:\n  aten::add:\n    status: device\n"
				      "  aten::pow:\n    status: partial\n    conditions: [\"exponent is a constant\"]\n"
				      "  aten::add.Scalar:\n    status: cpu_fallback\n");
	const mt_compat_op *o;
	(void)state;

	assert_string_equal(mt_compat_name(t), "t1");
	assert_string_equal(mt_compat_source(t), "https://example.com/t");
	assert_int_equal(mt_compat_nops(t), 3);
	o = mt_compat_lookup(t, "aten::add.Tensor"); /* falls back to the base name */
	assert_non_null(o);
	assert_int_equal(o->status, MT_COMPAT_DEVICE);
	assert_int_equal(o->line, 9);
	o = mt_compat_lookup(t, "aten::add.Scalar"); /* an exact overload wins */
	assert_int_equal(o->status, MT_COMPAT_CPU_FALLBACK);
	o = mt_compat_lookup(t, "aten::pow");
	assert_string_equal(o->conditions[0], "exponent is a constant");
	assert_null(mt_compat_lookup(t, "aten::mul"));
	mt_compat_free(t);
}

static void test_errors_name_line_and_column(void **state)
{
	(void)state;
	expect_error(HEAD "ops:\n  aten::add:\n    status: maybe\n", "t.yaml:10:13: unknown status 'maybe'");
	expect_error(HEAD "ops:\n  aten::pow:\n    status: partial\n", "t.yaml:9:3: op 'aten::pow' is partial but says no conditions");
	expect_error(HEAD "colour: blue\n", "t.yaml:8:1: unknown key 'colour'");
	expect_error(HEAD "ops:\n  add:\n    status: device\n", "t.yaml:9:3: 'add' is not an operator name");
	expect_error(HEAD "default: device\n", "an op a table does not list is unknown");
	expect_error("schema: mtrial-compat/2\n", "t.yaml:1:9: schema 'mtrial-compat/2'");
	expect_error(HEAD "ops:\n  aten::add: {status: device\n", "t.yaml:");
	expect_error("schema: mtrial-compat/1\nname: x\nbackend: b\nversion: v\nkind: documented\n"
		     "source: {repository: r}\nretrieved: d\n", "needs repository, path and commit, or a url");
}

static void test_bundled_tables_load(void **state)
{
	static const char *const names[] = {"torch-neuronx-training", "torch-neuron-inf1",
					    "torchneuron-2.14"};
	mt_compat_table *t = NULL;
	(void)state;

	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/nonexistent", 1); /* no user tables shadow the bundled ones */
	for (int i = 0; i < 3; i++) {
		if (mt_compat_load(&t, names[i]) != 0)
			fail_msg("%s: %s", names[i], mt_error_last());
		assert_string_equal(mt_compat_name(t), names[i]);
		if (i == 0)
			assert_int_equal(mt_compat_nops(t), 41);
		if (i == 2) { /* rules only: every op probes as unknown */
			assert_int_equal(mt_compat_nops(t), 0);
			assert_true(mt_compat_nrules(t) >= 8);
		}
		mt_compat_free(t);
	}
	assert_int_equal(mt_compat_load(&t, "no-such-table"), MT_ENOTFOUND);
}

static json_t *sites(void)
{
	return json_pack("[{ss, ss, ss, si, si}, {ss, ss, ss, si, si}, {ss, ss, ss, si, si},"
			 " {ss, ss, ss, si, si}, {ss, ss, ss, si, si}, {ss, sn, ss, si, si}]",
			 "api", "torch.add", "op", "aten::add", "file", "a.py", "line", 1, "col", 0,
			 "api", "torch.add", "op", "aten::add", "file", "b.py", "line", 2, "col", 4,
			 "api", "torch.pow", "op", "aten::pow", "file", "a.py", "line", 3, "col", 0,
			 "api", "torch.mul", "op", "aten::mul", "file", "a.py", "line", 4, "col", 0,
			 "api", "torch.sin", "op", "aten::sin", "file", "a.py", "line", 5, "col", 0,
			 "api", "torch.no_grad", "op", "file", "a.py", "line", 6, "col", 0);
}

static json_t *find_op(json_t *res, const char *op)
{
	json_t *o;
	size_t i;
	json_array_foreach(json_object_get(res, "ops"), i, o)
		if (strcmp(json_string_value(json_object_get(o, "op")), op) == 0)
			return o;
	fail_msg("no %s in the probe", op);
	return NULL;
}

static void test_precedence_and_sources(void **state)
{
	mt_compat_table *doc = parse_ok(HEAD "ops:\n  aten::add:\n    status: unsupported\n"
					"  aten::pow:\n    status: unsupported\n"
					"  aten::mul:\n    status: device\n");
	mt_compat_table *obs = parse_ok("schema: mtrial-compat/1\nname: seen\nbackend: b\n"
					"version: v\nkind: observed\nsource: {url: file:x}\n"
					"retrieved: d\nops:\n  aten::add:\n    status: device\n");
	json_t *calls = sites(), *res = NULL, *o;
	mt_probe_override ov[] = {
		{.name = "aten::pow", .status = "device", .note = "ok on 2.14"},
		{.name = "aten::add", .status = "unsupported", .note = "loses to the observation"},
		{.name = "aten::sin", .status = "sometimes"},
	};
	mt_probe_inputs in = {.table = doc, .observed = obs, .overrides = ov, .noverrides = 2};
	(void)state;

	assert_int_equal(mt_probe_run(&res, &in, calls, NULL), 0);
	o = find_op(res, "aten::add");
	assert_string_equal(json_string_value(json_object_get(o, "status")), "device");
	assert_string_equal(json_string_value(json_object_get(o, "source")), "observed:seen:9");
	assert_int_equal(json_integer_value(json_object_get(o, "count")), 2);
	assert_int_equal(json_array_size(json_object_get(o, "locations")), 2);
	o = find_op(res, "aten::pow");
	assert_string_equal(json_string_value(json_object_get(o, "source")), "override:trial.yaml#1");
	assert_string_equal(json_string_value(json_object_get(o, "status")), "device");
	o = find_op(res, "aten::mul");
	assert_string_equal(json_string_value(json_object_get(o, "source")), "table:t1:13");
	o = find_op(res, "aten::sin");
	assert_string_equal(json_string_value(json_object_get(o, "status")), "unknown");
	assert_string_equal(json_string_value(json_object_get(o, "source")), "none");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(res, "summary"), "ops")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(res, "summary"), "unknown")), 1);
	json_decref(res);
	/* without the observation the override decides, and unsupported sorts first */
	in.observed = NULL;
	in.overrides = ov + 1; /* aten::add alone */
	in.noverrides = 1;
	assert_int_equal(mt_probe_run(&res, &in, calls, NULL), 0);
	o = json_array_get(json_object_get(res, "ops"), 0);
	assert_string_equal(json_string_value(json_object_get(o, "op")), "aten::add");
	assert_string_equal(json_string_value(json_object_get(o, "status")), "unsupported");
	assert_string_equal(json_string_value(json_object_get(o, "source")), "override:trial.yaml#1");
	json_decref(res);
	in.noverrides = 2; /* and a status no override can have */
	assert_int_equal(mt_probe_run(&res, &in, calls, NULL), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "sometimes"));
	json_decref(calls);
	mt_compat_free(doc);
	mt_compat_free(obs);
}

static size_t count(const char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

static const char apis_table[] =
	HEAD "ops:\n"
	"  aten::cumsum:\n    status: cpu_fallback\n    dtypes: {fallback: [int64, int32]}\n"
	"  aten::add:\n    status: device\n    dtypes: {supported: [float32]}\n"
	"apis:\n"
	"  torch.zeta:\n    status: unsupported\n"
	"  torch.cumsum:\n    status: cpu_fallback\n    kind: native\n"
	"    ops: [aten::cumsum]\n    dtypes: {fallback: [int64]}\n    notes: \"on the host\"\n"
	"  torch.Tensor.cumsum:\n    status: cpu_fallback\n    ops: [aten::cumsum.dim_IntList]\n"
	"  torch.distributed.all_reduce:\n    status: device\n    kind: process-group\n"
	"    ops: [c10d::allreduce_]\n"
	"  torch.Tensor.register_hook:\n    status: device\n    kind: host-only\n"
	"  torch.nn.functional.gelu:\n    status: partial\n    ops: [aten::gelu]\n"
	"    conditions: [\"approximate='none' only\"]\n";

static void test_api_entries(void **state)
{
	mt_compat_table *t = parse_ok(apis_table);
	const mt_compat_api *a;
	(void)state;

	assert_int_equal(mt_compat_napis(t), 6);
	assert_int_equal(mt_compat_nops(t), 2);
	/* file order, not sorted */
	assert_string_equal(mt_compat_api_at(t, 0)->api, "torch.zeta");
	assert_string_equal(mt_compat_api_at(t, 1)->api, "torch.cumsum");
	assert_null(mt_compat_api_at(t, 6));
	a = mt_compat_lookup_api(t, "torch.cumsum");
	assert_non_null(a);
	assert_int_equal(a->status, MT_COMPAT_CPU_FALLBACK);
	assert_int_equal(a->kind, MT_COMPAT_API_NATIVE);
	assert_string_equal(a->ops[0], "aten::cumsum");
	assert_null(a->ops[1]);
	assert_int_equal(count(a->fallback_dtypes), 1);
	assert_string_equal(a->fallback_dtypes[0], "int64");
	assert_string_equal(a->notes, "on the host");
	assert_int_equal(a->line, 18);
	a = mt_compat_lookup_api(t, "torch.zeta"); /* absent fields are empty, not NULL */
	assert_int_equal(a->kind, MT_COMPAT_API_UNSPECIFIED);
	assert_non_null(a->ops);
	assert_null(a->ops[0]);
	assert_non_null(a->fallback_dtypes);
	assert_null(a->fallback_dtypes[0]);
	assert_non_null(a->conditions);
	assert_null(a->notes);
	assert_int_equal(mt_compat_lookup_api(t, "torch.distributed.all_reduce")->kind,
			 MT_COMPAT_API_PROCESS_GROUP);
	assert_int_equal(mt_compat_lookup_api(t, "torch.Tensor.register_hook")->kind,
			 MT_COMPAT_API_HOST_ONLY);
	assert_string_equal(mt_compat_lookup_api(t, "torch.nn.functional.gelu")->conditions[0],
			    "approximate='none' only");
	/* exact names only: no prefix, no short name */
	assert_null(mt_compat_lookup_api(t, "cumsum"));
	assert_null(mt_compat_lookup_api(t, "torch.Tensor"));
	assert_null(mt_compat_lookup_api(t, "torch.cumsum_"));
	mt_compat_free(t);
}

static void test_op_fallback_dtypes(void **state)
{
	mt_compat_table *t = parse_ok(apis_table);
	const mt_compat_op *o;
	(void)state;

	o = mt_compat_lookup(t, "aten::cumsum");
	assert_int_equal(count(o->dtypes_fallback), 2);
	assert_string_equal(o->dtypes_fallback[1], "int32");
	o = mt_compat_lookup(t, "aten::add");
	assert_non_null(o->dtypes_fallback);
	assert_null(o->dtypes_fallback[0]);
	assert_string_equal(o->dtypes_supported[0], "float32");
	mt_compat_free(t);
	/* a table without apis: none, and lookups answer NULL */
	t = parse_ok(HEAD "ops:\n  aten::add:\n    status: device\n");
	assert_int_equal(mt_compat_napis(t), 0);
	assert_null(mt_compat_lookup_api(t, "torch.add"));
	assert_non_null(mt_compat_lookup(t, "aten::add")->dtypes_fallback);
	mt_compat_free(t);
}

static void test_apis_naming(void **state)
{
	mt_compat_table *t = parse_ok(apis_table);
	const mt_compat_api *out[4];
	(void)state;

	/* torch.cumsum names aten::cumsum; torch.Tensor.cumsum names only an overload */
	assert_int_equal(mt_compat_apis_naming(t, "aten::cumsum", out, 4), 1);
	assert_string_equal(out[0]->api, "torch.cumsum");
	/* an overload matches APIs naming it and APIs naming its base name, in table order */
	assert_int_equal(mt_compat_apis_naming(t, "aten::cumsum.dim_IntList", out, 4), 2);
	assert_string_equal(out[0]->api, "torch.cumsum");
	assert_string_equal(out[1]->api, "torch.Tensor.cumsum");
	/* the total even when max is smaller; out holds the first max */
	out[1] = NULL;
	assert_int_equal(mt_compat_apis_naming(t, "aten::cumsum.out", out, 1), 1);
	assert_int_equal(mt_compat_apis_naming(t, "aten::cumsum.dim_IntList", out, 1), 2);
	assert_string_equal(out[0]->api, "torch.cumsum");
	assert_null(out[1]);
	assert_int_equal(mt_compat_apis_naming(t, "aten::cumsum.dim_IntList", NULL, 0), 2);
	/* another namespace, and a prefix that is not a base name */
	assert_int_equal(mt_compat_apis_naming(t, "c10d::allreduce_", out, 4), 1);
	assert_int_equal(mt_compat_apis_naming(t, "aten::cum", out, 4), 0);
	assert_int_equal(mt_compat_apis_naming(t, "aten::cumsum_", out, 4), 0);
	assert_int_equal(mt_compat_apis_naming(t, "aten::zeta", out, 4), 0);
	mt_compat_free(t);
}

static void test_kind_names(void **state)
{
	(void)state;
	assert_null(mt_compat_api_kind_str(MT_COMPAT_API_UNSPECIFIED));
	assert_string_equal(mt_compat_api_kind_str(MT_COMPAT_API_NATIVE), "native");
	assert_string_equal(mt_compat_api_kind_str(MT_COMPAT_API_HOST_ONLY), "host-only");
	assert_string_equal(mt_compat_api_kind_str(MT_COMPAT_API_PROCESS_GROUP), "process-group");
	for (int k = 1; k < 4; k++)
		assert_int_equal(mt_compat_api_kind_parse(
					 mt_compat_api_kind_str((mt_compat_api_kind)k)), k);
	assert_int_equal(mt_compat_api_kind_parse("Native"), -1);
	assert_int_equal(mt_compat_api_kind_parse(NULL), -1);
}

static void test_api_errors(void **state)
{
	(void)state;
	expect_error(HEAD "apis:\n  torch.abs:\n    status: yes\n",
		     "t.yaml:10:13: unknown status 'yes'");
	expect_error(HEAD "apis:\n  torch.abs:\n    status: device\n    kind: cloud\n",
		     "t.yaml:11:11: unknown kind 'cloud'");
	expect_error(HEAD "apis:\n  torch.abs:\n    status: device\n    colour: red\n",
		     "t.yaml:11:5: unknown key 'colour' in torch.abs");
	expect_error(HEAD "apis:\n  abs:\n    status: device\n",
		     "t.yaml:9:3: 'abs' is not a fully qualified API name");
	expect_error(HEAD "apis:\n  aten::abs:\n    status: device\n",
		     "t.yaml:9:3: 'aten::abs' is not a fully qualified API name");
	expect_error(HEAD "apis:\n  torch..abs:\n    status: device\n", "t.yaml:9:3:");
	expect_error(HEAD "apis:\n  torch.abs: device\n",
		     "t.yaml:9:14: API 'torch.abs' must be a map");
	expect_error(HEAD "apis:\n  torch.abs:\n    status: device\n    ops: [abs]\n",
		     "t.yaml:11:11: 'abs' is not an operator name");
	expect_error(HEAD "apis:\n  torch.abs:\n    status: device\n    ops: aten::abs\n",
		     "t.yaml:11:10: 'ops' must be a list");
	expect_error(HEAD "apis:\n  torch.abs:\n    status: cpu_fallback\n    dtypes: [int64]\n",
		     "t.yaml:11:13: 'dtypes' of an API must be a map");
	expect_error(HEAD "apis:\n  torch.abs:\n    status: cpu_fallback\n"
		     "    dtypes: {supported: [int64]}\n",
		     "t.yaml:11:14: unknown key 'supported' in dtypes of an API");
	expect_error(HEAD "apis:\n  torch.abs:\n    status: cpu_fallback\n"
		     "    dtypes: {fallback: [torch.int64]}\n",
		     "t.yaml:11:25: 'torch.int64' is not a dtype name");
	expect_error(HEAD "apis:\n  torch.abs:\n    status: device\n"
		     "    dtypes: {fallback: [int64]}\n",
		     "t.yaml:9:3: 'torch.abs' is device but names dtypes.fallback");
	expect_error(HEAD "apis:\n  torch.abs:\n    status: partial\n",
		     "t.yaml:9:3: API 'torch.abs' is partial but says no conditions");
	expect_error(HEAD "apis:\n  torch.abs:\n    status: device\n  torch.abs:\n    status: device\n",
		     "duplicate key 'torch.abs'");
	expect_error(HEAD "apis: [torch.abs]\n", "t.yaml:8:7: 'apis' must map API names");
	/* aten entries: dtypes.fallback validated the same way */
	expect_error(HEAD "ops:\n  aten::cumsum:\n    status: unsupported\n"
		     "    dtypes: {fallback: [int64]}\n",
		     "t.yaml:9:3: 'aten::cumsum' is unsupported but names dtypes.fallback");
	expect_error(HEAD "ops:\n  aten::cumsum:\n    status: cpu_fallback\n"
		     "    dtypes: {fallback: int64}\n", "t.yaml:11:24: 'fallback' must be a list");
	expect_error(HEAD "ops:\n  torch.cumsum:\n    status: device\n",
		     "a Python API goes under apis");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_lookup),
		cmocka_unit_test(test_errors_name_line_and_column),
		cmocka_unit_test(test_bundled_tables_load),
		cmocka_unit_test(test_precedence_and_sources),
		cmocka_unit_test(test_api_entries),
		cmocka_unit_test(test_op_fallback_dtypes),
		cmocka_unit_test(test_apis_naming),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_api_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
