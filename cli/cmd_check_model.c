/* mtrial check model: a TorchScript model run on the CPU in the reference
 * recipe and in the candidate's, outputs compared: an estimate of the
 * precision risk before any hardware is rented. */
#include "check.h"
#include "compare.h"
#include "error.h"
#include "exact.h"
#include "mt_torch.h"
#include "parse.h"
#include "tensorfile.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The inputs as the shim takes them: positional, in file order, or by
 * number when they are named "0", "1", ... (a torch.save'd list or tuple). */
static int shim_inputs(const mt_tensor_file *f, mtt_tensor **out, size_t *n)
{
	size_t count = mt_tensor_file_count(f);
	mtt_tensor *arr = calloc(count ? count : 1, sizeof(*arr));

	if (!arr)
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
	json_t *res = NULL;
	int64_t size;
	int error;

	if ((error = mt_torchscript_check(a->model, &size)) < 0 ||
	    (error = mt_tensor_file_open(&in, a->inputs)) < 0 ||
	    (error = shim_inputs(in, &args, &nargs)) < 0)
		goto done;
	if (!cli->json)
		fprintf(stderr, "note: %s\n", MT_TORCHSCRIPT_NOTICE);
	if ((error = mt_torch_run_model(a->model, args, nargs, r->ref, &ref_out, &nref)) < 0 ||
	    (error = mt_torch_run_model(a->model, args, nargs, r->cand, &cand_out, &ncand)) < 0 ||
	    (error = as_tensors(ref_out, nref, &ref_ts)) < 0 ||
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
	*passed = json_is_true(json_object_get(res, "passed"));
	if (!cli->json)
		check_print_tensors(res);
	if ((error = check_record(cli, "model", res, a->rehearsal, NULL)) == 0 && cli->json)
		cli_print_json(json_incref(res));
done:
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
	while ((opt = cli_getopt(cli, argc, argv, "hi:r:", opts)) >= 0) {
		switch (opt) {
		case 'i': a.inputs = optarg; break;
		case 'r': a.recipe = optarg; break;
		case CHECK_OPT_REHEARSAL: a.rehearsal = 1; break;
		case 'R':
		case 'A':
			if (mt_parse_nonneg(optarg, opt == 'R' ? &a.rtol : &a.atol) < 0)
				return cli_usage_error(cli, "--%s %s: expected a non-negative number",
						       opt == 'R' ? "rtol" : "atol", optarg);
			break;
		default: return cli_usage_error(cli, "bad option");
		}
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind + 1 != argc)
		return cli_usage_error(cli, "expected one TorchScript model file");
	a.model = argv[optind];
	if (!a.inputs)
		return cli_usage_error(cli, "--inputs FILE is required (safetensors or torch.save: "
				       "the forward's arguments, named 0, 1, ... in order)");
	if (!find_recipe(a.recipe))
		return cli_usage_error(cli, "--recipe %s: expected fp32, bf16, fp16 or f64-as-f32",
				       a.recipe);
	if ((error = run(cli, &a, &passed)) < 0)
		return cli_fail(cli, error);
	return passed ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
