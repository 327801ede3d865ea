/* JSON views of the journal, shared by --json output, the report and the
 * wizard, so that each shows the same numbers. */
#include "journal.h"
#include "error.h"
#include "jsonutil.h"
#include "util.h"

static json_t *str_or_null(const char *s)
{
	return mt_json_text(s); /* a row another tool wrote may not be UTF-8 */
}

static json_t *time_json(int64_t ms)
{
	char iso[32];
	if (ms == 0)
		return json_null();
	mt_time_iso(iso, sizeof(iso), ms);
	return json_string(iso);
}

/* Who recorded a row: {name, email, host}, or null when unknown. */
static json_t *author_json(const char *author, const char *email, const char *host)
{
	if (!author)
		return json_null();
	return json_pack("{so, so, so}", "name", mt_json_text(author), "email", str_or_null(email),
			 "host", str_or_null(host));
}

json_t *mt_note_json(const mt_note *n)
{
	json_t *tags = json_array();
	for (size_t i = 0; i < n->ntags; i++)
		json_array_append_new(tags, mt_json_text(n->tags[i]));
	return json_pack("{sI, so, so, so, so, so, so}", "id", (json_int_t)n->id, "created",
			 time_json(n->created_ms), "track", str_or_null(n->track), "text",
			 mt_json_text(n->text), "interval",
			 n->interval_id ? json_integer(n->interval_id) : json_null(), "tags", tags,
			 "author", author_json(n->author, n->email, n->host));
}

static int note_to_json(const mt_note *n, void *payload)
{
	json_array_append_new((json_t *)payload, mt_note_json(n));
	return 0;
}

json_t *mt_journal_notes_json(mt_journal *j)
{
	json_t *arr = json_array();
	if (mt_journal_notes_foreach(j, note_to_json, arr) < 0) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

json_t *mt_effort_json(const mt_effort *e)
{
	int64_t end = e->stopped_ms ? e->stopped_ms : mt_now_ms();
	return json_pack("{sI, so, so, so, so, so, sb, sI, so}", "id", (json_int_t)e->id, "track",
			 str_or_null(e->track), "category", mt_json_text(e->category), "text",
			 str_or_null(e->text), "started", time_json(e->started_ms), "stopped",
			 time_json(e->stopped_ms), "running", e->stopped_ms == 0, "duration_ms",
			 (json_int_t)(end - e->started_ms), "author",
			 author_json(e->author, e->email, e->host));
}

static int effort_to_json(const mt_effort *e, void *payload)
{
	json_array_append_new((json_t *)payload, mt_effort_json(e));
	return 0;
}

json_t *mt_journal_effort_json(mt_journal *j)
{
	json_t *arr = json_array();
	if (mt_journal_effort_foreach(j, effort_to_json, arr) < 0) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

struct summary_ctx {
	json_t *by_track;
	int64_t total;
	int64_t now;
};

static void add_ms(json_t *obj, const char *key, int64_t ms)
{
	json_t *v = json_object_get(obj, key);
	json_object_set_new(obj, key, json_integer((v ? json_integer_value(v) : 0) + ms));
}

static int summary_add(const mt_effort *e, void *payload)
{
	struct summary_ctx *c = payload;
	const char *track = e->track ? e->track : "unassigned";
	int64_t ms = (e->stopped_ms ? e->stopped_ms : c->now) - e->started_ms;
	json_t *t = json_object_get(c->by_track, track);

	if (ms < 0)
		ms = 0;
	if (!t) {
		t = json_pack("{sI, s{}}", "total_ms", (json_int_t)0, "by_category");
		json_object_set_new(c->by_track, track, t);
	}
	add_ms(t, "total_ms", ms);
	add_ms(json_object_get(t, "by_category"), e->category, ms);
	c->total += ms;
	return 0;
}

json_t *mt_journal_effort_summary_json(mt_journal *j, int64_t now_ms)
{
	struct summary_ctx c = {json_object(), 0, now_ms};
	if (mt_journal_effort_foreach(j, summary_add, &c) < 0) {
		json_decref(c.by_track);
		return NULL;
	}
	return json_pack("{sI, so}", "total_ms", (json_int_t)c.total, "by_track", c.by_track);
}
