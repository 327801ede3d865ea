/* mtrial init: create a trial for a git repository. */
#include "cli.h"
#include "bundle_trial.h"
#include "error.h"
#include "repo.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* A clone of a repository with its trial committed (trial.yaml, no
 * journal.db: that is local) uses that trial: 0 when it does, the error
 * of its open, or 1 when dir is not such a trial. */
static int use_committed(struct cli *cli, const char *dir)
{
	char *spec = mt_path_join(dir, MT_TRIAL_SPEC), *db = mt_path_join(dir, MT_TRIAL_JOURNAL);
	mt_trial *t = NULL;
	int error = 1;

	if (mt_path_exists(spec) && !mt_path_exists(db)) {
		mt_error_clear();
		if ((error = mt_trial_open(&t, dir, 0)) == 0 && cli->json)
			cli_print_json(json_pack("{ss, sb}", "trial", t->dir, "existing", 1));
		else if (error == 0)
			printf("Using the trial in %s (its trial.yaml is in the repository);\n"
			       "its record comes with mtrial sync.\n", dir);
		mt_trial_free(t);
	}
	free(spec);
	free(db);
	return error;
}

static int create(struct cli *cli, const char *repo_path, const char *name)
{
	char *root = NULL, *head = NULL, *dir = NULL, *base;
	int error;

	if ((error = mt_repo_discover(&root, &head, repo_path)) < 0)
		return error;
	dir = cli->trial_dir ? mt_strdup(cli->trial_dir) : mt_path_join(root, MT_TRIAL_DEFAULT_DIR);
	base = strrchr(root, '/');
	if (!name)
		name = base ? base + 1 : root;
	if ((error = mt_trial_create(dir, name, root, head)) == MT_EEXISTS) {
		int used = use_committed(cli, dir);
		error = used == 1 ? error : used;
		goto cleanup;
	}
	if (error < 0)
		goto cleanup;
	if (cli->json) {
		char *abs = mt_path_abs(dir);
		cli_print_json(json_pack("{ss, ss, ss, ss, ss, ss?}", "trial", abs, "spec",
					 MT_TRIAL_SPEC, "journal", MT_TRIAL_JOURNAL, "name", name,
					 "repository", root, "revision", head));
		free(abs);
	} else {
		printf("Created trial '%s' in %s\n", name, dir);
		printf("  repository %s at %s\n", root, head ? head : "(no commits yet)");
		printf("Next: fill in %s/%s (every key is explained there), then\n"
		       "  mtrial spec        to check it\n"
		       "  mtrial             to open the wizard\n",
		       dir, MT_TRIAL_SPEC);
	}
cleanup:
	free(root);
	free(head);
	free(dir);
	return error;
}

/* --from-bundle FILE DIR: a read-only trial from a verified bundle. */
static int from_bundle(struct cli *cli, const char *bundle, const char *dir)
{
	mt_bundle_verified v;
	char *abs;
	int error;

	if ((error = mt_bundle_init(&v, bundle, dir)) < 0)
		return error;
	abs = mt_path_abs(dir);
	if (cli->json)
		cli_print_json(json_pack("{ss, ss, sb, sI, sI}", "trial", abs ? abs : dir, "bundle",
					 bundle, "read_only", 1, "events_files",
					 (json_int_t)v.events_files, "logs", (json_int_t)v.logs));
	else
		printf("Made trial %s from bundle %s (verified: %zu files); read-only.\n"
		       "Next: cd %s && mtrial decide (or mtrial --trial %s report from elsewhere)\n",
		       cli_line(abs ? abs : dir), cli_line(bundle), v.files, cli_line(dir), cli_line(dir));
	free(abs);
	return 0;
}

int cmd_init(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"repo", required_argument, NULL, 'r'},
					     {"name", required_argument, NULL, 'n'},
					     {"from-bundle", required_argument, NULL, 'B'},
					     {0}};
	const char *repo = ".", *name = NULL, *bundle = NULL;
	int opt, error;

	while ((opt = cli_getopt(cli, argc, argv, "+hr:n:", opts)) >= 0) {
		if (opt == 'r')
			repo = optarg;
		else if (opt == 'n')
			name = optarg;
		else if (opt == 'B')
			bundle = optarg;
		else
			return cli_usage_error(cli, "bad option");
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (bundle) {
		if (optind + 1 != argc)
			return cli_usage_error(cli, "--from-bundle FILE needs one DIR to make the trial in");
		return (error = from_bundle(cli, bundle, argv[optind])) < 0 ? cli_fail(cli, error)
									     : CLI_EXIT_OK;
	}
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if (name && !*name)
		return cli_usage_error(cli, "--name must not be empty");
	if ((error = create(cli, repo, name)) < 0)
		return cli_fail(cli, error);
	return CLI_EXIT_OK;
}
