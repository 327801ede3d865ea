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

static void print_file(json_t *f)
{
	const char *mark = json_string_value(json_object_get(f, "mark"));
	const char *note = json_string_value(json_object_get(f, "mark_note"));

	printf("    %-9s %-8s %-40s +%lld -%lld (%lld platform)",
	       json_string_value(json_object_get(f, "status")),
	       json_string_value(json_object_get(f, "kind")),
	       json_string_value(json_object_get(f, "path")),
	       (long long)json_integer_value(json_object_get(f, "added")),
	       (long long)json_integer_value(json_object_get(f, "deleted")),
	       (long long)json_integer_value(json_object_get(f, "platform")));
	if (mark)
		printf(" %s%s%s", mark, note ? ": " : "", note ? note : "");
	printf("\n");
}

static void print_track(json_t *tr)
{
	json_t *ch = json_object_get(tr, "changes"), *tot = json_object_get(ch, "totals"), *f, *e;
	json_t *by_mark = json_object_get(tot, "by_mark");
	json_t *effort = json_object_get(tr, "effort");
	const char *rule;
	size_t i;

	printf("%s track: %s..%s\n", json_string_value(json_object_get(tr, "name")),
	       json_string_value(json_object_get(tr, "base")) ?: "?",
	       json_string_value(json_object_get(tr, "head")) ?: "?");
	if (json_string_value(json_object_get(tr, "description")))
		printf("  %s\n", json_string_value(json_object_get(tr, "description")));
	if (json_string_value(json_object_get(tr, "error")))
		printf("  changes: %s\n", json_string_value(json_object_get(tr, "error")));
	else if (json_string_value(json_object_get(tr, "missing")))
		printf("  changes: unknown: set %s\n", json_string_value(json_object_get(tr, "missing")));
	if (ch) {
		printf("  %lld files, +%lld -%lld lines: %lld platform-specific, %lld generic; "
		       "model %lld, harness %lld, other %lld\n",
		       (long long)json_integer_value(json_object_get(tot, "files")),
		       (long long)json_integer_value(json_object_get(tot, "added")),
		       (long long)json_integer_value(json_object_get(tot, "deleted")),
		       (long long)json_integer_value(json_object_get(tot, "platform")),
		       (long long)json_integer_value(json_object_get(tot, "generic")),
		       (long long)json_integer_value(json_object_get(json_object_get(tot, "by_kind"), "model")),
		       (long long)json_integer_value(json_object_get(json_object_get(tot, "by_kind"), "harness")),
		       (long long)json_integer_value(json_object_get(json_object_get(tot, "by_kind"), "other")));
		json_array_foreach(json_object_get(ch, "files"), i, f)
			print_file(f);
		json_object_foreach(json_object_get(tot, "by_rule"), rule, e)
			printf("    %-20s %lld lines\n", rule, (long long)json_integer_value(e));
		printf("  marked: %lld lines reusable, %lld model-specific, %lld unmarked\n",
		       (long long)json_integer_value(json_object_get(by_mark, "reusable")),
		       (long long)json_integer_value(json_object_get(by_mark, "model-specific")),
		       (long long)json_integer_value(json_object_get(by_mark, "unmarked")));
	}
	json_array_foreach(json_object_get(tr, "stale_marks"), i, f)
		printf("  marked %s, no longer changed: %s\n",
		       json_string_value(json_object_get(f, "mark")),
		       json_string_value(json_object_get(f, "path")));
	printf("  effort: %.1f h", (double)json_integer_value(json_object_get(effort, "total_ms")) /
				       3600000.0);
	if (json_is_number(json_object_get(tr, "budget_hours")))
		printf(" of a %.1f h budget (%.0f%%)",
		       json_number_value(json_object_get(tr, "budget_hours")),
		       100 * json_number_value(json_object_get(tr, "budget_used")));
	printf("\n");
}

/* The trial (its spec loaded) and the rules; on failure, the error printed
 * and its exit status returned. */
static int open_all(struct cli *cli, mt_trial **t, mt_change_rules **rules)
{
	int error;

	if ((error = cli_open_trial(cli, t, 1)) < 0)
		return cli_fail(cli, error);
	if ((error = mt_change_rules_load(rules)) < 0) {
		mt_trial_free(*t);
		*t = NULL;
		return cli_fail(cli, error);
	}
	return 0;
}

static int show(struct cli *cli)
{
	mt_change_rules *rules = NULL;
	mt_trial *t = NULL;
	json_t *out = NULL, *tr;
	int error, status = CLI_EXIT_OK;
	size_t i;

	if ((status = open_all(cli, &t, &rules)) != 0)
		return status;
	if ((error = mt_tracks_json(&out, t, rules, mt_now_ms())) < 0)
		status = cli_fail(cli, error);
	else if (cli->json)
		cli_print_json(json_incref(out));
	else
		json_array_foreach(out, i, tr)
			print_track(tr);
	json_array_foreach(out, i, tr) /* a revision that is not there: bad input */
		if (json_string_value(json_object_get(tr, "error"))) {
			fprintf(stderr, "mtrial tracks: %s track: %s\n",
				json_string_value(json_object_get(tr, "name")),
				json_string_value(json_object_get(tr, "error")));
			status = CLI_EXIT_USAGE;
		}
	json_decref(out);
	mt_change_rules_free(rules);
	mt_trial_free(t);
	return status;
}

static int mark_run(struct cli *cli, const char *track, const char *path, const char *mark,
		    const char *note)
{
	mt_change_rules *rules = NULL;
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
	mt_change_rules_free(rules);
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
