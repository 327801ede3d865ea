/* mt_tracks_json's array -> mt_track_view: the one place the layers above
 * read the tracks' keys. */
#include "tracks.h"
#include "jview.h"
#include "view_int.h"

#include <stdlib.h>
#include <string.h>

static void read_lines(mt_jview *v, mt_track_file *f)
{
	const json_t *arr = mt_jview_get(v, "platform_lines"), *x;
	size_t i;

	f->lines = mt_view_items(json_array_size(arr), sizeof(*f->lines));
	json_array_foreach(arr, i, x) {
		mt_jview l;
		mt_jview_init(&l, x, v->shape);
		f->lines[i].sign = mt_jview_str(&l, "sign");
		f->lines[i].line = mt_jview_int(&l, "line", 0);
		f->lines[i].rule = mt_jview_str(&l, "rule");
		f->lines[i].text = mt_jview_str(&l, "text");
		mt_jview_close(&l, v);
	}
	f->nlines = json_array_size(arr);
}

static void read_files(mt_jview *v, mt_track_view *t)
{
	const json_t *arr = mt_jview_get(v, "files"), *x;
	size_t i;

	t->files = mt_view_items(json_array_size(arr), sizeof(*t->files));
	json_array_foreach(arr, i, x) {
		mt_track_file *f = &t->files[i];
		mt_jview o;
		mt_jview_init(&o, x, v->shape);
		f->path = mt_jview_str(&o, "path");
		f->old_path = mt_jview_opt_str(&o, "old_path");
		f->status = mt_jview_str(&o, "status");
		f->kind = mt_jview_str(&o, "kind");
		f->mark = mt_jview_str(&o, "mark");
		f->mark_note = mt_jview_str(&o, "mark_note");
		f->binary = mt_jview_bool(&o, "binary", 0);
		f->added = mt_jview_int(&o, "added", 0);
		f->deleted = mt_jview_int(&o, "deleted", 0);
		f->platform = mt_jview_int(&o, "platform", 0);
		read_lines(&o, f);
		mt_jview_close(&o, v);
	}
	t->nfiles = json_array_size(arr);
}

/* The totals, by kind, by mark and by rule. */
static void read_totals(mt_jview *v, mt_track_view *t)
{
	mt_jview o, k, m;
	const json_t *rules, *x;
	const char *rule;

	mt_jview_sub(&o, v, "totals");
	t->totals.files = mt_jview_int(&o, "files", 0);
	t->totals.added = mt_jview_int(&o, "added", 0);
	t->totals.deleted = mt_jview_int(&o, "deleted", 0);
	t->totals.platform = mt_jview_int(&o, "platform", 0);
	t->totals.generic = mt_jview_int(&o, "generic", 0);
	mt_jview_sub(&k, &o, "by_kind");
	t->totals.model = mt_jview_int(&k, "model", 0);
	t->totals.harness = mt_jview_int(&k, "harness", 0);
	t->totals.other = mt_jview_int(&k, "other", 0);
	mt_jview_close(&k, &o);
	mt_jview_sub(&m, &o, "by_mark");
	t->totals.reusable = mt_jview_int(&m, "reusable", 0);
	t->totals.model_specific = mt_jview_int(&m, "model-specific", 0);
	t->totals.unmarked = mt_jview_int(&m, "unmarked", 0);
	mt_jview_close(&m, &o);
	rules = mt_jview_get(&o, "by_rule");
	t->by_rule = mt_view_items(json_object_size(rules), sizeof(*t->by_rule));
	json_object_foreach((json_t *)rules, rule, x)
		t->by_rule[t->nby_rule++] = (mt_track_rule_lines){rule, json_integer_value(x)};
	mt_jview_close(&o, v);
}

static void read_stale(mt_jview *v, mt_track_view *t)
{
	const json_t *arr = mt_jview_get(v, "stale_marks"), *x;
	size_t i;

	t->stale = mt_view_items(json_array_size(arr), sizeof(*t->stale));
	json_array_foreach(arr, i, x) {
		mt_jview o;
		mt_jview_init(&o, x, v->shape);
		t->stale[i].path = mt_jview_str(&o, "path");
		t->stale[i].mark = mt_jview_str(&o, "mark");
		t->stale[i].note = mt_jview_opt_str(&o, "note");
		mt_jview_close(&o, v);
	}
	t->nstale = json_array_size(arr);
}

static void read_track(mt_jview *parent, const json_t *obj, mt_track_view *t)
{
	mt_jview v, e;

	mt_jview_init(&v, obj, parent->shape);
	t->name = mt_jview_str(&v, "name");
	t->base = mt_jview_str(&v, "base");
	t->head = mt_jview_str(&v, "head");
	t->description = mt_jview_str(&v, "description");
	t->missing = mt_jview_opt_str(&v, "missing");
	t->error = mt_jview_opt_str(&v, "error");
	t->budget_hours = mt_jview_num(&v, "budget_hours");
	t->budget_used = mt_jview_opt_num(&v, "budget_used");
	mt_jview_sub(&e, &v, "effort");
	t->effort_ms = mt_jview_int(&e, "total_ms", 0);
	mt_jview_close(&e, &v);
	read_stale(&v, t);
	if (mt_jview_get(&v, "changes")) { /* null when not known */
		mt_jview c;
		t->has_changes = 1;
		mt_jview_sub(&c, &v, "changes");
		read_files(&c, t);
		read_totals(&c, t);
		mt_jview_close(&c, &v);
	}
	mt_jview_close(&v, parent);
}

int mt_tracks_view_read(mt_track_view **out, size_t *n, const json_t *tracks)
{
	mt_jview v;
	const json_t *x;
	size_t i;

	mt_jview_init(&v, NULL, "tracks");
	*out = mt_view_items(json_array_size(tracks), sizeof(**out));
	json_array_foreach(tracks, i, x)
		read_track(&v, x, &(*out)[i]);
	*n = json_array_size(tracks);
	return mt_jview_complete(&v);
}

void mt_tracks_view_free(mt_track_view *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		for (size_t k = 0; k < v[i].nfiles; k++)
			free(v[i].files[k].lines);
		free(v[i].files);
		free(v[i].by_rule);
		free(v[i].stale);
	}
	free(v);
}
