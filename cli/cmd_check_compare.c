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
static const char *num(char *buf, size_t size, json_t *v)
{
	double d;
	if (json_is_string(v))
		return json_string_value(v);
	d = json_number_value(v);
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, size, "%.*g", p, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return buf;
}

/* (1, 2) as Python prints a tuple. */
static const char *index_str(char *buf, size_t size, json_t *idx)
{
	size_t n = json_array_size(idx), len = 0;
	len += (size_t)snprintf(buf, size, "(");
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
		                        (long long)json_integer_value(json_array_get(idx, i)));
	if (len < size)
		snprintf(buf + len, size - len, "%s)", n == 1 ? "," : "");
	return buf;
}

static void shape_str(char *buf, size_t size, json_t *shape)
{
	size_t len = (size_t)snprintf(buf, size, "[");
	for (size_t i = 0; i < json_array_size(shape) && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
		                        (long long)json_integer_value(json_array_get(shape, i)));
	if (len < size)
		snprintf(buf + len, size - len, "]");
}

/* A failing tensor, in assert_close's words. */
static void print_failure(json_t *e)
{
	char a[64], b[64], idx[256], shape[256];
	long long mism = json_integer_value(json_object_get(e, "mismatched")),
	          numel = json_integer_value(json_object_get(e, "numel"));
	json_t *w;
	size_t i;

	shape_str(shape, sizeof(shape), json_object_get(e, "shape"));
	printf("\nFAIL %s (%s%s%s, shape %s)\n", json_string_value(json_object_get(e, "name")),
	       json_string_value(json_object_get(e, "dtype")),
	       json_object_get(e, "candidate_dtype") ? " vs candidate " : "",
	       json_object_get(e, "candidate_dtype")
	           ? json_string_value(json_object_get(e, "candidate_dtype"))
	           : "",
	       shape);
	if (json_object_get(e, "reason")) {
		printf("  Not compared: %s", json_string_value(json_object_get(e, "reason")));
		if (json_object_get(e, "candidate_shape")) {
			shape_str(shape, sizeof(shape), json_object_get(e, "candidate_shape"));
			printf(" (candidate %s)", shape);
		}
		printf("\n");
		return;
	}
	printf("  Tolerance: rtol %s, atol %s (%s)\n",
	       num(a, sizeof(a), json_object_get(e, "rtol")),
	       num(b, sizeof(b), json_object_get(e, "atol")),
	       json_string_value(json_object_get(e, "tolerance_source")));
	printf("  Mismatched elements: %lld / %lld (%.1f%%)\n", mism, numel,
	       numel ? 100.0 * (double)mism / (double)numel : 0.0);
	printf("  Greatest absolute difference: %s at index %s (up to %s allowed)\n",
	       num(a, sizeof(a), json_object_get(e, "max_abs")),
	       index_str(idx, sizeof(idx), json_object_get(e, "max_abs_index")),
	       num(b, sizeof(b), json_object_get(e, "atol")));
	printf("  Greatest relative difference: %s at index %s (up to %s allowed)\n",
	       num(a, sizeof(a), json_object_get(e, "max_rel")),
	       index_str(idx, sizeof(idx), json_object_get(e, "max_rel_index")),
	       num(b, sizeof(b), json_object_get(e, "rtol")));
	if (json_object_get(e, "stat_abs"))
		printf("  Statistic: absolute %s, relative %s\n",
		       num(a, sizeof(a), json_object_get(e, "stat_abs")),
		       num(b, sizeof(b), json_object_get(e, "stat_rel")));
	json_array_foreach(json_object_get(e, "warnings"), i, w)
	    printf("  warning: %s\n", json_string_value(w));
}

/* A number in a table column: 3 significant digits. */
static const char *short_num(char *buf, size_t size, json_t *v)
{
	if (!v)
		return "-";
	if (json_is_string(v))
		return json_string_value(v);
	snprintf(buf, size, "%.3g", json_number_value(v));
	return buf;
}

static void print_table(json_t *res)
{
	char a[32], b[32], c[32], d[32], r[32], t[32], shape[64];
	json_t *e;
	size_t i;

	printf("\n%-4s %-32s %-9s %-14s %10s %9s %9s %9s %7s  %s\n", "", "tensor", "dtype", "shape",
	       "mismatched", "min atol", "min rtol", "cosine", "noise x", "rtol/atol (from)");
	json_array_foreach(json_object_get(res, "tensors"), i, e)
	{
		shape_str(shape, sizeof(shape), json_object_get(e, "shape"));
		if (json_object_get(e, "reason")) {
			printf("%-4s %-32s %-9s %-14s %s\n", "FAIL",
			       json_string_value(json_object_get(e, "name")),
			       json_string_value(json_object_get(e, "dtype")), shape,
			       json_string_value(json_object_get(e, "reason")));
			continue;
		}
		printf(
		    "%-4s %-32s %-9s %-14s %10lld %9s %9s %9s %7s  %s/%s (%s)\n",
		    json_is_true(json_object_get(e, "passed")) ? "ok" : "FAIL",
		    json_string_value(json_object_get(e, "name")),
		    json_string_value(json_object_get(e, "dtype")), shape,
		    (long long)json_integer_value(json_object_get(e, "mismatched")),
		    short_num(a, sizeof(a), json_object_get(e, "min_atol")),
		    short_num(b, sizeof(b), json_object_get(e, "min_rtol")),
		    short_num(c, sizeof(c), json_object_get(e, "cosine")),
		    short_num(d, sizeof(d), json_object_get(json_object_get(e, "noise"), "ratio")),
		    num(r, sizeof(r), json_object_get(e, "rtol")),
		    num(t, sizeof(t), json_object_get(e, "atol")),
		    json_string_value(json_object_get(e, "tolerance_source")));
	}
}

static void print_names(json_t *res, const char *key, const char *title)
{
	json_t *n;
	size_t i;
	if (!json_array_size(json_object_get(res, key)))
		return;
	printf("\n%s:", title);
	json_array_foreach(json_object_get(res, key), i, n) printf(" %s", json_string_value(n));
	printf("\n");
}

void check_print_tensors(json_t *res)
{
	json_t *e, *noise = json_object_get(res, "noise");
	size_t i, failed = 0, n = json_array_size(json_object_get(res, "tensors"));
	char a[64], b[64];

	printf("Reference (expected): %s\nCandidate:            %s\n"
	       "Rule: |cand - ref| <= atol + rtol * |ref|, stat %s%s\n",
	       json_string_value(json_object_get(res, "reference")),
	       json_string_value(json_object_get(res, "candidate")),
	       json_string_value(json_object_get(res, "stat")),
	       json_is_true(json_object_get(res, "equal_nan")) ? ", NaN equals NaN" : "");
	json_array_foreach(json_object_get(res, "tensors"), i,
	                   e) if (!json_is_true(json_object_get(e, "passed")) && ++failed)
	    print_failure(e);
	print_names(res, "only_in_reference", "Only in the reference");
	print_names(res, "only_in_candidate", "Only in the candidate");
	print_table(res);
	if (noise)
		printf(
		    "\nNoise floor (%s against the reference): the candidate's greatest absolute "
		    "error is %sx the reference's own (%s); worst tensor %s at %sx\n",
		    json_string_value(json_object_get(noise, "reference2")),
		    num(a, sizeof(a), json_object_get(noise, "ratio")),
		    num(b, sizeof(b), json_object_get(noise, "max_abs")),
		    json_is_string(json_object_get(noise, "worst"))
		        ? json_string_value(json_object_get(noise, "worst"))
		        : "-",
		    num(a, sizeof(a), json_object_get(noise, "worst_ratio")));
	if (json_array_size(json_object_get(res, "warnings")))
		printf("\n");
	json_array_foreach(json_object_get(res, "warnings"), i, e)
	    printf("warning: %s\n", json_string_value(e));
	printf("\n%s: %zu of %zu tensors passed",
	       json_is_true(json_object_get(res, "passed")) ? "PASS" : "FAIL", n - failed, n);
	if (json_array_size(json_object_get(res, "only_in_reference")) +
	    json_array_size(json_object_get(res, "only_in_candidate")))
		printf("; %zu only in the reference, %zu only in the candidate",
		       json_array_size(json_object_get(res, "only_in_reference")),
		       json_array_size(json_object_get(res, "only_in_candidate")));
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
		check_print_tensors(r.result);
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
