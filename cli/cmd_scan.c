/* mtrial scan: the static op inventory of a repository. */
#include "cli.h"
#include "error.h"
#include "scan.h"
#include "scan_trial.h"
#include "scan_view.h"
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

static void print_file_stats(const mt_scan_view *r)
{
	size_t i, quiet = 0;

	for (i = 0; i < r->nfiles; i++) {
		const mt_scan_file *f = &r->files[i];
		if (!f->calls && !f->methods && !f->findings) {
			quiet++;
			continue;
		}
		printf("[mtrial scan] file '%s': torch calls %lld, tensor methods %lld, findings "
		       "%lld, lines %lld\n",
		       cli_line(f->path), (long long)f->calls, (long long)f->methods,
		       (long long)f->findings, (long long)f->lines);
	}
	if (quiet)
		printf("[mtrial scan] %zu more Python files with no torch call and no finding\n",
		       quiet);
}

static int by_count_desc(const void *a, const void *b)
{
	int64_t ca = (*(const mt_scan_op *const *)a)->count;
	int64_t cb = (*(const mt_scan_op *const *)b)->count;
	return (cb > ca) - (cb < ca);
}

static void print_top_ops(const mt_scan_view *r, size_t max)
{
	const mt_scan_op **items = malloc((r->nops + 1) * sizeof(*items));
	size_t n = r->nops;

	if (!items)
		abort();
	for (size_t i = 0; i < n; i++)
		items[i] = &r->ops[i];
	qsort(items, n, sizeof(*items), by_count_desc);
	printf("  top ops at torch calls:");
	for (size_t i = 0; i < n && i < max; i++)
		printf("%s %s %lld", i ? "," : "", items[i]->name, (long long)items[i]->count);
	printf("%s\n", n ? "" : " none");
	free(items);
}

static void print_findings(const mt_scan_view *r)
{
	static const char *const order[] = {"high", "medium", "low", "none"};
	const mt_scan_finding *f;

	for (int e = 0; e < 4; e++)
		for (f = r->findings; f < r->findings + r->nfindings; f++)
			if (strcmp(f->effort, order[e]) == 0)
				printf("  %-6s %s:%lld  %s: %s\n", order[e], cli_line(f->file),
				       (long long)f->line, f->kind, f->message);
}

/* Where the scan looked: the files, the limit and what was skipped. */
static void print_where(const mt_scan_view *r)
{
	size_t i;

	print_file_stats(r);
	printf("[mtrial scan] TOTAL statistics for %s at %.12s%s:\n", r->repo, r->rev,
	       r->worktree ? " + work tree" : "");
	for (i = 0; i < r->npaths; i++)
		printf("%s%s", i ? ", " : "  limited to: ", r->paths[i]);
	if (r->npaths)
		printf(" (every other file is left out)\n");
	printf("  Python files scanned %lld (%lld lines), skipped %zu\n",
	       (long long)r->files_scanned, (long long)r->totals.lines, r->nskipped);
}

static void print_text(const mt_scan_view *r, const char *recorded)
{
	size_t i;

	print_where(r);
	/* two counts, named: the probe judges the ops of both kinds of site */
	printf("  torch calls %lld (mapped to an aten op: %lld), tensor methods %lld (certain "
	       "%lld, uncertain %lld), distinct ops %lld (%lld at torch calls)\n",
	       (long long)r->totals.calls, (long long)r->totals.calls_mapped,
	       (long long)r->totals.methods, (long long)r->totals.methods_certain,
	       (long long)r->totals.methods_uncertain, (long long)r->totals.ops_with_methods,
	       (long long)r->totals.ops);
	/* certain: the receiver comes from a torch call in the file; uncertain:
	 * the file does not show what it is */
	printf("  tensor-method names called on what is not a tensor (a str, a file, an object "
	       "of a class), not counted: %lld\n",
	       (long long)r->totals.not_tensor);
	print_top_ops(r, 10);
	printf("  findings %lld: high %lld, medium %lld, low %lld, none %lld\n",
	       (long long)r->totals.findings, (long long)r->totals.high,
	       (long long)r->totals.medium, (long long)r->totals.low, (long long)r->totals.none);
	print_findings(r);
	for (i = 0; i < r->ndeps; i++)
		if (r->deps[i].cuda_only)
			printf("  CUDA-only dependency %s (%s:%lld)\n", r->deps[i].name,
			       cli_line(r->deps[i].file), (long long)r->deps[i].line);
	for (i = 0; i < r->nskipped; i++)
		printf("  skipped %s: %s\n", r->skipped[i].path, r->skipped[i].reason);
	printf("%s\n", recorded);
}

/* What the record says: a line after the text output. */
static void recorded_line(const mt_scan_trial_result *r, const mt_trial *t, char *msg,
			  size_t size)
{
	if (r->not_recorded)
		snprintf(msg, size, "(not recorded: %s)", r->not_recorded);
	else if (r->unchanged)
		snprintf(msg, size, "Unchanged since scan #%lld in %s.", (long long)r->scan_id,
			 t->dir);
	else
		snprintf(msg, size, "Recorded as scan #%lld in %s.", (long long)r->scan_id, t->dir);
	if (r->rev_from_trial) {
		size_t n = strlen(msg);
		snprintf(msg + n, size - n, "%sThe revision is trial.yaml's workload.revision "
			 "(--rev HEAD scans the current commit).", n ? "\n" : "");
	}
}

static int output(struct cli *cli, const mt_scan_result *r, int64_t id, const char *msg)
{
	json_t *summary, *extra;
	mt_scan_view v;
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
	if (mt_scan_view_read(&v, summary) < 0)
		mt_error_clear(); /* the text says what there is */
	print_text(&v, msg);
	mt_scan_view_dispose(&v);
	json_decref(summary);
	return 0;
}

/* The paths with nothing at the scanned revision, on stderr. */
static void warn_missing(const mt_scan_trial_result *r)
{
	for (size_t i = 0; i < r->npaths_missing; i++)
		fprintf(stderr, "warning: %s '%s': nothing there at %.12s%s\n",
			r->paths_from_trial ? "trial.yaml scan.paths" : "--path",
			r->paths_missing[i], r->scan.commit, r->scan.worktree ? " + work tree" : "");
}

/* The trial to record in, when there is one: without --path, its
 * trial.yaml must load, as its scan.paths limit the scan. *why gets the
 * reason there is none. */
static int open_trial(struct cli *cli, mt_trial **t, int has_paths, char *why, size_t size)
{
	*t = NULL;
	if (cli_open_trial(cli, t, !has_paths) < 0) {
		if (!has_paths && mt_error_last_code() != MT_ENOTFOUND)
			return mt_error_last_code(); /* a trial.yaml that does not load: its limit is unknown */
		snprintf(why, size, "%s", mt_error_last());
		mt_error_clear();
		*t = NULL;
	}
	return 0;
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
	mt_scan_trial_options o = {.scan.use_cache = 1};
	struct progress p = {isatty(STDERR_FILENO), 0};
	char recorded[1024] = "", why[1024] = "";
	const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	size_t npaths = 0;
	mt_scan_trial_result r;
	mt_trial *t = NULL;
	int opt, error;

	if (!paths)
		return cli_fail(cli, mt_error_set(MT_EIO, "out of memory"));
	while ((opt = cli_getopt(cli, argc, argv, "hr:R:wnp:", opts)) >= 0) {
		switch (opt) {
		case 'r': o.scan.repo = optarg; break;
		case 'R': o.scan.rev = optarg; break;
		case 'w': o.scan.worktree = 1; break;
		case 'n': o.scan.use_cache = 0; break;
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
	if ((error = open_trial(cli, &t, npaths > 0, why, sizeof(why))) < 0)
		goto cleanup;
	o.scan.paths = paths;
	o.scan.npaths = npaths;
	o.scan.progress = on_progress;
	o.scan.payload = &p;
	if ((error = mt_scan_trial_run(&r, t, &o, why)) < 0)
		goto cleanup;
	warn_missing(&r);
	recorded_line(&r, t, recorded, sizeof(recorded));
	error = output(cli, &r.scan, r.scan_id, recorded);
	mt_scan_trial_result_dispose(&r);
cleanup:
	free(paths);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
