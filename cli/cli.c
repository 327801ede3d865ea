/* Helpers shared by the commands (see cli.h). */
#include "cli.h"
#include "error.h"
#include "jsonw.h"
#include "sanitize.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_common_option(struct cli *cli, int opt)
{
	switch (opt) {
	case CLI_OPT_TRIAL:
		cli->trial_dir = optarg;
		return 1;
	case CLI_OPT_JSON:
		cli->json = 1;
		return 1;
	case CLI_OPT_HELP:
		fputs(cli->cmd->usage, stdout);
		return -1;
	default:
		return 0;
	}
}

int cli_getopt(struct cli *cli, int argc, char **argv, const char *shortopts,
	       const struct option *opts)
{
	int opt;

	while ((opt = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		int common = cli_common_option(cli, opt);
		if (common < 0)
			return CLI_GETOPT_HELP;
		if (!common)
			return opt;
	}
	return CLI_GETOPT_END;
}

int cli_parse_plain(struct cli *cli, int argc, char **argv, int *status)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS, {0}};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int common = cli_common_option(cli, opt);
		if (common < 0) {
			*status = CLI_EXIT_OK;
			return 1;
		}
		if (!common) {
			*status = cli_usage_error(cli, "bad option");
			return 1;
		}
	}
	if (optind < argc) {
		*status = cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
		return 1;
	}
	return 0;
}

int cli_usage_error(struct cli *cli, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "mtrial %s: ", cli->cmd ? cli->cmd->name : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'mtrial %s --help'.\n", cli->cmd ? cli->cmd->name : "");
	return CLI_EXIT_USAGE;
}

int cli_fail(struct cli *cli, int code)
{
	const char *msg = mt_error_last();
	if (!*msg)
		msg = "failed";
	fprintf(stderr, "mtrial: %s\n", msg);
	if (cli->json)
		cli_print_json(json_pack("{ss, si}", "error", msg, "exit",
					 mt_error_exit_status(code)));
	return mt_error_exit_status(code);
}

int cli_open_trial(struct cli *cli, mt_trial **out, int load_spec)
{
	char cwd[4096], *dir = NULL;
	int error;

	if (!getcwd(cwd, sizeof(cwd)))
		return mt_error_set(MT_EIO, "cannot read the current directory");
	if ((error = mt_trial_find(&dir, cli->trial_dir, cwd)) < 0)
		return error;
	error = mt_trial_open(out, dir, load_spec);
	free(dir);
	return error;
}

int cli_print_json(json_t *v)
{
	if (!v)
		return mt_error_set(MT_EIO, "could not build JSON output");
	char *text = mt_json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY), *safe;

	json_decref(v);
	if (!text)
		return mt_error_set(MT_EIO, "could not encode JSON output");
	/* jansson escapes C0 controls only; a terminal also obeys C1 and bidi */
	safe = mt_term_safe_json(text, strlen(text));
	fputs(safe, stdout);
	fputc('\n', stdout);
	free(safe);
	free(text);
	return 0;
}

char *cli_join_args(int argc, char **argv, int from)
{
	mt_buf b = MT_BUF_INIT;
	if (from >= argc)
		return NULL;
	for (int i = from; i < argc; i++)
		mt_buf_printf(&b, "%s%s", i > from ? " " : "", argv[i]);
	return mt_buf_detach(&b);
}

int cli_mark_rehearsal(struct cli *cli, int argc, char **argv, const char *what,
		       const char *noun, int (*set)(mt_journal *j, int64_t id, int rehearsal))
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"rehearsal", no_argument, NULL, 'R'},
					     {"evidence", no_argument, NULL, 'E'},
					     {0}};
	mt_trial *t = NULL;
	int opt, as = -1, error;
	int64_t id;
	char *end;

	optind = 1;
	while ((opt = cli_getopt(cli, argc, argv, "h", opts)) >= 0) {
		if ((opt != 'R' && opt != 'E') || (as >= 0 && as != (opt == 'R')))
			return cli_usage_error(cli, "%s mark ID --rehearsal|--evidence: one of the two",
					       what);
		as = opt == 'R';
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind != argc - 1 || as < 0)
		return cli_usage_error(cli, "%s mark ID --rehearsal|--evidence", what);
	id = strtoll(argv[optind], &end, 10);
	if (*end || id <= 0)
		return cli_usage_error(cli, "%s mark %s: expected a %s id", what, argv[optind],
				       noun);
	if ((error = cli_open_trial(cli, &t, 0)) < 0 || (error = set(t->journal, id, as)) < 0) {
		mt_trial_free(t);
		return cli_fail(cli, error);
	}
	mt_trial_free(t);
	if (cli->json)
		cli_print_json(json_pack("{sI, sb}", "id", (json_int_t)id, "rehearsal", as));
	else
		printf(as ? "%c%s #%lld is a rehearsal: listed, never evidence.\n"
			  : "%c%s #%lld is evidence: mtrial decide counts it.\n",
		       toupper((unsigned char)noun[0]), noun + 1, (long long)id);
	return CLI_EXIT_OK;
}

/* A whole number >= 1, else -1 (cli_attempt_check says so). */
static int64_t count_arg(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	return end == s || *end || errno || v < 1 || v > INT32_MAX ? -1 : v;
}

int cli_attempt_opt(mt_run_attempt *a, int opt)
{
	switch (opt) {
	case 's': a->system = optarg; return 1;
	case 't': a->track = optarg; return 1;
	case 'l': a->label = optarg; return 1;
	case 'c': a->cache = optarg; return 1;
	case 'R': a->rehearsal = 1; return 1;
	case CLI_OPT_DEVICES: a->devices = count_arg(optarg); return 1;
	case CLI_OPT_HOSTS: a->hosts = count_arg(optarg); return 1;
	case CLI_OPT_DESIGN: a->design = optarg; return 1;
	default: return 0;
	}
}

int cli_attempt_check(struct cli *cli, const mt_run_attempt *a)
{
	static const char *const systems[] = {"baseline", "candidate", NULL};
	static const char *const tracks[] = {"portability", "optimized", NULL};
	static const char *const caches[] = {"cold", "warm", NULL};
	static const char *const designs[] = {"matched", "best", NULL};

	if (!mt_str_in(a->system, systems))
		return cli_usage_error(cli, "--system %s: expected baseline or candidate", a->system);
	if (a->track && !mt_str_in(a->track, tracks))
		return cli_usage_error(cli, "--track %s: expected portability or optimized", a->track);
	if (a->cache && !mt_str_in(a->cache, caches))
		return cli_usage_error(cli, "--cache %s: expected cold or warm", a->cache);
	if (a->design && !mt_str_in(a->design, designs))
		return cli_usage_error(cli, "--design %s: expected matched or best", a->design);
	if (a->devices < 0 || a->hosts < 0)
		return cli_usage_error(cli, "--%s: expected a whole number >= 1",
				       a->devices < 0 ? "devices" : "hosts");
	return 0;
}
