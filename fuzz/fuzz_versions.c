/* libFuzzer harness for PEP 440 versions and version sets (deps_version.h):
 * the first byte picks the reader (a version, a specifier set, a poetry
 * constraint, a conda spec, or a dependency spec of each manifest syntax),
 * the rest is the text. Anything must parse or fail with a message, and
 * whatever parses must obey the set algebra: a set meets its complement
 * nowhere, their union is every version, a set is within itself. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deps_version.h"
#include "error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_algebra(const mt_vset *s)
{
	mt_vset *c = mt_vset_complement(s), *none = mt_vset_intersect(s, c), *all = mt_vset_union(s, c);
	mt_vset *back = mt_vset_complement(c);

	if (!mt_vset_is_empty(none) || !mt_vset_is_any(all) || !mt_vset_is_subset(s, s) ||
	    !mt_vset_is_subset(back, s) || !mt_vset_is_subset(s, back))
		abort();
	mt_vset_free(c);
	mt_vset_free(none);
	mt_vset_free(all);
	mt_vset_free(back);
}

static void fuzz_version(const char *s, size_t n)
{
	mt_version v, w;
	char buf[256];

	if (mt_version_parse(&v, s, n) < 0) {
		if (!mt_error_last()[0])
			abort();
		return;
	}
	mt_version_format(buf, sizeof(buf), &v); /* the normal form reads back the same */
	if (mt_version_parse(&w, buf, strlen(buf)) < 0 || mt_version_cmp(&v, &w) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int (*const readers[])(mt_vset **, const char *, size_t) = {
		mt_vset_parse, mt_vset_parse_poetry, mt_vset_parse_conda};
	char *text;
	mt_vset *s = NULL;

	if (size == 0)
		return 0;
	text = malloc(size); /* NUL-terminated: the dependency readers take C strings */
	if (!text)
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] % 7 == 0) {
		fuzz_version(text, size - 1);
	} else if (data[0] % 7 <= 3) {
		if (readers[data[0] % 7 - 1](&s, text, size - 1) == 0)
			check_algebra(s);
		else if (!mt_error_last()[0])
			abort();
		mt_vset_free(s);
	} else {
		mt_dependency d = {.name = "trl", .spec = text, .syntax = data[0] % 7 - 4};
		const char *why = NULL;
		mt_vset *affected = NULL;
		if (mt_vset_parse(&affected, "==1.15.*", 8) < 0)
			abort();
		if (mt_deps_version_match(&d, affected, &why) == MT_VMATCH_UNKNOWN && !why)
			abort();
		mt_vset_free(affected);
	}
	free(text);
	return 0;
}
