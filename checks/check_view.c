/* The one reader of a check's JSON (compare_run.c's and curves.c's
 * renderers, the journal's records) into check_view.h's structs: the only
 * place outside the renderers where the keys are spelled. */
#include "check_view.h"

#include "error.h"
#include "jview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number of a tensor comparison: "inf", "-inf" and "nan" are strings
 * there (JSON has none); null or absent is NAN. */
static double word_num(const json_t *x)
{
	const char *s = json_string_value(x);

	if (json_is_number(x))
		return json_number_value(x);
	if (s && strcmp(s, "inf") == 0)
		return INFINITY;
	if (s && strcmp(s, "-inf") == 0)
		return -INFINITY;
	return NAN;
}

static double num(mt_jview *v, const char *key)
{
	return word_num(mt_jview_get(v, key));
}

static void dims(mt_check_dims *d, const json_t *a)
{
	d->n = 0;
	for (size_t i = 0; i < json_array_size(a) && d->n < MT_TENSOR_MAX_DIMS; i++)
		d->v[d->n++] = (int64_t)json_integer_value(json_array_get(a, i));
}

/* The strings of array a (borrowed); 0 or MT_EIO. */
static int strs(mt_check_strs *s, const json_t *a)
{
	size_t n = json_array_size(a);

	s->n = 0;
	s->v = NULL;
	if (!n)
		return 0;
	if (!(s->v = calloc(n, sizeof(*s->v))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < n; i++)
		s->v[s->n++] = json_string_value(json_array_get(a, i));
	return 0;
}

/* The figures of a tensor that was compared. */
static void tensor_figures(mt_check_tensor *t, mt_jview *v)
{
	mt_jview noise;

	t->rtol = num(v, "rtol");
	t->atol = num(v, "atol");
	t->tolerance_source = mt_jview_str(v, "tolerance_source");
	t->mismatched = mt_jview_int(v, "mismatched", 0);
	t->numel = mt_jview_int(v, "numel", 0);
	t->max_abs = num(v, "max_abs");
	dims(&t->max_abs_index, mt_jview_get(v, "max_abs_index"));
	t->max_rel = num(v, "max_rel");
	dims(&t->max_rel_index, mt_jview_get(v, "max_rel_index"));
	t->min_atol = num(v, "min_atol");
	t->min_rtol = num(v, "min_rtol");
	t->cosine = num(v, "cosine");
	t->has_stat = mt_jview_opt_get(v, "stat_abs") != NULL;
	t->stat_abs = word_num(mt_jview_opt_get(v, "stat_abs"));
	t->stat_rel = word_num(mt_jview_opt_get(v, "stat_rel"));
	t->noise_max_abs = t->noise_ratio = NAN;
	if ((t->has_noise = mt_jview_opt_get(v, "noise") != NULL)) {
		mt_jview_sub(&noise, v, "noise");
		t->noise_max_abs = num(&noise, "max_abs");
		t->noise_ratio = num(&noise, "ratio");
		mt_jview_close(&noise, v);
	}
}

static int read_tensor(mt_check_tensor *t, mt_jview *parent, const json_t *e)
{
	mt_jview v;
	int error;

	mt_jview_init(&v, e, parent->shape);
	t->name = mt_jview_str(&v, "name");
	t->dtype = mt_jview_str(&v, "dtype");
	t->candidate_dtype = mt_jview_opt_str(&v, "candidate_dtype");
	dims(&t->shape, mt_jview_get(&v, "shape"));
	t->passed = mt_jview_bool(&v, "passed", 0);
	if ((t->reason = mt_jview_opt_str(&v, "reason"))) {
		const json_t *shape = mt_jview_opt_get(&v, "candidate_shape");
		t->has_candidate_shape = shape != NULL;
		dims(&t->candidate_shape, shape);
	}
	else
		tensor_figures(t, &v);
	error = strs(&t->warnings, mt_jview_get(&v, "warnings"));
	mt_jview_close(&v, parent);
	return error;
}

static void read_noise(mt_check_tensors *t, mt_jview *v)
{
	mt_jview n;

	if (!(t->has_noise = mt_jview_opt_get(v, "noise") != NULL))
		return;
	mt_jview_sub(&n, v, "noise");
	t->noise.reference2 = mt_jview_str(&n, "reference2");
	t->noise.max_abs = num(&n, "max_abs");
	t->noise.candidate_max_abs = num(&n, "candidate_max_abs");
	t->noise.ratio = num(&n, "ratio");
	t->noise.worst = mt_jview_str(&n, "worst");
	t->noise.worst_ratio = num(&n, "worst_ratio");
	mt_jview_get(&n, "missing");
	mt_jview_close(&n, v);
}

/* `check model`'s recipe and files, required of that kind only. */
static void read_recipe(mt_check_tensors *t, mt_jview *v, int required)
{
	mt_jview r;

	if (!(t->has_recipe = required || mt_jview_opt_get(v, "recipe")))
		return;
	mt_jview_sub(&r, v, "recipe");
	t->recipe.name = mt_jview_str(&r, "name");
	t->recipe.reference = mt_jview_str(&r, "reference");
	t->recipe.candidate = mt_jview_str(&r, "candidate");
	t->recipe.what = mt_jview_str(&r, "what");
	mt_jview_close(&r, v);
	t->model = mt_jview_str(v, "model");
	t->inputs = mt_jview_str(v, "inputs");
}

static int read_pickle(mt_check_tensors *t, mt_jview *v)
{
	const json_t *a = mt_jview_opt_get(v, "pickle_globals");
	size_t n = json_array_size(a);
	mt_jview g;

	if (n && !(t->pickle_globals = calloc(n, sizeof(*t->pickle_globals))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < n; i++) {
		mt_check_pickle *p = &t->pickle_globals[t->npickle++];
		mt_jview_init(&g, json_array_get(a, i), v->shape);
		p->file = mt_jview_str(&g, "file");
		p->name = mt_jview_str(&g, "name");
		p->called = mt_jview_bool(&g, "called", 0);
		mt_jview_close(&g, v);
	}
	return 0;
}

static int read_tensors(mt_check_tensors *t, mt_jview *v, const char *kind)
{
	const json_t *a = mt_jview_get(v, "tensors");
	size_t n = json_array_size(a);
	int error = 0;

	t->stat = mt_jview_str(v, "stat");
	t->equal_nan = mt_jview_bool(v, "equal_nan", 0);
	if (n && !(t->tensors = calloc(n, sizeof(*t->tensors))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < n && error == 0; i++) {
		error = read_tensor(&t->tensors[t->ntensors++], v, json_array_get(a, i));
		t->failed += !t->tensors[i].passed;
	}
	read_noise(t, v);
	read_recipe(t, v, strcmp(kind, "model") == 0);
	if (error < 0 || (error = strs(&t->only_in_reference, mt_jview_get(v, "only_in_reference"))) < 0 ||
	    (error = strs(&t->only_in_candidate, mt_jview_get(v, "only_in_candidate"))) < 0)
		return error;
	return read_pickle(t, v);
}

/* A mark of the curves ({step, value} or null). */
static void mark(mt_check_mark *m, mt_jview *v, const char *key)
{
	mt_jview s;

	m->step = m->value = NAN;
	if (!(m->has = mt_jview_get(v, key) != NULL))
		return;
	mt_jview_sub(&s, v, key);
	m->step = num(&s, "step");
	m->value = num(&s, "value");
	mt_jview_close(&s, v);
}

/* A step: a number, or an older record's mark {step, value}. */
static double step_of(const json_t *x)
{
	return json_is_object(x) ? word_num(json_object_get(x, "step")) : word_num(x);
}

/* The numbers of array a into a new array of n (NAN where not a number);
 * 0 or MT_EIO. */
static int nums(double **out, const json_t *a, size_t n)
{
	*out = NULL;
	if (!n)
		return 0;
	if (!(*out = calloc(n, sizeof(**out))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < n; i++)
		(*out)[i] = word_num(json_array_get(a, i));
	return 0;
}

/* The plotted series, when the result has them (a record older than them
 * has none). */
static int read_series(mt_check_curves *c, mt_jview *v)
{
	const json_t *steps, *ref, *cand;
	mt_jview s;
	size_t n;
	int error;

	if (!mt_jview_opt_get(v, "series"))
		return 0;
	mt_jview_sub(&s, v, "series");
	steps = mt_jview_get(&s, "steps");
	ref = mt_jview_get(&s, "reference");
	cand = mt_jview_get(&s, "candidate");
	mt_jview_close(&s, v);
	n = json_array_size(steps);
	if ((error = nums(&c->series_steps, steps, n)) < 0 ||
	    (error = nums(&c->series_reference, ref, n)) < 0 ||
	    (error = nums(&c->series_candidate, cand, n)) < 0)
		return error;
	c->nseries = n;
	return 0;
}

/* The curves, and each side's system where it was a run (NULL: a file). */
static int read_curves(mt_check_curves *c, mt_jview *v, const char **ref_system,
		       const char **cand_system)
{
	mt_jview s, f;

	c->points = mt_jview_int(v, "points", 0);
	c->only_in_reference = mt_jview_int(v, "only_in_reference", 0);
	c->only_in_candidate = mt_jview_int(v, "only_in_candidate", 0);
	c->outside_band = mt_jview_int(v, "outside_band", 0);
	c->nonfinite_points = mt_jview_int(v, "nonfinite_points", 0);
	c->rtol = num(v, "rtol");
	c->atol = num(v, "atol");
	c->window = mt_jview_int(v, "window", 1);
	c->align = mt_jview_str(v, "align");
	c->final_only = mt_jview_bool(v, "final_only", 0);
	c->first_divergent_step = step_of(mt_jview_get(v, "first_divergent_step"));
	c->diverged_from_step = num(v, "diverged_from_step");
	c->has_max_abs_gap_key = v->obj && json_object_get(v->obj, "max_abs_gap");
	mark(&c->max_abs_gap, v, "max_abs_gap");
	mark(&c->max_rel_gap, v, "max_rel_gap");
	mt_jview_sub(&s, v, "final");
	c->final_step = num(&s, "step");
	c->final_reference = num(&s, "reference");
	c->final_candidate = num(&s, "candidate");
	c->final_agree = mt_jview_bool(&s, "agree", 0);
	mt_jview_close(&s, v);
	c->mean_abs_gap = num(v, "mean_abs_gap");
	mt_jview_sub(&f, v, "files");
	mt_jview_sub(&s, &f, "reference");
	c->value_name = mt_jview_str(&s, "value");
	*ref_system = mt_jview_opt_str(&s, "system");
	mt_jview_close(&s, &f);
	mt_jview_sub(&s, &f, "candidate");
	*cand_system = mt_jview_opt_str(&s, "system");
	mt_jview_close(&s, &f);
	mt_jview_close(&f, v);
	return read_series(c, v);
}

int mt_check_view_read(mt_check_view *v, mt_jview *jv, const char *kind)
{
	int error = 0;

	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->passed = mt_jview_bool(jv, "passed", 0);
	v->rehearsal = mt_jview_bool(jv, "rehearsal", 0);
	v->reference = mt_jview_str(jv, "reference");
	v->candidate = mt_jview_str(jv, "candidate");
	if ((v->is_curves = kind && strcmp(kind, "curves") == 0))
		error = read_curves(&v->c, jv, &v->reference_system, &v->candidate_system);
	else
		error = read_tensors(&v->t, jv, kind ? kind : "");
	if (error == 0)
		error = strs(&v->warnings, mt_jview_opt_get(jv, "warnings"));
	if (error < 0)
		mt_check_view_dispose(v);
	return error;
}

int mt_check_view_read_record(mt_check_view *v, mt_jview *jv)
{
	const char *kind = mt_jview_str(jv, "kind");
	int64_t id = mt_jview_int(jv, "id", 0);
	const char *created = mt_jview_str(jv, "created");
	int error;

	if ((error = mt_check_view_read(v, jv, kind)) < 0)
		return error;
	v->id = id;
	v->created = created;
	return 0;
}

int mt_check_view_read_list(mt_check_view **out, size_t *n, const json_t *records)
{
	size_t count = json_array_size(records);
	mt_jview jv;
	int error = 0;

	*out = NULL;
	*n = 0;
	if (!count)
		return 0;
	if (!(*out = calloc(count, sizeof(**out))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < count && error == 0; i++) {
		mt_jview_init(&jv, json_array_get(records, i), "check record");
		if ((error = mt_check_view_read_record(&(*out)[i], &jv)) == 0)
			(*n)++;
	}
	if (error < 0) {
		mt_check_view_free_list(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return error;
}

const char *mt_check_num(char *buf, size_t size, double d, int digits)
{
	if (isnan(d))
		return "nan";
	if (isinf(d))
		return d > 0 ? "inf" : "-inf";
	if (digits > 0) {
		snprintf(buf, size, "%.*g", digits, d);
		return buf;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, size, "%.*g", p, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return buf;
}

void mt_check_view_dispose(mt_check_view *v)
{
	for (size_t i = 0; i < v->t.ntensors; i++)
		free(v->t.tensors[i].warnings.v);
	free(v->t.tensors);
	free(v->t.only_in_reference.v);
	free(v->t.only_in_candidate.v);
	free(v->t.pickle_globals);
	free(v->warnings.v);
	free(v->c.series_steps);
	free(v->c.series_reference);
	free(v->c.series_candidate);
	memset(v, 0, sizeof(*v));
}

void mt_check_view_free_list(mt_check_view *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mt_check_view_dispose(&v[i]);
	free(v);
}
