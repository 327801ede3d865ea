/* findings.yaml and the rule engine: every bundled rule fires on an example
 * written here (a rule without an example fails), look-alikes do not fire,
 * one finding per (kind, file, line), and malformed tables fail at the
 * exact file:line:col. Inputs are mt_pyfile values built by hand, as the
 * extractor would produce them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deps.h"
#include "error.h"
#include "rules.h"
#include "fixtures.h"
#include "util.h"

/* --- building inputs --------------------------------------------------------- */

static char *sd(const char *s)
{
	return s ? mt_strdup(s) : NULL;
}

static void *grow(void *v, size_t n, size_t size)
{
	void *p = realloc(v, (n + 1) * size);
	assert_non_null(p);
	return p;
}

/* A call `callee(arg0, kw=kwval)`; api NULL when unresolved, method set for
 * a receiver that does not resolve. */
static void add_call(mt_pyfile *f, const char *callee, const char *api, const char *method,
		     uint32_t line, uint32_t col, const char *arg0, const char *kw,
		     const char *kwval)
{
	mt_call *c;

	f->calls = grow(f->calls, f->ncalls, sizeof(*f->calls));
	c = &f->calls[f->ncalls++];
	memset(c, 0, sizeof(*c));
	c->callee = sd(callee);
	c->api = sd(api);
	c->method = sd(method);
	c->callee_len = callee ? (uint32_t)strlen(callee) : 0;
	c->api_len = api ? (uint32_t)strlen(api) : 0;
	c->method_len = method ? (uint32_t)strlen(method) : 0;
	c->line = line;
	c->col = col;
	c->arg0 = sd(arg0);
	if (kw) {
		c->kwargs = calloc(1, sizeof(*c->kwargs));
		assert_non_null(c->kwargs);
		c->kwargs[0].key = sd(kw);
		c->kwargs[0].value = sd(kwval);
		c->nkwargs = 1;
	}
}

static void add_kwarg(mt_pyfile *f, const char *kw, const char *value)
{
	mt_call *c = &f->calls[f->ncalls - 1];

	c->kwargs = grow(c->kwargs, c->nkwargs, sizeof(*c->kwargs));
	c->kwargs[c->nkwargs].key = sd(kw);
	c->kwargs[c->nkwargs].value = sd(value);
	c->nkwargs++;
}

static void add_ref(mt_pyfile *f, const char *api, uint32_t line, uint32_t col)
{
	f->refs = grow(f->refs, f->nrefs, sizeof(*f->refs));
	f->refs[f->nrefs++] = (mt_ref){sd(api), line, col};
}

static void add_string(mt_pyfile *f, const char *text, uint32_t line, uint32_t col)
{
	f->strings = grow(f->strings, f->nstrings, sizeof(*f->strings));
	f->strings[f->nstrings++] = (mt_strlit){sd(text), line, col, MT_STR_VALUE};
}

static void add_import(mt_pyfile *f, const char *module, uint32_t line)
{
	f->imports = grow(f->imports, f->nimports, sizeof(*f->imports));
	f->imports[f->nimports++] = (mt_import){sd(module), line};
}

/* extract.c's mt_pyfile_dispose frees its arena; these are hand-made. */
static void py_free(mt_pyfile *f)
{
	for (size_t i = 0; i < f->ncalls; i++) {
		mt_call *c = &f->calls[i];
		free(c->callee);
		free(c->api);
		free(c->method);
		free(c->arg0);
		for (size_t k = 0; k < c->nkwargs; k++) {
			free(c->kwargs[k].key);
			free(c->kwargs[k].value);
		}
		free(c->kwargs);
	}
	for (size_t i = 0; i < f->nrefs; i++)
		free(f->refs[i].api);
	for (size_t i = 0; i < f->nstrings; i++)
		free(f->strings[i].text);
	for (size_t i = 0; i < f->nimports; i++)
		free(f->imports[i].module);
	free(f->calls);
	free(f->refs);
	free(f->strings);
	free(f->imports);
	memset(f, 0, sizeof(*f));
}

/* One input: 'c' a call (a callee, b api, c method, d arg0, e keyword,
 * f its value), 'r' a ref (a), 's' a string literal (a), 'i' an import (a),
 * 'p' a path (a), 'd' a dependency (a name, b spec, c why -> cuda_only,
 * d effort). */
struct example {
	const char *rule; /* the rule it must fire; NULL: nothing may fire */
	char type;
	const char *a, *b, *c, *d, *e, *f;
};

static const struct example fires[] = {
	{"float64-cast", 'c', "x.to", NULL, "to", "torch.float64", NULL, NULL},
	{"float64-double", 'c', "x.double", NULL, "double", NULL, NULL, NULL},
	{"float64-dtype", 'r', "torch.float64", NULL, NULL, NULL, NULL, NULL},
	{"cuda-to-device", 'c', "x.to", NULL, "to", "'cuda:0'", NULL, NULL},
	{"cuda-method", 'c', "model.cuda", NULL, "cuda", NULL, NULL, NULL},
	{"cuda-torch-device", 'c', "torch.device", "torch.device", NULL, "\"cuda\"", NULL, NULL},
	{"cuda-autocast-device", 'c', "torch.autocast", "torch.autocast", NULL, NULL,
	 "device_type", "'cuda'"},
	{"cuda-device-string", 's', "'cuda'", NULL, NULL, NULL, NULL, NULL},
	{"cuda-amp-autocast", 'c', "autocast", "torch.cuda.amp.autocast", NULL, NULL, NULL, NULL},
	{"cuda-amp-gradscaler", 'c', "GradScaler", "torch.cuda.amp.GradScaler", NULL, NULL, NULL,
	 NULL},
	{"cuda-amp-ref", 'r', "torch.cuda.amp.autocast", NULL, NULL, NULL, NULL, NULL},
	{"apex-amp", 'c', "amp.initialize", "apex.amp.initialize", NULL, NULL, NULL, NULL},
	{"cuda-graphs", 'c', "torch.cuda.CUDAGraph", "torch.cuda.CUDAGraph", NULL, NULL, NULL, NULL},
	{"cuda-api-call", 'c', "torch.cuda.synchronize", "torch.cuda.synchronize", NULL, NULL, NULL,
	 NULL},
	{"cuda-api-ref", 'r', "torch.cuda.is_available", NULL, NULL, NULL, NULL, NULL},
	{"cuda-backend-flags", 'r', "torch.backends.cudnn.benchmark", NULL, NULL, NULL, NULL, NULL},
	{"cuda-backend-call", 'c', "torch.backends.cuda.sdp_kernel", "torch.backends.cuda.sdp_kernel",
	 NULL, NULL, NULL, NULL},
	{"nccl-process-group", 'c', "dist.init_process_group", "torch.distributed.init_process_group",
	 NULL, NULL, "backend", "\"nccl\""},
	{"nccl-string", 's', "\"NCCL_DEBUG\"", NULL, NULL, NULL, NULL, NULL},
	{"compile-mode", 'c', "torch.compile", "torch.compile", NULL, "model", "mode",
	 "'max-autotune-no-cudagraphs'"},
	{"compile-backend", 'c', "torch.compile", "torch.compile", NULL, "model", "backend",
	 "\"inductor\""},
	{"compile-dynamic", 'c', "torch.compile", "torch.compile", NULL, "model", "dynamic", "True"},
	{"compile-mark-dynamic", 'c', "torch._dynamo.mark_dynamic", "torch._dynamo.mark_dynamic", NULL,
	 "x", NULL, NULL},
	{"cuda-extension-build", 'c', "load_inline", "torch.utils.cpp_extension.load_inline", NULL,
	 NULL, "cuda_sources", NULL},
	{"cpp-extension-cpu", 'c', "CppExtension", "torch.utils.cpp_extension.CppExtension", NULL,
	 "'ops'", NULL, NULL},
	{"cpp-extension-import", 'i', "torch.utils.cpp_extension", NULL, NULL, NULL, NULL, NULL},
	{"op-library-load", 'c', "torch.ops.load_library", "torch.ops.load_library", NULL,
	 "'libops.so'", NULL, NULL},
	{"cuda-source-file", 'p', "csrc/kernels/attn.cu", NULL, NULL, NULL, NULL, NULL},
	{"triton-kernel", 'r', "triton.jit", NULL, NULL, NULL, NULL, NULL},
	{"triton-kernel-call", 'c', "triton.autotune", "triton.autotune", NULL, NULL, "configs",
	 NULL},
	{"triton-import", 'i', "triton.language", NULL, NULL, NULL, NULL, NULL},
	{"flash-attn-import", 'i', "flash_attn.flash_attn_interface", NULL, NULL, NULL, NULL, NULL},
	{"xformers-import", 'i', "xformers.ops", NULL, NULL, NULL, NULL, NULL},
	{"bitsandbytes-import", 'i', "bitsandbytes", NULL, NULL, NULL, NULL, NULL},
	{"apex-import", 'i', "apex.normalization", NULL, NULL, NULL, NULL, NULL},
	{"deepspeed-ops-import", 'i', "deepspeed.ops.adam", NULL, NULL, NULL, NULL, NULL},
	{"liger-kernel-import", 'i', "liger_kernel.transformers", NULL, NULL, NULL, NULL, NULL},
	{"cuda-library-import", 'i', "cupy", NULL, NULL, NULL, NULL, NULL},
	{"cuda-only-dependency", 'd', "flash-attn", "flash-attn>=2.5", "FlashAttention is CUDA",
	 "high", NULL, NULL},
	{"torch-cuda-build", 'd', "torch", "torch==2.1.0+cu121", NULL, NULL, NULL, NULL},
	{"padding-dynamic", 'c', "tokenizer", NULL, NULL, "text", "padding", "'longest'"},
	{"data-collator", 'c', "DataCollatorWithPadding", "transformers.DataCollatorWithPadding",
	 NULL, "tok", NULL, NULL},
	{"pad-to-multiple-of", 'c', "tokenizer.pad", NULL, "pad", NULL,
	 "pad_to_multiple_of", "8"},
	{"collate-fn", 'c', "DataLoader", "torch.utils.data.DataLoader", NULL, "ds", "collate_fn",
	 "pad_batch"},
	{"max-length", 'c', "tokenizer", NULL, NULL, "text", "max_length", "512"},
	{"trl-1-15-fused-kernels", 'd', "trl", "trl==1.15.2", NULL, NULL, NULL, NULL},
};

/* Look-alikes: none of these may produce any finding. */
static const struct example quiet[] = {
	{NULL, 'c', "torch.compile", "torch.compile", NULL, "model", "mode", "\"default\""},
	{NULL, 'c', "torch.compile", "torch.compile", NULL, "model", "dynamic", "False"},
	{NULL, 'c', "torch.compile", "torch.compile", NULL, "model", "backend", "'neuron'"},
	{NULL, 'c', "torch.compile", "torch.compile", NULL, "model", "mode", "mode"},
	{NULL, 's', "\"cudagraph\"", NULL, NULL, NULL, NULL, NULL},
	{NULL, 's', "'neuron'", NULL, NULL, NULL, NULL, NULL},
	{NULL, 'c', "x.to", NULL, "to", "\"cpu\"", NULL, NULL},
	{NULL, 'c', "x.to", NULL, "to", "device", NULL, NULL},
	{NULL, 'c', "x.to", NULL, "to", "cuda_device", NULL, NULL},
	{NULL, 'c', "x.to", NULL, "to", "torch.float32", NULL, NULL},
	{NULL, 'c', "x.to", NULL, "to", NULL, "device", "dev"},
	{NULL, 'c', "torch.device", "torch.device", NULL, "'neuron'", NULL, NULL},
	{NULL, 'c', "torch.autocast", "torch.autocast", NULL, NULL, "device_type", "'neuron'"},
	{NULL, 'c', "np.double", "numpy.double", NULL, "1", NULL, NULL},
	{NULL, 'c', "dist.init_process_group", "torch.distributed.init_process_group", NULL, NULL,
	 "backend", "'gloo'"},
	{NULL, 'c', "dist.init_process_group", "torch.distributed.init_process_group", NULL, NULL,
	 NULL, NULL},
	{NULL, 'c', "tokenizer", NULL, NULL, "text", "padding", "'max_length'"},
	{NULL, 'c', "torch.utils.data.DataLoader", "torch.utils.data.DataLoader", NULL, "ds",
	 "batch_size", "8"},
	{NULL, 'r', "torch.float32", NULL, NULL, NULL, NULL, NULL},
	{NULL, 'r', "torch.accelerator.current_accelerator", NULL, NULL, NULL, NULL, NULL},
	{NULL, 'i', "torch.nn", NULL, NULL, NULL, NULL, NULL},
	{NULL, 'i', "tritonclient.http", NULL, NULL, NULL, NULL, NULL},
	{NULL, 'i', "apex_utils", NULL, NULL, NULL, NULL, NULL},
	{NULL, 'i', "deepspeed", NULL, NULL, NULL, NULL, NULL},
	{NULL, 's', "'nccl_tests'", NULL, NULL, NULL, NULL, NULL},
	{NULL, 'p', "src/model.cpp", NULL, NULL, NULL, NULL, NULL},
	{NULL, 'p', "docs/cuda.md", NULL, NULL, NULL, NULL, NULL},
	{NULL, 'p', "notes.cuh.txt", NULL, NULL, NULL, NULL, NULL},
	{NULL, 'd', "torch", "torch==2.1.0", NULL, NULL, NULL, NULL},
	{NULL, 'd', "torch", "torch==2.1.0+cpu", NULL, NULL, NULL, NULL},
	{NULL, 'd', "numpy", "numpy>=1.24", NULL, NULL, NULL, NULL},
	{NULL, 'd', "trl", "trl==1.16.0", NULL, NULL, NULL, NULL},
	{NULL, 'd', "trl", "trl<1.15", NULL, NULL, NULL, NULL},
	{NULL, 'd', "trl", "trl~=1.14.0", NULL, NULL, NULL, NULL},
	{NULL, 'd', "trl-extras", "trl-extras==1.15.2", NULL, NULL, NULL, NULL},
};

/* Evaluates one example into acc, through the entry point its type needs. */
static void eval_example(const mt_rules *r, const struct example *e, mt_findings *acc)
{
	mt_pyfile f = {0};
	mt_dependency d = {0};

	switch (e->type) {
	case 'p':
		assert_int_equal(mt_rules_eval_path(r, e->a, acc), 0);
		return;
	case 'd':
		d = (mt_dependency){(char *)e->a, (char *)e->b, "requirements.txt", 3, e->c != NULL,
				    (char *)e->c, (char *)e->d, 0, MT_DEP_PEP508};
		assert_int_equal(mt_rules_eval_deps(r, &d, 1, acc), 0);
		return;
	case 'c':
		add_call(&f, e->a, e->b, e->c, 7, 4, e->d, e->e, e->f);
		break;
	case 'r':
		add_ref(&f, e->a, 7, 4);
		break;
	case 's':
		add_string(&f, e->a, 7, 4);
		break;
	case 'i':
		add_import(&f, e->a, 7);
		break;
	default:
		fail_msg("bad example type %c", e->type);
	}
	assert_int_equal(mt_rules_eval_python(r, "train.py", &f, acc), 0);
	py_free(&f);
}

static const struct example *example_for(const char *rule)
{
	for (size_t i = 0; i < sizeof(fires) / sizeof(fires[0]); i++)
		if (strcmp(fires[i].rule, rule) == 0)
			return &fires[i];
	return NULL;
}

static int setup_rules(void **state)
{
	mt_rules *r = NULL;

	unsetenv("MTRIAL_TABLES_DIR");
	unsetenv("MTRIAL_FINDINGS");
	if (mt_rules_load(&r) < 0) {
		fprintf(stderr, "%s\n", mt_error_last());
		return -1;
	}
	*state = r;
	return 0;
}

static int teardown_rules(void **state)
{
	mt_rules_free(*state);
	return 0;
}

/* --- the bundled table --------------------------------------------------------- */

/* Every rule has an example here, and the example fires that rule with the
 * rule's kind and effort, at the example's position. */
static void test_every_rule_fires(void **state)
{
	const mt_rules *r = *state;

	assert_true(mt_rules_count(r) >= 40);
	for (size_t i = 0; i < mt_rules_count(r); i++) {
		const char *id = mt_rules_id(r, i);
		const struct example *e = example_for(id);
		mt_findings acc = {0};
		int hit = 0;
		if (!e)
			fail_msg("rule '%s' has no example in test_findings.c", id);
		eval_example(r, e, &acc);
		for (size_t k = 0; k < acc.n; k++) {
			const mt_finding *f = &acc.items[k];
			if (strcmp(f->rule, id) != 0)
				continue;
			hit = 1;
			assert_string_equal(f->kind, mt_rules_kind(r, i));
			assert_true(f->message[0] != '\0');
			assert_non_null(f->match);
			assert_int_equal(f->line, e->type == 'p' ? 0 : e->type == 'd' ? 3 : 7);
		}
		if (!hit)
			fail_msg("rule '%s' did not fire on its example", id);
		mt_findings_dispose(&acc);
	}
}

static void assert_same_findings(const mt_findings *a, const mt_findings *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_string_equal(a->items[i].rule, b->items[i].rule);
		assert_string_equal(a->items[i].match, b->items[i].match);
		assert_int_equal(a->items[i].line, b->items[i].line);
		assert_int_equal(a->items[i].col, b->items[i].col);
	}
}

/* A memo (which rules each name matches, kept across files) changes no
 * finding, cold or warm: every example in one file, one example a line. */
static void test_memo_agrees(void **state)
{
	const mt_rules *r = *state;
	mt_findings_memo *memo = mt_findings_memo_new(r);
	mt_findings plain = {0}, cold = {0}, warm = {0};
	mt_pyfile f = {0};

	for (size_t i = 0; i < sizeof(fires) / sizeof(fires[0]); i++) {
		const struct example *e = &fires[i];
		uint32_t line = (uint32_t)i + 1;
		if (e->type == 'c')
			add_call(&f, e->a, e->b, e->c, line, 4, e->d, e->e, e->f);
		else if (e->type == 'r')
			add_ref(&f, e->a, line, 4);
		else if (e->type == 's')
			add_string(&f, e->a, line, 4);
		else if (e->type == 'i')
			add_import(&f, e->a, line);
	}
	assert_int_equal(mt_rules_eval_python(r, "train.py", &f, &plain), 0);
	assert_true(plain.n > 20);
	assert_int_equal(mt_rules_eval_python_memo(r, "train.py", &f, memo, &cold), 0);
	assert_int_equal(mt_rules_eval_python_memo(r, "train.py", &f, memo, &warm), 0);
	assert_same_findings(&plain, &cold);
	assert_same_findings(&plain, &warm);
	mt_findings_dispose(&plain);
	mt_findings_dispose(&cold);
	mt_findings_dispose(&warm);
	py_free(&f);
	mt_findings_memo_free(memo);
}

/* An example whose rule is gone from the table is stale. */
static void test_every_example_has_a_rule(void **state)
{
	const mt_rules *r = *state;

	for (size_t i = 0; i < sizeof(fires) / sizeof(fires[0]); i++) {
		int found = 0;
		for (size_t k = 0; k < mt_rules_count(r); k++)
			found |= strcmp(mt_rules_id(r, k), fires[i].rule) == 0;
		if (!found)
			fail_msg("example for unknown rule '%s'", fires[i].rule);
	}
}

static void test_look_alikes_are_quiet(void **state)
{
	const mt_rules *r = *state;

	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		mt_findings acc = {0};
		eval_example(r, &quiet[i], &acc);
		if (acc.n)
			fail_msg("quiet example %zu (%s) fired %s", i, quiet[i].a, acc.items[0].rule);
		mt_findings_dispose(&acc);
	}
}

static const mt_finding *only(const mt_findings *acc, const char *rule)
{
	assert_int_equal(acc->n, 1);
	assert_string_equal(acc->items[0].rule, rule);
	return &acc->items[0];
}

/* Effort and message come from the table as written. */
static void test_effort_and_message(void **state)
{
	const mt_rules *r = *state;
	mt_pyfile f = {0};
	mt_findings acc = {0};
	const mt_finding *x;

	add_ref(&f, "torch.float64", 12, 8);
	assert_int_equal(mt_rules_eval_python(r, "model.py", &f, &acc), 0);
	x = only(&acc, "float64-dtype");
	assert_string_equal(x->kind, "float64");
	assert_string_equal(x->effort, "low");
	assert_string_equal(x->file, "model.py");
	assert_int_equal(x->line, 12);
	assert_int_equal(x->col, 8);
	assert_string_equal(x->match, "torch.float64");
	assert_non_null(strstr(x->message, "float32"));
	mt_findings_dispose(&acc);
	py_free(&f);

	add_call(&f, "torch.cuda.make_graphed_callables", "torch.cuda.make_graphed_callables", NULL,
		 3, 0, "model", NULL, NULL);
	assert_int_equal(mt_rules_eval_python(r, "g.py", &f, &acc), 0);
	x = only(&acc, "cuda-graphs"); /* the general torch.cuda.* rule of one kind yields */
	assert_string_equal(x->effort, "high");
	assert_non_null(strstr(x->message, "CUDA graphs"));
	mt_findings_dispose(&acc);
	py_free(&f);
}

/* `except`: torch.cuda.amp is its own kind, not a generic torch.cuda call. */
static void test_except(void **state)
{
	const mt_rules *r = *state;
	mt_pyfile f = {0};
	mt_findings acc = {0};

	add_call(&f, "torch.cuda.amp.autocast", "torch.cuda.amp.autocast", NULL, 5, 9, NULL, NULL,
		 NULL);
	assert_int_equal(mt_rules_eval_python(r, "a.py", &f, &acc), 0);
	assert_string_equal(only(&acc, "cuda-amp-autocast")->kind, "cuda-amp");
	mt_findings_dispose(&acc);
	py_free(&f);
}

/* .to("cuda") is a method call and a string literal on one line: one
 * finding, from the first rule of the kind. On another line, the string
 * is a finding of its own. */
static void test_one_finding_per_kind_and_line(void **state)
{
	const mt_rules *r = *state;
	mt_pyfile f = {0};
	mt_findings acc = {0};

	add_call(&f, "x.to", NULL, "to", 4, 6, "\"cuda\"", NULL, NULL);
	add_string(&f, "\"cuda\"", 4, 9);
	add_call(&f, "y.cuda", NULL, "cuda", 4, 20, NULL, NULL, NULL);
	add_string(&f, "'cuda:1'", 9, 13);
	assert_int_equal(mt_rules_eval_python(r, "t.py", &f, &acc), 0);
	assert_int_equal(acc.n, 2);
	assert_string_equal(acc.items[0].rule, "cuda-to-device");
	assert_int_equal(acc.items[0].line, 4);
	assert_int_equal(acc.items[0].col, 6);
	assert_string_equal(acc.items[1].rule, "cuda-device-string");
	assert_int_equal(acc.items[1].line, 9);
	assert_string_equal(acc.items[1].match, "'cuda:1'");
	mt_findings_dispose(&acc);
	py_free(&f);
}

/* Two problems of different kinds on one call are both reported, in
 * column then table order. */
static void test_kinds_on_one_line(void **state)
{
	const mt_rules *r = *state;
	mt_pyfile f = {0};
	mt_findings acc = {0};

	add_call(&f, "torch.compile", "torch.compile", NULL, 2, 8, "model", "mode",
		 "\"reduce-overhead\"");
	add_kwarg(&f, "dynamic", "True");
	add_ref(&f, "torch.float64", 1, 30);
	add_import(&f, "triton", 1);
	assert_int_equal(mt_rules_eval_python(r, "c.py", &f, &acc), 0);
	assert_int_equal(acc.n, 4);
	assert_string_equal(acc.items[0].rule, "triton-import"); /* line 1, col 0 */
	assert_string_equal(acc.items[1].rule, "float64-dtype"); /* line 1, col 30 */
	assert_string_equal(acc.items[2].rule, "compile-mode");
	assert_string_equal(acc.items[3].rule, "compile-dynamic");
	assert_string_equal(acc.items[3].kind, "dynamic-shapes");
	mt_findings_dispose(&acc);
	py_free(&f);
}

/* NCCL as a positional backend, as an enum, and in a device map. */
static void test_nccl_forms(void **state)
{
	const mt_rules *r = *state;
	mt_pyfile f = {0};
	mt_findings acc = {0};

	add_call(&f, "dist.init_process_group", "torch.distributed.init_process_group", NULL, 1, 0,
		 "'nccl'", NULL, NULL);
	add_call(&f, "dist.init_process_group", "torch.distributed.init_process_group", NULL, 2, 0,
		 NULL, "backend", "dist.Backend.NCCL");
	add_string(&f, "\"cpu:gloo,cuda:nccl\"", 3, 10);
	assert_int_equal(mt_rules_eval_python(r, "d.py", &f, &acc), 0);
	assert_int_equal(acc.n, 3);
	assert_string_equal(acc.items[0].rule, "nccl-process-group");
	assert_string_equal(acc.items[1].rule, "nccl-process-group");
	assert_string_equal(acc.items[2].rule, "nccl-string");
	mt_findings_dispose(&acc);
	py_free(&f);
}

/* A CUDA-only dependency takes effort and why from cuda_packages.yaml;
 * includes are not dependencies. */
static void test_dependency_findings(void **state)
{
	const mt_rules *r = *state;
	mt_dependency d[3] = {
		{"deepspeed", "deepspeed>=0.12", "requirements.txt", 4, 1, "fused ops need CUDA",
		 "medium", 0, MT_DEP_PEP508},
		{"base.txt", "-r base.txt", "requirements.txt", 5, 0, NULL, NULL, 1, MT_DEP_PEP508},
		{"torch", "torch==2.3.0+cu121", "requirements.txt", 6, 0, NULL, NULL, 0, MT_DEP_PEP508},
	};
	mt_findings acc = {0};

	assert_int_equal(mt_rules_eval_deps(r, d, 3, &acc), 0);
	assert_int_equal(acc.n, 2);
	assert_string_equal(acc.items[0].rule, "cuda-only-dependency");
	assert_string_equal(acc.items[0].effort, "medium");
	assert_string_equal(acc.items[0].message, "deepspeed: fused ops need CUDA");
	assert_string_equal(acc.items[0].match, "deepspeed>=0.12");
	assert_int_equal(acc.items[0].line, 4);
	assert_string_equal(acc.items[1].rule, "torch-cuda-build");
	assert_string_equal(acc.items[1].kind, "cuda-build");
	mt_findings_dispose(&acc);
}

/* A path finding is about the whole file: line 0. */
static void test_path_findings(void **state)
{
	const mt_rules *r = *state;
	mt_findings acc = {0};

	assert_int_equal(mt_rules_eval_path(r, "kernels/fused.cuh", &acc), 0);
	assert_int_equal(mt_rules_eval_path(r, "kernels/fused.cpp", &acc), 0);
	assert_int_equal(mt_rules_eval_path(r, "x.cu", &acc), 0);
	assert_int_equal(acc.n, 2);
	assert_string_equal(acc.items[0].file, "kernels/fused.cuh");
	assert_string_equal(acc.items[0].effort, "high");
	assert_int_equal(acc.items[0].line, 0);
	assert_string_equal(acc.items[1].file, "x.cu");
	mt_findings_dispose(&acc);
}

/* take + sort: findings from several files in one stable order. */
static void test_take_and_sort(void **state)
{
	mt_findings a = {0}, b = {0};

	(void)state;
	assert_int_equal(mt_findings_add(&a, "r2", "k", "low", "b.py", 3, 0, "m", NULL), 0);
	assert_int_equal(mt_findings_add(&a, "r1", "k", "low", "a.py", 9, 1, "m", "x"), 0);
	assert_int_equal(mt_findings_add(&b, "r1", "k", "low", "a.py", 9, 0, "m", "y"), 0);
	assert_int_equal(mt_findings_add(&b, "r0", "k", "low", "a.py", 2, 5, "m", NULL), 0);
	assert_int_equal(mt_findings_take(&a, &b), 0);
	assert_int_equal(b.n, 0);
	assert_null(b.items);
	mt_findings_sort(&a);
	assert_int_equal(a.n, 4);
	assert_string_equal(a.items[0].rule, "r0");
	assert_int_equal(a.items[1].col, 0);
	assert_int_equal(a.items[2].col, 1);
	assert_string_equal(a.items[3].file, "b.py");
	mt_findings_dispose(&a);
	mt_findings_dispose(&b);
}

struct worker {
	const mt_rules *rules;
	size_t n;
};

static void *eval_many(void *arg)
{
	struct worker *w = arg;

	for (int round = 0; round < 200; round++) {
		mt_pyfile f = {0};
		mt_findings acc = {0};
		add_call(&f, "x.to", NULL, "to", 1, 0, "'cuda'", NULL, NULL);
		add_ref(&f, "torch.double", 2, 0);
		add_import(&f, "flash_attn", 3);
		if (mt_rules_eval_python(w->rules, "m.py", &f, &acc) == 0)
			w->n += acc.n;
		mt_findings_dispose(&acc);
		py_free(&f);
	}
	return NULL;
}

/* Rules are read-only after loading: threads share them. */
static void test_threads_share_rules(void **state)
{
	pthread_t t[4];
	struct worker w[4];

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){*state, 0};
		assert_int_equal(pthread_create(&t[i], NULL, eval_many, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].n, 3 * 200);
	}
}

/* --- malformed tables ------------------------------------------------------------- */

#define HEAD "schema: mtrial-findings/1\nrules:\n"
#define RULE_TOP "  - id: r1\n    kind: float64\n    effort: low\n    message: m\n"

static void expect_invalid(const char *text, const char *message)
{
	mt_rules *r = (mt_rules *)1;

	mt_error_clear();
	assert_int_equal(mt_rules_parse(&r, text, strlen(text), "findings.yaml"), MT_EINVALID);
	assert_null(r);
	assert_string_equal(mt_error_last(), message);
}

static void test_malformed_tables(void **state)
{
	(void)state;
	expect_invalid("rules: [\n  - id: x\n",
		       "findings.yaml:2:3: did not find expected node content while parsing a "
		       "flow node");
	expect_invalid("schema: mtrial-findings/1\nowner: me\nrules: []\n",
		       "findings.yaml:2:1: unknown key 'owner' (expected schema, sources, rules)");
	expect_invalid("schema: 2\nrules: []\n", "findings.yaml:1:9: schema must be mtrial-findings/1");
	expect_invalid(HEAD RULE_TOP "    match: {ref: torch.float64}\n    severity: 3\n",
		       "findings.yaml:8:5: unknown key 'severity' in a rule (expected id, kind, "
		       "effort, message, source, date, match)");
	expect_invalid(HEAD RULE_TOP "    match:\n      regex: 'cuda.*'\n",
		       "findings.yaml:8:7: unknown match kind 'regex' (expected call, method, "
		       "callee, kwarg, ref, string, import, path, dependency)");
	expect_invalid(HEAD "  - id: r1\n    kind: float64\n    effort: huge\n    message: m\n"
			    "    match: {ref: x}\n",
		       "findings.yaml:5:13: effort must be none, low, medium or high, not 'huge'");
	expect_invalid(HEAD RULE_TOP "    match: {ref: x, call: y}\n",
		       "findings.yaml:7:21: a match has one subject: 'ref' and 'call'");
	expect_invalid(HEAD RULE_TOP "    match: {ref: x, arg0: y}\n",
		       "findings.yaml:7:21: 'arg0' does not apply to a ref match");
	expect_invalid(HEAD RULE_TOP "    match: {call: x, value: y}\n",
		       "findings.yaml:7:22: 'value' needs a 'kwarg'");
	expect_invalid(HEAD RULE_TOP "    match: {method: to, kwarg: device, value: cuda, "
				     "literal: strings}\n",
		       "findings.yaml:7:62: literal must be 'string' or 'any'");
	expect_invalid(HEAD RULE_TOP "    match: {ref: []}\n",
		       "findings.yaml:7:18: 'ref' must be a pattern or a list of patterns");
	expect_invalid(HEAD RULE_TOP "    match: {ref: x}\n" RULE_TOP "    match: {ref: y}\n",
		       "findings.yaml:8:9: duplicate rule id 'r1'");
	expect_invalid(HEAD "  - id: R_1\n    kind: k\n    effort: low\n    message: m\n"
			    "    match: {ref: x}\n",
		       "findings.yaml:3:9: 'id' must be a word of a-z, 0-9 and '-'");
	expect_invalid(HEAD RULE_TOP "    source: nowhere\n    match: {ref: x}\n",
		       "findings.yaml:7:13: source must name an id listed under sources");
	expect_invalid(HEAD RULE_TOP "    match: {dependency: x, table: other.yaml}\n",
		       "findings.yaml:7:35: table must be 'cuda_packages.yaml'");
	expect_invalid(HEAD "  - id: r1\n    kind: float64\n    effort: low\n    match: {ref: x}\n",
		       "findings.yaml:3:5: a rule needs 'message'");
	expect_invalid(HEAD RULE_TOP "    match: {ref: x}\n  - id: r2\n    kind: k\n    effort: low\n"
				     "    message: m\n    match: {ref: *a}\n",
		       "findings.yaml:12:18: aliases are not supported: write the value out");
}

#define SOURCED "sources:\n  - id: s1\n    reference: our notes\n"
#define VRULE "  - id: v1\n    kind: known-issue\n    effort: medium\n    message: m\n"

/* A versions rule: a specifier set, a source and a date, each checked. */
static void test_malformed_version_rules(void **state)
{
	(void)state;
	expect_invalid("schema: mtrial-findings/1\n" SOURCED "rules:\n" VRULE
		       "    source: s1\n    date: 2026-10-14\n"
		       "    match: {dependency: trl, versions: '>=1.15.*'}\n",
		       "findings.yaml:12:40: versions: version specifier '>=1.15.*': '.*' only "
		       "after == or !=");
	expect_invalid("schema: mtrial-findings/1\n" SOURCED "rules:\n" VRULE
		       "    source: s1\n    date: 2026-10-14\n"
		       "    match: {dependency: trl, versions: '>=2,<1'}\n",
		       "findings.yaml:12:40: versions '>=2,<1' admits no version");
	expect_invalid("schema: mtrial-findings/1\n" SOURCED "rules:\n" VRULE
		       "    date: 2026-10-14\n    match: {dependency: trl, versions: '==1.15.*'}\n",
		       "findings.yaml:6:5: a rule with versions needs a 'source'");
	expect_invalid("schema: mtrial-findings/1\n" SOURCED "rules:\n" VRULE
		       "    source: s1\n    match: {dependency: trl, versions: '==1.15.*'}\n",
		       "findings.yaml:6:5: a rule with versions needs a 'date' (YYYY-MM-DD)");
	expect_invalid("schema: mtrial-findings/1\n" SOURCED "rules:\n" VRULE
		       "    source: s1\n    date: 14/10/2026\n"
		       "    match: {dependency: trl, versions: '==1.15.*'}\n",
		       "findings.yaml:11:11: date must be YYYY-MM-DD (when the source said so)");
	expect_invalid(HEAD RULE_TOP "    match: {ref: x, versions: '==1'}\n",
		       "findings.yaml:7:21: 'versions' does not apply to a ref match");
	expect_invalid("schema: mtrial-findings/1\nsources:\n  - id: s1\n    note: n\n"
		       "rules:\n" RULE_TOP "    match: {ref: x}\n",
		       "findings.yaml:3:5: a source needs a repository, a url or a reference");
}

/* What a versions rule says about each kind of spec: pinned, possible
 * (open or unpinned), unknown (a VCS URL), and nothing outside the range;
 * the source and the date close every message. */
static void test_version_rule_findings(void **state)
{
	static const char text[] = "schema: mtrial-findings/1\n" SOURCED "rules:\n" VRULE
				   "    source: s1\n    date: 2026-10-14\n"
				   "    match: {dependency: trl, versions: '==1.15.*'}\n";
	mt_dependency d[6] = {
		{"trl", "trl==1.15.2", "requirements.txt", 1, 0, NULL, NULL, 0, MT_DEP_PEP508},
		{"trl", "trl>=1.10", "requirements.txt", 2, 0, NULL, NULL, 0, MT_DEP_PEP508},
		{"trl", "trl", "requirements.txt", 3, 0, NULL, NULL, 0, MT_DEP_PEP508},
		{"trl", "git+https://github.com/huggingface/trl#egg=trl", "requirements.txt", 4, 0,
		 NULL, NULL, 0, MT_DEP_PEP508},
		{"trl", "trl==1.16.0", "requirements.txt", 5, 0, NULL, NULL, 0, MT_DEP_PEP508},
		{"trl", "\"~1.15.1\"", "pyproject.toml", 9, 0, NULL, NULL, 0, MT_DEP_POETRY},
	};
	static const char *const want[] = {
		"trl = \"~1.15.1\" pins trl ==1.15.*: m (source: our notes; as of 2026-10-14)",
		"trl==1.15.2 pins trl ==1.15.*: m (source: our notes; as of 2026-10-14)",
		"trl>=1.10 may resolve to trl ==1.15.*: it admits other versions too, so it depends "
		"on the release picked at install time and on any lock or constraints file; m "
		"(source: our notes; as of 2026-10-14)",
		"trl may resolve to trl ==1.15.*: no version is pinned, so it depends on the release "
		"picked at install time and on any lock or constraints file; m (source: our notes; "
		"as of 2026-10-14)",
		"git+https://github.com/huggingface/trl#egg=trl may be trl ==1.15.*: a direct "
		"reference (a VCS URL, a path or an archive) whose version mtrial cannot read; m "
		"(source: our notes; as of 2026-10-14)",
	};
	mt_rules *r = NULL;
	mt_findings acc = {0};

	(void)state;
	assert_int_equal(mt_rules_parse(&r, text, strlen(text), "v.yaml"), 0);
	assert_int_equal(mt_rules_eval_deps(r, d, 6, &acc), 0);
	mt_findings_sort(&acc);
	assert_int_equal(acc.n, 5);
	for (size_t i = 0; i < acc.n; i++) {
		assert_string_equal(acc.items[i].message, want[i]);
		assert_string_equal(acc.items[i].kind, "known-issue");
	}
	assert_string_equal(acc.items[0].file, "pyproject.toml"); /* sorted by file */
	mt_findings_dispose(&acc);
	mt_rules_free(r);
}

/* $MTRIAL_FINDINGS adds a team's rules after the bundled ones; its errors
 * name its own file, and an id the bundled table has is refused. */
static void test_team_rules(void **state)
{
	char *dir = mt_fx_tmpdir("findings"), *path = mt_path_join(dir, "team.yaml");
	mt_rules *r = NULL, *bundled = *state;
	mt_dependency d = {"torch", "torch==2.3.0", "requirements.txt", 1, 0, NULL, NULL, 0,
			   MT_DEP_PEP508};
	mt_findings acc = {0};
	char want[512];

	mt_fx_write(dir, "team.yaml",
		    "schema: mtrial-findings/1\nsources:\n  - id: wiki\n    url: https://wiki/x\n"
		    "rules:\n  - id: torch-2-3\n    kind: known-issue\n    effort: low\n"
		    "    message: m\n    source: wiki\n    date: 2026-11-02\n"
		    "    match: {dependency: torch, versions: '==2.3.0'}\n");
	setenv("MTRIAL_FINDINGS", path, 1);
	assert_int_equal(mt_rules_load(&r), 0);
	assert_int_equal(mt_rules_count(r), mt_rules_count(bundled) + 1);
	assert_string_equal(mt_rules_id(r, mt_rules_count(r) - 1), "torch-2-3");
	assert_int_equal(mt_rules_eval_deps(r, &d, 1, &acc), 0);
	assert_int_equal(acc.n, 1);
	assert_string_equal(acc.items[0].rule, "torch-2-3");
	mt_findings_dispose(&acc);
	mt_rules_free(r);
	mt_fx_write(dir, "team.yaml",
		    "schema: mtrial-findings/1\nrules:\n  - id: cuda-method\n    kind: k\n"
		    "    effort: low\n    message: m\n    match: {method: cuda}\n");
	r = (mt_rules *)1;
	assert_int_equal(mt_rules_load(&r), MT_EINVALID);
	assert_null(r);
	snprintf(want, sizeof(want), "%s:3:9: duplicate rule id 'cuda-method'", path);
	assert_string_equal(mt_error_last(), want);
	unsetenv("MTRIAL_FINDINGS");
	mt_fx_rmtree(dir);
	free(dir);
	free(path);
}

/* A minimal valid table parses, and a clean parse leaves no error. */
static void test_minimal_table(void **state)
{
	static const char text[] = HEAD RULE_TOP "    match: {kwarg: padding, value: longest}\n";
	mt_rules *r = NULL;
	mt_pyfile f = {0};
	mt_findings acc = {0};

	(void)state;
	assert_int_equal(mt_rules_parse(&r, text, strlen(text), "t.yaml"), 0);
	assert_int_equal(mt_rules_count(r), 1);
	add_call(&f, "tok", NULL, NULL, 1, 0, NULL, "padding", "\"longest\"");
	assert_int_equal(mt_rules_eval_python(r, "p.py", &f, &acc), 0);
	assert_int_equal(acc.n, 1);
	assert_string_equal(acc.items[0].match, "padding");
	mt_findings_dispose(&acc);
	py_free(&f);
	mt_rules_free(r);
}

/* Each pattern shape: exact, prefix*, *contains*, *suffix and general fnmatch
 * (`?`, classes, escapes), on string values with quotes stripped. */
static void test_glob_shapes(void **state)
{
	static const char text[] = HEAD RULE_TOP
		"    match: {string: [exact, \"pre*\", \"*mid*\", \"a?c\", \"v[0-9]\", \"star\\\\*\",\n"
		"                     \"*suf\"]}\n";
	static const char *const hit[] = {"'exact'", "\"prefix\"", "b'a mid b'", "'abc'", "'v7'",
					  "'star*'", "'pre'", "r'mid'", "'a suf'", "'suf'", NULL};
	static const char *const miss[] = {"'exactly'", "'xpre'", "'mi d'", "'ac'", "'vx'",
					   "'starx'", "exact", "'", "'sufx'", "'su'", NULL};
	mt_rules *r = NULL;

	(void)state;
	assert_int_equal(mt_rules_parse(&r, text, strlen(text), "g.yaml"), 0);
	for (int want = 1; want >= 0; want--) {
		for (const char *const *s = want ? hit : miss; *s; s++) {
			mt_pyfile f = {0};
			mt_findings acc = {0};
			add_string(&f, *s, 1, 0);
			assert_int_equal(mt_rules_eval_python(r, "s.py", &f, &acc), 0);
			if ((acc.n == 1) != want)
				fail_msg("%s: %zu findings, want %d", *s, acc.n, want);
			mt_findings_dispose(&acc);
			py_free(&f);
		}
	}
	mt_rules_free(r);
}

int main(void)
{
	const struct CMUnitTest bundled[] = {
		cmocka_unit_test(test_every_rule_fires),
		cmocka_unit_test(test_every_example_has_a_rule),
		cmocka_unit_test(test_memo_agrees),
		cmocka_unit_test(test_look_alikes_are_quiet),
		cmocka_unit_test(test_effort_and_message),
		cmocka_unit_test(test_except),
		cmocka_unit_test(test_one_finding_per_kind_and_line),
		cmocka_unit_test(test_kinds_on_one_line),
		cmocka_unit_test(test_nccl_forms),
		cmocka_unit_test(test_dependency_findings),
		cmocka_unit_test(test_path_findings),
		cmocka_unit_test(test_threads_share_rules),
		cmocka_unit_test(test_team_rules),
	};
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(test_take_and_sort),
		cmocka_unit_test(test_malformed_tables),
		cmocka_unit_test(test_minimal_table),
		cmocka_unit_test(test_malformed_version_rules),
		cmocka_unit_test(test_version_rule_findings),
		cmocka_unit_test(test_glob_shapes),
	};
	int failed = cmocka_run_group_tests_name("bundled findings.yaml", bundled, setup_rules,
						 teardown_rules);
	return failed + cmocka_run_group_tests_name("rule engine", plain, NULL, NULL);
}
