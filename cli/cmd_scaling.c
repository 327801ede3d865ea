/* mtrial scaling: each system's figures per topology (core/scaling_trial.c
 * works them out); this file parses the options and prints. */
#include "cli.h"
#include "error.h"
#include "scaling_trial.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A figure in a column, or "-" when it is not known. */
static void cell(char *buf, size_t size, const char *fmt, double v)
{
	if (isfinite(v))
		snprintf(buf, size, fmt, v);
	else
		snprintf(buf, size, "-");
}

static void print_row(const mt_scaling_row *r)
{
	char hosts[16], med[24], oly[24], dh[16], x[16], xd[16], eff[16], marg[32], wait[32];

	snprintf(hosts, sizeof(hosts), r->hosts ? "%lld" : "-", (long long)r->hosts);
	if (isfinite(r->median_s))
		mt_duration_fmt(med, sizeof(med), (int64_t)llround(r->median_s * 1000));
	else
		snprintf(med, sizeof(med), "-");
	if (isfinite(r->olympic_s))
		mt_duration_fmt(oly, sizeof(oly), (int64_t)llround(r->olympic_s * 1000));
	else
		snprintf(oly, sizeof(oly), "-");
	cell(dh, sizeof(dh), "%.3g", r->device_hours);
	cell(x, sizeof(x), "%.4g", r->throughput);
	cell(xd, sizeof(xd), "%.4g", r->throughput_per_device);
	cell(eff, sizeof(eff), "%.2f", r->efficiency);
	if (isfinite(r->marginal_per_device))
		snprintf(marg, sizeof(marg), "%.4g (from %lld)", r->marginal_per_device,
		         (long long)r->marginal_from);
	else
		snprintf(marg, sizeof(marg), "-");
	if (isfinite(r->data_share) || isfinite(r->comm_share))
		snprintf(wait, sizeof(wait), "%s%.0f%% / %s%.0f%%",
		         isfinite(r->data_share) ? "" : "-",
		         isfinite(r->data_share) ? 100 * r->data_share : 0,
		         isfinite(r->comm_share) ? "" : "-",
		         isfinite(r->comm_share) ? 100 * r->comm_share : 0);
	else
		snprintf(wait, sizeof(wait), "not measured");
	printf("  %7lld %5s %4zu %6zu %10s %10s %9s %10s %10s %6s %16s  %s\n",
	       (long long)r->devices, hosts, r->runs, r->failures, med, oly, dh, x, xd, eff, marg,
	       wait);
}

static void print_system(const mt_scaling_trial_result *r, int s, const char *name)
{
	const char *basis = NULL;
	size_t rows = 0;

	printf("%s%s%s%s\n", name, *r->accelerator[s] ? " (" : "", r->accelerator[s],
	       *r->accelerator[s] ? ")" : "");
	for (size_t i = 0; i < r->scaling.n; i++)
		if (strcmp(r->scaling.rows[i].system, name) == 0 && r->scaling.rows[i].basis &&
		    (!basis || strcmp(r->scaling.rows[i].basis, "mlperf_minutes") == 0))
			basis = r->scaling.rows[i].basis;
	for (size_t i = 0; i < r->scaling.n; i++) {
		if (strcmp(r->scaling.rows[i].system, name) != 0)
			continue;
		if (!rows++)
			printf("  %7s %5s %4s %6s %10s %10s %9s %10s %10s %6s %16s  %s\n",
			       "devices", "hosts", "runs", "failed", "median", "olympic",
			       "dev-hours", "thruput/s", "per device", "effic.", "added per device",
			       "data / comm wait");
		print_row(&r->scaling.rows[i]);
	}
	if (!rows)
		printf("  no run with a device count\n");
	if (rows > 1)
		printf("  %zu topologies: every figure is per topology, never pooled.\n", rows);
	if (basis && strcmp(basis, "mlperf_minutes") == 0)
		printf("  Times are MLPerf's run minutes (run_start to run_stop) where no run "
		       "reached the trial's target.\n");
	if (*r->tradeoff[s])
		printf("  %s\n", r->tradeoff[s] + strlen(name) + 2);
	if (r->scaling.unplaced[s])
		printf("  %zu run%s without a device count %s: %s.\n", r->scaling.unplaced[s],
		       r->scaling.unplaced[s] == 1 ? "" : "s",
		       r->scaling.unplaced[s] == 1 ? "is" : "are",
		       r->ambiguous[s]
		           ? "trial.yaml lists several topologies for this system, so give "
		             "each run its own (runs import --devices N)"
		           : "in no topology");
	if (r->other_design[s])
		printf("  %zu %s run%s left out: another experiment, never pooled with these "
		       "(--design %s).\n",
		       r->other_design[s], strcmp(r->design, "best") == 0 ? "matched" : "best-recipe",
		       r->other_design[s] == 1 ? "" : "s",
		       strcmp(r->design, "best") == 0 ? "matched" : "best");
}

int cmd_scaling(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
	    CLI_COMMON_OPTIONS,
	    {"system", required_argument, NULL, 's'},
	    {"design", required_argument, NULL, 'd'},
	    {0}};
	static const char *const systems[] = {"baseline", "candidate"};
	const char *system = NULL, *design = "matched";
	mt_scaling_trial_result r;
	mt_trial *t = NULL;
	int opt, error;

	while ((opt = cli_getopt(cli, argc, argv, "hs:", opts)) >= 0) {
		if (opt == 'd' && strcmp(optarg, "matched") != 0 && strcmp(optarg, "best") != 0)
			return cli_usage_error(cli, "--design %s: expected matched or best", optarg);
		if (opt == 'd')
			design = optarg;
		else if (opt == 's' &&
		    (strcmp(optarg, "baseline") == 0 || strcmp(optarg, "candidate") == 0))
			system = optarg;
		else if (opt == 's')
			return cli_usage_error(cli, "--system: '%s' is not baseline or candidate",
			                       optarg);
		else
			return cli_usage_error(cli, "bad option");
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	if ((error = mt_scaling_trial_design(&r, t, design)) == 0) {
		if (cli->json)
			cli_print_json(mt_scaling_trial_json(&r, system));
		else
			printf("The %s design's runs%s.\n", r.design,
			       strcmp(r.design, "best") == 0 ? " (each platform's best recipe)" : "");
		for (int s = 0; !cli->json && s < 2; s++)
			if (!system || strcmp(system, systems[s]) == 0)
				print_system(&r, s, systems[s]);
	}
	mt_scaling_trial_result_dispose(&r);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
