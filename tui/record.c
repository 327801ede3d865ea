/* The wizard's main contact with the trial: it writes notes and timers
 * through the journal, and scans, probes and checks through the core
 * (record_model.c reads the record: the model, the timer). (The
 * Tracks and Summary screens also reach the trial through tui_ctx.trial:
 * the diffs and the marks, the report files.) Every failure ends up in the
 * message line with the library's own words. */
#include "wizard.h"
#include "model.h"
#include "error.h"
#include "model_path.h"
#include "withdraw_trial.h"
#include "compat_import.h"
#include "probe_trial.h"
#include "check_trial.h"
#include "override_trial.h"
#include "opinventory.h"
#include "scan.h"
#include "scan_trial.h"
#include "compat.h"
#include "opmap.h"
#include "probe.h"
#include "compare.h"
#include "tolerances.h"
#include "curves.h"
#include "runs.h"
#include "runview.h"
#include "runlog.h"
#include "util.h"
#include "journal_page.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void tui_message(struct tui_wizard *w, int is_error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->message, sizeof(w->message), fmt, ap);
	va_end(ap);
	w->message_error = is_error;
}


int record_add_note(struct tui_wizard *w, const char *text)
{
	int64_t id = 0;

	if (!text || !*text) {
		tui_message(w, 0, "Empty note: nothing saved");
		return TUI_REDRAW;
	}
	if (mt_journal_note_add(w->trial->journal, text, NULL, NULL, 0, &id) < 0) {
		tui_message(w, 1, "note not saved: %s", mt_error_last());
		return TUI_REDRAW | TUI_RELOAD;
	}
	w->own_notes++;
	if (w->timer.running && *w->timer.track)
		tui_message(w, 0, "Note #%lld saved (track %s, from the running timer)",
			    (long long)id, w->timer.track);
	else
		tui_message(w, 0, "Note #%lld saved", (long long)id);
	return TUI_REDRAW | TUI_RELOAD;
}

int record_timer_start(struct tui_wizard *w, const char *category, const char *track)
{
	if (mt_journal_effort_start(w->trial->journal, track, category, NULL, NULL) < 0) {
		tui_message(w, 1, "timer not started: %s", mt_error_last());
		return TUI_REDRAW | TUI_RELOAD;
	}
	tui_message(w, 0, "Timer started: %s, %s (t stops it)", category,
		    track ? track : "no track");
	return TUI_REDRAW | TUI_RELOAD;
}

int record_timer_stop(struct tui_wizard *w)
{
	mt_effort e;
	char took[32];

	memset(&e, 0, sizeof(e));
	if (mt_journal_effort_stop(w->trial->journal, &e) < 0) {
		tui_message(w, 1, "timer not stopped: %s", mt_error_last());
		return TUI_REDRAW | TUI_RELOAD;
	}
	mt_duration_fmt(took, sizeof(took), e.stopped_ms - e.started_ms);
	tui_message(w, 0, "Timer stopped: %s, %s, %s", e.category, e.track ? e.track : "no track",
		    took);
	mt_effort_dispose(&e);
	return TUI_REDRAW | TUI_RELOAD;
}

/* The directory that holds the trial directory: the repository `mtrial
 * init` was run in. Caller frees. */
static char *trial_parent(const struct tui_wizard *w)
{
	char *dir = mt_strdup(w->trial->dir), *slash = strrchr(dir, '/');

	if (slash && slash != dir)
		*slash = '\0';
	return dir;
}

void record_scan_defaults(struct tui_wizard *w, char **repo, char **rev)
{
	const mt_spec *spec = w->trial->spec;
	const char *r = spec ? mt_spec_get(spec, "workload.repository") : NULL;
	const char *v = spec ? mt_spec_get(spec, "workload.revision") : NULL;

	/* a relative path is read against the trial directory (mtrial init
	 * writes ".."); a URL is passed on for the scan to refuse in its words */
	*repo = mt_trial_repository(w->trial);
	if (!*repo)
		*repo = r && *r ? mt_strdup(r) : trial_parent(w);
	*rev = mt_strdup(v && *v ? v : "HEAD");
}

struct scan_progress {
	struct tui_wizard *w;
	const char *repo, *rev;
	int64_t last_ms;
	size_t total;
};

/* Redraws at most 20 times a second, and always at the end. */
static void on_scan_progress(size_t done, size_t total, const char *path, void *payload)
{
	struct scan_progress *p = payload;
	int64_t now = mt_mono_ms();

	p->total = total;
	if (done != total && now - p->last_ms < 50)
		return;
	p->last_ms = now;
	frame_progress(p->w, p->repo, p->rev, done, total, path);
}

/* Before the result is written down, which takes a moment on a large repository. */
static void on_scan_recording(void *payload)
{
	struct scan_progress *p = payload;

	if (p->total)
		frame_progress(p->w, p->repo, p->rev, p->total, p->total, "(recording the result)");
}

/* Says what the scan found and what the record made of it: a rescan of an
 * unchanged revision is not stored twice, and the message says which scan
 * it matches. */
static void scan_message(struct tui_wizard *w, const mt_scan_trial_result *r)
{
	if (r->not_recorded)
		tui_message(w, 1, "scan not recorded: %s", r->not_recorded);
	else if (r->unchanged)
		tui_message(w, 0, "Unchanged since scan #%lld: nothing new recorded",
			    (long long)r->scan_id);
	else if (r->npaths_missing)
		tui_message(w, 1, "Scan #%lld recorded; trial.yaml scan.paths '%s': nothing there",
			    (long long)r->scan_id, r->paths_missing[0]);
	else
		tui_message(w, 0, "Scan #%lld recorded: %zu files, %zu torch calls, %zu findings",
			    (long long)r->scan_id, r->files_scanned, r->calls, r->findings);
}

int record_scan(struct tui_wizard *w, const char *repo, const char *rev)
{
	struct scan_progress p = {w, repo, rev && *rev ? rev : "HEAD", 0, 0};
	mt_scan_trial_options o = {.scan = {.repo = repo, .use_cache = 1,
					    .progress = on_scan_progress, .payload = &p},
				   .recording = on_scan_recording};
	mt_scan_trial_result r;

	if (rev && *rev && strcmp(rev, "HEAD") != 0)
		o.scan.rev = rev; /* NULL for HEAD: "no commits yet" rather than "unknown HEAD" */
	frame_progress(w, repo, p.rev, 0, 0, NULL);
	/* trial.yaml's scan.paths, as `mtrial scan` and the probe use it */
	if (mt_scan_trial_run(&r, w->trial, &o, NULL) < 0) {
		tui_message(w, 1, "scan failed: %s", mt_error_last());
		return TUI_REDRAW;
	}
	scan_message(w, &r);
	mt_scan_trial_result_dispose(&r);
	return TUI_REDRAW | TUI_RELOAD;
}

/* --- probes ---------------------------------------------------------------- */

static void tables_dispose(struct tui_wizard *w)
{
	for (int i = 0; i <= TUI_MENU_MAX; i++) {
		free(w->tables[i]);
		free(w->table_items[i]);
		w->tables[i] = w->table_items[i] = NULL;
	}
}

/* Adds table `name` (owned) to the menu unless it is listed already or the
 * menu is full; its item shows the date the table was retrieved. */
static void add_table(struct tui_wizard *w, char *name, int *n)
{
	mt_compat_table *t = NULL;
	mt_buf item = MT_BUF_INIT;

	for (int i = 0; i < *n; i++)
		if (strcmp(w->tables[i], name) == 0)
			return free(name);
	if (*n >= TUI_MENU_MAX)
		return free(name);
	if (mt_compat_load(&t, name) < 0) {
		mt_buf_printf(&item, "%s (does not load)", name);
		mt_error_clear();
	} else {
		mt_buf_printf(&item, "%s  %s", name, mt_compat_retrieved(t));
	}
	mt_compat_free(t);
	w->table_items[*n] = mt_buf_detach(&item);
	w->tables[(*n)++] = name;
}

/* As `mtrial tables list` lists them: the user's first, since mt_compat_load
 * prefers an imported table to a bundled one of the same name. */
int record_tables(struct tui_wizard *w)
{
	const char *want = w->trial->spec ? mt_spec_get(w->trial->spec, "probe.table") : NULL;
	char **names = mt_compat_names(NULL);
	int n = 0;

	tables_dispose(w);
	want = want && *want ? want : MT_PROBE_DEFAULT_TABLE;
	for (size_t i = 0; names[i]; i++)
		add_table(w, mt_strdup(names[i]), &n);
	mt_compat_names_free(names);
	for (int i = 0; i < n; i++)
		if (strcmp(w->tables[i], want) == 0)
			return i;
	if (n == TUI_MENU_MAX) { /* trial.yaml's table (perhaps a path) takes the last place */
		n--;
		free(w->tables[n]);
		free(w->table_items[n]);
		w->tables[n] = w->table_items[n] = NULL;
	}
	add_table(w, mt_strdup(want), &n);
	return n - 1;
}

static void probe_message(struct tui_wizard *w, json_t *res, int64_t id)
{
	mt_buf counts = MT_BUF_INIT;
	mt_probe_view v;
	const char *from;
	char source[32] = "";

	(void)mt_probe_view_read(&v, res);
	mt_error_clear(); /* what is there is said */
	from = v.from_source;
	for (size_t i = 0; mt_compat_status_order[i]; i++) {
		int64_t n = mt_probe_counts_of(&v.op_counts, mt_compat_status_order[i]);
		if (n)
			mt_buf_printf(&counts, "%s %lld %s", counts.len ? "," : ":", (long long)n,
				      mt_compat_status_order[i]);
	}
	if (from && strcmp(from, "scan") != 0) /* the scan goes without saying */
		snprintf(source, sizeof(source), " (%s)", from);
	tui_message(w, 0, "Probe #%lld recorded%s: %s, %lld ops%s", (long long)id, source,
		    v.table_name, (long long)v.op_counts.entries,
		    counts.len ? mt_buf_cstr(&counts) : "");
	mt_buf_dispose(&counts);
	mt_probe_view_dispose(&v);
}

const char *const record_source_names[TUI_NSOURCES + 1] = {"scan", "torchscript", "trace",
								NULL};

/* How to record each source, for people who have not yet: short enough
 * for the menu at 80 columns; choosing one says more (probe_run). */
static const char *const how_to_record[TUI_NSOURCES] = {
	"press s to scan the repository",
	"mtrial ops show FILE.pt",
	"mtrial ops show ops.json",
};
static const char *const how_more[TUI_NSOURCES] = {
	"", " (a TorchScript archive: torch.jit.script(model).save)",
	" (made by the tracer that mtrial ops tracer writes)",
};

const char *record_shown_source(const struct tui_wizard *w)
{
	const char *from = w->probe_from;

	for (int i = 0; from && i < TUI_NSOURCES; i++)
		if (strcmp(from, record_source_names[i]) == 0)
			return record_source_names[i];
	return record_source_names[0];
}

static int source_index(const char *source)
{
	for (int i = 0; i < TUI_NSOURCES; i++)
		if (strcmp(source, record_source_names[i]) == 0)
			return i;
	return 0;
}

/* The latest inventory of a source, a scan with "source" so that the
 * differences name it. Read from the journal rather than through
 * mt_inventory_resolve, which takes a file called "trace" or "scan" in the
 * working directory (the repository the wizard runs in) for the name. */
static int latest_inventory(struct tui_wizard *w, const char *source, json_t **out,
			    int64_t *scan_id)
{
	int error;

	*scan_id = 0;
	if (strcmp(source, "scan") != 0)
		return mt_journal_inventory_latest(w->trial->journal, source, out, NULL);
	error = mt_journal_scan_latest(w->trial->journal, 1, out, scan_id, NULL);
	if (error == 0)
		json_object_set_new(*out, "source", json_string("scan"));
	return error;
}

/* What `mtrial probe --from SOURCE` does with a trial, on the latest
 * inventory of `source`; *id_out is the recorded probe's. The error is left
 * set for the caller's words. */
static int probe_run(struct tui_wizard *w, const char *source, const char *table_name,
		     json_t **out, int64_t *id_out)
{
	json_t *inv = NULL;
	int64_t scan_id = 0;
	int error;

	*out = NULL;
	error = latest_inventory(w, source, &inv, &scan_id);
	if (error == MT_ENOTFOUND) { /* the library's words name no key to press */
		mt_error_clear();
		error = strcmp(source, "scan") == 0
				? mt_error_set(MT_ENOTFOUND, "nothing scanned yet: press s to scan first")
				: mt_error_set(MT_ENOTFOUND, "No %s recorded: %s%s", source,
					       how_to_record[source_index(source)],
					       how_more[source_index(source)]);
	}
	if (error == 0)
		error = mt_probe_trial(out, id_out, w->trial, table_name, NULL, inv, scan_id);
	json_decref(inv);
	return error;
}

/* Probes, records and says so; NULL table: trial.yaml's or the default. */
static int probe_and_say(struct tui_wizard *w, const char *source, const char *table)
{
	json_t *res = NULL;
	int64_t id = 0;
	int error = probe_run(w, source, table, &res, &id);

	if (error == MT_ENOTFOUND && strcmp(source, "scan") != 0) { /* not a failure */
		tui_message(w, 0, "%s", mt_error_last());
		mt_error_clear();
		return TUI_REDRAW;
	}
	if (error < 0) {
		tui_message(w, 1, "probe not run: %s", mt_error_last());
		return TUI_REDRAW | TUI_RELOAD;
	}
	probe_message(w, res, id);
	json_decref(res);
	return TUI_REDRAW | TUI_RELOAD;
}

int record_probe(struct tui_wizard *w, const char *table)
{
	return probe_and_say(w, record_shown_source(w), table);
}

int record_probe_source(struct tui_wizard *w, const char *source)
{
	return probe_and_say(w, source, w->probe_table);
}

static void sources_dispose(struct tui_wizard *w)
{
	for (int i = 0; i <= TUI_NSOURCES; i++) {
		free(w->source_items[i]);
		w->source_items[i] = NULL;
	}
}

/* "/tmp/ops.json (3 steps)": an inventory's file and a trace's steps. */
static void inventory_item(mt_buf *b, const json_t *inv)
{
	mt_opinventory_view v;

	(void)mt_opinventory_view_read(&v, inv);
	mt_error_clear(); /* an older record's absent keys read as none */
	mt_buf_puts(b, v.file ?: "?");
	if (v.has_trace_steps)
		mt_buf_printf(b, " (%lld steps)", (long long)v.trace.steps);
	mt_opinventory_view_dispose(&v);
}

/* "trace        /tmp/ops.json (3 steps)", or how to record one. */
static char *source_item(struct tui_wizard *w, int i)
{
	const char *name = record_source_names[i];
	json_t *inv = NULL;
	mt_buf b = MT_BUF_INIT;
	int64_t scan_id;
	int error = 0;

	mt_buf_printf(&b, "%-11s  ", name);
	if (i == 0) /* the scan the wizard holds: no need to read it again */
		error = w->scan ? 0 : MT_ENOTFOUND;
	else
		error = latest_inventory(w, name, &inv, &scan_id);
	if (error == MT_ENOTFOUND)
		mt_buf_printf(&b, "not recorded: %s", how_to_record[i]);
	else if (error < 0)
		mt_buf_printf(&b, "cannot be read: %s", mt_error_last());
	else if (i == 0)
		mt_buf_printf(&b, "%.7s (latest scan)", w->scan_view.rev ?: "?");
	else
		inventory_item(&b, inv);
	if (error < 0)
		mt_error_clear();
	json_decref(inv);
	return mt_buf_detach(&b);
}

int record_sources(struct tui_wizard *w)
{
	sources_dispose(w);
	for (int i = 0; i < TUI_NSOURCES; i++)
		w->source_items[i] = source_item(w, i);
	return source_index(record_shown_source(w));
}

/* The inventory the shown source is compared with: the scan, or for the
 * scan the latest trace, else the latest archive. *other NULL with no error:
 * the record has none. */
static int other_inventory(struct tui_wizard *w, const char *shown, json_t **other)
{
	int64_t scan_id;
	int error = MT_ENOTFOUND;

	if (strcmp(shown, "scan") != 0)
		return latest_inventory(w, "scan", other, &scan_id);
	for (int i = TUI_NSOURCES - 1; i > 0 && error == MT_ENOTFOUND; i--) {
		mt_error_clear();
		error = latest_inventory(w, record_source_names[i], other, &scan_id);
	}
	return error;
}

/* An inventory's trace's optimizer steps, -1 when it does not say. */
static int64_t inventory_steps(const json_t *inv)
{
	mt_opinventory_view v;
	int64_t steps;

	if (!inv)
		return -1;
	(void)mt_opinventory_view_read(&v, inv);
	mt_error_clear(); /* an older record's absent keys read as none */
	steps = v.has_trace_steps ? v.trace.steps : -1;
	mt_opinventory_view_dispose(&v);
	return steps;
}

/* What to record before there is anything to compare. Caller frees. */
static char *nothing_to_compare(const char *shown, int have_shown)
{
	mt_buf b = MT_BUF_INIT;

	if (strcmp(shown, "scan") != 0)
		mt_buf_printf(&b, "Nothing to compare the %s with: nothing scanned yet. Press `s` "
			      "to scan the repository.", shown);
	else
		mt_buf_printf(&b, "Nothing to compare the scan with: %sno trace or TorchScript "
			      "archive is recorded. Record a dispatch trace of a training run "
			      "with `mtrial ops tracer -o optrace.py`, `python3 optrace.py -o "
			      "ops.json -- train.py`, then `mtrial ops show ops.json`; or a "
			      "TorchScript archive with `mtrial ops show model.pt`.",
			      have_shown ? "" : "nothing scanned yet (press `s`) and ");
	return mt_buf_detach(&b);
}

void record_diff(struct tui_wizard *w, json_t **diff, int64_t steps[2], char **why)
{
	const char *shown = record_shown_source(w);
	json_t *inv = NULL, *other = NULL;
	int64_t scan_id;
	int error;

	*diff = NULL;
	*why = NULL;
	steps[0] = steps[1] = -1;
	if ((error = latest_inventory(w, shown, &inv, &scan_id)) == 0)
		error = other_inventory(w, shown, &other);
	if (error == MT_ENOTFOUND) {
		mt_error_clear();
		*why = nothing_to_compare(shown, inv != NULL);
	} else if (error == 0 && strcmp(shown, "scan") != 0) {
		error = mt_opinventory_diff(diff, other, inv); /* the scan on side a, as the CLI's */
	} else if (error == 0) {
		error = mt_opinventory_diff(diff, inv, other);
	}
	if (error < 0 && error != MT_ENOTFOUND)
		tui_message(w, 1, "cannot compare the ops: %s", mt_error_last());
	if (*diff) {
		steps[0] = inventory_steps(strcmp(shown, "scan") != 0 ? other : inv);
		steps[1] = inventory_steps(strcmp(shown, "scan") != 0 ? inv : other);
	}
	json_decref(inv);
	json_decref(other);
}

int record_finding(struct tui_wizard *w, const char *op, const char *status, const char *note)
{
	const char *table = w->probe_table;
	mt_override_trial_result o;
	json_t *res = NULL;
	int64_t probe_id = 0;

	if (!note || !*note) {
		tui_message(w, 0, "A finding needs a note (who, where, which version): nothing "
			    "recorded");
		return TUI_REDRAW;
	}
	if (mt_override_trial_add(&o, w->trial, op, status, note) < 0) {
		tui_message(w, 1, "finding not recorded: %s", mt_error_last());
		return TUI_REDRAW;
	}
	if (probe_run(w, record_shown_source(w), table, &res, &probe_id) < 0)
		tui_message(w, 1, "finding #%lld recorded, but the probe did not run again: %s",
			    (long long)o.id, mt_error_last());
	else if (o.warning) /* first: the message line is cut at the terminal's width */
		tui_message(w, 1, "warning: %s: finding #%lld recorded all the same, probe #%lld",
			    o.warning, (long long)o.id, (long long)probe_id);
	else
		tui_message(w, 0, "Finding #%lld recorded: %s is %s; probe #%lld shows it",
			    (long long)o.id, op, status, (long long)probe_id);
	json_decref(res);
	mt_override_trial_result_dispose(&o);
	return TUI_REDRAW | TUI_RELOAD;
}

int record_withdraw_run(struct tui_wizard *w, int64_t id, const char *why)
{
	char *who = NULL;

	if (mt_withdraw_trial(w->trial, "run", id, why, NULL, &who) < 0) {
		tui_message(w, 1, "run #%lld not withdrawn: %s", (long long)id, mt_error_last());
		mt_error_clear();
		return TUI_REDRAW;
	}
	tui_message(w, 0, "Withdrew run #%lld as %s: kept in the journal, left out of every "
		    "figure (mtrial rm --list)", (long long)id, who);
	free(who);
	return TUI_REDRAW | TUI_RELOAD;
}

int record_import_table(struct tui_wizard *w, const char *file_or_url)
{
	mt_compat_import_options o = {0};
	mt_compat_import_result r;
	size_t n, device;

	if (!*file_or_url) {
		tui_message(w, 0, "Nothing imported: no file or URL given");
		return TUI_REDRAW;
	}
	if (mt_compat_import(&r, file_or_url, &o) < 0) {
		tui_message(w, 1, "Not imported: %s", mt_error_last());
		mt_error_clear();
		return TUI_REDRAW;
	}
	n = r.napis ? r.napis : r.nops;
	device = r.napis ? r.api_counts[MT_COMPAT_DEVICE] : r.counts[MT_COMPAT_DEVICE];
	tui_message(w, 0, "Table %s %s: %zu %s (%zu on device)%s; p probes with it, and trial.yaml "
		    "probe.table: %s makes it the trial's", r.name, r.outcome, n,
		    r.napis ? "APIs" : "ops", device, r.shadows_bundled ? ", shadowing the bundled one" : "",
		    r.name);
	mt_compat_import_result_dispose(&r);
	return TUI_REDRAW;
}

/* --- correctness checks ---------------------------------------------------- */

/* Says what became of a check: "Check #4 recorded: compare, FAIL", or the
 * error: `not_run` when the check did not run, else `noun` not recorded. */
static int check_message(struct tui_wizard *w, int error, const mt_check_trial_result *r,
			 const char *kind, const char *not_run, const char *noun)
{
	if (error < 0 && !r->result) {
		tui_message(w, 1, "%s: %s", not_run, mt_error_last());
		return TUI_REDRAW;
	}
	if (error < 0) {
		tui_message(w, 1, "%s not recorded: %s", noun, mt_error_last());
		return TUI_REDRAW;
	}
	tui_message(w, 0, "Check #%lld recorded: %s, %s", (long long)r->check_id, kind,
		    r->passed ? "pass" : "FAIL");
	return TUI_REDRAW | TUI_RELOAD;
}

struct cmp_progress {
	struct tui_wizard *w;
	const char *ref, *cand;
	int64_t last_ms;
};

/* Redraws at most 20 times a second, and always at the end. */
static void on_cmp_progress(uint64_t done, uint64_t total, void *payload)
{
	struct cmp_progress *p = payload;
	int64_t now = mt_mono_ms();

	if (done != total && now - p->last_ms < 50)
		return;
	p->last_ms = now;
	frame_check_progress(p->w, p->ref, p->cand, done, total);
}

int record_compare(struct tui_wizard *w, const char *ref, const char *cand, double rtol,
		   double atol, int64_t *id)
{
	struct cmp_progress p = {w, ref, cand, 0};
	/* the rules `mtrial check compare --rtol R --atol A` would use here */
	mt_check_trial_compare_options o = {.rtol = rtol, .atol = atol,
					    .typed_source = "typed in the wizard",
					    .cmp = {.progress = on_cmp_progress, .payload = &p}};
	mt_check_trial_result r;
	int error, result;

	frame_check_progress(w, ref, cand, 0, 0);
	error = mt_check_trial_compare(&r, w->trial, ref, cand, NULL, &o);
	result = check_message(w, error, &r, "compare", "comparison not run", "comparison");
	*id = error < 0 ? 0 : r.check_id;
	mt_check_trial_result_dispose(&r);
	return result;
}

int record_curves(struct tui_wizard *w, const char *ref, const char *cand, int64_t *id)
{
	mt_check_trial_curves_options o;
	mt_check_trial_curves_result r;
	int error, result;

	mt_check_trial_curves_defaults(&o); /* as the CLI */
	/* a file, or a run of this trial (run:N) */
	error = mt_check_trial_curves(&r, w->trial, ref, cand, &o);
	result = check_message(w, error, &r.check, "curves", "curves not compared",
			       "curve comparison");
	*id = error < 0 ? 0 : r.check.check_id;
	mt_check_trial_curves_dispose(&r);
	return result;
}

void record_dispose(struct tui_wizard *w)
{
	mt_report_parts_free(w->parts);
	w->parts = NULL;
	json_decref(w->runs.attempts);
	json_decref(w->runs.systems);
	memset(&w->runs, 0, sizeof(w->runs));
	json_decref(w->checks);
	w->checks = NULL;
	tables_dispose(w);
	sources_dispose(w);
	json_decref(w->scan);
	mt_scan_view_dispose(&w->scan_view);
	json_decref(w->probe);
	w->scan = w->probe = NULL;
	w->probe_table = w->probe_from = NULL;
	w->probe_steps = -1;
}
