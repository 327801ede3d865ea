/* Starting a run from the Runs step (x from any step): the system and the
 * track in the step's menus, the design (when trial.yaml sets precision.best),
 * then the command in its prompt. The system menu also offers each system's
 * rehearsal (`mtrial run --rehearsal`: a run that tests the pipeline, never
 * evidence). The run is `mtrial run`'s core function (core/run_trial.h),
 * in the background, in a session of its own, so that the wizard keeps
 * drawing, a terminal's Ctrl-C does not reach the run, and the run goes on
 * when the wizard quits. The run records itself as every `mtrial run`
 * does; the Runs step shows its progress (elapsed, step, loss, evaluation)
 * from its log at each reload.
 *
 * Importing a run made elsewhere (I from any step) asks its log first (a
 * file that cannot be read, or a system description, is said at once),
 * then the same menus, and records it through `mtrial runs import`'s core
 * function (core/run_import.h) in the wizard itself: a log is read in a
 * moment. */
#include "runstart.h"
#include "error.h"
#include "journal.h"
#include "run_import.h"
#include "run_trial.h"
#include "runs.h"
#include "runview.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The system menu: a system, or (from N_SYSTEMS on) the same system's
 * rehearsal. */
static const char *const systems[] = {"baseline", "candidate",
				      "baseline, a rehearsal (never evidence)",
				      "candidate, a rehearsal (never evidence)", NULL};
#define N_SYSTEMS 2

/* The design menu, asked when trial.yaml sets precision.best (`mtrial run
 * --design`). */
static const char *const designs[] = {
	"matched: trial.yaml's precision, the same recipe on both systems",
	"best: this system's best recipe, trial.yaml's precision.best", NULL};
static const char *const design_names[] = {"matched", "best"};

/* The label every run started or imported here gets, so the record says
 * where it came from. */
#define RUN_LABEL "started from the wizard"
#define IMPORT_LABEL "imported from the wizard"

int runstart_begin(struct tui_runstart *rs, struct tui_wizard *w)
{
	free(rs->log);
	rs->log = NULL;
	tui_screen_menu(w, "Start a run: which system?", systems, 1);
	rs->stage = RUNSTART_SYSTEM;
	return TUI_HANDLED | TUI_REDRAW;
}

int runstart_import_begin(struct tui_runstart *rs, struct tui_wizard *w)
{
	free(rs->log);
	rs->log = NULL;
	tui_screen_prompt(w, "import a run's log (MLPerf, mtrial: lines, CSV, JSONL): ", NULL);
	rs->stage = RUNSTART_LOG;
	return TUI_HANDLED | TUI_REDRAW;
}

/* The log typed: what it is (a file that cannot be read, or a system
 * description, is said now), then the system menu. */
static int on_log(struct tui_runstart *rs, struct tui_wizard *w, const struct tui_key *k)
{
	enum prompt_result r = prompt_input(&w->prompt, k);
	enum mt_runs_log_format format;

	if (r == PROMPT_CONTINUE)
		return TUI_REDRAW;
	rs->stage = RUNSTART_NONE;
	tui_screen_ask_done(w);
	rs->log = prompt_text(&w->prompt);
	if (r == PROMPT_CANCEL || !*rs->log) {
		tui_message(w, 0, "%s: nothing imported", r == PROMPT_CANCEL ? "Cancelled"
									     : "No log given");
		return TUI_REDRAW;
	}
	if (mt_run_import_sniff(&format, rs->log, 1) < 0) {
		tui_message(w, 1, "Not imported: %s", mt_error_last());
		mt_error_clear();
		return TUI_REDRAW;
	}
	rs->format = (int)format;
	tui_screen_menu(w, "Import a run: which system?", systems, 1);
	rs->stage = RUNSTART_SYSTEM;
	return TUI_REDRAW;
}

/* The log into the record as `mtrial runs import` does; the run is then
 * the step's to select. */
static int import_log(struct tui_runstart *rs, struct tui_wizard *w)
{
	mt_run_import_options o = {
		.path = rs->log, .format = (enum mt_runs_log_format)rs->format,
		.at = {systems[rs->system % N_SYSTEMS], rs->track > 0 ? mt_tracks[rs->track - 1] : NULL,
		       IMPORT_LABEL, NULL, rs->system >= N_SYSTEMS, design_names[rs->design != 0]}};
	mt_run_import_result r;
	mt_run_figures f;
	mt_run_view v;

	if (mt_run_import(&r, w->trial, &o) < 0) {
		tui_message(w, 1, "Not imported: %s", mt_error_last());
		mt_error_clear();
		mt_run_import_result_dispose(&r);
		return TUI_HANDLED | TUI_REDRAW;
	}
	(void)mt_runview_figures(&f, r.metrics);
	(void)mt_runview_read(&v, r.run); /* a key missing: its warning unknown */
	mt_error_clear();
	tui_message(w, 0, "Imported %s as run #%lld (%s, %s%s%s, %lld warnings)%s%s", rs->log,
		    (long long)r.id, o.at.system, r.status,
		    rs->design ? ", design best"
		    : mt_runs_has_best(w->trial->spec) ? ", design matched" : "",
		    o.at.rehearsal ? ", a rehearsal" : "", (long long)f.warnings,
		    v.metric_warning ? ": " : "", v.metric_warning ? v.metric_warning : "");
	rs->imported = r.id;
	mt_run_import_result_dispose(&r);
	return TUI_HANDLED | TUI_REDRAW | TUI_RELOAD;
}

/* The grandchild: the attempt, through the same core function as `mtrial
 * run` (core/run_trial.h), on a trial opened anew (the wizard's handle is
 * not used across fork). Never returns. */
static void run_detached(const char *dir, const struct tui_runstart *rs, const char *cmd)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	mt_run_trial_options o = {.at = {systems[rs->system % N_SYSTEMS],
					 rs->track > 0 ? mt_tracks[rs->track - 1] : NULL, RUN_LABEL,
					 NULL, rs->system >= N_SYSTEMS},
				  .argv = argv, .out = stdout, .err = stderr};
	mt_run_trial_result r;
	mt_trial *t = NULL;
	int error = mt_trial_open(&t, dir, 1);

	o.at.design = design_names[rs->design != 0];
	if (error == 0)
		error = mt_run_trial(&r, t, &o);
	_exit(error < 0 ? 2 : r.exit_status != 0);
}

/* Runs CMD (sh -c) as an attempt of the trial, detached: a child that starts
 * a session and a grandchild that runs it, so that no zombie is left
 * behind. 0, or -1 with errno. */
static int spawn(struct tui_wizard *w, const struct tui_runstart *rs, const char *cmd)
{
	int status;
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		setsid();
		if (fork() != 0)
			_exit(0);
		/* the terminal is the wizard's: the run's output goes to its log only */
		dup2(fd, STDIN_FILENO), dup2(fd, STDOUT_FILENO), dup2(fd, STDERR_FILENO);
		run_detached(w->trial->dir, rs, cmd);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static int on_system(struct tui_runstart *rs, struct tui_wizard *w, int i)
{
	static const char *tracks[TUI_MENU_MAX + 1] = {"no track"};

	for (int t = 0; mt_tracks[t] && t < TUI_MENU_MAX - 1; t++)
		tracks[t + 1] = mt_tracks[t];
	rs->system = i;
	snprintf(rs->title, sizeof(rs->title), "%s %s %s: which track?",
		 rs->log ? "Import as a" : "Start a", systems[i % N_SYSTEMS],
		 i >= N_SYSTEMS ? "rehearsal" : "run");
	tui_screen_menu(w, rs->title, tracks, 0);
	rs->stage = RUNSTART_TRACK;
	return TUI_REDRAW;
}

static int on_command(struct tui_runstart *rs, struct tui_wizard *w, const struct tui_key *k)
{
	enum prompt_result r = prompt_input(&w->prompt, k);
	const char *system = systems[rs->system % N_SYSTEMS];
	int rehearsal = rs->system >= N_SYSTEMS;
	const char *track = rs->track > 0 ? mt_tracks[rs->track - 1] : NULL;
	char *cmd;

	if (r == PROMPT_CONTINUE)
		return TUI_REDRAW;
	rs->stage = RUNSTART_NONE;
	tui_screen_ask_done(w);
	cmd = prompt_text(&w->prompt);
	if (r == PROMPT_CANCEL || !*cmd)
		tui_message(w, 0, "%s: no run started", r == PROMPT_CANCEL ? "Cancelled"
									   : "No command given");
	else if (spawn(w, rs, cmd) < 0)
		tui_message(w, 1, "Could not start the run: %s", strerror(errno));
	else
		tui_message(w, 0, "Started a %s%s%s%s %s in the background: %s", system,
			    track ? ", " : "", track ? track : "", rs->design ? ", design best" : "",
			    rehearsal ? "rehearsal" : "run", cmd);
	free(cmd);
	return TUI_HANDLED | TUI_REDRAW | TUI_RELOAD;
}

int runstart_input(struct tui_runstart *rs, struct tui_wizard *w, const struct tui_key *k)
{
	int i;

	if (rs->stage == RUNSTART_COMMAND)
		return on_command(rs, w, k);
	if (rs->stage == RUNSTART_LOG)
		return on_log(rs, w, k);
	if (rs->stage == RUNSTART_NONE)
		return TUI_UNHANDLED;
	if ((i = menu_input(&w->menu, k)) == MENU_CONTINUE)
		return TUI_REDRAW;
	if (i == MENU_CANCEL) {
		rs->stage = RUNSTART_NONE;
		tui_screen_ask_done(w);
		tui_message(w, 0, rs->log ? "Nothing imported" : "No run started");
		return TUI_REDRAW;
	}
	if (rs->stage == RUNSTART_SYSTEM)
		return on_system(rs, w, i);
	if (rs->stage == RUNSTART_TRACK) {
		rs->track = i;
		rs->design = 0;
		/* two comparisons only when trial.yaml gives the best recipes */
		if (mt_runs_has_best(w->trial->spec)) {
			tui_screen_menu(w, "Which comparison does the run belong to?", designs, 0);
			rs->stage = RUNSTART_DESIGN;
			return TUI_REDRAW;
		}
	} else {
		rs->design = i;
	}
	if (rs->log) {
		rs->stage = RUNSTART_NONE;
		tui_screen_ask_done(w);
		return import_log(rs, w);
	}
	tui_screen_prompt(w, "command (sh -c, in this directory): ", NULL);
	rs->stage = RUNSTART_COMMAND;
	return TUI_REDRAW;
}

void runstart_done(struct tui_runstart *rs)
{
	free(rs->log);
	rs->log = NULL;
}
