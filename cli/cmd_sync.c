/* mtrial sync: the trial's events and artefacts exchanged with a remote
 * through refs/mtrial/KEY (core/sync_trial.c). */
#include "cli.h"
#include "error.h"
#include "sanitize.h"
#include "sync_trial.h"
#include "util.h"

#include <stdlib.h>

static json_t *result_json(const mt_sync_trial_result *r)
{
	json_t *refused = json_array();
	char at[40];

	mt_time_iso(at, sizeof(at), r->at_ms);
	for (size_t i = 0; i < r->nrefused; i++)
		json_array_append_new(refused, json_pack("{ss, ss}", "file", r->refused[i].file,
							 "reason", r->refused[i].reason));
	return json_pack("{ss, ss, s:s?, sb, si, s{sI, sI}, s{sI, sI}, s{sI, sI, sI}, ss, so, sb}",
			 "remote", r->remote, "ref", r->ref, "tip", r->tip[0] ? r->tip : NULL,
			 "pushed", r->pushed, "attempts", r->attempts, "events", "received",
			 (json_int_t)r->events_received, "sent", (json_int_t)r->events_sent,
			 "objects", "received", (json_int_t)r->objects_received, "sent",
			 (json_int_t)r->objects_sent, "union", "events", (json_int_t)r->events,
			 "writers", (json_int_t)r->writers, "machines", (json_int_t)r->machines,
			 "synced_at", at, "refused", refused, "reindexed", r->reindexed);
}

static void print_text(const mt_sync_trial_result *r)
{
	char *remote = mt_term_safe(r->remote, MT_TERM_LINE);

	printf("Synced with %s (%s", remote, r->ref);
	printf(r->tip[0] ? " at %.12s).\n" : ", empty).\n", r->tip);
	printf("  %zu events received, %zu sent; %zu objects received, %zu sent.\n",
	       r->events_received, r->events_sent, r->objects_received, r->objects_sent);
	printf("  The trial holds %zu event%s from %zu writer%s on %zu machine%s.\n", r->events,
	       r->events == 1 ? "" : "s", r->writers, r->writers == 1 ? "" : "s", r->machines,
	       r->machines == 1 ? "" : "s");
	if (!r->pushed)
		printf("  Nothing to push: the remote had all of it.\n");
	free(remote);
}

/* Each file refused, named on stderr: exit status 2 (the rest is synced). */
static int refused(const mt_sync_trial_result *r)
{
	char *remote = mt_term_safe(r->remote, MT_TERM_LINE);

	for (size_t i = 0; i < r->nrefused; i++) {
		char *file = mt_term_safe(r->refused[i].file, MT_TERM_LINE);
		char *why = mt_term_safe(r->refused[i].reason, MT_TERM_LINE);
		fprintf(stderr, "mtrial: refused %s from %s: %s\n", file, remote, why);
		free(file);
		free(why);
	}
	if (r->nrefused)
		fprintf(stderr, "mtrial: %zu file%s refused; the rest is synced\n", r->nrefused,
			r->nrefused == 1 ? "" : "s");
	free(remote);
	return r->nrefused ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

int cmd_sync(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS, {0}};
	mt_sync_trial_options o = {0};
	mt_sync_trial_result r;
	mt_trial *t = NULL;
	int opt, error, status;

	while ((opt = cli_getopt(cli, argc, argv, "h", opts)) >= 0)
		return cli_usage_error(cli, "bad option");
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (argc - optind > 1)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc) {
		if (!*argv[optind] || argv[optind][0] == '-')
			return cli_usage_error(cli, "bad remote '%s'", argv[optind]);
		o.remote = argv[optind];
	}
	if ((error = cli_open_trial(cli, &t, 0)) < 0)
		return cli_fail(cli, error);
	if ((error = mt_sync_trial_run(&r, t, &o)) < 0) {
		mt_sync_trial_result_dispose(&r);
		mt_trial_free(t);
		return cli_fail(cli, error);
	}
	if (cli->json)
		cli_print_json(result_json(&r));
	else
		print_text(&r);
	status = refused(&r);
	mt_sync_trial_result_dispose(&r);
	mt_trial_free(t);
	return status;
}
