/* mtrial tracks: what each track changed (files and lines, platform-specific
 * or generic, model code or harness, reusable or model-specific as the team
 * marked them) and what it cost in engineering time, against the optimized
 * track's budget. */
#include "tracks.h"
#include "cli.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static void print_file(const mt_track_file *f)
{
	printf("    %-9s %-8s %-40s +%lld -%lld (%lld platform)", f->status, f->kind, f->path,
	       (long long)f->added, (long long)f->deleted, (long long)f->platform);
	if (f->mark)
		printf(" %s%s%s", f->mark, f->mark_note ? ": " : "", f->mark_note ? f->mark_note : "");
	printf("\n");
}

/* What the track changed: totals, files, lines by rule and by mark. */
static void print_changes(const mt_track_view *tr)
{
	size_t i;

	printf("  %lld files, +%lld -%lld lines: %lld platform-specific, %lld generic; "
	       "model %lld, harness %lld, other %lld\n",
	       (long long)tr->totals.files, (long long)tr->totals.added,
	       (long long)tr->totals.deleted, (long long)tr->totals.platform,
	       (long long)tr->totals.generic, (long long)tr->totals.model,
	       (long long)tr->totals.harness, (long long)tr->totals.other);
	for (i = 0; i < tr->nfiles; i++)
		print_file(&tr->files[i]);
	for (i = 0; i < tr->nby_rule; i++)
		printf("    %-20s %lld lines\n", tr->by_rule[i].rule, (long long)tr->by_rule[i].lines);
	printf("  marked: %lld lines reusable, %lld model-specific, %lld unmarked\n",
	       (long long)tr->totals.reusable, (long long)tr->totals.model_specific,
	       (long long)tr->totals.unmarked);
}

static void print_track(const mt_track_view *tr)
{
	printf("%s track: %s..%s\n", tr->name, tr->base ?: "?", tr->head ?: "?");
	if (tr->description)
		printf("  %s\n", tr->description);
	if (tr->error)
		printf("  changes: %s\n", tr->error);
	else if (tr->missing)
		printf("  changes: unknown: set %s\n", tr->missing);
	if (tr->has_changes)
		print_changes(tr);
	for (size_t i = 0; i < tr->nstale; i++)
		printf("  marked %s, no longer changed: %s\n", tr->stale[i].mark, tr->stale[i].path);
	printf("  effort: %.1f h", (double)tr->effort_ms / 3600000.0);
	if (tr->budget_hours == tr->budget_hours) /* not NAN: a budget */
		printf(" of a %.1f h budget (%.0f%%)", tr->budget_hours, 100 * tr->budget_used);
	printf("\n");
}

/* The trial (its spec loaded) and the rules; on failure, the error printed
 * and its exit status returned. */
static int open_all(struct cli *cli, mt_trial **t, mt_tracks_rules **rules)
{
	int error;

	if ((error = cli_open_trial(cli, t, 1)) < 0)
		return cli_fail(cli, error);
	if ((error = mt_tracks_rules_load(rules)) < 0) {
		mt_trial_free(*t);
		*t = NULL;
		return cli_fail(cli, error);
	}
	return 0;
}

static int show(struct cli *cli)
{
	mt_tracks_rules *rules = NULL;
	mt_trial *t = NULL;
	json_t *out = NULL;
	mt_track_view *v = NULL;
	int error, status = CLI_EXIT_OK;
	size_t i, n = 0;

	if ((status = open_all(cli, &t, &rules)) != 0)
		return status;
	if ((error = mt_tracks_json(&out, t, rules, mt_now_ms())) < 0)
		status = cli_fail(cli, error);
	else if (mt_tracks_view_read(&v, &n, out) < 0)
		mt_error_clear(); /* the text says what there is */
	if (!error && cli->json)
		cli_print_json(json_incref(out));
	else if (!error)
		for (i = 0; i < n; i++)
			print_track(&v[i]);
	for (i = 0; i < n; i++) /* a revision that is not there: bad input */
		if (v[i].error) {
			fprintf(stderr, "mtrial tracks: %s track: %s\n", v[i].name, v[i].error);
			status = CLI_EXIT_USAGE;
		}
	mt_tracks_view_free(v, n);
	json_decref(out);
	mt_tracks_rules_free(rules);
	mt_trial_free(t);
	return status;
}

static int mark_run(struct cli *cli, const char *track, const char *path, const char *mark,
		    const char *note)
{
	mt_tracks_rules *rules = NULL;
	mt_trial *t = NULL;
	const char *done = NULL;
	int error, status;

	if ((status = open_all(cli, &t, &rules)) != 0)
		return status;
	if ((error = mt_tracks_mark(t, rules, track, path, mark, note, &done)) < 0)
		status = cli_fail(cli, error);
	else if (cli->json)
		cli_print_json(json_pack("{ss, ss, so, so}", "track", done, "path", path, "mark",
					 mark ? json_string(mark) : json_null(), "note",
					 note ? json_string(note) : json_null()));
	else if (mark)
		printf("%s (%s track) marked %s%s%s\n", path, done, mark, note ? ": " : "",
		       note ? note : "");
	else
		printf("%s (%s track): mark removed\n", path, done);
	mt_tracks_rules_free(rules);
	mt_trial_free(t);
	return status;
}

/* mark and unmark: argv[0] is the subcommand. */
static int mark_cmd(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"track", required_argument, NULL, 'T'},
					     {"note", required_argument, NULL, 'n'},
					     {"reusable", no_argument, NULL, 'r'},
					     {"model-specific", no_argument, NULL, 'm'},
					     {0}};
	int clearing = strcmp(argv[0], "unmark") == 0, opt;
	const char *track = NULL, *note = NULL, *mark = NULL;

	while ((opt = cli_getopt(cli, argc, argv, "hT:n:", opts)) >= 0) {
		if (opt == 'T')
			track = optarg;
		else if (opt == 'n' && !clearing)
			note = optarg;
		else if ((opt == 'r' || opt == 'm') && !clearing && !mark)
			mark = opt == 'r' ? "reusable" : "model-specific";
		else if (opt == 'r' || opt == 'm')
			return cli_usage_error(cli, clearing ? "unmark takes no mark"
							     : "one mark: --reusable or --model-specific");
		else
			return cli_usage_error(cli, "bad option for %s", argv[0]);
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind + 1 != argc)
		return cli_usage_error(cli, "%s takes one PATH (as `mtrial tracks` lists it)", argv[0]);
	if (!clearing && !mark)
		return cli_usage_error(cli, "say --reusable or --model-specific");
	return mark_run(cli, track, argv[optind], mark, note);
}

int cmd_tracks(struct cli *cli, int argc, char **argv)
{
	const char *sub = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
	int status;

	if (sub && strcmp(sub, "mark") != 0 && strcmp(sub, "unmark") != 0)
		return cli_usage_error(cli, "unknown subcommand '%s' (mark, unmark)", sub);
	if (sub)
		return mark_cmd(cli, argc - 1, argv + 1);
	if (cli_parse_plain(cli, argc, argv, &status))
		return status;
	return show(cli);
}
