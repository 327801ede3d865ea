/* mtrial probe: the repository's ops against a compatibility table. */
#include "cli.h"
#include "error.h"
#include "opinventory.h"
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
static void print_item(json_t *it, const char *key, int sites)
{
	json_int_t count = json_integer_value(json_object_get(it, "count"));
	const char *op = json_string_value(json_object_get(it, "op"));

	printf("  %-40s %4lld call%s  [%s]", json_string_value(json_object_get(it, key)),
	       (long long)count, count == 1 ? " " : "s",
	       json_string_value(json_object_get(it, "source")));
	if (strcmp(key, "api") == 0)
		printf("  %s", op ? op : "(no aten op)");
	if (json_string_value(json_object_get(it, "kind")))
		printf("  %s", json_string_value(json_object_get(it, "kind")));
	printf("%s\n", json_is_false(json_object_get(it, "certain")) ? "  (uncertain)" : "");
	if (json_string_value(json_object_get(it, "via")))
		printf("      by the %s for %s\n",
		       strncmp(json_string_value(json_object_get(it, "source")), "override:", 9)
			       ? "entry"
			       : "override",
		       json_string_value(json_object_get(it, "via")));
	if (sites && json_string_value(json_object_get(it, "receiver")))
		printf("      a tensor method: the receiver is assumed to be a tensor\n");
}

/* 1 when the team's override decided the entry. */
static int overridden(json_t *it)
{
	return strncmp(json_string_value(json_object_get(it, "source")) ?: "", "override:", 9) == 0;
}

/* The entries of one status (device: those with a condition; "override":
 * on the device by an override, without one), under a title; with `sites`,
 * where each is called. */
static void print_status(json_t *res, const char *key, const char *status, const char *title,
			 int sites)
{
	int by_override = strcmp(status, "override") == 0;
	json_t *it, *loc, *locs;
	size_t i, k, shown = 0;

	json_array_foreach(json_object_get(res, strcmp(key, "api") == 0 ? "apis" : "ops"), i, it) {
		int conditional = json_array_size(json_object_get(it, "conditions")) > 0;
		if (strcmp(json_string_value(json_object_get(it, "status")),
			   by_override ? "device" : status) != 0 ||
		    (!strcmp(status, "device") && !conditional) ||
		    (by_override && (conditional || !overridden(it))))
			continue;
		if (!shown++)
			printf("%s:\n", title);
		print_item(it, key, sites);
		json_array_foreach(json_object_get(it, "conditions"), k, loc)
			printf("      when: %s\n", json_string_value(loc));
		locs = json_object_get(it, "locations");
		json_array_foreach(locs, k, loc) {
			if (!sites || k >= 5)
				break;
			printf("      %s:%lld%s\n", cli_line(json_string_value(json_object_get(loc, "file"))),
			       (long long)json_integer_value(json_object_get(loc, "line")),
			       json_is_false(json_object_get(loc, "certain")) ? " (uncertain)" : "");
		}
		if (sites && json_array_size(locs) > 5)
			printf("      ... %zu more\n", json_array_size(locs) - 5);
	}
}

/* Every status's entries, blockers first, by API or by op. */
static void print_entries(json_t *res)
{
	int by_api = !strcmp(json_string_value(json_object_get(res, "listed_by")) ?: "op", "api");
	const char *key = by_api ? "api" : "op";

	print_status(res, key, "unsupported",
		     by_api ? "Unsupported APIs (every one, with its call sites)"
			    : "Unsupported (every one, with its call sites)", 1);
	print_status(res, key, "partial",
		     by_api ? "Partial APIs (supported when the condition holds)"
			    : "Partial (supported when the condition holds)", 1);
	print_status(res, key, "cpu_fallback", by_api ? "CPU fallback APIs" : "CPU fallback", 0);
	print_status(res, key, "unknown",
		     by_api ? "Unknown APIs (no table says; open questions for the trial)"
			    : "Unknown (no table says; open questions for the trial)", 0);
	print_status(res, key, "device", "Supported, with a condition", 0);
	print_status(res, key, "override", "Supported, by the team's overrides", 0);
}

/* "12 ops: 3 on device, ... (25.0% of ops supported)." */
static void print_counts(json_t *s, const char *what, const char *label, int say_of)
{
	printf("%lld %s: %lld on device, %lld partial, %lld CPU fallback, %lld unsupported, "
	       "%lld unknown (%.1f%% %s%s%ssupported).\n",
	       (long long)json_integer_value(json_object_get(s, what)), label,
	       (long long)json_integer_value(json_object_get(s, "device")),
	       (long long)json_integer_value(json_object_get(s, "partial")),
	       (long long)json_integer_value(json_object_get(s, "cpu_fallback")),
	       (long long)json_integer_value(json_object_get(s, "unsupported")),
	       (long long)json_integer_value(json_object_get(s, "unknown")),
	       json_real_value(json_object_get(s, "support_percentage")), say_of ? "of " : "",
	       say_of ? label : "", say_of ? " " : "");
}

/* Listing APIs: how many are tensor methods, matched by name alone. */
static void print_methods(json_t *res)
{
	json_t *it;
	size_t i, n = 0;

	json_array_foreach(json_object_get(res, "apis"), i, it)
		n += json_string_value(json_object_get(it, "receiver")) != NULL;
	if (n)
		printf("%zu of the APIs are tensor methods (x.NAME(...) as torch.Tensor.NAME): "
		       "their receivers are assumed to be tensors.\n", n);
}

static void print_text(json_t *res, const char *recorded)
{
	json_t *t = json_object_get(res, "table"), *s = json_object_get(res, "summary"), *r;
	json_t *from = json_object_get(res, "from");
	int by_api = !strcmp(json_string_value(json_object_get(res, "listed_by")) ?: "op", "api");
	size_t i;

	if (json_string_value(json_object_get(from, "file")))
		printf("Ops from %s %s\n", json_string_value(json_object_get(from, "source")),
		       json_string_value(json_object_get(from, "file")));
	json_array_foreach(json_object_get(from, "paths"), i, r)
		printf("%s%s", i ? ", " : "Ops from a scan limited to: ", json_string_value(r));
	if (json_array_size(json_object_get(from, "paths")))
		printf("\n");

	printf("Table %s: %s %s (%s, retrieved %s)\n  source: %s\n",
	       json_string_value(json_object_get(t, "name")),
	       json_string_value(json_object_get(t, "backend")),
	       json_string_value(json_object_get(t, "version")),
	       json_string_value(json_object_get(t, "kind")),
	       json_string_value(json_object_get(t, "retrieved")),
	       json_string_value(json_object_get(t, "source")));
	print_entries(res);
	json_array_foreach(json_object_get(res, "rules"), i, r)
		printf("%s  rule: %s\n", i ? "" : "Backend-wide rules:\n",
		       json_string_value(json_object_get(r, "text")));
	if (by_api)
		print_counts(json_object_get(s, "apis"), "apis", "APIs", 1);
	print_counts(s, "ops", "ops", by_api);
	if (by_api)
		print_methods(res);
	if (json_integer_value(json_object_get(s, "uncertain")))
		printf("%lld of %s uncertain: seen only at method calls whose receiver the scan "
		       "cannot tell is a tensor.\n",
		       (long long)json_integer_value(json_object_get(s, "uncertain")),
		       by_api ? "the ops are" : "them");
	printf("%s\n", recorded);
}

static int run(struct cli *cli, const struct probe_args *a, int *unsupported)
{
	mt_trial *t = NULL;
	json_t *inv = NULL, *res = NULL;
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
	/* an unsupported API blocks as an unsupported op does */
	*unsupported = json_integer_value(json_object_get(
			       json_object_get(res, "summary"), "unsupported")) > 0 ||
		       json_integer_value(json_object_get(
			       json_object_get(json_object_get(res, "summary"), "apis"),
			       "unsupported")) > 0;
	if (cli->json)
		cli_print_json(json_incref(res));
	else
		print_text(res, recorded);
cleanup:
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
