/* findings.yaml -> rules: the schema is in rules.h, the rules themselves
 * are data; matching them is in findings.c. */
#include "rules_int.h"
#include "embedded.h"
#include "error.h"
#include "util.h"
#include "ytree.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FINDINGS_SCHEMA "mtrial-findings/1"

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
	int key = at_key && n->key, error;
	va_list ap;

	va_start(ap, fmt);
	error = mt_error_vat(MT_EINVALID, ld->name, key ? n->key_line : n->line,
			     key ? n->key_col : n->col, fmt, ap);
	va_end(ap);
	return error;
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
