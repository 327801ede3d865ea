/* mtrial tui: open the wizard. */
#include "cli.h"
#include "error.h"
#include "tui.h"

int cmd_tui(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS, {0}};
	mt_trial *t = NULL;
	int opt, error;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int common = cli_common_option(cli, opt);
		if (common < 0)
			return CLI_EXIT_OK;
		if (!common)
			return cli_usage_error(cli, "bad option");
	}
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	cli->json = 0;
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	error = mt_tui_run(t);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
