/* mtrial tui: open the wizard. */
#include "cli.h"
#include "error.h"
#include "tui.h"

int cmd_tui(struct cli *cli, int argc, char **argv)
{
	mt_trial *t = NULL;
	int status, error;

	if (cli_parse_plain(cli, argc, argv, &status))
		return status;
	cli->json = 0;
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	error = mt_tui_run(t);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
