/* The report model's sections over what the scan, the exact inventories,
 * the tracks and the probe recorded. */
#include "model_int.h"
#include "error.h"
#include "jsonutil.h"
#include "opinventory.h"
#include "probe.h"
#include "scan_view.h"
#include "tracks.h"

#include <stdlib.h>
#include <string.h>

/* An op as the report lists it: its sites of both kinds as `count`, as
 * the probe counts them, and each kind apart; or (varying_shapes) the
 * distinct input shapes a trace saw as `count`. */
struct op_item {
	const char *op;
	int64_t count, calls, methods, uncertain;
	int files;
};

static int op_count_desc(const void *pa, const void *pb)
{
	const struct op_item *a = pa, *b = pb;

	if (a->count != b->count)
		return (b->count > a->count) - (b->count < a->count);
	return strcmp(a->op, b->op); /* ties by name: the same order on every machine */
}

/* The items most counted first, at most `max`, each made by `item`. */
static json_t *top_items(struct op_item *items, size_t n, size_t max,
			 json_t *(*item)(const struct op_item *))
{
	json_t *arr = json_array();

	qsort(items, n, sizeof(*items), op_count_desc);
	for (size_t i = 0; i < n && i < max; i++)
		json_array_append_new(arr, item(&items[i]));
	return arr;
}

static json_t *site_item(const struct op_item *it)
{
	return json_pack("{ss, sI, sI, sI, sI, si}", "op", it->op, "count", (json_int_t)it->count,
			 "calls", (json_int_t)it->calls, "methods", (json_int_t)it->methods,
			 "uncertain", (json_int_t)it->uncertain, "files", it->files);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct files of an op's calls and method calls. */
static int distinct_files(const mt_scan_op *calls, const mt_scan_op *methods)
{
	const mt_scan_op *both[] = {calls, methods};
	size_t n = 0, k, total = (calls ? calls->nfiles : 0) + (methods ? methods->nfiles : 0);
	const char **v = malloc((total + 1) * sizeof(*v));
	int distinct = 0;

	if (!v)
		return 0;
	for (int s = 0; s < 2; s++)
		for (k = 0; both[s] && k < both[s]->nfiles; k++)
			if (both[s]->files[k])
				v[n++] = both[s]->files[k];
	qsort(v, n, sizeof(*v), str_cmp);
	for (k = 0; k < n; k++)
		distinct += k == 0 || strcmp(v[k], v[k - 1]) != 0;
	free(v);
	return distinct;
}

/* A scan's ops at torch calls and at tensor method calls together, as the
 * probe judges them: the ops section must not list one count and the
 * compatibility section another for the same op. (A scan recorded before
 * method_ops has the torch calls only; the template says so.) *n items. */
static struct op_item *scan_inventory(const mt_scan_view *sv, size_t *n)
{
	struct op_item *items = calloc(sv->nops + sv->nmethod_ops + 1, sizeof(*items));
	size_t i, k;

	*n = 0;
	if (!items)
		return NULL;
	for (i = 0; i < sv->nops; i++)
		items[(*n)++] = (struct op_item){sv->ops[i].name, sv->ops[i].count, sv->ops[i].count, 0,
						 0, distinct_files(&sv->ops[i], NULL)};
	for (i = 0; i < sv->nmethod_ops; i++) {
		const mt_scan_op *m = &sv->method_ops[i], *c = NULL;
		for (k = 0; k < sv->nops; k++) /* items[k] is ops[k]'s */
			if (strcmp(sv->ops[k].name, m->name) == 0) {
				c = &sv->ops[k];
				break;
			}
		if (!c)
			items[k = (*n)++] = (struct op_item){m->name, 0, 0, 0, 0, 0};
		items[k].count += m->count;
		items[k].methods += m->count;
		items[k].uncertain += m->uncertain;
		items[k].files = distinct_files(c, m);
	}
	return items;
}

static const char *const effort_order[] = {"high", "medium", "low", "none", NULL};

/* The report lists this many of a scan's ops, most used first; the rest
 * are counted (the scan's JSON has them all). */
#define REPORT_SCAN_OPS 30

/* The report lists this many findings, most effort first; the rest are
 * counted (the scan's JSON has them all). */
#define REPORT_FINDINGS 50

/* Findings, most effort first (stable within a level), at most `max`. */
static json_t *sorted_findings(const mt_scan_view *sv, size_t max)
{
	json_t *arr = json_array();

	for (const char *const *e = effort_order; *e; e++)
		for (size_t i = 0; i < sv->nfindings; i++)
			if (json_array_size(arr) < max && sv->findings[i].effort &&
			    strcmp(sv->findings[i].effort, *e) == 0)
				json_array_append(arr, (json_t *)sv->findings[i].json);
	return arr;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *strings_json(const char *const *v, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_string(v[i]));
	return arr;
}

/* null, not 0, when none are left out: a section shows for any number */
static json_t *more(size_t n, size_t max)
{
	return n > max ? json_integer((json_int_t)(n - max)) : json_null();
}

/* The scan's part of the model: what the scan recorded, its ops most used
 * first, its findings most effort first, its CUDA-only dependencies. */
static json_t *scan_model(const mt_scan_view *sv, int64_t id, int64_t created)
{
	json_t *deps = json_array(), *m;
	struct op_item *inv;
	size_t ninv;
	char when[32];

	for (size_t i = 0; i < sv->ndeps; i++)
		if (sv->deps[i].cuda_only)
			json_array_append(deps, (json_t *)sv->deps[i].json);
	mt_time_iso(when, sizeof(when), created);
	inv = scan_inventory(sv, &ninv);
	m = json_pack("{sI, ss, so, so, sb, sI, sO, so, so, so, so, so, si}", "id", (json_int_t)id,
		      "created", when, "repo", str_or_null(sv->repo), "rev", str_or_null(sv->rev),
		      "worktree", sv->worktree, "files_scanned", (json_int_t)sv->files_scanned,
		      "totals", (json_t *)sv->totals_json, "top_ops",
		      top_items(inv, ninv, REPORT_SCAN_OPS, site_item), "top_ops_more",
		      more(ninv, REPORT_SCAN_OPS), "findings", sorted_findings(sv, REPORT_FINDINGS),
		      "findings_more", more(sv->nfindings, REPORT_FINDINGS), "cuda_only_dependencies",
		      deps, "files_skipped", (int)sv->nskipped);
	free(inv);
	if (!sv->has_method_ops)
		json_object_set_new(m, "top_ops_calls_only", json_true());
	if (sv->npaths) /* scan --path, scan.paths */
		json_object_set_new(m, "paths", strings_json(sv->paths, sv->npaths));
	if (sv->npaths_missing)
		json_object_set_new(m, "paths_missing",
				    strings_json(sv->paths_missing, sv->npaths_missing));
	return m;
}

/* The latest scan, summarised: what the report and the wizard show. */
/* The section's version: a change to what scan_model makes changes it, so
 * that a section kept by an older mtrial is made again. */
#define SCAN_SECTION_MEMO "report.scan/1:"

json_t *mt_model_probes_scan(mt_journal *j)
{
	json_t *r = NULL, *m;
	int64_t id = 0, created = 0;
	mt_scan_view sv;
	char *uid = NULL, *kept = NULL, *key = NULL;

	/* made once a scan and kept in the index: the summary it reads is
	 * megabytes on a large repository, the section tens of KB, and the
	 * wizard draws it before its first frame */
	if (mt_journal_scan_latest_uid(j, &id, &uid) == 1 && uid &&
	    asprintf(&key, SCAN_SECTION_MEMO "%s", uid) > 0 &&
	    mt_journal_memo_get(j, key, &kept) == 1 && (m = json_loads(kept, 0, NULL))) {
		free(kept), free(key), free(uid);
		return m;
	}
	mt_error_clear();
	free(kept);
	if (mt_journal_scan_latest(j, 0, &r, &id, &created) < 0) {
		mt_error_clear();
		free(key), free(uid);
		return json_null();
	}
	if (mt_scan_view_read(&sv, r) < 0)
		mt_error_clear(); /* an older record: what is there is shown */
	m = scan_model(&sv, id, created);
	mt_scan_view_dispose(&sv);
	json_decref(r);
	if (key && m && (kept = json_dumps(m, JSON_COMPACT)))
		mt_journal_memo_put(j, key, kept);
	free(kept), free(key), free(uid);
	return m;
}

/* The report lists this many ops per list of an exact source. */
#define REPORT_EXACT_OPS 30

/* The first `max` ops of l joined as "`a`, `b`" with "and N more". */
static json_t *op_list(const mt_opinventory_diff_list *l, size_t max)
{
	mt_buf b = MT_BUF_INIT;
	json_t *out;

	if (!l->n)
		return json_null();
	for (size_t i = 0; i < l->n; i++) {
		if (i == max) {
			mt_buf_printf(&b, " and %zu more", l->n - max);
			break;
		}
		mt_buf_printf(&b, "%s`%s`", i ? ", " : "", l->v[i].op);
	}
	out = json_string(mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	return out;
}

/* Sets m[key] to op_list(l) for Markdown and m[key + "_list"] to
 * {ops: the first REPORT_EXACT_OPS, more: how many are left or null} for
 * HTML, which marks each op up itself; both null for an empty list. */
static void set_op_list(json_t *m, const char *key, const mt_opinventory_diff_list *l)
{
	char list_key[64];
	json_t *ops;

	snprintf(list_key, sizeof(list_key), "%s_list", key);
	json_object_set_new(m, key, op_list(l, REPORT_EXACT_OPS));
	if (!l->n) {
		json_object_set_new(m, list_key, json_null());
		return;
	}
	ops = json_array();
	for (size_t i = 0; i < l->n && i < REPORT_EXACT_OPS; i++)
		json_array_append_new(ops, json_string(l->v[i].op));
	json_object_set_new(m, list_key,
			    json_pack("{so, so}", "ops", ops, "more", more(l->n, REPORT_EXACT_OPS)));
}

static json_t *shapes_item(const struct op_item *it)
{
	return json_pack("{ss, sI}", "op", it->op, "count", (json_int_t)it->count);
}

/* Ops whose input shapes varied in the trace's training steps (a new step
 * shape can mean a new graph to compile on the target), most shapes first;
 * null for none. */
static json_t *varying_shapes(const mt_opinventory_view *iv, size_t max)
{
	struct op_item *items = calloc(iv->nops + 1, sizeof(*items));
	size_t n = 0;
	json_t *arr;

	if (!items)
		return json_null();
	for (size_t i = 0; i < iv->nops; i++)
		if (iv->ops[i].distinct_shapes >= 2)
			items[n++] = (struct op_item){.op = iv->ops[i].name,
						      .count = iv->ops[i].distinct_shapes};
	arr = top_items(items, n, max, shapes_item);
	free(items);
	if (!json_array_size(arr)) {
		json_decref(arr);
		return json_null();
	}
	return arr;
}

/* The composites the scan names that the trace ran as other ops:
 * [{composite, ops: [...]}], at most REPORT_EXACT_OPS (then "more"); null
 * for none. */
static json_t *decomposed_items(const mt_opinventory_diff_view *d)
{
	json_t *items;

	if (!d->ndecomposed)
		return json_null();
	items = json_array();
	for (size_t i = 0; i < d->ndecomposed && i < REPORT_EXACT_OPS; i++)
		json_array_append_new(items, json_pack("{so, so}", "composite",
						       str_or_null(d->decomposed[i].composite), "ops",
						       strings_json(d->decomposed[i].ops,
								    d->decomposed[i].nops)));
	return json_pack("{so, so}", "items", items, "more", more(d->ndecomposed, REPORT_EXACT_OPS));
}

/* How the inventory differs from the scan, into m. */
static void diff_model(json_t *m, const char *source, json_t *scan, json_t *inv)
{
	mt_opinventory_diff_view dv;
	json_t *d = NULL;

	if (!scan || mt_opinventory_diff(&d, scan, inv) < 0)
		return;
	if (mt_opinventory_diff_view_read(&dv, d) < 0)
		mt_error_clear(); /* mt_opinventory_diff's own: complete */
	set_op_list(m, "missed_by_scan", &dv.missed_by_scan);
	set_op_list(m, "only_in_scan", &dv.only_a);
	set_op_list(m, "backward_only", &dv.backward_only);
	if (strcmp(source, "trace") == 0)
		json_object_set_new(m, "decomposed", decomposed_items(&dv));
	mt_opinventory_diff_view_dispose(&dv);
	json_decref(d);
}

/* The latest inventory of an exact source and how it differs from the
 * latest scan; null when none is recorded. */
static json_t *exact_model(mt_journal *j, const char *source, json_t *scan)
{
	mt_opinventory_view iv;
	json_t *inv = NULL, *m;
	int64_t id = 0;

	if (mt_journal_inventory_latest(j, source, &inv, &id) < 0) {
		mt_error_clear();
		return json_null();
	}
	if (mt_opinventory_view_read(&iv, inv) < 0)
		mt_error_clear(); /* an older record: what is there is shown */
	m = json_pack("{sI, so, si}", "id", (json_int_t)id, "file", str_or_null(iv.file), "ops",
		      (int)iv.nops);
	json_object_set(m, "detail", (json_t *)iv.detail);
	diff_model(m, source, scan, inv);
	if (strcmp(source, "trace") == 0)
		json_object_set_new(m, "varying_shapes", varying_shapes(&iv, 10));
	mt_opinventory_view_dispose(&iv);
	json_decref(inv);
	return m;
}

/* Both exact sources; null when neither is recorded. */
json_t *mt_model_probes_exact(mt_journal *j)
{
	json_t *scan = NULL, *ts, *tr;
	if (mt_journal_scan_latest(j, 1, &scan, NULL, NULL) < 0)
		mt_error_clear();
	ts = exact_model(j, "torchscript", scan);
	tr = exact_model(j, "trace", scan);
	json_decref(scan);
	if (json_is_null(ts) && json_is_null(tr))
		return json_null();
	return json_pack("{so, so}", "torchscript", ts, "trace", tr);
}

/* {path, mark, note} of a file marked in a track (a changed file, or a
 * stale mark's journal row). */
static json_t *mark_item(const char *path, const char *mark, const char *note)
{
	return json_pack("{ss?, ss?, so}", "path", path, "mark", mark, "note",
			 note ? json_string(note) : json_null());
}

/* A track's totals as mt_tracks_json orders them. */
static json_t *totals_json(const mt_track_view *tr)
{
	json_t *by_rule = json_object();

	for (size_t i = 0; i < tr->nby_rule; i++)
		json_object_set_new(by_rule, tr->by_rule[i].rule, json_integer(tr->by_rule[i].lines));
	return json_pack("{sI, sI, sI, sI, sI, s{sI, sI, sI}, so, s{sI, sI, sI}}", "files",
			 (json_int_t)tr->totals.files, "added", (json_int_t)tr->totals.added,
			 "deleted", (json_int_t)tr->totals.deleted, "platform",
			 (json_int_t)tr->totals.platform, "generic", (json_int_t)tr->totals.generic,
			 "by_kind", "model", (json_int_t)tr->totals.model, "harness",
			 (json_int_t)tr->totals.harness, "other", (json_int_t)tr->totals.other,
			 "by_rule", by_rule, "by_mark", "reusable", (json_int_t)tr->totals.reusable,
			 "model-specific", (json_int_t)tr->totals.model_specific, "unmarked",
			 (json_int_t)tr->totals.unmarked);
}

/* One track as the report shows it: name, base, head, totals (with
 * by_mark) and the marked files with their notes, or "unknown" saying why
 * the changes are not known; stale_marks either way. */
static json_t *track_item(const mt_track_view *tr)
{
	json_t *marked = json_array(), *stale = json_array();
	json_t *out = json_pack("{ss?}", "name", tr->name);
	size_t i;

	for (i = 0; i < tr->nfiles; i++)
		if (tr->files[i].mark)
			json_array_append_new(marked, mark_item(tr->files[i].path, tr->files[i].mark,
								tr->files[i].mark_note));
	for (i = 0; i < tr->nstale; i++)
		json_array_append_new(stale, mark_item(tr->stale[i].path, tr->stale[i].mark,
						       tr->stale[i].note));
	json_object_set_new(out, "marked", marked);
	json_object_set_new(out, "stale_marks", stale);
	if (tr->has_changes) {
		json_object_set_new(out, "totals", totals_json(tr));
		json_object_set_new(out, "base", tr->base ? json_string(tr->base) : json_null());
		json_object_set_new(out, "head", tr->head ? json_string(tr->head) : json_null());
	} else if (tr->error) {
		json_object_set_new(out, "unknown", json_string(tr->error));
	} else {
		json_object_set_new(out, "unknown", json_string("no base and head in trial.yaml"));
	}
	return out;
}

/* Each track's code changes (base..head of trial.yaml) with the files the
 * team marked reusable or model-specific, or why they are not known: what
 * `mtrial tracks --json` says (mt_tracks_json), cut to what the report
 * shows. */
json_t *mt_model_probes_tracks(mt_trial *t, int64_t now_ms)
{
	mt_tracks_rules *rules = NULL;
	json_t *all = NULL, *out;
	mt_track_view *v = NULL;
	size_t i, n = 0;

	if (!t->spec || mt_tracks_rules_load(&rules) < 0 ||
	    mt_tracks_json(&all, t, rules, now_ms) < 0) {
		mt_error_clear();
		mt_tracks_rules_free(rules);
		return json_null();
	}
	mt_tracks_rules_free(rules);
	if (mt_tracks_view_read(&v, &n, all) < 0)
		mt_error_clear(); /* the report shows what there is */
	out = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(out, track_item(&v[i]));
	mt_tracks_view_free(v, n);
	json_decref(all);
	return out;
}

/* The latest probe: the table it used, blockers first, unknowns as open
 * questions, by API when the table listed APIs (listed_by), else by op;
 * each entry's `name` is what it is listed by, `api_op` an API's aten op.
 * Entries on the device under a condition (a process group, a dtype) are
 * also in device_conditional, the others the team's override put there in
 * device_override. Call sites are cut to a few per entry. */
/* The share of the entries with no status known, beside the share
 * supported (which counts them as not supported), when there are any:
 * "0% supported" alone would read as a verdict no table gave. */
static void unknown_share(json_t *summary, const char *what)
{
	json_int_t n = json_integer_value(json_object_get(summary, what));
	json_int_t unknown = json_integer_value(json_object_get(summary, "unknown"));

	if (json_is_object(summary) && n > 0 && unknown > 0)
		json_object_set_new(summary, "unknown_percentage",
				    json_real(round(1000.0 * (double)unknown / (double)n) / 10));
}

json_t *mt_model_probes_probe(mt_journal *j)
{
	json_t *r = NULL, *by = json_object(), *list;
	const mt_probe_entry *e;
	int64_t id = 0, created = 0;
	mt_probe_view pv;
	char when[32];
	size_t i, n;

	if (mt_journal_probe_latest(j, &r, &id, &created) < 0) {
		mt_error_clear();
		json_decref(by);
		return json_null();
	}
	if (mt_probe_view_read(&pv, r) < 0)
		mt_error_clear(); /* an older record: what is there is shown */
	e = mt_probe_view_listed(&pv, &n);
	for (i = 0; i < n; i++, e++) {
		/* r is this function's own: its entries are passed on changed */
		json_t *o = (json_t *)e->json;
		const char *st = e->status ?: "";
		if (!(list = json_object_get(by, st)))
			json_object_set_new(by, st, list = json_array());
		json_array_append(list, o);
		if (!strcmp(st, "device") && e->nconditions) {
			if (!(list = json_object_get(by, "device_conditional")))
				json_object_set_new(by, "device_conditional", list = json_array());
			json_array_append(list, o);
		} else if (!strcmp(st, "device") && !strncmp(e->source ?: "", "override:", 9)) {
			if (!(list = json_object_get(by, "device_override")))
				json_object_set_new(by, "device_override", list = json_array());
			json_array_append(list, o);
		}
		json_object_set_new(o, "name", str_or_null(e->name));
		if (pv.by_api && e->op)
			json_object_set_new(o, "api_op", json_string(e->op));
		mt_probe_entry_cut_sites(o, 3); /* last: the view's sites borrow from them */
	}
	mt_time_iso(when, sizeof(when), created);
	json_object_set_new(r, "id", json_integer(id));
	json_object_set_new(r, "created", json_string(when));
	json_object_set_new(r, "by_status", by);
	json_object_set_new(r, "by_api", json_boolean(pv.by_api));
	unknown_share(json_object_get(r, "summary"), "ops");
	unknown_share(json_object_get(json_object_get(r, "summary"), "apis"), "apis");
	mt_probe_view_dispose(&pv);
	return r;
}
