/* Code-change accounting of a track: the diff git/gitdiff.c walks, lines classified by
 * tables/platform_changes.yaml. */
#include "tracks.h"
#include "embedded.h"
#include "error.h"
#include "events.h"
#include "gitdiff.h"
#include "journal_view.h"
#include "util.h"
#include "ytree.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXAMPLES 3
#define MAX_FILE_LINES 200 /* platform-specific lines kept per file */

struct rule {
	const char *id, *why;
	const char **contains;
	size_t ncontains;
};

struct mt_tracks_rules {
	mt_ytree *tree;
	struct rule *rules;
	size_t nrules;
	const char **model, **harness; /* NULL-terminated globs */
	/* training_script: a file holding one of each is harness, whatever
	 * its path (a train loop in word_language_model/main.py) */
	const char **entry, **loop;
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

int mt_tracks_rules_parse(mt_tracks_rules **out, const char *text, size_t len, const char *name)
{
	mt_tracks_rules *r = calloc(1, sizeof(*r));
	const mt_ynode *root, *platform, *schema, *script;
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
	script = mt_ytree_get(root, "training_script");
	if ((error = strings_ok(name, mt_ytree_get(root, "model"), "model")) < 0 ||
	    (error = strings_ok(name, mt_ytree_get(root, "harness"), "harness")) < 0 ||
	    (script && ((error = strings_ok(name, mt_ytree_get(script, "entry"),
					    "training_script.entry")) < 0 ||
			(error = strings_ok(name, mt_ytree_get(script, "loop"),
					    "training_script.loop")) < 0)))
		goto fail;
	r->rules = calloc(platform->n ? platform->n : 1, sizeof(*r->rules));
	r->model = globs(mt_ytree_get(root, "model"));
	r->harness = globs(mt_ytree_get(root, "harness"));
	r->entry = globs(script ? mt_ytree_get(script, "entry") : NULL);
	r->loop = globs(script ? mt_ytree_get(script, "loop") : NULL);
	if (!r->rules || !r->model || !r->harness || !r->entry || !r->loop) {
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
	mt_tracks_rules_free(r);
	return error;
}

int mt_tracks_rules_load(mt_tracks_rules **out)
{
	char *text = NULL;
	int error;

	*out = NULL;
	if ((error = mt_embedded_load(&text, mt_embedded_tables, "MTRIAL_TABLES_DIR",
				      "platform_changes.yaml")) < 0)
		return error;
	error = mt_tracks_rules_parse(out, text, strlen(text), "platform_changes.yaml");
	free(text);
	return error;
}

void mt_tracks_rules_free(mt_tracks_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nrules; i++)
		free(r->rules[i].contains);
	free(r->rules);
	free(r->model);
	free(r->harness);
	free(r->entry);
	free(r->loop);
	mt_ytree_free(r->tree);
	free(r);
}

static int contains(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t p = 0; n <= len && p + n <= len; p++)
		if (text[p] == needle[0] && memcmp(text + p, needle, n) == 0)
			return 1;
	return 0;
}

static int contains_any(const char *text, size_t len, const char **needles)
{
	for (; needles && *needles; needles++)
		if (contains(text, len, *needles))
			return 1;
	return 0;
}

const char *mt_tracks_rules_match(const mt_tracks_rules *r, const char *line, size_t len)
{
	for (size_t i = 0; i < r->nrules; i++)
		for (size_t k = 0; k < r->rules[i].ncontains; k++)
			if (contains(line, len, r->rules[i].contains[k]))
				return r->rules[i].id;
	return NULL;
}

/* A glob without '/' is matched against the file's name, one with '/'
 * against its whole path (as .gitignore does): "*model*.py" must not make
 * every file of word_language_model/ model code. */
static int any_glob(const char **g, const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (; g && *g; g++)
		if (fnmatch(*g, strchr(*g, '/') ? path : base, 0) == 0)
			return 1;
	return 0;
}

const char *mt_tracks_rules_kind(const mt_tracks_rules *r, const char *path, const char *text,
				 size_t len)
{
	size_t n = strlen(path);

	/* Python only: a README that shows the training command is no script */
	if (text && n > 3 && strcmp(path + n - 3, ".py") == 0 &&
	    contains_any(text, len, r->entry) && contains_any(text, len, r->loop))
		return "harness";
	if (any_glob(r->model, path))
		return "model";
	if (any_glob(r->harness, path))
		return "harness";
	return "other";
}

static const char *rule_why(const mt_tracks_rules *r, const char *id)
{
	for (size_t i = 0; i < r->nrules; i++)
		if (strcmp(r->rules[i].id, id) == 0)
			return r->rules[i].why;
	return "";
}

/* --- the diff ------------------------------------------------------------------ */

static void bump(json_t *obj, const char *key, json_int_t n)
{
	json_object_set_new(obj, key, json_integer(json_integer_value(json_object_get(obj, key)) + n));
}

/* A platform-specific line: {rule, line (new or old number), sign, text}. */
static json_t *line_json(const mt_gitdiff_line *line, const char *rule)
{
	size_t n = line->len;

	while (n && (line->text[n - 1] == '\n' || line->text[n - 1] == '\r'))
		n--;
	return json_pack("{ss, si, ss, ss#}", "rule", rule, "line", line->lineno, "sign",
			 line->added ? "+" : "-", "text", line->text, (int)n);
}

/* What mt_tracks_diff builds as mt_gitdiff_trees walks the changes. */
struct diff_acc {
	const mt_tracks_rules *rules;
	json_t *files, *totals, *examples;
	json_t *file;     /* the file being walked, borrowed from files */
	const char *kind; /* its kind (static) */
};

/* A file's entry, its kind from its path and, for a training script, its
 * text at head (or at base when the track deleted it). */
static int on_file(const mt_gitdiff_file *f, void *payload)
{
	struct diff_acc *a = payload;
	const char *kind = mt_tracks_rules_kind(a->rules, f->path, f->text, f->len);
	json_t *file = json_pack("{ss, ss, ss, sb, si, si, si, si, s{}, s[]}", "path", f->path,
				 "status", f->status, "kind", kind, "binary", f->binary, "added", 0,
				 "deleted", 0, "platform", 0, "generic", 0, "rules",
				 "platform_lines");

	if (f->old_path)
		json_object_set_new(file, "old_path", json_string(f->old_path));
	json_array_append_new(a->files, file);
	a->file = file;
	a->kind = kind;
	bump(a->totals, "files", 1);
	return 0;
}

/* Adds one line to its file's entry, the totals and the examples. */
static int on_line(const mt_gitdiff_line *line, void *payload)
{
	struct diff_acc *a = payload;
	json_t *by_rule = json_object_get(a->totals, "by_rule");
	json_t *lines = json_object_get(a->file, "platform_lines");
	const char *sign = line->added ? "added" : "deleted";
	const char *rule = mt_tracks_rules_match(a->rules, line->text, line->len);
	const char *path = json_string_value(json_object_get(a->file, "path"));

	bump(a->file, sign, 1);
	bump(a->totals, sign, 1);
	bump(json_object_get(a->totals, "by_kind"), a->kind, 1);
	bump(a->file, rule ? "platform" : "generic", 1);
	bump(a->totals, rule ? "platform" : "generic", 1);
	if (!rule)
		return 0;
	bump(json_object_get(a->file, "rules"), rule, 1);
	bump(by_rule, rule, 1);
	if (json_integer_value(json_object_get(by_rule, rule)) <= MAX_EXAMPLES) {
		json_t *ex = line_json(line, rule);
		json_object_set_new(ex, "why", json_string(rule_why(a->rules, rule)));
		json_object_set_new(ex, "file", json_string(path));
		json_array_append_new(a->examples, ex);
	}
	if (json_array_size(lines) < MAX_FILE_LINES)
		json_array_append_new(lines, line_json(line, rule));
	return 0;
}

int mt_tracks_diff(json_t **out, const char *repo_path, const char *base, const char *head,
		    const mt_tracks_rules *rules)
{
	static const mt_gitdiff_cb cb = {.file = on_file, .line = on_line};
	struct diff_acc a = {.rules = rules, .files = json_array(), .examples = json_array()};
	char idb[41], idh[41];
	int error;

	*out = NULL;
	a.totals = json_pack("{si, si, si, si, si, s{si, si, si}, s{}}", "files", 0, "added", 0,
			     "deleted", 0, "platform", 0, "generic", 0, "by_kind", "model", 0,
			     "harness", 0, "other", 0, "by_rule");
	error = mt_gitdiff_trees(idb, idh, repo_path, base, head, &cb, &a);
	if (error == 0)
		*out = json_pack("{ss, ss, sO, sO, sO}", "base", idb, "head", idh, "files", a.files,
				 "totals", a.totals, "examples", a.examples);
	json_decref(a.files);
	json_decref(a.totals);
	json_decref(a.examples);
	return error;
}

/* --- the tracks of a trial ---------------------------------------------------- */

/* workload.repository (a relative one read against the trial directory),
 * else the trial directory, which libgit2 searches upward from. Caller
 * frees. */
static char *tracks_repo(const mt_trial *t)
{
	char *r = mt_trial_repository(t);

	if (r && mt_path_is_dir(r))
		return r;
	free(r);
	return mt_strdup(t->dir);
}

int mt_tracks_patch(mt_buf *out, const mt_trial *t, const char *base, const char *head)
{
	char *repo = tracks_repo(t);
	int error = mt_gitdiff_patch(out, repo, base, head);

	free(repo);
	return error;
}

static const char *track_spec(const mt_trial *t, const char *track, const char *field)
{
	char key[96];

	snprintf(key, sizeof(key), "tracks.%s.%s", track, field);
	return t->spec ? mt_spec_get(t->spec, key) : NULL;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* What the journal holds that the tracks show: the effort and the marks. */
struct journal_in {
	mt_effort_summary_view effort;
	json_t *effort_json, *marks_json; /* what the views borrow from */
	mt_mark_view *marks;
	size_t nmarks;
};

/* A track's effort: {total_ms, by_category {category: ms}}. */
static json_t *track_effort(const struct journal_in *in, const char *name)
{
	json_t *by = json_object();

	for (size_t i = 0; i < in->effort.ntracks; i++) {
		const mt_effort_track_view *tv = &in->effort.tracks[i];
		if (strcmp(tv->track, name) != 0)
			continue;
		for (size_t c = 0; c < tv->ncategories; c++)
			json_object_set_new(by, tv->categories[c].category,
					    json_integer(tv->categories[c].ms));
		return json_pack("{sI, so}", "total_ms", (json_int_t)tv->total_ms, "by_category", by);
	}
	return json_pack("{sI, so}", "total_ms", (json_int_t)0, "by_category", by);
}

static int64_t track_effort_ms(const struct journal_in *in, const char *name)
{
	for (size_t i = 0; i < in->effort.ntracks; i++)
		if (strcmp(in->effort.tracks[i].track, name) == 0)
			return in->effort.tracks[i].total_ms;
	return 0;
}

/* A track's revisions, budget and effort, without its changes. */
static json_t *track_head(const mt_trial *t, const char *name, const struct journal_in *in)
{
	const char *budget = track_spec(t, name, "budget_hours");
	double hours = budget ? strtod(budget, NULL) : 0;
	json_t *tr = json_pack("{ss, so, so, so, so, so}", "name", name, "base",
			       str_or_null(track_spec(t, name, "base")), "head",
			       str_or_null(track_spec(t, name, "head")), "description",
			       str_or_null(track_spec(t, name, "description")), "budget_hours",
			       budget ? json_real(hours) : json_null(), "effort",
			       track_effort(in, name));

	if (hours > 0)
		json_object_set_new(tr, "budget_used",
				    json_real((double)track_effort_ms(in, name) / 3600000.0 / hours));
	return tr;
}

static int file_is(json_t *f, const char *path)
{
	const char *old = json_string_value(json_object_get(f, "old_path"));
	return strcmp(json_string_value(json_object_get(f, "path")), path) == 0 ||
	       (old && strcmp(old, path) == 0);
}

/* The file of a track's changes that PATH names (its path, or its old
 * path for a rename), or NULL. Borrowed. */
static json_t *track_file(json_t *tr, const char *path)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(tr, "changes"), "files"), i, f)
		if (file_is(f, path))
			return f;
	return NULL;
}

/* Puts each mark of track `name` on its file, totals the lines by mark,
 * and keeps the marks of files the diff no longer has as stale. */
static void apply_marks(json_t *tr, const char *name, const struct journal_in *in)
{
	json_t *changes = json_object_get(tr, "changes"), *stale = json_array(), *f;
	json_t *by_mark = json_pack("{si, si, si}", "reusable", 0, "model-specific", 0, "unmarked", 0);
	size_t i;

	json_array_foreach(json_object_get(changes, "files"), i, f) {
		json_object_set_new(f, "mark", json_null());
		json_object_set_new(f, "mark_note", json_null());
	}
	for (i = 0; i < in->nmarks; i++) {
		const mt_mark_view *m = &in->marks[i];
		if (strcmp(m->track, name) != 0)
			continue;
		if (!(f = track_file(tr, m->path))) {
			json_array_append_new(stale, json_pack("{ss, ss, ss, ss, so}", "created",
							       m->created, "track", m->track,
							       "path", m->path, "mark", m->mark,
							       "note", str_or_null(m->note)));
			continue;
		}
		json_object_set_new(f, "mark", json_string(m->mark));
		json_object_set_new(f, "mark_note", str_or_null(m->note));
	}
	json_array_foreach(json_object_get(changes, "files"), i, f)
		bump(by_mark, json_string_value(json_object_get(f, "mark")) ?: "unmarked",
		     json_integer_value(json_object_get(f, "added")) +
			     json_integer_value(json_object_get(f, "deleted")));
	if (changes)
		json_object_set_new(json_object_get(changes, "totals"), "by_mark", by_mark);
	else
		json_decref(by_mark);
	json_object_set_new(tr, "stale_marks", stale);
}

/* The changes of track `name`: in a trial made from a bundle, the ones the
 * bundle carries (tracks/NAME.json, as its writer's repository gave them:
 * the reader's repository may be absent, or another); else the diff. */
static int changes_of(json_t **out, const mt_trial *t, const char *repo, const char *name,
		      const char *base, const char *head, const mt_tracks_rules *rules)
{
	char *marker = mt_path_join(t->dir, MT_EVENTS_FROM_BUNDLE), *saved = NULL;
	json_error_t jerr;
	int error = 1;

	if (mt_path_exists(marker)) {
		mt_buf b = MT_BUF_INIT;
		mt_buf_printf(&b, "%s/" MT_TRACKS_SAVED_DIR "/%s.json", t->dir, name);
		saved = mt_buf_detach(&b);
	}
	if (saved && mt_path_exists(saved)) {
		*out = json_load_file(saved, 0, &jerr);
		error = json_is_object(*out) ? 0 : mt_error_at(MT_EINVALID, saved, (unsigned long)jerr.line,
							       (unsigned long)jerr.column, "%s", jerr.text);
	}
	if (error > 0)
		error = mt_tracks_diff(out, repo, base, head, rules);
	free(saved);
	free(marker);
	return error;
}

int mt_tracks_changes(json_t **out, mt_trial *t, const mt_tracks_rules *rules, const char *name)
{
	const char *base = track_spec(t, name, "base"), *head = track_spec(t, name, "head");
	char *repo;
	int error;

	*out = NULL;
	if (!base || !head)
		return mt_error_set(MT_ENOTFOUND, "no tracks.%s.base and .head in trial.yaml", name);
	repo = tracks_repo(t);
	error = changes_of(out, t, repo, name, base, head, rules);
	free(repo);
	return error;
}

static json_t *track_json(mt_trial *t, const mt_tracks_rules *rules, const char *name,
			  const struct journal_in *in)
{
	json_t *tr = track_head(t, name, in), *changes = NULL;
	const char *base = track_spec(t, name, "base");
	const char *head = track_spec(t, name, "head");
	char *repo = tracks_repo(t);

	if (!base || !head) {
		json_object_set_new(tr, "changes", json_null());
		json_object_set_new(tr, "missing", json_string("tracks.<name>.base and .head in trial.yaml"));
	} else if (changes_of(&changes, t, repo, name, base, head, rules) < 0) {
		json_object_set_new(tr, "changes", json_null());
		json_object_set_new(tr, "error", json_string(mt_error_last()));
		mt_error_clear();
	} else {
		json_object_set_new(tr, "changes", changes);
	}
	free(repo);
	apply_marks(tr, name, in);
	return tr;
}

static void journal_in_dispose(struct journal_in *in)
{
	mt_effort_summary_view_dispose(&in->effort);
	free(in->marks);
	json_decref(in->effort_json);
	json_decref(in->marks_json);
	memset(in, 0, sizeof(*in));
}

static int journal_in_read(struct journal_in *in, mt_trial *t, int64_t now_ms)
{
	int error = 0;

	memset(in, 0, sizeof(*in));
	if (!(in->effort_json = mt_journal_effort_summary_json(t->journal, now_ms)) ||
	    !(in->marks_json = mt_journal_marks_json(t->journal)))
		error = mt_error_last_code() ? mt_error_last_code() : MT_EIO;
	if (error == 0 && (error = mt_effort_summary_view_read(&in->effort, in->effort_json)) == 0)
		error = mt_mark_view_read_list(&in->marks, &in->nmarks, in->marks_json);
	if (error < 0)
		journal_in_dispose(in);
	return error;
}

int mt_tracks_json(json_t **out, mt_trial *t, const mt_tracks_rules *rules, int64_t now_ms)
{
	struct journal_in in;
	json_t *arr;
	int error;

	*out = NULL;
	if ((error = journal_in_read(&in, t, now_ms)) < 0)
		return error;
	arr = json_array();
	for (const char *const *n = mt_tracks; *n; n++)
		json_array_append_new(arr, track_json(t, rules, *n, &in));
	journal_in_dispose(&in);
	*out = arr;
	return 0;
}

/* Why PATH cannot be marked in track `tr`: its changes are not known, or
 * it did not change PATH. */
static int not_in_track(json_t *tr, const char *path)
{
	const char *name = json_string_value(json_object_get(tr, "name"));
	const char *why = json_string_value(json_object_get(tr, "error"));

	if (why)
		return mt_error_set(MT_EINVALID, "the %s track's changes are not known: %s", name, why);
	if (json_is_null(json_object_get(tr, "changes")))
		return mt_error_set(MT_EINVALID, "the %s track's changes are not known: set "
				    "tracks.%s.base and .head in trial.yaml", name, name);
	return mt_error_set(MT_EINVALID, "%s is not changed in the %s track (%s..%s): "
			    "`mtrial tracks` lists its %zu changed files", path, name,
			    json_string_value(json_object_get(tr, "base")),
			    json_string_value(json_object_get(tr, "head")),
			    json_array_size(json_object_get(json_object_get(tr, "changes"), "files")));
}

static int marked_in(const struct journal_in *in, const char *track, const char *path)
{
	for (size_t i = 0; i < in->nmarks; i++)
		if (strcmp(in->marks[i].track, track) == 0 && strcmp(in->marks[i].path, path) == 0)
			return 1;
	return 0;
}

/* The track to mark or unmark PATH in when none is named: the only one
 * that changed it (marking) or that has it marked (clearing). */
static int pick_track(json_t *tracks, const struct journal_in *in, const char *path,
		      int clearing, const char **out)
{
	json_t *tr;
	size_t i, n = 0;

	json_array_foreach(tracks, i, tr) {
		const char *name = json_string_value(json_object_get(tr, "name"));
		if (clearing ? marked_in(in, name, path) : track_file(tr, path) != NULL)
			*out = n++ ? *out : mt_tracks[i];
	}
	if (n == 1)
		return 0;
	if (n > 1)
		return mt_error_set(MT_EUSAGE, "%s is %s in both tracks: say which with --track", path,
				    clearing ? "marked" : "changed");
	if (clearing)
		return mt_error_set(MT_ENOTFOUND, "%s is not marked in any track", path);
	json_array_foreach(tracks, i, tr)
		if (!json_is_null(json_object_get(tr, "changes")))
			return mt_error_set(MT_EINVALID, "%s is not changed in any track "
					    "(`mtrial tracks` lists the changed files)", path);
	return not_in_track(json_array_get(tracks, 0), path);
}

static int track_index(const char *track)
{
	for (int i = 0; mt_tracks[i]; i++)
		if (strcmp(mt_tracks[i], track) == 0)
			return i;
	return -1;
}

int mt_tracks_mark(mt_trial *t, const mt_tracks_rules *rules, const char *track,
		   const char *path, const char *mark, const char *note, const char **track_out)
{
	json_t *tracks = NULL, *tr, *f;
	struct journal_in in;
	int error;

	if (track && track_index(track) < 0)
		return mt_error_set(MT_EINVALID, "unknown track '%s' (portability or optimized)", track);
	if (mark && !mt_str_in(mark, mt_change_marks))
		return mt_error_set(MT_EINVALID, "unknown mark '%s' (reusable or model-specific)", mark);
	if ((error = mt_tracks_json(&tracks, t, rules, mt_now_ms())) < 0)
		return error;
	if ((error = journal_in_read(&in, t, mt_now_ms())) < 0) {
		json_decref(tracks);
		return error;
	}
	if (!track && (error = pick_track(tracks, &in, path, !mark, &track)) < 0)
		goto cleanup;
	track = mt_tracks[track_index(track)]; /* static, for track_out */
	tr = json_array_get(tracks, (size_t)track_index(track));
	f = track_file(tr, path);
	if (mark && !f) {
		error = not_in_track(tr, path);
		goto cleanup;
	}
	if (mark) /* a renamed file is marked by its new path */
		error = mt_journal_mark_set(t->journal, track,
					    json_string_value(json_object_get(f, "path")), mark, note);
	else
		error = mt_journal_mark_clear(t->journal, track, path);
	if (error == 0 && track_out)
		*track_out = track;
cleanup:
	json_decref(tracks);
	journal_in_dispose(&in);
	return error;
}
