/* A probe's result JSON -> mt_probe_view: the one place the result's keys
 * are read by the layers above (the CLI's text, the wizard's Ops step). */
#include "probe.h"
#include "jview.h"
#include "view_int.h"

#include <stdlib.h>
#include <string.h>

static void read_sites(mt_jview *v, mt_probe_entry *e)
{
	const json_t *locs = mt_jview_get(v, "locations"), *loc;
	size_t i;

	e->sites = mt_view_items(json_array_size(locs), sizeof(*e->sites));
	json_array_foreach(locs, i, loc) {
		mt_jview s;
		mt_jview_init(&s, loc, v->shape);
		e->sites[i].file = mt_jview_str(&s, "file");
		e->sites[i].line = mt_jview_int(&s, "line", 0);
		e->sites[i].col = mt_jview_int(&s, "col", 0);
		e->sites[i].certain = mt_jview_bool(&s, "certain", 1);
		mt_jview_close(&s, v);
	}
	e->nsites = json_array_size(locs);
}

/* One entry; `api` when the list is of APIs, whose keys differ. */
static void read_entry(mt_jview *parent, const json_t *obj, mt_probe_entry *e, int api)
{
	mt_jview v;

	mt_jview_init(&v, obj, parent->shape);
	e->api = api ? mt_jview_str(&v, "api") : NULL;
	e->op = mt_jview_str(&v, "op");
	e->name = api ? e->api : e->op;
	e->status = mt_jview_str(&v, "status");
	e->source = mt_jview_str(&v, "source");
	e->kind = api ? mt_jview_str(&v, "kind") : mt_jview_opt_str(&v, "kind");
	e->via = mt_jview_opt_str(&v, "via");
	e->receiver = mt_jview_opt_str(&v, "receiver");
	e->notes = mt_jview_str(&v, "notes");
	e->count = mt_jview_int(&v, "count", 0);
	e->certain = mt_jview_bool(&v, "certain", 1);
	e->conditions = mt_view_strings(mt_jview_get(&v, "conditions"), &e->nconditions);
	e->apis = mt_view_strings(api ? NULL : mt_jview_get(&v, "apis"), &e->napis);
	read_sites(&v, e);
	e->json = obj;
	mt_jview_close(&v, parent);
}

static mt_probe_entry *read_entries(mt_jview *v, const char *key, size_t *n)
{
	const json_t *arr = mt_jview_get(v, key), *x;
	mt_probe_entry *e = mt_view_items(json_array_size(arr), sizeof(*e));
	size_t i;

	json_array_foreach(arr, i, x)
		read_entry(v, x, &e[i], strcmp(key, "apis") == 0);
	*n = json_array_size(arr);
	return e;
}

/* The counts under summary (`what` "ops") or summary.apis ("apis"). */
static void read_counts(mt_jview *v, const char *what, mt_probe_counts *c)
{
	c->entries = mt_jview_int(v, what, 0);
	c->device = mt_jview_int(v, "device", 0);
	c->partial = mt_jview_int(v, "partial", 0);
	c->cpu_fallback = mt_jview_int(v, "cpu_fallback", 0);
	c->unsupported = mt_jview_int(v, "unsupported", 0);
	c->unknown = mt_jview_int(v, "unknown", 0);
	c->uncertain = mt_jview_int(v, "uncertain", 0);
	c->support_percentage = mt_jview_num(v, "support_percentage");
}

static void read_table(mt_jview *v, mt_probe_view *p)
{
	mt_jview t;

	mt_jview_sub(&t, v, "table");
	p->table_name = mt_jview_str(&t, "name");
	p->table_backend = mt_jview_str(&t, "backend");
	p->table_version = mt_jview_str(&t, "version");
	p->table_kind = mt_jview_str(&t, "kind");
	p->table_source = mt_jview_str(&t, "source");
	p->table_retrieved = mt_jview_str(&t, "retrieved");
	mt_jview_close(&t, v);
}

static void read_from(mt_jview *v, mt_probe_view *p)
{
	mt_jview f;

	mt_jview_sub(&f, v, "from");
	p->from = f.obj;
	p->from_source = mt_jview_str(&f, "source");
	p->from_file = mt_jview_opt_str(&f, "file");
	p->from_paths = mt_view_strings(mt_jview_opt_get(&f, "paths"), &p->nfrom_paths);
	mt_jview_close(&f, v);
}

static void read_rules(mt_jview *v, mt_probe_view *p)
{
	const json_t *arr = mt_jview_get(v, "rules"), *x;
	size_t i;

	p->rules = mt_view_items(json_array_size(arr), sizeof(*p->rules));
	json_array_foreach(arr, i, x) {
		mt_jview r;
		mt_jview_init(&r, x, v->shape);
		if ((p->rules[p->nrules] = mt_jview_str(&r, "text")))
			p->nrules++;
		mt_jview_close(&r, v);
	}
}

int mt_probe_view_read(mt_probe_view *p, const json_t *res)
{
	mt_jview v, s, a;
	const char *listed;

	memset(p, 0, sizeof(*p));
	mt_jview_init(&v, res, "probe result");
	read_table(&v, p);
	listed = mt_jview_str(&v, "listed_by");
	p->by_api = listed && strcmp(listed, "api") == 0;
	p->repo = mt_jview_opt_str(&v, "repo");
	p->rev = mt_jview_opt_str(&v, "rev");
	/* mt_probe_trial's answer says probe_id; a record read back, its id */
	p->probe_id = mt_jview_opt_int(&v, "probe_id", 0);
	if (!p->probe_id)
		p->probe_id = mt_jview_opt_int(&v, "id", 0);
	read_from(&v, p);
	read_rules(&v, p);
	p->ops = read_entries(&v, "ops", &p->nops);
	p->apis = read_entries(&v, "apis", &p->napis);
	mt_jview_sub(&s, &v, "summary");
	read_counts(&s, "ops", &p->op_counts);
	mt_jview_sub(&a, &s, "apis");
	read_counts(&a, "apis", &p->api_counts);
	mt_jview_close(&a, &s);
	mt_jview_close(&s, &v);
	mt_jview_sub(&s, &v, "from");
	p->from_inventory_id = mt_jview_opt_int(&s, "inventory_id", -1);
	p->from_steps = mt_jview_opt_int(&s, "steps", -1);
	mt_jview_close(&s, &v);
	return mt_jview_complete(&v);
}

static void entries_dispose(mt_probe_entry *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++) {
		free(e[i].conditions);
		free(e[i].apis);
		free(e[i].sites);
	}
	free(e);
}

void mt_probe_view_dispose(mt_probe_view *p)
{
	if (!p)
		return;
	entries_dispose(p->ops, p->nops);
	entries_dispose(p->apis, p->napis);
	free(p->from_paths);
	free(p->rules);
	memset(p, 0, sizeof(*p));
}

const mt_probe_entry *mt_probe_view_listed(const mt_probe_view *p, size_t *n)
{
	*n = p->by_api ? p->napis : p->nops;
	return p->by_api ? p->apis : p->ops;
}

const mt_probe_counts *mt_probe_view_listed_counts(const mt_probe_view *p)
{
	return p->by_api ? &p->api_counts : &p->op_counts;
}

int64_t mt_probe_counts_of(const mt_probe_counts *c, const char *status)
{
	static const char *const names[] = {"device", "partial", "cpu_fallback", "unsupported",
					    "unknown"};
	const int64_t v[] = {c->device, c->partial, c->cpu_fallback, c->unsupported, c->unknown};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i], status) == 0)
			return v[i];
	return 0;
}

void mt_probe_entry_cut_sites(json_t *entry, size_t max)
{
	json_t *locs = json_object_get(entry, "locations");

	while (json_array_size(locs) > max)
		json_array_remove(locs, json_array_size(locs) - 1);
}
