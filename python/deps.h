/* Dependency declarations read from a repository's manifests, statically:
 * requirements files, pyproject.toml, setup.py, setup.cfg and conda
 * environment files. Nothing is executed, installed or resolved; included
 * files (`-r other.txt`) are listed, not followed.
 *
 * Each parser reads the subset that declares packages, and says so when
 * the file is malformed (MT_EINVALID, "path:LINE: what"), so the caller can
 * report that one file and go on with the others:
 *
 * - requirements*.txt, *requirements*.in, requirements/NAME.txt: one
 *   requirement per logical line (trailing `\` joins lines; the line is the
 *   first one), `#` comments (at the start or after whitespace, so `#egg=`
 *   survives), extras, version specifiers, markers, `name @ url`, URLs and
 *   VCS lines (`git+https://...#egg=name`; without egg=, a wheel file name or
 *   the repository name), `-e`/`--editable`, `-r`/`-c` includes (listed,
 *   include = 1), per-line options (`--hash=...`), other options ignored.
 * - pyproject.toml: [project] dependencies and optional-dependencies (as a
 *   table or an inline table), [build-system] requires, [dependency-groups],
 *   [tool.poetry.dependencies], [tool.poetry.dev-dependencies],
 *   [tool.poetry.group.NAME.dependencies], and
 *   [tool.setuptools.dynamic] dependencies = {file = [...]} (includes).
 *   A TOML subset: tables, [[arrays of tables]], bare/quoted/dotted keys,
 *   basic and literal strings (single- and multi-line), arrays and inline
 *   tables nested to any depth, other scalars skipped as words. Not checked:
 *   duplicate keys, number/date syntax, escapes beyond \" \\ \n \t \uXXXX.
 * - setup.py: the string literals inside install_requires=[...],
 *   setup_requires, tests_require and extras_require={...} (dictionary keys
 *   skipped), found by a scanner that knows comments and string literals. A
 *   list built at run time (a variable, a comprehension) yields nothing.
 * - setup.cfg: [options] install_requires / setup_requires (inline value or
 *   indented continuation lines, `file:` values as includes) and every key
 *   of [options.extras_require].
 * - environment*.yml / environment*.yaml: `dependencies:` conda specs
 *   (`channel::name=1.2=build`) and the nested `pip:` list (read as
 *   requirement lines); libyaml.
 *
 * Names are normalised per PEP 503 (lowercase, runs of `-_.` become `-`).
 * cuda_only, why and effort come from tables/cuda_packages.yaml (bundled, or
 * from $MTRIAL_TABLES_DIR). */
#ifndef MT_DEPS_H
#define MT_DEPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	char *name;    /* PEP 503 normalised; for an include, the file named */
	char *spec;    /* the requirement as written (comment and per-line
			  options removed); for poetry, the value's source text */
	char *file;    /* the manifest's path as passed to mt_deps_parse */
	uint32_t line; /* 1-based */
	int cuda_only; /* listed in cuda_packages.yaml */
	char *why;     /* the table's one-line reason when cuda_only, else NULL */
	char *effort;  /* the table's effort when cuda_only, else NULL */
	int include;   /* 1: `-r file`, `-c file` or `file:` naming another
			  manifest, not followed; name is that file */
	int syntax;    /* how spec states versions: an mt_dep_syntax */
} mt_dependency;

/* The version syntax of a spec (deps_version.h reads it). */
enum mt_dep_syntax {
	MT_DEP_PEP508, /* a PEP 508 requirement: requirements, pyproject, setup */
	MT_DEP_POETRY, /* a poetry value: `"^1.2"`, `{version = "~1.2"}` */
	MT_DEP_CONDA,  /* a conda match spec: `channel::name=1.2=build` */
};

/* 1 if `path` (a repository-relative path) names a manifest that
 * mt_deps_parse reads, by its file name alone; 0 otherwise. Note that
 * setup.py is both a manifest and Python source. */
int mt_deps_is_manifest(const char *path);

/* Parses one manifest, choosing the parser by the file name of `path`, into
 * *out (caller frees with mt_deps_free), *n entries in file order.
 * MT_EINVALID "path:LINE: what" on a malformed file (nothing is returned
 * then), MT_ENOTFOUND when `path` is not a manifest. Thread-safe. */
int mt_deps_parse(mt_dependency **out, size_t *n, const char *path, const char *text,
		  size_t len);

/* Frees an array returned by mt_deps_parse. */
void mt_deps_free(mt_dependency *deps, size_t n);

/* Normalises a package name per PEP 503 into a new string (caller frees). */
char *mt_deps_normalize(const char *name, size_t len);

/* A PEP 508 environment marker judged for the target (Linux, x86_64,
 * CPython 3): true, false, or unknown where it tests what the target does
 * not fix (python_version, extra) or cannot be read. */
typedef enum { MT_MARKER_TRUE, MT_MARKER_FALSE, MT_MARKER_UNKNOWN } mt_marker;
mt_marker mt_deps_marker_eval(const char *marker, size_t len);

/* d's marker (after `;` in a PEP 508 requirement; *marker borrowed from
 * d->spec, NULL when none) judged so; a requirement without one applies. */
mt_marker mt_deps_marker_of(const mt_dependency *d, const char **marker);

#endif
