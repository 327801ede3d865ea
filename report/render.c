#include "render.h"
#include "scaling_charts.h"
#include "charts.h"
#include "error.h"
#include "jsonutil.h"
#include "jsonw.h"
#include "model.h"
#include "sanitize.h"
#include "template.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How much of a long list the page holds; the rest is in the linked list
 * page (REPORT.lists.EXT) or, without one, named by the command listing it. */
#define INLINE_NOTES 50
#define INLINE_ROWS 50
#define INLINE_FEW 10 /* rows kept of a list with no row that must show */
#define INLINE_LOCATIONS 10
#define INLINE_TAGS 20

static int render_json(FILE *out, json_t *model)
{
	char *text = mt_json_dumps(model, JSON_INDENT(2)), *safe;
	int error = 0;

	if (!text)
		return mt_error_set(MT_EIO, "could not encode the report as JSON");
	/* the same document, with C1 and bidi controls \u-escaped as jansson
	 * escapes C0: the file can be shown in a terminal */
	safe = mt_term_safe_json(text, strlen(text));
	if (fputs(safe, out) == EOF || fputc('\n', out) == EOF)
		error = mt_error_set(MT_EIO, "could not write the report");
	free(safe);
	free(text);
	return error;
}

/* --- the notes, read once, a note at a time ----------------------------- */

struct notes {
	mt_journal *journal;
	size_t count;
	json_t *ring[INLINE_NOTES]; /* the newest, ring[count % INLINE_NOTES] the oldest kept */
	json_t *by_track, *by_tag;  /* name -> count */
	json_t *page;               /* the list page's counter, or NULL */
	mt_template_item_fn item;
	void *renderer;
};

static void tally(json_t *counts, const char *name)
{
	json_t *n = json_object_get(counts, name);
	if (n)
		json_integer_set(n, json_integer_value(n) + 1);
	else
		json_object_set_new(counts, name, json_integer(1));
}

/* o[key] = s (null for NULL), reusing the string already there: the ring's
 * objects are refilled note after note (mt_note_json made each anew, a
 * tenth of the report's time). */
static void set_text(json_t *o, const char *key, const char *s)
{
	json_t *v = json_object_get(o, key);

	if (!s)
		json_object_set_new(o, key, json_null());
	else if (!json_is_string(v) || json_string_set(v, s) < 0)
		json_object_set_new(o, key, mt_json_text(s)); /* new, or not UTF-8 */
}

static void set_int(json_t *o, const char *key, int64_t i)
{
	json_t *v = json_object_get(o, key);

	if (!i)
		json_object_set_new(o, key, json_null());
	else if (!json_is_integer(v) || json_integer_set(v, (json_int_t)i) < 0)
		json_object_set_new(o, key, json_integer((json_int_t)i));
}

/* The note as mt_note_json has it, into `o`. */
static void note_fill(json_t *o, const mt_note *n)
{
	json_t *tags = json_object_get(o, "tags");
	char iso[32];

	set_int(o, "id", n->id);
	mt_time_iso(iso, sizeof(iso), n->created_ms);
	set_text(o, "created", n->created_ms ? iso : NULL);
	set_text(o, "track", n->track);
	set_text(o, "text", n->text);
	set_int(o, "interval", n->interval_id);
	if (!tags)
		json_object_set_new(o, "tags", tags = json_array());
	json_array_clear(tags);
	for (size_t i = 0; i < n->ntags; i++)
		json_array_append_new(tags, mt_json_text(n->tags[i]));
}

static int note_seen(const mt_note *n, void *payload)
{
	struct notes *s = payload;
	size_t slot = s->count % INLINE_NOTES;

	tally(s->by_track, n->track ? n->track : "");
	for (size_t i = 0; i < n->ntags; i++)
		tally(s->by_tag, n->tags[i]);
	/* the slot's note is the oldest kept, and no one else holds it */
	if (!s->ring[slot])
		s->ring[slot] = json_object();
	note_fill(s->ring[slot], n);
	s->count++;
	if (s->page)
		json_integer_set(json_object_get(s->page, "note_count"), (json_int_t)s->count);
	return s->item ? s->item(s->ring[slot], s->renderer) : 0;
}

/* mt_template_list's foreach: every note, oldest first, counted as it goes. */
static int notes_foreach(void *payload, mt_template_item_fn item, void *renderer)
{
	struct notes *s = payload;
	s->item = item, s->renderer = renderer;
	return mt_journal_notes_foreach(s->journal, note_seen, s);
}

static void notes_dispose(struct notes *s)
{
	for (size_t i = 0; i < INLINE_NOTES; i++)
		json_decref(s->ring[i]);
	json_decref(s->by_track);
	json_decref(s->by_tag);
}

static int by_count(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "count"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "count"));
	return x < y ? 1 : x > y ? -1 : 0;
}

/* [{name, count}], the largest count first, at most `max` (0: all); *more
 * the names left out. */
static json_t *counts_list(json_t *counts, size_t max, size_t *more)
{
	size_t n = json_object_size(counts), i = 0;
	json_t **items = calloc(n ? n : 1, sizeof(*items)), *v, *arr = json_array();
	const char *k;

	json_object_foreach(counts, k, v)
		items[i++] = json_pack("{ss, sO}", "name", *k ? k : "no track", "count", v);
	qsort(items, n, sizeof(*items), by_count);
	for (i = 0; i < n; i++) {
		if (max == 0 || i < max)
			json_array_append(arr, items[i]);
		json_decref(items[i]);
	}
	*more = max && n > max ? n - max : 0;
	free(items);
	return arr;
}

/* The newest notes, oldest first, into the model, with the count. */
static void notes_into(json_t *model, struct notes *s)
{
	json_t *inline_notes = json_array();
	size_t kept = s->count < INLINE_NOTES ? s->count : INLINE_NOTES;

	for (size_t i = s->count - kept; i < s->count; i++)
		json_array_append(inline_notes, s->ring[i % INLINE_NOTES]);
	json_object_set_new(model, "notes", inline_notes);
	json_object_set_new(model, "note_count", json_integer((json_int_t)s->count));
}

/* --- long lists: a part in the page, all of them in the list page ------- */

struct lists {
	json_t *summary; /* the model's "lists": what each list in the page leaves out */
	json_t *page;    /* the list page's model: each list in full */
	const char *link; /* the list page's name, NULL when there is none */
	int any;         /* a list in the page is not whole */
};

/* Records that the page holds `shown` of the `count` items of list `key`,
 * chosen as `what` says; all of them are in the list page at #key, or,
 * without one, listed by `command`. */
static void summarised(struct lists *l, const char *key, size_t count, size_t shown,
		       const char *what, const char *command)
{
	char *href = NULL;

	if (l->link && asprintf(&href, "%s#%s", l->link, key) < 0)
		href = NULL;
	json_object_set_new(l->summary, key,
			    json_pack("{sI, sI, sI, ss, so, so, ss}", "count", (json_int_t)count,
				      "shown", (json_int_t)shown, "more",
				      (json_int_t)(count - shown), "what", what, "link",
				      href ? json_string(href) : json_null(), "file",
				      l->link ? json_string(l->link) : json_null(), "command",
				      command));
	free(href);
	l->any = 1;
}

/* The items of `arr` whose `keep` flag is set, in order. */
static json_t *kept(json_t *arr, const char *keep)
{
	json_t *out = json_array(), *item;
	size_t i;

	json_array_foreach(arr, i, item)
		if (keep[i])
			json_array_append(out, item);
	return out;
}

/* Marks the last `n` unmarked items of `arr` for which match() holds
 * (NULL: any); the number marked. */
static size_t keep_newest(json_t *arr, char *keep, size_t n, int (*match)(json_t *))
{
	size_t marked = 0;
	for (size_t i = json_array_size(arr); i > 0 && marked < n; i--)
		if (!keep[i - 1] && (!match || match(json_array_get(arr, i - 1))))
			keep[i - 1] = 1, marked++;
	return marked;
}

static int is_short(json_t *run)
{
	const char *o = json_string_value(json_object_get(run, "outcome"));
	return o && (strcmp(o, "failed") == 0 || strcmp(o, "missed") == 0);
}

/* Each system's attempt that reached the target soonest. */
static void keep_best(json_t *arr, char *keep)
{
	const char *systems[] = {"baseline", "candidate"};

	for (size_t s = 0; s < 2; s++) {
		size_t best = (size_t)-1, i;
		double best_s = 0;
		json_t *run;
		json_array_foreach(arr, i, run) {
			json_t *t = json_object_get(run, "time_to_target_s");
			const char *sys = json_string_value(json_object_get(run, "system"));
			if (!json_is_number(t) || !sys || strcmp(sys, systems[s]) != 0)
				continue;
			if (best == (size_t)-1 || json_number_value(t) < best_s)
				best = i, best_s = json_number_value(t);
		}
		if (best != (size_t)-1)
			keep[best] = 1;
	}
}

/* runs.attempts: each system's fastest to the target, the failed and those
 * short of it (the newest), then the newest of the rest. */
static void attempts_list(struct lists *l, json_t *runs)
{
	json_t *arr = json_object_get(runs, "attempts");
	size_t n = json_array_size(arr), shown = 0;
	char *keep;

	if (n <= INLINE_ROWS)
		return;
	json_object_set(l->page, "attempts", arr);
	keep = calloc(n, 1);
	keep_best(arr, keep);
	for (size_t i = 0; i < n; i++)
		shown += keep[i];
	shown += keep_newest(arr, keep, INLINE_ROWS - shown, is_short);
	if (shown < INLINE_FEW)
		shown += keep_newest(arr, keep, INLINE_FEW - shown, NULL);
	summarised(l, "attempts", n, shown,
		   "each system's fastest to the target, the failed or aborted and those short of "
		   "the target (the newest), then the newest of the others",
		   "mtrial runs");
	json_object_set_new(runs, "attempts", kept(arr, keep));
	free(keep);
}

/* A list of which the page keeps the newest `max` (the last ones). */
static void newest_list(struct lists *l, json_t *parent, const char *member, const char *key,
			size_t max, const char *what, const char *command)
{
	json_t *arr = json_object_get(parent, member), *part;
	size_t n = json_array_size(arr);

	if (n <= max)
		return;
	json_object_set(l->page, key, arr);
	part = json_array();
	for (size_t i = n - max; i < n; i++)
		json_array_append(part, json_array_get(arr, i));
	summarised(l, key, n, max, what, command);
	json_object_set_new(parent, member, part);
}

/* Each blocker's call sites: the first few, with how many more (the scan
 * lists them all). */
static void locations_list(json_t *model)
{
	json_t *ops = mt_json_path(model, "probe.by_status.unsupported"), *op;
	size_t i;

	json_array_foreach(ops, i, op) {
		json_t *locs = json_object_get(op, "locations"), *part;
		size_t n = json_array_size(locs);
		if (n <= INLINE_LOCATIONS)
			continue;
		part = json_array();
		for (size_t k = 0; k < INLINE_LOCATIONS; k++)
			json_array_append(part, json_array_get(locs, k));
		json_object_set_new(op, "locations", part);
		json_object_set_new(op, "locations_more", json_integer((json_int_t)(n - INLINE_LOCATIONS)));
	}
}

/* Shortens the page's long lists (the notes are done apart); what each
 * leaves out goes into the model's "lists". */
static void shorten_lists(struct lists *l, json_t *model)
{
	json_t *runs = json_object_get(model, "runs"), *comp = json_object_get(model, "compilation");

	if (json_is_object(runs)) {
		attempts_list(l, runs);
		newest_list(l, runs, "rehearsals", "rehearsals", INLINE_ROWS, "the newest",
			    "mtrial runs");
	}
	if (json_is_object(comp))
		newest_list(l, comp, "runs", "compilations", INLINE_ROWS, "the newest runs",
			    "mtrial report --format json");
	newest_list(l, model, "withdrawn", "withdrawn", INLINE_ROWS, "the newest",
		    "mtrial rm --list");
	locations_list(model);
}

/* The notes' part of "lists" when the page holds only the newest. */
static void notes_summary(struct lists *l, struct notes *s)
{
	size_t tracks_more, tags_more;
	json_t *tracks = counts_list(s->by_track, 0, &tracks_more);
	json_t *tags = counts_list(s->by_tag, INLINE_TAGS, &tags_more);

	if (s->count <= INLINE_NOTES) {
		json_decref(tracks), json_decref(tags);
		return;
	}
	summarised(l, "notes", s->count, INLINE_NOTES, "the newest", "mtrial notes");
	json_object_set_new(json_object_get(l->summary, "notes"), "by_track", tracks);
	json_object_set_new(json_object_get(l->summary, "notes"), "by_tag", tags);
	json_object_set_new(json_object_get(l->summary, "notes"), "tags_more",
			    tags_more ? json_integer((json_int_t)tags_more) : json_null());
}

/* --- writing ------------------------------------------------------------ */

/* REPORT.lists.EXT beside REPORT (its extension, when it is .html or .md,
 * replaced). Caller frees. */
static char *lists_path(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext) + 1;
	char *out = NULL;

	if (n > e && path[n - e] == '.' && strcmp(path + n - e + 1, ext) == 0)
		n -= e;
	if (asprintf(&out, "%.*s.lists.%s", (int)n, path, ext) < 0)
		return NULL;
	return out;
}

/* A file written under a temporary name and renamed into place when
 * complete (mt_file_write_atomic's way, written as it goes). */
struct atomic {
	char *path, *tmp;
	FILE *f;
};

static int atomic_open(struct atomic *a, const char *path)
{
	a->path = strdup(path);
	if (!a->path || asprintf(&a->tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
		free(a->path);
		return mt_error_set(MT_EIO, "out of memory");
	}
	if (!(a->f = fopen(a->tmp, "w"))) { /* named as asked, as mt_file_write_atomic does */
		int error = mt_error_set(mt_error_code_for_write(errno), "%s: cannot write it: %s",
					 path, strerror(errno));
		free(a->path), free(a->tmp);
		return error;
	}
	return 0;
}

/* keep: rename into place, else throw away. */
static int atomic_close(struct atomic *a, int keep)
{
	int error = 0;

	if (fflush(a->f) != 0 || ferror(a->f) || fsync(fileno(a->f)) < 0)
		error = keep ? mt_error_set(MT_EIO, "%s: write failed: %s", a->tmp, strerror(errno)) : 0;
	fclose(a->f);
	if (keep && error == 0 && rename(a->tmp, a->path) < 0)
		error = mt_error_set(MT_EIO, "%s: rename failed: %s", a->path, strerror(errno));
	if (!keep || error < 0)
		unlink(a->tmp);
	free(a->path), free(a->tmp);
	return error;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The list page: the long lists in full, the notes streamed from the
 * journal as they are written. Kept only when a list in the page is not
 * whole. */
static int write_lists(struct lists *l, struct notes *s, json_t *model, const char *tmpl,
		       const char *name, const char *path, const char *report)
{
	struct mt_template_list streamed[] = {{"notes", notes_foreach, s}, {NULL, NULL, NULL}};
	json_t *page_model;
	struct atomic a;
	int error;

	json_object_set(l->page, "trial", json_object_get(model, "trial"));
	json_object_set(l->page, "mtrial", json_object_get(model, "mtrial"));
	json_object_set(l->page, "generated", json_object_get(model, "generated"));
	json_object_set_new(l->page, "report", json_string(base_name(report)));
	json_object_set_new(l->page, "note_count", json_integer(0));
	if ((error = atomic_open(&a, path)) < 0)
		return error;
	s->page = l->page;
	page_model = json_pack("{sO}", "list_page", l->page);
	error = mt_template_write(a.f, tmpl, page_model, name, streamed);
	json_decref(page_model);
	s->page = NULL;
	if (error == 0)
		notes_summary(l, s);
	if (error < 0) {
		atomic_close(&a, 0);
		return error;
	}
	return atomic_close(&a, l->any);
}

static int render_page(mt_trial *t, json_t *model, const char *format, const char *path,
		       FILE *out)
{
	const char *name = strcmp(format, "md") == 0 ? "summary.md" : "summary.html";
	char *tmpl = NULL, *lists_file = path ? lists_path(path, format) : NULL;
	struct notes s = {.journal = t->journal, .by_track = json_object(), .by_tag = json_object()};
	struct lists l = {.summary = json_object(), .page = json_object()};
	int error = mt_template_load(&tmpl, name);

	if (error == 0 && strcmp(format, "html") == 0) {
		/* the charts draw every run, before the page's lists are shortened */
		json_t *charts = mt_report_charts(model);
		json_object_update_new(charts, mt_report_scaling_charts(model));
		json_object_set_new(model, "charts", charts);
	}
	if (error == 0) {
		/* the page links the list page by its name: it sits beside it */
		l.link = lists_file ? base_name(lists_file) : NULL;
		shorten_lists(&l, model);
	}
	if (error == 0 && lists_file) {
		error = write_lists(&l, &s, model, tmpl, name, lists_file, path);
	} else if (error == 0) {
		error = notes_foreach(&s, NULL, NULL);
		if (error == 0)
			notes_summary(&l, &s);
	}
	if (error == 0) {
		notes_into(model, &s);
		json_object_set(model, "lists", l.summary);
		error = mt_template_write(out, tmpl, model, name, NULL);
	}
	notes_dispose(&s);
	json_decref(l.summary);
	json_decref(l.page);
	free(lists_file);
	free(tmpl);
	return error;
}

int mt_report_write(mt_trial *t, const char *format, int64_t now_ms, const char *path, FILE *out)
{
	struct atomic a = {0};
	json_t *model;
	int error;

	if (strcmp(format, "md") != 0 && strcmp(format, "html") != 0 && strcmp(format, "json") != 0)
		return mt_error_set(MT_EINVALID, "unknown report format '%s' (md, html or json)", format);
	/* the JSON keeps every note (it is data); a page reads them itself */
	model = strcmp(format, "json") == 0 ? mt_report_model(t, now_ms)
					    : mt_report_model_without_notes(t, now_ms);
	if (!model)
		return mt_error_last_code();
	if (path && (error = atomic_open(&a, path)) < 0) {
		json_decref(model);
		return error;
	}
	if (path)
		out = a.f;
	if (strcmp(format, "json") == 0)
		error = render_json(out, model);
	else
		error = render_page(t, model, format, path, out);
	json_decref(model);
	if (path) {
		int e = atomic_close(&a, error == 0);
		error = error < 0 ? error : e;
	} else if (error == 0 && (fflush(out) != 0 || ferror(out))) {
		error = mt_error_set(MT_EIO, "could not write the report");
	}
	return error;
}

int mt_report_render(char **out, mt_trial *t, const char *format, int64_t now_ms)
{
	size_t size = 0;
	FILE *f = open_memstream(out, &size);
	int error;

	if (!f) {
		*out = NULL;
		return mt_error_set(MT_EIO, "out of memory");
	}
	error = mt_report_write(t, format, now_ms, NULL, f);
	fclose(f);
	if (error < 0) {
		free(*out);
		*out = NULL;
	}
	return error;
}
