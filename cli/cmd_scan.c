/* mtrial scan: the static op inventory of a repository. */
#include "cli.h"
#include "error.h"
#include "scan.h"
#include "scan_trial.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct progress {
	int tty;
	int64_t last_ms;
};

/* A line on stderr, rewritten in place on a terminal and at most 10 times a
 * second, so a large repository does not flood a log. */
static void on_progress(size_t done, size_t total, const char *path, void *payload)
{
	struct progress *p = payload;
	int64_t now = mt_mono_ms();

	if (!p->tty || (done != total && now - p->last_ms < 100))
		return;
	p->last_ms = now;
	cli_status_line("scanning %zu/%zu %.60s", done, total, path);
	if (done == total)
		cli_status_line(NULL);
}

static void print_file_stats(json_t *r)
{
	json_t *f;
	size_t i, quiet = 0;

	json_array_foreach(json_object_get(r, "files"), i, f) {
		json_int_t calls = json_integer_value(json_object_get(f, "calls"));
		json_int_t methods = json_integer_value(json_object_get(f, "methods"));
		json_int_t findings = json_integer_value(json_object_get(f, "findings"));
		if (!calls && !methods && !findings) {
			quiet++;
			continue;
		}
		printf("[mtrial scan] file '%s': torch calls %lld, tensor methods %lld, findings "
		       "%lld, lines %lld\n",
		       cli_line(json_string_value(json_object_get(f, "path"))), (long long)calls,
		       (long long)methods, (long long)findings,
		       (long long)json_integer_value(json_object_get(f, "lines")));
	}
	if (quiet)
		printf("[mtrial scan] %zu more Python files with no torch call and no finding\n",
		       quiet);
}

static int by_count_desc(const void *a, const void *b)
{
	json_int_t ca = json_integer_value(json_object_get(*(json_t *const *)a, "count"));
	json_int_t cb = json_integer_value(json_object_get(*(json_t *const *)b, "count"));
	return (cb > ca) - (cb < ca);
}

static void print_top_ops(json_t *r, size_t max)
{
	json_t *ops = json_object_get(r, "ops"), *v, **items;
	const char *k;
	size_t n = 0;

	items = malloc((json_object_size(ops) + 1) * sizeof(*items));
	json_object_foreach(ops, k, v) {
		json_object_set_new(v, "name", json_string(k));
		items[n++] = v;
	}
	qsort(items, n, sizeof(*items), by_count_desc);
	printf("  top ops at torch calls:");
	for (size_t i = 0; i < n && i < max; i++)
		printf("%s %s %lld", i ? "," : "",
		       json_string_value(json_object_get(items[i], "name")),
		       (long long)json_integer_value(json_object_get(items[i], "count")));
	printf("%s\n", n ? "" : " none");
	free(items);
}

static void print_findings(json_t *r)
{
	static const char *const order[] = {"high", "medium", "low", "none"};
	json_t *f;
	size_t i;

	for (int e = 0; e < 4; e++)
		json_array_foreach(json_object_get(r, "findings"), i, f)
			if (strcmp(json_string_value(json_object_get(f, "effort")), order[e]) == 0)
				printf("  %-6s %s:%lld  %s: %s\n", order[e],
				       cli_line(json_string_value(json_object_get(f, "file"))),
				       (long long)json_integer_value(json_object_get(f, "line")),
				       json_string_value(json_object_get(f, "kind")),
				       json_string_value(json_object_get(f, "message")));
}

static void print_text(json_t *r, const char *recorded)
{
	json_t *t = json_object_get(r, "totals"), *e = json_object_get(t, "findings_by_effort"), *d;
	size_t i;

	print_file_stats(r);
	printf("[mtrial scan] TOTAL statistics for %s at %.12s%s:\n",
	       json_string_value(json_object_get(r, "repo")),
	       json_string_value(json_object_get(r, "rev")),
	       json_is_true(json_object_get(r, "worktree")) ? " + work tree" : "");
	json_array_foreach(json_object_get(r, "paths"), i, d)
		printf("%s%s", i ? ", " : "  limited to: ", json_string_value(d));
	if (json_array_size(json_object_get(r, "paths")))
		printf(" (every other file is left out)\n");
	printf("  Python files scanned %lld (%lld lines), skipped %zu\n",
	       (long long)json_integer_value(json_object_get(r, "files_scanned")),
	       (long long)json_integer_value(json_object_get(t, "lines")),
	       json_array_size(json_object_get(r, "files_skipped")));
	/* two counts, named: the probe judges the ops of both kinds of site */
	printf("  torch calls %lld (mapped to an aten op: %lld), tensor methods %lld (certain "
	       "%lld, uncertain %lld), distinct ops %lld (%lld at torch calls)\n",
	       (long long)json_integer_value(json_object_get(t, "calls")),
	       (long long)json_integer_value(json_object_get(t, "calls_mapped")),
	       (long long)json_integer_value(json_object_get(t, "methods")),
	       (long long)json_integer_value(json_object_get(t, "methods_certain")),
	       (long long)json_integer_value(json_object_get(t, "methods_uncertain")),
	       (long long)json_integer_value(json_object_get(t, "ops_with_methods")),
	       (long long)json_integer_value(json_object_get(t, "ops")));
	/* certain: the receiver comes from a torch call in the file; uncertain:
	 * the file does not show what it is */
	printf("  tensor-method names called on what is not a tensor (a str, a file, an object "
	       "of a class), not counted: %lld\n",
	       (long long)json_integer_value(json_object_get(t, "not_tensor")));
	print_top_ops(r, 10);
	printf("  findings %lld: high %lld, medium %lld, low %lld, none %lld\n",
	       (long long)json_integer_value(json_object_get(t, "findings")),
	       (long long)json_integer_value(json_object_get(e, "high")),
	       (long long)json_integer_value(json_object_get(e, "medium")),
	       (long long)json_integer_value(json_object_get(e, "low")),
	       (long long)json_integer_value(json_object_get(e, "none")));
	print_findings(r);
	json_array_foreach(json_object_get(r, "dependencies"), i, d)
		if (json_is_true(json_object_get(d, "cuda_only")))
			printf("  CUDA-only dependency %s (%s:%lld)\n",
			       json_string_value(json_object_get(d, "name")),
			       cli_line(json_string_value(json_object_get(d, "file"))),
			       (long long)json_integer_value(json_object_get(d, "line")));
	json_array_foreach(json_object_get(r, "files_skipped"), i, d)
		printf("  skipped %s: %s\n", json_string_value(json_object_get(d, "path")),
		       json_string_value(json_object_get(d, "reason")));
	printf("%s\n", recorded);
}

/* Stores the result in the trial when there is one; a scan needs no trial.
 * Returns the scan's id in the record, 0 when not recorded. */
static int64_t record(struct cli *cli, const mt_scan_result *r, char *msg, size_t size)
{
	mt_trial *t = NULL;
	mt_journal_scan rec = {r->repo, r->commit, r->tree, r->worktree, r->summary, NULL};
	int64_t id = 0;
	int unchanged = 0;

	if (cli_open_trial(cli, &t, 0) < 0) {
		snprintf(msg, size, "(not recorded: %s)", mt_error_last());
		mt_error_clear();
		return 0;
	}
	rec.result = mt_scan_result_json(r, NULL);
	if (mt_journal_scan_add(t->journal, &rec, &id, &unchanged) < 0)
		snprintf(msg, size, "(not recorded: %s)", mt_error_last());
	else if (unchanged)
		snprintf(msg, size, "Unchanged since scan #%lld in %s.", (long long)id, t->dir);
	else
		snprintf(msg, size, "Recorded as scan #%lld in %s.", (long long)id, t->dir);
	free((char *)rec.result);
	mt_trial_free(t);
	return id;
}

static int output(struct cli *cli, const mt_scan_result *r, int64_t id, const char *msg)
{
	json_t *summary, *extra;
	int error;

	if (cli->json) {
		extra = json_pack("{so}", "scan_id", id ? json_integer(id) : json_null());
		error = mt_scan_result_write_json(stdout, r, extra);
		json_decref(extra);
		fputc('\n', stdout);
		return error;
	}
	if (!(summary = mt_scan_result_summary(r)))
		return mt_error_last_code();
	print_text(summary, msg);
	json_decref(summary);
	return 0;
}

/* The paths with nothing at the scanned revision, on stderr. */
static void warn_missing(const mt_scan_result *r, const char *from)
{
	json_t *summary = mt_scan_result_summary(r), *p;
	size_t i;

	json_array_foreach(json_object_get(summary, "paths_missing"), i, p)
		fprintf(stderr, "warning: %s '%s': nothing there at %.12s%s\n", from,
			json_string_value(p), r->commit, r->worktree ? " + work tree" : "");
	json_decref(summary);
	mt_error_clear();
}

/* --path, else the trial's scan.paths (when there is a trial). */
static int trial_paths(struct cli *cli, char ***out, size_t *n)
{
	mt_trial *t = NULL;
	int error;

	*out = NULL;
	*n = 0;
	if ((error = cli_open_trial(cli, &t, 1)) < 0) {
		if (mt_error_last_code() != MT_ENOTFOUND)
			return error; /* a trial.yaml that does not load: its limit is unknown */
		mt_error_clear(); /* no trial: record() says so */
		return 0;
	}
	error = mt_scan_trial_paths(out, n, t);
	mt_trial_free(t);
	return error;
}

int cmd_scan(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"repo", required_argument, NULL, 'r'},
					     {"rev", required_argument, NULL, 'R'},
					     {"worktree", no_argument, NULL, 'w'},
					     {"no-cache", no_argument, NULL, 'n'},
					     {"path", required_argument, NULL, 'p'},
					     {0}};
	mt_scan_options o = {.use_cache = 1};
	struct progress p = {isatty(STDERR_FILENO), 0};
	char recorded[1024] = "", **spec_paths = NULL;
	const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	size_t npaths = 0, nspec = 0;
	mt_scan_result r;
	int64_t id;
	int opt, error;

	if (!paths)
		return cli_fail(cli, mt_error_set(MT_EIO, "out of memory"));
	while ((opt = cli_getopt(cli, argc, argv, "hr:R:wnp:", opts)) >= 0) {
		switch (opt) {
		case 'r': o.repo = optarg; break;
		case 'R': o.rev = optarg; break;
		case 'w': o.worktree = 1; break;
		case 'n': o.use_cache = 0; break;
		case 'p': paths[npaths++] = optarg; break;
		default: free(paths); return cli_usage_error(cli, "bad option");
		}
	}
	if (opt == CLI_GETOPT_HELP || optind < argc) {
		free(paths);
		return opt == CLI_GETOPT_HELP ? CLI_EXIT_OK
					      : cli_usage_error(cli, "unexpected argument '%s'",
								argv[optind]);
	}
	if (!npaths && (error = trial_paths(cli, &spec_paths, &nspec)) < 0)
		goto cleanup;
	o.paths = npaths ? paths : (const char *const *)spec_paths;
	o.npaths = npaths ? npaths : nspec;
	o.progress = on_progress;
	o.payload = &p;
	if ((error = mt_scan_run(&r, &o)) < 0)
		goto cleanup;
	warn_missing(&r, npaths ? "--path" : "trial.yaml scan.paths");
	id = record(cli, &r, recorded, sizeof(recorded));
	error = output(cli, &r, id, recorded);
	mt_scan_result_dispose(&r);
cleanup:
	free(paths);
	mt_scan_paths_free(spec_paths, nspec);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
