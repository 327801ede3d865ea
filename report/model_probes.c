/* The report model's sections over what the scan, the exact inventories,
 * the tracks and the probe recorded. */
#include "model_int.h"
#include "error.h"
#include "jsonutil.h"
#include "opinventory.h"
#include "tracks.h"

#include <stdlib.h>
#include <string.h>

static int op_count_desc(const void *a, const void *b)
{
	json_int_t ca = json_integer_value(json_object_get(*(json_t *const *)a, "count"));
	json_int_t cb = json_integer_value(json_object_get(*(json_t *const *)b, "count"));
	const char *na = json_string_value(json_object_get(*(json_t *const *)a, "op"));
	const char *nb = json_string_value(json_object_get(*(json_t *const *)b, "op"));
	if (ca != cb || !na || !nb)
		return (cb > ca) - (cb < ca);
	return strcmp(na, nb); /* ties by name: the same order on every machine */
}

/* Items made from the ops of an inventory by `item` (NULL: left out), most
 * counted first, at most `max`. */
static json_t *top_items(json_t *ops, size_t max, json_t *(*item)(const char *, json_t *))
{
	json_t **items = malloc((json_object_size(ops) + 1) * sizeof(*items)), *arr = json_array();
	const char *name;
	json_t *v;
	size_t n = 0;

	json_object_foreach(ops, name, v)
		if ((items[n] = item(name, v)))
			n++;
	qsort(items, n, sizeof(*items), op_count_desc);
	for (size_t i = 0; i < n; i++) {
		if (i < max)
			json_array_append(arr, items[i]);
		json_decref(items[i]);
	}
	free(items);
	return arr;
}

/* An op of scan_inventory: its sites of both kinds as `count`, as the probe
 * counts them, and each kind apart. */
static json_t *site_item(const char *name, json_t *v)
{
	return json_pack("{ss, sO, sO, sO, sO, si}", "op", name, "count", json_object_get(v, "count"),
			 "calls", json_object_get(v, "calls"), "methods", json_object_get(v, "methods"),
			 "uncertain", json_object_get(v, "uncertain"), "files",
			 (int)json_object_size(json_object_get(v, "files")));
}

/* The entry of op in inv, made when absent: {count, calls, methods,
 * uncertain, files {name: true}}. */
static json_t *inventory_entry(json_t *inv, const char *op)
{
	json_t *e = json_object_get(inv, op);

	if (!e) {
		e = json_pack("{si, si, si, si, s{}}", "count", 0, "calls", 0, "methods", 0,
			      "uncertain", 0, "files");
		json_object_set_new(inv, op, e);
	}
	return e;
}

static void add_to(json_t *e, const char *key, json_int_t n)
{
	json_object_set_new(e, key, json_integer(json_integer_value(json_object_get(e, key)) + n));
}

/* Adds the ops of one kind of site (the summary's `ops` or `method_ops`)
 * to inv under `key`, with their files. */
static void add_sites(json_t *inv, json_t *ops, const char *key)
{
	json_t *v, *f, *e;
	const char *op;
	size_t k;

	json_object_foreach(ops, op, v) {
		json_int_t n = json_integer_value(json_object_get(v, "count"));
		e = inventory_entry(inv, op);
		add_to(e, key, n);
		add_to(e, "count", n);
		add_to(e, "uncertain", json_integer_value(json_object_get(v, "uncertain")));
		json_array_foreach(json_object_get(v, "files"), k, f)
			if (json_is_string(f))
				json_object_set_new(json_object_get(e, "files"), json_string_value(f), json_true());
	}
}

/* A scan's ops at torch calls and at tensor method calls together, as the
 * probe judges them: the ops section must not list one count and the
 * compatibility section another for the same op. (A scan recorded before
 * method_ops has the torch calls only; the template says so.) */
static json_t *scan_inventory(json_t *r)
{
	json_t *inv = json_object();

	add_sites(inv, json_object_get(r, "ops"), "calls");
	add_sites(inv, json_object_get(r, "method_ops"), "methods");
	return inv;
}

static const char *const effort_order[] = {"high", "medium", "low", "none", NULL};

/* The report lists this many of a scan's ops, most used first; the rest
 * are counted (the scan's JSON has them all). */
#define REPORT_SCAN_OPS 30

/* The report lists this many findings, most effort first; the rest are
 * counted (the scan's JSON has them all). */
#define REPORT_FINDINGS 50

/* Findings, most effort first (stable within a level), at most `max`. */
static json_t *sorted_findings(json_t *findings, size_t max)
{
	json_t *arr = json_array(), *f;
	size_t i;
	for (const char *const *e = effort_order; *e; e++)
		json_array_foreach(findings, i, f)
			if (json_array_size(arr) < max &&
			    strcmp(json_string_value(json_object_get(f, "effort")), *e) == 0)
				json_array_append(arr, f);
	return arr;
}

/* The latest scan, summarised: what the report and the wizard show. */
json_t *mt_model_probes_scan(mt_journal *j)
{
	json_t *r = NULL, *deps = json_array(), *d, *m, *inv;
	int64_t id = 0, created = 0;
	char when[32];
	size_t i;

	if (mt_journal_scan_latest(j, 0, &r, &id, &created) < 0) {
		mt_error_clear();
		json_decref(deps);
		return json_null();
	}
	json_array_foreach(json_object_get(r, "dependencies"), i, d)
		if (json_is_true(json_object_get(d, "cuda_only")))
			json_array_append(deps, d);
	mt_time_iso(when, sizeof(when), created);
	inv = scan_inventory(r);
	m = json_pack("{sI, ss, sO, sO, sO, sO, sO, so, so, so, so, so, si}", "id", (json_int_t)id,
		      "created", when, "repo", json_object_get(r, "repo"), "rev",
		      json_object_get(r, "rev"), "worktree", json_object_get(r, "worktree"),
		      "files_scanned", json_object_get(r, "files_scanned"), "totals",
		      json_object_get(r, "totals"), "top_ops",
		      top_items(inv, REPORT_SCAN_OPS, site_item), "top_ops_more",
		      json_object_size(inv) > REPORT_SCAN_OPS
			      ? json_integer((json_int_t)(json_object_size(inv) - REPORT_SCAN_OPS))
			      : json_null(),
		      "findings",
		      sorted_findings(json_object_get(r, "findings"), REPORT_FINDINGS),
		      "findings_more", /* null, not 0: a section shows for any number */
		      json_array_size(json_object_get(r, "findings")) > REPORT_FINDINGS
			      ? json_integer((json_int_t)(json_array_size(json_object_get(r, "findings")) -
							  REPORT_FINDINGS))
			      : json_null(),
		      "cuda_only_dependencies",
		      deps, "files_skipped", (int)json_array_size(json_object_get(r, "files_skipped")));
	json_decref(inv);
	if (!json_object_get(r, "method_ops"))
		json_object_set_new(m, "top_ops_calls_only", json_true());
	if (json_array_size(json_object_get(r, "paths"))) /* scan --path, scan.paths */
		json_object_set(m, "paths", json_object_get(r, "paths"));
	if (json_array_size(json_object_get(r, "paths_missing")))
		json_object_set(m, "paths_missing", json_object_get(r, "paths_missing"));
	json_decref(r);
	return m;
}

/* The report lists this many ops per list of an exact source. */
#define REPORT_EXACT_OPS 30

/* The first `max` strings of arr joined as "`a`, `b`" with "and N more". */
static json_t *op_list(json_t *arr, size_t max)
{
	mt_buf b = MT_BUF_INIT;
	json_t *v, *out;
	size_t i;

	if (!json_array_size(arr))
		return json_null();
	json_array_foreach(arr, i, v) {
		if (i == max) {
			mt_buf_printf(&b, " and %zu more", json_array_size(arr) - max);
			break;
		}
		mt_buf_printf(&b, "%s`%s`", i ? ", " : "", json_string_value(v));
	}
	out = json_string(mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	return out;
}

/* Sets m[key] to op_list(arr) for Markdown and m[key + "_list"] to
 * {ops: the first REPORT_EXACT_OPS, more: how many are left or null} for
 * HTML, which marks each op up itself; both null for an empty list. */
static void set_op_list(json_t *m, const char *key, json_t *arr)
{
	char list_key[64];
	size_t n = json_array_size(arr);
	json_t *ops;

	snprintf(list_key, sizeof(list_key), "%s_list", key);
	json_object_set_new(m, key, op_list(arr, REPORT_EXACT_OPS));
	if (!n) {
		json_object_set_new(m, list_key, json_null());
		return;
	}
	ops = json_array();
	for (size_t i = 0; i < n && i < REPORT_EXACT_OPS; i++)
		json_array_append(ops, json_array_get(arr, i));
	json_object_set_new(m, list_key,
			    json_pack("{so, so}", "ops", ops, "more",
				      n > REPORT_EXACT_OPS ? json_integer((json_int_t)(n - REPORT_EXACT_OPS))
							   : json_null()));
}

static json_t *shapes_item(const char *name, json_t *v)
{
	if (json_integer_value(json_object_get(v, "distinct_shapes")) < 2)
		return NULL;
	return json_pack("{ss, sO}", "op", name, "count", json_object_get(v, "distinct_shapes"));
}

/* Ops whose input shapes varied in the trace's training steps (a new step
 * shape can mean a new graph to compile on the target), most shapes first. */
static json_t *varying_shapes(json_t *ops, size_t max)
{
	return top_items(ops, max, shapes_item);
}

/* The composites the scan names that the trace ran as other ops:
 * [{composite, ops: [...]}], at most REPORT_EXACT_OPS (then "more"); null
 * for none. */
static json_t *decomposed_items(json_t *d)
{
	json_t *names = json_object_get(d, "decomposed"), *map = json_object_get(d, "decompositions");
	json_t *items, *v;
	size_t i, n = json_array_size(names);

	if (!n)
		return json_null();
	items = json_array();
	json_array_foreach(names, i, v) {
		if (i == REPORT_EXACT_OPS)
			break;
		json_array_append_new(items, json_pack("{sO, sO}", "composite", v, "ops",
						       json_object_get(map, json_string_value(v))
							       ?: json_array()));
	}
	return json_pack("{so, so}", "items", items, "more",
			 n > REPORT_EXACT_OPS ? json_integer((json_int_t)(n - REPORT_EXACT_OPS))
					      : json_null());
}

/* The latest inventory of an exact source and how it differs from the
 * latest scan; null when none is recorded. */
static json_t *exact_model(mt_journal *j, const char *source, json_t *scan)
{
	json_t *inv = NULL, *d = NULL, *m;
	int64_t id = 0;

	if (mt_journal_inventory_latest(j, source, &inv, &id) < 0) {
		mt_error_clear();
		return json_null();
	}
	m = json_pack("{sI, sO, si}", "id", (json_int_t)id, "file", json_object_get(inv, "file"),
		      "ops", (int)json_object_size(json_object_get(inv, "ops")));
	json_object_set(m, "detail", json_object_get(inv, source));
	if (scan && mt_opinventory_diff(&d, scan, inv) == 0) {
		set_op_list(m, "missed_by_scan", json_object_get(d, "missed_by_scan"));
		set_op_list(m, "only_in_scan", json_object_get(d, "only_a"));
		set_op_list(m, "backward_only", json_object_get(d, "backward_only"));
		if (strcmp(source, "trace") == 0)
			json_object_set_new(m, "decomposed", decomposed_items(d));
		json_decref(d);
	}
	if (strcmp(source, "trace") == 0) {
		json_t *shapes = varying_shapes(json_object_get(inv, "ops"), 10);
		json_object_set_new(m, "varying_shapes",
				    json_array_size(shapes) ? json_incref(shapes) : json_null());
		json_decref(shapes);
	}
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
json_t *mt_model_probes_probe(mt_journal *j)
{
	json_t *r = NULL, *by = json_object(), *o, *list;
	int64_t id = 0, created = 0;
	char when[32];
	size_t i;
	int by_api;

	if (mt_journal_probe_latest(j, &r, &id, &created) < 0) {
		mt_error_clear();
		json_decref(by);
		return json_null();
	}
	by_api = !strcmp(json_string_value(json_object_get(r, "listed_by")) ?: "op", "api");
	json_array_foreach(json_object_get(r, by_api ? "apis" : "ops"), i, o) {
		const char *st = json_string_value(json_object_get(o, "status"));
		json_t *locs = json_object_get(o, "locations");
		if (!(list = json_object_get(by, st)))
			json_object_set_new(by, st, list = json_array());
		json_array_append(list, o);
		if (!strcmp(st, "device") && json_array_size(json_object_get(o, "conditions"))) {
			if (!(list = json_object_get(by, "device_conditional")))
				json_object_set_new(by, "device_conditional", list = json_array());
			json_array_append(list, o);
		} else if (!strcmp(st, "device") &&
			   !strncmp(json_string_value(json_object_get(o, "source")) ?: "",
				    "override:", 9)) {
			if (!(list = json_object_get(by, "device_override")))
				json_object_set_new(by, "device_override", list = json_array());
			json_array_append(list, o);
		}
		while (json_array_size(locs) > 3)
			json_array_remove(locs, json_array_size(locs) - 1);
		json_object_set(o, "name", json_object_get(o, by_api ? "api" : "op"));
		if (by_api && json_is_string(json_object_get(o, "op")))
			json_object_set(o, "api_op", json_object_get(o, "op"));
	}
	mt_time_iso(when, sizeof(when), created);
	json_object_set_new(r, "id", json_integer(id));
	json_object_set_new(r, "created", json_string(when));
	json_object_set_new(r, "by_status", by);
	json_object_set_new(r, "by_api", json_boolean(by_api));
	return r;
}
