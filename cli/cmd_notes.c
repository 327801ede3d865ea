/* mtrial notes: list friction notes. */
#include "cli.h"
#include "error.h"
#include "sanitize.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct filter {
	const char *track, *tag;
	int json;
	json_t *out;
	size_t shown;
};

static int matches(const struct filter *f, const mt_note *n)
{
	if (f->track && (!n->track || strcmp(f->track, n->track) != 0))
		return 0;
	if (!f->tag)
		return 1;
	for (size_t i = 0; i < n->ntags; i++)
		if (strcmp(n->tags[i], f->tag) == 0)
			return 1;
	return 0;
}

/* One line of the header; a \n in a value written by another tool would
 * start a line of its own (stdout's filter keeps \n). */
static void print_field(const char *fmt, const char *value)
{
	char *safe = mt_term_safe(value, MT_TERM_LINE);
	printf(fmt, safe);
	free(safe);
}

/* The note's text, every line indented under its header, so that no line of
 * a note can pass for another note's header. */
static void print_text(const char *text)
{
	char *safe = mt_term_safe(text, MT_TERM_TEXT);
	const char *line = safe, *nl;

	for (; (nl = strchr(line, '\n')); line = nl + 1)
		printf("      %.*s\n", (int)(nl - line), line);
	printf("      %s\n", line);
	free(safe);
}

static int print_note(const mt_note *n, void *payload)
{
	struct filter *f = payload;
	char when[32];

	if (!matches(f, n))
		return 0;
	f->shown++;
	mt_time_iso(when, sizeof(when), n->created_ms);
	printf("#%-4lld %s", (long long)n->id, when);
	if (n->track)
		print_field(" [%s]", n->track);
	for (size_t i = 0; i < n->ntags; i++)
		print_field(" #%s", n->tags[i]);
	if (n->interval_id)
		printf(" (effort #%lld)", (long long)n->interval_id);
	putchar('\n');
	print_text(n->text);
	return 0;
}

/* --json: the notes the filter keeps, as mt_journal_notes_json has them. */
static int add_note(const mt_note *n, void *payload)
{
	struct filter *f = payload;

	if (matches(f, n))
		json_array_append_new(f->out, mt_note_json(n));
	return 0;
}

int cmd_notes(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"track", required_argument, NULL, 'T'},
					     {"tag", required_argument, NULL, 't'},
					     {0}};
	struct filter f = {0};
	mt_trial *t = NULL;
	int opt, error;

	while ((opt = cli_getopt(cli, argc, argv, "hT:t:", opts)) >= 0) {
		if (opt == 'T')
			f.track = optarg;
		else if (opt == 't')
			f.tag = optarg;
		else
			return cli_usage_error(cli, "bad option");
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if ((error = cli_open_trial(cli, &t, 0)) < 0)
		return cli_fail(cli, error);
	if (cli->json) {
		f.out = json_array();
		if ((error = mt_journal_notes_foreach(t->journal, add_note, &f)) == 0)
			error = cli_print_json(f.out);
		else
			json_decref(f.out);
	} else {
		error = mt_journal_notes_foreach(t->journal, print_note, &f);
		if (error == 0 && f.shown == 0)
			printf("No notes yet. Add one with: mtrial note TEXT\n");
	}
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
