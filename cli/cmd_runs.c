/* mtrial runs [show ID]: every recorded run attempt, failed ones too. */
#include "cli.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void print_list(json_t *runs)
{
	json_t *r;
	size_t i;

	if (!json_array_size(runs)) {
		printf("No runs recorded yet: mtrial run [--system S] [--track T] -- CMD ARGS...\n");
		return;
	}
	printf("%-5s %-9s %-11s %-8s %-20s %-6s %s\n", "id", "system", "track", "status", "started",
	       "exit", "command or source");
	json_array_foreach(runs, i, r) {
		char exit_s[16] = "-";
		if (json_is_integer(json_object_get(r, "exit_status")))
			snprintf(exit_s, sizeof(exit_s), "%lld",
				 (long long)json_integer_value(json_object_get(r, "exit_status")));
		printf("#%-4lld %-9s %-11s %-8s %-20s %-6s %s\n",
		       (long long)json_integer_value(json_object_get(r, "id")), str(r, "system"),
		       str(r, "track") ? str(r, "track") : "-", str(r, "status"), str(r, "started"),
		       exit_s, str(r, "command") ? str(r, "command") : str(r, "source"));
	}
}

static void print_one(json_t *r)
{
	const char *keys[] = {"system", "track", "label", "cache", "origin", "command",
			      "source", "status", "started", "ended"};
	printf("Run #%lld\n", (long long)json_integer_value(json_object_get(r, "id")));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (str(r, keys[i]))
			printf("  %-8s %s\n", keys[i], str(r, keys[i]));
	if (json_is_integer(json_object_get(r, "exit_status")))
		printf("  %-8s %lld\n", "exit",
		       (long long)json_integer_value(json_object_get(r, "exit_status")));
}

int cmd_runs(struct cli *cli, int argc, char **argv)
{
	const char *sub = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
	int64_t id = 0;
	mt_trial *t = NULL;
	json_t *runs;
	int status;
	char *end;

	if (sub && strcmp(sub, "show") == 0) {
		if (argc < 3)
			return cli_usage_error(cli, "runs show ID");
		id = strtoll(argv[2], &end, 10);
		if (*end || id <= 0)
			return cli_usage_error(cli, "runs show %s: expected a run id", argv[2]);
		argc -= 2;
		argv += 2;
	} else if (sub) {
		return cli_usage_error(cli, "unknown subcommand '%s'", sub);
	}
	if (cli_parse_plain(cli, argc, argv, &status))
		return status;
	if (cli_open_trial(cli, &t, 0) < 0)
		return cli_fail(cli, mt_error_last_code());
	runs = mt_journal_runs_json(t->journal, id);
	mt_trial_free(t);
	if (!runs)
		return cli_fail(cli, mt_error_last_code());
	if (id && !json_array_size(runs)) {
		json_decref(runs);
		mt_error_set(MT_ENOTFOUND, "no run #%lld", (long long)id);
		return cli_fail(cli, MT_ENOTFOUND);
	}
	if (cli->json)
		cli_print_json(id ? json_incref(json_array_get(runs, 0)) : json_incref(runs));
	else if (id)
		print_one(json_array_get(runs, 0));
	else
		print_list(runs);
	json_decref(runs);
	return CLI_EXIT_OK;
}
