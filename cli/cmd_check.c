/* mtrial check: numerical correctness, with tolerances the team chose.
 * A check recorded with --rehearsal (or marked so afterwards) compared
 * stand-ins: listed, never evidence. */
#include "check.h"
#include "check_trial.h"
#include "check_view.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int check_open_trial(struct cli *cli, mt_trial **t, int load_spec)
{
	if (cli_open_trial(cli, t, load_spec) == 0)
		return 0;
	*t = NULL;
	if (mt_error_last_code() != MT_ENOTFOUND)
		return mt_error_last_code();
	mt_error_clear();
	return 0;
}

void check_say_recorded(struct cli *cli, const mt_trial *t, int64_t check_id, int rehearsal)
{
	if (cli->json)
		return;
	if (!t)
		printf("(not recorded: no trial)\n");
	else
		printf("Recorded as check #%lld%s in %s.\n", (long long)check_id,
		       rehearsal ? " (a rehearsal: not evidence)" : "", t->dir);
}

/* mtrial check list: the recorded checks, newest first. */
static int list(struct cli *cli, int argc, char **argv)
{
	mt_trial *t = NULL;
	mt_check_view *views = NULL;
	json_t *checks;
	size_t n = 0, rehearsals = 0;
	int status;

	if (cli_parse_plain(cli, argc, argv, &status))
		return status;
	if (cli_open_trial(cli, &t, 0) < 0)
		return cli_fail(cli, mt_error_last_code());
	checks = mt_journal_checks_json(t->journal, NULL, 0);
	mt_trial_free(t);
	if (!checks)
		return cli_fail(cli, mt_error_last_code());
	if (cli->json)
		return cli_print_json(checks), CLI_EXIT_OK;
	if (mt_check_view_read_list(&views, &n, checks) < 0) {
		json_decref(checks);
		return cli_fail(cli, mt_error_last_code());
	}
	for (size_t i = 0; i < n; i++) {
		const mt_check_view *c = &views[i];
		rehearsals += c->rehearsal;
		printf("#%-4lld %s  %-8s %-6s %s vs %s%s\n", (long long)c->id, c->created, c->kind,
		       c->passed ? "pass" : "FAIL", c->reference, c->candidate,
		       c->rehearsal ? "  (rehearsal: not evidence)" : "");
		for (size_t j = 0; j < c->warnings.n; j++)
			printf("      warning: %s\n", c->warnings.v[j]);
	}
	if (!n)
		printf("No checks recorded yet.\n");
	if (rehearsals)
		printf("\n%zu rehearsal check(s): stand-ins compared to test the comparison, never\n"
		       "evidence: mtrial decide and the report's results leave them out\n"
		       "(mtrial check mark ID --evidence counts one).\n", rehearsals);
	mt_check_view_free_list(views, n);
	json_decref(checks);
	return CLI_EXIT_OK;
}

/* mtrial check mark ID --rehearsal|--evidence (cli_mark_rehearsal). */
static int mark(struct cli *cli, int argc, char **argv)
{
	return cli_mark_rehearsal(cli, argc, argv, "check", "check", mt_journal_check_mark);
}

int cmd_check(struct cli *cli, int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(struct cli *, int, char **);
	} subs[] = {{"compare", check_compare},
		    {"model", check_model},
		    {"curves", check_curves},
		    {"list", list},
		    {"mark", mark}};
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub)
		return cli_usage_error(cli, "missing subcommand (compare, model, curves, list, mark)");
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
		return fputs(cli->cmd->usage, stdout), CLI_EXIT_OK;
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (strcmp(sub, subs[i].name) == 0)
			return subs[i].run(cli, argc - 1, argv + 1);
	return cli_usage_error(cli, "unknown subcommand '%s'", sub);
}
