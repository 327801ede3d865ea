/* findings.yaml -> rules, and rules x (Python file | path | dependencies) ->
 * findings. The schema is in rules.h; the rules themselves are data.
 * Evaluation only reads the rules, so threads may share them. */
#include "rules.h"
#include "deps_version.h"
#include "embedded.h"
#include "error.h"
#include "util.h"
#include "strtab.h"
#include "ytree.h"

#include <fnmatch.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FINDINGS_SCHEMA "mtrial-findings/1"

enum subject {
	SUBJ_CALL,
	SUBJ_METHOD,
	SUBJ_CALLEE,
	SUBJ_REF,
	SUBJ_STRING,
	SUBJ_IMPORT,
	SUBJ_PATH,
	SUBJ_DEPENDENCY,
	SUBJ_KWARG, /* last: a subject only when no call/method/callee is given */
	SUBJ_COUNT
};

static const char *const subject_names[] = {"call",   "method", "callee", "ref",    "string",
					    "import", "path",   "dependency", "kwarg", NULL};

/* Which condition keys each subject accepts (bit i: cond_names[i]). */
static const char *const cond_names[] = {"arg0", "kwarg", "value", "literal", "except",
					 "spec", "table", "versions", NULL};
enum { C_ARG0 = 1, C_KWARG = 2, C_VALUE = 4, C_LITERAL = 8, C_EXCEPT = 16, C_SPEC = 32,
       C_TABLE = 64, C_VERSIONS = 128 };
static const unsigned subject_conds[SUBJ_COUNT] = {
	[SUBJ_CALL] = C_ARG0 | C_KWARG | C_VALUE | C_LITERAL | C_EXCEPT,
	[SUBJ_METHOD] = C_ARG0 | C_KWARG | C_VALUE | C_LITERAL,
	[SUBJ_CALLEE] = C_ARG0 | C_KWARG | C_VALUE | C_LITERAL,
	[SUBJ_REF] = C_EXCEPT,
	[SUBJ_STRING] = 0,
	[SUBJ_IMPORT] = C_EXCEPT,
	[SUBJ_PATH] = C_EXCEPT,
	[SUBJ_DEPENDENCY] = C_SPEC | C_TABLE | C_VERSIONS,
	[SUBJ_KWARG] = C_VALUE | C_LITERAL,
};

static const char *const efforts[] = {"none", "low", "medium", "high", NULL};

/* A pattern, with the shape that lets most subjects be rejected without
 * fnmatch: rules are matched against every call of every file. */
enum glob_shape {
	GLOB_EXACT,    /* no wildcard: strcmp */
	GLOB_PREFIX,   /* `torch.cuda.*`: the literal prefix, then anything */
	GLOB_CONTAINS, /* `*collate*`: a literal anywhere */
	GLOB_SUFFIX,   /* `*:nccl`: anything, then the literal */
	GLOB_GENERAL,  /* anything else: literal prefix check, then fnmatch */
};

struct glob {
	char *pat;
	size_t lit; /* bytes before the first wildcard (all of them when exact) */
	const char *core; /* the literal of CONTAINS and SUFFIX, within pat */
	size_t ncore;
	enum glob_shape shape;
};

struct globs {
	struct glob *v;
	size_t n;
};

struct rule {
	char *id, *kind, *effort, *message;
	size_t kind_id; /* rules of one kind share it: the dedup key */
	enum subject subject;
	struct globs subj, except, arg0, kwarg, value, spec;
	int strings_only; /* literal: string */
	int table;        /* table: cuda_packages.yaml */
	mt_vset *versions; /* versions: the affected versions, NULL for any */
	char *versions_text; /* as written */
	char *date;        /* date: when the source said so (YYYY-MM-DD) */
	char *cite;        /* the source's url, repository/path or reference */
};

struct mt_rules {
	struct rule *v;
	size_t n;
	/* the indexes of the rules of each subject, in table order: a file's
	 * calls are matched against the call-shaped rules only */
	size_t *by_subject[SUBJ_COUNT];
	size_t nby_subject[SUBJ_COUNT];
};

/* --- loading ------------------------------------------------------------------ */

struct loader {
	const char *name;
	const mt_ynode *sources;
};

static int fail_node(const struct loader *ld, const mt_ynode *n, int at_key, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));

/* "name:LINE:COL: what", at the key when at_key (an unknown or misplaced
 * key), else at the value. */
static int fail_node(const struct loader *ld, const mt_ynode *n, int at_key, const char *fmt,
		     ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (at_key && n->key)
		return mt_error_set(MT_EINVALID, "%s:%u:%u: %s", ld->name, n->key_line, n->key_col,
				    msg);
	return mt_error_set(MT_EINVALID, "%s:%u:%u: %s", ld->name, n->line, n->col, msg);
}

static void globs_dispose(struct globs *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->v[i].pat);
	free(g->v);
	g->v = NULL;
	g->n = 0;
}

static void rule_dispose(struct rule *r)
{
	free(r->id);
	free(r->kind);
	free(r->effort);
	free(r->message);
	globs_dispose(&r->subj);
	globs_dispose(&r->except);
	globs_dispose(&r->arg0);
	globs_dispose(&r->kwarg);
	globs_dispose(&r->value);
	globs_dispose(&r->spec);
	mt_vset_free(r->versions);
	free(r->versions_text);
	free(r->date);
	free(r->cite);
}

void mt_rules_free(mt_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		rule_dispose(&r->v[i]);
	for (int s = 0; s < SUBJ_COUNT; s++)
		free(r->by_subject[s]);
	free(r->v);
	free(r);
}

static void glob_compile(struct glob *g, const char *pat)
{
	size_t len = strlen(pat), lit = strcspn(pat, "*?[\\");

	g->pat = mt_strdup(pat);
	g->lit = lit;
	if (lit == len)
		g->shape = GLOB_EXACT;
	else if (lit == len - 1 && pat[lit] == '*')
		g->shape = GLOB_PREFIX;
	else if (lit == 0 && len > 2 && pat[0] == '*' && pat[len - 1] == '*' &&
		 strcspn(pat + 1, "*?[\\") == len - 2)
		g->shape = GLOB_CONTAINS;
	else if (lit == 0 && len > 1 && pat[0] == '*' && strcspn(pat + 1, "*?[\\") == len - 1)
		g->shape = GLOB_SUFFIX;
	else
		g->shape = GLOB_GENERAL;
	g->core = g->pat + 1;
	g->ncore = g->shape == GLOB_CONTAINS ? len - 2 : g->shape == GLOB_SUFFIX ? len - 1 : 0;
}

/* One pattern or a non-empty list of patterns. */
static int read_globs(const struct loader *ld, const mt_ynode *n, struct globs *out)
{
	size_t count = n->kind == MT_YNODE_LIST ? n->n : 1;

	if (n->kind == MT_YNODE_MAP || count == 0 ||
	    (n->kind == MT_YNODE_SCALAR && n->text[0] == '\0'))
		return fail_node(ld, n, 0, "'%s' must be a pattern or a list of patterns", n->key);
	for (size_t i = 0; n->kind == MT_YNODE_LIST && i < n->n; i++)
		if (n->kids[i]->kind != MT_YNODE_SCALAR || n->kids[i]->text[0] == '\0')
			return fail_node(ld, n->kids[i], 0, "a pattern must be non-empty text");
	out->v = calloc(count, sizeof(*out->v));
	if (!out->v)
		abort();
	for (size_t i = 0; i < count; i++)
		glob_compile(&out->v[i], n->kind == MT_YNODE_LIST ? n->kids[i]->text : n->text);
	out->n = count;
	return 0;
}

/* The match's subject: exactly one of subject_names, where kwarg counts
 * only when no call, method or callee is given (then it is a condition). */
static int find_subject(const struct loader *ld, const mt_ynode *m, enum subject *out)
{
	const mt_ynode *found = NULL;

	for (size_t i = 0; i < m->n; i++) {
		const mt_ynode *k = m->kids[i];
		for (int s = 0; s < SUBJ_KWARG; s++) {
			if (strcmp(k->key, subject_names[s]) != 0)
				continue;
			if (found)
				return fail_node(ld, k, 1, "a match has one subject: '%s' and '%s'",
						 found->key, k->key);
			found = k;
			*out = (enum subject)s;
		}
	}
	if (!found && mt_ytree_get(m, "kwarg")) {
		*out = SUBJ_KWARG;
		return 0;
	}
	for (size_t i = 0; !found && i < m->n; i++)
		if (!mt_str_in(m->kids[i]->key, cond_names))
			return fail_node(ld, m->kids[i], 1,
					 "unknown match kind '%s' (expected call, method, callee, "
					 "kwarg, ref, string, import, path, dependency)",
					 m->kids[i]->key);
	if (!found)
		return fail_node(ld, m, 0,
				 "a match needs one of call, method, callee, kwarg, ref, string, "
				 "import, path, dependency");
	return 0;
}

/* Every key is the subject or a condition that subject accepts. */
static int check_match_keys(const struct loader *ld, const mt_ynode *m, enum subject s)
{
	for (size_t i = 0; i < m->n; i++) {
		const char *key = m->kids[i]->key;
		unsigned bit = 0;
		if (strcmp(key, subject_names[s]) == 0)
			continue;
		for (int c = 0; cond_names[c]; c++)
			if (strcmp(key, cond_names[c]) == 0)
				bit = 1u << c;
		if (!bit && !mt_str_in(key, subject_names))
			return fail_node(ld, m->kids[i], 1, "unknown key '%s' in a match", key);
		if (!(subject_conds[s] & bit))
			return fail_node(ld, m->kids[i], 1, "'%s' does not apply to a %s match", key,
					 subject_names[s]);
	}
	return 0;
}

static int read_option(const struct loader *ld, const mt_ynode *m, const char *key,
		       struct globs *out)
{
	const mt_ynode *n = mt_ytree_get(m, key);
	return n ? read_globs(ld, n, out) : 0;
}

/* literal: string | any, and table: cuda_packages.yaml. */
static int read_flags(const struct loader *ld, const mt_ynode *m, struct rule *r)
{
	const mt_ynode *lit = mt_ytree_get(m, "literal"), *table = mt_ytree_get(m, "table");

	if (lit && (lit->kind != MT_YNODE_SCALAR ||
		    (strcmp(lit->text, "string") != 0 && strcmp(lit->text, "any") != 0)))
		return fail_node(ld, lit, 0, "literal must be 'string' or 'any'");
	r->strings_only = lit && strcmp(lit->text, "string") == 0;
	if (table && (table->kind != MT_YNODE_SCALAR ||
		      strcmp(table->text, "cuda_packages.yaml") != 0))
		return fail_node(ld, table, 0, "table must be 'cuda_packages.yaml'");
	r->table = table != NULL;
	if (mt_ytree_get(m, "value") && r->subject != SUBJ_KWARG && !mt_ytree_get(m, "kwarg"))
		return fail_node(ld, mt_ytree_get(m, "value"), 1, "'value' needs a 'kwarg'");
	if (lit && !mt_ytree_get(m, "value") && !mt_ytree_get(m, "arg0"))
		return fail_node(ld, lit, 1, "'literal' needs 'arg0' or 'value'");
	return 0;
}

/* versions: a PEP 440 specifier set (`==1.15.*`, `>=1.15,<1.16.2`). */
static int read_versions(const struct loader *ld, const mt_ynode *n, struct rule *r)
{
	char what[256];

	if (!n)
		return 0;
	if (n->kind != MT_YNODE_SCALAR || !n->text[0])
		return fail_node(ld, n, 0, "versions must be a PEP 440 specifier set ('==1.15.*')");
	if (mt_vset_parse(&r->versions, n->text, strlen(n->text)) < 0) {
		snprintf(what, sizeof(what), "%s", mt_error_last());
		return fail_node(ld, n, 0, "versions: %s", what);
	}
	if (mt_vset_is_empty(r->versions))
		return fail_node(ld, n, 0, "versions '%s' admits no version", n->text);
	r->versions_text = mt_strdup(n->text);
	return 0;
}

static int read_match(const struct loader *ld, const mt_ynode *m, struct rule *r)
{
	int error;

	if (m->kind != MT_YNODE_MAP)
		return fail_node(ld, m, 0, "match must be a map (call:, method:, ref:, ...)");
	if ((error = find_subject(ld, m, &r->subject)) < 0 ||
	    (error = check_match_keys(ld, m, r->subject)) < 0 ||
	    (error = read_globs(ld, mt_ytree_get(m, subject_names[r->subject]), &r->subj)) < 0)
		return error;
	if (r->subject != SUBJ_KWARG && (error = read_option(ld, m, "kwarg", &r->kwarg)) < 0)
		return error;
	if ((error = read_option(ld, m, "except", &r->except)) < 0 ||
	    (error = read_option(ld, m, "arg0", &r->arg0)) < 0 ||
	    (error = read_option(ld, m, "value", &r->value)) < 0 ||
	    (error = read_option(ld, m, "spec", &r->spec)) < 0 ||
	    (error = read_versions(ld, mt_ytree_get(m, "versions"), r)) < 0)
		return error;
	return read_flags(ld, m, r);
}

/* Ids and kinds are short words: lowercase letters, digits and '-'. */
static int check_word(const struct loader *ld, const mt_ynode *n)
{
	const char *s = n->text;

	if (n->kind != MT_YNODE_SCALAR || !s[0] || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(s))
		return fail_node(ld, n, 0, "'%s' must be a word of a-z, 0-9 and '-'", n->key);
	return 0;
}

static const mt_ynode *source_named(const struct loader *ld, const char *id)
{
	for (size_t i = 0; ld->sources && i < ld->sources->n; i++) {
		const mt_ynode *sid = mt_ytree_get(ld->sources->kids[i], "id");
		if (sid && strcmp(sid->text, id) == 0)
			return ld->sources->kids[i];
	}
	return NULL;
}

/* How a finding cites a source: its url, else repository[/path], else
 * its reference in words. */
static char *source_cite(const mt_ynode *src)
{
	const mt_ynode *url = mt_ytree_get(src, "url"), *repo = mt_ytree_get(src, "repository");
	const mt_ynode *path = mt_ytree_get(src, "path");
	mt_buf b = MT_BUF_INIT;

	if (url)
		return mt_strdup(url->text);
	if (!repo)
		return mt_strdup(mt_ytree_get(src, "reference")->text);
	mt_buf_printf(&b, "%s%s%s", repo->text, path ? "/" : "", path ? path->text : "");
	return mt_buf_detach(&b);
}

/* date: YYYY-MM-DD, a real day of a month. */
static int check_date(const struct loader *ld, const mt_ynode *n)
{
	unsigned y, m, d;
	char end;

	if (n->kind != MT_YNODE_SCALAR || strlen(n->text) != 10 ||
	    sscanf(n->text, "%4u-%2u-%2u%c", &y, &m, &d, &end) != 3 || m < 1 || m > 12 || d < 1 ||
	    d > 31 || n->text[4] != '-' || n->text[7] != '-')
		return fail_node(ld, n, 0, "date must be YYYY-MM-DD (when the source said so)");
	return 0;
}

/* A rule about versions states where the fact comes from and when. */
static int check_version_rule(const struct loader *ld, const mt_ynode *n)
{
	const mt_ynode *m = mt_ytree_get(n, "match");

	if (m->kind != MT_YNODE_MAP || !mt_ytree_get(m, "versions") ||
	    !mt_ytree_get(m, "dependency"))
		return 0; /* or the match says what is wrong */
	if (!mt_ytree_get(n, "source"))
		return fail_node(ld, n, 0, "a rule with versions needs a 'source'");
	if (!mt_ytree_get(n, "date"))
		return fail_node(ld, n, 0, "a rule with versions needs a 'date' (YYYY-MM-DD)");
	return 0;
}

static int check_rule_fields(const struct loader *ld, const mt_ynode *n)
{
	static const char *const keys[] = {"id",     "kind",  "effort", "message",
					   "source", "match", "date",   NULL};
	static const char *const required[] = {"id", "kind", "effort", "message", "match", NULL};
	const mt_ynode *v;

	for (size_t i = 0; i < n->n; i++)
		if (!mt_str_in(n->kids[i]->key, keys))
			return fail_node(ld, n->kids[i], 1,
					 "unknown key '%s' in a rule (expected id, kind, effort, "
					 "message, source, date, match)", n->kids[i]->key);
	for (const char *const *k = required; *k; k++)
		if (!mt_ytree_get(n, *k))
			return fail_node(ld, n, 0, "a rule needs '%s'", *k);
	if (check_word(ld, mt_ytree_get(n, "id")) < 0 || check_word(ld, mt_ytree_get(n, "kind")) < 0)
		return MT_EINVALID;
	v = mt_ytree_get(n, "effort");
	if (v->kind != MT_YNODE_SCALAR || !mt_str_in(v->text, efforts))
		return fail_node(ld, v, 0, "effort must be none, low, medium or high, not '%s'",
				 v->kind == MT_YNODE_SCALAR ? v->text : "a list or map");
	v = mt_ytree_get(n, "message");
	if (v->kind != MT_YNODE_SCALAR || !v->text[0] || strchr(v->text, '\n'))
		return fail_node(ld, v, 0, "message must be one line of text");
	v = mt_ytree_get(n, "source");
	if (v && (v->kind != MT_YNODE_SCALAR || !source_named(ld, v->text)))
		return fail_node(ld, v, 0, "source must name an id listed under sources");
	v = mt_ytree_get(n, "date");
	if (v && check_date(ld, v) < 0)
		return MT_EINVALID;
	return check_version_rule(ld, n);
}

static size_t kind_id(const mt_rules *rules, const char *kind)
{
	for (size_t i = 0; i < rules->n; i++)
		if (strcmp(rules->v[i].kind, kind) == 0)
			return rules->v[i].kind_id;
	return rules->n; /* a new kind: ids only need to be distinct */
}

static int read_rule(const struct loader *ld, const mt_ynode *n, mt_rules *rules)
{
	struct rule r = {0};
	int error;

	if (n->kind != MT_YNODE_MAP)
		return fail_node(ld, n, 0, "a rule must be a map (id:, kind:, effort:, ...)");
	if ((error = check_rule_fields(ld, n)) < 0)
		return error;
	for (size_t i = 0; i < rules->n; i++)
		if (strcmp(rules->v[i].id, mt_ytree_get(n, "id")->text) == 0)
			return fail_node(ld, mt_ytree_get(n, "id"), 0, "duplicate rule id '%s'",
					 rules->v[i].id);
	if ((error = read_match(ld, mt_ytree_get(n, "match"), &r)) < 0) {
		rule_dispose(&r);
		return error;
	}
	r.id = mt_strdup(mt_ytree_get(n, "id")->text);
	r.kind = mt_strdup(mt_ytree_get(n, "kind")->text);
	r.effort = mt_strdup(mt_ytree_get(n, "effort")->text);
	r.message = mt_strdup(mt_ytree_get(n, "message")->text);
	if (mt_ytree_get(n, "date"))
		r.date = mt_strdup(mt_ytree_get(n, "date")->text);
	if (mt_ytree_get(n, "source"))
		r.cite = source_cite(source_named(ld, mt_ytree_get(n, "source")->text));
	r.kind_id = kind_id(rules, r.kind);
	rules->v[rules->n++] = r;
	return 0;
}

static int check_sources(const struct loader *ld, const mt_ynode *sources)
{
	static const char *const keys[] = {"id",  "repository", "path",      "commit",
					   "url", "note",       "reference", NULL};

	if (sources->kind != MT_YNODE_LIST)
		return fail_node(ld, sources, 0, "sources must be a list");
	for (size_t i = 0; i < sources->n; i++) {
		const mt_ynode *s = sources->kids[i], *id = mt_ytree_get(s, "id");
		if (s->kind != MT_YNODE_MAP)
			return fail_node(ld, s, 0, "a source must be a map (id:, repository:, ...)");
		for (size_t k = 0; k < s->n; k++)
			if (!mt_str_in(s->kids[k]->key, keys))
				return fail_node(ld, s->kids[k], 1, "unknown key '%s' in a source",
						 s->kids[k]->key);
		if (!id || check_word(ld, id) < 0)
			return id ? MT_EINVALID : fail_node(ld, s, 0, "a source needs an id");
		if (!mt_ytree_get(s, "repository") && !mt_ytree_get(s, "url") &&
		    !mt_ytree_get(s, "reference"))
			return fail_node(ld, s, 0, "a source needs a repository, a url or a reference");
		for (size_t k = 0; k < s->n; k++)
			if (s->kids[k]->kind != MT_YNODE_SCALAR)
				return fail_node(ld, s->kids[k], 0, "'%s' must be text", s->kids[k]->key);
	}
	return 0;
}

/* The top level: schema, sources, rules and nothing else. */
static int check_top(struct loader *ld, const mt_ynode *root, const mt_ynode **rules)
{
	static const char *const keys[] = {"schema", "sources", "rules", NULL};
	const mt_ynode *schema = mt_ytree_get(root, "schema");
	int error;

	if (root->kind != MT_YNODE_MAP)
		return fail_node(ld, root, 0, "the top level must be a map (schema:, sources:, rules:)");
	for (size_t i = 0; i < root->n; i++)
		if (!mt_str_in(root->kids[i]->key, keys))
			return fail_node(ld, root->kids[i], 1,
					 "unknown key '%s' (expected schema, sources, rules)",
					 root->kids[i]->key);
	if (!schema || schema->kind != MT_YNODE_SCALAR || strcmp(schema->text, FINDINGS_SCHEMA) != 0)
		return fail_node(ld, schema ? schema : root, 0, "schema must be %s", FINDINGS_SCHEMA);
	ld->sources = mt_ytree_get(root, "sources");
	if (ld->sources && (error = check_sources(ld, ld->sources)) < 0)
		return error;
	*rules = mt_ytree_get(root, "rules");
	if (!*rules || (*rules)->kind != MT_YNODE_LIST || (*rules)->n == 0)
		return fail_node(ld, *rules ? *rules : root, 0, "rules must be a non-empty list");
	return 0;
}

static void index_subjects(mt_rules *rules)
{
	for (int s = 0; s < SUBJ_COUNT; s++) {
		rules->by_subject[s] = calloc(rules->n + 1, sizeof(size_t));
		if (!rules->by_subject[s])
			abort();
	}
	for (size_t i = 0; i < rules->n; i++) {
		enum subject s = rules->v[i].subject;
		rules->by_subject[s][rules->nby_subject[s]++] = i;
	}
}

/* Appends the rules of one file to `rules` (whose ids its own must not
 * repeat). */
static int parse_into(mt_rules *rules, const char *text, size_t len, const char *name)
{
	struct loader ld = {.name = name};
	mt_ytree *tree = NULL;
	const mt_ynode *list = NULL;
	struct rule *v;
	int error;

	if ((error = mt_ytree_parse_table(&tree, text, len, ld.name)) < 0 ||
	    (error = check_top(&ld, mt_ytree_root(tree), &list)) < 0)
		goto cleanup;
	if (!(v = realloc(rules->v, (rules->n + list->n) * sizeof(*v))))
		abort();
	rules->v = v;
	for (size_t i = 0; i < list->n && error == 0; i++)
		error = read_rule(&ld, list->kids[i], rules);
cleanup:
	mt_ytree_free(tree);
	return error;
}

static void unindex_subjects(mt_rules *rules)
{
	for (int s = 0; s < SUBJ_COUNT; s++) {
		free(rules->by_subject[s]);
		rules->by_subject[s] = NULL;
		rules->nby_subject[s] = 0;
	}
}

int mt_rules_parse(mt_rules **out, const char *text, size_t len, const char *name)
{
	mt_rules *rules = calloc(1, sizeof(*rules));
	int error;

	if (!rules)
		abort();
	*out = NULL;
	if ((error = parse_into(rules, text, len, name ? name : "findings.yaml")) < 0) {
		mt_rules_free(rules);
		return error;
	}
	index_subjects(rules);
	*out = rules;
	return 0;
}

int mt_rules_load(mt_rules **out)
{
	const char *extra = getenv("MTRIAL_FINDINGS");
	char *text = NULL;
	mt_rules *rules = NULL;
	int error;

	*out = NULL;
	if ((error = mt_embedded_load(&text, mt_embedded_tables, "MTRIAL_TABLES_DIR",
				      "findings.yaml")) < 0 ||
	    (error = mt_rules_parse(&rules, text, strlen(text), "findings.yaml")) < 0)
		goto cleanup;
	free(text);
	text = NULL;
	if (extra && *extra) { /* a team's own rules, after the bundled ones */
		unindex_subjects(rules);
		if ((error = mt_file_read(&text, NULL, extra)) < 0 ||
		    (error = parse_into(rules, text, strlen(text), extra)) < 0)
			goto cleanup;
		index_subjects(rules);
	}
	*out = rules;
	rules = NULL;
cleanup:
	mt_rules_free(rules);
	free(text);
	return error;
}

uint64_t mt_rules_digest(uint64_t h)
{
	static const char *const envs[] = {"MTRIAL_FINDINGS", "MTRIAL_TABLES_DIR", NULL};

	for (const char *const *e = envs; *e; e++) {
		const char *v = getenv(*e);
		char *path, *text = NULL;
		if (!v || !*v)
			continue;
		path = strcmp(*e, "MTRIAL_FINDINGS") == 0 ? mt_strdup(v)
							  : mt_path_join(v, "findings.yaml");
		if (mt_file_read(&text, NULL, path) < 0)
			mt_error_clear(); /* unreadable: the load says so */
		for (const char *p = path; *p; p++) /* which file, then what it holds */
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		for (const char *p = text ? text : ""; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		free(path);
		free(text);
	}
	return h;
}

size_t mt_rules_count(const mt_rules *r)
{
	return r ? r->n : 0;
}

const char *mt_rules_id(const mt_rules *r, size_t i)
{
	return r && i < r->n ? r->v[i].id : NULL;
}

const char *mt_rules_kind(const mt_rules *r, size_t i)
{
	return r && i < r->n ? r->v[i].kind : NULL;
}

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
struct mt_rules_memo {
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
static uint64_t mask_of(const mt_rules *r, mt_rules_memo *m, enum subject s, size_t block,
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

mt_rules_memo *mt_rules_memo_new(const mt_rules *r)
{
	mt_rules_memo *m = calloc(1, sizeof(*m));

	if (!m)
		abort();
	m->rules = r;
	return m;
}

void mt_rules_memo_free(mt_rules_memo *m)
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
static void eval_call(struct cands *cs, mt_rules_memo *memo, const char *path, const mt_call *c)
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
static void eval_string(struct cands *cs, mt_rules_memo *memo, enum subject s, const char *path,
			const char *str, size_t n, uint32_t line, uint32_t col, const char *what)
{
	const mt_rules *r = cs->rules;

	for (size_t b = 0; b < BLOCKS(r, s); b++)
		for (uint64_t m = mask_of(r, memo, s, b, str, n); m; m &= m - 1)
			cand_add(cs, RULE_AT(r, s, b, __builtin_ctzll(m)), path, line, col, what,
				 NULL);
}

int mt_rules_eval_python_memo(const mt_rules *r, const char *path, const mt_pyfile *f,
			      mt_rules_memo *memo, mt_findings *acc)
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
	for (size_t i = 0; i < f->nstrings; i++)
		if (unquote(f->strings[i].text, &val, &n))
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

static int dep_matches(const struct rule *r, const mt_dependency *d)
{
	if (r->subject != SUBJ_DEPENDENCY || d->include || !globs_match(&r->subj, d->name))
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
