/* The one reader of the journal's listings (journal.c's overrides,
 * journal_withdraw.c's withdrawals, the "author" of a row, journal_json.c's
 * effort summary). */
#include "journal_view.h"

#include "error.h"
#include "jview.h"

#include <stdlib.h>
#include <string.h>

int mt_override_view_read(mt_override_view *v, const json_t *row)
{
	mt_jview j;

	memset(v, 0, sizeof(*v));
	mt_jview_init(&j, row, "override");
	v->id = mt_jview_int(&j, "id", 0);
	v->created = mt_jview_str(&j, "created");
	/* an API's finding is keyed "api", anything else "op" */
	if (!(v->key = mt_jview_opt_str(&j, "op")))
		v->is_api = (v->key = mt_jview_str(&j, "api")) != NULL;
	v->status = mt_jview_str(&j, "status");
	v->note = mt_jview_str(&j, "note");
	v->source = mt_jview_str(&j, "source");
	return mt_jview_complete(&j);
}

int mt_withdrawal_view_read(mt_withdrawal_view *v, const json_t *row)
{
	mt_jview j;

	memset(v, 0, sizeof(*v));
	mt_jview_init(&j, row, "withdrawal");
	v->id = mt_jview_int(&j, "id", 0);
	v->when = mt_jview_str(&j, "when");
	v->kind = mt_jview_str(&j, "kind");
	v->item_id = mt_jview_int(&j, "item_id", 0);
	v->what = mt_jview_str(&j, "what");
	v->who = mt_jview_str(&j, "who");
	v->why = mt_jview_str(&j, "why");
	return mt_jview_complete(&j);
}

int mt_author_view_read(mt_author_view *v, const json_t *row)
{
	mt_jview j, a;
	const json_t *author;

	memset(v, 0, sizeof(*v));
	mt_jview_init(&j, row, "record");
	if (!(author = mt_jview_get(&j, "author")))
		return mt_jview_complete(&j); /* null: not known; absent: missing */
	mt_jview_sub(&a, &j, "author");
	v->name = mt_jview_str(&a, "name");
	v->email = mt_jview_str(&a, "email");
	v->host = mt_jview_str(&a, "host");
	mt_jview_close(&a, &j);
	return mt_jview_complete(&j);
}

const char *mt_author_name(const json_t *row)
{
	mt_author_view a;

	return mt_author_view_read(&a, row) == 0 ? a.name : NULL;
}

int mt_mark_view_read_list(mt_mark_view **out, size_t *n, const json_t *rows)
{
	size_t count = json_array_size(rows);
	mt_jview j;
	int error = 0;

	*out = NULL;
	*n = 0;
	if (count && !(*out = calloc(count, sizeof(**out))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < count && error == 0; i++) {
		mt_mark_view *v = &(*out)[(*n)++];
		mt_jview_init(&j, json_array_get(rows, i), "change mark");
		v->created = mt_jview_str(&j, "created");
		v->track = mt_jview_str(&j, "track");
		v->path = mt_jview_str(&j, "path");
		v->mark = mt_jview_str(&j, "mark");
		v->note = mt_jview_str(&j, "note");
		error = mt_jview_complete(&j);
	}
	return error;
}

/* A track's {total_ms, by_category {category: ms}}; 0 or MT_EIO. */
static int read_track(mt_effort_track_view *t, mt_jview *parent, const char *name,
		      const json_t *obj)
{
	const json_t *by, *ms;
	const char *cat;
	mt_jview j;

	mt_jview_init(&j, obj, parent->shape);
	t->track = name;
	t->total_ms = mt_jview_int(&j, "total_ms", 0);
	by = mt_jview_get(&j, "by_category");
	mt_jview_close(&j, parent);
	if (!json_object_size(by))
		return 0;
	if (!(t->categories = calloc(json_object_size(by), sizeof(*t->categories))))
		return mt_error_set(MT_EIO, "out of memory");
	json_object_foreach((json_t *)by, cat, ms) {
		t->categories[t->ncategories].category = cat;
		t->categories[t->ncategories++].ms = (int64_t)json_integer_value(ms);
	}
	return 0;
}

int mt_effort_summary_view_read(mt_effort_summary_view *v, const json_t *summary)
{
	const json_t *by, *tr;
	const char *name;
	mt_jview j;
	int error = 0;

	memset(v, 0, sizeof(*v));
	mt_jview_init(&j, summary, "effort summary");
	v->total_ms = mt_jview_int(&j, "total_ms", 0);
	by = mt_jview_get(&j, "by_track");
	if (json_object_size(by) && !(v->tracks = calloc(json_object_size(by), sizeof(*v->tracks))))
		return mt_error_set(MT_EIO, "out of memory");
	json_object_foreach((json_t *)by, name, tr)
		if (error == 0)
			error = read_track(&v->tracks[v->ntracks++], &j, name, tr);
	return error < 0 ? error : mt_jview_complete(&j);
}

void mt_effort_summary_view_dispose(mt_effort_summary_view *v)
{
	for (size_t i = 0; i < v->ntracks; i++)
		free(v->tracks[i].categories);
	free(v->tracks);
	memset(v, 0, sizeof(*v));
}
