/* mtrial buckets and mtrial breakeven: compile economics. The figures come
 * from trial/econ.c; this file parses the options and prints. */
#include "cli.h"
#include "econ.h"
#include "error.h"
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A whole number >= min out of s, for option `name`. */
static int whole(struct cli *cli, const char *name, const char *s, long long min, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	if (end == s || *end || errno || *out < min)
		return cli_usage_error(cli, "%s: '%s' is not a whole number >= %lld", name, s, min);
	return 0;
}

/* "A,B[,C]" into v[3] (C 0 when absent), every value finite. */
static int numbers(struct cli *cli, const char *name, const char *s, double *v, int min, int max)
{
	int n = 0;
	const char *p = s;

	v[0] = v[1] = v[2] = 0;
	while (*p && n < max) {
		char *end;
		errno = 0;
		v[n] = strtod(p, &end);
		if (end == p || errno || !isfinite(v[n]) || (*end && *end != ','))
			break;
		n++;
		p = *end ? end + 1 : end;
	}
	if (*p || n < min)
		return cli_usage_error(cli, "%s: '%s' is not %s", name, s,
		                       max == 3 ? "A,B or A,B,C (seconds: a + b*L + c*L^2), or auto"
		                                : "CLOCK1_S,STEP_S");
	return 0;
}

/* The buckets of a plan, cut after eight. */
static void print_buckets(const mt_bucket_plan *p)
{
	char buf[96];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n_buckets && len < sizeof(buf); i++) {
		if (i == 6 && p->n_buckets > 7) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, " ... +%zu", p->n_buckets - 6);
			break;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%lld", i ? "," : "",
		                        (long long)p->buckets[i]);
	}
	printf("%-34s", buf);
}

static void print_plan(const char *name, const mt_bucket_plan *p)
{
	printf("  %-12s ", name);
	print_buckets(p);
	printf(" %8zu %12.1f s %8.1f%%\n", p->n_buckets, p->predicted_s, 100 * p->padding_fraction);
}

static void print_advice(const mt_econ_buckets_result *r, const mt_econ_buckets_req *req)
{
	const mt_bucket_advice *a = &r->advice;
	const mt_bucket_plan *alt = a->pad_to_max.predicted_s <= a->per_length.predicted_s
	                                ? &a->pad_to_max : &a->per_length;
	double save = alt->predicted_s - a->best.predicted_s;
	char from[64], compile[96];

	if (req->lengths_file)
		snprintf(from, sizeof(from), "%s", "the lengths file");
	else
		snprintf(from, sizeof(from), "run %lld (%s design)", (long long)req->from_run,
		         r->design);
	printf("%llu steps, %zu distinct lengths (longest %lld), from %s\n",
	       (unsigned long long)a->steps, a->distinct, (long long)a->longest, from);
	if (req->compile_auto)
		snprintf(compile, sizeof(compile), "the median of the candidate's %s-design runs%s",
		         r->design,
		         r->compile_left_out ? ", the other design's left out" : "");
	else
		snprintf(compile, sizeof(compile), "given");
	printf("compile %.1f s a bucket (%s); step %.4g + %.4g*L + %.4g*L^2 s (%s)\n\n",
	       r->used.compile_s, compile, r->used.a, r->used.b, r->used.c,
	       req->step_auto ? "fitted over the run's steady steps" : "given");
	if (r->compile_left_out)
		printf("%zu candidate run%s of the other design left out of the compile time: "
		       "another experiment, never pooled (--design).\n\n",
		       r->compile_left_out, r->compile_left_out == 1 ? "" : "s");
	printf("  %-12s %-34s %8s %14s %9s\n", "plan", "buckets", "compiles", "predicted", "padding");
	print_plan("best", &a->best);
	print_plan("pad to max", &a->pad_to_max);
	print_plan("per length", &a->per_length);
	if (save > 0)
		printf("\nThe best plan saves %.1f s (%.0f%%) against %s.\n", save,
		       100 * save / alt->predicted_s,
		       alt == &a->pad_to_max ? "padding every step to the longest" : "a bucket per length");
	else
		printf("\nThe best plan is %s: no other choice of buckets is faster.\n",
		       alt == &a->pad_to_max ? "padding every step to the longest" : "a bucket per length");
	if (r->steps_without_seq)
		printf("%zu step lines gave no seq= and are not counted.\n", r->steps_without_seq);
}

/* --from: "ID", "run:ID", or "run" followed by ID. */
static int from_run(struct cli *cli, int argc, char **argv, const char *arg, long long *id)
{
	if (strcmp(arg, "run") == 0) {
		if (optind >= argc)
			return cli_usage_error(cli, "--from run needs a run ID");
		arg = argv[optind++];
	} else if (strncmp(arg, "run:", 4) == 0) {
		arg += 4;
	}
	return whole(cli, "--from run", arg, 1, id);
}

static int buckets_run(struct cli *cli, const mt_econ_buckets_req *req)
{
	mt_econ_buckets_result r;
	mt_trial *t = NULL;
	int error;

	if ((req->from_run > 0 || req->compile_auto) && (error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	error = mt_econ_buckets(&r, t, req);
	mt_trial_free(t);
	if (error < 0)
		return cli_fail(cli, error);
	if (cli->json)
		cli_print_json(mt_econ_buckets_json(&r, req));
	else
		print_advice(&r, req);
	mt_econ_buckets_dispose(&r);
	return CLI_EXIT_OK;
}

int cmd_buckets(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
	                                     {"lengths", required_argument, NULL, 'l'},
	                                     {"from", required_argument, NULL, 'f'},
	                                     {"compile-seconds", required_argument, NULL, 'c'},
	                                     {"step-seconds", required_argument, NULL, 's'},
	                                     {"multiple-of", required_argument, NULL, 'm'},
	                                     {"max-buckets", required_argument, NULL, 'k'},
	                                     {"design", required_argument, NULL, 'd'},
	                                     {0}};
	mt_econ_buckets_req req = {.multiple = 1}; /* no --design: the run's, else matched */
	int opt, have_c = 0, have_s = 0;
	long long v;

	while ((opt = cli_getopt(cli, argc, argv, "h", opts)) >= 0) {
		if (opt == 'l') {
			req.lengths_file = optarg;
		} else if (opt == 'f') {
			if (from_run(cli, argc, argv, optarg, &v))
				return CLI_EXIT_USAGE;
			req.from_run = v;
		} else if (opt == 'c') {
			have_c = 1;
			req.compile_auto = strcmp(optarg, "auto") == 0;
			if (!req.compile_auto && mt_parse_nonneg(optarg, &req.compile_s) < 0)
				return cli_usage_error(cli, "--compile-seconds: '%s' is not a number of "
				                       "seconds >= 0, or auto", optarg);
		} else if (opt == 's') {
			double c[3];
			have_s = 1;
			req.step_auto = strcmp(optarg, "auto") == 0;
			if (!req.step_auto && numbers(cli, "--step-seconds", optarg, c, 2, 3))
				return CLI_EXIT_USAGE;
			if (!req.step_auto)
				req.a = c[0], req.b = c[1], req.c = c[2];
		} else if (opt == 'm') {
			if (whole(cli, "--multiple-of", optarg, 1, &v))
				return CLI_EXIT_USAGE;
			req.multiple = v;
		} else if (opt == 'd') {
			if (strcmp(optarg, "matched") != 0 && strcmp(optarg, "best") != 0)
				return cli_usage_error(cli, "--design %s: expected matched or best",
				                       optarg);
			req.design = optarg;
		} else if (opt == 'k') {
			if (whole(cli, "--max-buckets", optarg, 1, &v))
				return CLI_EXIT_USAGE;
			req.max_buckets = (size_t)v;
		} else {
			return cli_usage_error(cli, "bad option");
		}
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if (!req.lengths_file == !req.from_run)
		return cli_usage_error(cli, "give one of --lengths FILE and --from run ID");
	if (!have_c || !have_s)
		return cli_usage_error(cli, "--compile-seconds S|auto and --step-seconds A,B[,C]|auto "
		                       "are both needed");
	return buckets_run(cli, &req);
}

static void print_breakeven(const mt_breakeven *b, const mt_econ_breakeven_pair *p, int from_runs)
{
	const mt_breakeven_side *bs = &p->side[0], *cs = &p->side[1];
	char label[96];

	if (from_runs) {
		mt_econ_breakeven_pair_label(p, label, sizeof(label));
		printf("%s:\n", label);
	}
	printf("baseline   %.1f s to start, then %.4g s a step%s\n", bs->clock1_s, bs->step_s,
	       from_runs ? " (medians of its runs at this topology)" : "");
	printf("candidate  %.1f s to start, then %.4g s a step%s\n\n", cs->clock1_s, cs->step_s,
	       from_runs ? " (medians of its runs at this topology: clock 1 and its compilations)"
	                 : "");
	if (isfinite(b->steps))
		printf("Time: the %s leads up to %.0f steps (%.2f h), the %s after.\n", b->winner_before,
		       b->steps, b->hours_baseline, b->winner_after);
	else
		printf("Time: no break-even: %s (the %s).\n", b->reason, b->winner_after);
	if (isfinite(b->cost_steps))
		printf("Cost: the %s is cheaper up to %.0f steps, the %s after.\n", b->cost_winner_before,
		       b->cost_steps, b->cost_winner_after);
	else if (b->cost_winner_after)
		printf("Cost: no break-even: %s (the %s).\n", b->cost_reason, b->cost_winner_after);
	else
		printf("Cost: not worked out: the %s %s.\n", p->unpriced[0] ? "baseline" : "candidate",
		       b->cost_reason);
}

/* The break-even of every pair: printed, or into one JSON. */
static int breakeven_print(struct cli *cli, const mt_econ_breakeven_sides_result *r, int given,
                           const char *design)
{
	json_t *all = json_array();
	mt_breakeven b;
	int error = 0;

	for (size_t i = 0; i < r->n && !error; i++) {
		if ((error = mt_econ_breakeven_pair_compute(&b, &r->pairs[i])) < 0)
			break;
		if (cli->json)
			json_array_append_new(all, mt_econ_breakeven_pair_json(&r->pairs[i], &b));
		else
			print_breakeven(&b, &r->pairs[i], !given), printf(i + 1 < r->n ? "\n" : "");
	}
	if (!error && cli->json)
		cli_print_json(json_pack("{s:o, s:O}", "design",
		                         given ? json_null() : json_string(design), "topologies", all));
	else if (!error && r->n > 1)
		printf("\n%zu pairs of topologies: each break-even is of its own runs, never pooled.\n",
		       r->n);
	json_decref(all);
	return error;
}

int cmd_breakeven(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
	                                     {"baseline", required_argument, NULL, 'b'},
	                                     {"candidate", required_argument, NULL, 'c'},
	                                     {"design", required_argument, NULL, 'd'},
	                                     {0}};
	mt_econ_breakeven_pair one = {{0, 0}, {{NAN, NAN, NAN}, {NAN, NAN, NAN}}, {NULL, NULL}, NULL};
	mt_econ_breakeven_sides_result r = {0};
	const char *design = "matched";
	mt_trial *t = NULL;
	int opt, given = 0, error = 0;
	double v[3];

	while ((opt = cli_getopt(cli, argc, argv, "h", opts)) >= 0) {
		mt_breakeven_side *s = opt == 'b' ? &one.side[0] : opt == 'c' ? &one.side[1] : NULL;
		if (opt == 'd' && strcmp(optarg, "matched") != 0 && strcmp(optarg, "best") != 0)
			return cli_usage_error(cli, "--design %s: expected matched or best", optarg);
		if (opt == 'd') {
			design = optarg;
			continue;
		}
		if (!s)
			return cli_usage_error(cli, "bad option");
		if (numbers(cli, opt == 'b' ? "--baseline" : "--candidate", optarg, v, 2, 2))
			return CLI_EXIT_USAGE;
		s->clock1_s = v[0], s->step_s = v[1];
		given |= opt == 'b' ? 1 : 2;
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if (given == 1 || given == 2)
		return cli_usage_error(cli, "give both --baseline and --candidate, or neither (the "
		                       "trial's runs)");
	if (!given && ((error = cli_open_trial(cli, &t, 1)) < 0 ||
	               (error = mt_econ_breakeven_sides(&r, t, design)) < 0))
		goto done;
	if (given) {
		if (cli_open_trial(cli, &t, 1) < 0) /* prices, when in a trial */
			t = NULL;
		for (int s = 0; s < 2; s++)
			one.side[s].price_per_hour =
			    mt_econ_price(t, s ? "candidate" : "baseline", &one.unpriced[s]);
		r.pairs = &one, r.n = 1;
	}
	mt_error_clear();
	error = breakeven_print(cli, &r, given, design);
	if (given)
		r.pairs = NULL, r.n = 0;
done:
	mt_econ_breakeven_sides_dispose(&r);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
