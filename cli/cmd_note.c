/* mtrial note: add a friction note. */
#include "cli.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TAGS 32

static char *read_stdin_text(void)
{
	mt_buf b = MT_BUF_INIT;
	char chunk[4096];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		mt_buf_put(&b, chunk, n);
	while (b.len && (b.ptr[b.len - 1] == '\n' || b.ptr[b.len - 1] == '\r'))
		b.ptr[--b.len] = '\0';
	return mt_buf_detach(&b);
}

static int add(struct cli *cli, const char *text, const char *track, const char **tags,
	       size_t ntags)
{
	mt_trial *t = NULL;
	int64_t id = 0;
	int error;

	if ((error = cli_open_trial(cli, &t, 0)) < 0)
		return error;
	if ((error = mt_journal_note_add(t->journal, text, track, tags, ntags, &id)) == 0) {
		if (cli->json)
			cli_print_json(json_pack("{sI}", "id", (json_int_t)id));
		else
			printf("Note #%lld added.\n", (long long)id);
	}
	mt_trial_free(t);
	return error;
}

int cmd_note(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"track", required_argument, NULL, 'T'},
					     {"tag", required_argument, NULL, 't'},
					     {0}};
	const char *track = NULL, *tags[MAX_TAGS];
	size_t ntags = 0;
	char *text;
	int opt, error;

	while ((opt = cli_getopt(cli, argc, argv, "hT:t:", opts)) >= 0) {
		if (opt == 'T') {
			track = optarg;
		} else if (opt == 't') {
			if (ntags == MAX_TAGS)
				return cli_usage_error(cli, "at most %d tags", MAX_TAGS);
			if (!*optarg)
				return cli_usage_error(cli, "--tag must not be empty");
			tags[ntags++] = optarg;
		} else {
			return cli_usage_error(cli, "bad option");
		}
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind == argc)
		return cli_usage_error(cli, "missing note TEXT");
	if (optind + 1 == argc && strcmp(argv[optind], "-") == 0)
		text = read_stdin_text();
	else
		text = cli_join_args(argc, argv, optind);
	if (!*text) {
		free(text);
		return cli_usage_error(cli, "the note is empty");
	}
	error = add(cli, text, track, tags, ntags);
	free(text);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
