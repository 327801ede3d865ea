/* mtrial runs [--all | show ID | import FILE... | mark ID --rehearsal|--evidence |
 * design ID matched|best --why TEXT]:
 * every recorded run attempt, failed ones too, with its two clocks, time
 * and cost to the target; rehearsals (runs that test the pipeline, never
 * evidence) marked as such; withdrawn runs counted, and listed with --all. */
#include "cli.h"
#include "error.h"
#include "journal_view.h"
#include "run_import.h"
#include "runs.h"
#include "runview.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number of seconds, or "-" for none. */
static const char *secs(char *buf, size_t size, double v)
{
	if (isnan(v))
		return "-";
	snprintf(buf, size, "%.3g s", v);
	return buf;
}

/* What the run counts as: withdrawn (left out of everything), rehearsal
 * (never evidence) or evidence. */
static const char *kind(const mt_run_view *r)
{
	return r->withdrawn ? "withdrawn" : r->rehearsal ? "rehearsal" : "evidence";
}

/* The time to the target, or what became of the attempt instead
 * (mt_run_outcome, decided in trial/runs.c). */
static const char *to_target(char *buf, size_t size, const mt_run_view *r)
{
	const char *outcome = r->outcome ?: "";

	if (strcmp(outcome, "reached") == 0)
		return secs(buf, size, r->time_to_target_s);
	if (strcmp(outcome, "missed") == 0 || strcmp(outcome, "failed") == 0)
		return "not reached";
	if (strcmp(outcome, "no_metric") == 0)
		return "no metric";
	return strcmp(outcome, "running") == 0 ? "not yet" : "-";
}

/* The runs of `runs` read; NULL when memory runs out. Caller frees. A
 * key missing leaves its field unknown, as the JSON did. */
static mt_run_view *views_of(json_t *runs)
{
	mt_run_view *v = calloc(json_array_size(runs) + 1, sizeof(*v));
	json_t *r;
	size_t i;

	if (v)
		json_array_foreach(runs, i, r)
			(void)mt_runview_read(&v[i], r);
	mt_error_clear();
	return v;
}

/* Each run's warnings against trial.yaml, after the list. */
static void print_warnings_of(const mt_run_view *runs, size_t count)
{
	size_t n = 0;

	for (size_t i = 0; i < count; i++) {
		const char *w[] = {runs[i].metric_warning, runs[i].workload_warning,
				   runs[i].cache_warning};
		for (size_t k = 0; k < 3; k++)
			if (w[k])
				printf("%s#%lld: warning: %s\n", n++ ? "" : "\n",
				       (long long)runs[i].id, w[k]);
	}
}

/* Per system, the attempts by outcome and the median time to the target
 * (mt_runs_by_system), after the list. */
static void print_systems_of(json_t *systems, const char *design, int *first)
{
	static const char *const names[] = {"baseline", "candidate"};
	mt_run_system_view s;

	for (size_t k = 0; k < 2; k++) {
		(void)mt_runview_system(&s, systems, names[k]);
		if (!s.known)
			continue;
		printf("%s%s%s%s: %lld run%s: %lld reached the target, %lld finished short of it, %lld "
		       "without its metric in the log, %lld failed or aborted", *first ? "\n" : "",
		       design ? design : "", design ? " " : "", names[k], (long long)s.runs, s.runs == 1 ? "" : "s", (long long)s.reached, (long long)s.missed,
		       (long long)s.no_metric, (long long)s.failed);
		if (!isnan(s.time_to_target_s.median))
			printf("; median time to target %.4g s", s.time_to_target_s.median);
		if (!isnan(s.run_minutes.median))
			printf("; MLPerf minutes median %.4g", s.run_minutes.median);
		if (s.several_topologies)
			printf("; runs at several device counts: times per topology in mtrial scaling, "
			       "never pooled");
		printf("\n");
		*first = 0;
	}
	mt_error_clear();
}

/* With best-recipe runs, each design's figures apart, labelled. */
static void print_systems(json_t *systems)
{
	json_t *best = json_object_get(systems, "best");
	int first = 1;

	print_systems_of(systems, best ? "matched" : NULL, &first);
	if (best)
		print_systems_of(best, "best-recipe", &first);
}

/* The withdrawn runs listed (--all): when, by whom and why; then how many
 * the listing hid (without --all). */
static void print_withdrawn(const mt_run_view *runs, size_t count, size_t hidden)
{
	size_t n = 0;

	for (size_t i = 0; i < count; i++)
		if (runs[i].withdrawn)
			printf("%s#%lld: withdrawn %s by %s: %s (left out of every figure)\n",
			       n++ ? "" : "\n", (long long)runs[i].id, runs[i].withdrawn_when,
			       runs[i].withdrawn_who, runs[i].withdrawn_why);
	if (hidden)
		printf("\n%zu withdrawn run%s hidden: mtrial runs --all lists %s (mtrial rm --list "
		       "says why).\n", hidden, hidden == 1 ? "" : "s", hidden == 1 ? "it" : "them");
}

static void print_row(const mt_run_view *r)
{
	char c1[32], st[32], tt[32], exit_s[16] = "-";

	if (r->has_exit)
		snprintf(exit_s, sizeof(exit_s), "%lld", (long long)r->exit_status);
	printf("#%-4lld %-9s %-9s %-7s %-11s %-8s %-20s %-5s %-10s %-10s %-12s %s\n",
	       (long long)r->id, r->system, kind(r), r->design, r->track ? r->track : "-", r->status,
	       r->started, exit_s, secs(c1, sizeof(c1), r->clock1_s),
	       secs(st, sizeof(st), r->steady_step_s), to_target(tt, sizeof(tt), r),
	       r->command ? r->command : r->source);
}

static void print_list(const mt_run_view *runs, size_t count, size_t hidden)
{
	size_t rehearsals = 0;

	if (!count && hidden) {
		printf("No runs listed: %zu withdrawn (mtrial runs --all lists them).\n", hidden);
		return;
	}
	if (!count) {
		printf("No runs recorded yet: mtrial run [--system S] [--track T] -- CMD ARGS..., or\n"
		       "mtrial runs import LOG...\n");
		return;
	}
	printf("%-5s %-9s %-9s %-7s %-11s %-8s %-20s %-5s %-10s %-10s %-12s %s\n", "id", "system",
	       "kind", "design", "track", "status", "started", "exit", "clock 1", "step", "to target",
	       "command or source");
	for (size_t i = 0; i < count; i++) {
		rehearsals += runs[i].rehearsal && !runs[i].withdrawn;
		print_row(&runs[i]);
	}
	print_warnings_of(runs, count);
	print_withdrawn(runs, count, hidden);
	if (rehearsals)
		printf("\n%zu rehearsal run(s): made to test the pipeline, the launcher or the log "
		       "format,\nnever evidence: mtrial decide, the per-system figures and the costs "
		       "leave them out\n(mtrial runs mark ID --evidence counts one).\n", rehearsals);
}

/* What each file is (formats[i]), and the system description among them
 * (at most one) into *topology, NULL when none; the caller frees it, on
 * an error too. */
static int sniff_files(char **files, int n, enum mt_runs_log_format *formats, json_t **topology)
{
	int error;

	*topology = NULL;
	for (int i = 0; i < n; i++) {
		if ((error = mt_run_import_sniff(&formats[i], files[i], 0)) < 0)
			return error;
		if (formats[i] != MT_RUNS_SYSTEM)
			continue;
		if (*topology)
			return mt_error_set(MT_EINVALID, "%s: a second system description: one "
					    "import takes one system's runs", files[i]);
		if ((error = mt_runs_system_read(topology, files[i])) < 0)
			return error;
	}
	return 0;
}

/* Warnings said per imported log; the rest are counted (the run's JSON
 * keeps the first 20). */
#define WARNINGS_SAID 5

/* Says the first warnings of an imported log with its file and line. */
static void print_warnings(const char *path, const mt_run_figures *m)
{
	mt_run_warning_view w;
	size_t total = (size_t)m->warnings;

	for (size_t i = 0; i < WARNINGS_SAID && mt_runview_warning(&w, m, i) != MT_ENOTFOUND; i++)
		fprintf(stderr, "mtrial runs import: warning: %s:%lld: %s\n", path,
			(long long)w.line, w.message);
	if (total > WARNINGS_SAID)
		fprintf(stderr, "mtrial runs import: %s: %zu more warnings (runs show ID --json)\n",
			path, total - WARNINGS_SAID);
}

/* What an imported run's log holds against trial.yaml (a target metric
 * it never evaluates, another benchmark), said as it comes in. */
static void warn_against_trial(const mt_run_view *r, const char *path)
{
	if (r->metric_warning)
		fprintf(stderr, "mtrial runs import: warning: %s: %s\n", path, r->metric_warning);
	if (r->workload_warning)
		fprintf(stderr, "mtrial runs import: warning: %s: %s\n", path, r->workload_warning);
}

struct import_args {
	mt_run_attempt at;
	json_t *topology; /* borrowed; NULL without a system description */
};

/* One log of `format` into the journal: *id its run, 0 when it was a
 * system description. */
static int import_one(struct cli *cli, mt_trial *t, const mt_runlog_rules *rules,
		      const struct import_args *a, const char *path,
		      enum mt_runs_log_format format, int64_t *id)
{
	mt_run_import_options o = {.path = path, .format = format, .at = a->at,
				   .topology = a->topology, .rules = rules};
	mt_run_import_result r;
	mt_run_figures m;
	mt_run_view v;
	int error;

	*id = 0;
	if (format == MT_RUNS_SYSTEM)
		return 0;
	error = mt_run_import(&r, t, &o);
	(void)mt_runview_figures(&m, r.metrics);
	if (error == 0 && !cli->json)
		printf("Imported %s as run #%lld (%s, %s%s%s, %lld warnings).\n", path, (long long)r.id,
		       a->at.system, r.status,
		       a->at.design && strcmp(a->at.design, "best") == 0 ? ", design best" : "",
		       a->at.rehearsal ? ", a rehearsal: not evidence" : "",
		       (long long)m.warnings);
	if (error == 0 || r.empty)
		print_warnings(path, &m);
	if (error == 0) {
		(void)mt_runview_read(&v, r.run); /* a key missing: its warning unknown */
		warn_against_trial(&v, path);
	}
	*id = r.id;
	mt_run_import_result_dispose(&r);
	return error;
}

/* "Topology from PATH: 1 node(s) x 4 H100 = 4 devices." */
static void print_topology(const json_t *topology)
{
	mt_run_topology_view tp;

	(void)mt_runview_topology(&tp, topology);
	mt_error_clear();
	printf("Topology from %s: %g node(s) x %g %s = %g devices.\n", tp.source, tp.nodes,
	       tp.accelerators_per_node, tp.accelerator ?: "accelerators", tp.devices);
}

/* mtrial runs import FILE... [--system S] [--track T] [--label L] [--cache C]
 * [--rehearsal]: runs made elsewhere (MLPerf logs, output with mtrial: lines, CSV or JSON
 * Lines series) and an MLPerf system description for their topology. */
static int import(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS, CLI_ATTEMPT_OPTIONS, {0}};
	struct import_args a = {.at.system = "candidate"};
	enum mt_runs_log_format *formats = NULL;
	json_t *done = NULL;
	mt_trial *t = NULL;
	mt_runlog_rules *rules = NULL; /* read once for all the logs */
	int opt, error = 0;

	optind = 1;
	while ((opt = cli_getopt(cli, argc, argv, "h" CLI_ATTEMPT_SHORT, opts)) >= 0)
		if (!cli_attempt_opt(&a.at, opt))
			return cli_usage_error(cli, "bad option");
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if ((error = cli_attempt_check(cli, &a.at)) != 0)
		return error;
	if (optind >= argc)
		return cli_usage_error(cli, "no log to import");
	if (!(formats = calloc((size_t)(argc - optind), sizeof(*formats))))
		return cli_fail(cli, mt_error_set(MT_EIO, "out of memory"));
	if ((error = sniff_files(argv + optind, argc - optind, formats, &a.topology)) < 0)
		goto cleanup; /* a.topology: the first of two, freed below */
	if (a.topology && argc - optind == 1) {
		json_decref(a.topology);
		free(formats);
		return cli_usage_error(cli, "%s is a system description: give the logs of the runs it "
				       "made with it", argv[optind]);
	}
	if ((error = cli_open_trial(cli, &t, 1)) < 0 || (error = mt_runlog_rules_load(&rules)) < 0)
		goto cleanup;
	done = json_array();
	for (int i = optind; i < argc && error == 0; i++) {
		int64_t id;
		if ((error = import_one(cli, t, rules, &a, argv[i], formats[i - optind], &id)) == 0 &&
		    id)
			json_array_append_new(done, json_integer(id));
	}
	if (error == 0 && a.topology && !cli->json)
		print_topology(a.topology);
	if (error == 0 && cli->json)
		cli_print_json(json_pack("{sO, sO?}", "imported", done, "topology", a.topology));
cleanup:
	free(formats);
	json_decref(done);
	json_decref(a.topology);
	mt_runlog_rules_free(rules);
	mt_trial_free(t);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}

/* ", 1.2e+04 target tokens/s, 12% padding" after clock 2. */
static void print_throughput(const mt_run_view *r)
{
	if (!isnan(r->throughput))
		printf(", %.4g %s", r->throughput, r->throughput_unit);
	if (!isnan(r->figures.padding_fraction))
		printf(", %.1f%% of the positions not counted (padding)",
		       100 * r->figures.padding_fraction);
	printf("\n");
}

/* The steady time spent waiting for input and communicating (data_s=,
 * comm_s=), or that it is not measured: never counted as none. */
static void print_waits(const mt_run_view *r)
{
	double d = r->figures.data_wait_share, c = r->figures.comm_wait_share;

	if (!r->figures.steady)
		return;
	if (isnan(d) && isnan(c)) {
		printf("  waits    not measured (print data_s= and comm_s= on step lines)\n");
		return;
	}
	printf("  waits    ");
	if (!isnan(d))
		printf("%.1f%% of the steady time waiting for input", 100 * d);
	else
		printf("input wait not measured");
	if (!isnan(c))
		printf(", %.1f%% communicating\n", 100 * c);
	else
		printf(", communication not measured\n");
}

/* Device-hours and cost, or why there are none. */
static void print_cost(const mt_run_view *r)
{
	const mt_run_devices_view *d = &r->devices;

	if (d->not_priced) {
		printf("  cost     not priced: %s\n", d->not_priced);
		return;
	}
	if (isnan(d->device_hours) && isnan(d->cost))
		return;
	printf("  cost     ");
	if (!isnan(d->cost))
		printf("%.4g for the run", d->cost);
	if (!isnan(d->cost_to_target))
		printf(", %.4g to the target", d->cost_to_target);
	if (!isnan(d->device_hours))
		printf("%s%.4g device-hours", !isnan(d->cost) ? "; " : "", d->device_hours);
	printf("\n");
}

/* The accounting boundary the cost counts: "submission to process end, 1.2 h". */
static void print_accounting(const mt_run_view *r)
{
	if (!r->accounting_from)
		return;
	printf("  counted  %s to %s", r->accounting_from, r->accounting_to);
	if (!isnan(r->accounting_hours))
		printf(", %.4g h", r->accounting_hours);
	printf(" (the accounting boundary: submission to the end of the attempt)\n");
}

/* The job a launcher ran it in: "job      slurm 77.0, 8 ranks on 2 hosts:
 * gpu01, gpu02 (SLURM_STEP_NODELIST); recorded by rank 0". */
static void print_launcher(const mt_run_view *r)
{
	mt_run_launcher_view l;
	size_t n;

	if (!r->figures.launcher)
		return;
	(void)mt_runview_launcher(&l, r->figures.launcher);
	mt_error_clear();
	printf("  job      %s%s%s", l.launcher ?: "?", l.job ? " " : "", l.job ?: "");
	if (l.ranks)
		printf(", %lld ranks", (long long)l.ranks);
	if ((n = json_array_size(l.hosts))) {
		printf(" on %zu host%s: ", n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n && i < 8; i++)
			printf("%s%s", i ? ", " : "", json_string_value(json_array_get(l.hosts, i)));
		if (n > 8)
			printf(" and %zu more", n - 8);
		printf(" (%s)", l.hosts_from ?: "?");
	} else if (l.hosts_text) {
		printf(" on %s (%s, not expanded)", l.hosts_text, l.hosts_from ?: "?");
	} else {
		printf("; its hosts not listed by the launcher");
	}
	printf("; recorded by rank 0 (%s), the others not\n", l.rank_from ?: "?");
}

/* The target as trial.yaml sets it now, and what the run made of it. */
static void print_target(const mt_run_view *r)
{
	const mt_run_target_view *t = &r->figures.target;
	const char *outcome = r->outcome ?: "";
	char buf[32];

	if (!t->known)
		return;
	printf("  target   %s %s %g: ", t->metric,
	       strcmp(t->direction ?: "", "higher") == 0 ? ">=" : "<=", t->value);
	if (strcmp(outcome, "reached") == 0)
		printf("reached %s after run start\n", secs(buf, sizeof(buf), r->time_to_target_s));
	else if (r->reached == 1) /* then the attempt failed */
		printf("reached %s after run start, but the attempt ended %s: counted as failed\n",
		       secs(buf, sizeof(buf), r->time_to_target_s), r->status ?: "?");
	else if (strcmp(outcome, "no_metric") == 0)
		printf("never evaluated in the log\n");
	else if (strcmp(outcome, "running") == 0)
		printf("not reached yet\n");
	else
		printf("did not reach target\n");
	if (r->metric_warning)
		printf("  warning  %s\n", r->metric_warning);
	if (r->workload_warning)
		printf("  warning  %s\n", r->workload_warning);
}

/* 1 for an imported series whose times count from its own start: its
 * "started" is the import's time, not the run's (cmd_import dates it so). */
static int undated(const mt_run_view *r)
{
	return mt_str_in(r->origin, (const char *const[]){"import", NULL}) &&
	       r->figures.first_ms != MT_RUNLOG_NO_TIME && r->figures.first_ms <= 946684800000LL;
}

/* The compilations the run's steps show: how many, each, in all and their
 * share of the attempt, and where the count came from. */
static void print_compiles(const mt_run_view *r)
{
	const mt_run_compiles_view *c = &r->figures.compiles;

	if (!c->known || !c->from)
		return;
	if (strcmp(c->from, "cache") == 0) {
		printf("  compiles %lld (compile-cache misses; no step times to measure them)\n",
		       (long long)c->count);
		return;
	}
	if (c->count == 0) {
		printf("  compiles none: no interval stalls against the steady %.3g s\n",
		       c->steady_step_s);
		return;
	}
	printf("  compiles %lld", (long long)c->count);
	if (!isnan(c->seconds_each))
		printf(", %.3g s each (median), %.4g s in all", c->seconds_each, c->seconds_total);
	if (!isnan(c->share))
		printf(", %.0f%% of the attempt", 100 * c->share);
	printf(" (stalls over a %.3g s step%s)\n", c->steady_step_s,
	       strcmp(c->from, "both") == 0 ? "; compile-cache lines too" : "");
}

/* The stalls, a long list cut after ten. */
static void print_stalls(const mt_run_view *r)
{
	size_t n = json_array_size(r->figures.stalls);
	mt_run_stall_view x;

	for (size_t i = 0; mt_runview_stall(&x, &r->figures, i) != MT_ENOTFOUND; i++) {
		if (i == 10 && n > 11) {
			printf("  stall    and %zu more (runs show %lld --json lists them)\n", n - 10,
			       (long long)r->id);
			break;
		}
		printf("  stall    step %lld took %.3g s (median %.3g s): a recompilation?\n",
		       (long long)x.step, x.seconds, x.median_s);
	}
}

/* The row's texts as `runs show` lists them, in its order. */
static void print_fields(const mt_run_view *r)
{
	const struct {
		const char *key, *value;
	} f[] = {{"system", r->system}, {"track", r->track},	 {"label", r->label},
		 {"cache", r->cache},	{"origin", r->origin},	 {"command", r->command},
		 {"source", r->source}, {"status", r->status},	 {"started", r->started},
		 {"ended", r->ended}};

	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
		if (f[k].value)
			printf("  %-8s %s%s\n", f[k].key, f[k].value,
			       strcmp(f[k].key, "started") == 0 && undated(r)
				       ? " (when it was imported: the log's times count from its own "
					 "start and carry no date)"
				       : "");
}

/* The comparison the run belongs to, and every change of it. */
static void print_design(const mt_run_view *r)
{
	const json_t *c;
	size_t i;

	printf("  %-8s %s (%s)\n", "design", r->design,
	       strcmp(r->design, "best") == 0
		       ? "each platform's best recipe: trial.yaml precision.best"
		       : "the matched recipe: trial.yaml precision");
	json_array_foreach(r->design_changes, i, c)
		printf("  %-8s %s: %s -> %s, why: %s\n", "changed",
		       json_string_value(json_object_get(c, "when")) ?: "-",
		       json_string_value(json_object_get(c, "from")) ?: "-",
		       json_string_value(json_object_get(c, "to")) ?: "-",
		       json_string_value(json_object_get(c, "why")) ?: "-");
}

/* Who recorded the run (its run.add event's author), and on which host:
 * not where it ran, which the launcher's job says. */
static void print_author(const json_t *row)
{
	mt_author_view a;

	if (mt_author_view_read(&a, row) < 0 || !a.name) {
		printf("  %-8s by someone not known (no event names its author)\n", "recorded");
		return;
	}
	printf("  %-8s by %s", "recorded", a.name);
	if (a.email && *a.email)
		printf(" <%s>", a.email);
	printf(" on %s\n", a.host && *a.host ? a.host : "a host not known");
}

static void print_one(const mt_run_view *r, const json_t *row)
{
	char buf[32];

	printf("Run #%lld\n", (long long)r->id);
	if (r->withdrawn)
		printf("  withdrawn %s by %s: %s (left out of every figure)\n", r->withdrawn_when,
		       r->withdrawn_who, r->withdrawn_why);
	if (r->rehearsal)
		printf("  kind     rehearsal: tests the pipeline, never evidence (mtrial runs mark %lld "
		       "--evidence counts it)\n", (long long)r->id);
	print_fields(r);
	print_author(row);
	print_design(r);
	if (r->has_exit)
		printf("  %-8s %lld\n", "exit", (long long)r->exit_status);
	printf("  clock 1  %s (submission to the first step: compilation and start-up)\n",
	       secs(buf, sizeof(buf), r->clock1_s));
	if (r->cache || r->cache_inferred)
		printf("  cache    %s declared, %s in the log\n", r->cache ?: "not",
		       r->cache_inferred ?: "nothing");
	if (r->cache_warning)
		printf("  warning  %s\n", r->cache_warning);
	if (r->devices.from)
		printf("  devices  %g (from %s)\n", r->devices.count, r->devices.from);
	print_launcher(r);
	print_accounting(r);
	print_cost(r);
	printf("  clock 2  %s per step in steady state (%s)",
	       secs(buf, sizeof(buf), r->steady_step_s),
	       r->steady_statistic ? "mean, as the throughput" : "-");
	print_throughput(r);
	print_waits(r);
	print_target(r);
	if (!isnan(r->run_minutes))
		printf("  MLPerf   %.3f minutes (run_stop - run_start)\n", r->run_minutes);
	print_compiles(r);
	print_stalls(r);
}

/* mtrial runs mark ID --rehearsal|--evidence (cli_mark_rehearsal). */
static int mark(struct cli *cli, int argc, char **argv)
{
	return cli_mark_rehearsal(cli, argc, argv, "runs", "run", mt_journal_run_mark);
}

/* mtrial runs design ID matched|best --why TEXT: moves a run to the other
 * comparison, as an event of its own, so the change stays on record. */
static int design(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"why", required_argument, NULL, 'w'}, {0}};
	const char *why = NULL, *to;
	mt_trial *t = NULL;
	char *end;
	long long id;
	int opt, error;

	optind = 1;
	while ((opt = cli_getopt(cli, argc, argv, "hw:", opts)) == 'w')
		why = optarg;
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (opt != CLI_GETOPT_END)
		return cli_usage_error(cli, "bad option");
	if (argc - optind != 2)
		return cli_usage_error(cli, "runs design ID matched|best --why TEXT");
	id = strtoll(argv[optind], &end, 10);
	to = argv[optind + 1];
	if (*end || id <= 0)
		return cli_usage_error(cli, "runs design %s: expected a run id", argv[optind]);
	if (strcmp(to, "matched") != 0 && strcmp(to, "best") != 0)
		return cli_usage_error(cli, "runs design: '%s': expected matched or best", to);
	if (!why || !*why)
		return cli_usage_error(cli, "runs design: --why TEXT is required: the record keeps "
				       "why the run changed comparison");
	if ((error = cli_open_trial(cli, &t, 1)) == 0 &&
	    (error = mt_run_design_check(t->spec, to)) == 0)
		error = mt_journal_run_design(t->journal, id, to, why);
	mt_trial_free(t);
	if (error < 0)
		return cli_fail(cli, error);
	if (cli->json)
		cli_print_json(json_pack("{sI, ss, ss}", "id", (json_int_t)id, "design", to, "why",
					 why));
	else
		printf("Run #%lld is now in the %s comparison (mtrial runs show %lld lists the "
		       "change).\n", id, to, id);
	return CLI_EXIT_OK;
}

/* The list's options: the common ones and --all (not with show ID). 1 when
 * the command must return *status at once. */
static int parse_list(struct cli *cli, int argc, char **argv, int64_t id, int *all, int *status)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS, {"all", no_argument, NULL, 'a'},
					     {0}};
	int opt;

	optind = 1;
	while ((opt = cli_getopt(cli, argc, argv, "ha", opts)) == 'a')
		*all = 1;
	if (opt == CLI_GETOPT_HELP)
		return *status = CLI_EXIT_OK, 1;
	if (opt != CLI_GETOPT_END)
		return *status = cli_usage_error(cli, "bad option"), 1;
	if (optind < argc)
		return *status = cli_usage_error(cli, "unexpected argument '%s'", argv[optind]), 1;
	if (id && *all)
		return *status = cli_usage_error(cli, "--all lists the runs; show ID shows one, "
						       "withdrawn or not"), 1;
	return 0;
}

/* The runs with their figures: `which` as mt_journal_runs_json takes it.
 * For a listing (systems not NULL) the per-system summary, from the
 * standing runs alone (a withdrawn run is listed with --all, never
 * counted), and how many withdrawn runs the listing hid. */
static int read_runs(mt_trial *t, int64_t which, json_t **runs, json_t **systems, size_t *hidden)
{
	json_t *standing, *r;
	size_t i;

	*hidden = 0;
	if (!(*runs = mt_journal_runs_json(t->journal, which)))
		return mt_error_last_code();
	json_array_foreach(*runs, i, r)
		mt_runs_flatten(r, t->spec);
	if (!systems)
		return 0;
	if (which == 0) {
		*systems = mt_runs_by_system(*runs, t->spec);
		return mt_journal_withdrawn_count(t->journal, "run", hidden);
	}
	if (!(standing = mt_runs_standing(t)))
		return mt_error_last_code();
	*systems = mt_runs_by_system(standing, t->spec);
	json_decref(standing);
	return 0;
}

/* The trial, or one whose trial.yaml is broken (the runs are still
 * listed, without the target and prices). */
static int open_for_runs(struct cli *cli, mt_trial **t)
{
	if (cli_open_trial(cli, t, 1) == 0)
		return 0;
	if (mt_error_last_code() == MT_ENOTFOUND)
		return MT_ENOTFOUND;
	fprintf(stderr, "mtrial runs: warning: %s; listing without the target and prices\n",
		mt_error_last());
	mt_error_clear();
	return cli_open_trial(cli, t, 0) < 0 ? mt_error_last_code() : 0;
}

static int print_runs(struct cli *cli, int64_t id, json_t *runs, json_t *systems, size_t hidden)
{
	mt_run_view *views;

	if (cli->json && id)
		cli_print_json(json_incref(json_array_get(runs, 0)));
	else if (cli->json)
		cli_print_json(json_pack("{sO, sO, sI}", "runs", runs, "systems", systems,
					 "withdrawn_hidden", (json_int_t)hidden));
	if (cli->json)
		return 0;
	if (!(views = views_of(runs)))
		return mt_error_set(MT_EIO, "out of memory");
	if (id)
		print_one(&views[0], json_array_get(runs, 0));
	else {
		print_list(views, json_array_size(runs), hidden);
		print_systems(systems);
	}
	free(views);
	return 0;
}

int cmd_runs(struct cli *cli, int argc, char **argv)
{
	const char *sub = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
	int64_t id = 0;
	mt_trial *t = NULL;
	json_t *runs = NULL, *systems = NULL;
	size_t hidden = 0;
	int status, all = 0, error;
	char *end;

	if (sub && strcmp(sub, "import") == 0)
		return import(cli, argc - 1, argv + 1);
	if (sub && strcmp(sub, "mark") == 0)
		return mark(cli, argc - 1, argv + 1);
	if (sub && strcmp(sub, "design") == 0)
		return design(cli, argc - 1, argv + 1);
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
	if (parse_list(cli, argc, argv, id, &all, &status))
		return status;
	if ((error = open_for_runs(cli, &t)) < 0)
		return cli_fail(cli, error);
	error = read_runs(t, id ? id : all ? MT_JOURNAL_RUNS_ALL : 0, &runs, id ? NULL : &systems,
			  &hidden);
	mt_trial_free(t);
	if (error == 0 && id && !json_array_size(runs))
		error = mt_error_set(MT_ENOTFOUND, "no run #%lld", (long long)id);
	if (error == 0)
		error = print_runs(cli, id, runs, systems, hidden);
	json_decref(systems);
	json_decref(runs);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}
