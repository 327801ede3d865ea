/* The wizard's only contact with the trial: it builds the report model,
 * reads the timer, and writes notes and timers through the journal. Every
 * failure ends up in the message line with the library's own words. */
#include "wizard.h"
#include "model.h"
#include "error.h"
#include "jview.h"
#include "scan.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tui_message(struct tui_wizard *w, int is_error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->message, sizeof(w->message), fmt, ap);
	va_end(ap);
	w->message_error = is_error;
}

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
	int64_t want = jv_int(w->model, "scan.id", 0), id = 0;
	json_t *scan = NULL;

	if (want == w->scan_id)
		return;
	if (want && mt_journal_scan_latest(w->trial->journal, 1, &scan, &id, NULL) < 0) {
		tui_message(w, 1, "cannot read the scan: %s", mt_error_last());
		return;
	}
	json_decref(w->scan);
	w->scan = scan;
	w->scan_id = id;
}

void record_reload(struct tui_wizard *w)
{
	json_t *model;
	size_t n, extra;

	reread_spec(w);
	model = mt_report_model(w->trial, mt_now_ms());
	w->model_mono = mt_mono_ms();
	read_timer(w);
	if (!model) {
		tui_message(w, 1, "cannot read the record: %s", mt_error_last());
		return;
	}
	n = json_array_size(json_object_get(model, "notes"));
	if (w->model && n > w->note_count + w->own_notes) {
		extra = n - w->note_count - w->own_notes;
		tui_message(w, 0, "%zu new note%s from another terminal", extra,
			    extra == 1 ? "" : "s");
	}
	w->note_count = n;
	w->own_notes = 0;
	json_decref(w->model);
	w->model = model;
	read_scan(w);
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
	char *parent = trial_parent(w);

	if (!r || !*r)
		*repo = mt_strdup(parent);
	else if (*r == '/' || strstr(r, "://") || (strchr(r, '@') && strchr(r, ':')))
		*repo = mt_strdup(r); /* a URL is passed on for the scan to refuse in its words */
	else
		*repo = mt_path_join(parent, r);
	*rev = mt_strdup(v && *v ? v : "HEAD");
	free(parent);
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

/* Records a scan as `mtrial scan` does; a rescan of an unchanged revision
 * is not stored twice and the message says which scan it matches. */
static int record_result(struct tui_wizard *w, const mt_scan_result *r)
{
	mt_journal_scan rec = {r->repo, r->commit, r->tree, r->worktree, r->summary, NULL};
	json_t *summary = mt_scan_result_summary(r), *t = json_object_get(summary, "totals");
	int64_t id = 0;
	int unchanged = 0, error;

	rec.result = mt_scan_result_json(r, NULL);
	error = mt_journal_scan_add(w->trial->journal, &rec, &id, &unchanged);
	free((char *)rec.result);
	if (error < 0)
		tui_message(w, 1, "scan not recorded: %s", mt_error_last());
	else if (unchanged)
		tui_message(w, 0, "Unchanged since scan #%lld: nothing new recorded", (long long)id);
	else
		tui_message(w, 0, "Scan #%lld recorded: %lld files, %lld torch calls, %lld findings",
			    (long long)id, (long long)jv_int(summary, "files_scanned", 0),
			    (long long)jv_int(t, "calls", 0), (long long)jv_int(t, "findings", 0));
	json_decref(summary);
	return error;
}

int record_scan(struct tui_wizard *w, const char *repo, const char *rev)
{
	struct scan_progress p = {w, repo, rev && *rev ? rev : "HEAD", 0, 0};
	mt_scan_options o = {.repo = repo, .use_cache = 1, .progress = on_scan_progress,
			     .payload = &p};
	mt_scan_result r;

	if (rev && *rev && strcmp(rev, "HEAD") != 0)
		o.rev = rev; /* NULL for HEAD: "no commits yet" rather than "unknown HEAD" */
	frame_progress(w, repo, p.rev, 0, 0, NULL);
	if (mt_scan_run(&r, &o) < 0) {
		tui_message(w, 1, "scan failed: %s", mt_error_last());
		return TUI_REDRAW;
	}
	if (p.total) /* writing the result down takes a moment on a large repository */
		frame_progress(w, repo, p.rev, p.total, p.total, "(recording the result)");
	record_result(w, &r);
	mt_scan_result_dispose(&r);
	return TUI_REDRAW | TUI_RELOAD;
}
