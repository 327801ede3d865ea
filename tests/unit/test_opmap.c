/* The aten registry generated at build time, and op resolution through
 * tables/api_map.yaml and tables/tensor_methods.yaml: each rule, the tables'
 * ops checked against the registry (typos), and malformed tables failing at
 * FILE:LINE:COL without loading anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixtures.h"
#include "opmap.h"
#include "opmap_int.h" /* the generated registry's version and source */

static mt_opmap *load_bundled(void)
{
	mt_opmap *m = NULL;

	unsetenv("MTRIAL_TABLES_DIR");
	if (mt_opmap_load(&m) < 0)
		fail_msg("%s", mt_error_last());
	assert_non_null(m);
	return m;
}

static void test_registry(void **state)
{
	size_t first = 0, n = mt_aten_lookup("aten::add", &first);
	mt_aten_op add, o;

	(void)state;
	assert_true(mt_aten_registered("aten::linear"));
	assert_true(mt_aten_registered("aten::add"));
	assert_true(mt_aten_registered("aten::layer_norm"));
	assert_true(mt_aten_registered("aten::relu_"));
	assert_false(mt_aten_registered("aten::definitely_not_an_op"));
	assert_false(mt_aten_registered("aten::add.Tensor")); /* names, not overloads */
	assert_false(mt_aten_registered("linear"));
	assert_false(mt_aten_registered(""));
	assert_true(mt_aten_count() > 1500);
	assert_string_equal(mt_aten_version(), mt_aten_torch_version);
	assert_true(n > 1);
	assert_int_equal(mt_aten_at(first, &add), 0);
	assert_string_equal(add.name, "aten::add");
	assert_string_equal(add.overload, ""); /* the default overload sorts first */
	assert_string_equal(add.schema, "aten::add(Scalar a, Scalar b) -> Scalar");
	assert_false(add.self_tensor);
	assert_true(add.method); /* a property of the name: every overload */
	int tensor = 0;
	for (size_t i = first; i < first + n; i++) {
		assert_int_equal(mt_aten_at(i, &o), 0);
		assert_string_equal(o.name, "aten::add");
		assert_true(o.method);
		if (strcmp(o.overload, "Tensor") == 0) {
			assert_string_equal(o.schema, "aten::add.Tensor(Tensor self, Tensor other, "
						      "*, Scalar alpha=1) -> Tensor");
			assert_true(o.self_tensor);
			tensor++;
		}
	}
	assert_int_equal(tensor, 1);
	assert_int_equal(mt_aten_lookup("aten::definitely_not_an_op", &first), 0);
	assert_int_equal(mt_aten_at(mt_aten_count(), &o), -1);
}

/* Sorted by (name, overload), no duplicates: what bsearch relies on. */
static void test_registry_sorted(void **state)
{
	(void)state;
	for (size_t i = 1; i < mt_aten_count(); i++) {
		mt_aten_op a, b;
		assert_int_equal(mt_aten_at(i - 1, &a), 0);
		assert_int_equal(mt_aten_at(i, &b), 0);
		int c = strcmp(a.name, b.name);
		if (c > 0 || (c == 0 && strcmp(a.overload, b.overload) >= 0))
			fail_msg("out of order at %zu: %s.%s, %s.%s", i, a.name, a.overload,
				 b.name, b.overload);
		/* each schema names its op and overload: the offsets point right */
		assert_int_equal(strncmp(b.schema, b.name, strlen(b.name)), 0);
		assert_non_null(strstr(b.schema, "->"));
	}
}

static void assert_api(const mt_opmap *m, const char *api, const char *op, enum mt_op_kind kind)
{
	enum mt_op_kind got = (enum mt_op_kind)-1;
	const char *r = mt_opmap_api(m, api, &got);

	if (got != kind || (op ? !r || strcmp(r, op) != 0 : r != NULL))
		fail_msg("%s: expected %s (%s), got %s (%s)", api, op ? op : "NULL",
			 mt_op_kind_str(kind), r ? r : "NULL", mt_op_kind_str(got));
}

static void test_api_resolution(void **state)
{
	mt_opmap *m = load_bundled();
	const mt_opmap_entry *e;

	(void)state;
	/* 1. table entries */
	assert_api(m, "torch.nn.Linear", "aten::linear", MT_OP_MAPPED);
	assert_api(m, "torch.nn.Conv2d", "aten::conv2d", MT_OP_MAPPED);
	assert_api(m, "torch.nn.LayerNorm", "aten::layer_norm", MT_OP_MAPPED);
	assert_api(m, "torch.nn.CrossEntropyLoss", "aten::cross_entropy_loss", MT_OP_MAPPED);
	assert_api(m, "torch.nn.functional.cross_entropy", "aten::cross_entropy_loss", MT_OP_MAPPED);
	assert_api(m, "torch.nn.functional.scaled_dot_product_attention",
		   "aten::scaled_dot_product_attention", MT_OP_MAPPED);
	assert_api(m, "torch.no_grad", NULL, MT_OP_NOT_AN_OP);
	assert_api(m, "torch.nn.Identity", NULL, MT_OP_NOT_AN_OP);
	assert_api(m, "torch.save", NULL, MT_OP_NOT_AN_OP); /* aten::save exists: the entry wins */
	e = mt_opmap_api_entry(m, "torch.no_grad");
	assert_non_null(e);
	assert_non_null(e->why);
	assert_true(e->line > 0);
	e = mt_opmap_api_entry(m, "torch.nn.functional.scaled_dot_product_attention");
	assert_non_null(e);
	assert_true(e->newer);
	/* wildcards, longest prefix first */
	assert_api(m, "torch.cuda.max_memory_allocated", NULL, MT_OP_NOT_AN_OP);
	assert_api(m, "torch.optim.AdamW", NULL, MT_OP_NOT_AN_OP);
	e = mt_opmap_api_entry(m, "torch.optim.lr_scheduler.CosineAnnealingLR");
	assert_non_null(e);
	assert_string_equal(e->name, "torch.optim.lr_scheduler.*");
	e = mt_opmap_api_entry(m, "torch.utils.data.DataLoader");
	assert_string_equal(e->name, "torch.utils.data.DataLoader");
	/* 2. by name, in the by_name namespaces only */
	assert_api(m, "torch.nn.functional.relu", "aten::relu", MT_OP_BY_NAME);
	assert_api(m, "torch.nn.functional.gelu", "aten::gelu", MT_OP_BY_NAME);
	assert_api(m, "torch.sigmoid", "aten::sigmoid", MT_OP_BY_NAME);
	assert_api(m, "torch.nn.functional.relu_", "aten::relu_", MT_OP_BY_NAME);
	assert_api(m, "torch.relu_", "aten::relu_", MT_OP_BY_NAME);
	assert_api(m, "torch.linalg.vector_norm", "aten::linalg_vector_norm", MT_OP_BY_NAME);
	assert_api(m, "torch.fft.rfft", "aten::fft_rfft", MT_OP_BY_NAME);
	assert_api(m, "math.sqrt", NULL, MT_OP_UNKNOWN);
	assert_api(m, "numpy.sum", NULL, MT_OP_UNKNOWN);
	assert_api(m, "sqrt", NULL, MT_OP_UNKNOWN);
	/* 3. unknown: CamelCase is never resolved by name */
	assert_api(m, "torch.nn.SomethingNew", NULL, MT_OP_UNKNOWN);
	assert_api(m, "torch.Add", NULL, MT_OP_UNKNOWN);
	assert_api(m, "torch.nn.functional.not_a_real_function", NULL, MT_OP_UNKNOWN);
	assert_api(m, "torch.", NULL, MT_OP_UNKNOWN);
	assert_api(m, "", NULL, MT_OP_UNKNOWN);
	assert_null(mt_opmap_api(m, "torch.nn.SomethingNew", NULL));
	assert_non_null(strstr(mt_opmap_source(m, 0), "libtorch 1.13"));
	mt_opmap_free(m);
}

static void assert_method(const mt_opmap *m, const char *name, const char *op,
			  enum mt_op_kind kind)
{
	enum mt_op_kind got = (enum mt_op_kind)-1;
	const char *r = mt_opmap_method(m, name, &got);

	if (got != kind || (op ? !r || strcmp(r, op) != 0 : r != NULL))
		fail_msg(".%s(): expected %s (%s), got %s (%s)", name, op ? op : "NULL",
			 mt_op_kind_str(kind), r ? r : "NULL", mt_op_kind_str(got));
	assert_int_equal(mt_opmap_is_tensor_method(m, name), kind != MT_OP_UNKNOWN);
}

static void test_tensor_methods(void **state)
{
	mt_opmap *m = load_bundled();
	const mt_opmap_entry *e;

	(void)state;
	assert_method(m, "view", "aten::view", MT_OP_MAPPED);
	assert_method(m, "cuda", "aten::to", MT_OP_MAPPED);
	assert_method(m, "double", "aten::to", MT_OP_MAPPED);
	assert_method(m, "item", "aten::_local_scalar_dense", MT_OP_MAPPED);
	assert_method(m, "backward", NULL, MT_OP_NOT_AN_OP);
	assert_method(m, "size", NULL, MT_OP_NOT_AN_OP);
	/* from the registry */
	assert_method(m, "masked_fill_", "aten::masked_fill_", MT_OP_BY_NAME);
	assert_method(m, "add_", "aten::add_", MT_OP_BY_NAME);
	assert_method(m, "unsqueeze", "aten::unsqueeze", MT_OP_BY_NAME);
	assert_method(m, "softmax", "aten::softmax", MT_OP_BY_NAME);
	/* denied, or not methods at all */
	assert_method(m, "append", NULL, MT_OP_UNKNOWN);
	assert_method(m, "items", NULL, MT_OP_UNKNOWN);
	assert_method(m, "values", NULL, MT_OP_UNKNOWN); /* aten::values exists */
	assert_method(m, "index", NULL, MT_OP_UNKNOWN);
	assert_method(m, "format", NULL, MT_OP_UNKNOWN); /* aten::format exists */
	assert_method(m, "train", NULL, MT_OP_UNKNOWN);
	assert_method(m, "", NULL, MT_OP_UNKNOWN);
	/* gelu's first argument is `Tensor self`, yet torch.Tensor has no gelu */
	if (strcmp(mt_aten_method_source, "ATen/core/TensorBody.h") == 0) {
		assert_method(m, "gelu", NULL, MT_OP_UNKNOWN);
		assert_method(m, "mse_loss", NULL, MT_OP_UNKNOWN);
	}
	/* counted, and flagged as also something else */
	assert_method(m, "split", "aten::split", MT_OP_MAPPED);
	e = mt_opmap_method_entry(m, "split");
	assert_non_null(e);
	assert_string_equal(e->also, "str.split");
	e = mt_opmap_method_entry(m, "cuda");
	assert_non_null(e->note);
	mt_opmap_free(m);
}

/* Every op the tables name is registered, unless marked newer, and an op
 * marked newer is not (a stale mark). This is what catches typos. */
static void test_table_ops_are_registered(void **state)
{
	mt_opmap *m = load_bundled();
	size_t count[2] = {0, 0};

	(void)state;
	for (int methods = 0; methods < 2; methods++) {
		const mt_opmap_entry *e;
		for (size_t i = 0; (e = mt_opmap_entry_at(m, methods, i)); i++) {
			count[methods]++;
			if (!e->op)
				continue;
			if (!e->newer && !mt_aten_registered(e->op))
				fail_msg("%s:%u: %s: %s is not registered in libtorch %s",
					 methods ? "tensor_methods.yaml" : "api_map.yaml", e->line,
					 e->name, e->op, mt_aten_version());
			if (e->newer && mt_aten_registered(e->op))
				fail_msg("%s:%u: %s: %s is registered: drop `registry: newer`",
					 methods ? "tensor_methods.yaml" : "api_map.yaml", e->line,
					 e->name, e->op);
		}
	}
	assert_true(count[0] >= 200);
	assert_true(count[1] >= 40);
	mt_opmap_free(m);
}

/* Loads a table pair from a scratch directory; returns the error code and
 * leaves the message in mt_error_last(). */
static int load_from(const char *api_map, const char *methods)
{
	char *dir = mt_fx_tmpdir("opmap");
	mt_opmap *m = (mt_opmap *)1;
	int error;

	if (api_map)
		mt_fx_write(dir, "api_map.yaml", api_map);
	if (methods)
		mt_fx_write(dir, "tensor_methods.yaml", methods);
	setenv("MTRIAL_TABLES_DIR", dir, 1);
	error = mt_opmap_load(&m);
	unsetenv("MTRIAL_TABLES_DIR");
	if (error == 0)
		mt_opmap_free(m);
	else
		assert_null(m); /* nothing half loaded */
	mt_fx_rmtree(dir);
	free(dir);
	return error;
}

static const char good_methods[] = "source: test\nmethods:\n  cuda: aten::to\n"
				   "not_tensor_methods: [append]\n";

static void assert_api_map_fails(const char *text, const char *where)
{
	int error = load_from(text, good_methods);

	assert_int_equal(error, MT_EINVALID);
	if (!strstr(mt_error_last(), where))
		fail_msg("expected '%s' in: %s", where, mt_error_last());
}

static void test_malformed_tables(void **state)
{
	(void)state;
	assert_int_equal(load_from("source: test\nby_name: {torch: \"\"}\n"
				   "apis:\n  torch.nn.Linear: aten::linear\n",
				   good_methods),
			 0);
	/* YAML syntax: libyaml's words and position */
	assert_api_map_fails("source: test\napis:\n  torch.nn.Linear: aten::linear\n"
			     "  torch.nn.Conv2d: \"aten::conv2d\n",
			     "api_map.yaml:5:1: found unexpected end of stream "
			     "(while scanning a quoted scalar at 4:20)");
	assert_api_map_fails("source: test\napis:\n  torch.nn.Linear: [aten::linear\n",
			     "api_map.yaml:3:20: 'torch.nn.Linear': expected an op");
	assert_api_map_fails("source: test\napis:\n\ttorch.relu: aten::relu\n", "api_map.yaml:3:1:");
	/* an op that is not ns::name */
	assert_api_map_fails("source: test\napis:\n  torch.nn.Linear: aten:linear\n",
			     "api_map.yaml:3:20: 'aten:linear' is not an operator name");
	assert_api_map_fails("source: test\napis:\n  torch.nn.Linear: aten::add.Tensor\n",
			     "api_map.yaml:3:20:");
	/* a non-op without why, a why on an op, an unknown key, a duplicate */
	assert_api_map_fails("source: test\napis:\n  torch.no_grad: ~\n", "api_map.yaml:3:18:");
	assert_api_map_fails("source: test\napis:\n  torch.no_grad: {op: null, note: x}\n",
			     "needs a why");
	assert_api_map_fails("source: test\napis:\n  torch.relu: {op: aten::relu, why: x}\n",
			     "api_map.yaml:3:15:");
	assert_api_map_fails("source: test\napis:\n  torch.relu: {op: aten::relu, wy: x}\n",
			     "api_map.yaml:3:32: unknown key 'wy'");
	assert_api_map_fails("source: test\napis:\n  torch.relu: aten::relu\n"
			     "  torch.nn.ReLU: aten::relu\n  torch.relu: aten::relu\n",
			     "api_map.yaml:5:3: 'torch.relu' again (first at line 3)");
	assert_api_map_fails("source: test\napis:\n  torch.cuda.*: aten::relu\n",
			     "wildcard entry must be op: null");
	assert_api_map_fails("source: test\napis:\n  torch.relu: {op: aten::relu, registry: old}\n",
			     "api_map.yaml:3:42: registry: can only be 'newer'");
	assert_api_map_fails("source: test\napis:\n  torch..relu: aten::relu\n", "api_map.yaml:3:3:");
	assert_api_map_fails("source: test\nentries: {}\n", "api_map.yaml:2:1: unknown section");
	assert_api_map_fails("apis: {}\n", "api_map.yaml:1:1: no source:");
	assert_api_map_fails("- a\n- b\n", "api_map.yaml:1:1:");
	assert_api_map_fails("source: test\n---\nsource: again\n", "one document only");
	assert_api_map_fails("source: &a test\napis: {x.y: *a}\n", "aliases are not supported");
	assert_api_map_fails("source: test\napis:\n  torch.x: \"\xff\"\n", "api_map.yaml:3:");
	/* tensor_methods.yaml: its own file name in the message */
	assert_int_equal(load_from("source: test\n", "source: test\nmethods:\n  view: aten:view\n"),
			 MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "tensor_methods.yaml:3:9:"));
	assert_int_equal(load_from("source: test\n", "source: test\nmethods:\n  to: aten::to\n"
						    "not_tensor_methods: [append, to]\n"),
			 MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "tensor_methods.yaml:4:30: 'to' is both"));
	assert_int_equal(load_from("source: test\n", "source: test\nmethods:\n  x.y: aten::to\n"),
			 MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "tensor_methods.yaml:3:3:"));
	/* a missing file */
	assert_int_equal(load_from("source: test\n", NULL), MT_ENOTFOUND);
}

struct reader_arg {
	const mt_opmap *m;
	int failures;
};

static void *read_concurrently(void *p)
{
	struct reader_arg *a = p;

	for (int i = 0; i < 2000; i++) {
		enum mt_op_kind k;
		const char *op = mt_opmap_api(a->m, "torch.nn.functional.relu", &k);
		if (!op || strcmp(op, "aten::relu") != 0 || k != MT_OP_BY_NAME)
			a->failures++;
		if (!mt_opmap_is_tensor_method(a->m, "view") ||
		    mt_opmap_is_tensor_method(a->m, "append"))
			a->failures++;
	}
	return NULL;
}

static void test_concurrent_reads(void **state)
{
	mt_opmap *m = load_bundled();
	pthread_t t[4];
	struct reader_arg args[4];

	(void)state;
	for (int i = 0; i < 4; i++) {
		args[i] = (struct reader_arg){m, 0};
		assert_int_equal(pthread_create(&t[i], NULL, read_concurrently, &args[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(args[i].failures, 0);
	}
	mt_opmap_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_registry_sorted),
		cmocka_unit_test(test_api_resolution),
		cmocka_unit_test(test_tensor_methods),
		cmocka_unit_test(test_table_ops_are_registered),
		cmocka_unit_test(test_malformed_tables),
		cmocka_unit_test(test_concurrent_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
