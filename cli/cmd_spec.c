/* mtrial spec: validate trial.yaml and print it. */
#include "cli.h"
#include "error.h"

int cmd_spec(struct cli *cli, int argc, char **argv)
{
	mt_trial *t = NULL;
	int status, error;

	if (cli_parse_plain(cli, argc, argv, &status))
		return status;
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	if (cli->json)
		error = cli_print_json(mt_spec_to_json(t->spec));
	else
		printf("%s: valid (schema %d), trial '%s'\n", t->spec_path,
		       MT_SPEC_SCHEMA_VERSION, mt_spec_get(t->spec, "name"));
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
