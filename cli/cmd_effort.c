/* mtrial effort: engineering effort timers. */
#include "cli.h"
#include "error.h"
#include "journal_view.h"
#include "parse.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static void print_interval(const char *verb, const mt_effort *e)
{
	char dur[32];
	int64_t end = e->stopped_ms ? e->stopped_ms : mt_now_ms();

	mt_duration_fmt(dur, sizeof(dur), end - e->started_ms);
	printf("%s #%lld: %s%s%s%s%s, %s\n", verb, (long long)e->id, e->category,
	       e->track ? ", track " : "", e->track ? e->track : "", e->text ? ": " : "",
	       e->text ? e->text : "", dur);
}

static int report(struct cli *cli, const char *verb, const mt_effort *e)
{
	if (cli->json)
		return cli_print_json(mt_effort_json(e));
	print_interval(verb, e);
	return 0;
}

static int start(struct cli *cli, mt_trial *t, const char *track, const char *category,
		 const char *text)
{
	mt_effort e = {0};
	int error = mt_journal_effort_start(t->journal, track, category, text, &e);
	if (error == 0)
		error = report(cli, "Started", &e);
	mt_effort_dispose(&e);
	return error;
}

static int add(struct cli *cli, mt_trial *t, const char *track, const char *category,
	       const char *duration, const char *text)
{
	mt_effort e = {0};
	int64_t ms = 0, now = mt_now_ms();
	int error;

	if ((error = mt_parse_duration(duration, &ms)) < 0)
		return error;
	error = mt_journal_effort_add(t->journal, track, category, text, now - ms, now, &e);
	if (error == 0)
		error = report(cli, "Added", &e);
	mt_effort_dispose(&e);
	return error;
}

static int stop(struct cli *cli, mt_trial *t)
{
	mt_effort e = {0};
	int error = mt_journal_effort_stop(t->journal, &e);
	if (error == 0)
		error = report(cli, "Stopped", &e);
	mt_effort_dispose(&e);
	return error;
}

static int status(struct cli *cli, mt_trial *t)
{
	mt_effort e = {0};
	int error = mt_journal_effort_current(t->journal, &e);

	if (error == MT_ENOTFOUND) {
		mt_error_clear();
		if (cli->json)
			return cli_print_json(json_pack("{sn}", "running"));
		printf("No effort timer is running.\n");
		return 0;
	}
	if (error == 0) {
		if (cli->json)
			error = cli_print_json(json_pack("{so}", "running", mt_effort_json(&e)));
		else
			print_interval("Running", &e);
	}
	mt_effort_dispose(&e);
	return error;
}

static int print_log_row(const mt_effort *e, void *payload)
{
	(void)payload;
	print_interval(e->stopped_ms ? "  " : "  running", e);
	return 0;
}

static int log_cmd(struct cli *cli, mt_trial *t)
{
	json_t *summary = mt_journal_effort_summary_json(t->journal, mt_now_ms());
	mt_effort_summary_view v;
	char dur[32];
	int error;

	if (!summary)
		return mt_error_last_code();
	if (cli->json) {
		json_t *intervals = mt_journal_effort_json(t->journal);
		if (!intervals) {
			json_decref(summary);
			return mt_error_last_code();
		}
		return cli_print_json(json_pack("{so, so}", "intervals", intervals, "summary",
						summary));
	}
	error = mt_journal_effort_foreach(t->journal, print_log_row, NULL);
	if (mt_effort_summary_view_read(&v, summary) < 0 && error == 0)
		error = mt_error_last_code();
	mt_duration_fmt(dur, sizeof(dur), v.total_ms);
	printf("Total: %s\n", dur);
	for (size_t i = 0; i < v.ntracks; i++) {
		const mt_effort_track_view *tr = &v.tracks[i];
		mt_duration_fmt(dur, sizeof(dur), tr->total_ms);
		printf("  %s: %s\n", tr->track, dur);
		for (size_t k = 0; k < tr->ncategories; k++) {
			mt_duration_fmt(dur, sizeof(dur), tr->categories[k].ms);
			printf("    %-22s %s\n", tr->categories[k].category, dur);
		}
	}
	mt_effort_summary_view_dispose(&v);
	json_decref(summary);
	return error;
}

static int dispatch(struct cli *cli, const char *sub, const char *track, const char *category,
		    const char *duration, char *text)
{
	mt_trial *t = NULL;
	int error;

	if ((error = cli_open_trial(cli, &t, 0)) < 0)
		return error;
	if (strcmp(sub, "start") == 0)
		error = start(cli, t, track, category, text);
	else if (strcmp(sub, "add") == 0)
		error = add(cli, t, track, category, duration, text);
	else if (strcmp(sub, "stop") == 0)
		error = stop(cli, t);
	else if (strcmp(sub, "status") == 0)
		error = status(cli, t);
	else
		error = log_cmd(cli, t);
	mt_trial_free(t);
	return error;
}

int cmd_effort(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"track", required_argument, NULL, 'T'},
					     {"category", required_argument, NULL, 'c'},
					     {"duration", required_argument, NULL, 'd'},
					     {0}};
	static const char *const subs[] = {"start", "add", "stop", "status", "log", NULL};
	const char *sub = argc > 1 ? argv[1] : NULL, *track = NULL, *category = NULL;
	const char *duration = NULL;
	int takes_text;
	char *text;
	int opt, error;

	if (sub && (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0))
		return fputs(cli->cmd->usage, stdout), CLI_EXIT_OK;
	if (!sub)
		return cli_usage_error(cli, "missing subcommand (start, stop, status, log)");
	if (!mt_str_in(sub, subs))
		return cli_usage_error(cli, "unknown subcommand '%s'", sub);
	takes_text = strcmp(sub, "start") == 0 || strcmp(sub, "add") == 0;
	while ((opt = getopt_long(argc - 1, argv + 1, "hT:c:d:", opts, NULL)) != -1) {
		int common = cli_common_option(cli, opt);
		if (common < 0)
			return CLI_EXIT_OK;
		if (common)
			continue;
		if ((opt == 'T' || opt == 'c') && !takes_text)
			return cli_usage_error(cli, "--track and --category go with 'start' and 'add'");
		if (opt == 'd' && strcmp(sub, "add") != 0)
			return cli_usage_error(cli, "--duration goes with 'add'");
		if (opt == 'd')
			duration = optarg;
		else if (opt == 'T')
			track = optarg;
		else if (opt == 'c')
			category = optarg;
		else
			return cli_usage_error(cli, "bad option");
	}
	if (optind + 1 < argc && !takes_text)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind + 1]);
	if (strcmp(sub, "add") == 0 && !duration)
		return cli_usage_error(cli, "'effort add' needs --duration (e.g. 1h30m)");
	text = cli_join_args(argc - 1, argv + 1, optind);
	error = dispatch(cli, sub, track, category, duration, text);
	free(text);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
