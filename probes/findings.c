/* Rules x (Python file | path | dependencies) -> findings, and the findings
 * accumulator. Evaluation only reads the rules, so threads may share them. */
#include "rules_int.h"
#include "error.h"
#include "util.h"
#include "strtab.h"

#include <fnmatch.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- matching -------------------------------------------------------------------- */

/* fnmatch on n bytes of s, which need not be NUL-terminated. Kept out of
 * line: its buffer would make every glob_match set up a large frame. */
__attribute__((noinline)) static int fnmatch_n(const char *pat, const char *s, size_t n)
{
	char small[256], *buf = n < sizeof(small) ? small : malloc(n + 1);
	int hit;

	if (!buf)
		abort();
	memcpy(buf, s, n);
	buf[n] = '\0';
	hit = fnmatch(pat, buf, 0) == 0;
	if (buf != small)
		free(buf);
	return hit;
}

/* memmem for the short subjects rules see (a callee, a string): glibc's
 * memmem sets up tables on every call, which costs more than the search. */
static int contains(const char *s, size_t n, const char *lit, size_t k)
{
	const char *p = s, *end = s + n;

	if (k == 0)
		return 1;
	while (k <= (size_t)(end - p) && (p = memchr(p, lit[0], (size_t)(end - p) - k + 1))) {
		if (memcmp(p + 1, lit + 1, k - 1) == 0)
			return 1;
		p++;
	}
	return 0;
}

static inline int glob_match(const struct glob *g, const char *s, size_t n)
{
	/* The length, then the literal's last byte, reject most subjects
	 * without a call: `torch.cuda.` and `torch.nn.` differ at the end. */
	if (g->shape == GLOB_EXACT)
		return n == g->lit && s[n - 1] == g->pat[n - 1] && memcmp(s, g->pat, n) == 0;
	if (n < g->lit || (g->lit && s[g->lit - 1] != g->pat[g->lit - 1]) ||
	    memcmp(s, g->pat, g->lit) != 0)
		return 0;
	switch (g->shape) {
	case GLOB_PREFIX:
		return 1;
	case GLOB_CONTAINS:
		return n >= g->ncore && contains(s, n, g->core, g->ncore);
	case GLOB_SUFFIX:
		if (memchr(s, 0, n)) /* fnmatch stops at a NUL byte: leave such text to it */
			return fnmatch_n(g->pat, s, n);
		return n >= g->ncore && memcmp(s + n - g->ncore, g->core, g->ncore) == 0;
	default:
		return fnmatch_n(g->pat, s, n);
	}
}

static int globs_match_n(const struct globs *g, const char *s, size_t n)
{
	for (size_t i = 0; i < g->n; i++)
		if (glob_match(&g->v[i], s, n))
			return 1;
	return 0;
}

static int globs_match(const struct globs *g, const char *s)
{
	return s && globs_match_n(g, s, strlen(s));
}

/* A string literal's value: prefix and quotes stripped. 0 when `text` is
 * not a string literal (a name, a number, a dotted name). */
static int unquote(const char *text, const char **val, size_t *n)
{
	size_t p = strspn(text, "rRbBuUfF"), len = strlen(text), q;

	if (p > 2 || (text[p] != '"' && text[p] != '\''))
		return 0;
	q = len - p >= 6 && text[p + 1] == text[p] && text[p + 2] == text[p] ? 3 : 1;
	*val = text + p + q;
	*n = len >= p + 2 * q ? len - p - 2 * q : 0;
	return 1;
}

/* An argument's source text (from the extractor) against patterns. */
static int value_matches(const struct rule *r, const struct globs *g, const char *text)
{
	const char *val;
	size_t n;

	if (!text)
		return 0;
	if (unquote(text, &val, &n))
		return globs_match_n(g, val, n);
	return !r->strings_only && globs_match(g, text);
}

/* arg0 / kwarg conditions: two ways of passing one parameter, so either
 * matching is enough; no condition means any call. */
static int call_conditions(const struct rule *r, const mt_call *c)
{
	if (!r->arg0.n && !r->kwarg.n)
		return 1;
	if (r->arg0.n && value_matches(r, &r->arg0, c->arg0))
		return 1;
	for (size_t i = 0; r->kwarg.n && i < c->nkwargs; i++) {
		if (!globs_match(&r->kwarg, c->kwargs[i].key))
			continue;
		if (!r->value.n || value_matches(r, &r->value, c->kwargs[i].value))
			return 1;
	}
	return 0;
}

/* A candidate finding, before one per (kind, file, line) is kept. */
struct cand {
	size_t rule, seq;
	const char *file;
	uint32_t line, col;
	const char *match;
	const mt_dependency *dep; /* effort and why from the package table */
	int vmatch;               /* a versions rule: an mt_vmatch */
	const char *vwhy;         /* and why it is possible or unknown */
};

struct cands {
	struct cand *v;
	size_t n, cap;
	const mt_rules *rules;
};

static void cand_add(struct cands *cs, size_t rule, const char *file, uint32_t line,
		     uint32_t col, const char *match, const mt_dependency *dep)
{
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 32;
		struct cand *v = realloc(cs->v, cap * sizeof(*v));
		if (!v)
			abort();
		cs->v = v;
		cs->cap = cap;
	}
	cs->v[cs->n] = (struct cand){rule, cs->n, file, line, col, match, dep, 0, NULL};
	cs->n++;
}

static int cmp_u(size_t a, size_t b)
{
	return a < b ? -1 : a > b;
}

/* Groups one kind's candidates on one line, best (first rule) first. */
static int cmp_dedup(const void *pa, const void *pb, void *payload)
{
	const mt_rules *rules = payload;
	const struct cand *a = pa, *b = pb;
	int c = cmp_u(rules->v[a->rule].kind_id, rules->v[b->rule].kind_id);

	if (!c)
		c = strcmp(a->file, b->file);
	if (!c)
		c = cmp_u(a->line, b->line);
	if (!c)
		c = cmp_u(a->rule, b->rule);
	if (!c)
		c = cmp_u(a->col, b->col);
	return c ? c : cmp_u(a->seq, b->seq);
}

static int cmp_output(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	int c = strcmp(a->file, b->file);

	if (!c)
		c = cmp_u(a->line, b->line);
	if (!c)
		c = cmp_u(a->col, b->col);
	return c ? c : cmp_u(a->rule, b->rule);
}

/* A versions rule's message: how sure (the spec pins an affected version,
 * may resolve to one, or names none mtrial can read), the rule's message,
 * then its source and date. A poetry spec (`"~1.15"`) says little alone,
 * so it is shown with its name. */
static char *version_message(const struct rule *r, const struct cand *c)
{
	const mt_dependency *d = c->dep;
	int named = d->syntax == MT_DEP_POETRY && d->spec && d->spec[0];
	const char *spec = d->spec && d->spec[0] ? d->spec : d->name;
	mt_buf b = MT_BUF_INIT;

	mt_buf_printf(&b, "%s%s%s", named ? d->name : "", named ? " = " : "", spec);
	if (c->vmatch == MT_VMATCH_PINNED)
		mt_buf_printf(&b, " pins %s %s: ", d->name, r->versions_text);
	else if (c->vmatch == MT_VMATCH_POSSIBLE)
		mt_buf_printf(&b,
			      " may resolve to %s %s: %s, so it depends on the release picked at "
			      "install time and on any lock or constraints file; ",
			      d->name, r->versions_text, c->vwhy);
	else
		mt_buf_printf(&b, " may be %s %s: %s; ", d->name, r->versions_text, c->vwhy);
	mt_buf_printf(&b, "%s (source: %s; as of %s)", r->message, r->cite ? r->cite : "none",
		      r->date ? r->date : "no date");
	return mt_buf_detach(&b);
}

/* A finding's fields beside its message (mt_finding.details), NULL when
 * its rule cites nothing and is about no versions. */
static char *finding_details(const struct rule *r, const struct cand *c)
{
	static const char *const certainty[] = {[MT_VMATCH_PINNED] = "pinned",
						[MT_VMATCH_POSSIBLE] = "possible",
						[MT_VMATCH_UNKNOWN] = "unknown"};
	json_t *o = json_object();
	char *text = NULL;

	if (r->cite)
		json_object_set_new(o, "source", json_string(r->cite));
	if (r->date)
		json_object_set_new(o, "date", json_string(r->date));
	if (c->dep && r->versions) {
		json_object_set_new(o, "versions", json_string(r->versions_text));
		json_object_set_new(o, "certainty",
				    json_string(certainty[c->vmatch == MT_VMATCH_POSSIBLE ||
							  c->vmatch == MT_VMATCH_UNKNOWN
						  ? c->vmatch
						  : MT_VMATCH_PINNED]));
		if (c->vwhy)
			json_object_set_new(o, "certainty_why", json_string(c->vwhy));
	}
	if (json_object_size(o))
		text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return text;
}

static int emit(const struct cands *cs, const struct cand *c, mt_findings *acc)
{
	const struct rule *r = &cs->rules->v[c->rule];
	const char *effort = r->effort;
	char *message = NULL, *details = finding_details(r, c);
	int error;

	if (c->dep && r->versions)
		message = version_message(r, c);
	else if (c->dep && r->table && c->dep->why) {
		mt_buf b = MT_BUF_INIT;
		mt_buf_printf(&b, "%s: %s", c->dep->name, c->dep->why);
		message = mt_buf_detach(&b);
		effort = c->dep->effort ? c->dep->effort : effort;
	}
	error = mt_findings_add(acc, r->id, r->kind, effort, c->file, c->line, c->col,
				message ? message : r->message, c->match);
	if (error == 0) /* json_dumps's memory is malloc's */
		acc->items[acc->n - 1].details = details;
	else
		free(details);
	free(message);
	return error;
}

/* Keeps the first candidate of each (kind, file, line), then appends them
 * in (file, line, col, rule) order. Frees the candidates. */
static int cands_flush(struct cands *cs, mt_findings *acc)
{
	size_t kept = 0;
	int error = 0;

	if (cs->n == 0)
		return 0;
	qsort_r(cs->v, cs->n, sizeof(*cs->v), cmp_dedup, (void *)cs->rules);
	for (size_t i = 0; i < cs->n; i++) {
		const struct cand *prev = kept ? &cs->v[kept - 1] : NULL;
		const struct cand *c = &cs->v[i];
		if (prev && cs->rules->v[prev->rule].kind_id == cs->rules->v[c->rule].kind_id &&
		    strcmp(prev->file, c->file) == 0 && prev->line == c->line)
			continue;
		cs->v[kept++] = *c;
	}
	qsort(cs->v, kept, sizeof(*cs->v), cmp_output);
	for (size_t i = 0; i < kept && error == 0; i++)
		error = emit(cs, &cs->v[i], acc);
	free(cs->v);
	cs->v = NULL;
	cs->n = cs->cap = 0;
	return error;
}

/* --- which rules a subject matches, cached ------------------------------------ */

/* A subject string (an api, a method, a callee, a keyword, a string's value,
 * a module) against the rules of one subject kind, 64 rules to a block:
 * bit j of block b is rule by_subject[s][64 b + j] (its subject patterns
 * and not its except patterns; conditions on arguments are the call's). A
 * repository names the same apis and methods over and over, so a worker
 * keeps the masks it has computed in a memo. */
struct mt_findings_memo {
	const mt_rules *rules;
	mt_strtab masks; /* tag: subject * 2^32 + block */
};

static uint64_t subject_mask(const mt_rules *r, enum subject s, size_t block, const char *str,
			     size_t n)
{
	size_t lo = block * 64, hi = r->nby_subject[s];
	uint64_t m = 0;

	if (hi > lo + 64)
		hi = lo + 64;
	for (size_t j = lo; j < hi; j++) {
		const struct rule *ru = &r->v[r->by_subject[s][j]];
		if (globs_match_n(&ru->subj, str, n) && !globs_match_n(&ru->except, str, n))
			m |= 1ull << (j - lo);
	}
	return m;
}

/* The mask, from the memo when there is one. */
static uint64_t mask_of(const mt_rules *r, mt_findings_memo *m, enum subject s, size_t block,
			const char *str, size_t n)
{
	uint64_t tag = ((uint64_t)s << 32) + block;
	mt_strtab_slot *e;

	/* a string literal or a callee rarely comes back, and hashing a long
	 * docstring costs more than matching it */
	if (!m || s == SUBJ_STRING || s == SUBJ_CALLEE)
		return subject_mask(r, s, block, str, n);
	e = mt_strtab_find(&m->masks, tag, str, n);
	if (!e->key) {
		e->value = subject_mask(r, s, block, str, n);
		mt_strtab_claim(&m->masks, e, tag, str, n);
	}
	return e->value;
}

mt_findings_memo *mt_findings_memo_new(const mt_rules *r)
{
	mt_findings_memo *m = calloc(1, sizeof(*m));

	if (!m)
		abort();
	m->rules = r;
	return m;
}

void mt_findings_memo_free(mt_findings_memo *m)
{
	if (!m)
		return;
	mt_strtab_dispose(&m->masks);
	free(m);
}

/* Each rule of subject s whose bit is set in block b's mask, in table order:
 * for (EACH_RULE(...)) with `ri` the rule's index. */
#define BLOCKS(r, s) (((r)->nby_subject[s] + 63) / 64)
#define RULE_AT(r, s, b, j) ((r)->by_subject[s][(b) * 64 + (j)])

/* The call-shaped rules on every call, call by call, rule by rule in table
 * order within each subject. A rule's candidates still come in call order,
 * which is all the dedup's tie-break (seq) needs. */
static void eval_call(struct cands *cs, mt_findings_memo *memo, const char *path, const mt_call *c)
{
	const mt_rules *r = cs->rules;

	for (size_t b = 0; c->api && b < BLOCKS(r, SUBJ_CALL); b++)
		for (uint64_t m = mask_of(r, memo, SUBJ_CALL, b, c->api, c->api_len); m; m &= m - 1) {
			size_t ri = RULE_AT(r, SUBJ_CALL, b, __builtin_ctzll(m));
			if (call_conditions(&r->v[ri], c))
				cand_add(cs, ri, path, c->line, c->col, c->api, NULL);
		}
	for (size_t b = 0; c->method && b < BLOCKS(r, SUBJ_METHOD); b++)
		for (uint64_t m = mask_of(r, memo, SUBJ_METHOD, b, c->method, c->method_len); m;
		     m &= m - 1) {
			size_t ri = RULE_AT(r, SUBJ_METHOD, b, __builtin_ctzll(m));
			if (call_conditions(&r->v[ri], c))
				cand_add(cs, ri, path, c->line, c->col, c->callee, NULL);
		}
	for (size_t b = 0; b < BLOCKS(r, SUBJ_CALLEE); b++) {
		uint64_t m = mask_of(r, memo, SUBJ_CALLEE, b, c->callee, c->callee_len);
		if (c->api)
			m |= mask_of(r, memo, SUBJ_CALLEE, b, c->api, c->api_len);
		for (; m; m &= m - 1) {
			size_t ri = RULE_AT(r, SUBJ_CALLEE, b, __builtin_ctzll(m));
			if (call_conditions(&r->v[ri], c))
				cand_add(cs, ri, path, c->line, c->col, c->callee, NULL);
		}
	}
	for (size_t b = 0; c->nkwargs && b < BLOCKS(r, SUBJ_KWARG); b++) {
		uint64_t any = 0;
		for (size_t i = 0; i < c->nkwargs; i++)
			any |= mask_of(r, memo, SUBJ_KWARG, b, c->kwargs[i].key,
				       strlen(c->kwargs[i].key));
		for (; any; any &= any - 1) { /* the first keyword that matches */
			unsigned j = (unsigned)__builtin_ctzll(any);
			size_t ri = RULE_AT(r, SUBJ_KWARG, b, j);
			const struct rule *ru = &r->v[ri];
			for (size_t i = 0; i < c->nkwargs; i++) {
				const mt_kwarg *k = &c->kwargs[i];
				if (!(mask_of(r, memo, SUBJ_KWARG, b, k->key, strlen(k->key)) >> j & 1) ||
				    (ru->value.n && !value_matches(ru, &ru->value, k->value)))
					continue;
				cand_add(cs, ri, path, c->line, c->col, k->key, NULL);
				break;
			}
		}
	}
}

/* The rules of subject s on one string; `what` is the candidate's match. */
static void eval_string(struct cands *cs, mt_findings_memo *memo, enum subject s, const char *path,
			const char *str, size_t n, uint32_t line, uint32_t col, const char *what)
{
	const mt_rules *r = cs->rules;

	for (size_t b = 0; b < BLOCKS(r, s); b++)
		for (uint64_t m = mask_of(r, memo, s, b, str, n); m; m &= m - 1)
			cand_add(cs, RULE_AT(r, s, b, __builtin_ctzll(m)), path, line, col, what,
				 NULL);
}

int mt_rules_eval_python_memo(const mt_rules *r, const char *path, const mt_pyfile *f,
			      mt_findings_memo *memo, mt_findings *acc)
{
	struct cands cs = {.rules = r};
	const char *val;
	size_t n;

	if (!r || !f)
		return mt_error_set(MT_EINVALID, "no rules or no file to evaluate");
	if (memo && memo->rules != r)
		return mt_error_set(MT_EINVALID, "a memo of other rules");
	for (size_t i = 0; i < f->ncalls; i++)
		eval_call(&cs, memo, path, &f->calls[i]);
	for (size_t i = 0; i < f->nrefs; i++)
		eval_string(&cs, memo, SUBJ_REF, path, f->refs[i].api, strlen(f->refs[i].api),
			    f->refs[i].line, f->refs[i].col, f->refs[i].api);
	/* a name among names or in a Literal type is not used as a setting:
	 * `{"cuda", "mps"}` hard-codes no device */
	for (size_t i = 0; i < f->nstrings; i++)
		if (f->strings[i].role == MT_STR_VALUE && unquote(f->strings[i].text, &val, &n))
			eval_string(&cs, memo, SUBJ_STRING, path, val, n, f->strings[i].line,
				    f->strings[i].col, f->strings[i].text);
	for (size_t i = 0; i < f->nimports; i++)
		eval_string(&cs, memo, SUBJ_IMPORT, path, f->imports[i].module,
			    strlen(f->imports[i].module), f->imports[i].line, 0,
			    f->imports[i].module);
	return cands_flush(&cs, acc);
}

int mt_rules_eval_python(const mt_rules *r, const char *path, const mt_pyfile *f,
			 mt_findings *acc)
{
	return mt_rules_eval_python_memo(r, path, f, NULL, acc);
}

int mt_rules_eval_path(const mt_rules *r, const char *path, mt_findings *acc)
{
	struct cands cs = {.rules = r};
	const char *base = strrchr(path, '/');

	if (!r)
		return mt_error_set(MT_EINVALID, "no rules to evaluate");
	base = base ? base + 1 : path;
	for (size_t i = 0; i < r->n; i++) {
		const struct rule *rule = &r->v[i];
		if (rule->subject != SUBJ_PATH ||
		    !(globs_match(&rule->subj, path) || globs_match(&rule->subj, base)) ||
		    globs_match(&rule->except, path) || globs_match(&rule->except, base))
			continue;
		cand_add(&cs, i, path, 0, 0, path, NULL);
	}
	return cands_flush(&cs, acc);
}

/* A requirement whose marker excludes the target (`; sys_platform ==
 * "darwin"`) is installed nowhere the trial runs: no finding. An unknown
 * marker (python_version, extra) may apply and is judged as written. */
static int dep_matches(const struct rule *r, const mt_dependency *d)
{
	const char *marker;

	if (r->subject != SUBJ_DEPENDENCY || d->include || !globs_match(&r->subj, d->name) ||
	    mt_deps_marker_of(d, &marker) == MT_MARKER_FALSE)
		return 0;
	if (r->spec.n && !globs_match(&r->spec, d->spec))
		return 0;
	return !r->table || d->cuda_only;
}

int mt_rules_eval_deps(const mt_rules *r, const mt_dependency *deps, size_t n, mt_findings *acc)
{
	struct cands cs = {.rules = r};

	if (!r)
		return mt_error_set(MT_EINVALID, "no rules to evaluate");
	for (size_t i = 0; i < r->n; i++)
		for (size_t j = 0; j < n; j++) {
			const char *why = NULL;
			mt_vmatch m = MT_VMATCH_PINNED;
			if (!dep_matches(&r->v[i], &deps[j]) ||
			    (r->v[i].versions &&
			     (m = mt_deps_version_match(&deps[j], r->v[i].versions, &why)) ==
				     MT_VMATCH_NONE))
				continue;
			cand_add(&cs, i, deps[j].file ? deps[j].file : "", deps[j].line, 0,
				 deps[j].spec ? deps[j].spec : deps[j].name, &deps[j]);
			cs.v[cs.n - 1].vmatch = (int)m;
			cs.v[cs.n - 1].vwhy = why;
		}
	return cands_flush(&cs, acc);
}

/* --- the accumulator ------------------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
	return s ? mt_strdup(s) : NULL;
}

int mt_findings_add(mt_findings *acc, const char *rule, const char *kind, const char *effort,
		    const char *file, uint32_t line, uint32_t col, const char *message,
		    const char *match)
{
	mt_finding *f;

	if (acc->n == acc->cap) {
		size_t cap = acc->cap ? acc->cap * 2 : 16;
		mt_finding *items = realloc(acc->items, cap * sizeof(*items));
		if (!items)
			return mt_error_set(MT_EIO, "out of memory");
		acc->items = items;
		acc->cap = cap;
	}
	f = &acc->items[acc->n++];
	f->rule = dup_or_null(rule);
	f->kind = dup_or_null(kind);
	f->effort = dup_or_null(effort);
	f->file = dup_or_null(file);
	f->line = line;
	f->col = col;
	f->message = dup_or_null(message);
	f->match = dup_or_null(match);
	f->details = NULL;
	return 0;
}

int mt_findings_take(mt_findings *dst, mt_findings *src)
{
	if (dst->cap - dst->n < src->n) {
		size_t cap = dst->n + src->n;
		mt_finding *items = realloc(dst->items, cap * sizeof(*items));
		if (!items)
			return mt_error_set(MT_EIO, "out of memory");
		dst->items = items;
		dst->cap = cap;
	}
	if (src->n)
		memcpy(dst->items + dst->n, src->items, src->n * sizeof(*src->items));
	dst->n += src->n;
	free(src->items);
	src->items = NULL;
	src->n = src->cap = 0;
	return 0;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_finding(const void *pa, const void *pb)
{
	const mt_finding *a = pa, *b = pb;
	int c = cmp_str(a->file, b->file);

	if (!c)
		c = cmp_u(a->line, b->line);
	if (!c)
		c = cmp_u(a->col, b->col);
	if (!c)
		c = cmp_str(a->rule, b->rule);
	return c ? c : cmp_str(a->match, b->match);
}

void mt_findings_sort(mt_findings *acc)
{
	if (acc->n > 1)
		qsort(acc->items, acc->n, sizeof(*acc->items), cmp_finding);
}

void mt_findings_dispose(mt_findings *acc)
{
	for (size_t i = 0; i < acc->n; i++) {
		mt_finding *f = &acc->items[i];
		free(f->rule);
		free(f->kind);
		free(f->effort);
		free(f->file);
		free(f->message);
		free(f->match);
		free(f->details);
	}
	free(acc->items);
	acc->items = NULL;
	acc->n = acc->cap = 0;
}
