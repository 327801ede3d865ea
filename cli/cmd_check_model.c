/* mtrial check model: a TorchScript model run on the CPU in the reference
 * recipe and in the candidate's, outputs compared: an estimate of the
 * precision risk before any hardware is rented (core/model_trial.h). */
#include "check.h"
#include "error.h"
#include "model_trial.h"
#include "parse.h"
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

/* Says on stderr what is about to run, which the TorchScript notice of the
 * other commands ("runs no method") would not. */
static void say_ran(const mt_model_trial_recipe *r, const char *arguments, void *payload)
{
	const mt_model_trial_options *o = payload;

	fprintf(stderr,
		"note: TorchScript archives hold code that libtorch compiles when it loads them "
		"and that forward runs: open only files you trust.\n"
		"note: running %s's forward twice on this CPU (recipe %s: %s, then %s), on the "
		"tensors of %s passed positionally: %s\n",
		o->model, r->name, r->ref, r->cand, o->inputs, arguments);
}

static int run(struct cli *cli, mt_model_trial_options *o, int *passed)
{
	mt_check_trial_result r = {0};
	mt_trial *t = NULL;
	int error;

	if ((error = check_open_trial(cli, &t, 0)) < 0)
		return error;
	if (!cli->json)
		o->running = say_ran;
	o->payload = o;
	error = mt_model_trial_check(&r, t, o);
	*passed = r.passed;
	if (r.result && !cli->json)
		check_print_tensors(&r.view);
	if (error == 0)
		check_say_recorded(cli, t, r.check_id, o->rehearsal);
	if (error == 0 && cli->json)
		cli_print_json(json_incref(r.result));
	mt_check_trial_result_dispose(&r);
	mt_trial_free(t);
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
	mt_model_trial_options a = {.recipe = "bf16", .rtol = NAN, .atol = NAN,
				     .typed_source = "--rtol/--atol"};
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
	if (!mt_model_trial_recipe_find(a.recipe))
		return cli_usage_error(cli, "--recipe %s: expected fp32, bf16, fp16 or f64-as-f32",
				       a.recipe);
	if ((error = run(cli, &a, &passed)) < 0)
		return cli_fail(cli, error);
	return passed ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
