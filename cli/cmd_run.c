/* mtrial run -- CMD ARGS...: runs the training command as a child, passes
 * its output through, keeps every line with its time in the trial's runs/
 * directory, and records the attempt, failed or interrupted ones too.
 *
 * The log: one line per output line, "EPOCH_MS o|e TEXT" (o: the child's
 * stdout, e: its stderr), so that clocks can be computed from it later,
 * whatever the training prints.
 *
 * --rehearsal records the attempt as a rehearsal: a run made to test the
 * pipeline, the launcher or the log format (a CPU, a smaller config),
 * listed with the others but never evidence (trial/decide.h). */
#include "cli.h"
#include "error.h"
#include "run_trial.h"
#include "runview.h"

#include <stdlib.h>
#include <string.h>

struct run_args {
	mt_run_attempt at;
	char **argv;
};

/* What happens while the command runs, on stderr: its output is on stdout
 * and stderr already. */
static void on_event(mt_run_trial_event ev, const mt_run_trial_result *r, void *payload)
{
	const struct run_args *a = payload;

	if (ev == MT_RUN_TRIAL_STARTED)
		fprintf(stderr, "mtrial: run #%lld (%s%s%s%s%s%s%s): %s\n", (long long)r->id,
			a->at.system, a->at.track ? ", " : "", a->at.track ? a->at.track : "",
			a->at.design && strcmp(a->at.design, "best") == 0 ? ", design best" : "",
			a->at.rehearsal ? ", a rehearsal: not evidence" : "",
			r->rank_from ? ", rank 0 of the job by " : "", r->rank_from ?: "", r->command);
	else
		fprintf(stderr, "\nmtrial: interrupted: stopping the command (its attempt is "
				"kept as aborted)\n");
}

static void say_ended(struct cli *cli, const mt_run_trial_result *r)
{
	mt_run_view v;
	const char *warning;

	(void)mt_runview_read(&v, r->run); /* a key missing reads as none */
	warning = v.cache_warning;

	if (r->no_figures)
		fprintf(stderr, "mtrial: run #%lld: no figures from its log: %s\n",
			(long long)r->id, r->no_figures);
	fprintf(stderr, "mtrial: run #%lld %s (exit status %d, %zu lines in %s)\n",
		(long long)r->id, r->status, r->exit_status, r->lines, r->log);
	if (warning)
		fprintf(stderr, "mtrial: run #%lld: warning: %s\n", (long long)r->id, warning);
	if (cli->json)
		cli_print_json(json_incref(r->run));
}

static int run(struct cli *cli, struct run_args *a, mt_run_trial_result *r)
{
	/* the command's own output reaches its terminal as it wrote it (progress
	 * bars, colours); what is stored in the log is sanitised when shown */
	mt_run_trial_options o = {.at = a->at,
				  .argv = a->argv, .out = cli_raw_stdout(), .err = cli_raw_stderr(),
				  .on_event = on_event, .payload = a};
	mt_trial *t = NULL;
	int error;

	memset(r, 0, sizeof(*r));
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return error;
	/* a rank other than 0 says nothing: its launcher gathers the ranks'
	 * output, and rank 0 speaks for the job */
	if ((error = mt_run_trial(r, t, &o)) == 0 && r->rank <= 0)
		say_ended(cli, r);
	mt_trial_free(t);
	return error;
}

int cmd_run(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS, CLI_ATTEMPT_OPTIONS, {0}};
	struct run_args a = {.at.system = "candidate"};
	mt_run_trial_result r;
	int opt, error, status;

	optind = 1;
	while ((opt = cli_getopt(cli, argc, argv, "+h" CLI_ATTEMPT_SHORT, opts)) >= 0)
		if (!cli_attempt_opt(&a.at, opt))
			return cli_usage_error(cli, "bad option");
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if ((error = cli_attempt_check(cli, &a.at)) != 0)
		return error;
	if (optind >= argc)
		return cli_usage_error(cli, "no command: mtrial run [OPTIONS] -- CMD ARGS...");
	a.argv = argv + optind;
	if ((error = run(cli, &a, &r)) < 0)
		status = cli_fail(cli, error);
	/* as a shell reports a job a signal stopped (130 for Ctrl-C), whatever
	 * the command made of it: a script that catches KeyboardInterrupt and
	 * exits 0 was still cut short, and a caller's `&&` must not go on */
	else if (r.interrupted)
		status = 128 + r.interrupted;
	else
		status = r.exit_status == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	mt_run_trial_result_dispose(&r);
	return status;
}
