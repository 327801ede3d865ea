/* mtrial tables: the compatibility tables mtrial knows. */
#include "cli.h"
#include "compat.h"
#include "embedded.h"
#include "error.h"
#include "util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static json_t *identity(const mt_compat_table *t, const char *where)
{
	return json_pack("{ss, ss, ss, ss, ss, ss, ss, sI, sI}", "name", mt_compat_name(t),
			 "backend", mt_compat_backend(t), "version", mt_compat_version(t), "kind",
			 mt_compat_kind(t), "retrieved", mt_compat_retrieved(t), "source",
			 mt_compat_source(t), "where", where, "ops", (json_int_t)mt_compat_nops(t),
			 "rules", (json_int_t)mt_compat_nrules(t));
}

/* Adds the table called `name` (compat-NAME.yaml) unless already listed. */
static void add(json_t *list, const char *file)
{
	char name[256];
	size_t n = strlen(file);
	mt_compat_table *t = NULL;
	json_t *e;
	size_t i;

	if (strncmp(file, "compat-", 7) != 0 || n < 13 || strcmp(file + n - 5, ".yaml") != 0)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(n - 12), file + 7);
	json_array_foreach(list, i, e)
		if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
			return;
	if (mt_compat_load(&t, name) < 0) {
		json_array_append_new(list, json_pack("{ss, ss}", "name", name, "error",
						      mt_error_last()));
		mt_error_clear();
		return;
	}
	json_array_append_new(list, identity(t, "loaded"));
	mt_compat_free(t);
}

static json_t *list_tables(void)
{
	json_t *list = json_array();
	char *dir = mt_compat_user_dir();
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		add(list, de->d_name);
	if (d)
		closedir(d);
	free(dir);
	for (const struct mt_embedded *e = mt_embedded_tables; e->name; e++)
		add(list, e->name);
	return list;
}

static int show(struct cli *cli, const char *name)
{
	mt_compat_table *t = NULL;
	json_t *ops = json_array(), *out;
	int error = mt_compat_load(&t, name);

	if (error < 0) {
		json_decref(ops);
		return error;
	}
	for (size_t i = 0; i < mt_compat_nops(t); i++) {
		const mt_compat_op *o = mt_compat_op_at(t, i);
		json_array_append_new(ops, json_pack("{ss, ss, sI}", "op", o->op, "status",
						     mt_compat_status_str(o->status), "line",
						     (json_int_t)o->line));
	}
	out = identity(t, name);
	json_object_set_new(out, "entries", ops);
	if (cli->json) {
		cli_print_json(out);
	} else {
		json_t *o;
		size_t i;
		printf("%s: %s %s (%s, retrieved %s)\n  source: %s\n", mt_compat_name(t),
		       mt_compat_backend(t), mt_compat_version(t), mt_compat_kind(t),
		       mt_compat_retrieved(t), mt_compat_source(t));
		for (size_t k = 0; k < mt_compat_nrules(t); k++)
			printf("  rule %s: %s\n", mt_compat_rule_at(t, k)->id,
			       mt_compat_rule_at(t, k)->text);
		json_array_foreach(ops, i, o)
			printf("  %-40s %s\n", json_string_value(json_object_get(o, "op")),
			       json_string_value(json_object_get(o, "status")));
		json_decref(out);
	}
	mt_compat_free(t);
	return 0;
}

int cmd_tables(struct cli *cli, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	int status, error = 0;

	if (!sub)
		return cli_usage_error(cli, "missing subcommand (list, show)");
	if (cli_parse_plain(cli, argc - 1 - (strcmp(sub, "show") == 0 && argc > 2),
			    argv + 1 + (strcmp(sub, "show") == 0 && argc > 2), &status))
		return status;
	if (strcmp(sub, "list") == 0) {
		json_t *list = list_tables(), *e;
		size_t i;
		if (cli->json)
			return cli_print_json(list), CLI_EXIT_OK;
		json_array_foreach(list, i, e)
			printf("%-26s %s %s, %lld ops, %lld rules (%s, retrieved %s)\n",
			       json_string_value(json_object_get(e, "name")),
			       json_string_value(json_object_get(e, "backend")) ?: "ERROR",
			       json_string_value(json_object_get(e, "version")) ?:
				       json_string_value(json_object_get(e, "error")),
			       (long long)json_integer_value(json_object_get(e, "ops")),
			       (long long)json_integer_value(json_object_get(e, "rules")),
			       json_string_value(json_object_get(e, "kind")) ?: "-",
			       json_string_value(json_object_get(e, "retrieved")) ?: "-");
		json_decref(list);
	} else if (strcmp(sub, "show") == 0 && argc > 2) {
		error = show(cli, argv[2]);
	} else {
		return cli_usage_error(cli, "unknown subcommand '%s'", sub);
	}
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
