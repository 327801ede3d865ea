/* mtrial probe: the repository's ops against a compatibility table. */
#include "cli.h"
#include "error.h"
#include "opinventory.h"
#include "probe.h"
#include "probe_trial.h"
#include "scan_trial.h"
#include "scan.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct probe_args {
	const char *repo, *rev, *table, *observed;
	const char *from, *file; /* --from KIND [FILE]: an exact inventory */
};

/* The inventory: the trial's latest scan, or a fresh scan of --repo/--rev
 * (cached, so usually instant). *scan_id is the recorded scan's id, or 0. */
static int inventory(mt_trial *t, const struct probe_args *a, json_t **out,
		     int64_t *scan_id)
{
	mt_scan_options o = {.repo = a->repo, .rev = a->rev, .use_cache = 1};
	mt_scan_result r;
	json_error_t jerr;
	char *text, **paths = NULL;
	size_t npaths = 0;
	int error;

	*scan_id = 0;
	if (a->from && strcmp(a->from, "scan") != 0) {
		if (a->file && strcmp(a->from, "torchscript") == 0)
			fprintf(stderr, "note: %s\n", MT_TORCHSCRIPT_NOTICE);
		return mt_inventory_resolve(out, t, a->file ? a->file : a->from, a->from, NULL);
	}
	if (t && !a->repo && !a->rev &&
	    mt_journal_scan_latest(t->journal, 1, out, scan_id, NULL) == 0)
		return 0;
	mt_error_clear();
	/* the same limit as the trial's scans */
	if ((error = mt_scan_trial_paths(&paths, &npaths, t)) < 0)
		return error;
	o.paths = (const char *const *)paths;
	o.npaths = npaths;
	error = mt_scan_run(&r, &o);
	mt_scan_paths_free(paths, npaths);
	if (error < 0)
		return error;
	text = mt_scan_result_json(&r, NULL);
	mt_scan_result_dispose(&r);
	*out = json_loads(text, 0, &jerr);
	free(text);
	return *out ? 0 : mt_error_set(MT_EIO, "scan result: %s", jerr.text);
}

/* One entry's line: "torch.cumsum   3 calls  [table:t:4]  aten::cumsum";
 * with `sites`, a method's assumed receiver said under it. */
static void print_item(const mt_probe_entry *e, int sites)
{
	printf("  %-40s %4lld call%s  [%s]", e->name, (long long)e->count,
	       e->count == 1 ? " " : "s", e->source);
	if (e->api)
		printf("  %s", e->op ? e->op : "(no aten op)");
	if (e->kind)
		printf("  %s", e->kind);
	printf("%s\n", !e->certain ? "  (uncertain)" : "");
	if (e->via)
		printf("      by the %s for %s\n",
		       strncmp(e->source, "override:", 9) ? "entry" : "override", e->via);
	if (sites && e->receiver)
		printf("      a tensor method: the receiver is assumed to be a tensor\n");
}

/* 1 when the team's override decided the entry. */
static int overridden(const mt_probe_entry *e)
{
	return strncmp(e->source ?: "", "override:", 9) == 0;
}

/* The entry's conditions and, with `sites`, where it is called. */
static void print_where(const mt_probe_entry *e, int sites)
{
	for (size_t k = 0; k < e->nconditions; k++)
		printf("      when: %s\n", e->conditions[k]);
	for (size_t k = 0; sites && k < e->nsites && k < 5; k++)
		printf("      %s:%lld%s\n", cli_line(e->sites[k].file), (long long)e->sites[k].line,
		       !e->sites[k].certain ? " (uncertain)" : "");
	if (sites && e->nsites > 5)
		printf("      ... %zu more\n", e->nsites - 5);
}

/* The entries of one status (device: those with a condition; "override":
 * on the device by an override, without one), under a title; with `sites`,
 * where each is called. */
static void print_status(const mt_probe_view *v, const char *status, const char *title,
			 int sites)
{
	int by_override = strcmp(status, "override") == 0;
	size_t i, n, shown = 0;
	const mt_probe_entry *list = mt_probe_view_listed(v, &n), *e;

	for (i = 0; i < n; i++) {
		e = &list[i];
		if (strcmp(e->status, by_override ? "device" : status) != 0 ||
		    (!strcmp(status, "device") && !e->nconditions) ||
		    (by_override && (e->nconditions || !overridden(e))))
			continue;
		if (!shown++)
			printf("%s:\n", title);
		print_item(e, sites);
		print_where(e, sites);
	}
}

/* Every status's entries, blockers first, by API or by op. */
static void print_entries(const mt_probe_view *v)
{
	int by_api = v->by_api;

	print_status(v, "unsupported",
		     by_api ? "Unsupported APIs (every one, with its call sites)"
			    : "Unsupported (every one, with its call sites)", 1);
	print_status(v, "partial",
		     by_api ? "Partial APIs (supported when the condition holds)"
			    : "Partial (supported when the condition holds)", 1);
	print_status(v, "cpu_fallback", by_api ? "CPU fallback APIs" : "CPU fallback", 0);
	print_status(v, "unknown",
		     by_api ? "Unknown APIs (no table says; open questions for the trial)"
			    : "Unknown (no table says; open questions for the trial)", 0);
	print_status(v, "device", "Supported, with a condition", 0);
	print_status(v, "override", "Supported, by the team's overrides", 0);
}

/* "12 ops: 3 on device, ... (25.0% of ops supported, 50.0% unknown)": the
 * share supported counts the unknown as not (yet) supported, so the share
 * unknown goes with it, or 0% read as a verdict when no table says. */
static void print_counts(const mt_probe_counts *s, const char *label, int say_of)
{
	printf("%lld %s: %lld on device, %lld partial, %lld CPU fallback, %lld unsupported, "
	       "%lld unknown (%.1f%% %s%s%ssupported",
	       (long long)s->entries, label, (long long)s->device, (long long)s->partial,
	       (long long)s->cpu_fallback, (long long)s->unsupported, (long long)s->unknown,
	       s->support_percentage, say_of ? "of " : "", say_of ? label : "",
	       say_of ? " " : "");
	if (s->unknown > 0 && s->entries > 0)
		printf(", %.1f%% unknown", 100.0 * (double)s->unknown / (double)s->entries);
	printf(").\n");
}

/* Listing APIs: how many are tensor methods, matched by name alone. */
static void print_methods(const mt_probe_view *v)
{
	size_t i, n = 0;

	for (i = 0; i < v->napis; i++)
		n += v->apis[i].receiver != NULL;
	if (n)
		printf("%zu of the APIs are tensor methods (x.NAME(...) as torch.Tensor.NAME): "
		       "their receivers are assumed to be tensors.\n", n);
}

static void print_text(const mt_probe_view *v, const char *recorded)
{
	size_t i;

	if (v->from_file)
		printf("Ops from %s %s\n", v->from_source, v->from_file);
	for (i = 0; i < v->nfrom_paths; i++)
		printf("%s%s", i ? ", " : "Ops from a scan limited to: ", v->from_paths[i]);
	if (v->nfrom_paths)
		printf("\n");

	printf("Table %s: %s %s (%s, retrieved %s)\n  source: %s\n", v->table_name,
	       v->table_backend, v->table_version, v->table_kind, v->table_retrieved,
	       v->table_source);
	print_entries(v);
	for (i = 0; i < v->nrules; i++)
		printf("%s  rule: %s\n", i ? "" : "Backend-wide rules:\n", v->rules[i]);
	if (v->by_api)
		print_counts(&v->api_counts, "APIs", 1);
	print_counts(&v->op_counts, "ops", v->by_api);
	if (v->by_api)
		print_methods(v);
	if (v->op_counts.uncertain)
		printf("%lld of %s uncertain: seen only at method calls whose receiver the scan "
		       "cannot tell is a tensor.\n",
		       (long long)v->op_counts.uncertain, v->by_api ? "the ops are" : "them");
	printf("%s\n", recorded);
}

static int run(struct cli *cli, const struct probe_args *a, int *unsupported)
{
	mt_trial *t = NULL;
	json_t *inv = NULL, *res = NULL;
	mt_probe_view v = {0};
	int64_t scan_id = 0, id = 0;
	char recorded[512] = "(not recorded: no trial)";
	int error;

	if (cli_open_trial(cli, &t, 1) < 0) {
		if (mt_error_last_code() != MT_ENOTFOUND)
			return mt_error_last_code(); /* a trial with a broken spec */
		mt_error_clear();
	}
	if ((error = inventory(t, a, &inv, &scan_id)) < 0 ||
	    (error = mt_probe_trial(&res, &id, t, a->table, a->observed, inv, scan_id)) < 0)
		goto cleanup;
	if (id)
		snprintf(recorded, sizeof(recorded), "Recorded as probe #%lld in %s.",
			 (long long)id, t->dir);
	mt_probe_view_read(&v, res); /* older records: absent keys read as none */
	/* an unsupported API blocks as an unsupported op does */
	*unsupported = v.op_counts.unsupported > 0 || v.api_counts.unsupported > 0;
	if (cli->json)
		cli_print_json(json_incref(res));
	else
		print_text(&v, recorded);
cleanup:
	mt_probe_view_dispose(&v);
	json_decref(res);
	json_decref(inv);
	mt_trial_free(t);
	return error;
}

int cmd_probe(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"repo", required_argument, NULL, 'r'},
					     {"rev", required_argument, NULL, 'R'},
					     {"table", required_argument, NULL, 't'},
					     {"from", required_argument, NULL, 'f'},
					     {"observed", required_argument, NULL, 'o'},
					     {0}};
	struct probe_args a = {0};
	int opt, error, unsupported = 0;

	while ((opt = cli_getopt(cli, argc, argv, "hr:R:t:f:o:", opts)) >= 0) {
		switch (opt) {
		case 'r': a.repo = optarg; break;
		case 'R': a.rev = optarg; break;
		case 't': a.table = optarg; break;
		case 'o': a.observed = optarg; break;
		case 'f':
			if (strcmp(optarg, "scan") != 0 && strcmp(optarg, "torchscript") != 0 &&
			    strcmp(optarg, "trace") != 0)
				return cli_usage_error(cli, "--from %s: expected scan, torchscript or "
						       "trace (analyze output joins as --observed "
						       "FILE)", optarg);
			a.from = optarg;
			break;
		default: return cli_usage_error(cli, "bad option");
		}
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind < argc && a.from && strcmp(a.from, "scan") != 0)
		a.file = argv[optind++];
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if (a.from && strcmp(a.from, "scan") != 0 && (a.repo || a.rev))
		return cli_usage_error(cli, "--repo and --rev choose a scan, not a %s", a.from);
	if ((error = run(cli, &a, &unsupported)) < 0)
		return cli_fail(cli, error);
	return unsupported ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
