/* mtrial index: the event log that journal.db indexes (issue 19): its
 * files, how many events each holds, the lines refused and why;
 * --rebuild makes the index again from the events files. */
#include "cli.h"
#include "error.h"
#include "jsonutil.h"
#include "sanitize.h"
#include "util.h"

#include <stdlib.h>

/* One line of free text (a reason quotes the file) made safe to print. */
static void put_line(const char *fmt, const char *s)
{
	char *safe = mt_term_safe(s ? s : "", MT_TERM_LINE);
	printf(fmt, safe);
	free(safe);
}

static void print_text(json_t *st, int rebuilt)
{
	json_t *f, *r, *refused = json_object_get(st, "refused");
	size_t i;

	if (rebuilt)
		printf("Rebuilt the index from the events files.\n");
	if (mt_json_str(st, "rebuilt_because")) /* on opening it: a file it read is lost */
		put_line("Rebuilt the index on opening it: %s.\n", mt_json_str(st, "rebuilt_because"));
	put_line("Events in %s:\n", mt_json_str(st, "dir"));
	json_array_foreach(json_object_get(st, "files"), i, f) {
		put_line("  %s", mt_json_str(f, "writer"));
		printf("  %lld lines, %lld bytes\n", (long long)mt_json_int(f, "lines"),
		       (long long)mt_json_int(f, "bytes"));
		if (mt_json_int(f, "incomplete_bytes"))
			printf("    warning: a last line of %lld bytes is cut short (a crash "
			       "while writing?); it is left unread\n",
			       (long long)mt_json_int(f, "incomplete_bytes"));
	}
	if (!json_array_size(json_object_get(st, "files")))
		printf("  none yet\n");
	printf("%lld events in the index, %zu lines refused%s\n",
	       (long long)mt_json_int(st, "events"), json_array_size(refused),
	       json_array_size(refused) ? ":" : ".");
	json_array_foreach(refused, i, r) {
		put_line("  %s", mt_json_str(r, "file"));
		printf(":%lld: ", (long long)mt_json_int(r, "line"));
		put_line("%s\n", mt_json_str(r, "reason"));
	}
}

int cmd_index(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"rebuild", no_argument, NULL, 'r'},
					     {0}};
	mt_trial *t = NULL;
	json_t *st = NULL;
	int opt, rebuild = 0, error;

	while ((opt = cli_getopt(cli, argc, argv, "hr", opts)) >= 0) {
		if (opt == 'r')
			rebuild = 1;
		else
			return cli_usage_error(cli, "bad option");
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind != argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if ((error = cli_open_trial(cli, &t, 0)) < 0)
		return error;
	if (rebuild && (error = mt_journal_rebuild(t->journal)) < 0)
		goto cleanup;
	if (!(st = mt_journal_events_json(t->journal))) {
		error = mt_error_last_code();
		goto cleanup;
	}
	if (cli->json) {
		json_object_set_new(st, "rebuilt",
				    json_boolean(rebuild || json_object_get(st, "rebuilt_because")));
		error = cli_print_json(st);
		st = NULL;
	} else {
		print_text(st, rebuild);
	}
cleanup:
	json_decref(st);
	mt_trial_free(t);
	return error;
}
