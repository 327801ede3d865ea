/* Code-change accounting of a track: libgit2's diff, lines classified by
 * tables/platform_changes.yaml. */
#include "changes.h"
#include "embedded.h"
#include "error.h"
#include "util.h"
#include "ytree.h"

#include <fnmatch.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXAMPLES 3

struct rule {
	const char *id, *why;
	const char **contains;
	size_t ncontains;
};

struct mt_change_rules {
	mt_ytree *tree;
	struct rule *rules;
	size_t nrules;
	const char **model, **harness; /* NULL-terminated globs */
};

/* --- the rules ------------------------------------------------------------- */

static int bad(const char *name, const mt_ynode *n, const char *what)
{
	return mt_error_set(MT_EINVALID, "%s:%u:%u: %s", name, n ? n->line : 1, n ? n->col : 1,
			    what);
}

static const char **globs(const mt_ynode *list)
{
	const char **g = calloc((list ? list->n : 0) + 1, sizeof(*g));
	for (size_t i = 0; g && list && i < list->n; i++)
		g[i] = list->kids[i]->text;
	return g;
}

static int strings_ok(const char *name, const mt_ynode *list, const char *what)
{
	char msg[128];
	if (!list || list->kind != MT_YNODE_LIST) {
		snprintf(msg, sizeof(msg), "%s: expected a list of strings", what);
		return bad(name, list, msg);
	}
	for (size_t i = 0; i < list->n; i++)
		if (list->kids[i]->kind != MT_YNODE_SCALAR || !*list->kids[i]->text) {
			snprintf(msg, sizeof(msg), "%s: expected a non-empty string", what);
			return bad(name, list->kids[i], msg);
		}
	return 0;
}

int mt_change_rules_parse(mt_change_rules **out, const char *text, size_t len, const char *name)
{
	mt_change_rules *r = calloc(1, sizeof(*r));
	const mt_ynode *root, *platform, *schema;
	int error;

	*out = NULL;
	if (!r)
		return mt_error_set(MT_EIO, "out of memory");
	if ((error = mt_ytree_parse(&r->tree, text, len, name, 0, NULL)) < 0)
		goto fail;
	root = mt_ytree_root(r->tree);
	schema = mt_ytree_get(root, "schema");
	platform = mt_ytree_get(root, "platform");
	if (!schema || schema->kind != MT_YNODE_SCALAR || strcmp(schema->text, "mtrial-changes/1") != 0) {
		error = bad(name, schema, "schema: expected mtrial-changes/1");
		goto fail;
	}
	if (!platform || platform->kind != MT_YNODE_LIST) {
		error = bad(name, platform ? platform : root, "platform: expected a list of rules");
		goto fail;
	}
	if ((error = strings_ok(name, mt_ytree_get(root, "model"), "model")) < 0 ||
	    (error = strings_ok(name, mt_ytree_get(root, "harness"), "harness")) < 0)
		goto fail;
	r->rules = calloc(platform->n ? platform->n : 1, sizeof(*r->rules));
	r->model = globs(mt_ytree_get(root, "model"));
	r->harness = globs(mt_ytree_get(root, "harness"));
	if (!r->rules || !r->model || !r->harness) {
		error = mt_error_set(MT_EIO, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < platform->n; i++) {
		const mt_ynode *e = platform->kids[i], *id = mt_ytree_get(e, "id"),
			       *why = mt_ytree_get(e, "why"), *contains = mt_ytree_get(e, "contains");
		struct rule *rule = &r->rules[r->nrules];
		if (!id || id->kind != MT_YNODE_SCALAR || !*id->text) {
			error = bad(name, e, "a platform rule needs an id");
			goto fail;
		}
		if ((error = strings_ok(name, contains, "contains")) < 0)
			goto fail;
		rule->id = id->text;
		rule->why = why && why->kind == MT_YNODE_SCALAR ? why->text : "";
		rule->contains = globs(contains);
		rule->ncontains = contains->n;
		if (!rule->contains) {
			error = mt_error_set(MT_EIO, "out of memory");
			goto fail;
		}
		r->nrules++;
	}
	*out = r;
	return 0;
fail:
	mt_change_rules_free(r);
	return error;
}

int mt_change_rules_load(mt_change_rules **out)
{
	char *text = NULL;
	int error;

	*out = NULL;
	if ((error = mt_embedded_load(&text, mt_embedded_tables, "MTRIAL_TABLES_DIR",
				      "platform_changes.yaml")) < 0)
		return error;
	error = mt_change_rules_parse(out, text, strlen(text), "platform_changes.yaml");
	free(text);
	return error;
}

void mt_change_rules_free(mt_change_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nrules; i++)
		free(r->rules[i].contains);
	free(r->rules);
	free(r->model);
	free(r->harness);
	mt_ytree_free(r->tree);
	free(r);
}

const char *mt_change_rules_match(const mt_change_rules *r, const char *line, size_t len)
{
	for (size_t i = 0; i < r->nrules; i++)
		for (size_t k = 0; k < r->rules[i].ncontains; k++) {
			const char *needle = r->rules[i].contains[k];
			size_t n = strlen(needle);
			for (size_t p = 0; n <= len && p + n <= len; p++)
				if (line[p] == needle[0] && memcmp(line + p, needle, n) == 0)
					return r->rules[i].id;
		}
	return NULL;
}

static int any_glob(const char **g, const char *path)
{
	for (; g && *g; g++)
		if (fnmatch(*g, path, 0) == 0)
			return 1;
	return 0;
}

const char *mt_change_rules_kind(const mt_change_rules *r, const char *path)
{
	if (any_glob(r->model, path))
		return "model";
	if (any_glob(r->harness, path))
		return "harness";
	return "other";
}

static const char *rule_why(const mt_change_rules *r, const char *id)
{
	for (size_t i = 0; i < r->nrules; i++)
		if (strcmp(r->rules[i].id, id) == 0)
			return r->rules[i].why;
	return "";
}

/* --- the diff ------------------------------------------------------------------ */

static int git_fail(const char *what)
{
	const git_error *e = git_error_last();
	return mt_error_set(MT_EIO, "%s: %s", what, e && e->message ? e->message : "libgit2 failed");
}

static int tree_of(git_tree **out, git_commit **commit, git_repository *repo, const char *rev)
{
	git_object *obj = NULL;
	int rc = git_revparse_single(&obj, repo, rev);

	*out = NULL;
	if (rc == GIT_ENOTFOUND || rc == GIT_EAMBIGUOUS || rc == GIT_EINVALIDSPEC)
		return mt_error_set(MT_ENOTFOUND, "revision '%s' not found in the repository", rev);
	if (rc < 0)
		return git_fail(rev);
	rc = git_object_peel((git_object **)commit, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0)
		return mt_error_set(MT_EINVALID, "revision '%s' is not a commit", rev);
	if (git_commit_tree(out, *commit) < 0)
		return git_fail(rev);
	return 0;
}

static void bump(json_t *obj, const char *key, json_int_t n)
{
	json_object_set_new(obj, key, json_integer(json_integer_value(json_object_get(obj, key)) + n));
}

/* Adds one file's lines to its entry, the totals and the examples. */
static int file_lines(git_patch *patch, const char *path, json_t *file, json_t *totals,
		      json_t *examples, const mt_change_rules *rules)
{
	json_t *by_rule = json_object_get(totals, "by_rule");
	size_t nh = git_patch_num_hunks(patch);

	for (size_t h = 0; h < nh; h++) {
		int nl = git_patch_num_lines_in_hunk(patch, h);
		for (int l = 0; l < nl; l++) {
			const git_diff_line *line = NULL;
			const char *rule;
			if (git_patch_get_line_in_hunk(&line, patch, h, (size_t)l) < 0)
				return git_fail(path);
			if (line->origin != GIT_DIFF_LINE_ADDITION && line->origin != GIT_DIFF_LINE_DELETION)
				continue;
			bump(file, line->origin == GIT_DIFF_LINE_ADDITION ? "added" : "deleted", 1);
			rule = mt_change_rules_match(rules, line->content, line->content_len);
			bump(file, rule ? "platform" : "generic", 1);
			if (!rule)
				continue;
			bump(json_object_get(file, "rules"), rule, 1);
			bump(by_rule, rule, 1);
			if (json_integer_value(json_object_get(by_rule, rule)) <= MAX_EXAMPLES) {
				size_t n = line->content_len;
				while (n && (line->content[n - 1] == '\n' || line->content[n - 1] == '\r'))
					n--;
				json_array_append_new(
					examples,
					json_pack("{ss, ss, ss, si, ss#}", "rule", rule, "why",
						  rule_why(rules, rule), "file", path, "line",
						  line->origin == GIT_DIFF_LINE_ADDITION ? line->new_lineno
											 : line->old_lineno,
						  "text", line->content, (int)n));
			}
		}
	}
	return 0;
}

static const char *status_name(git_delta_t s)
{
	switch (s) {
	case GIT_DELTA_ADDED: return "added";
	case GIT_DELTA_DELETED: return "deleted";
	case GIT_DELTA_RENAMED: return "renamed";
	case GIT_DELTA_COPIED: return "copied";
	case GIT_DELTA_TYPECHANGE: return "typechange";
	default: return "modified";
	}
}

int mt_changes_diff(json_t **out, const char *repo_path, const char *base, const char *head,
		    const mt_change_rules *rules)
{
	git_repository *repo = NULL;
	git_commit *cb = NULL, *ch = NULL;
	git_tree *tb = NULL, *th = NULL;
	git_diff *diff = NULL;
	git_diff_find_options find;
	json_t *files = json_array(), *examples = json_array(), *totals, *res = NULL;
	char idb[GIT_OID_HEXSZ + 1], idh[GIT_OID_HEXSZ + 1];
	int error = 0;

	*out = NULL;
	git_libgit2_init();
	totals = json_pack("{si, si, si, si, si, s{si, si, si}, s{}}", "files", 0, "added", 0,
			   "deleted", 0, "platform", 0, "generic", 0, "by_kind", "model", 0, "harness",
			   0, "other", 0, "by_rule");
	if (git_repository_open_ext(&repo, repo_path, 0, NULL) < 0) {
		const git_error *e = git_error_last();
		error = mt_error_set(MT_EINVALID, "not a git repository: %s (%s)", repo_path,
				     e && e->message ? e->message : "libgit2 found none");
		goto done;
	}
	if ((error = tree_of(&tb, &cb, repo, base)) < 0 || (error = tree_of(&th, &ch, repo, head)) < 0)
		goto done;
	if (git_diff_tree_to_tree(&diff, repo, tb, th, NULL) < 0) {
		error = git_fail("diff");
		goto done;
	}
	git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
	find.flags = GIT_DIFF_FIND_RENAMES;
	git_diff_find_similar(diff, &find);
	for (size_t i = 0; i < git_diff_num_deltas(diff) && error == 0; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *path = d->new_file.path ? d->new_file.path : d->old_file.path;
		const char *kind = mt_change_rules_kind(rules, path);
		git_patch *patch = NULL;
		json_t *file = json_pack("{ss, ss, ss, sb, si, si, si, si, s{}}", "path", path, "status",
					 status_name(d->status), "kind", kind, "binary",
					 (d->flags & GIT_DIFF_FLAG_BINARY) != 0, "added", 0, "deleted",
					 0, "platform", 0, "generic", 0, "rules");
		if (d->status == GIT_DELTA_RENAMED)
			json_object_set_new(file, "old_path", json_string(d->old_file.path));
		if (git_patch_from_diff(&patch, diff, i) < 0)
			error = git_fail(path);
		else if (patch)
			error = file_lines(patch, path, file, totals, examples, rules);
		git_patch_free(patch);
		bump(totals, "files", 1);
		bump(totals, "added", json_integer_value(json_object_get(file, "added")));
		bump(totals, "deleted", json_integer_value(json_object_get(file, "deleted")));
		bump(totals, "platform", json_integer_value(json_object_get(file, "platform")));
		bump(totals, "generic", json_integer_value(json_object_get(file, "generic")));
		bump(json_object_get(totals, "by_kind"), kind,
		     json_integer_value(json_object_get(file, "added")) +
			     json_integer_value(json_object_get(file, "deleted")));
		json_array_append_new(files, file);
	}
	if (error == 0) {
		git_oid_tostr(idb, sizeof(idb), git_commit_id(cb));
		git_oid_tostr(idh, sizeof(idh), git_commit_id(ch));
		res = json_pack("{ss, ss, sO, sO, sO}", "base", idb, "head", idh, "files", files,
				"totals", totals, "examples", examples);
		*out = res;
	}
done:
	json_decref(files);
	json_decref(totals);
	json_decref(examples);
	git_diff_free(diff);
	git_tree_free(tb);
	git_tree_free(th);
	git_commit_free(cb);
	git_commit_free(ch);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return error;
}
