/* mtrial ops: exact op inventories (TorchScript graphs, dispatch traces),
 * libtorch's operator registry, and the differences between inventories. */
#include "cli.h"
#include "embedded.h"
#include "error.h"
#include "opinventory.h"
#include "jsonutil.h"
#include "mt_torch.h"
#include "probe_trial.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Opens the trial when there is one; a missing trial is not an error. */
static int open_optional(struct cli *cli, mt_trial **t)
{
	*t = NULL;
	if (cli_open_trial(cli, t, 0) < 0) {
		if (mt_error_last_code() != MT_ENOTFOUND)
			return mt_error_last_code();
		mt_error_clear();
	}
	return 0;
}

/* Parses the common options and exactly `nargs` positional arguments
 * (optional ones beyond `min`), which end up in args[]. Returns 1 when the
 * command must return *status. */
static int parse(struct cli *cli, int argc, char **argv, int min, int max, const char **args,
		 const char **kind, int *status)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"as", required_argument, NULL, 'a'},
					     {0}};
	int opt, n = 0;

	optind = 1;
	while ((opt = cli_getopt(cli, argc, argv, "ha:", opts)) >= 0) {
		if (opt == 'a' && kind) {
			*kind = optarg;
			continue;
		}
		return *status = cli_usage_error(cli, "bad option"), 1;
	}
	if (opt == CLI_GETOPT_HELP)
		return *status = CLI_EXIT_OK, 1;
	for (; optind < argc; optind++) {
		if (n >= max)
			return *status = cli_usage_error(cli, "unexpected argument '%s'", argv[optind]), 1;
		args[n++] = argv[optind];
	}
	if (n < min)
		return *status = cli_usage_error(cli, "missing argument (see mtrial ops --help)"), 1;
	return 0;
}

static const char *source_of(const mt_opinventory_view *inv)
{
	return inv->source ?: "scan";
}

/* "  N what (a, b) left out": node counts the inventory does not list. */
static void left_out(const mt_inventory_count *counts, size_t n, const char *what)
{
	int64_t total = 0;
	size_t i;

	for (i = 0; i < n; i++)
		total += counts[i].count;
	if (!total)
		return;
	printf("  %lld %s (", (long long)total, what);
	for (i = 0; i < n; i++) {
		if (i == 4) {
			printf(", ...");
			break;
		}
		printf("%s%s", i ? ", " : "", counts[i].name);
	}
	printf(") left out\n");
}

static void print_strings(const char *const *v, size_t n, const char *label)
{
	if (!n)
		return;
	printf(" %s", label);
	for (size_t i = 0; i < n; i++)
		printf("%s%s", i ? "," : " ", v[i]);
}

/* What a TorchScript inventory is: its methods and how its nodes count. */
static void describe_torchscript(const mt_opinventory_view *inv)
{
	size_t i;

	printf("TorchScript %s (%lld bytes, libtorch %s): methods", inv->file,
	       (long long)inv->size, inv->ts.torch);
	for (i = 0; i < inv->ts.nmethods; i++)
		printf("%s %s", i ? "," : "", inv->ts.methods[i]);
	if (inv->ts.nentry_points < inv->ts.nmethods) {
		print_strings(inv->ts.entry_points, inv->ts.nentry_points, "(entry points");
		printf("; the others are counted inside them)");
	}
	printf("; %lld submodules inlined; %lld graph nodes, %lld loops and branches\n",
	       (long long)inv->ts.submodules, (long long)inv->ts.nodes,
	       (long long)inv->ts.control_flow);
	left_out(inv->ts.metadata, inv->ts.nmetadata, "metadata reads");
	left_out(inv->ts.scalar, inv->ts.nscalar, "operations on Python scalars");
}

/* What a trace is: the run it recorded and how it ended. */
static void describe_trace(const mt_opinventory_view *inv)
{
	size_t i;

	printf("Trace %s: torch %s, python %s, devices", inv->file, inv->trace.torch,
	       inv->trace.python ?: "?");
	for (i = 0; i < inv->trace.ndevices; i++)
		printf("%s %s", i ? "," : "", inv->trace.devices[i]);
	printf("; %lld %s, ended: %s\n", (long long)inv->trace.steps,
	       mt_str_in(inv->trace.step_counter, (const char *const[]){"backward", NULL})
		       ? "steps (backward passes: no torch.optim step)"
		       : "optimizer steps",
	       inv->trace.ended ?: "?");
	if (inv->trace.incomplete)
		printf("  incomplete: %s\n", inv->trace.incomplete);
	else if (inv->trace.error)
		printf("  the run failed: %s\n", inv->trace.error);
	for (i = 0; i < inv->trace.nwarnings; i++)
		printf("  warning: %s\n", inv->trace.warnings[i]);
}

/* One line saying what an inventory is. */
static void describe(const mt_opinventory_view *inv)
{
	if (inv->is_torchscript)
		describe_torchscript(inv);
	else if (inv->is_trace)
		describe_trace(inv);
	else
		printf("Scan of %s at %s\n", inv->repo, inv->rev);
}

static int any_conditional(const mt_opinventory_view *inv)
{
	for (size_t i = 0; i < inv->nops; i++)
		if (inv->ops[i].conditional)
			return 1;
	return 0;
}

/* One op's line: its count, phases, dtypes and where it is called. */
static void print_op(const mt_opinventory_view *inv, const mt_inventory_op *e)
{
	printf("  %-36s %8lld", e->name, (long long)e->count);
	if (e->backward_only)
		printf("  backward only");
	else if (e->has_phases)
		printf("  setup %lld fwd %lld bwd %lld opt %lld", (long long)e->setup,
		       (long long)e->forward, (long long)e->backward, (long long)e->optimizer);
	if (e->conditional)
		printf("  %lld conditional", (long long)e->conditional);
	print_strings(e->dtypes, e->ndtypes, "dtypes");
	print_strings(e->dtype_args, e->ndtype_args, "to");
	if (e->distinct_shapes)
		printf(" %lld input shapes in training", (long long)e->distinct_shapes);
	for (size_t i = 0; i < inv->ncalls; i++) {
		const mt_inventory_call *c = &inv->calls[i];
		int module = c->module && *c->module;
		if (!c->file || !c->op || strcmp(c->op, e->name) != 0)
			continue;
		printf("\n      %s:%lld%s%s%s", c->file, (long long)c->line, module ? " (" : "",
		       module ? c->module : "", module ? ")" : "");
	}
	printf("\n");
}

static void print_inventory(const mt_opinventory_view *inv)
{
	describe(inv);
	for (size_t i = 0; i < inv->nops; i++)
		print_op(inv, &inv->ops[i]);
	printf("%zu ops.\n", inv->nops);
	if (inv->is_torchscript && any_conditional(inv))
		printf("%s\n", MT_TORCHSCRIPT_COUNTS);
	if (inv->is_trace)
		printf("%s\n", MT_TRACE_SHAPES);
}

/* The inventory as text, and whether the trial has it. */
static void print_shown(const json_t *obj, const mt_trial *t, int recorded)
{
	mt_opinventory_view inv;

	if (mt_opinventory_view_read(&inv, obj) < 0)
		mt_error_clear(); /* the text says what there is */
	print_inventory(&inv);
	if (inv.inventory_id && t)
		printf("%s as %s #%lld in %s.\n", recorded ? "Recorded" : "Already recorded",
		       source_of(&inv), (long long)inv.inventory_id, t->dir);
	else if (!t && strcmp(source_of(&inv), "scan") != 0)
		printf("(not recorded: no trial)\n");
	mt_opinventory_view_dispose(&inv);
}

static int show(struct cli *cli, int argc, char **argv)
{
	const char *args[1] = {0}, *kind = NULL;
	mt_trial *t = NULL;
	json_t *inv = NULL;
	int status, recorded = 0, error;

	if (parse(cli, argc, argv, 1, 1, args, &kind, &status))
		return status;
	if (mt_path_exists(args[0]) &&
	    strcmp(kind ? kind : mt_inventory_file_kind(args[0]), "torchscript") == 0)
		fprintf(stderr, "note: %s\n", MT_TORCHSCRIPT_NOTICE);
	if ((error = open_optional(cli, &t)) == 0 &&
	    (error = mt_inventory_resolve(&inv, t, args[0], kind, &recorded)) == 0) {
		if (cli->json)
			cli_print_json(json_incref(inv));
		else
			print_shown(inv, t, recorded);
	}
	json_decref(inv);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}

/* A list of ops with the count on side `which` (0: A, 1: B, -1: both). */
static void print_list(const mt_opinventory_diff_list *l, const char *title, int which)
{
	if (!l->n)
		return;
	printf("%s (%zu):\n", title, l->n);
	for (size_t i = 0; i < l->n; i++) {
		printf("  %-40s", l->v[i].op);
		if (which < 0)
			printf(" %lld / %lld", (long long)l->v[i].a, (long long)l->v[i].b);
		else
			printf(" %lld", (long long)(which ? l->v[i].b : l->v[i].a));
		printf("\n");
	}
}

static int is_trace(const char *source)
{
	return strcmp(source ?: "scan", "trace") == 0;
}

/* "aten::log_softmax -> aten::_log_softmax": each composite with the trace
 * ops it accounts for. */
static void print_decomposed(const mt_opinventory_diff_view *d)
{
	if (!d->ndecomposed)
		return;
	printf("Run decomposed (the composite on one side, what it dispatched to on the other) (%zu):\n",
	       d->ndecomposed);
	for (size_t i = 0; i < d->ndecomposed; i++) {
		printf("  %-40s ->", d->decomposed[i].composite);
		for (size_t k = 0; k < d->decomposed[i].nops; k++)
			printf("%s %s", k ? "," : "", d->decomposed[i].ops[k]);
		printf("\n");
	}
}

static const char *side_name(const char *source, const char *file, const char *rev, char *buf,
			     size_t size)
{
	snprintf(buf, size, "%s %s", source, file ? file : rev ? rev : "");
	return buf;
}

static void print_diff(const mt_opinventory_diff_view *d)
{
	char an[1024], bn[1024], title[1200];

	printf("A: %s\nB: %s\n", side_name(d->a.source, d->a.file, d->a.rev, an, sizeof(an)),
	       side_name(d->b.source, d->b.file, d->b.rev, bn, sizeof(bn)));
	if (d->has_missed_by_scan)
		print_list(&d->missed_by_scan, "Missed by the static scan (seen by the exact source)",
			   -1);
	print_decomposed(d);
	snprintf(title, sizeof(title), "Only in A (%s)", an);
	print_list(&d->only_a, title, 0);
	snprintf(title, sizeof(title), "Only in B (%s)", bn);
	print_list(&d->only_b, title, 1);
	print_list(&d->backward_only, "Seen only in backward (no scan or graph has a backward pass)", -1);
	if (is_trace(d->a.source) != is_trace(d->b.source))
		printf("Note: a scan or a TorchScript graph names the ops the code calls "
		       "(aten::log_softmax); a trace names\nwhat the dispatcher ran after "
		       "decomposition (aten::_log_softmax): a composite and the ops it\n"
		       "decomposes into (tables/decompositions.yaml) are matched, not "
		       "listed as missing.\n");
	printf("%zu ops in both, %zu matched through a decomposition, %zu only in A, "
	       "%zu only in B%s.\n",
	       d->both.n, d->ndecomposed, d->only_a.n, d->only_b.n,
	       d->has_missed_by_scan ? ", the rest above" : "");
}

static int diff(struct cli *cli, int argc, char **argv)
{
	const char *args[2] = {0};
	mt_trial *t = NULL;
	json_t *a = NULL, *b = NULL, *d = NULL;
	mt_opinventory_diff_view v;
	int status, error;

	if (parse(cli, argc, argv, 2, 2, args, NULL, &status))
		return status;
	if ((error = open_optional(cli, &t)) == 0 &&
	    (error = mt_inventory_resolve(&a, t, args[0], NULL, NULL)) == 0 &&
	    (error = mt_inventory_resolve(&b, t, args[1], NULL, NULL)) == 0 &&
	    (error = mt_opinventory_diff(&d, a, b)) == 0) {
		if (cli->json) {
			cli_print_json(json_incref(d));
		} else {
			if (mt_opinventory_diff_view_read(&v, d) < 0)
				mt_error_clear(); /* the text says what there is */
			print_diff(&v);
			mt_opinventory_diff_view_dispose(&v);
		}
	}
	json_decref(a);
	json_decref(b);
	json_decref(d);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}

static int by_name_overload(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int c = strcmp(json_string_value(json_object_get(x, "name")),
		       json_string_value(json_object_get(y, "name")));
	return c ? c
		 : strcmp(json_string_value(json_object_get(x, "overload")),
			  json_string_value(json_object_get(y, "overload")));
}

static int registry(struct cli *cli, int argc, char **argv)
{
	const char *args[1] = {0};
	json_error_t jerr;
	json_t *all = NULL, *kept, *e;
	char *text = NULL;
	size_t i, prefix;
	int status, error, star;

	if (parse(cli, argc, argv, 0, 1, args, NULL, &status))
		return status;
	if ((error = mt_torch_registry(&text)) < 0)
		return cli_fail(cli, error);
	if (!(all = json_loads(text, 0, &jerr))) {
		free(text);
		mt_error_set(MT_EIO, "libtorch registry: %s", jerr.text);
		return cli_fail(cli, MT_EIO);
	}
	free(text);
	kept = json_array();
	prefix = args[0] ? strlen(args[0]) : 0;
	star = prefix && args[0][prefix - 1] == '*';
	json_array_foreach(all, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		if (!args[0] || (star ? strncmp(name, args[0], prefix - 1) == 0
				      : strcmp(name, args[0]) == 0))
			json_array_append(kept, e);
	}
	json_decref(all);
	mt_json_array_sort(kept, by_name_overload);
	if (cli->json) {
		cli_print_json(kept);
		return CLI_EXIT_OK;
	}
	json_array_foreach(kept, i, e)
		printf("%s\n", json_string_value(json_object_get(e, "schema")));
	printf("%zu schemas.\n", json_array_size(kept));
	json_decref(kept);
	return CLI_EXIT_OK;
}

/* Writes probes/optrace.py (carried by the binary) to -o FILE or stdout. */
static int tracer(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"output", required_argument, NULL, 'o'},
					     {0}};
	const char *path = NULL;
	char *text = NULL;
	int opt, error;

	optind = 1;
	while ((opt = cli_getopt(cli, argc, argv, "ho:", opts)) >= 0) {
		if (opt != 'o')
			return cli_usage_error(cli, "bad option");
		path = optarg;
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if ((error = mt_embedded_load(&text, mt_embedded_scripts, NULL, "optrace.py")) < 0)
		return cli_fail(cli, error);
	if (!path)
		fputs(text, stdout);
	else if ((error = mt_file_write_atomic(path, text, strlen(text), 0)) == 0 && !cli->json)
		printf("Wrote %s. Run it where the training code works:\n"
		       "  python3 %s -o ops.json [--max-steps N] [--every S] -- train.py ARGS...\n"
		       "then: mtrial ops show ops.json\n", path, path);
	else if (error == 0)
		cli_print_json(json_pack("{ss}", "written", path));
	free(text);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}

int cmd_ops(struct cli *cli, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub)
		return cli_usage_error(cli, "missing subcommand (show, diff, registry, tracer)");
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
		return fputs(cli->cmd->usage, stdout), CLI_EXIT_OK;
	if (strcmp(sub, "show") == 0)
		return show(cli, argc - 1, argv + 1);
	if (strcmp(sub, "diff") == 0)
		return diff(cli, argc - 1, argv + 1);
	if (strcmp(sub, "registry") == 0)
		return registry(cli, argc - 1, argv + 1);
	if (strcmp(sub, "tracer") == 0)
		return tracer(cli, argc - 1, argv + 1);
	return cli_usage_error(cli, "unknown subcommand '%s'", sub);
}
