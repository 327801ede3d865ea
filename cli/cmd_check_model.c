/* mtrial check model: a TorchScript model run on the CPU in the reference
 * recipe and in the candidate's, outputs compared: an estimate of the
 * precision risk before any hardware is rented. */
#include "check.h"
#include "compare.h"
#include "error.h"
#include "opinventory.h"
#include "mt_torch.h"
#include "parse.h"
#include "tensorfile.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: mtrial check model MODEL.pt --inputs FILE [--recipe fp32|bf16|fp16|f64-as-f32]\n"
    "                          [--rtol R] [--atol A] [--rehearsal] [--json]\n\n"
    "Runs MODEL.pt's forward (a TorchScript archive: torch.jit.script(m).save or\n"
    "torch.jit.trace(m, x).save; no other method) twice on this CPU, on one\n"
    "intra-op thread: in the recipe's reference dtype and in its candidate\n"
    "dtype, the model's parameters and the floating-point inputs cast to each;\n"
    "then compares the outputs as 'check compare' does (outputs named as\n"
    "torch.save names them: 0, 1, ... for a tuple). Recipes (default bf16):\n"
    "  fp32        float32 twice: is the model deterministic on this CPU?\n"
    "  bf16        bfloat16 against float32\n"
    "  fp16        float16 against float32 (many CPU kernels lack float16)\n"
    "  f64-as-f32  float32 against float64\n\n"
    "--inputs FILE holds forward's arguments, which must all be tensors; they\n"
    "are passed positionally, never by keyword:\n"
    "  a torch.save file of a tensor      forward(t)\n"
    "  of a list or tuple of tensors      forward(*items), in order\n"
    "  of a dict of tensors               forward(*values) in key order, sorted\n"
    "                                     by name ({'y': a, 'x': b} gives b, a)\n"
    "  a safetensors file                 forward(*tensors) sorted by name\n"
    "A list with non-tensor items, nested containers and a forward that takes\n"
    "a dict, a list or a non-tensor argument are not supported: libtorch's\n"
    "message names the argument. The arguments passed are said on stderr (and\n"
    "in --json's ran) before the runs.\n\n"
    "TorchScript archives hold code that libtorch compiles when it loads them\n"
    "and that forward runs: open only files you trust.\n"
    "Tolerances: assert_close's defaults for the candidate dtype, or --rtol and\n"
    "--atol. The result is recorded in the trial (--rehearsal: as a rehearsal).\n"
    "Exit status: 0 every output within tolerance, 1 a mismatch, 2 a usage or\n"
    "input error, or a forward that fails.\n";

/* Each recipe: the dtype of the reference run and of the candidate run. */
static const struct recipe {
	const char *name, *ref, *cand, *what;
} recipes[] = {
	{"fp32", "float32", "float32", "float32 twice: is the model deterministic on this CPU?"},
	{"bf16", "float32", "bfloat16", "bfloat16 weights and activations against float32"},
	{"fp16", "float32", "float16", "float16 weights and activations against float32"},
	{"f64-as-f32", "float64", "float32",
	 "float32 against float64: what running float64 code as float32 changes"},
};

static const struct recipe *find_recipe(const char *name)
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

/* "0 float32 [8, 16], 1 float32 [8, 16]" */
static void arguments_text(mt_buf *b, json_t *args)
{
	json_t *a, *d;
	size_t i, j;

	json_array_foreach(args, i, a) {
		mt_buf_printf(b, "%s%s %s [", i ? ", " : "", json_string_value(json_object_get(a, "name")),
			      json_string_value(json_object_get(a, "dtype")));
		json_array_foreach(json_object_get(a, "shape"), j, d)
			mt_buf_printf(b, "%s%lld", j ? ", " : "", (long long)json_integer_value(d));
		mt_buf_puts(b, "]");
	}
	if (!json_array_size(args))
		mt_buf_puts(b, "no argument");
}

/* What check model runs: forward, on which arguments, in which dtypes. */
static json_t *ran_json(const struct recipe *r, const mtt_tensor *args, size_t n)
{
	return json_pack("{s:s, s:s, s:o, s:[ss]}", "method", "forward", "passing", "positional",
			 "arguments", arguments_json(args, n), "dtypes", r->ref, r->cand);
}

/* Says on stderr what is about to run, which the TorchScript notice of the
 * other commands ("runs no method") would not. */
static void say_ran(const char *model, const char *inputs, const struct recipe *r, json_t *ran)
{
	mt_buf b = MT_BUF_INIT;
	arguments_text(&b, json_object_get(ran, "arguments"));
	fprintf(stderr,
		"note: TorchScript archives hold code that libtorch compiles when it loads them "
		"and that forward runs: open only files you trust.\n"
		"note: running %s's forward twice on this CPU (recipe %s: %s, then %s), on the "
		"tensors of %s passed positionally: %s\n",
		model, r->name, r->ref, r->cand, inputs, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

/* Adds to a failed run's message what forward was given. */
static int failed_with(int error, json_t *ran)
{
	char was[2048];
	mt_buf b = MT_BUF_INIT;

	snprintf(was, sizeof(was), "%s", mt_error_last());
	arguments_text(&b, json_object_get(ran, "arguments"));
	mt_error_set(error, "%s (check model passed forward, positionally: %s)", was,
		     mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	return error;
}

struct model_args {
	const char *model, *inputs, *recipe;
	double rtol, atol;
	int rehearsal; /* --rehearsal: listed, never evidence */
};

static int run(struct cli *cli, const struct model_args *a, int *passed)
{
	const struct recipe *r = find_recipe(a->recipe);
	mt_tensor_file *in = NULL;
	mtt_tensor *args = NULL, *ref_out = NULL, *cand_out = NULL;
	size_t nargs = 0, nref = 0, ncand = 0;
	mt_tensor *ref_ts = NULL, *cand_ts = NULL;
	mt_tensor_set *ref = NULL, *cand = NULL;
	mt_cmp_rule rule = {NULL, a->rtol, a->atol, "--rtol/--atol"};
	mt_cmp_options o = {0};
	char ref_name[1200], cand_name[1200];
	json_t *res = NULL, *ran = NULL;
	int64_t size;
	int error;

	if ((error = mt_torchscript_check(a->model, &size)) < 0 ||
	    (error = mt_tensor_file_open(&in, a->inputs)) < 0 ||
	    (error = shim_inputs(in, &args, &nargs)) < 0)
		goto done;
	ran = ran_json(r, args, nargs);
	if (!cli->json)
		say_ran(a->model, a->inputs, r, ran);
	if ((error = mt_torch_run_model(a->model, args, nargs, r->ref, &ref_out, &nref)) < 0 ||
	    (error = mt_torch_run_model(a->model, args, nargs, r->cand, &cand_out, &ncand)) < 0) {
		error = mt_error_last_code() == MT_EINVALID ? failed_with(error, ran) : error;
		goto done;
	}
	if ((error = as_tensors(ref_out, nref, &ref_ts)) < 0 ||
	    (error = as_tensors(cand_out, ncand, &cand_ts)) < 0 ||
	    (error = mt_tensor_set_wrap(&ref, ref_ts, nref, a->model)) < 0 ||
	    (error = mt_tensor_set_wrap(&cand, cand_ts, ncand, a->model)) < 0)
		goto done;
	snprintf(ref_name, sizeof(ref_name), "%s in %s", a->model, r->ref);
	snprintf(cand_name, sizeof(cand_name), "%s in %s", a->model, r->cand);
	if (!isnan(a->rtol) || !isnan(a->atol)) {
		o.rules = &rule;
		o.nrules = 1;
	}
	if ((error = mt_cmp_run(&res, ref, cand, NULL, ref_name, cand_name, NULL, &o)) < 0)
		goto done;
	json_object_set_new(res, "recipe", json_pack("{ss, ss, ss, ss}", "name", r->name, "reference",
						     r->ref, "candidate", r->cand, "what", r->what));
	json_object_set_new(res, "model", json_string(a->model));
	json_object_set_new(res, "inputs", json_string(a->inputs));
	json_object_set(res, "ran", ran);
	mt_cmp_note_pickle(res, in);
	*passed = json_is_true(json_object_get(res, "passed"));
	if (!cli->json)
		check_print_tensors(res);
	if ((error = check_record(cli, "model", res, a->rehearsal, NULL)) == 0 && cli->json)
		cli_print_json(json_incref(res));
done:
	json_decref(ran);
	json_decref(res);
	mt_tensor_set_free(ref);
	mt_tensor_set_free(cand);
	free(ref_ts);
	free(cand_ts);
	mt_torch_tensors_free(ref_out, nref);
	mt_torch_tensors_free(cand_out, ncand);
	free(args);
	mt_tensor_file_free(in);
	return error;
}

int check_model(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"inputs", required_argument, NULL, 'i'},
					     {"recipe", required_argument, NULL, 'r'},
					     {"rtol", required_argument, NULL, 'R'},
					     {"atol", required_argument, NULL, 'A'},
					     CHECK_REHEARSAL_OPTION,
					     {0}};
	struct model_args a = {.recipe = "bf16", .rtol = NAN, .atol = NAN};
	int opt, error, passed = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "hi:r:", opts, NULL)) != -1) {
		switch (opt) {
		case CLI_OPT_HELP: fputs(usage, stdout); return CLI_EXIT_OK;
		case 'i': a.inputs = optarg; break;
		case 'r': a.recipe = optarg; break;
		case CHECK_OPT_REHEARSAL: a.rehearsal = 1; break;
		case 'R':
		case 'A':
			if (mt_parse_nonneg(optarg, opt == 'R' ? &a.rtol : &a.atol) < 0)
				return cli_usage_error(cli, "--%s %s: expected a non-negative number",
						       opt == 'R' ? "rtol" : "atol", optarg);
			break;
		default:
			if (!cli_common_option(cli, opt))
				return cli_usage_error(cli, "bad option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error(cli, "expected one TorchScript model file");
	a.model = argv[optind];
	if (!a.inputs)
		return cli_usage_error(cli, "--inputs FILE is required: forward's arguments, a "
				       "torch.save'd tensor, list, tuple or dict of tensors, or a "
				       "safetensors file (see --help)");
	if (!find_recipe(a.recipe))
		return cli_usage_error(cli, "--recipe %s: expected fp32, bf16, fp16 or f64-as-f32",
				       a.recipe);
	if ((error = run(cli, &a, &passed)) < 0)
		return cli_fail(cli, error);
	return passed ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
