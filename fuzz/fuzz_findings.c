/* libFuzzer harness for the findings table reader and the dependency
 * manifest parsers: any bytes must either parse or fail with a message,
 * never crash or leak. The first byte picks the parser; the rest is the
 * file. Links mtrial_probes (fuzz/CMakeLists.txt must list it). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "deps.h"
#include "deps_version.h"
#include "error.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"findings.yaml", "requirements.txt", "pyproject.toml",
				    "setup.py",      "setup.cfg",        "environment.yml"};

static void fuzz_rules(const char *text, size_t len)
{
	mt_rules *rules = NULL;
	mt_findings acc = {0};

	if (mt_rules_parse(&rules, text, len, "fuzz.yaml") < 0) {
		if (!mt_error_last()[0])
			abort();
		return;
	}
	/* Whatever loaded must evaluate: a path, and an empty file. */
	mt_rules_eval_path(rules, "a/b.cu", &acc);
	mt_rules_eval_python(rules, "a.py", &(mt_pyfile){0}, &acc);
	mt_findings_dispose(&acc);
	mt_rules_free(rules);
}

static mt_vset *affected;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *name;
	mt_dependency *deps = NULL;
	size_t n = 0;

	if (size == 0)
		return 0;
	name = names[data[0] % (sizeof(names) / sizeof(names[0]))];
	if (data[0] % (sizeof(names) / sizeof(names[0])) == 0) {
		fuzz_rules((const char *)data + 1, size - 1);
		return 0;
	}
	if (!affected && mt_vset_parse(&affected, "==1.15.*", 8) < 0)
		abort(); /* kept for the whole run */
	if (mt_deps_parse(&deps, &n, name, (const char *)data + 1, size - 1) < 0) {
		if (!mt_error_last()[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const char *why = NULL;
		if (!deps[i].name || !deps[i].file)
			abort();
		/* every spec a manifest yields reads as versions, or says why not */
		if (!deps[i].include && mt_deps_version_match(&deps[i], affected, &why) ==
						MT_VMATCH_UNKNOWN && !why)
			abort();
	}
	mt_deps_free(deps, n);
	return 0;
}
