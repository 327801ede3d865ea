/* Importing compatibility tables: Markdown tables (shuffled and renamed
 * columns, a mapping file, several tables in a file, errors with their line
 * and column), the target's API tables in several layouts (qualified names,
 * short names under headings, other headers, columns found by their cells),
 * RST operator lists, analyze JSON and mtrial's own YAML, all from the
 * fixtures in tests/data/compat/; the output always parses with
 * mt_compat_parse and its lookups give the statuses the source says. Then import to files (a scratch
 * $XDG_DATA_HOME): the sidecar, replacing only after validation, shadowing a
 * bundled table. No network: URLs are covered by tests/cli/tables.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "compat_import.h"
#include "error.h"
#include "fetch.h"
#include "fixtures.h"
#include "util.h"

#define FIXTURES MT_SOURCE_DIR "/tests/data/compat/"

static char *fixture(const char *file, size_t *len)
{
	char path[1024], *text = NULL;

	snprintf(path, sizeof(path), FIXTURES "%s", file);
	if (mt_file_read(&text, len, path) < 0)
		fail_msg("%s: %s", path, mt_error_last());
	return text;
}

/* Converts a fixture; map is a fixture name or NULL. Returns the YAML. */
static int convert(char **yaml, mt_compat_import_info *info, const char *file, const char *map,
		   mt_compat_import_format fmt)
{
	mt_compat_import_map *m = NULL;
	mt_compat_import_convert_options o = {.name = "t", .format = fmt, .origin = file,
				       .source = "test", .retrieved = "2026-01-02"};
	size_t len = 0;
	char *text = fixture(file, &len);
	int error;

	if (map) {
		char path[1024];
		snprintf(path, sizeof(path), FIXTURES "%s", map);
		if (mt_compat_import_map_load(&m, path) < 0)
			fail_msg("%s", mt_error_last());
	}
	o.map = m;
	error = mt_compat_convert(yaml, info, text, len, &o);
	mt_compat_import_map_free(m);
	free(text);
	return error;
}

/* The imported table, parsed again as mtrial reads any table. */
static mt_compat_table *import_ok(const char *file, const char *map, mt_compat_import_format fmt,
				  mt_compat_import_info *info)
{
	mt_compat_table *t = NULL;
	char *yaml = NULL;

	if (convert(&yaml, info, file, map, fmt) < 0)
		fail_msg("%s: %s", file, mt_error_last());
	if (mt_compat_parse(&t, yaml, strlen(yaml), file) < 0)
		fail_msg("%s: the YAML does not parse: %s\n%s", file, mt_error_last(), yaml);
	free(yaml);
	return t;
}

static const mt_compat_op *expect(const mt_compat_table *t, const char *op,
				  mt_compat_status want)
{
	const mt_compat_op *o = mt_compat_lookup(t, op);

	if (want == MT_COMPAT_UNKNOWN) {
		if (o)
			fail_msg("%s: listed as %s, want unlisted", op,
				 mt_compat_status_str(o->status));
		return NULL;
	}
	if (!o)
		fail_msg("%s: not listed, want %s", op, mt_compat_status_str(want));
	if (o->status != want)
		fail_msg("%s: %s, want %s", op, mt_compat_status_str(o->status),
			 mt_compat_status_str(want));
	return o;
}

/* Expects a conversion to fail with a message that starts with `want`. */
static void convert_fails(const char *file, const char *map, mt_compat_import_format fmt,
			  const char *want)
{
	char *yaml = NULL;

	if (convert(&yaml, NULL, file, map, fmt) == 0)
		fail_msg("%s: imported, want an error '%s'", file, want);
	assert_null(yaml);
	assert_int_equal(mt_error_last_code(), MT_EINVALID);
	if (strncmp(mt_error_last(), want, strlen(want)) != 0)
		fail_msg("message:\n  %s\nwant it to start with:\n  %s", mt_error_last(), want);
}

static int text_fails(const char *text, mt_compat_import_format fmt, const char *want)
{
	mt_compat_import_convert_options o = {.name = "t", .format = fmt, .origin = "inline.md"};
	char *yaml = NULL;

	if (mt_compat_convert(&yaml, NULL, text, strlen(text), &o) == 0)
		fail_msg("imported, want '%s':\n%s", want, yaml);
	if (!strstr(mt_error_last(), want))
		fail_msg("message:\n  %s\nwant:\n  %s", mt_error_last(), want);
	return 0;
}

/* v joined with ",", compared with want ("" for an empty list). */
static void strv_is(const char *const *v, const char *want)
{
	char got[1024] = "";
	size_t n = 0;

	for (; v && *v; v++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%s", n ? "," : "", *v);
	if (strcmp(got, want) != 0)
		fail_msg("got [%s], want [%s]", got, want);
}

static const mt_compat_api *expect_api(const mt_compat_table *t, const char *api,
				       mt_compat_status want, mt_compat_api_kind kind)
{
	const mt_compat_api *a = mt_compat_lookup_api(t, api);

	if (!a)
		fail_msg("%s: not listed, want %s", api, mt_compat_status_str(want));
	if (a->status != want || a->kind != kind)
		fail_msg("%s: %s %s, want %s %s", api, mt_compat_status_str(a->status),
			 mt_compat_api_kind_str(a->kind), mt_compat_status_str(want),
			 mt_compat_api_kind_str(kind));
	return a;
}

/* ---- Markdown ------------------------------------------------------------- */

static void test_markdown_shuffled(void **state)
{
	mt_compat_import_info info;
	mt_compat_table *t = import_ok("shuffled.md", NULL, MT_IMPORT_AUTO, &info);
	const mt_compat_op *o;

	(void)state;
	assert_int_equal(info.format, MT_IMPORT_MARKDOWN);
	assert_int_equal(info.tables, 1);
	assert_null(info.skipped);
	assert_string_equal(mt_compat_name(t), "t");
	assert_string_equal(mt_compat_kind(t), "documented");
	assert_string_equal(mt_compat_backend(t), "torch-neuronx");
	assert_string_equal(mt_compat_version(t), "unspecified");
	assert_string_equal(mt_compat_retrieved(t), "2026-01-02");
	assert_string_equal(mt_compat_source(t), "test");
	assert_int_equal(mt_compat_nops(t), 8);

	o = expect(t, "aten::add", MT_COMPAT_DEVICE); /* the prefix added, backticks gone */
	assert_string_equal(o->dtypes_supported[0], "float32");
	assert_string_equal(o->dtypes_supported[1], "bfloat16");
	assert_null(o->dtypes_supported[2]);
	expect(t, "aten::add.Tensor", MT_COMPAT_DEVICE); /* the base name's entry */
	o = expect(t, "aten::pow", MT_COMPAT_PARTIAL);  /* "⚠️ Partial" */
	assert_string_equal(o->conditions[0], "exponent must be a compile-time integer constant");
	assert_null(o->conditions[1]);
	expect(t, "aten::fft_fft", MT_COMPAT_CPU_FALLBACK); /* ❌ with a CPU fallback */
	o = expect(t, "aten::view_as_complex", MT_COMPAT_UNSUPPORTED);
	assert_string_equal(o->notes, "complex dtypes only");
	expect(t, "aten::mm", MT_COMPAT_DEVICE); /* two ops in one cell */
	expect(t, "aten::bmm", MT_COMPAT_DEVICE);
	o = expect(t, "aten::sum.dim_IntList", MT_COMPAT_PARTIAL);
	assert_string_equal(o->conditions[0], "float32 only");
	o = expect(t, "aten::nonzero", MT_COMPAT_CPU_FALLBACK);
	assert_string_equal(o->notes, "runs on the host");
	expect(t, "aten::Reductions", MT_COMPAT_UNKNOWN); /* a heading row */
	expect(t, "aten::relu", MT_COMPAT_UNKNOWN);
	mt_compat_free(t);
}

static void test_markdown_map(void **state)
{
	mt_compat_table *t;
	const mt_compat_op *o;

	(void)state;
	convert_fails("mapped.md", NULL, MT_IMPORT_MARKDOWN,
		      "mapped.md: no Markdown table with an API or op column and a status column "
		      "(line 5: 'Kernel | Trn2 state | Remarks' (no status column; words seen: "
		      "'GA', 'Beta', 'only 2-D inputs', 'Planned', 'n/a', 'not evaluated'))");
	t = import_ok("mapped.md", "mapped.map.yaml", MT_IMPORT_MARKDOWN, NULL);
	assert_int_equal(mt_compat_nops(t), 3);
	expect(t, "aten::add", MT_COMPAT_DEVICE);
	o = expect(t, "aten::mm", MT_COMPAT_PARTIAL);
	assert_string_equal(o->conditions[0], "only 2-D inputs");
	expect(t, "aten::fft_fft", MT_COMPAT_UNSUPPORTED);
	expect(t, "aten::cholesky", MT_COMPAT_UNKNOWN); /* "n/a": unknown, left out */
	mt_compat_free(t);
}

static void test_markdown_several_tables(void **state)
{
	mt_compat_import_info info;
	mt_compat_table *t = import_ok("multi.md", NULL, MT_IMPORT_AUTO, &info);
	const mt_compat_op *o;

	(void)state;
	assert_int_equal(info.tables, 2);
	assert_string_equal(info.skipped,
			    "line 5: 'Symbol | Meaning' (no name column; words seen: '\u2705', "
			    "'supported')\n"
			    "line 34: 'Name | Dtypes' (no status column; words seen: 'fp32')");
	mt_compat_import_info_dispose(&info);
	assert_int_equal(mt_compat_nops(t), 5);
	expect(t, "aten::add", MT_COMPAT_DEVICE);
	o = expect(t, "aten::mul", MT_COMPAT_PARTIAL);
	assert_string_equal(o->conditions[0], "the source marks it partial without saying when");
	expect(t, "aten::mm", MT_COMPAT_DEVICE); /* a table without outer pipes */
	expect(t, "aten::addmm", MT_COMPAT_CPU_FALLBACK);
	o = expect(t, "aten::matmul", MT_COMPAT_UNSUPPORTED);
	assert_string_equal(o->notes, "use aten::mm");
	expect(t, "aten::ignored_op", MT_COMPAT_UNKNOWN); /* inside a code block */
	mt_compat_free(t);
}

static void test_markdown_errors(void **state)
{
	(void)state;
	convert_fails("badword.md", NULL, MT_IMPORT_AUTO,
		      "badword.md:6:14: status 'beta' of aten::mm is not a known word");
	assert_non_null(strstr(mt_error_last(), "--map"));
	convert_fails("ambiguous.md", NULL, MT_IMPORT_AUTO,
		      "ambiguous.md:3: columns 'Eager support' and 'Compiled support' both look "
		      "like the status column");
	text_fails("| op | status |\n|--|--|\n| add | yes |\n| add | no |\n", MT_IMPORT_MARKDOWN,
		   "inline.md:4:3: aten::add is unsupported here but device at line 3");
	text_fails("| op | status |\n|--|--|\n| torch add | yes |\n", MT_IMPORT_MARKDOWN,
		   "inline.md:3:3: 'torch add' is neither an aten op name (aten::add) nor a "
		   "PyTorch API name");
	text_fails("| op | status |\n|--|--|\n| `aten::add` | |\n", MT_IMPORT_MARKDOWN,
		   "inline.md:3:17: aten::add has no status");
	text_fails("| op | status | fallback |\n|--|--|--|\n| add | yes | maybe |\n",
		   MT_IMPORT_MARKDOWN, "inline.md:3:15: fallback 'maybe' of aten::add is neither");
	text_fails("| op | status |\n|--|--|\n| add | yes \xff |\n", MT_IMPORT_MARKDOWN,
		   "inline.md:3: not UTF-8 text (byte 0xff)");
	text_fails("no table here\n", MT_IMPORT_MARKDOWN, "inline.md: no Markdown table");
}

/* ---- the target's API table: layouts mtrial must read without --map ---------- */

static void test_api_table_qualified(void **state)
{
	mt_compat_import_info info;
	mt_compat_table *t = import_ok("tn-qualified.md", NULL, MT_IMPORT_AUTO, &info);
	const mt_compat_api *a;
	const mt_compat_op *o;

	(void)state;
	assert_int_equal(info.tables, 1);
	assert_int_equal(mt_compat_napis(t), 9);
	assert_int_equal(mt_compat_nops(t), 1);
	/* CPU_FALLBACK: the aten op and the dtypes the limitations name */
	a = expect_api(t, "torch.cumsum", MT_COMPAT_CPU_FALLBACK, MT_COMPAT_API_UNSPECIFIED);
	strv_is(a->ops, "aten::cumsum");
	strv_is(a->fallback_dtypes, "int64,bool");
	assert_int_equal(a->line, 20); /* of the imported YAML: the API section after the op */
	/* Y and its kind; a limitations cell that only names the kind is no note */
	a = expect_api(t, "torch.Tensor.abs", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	assert_null(a->notes);
	strv_is(a->ops, "");
	expect_api(t, "torch.Tensor.register_hook", MT_COMPAT_DEVICE, MT_COMPAT_API_HOST_ONLY);
	expect_api(t, "torch.distributed.all_reduce", MT_COMPAT_DEVICE,
		   MT_COMPAT_API_PROCESS_GROUP);
	a = expect_api(t, "torch.nn.functional.gelu", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	assert_string_equal(a->notes, "Native; tanh approximation included");
	/* dtypes named by exception limit nothing: the fallback holds for every dtype */
	a = expect_api(t, "torch.sort", MT_COMPAT_CPU_FALLBACK, MT_COMPAT_API_UNSPECIFIED);
	strv_is(a->ops, "aten::sort.stable");
	strv_is(a->fallback_dtypes, "");
	/* an escaped pipe stays in its cell */
	a = expect_api(t, "torch.bitwise_or", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	assert_string_equal(a->notes, "Native, operator form `a | b` too");
	expect_api(t, "torch.quantize_per_tensor", MT_COMPAT_UNSUPPORTED,
		   MT_COMPAT_API_UNSPECIFIED);
	a = expect_api(t, "torch.nonzero", MT_COMPAT_CPU_FALLBACK, MT_COMPAT_API_UNSPECIFIED);
	strv_is(a->ops, "aten::nonzero");
	/* a row named by an aten op stays an aten entry, its fallback dtypes too */
	o = expect(t, "aten::_unique2", MT_COMPAT_CPU_FALLBACK);
	strv_is(o->dtypes_fallback, "int64");
	assert_null(mt_compat_lookup_api(t, "aten::_unique2"));
	/* the API entries naming an op, for a trace that saw only the op */
	{
		const mt_compat_api *out[2];
		assert_int_equal(mt_compat_apis_naming(t, "aten::cumsum.out", out, 2), 1);
		assert_string_equal(out[0]->api, "torch.cumsum");
	}
	mt_compat_free(t);
}

static void test_api_table_headings(void **state)
{
	mt_compat_import_info info;
	mt_compat_table *t = import_ok("tn-headings.md", NULL, MT_IMPORT_MARKDOWN, &info);
	const mt_compat_api *a;

	(void)state;
	assert_int_equal(info.tables, 4);
	assert_int_equal(mt_compat_napis(t), 10);
	assert_int_equal(mt_compat_nops(t), 0);
	/* ## torch: short names, and Tensor.flip under it */
	expect_api(t, "torch.zeros", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	a = expect_api(t, "torch.cumprod", MT_COMPAT_CPU_FALLBACK, MT_COMPAT_API_UNSPECIFIED);
	strv_is(a->ops, "aten::cumprod");
	strv_is(a->fallback_dtypes, "complex64");
	expect_api(t, "torch.Tensor.flip", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	/* ### a subheading naming no namespace keeps torch; a qualified name stays */
	expect_api(t, "torch.arange", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	expect_api(t, "torch.linspace", MT_COMPAT_DEVICE, MT_COMPAT_API_UNSPECIFIED);
	/* ## Namespace `torch.nn.functional`, then a heading row inside the table */
	expect_api(t, "torch.nn.functional.softmax", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	a = expect_api(t, "torch.nn.functional.embedding_bag", MT_COMPAT_CPU_FALLBACK,
		       MT_COMPAT_API_UNSPECIFIED);
	strv_is(a->ops, "aten::_embedding_bag");
	strv_is(a->fallback_dtypes, "bfloat16");
	expect_api(t, "torch.distributed.barrier", MT_COMPAT_DEVICE, MT_COMPAT_API_PROCESS_GROUP);
	assert_null(mt_compat_lookup_api(t, "torch.nn.functional.barrier"));
	/* a ## heading naming none ends torch.nn.functional: the usual prefixes */
	expect_api(t, "torch.nn.functional.silu", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	expect_api(t, "torch.nn.Linear", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	mt_compat_free(t);
}

static void test_api_table_by_cells(void **state)
{
	mt_compat_table *t = import_ok("tn-sniffed.md", NULL, MT_IMPORT_AUTO, NULL);
	const mt_compat_api *a;

	(void)state;
	assert_int_equal(mt_compat_napis(t), 3);
	expect_api(t, "torch.addmm", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	a = expect_api(t, "torch.Tensor.masked_scatter", MT_COMPAT_CPU_FALLBACK,
		       MT_COMPAT_API_UNSPECIFIED);
	strv_is(a->ops, "aten::masked_scatter");
	expect_api(t, "torch.histc", MT_COMPAT_UNSUPPORTED, MT_COMPAT_API_UNSPECIFIED);
	mt_compat_free(t);
}

static void test_api_table_header_namespace(void **state)
{
	mt_compat_table *t = import_ok("tn-header-namespace.md", NULL, MT_IMPORT_AUTO, NULL);
	const mt_compat_api *a;

	(void)state;
	assert_int_equal(mt_compat_napis(t), 4);
	expect_api(t, "torch.Tensor.add_", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	a = expect_api(t, "torch.Tensor.index_put_", MT_COMPAT_CPU_FALLBACK,
		       MT_COMPAT_API_UNSPECIFIED);
	strv_is(a->ops, "aten::index_put_");
	strv_is(a->fallback_dtypes, "bool");
	/* the next table's header names another namespace; a qualified name stays */
	expect_api(t, "torch.linalg.svd", MT_COMPAT_UNSUPPORTED, MT_COMPAT_API_UNSPECIFIED);
	expect_api(t, "torch.det", MT_COMPAT_DEVICE, MT_COMPAT_API_NATIVE);
	assert_null(mt_compat_lookup_api(t, "torch.Tensor.svd"));
	mt_compat_free(t);
}

static void test_api_table_errors(void **state)
{
	(void)state;
	/* neither a name column nor a status vocabulary: what was seen */
	convert_fails("tn-unrecognised.md", NULL, MT_IMPORT_AUTO,
		      "tn-unrecognised.md: no Markdown table with an API or op column and a status "
		      "column (line 3: 'Release | Date | Highlights' (no name column; words seen: "
		      "'2.14', '2026-10-19', 'first native release', '2.13', '2026-07-01', "
		      "'preview')); name the columns and words in a mapping file (--map)");
	convert_fails("tn-short.md", NULL, MT_IMPORT_AUTO,
		      "tn-short.md:6:3: 'cumsum' is a short name and no heading above it names its "
		      "namespace");
	text_fails("## torch\n\n| API | Supported | Limitations |\n|---|---|---|\n"
		   "| abs | Y | Native |\n| sin | MAYBE | |\n", MT_IMPORT_MARKDOWN,
		   "inline.md:6:9: status 'MAYBE' of torch.sin is not a known word");
	text_fails("| API | Supported |\n|---|---|\n| `torch.abs` | Y |\n| `torch.abs` | N |\n",
		   MT_IMPORT_MARKDOWN, "inline.md:4:3: torch.abs is unsupported here but device "
		   "at line 3");
	text_fails("| API | Supported |\n|---|---|\n| torch abs | Y |\n", MT_IMPORT_MARKDOWN,
		   "inline.md:3:3: 'torch abs' is neither an aten op name");
}

/* ---- mtrial's own YAML ------------------------------------------------------ */

static char *convert_text(const char *text, const char *origin, const char *name,
			  mt_compat_import_format fmt, mt_compat_import_info *info)
{
	mt_compat_import_convert_options o = {.name = name, .format = fmt, .origin = origin};
	char *yaml = NULL;

	if (mt_compat_convert(&yaml, info, text, strlen(text), &o) < 0)
		fail_msg("%s: %s", origin, mt_error_last());
	return yaml;
}

static void test_own_yaml(void **state)
{
	char *md, *again, *renamed;
	mt_compat_import_info info;
	mt_compat_table *a = NULL, *b = NULL;
	size_t len;
	char *text = fixture("tn-qualified.md", &len);

	(void)state;
	md = convert_text(text, "tn.md", "tn", MT_IMPORT_AUTO, NULL);
	free(text);
	/* detected by its schema line whatever the file is called; kept as written */
	again = convert_text(md, "shared.md", "tn", MT_IMPORT_AUTO, &info);
	assert_int_equal(info.format, MT_IMPORT_YAML);
	assert_string_equal(again, md);
	/* another name: only the name changes, so every line stays where it was */
	renamed = convert_text(md, "shared.yaml", "team", MT_IMPORT_YAML, NULL);
	assert_int_equal(mt_compat_parse(&a, md, strlen(md), "a"), 0);
	assert_int_equal(mt_compat_parse(&b, renamed, strlen(renamed), "b"), 0);
	assert_string_equal(mt_compat_name(b), "team");
	assert_int_equal(mt_compat_napis(a), mt_compat_napis(b));
	for (size_t i = 0; i < mt_compat_napis(a); i++) {
		assert_string_equal(mt_compat_api_at(a, i)->api, mt_compat_api_at(b, i)->api);
		assert_int_equal(mt_compat_api_at(a, i)->line, mt_compat_api_at(b, i)->line);
	}
	assert_string_equal(mt_compat_source(a), mt_compat_source(b));
	mt_compat_free(a);
	mt_compat_free(b);
	free(renamed);
	free(again);
	free(md);
}

static void test_own_yaml_errors(void **state)
{
	mt_compat_import_convert_options o = {.name = "t", .origin = "team.yaml", .backend = "x"};
	const char *good = "schema: mtrial-compat/1\nname: t\nbackend: b\nversion: v\n"
			   "kind: documented\nsource: {url: https://example.com}\n"
			   "retrieved: 2026-11-01\napis:\n  torch.abs: {status: device}\n";
	char *yaml = NULL;

	(void)state;
	text_fails("schema: mtrial-compat/1\nname: t\nbackend: b\nversion: v\nkind: documented\n"
		   "source: {url: https://example.com}\nretrieved: 2026-11-01\napis:\n"
		   "  torch.abs:\n    status: device\n    kind: cloud\n", MT_IMPORT_AUTO,
		   "inline.md:11:11: unknown kind 'cloud'");
	text_fails("schema: mtrial-compat/1\nname: t\ncolour: red\n", MT_IMPORT_YAML,
		   "inline.md:3:1: unknown key 'colour'");
	assert_int_equal(mt_compat_convert(&yaml, NULL, good, strlen(good), &o), MT_EINVALID);
	assert_null(yaml);
	assert_non_null(strstr(mt_error_last(), "--backend, --version and --map are for the "
						"other formats"));
	o.backend = NULL;
	assert_int_equal(mt_compat_convert(&yaml, NULL, good, strlen(good), &o), 0);
	free(yaml);
}

/* ---- RST and analyze ------------------------------------------------------ */

static void test_rst(void **state)
{
	mt_compat_import_info info;
	mt_compat_table *t = import_ok("ops.rst", NULL, MT_IMPORT_AUTO, &info);

	(void)state;
	assert_int_equal(info.format, MT_IMPORT_RST);
	assert_int_equal(mt_compat_nops(t), 6);
	expect(t, "aten::add", MT_COMPAT_DEVICE);
	expect(t, "aten::addcdiv_", MT_COMPAT_DEVICE); /* the RST escape removed */
	expect(t, "aten::mm", MT_COMPAT_DEVICE);        /* listed twice */
	expect(t, "aten::_softmax", MT_COMPAT_DEVICE);
	expect(t, "aten::relu", MT_COMPAT_DEVICE);
	expect(t, "aten::zero_", MT_COMPAT_DEVICE);
	expect(t, "aten::gelu", MT_COMPAT_UNKNOWN); /* prose */
	assert_string_equal(mt_compat_kind(t), "documented");
	mt_compat_free(t);
	text_fails("Title\n=====\n\nNo list.\n", MT_IMPORT_RST, "inline.md: no operator names");
	text_fails("Removed operators:\n\n- ``aten::foo``\n", MT_IMPORT_RST,
		   "inline.md:3: aten::foo is listed under \"Removed operators:\" (line 1)");
	text_fails("+----+----+\n| aten::add | yes |\n", MT_IMPORT_RST,
		   "inline.md:2: a grid table with several columns");
}

static void test_analyze_inference(void **state)
{
	mt_compat_import_info info;
	mt_compat_table *t = import_ok("analyze-inference.json", NULL, MT_IMPORT_AUTO, &info);
	const mt_compat_op *o;

	(void)state;
	assert_int_equal(info.format, MT_IMPORT_ANALYZE);
	assert_string_equal(mt_compat_kind(t), "observed");
	assert_string_equal(mt_compat_version(t), "1.13.0.1.5.0 (neuronx-cc 2.0.0.11796a0+24a26e112)");
	assert_int_equal(mt_compat_nops(t), 4);
	o = expect(t, "aten::linear", MT_COMPAT_DEVICE);
	assert_string_equal(o->notes, "observed: 3 occurrences compiled");
	expect(t, "aten::relu", MT_COMPAT_DEVICE);
	expect(t, "aten::log_softmax", MT_COMPAT_DEVICE);
	o = expect(t, "aten::fft_fft", MT_COMPAT_UNSUPPORTED);
	assert_string_equal(o->notes, "observed failing (1): failed at neuronx-cc; call test.py(6): fft");
	mt_compat_free(t);
}

static void test_analyze_training(void **state)
{
	mt_compat_table *t = import_ok("analyze-training.json", NULL, MT_IMPORT_ANALYZE, NULL);
	const mt_compat_op *o;

	(void)state;
	assert_string_equal(mt_compat_kind(t), "observed");
	assert_int_equal(mt_compat_nops(t), 3);
	expect(t, "aten::add", MT_COMPAT_DEVICE);
	o = expect(t, "aten::mul", MT_COMPAT_PARTIAL); /* compiled once, failed once */
	assert_string_equal(o->conditions[0], "fails in some configurations: failed at "
					      "neuronx-cc; call test2_unsup.py 24");
	assert_string_equal(o->notes, "observed: 1 occurrence compiled; HLO not supported: "
				      "c64[4]{0} convert(f32[4]{0})");
	o = expect(t, "aten::view_as_complex", MT_COMPAT_UNSUPPORTED);
	assert_non_null(strstr(o->notes, "failed at Lowering to HLO"));
	mt_compat_free(t);
	text_fails("{\"supported_operators\": {\"aten::add\": 1,}}", MT_IMPORT_ANALYZE,
		   "inline.md:1:");
	text_fails("{\"ops\": []}", MT_IMPORT_ANALYZE, "not analyze output");
	text_fails("{\"supported_operators\": {\"add x\": 1}}", MT_IMPORT_ANALYZE,
		   "supported_operators: 'add x' is not an operator name");
}

static void test_detect_and_names(void **state)
{
	static const struct { const char *from, *name; } names[] = {
		{"docs/Torch API_compat.md", "torch-api_compat"},
		{"https://example.com/a/table.md?raw=1", "table"},
		{"result.json", "result"},
		{"/tmp/compat.v2.md", "compat.v2"},
	};
	mt_compat_import_convert_options o = {.name = "t", .origin = "https://host/download?id=3"};
	mt_compat_import_info info;
	char *name = NULL, *yaml = NULL;
	const char *json = "{\"supported_operators\": {\"aten::add\": 1}}";

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(mt_compat_import_name_from(&name, names[i].from), 0);
		assert_string_equal(name, names[i].name);
		free(name);
	}
	assert_int_equal(mt_compat_import_name_from(&name, "https://x/..."), MT_EINVALID);
	assert_int_equal(mt_compat_convert(&yaml, &info, json, strlen(json), &o), 0);
	assert_int_equal(info.format, MT_IMPORT_ANALYZE); /* by the text */
	free(yaml);
	o.name = "Bad Name";
	assert_int_equal(mt_compat_convert(&yaml, NULL, json, strlen(json), &o), MT_EINVALID);
	assert_int_equal(mt_compat_import_format_parse("rst"), MT_IMPORT_RST);
	assert_int_equal(mt_compat_import_format_parse("csv"), -1);
}

static void test_map_errors(void **state)
{
	static const struct { const char *text, *want; } bad[] = {
		{"columns: {op: A}\nextra: 1\n", "m.yaml:2:1: unknown key 'extra'"},
		{"columns:\n  kernel: A\n", "m.yaml:2:3: unknown column role 'kernel'"},
		{"statuses:\n  GA: yes\n", "m.yaml:2:7: 'GA' must map to device"},
		{"columns: [op]\n", "m.yaml: columns and statuses must be maps"},
	};
	mt_compat_import_map *m = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(mt_compat_import_map_parse(&m, bad[i].text, strlen(bad[i].text),
						     "m.yaml"), MT_EINVALID);
		assert_null(m);
		if (strncmp(mt_error_last(), bad[i].want, strlen(bad[i].want)) != 0)
			fail_msg("message:\n  %s\nwant:\n  %s", mt_error_last(), bad[i].want);
	}
}

/* ---- files: the user's table directory ------------------------------------- */

static char *data_home;

static int setup_home(void **state)
{
	(void)state;
	data_home = mt_fx_tmpdir("compat-import");
	setenv("XDG_DATA_HOME", data_home, 1);
	return 0;
}

static int teardown_home(void **state)
{
	(void)state;
	mt_fx_rmtree(data_home);
	free(data_home);
	return 0;
}

static char *user_path(const char *file)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/mtrial/tables/%s", data_home, file);
	return mt_strdup(path);
}

static char *read_user(const char *file)
{
	char *path = user_path(file), *text = NULL;
	if (mt_file_read(&text, NULL, path) < 0)
		fail_msg("%s", mt_error_last());
	free(path);
	return text;
}

static void test_import_files(void **state)
{
	mt_compat_import_options o = {.as = "team"};
	mt_compat_import_result r;
	mt_compat_table *t = NULL;
	size_t len;
	char sha[65], *text = fixture("shuffled.md", &len), *before;
	json_t *side;

	(void)state;
	mt_sha256_hex(sha, text, len);
	free(text);
	if (mt_compat_import(&r, FIXTURES "shuffled.md", &o) < 0)
		fail_msg("%s", mt_error_last());
	assert_string_equal(r.outcome, "imported");
	assert_int_equal(r.nops, 8);
	assert_int_equal(r.counts[MT_COMPAT_DEVICE], 3);
	assert_int_equal(r.counts[MT_COMPAT_PARTIAL], 2);
	assert_int_equal(r.counts[MT_COMPAT_CPU_FALLBACK], 2);
	assert_int_equal(r.counts[MT_COMPAT_UNSUPPORTED], 1);
	assert_false(r.replaced);
	assert_false(r.shadows_bundled);
	mt_compat_import_result_dispose(&r);

	text = read_user("team.origin.json");
	side = json_loads(text, 0, NULL);
	free(text);
	assert_string_equal(json_string_value(json_object_get(side, "sha256")), sha);
	assert_string_equal(json_string_value(json_object_get(side, "format")), "markdown");
	assert_true(json_is_null(json_object_get(side, "url")));
	assert_non_null(strstr(json_string_value(json_object_get(side, "file")), "/shuffled.md"));
	assert_non_null(json_string_value(json_object_get(side, "imported_at")));
	json_decref(side);

	assert_int_equal(mt_compat_load(&t, "team"), 0); /* found by name */
	assert_string_equal(mt_compat_name(t), "team");
	assert_non_null(strstr(mt_compat_source(t), "shuffled.md (sha256 "));
	mt_compat_free(t);

	/* a bad file, a wrong digest: the table stays as it was */
	before = read_user("compat-team.yaml");
	assert_int_equal(mt_compat_import(&r, FIXTURES "badword.md", &o), MT_EINVALID);
	o.sha256 = "0000000000000000000000000000000000000000000000000000000000000000";
	assert_int_equal(mt_compat_import(&r, FIXTURES "multi.md", &o), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "sha256 mismatch"));
	text = read_user("compat-team.yaml");
	assert_string_equal(text, before);
	free(text);
	free(before);

	/* a good one replaces it */
	o.sha256 = NULL;
	assert_int_equal(mt_compat_import(&r, FIXTURES "multi.md", &o), 0);
	assert_true(r.replaced);
	assert_int_equal(r.nops, 5);
	assert_non_null(strstr(r.skipped, "'Symbol | Meaning'"));
	mt_compat_import_result_dispose(&r);
}

static void test_import_shadow_and_update(void **state)
{
	mt_compat_import_options o = {.as = "torch-neuronx-training", .map_path = FIXTURES "mapped.map.yaml"};
	mt_compat_import_result r;
	mt_compat_table *t = NULL;
	char **names = NULL, *text;

	(void)state;
	assert_int_equal(mt_compat_import(&r, FIXTURES "mapped.md", &o), 0);
	assert_true(r.shadows_bundled);
	mt_compat_import_result_dispose(&r);
	assert_int_equal(mt_compat_load(&t, "torch-neuronx-training"), 0);
	assert_int_equal(mt_compat_nops(t), 3); /* the import, not the bundled 41 */
	mt_compat_free(t);
	text = read_user("torch-neuronx-training.origin.json");
	assert_non_null(strstr(text, "\"map\": \"/")); /* an absolute path */
	free(text);

	/* update needs a URL; nothing here has one */
	assert_int_equal(mt_compat_update(&r, "torch-neuronx-training", NULL, NULL, 0),
			 MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "was imported from the file"));
	assert_int_equal(mt_compat_update(&r, "nosuch", NULL, NULL, 0), MT_ENOTFOUND);
	assert_int_equal(mt_compat_updatable(&names), 0);
	assert_null(names[0]);
	free(names);

	/* the https-only policy holds before any connection */
	o.as = "web";
	o.map_path = NULL;
	assert_int_equal(mt_compat_import(&r, "http://example.com/t.md", &o), MT_EINVALID);
	text = user_path("compat-web.yaml");
	assert_false(mt_path_exists(text));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_markdown_shuffled),
		cmocka_unit_test(test_markdown_map),
		cmocka_unit_test(test_markdown_several_tables),
		cmocka_unit_test(test_markdown_errors),
		cmocka_unit_test(test_api_table_qualified),
		cmocka_unit_test(test_api_table_headings),
		cmocka_unit_test(test_api_table_by_cells),
		cmocka_unit_test(test_api_table_header_namespace),
		cmocka_unit_test(test_api_table_errors),
		cmocka_unit_test(test_own_yaml),
		cmocka_unit_test(test_own_yaml_errors),
		cmocka_unit_test(test_rst),
		cmocka_unit_test(test_analyze_inference),
		cmocka_unit_test(test_analyze_training),
		cmocka_unit_test(test_detect_and_names),
		cmocka_unit_test(test_map_errors),
		cmocka_unit_test(test_import_files),
		cmocka_unit_test(test_import_shadow_and_update),
	};
	return cmocka_run_group_tests(tests, setup_home, teardown_home);
}
