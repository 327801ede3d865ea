/* mtrial check compare: a candidate's tensors against the reference's. */
#include "check.h"
#include "check_trial.h"
#include "compare.h"
#include "tolerances.h"
#include "error.h"
#include "parse.h"
#include "tensorfile.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "Usage: mtrial check compare REF CAND [--rtol R] [--atol A] [--tol GLOB=RTOL,ATOL]...\n"
    "                            [--stat elemwise|max|mean|median|quantile:Q]\n"
    "                            [--equal-nan] [--noise REF2] [--rehearsal] [--json]\n\n"
    "Compares the tensors of CAND (the trial system) with those of REF (the\n"
    "reference system, the expected side), matched by name. REF and CAND are\n"
    "safetensors files, torch.save files (a tensor, or dicts, lists and tuples of\n"
    "them: names joined with '.'), or directories of *.safetensors, *.pt and\n"
    "*.pth files. A torch.save file's pickle is never run: a global it names\n"
    "beyond what tensors need (os.system, a class of the author's) is warned\n"
    "about, as torch.load(weights_only=False) would import or call it; the\n"
    "warning is in --json's warnings and pickle_globals and in the recorded\n"
    "check, and leaves the verdict alone.\n\n"
    "An element passes when |cand - ref| <= atol + rtol * |ref|, the rule of\n"
    "torch.testing.assert_close, with its defaults per dtype (float16 1e-3/1e-5,\n"
    "bfloat16 1.6e-2/1e-5, float32 1.3e-6/1e-5, float64 1e-7/1e-7, integers and\n"
    "bool exact; for two dtypes, the looser). NaN never equals NaN unless\n"
    "--equal-nan; Inf equals only Inf of the same sign.\n\n"
    "Tolerances, the first that names a tensor wins: --tol GLOB=RTOL,ATOL (an\n"
    "fnmatch glob over tensor names, repeatable, in the order given), --rtol and\n"
    "--atol (every tensor; one alone keeps the dtype's default for the other),\n"
    "trial.yaml's tolerances.overrides, then tolerances.default, then the\n"
    "dtype's default.\n\n"
    "--stat: elemwise (default) passes a tensor when every element passes.\n"
    "max, mean, median and quantile:Q follow Polygraphy's --check-error-stat:\n"
    "that statistic of the absolute errors is compared with atol and of the\n"
    "relative errors (|ref| = 0 counted as 2.2e-16) with rtol; the tensor passes\n"
    "when either is within. median and quantile keep both error arrays in\n"
    "memory: 16 bytes per element of the largest tensor.\n\n"
    "--noise REF2: a second run of the reference system (another seed); REF2 is\n"
    "compared with REF too, and each tensor's greatest absolute error is given\n"
    "as a multiple of the reference's own.\n\n"
    "The result is recorded in the trial; --rehearsal records it as a rehearsal\n"
    "(stand-ins compared to test the comparison: listed, never evidence).\n"
    "Exit status: 0 every tensor passed, 1 a mismatch (or a tensor on one side\n"
    "only), 2 a usage or input error.\n"
    "MTRIAL_CHECK_THREADS sets the number of threads (default 2).\n";

struct args {
	const char *ref, *cand;
	mt_check_trial_compare_options o; /* --rehearsal: stand-ins compared, never evidence */
	mt_cmp_rules rules;               /* --tol's, in the order given */
};

/* --tol GLOB=RTOL,ATOL */
static int parse_tol(struct args *a, const char *arg)
{
	char *glob = NULL, *src;
	double rtol, atol;
	int error;

	if ((error = mt_parse_tol(arg, &glob, &rtol, &atol)) < 0)
		return error;
	if (asprintf(&src, "--tol %s", glob) < 0)
		abort();
	error = mt_cmp_rules_add(&a->rules, glob, rtol, atol, src);
	free(src);
	free(glob);
	return error;
}

static void progress(uint64_t done, uint64_t total, void *payload)
{
	(void)payload;
	cli_status_line("comparing: %3.0f%% of %.1f MB", total ? 100.0 * done / total : 100,
	                total / 1e6);
	if (done >= total)
		cli_status_line(NULL);
}

/* A number as Python prints it where that matters little: the shortest %g
 * that reads back the same. */
static const char *num(char *buf, size_t size, double d)
{
	return mt_check_num(buf, size, d, 0);
}

/* (1, 2) as Python prints a tuple, or [1, 2] a shape. */
static const char *dims_str(char *buf, size_t size, const mt_check_dims *d, int tuple)
{
	size_t len = (size_t)snprintf(buf, size, "%s", tuple ? "(" : "[");
	for (int i = 0; i < d->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
		                        (long long)d->v[i]);
	if (len < size)
		snprintf(buf + len, size - len, "%s", !tuple ? "]" : d->n == 1 ? ",)" : ")");
	return buf;
}

/* A failing tensor, in assert_close's words. */
static void print_failure(const mt_check_tensor *e)
{
	char a[64], b[64], idx[256], shape[256];
	long long mism = e->mismatched, numel = e->numel;

	printf("\nFAIL %s (%s%s%s, shape %s)\n", e->name, e->dtype,
	       e->candidate_dtype ? " vs candidate " : "",
	       e->candidate_dtype ? e->candidate_dtype : "",
	       dims_str(shape, sizeof(shape), &e->shape, 0));
	if (e->reason) {
		printf("  Not compared: %s", e->reason);
		if (e->has_candidate_shape)
			printf(" (candidate %s)",
			       dims_str(shape, sizeof(shape), &e->candidate_shape, 0));
		printf("\n");
		return;
	}
	printf("  Tolerance: rtol %s, atol %s (%s)\n", num(a, sizeof(a), e->rtol),
	       num(b, sizeof(b), e->atol), e->tolerance_source);
	printf("  Mismatched elements: %lld / %lld (%.1f%%)\n", mism, numel,
	       numel ? 100.0 * (double)mism / (double)numel : 0.0);
	printf("  Greatest absolute difference: %s at index %s (up to %s allowed)\n",
	       num(a, sizeof(a), e->max_abs), dims_str(idx, sizeof(idx), &e->max_abs_index, 1),
	       num(b, sizeof(b), e->atol));
	printf("  Greatest relative difference: %s at index %s (up to %s allowed)\n",
	       num(a, sizeof(a), e->max_rel), dims_str(idx, sizeof(idx), &e->max_rel_index, 1),
	       num(b, sizeof(b), e->rtol));
	if (mism && (e->min_atol > e->max_abs || e->min_rtol > e->max_rel))
		printf("  Over all elements: greatest absolute %s, relative %s (the two above are "
		       "over the mismatched elements, as assert_close reports them)\n",
		       num(a, sizeof(a), e->min_atol), num(b, sizeof(b), e->min_rtol));
	if (e->has_stat)
		printf("  Statistic: absolute %s, relative %s\n", num(a, sizeof(a), e->stat_abs),
		       num(b, sizeof(b), e->stat_rel));
	for (size_t i = 0; i < e->warnings.n; i++)
		printf("  warning: %s\n", e->warnings.v[i]);
}

/* A number in a table column: 3 significant digits. */
static const char *short_num(char *buf, size_t size, double d)
{
	return mt_check_num(buf, size, d, 3);
}

static void print_table(const mt_check_tensors *res)
{
	char a[32], b[32], c[32], d[32], r[32], t[32], shape[64];

	printf("\n%-4s %-32s %-9s %-14s %10s %9s %9s %9s %7s  %s\n", "", "tensor", "dtype", "shape",
	       "mismatched", "min atol", "min rtol", "cosine", "noise x", "rtol/atol (from)");
	for (size_t i = 0; i < res->ntensors; i++) {
		const mt_check_tensor *e = &res->tensors[i];
		dims_str(shape, sizeof(shape), &e->shape, 0);
		if (e->reason) {
			printf("%-4s %-32s %-9s %-14s %s\n", "FAIL", e->name, e->dtype, shape,
			       e->reason);
			continue;
		}
		printf("%-4s %-32s %-9s %-14s %10lld %9s %9s %9s %7s  %s/%s (%s)\n",
		       e->passed ? "ok" : "FAIL", e->name, e->dtype, shape, (long long)e->mismatched,
		       short_num(a, sizeof(a), e->min_atol), short_num(b, sizeof(b), e->min_rtol),
		       short_num(c, sizeof(c), e->cosine),
		       e->has_noise ? short_num(d, sizeof(d), e->noise_ratio) : "-",
		       num(r, sizeof(r), e->rtol), num(t, sizeof(t), e->atol),
		       e->tolerance_source);
	}
}

static void print_names(const mt_check_strs *names, const char *title)
{
	if (!names->n)
		return;
	printf("\n%s:", title);
	for (size_t i = 0; i < names->n; i++)
		printf(" %s", names->v[i]);
	printf("\n");
}

/* The noise floor: the candidate's error as a multiple of the reference's own. */
static void print_noise(const mt_check_tensors *res)
{
	char a[64], b[64], c[64];

	printf("\nNoise floor (%s against the reference): the candidate's greatest absolute "
	       "error is %sx the reference's own (%s); worst tensor %s at %sx\n",
	       res->noise.reference2, num(a, sizeof(a), res->noise.ratio),
	       num(b, sizeof(b), res->noise.max_abs), res->noise.worst ? res->noise.worst : "-",
	       /* no tensor had a noise run: 0, as a JSON null always printed */
	       res->noise.worst ? num(c, sizeof(c), res->noise.worst_ratio) : "0");
}

void check_print_tensors(const mt_check_view *v)
{
	const mt_check_tensors *res = &v->t;
	size_t n = res->ntensors, only = res->only_in_reference.n + res->only_in_candidate.n;

	printf("Reference (expected): %s\nCandidate:            %s\n"
	       "Rule: |cand - ref| <= atol + rtol * |ref|, stat %s%s\n",
	       v->reference, v->candidate, res->stat, res->equal_nan ? ", NaN equals NaN" : "");
	for (size_t i = 0; i < n; i++)
		if (!res->tensors[i].passed)
			print_failure(&res->tensors[i]);
	print_names(&res->only_in_reference, "Only in the reference");
	print_names(&res->only_in_candidate, "Only in the candidate");
	print_table(res);
	if (res->has_noise)
		print_noise(res);
	if (v->warnings.n)
		printf("\n");
	for (size_t i = 0; i < v->warnings.n; i++)
		printf("warning: %s\n", v->warnings.v[i]);
	printf("\n%s: %zu of %zu tensors passed", v->passed ? "PASS" : "FAIL", n - res->failed, n);
	if (only)
		printf("; %zu only in the reference, %zu only in the candidate",
		       res->only_in_reference.n, res->only_in_candidate.n);
	printf(".\n");
}

static int run(struct cli *cli, struct args *a, int *passed)
{
	mt_check_trial_result r = {0};
	mt_trial *t = NULL;
	int error;

	/* a trial.yaml that does not load is an error: its tolerances are unknown */
	if ((error = check_open_trial(cli, &t, 1)) < 0)
		return error;
	if (!cli->json && isatty(STDERR_FILENO))
		a->o.cmp.progress = progress;
	error = mt_check_trial_compare(&r, t, a->ref, a->cand, &a->rules, &a->o);
	*passed = r.passed;
	if (r.result && !cli->json)
		check_print_tensors(&r.view);
	if (error == 0)
		check_say_recorded(cli, t, r.check_id, a->o.rehearsal);
	if (error == 0 && cli->json)
		cli_print_json(json_incref(r.result));
	mt_check_trial_result_dispose(&r);
	mt_trial_free(t);
	return error;
}

static int parse(struct cli *cli, struct args *a, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
	                                     {"rtol", required_argument, NULL, 'r'},
	                                     {"atol", required_argument, NULL, 'a'},
	                                     {"tol", required_argument, NULL, 't'},
	                                     {"stat", required_argument, NULL, 's'},
	                                     {"equal-nan", no_argument, NULL, 'e'},
	                                     {"noise", required_argument, NULL, 'n'},
	                                     CHECK_REHEARSAL_OPTION,
	                                     {0}};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case CLI_OPT_HELP:
			fputs(usage, stdout);
			return 1;
		case 'r':
		case 'a':
			if (mt_parse_nonneg(optarg, opt == 'r' ? &a->o.rtol : &a->o.atol) < 0)
				return mt_error_set(MT_EUSAGE,
				                    "--%s %s: expected a non-negative "
				                    "number",
				                    opt == 'r' ? "rtol" : "atol", optarg);
			break;
		case 't':
			if (parse_tol(a, optarg) < 0)
				return MT_EUSAGE;
			break;
		case 's':
			if (mt_cmp_parse_stat(&a->o.cmp, optarg) < 0)
				return MT_EUSAGE;
			break;
		case 'e':
			a->o.cmp.equal_nan = a->o.equal_nan_given = 1;
			break;
		case 'n':
			a->o.noise = optarg;
			break;
		case CHECK_OPT_REHEARSAL:
			a->o.rehearsal = 1;
			break;
		default:
			if (!cli_common_option(cli, opt))
				return mt_error_set(MT_EUSAGE, "bad option");
		}
	}
	if (argc - optind != 2)
		return mt_error_set(MT_EUSAGE, "expected REF and CAND, got %d argument%s",
		                    argc - optind, argc - optind == 1 ? "" : "s");
	a->ref = argv[optind];
	a->cand = argv[optind + 1];
	return 0;
}

int check_compare(struct cli *cli, int argc, char **argv)
{
	struct args *a = calloc(1, sizeof(*a));
	int error, passed = 0, status;

	if (!a)
		return cli_fail(cli, mt_error_set(MT_EIO, "out of memory"));
	a->o.rtol = a->o.atol = NAN;
	a->o.typed_source = "--rtol/--atol";
	if ((error = parse(cli, a, argc, argv)) != 0)
		status =
		    error > 0 ? CLI_EXIT_OK : cli_usage_error(cli, "compare: %s", mt_error_last());
	else if ((error = run(cli, a, &passed)) < 0)
		status = cli_fail(cli, error);
	else
		status = passed ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	mt_cmp_rules_dispose(&a->rules);
	free(a);
	return status;
}
