#include "probe.h"
#include "error.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tables say how many APIs name one op in a handful at most; past this the
 * first ones decide (table order). */
#define MAX_NAMING 16

/* Position in mt_compat_status_order: what blocks a migration first. */
static int rank(mt_compat_status s)
{
	const char *name = mt_compat_status_str(s);
	int i = 0;
	while (mt_compat_status_order[i] && strcmp(mt_compat_status_order[i], name) != 0)
		i++;
	return i;
}

static json_t *strv_json(const char *const *v)
{
	json_t *arr = json_array();
	for (; v && *v; v++)
		json_array_append_new(arr, json_string(*v));
	return arr;
}

/* "int64, bfloat16" */
static void strv_join(mt_buf *b, const char *const *v)
{
	for (size_t i = 0; v && v[i]; i++)
		mt_buf_printf(b, "%s%s", i ? ", " : "", v[i]);
}

static int in_strv(const char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return 1;
	return 0;
}

/* A group of call sites: {count, uncertain, apis {}, callers {}, locations
 * []}. */
static json_t *group_of(json_t *groups, const char *key)
{
	json_t *e = json_object_get(groups, key);
	if (!e) {
		e = json_pack("{sI, sI, s{}, s{}, s[]}", "count", (json_int_t)0, "uncertain",
			      (json_int_t)0, "apis", "callers", "locations");
		json_object_set_new(groups, key, e);
	}
	return e;
}

/* Counts one site in its group. A scan's method site with certain false
 * (its receiver may not be a tensor) counts in `uncertain` too, and its
 * location says so; a site without the member (a trace, a TorchScript
 * archive) is certain. */
static void add_site(json_t *e, json_t *site)
{
	int uncertain = json_is_false(json_object_get(site, "certain"));
	json_t *col = json_object_get(site, "col");

	json_integer_set(json_object_get(e, "uncertain"),
			 json_integer_value(json_object_get(e, "uncertain")) + uncertain);
	/* a trace's site stands for `count` dispatches and has no file */
	json_integer_set(json_object_get(e, "count"),
			 json_integer_value(json_object_get(e, "count")) +
				 (json_is_integer(json_object_get(site, "count"))
					  ? json_integer_value(json_object_get(site, "count"))
					  : 1));
	if (json_is_string(json_object_get(site, "file")))
		json_array_append_new(json_object_get(e, "locations"),
				      json_pack("{sO, sO, sO, sb}", "file",
						json_object_get(site, "file"), "line",
						json_object_get(site, "line"), "col",
						col ? col : json_null(), "certain", !uncertain));
}

/* Groups call sites by op: {op: {count, uncertain, apis {}, callers {},
 * locations []}}: apis as the sites name them (a method by its name),
 * callers the public APIs they resolved to (a method under `prefix`). */
static void add_sites(json_t *by_op, json_t *sites, const char *name_key, const char *prefix)
{
	json_t *site;
	size_t i;
	char api[512];

	json_array_foreach(sites, i, site) {
		const char *op = json_string_value(json_object_get(site, "op"));
		const char *name = json_string_value(json_object_get(site, name_key));
		json_t *e;
		if (!op)
			continue;
		add_site(e = group_of(by_op, op), site);
		if (!name)
			continue;
		json_object_set_new(json_object_get(e, "apis"), name, json_true());
		snprintf(api, sizeof(api), "%s%s", prefix, name);
		if (!strstr(name, "::"))
			json_object_set_new(json_object_get(e, "callers"), api, json_true());
	}
}

/* Groups call sites by the public API they resolved to, a method call
 * under `prefix` (torch.Tensor.): {api: {count, uncertain, op, method,
 * locations}}. Sites named by an op (a trace's, a graph's "aten::x") name
 * no API, and calls the scan resolved to no op still do (all_reduce). */
static void add_api_sites(json_t *by_api, json_t *sites, const char *name_key,
			  const char *prefix)
{
	json_t *site;
	size_t i;
	char api[512];

	json_array_foreach(sites, i, site) {
		const char *name = json_string_value(json_object_get(site, name_key));
		json_t *op = json_object_get(site, "op"), *e;
		if (!name || strstr(name, "::"))
			continue;
		snprintf(api, sizeof(api), "%s%s", prefix, name);
		add_site(e = group_of(by_api, api), site);
		if (json_is_string(op) && !json_object_get(e, "op"))
			json_object_set(e, "op", op);
		if (*prefix)
			json_object_set_new(e, "method", json_true());
	}
}

/* The first override for op, or for its base name (aten::add for
 * aten::add.Tensor); with is_api, the first for that API (no base:
 * torch.Tensor.add is no overload of torch.Tensor). */
static const mt_probe_override *override_for(const mt_probe_inputs *in, int is_api,
					     const char *name, size_t *index)
{
	const char *dot = is_api ? NULL : strchr(name, '.');
	size_t base = dot ? (size_t)(dot - name) : strlen(name);

	for (size_t i = 0; i < in->noverrides; i++) {
		const mt_probe_override *o = &in->overrides[i];
		const char *n = o->name ? o->name : "";
		if (!o->is_api != !is_api)
			continue;
		if (strcmp(n, name) == 0 || (strlen(n) == base && strncmp(n, name, base) == 0)) {
			*index = i;
			return o;
		}
	}
	return NULL;
}

static void set_result(json_t *entry, const char *status, const char *source, json_t *conditions,
		       json_t *notes)
{
	json_object_set_new(entry, "status", json_string(status));
	json_object_set_new(entry, "source", json_string(source));
	json_object_set_new(entry, "conditions", conditions);
	json_object_set_new(entry, "notes", notes ? notes : json_null());
}

/* Sets entry from the override ov (index oi in the list): 1, or an error
 * for a status no override can have. */
static int from_override_entry(json_t *entry, const mt_probe_override *ov, size_t oi,
			       const char *name)
{
	char source[512];
	int st;

	st = mt_compat_status_parse(ov->status ? ov->status : "");
	if (st < 0)
		return mt_error_set(MT_EINVALID, "trial.yaml: override for %s: unknown status '%s'",
				    name, ov->status ? ov->status : "");
	if (ov->source)
		snprintf(source, sizeof(source), "%s", ov->source);
	else
		snprintf(source, sizeof(source), "override:trial.yaml#%zu", oi + 1);
	set_result(entry, mt_compat_status_str(st), source, json_array(),
		   ov->note ? json_string(ov->note) : NULL);
	return 1;
}

static int override_rank(const mt_probe_override *ov)
{
	return rank(mt_compat_status_parse(ov->status ? ov->status : ""));
}

/* An op reached only by calls of APIs the team has overridden follows
 * them, the worst of them when they differ (as an op follows the table's
 * API entries); 1 when they decide. */
static int from_api_overrides(json_t *entry, const mt_probe_inputs *in, json_t *callers)
{
	const mt_probe_override *ov, *worst = NULL;
	json_t *v;
	size_t oi = 0, worst_i = 0;
	const char *api, *worst_api = NULL;
	int r;

	json_object_foreach(callers, api, v) {
		if (!(ov = override_for(in, 1, api, &oi)))
			return 0;
		if (!worst || override_rank(ov) < override_rank(worst)) {
			worst = ov;
			worst_i = oi;
			worst_api = api;
		}
	}
	if (!worst)
		return 0;
	if ((r = from_override_entry(entry, worst, worst_i, worst_api)) > 0)
		json_object_set_new(entry, "via", json_string(worst_api));
	return r;
}

/* The team's override: for an API, its own, else its op's; for an op, its
 * own, else those of the APIs whose calls reached it. 1 when one decides. */
static int from_override(json_t *entry, const mt_probe_inputs *in, const char *api,
			 const char *op, json_t *callers)
{
	const mt_probe_override *ov;
	size_t oi = 0;

	if (api && (ov = override_for(in, 1, api, &oi)))
		return from_override_entry(entry, ov, oi, api);
	if (op && (ov = override_for(in, 0, op, &oi)))
		return from_override_entry(entry, ov, oi, op);
	return api ? 0 : from_api_overrides(entry, in, callers);
}

/* The dtypes the inventory saw op with (its tensors' and its constant
 * dtype arguments), keyed by base name as inventories are; NULL when it
 * knows none (a static scan). New reference. */
static json_t *dtypes_seen(const mt_probe_inputs *in, const char *op)
{
	char base[256];
	json_t *e, *all = json_array(), *v;
	size_t i;

	snprintf(base, sizeof(base), "%.*s", (int)strcspn(op, "."), op);
	e = json_object_get(in->inventory_ops, op) ?: json_object_get(in->inventory_ops, base);
	json_array_foreach(json_object_get(e, "dtypes"), i, v)
		json_array_append(all, v);
	json_array_foreach(json_object_get(e, "dtype_args"), i, v)
		json_array_append(all, v);
	if (!json_array_size(all)) {
		json_decref(all);
		return NULL;
	}
	return all;
}

/* A CPU fallback the table limits to some dtypes holds only when the op
 * was seen with one of them; seen only with others it runs on the device.
 * Without dtypes (a static scan) the fallback stays, under its condition,
 * which is appended to conds. Returns the status that holds. */
static mt_compat_status limit_by_dtypes(mt_compat_status st, const char *const *limited,
					json_t *seen, json_t *conds)
{
	mt_buf b = MT_BUF_INIT, saw = MT_BUF_INIT;
	int hit = 0;
	json_t *v;
	size_t i;

	if (st != MT_COMPAT_CPU_FALLBACK || !limited || !*limited)
		return st;
	json_array_foreach(seen, i, v) {
		hit |= in_strv(limited, json_string_value(v));
		mt_buf_printf(&saw, "%s%s", i ? ", " : "", json_string_value(v));
	}
	mt_buf_puts(&b, "CPU fallback only for ");
	strv_join(&b, limited);
	if (!seen)
		mt_buf_puts(&b, "; the dtypes it runs with are not known here");
	else if (hit)
		mt_buf_printf(&b, "; seen with %s", mt_buf_cstr(&saw));
	else
		mt_buf_printf(&b, "; seen only with %s, which run on the device",
			      mt_buf_cstr(&saw));
	json_array_append_new(conds, json_string(mt_buf_cstr(&b)));
	mt_buf_dispose(&b);
	mt_buf_dispose(&saw);
	return seen && !hit ? MT_COMPAT_DEVICE : st;
}

/* What a supported API's kind asks of the code, as a condition. */
static const char *kind_condition(mt_compat_api_kind k)
{
	switch (k) {
	case MT_COMPAT_API_HOST_ONLY:
		return "host-only: runs in Python on the host and does no device work";
	case MT_COMPAT_API_PROCESS_GROUP:
		return "needs a process group: torch.distributed.init_process_group first";
	default:
		return NULL;
	}
}

/* Sets entry from a table's API entry: its kind, its dtype limit, then its
 * own conditions. */
static void from_api_entry(json_t *entry, const mt_compat_table *t, const char *kind,
			   const mt_compat_api *a, json_t *seen)
{
	json_t *conds = json_array(), *own = strv_json(a->conditions);
	mt_compat_status st = a->status;
	char source[512];

	if (kind_condition(a->kind))
		json_array_append_new(conds, json_string(kind_condition(a->kind)));
	st = limit_by_dtypes(st, a->fallback_dtypes, seen, conds);
	json_array_extend(conds, own);
	json_decref(own);
	snprintf(source, sizeof(source), "%s:%s:%u", kind, mt_compat_name(t), a->line);
	set_result(entry, mt_compat_status_str(st), source, conds,
		   a->notes ? json_string(a->notes) : NULL);
	json_object_set_new(entry, "kind", mt_compat_api_kind_str(a->kind)
						   ? json_string(mt_compat_api_kind_str(a->kind))
						   : json_null());
}

static void from_op_entry(json_t *entry, const mt_compat_table *t, const char *kind,
			  const mt_compat_op *o, json_t *seen)
{
	json_t *conds = json_array(), *own = strv_json(o->conditions);
	mt_compat_status st = limit_by_dtypes(o->status, o->dtypes_fallback, seen, conds);
	char source[512];

	json_array_extend(conds, own);
	json_decref(own);
	snprintf(source, sizeof(source), "%s:%s:%u", kind, mt_compat_name(t), o->line);
	set_result(entry, mt_compat_status_str(st), source, conds,
		   o->notes ? json_string(o->notes) : NULL);
}

/* The one of a and b that blocks most (a among equals: table order). */
static const mt_compat_api *worse(const mt_compat_api *a, const mt_compat_api *b)
{
	return !a || (b && rank(b->status) < rank(a->status)) ? b : a;
}

/* Of the table's API entries that list no op of their own, the worst of
 * those whose API runs op by the API map (torch.nn.functional.linear for
 * aten::linear, which torch.nn.Linear's forward runs too); NULL when none
 * or no map. An overload matches its base name. */
static const mt_compat_api *worst_running(const mt_compat_table *t, const mt_opmap *map,
					  const char *op)
{
	const mt_compat_api *worst = NULL, *a;
	size_t base = strcspn(op, ".");

	for (size_t i = 0; map && i < mt_compat_napis(t); i++) {
		const char *runs;
		if ((a = mt_compat_api_at(t, i))->ops[0] || !(runs = mt_opmap_api(map, a->api, NULL)))
			continue;
		if (strcmp(runs, op) == 0 || (strlen(runs) == base && !strncmp(runs, op, base)))
			worst = worse(worst, a);
	}
	return worst;
}

/* Of the API entries naming op, else of the entries of the APIs whose
 * calls reached it (`callers`), else of the entries whose API runs op by
 * the API map, the one that blocks most (table order among equals): an op
 * two APIs reach is only as good as the worse. */
static const mt_compat_api *worst_naming(const mt_compat_table *t, const mt_opmap *map,
					 const char *op, json_t *callers)
{
	const mt_compat_api *naming[MAX_NAMING], *worst = NULL;
	size_t n = mt_compat_apis_naming(t, op, naming, MAX_NAMING);
	const char *api;
	json_t *v;

	for (size_t i = 0; i < n && i < MAX_NAMING; i++)
		worst = worse(worst, naming[i]);
	if (worst)
		return worst;
	json_object_foreach(callers, api, v)
		worst = worse(worst, mt_compat_lookup_api(t, api));
	return worst ? worst : worst_running(t, map, op);
}

/* The table's word on a site: the API's entry, else the op's, else an API
 * entry naming the op or running it. 1 when the table has one. */
static int from_table(json_t *entry, const mt_compat_table *t, const mt_opmap *map,
		      const char *kind, const char *api, const char *op, json_t *seen,
		      json_t *callers)
{
	const mt_compat_api *a = api ? mt_compat_lookup_api(t, api) : NULL;
	const mt_compat_op *o = !a && op ? mt_compat_lookup(t, op) : NULL;

	if (a) {
		from_api_entry(entry, t, kind, a, seen);
		return 1;
	}
	if (o) {
		from_op_entry(entry, t, kind, o, seen);
		return 1;
	}
	if (!op || !(a = worst_naming(t, map, op, callers)))
		return 0;
	from_api_entry(entry, t, kind, a, seen);
	/* the kind is that other API's: this one's is not known */
	if (api)
		json_object_set_new(entry, "kind", json_null());
	else
		json_object_del(entry, "kind");
	json_object_set_new(entry, "via", json_string(a->api));
	return 1;
}

/* Decides one op (api NULL; callers the APIs whose calls reached it) or
 * one API (op may be NULL): status, source, conditions, notes. Observed >
 * override > table > unknown. */
static int decide(json_t *entry, const mt_probe_inputs *in, const char *api, const char *op,
		  json_t *callers)
{
	json_t *seen = op ? dtypes_seen(in, op) : NULL;
	int r = 0;

	if (seen && !api)
		json_object_set(entry, "dtypes", seen);
	if (in->observed && from_table(entry, in->observed, in->opmap, "observed", api, op, seen, callers))
		goto done;
	if ((r = from_override(entry, in, api, op, callers)) != 0)
		goto done;
	if (from_table(entry, in->table, in->opmap, "table", api, op, seen, callers))
		goto done;
	set_result(entry, "unknown", "none", json_array(), NULL);
done:
	json_decref(seen);
	return r < 0 ? r : 0;
}

/* Blockers first, then by count, then by name (the member `key`). */
static int compare_items(json_t *x, json_t *y, const char *key)
{
	int rx = rank(mt_compat_status_parse(json_string_value(json_object_get(x, "status"))));
	int ry = rank(mt_compat_status_parse(json_string_value(json_object_get(y, "status"))));
	json_int_t cx = json_integer_value(json_object_get(x, "count"));
	json_int_t cy = json_integer_value(json_object_get(y, "count"));

	if (rx != ry)
		return rx - ry;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, key)),
		      json_string_value(json_object_get(y, key)));
}

static int ops_order(const void *a, const void *b)
{
	return compare_items(*(json_t *const *)a, *(json_t *const *)b, "op");
}

static int apis_order(const void *a, const void *b)
{
	return compare_items(*(json_t *const *)a, *(json_t *const *)b, "api");
}

static json_t *apis_list(json_t *set)
{
	json_t *arr = json_array(), *v;
	const char *k;
	json_object_foreach(set, k, v)
		json_array_append_new(arr, json_string(k));
	return arr;
}

static json_t *table_json(const mt_compat_table *t)
{
	return json_pack("{ss, ss, ss, ss, ss, ss}", "name", mt_compat_name(t), "backend",
			 mt_compat_backend(t), "version", mt_compat_version(t), "kind",
			 mt_compat_kind(t), "source", mt_compat_source(t), "retrieved",
			 mt_compat_retrieved(t));
}

static json_t *rules_json(const mt_compat_table *t)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < mt_compat_nrules(t); i++) {
		const mt_compat_rule *r = mt_compat_rule_at(t, i);
		json_array_append_new(arr, json_pack("{ss, ss, so}", "id", r->id, "text", r->text,
						     "applies", strv_json(r->applies)));
	}
	return arr;
}

/* Counts by status of a sorted list: `what` ("ops", "apis") names the
 * count and what support_percentage is a share of: device and partial
 * entries among them. */
static json_t *summary_json(json_t *list, const char *what)
{
	size_t counts[5] = {0}, uncertain = 0, n = json_array_size(list), i;
	json_t *item, *s;
	double pct;

	json_array_foreach(list, i, item) {
		counts[mt_compat_status_parse(
			json_string_value(json_object_get(item, "status")))]++;
		uncertain += json_is_false(json_object_get(item, "certain"));
	}
	pct = n ? 100.0 * (double)(counts[MT_COMPAT_DEVICE] + counts[MT_COMPAT_PARTIAL]) / (double)n
		: 0.0;
	s = json_pack("{sI, sI, sI, sI, sI, sI, sf, ss}", what, (json_int_t)n, "device",
		      (json_int_t)counts[MT_COMPAT_DEVICE], "cpu_fallback",
		      (json_int_t)counts[MT_COMPAT_CPU_FALLBACK], "unsupported",
		      (json_int_t)counts[MT_COMPAT_UNSUPPORTED], "partial",
		      (json_int_t)counts[MT_COMPAT_PARTIAL], "unknown",
		      (json_int_t)counts[MT_COMPAT_UNKNOWN], "support_percentage",
		      (double)((long)(pct * 10 + 0.5)) / 10, "support_of", what);
	/* seen only at method calls whose receiver may not be a tensor */
	json_object_set_new(s, "uncertain", json_integer((json_int_t)uncertain));
	return s;
}

/* The probe's entry for one group of sites: its counts, certainty and
 * locations; `key` names it ("op" or "api"). New reference. */
static json_t *item_json(const char *key, const char *name, json_t *e)
{
	json_int_t count = json_integer_value(json_object_get(e, "count"));
	json_int_t uncertain = json_integer_value(json_object_get(e, "uncertain"));

	/* certain when one site at least is: every site of an uncertain entry
	 * is a method call whose receiver may not be a tensor */
	return json_pack("{ss, sO, sO, sb, sO}", key, name, "count", json_object_get(e, "count"),
			 "uncertain", json_object_get(e, "uncertain"), "certain",
			 uncertain < count, "locations", json_object_get(e, "locations"));
}

/* Decides each group, then sorts: a JSON array, NULL with the error set. */
static json_t *decide_all(const mt_probe_inputs *in, json_t *groups, int apis)
{
	json_t *list = json_array(), *e, *item, **items;
	const char *name;
	size_t n = 0;

	items = calloc(json_object_size(groups) + 1, sizeof(*items));
	json_object_foreach(groups, name, e) {
		const char *op = json_string_value(json_object_get(e, "op"));
		item = item_json(apis ? "api" : "op", name, e);
		if (apis) {
			json_object_set_new(item, "op", op ? json_string(op) : json_null());
			json_object_set_new(item, "kind", json_null());
			if (json_is_true(json_object_get(e, "method")))
				json_object_set_new(item, "receiver",
						    json_string("assumed a tensor"));
		} else {
			json_object_set_new(item, "apis", apis_list(json_object_get(e, "apis")));
		}
		items[n++] = item;
		if (decide(item, in, apis ? name : NULL, apis ? op : name,
			   json_object_get(e, "callers")) < 0) {
			json_decref(list);
			list = NULL;
			break;
		}
	}
	qsort(items, n, sizeof(*items), apis ? apis_order : ops_order);
	for (size_t i = 0; i < n; i++)
		if (list)
			json_array_append(list, items[i]);
	for (size_t i = 0; i < n; i++)
		json_decref(items[i]);
	free(items);
	return list;
}

int mt_probe_run(json_t **out, const mt_probe_inputs *in0, json_t *calls, json_t *methods)
{
	json_t *by_op = json_object(), *by_api = json_object(), *ops = NULL, *apis = NULL, *s;
	mt_probe_inputs with = *in0, *in = &with;
	mt_opmap *map = NULL;
	int error = 0;

	*out = NULL;
	/* the API map matters only to a table with API entries */
	if (!with.opmap && (mt_compat_napis(with.table) ||
			    (with.observed && mt_compat_napis(with.observed)))) {
		if ((error = mt_opmap_load(&map)) < 0)
			goto cleanup;
		with.opmap = map;
	}
	add_sites(by_op, calls, "api", "");
	add_sites(by_op, methods, "name", "torch.Tensor.");
	add_api_sites(by_api, calls, "api", "");
	add_api_sites(by_api, methods, "name", "torch.Tensor.");
	if (!(ops = decide_all(in, by_op, 0)) || !(apis = decide_all(in, by_api, 1))) {
		error = mt_error_last_code();
		goto cleanup;
	}
	s = summary_json(ops, "ops");
	json_object_set_new(s, "apis", summary_json(apis, "apis"));
	*out = json_pack("{so, sO, sO, ss, so, so}", "table", table_json(in->table), "ops", ops,
			 "apis", apis, "listed_by",
			 mt_compat_napis(in->table) && json_array_size(apis) ? "api" : "op",
			 "rules", rules_json(in->table), "summary", s);
cleanup:
	mt_opmap_free(map);
	json_decref(ops);
	json_decref(apis);
	json_decref(by_op);
	json_decref(by_api);
	return error;
}

int mt_probe_inventory(json_t **out, const mt_probe_inputs *in, json_t *inventory)
{
	static const char *const from_keys[] = {"file", "inventory_id", "paths", NULL};
	mt_probe_inputs with = *in;
	json_t *res, *from, *steps;
	int error;

	*out = NULL;
	with.inventory_ops = json_object_get(inventory, "ops"); /* a trace's dtypes */
	if ((error = mt_probe_run(&res, &with, json_object_get(inventory, "calls"),
				  json_object_get(inventory, "methods"))) < 0)
		return error;
	if (json_object_get(inventory, "repo")) {
		json_object_set(res, "repo", json_object_get(inventory, "repo"));
		json_object_set(res, "rev", json_object_get(inventory, "rev"));
	}
	from = json_pack("{ss}", "source",
			 json_string_value(json_object_get(inventory, "source")) ?: "scan");
	/* a scan limited by --path or scan.paths says so */
	for (const char *const *k = from_keys; *k; k++)
		if (json_object_get(inventory, *k))
			json_object_set(from, *k, json_object_get(inventory, *k));
	if ((steps = json_object_get(json_object_get(inventory, "trace"), "steps")))
		json_object_set(from, "steps", steps);
	json_object_set_new(res, "from", from);
	*out = res;
	return 0;
}
