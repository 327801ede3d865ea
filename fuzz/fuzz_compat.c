/* libFuzzer harness for compatibility tables: the mtrial-compat/1 YAML
 * reader, the column mapping reader, and the importers of vendors' Markdown
 * tables (op- or API-keyed), RST operator lists, analyze JSON and mtrial's
 * own YAML (compat/compat*.c). Any bytes
 * must either read or fail with a message, never crash or leak. The first
 * byte picks the reader; the rest is the file.
 *
 * An importer's YAML is validated by mt_compat_parse() before it is
 * returned; the harness parses it again and checks that every op and API
 * can be looked up by its own name. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "compat_import.h"
#include "error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every op of a loaded table answers its accessors and its own lookup. */
static void walk(const mt_compat_table *t)
{
	(void)mt_compat_name(t), (void)mt_compat_backend(t), (void)mt_compat_version(t);
	(void)mt_compat_kind(t), (void)mt_compat_retrieved(t), (void)mt_compat_source(t);
	for (size_t i = 0; i < mt_compat_nops(t); i++) {
		const mt_compat_op *op = mt_compat_op_at(t, i);
		if (!op || !op->op || !mt_compat_lookup(t, op->op))
			abort();
		for (const char *const *c = op->conditions; c && *c; c++)
			(void)strlen(*c);
		(void)mt_compat_status_str(op->status);
	}
	for (size_t i = 0; i < mt_compat_napis(t); i++) {
		const mt_compat_api *a = mt_compat_api_at(t, i);
		if (!a || mt_compat_lookup_api(t, a->api) != a)
			abort();
		for (const char *const *o = a->ops; *o; o++)
			if (mt_compat_apis_naming(t, *o, NULL, 0) == 0)
				abort();
		for (const char *const *d = a->fallback_dtypes; *d; d++)
			(void)strlen(*d);
	}
	for (size_t i = 0; i < mt_compat_nrules(t); i++)
		if (!mt_compat_rule_at(t, i) || !mt_compat_rule_at(t, i)->id)
			abort();
}

static void failed(void)
{
	if (!mt_error_last()[0])
		abort(); /* every refusal says why */
}

static void table(const char *text, size_t len)
{
	mt_compat_table *t = NULL;

	if (mt_compat_parse(&t, text, len, "fuzz.yaml") < 0)
		return failed();
	walk(t);
	mt_compat_free(t);
}

static void convert(const char *text, size_t len, mt_compat_import_format format)
{
	static const char *const origins[] = {"ops.md", "ops.md", "ops.rst", "result.json",
					      "shared.yaml"};
	mt_compat_import_convert_options o = {.name = "fuzz", .format = format,
				       .origin = origins[format], .source = "fuzz",
				       .retrieved = "2026-01-01"};
	mt_compat_import_info info = {0};
	mt_compat_table *t = NULL;
	char *yaml = NULL;

	if (mt_compat_convert(&yaml, &info, text, len, &o) < 0) {
		failed();
		mt_compat_import_info_dispose(&info);
		return;
	}
	/* what the importer validated must read again */
	if (mt_compat_parse(&t, yaml, strlen(yaml), "fuzz.yaml") < 0)
		abort();
	walk(t);
	mt_compat_free(t);
	mt_compat_import_info_dispose(&info);
	free(yaml);
}

static void map(const char *text, size_t len)
{
	mt_compat_import_map *m = NULL;

	if (mt_compat_import_map_parse(&m, text, len, "map.yaml") < 0)
		return failed();
	mt_compat_import_map_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;

	if (size == 0)
		return 0;
	mt_error_clear();
	switch (data[0] % 7) {
	case 0:
		table(text, size - 1);
		break;
	case 1:
		map(text, size - 1);
		break;
	default:
		convert(text, size - 1, (mt_compat_import_format)(data[0] % 7 - 2));
		break;
	}
	return 0;
}
