/* mtrial override: record what the team found out about an op or a torch
 * API. */
#include "cli.h"
#include "error.h"
#include "journal_view.h"
#include "override_trial.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int list(struct cli *cli, mt_trial *t)
{
	json_t *all = mt_journal_overrides_json(t->journal), *o;
	size_t i;

	if (!all)
		return mt_error_last_code();
	if (cli->json)
		return cli_print_json(all);
	json_array_foreach(all, i, o) {
		mt_override_view v;
		(void)mt_override_view_read(&v, o); /* a key missing reads as none */
		printf("#%-3lld %s  %-32s %-12s %s\n", (long long)v.id, v.created, v.key, v.status,
		       v.note);
	}
	mt_error_clear();
	if (!json_array_size(all))
		printf("No overrides recorded (mtrial override OP|API STATUS --note TEXT).\n");
	json_decref(all);
	return 0;
}

static void print_added(struct cli *cli, const mt_override_trial_result *r, const char *op,
			const char *status, const char *note)
{
	if (r->warning)
		fprintf(stderr, "warning: %s: recorded all the same ('mtrial ops registry' lists "
			"what there is)\n", r->warning);
	if (cli->json)
		cli_print_json(json_pack("{sI, ss?}", "id", (json_int_t)r->id, "warning", r->warning));
	else
		printf("Override #%lld: %s is %s (%s). It outranks documented tables in "
		       "'mtrial probe'.\n", (long long)r->id, op, status, note);
}

int cmd_override(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"note", required_argument, NULL, 'n'},
					     {0}};
	const char *note = NULL;
	mt_override_trial_result r = {0};
	mt_trial *t = NULL;
	int opt, error;

	while ((opt = cli_getopt(cli, argc, argv, "hn:", opts)) >= 0) {
		if (opt == 'n')
			note = optarg;
		else
			return cli_usage_error(cli, "bad option");
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind != argc && optind + 2 != argc)
		return cli_usage_error(cli, "give OP (or API) and STATUS, or nothing to list");
	if ((error = cli_open_trial(cli, &t, 0)) < 0)
		return cli_fail(cli, error);
	if (optind == argc)
		error = list(cli, t);
	else if ((error = mt_override_trial_add(&r, t, argv[optind], argv[optind + 1], note)) == 0)
		print_added(cli, &r, argv[optind], argv[optind + 1], note);
	mt_override_trial_result_dispose(&r);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
