/* PEP 440 versions and version sets (deps_version.h): parsing and
 * normalisation, the order of PEP 440's own examples, membership of
 * specifier sets (expected values as pip's packaging 21.3 computes them,
 * with pre-releases admitted), set relations, poetry and conda syntax, and
 * what a manifest's dependency admits against a rule's range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deps_version.h"
#include "error.h"

static void parse_ok(mt_version *v, const char *s)
{
	if (mt_version_parse(v, s, strlen(s)) < 0)
		fail_msg("%s: %s", s, mt_error_last());
}

static void test_parse_normalise(void **state)
{
	static const char *const cases[][2] = {
		{"1.0", "1.0"},           {"v1.0", "1.0"},         {"1.0-alpha.1", "1.0a1"},
		{"1.0.post", "1.0.post0"}, {"1!2.0", "1!2.0"},       {"1.0+Local_1", "1.0+local.1"},
		{"1.0-1", "1.0.post1"},   {"1.0RC1", "1.0rc1"},    {"1.0c1", "1.0rc1"},
		{"1.0.dev", "1.0.dev0"},  {"1.0preview2", "1.0rc2"}, {"1.0-r4", "1.0.post4"},
		{" 2.0.0b1.dev3 ", "2.0.0b1.dev3"}, {"1.0_pre.2", "1.0rc2"}, {"1.15.2", "1.15.2"},
	};
	char buf[96];
	mt_version v;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_ok(&v, cases[i][0]);
		mt_version_format(buf, sizeof(buf), &v);
		assert_string_equal(buf, cases[i][1]);
	}
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {"", "abc", "1.0+", "1.0.x", "1..0", "1.0+a..b",
					  "99999999999999999999999", "1.0 beta gamma", "1.0++",
					  "1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17"};
	mt_version v;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (mt_version_parse(&v, bad[i], strlen(bad[i])) != MT_EINVALID)
			fail_msg("'%s' parsed", bad[i]);
		assert_non_null(strstr(mt_error_last(), "not a PEP 440 version"));
	}
}

/* PEP 440's example order, plus local labels, padding and epochs. */
static void test_order(void **state)
{
	static const char *const chain[] = {
		"1.0.dev456", "1.0a1",       "1.0a2.dev456", "1.0a12.dev456", "1.0a12",
		"1.0b1.dev456", "1.0b2",     "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456",
		"1.0rc1",     "1.0",         "1.0+abc.5",    "1.0+abc.7",     "1.0+5",
		"1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1", "2.0", "1!0.1",
	};
	mt_version a, b;

	(void)state;
	for (size_t i = 0; i + 1 < sizeof(chain) / sizeof(chain[0]); i++) {
		parse_ok(&a, chain[i]);
		parse_ok(&b, chain[i + 1]);
		if (mt_version_cmp(&a, &b) >= 0 || mt_version_cmp(&b, &a) <= 0)
			fail_msg("%s < %s does not hold", chain[i], chain[i + 1]);
	}
	parse_ok(&a, "1.0");
	parse_ok(&b, "1.0.0.0");
	assert_int_equal(mt_version_cmp(&a, &b), 0);
}

struct row {
	const char *spec, *version;
	int in;
};

/* Expected values: packaging 21.3, SpecifierSet(spec).contains(v,
 * prereleases=True). */
static const struct row rows[] = {
	{"==1.15.*", "1.15", 1}, {"==1.15.*", "1.15.0", 1}, {"==1.15.*", "1.15.2", 1},
	{"==1.15.*", "1.15.0rc1", 1}, {"==1.15.*", "1.15.dev0", 1}, {"==1.15.*", "1.15.2.post1", 1},
	{"==1.15.*", "1.15.2+local", 1}, {"==1.15.*", "1.14.9", 0}, {"==1.15.*", "1.16", 0},
	{"==1.15.*", "1.16.dev0", 0}, {"==1.15.*", "1.150", 0},
	{"~=1.15.0", "1.15.0", 1}, {"~=1.15.0", "1.15.9", 1}, {"~=1.15.0", "1.16.0", 0},
	{"~=1.15.0", "1.14.9", 0}, {"~=1.15.0", "1.15.0rc1", 0}, {"~=1.15.0", "1.15.1.post1", 1},
	{"~=1.15", "1.15", 1}, {"~=1.15", "1.99", 1}, {"~=1.15", "2.0", 0},
	{"~=1.15", "2.0.dev1", 0}, {"~=1.15", "1.14", 0},
	{">=1.15,<1.16", "1.15", 1}, {">=1.15,<1.16", "1.15.3", 1}, {">=1.15,<1.16", "1.16", 0},
	{">=1.15,<1.16", "1.16rc1", 0}, {">=1.15,<1.16", "1.16.dev0", 0},
	{">=1.15,<1.16", "1.15rc1", 0}, {">=1.15,<1.16", "1.15.99.post3", 1},
	{"<1.16", "1.16a1", 0}, {"<1.16", "1.16.dev0", 0}, {"<1.16", "1.15.9", 1},
	{"<1.16", "1.16", 0}, {"<1.16", "1.15.post2", 1},
	{"<1.16rc1", "1.16a1", 1}, {"<1.16rc1", "1.16rc1", 0}, {"<1.16rc1", "1.16.dev0", 1},
	{"<1.16rc1", "1.15", 1},
	{">1.15", "1.15", 0}, {">1.15", "1.15.post1", 0}, {">1.15", "1.15.1", 1},
	{">1.15", "1.15+local", 0}, {">1.15", "1.16", 1}, {">1.15", "1.15.0.1", 1},
	{">1.15a1", "1.15a2", 1}, {">1.15a1", "1.15", 1}, {">1.15a1", "1.15.post1", 0},
	{">1.15a1", "1.15.1", 1}, {">1.15a1", "1.15a1.post1", 0}, {">1.15a1", "1.15b1", 1},
	{">1.15a1.dev2", "1.15a1.dev3", 1}, {">1.15a1.dev2", "1.15a1", 1},
	{">1.15a1.dev2", "1.15a1.post0", 0}, {">1.15a1.dev2", "1.15a2.dev0", 1},
	{">1.15a1.dev2", "1.15.post0", 0}, {">1.15.dev2", "1.15", 1}, {">1.15.dev2", "1.15.post1", 0},
	{">1.15.post1", "1.15.post2", 1}, {">1.15.post1", "1.15.post1", 0},
	{">1.15.post1", "1.15.1", 1},
	{"<=1.15.2", "1.15.2", 1}, {"<=1.15.2", "1.15.2+local", 1}, {"<=1.15.2", "1.15.2.post0", 0},
	{"<=1.15.2", "1.15.1", 1},
	{"!=1.15.2", "1.15.2", 0}, {"!=1.15.2", "1.15.3", 1}, {"!=1.15.2", "1.15.2+x", 0},
	{"!=1.15.2", "1.15.2.post1", 1},
	{"!=1.15.*", "1.15.0", 0}, {"!=1.15.*", "1.14", 1}, {"!=1.15.*", "1.16", 1},
	{"!=1.15.*", "1.15rc1", 0},
	{"==1.15.2", "1.15.2", 1}, {"==1.15.2", "1.15.2.0", 1}, {"==1.15.2", "1.15.2+abc", 1},
	{"==1.15.2", "1.15.2.post1", 0}, {"==1.15.2", "1.15.2rc1", 0},
	{"==1!1.15", "1.15", 0}, {"==1!1.15", "1!1.15", 1},
	{">=1.0.dev0", "1.0.dev0", 1}, {">=1.0.dev0", "0.9", 0}, {">=1.0.dev0", "1.0a1", 1},
	{"<1.15.post1", "1.15", 1}, {"<1.15.post1", "1.15.post0", 1}, {"<1.15.post1", "1.15rc1", 0},
	{"<1.15.post1", "1.14", 1},
	{"", "1.15", 1}, {"", "0.1", 1},
	{">=2,!=2.1.*,<3", "2.0", 1}, {">=2,!=2.1.*,<3", "2.1.5", 0}, {">=2,!=2.1.*,<3", "2.2", 1},
	{">=2,!=2.1.*,<3", "3.0", 0}, {">=2,!=2.1.*,<3", "1.9", 0},
	{" >= 1.0 , < 2 ", "1.5", 1}, {"===1.15.2", "1.15.2", 1},
};

static void test_membership(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		mt_vset *s = NULL;
		mt_version v;
		if (mt_vset_parse(&s, rows[i].spec, strlen(rows[i].spec)) < 0)
			fail_msg("'%s': %s", rows[i].spec, mt_error_last());
		parse_ok(&v, rows[i].version);
		if (mt_vset_contains(s, &v) != rows[i].in)
			fail_msg("'%s' %s %s", rows[i].spec, rows[i].in ? "lacks" : "holds",
				 rows[i].version);
		mt_vset_free(s);
	}
}

static mt_vset *set_of(const char *spec)
{
	mt_vset *s = NULL;

	if (mt_vset_parse(&s, spec, strlen(spec)) < 0)
		fail_msg("'%s': %s", spec, mt_error_last());
	return s;
}

/* a within b, a meets b, for the rule's ==1.15.* and others. */
static void test_relations(void **state)
{
	static const struct {
		const char *a, *b;
		int subset, meets;
	} cases[] = {
		{"==1.15.2", "==1.15.*", 1, 1},       {"~=1.15.0", "==1.15.*", 1, 1},
		{">=1.15,<1.16", "==1.15.*", 1, 1},   {">=1.15.0rc1,<1.16", "==1.15.*", 1, 1},
		{"==1.15.*", "==1.15.*", 1, 1},       {">=1.15.3,<1.16", "==1.15.*", 1, 1},
		{">=1.10", "==1.15.*", 0, 1},         {"", "==1.15.*", 0, 1},
		{">=1.14,<1.16", "==1.15.*", 0, 1},   {"~=1.14", "==1.15.*", 0, 1},
		{"<1.15", "==1.15.*", 0, 0},          {">=1.16", "==1.15.*", 0, 0},
		{"==1.16.0", "==1.15.*", 0, 0},       {"~=1.14.0", "==1.15.*", 0, 0},
		{">1.15.99,<1.16", "==1.15.*", 1, 1}, {"!=1.15.*", "==1.15.*", 0, 0},
		{">=1.15,!=1.15.*", "==1.15.*", 0, 0}, {"<1.16.dev0", "<1.16", 1, 1},
		{"<1.16", "<1.16.dev0", 1, 1},        {">1.15", ">=1.15.post0.dev0", 1, 1},
		{">=1.15.post0.dev0", ">1.15", 0, 1},
		{">=1,<1", "", 1, 0},                 {">1.0,<=1.0", "", 1, 0},
		{"<=1.0,>=1.0", "==1.0", 1, 1},        {">1.0.dev0,<1.0.dev1", "", 1, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mt_vset *a = set_of(cases[i].a), *b = set_of(cases[i].b), *both = mt_vset_intersect(a, b);
		if (mt_vset_is_subset(a, b) != cases[i].subset || mt_vset_is_empty(both) == cases[i].meets)
			fail_msg("'%s' against '%s': subset %d, meets %d", cases[i].a, cases[i].b,
				 mt_vset_is_subset(a, b), !mt_vset_is_empty(both));
		mt_vset_free(a);
		mt_vset_free(b);
		mt_vset_free(both);
	}
}

/* Union and complement undo each other; any is any. */
static void test_algebra(void **state)
{
	mt_vset *a = set_of("==1.15.*"), *na = mt_vset_complement(a), *all = mt_vset_union(a, na);
	mt_vset *back = mt_vset_complement(na), *none = mt_vset_intersect(a, na);

	(void)state;
	assert_true(mt_vset_is_any(all));
	assert_true(mt_vset_is_empty(none));
	assert_true(mt_vset_is_subset(back, a) && mt_vset_is_subset(a, back));
	assert_false(mt_vset_is_any(a));
	mt_vset_free(a);
	mt_vset_free(na);
	mt_vset_free(all);
	mt_vset_free(back);
	mt_vset_free(none);
}

static void test_bad_specifiers(void **state)
{
	static const char *const bad[][2] = {
		{"1.15", "no operator"},          {"~=1", "two release numbers"},
		{">=1.15.*", "only after == or !="}, {"==1.15rc1.*", "release numbers only"},
		{">=1.0+local", "local label"},    {">=", "'>='"},
		{">=1.0,,<2", "no operator"},       {"=>1.0", "no operator"},
	};
	mt_vset *s = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (mt_vset_parse(&s, bad[i][0], strlen(bad[i][0])) != MT_EINVALID)
			fail_msg("'%s' accepted", bad[i][0]);
		if (!strstr(mt_error_last(), bad[i][1]))
			fail_msg("'%s': %s", bad[i][0], mt_error_last());
		assert_null(s);
	}
}

static void check_in(int (*parse)(mt_vset **, const char *, size_t), const char *spec,
		     const char *in, const char *out)
{
	mt_vset *s = NULL;
	mt_version v;

	if (parse(&s, spec, strlen(spec)) < 0)
		fail_msg("'%s': %s", spec, mt_error_last());
	parse_ok(&v, in);
	if (!mt_vset_contains(s, &v))
		fail_msg("'%s' lacks %s", spec, in);
	parse_ok(&v, out);
	if (mt_vset_contains(s, &v))
		fail_msg("'%s' holds %s", spec, out);
	mt_vset_free(s);
}

static void test_poetry_conda(void **state)
{
	(void)state;
	check_in(mt_vset_parse_poetry, "^1.15.2", "1.99", "2.0");
	check_in(mt_vset_parse_poetry, "^1.15.2", "1.15.2", "1.15.1");
	check_in(mt_vset_parse_poetry, "^0.2.3", "0.2.9", "0.3.0");
	check_in(mt_vset_parse_poetry, "^0.0.3", "0.0.3", "0.0.4");
	check_in(mt_vset_parse_poetry, "^0.0", "0.0.9", "0.1");
	check_in(mt_vset_parse_poetry, "~1.15.2", "1.15.9", "1.16.0");
	check_in(mt_vset_parse_poetry, "~1", "1.99", "2.0");
	check_in(mt_vset_parse_poetry, "1.15.2", "1.15.2", "1.15.3");
	check_in(mt_vset_parse_poetry, "1.15.*", "1.15.7", "1.16");
	check_in(mt_vset_parse_poetry, ">= 1.2, < 1.5", "1.4", "1.5");
	check_in(mt_vset_parse_poetry, ">=1.2 <1.5", "1.2", "1.5");
	check_in(mt_vset_parse_poetry, "<1.14 || ^1.16", "1.17", "1.15");
	check_in(mt_vset_parse_conda, "=1.15", "1.15.4", "1.16");
	check_in(mt_vset_parse_conda, "1.15.2", "1.15.2", "1.15.20");
	check_in(mt_vset_parse_conda, "1.15*", "1.15.9", "1.16");
	check_in(mt_vset_parse_conda, ">=1.0,<1.15|>=1.16", "1.16.1", "1.15.3");
}

/* What each manifest syntax's spec admits against the rule's ==1.15.*. */
static void test_dependency_match(void **state)
{
	static const struct {
		int syntax;
		const char *spec;
		mt_vmatch want;
	} cases[] = {
		{MT_DEP_PEP508, "trl==1.15.2", MT_VMATCH_PINNED},
		{MT_DEP_PEP508, "trl~=1.15.0", MT_VMATCH_PINNED},
		{MT_DEP_PEP508, "trl>=1.15,<1.16", MT_VMATCH_PINNED},
		{MT_DEP_PEP508, "trl[peft] (>=1.15, <1.16) ; python_version >= '3.10'", MT_VMATCH_PINNED},
		{MT_DEP_PEP508, "TRL == 1.15.*", MT_VMATCH_PINNED},
		{MT_DEP_PEP508, "trl==1.16.0", MT_VMATCH_NONE},
		{MT_DEP_PEP508, "trl<1.15", MT_VMATCH_NONE},
		{MT_DEP_PEP508, "trl>=1.15.99,!=1.15.*", MT_VMATCH_NONE},
		{MT_DEP_PEP508, "trl", MT_VMATCH_POSSIBLE},
		{MT_DEP_PEP508, "trl>=1.10", MT_VMATCH_POSSIBLE},
		{MT_DEP_PEP508, "trl; python_version >= '3.10'", MT_VMATCH_POSSIBLE},
		{MT_DEP_PEP508, "trl @ https://example.org/trl-1.15.2-py3-none-any.whl", MT_VMATCH_PINNED},
		{MT_DEP_PEP508, "https://example.org/trl-1.16.0.tar.gz", MT_VMATCH_NONE},
		{MT_DEP_PEP508, "trl @ git+https://github.com/huggingface/trl@main", MT_VMATCH_UNKNOWN},
		{MT_DEP_PEP508, "git+https://github.com/huggingface/trl@v1.15.2#egg=trl", MT_VMATCH_PINNED},
		{MT_DEP_PEP508, "-e git+https://github.com/huggingface/trl#egg=trl", MT_VMATCH_UNKNOWN},
		{MT_DEP_PEP508, "-e git+https://github.com/huggingface/trl@v1.15.0#egg=trl", MT_VMATCH_PINNED},
		{MT_DEP_PEP508, "--editable=git+https://github.com/huggingface/trl@v1.16.0", MT_VMATCH_NONE},
		{MT_DEP_PEP508, "trl>=1.15.*", MT_VMATCH_UNKNOWN},
		{MT_DEP_POETRY, "\"^1.15\"", MT_VMATCH_POSSIBLE},
		{MT_DEP_POETRY, "\"~1.15.2\"", MT_VMATCH_PINNED},
		{MT_DEP_POETRY, "{ version = \"1.15.2\", optional = true }", MT_VMATCH_PINNED},
		{MT_DEP_POETRY, "[{ version = \"1.15.2\", python = \"<3.9\" }, { version = \"1.16.0\" }]",
		 MT_VMATCH_POSSIBLE},
		{MT_DEP_POETRY, "{ git = \"https://github.com/huggingface/trl\" }", MT_VMATCH_UNKNOWN},
		{MT_DEP_POETRY, "", MT_VMATCH_UNKNOWN},
		{MT_DEP_POETRY, "\"1.16.0\"", MT_VMATCH_NONE},
		{MT_DEP_POETRY, "\"*\"", MT_VMATCH_POSSIBLE},
		{MT_DEP_CONDA, "conda-forge::trl=1.15.2=pyhd8ed1ab_0", MT_VMATCH_PINNED},
		{MT_DEP_CONDA, "trl=1.15", MT_VMATCH_PINNED},
		{MT_DEP_CONDA, "trl >=1.16", MT_VMATCH_NONE},
		{MT_DEP_CONDA, "trl", MT_VMATCH_POSSIBLE},
		{MT_DEP_CONDA, "trl 1.15.* py_0", MT_VMATCH_PINNED},
		{MT_DEP_CONDA, "trl[version='>=1.15,<1.16']", MT_VMATCH_PINNED},
	};
	mt_vset *affected = set_of("==1.15.*");

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mt_dependency d = {.name = "trl", .spec = (char *)cases[i].spec,
				   .syntax = cases[i].syntax};
		const char *why = NULL;
		mt_vmatch m = mt_deps_version_match(&d, affected, &why);
		if (m != cases[i].want)
			fail_msg("'%s': %d, not %d", cases[i].spec, m, cases[i].want);
		if (m == MT_VMATCH_UNKNOWN)
			assert_non_null(why);
	}
	mt_vset_free(affected);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_normalise), cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_order),           cmocka_unit_test(test_membership),
		cmocka_unit_test(test_relations),       cmocka_unit_test(test_algebra),
		cmocka_unit_test(test_bad_specifiers),  cmocka_unit_test(test_poetry_conda),
		cmocka_unit_test(test_dependency_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
