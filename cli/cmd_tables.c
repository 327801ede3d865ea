/* mtrial tables: the compatibility tables mtrial knows. */
#include "cli.h"
#include "compat.h"
#include "compat_import.h"
#include "error.h"
#include "opmap.h"
#include "parse.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static json_t *identity(const mt_compat_table *t, const char *where)
{
	return json_pack("{ss, ss, ss, ss, ss, ss, ss, sI, sI, sI}", "name", mt_compat_name(t),
			 "backend", mt_compat_backend(t), "version", mt_compat_version(t), "kind",
			 mt_compat_kind(t), "retrieved", mt_compat_retrieved(t), "source",
			 mt_compat_source(t), "where", where, "ops", (json_int_t)mt_compat_nops(t),
			 "apis", (json_int_t)mt_compat_napis(t), "rules",
			 (json_int_t)mt_compat_nrules(t));
}

/* A NULL-terminated list as a JSON array. */
static json_t *strv_json(const char *const *v)
{
	json_t *a = json_array();
	for (; v && *v; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

static json_t *op_json(const mt_compat_op *o)
{
	return json_pack("{ss, ss, so, so, so, ss?, sI}", "op", o->op, "status",
			 mt_compat_status_str(o->status), "conditions", strv_json(o->conditions),
			 "dtypes", strv_json(o->dtypes_supported), "fallback_dtypes",
			 strv_json(o->dtypes_fallback), "notes", o->notes, "line",
			 (json_int_t)o->line);
}

static json_t *api_json(const mt_compat_api *a)
{
	const char *kind = mt_compat_api_kind_str(a->kind);
	return json_pack("{ss, ss, ss?, so, so, so, ss?, sI}", "api", a->api, "status",
			 mt_compat_status_str(a->status), "kind", kind, "ops", strv_json(a->ops),
			 "fallback_dtypes", strv_json(a->fallback_dtypes), "conditions",
			 strv_json(a->conditions), "notes", a->notes, "line", (json_int_t)a->line);
}

/* Adds the table `name`; `imported` says whether it came from the user's
 * directory (where it hides a bundled table of the same name). */
static void add(json_t *list, const char *name, int imported)
{
	mt_compat_table *t = NULL;
	json_t *e;

	if (mt_compat_load(&t, name) < 0) {
		json_array_append_new(list, json_pack("{ss, ss}", "name", name, "error",
						      mt_error_last()));
		mt_error_clear();
		return;
	}
	e = identity(t, imported ? "imported" : "bundled");
	if (imported && mt_compat_is_bundled(name))
		json_object_set_new(e, "shadows_bundled", json_true());
	json_array_append_new(list, e);
	mt_compat_free(t);
}

static json_t *list_tables(void)
{
	json_t *list = json_array();
	size_t nuser = 0;
	char **names = mt_compat_names(&nuser);

	for (size_t i = 0; names[i]; i++)
		add(list, names[i], i < nuser);
	mt_compat_names_free(names);
	return list;
}

/* "  a, b" after a label, nothing for an empty list. */
static void print_list(const char *label, const char *const *v)
{
	for (size_t i = 0; v && v[i]; i++)
		printf("%s%s", i ? ", " : label, v[i]);
}

static void show_text(const mt_compat_table *t)
{
	printf("%s: %s %s (%s, retrieved %s)\n  source: %s\n", mt_compat_name(t),
	       mt_compat_backend(t), mt_compat_version(t), mt_compat_kind(t),
	       mt_compat_retrieved(t), mt_compat_source(t));
	for (size_t k = 0; k < mt_compat_nrules(t); k++)
		printf("  rule %s: %s\n", mt_compat_rule_at(t, k)->id, mt_compat_rule_at(t, k)->text);
	for (size_t i = 0; i < mt_compat_napis(t); i++) {
		const mt_compat_api *a = mt_compat_api_at(t, i);
		const char *kind = mt_compat_api_kind_str(a->kind);
		printf("  %-40s %s%s%s", a->api, mt_compat_status_str(a->status), kind ? " " : "",
		       kind ? kind : "");
		print_list("  ops: ", a->ops);
		print_list("  fallback dtypes: ", a->fallback_dtypes);
		printf("\n");
	}
	for (size_t i = 0; i < mt_compat_nops(t); i++) {
		const mt_compat_op *o = mt_compat_op_at(t, i);
		printf("  %-40s %s", o->op, mt_compat_status_str(o->status));
		print_list("  fallback dtypes: ", o->dtypes_fallback);
		printf("\n");
	}
}

/* show NAME [--format text|json|yaml]: yaml writes the table as it is
 * written, which imports again as the same table. */
static int show(struct cli *cli, const char *name, const char *format)
{
	mt_compat_table *t = NULL;
	json_t *ops, *apis, *out;
	char *text = NULL;
	size_t len = 0;
	int error = mt_compat_load(&t, name);

	if (error < 0)
		return error;
	if (!strcmp(format, "yaml")) {
		if ((error = mt_compat_read_text(&text, &len, name)) == 0)
			fwrite(text, 1, len, stdout);
		free(text);
	} else if (cli->json || !strcmp(format, "json")) {
		ops = json_array();
		apis = json_array();
		for (size_t i = 0; i < mt_compat_nops(t); i++)
			json_array_append_new(ops, op_json(mt_compat_op_at(t, i)));
		for (size_t i = 0; i < mt_compat_napis(t); i++)
			json_array_append_new(apis, api_json(mt_compat_api_at(t, i)));
		out = identity(t, name);
		json_object_set_new(out, "entries", ops);
		json_object_set_new(out, "api_entries", apis);
		cli_print_json(out);
	} else {
		show_text(t);
	}
	mt_compat_free(t);
	return error;
}

/* Parses show's options (argv[0] is "show"): NAME and --format. */
static int show_cmd(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"format", required_argument, NULL, 'f'}, {0}};
	const char *format = "text";
	int opt;

	while ((opt = cli_getopt(cli, argc, argv, "h", opts)) >= 0) {
		if (opt != 'f')
			return cli_usage_error(cli, "bad option");
		format = optarg;
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "yaml"))
		return cli_usage_error(cli, "--format %s: text, json or yaml", format);
	if (optind + 1 != argc)
		return cli_usage_error(cli, "tables show: one NAME or FILE");
	if (cli->json && !strcmp(format, "yaml"))
		return cli_usage_error(cli, "tables show: --json or --format yaml, not both");
	if (show(cli, argv[optind], format) < 0)
		return cli_fail(cli, mt_error_last_code());
	return CLI_EXIT_OK;
}

/* --- import and update ------------------------------------------------------- */

/* "a\nb\n" as ["a", "b"]; NULL as []. */
static json_t *lines_array(const char *text)
{
	json_t *arr = json_array();
	while (text && *text) {
		size_t n = strcspn(text, "\n");
		json_array_append_new(arr, json_stringn(text, n));
		text += n + (text[n] == '\n');
	}
	return arr;
}

/* {"device": N, ...} of counts by mt_compat_status. */
static json_t *counts_json(const size_t *counts)
{
	json_t *o = json_object();
	for (int s = 1; s < 5; s++)
		json_object_set_new(o, mt_compat_status_str((mt_compat_status)s),
				    json_integer((json_int_t)counts[s]));
	return o;
}

static json_t *result_json(const mt_compat_import_result *r)
{
	return json_pack("{ss, ss, ss, ss, ss, sI, so, sI, so, sb, sb, so, so}", "name", r->name,
			 "outcome", r->outcome, "path", r->path, "source", r->source, "format",
			 mt_compat_import_format_str(r->format), "ops", (json_int_t)r->nops, "counts",
			 counts_json(r->counts), "apis", (json_int_t)r->napis, "api_counts",
			 counts_json(r->api_counts), "replaced", r->replaced, "shadows_bundled",
			 r->shadows_bundled, "skipped",
			 r->skipped ? json_string(r->skipped) : json_null(), "unregistered",
			 lines_array(r->unregistered));
}

/* Prints each line of text indented. */
static void print_lines(const char *text, size_t max)
{
	size_t shown = 0;
	while (text && *text) {
		size_t n = strcspn(text, "\n");
		if (shown++ == max) {
			printf("    ...\n");
			break;
		}
		printf("    %.*s\n", (int)n, text);
		text += n + (text[n] == '\n');
	}
}

/* "N ops: N device, N partial, N cpu_fallback, N unsupported". */
static void print_counts(size_t n, const char *what, const size_t *counts)
{
	printf("%zu %s: %zu device, %zu partial, %zu cpu_fallback, %zu unsupported", n, what,
	       counts[MT_COMPAT_DEVICE], counts[MT_COMPAT_PARTIAL],
	       counts[MT_COMPAT_CPU_FALLBACK], counts[MT_COMPAT_UNSUPPORTED]);
}

static void print_result(const mt_compat_import_result *r)
{
	printf("%s: %s from %s (%s): ", r->name, r->outcome, r->source,
	       mt_compat_import_format_str(r->format));
	if (r->napis) {
		print_counts(r->napis, "APIs", r->api_counts);
		printf("; ");
	}
	print_counts(r->nops, "ops", r->counts);
	printf("\n  %s\n", r->path);
	if (r->replaced && strcmp(r->outcome, "unchanged") != 0)
		printf("  replaces the earlier import of %s\n", r->name);
	if (r->shadows_bundled)
		printf("  shadows the bundled table %s (remove %s to use the bundled one)\n",
		       r->name, r->path);
	if (r->skipped) {
		printf("  tables skipped (not op tables):\n");
		print_lines(r->skipped, (size_t)-1);
	}
	if (r->unregistered) {
		printf("  warning: %zu op%s not in the operator registry of libtorch %s (an op of a "
		       "newer PyTorch, or a typo):\n", r->nunregistered,
		       r->nunregistered == 1 ? " is" : "s are", mt_aten_version());
		print_lines(r->unregistered, 20);
	}
}

/* Options of import and update. */
struct import_args {
	mt_compat_import_options o;
	const char *url;
	int has_format;
};

/* Parses argv (argv[0] is the subcommand); *status set when done. */
static int import_options(struct cli *cli, int argc, char **argv, struct import_args *a,
			  int *status)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS, {"as", required_argument, NULL, 'a'},
		{"format", required_argument, NULL, 'f'}, {"map", required_argument, NULL, 'm'},
		{"backend", required_argument, NULL, 'b'}, {"version", required_argument, NULL, 'v'},
		{"sha256", required_argument, NULL, 's'}, {"url", required_argument, NULL, 'u'},
		{"timeout", required_argument, NULL, 't'}, {0}};
	int opt, fmt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int common = cli_common_option(cli, opt);
		if (common < 0) {
			*status = CLI_EXIT_OK;
			return 1;
		}
		if (common)
			continue;
		switch (opt) {
		case 'a': a->o.as = optarg; break;
		case 'm': a->o.map_path = optarg; break;
		case 'b': a->o.backend = optarg; break;
		case 'v': a->o.version = optarg; break;
		case 's': a->o.sha256 = optarg; break;
		case 'u': a->url = optarg; break;
		case 'f':
			if ((fmt = mt_compat_import_format_parse(optarg)) < 0) {
				*status = cli_usage_error(cli, "--format %s: markdown, rst, analyze, "
							  "yaml or auto", optarg);
				return 1;
			}
			a->o.format = (mt_compat_import_format)fmt;
			a->has_format = 1;
			break;
		case 't':
			if (mt_parse_seconds_ms(optarg, 3600, &a->o.timeout_ms) < 0) {
				*status = cli_usage_error(cli, "--timeout %s: seconds, more than 0 "
							  "and at most 3600", optarg);
				return 1;
			}
			break;
		default:
			*status = cli_usage_error(cli, "bad option");
			return 1;
		}
	}
	return 0;
}

static int import_cmd(struct cli *cli, int argc, char **argv)
{
	struct import_args a = {0};
	mt_compat_import_result r;
	int status = 0;

	if (import_options(cli, argc, argv, &a, &status))
		return status;
	if (optind + 1 != argc)
		return cli_usage_error(cli, optind == argc ? "tables import: which FILE or URL?"
							   : "tables import: one FILE or URL");
	if (a.url)
		return cli_usage_error(cli, "tables import: --url is for update; give the URL "
					    "as the argument");
	if (mt_compat_import(&r, argv[optind], &a.o) < 0)
		return cli_fail(cli, mt_error_last_code());
	if (cli->json)
		cli_print_json(result_json(&r));
	else
		print_result(&r);
	mt_compat_import_result_dispose(&r);
	return CLI_EXIT_OK;
}

/* Updates one table; returns its exit status and adds its outcome to out. */
static int update_one(const char *name, const struct import_args *a, json_t *out, int json)
{
	mt_compat_import_result r;
	int code;

	if (mt_compat_update(&r, name, a->url, a->o.sha256, a->o.timeout_ms) == 0) {
		if (json)
			json_array_append_new(out, result_json(&r));
		else
			print_result(&r);
		mt_compat_import_result_dispose(&r);
		return CLI_EXIT_OK;
	}
	code = mt_error_exit_status(mt_error_last_code());
	fprintf(stderr, "mtrial: %s\n", mt_error_last());
	json_array_append_new(out, json_pack("{ss, ss, ss, si}", "name", name, "outcome",
					     "failed", "error", mt_error_last(), "exit", code));
	mt_error_clear();
	return code;
}

static int update_cmd(struct cli *cli, int argc, char **argv)
{
	struct import_args a = {0};
	json_t *out;
	char **names = NULL;
	int status = 0, worst = CLI_EXIT_OK;

	if (import_options(cli, argc, argv, &a, &status))
		return status;
	if (optind + 1 < argc)
		return cli_usage_error(cli, "tables update: at most one NAME");
	if (a.o.as || a.o.map_path || a.has_format || a.o.backend || a.o.version)
		return cli_usage_error(cli, "tables update: --as, --format, --map, --backend and "
					    "--version belong to import (update reads them as "
					    "recorded)");
	if (optind == argc && a.url)
		return cli_usage_error(cli, "tables update: --url needs a NAME");
	out = json_array();
	if (optind < argc) {
		worst = update_one(argv[optind], &a, out, cli->json);
	} else {
		mt_compat_updatable(&names);
		if (!names[0] && !cli->json)
			printf("No imported table has a URL to update from.\n");
		for (size_t i = 0; names[i]; i++) {
			int code = update_one(names[i], &a, out, cli->json);
			worst = code > worst ? code : worst;
			free(names[i]);
		}
		free(names);
	}
	if (cli->json)
		cli_print_json(json_incref(optind < argc ? json_array_get(out, 0) : out));
	json_decref(out);
	return worst;
}

int cmd_tables(struct cli *cli, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	int status, error = 0;

	if (!sub)
		return cli_usage_error(cli, "missing subcommand (list, show, import, update)");
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
		return fputs(cli->cmd->usage, stdout), CLI_EXIT_OK;
	if (strcmp(sub, "import") == 0)
		return import_cmd(cli, argc - 1, argv + 1);
	if (strcmp(sub, "update") == 0)
		return update_cmd(cli, argc - 1, argv + 1);
	if (strcmp(sub, "show") == 0)
		return show_cmd(cli, argc - 1, argv + 1);
	if (cli_parse_plain(cli, argc - 1, argv + 1, &status))
		return status;
	if (strcmp(sub, "list") == 0) {
		json_t *list = list_tables(), *e;
		size_t i;
		if (cli->json)
			return cli_print_json(list), CLI_EXIT_OK;
		json_array_foreach(list, i, e)
			printf("%-26s %s %s, %lld ops, %lld APIs, %lld rules (%s, retrieved %s)%s%s\n",
			       json_string_value(json_object_get(e, "name")),
			       json_string_value(json_object_get(e, "backend")) ?: "ERROR",
			       json_string_value(json_object_get(e, "version")) ?:
				       json_string_value(json_object_get(e, "error")),
			       (long long)json_integer_value(json_object_get(e, "ops")),
			       (long long)json_integer_value(json_object_get(e, "apis")),
			       (long long)json_integer_value(json_object_get(e, "rules")),
			       json_string_value(json_object_get(e, "kind")) ?: "-",
			       json_string_value(json_object_get(e, "retrieved")) ?: "-",
			       json_string_value(json_object_get(e, "where")) &&
					       !strcmp(json_string_value(json_object_get(e, "where")),
						       "imported")
				       ? " [imported]" : "",
			       json_is_true(json_object_get(e, "shadows_bundled"))
				       ? " [shadows the bundled table]" : "");
		json_decref(list);
	} else {
		return cli_usage_error(cli, "unknown subcommand '%s'", sub);
	}
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
