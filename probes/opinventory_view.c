/* An inventory's JSON -> mt_opinventory_view: the one place the layers above
 * read an inventory's keys. */
#include "opinventory.h"
#include "jview.h"
#include "view_int.h"

#include <stdlib.h>
#include <string.h>

static mt_inventory_count *counts(const json_t *obj, size_t *n)
{
	mt_inventory_count *v = mt_view_items(json_object_size(obj), sizeof(*v));
	const char *k;
	json_t *x;

	*n = 0;
	json_object_foreach((json_t *)obj, k, x)
		v[(*n)++] = (mt_inventory_count){k, json_integer_value(x)};
	return v;
}

static void read_op(mt_jview *parent, const char *name, const json_t *obj, mt_inventory_op *o)
{
	mt_jview v, ph;

	mt_jview_init(&v, obj, parent->shape);
	o->name = name;
	o->count = mt_jview_int(&v, "count", 0);
	o->backward_only = mt_jview_opt_get(&v, "backward_only") == json_true();
	if ((o->has_phases = mt_jview_opt_get(&v, "phases") != NULL)) {
		mt_jview_sub(&ph, &v, "phases");
		o->setup = mt_jview_int(&ph, "setup", 0);
		o->forward = mt_jview_int(&ph, "forward", 0);
		o->backward = mt_jview_int(&ph, "backward", 0);
		o->optimizer = mt_jview_int(&ph, "optimizer", 0);
		mt_jview_close(&ph, &v);
	}
	o->conditional = mt_jview_opt_int(&v, "conditional", 0);
	o->dtypes = mt_view_strings(mt_jview_opt_get(&v, "dtypes"), &o->ndtypes);
	o->dtype_args = mt_view_strings(mt_jview_opt_get(&v, "dtype_args"), &o->ndtype_args);
	o->distinct_shapes = mt_jview_opt_int(&v, "distinct_shapes", 0);
	mt_jview_close(&v, parent);
}

static void read_calls(mt_jview *v, mt_opinventory_view *inv)
{
	const json_t *arr = mt_jview_get(v, "calls"), *x;
	size_t i;

	inv->calls = mt_view_items(json_array_size(arr), sizeof(*inv->calls));
	json_array_foreach(arr, i, x) {
		mt_jview c;
		mt_jview_init(&c, x, v->shape);
		inv->calls[i].api = mt_jview_str(&c, "api");
		inv->calls[i].op = mt_jview_str(&c, "op");
		inv->calls[i].file = mt_jview_opt_str(&c, "file");
		inv->calls[i].module = mt_jview_opt_str(&c, "module");
		inv->calls[i].line = mt_jview_opt_int(&c, "line", 0);
		mt_jview_close(&c, v);
	}
	inv->ncalls = json_array_size(arr);
}

/* A graph's counts, libtorch's version and its methods. */
static void read_torchscript(mt_jview *v, mt_opinventory_view *inv)
{
	mt_jview t;

	mt_jview_sub(&t, v, "torchscript");
	inv->ts.torch = mt_jview_str(&t, "torch");
	inv->ts.methods = mt_view_strings(mt_jview_get(&t, "methods"), &inv->ts.nmethods);
	inv->ts.entry_points = mt_view_strings(mt_jview_get(&t, "entry_points"), &inv->ts.nentry_points);
	inv->ts.submodules = mt_jview_int(&t, "submodules", 0);
	inv->ts.nodes = mt_jview_int(&t, "nodes", 0);
	inv->ts.control_flow = mt_jview_int(&t, "control_flow", 0);
	inv->ts.metadata = counts(mt_jview_opt_get(&t, "metadata"), &inv->ts.nmetadata);
	inv->ts.scalar = counts(mt_jview_opt_get(&t, "scalar"), &inv->ts.nscalar);
	mt_jview_close(&t, v);
}

/* A trace's run: what optrace.py wrote (its required fields only are
 * required here). */
static void read_trace(mt_jview *v, mt_opinventory_view *inv)
{
	mt_jview t;

	mt_jview_sub(&t, v, "trace");
	inv->trace.torch = mt_jview_str(&t, "torch");
	inv->trace.python = mt_jview_opt_str(&t, "python");
	inv->trace.step_counter = mt_jview_opt_str(&t, "step_counter");
	inv->trace.ended = mt_jview_opt_str(&t, "ended");
	inv->trace.incomplete = mt_jview_opt_str(&t, "incomplete");
	inv->trace.error = mt_jview_opt_str(&t, "error");
	inv->trace.devices = mt_view_strings(mt_jview_opt_get(&t, "devices"), &inv->trace.ndevices);
	inv->trace.warnings = mt_view_strings(mt_jview_opt_get(&t, "warnings"), &inv->trace.nwarnings);
	inv->trace.steps = mt_jview_opt_int(&t, "steps", 0);
	mt_jview_close(&t, v);
}

int mt_opinventory_view_read(mt_opinventory_view *inv, const json_t *obj)
{
	const json_t *ops, *x;
	const char *name;
	mt_jview v;

	memset(inv, 0, sizeof(*inv));
	mt_jview_init(&v, obj, "inventory");
	inv->source = mt_jview_opt_str(&v, "source"); /* a scan read back has none */
	inv->file = mt_jview_opt_str(&v, "file");
	inv->repo = mt_jview_opt_str(&v, "repo");
	inv->rev = mt_jview_opt_str(&v, "rev");
	inv->size = mt_jview_opt_int(&v, "size", 0);
	inv->inventory_id = mt_jview_opt_int(&v, "inventory_id", 0);
	ops = mt_jview_get(&v, "ops");
	inv->ops = mt_view_items(json_object_size(ops), sizeof(*inv->ops));
	json_object_foreach((json_t *)ops, name, x)
		read_op(&v, name, x, &inv->ops[inv->nops++]);
	read_calls(&v, inv);
	if ((inv->is_torchscript = mt_jview_opt_get(&v, "torchscript") != NULL))
		read_torchscript(&v, inv);
	else if ((inv->is_trace = mt_jview_opt_get(&v, "trace") != NULL))
		read_trace(&v, inv);
	if (inv->is_trace) {
		mt_jview t;
		mt_jview_sub(&t, &v, "trace");
		inv->has_trace_steps = mt_jview_opt_get(&t, "steps") != NULL;
		mt_jview_close(&t, &v);
	}
	inv->detail = mt_jview_opt_get(&v, inv->is_torchscript ? "torchscript" : "trace");
	return mt_jview_complete(&v);
}

void mt_opinventory_view_dispose(mt_opinventory_view *inv)
{
	if (!inv)
		return;
	for (size_t i = 0; i < inv->nops; i++) {
		free(inv->ops[i].dtypes);
		free(inv->ops[i].dtype_args);
	}
	free(inv->ops);
	free(inv->calls);
	free(inv->ts.methods);
	free(inv->ts.entry_points);
	free(inv->ts.metadata);
	free(inv->ts.scalar);
	free(inv->trace.devices);
	free(inv->trace.warnings);
	memset(inv, 0, sizeof(*inv));
}

static void read_side(mt_jview *v, const char *key, const char **source, const char **file,
		      const char **rev)
{
	mt_jview s;

	mt_jview_sub(&s, v, key);
	*source = mt_jview_str(&s, "source");
	*file = mt_jview_opt_str(&s, "file");
	*rev = mt_jview_opt_str(&s, "rev");
	mt_jview_close(&s, v);
}

/* The ops of a list with their counts (counts: {op: [a, b]}). */
static void read_list(const json_t *counts, const json_t *arr, mt_opinventory_diff_list *l)
{
	const json_t *x, *c;
	size_t i;

	l->v = mt_view_items(json_array_size(arr), sizeof(*l->v));
	json_array_foreach(arr, i, x) {
		if (!json_is_string(x))
			continue;
		c = json_object_get(counts, json_string_value(x));
		l->v[l->n++] = (mt_opinventory_diff_op){json_string_value(x),
						      json_integer_value(json_array_get(c, 0)),
						      json_integer_value(json_array_get(c, 1))};
	}
}

static void read_decomposed(mt_jview *v, mt_opinventory_diff_view *d)
{
	const json_t *names = mt_jview_get(v, "decomposed"), *map = mt_jview_get(v, "decompositions");
	const json_t *x;
	size_t i;

	d->decomposed = mt_view_items(json_array_size(names), sizeof(*d->decomposed));
	json_array_foreach(names, i, x) {
		mt_inventory_decomposition *e = &d->decomposed[d->ndecomposed++];
		e->composite = json_string_value(x);
		e->ops = mt_view_strings(json_object_get(map, e->composite ? e->composite : ""), &e->nops);
	}
}

int mt_opinventory_diff_view_read(mt_opinventory_diff_view *d, const json_t *diff)
{
	const json_t *counts, *missed;
	mt_jview v;

	memset(d, 0, sizeof(*d));
	mt_jview_init(&v, diff, "inventory difference");
	read_side(&v, "a", &d->a.source, &d->a.file, &d->a.rev);
	read_side(&v, "b", &d->b.source, &d->b.file, &d->b.rev);
	counts = mt_jview_get(&v, "counts");
	read_list(counts, mt_jview_get(&v, "both"), &d->both);
	read_list(counts, mt_jview_get(&v, "only_a"), &d->only_a);
	read_list(counts, mt_jview_get(&v, "only_b"), &d->only_b);
	read_list(counts, mt_jview_get(&v, "backward_only"), &d->backward_only);
	missed = mt_jview_opt_get(&v, "missed_by_scan"); /* only against a scan */
	d->has_missed_by_scan = missed != NULL;
	read_list(counts, missed, &d->missed_by_scan);
	read_decomposed(&v, d);
	return mt_jview_complete(&v);
}

void mt_opinventory_diff_view_dispose(mt_opinventory_diff_view *d)
{
	if (!d)
		return;
	free(d->both.v);
	free(d->only_a.v);
	free(d->only_b.v);
	free(d->backward_only.v);
	free(d->missed_by_scan.v);
	for (size_t i = 0; i < d->ndecomposed; i++)
		free(d->decomposed[i].ops);
	free(d->decomposed);
	memset(d, 0, sizeof(*d));
}
