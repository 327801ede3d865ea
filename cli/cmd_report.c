/* mtrial report: render the trial record. */
#include "cli.h"
#include "error.h"
#include "model.h"
#include "template.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int render(mt_trial *t, const char *format, char **out)
{
	json_t *model = mt_report_model(t, mt_now_ms());
	char *tmpl = NULL;
	int error = 0;

	if (!model)
		return mt_error_last_code();
	if (strcmp(format, "json") == 0) {
		*out = json_dumps(model, JSON_INDENT(2));
		json_decref(model);
		if (!*out)
			return mt_error_set(MT_EIO, "could not encode the report as JSON");
		/* json_dumps() memory is malloc'd; append the newline here. */
		*out = realloc(*out, strlen(*out) + 2);
		strcat(*out, "\n");
		return 0;
	}
	if ((error = mt_template_load(&tmpl, "summary.md")) == 0)
		error = mt_template_render(out, tmpl, model, "summary.md");
	free(tmpl);
	json_decref(model);
	return error;
}

int cmd_report(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"format", required_argument, NULL, 'f'},
					     {"output", required_argument, NULL, 'o'},
					     {0}};
	const char *format = "md", *output = NULL;
	mt_trial *t = NULL;
	char *text = NULL;
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
	if (strcmp(format, "md") != 0 && strcmp(format, "json") != 0)
		return cli_usage_error(cli, "unknown format '%s' (md or json)", format);
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	cli->json = 0; /* the report is the output; errors go to stderr only */
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	error = render(t, format, &text);
	if (error == 0 && output)
		error = mt_file_write_atomic(output, text, strlen(text), 0);
	else if (error == 0)
		fputs(text, stdout);
	free(text);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
