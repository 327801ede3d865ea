/* The wizard's reading of the record: the report model a section at a
 * time (the frame's, then each step's as it shows: mt_report_parts), the
 * full scan, probe and checks behind the model's summaries, the runs with
 * their logs, and the timer; and whether any of it is stale. What costs
 * (the decision over every run, the notes counted) waits until the step
 * that shows it has drawn once saying so (issue 18). */
#include "wizard.h"
#include "model.h"
#include "error.h"
#include "journal_page.h"
#include "model_path.h"
#include "opinventory.h"
#include "probe.h"
#include "runs.h"
#include "runview.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

static void read_timer(struct tui_wizard *w)
{
	mt_effort e;
	int error;

	memset(&e, 0, sizeof(e));
	error = mt_journal_effort_current(w->trial->journal, &e);
	if (error == MT_ENOTFOUND) {
		w->timer.running = 0;
		mt_error_clear();
		return;
	}
	if (error < 0) {
		tui_message(w, 1, "cannot read the timer: %s", mt_error_last());
		return;
	}
	w->timer.running = 1;
	w->timer.id = e.id;
	w->timer.started_ms = e.started_ms;
	copy(w->timer.category, sizeof(w->timer.category), e.category);
	copy(w->timer.track, sizeof(w->timer.track), e.track);
	mt_effort_dispose(&e);
}

static int64_t spec_mtime(const struct tui_wizard *w)
{
	struct stat st;
	if (stat(w->trial->spec_path, &st) != 0)
		return -1;
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

void record_init(struct tui_wizard *w)
{
	w->spec_mtime_ns = w->trial->spec ? spec_mtime(w) : -1;
}

/* trial.yaml edited in another window shows without a restart. An edit that
 * does not validate keeps the last good spec and says what is wrong. */
static void reread_spec(struct tui_wizard *w)
{
	int64_t mtime = spec_mtime(w);
	mt_spec *spec = NULL;

	if (mtime == w->spec_mtime_ns)
		return;
	w->spec_mtime_ns = mtime;
	if (mt_spec_load(&spec, w->trial->spec_path) < 0) {
		tui_message(w, 1, "trial.yaml not reloaded: %s", mt_error_last());
		return;
	}
	mt_spec_free(w->trial->spec);
	w->trial->spec = spec;
	tui_message(w, 0, "trial.yaml reloaded");
}

/* The full result behind the model's scan summary, read again only when
 * the summary names another scan. */
static void read_scan(struct tui_wizard *w)
{
	int64_t want = w->scan_want, id = 0;
	json_t *scan = NULL;

	if (want == w->scan_id)
		return;
	if (want && mt_journal_scan_latest(w->trial->journal, 1, &scan, &id, NULL) < 0) {
		tui_message(w, 1, "cannot read the scan: %s", mt_error_last());
		return;
	}
	json_decref(w->scan);
	mt_scan_view_dispose(&w->scan_view);
	w->scan = scan;
	w->scan_id = id;
	if (scan && mt_scan_view_read(&w->scan_view, scan) < 0)
		mt_error_clear(); /* a record older than a key reads it as none */
}

/* The optimizer steps of the trace probe `v` read, for the Ops step's
 * header: a probe recorded before probes said so names the inventory, and
 * the inventory has the steps. Only the latest trace is at hand; an older
 * one goes without (-1). */
static int64_t trace_steps(struct tui_wizard *w, const mt_probe_view *v)
{
	json_t *inv = NULL;
	mt_opinventory_view iv;
	int64_t steps = -1;

	if (v->from_steps >= 0 || !v->from_source || strcmp(v->from_source, "trace") != 0)
		return v->from_steps;
	if (mt_journal_inventory_latest(w->trial->journal, "trace", &inv, NULL) < 0) {
		mt_error_clear(); /* the header does without */
		return -1;
	}
	(void)mt_opinventory_view_read(&iv, inv);
	if (iv.has_trace_steps && iv.inventory_id == v->from_inventory_id)
		steps = iv.trace.steps;
	mt_opinventory_view_dispose(&iv);
	mt_error_clear();
	json_decref(inv);
	return steps;
}

/* What the wizard keeps of the probe it holds (w->probe) besides its JSON. */
static void probe_facts(struct tui_wizard *w)
{
	mt_probe_view v;

	w->probe_table = w->probe_from = NULL;
	w->probe_steps = -1;
	if (!w->probe)
		return;
	(void)mt_probe_view_read(&v, w->probe);
	mt_error_clear(); /* an older record's absent keys read as none */
	w->probe_table = v.table_name;
	w->probe_from = v.from_source;
	w->probe_steps = trace_steps(w, &v);
	mt_probe_view_dispose(&v);
}

/* The full probe behind the model's, read again only when the model names
 * another probe; it keeps every call site, which the model cuts. */
static void read_probe(struct tui_wizard *w)
{
	int64_t want = w->probe_want, id = 0, created = 0;
	json_t *probe = NULL;
	char when[32];

	if (want == w->probe_id)
		return;
	if (want && mt_journal_probe_latest(w->trial->journal, &probe, &id, &created) < 0) {
		tui_message(w, 1, "cannot read the probe: %s", mt_error_last());
		return;
	}
	if (probe) {
		mt_time_iso(when, sizeof(when), created);
		json_object_set_new(probe, "id", json_integer(id));
		json_object_set_new(probe, "created", json_string(when));
	}
	json_decref(w->probe);
	w->probe = probe;
	w->probe_id = id;
	probe_facts(w);
}

/* The full results behind the model's checks (which keeps a line of
 * each), read again only when the model's newest check is another. */
static void read_checks(struct tui_wizard *w)
{
	int64_t want = jv_int(w->model, "checks.0.id", 0);
	json_t *checks = NULL;

	if (want == w->checks_id)
		return;
	if (want && !(checks = mt_journal_checks_json(w->trial->journal, NULL, RECORD_CHECKS))) {
		tui_message(w, 1, "cannot read the checks: %s", mt_error_last());
		return;
	}
	json_decref(w->checks);
	w->checks = checks;
	w->checks_id = want;
}

/* --- runs ------------------------------------------------------------------ */

/* "2026-11-29T18:20:02Z" (mt_time_iso's) as ms since the epoch, 0 when not. */
static int64_t iso_ms(const char *iso)
{
	struct tm tm = {0};

	if (!iso || sscanf(iso, "%d-%d-%dT%d:%d:%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			   &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000;
}

/* A run still going (r, read from run): its figures so far from its log
 * (clock 1, steps, evaluations, the last step), and "live" {started_ms}. */
static void add_live(struct tui_wizard *w, json_t *run, const mt_run_view *r)
{
	/* the journal's ms, as `mtrial run` anchors clock 1 when the run ends:
	 * the ISO time's whole seconds made it change then */
	int64_t started = r->started_ms ? r->started_ms : iso_ms(r->started);
	json_t *m = NULL;

	if (r->source &&
	    mt_runs_metrics(&m, r->source, MT_RUNS_LOG_TIMED, w->trial->spec, started, -1) == 0)
		json_object_set_new(run, "metrics", m);
	mt_error_clear(); /* a log not written yet is no error */
	json_object_set_new(run, "live", json_pack("{sI}", "started_ms", (json_int_t)started));
}

/* Every attempt with its figures, and the systems side by side: read again
 * after each reload while the Runs step shows them, as a run in another
 * terminal changes its log, not only the journal. */
static void read_runs(struct tui_wizard *w)
{
	json_t *runs = mt_journal_runs_json(w->trial->journal, 0), *r;
	size_t i, gone = 0;

	w->runs_reload = w->reloads;
	if (!runs) {
		tui_message(w, 1, "cannot read the runs: %s", mt_error_last());
		return;
	}
	w->live_runs = 0;
	json_array_foreach(runs, i, r) {
		mt_run_view v;
		(void)mt_runview_read(&v, r);
		if (v.status && strcmp(v.status, "running") == 0) {
			add_live(w, r, &v);
			w->live_runs++;
		}
		mt_runs_flatten(r, w->trial->spec);
	}
	mt_error_clear();
	json_decref(w->runs.attempts);
	json_decref(w->runs.systems);
	if (mt_journal_withdrawn_count(w->trial->journal, "run", &gone) < 0) {
		tui_message(w, 1, "cannot read the withdrawals: %s", mt_error_last());
		mt_error_clear();
	}
	w->runs = (struct tui_runs){.attempts = runs,
				    .systems = mt_runs_by_system(runs, w->trial->spec),
				    .withdrawn = gone};
}

int record_part(struct tui_wizard *w, const char *key)
{
	json_t *v;

	if (json_object_get(w->model, key))
		return 0;
	if (!w->parts || !(v = mt_report_parts_get(w->parts, key))) {
		tui_message(w, 1, "cannot read the record's %s: %s", key, mt_error_last());
		mt_error_clear();
		return -1;
	}
	json_object_set(w->model, key, v);
	return 0;
}

/* What the frame and every step read of the model (the side list's
 * statuses, the title, trial.yaml, the latest scan, probe and checks): each
 * a query or two, never a long list. */
static const char *const frame_parts[] = {"trial", "spec", "scan", "checks", "steps", NULL};

/* What a step reads of the model besides: built before it draws (the
 * Tracks' effort: the intervals, few; the facts trial.yaml misses), or,
 * costly, after it has drawn once saying so (record_pending): the notes
 * counted (SQL reads every page of the table), the decision over every
 * run. */
static const struct {
	const char *step_id, *key;
	int costly;
} step_parts[] = {
	{"effort", "effort", 0},
	{"effort", "note_count", 1},
	{"summary", "missing", 0},
	{"summary", "decision", 1},
};
#define N_STEP_PARTS (sizeof(step_parts) / sizeof(step_parts[0]))

static int showing(const struct tui_wizard *w, const char *step_id)
{
	return strcmp(w->steps[w->selected].ops->step_id, step_id) == 0;
}

static int newest_note(const mt_note *n, void *payload)
{
	*(int64_t *)payload = n->id;
	return 0;
}

/* The notes added since the last reload by another terminal, said:
 * counted from the newest id known, which reads the new ones alone; and
 * the notes' count carried over from the last model, with those, when no
 * other process wrote meanwhile (a note withdrawn would have). */
static void new_notes(struct tui_wizard *w, json_t *old, int64_t old_version)
{
	int64_t newest = 0;
	json_t *count = json_object_get(old, "note_count");
	size_t n = 0;

	if (mt_journal_notes_page(w->trial->journal, 0, 1, newest_note, &newest) < 0 ||
	    (old && mt_journal_note_count(w->trial->journal, w->newest_note, &n) < 0)) {
		tui_message(w, 1, "cannot read the notes: %s", mt_error_last());
		mt_error_clear();
		return;
	}
	if (json_is_integer(count) && old_version == w->data_version && old_version >= 0)
		json_object_set_new(w->model, "note_count",
				    json_integer(json_integer_value(count) + (json_int_t)n));
	if (!old)
		n = 0;
	if (n > w->own_notes)
		tui_message(w, 0, "%zu new note%s from another terminal", n - w->own_notes,
			    n - w->own_notes == 1 ? "" : "s");
	w->newest_note = newest;
	w->own_notes = 0;
}

/* Runs up to which the decision is worked out before the first frame
 * (about 0.25 ms a run), and the size of the probe it reads (a probe of
 * diffusers is 11 MB, 0.3 s to read); on more, the side list's Summary
 * says "?" until the step opens. */
#define DECISION_EAGER_RUNS 50
#define DECISION_EAGER_PROBE_BYTES (256 * 1024)

static int decision_cheap(struct tui_wizard *w)
{
	int64_t max_id = 0;

	if (mt_journal_run_id_max(w->trial->journal, &max_id) < 0)
		mt_error_clear(); /* the decision will say */
	return max_id <= DECISION_EAGER_RUNS && w->probe_bytes <= DECISION_EAGER_PROBE_BYTES;
}

/* The latest probe's id and size, from the index (its result unread). */
static void latest_probe(struct tui_wizard *w)
{
	w->probe_want = w->probe_bytes = 0;
	if (mt_journal_probe_latest_table(w->trial->journal, &w->probe_want, NULL,
					  &w->probe_bytes) < 0)
		mt_error_clear(); /* none; a journal that cannot be read says so elsewhere */
}

void record_reload(struct tui_wizard *w)
{
	json_t *old = w->model;
	mt_report_parts *old_parts = w->parts;
	int64_t old_version = w->data_version;
	int error = 0;

	reread_spec(w);
	w->data_version = mt_journal_data_version(w->trial->journal);
	w->parts = mt_report_parts_new(w->trial, mt_now_ms(), MT_REPORT_PARTS_DEFER_DECISION);
	w->model = json_object();
	w->model_mono = mt_mono_ms();
	read_timer(w);
	latest_probe(w);
	/* the Summary shown: its decision again before the frame, not a
	 * "working out" flashing at every reload; and on a trial of few runs,
	 * where it takes a few ms, for the side list's Summary */
	if ((showing(w, "summary") && json_object_get(old, "decision")) || decision_cheap(w))
		error = record_part(w, "decision");
	for (size_t i = 0; frame_parts[i] && error == 0; i++)
		error = record_part(w, frame_parts[i]);
	if (error < 0) { /* the last model stays, with the message line saying why */
		mt_report_parts_free(w->parts);
		json_decref(w->model);
		w->parts = old_parts;
		w->model = old;
		return;
	}
	mt_report_parts_free(old_parts);
	new_notes(w, old, old_version);
	json_decref(old);
	w->reloads++;
	w->tried = 0;
	w->scan_want = jv_int(w->model, "scan.id", 0);
	read_checks(w);
	record_step_parts(w);
}

void record_full(struct tui_wizard *w)
{
	read_scan(w);
	read_probe(w);
}

void record_step_parts(struct tui_wizard *w)
{
	/* the full results, once read (the Ops step, the Repository step's
	 * lists, probing), kept current; first read for the Ops step after it
	 * has drawn once saying so (record_pending) */
	if (w->scan || w->probe)
		record_full(w);
	for (size_t i = 0; i < N_STEP_PARTS; i++)
		if (!step_parts[i].costly && showing(w, step_parts[i].step_id))
			(void)record_part(w, step_parts[i].key);
	if (showing(w, "runs") && w->runs.attempts && w->runs_reload != w->reloads)
		read_runs(w); /* shown already: read again before the frame, as before */
}

/* The costly part the step shown waits for, or -1. */
static int waiting_for(const struct tui_wizard *w)
{
	for (size_t i = 0; i < N_STEP_PARTS; i++)
		if (step_parts[i].costly && showing(w, step_parts[i].step_id) &&
		    !(w->tried & (1u << i)) && !json_object_get(w->model, step_parts[i].key))
			return (int)i;
	return -1;
}

/* The Ops step's full scan and probe not read yet. */
static int full_unread(const struct tui_wizard *w)
{
	return showing(w, "ops") && w->full_tried != w->reloads + 1 &&
	       (w->scan_want != w->scan_id || w->probe_want != w->probe_id);
}

int record_pending(const struct tui_wizard *w)
{
	if (showing(w, "runs"))
		return w->runs_reload != w->reloads;
	if (full_unread(w))
		return 1;
	return w->parts && waiting_for(w) >= 0;
}

/* Builds costly part i, once a reload; the decision makes the steps again,
 * which said "unknown" for the Summary until now. */
static void build_costly(struct tui_wizard *w, int i)
{
	w->tried |= 1u << i; /* a failure is said, not tried again until a reload */
	if (record_part(w, step_parts[i].key) < 0 || strcmp(step_parts[i].key, "decision") != 0)
		return;
	mt_report_parts_drop(w->parts, "steps");
	json_object_del(w->model, "steps");
	(void)record_part(w, "steps");
}

void record_build_pending(struct tui_wizard *w)
{
	int i = waiting_for(w);

	if (showing(w, "runs"))
		read_runs(w);
	else if (full_unread(w)) {
		w->full_tried = w->reloads + 1;
		record_full(w);
	}
	else if (i >= 0)
		build_costly(w, i);
}

int record_stale(struct tui_wizard *w)
{
	int64_t v = mt_journal_data_version(w->trial->journal);

	return v < 0 || v != w->data_version || spec_mtime(w) != w->spec_mtime_ns ||
	       w->live_runs > 0 || w->timer.running;
}
