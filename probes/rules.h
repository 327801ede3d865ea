/* Findings: what is not a PyTorch operator but still blocks or slows a move
 * from CUDA GPUs to AWS Trainium (TorchNeuron, device "neuron"): float64,
 * hard-coded CUDA devices and APIs, torch.cuda.amp, NCCL, torch.compile
 * arguments, custom extensions, Triton kernels, CUDA-only packages,
 * per-step shapes.
 *
 * The rules are data, tables/findings.yaml; this module only matches them.
 * A rule has an id, a kind (a short category), an effort (none | low |
 * medium | high), a one-line message and one match clause. A clause names
 * one subject and may add conditions:
 *
 *   call: GLOBS      a call whose resolved api matches (`torch.cuda.*`)
 *   method: GLOBS    a call on an unresolved receiver (`x.double()`)
 *   callee: GLOBS    a call whose callee as written, or api, matches
 *   kwarg: GLOBS     any call passing a keyword whose name matches
 *   ref: GLOBS       a bound dotted name used without a call
 *   string: GLOBS    a string literal used as a value (MT_STR_VALUE: not one
 *                    name of a collection of names, a dict key, a subscript
 *                    or in a Literal[...]) whose value (prefix, quotes
 *                    stripped) matches
 *   import: GLOBS    an imported module
 *   path: GLOBS      a file path (mt_rules_eval_path; line 0)
 *   dependency: GLOBS  a declared package (PEP 503 name)
 *
 *   conditions for call, method and callee:
 *     arg0: GLOBS    the first positional argument
 *     kwarg: GLOBS   a keyword argument by name, with
 *     value: GLOBS   its value (none: present is enough)
 *     arg0 and kwarg are two ways to pass one parameter, so when both are
 *     given either one matching is enough.
 *   for the kwarg subject: value: GLOBS
 *   literal: string  arg0/value must be a string literal (default: any
 *                    simple literal or dotted name, compared as written,
 *                    except that string literals lose prefix and quotes)
 *   except: GLOBS    for call, ref, import, path: subjects not to match
 *   for dependency: spec: GLOBS (on the spec as written) and
 *     table: cuda_packages.yaml (listed there, i.e. cuda_only set by
 *     mt_deps_parse; the finding takes that entry's effort, and "NAME: why"
 *     as its message)
 *
 *   versions: SPECIFIERS  for dependency: the versions the rule is about, a
 *     PEP 440 specifier set (`==1.15.*`); a spec that pins one of them
 *     gets a finding that says so, one that admits some of them (unpinned,
 *     an open range) one that says it may resolve to one, one mtrial
 *     cannot read (a VCS URL) one that says it may be one; other specs
 *     none (deps_version.h). Such a rule needs a source and a date.
 *
 * Top level of the file: schema: mtrial-findings/1, sources: (a list of
 * {id, repository, path, commit, url, reference, note}: one of repository,
 * url or reference, a citation in words; a rule's optional `source:` names
 * one, and its optional `date:` (YYYY-MM-DD) says when the source said so),
 * rules: (the list, in priority order).
 *
 * GLOBS is one fnmatch(3) pattern or a list; `*` also crosses `.` and `/`.
 *
 * One finding per (kind, file, line) at most: when several rules of one kind
 * fire on one line (`.to("cuda")` is both a method and a string), the first
 * rule in table order wins, so a specific rule stands before a general one.
 * Results are sorted by line, column and rule order, hence deterministic.
 * Rules are read-only after loading: evaluation is thread-safe. */
#ifndef MT_RULES_H
#define MT_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "deps.h"
#include "extract.h"

typedef struct mt_rules mt_rules;

typedef struct {
	char *rule;    /* the rule's id */
	char *kind;
	char *effort;  /* none | low | medium | high */
	char *file;
	uint32_t line; /* 1-based; 0 for a finding about the whole file */
	uint32_t col;  /* 0-based byte column; 0 when unknown */
	char *message;
	char *match;   /* what matched, as written: the api, method, keyword,
			  string literal, module, path or requirement */
	char *details; /* NULL, or a JSON object's text: what the message says
			  in words, as fields: a cited rule's source and date;
			  a versions rule's versions, certainty ("pinned",
			  "possible", "unknown") and certainty_why */
} mt_finding;

/* Zero-initialise ({0}); every string is owned by the accumulator. */
typedef struct {
	mt_finding *items;
	size_t n, cap;
} mt_findings;

/* Loads the bundled tables/findings.yaml (or $MTRIAL_TABLES_DIR's), then
 * a team's own rules from the file $MTRIAL_FINDINGS names, if set (same
 * format; its ids must differ from the bundled ones; its errors name that
 * file). */
int mt_rules_load(mt_rules **out);

/* Mixes into the FNV-1a hash h the path and text of every rules file read
 * besides the bundled ones ($MTRIAL_FINDINGS, $MTRIAL_TABLES_DIR's), so
 * results cached under other rules are not reused. */
uint64_t mt_rules_digest(uint64_t h);

/* Parses findings.yaml text; `name` prefixes messages. MT_EINVALID
 * "name:LINE:COL: what" for malformed YAML, an unknown key, match kind or
 * effort; *out is then NULL (never half loaded). */
int mt_rules_parse(mt_rules **out, const char *text, size_t len, const char *name);

void mt_rules_free(mt_rules *r);

/* The number of rules and the id / kind of rule i (borrowed, valid while r
 * lives), in table order. */
size_t mt_rules_count(const mt_rules *r);
const char *mt_rules_id(const mt_rules *r, size_t i);
const char *mt_rules_kind(const mt_rules *r, size_t i);

/* Appends the findings of one extracted Python file. */
int mt_rules_eval_python(const mt_rules *r, const char *path, const mt_pyfile *f,
			 mt_findings *acc);

/* Which rules a name or string matches, cached for one thread to use over
 * many files (a repository names the same apis and methods over and over).
 * Not thread-safe; valid while the rules live. */
typedef struct mt_findings_memo mt_findings_memo;

mt_findings_memo *mt_findings_memo_new(const mt_rules *r);
void mt_findings_memo_free(mt_findings_memo *m);

/* mt_rules_eval_python with a memo made for r (NULL: none). */
int mt_rules_eval_python_memo(const mt_rules *r, const char *path, const mt_pyfile *f,
			      mt_findings_memo *memo, mt_findings *acc);

/* Appends the findings about a file by its path alone (`*.cu`). */
int mt_rules_eval_path(const mt_rules *r, const char *path, mt_findings *acc);

/* Appends the findings about declared dependencies (file and line taken
 * from each dependency; includes are skipped). */
int mt_rules_eval_deps(const mt_rules *r, const mt_dependency *deps, size_t n,
		       mt_findings *acc);

/* Appends one finding, copying every string (match may be NULL). */
int mt_findings_add(mt_findings *acc, const char *rule, const char *kind, const char *effort,
		    const char *file, uint32_t line, uint32_t col, const char *message,
		    const char *match);

/* Moves every item of src to the end of dst; src is left empty. */
int mt_findings_take(mt_findings *dst, mt_findings *src);

/* Sorts by file, line, column, rule id: a stable order for findings
 * gathered from many files or threads. */
void mt_findings_sort(mt_findings *acc);

void mt_findings_dispose(mt_findings *acc);

#endif
