#include "model_trial.h"
#include "error.h"
#include "opinventory.h"
#include "mt_torch.h"
#include "tensorfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const mt_model_trial_recipe recipes[] = {
	{"fp32", "float32", "float32", "float32 twice: is the model deterministic on this CPU?"},
	{"bf16", "float32", "bfloat16", "bfloat16 weights and activations against float32"},
	{"fp16", "float32", "float16", "float16 weights and activations against float32"},
	{"f64-as-f32", "float64", "float32",
	 "float32 against float64: what running float64 code as float32 changes"},
};

const mt_model_trial_recipe *mt_model_trial_recipe_find(const char *name)
{
	for (size_t i = 0; i < sizeof(recipes) / sizeof(recipes[0]); i++)
		if (strcmp(recipes[i].name, name) == 0)
			return &recipes[i];
	return NULL;
}

/* 1 when every name is a non-negative integer ("0", "1", ...). */
static int numeric_names(const mt_tensor_file *f)
{
	for (size_t i = 0; i < mt_tensor_file_count(f); i++) {
		const char *s = mt_tensor_file_at(f, i)->name;
		if (!*s || strspn(s, "0123456789") != strlen(s))
			return 0;
	}
	return 1;
}

static int by_number(const void *a, const void *b)
{
	long x = atol((*(const mtt_tensor *)a).name), y = atol((*(const mtt_tensor *)b).name);
	return (x > y) - (x < y);
}

/* A list's items are named 0, 1, ...: one missing was not a tensor (the
 * reader keeps tensors only), and every later argument would shift. */
static int check_list(const mt_tensor_file *f)
{
	size_t count = mt_tensor_file_count(f);
	for (size_t i = 0; i < count; i++) {
		char name[32];
		snprintf(name, sizeof(name), "%zu", i);
		if (!mt_tensor_file_find(f, name))
			return mt_error_set(MT_EINVALID, "%s: item %zu of the list is not a tensor "
					    "(check model passes forward tensors only, positionally)",
					    mt_tensor_file_path(f), i);
	}
	return 0;
}

/* The inputs as the shim takes them: positional, in file order (sorted by
 * name), or by number when they are named "0", "1", ... (a torch.save'd
 * list or tuple). */
static int shim_inputs(const mt_tensor_file *f, mtt_tensor **out, size_t *n)
{
	size_t count = mt_tensor_file_count(f);
	mtt_tensor *arr;
	int error;

	if (numeric_names(f) && (error = check_list(f)) < 0)
		return error;
	if (!(arr = calloc(count ? count : 1, sizeof(*arr))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < count; i++) {
		const mt_tensor *t = mt_tensor_file_at(f, i);
		arr[i].name = (char *)t->name;
		snprintf(arr[i].dtype, sizeof(arr[i].dtype), "%s", mt_dtype_name(t->dtype));
		arr[i].ndim = t->ndim;
		for (int d = 0; d < t->ndim; d++)
			arr[i].shape[d] = t->shape[d];
		arr[i].data = (void *)t->data;
		arr[i].nbytes = t->nbytes;
	}
	if (numeric_names(f))
		qsort(arr, count, sizeof(*arr), by_number);
	*out = arr;
	*n = count;
	return 0;
}

/* A run's outputs as tensors for the comparison (borrowing the shim's). */
static int as_tensors(const mtt_tensor *outs, size_t n, mt_tensor **ts)
{
	mt_tensor *arr = calloc(n ? n : 1, sizeof(*arr));
	if (!arr)
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < n; i++) {
		int dt = mt_dtype_parse(outs[i].dtype);
		if (dt < 0) {
			free(arr);
			return mt_error_set(MT_EINVALID, "output %s: dtype %s cannot be compared",
					    outs[i].name, outs[i].dtype);
		}
		arr[i].name = outs[i].name;
		arr[i].dtype = (mt_dtype)dt;
		arr[i].ndim = outs[i].ndim;
		arr[i].numel = 1;
		for (int d = 0; d < outs[i].ndim; d++) {
			arr[i].shape[d] = outs[i].shape[d];
			arr[i].numel *= (uint64_t)outs[i].shape[d];
		}
		arr[i].data = outs[i].data;
		arr[i].nbytes = outs[i].nbytes;
	}
	*ts = arr;
	return 0;
}

/* What the runs pass forward, as JSON: [{name, dtype, shape}] in order. */
static json_t *arguments_json(const mtt_tensor *args, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *shape = json_array();
		for (int d = 0; d < args[i].ndim; d++)
			json_array_append_new(shape, json_integer(args[i].shape[d]));
		json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "name", args[i].name, "dtype",
						   args[i].dtype, "shape", shape));
	}
	return a;
}

/* "0 float32 [8, 16], 1 float32 [8, 16]": what the runs pass, in words. */
static void arguments_text(mt_buf *b, const mtt_tensor *args, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		mt_buf_printf(b, "%s%s %s [", i ? ", " : "", args[i].name, args[i].dtype);
		for (int d = 0; d < args[i].ndim; d++)
			mt_buf_printf(b, "%s%lld", d ? ", " : "", (long long)args[i].shape[d]);
		mt_buf_puts(b, "]");
	}
	if (!n)
		mt_buf_puts(b, "no argument");
}

/* What check model runs: forward, on which arguments, in which dtypes. */
static json_t *ran_json(const mt_model_trial_recipe *r, const mtt_tensor *args, size_t n)
{
	return json_pack("{s:s, s:s, s:o, s:[ss]}", "method", "forward", "passing", "positional",
			 "arguments", arguments_json(args, n), "dtypes", r->ref, r->cand);
}

/* Adds to a failed run's message what forward was given. */
static int failed_with(int error, const char *arguments)
{
	char was[2048];

	snprintf(was, sizeof(was), "%s", mt_error_last());
	return mt_error_set(error, "%s (check model passed forward, positionally: %s)", was,
			    arguments);
}

/* The two runs' outputs: the shim's, then as tensor sets for the comparison. */
struct model_runs {
	mtt_tensor *out[2];
	size_t n[2];
	mt_tensor *ts[2];
	mt_tensor_set *set[2];
};

static void runs_dispose(struct model_runs *m)
{
	for (int i = 0; i < 2; i++) {
		mt_tensor_set_free(m->set[i]);
		free(m->ts[i]);
		mt_torch_tensors_free(m->out[i], m->n[i]);
	}
}

/* Runs forward in both dtypes of the recipe on the same arguments. */
static int run_both(struct model_runs *m, const char *model, const mt_model_trial_recipe *r,
		    const mtt_tensor *args, size_t nargs, const char *arguments)
{
	const char *dtypes[2] = {r->ref, r->cand};
	int error;

	for (int i = 0; i < 2; i++)
		if ((error = mt_torch_run_model(model, args, nargs, dtypes[i], &m->out[i],
						&m->n[i])) < 0)
			return mt_error_last_code() == MT_EINVALID ? failed_with(error, arguments) : error;
	for (int i = 0; i < 2; i++)
		if ((error = as_tensors(m->out[i], m->n[i], &m->ts[i])) < 0 ||
		    (error = mt_tensor_set_wrap(&m->set[i], m->ts[i], m->n[i], model)) < 0)
			return error;
	return 0;
}

/* What the result says besides the comparison: the recipe, the files, what ran. */
static void describe(json_t *res, const mt_model_trial_options *o,
		     const mt_model_trial_recipe *r, json_t *ran, const mt_tensor_file *in)
{
	json_object_set_new(res, "recipe", json_pack("{ss, ss, ss, ss}", "name", r->name, "reference",
						     r->ref, "candidate", r->cand, "what", r->what));
	json_object_set_new(res, "model", json_string(o->model));
	json_object_set_new(res, "inputs", json_string(o->inputs));
	json_object_set(res, "ran", ran);
	mt_cmp_note_pickle(res, in);
}

int mt_model_trial_check(mt_check_trial_result *out, mt_trial *t,
			 const mt_model_trial_options *o)
{
	const mt_model_trial_recipe *r = mt_model_trial_recipe_find(o->recipe);
	mt_tensor_file *in = NULL;
	mtt_tensor *args = NULL;
	size_t nargs = 0;
	struct model_runs m = {0};
	mt_cmp_rule rule = {NULL, o->rtol, o->atol, o->typed_source};
	mt_cmp_options cmp = {0};
	char ref_name[1200], cand_name[1200];
	json_t *ran = NULL;
	mt_buf words = MT_BUF_INIT;
	int64_t size;
	int error;

	memset(out, 0, sizeof(*out));
	if (!r)
		return mt_error_set(MT_EUSAGE, "recipe %s: expected fp32, bf16, fp16 or f64-as-f32",
				    o->recipe);
	if ((error = mt_opinventory_torchscript_check(o->model, &size)) < 0 ||
	    (error = mt_tensor_file_open(&in, o->inputs)) < 0 ||
	    (error = shim_inputs(in, &args, &nargs)) < 0)
		goto done;
	ran = ran_json(r, args, nargs);
	arguments_text(&words, args, nargs);
	if (o->running)
		o->running(r, mt_buf_cstr(&words), o->payload);
	if ((error = run_both(&m, o->model, r, args, nargs, mt_buf_cstr(&words))) < 0)
		goto done;
	snprintf(ref_name, sizeof(ref_name), "%s in %s", o->model, r->ref);
	snprintf(cand_name, sizeof(cand_name), "%s in %s", o->model, r->cand);
	if (!isnan(o->rtol) || !isnan(o->atol)) {
		cmp.rules = &rule;
		cmp.nrules = 1;
	}
	if ((error = mt_cmp_run(&out->result, m.set[0], m.set[1], NULL, ref_name, cand_name, NULL,
				&cmp)) < 0)
		goto done;
	describe(out->result, o, r, ran, in);
	error = mt_check_trial_record(out, t, "model", o->rehearsal);
done:
	json_decref(ran);
	mt_buf_dispose(&words);
	runs_dispose(&m);
	free(args);
	mt_tensor_file_free(in);
	return error;
}
