#include "probe.h"
#include "error.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Groups call sites by op: {op: {count, uncertain, apis {}, locations
 * []}}. A scan's method site with certain false (its receiver may not be a
 * tensor) counts in `uncertain` too, and its location says so; a site
 * without the member (a trace, a TorchScript archive) is certain. */
static void add_sites(json_t *by_op, json_t *sites, const char *name_key)
{
	json_t *site;
	size_t i;

	json_array_foreach(sites, i, site) {
		const char *op = json_string_value(json_object_get(site, "op"));
		json_t *e, *col = json_object_get(site, "col");
		if (!op)
			continue;
		int uncertain = json_is_false(json_object_get(site, "certain"));
		if (!(e = json_object_get(by_op, op))) {
			e = json_pack("{sI, sI, s{}, s[]}", "count", (json_int_t)0, "uncertain",
				      (json_int_t)0, "apis", "locations");
			json_object_set_new(by_op, op, e);
		}
		json_integer_set(json_object_get(e, "uncertain"),
				 json_integer_value(json_object_get(e, "uncertain")) + uncertain);
		/* a trace's site stands for `count` dispatches and has no file */
		json_integer_set(json_object_get(e, "count"),
				 json_integer_value(json_object_get(e, "count")) +
					 (json_is_integer(json_object_get(site, "count"))
						  ? json_integer_value(json_object_get(site, "count"))
						  : 1));
		json_object_set_new(json_object_get(e, "apis"),
				    json_string_value(json_object_get(site, name_key)), json_true());
		if (json_is_string(json_object_get(site, "file")))
			json_array_append_new(
				json_object_get(e, "locations"),
				json_pack("{sO, sO, sO, sb}", "file", json_object_get(site, "file"),
					  "line", json_object_get(site, "line"), "col",
					  col ? col : json_null(), "certain", !uncertain));
	}
}

/* The first override for op, or for its base name (aten::add for
 * aten::add.Tensor). */
static json_t *override_for(json_t *overrides, const char *op, size_t *index)
{
	const char *dot = strchr(op, '.');
	size_t base = dot ? (size_t)(dot - op) : strlen(op);
	json_t *o;
	size_t i;

	json_array_foreach(overrides, i, o) {
		const char *name = json_string_value(json_object_get(o, "op")) ?: "";
		if (strcmp(name, op) == 0 || (strlen(name) == base && strncmp(name, op, base) == 0)) {
			*index = i;
			return o;
		}
	}
	return NULL;
}

/* Decides one op: status, source, conditions, notes. */
static int decide(json_t *entry, const mt_probe_inputs *in, const char *op)
{
	const mt_compat_op *hit = in->observed ? mt_compat_lookup(in->observed, op) : NULL;
	const mt_compat_table *from = in->observed;
	const char *kind = "observed";
	json_t *ov;
	size_t oi = 0;
	char source[512];

	if (!hit && (ov = override_for(in->overrides, op, &oi))) {
		int st = mt_compat_status_parse(json_string_value(json_object_get(ov, "status")) ?: "");
		if (st < 0)
			return mt_error_set(MT_EINVALID, "trial.yaml: override for %s: unknown status "
					    "'%s'", op, json_string_value(json_object_get(ov, "status")) ?: "");
		if (json_is_string(json_object_get(ov, "source")))
			snprintf(source, sizeof(source), "%s",
				 json_string_value(json_object_get(ov, "source")));
		else
			snprintf(source, sizeof(source), "override:trial.yaml#%zu", oi + 1);
		json_object_set_new(entry, "status", json_string(mt_compat_status_str(st)));
		json_object_set_new(entry, "source", json_string(source));
		json_object_set_new(entry, "conditions",
				    json_is_array(json_object_get(ov, "conditions"))
					    ? json_incref(json_object_get(ov, "conditions"))
					    : json_array());
		json_object_set_new(entry, "notes", json_is_string(json_object_get(ov, "note"))
							    ? json_incref(json_object_get(ov, "note"))
							    : json_null());
		return 0;
	}
	if (!hit) {
		hit = mt_compat_lookup(in->table, op);
		from = in->table;
		kind = "table";
	}
	if (!hit) {
		json_object_set_new(entry, "status", json_string("unknown"));
		json_object_set_new(entry, "source", json_string("none"));
		json_object_set_new(entry, "conditions", json_array());
		json_object_set_new(entry, "notes", json_null());
		return 0;
	}
	snprintf(source, sizeof(source), "%s:%s:%u", kind, mt_compat_name(from), hit->line);
	json_object_set_new(entry, "status", json_string(mt_compat_status_str(hit->status)));
	json_object_set_new(entry, "source", json_string(source));
	json_object_set_new(entry, "conditions", strv_json(hit->conditions));
	json_object_set_new(entry, "notes", hit->notes ? json_string(hit->notes) : json_null());
	return 0;
}

static int by_rank_then_count(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int rx = rank(mt_compat_status_parse(json_string_value(json_object_get(x, "status"))));
	int ry = rank(mt_compat_status_parse(json_string_value(json_object_get(y, "status"))));
	json_int_t cx = json_integer_value(json_object_get(x, "count"));
	json_int_t cy = json_integer_value(json_object_get(y, "count"));

	if (rx != ry)
		return rx - ry;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "op")),
		      json_string_value(json_object_get(y, "op")));
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

static json_t *summary_json(json_t **items, size_t n)
{
	size_t counts[5] = {0}, uncertain = 0;
	double pct;
	json_t *s;

	for (size_t i = 0; i < n; i++) {
		counts[mt_compat_status_parse(
			json_string_value(json_object_get(items[i], "status")))]++;
		uncertain += json_is_false(json_object_get(items[i], "certain"));
	}
	pct = n ? 100.0 * (double)(counts[MT_COMPAT_DEVICE] + counts[MT_COMPAT_PARTIAL]) / (double)n
		: 0.0;
	s = json_pack("{sI, sI, sI, sI, sI, sI, sf}", "ops", (json_int_t)n, "device",
			 (json_int_t)counts[MT_COMPAT_DEVICE], "cpu_fallback",
			 (json_int_t)counts[MT_COMPAT_CPU_FALLBACK], "unsupported",
			 (json_int_t)counts[MT_COMPAT_UNSUPPORTED], "partial",
			 (json_int_t)counts[MT_COMPAT_PARTIAL], "unknown",
			 (json_int_t)counts[MT_COMPAT_UNKNOWN], "support_percentage",
			 (double)((long)(pct * 10 + 0.5)) / 10);
	/* ops seen only at method calls whose receiver may not be a tensor */
	json_object_set_new(s, "uncertain", json_integer((json_int_t)uncertain));
	return s;
}

int mt_probe_run(json_t **out, const mt_probe_inputs *in, json_t *calls, json_t *methods)
{
	json_t *by_op = json_object(), *e, **items, *ops = json_array();
	const char *op;
	size_t n = 0;
	int error = 0;

	*out = NULL;
	add_sites(by_op, calls, "api");
	add_sites(by_op, methods, "name");
	items = calloc(json_object_size(by_op) + 1, sizeof(*items));
	json_object_foreach(by_op, op, e) {
		json_int_t count = json_integer_value(json_object_get(e, "count"));
		json_int_t uncertain = json_integer_value(json_object_get(e, "uncertain"));
		/* certain when one site at least is: every site of an uncertain op
		 * is a method call whose receiver may not be a tensor */
		json_t *item = json_pack("{ss, sO, sO, sb, so, sO}", "op", op, "count",
					 json_object_get(e, "count"), "uncertain",
					 json_object_get(e, "uncertain"), "certain", uncertain < count,
					 "apis", apis_list(json_object_get(e, "apis")), "locations",
					 json_object_get(e, "locations"));
		if ((error = decide(item, in, op)) < 0) {
			json_decref(item);
			break;
		}
		items[n++] = item;
	}
	qsort(items, n, sizeof(*items), by_rank_then_count);
	for (size_t i = 0; i < n; i++)
		json_array_append(ops, items[i]);
	if (error == 0)
		*out = json_pack("{so, so, so, so}", "table", table_json(in->table), "ops", ops,
				 "rules", rules_json(in->table), "summary", summary_json(items, n));
	else
		json_decref(ops);
	for (size_t i = 0; i < n; i++)
		json_decref(items[i]);
	free(items);
	json_decref(by_op);
	return error;
}
