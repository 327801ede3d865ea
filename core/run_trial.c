#include "run_trial.h"
#include "error.h"
#include "launcher.h"
#include "run_capture.h"
#include "run_child.h"
#include "runs.h"
#include "runview.h"
#include "topology.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

char *mt_run_trial_command_line(char *const *argv)
{
	mt_buf b = MT_BUF_INIT;
	for (int i = 0; argv[i]; i++) {
		const char *a = argv[i];
		int plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789-_./=:,+@%") == strlen(a);
		mt_buf_puts(&b, i ? " " : "");
		if (plain) {
			mt_buf_puts(&b, a);
			continue;
		}
		mt_buf_puts(&b, "'");
		for (; *a; a++)
			mt_buf_puts(&b, *a == '\'' ? "'\\''" : (char[]){*a, 0});
		mt_buf_puts(&b, "'");
	}
	return mt_buf_detach(&b);
}

/* Creates the log, runs/STARTED-SYSTEM.log (never one that exists), and
 * records the attempt as running. */
static int begin(mt_run_trial_result *out, FILE **log, mt_trial *t, const mt_run_trial_options *o,
		 int64_t started)
{
	char *dir = mt_path_join(t->dir, "runs"), name[64], host[256] = "";
	mt_journal_run rec;
	int error;

	snprintf(name, sizeof(name), "%lld-%s.log", (long long)started, o->at.system);
	out->log = mt_path_join(dir, name);
	if ((error = mt_mkdir_p(dir)) < 0)
		goto cleanup;
	if (!(*log = fopen(out->log, "wx"))) {
		error = mt_error_set(MT_EIO, "%s: %s", out->log, strerror(errno));
		goto cleanup;
	}
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	rec = (mt_journal_run){.system = o->at.system, .track = o->at.track,
			       .label = o->at.label, .cache = o->at.cache, .origin = "run",
			       .command = out->command, .log = out->log, .status = "running",
			       .started_ms = started, .pid = getpid(),
			       .host = host[0] ? host : NULL, .rehearsal = o->at.rehearsal,
			       .design = o->at.design};
	error = mt_journal_run_add(t->journal, &rec, &out->id);
cleanup:
	free(dir);
	return error;
}

/* Passes the command's output through and into the log until it closes
 * both streams, passing interrupts on; then waits for it. */
static int watch(mt_run_trial_result *out, FILE *log, const mt_run_trial_options *o,
		 int *status)
{
	mt_run_child c;
	mt_run_capture cap;
	int error, sig;

	if ((error = mt_run_child_start(&c, o->argv)) < 0)
		return error;
	mt_run_capture_init(&cap, log, c.out, o->out, c.err, o->err);
	c.out = c.err = -1; /* the capture's now */
	do {
		if (mt_run_child_forward(&c) && o->on_event)
			o->on_event(MT_RUN_TRIAL_INTERRUPTING, out, o->payload);
	} while (mt_run_capture_step(&cap, 1000) > 0);
	mt_run_capture_dispose(&cap);
	out->lines = cap.lines;
	mt_run_child_wait(&c, status);
	if (mt_run_child_interrupted(&sig))
		out->interrupted = sig;
	return 0;
}

/* What became of the command: interrupted means aborted, whatever the
 * command made of the signal. */
static void ended_as(mt_run_trial_result *out, int status)
{
	out->status = out->interrupted || WIFSIGNALED(status)		 ? "aborted"
		      : WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "success"
								       : "failed";
	out->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The log's figures, ended when the process ended; NULL, with why in
 * out->no_figures, when it gives none. An MLPerf run_stop that says
 * aborted makes a successful command's attempt aborted: it did not
 * converge. */
static char *figures(mt_run_trial_result *out, mt_trial *t, int64_t started, int64_t ended,
		     const json_t *topology, const json_t *launcher)
{
	json_t *metrics = NULL;
	mt_run_figures f;
	const char *mst;
	char *text;

	if (mt_runs_metrics(&metrics, out->log, MT_RUNS_LOG_TIMED, t->spec, started,
			    out->exit_status) < 0) {
		out->no_figures = mt_strdup(mt_error_last());
		mt_error_clear();
		return NULL;
	}
	(void)mt_runview_figures(&f, metrics);
	mst = f.status;
	if (strcmp(out->status, "success") == 0 && mst && strcmp(mst, "aborted") == 0)
		out->status = "aborted";
	mt_runs_set_end(metrics, ended);
	if (topology)
		json_object_set(metrics, "topology", (json_t *)topology);
	if (launcher)
		json_object_set(metrics, "launcher", (json_t *)launcher);
	text = json_dumps(metrics, JSON_COMPACT);
	json_decref(metrics);
	return text;
}

/* Ends the record with what became of the command, and reads it back. */
static int end(mt_run_trial_result *out, mt_trial *t, FILE *log, int64_t started, int status,
	       const json_t *topology, const json_t *launcher)
{
	int64_t ended = mt_now_ms(); /* the attempt's end, as it is accounted for */
	char *text;
	int error;

	ended_as(out, status);
	fflush(log);
	text = figures(out, t, started, ended, topology, launcher);
	error = mt_journal_run_end(t->journal, out->id, out->status, 1, out->exit_status, ended,
				   text);
	free(text);
	if (error == 0) {
		json_t *runs = mt_journal_runs_json(t->journal, out->id);
		out->run = json_incref(json_array_get(runs, 0));
		mt_runs_flatten(out->run, t->spec);
		json_decref(runs);
	}
	return error;
}

/* The attempt's topology as it starts: the user's --devices and --hosts,
 * then the launcher it wraps and the environment it runs in; NULL when
 * none says anything (trial.yaml's is worked out when the run is read). */
json_t *mt_run_attempt_topology(const mt_run_attempt *at, char *const *argv, char *const *envp)
{
	mt_topology topo;

	mt_topology_init(&topo);
	mt_topology_set(&topo, MT_TOPO_DEVICES, at->devices, "--devices");
	mt_topology_set(&topo, MT_TOPO_HOSTS, at->hosts, "--hosts");
	if (argv)
		mt_topology_from_launcher(&topo, argv, envp);
	return mt_topology_stored(&topo, NULL);
}

/* A rank other than 0 of a launched job: the command runs, its output
 * passed through, and nothing is recorded (rank 0 records the job). */
static int follow(mt_run_trial_result *out, const mt_run_trial_options *o)
{
	FILE *none = fopen("/dev/null", "w");
	int error, status = 0;

	if (!none)
		return mt_error_set(MT_EIO, "/dev/null: %s", strerror(errno));
	if ((error = watch(out, none, o, &status)) == 0)
		ended_as(out, status);
	fclose(none);
	return error;
}

int mt_run_design_check(const mt_spec *spec, const char *design)
{
	static const char *const designs[] = {"matched", "best", NULL};

	if (design && !mt_str_in(design, designs))
		return mt_error_set(MT_EINVALID, "design '%s': expected matched or best", design);
	if (design && strcmp(design, "best") == 0 && !mt_runs_has_best(spec))
		return mt_error_set(MT_EINVALID, "design best: trial.yaml sets no precision.best "
				    "(each platform's best recipe); set it first, or record the run "
				    "as matched");
	return 0;
}

int mt_run_trial(mt_run_trial_result *out, mt_trial *t, const mt_run_trial_options *o)
{
	int64_t started = mt_now_ms();
	json_t *topology = NULL, *launcher = NULL;
	mt_launcher job;
	FILE *log = NULL;
	int error, status = 0;

	memset(out, 0, sizeof(*out));
	if ((error = mt_run_design_check(t->spec, o->at.design)) < 0)
		return error;
	out->command = mt_run_trial_command_line(o->argv);
	if (mt_launcher_detect(&job, o->envp ? o->envp : environ)) {
		out->rank = job.rank;
		out->rank_from = job.rank_from;
		if (job.rank > 0) {
			mt_launcher_dispose(&job);
			return follow(out, o);
		}
		launcher = mt_launcher_json(&job);
		mt_launcher_dispose(&job);
	}
	topology = mt_run_attempt_topology(&o->at, o->argv, o->envp ? o->envp : environ);
	if ((error = begin(out, &log, t, o, started)) < 0)
		goto cleanup;
	if (o->on_event)
		o->on_event(MT_RUN_TRIAL_STARTED, out, o->payload);
	if ((error = watch(out, log, o, &status)) == 0)
		error = end(out, t, log, started, status, topology, launcher);
cleanup:
	json_decref(topology);
	json_decref(launcher);
	if (log)
		fclose(log);
	if (error < 0 && out->id) /* recorded as running, then failed to run: say so */
		mt_journal_run_end(t->journal, out->id, "failed", 0, 0, mt_now_ms(), NULL);
	return error;
}

void mt_run_trial_result_dispose(mt_run_trial_result *r)
{
	free(r->command);
	free(r->log);
	free(r->no_figures);
	json_decref(r->run);
	memset(r, 0, sizeof(*r));
}
