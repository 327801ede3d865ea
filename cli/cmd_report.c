/* mtrial report: render the trial record as Markdown, HTML or JSON. */
#include "cli.h"
#include "error.h"
#include "render.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int cmd_report(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"format", required_argument, NULL, 'f'},
					     {"output", required_argument, NULL, 'o'},
					     {0}};
	const char *format = "md", *output = NULL;
	mt_trial *t = NULL;
	int opt, error;

	while ((opt = cli_getopt(cli, argc, argv, "hf:o:", opts)) >= 0) {
		if (opt == 'f')
			format = optarg;
		else if (opt == 'o')
			output = optarg;
		else
			return cli_usage_error(cli, "bad option");
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (cli->json)
		format = "json";
	if (strcmp(format, "md") != 0 && strcmp(format, "html") != 0 && strcmp(format, "json") != 0)
		return cli_usage_error(cli, "unknown format '%s' (md, html or json)", format);
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	cli->json = 0; /* the report is the output; errors go to stderr only */
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	error = mt_report_write(t, format, mt_now_ms(), output, stdout);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
