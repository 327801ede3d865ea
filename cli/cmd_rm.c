/* mtrial rm: withdraw a mistaken record (run, check, override, effort
 * interval, note). Nothing is deleted: the journal keeps it with who, when
 * and why, and every figure leaves it out (trial/journal.c filters it). */
#include "cli.h"
#include "journal_view.h"
#include "withdraw_trial.h"
#include "error.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int list(struct cli *cli, mt_trial *t)
{
	json_t *all = mt_journal_withdrawals_json(t->journal), *w;
	size_t i;

	if (!all)
		return mt_error_last_code();
	if (cli->json)
		return cli_print_json(all);
	json_array_foreach(all, i, w) {
		mt_withdrawal_view v;
		(void)mt_withdrawal_view_read(&v, w); /* a key missing reads as none */
		printf("%s #%lld  withdrawn %s by %s\n      was: %s\n      why: %s\n", v.kind,
		       (long long)v.item_id, v.when, v.who, v.what ?: "(gone)", v.why);
	}
	mt_error_clear();
	if (!json_array_size(all))
		printf("Nothing withdrawn.\n");
	json_decref(all);
	return 0;
}

static int withdraw(struct cli *cli, mt_trial *t, const char *kind, int64_t id, const char *why)
{
	char *who = NULL;
	int64_t wid = 0;
	int error = mt_withdraw_trial(t, kind, id, why, &wid, &who);

	if (error == 0 && cli->json)
		cli_print_json(json_pack("{sI, ss, sI, ss, ss}", "id", (json_int_t)wid, "kind", kind,
					 "item_id", (json_int_t)id, "who", who, "why", why));
	else if (error == 0)
		printf("Withdrew %s #%lld (kept in the journal, left out of every figure; "
		       "mtrial rm --list shows it).\n", kind, (long long)id);
	free(who);
	return error;
}

int cmd_rm(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"why", required_argument, NULL, 'w'},
					     {"list", no_argument, NULL, 'l'},
					     {0}};
	const char *why = NULL;
	char *end = NULL;
	int64_t id = 0;
	mt_trial *t = NULL;
	int opt, error, listing = 0;

	while ((opt = cli_getopt(cli, argc, argv, "hw:l", opts)) >= 0) {
		if (opt == 'w')
			why = optarg;
		else if (opt == 'l')
			listing = 1;
		else
			return cli_usage_error(cli, "bad option");
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (listing && optind < argc)
		return cli_usage_error(cli, "--list takes no arguments");
	if (!listing && optind + 2 != argc)
		return cli_usage_error(cli, "give KIND and ID (kinds: run, check, override, effort, "
				       "note), or --list");
	if (!listing && !mt_str_in(argv[optind], mt_withdraw_kinds))
		return cli_usage_error(cli, "unknown kind '%s' (expected run, check, override, "
				       "effort or note)", argv[optind]);
	errno = 0;
	if (!listing)
		id = strtoll(argv[optind + 1], &end, 10);
	if (!listing && (!end || end == argv[optind + 1] || *end || id <= 0 || errno == ERANGE))
		return cli_usage_error(cli, "ID '%s' is not a record id (a number from the "
				       "listing, e.g. 'mtrial runs')", argv[optind + 1]);
	if (!listing && (!why || !*why))
		return cli_usage_error(cli, "--why TEXT is required: say why the %s is mistaken",
				       argv[optind]);
	if ((error = cli_open_trial(cli, &t, 0)) < 0)
		return cli_fail(cli, error);
	error = listing ? list(cli, t) : withdraw(cli, t, argv[optind], id, why);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
