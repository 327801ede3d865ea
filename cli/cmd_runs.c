/* mtrial runs [show ID | import FILE...]: every recorded run attempt,
 * failed ones too, with its two clocks, time and cost to the target. */
#include "cli.h"
#include "error.h"
#include "runs.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A number of seconds, or "-" for null. */
static const char *secs(char *buf, size_t size, json_t *v)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, size, "%.3g s", json_number_value(v));
	return buf;
}

static void print_list(json_t *runs)
{
	char c1[32], st[32], tt[32];
	json_t *r;
	size_t i;

	if (!json_array_size(runs)) {
		printf("No runs recorded yet: mtrial run [--system S] [--track T] -- CMD ARGS..., or\n"
		       "mtrial runs import LOG...\n");
		return;
	}
	printf("%-5s %-9s %-11s %-8s %-20s %-5s %-10s %-10s %-12s %s\n", "id", "system", "track",
	       "status", "started", "exit", "clock 1", "step", "to target", "command or source");
	json_array_foreach(runs, i, r) {
		char exit_s[16] = "-";
		json_t *reached = json_object_get(r, "reached");
		if (json_is_integer(json_object_get(r, "exit_status")))
			snprintf(exit_s, sizeof(exit_s), "%lld",
				 (long long)json_integer_value(json_object_get(r, "exit_status")));
		printf("#%-4lld %-9s %-11s %-8s %-20s %-5s %-10s %-10s %-12s %s\n",
		       (long long)json_integer_value(json_object_get(r, "id")), str(r, "system"),
		       str(r, "track") ? str(r, "track") : "-", str(r, "status"), str(r, "started"),
		       exit_s, secs(c1, sizeof(c1), json_object_get(r, "clock1_s")),
		       secs(st, sizeof(st), json_object_get(r, "steady_step_s")),
		       json_is_false(reached) ? "not reached"
					      : secs(tt, sizeof(tt), json_object_get(r, "time_to_target_s")),
		       str(r, "command") ? str(r, "command") : str(r, "source"));
	}
}

/* mtrial runs import LOG... [--system S] [--track T] [--label L]: runs made
 * elsewhere (MLPerf logs, or output with mtrial: lines). */
static int import(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"system", required_argument, NULL, 's'},
					     {"track", required_argument, NULL, 't'},
					     {"label", required_argument, NULL, 'l'},
					     {0}};
	static const char *const systems[] = {"baseline", "candidate", NULL};
	static const char *const tracks[] = {"portability", "optimized", NULL};
	const char *system = "candidate", *track = NULL, *label = NULL;
	json_t *done = json_array();
	mt_trial *t = NULL;
	mt_runlog_rules *rules = NULL; /* read once for all the logs */
	int opt, error = 0;

	optind = 1;
	while ((opt = cli_getopt(cli, argc, argv, "hs:t:l:", opts)) >= 0) {
		if (opt == 's')
			system = optarg;
		else if (opt == 't')
			track = optarg;
		else if (opt == 'l')
			label = optarg;
		else
			return json_decref(done), cli_usage_error(cli, "bad option");
	}
	if (opt == CLI_GETOPT_HELP)
		return json_decref(done), CLI_EXIT_OK;
	if (!mt_str_in(system, systems) || (track && !mt_str_in(track, tracks)))
		return json_decref(done),
		       cli_usage_error(cli, "--system baseline|candidate, --track portability|optimized");
	if (optind >= argc)
		return json_decref(done), cli_usage_error(cli, "no log to import");
	if ((error = cli_open_trial(cli, &t, 1)) < 0 || (error = mt_runlog_rules_load(&rules)) < 0) {
		mt_trial_free(t);
		return json_decref(done), cli_fail(cli, error);
	}
	for (int i = optind; i < argc && error == 0; i++) {
		char *abs = mt_path_abs(argv[i]), *text = NULL;
		json_t *m = NULL;
		int64_t id = 0, first;
		const char *st;
		if ((error = mt_runs_metrics_with(&m, rules, argv[i], MT_RUNS_LOG_RAW, t->spec, 0,
						  -1)) == 0) {
			mt_journal_run rec = {.system = system, .track = track, .label = label,
					      .origin = "import", .log = abs ? abs : argv[i]};
			st = json_string_value(json_object_get(m, "status"));
			first = json_integer_value(json_object_get(m, "first_ms"));
			rec.status = st && strcmp(st, "unknown") != 0 ? st : "success";
			rec.started_ms = first > 0 ? first : mt_now_ms();
			rec.ended_ms = json_integer_value(json_object_get(m, "last_ms"));
			rec.metrics = text = json_dumps(m, JSON_COMPACT);
			if (!json_integer_value(json_object_get(m, "steps")) &&
			    !json_array_size(json_object_get(m, "evaluations")) &&
			    !json_is_number(json_object_get(m, "run_minutes")))
				error = mt_error_set(MT_EINVALID, "%s: no training events in it (MLPerf "
						     ":::MLLOG lines or mtrial: lines); nothing imported",
						     argv[i]);
			else if ((error = mt_journal_run_add(t->journal, &rec, &id)) == 0) {
				json_array_append_new(done, json_integer(id));
				if (!cli->json)
					printf("Imported %s as run #%lld (%s, %s, %lld warnings).\n",
					       argv[i], (long long)id, system, rec.status,
					       (long long)json_integer_value(json_object_get(m, "warnings")));
			}
		}
		json_decref(m);
		free(text);
		free(abs);
	}
	mt_runlog_rules_free(rules);
	mt_trial_free(t);
	if (error < 0) {
		json_decref(done);
		return cli_fail(cli, error);
	}
	if (cli->json)
		cli_print_json(json_pack("{so}", "imported", done));
	else
		json_decref(done);
	return CLI_EXIT_OK;
}

static void print_one(json_t *r)
{
	char buf[32];
	json_t *stalls = json_object_get(json_object_get(r, "metrics"), "stalls"), *x;
	size_t i;

	const char *keys[] = {"system", "track", "label", "cache", "origin", "command",
			      "source", "status", "started", "ended"};
	printf("Run #%lld\n", (long long)json_integer_value(json_object_get(r, "id")));
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (str(r, keys[k]))
			printf("  %-8s %s\n", keys[k], str(r, keys[k]));
	if (json_is_integer(json_object_get(r, "exit_status")))
		printf("  %-8s %lld\n", "exit",
		       (long long)json_integer_value(json_object_get(r, "exit_status")));
	printf("  clock 1  %s (submission to the first step: compilation and start-up)\n",
	       secs(buf, sizeof(buf), json_object_get(r, "clock1_s")));
	printf("  clock 2  %s per step in steady state\n",
	       secs(buf, sizeof(buf), json_object_get(r, "steady_step_s")));
	if (json_is_false(json_object_get(r, "reached")))
		printf("  target   did not reach target\n");
	else if (json_is_true(json_object_get(r, "reached")))
		printf("  target   reached %s after run start\n",
		       secs(buf, sizeof(buf), json_object_get(r, "time_to_target_s")));
	if (json_is_number(json_object_get(r, "run_minutes")))
		printf("  MLPerf   %.3f minutes (run_stop - run_start)\n",
		       json_number_value(json_object_get(r, "run_minutes")));
	json_array_foreach(stalls, i, x)
		printf("  stall    step %lld took %.3g s (median %.3g s): a recompilation?\n",
		       (long long)json_integer_value(json_object_get(x, "step")),
		       json_number_value(json_object_get(x, "seconds")),
		       json_number_value(json_object_get(x, "median_s")));
}

int cmd_runs(struct cli *cli, int argc, char **argv)
{
	const char *sub = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
	int64_t id = 0;
	mt_trial *t = NULL;
	json_t *runs;
	int status;
	char *end;

	if (sub && strcmp(sub, "import") == 0)
		return import(cli, argc - 1, argv + 1);
	if (sub && strcmp(sub, "show") == 0) {
		if (argc < 3)
			return cli_usage_error(cli, "runs show ID");
		id = strtoll(argv[2], &end, 10);
		if (*end || id <= 0)
			return cli_usage_error(cli, "runs show %s: expected a run id", argv[2]);
		argc -= 2;
		argv += 2;
	} else if (sub) {
		return cli_usage_error(cli, "unknown subcommand '%s'", sub);
	}
	if (cli_parse_plain(cli, argc, argv, &status))
		return status;
	if (cli_open_trial(cli, &t, 1) < 0) {
		if (mt_error_last_code() == MT_ENOTFOUND)
			return cli_fail(cli, MT_ENOTFOUND);
		/* a broken trial.yaml: the runs are still listed, without prices */
		fprintf(stderr, "mtrial runs: warning: %s; listing without the target and prices\n",
			mt_error_last());
		mt_error_clear();
		if (cli_open_trial(cli, &t, 0) < 0)
			return cli_fail(cli, mt_error_last_code());
	}
	runs = mt_journal_runs_json(t->journal, id);
	if (!runs) {
		mt_trial_free(t);
		return cli_fail(cli, mt_error_last_code());
	}
	{
		json_t *r;
		size_t i;
		json_array_foreach(runs, i, r)
			mt_runs_flatten(r, t->spec);
	}
	if (!id && cli->json) {
		json_t *all = json_pack("{sO, so}", "runs", runs, "systems",
					mt_runs_by_system(runs, t->spec));
		json_decref(runs);
		runs = all;
	}
	mt_trial_free(t);
	if (id && !json_array_size(runs)) {
		json_decref(runs);
		mt_error_set(MT_ENOTFOUND, "no run #%lld", (long long)id);
		return cli_fail(cli, MT_ENOTFOUND);
	}
	if (cli->json)
		cli_print_json(id ? json_incref(json_array_get(runs, 0)) : json_incref(runs));
	else if (id)
		print_one(json_array_get(runs, 0));
	else
		print_list(runs);
	json_decref(runs);
	return CLI_EXIT_OK;
}
