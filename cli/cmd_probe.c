/* mtrial probe: the repository's ops against a compatibility table. */
#include "cli.h"
#include "compat.h"
#include "compat_import.h"
#include "error.h"
#include "probe.h"
#include "scan.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_TABLE "torchneuron-2.14"

struct probe_args {
	const char *repo, *rev, *table, *observed;
};

/* --observed: an imported table of kind observed, or an analyze JSON file
 * converted on the fly (nothing is written). */
static int load_observed(mt_compat_table **out, const char *what)
{
	mt_import_convert_options o = {.name = "observed", .format = MT_IMPORT_ANALYZE,
				       .origin = what};
	char *text = NULL, *yaml = NULL, source[1024];
	size_t len = 0;
	int error;

	*out = NULL;
	if (!mt_path_exists(what) || strstr(what, ".yaml"))
		error = mt_compat_load(out, what);
	else if ((error = mt_file_read(&text, &len, what)) == 0) {
		snprintf(source, sizeof(source), "file %s", what);
		o.source = source;
		if ((error = mt_compat_convert(&yaml, NULL, text, len, &o)) == 0)
			error = mt_compat_parse(out, yaml, strlen(yaml), what);
	}
	free(text);
	free(yaml);
	if (error == 0 && strcmp(mt_compat_kind(*out), "observed") != 0) {
		error = mt_error_set(MT_EINVALID, "%s: table '%s' is %s, not observed on hardware "
				     "(use --table for documented tables)", what,
				     mt_compat_name(*out), mt_compat_kind(*out));
		mt_compat_free(*out);
		*out = NULL;
	}
	return error;
}

/* The inventory: the trial's latest scan, or a fresh scan of --repo/--rev
 * (cached, so usually instant). *scan_id is the recorded scan's id, or 0. */
static int inventory(struct cli *cli, mt_trial *t, const struct probe_args *a, json_t **out,
		     int64_t *scan_id)
{
	mt_scan_options o = {.repo = a->repo, .rev = a->rev, .use_cache = 1};
	mt_scan_result r;
	json_error_t jerr;
	char *text;
	int error;

	(void)cli;
	*scan_id = 0;
	if (t && !a->repo && !a->rev &&
	    mt_journal_scan_latest(t->journal, 1, out, scan_id, NULL) == 0)
		return 0;
	mt_error_clear();
	if ((error = mt_scan_run(&r, &o)) < 0)
		return error;
	text = mt_scan_result_json(&r, NULL);
	mt_scan_result_dispose(&r);
	*out = json_loads(text, 0, &jerr);
	free(text);
	return *out ? 0 : mt_error_set(MT_EIO, "scan result: %s", jerr.text);
}

static void print_ops(json_t *res, const char *status, const char *title, int sites)
{
	json_t *op, *loc;
	size_t i, k, shown = 0;

	json_array_foreach(json_object_get(res, "ops"), i, op) {
		if (strcmp(json_string_value(json_object_get(op, "status")), status) != 0)
			continue;
		if (!shown++)
			printf("%s:\n", title);
		printf("  %-40s %4lld call%s  [%s]\n", json_string_value(json_object_get(op, "op")),
		       (long long)json_integer_value(json_object_get(op, "count")),
		       json_integer_value(json_object_get(op, "count")) == 1 ? " " : "s",
		       json_string_value(json_object_get(op, "source")));
		json_array_foreach(json_object_get(op, "conditions"), k, loc)
			printf("      when: %s\n", json_string_value(loc));
		json_array_foreach(json_object_get(op, "locations"), k, loc) {
			if (!sites || k >= 5)
				break;
			printf("      %s:%lld\n", json_string_value(json_object_get(loc, "file")),
			       (long long)json_integer_value(json_object_get(loc, "line")));
		}
		if (sites && json_array_size(json_object_get(op, "locations")) > 5)
			printf("      ... %zu more\n",
			       json_array_size(json_object_get(op, "locations")) - 5);
	}
}

static void print_text(json_t *res, const char *recorded)
{
	json_t *t = json_object_get(res, "table"), *s = json_object_get(res, "summary"), *r;
	size_t i;

	printf("Table %s: %s %s (%s, retrieved %s)\n  source: %s\n",
	       json_string_value(json_object_get(t, "name")),
	       json_string_value(json_object_get(t, "backend")),
	       json_string_value(json_object_get(t, "version")),
	       json_string_value(json_object_get(t, "kind")),
	       json_string_value(json_object_get(t, "retrieved")),
	       json_string_value(json_object_get(t, "source")));
	print_ops(res, "unsupported", "Unsupported (every one, with its call sites)", 1);
	print_ops(res, "partial", "Partial (supported when the condition holds)", 1);
	print_ops(res, "cpu_fallback", "CPU fallback", 0);
	print_ops(res, "unknown", "Unknown (no table says; open questions for the trial)", 0);
	json_array_foreach(json_object_get(res, "rules"), i, r)
		printf("%s  rule: %s\n", i ? "" : "Backend-wide rules:\n",
		       json_string_value(json_object_get(r, "text")));
	printf("%lld ops: %lld on device, %lld partial, %lld CPU fallback, %lld unsupported, "
	       "%lld unknown (%.1f%% supported).\n",
	       (long long)json_integer_value(json_object_get(s, "ops")),
	       (long long)json_integer_value(json_object_get(s, "device")),
	       (long long)json_integer_value(json_object_get(s, "partial")),
	       (long long)json_integer_value(json_object_get(s, "cpu_fallback")),
	       (long long)json_integer_value(json_object_get(s, "unsupported")),
	       (long long)json_integer_value(json_object_get(s, "unknown")),
	       json_real_value(json_object_get(s, "support_percentage")));
	printf("%s\n", recorded);
}

static int run(struct cli *cli, const struct probe_args *a, int *unsupported)
{
	mt_trial *t = NULL;
	mt_compat_table *table = NULL, *observed = NULL;
	mt_probe_inputs in = {0};
	json_t *inv = NULL, *res = NULL, *spec = NULL, *overrides = NULL;
	int64_t scan_id = 0, id = 0;
	char recorded[512] = "(not recorded: no trial)";
	const char *name = a->table;
	int error;

	if (cli_open_trial(cli, &t, 1) < 0) {
		if (mt_error_last_code() != MT_ENOTFOUND)
			return mt_error_last_code(); /* a trial with a broken spec */
		mt_error_clear();
	}
	if (t) {
		json_t *recorded_ov = mt_journal_overrides_json(t->journal), *written;
		spec = mt_spec_to_json(t->spec);
		written = json_object_get(json_object_get(spec, "probe"), "overrides");
		overrides = json_array();
		if (json_is_array(written))
			json_array_extend(overrides, written);
		if (recorded_ov)
			json_array_extend(overrides, recorded_ov);
		json_decref(recorded_ov);
		in.overrides = overrides;
		if (!name)
			name = mt_spec_get(t->spec, "probe.table");
	}
	if ((error = mt_compat_load(&table, name ? name : DEFAULT_TABLE)) < 0 ||
	    (a->observed && (error = load_observed(&observed, a->observed)) < 0) ||
	    (error = inventory(cli, t, a, &inv, &scan_id)) < 0)
		goto cleanup;
	in.table = table;
	in.observed = observed;
	if ((error = mt_probe_run(&res, &in, json_object_get(inv, "calls"),
				  json_object_get(inv, "methods"))) < 0)
		goto cleanup;
	json_object_set(res, "repo", json_object_get(inv, "repo"));
	json_object_set(res, "rev", json_object_get(inv, "rev"));
	if (t && mt_journal_probe_add(t->journal, res, scan_id, &id) == 0)
		snprintf(recorded, sizeof(recorded), "Recorded as probe #%lld in %s.",
			 (long long)id, t->dir);
	json_object_set_new(res, "probe_id", id ? json_integer(id) : json_null());
	*unsupported = json_integer_value(
		json_object_get(json_object_get(res, "summary"), "unsupported")) > 0;
	if (cli->json)
		cli_print_json(json_incref(res));
	else
		print_text(res, recorded);
cleanup:
	json_decref(res);
	json_decref(inv);
	json_decref(spec);
	json_decref(overrides);
	mt_compat_free(table);
	mt_compat_free(observed);
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

	while ((opt = getopt_long(argc, argv, "hr:R:t:f:o:", opts, NULL)) != -1) {
		int common = cli_common_option(cli, opt);
		if (common < 0)
			return CLI_EXIT_OK;
		if (common)
			continue;
		switch (opt) {
		case 'r': a.repo = optarg; break;
		case 'R': a.rev = optarg; break;
		case 't': a.table = optarg; break;
		case 'o': a.observed = optarg; break;
		case 'f':
			if (strcmp(optarg, "scan") != 0)
				return cli_usage_error(cli, "--from %s: only 'scan' so far (TorchScript "
						       "graphs and traces come later; analyze "
						       "output joins as --observed FILE)", optarg);
			break;
		default: return cli_usage_error(cli, "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if ((error = run(cli, &a, &unsupported)) < 0)
		return cli_fail(cli, error);
	return unsupported ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
