/* Comparing tensor sets: names matched across reference and candidate,
 * tolerances resolved per tensor, the noise floor, the result as JSON. */
#include "compare.h"

#include "error.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number as JSON; jansson has no Inf or NaN, so those are strings. */
static json_t *jnum(double v)
{
	if (isnan(v))
		return json_string("nan");
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	return json_real(v);
}

static json_t *shape_json(const mt_tensor *t)
{
	json_t *a = json_array();
	for (int i = 0; i < t->ndim; i++)
		json_array_append_new(a, json_integer(t->shape[i]));
	return a;
}

/* The flat index as a multi-index over t's shape (row-major). */
static json_t *index_json(const mt_tensor *t, uint64_t flat)
{
	json_t *a = json_array();
	uint64_t idx[MT_TENSOR_MAX_DIMS];

	for (int i = t->ndim - 1; i >= 0; i--) {
		uint64_t d = t->shape[i] ? (uint64_t)t->shape[i] : 1;
		idx[i] = flat % d;
		flat /= d;
	}
	for (int i = 0; i < t->ndim; i++)
		json_array_append_new(a, json_integer((json_int_t)idx[i]));
	return a;
}

struct tol {
	double rtol, atol;
	char source[160];
};

/* The first rule matching the name, else assert_close's defaults. */
static void resolve_tol(struct tol *t, const char *name, const mt_tensor *ref,
                        const mt_tensor *cand, const mt_cmp_options *o)
{
	mt_dtype which;

	mt_cmp_default_tolerance(ref->dtype, cand->dtype, &t->rtol, &t->atol, &which);
	snprintf(t->source, sizeof(t->source), "default %s", mt_dtype_name(which));
	for (size_t i = 0; i < o->nrules; i++) {
		const mt_cmp_rule *r = &o->rules[i];
		if (r->glob && fnmatch(r->glob, name, 0) != 0)
			continue;
		if (!isnan(r->rtol))
			t->rtol = r->rtol;
		if (!isnan(r->atol))
			t->atol = r->atol;
		snprintf(t->source, sizeof(t->source), "%s", r->source);
		return;
	}
}

static int same_shape(const mt_tensor *a, const mt_tensor *b)
{
	return a->ndim == b->ndim && memcmp(a->shape, b->shape, sizeof(a->shape[0]) * a->ndim) == 0;
}

/* Why the pair cannot be compared element by element, or NULL. Floats of
 * different widths are compared (as assert_close with check_dtype=False:
 * both promoted, the looser dtype's tolerances), so are integers and bools
 * of different widths; a float against an integer is not a comparison of
 * numerics worth making, and is reported instead. */
static const char *incomparable(const mt_tensor *ref, const mt_tensor *cand, char *buf, size_t size)
{
	if (!same_shape(ref, cand)) {
		snprintf(buf, size, "shapes differ");
		return buf;
	}
	if (mt_dtype_is_float(ref->dtype) != mt_dtype_is_float(cand->dtype)) {
		snprintf(buf, size,
		         "dtypes differ: reference %s, candidate %s (a float and an "
		         "integer tensor are not compared)",
		         mt_dtype_name(ref->dtype), mt_dtype_name(cand->dtype));
		return buf;
	}
	return NULL;
}

static void add_warnings(json_t *e, const mt_cmp_stats *s, const mt_tensor *ref,
                         const mt_tensor *cand, double atol)
{
	json_t *w = json_array();
	char buf[320];

	if (ref->dtype != cand->dtype) {
		snprintf(buf, sizeof(buf),
		         "dtypes differ: reference %s, candidate %s; compared as "
		         "assert_close(check_dtype=False) does, both promoted, with the looser "
		         "dtype's default tolerances",
		         mt_dtype_name(ref->dtype), mt_dtype_name(cand->dtype));
		json_array_append_new(w, json_string(buf));
	}
	if (s->numel && mt_dtype_is_float(ref->dtype) &&
	    (double)s->near_zero > MT_CMP_NEAR_ZERO_SHARE * (double)s->numel) {
		snprintf(buf, sizeof(buf),
		         "%llu of %llu reference values (%.1f%%) are within atol "
		         "(%g) of zero: there rtol is moot and atol alone decides",
		         (unsigned long long)s->near_zero, (unsigned long long)s->numel,
		         100.0 * (double)s->near_zero / (double)s->numel, atol);
		json_array_append_new(w, json_string(buf));
	}
	json_object_set_new(e, "warnings", w);
}

/* What every tensor's entry starts with: name, dtypes, shape. */
static json_t *entry_head(const char *name, const mt_tensor *ref, const mt_tensor *cand)
{
	json_t *e = json_object();

	json_object_set_new(e, "name", json_string(name));
	json_object_set_new(e, "dtype", json_string(mt_dtype_name(ref->dtype)));
	if (cand->dtype != ref->dtype)
		json_object_set_new(e, "candidate_dtype", json_string(mt_dtype_name(cand->dtype)));
	json_object_set_new(e, "shape", shape_json(ref));
	return e;
}

static json_t *stats_json(const char *name, const mt_tensor *ref, const mt_tensor *cand,
                          const struct tol *t, const mt_cmp_stats *s, const mt_cmp_options *o)
{
	json_t *e = entry_head(name, ref, cand);

	json_object_set_new(e, "rtol", json_real(t->rtol));
	json_object_set_new(e, "atol", json_real(t->atol));
	json_object_set_new(e, "tolerance_source", json_string(t->source));
	json_object_set_new(e, "passed", json_boolean(s->passed));
	json_object_set_new(e, "mismatched", json_integer((json_int_t)s->mismatched));
	json_object_set_new(e, "numel", json_integer((json_int_t)s->numel));
	json_object_set_new(e, "max_abs", jnum(s->max_abs));
	json_object_set_new(e, "max_abs_index", index_json(ref, s->max_abs_index));
	json_object_set_new(e, "max_abs_flat_index", json_integer((json_int_t)s->max_abs_index));
	json_object_set_new(e, "max_rel", jnum(s->max_rel));
	json_object_set_new(e, "max_rel_index", index_json(ref, s->max_rel_index));
	json_object_set_new(e, "max_rel_flat_index", json_integer((json_int_t)s->max_rel_index));
	json_object_set_new(e, "min_atol", jnum(s->min_atol));
	json_object_set_new(e, "min_rtol", jnum(s->min_rtol));
	json_object_set_new(e, "cosine", jnum(s->cosine));
	if (o->stat != MT_STAT_ELEMWISE) {
		json_object_set_new(e, "stat_abs", jnum(s->stat_abs));
		json_object_set_new(e, "stat_rel", jnum(s->stat_rel));
	}
	add_warnings(e, s, ref, cand, t->atol);
	return e;
}

static json_t *incomparable_json(const char *name, const mt_tensor *ref, const mt_tensor *cand,
                                 const char *reason)
{
	json_t *e = entry_head(name, ref, cand);

	if (!same_shape(ref, cand))
		json_object_set_new(e, "candidate_shape", shape_json(cand));
	json_object_set_new(e, "passed", json_false());
	json_object_set_new(e, "reason", json_string(reason));
	json_object_set_new(e, "warnings", json_array());
	return e;
}

/* Progress over the whole run from each pair's own. */
struct progress {
	uint64_t base, total;
	const mt_cmp_options *outer;
};

static void pair_progress(uint64_t done, uint64_t total, void *payload)
{
	struct progress *p = payload;
	(void)total;
	p->outer->progress(p->base + done, p->total, p->outer->payload);
}

/* A tensor's entry with what orders it (cmp_worst) and decides the
 * verdict, kept as C values beside its JSON. */
struct entry {
	json_t *json;
	const char *name;
	int passed, compared;
	double share;    /* mismatched of numel */
	double min_atol; /* inf when not finite, as the JSON's strings sort */
};

struct run {
	const mt_cmp_options *o;
	mt_cmp_options inner;
	struct progress prog;
	double noise_max, cand_max, worst_ratio;
	const char *worst;
	json_t *missing_noise;
	struct entry *entries; /* nentries, in the candidate's order until sorted */
	size_t nentries;
};

/* The reference's own spread for one tensor: noise compared with ref. */
static int add_noise(struct run *r, json_t *e, const char *name, const mt_tensor *ref,
                     const mt_cmp_stats *s, const struct tol *t, const mt_tensor_set *noise)
{
	const mt_tensor *n = mt_tensor_set_find(noise, name);
	char why[200];
	mt_cmp_stats ns;
	json_t *j;
	double ratio;
	int error;

	if (!n || incomparable(ref, n, why, sizeof(why))) {
		json_array_append_new(r->missing_noise, json_string(name));
		return 0;
	}
	if ((error = mt_cmp_tensors(&ns, ref, n, t->rtol, t->atol, &r->inner)) < 0)
		return error;
	r->prog.base += ref->nbytes + n->nbytes;
	ratio = s->min_atol == 0 ? 0 : ns.min_atol == 0 ? INFINITY : s->min_atol / ns.min_atol;
	j = json_object();
	json_object_set_new(j, "max_abs", jnum(ns.min_atol));
	json_object_set_new(j, "ratio", jnum(ratio));
	json_object_set_new(e, "noise", j);
	r->noise_max = fmax(r->noise_max, ns.min_atol);
	r->cand_max = fmax(r->cand_max, s->min_atol);
	if (!r->worst || ratio > r->worst_ratio)
		r->worst_ratio = ratio, r->worst = name;
	return 0;
}

static int compare_one(struct run *r, const char *name, const mt_tensor *ref,
                       const mt_tensor *cand, const mt_tensor_set *noise)
{
	struct entry *en = &r->entries[r->nentries];
	char why[200];
	struct tol t;
	mt_cmp_stats s;
	int error;

	if (incomparable(ref, cand, why, sizeof(why))) {
		*en = (struct entry){incomparable_json(name, ref, cand, why), name, 0, 0, 0, 0};
		r->nentries++;
		return 0;
	}
	resolve_tol(&t, name, ref, cand, r->o);
	if ((error = mt_cmp_tensors(&s, ref, cand, t.rtol, t.atol, &r->inner)) < 0)
		return error;
	r->prog.base += ref->nbytes + cand->nbytes;
	*en = (struct entry){stats_json(name, ref, cand, &t, &s, r->o), name, s.passed, 1,
	                     (double)(json_int_t)s.mismatched / fmax(1, (double)(json_int_t)s.numel),
	                     isfinite(s.min_atol) ? s.min_atol : INFINITY};
	r->nentries++;
	return noise ? add_noise(r, en->json, name, ref, &s, &t, noise) : 0;
}

/* Failed before passed; among failures, the ones not compared first, then
 * the greater share mismatched, then the greater difference. */
static int cmp_worst(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	if (a->passed != b->passed)
		return a->passed - b->passed;
	if (a->compared != b->compared)
		return a->compared - b->compared;
	if (!a->compared)
		return strcmp(a->name, b->name);
	if (a->share != b->share)
		return a->share < b->share ? 1 : -1;
	if (a->min_atol != b->min_atol)
		return a->min_atol < b->min_atol ? 1 : -1;
	return strcmp(a->name, b->name);
}

static uint64_t total_bytes(const mt_tensor_set *ref, const mt_tensor_set *cand,
                            const mt_tensor_set *noise)
{
	uint64_t total = 0;
	for (size_t i = 0; i < mt_tensor_set_count(cand); i++) {
		const mt_tensor *c = mt_tensor_set_at(cand, i),
		                *r = mt_tensor_set_find(ref, c->name),
		                *n = noise ? mt_tensor_set_find(noise, c->name) : NULL;
		if (r)
			total += r->nbytes + c->nbytes + (n ? r->nbytes + n->nbytes : 0);
	}
	return total;
}

static json_t *names_missing(const mt_tensor_set *from, const mt_tensor_set *in)
{
	json_t *a = json_array();
	for (size_t i = 0; i < mt_tensor_set_count(from); i++)
		if (!mt_tensor_set_find(in, mt_tensor_set_at(from, i)->name))
			json_array_append_new(a, json_string(mt_tensor_set_at(from, i)->name));
	return a;
}

static json_t *noise_json(struct run *r, const char *noise_name)
{
	json_t *n = json_object();
	json_object_set_new(n, "reference2", json_string(noise_name));
	json_object_set_new(n, "max_abs", jnum(r->noise_max));
	json_object_set_new(n, "candidate_max_abs", jnum(r->cand_max));
	json_object_set_new(n, "ratio",
	                    jnum(r->cand_max == 0    ? 0
	                         : r->noise_max == 0 ? INFINITY
	                                             : r->cand_max / r->noise_max));
	json_object_set_new(n, "worst_ratio", r->worst ? jnum(r->worst_ratio) : json_null());
	json_object_set_new(n, "worst", r->worst ? json_string(r->worst) : json_null());
	json_object_set_new(n, "missing", r->missing_noise);
	r->missing_noise = NULL;
	return n;
}

static int all_passed(const struct run *r, json_t *only_ref, json_t *only_cand)
{
	if (json_array_size(only_ref) || json_array_size(only_cand))
		return 0;
	for (size_t i = 0; i < r->nentries; i++)
		if (!r->entries[i].passed)
			return 0;
	return 1;
}

/* Whether res already holds global `name` of `file` (one file given twice). */
static int noted(json_t *res, const char *file, const char *name)
{
	json_t *g;
	size_t i;

	json_array_foreach(json_object_get(res, "pickle_globals"), i, g)
		if (strcmp(json_string_value(json_object_get(g, "file")), file) == 0 &&
		    strcmp(json_string_value(json_object_get(g, "name")), name) == 0)
			return 1;
	return 0;
}

static json_t *array_at(json_t *o, const char *key)
{
	json_t *a = json_object_get(o, key);
	if (!a)
		json_object_set_new(o, key, a = json_array());
	return a;
}

void mt_cmp_note_pickle(json_t *res, const mt_tensor_file *f)
{
	const char *name, *file = mt_tensor_file_path(f);
	int called;
	char buf[1024];

	for (size_t i = 0; (name = mt_tensor_file_global_at(f, i, &called)); i++) {
		if (noted(res, file, name))
			continue;
		json_array_append_new(array_at(res, "pickle_globals"),
		                      json_pack("{s:s, s:s, s:b}", "file", file, "name", name,
		                                "called", called));
		snprintf(buf, sizeof(buf),
		         "%s: its pickle %s %s, which torch.load(weights_only=False) would %s; "
		         "mtrial read the tensors without running anything",
		         file, called ? "calls" : "names", name, called ? "run" : "import");
		json_array_append_new(array_at(res, "warnings"), json_string(buf));
	}
}

static void note_set(json_t *res, const mt_tensor_set *s)
{
	for (size_t i = 0; s && i < mt_tensor_set_file_count(s); i++)
		mt_cmp_note_pickle(res, mt_tensor_set_file_at(s, i));
}

int mt_cmp_run(json_t **out, const mt_tensor_set *ref, const mt_tensor_set *cand,
               const mt_tensor_set *noise, const char *ref_name, const char *cand_name,
               const char *noise_name, const mt_cmp_options *o)
{
	struct run r = {.o = o, .inner = *o, .missing_noise = json_array()};
	json_t *res = json_object(), *tensors = json_array(), *only_ref, *only_cand;
	char stat[64];
	int error = 0;

	*out = NULL;
	if (!(r.entries = calloc(mt_tensor_set_count(cand) + 1, sizeof(*r.entries)))) {
		json_decref(r.missing_noise);
		json_decref(res);
		json_decref(tensors);
		return mt_error_set(MT_EIO, "out of memory");
	}
	r.prog = (struct progress){0, total_bytes(ref, cand, noise), o};
	if (o->progress)
		r.inner.progress = pair_progress, r.inner.payload = &r.prog;
	for (size_t i = 0; i < mt_tensor_set_count(cand) && error == 0; i++) {
		const mt_tensor *c = mt_tensor_set_at(cand, i),
		                *rt = mt_tensor_set_find(ref, c->name);
		if (rt)
			error = compare_one(&r, c->name, rt, c, noise);
	}
	qsort(r.entries, r.nentries, sizeof(*r.entries), cmp_worst);
	for (size_t i = 0; i < r.nentries; i++)
		json_array_append_new(tensors, r.entries[i].json);
	json_object_set_new(res, "reference", json_string(ref_name));
	json_object_set_new(res, "candidate", json_string(cand_name));
	json_object_set_new(res, "stat", json_string(mt_cmp_stat_name(o, stat, sizeof(stat))));
	json_object_set_new(res, "equal_nan", json_boolean(o->equal_nan));
	json_object_set_new(res, "tensors", tensors);
	json_object_set_new(res, "only_in_reference", only_ref = names_missing(ref, cand));
	json_object_set_new(res, "only_in_candidate", only_cand = names_missing(cand, ref));
	if (noise)
		json_object_set_new(res, "noise", noise_json(&r, noise_name));
	note_set(res, ref);
	note_set(res, cand);
	note_set(res, noise);
	json_object_set_new(res, "passed", json_boolean(all_passed(&r, only_ref, only_cand)));
	json_decref(r.missing_noise);
	free(r.entries);
	if (error < 0)
		json_decref(res);
	else
		*out = res;
	return error;
}
