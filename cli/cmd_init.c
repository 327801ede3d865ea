/* mtrial init: create a trial for a git repository. */
#include "cli.h"
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

int cmd_init(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"repo", required_argument, NULL, 'r'},
					     {"name", required_argument, NULL, 'n'},
					     {0}};
	const char *repo = ".", *name = NULL;
	int opt, error;

	while ((opt = cli_getopt(cli, argc, argv, "+hr:n:", opts)) >= 0) {
		if (opt == 'r')
			repo = optarg;
		else if (opt == 'n')
			name = optarg;
		else
			return cli_usage_error(cli, "bad option");
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if (name && !*name)
		return cli_usage_error(cli, "--name must not be empty");
	if ((error = create(cli, repo, name)) < 0)
		return cli_fail(cli, error);
	return CLI_EXIT_OK;
}
