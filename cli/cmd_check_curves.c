/* mtrial check curves: a candidate's loss curve against the reference's,
 * step by step inside a tolerance band. */
#include "check.h"
#include "check_trial.h"
#include "curves.h"
#include "error.h"
#include "trial.h"
#include "parse.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The aligned series in the JSON is capped so a TUI can draw it at once. */

static const char usage[] =
	"Usage: mtrial check curves REFERENCE CANDIDATE [--rtol R] [--atol A] [--window N]\n"
	"                           [--key K] [--step-col C] [--value-col C] [--align step|index]\n"
	"                           [--format auto|csv|jsonl|mllog] [--final-only]\n"
	"                           [--target V [--lower-is-better|--higher-is-better]]\n"
	"                           [--rehearsal] [--json]\n\n"
	"Compares two curves of (step, value): CSV with a header row (comma or tab),\n"
	"JSON Lines (one object a line), or MLPerf logs (':::MLLOG {json}' lines);\n"
	"or runs: run:N (or N alone when no file has that name) is run #N of the\n"
	"trial, as 'mtrial runs' lists it, and a file of `mtrial run`'s timed lines\n"
	"(.mtrial/runs/*.log) or of mtrial: protocol lines is a run's log. A run is\n"
	"read by the rules every run is read with (tables/run_events.yaml): the\n"
	"value is the step lines' loss= (mtrial:step=N loss=L), else the first of\n"
	"train_loss, loss, eval_loss, eval_accuracy logged (MLLOG keys or\n"
	"mtrial:eval fields; --key names another), by step, else MLLOG's epoch_num,\n"
	"else samples_count (--step-col step|epoch|samples).\n"
	"For files:\n"
	"The step comes from step/iteration/iter/global_step, the value from\n"
	"loss/train_loss/eval_loss/value unless --step-col and --value-col (or --key)\n"
	"name them. In an MLPerf log --key is the event key (default: the first of\n"
	"train_loss, loss, eval_loss, eval_accuracy logged; 'key.field' reads a member\n"
	"of an object value) and --step-col the metadata field (default step_num,\n"
	"else epoch_num, else samples_count).\n\n"
	"Points are paired by equal steps (--align index pairs them by position). A\n"
	"point agrees when |cand - ref| <= atol + rtol * |ref|. The defaults, rtol 0.05\n"
	"and atol 0, allow the few per cent that a run in another precision and\n"
	"reduction order drifts by, at any loss scale; add --atol for values near zero.\n"
	"--window N compares moving means over N points (per-step loss is noisy).\n"
	"Passes when every compared point agrees (--final-only: the last one).\n"
	"--target V reports the first step each curve reaches V (lower is better\n"
	"unless the value's name says accuracy or --higher-is-better).\n"
	"--rehearsal records the check as a rehearsal: stand-ins compared (two CPU\n"
	"runs, a smaller config) to test the comparison, listed but never evidence.\n"
	"Exit status: 0 pass, 1 mismatch, 2 error.\n";

struct curves_args {
	const char *ref, *cand;
	mt_check_trial_curves_options o; /* --rehearsal: stand-ins compared, never evidence */
};

enum {
	OPT_RTOL = 0x2001,
	OPT_ATOL,
	OPT_WINDOW,
	OPT_KEY,
	OPT_STEP,
	OPT_VALUE,
	OPT_ALIGN,
	OPT_FORMAT,
	OPT_FINAL,
	OPT_TARGET,
	OPT_LOWER,
	OPT_HIGHER,
};

static int number_arg(struct cli *cli, const char *name, const char *s, double *out)
{
	if (mt_parse_nonneg(s, out) < 0)
		return cli_usage_error(cli, "--%s wants a number >= 0, not '%s'", name, s);
	return 0;
}

static int choice_arg(struct cli *cli, const char *name, const char *s,
		      const char *const *choices, int *out)
{
	for (int i = 0; choices[i]; i++)
		if (strcmp(s, choices[i]) == 0)
			return *out = i, 0;
	return cli_usage_error(cli, "unknown --%s '%s'", name, s);
}

/* One option; returns 0 or a usage exit status. */
static int take_option(struct cli *cli, struct curves_args *a, int opt)
{
	static const char *const aligns[] = {"step", "index", NULL};
	static const char *const formats[] = {"auto", "csv", "jsonl", "mllog", NULL};
	double v;
	int i = 0;

	switch (opt) {
	case CHECK_OPT_REHEARSAL:
		a->o.rehearsal = 1;
		return 0;
	case OPT_RTOL:
		return number_arg(cli, "rtol", optarg, &a->o.cmp.rtol);
	case OPT_ATOL:
		return number_arg(cli, "atol", optarg, &a->o.cmp.atol);
	case OPT_WINDOW:
		if (number_arg(cli, "window", optarg, &v) || v < 1 || v != floor(v) || v > 1e6)
			return cli_usage_error(cli, "--window wants a whole number of points >= 1");
		a->o.cmp.window = (int)v;
		return 0;
	case OPT_KEY:
	case OPT_VALUE:
		if (a->o.read.value && strcmp(a->o.read.value, optarg) != 0)
			return cli_usage_error(cli, "--key and --value-col name the same thing");
		a->o.read.value = optarg;
		return 0;
	case OPT_STEP:
		a->o.read.step = optarg;
		return 0;
	case OPT_ALIGN:
		return choice_arg(cli, "align", optarg, aligns, &a->o.cmp.align_index);
	case OPT_FORMAT:
		if (choice_arg(cli, "format", optarg, formats, &i))
			return CLI_EXIT_USAGE;
		a->o.read.format = (mt_curve_format)(i == 0 ? MT_CURVE_AUTO : i);
		return 0;
	case OPT_FINAL:
		a->o.cmp.final_only = 1;
		return 0;
	case OPT_TARGET: {
		char *end;
		a->o.cmp.target = strtod(optarg, &end);
		if (end == optarg || *end || !isfinite(a->o.cmp.target))
			return cli_usage_error(cli, "--target wants a number, not '%s'", optarg);
		a->o.cmp.has_target = 1;
		return 0;
	}
	case OPT_LOWER:
	case OPT_HIGHER:
		a->o.direction = opt == OPT_HIGHER ? 1 : -1;
		return 0;
	default:
		return cli_usage_error(cli, "bad option");
	}
}

/* Returns -1 to go on, else the exit status to return at once. */
static int parse_args(struct cli *cli, int argc, char **argv, struct curves_args *a)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"rtol", required_argument, NULL, OPT_RTOL},
					     {"atol", required_argument, NULL, OPT_ATOL},
					     {"window", required_argument, NULL, OPT_WINDOW},
					     {"key", required_argument, NULL, OPT_KEY},
					     {"step-col", required_argument, NULL, OPT_STEP},
					     {"value-col", required_argument, NULL, OPT_VALUE},
					     {"align", required_argument, NULL, OPT_ALIGN},
					     {"format", required_argument, NULL, OPT_FORMAT},
					     {"final-only", no_argument, NULL, OPT_FINAL},
					     {"target", required_argument, NULL, OPT_TARGET},
					     {"lower-is-better", no_argument, NULL, OPT_LOWER},
					     {"higher-is-better", no_argument, NULL, OPT_HIGHER},
					     CHECK_REHEARSAL_OPTION,
					     {0}};
	int opt, status;

	mt_check_trial_curves_defaults(&a->o);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == CLI_OPT_HELP)
			return fputs(usage, stdout), CLI_EXIT_OK;
		if (cli_common_option(cli, opt))
			continue;
		if ((status = take_option(cli, a, opt)) != 0)
			return status;
	}
	if (argc - optind != 2)
		return cli_usage_error(cli, "curves wants two files, REFERENCE and CANDIDATE");
	if (a->o.direction && !a->o.cmp.has_target)
		return cli_usage_error(cli, "--lower-is-better and --higher-is-better "
					    "need --target");
	a->ref = argv[optind];
	a->cand = argv[optind + 1];
	return -1;
}

static void print_series(const char *role, const mt_curve *c)
{
	printf("  %-9s %s: %zu points", role, c->path, c->n);
	if (c->nonfinite)
		printf(", %zu NaN or inf (diverged?)", c->nonfinite);
	if (c->status)
		printf(", run %s", c->status);
	printf("\n");
}

static void print_divergence(const mt_curve_cmp *r)
{
	if (!r->outside) {
		printf("Every compared point is inside the band.\n");
		return;
	}
	printf("Outside the band: %zu of %zu points, the first at step %g", r->outside, r->n,
	       r->first_divergent.step);
	if (r->diverged_from.has)
		printf("; diverged from step %g (outside to the last point)",
		       r->diverged_from.step);
	else
		printf("; back inside by the last point");
	printf(".\n");
	if (r->nonfinite)
		printf("%zu compared points hold NaN or inf.\n", r->nonfinite);
}

static void print_target(const mt_curve_cmp *r, const mt_curve_cmp_opts *o)
{
	printf("Target %g (%s is better): reference ", o->target,
	       o->higher_is_better ? "higher" : "lower");
	r->target_ref.has ? printf("at step %g", r->target_ref.step) : printf("never");
	printf(", candidate ");
	r->target_cand.has ? printf("at step %g", r->target_cand.step) : printf("never");
	if (r->target_ref.has && r->target_cand.has && r->target_ref.step != 0)
		printf(" (%.3gx the reference's steps)", r->target_cand.step / r->target_ref.step);
	printf(".\n");
}

static int plot_width(void)
{
	struct winsize ws;
	int cols = 80;
	const char *env = getenv("COLUMNS");

	if (env && atoi(env) > 0)
		cols = atoi(env);
	else if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		cols = ws.ws_col;
	cols -= 14; /* the axis labels */
	return cols < 20 ? 20 : cols > 100 ? 100 : cols;
}

static void print_text(const mt_curve *ref, const mt_curve *cand, const mt_curve_cmp *r,
		       const mt_curve_cmp_opts *o)
{
	mt_buf plot = MT_BUF_INIT;

	printf("Curves: %s by %s (%s)\n", ref->value_name, ref->step_name, ref->format);
	print_series("reference", ref);
	print_series("candidate", cand);
	printf("Compared %zu points paired by %s; %zu only in the reference, %zu only in the "
	       "candidate.\n",
	       r->n, o->align_index ? "position" : "step", r->only_ref, r->only_cand);
	printf("Band: |cand - ref| <= %g + %g * |ref|", o->atol, o->rtol);
	if (o->window > 1)
		printf(", on moving means over %d points", o->window);
	printf(".\n");
	print_divergence(r);
	if (r->max_abs_gap.has)
		printf("Largest gap: %.4g at step %g", r->max_abs_gap.value, r->max_abs_gap.step);
	if (r->max_rel_gap.has)
		printf("; relative %.3g%% at step %g", 100 * r->max_rel_gap.value,
		       r->max_rel_gap.step);
	if (isfinite(r->mean_abs_gap))
		printf(". Mean absolute gap %.4g.\n", r->mean_abs_gap);
	printf("Final (step %g): reference %.6g, candidate %.6g: %s.\n", r->final_step,
	       r->final_ref, r->final_cand, r->final_agree ? "agree" : "DISAGREE");
	if (o->has_target)
		print_target(r, o);
	mt_curve_plot(&plot, r, plot_width(), 10);
	fputs(mt_buf_cstr(&plot), stdout);
	mt_buf_dispose(&plot);
	if (r->passed)
		printf("PASS%s\n", o->final_only ? " (final value)" : "");
	else if (o->final_only)
		printf("FAIL: the final values disagree\n");
	else
		printf("FAIL: %zu of %zu points outside the band\n", r->outside, r->n);
}

/* A run's id ("run:3", or 3 with no such file) needs the trial's journal;
 * two files need none, and are compared and not recorded without one. */
static int open_trial(struct cli *cli, const struct curves_args *a, mt_trial **t)
{
	if (mt_curve_run_id(a->ref) > 0 || mt_curve_run_id(a->cand) > 0)
		return cli_open_trial(cli, t, 0);
	return check_open_trial(cli, t, 0);
}

int check_curves(struct cli *cli, int argc, char **argv)
{
	struct curves_args a = {0};
	mt_check_trial_curves_result r = {0};
	mt_trial *t = NULL;
	int status, error;

	if ((status = parse_args(cli, argc, argv, &a)) >= 0)
		return status;
	if ((error = open_trial(cli, &a, &t)) < 0)
		goto cleanup;
	error = mt_check_trial_curves(&r, t, a.ref, a.cand, &a.o);
	if (r.check.result && !cli->json)
		print_text(r.ref, r.cand, &r.cmp, &a.o.cmp);
	if (error < 0)
		goto cleanup;
	check_say_recorded(cli, t, r.check.check_id, a.o.rehearsal);
	if (cli->json)
		cli_print_json(json_incref(r.check.result));
	status = r.check.passed ? CLI_EXIT_OK : CLI_EXIT_FAIL;
cleanup:
	mt_check_trial_curves_dispose(&r);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : status;
}
