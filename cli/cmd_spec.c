/* mtrial spec: validate trial.yaml and print it. */
#include "cli.h"
#include "compat.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* probe.table when it names a table this machine does not have. Not an
 * error: trial.yaml is shared, imported tables live per machine
 * ($XDG_DATA_HOME/mtrial/tables), and the table may be imported later;
 * `mtrial probe` fails then, naming it. A file path is left to the probe. */
static json_t *table_warnings(const mt_trial *t)
{
	const char *table = mt_spec_get(t->spec, "probe.table");
	json_t *out = json_array();
	unsigned line = 0, col = 0;
	char **names;
	int known = 0;

	if (!table || strchr(table, '/') || strstr(table, ".yaml") || strstr(table, ".yml"))
		return out;
	names = mt_compat_names(NULL);
	for (size_t i = 0; names && names[i]; i++)
		known |= strcmp(names[i], table) == 0;
	mt_compat_names_free(names);
	if (known)
		return out;
	mt_spec_where(t->spec, "probe.table", &line, &col);
	json_array_append_new(out, json_sprintf("%s:%u:%u: probe.table '%s' is neither bundled "
						"nor imported here (mtrial tables list; import "
						"it with mtrial tables import before probing)",
						t->spec_path, line, col, table));
	return out;
}

int cmd_spec(struct cli *cli, int argc, char **argv)
{
	mt_trial *t = NULL;
	json_t *warnings, *w, *out;
	size_t i;
	int status, error;

	if (cli_parse_plain(cli, argc, argv, &status))
		return status;
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	warnings = table_warnings(t);
	json_array_foreach(warnings, i, w)
		fprintf(stderr, "warning: %s\n", json_string_value(w));
	if (cli->json) {
		out = mt_spec_to_json(t->spec);
		if (json_array_size(warnings))
			json_object_set(out, "warnings", warnings);
		error = cli_print_json(out);
	} else {
		printf("%s: valid (schema %d), trial '%s'\n", t->spec_path,
		       MT_SPEC_SCHEMA_VERSION, mt_spec_get(t->spec, "name"));
	}
	json_decref(warnings);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
