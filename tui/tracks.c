/* The Tracks & effort step. Its overview scrolls as one page: the tracks
 * of trial.yaml, what each changed (files and lines, platform-specific
 * lines, model code and harness, lines by mark), the effort of each against
 * the budget, the timer, the friction notes (new ones marked) and the
 * intervals. Enter (or m) gives the changed files the pane: every file of
 * both tracks under its track, the selected file's platform-specific lines
 * below with its mark, and its track's effort, budget, timer and notes; m
 * marks the file reusable, then model-specific, then not at all. That view
 * is laid out to the pane's height so the list scrolls itself.
 *
 * The changes come from mt_tracks_json (the same JSON as `mtrial tracks
 * --json`), read from the trial here rather than with the report model
 * because each read diffs both tracks: only while this step shows, at most
 * every READ_EVERY_MS, and at once after a mark. */
#include "screen.h"
#include "rows.h"
#include "model_path.h"
#include "tracks.h"
#include "notelist.h"
#include "journal_page.h"
#include "wizard.h"
#include "journal.h"
#include "error.h"
#include "util.h"
#include "jsonutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_COL TUI_LABEL_COL
#define VALUE_COL TUI_VALUE_COL
#define READ_EVERY_MS 2000
#define KIND_W 7
#define NUM_W 4
#define MARK_W 8
#define FIXED_ROWS 5 /* the selected file: rule, mark, effort, timer, notes */

struct tracks_state {
	/* the overview's notes: newer than seen_id are new */
	int started;
	int64_t seen_id, max_id;
	struct tui_notelist notes;
	int notes_end; /* the page's line after the last note read */
	/* the files view's notes of the selected file's track */
	struct track_notes {
		char *track, *newest;
		size_t count;
		unsigned reload;
	} track_notes;
	/* the changes */
	mt_tracks_rules *rules;
	json_t *tracks;  /* mt_tracks_json; NULL before the first read */
	mt_track_view *tv; /* the tracks read, borrowing from `tracks`, ntv */
	size_t ntv;
	int64_t read_ms; /* when it was read (ctx->now_ms), 0 never */
	char error[256]; /* why the last read failed, "" when it did not */
	/* the files view */
	int files;
	int cursor, top, list_rows;
	char follow[512]; /* "track\tpath" of the selected file, across reads */
	char said[256];   /* what the last mark did */
};

/* --- the rows of the files view --------------------------------------------- */

/* A row: a track's heading (file NULL, or a line saying why it has none)
 * or one of its files. */
struct row {
	const mt_track_view *track;
	const mt_track_file *file;
};

/* The rows into out (NULL: only counted). */
static int rows_of(const struct tracks_state *st, struct row *out)
{
	size_t i, k;
	int n = 0;

	for (i = 0; i < st->ntv; i++) {
		const mt_track_view *tr = &st->tv[i];
		if (out)
			out[n] = (struct row){tr, NULL};
		n++;
		if (!tr->nfiles) { /* a line saying why */
			if (out)
				out[n] = (struct row){tr, NULL};
			n++;
		}
		for (k = 0; k < tr->nfiles; k++) {
			if (out)
				out[n] = (struct row){tr, &tr->files[k]};
			n++;
		}
	}
	return n;
}

/* All rows, malloc'd (caller frees), their count in *n. */
static struct row *all_rows(const struct tracks_state *st, int *n)
{
	struct row *rows;

	*n = rows_of(st, NULL);
	rows = calloc((size_t)*n + 1, sizeof(*rows));
	if (rows)
		rows_of(st, rows);
	else
		*n = 0;
	return rows;
}

static void follow_row(struct tracks_state *st, const struct row *r)
{
	snprintf(st->follow, sizeof(st->follow), "%s\t%s", r->track->name,
		 r->file ? r->file->path : "");
}

/* The cursor on the followed file, else on the first file near it. */
static void refind(struct tracks_state *st)
{
	int n, first = -1;
	struct row *rows = all_rows(st, &n);
	char key[512];

	st->cursor = -1;
	for (int i = 0; i < n; i++) {
		if (!rows[i].file)
			continue;
		if (first < 0)
			first = i;
		snprintf(key, sizeof(key), "%s\t%s", rows[i].track->name, rows[i].file->path);
		if (strcmp(key, st->follow) == 0)
			st->cursor = i;
	}
	if (st->cursor < 0)
		st->cursor = first;
	if (st->cursor >= 0)
		follow_row(st, &rows[st->cursor]);
	free(rows);
}

/* --- reading ---------------------------------------------------------------- */

static void read_tracks(struct tracks_state *st, const struct tui_ctx *ctx)
{
	json_t *tracks = NULL;

	st->read_ms = ctx->now_ms;
	if (!ctx->trial) {
		snprintf(st->error, sizeof(st->error), "no trial open");
		return;
	}
	if ((!st->rules && mt_tracks_rules_load(&st->rules) < 0) ||
	    mt_tracks_json(&tracks, ctx->trial, st->rules, ctx->now_ms) < 0) {
		snprintf(st->error, sizeof(st->error), "%s", mt_error_last());
		mt_error_clear();
		return; /* the last tracks read stay */
	}
	st->error[0] = 0;
	mt_tracks_view_free(st->tv, st->ntv);
	json_decref(st->tracks);
	st->tracks = tracks;
	if (mt_tracks_view_read(&st->tv, &st->ntv, tracks) < 0)
		mt_error_clear(); /* the step shows what there is */
	refind(st);
}

static void read_if_stale(struct tracks_state *st, const struct tui_ctx *ctx)
{
	if (!st->read_ms || ctx->now_ms - st->read_ms >= READ_EVERY_MS ||
	    ctx->now_ms < st->read_ms)
		read_tracks(st, ctx);
}

/* --- effort as people read it ---------------------------------------------- */

/* A track's effort up to now: as read, plus the time since when the timer
 * runs on this track. */
static int64_t effort_ms(const struct tracks_state *st, const mt_track_view *tr,
			 const struct tui_ctx *ctx)
{
	int64_t ms = tr->effort_ms;
	const char *name = tr->name;

	if (ctx->timer->running && name && strcmp(ctx->timer->track, name) == 0 &&
	    ctx->now_ms > st->read_ms)
		ms += ctx->now_ms - st->read_ms;
	return ms;
}

/* "2h 05m of a 10 h budget (21%)" or "2h 05m, no budget" into b. */
static void effort_text(mt_buf *b, const struct tracks_state *st, const mt_track_view *tr,
			const struct tui_ctx *ctx)
{
	double budget = tr->budget_hours; /* NAN: none */
	int64_t ms = effort_ms(st, tr, ctx);
	char dur[32];

	mt_duration_fmt(dur, sizeof(dur), ms);
	mt_buf_puts(b, dur);
	if (budget > 0)
		mt_buf_printf(b, " of a %g h budget (%.0f%%)", budget,
			      100.0 * (double)ms / 3600000.0 / budget);
	else
		mt_buf_puts(b, ", no budget in trial.yaml");
}

/* --- the overview ------------------------------------------------------------ */

static void tracks_section(struct tui_page *p, const struct tui_ctx *ctx)
{
	char b1[128], b2[64], b3[64], b4[32];

	tui_heading(p, "Tracks (trial.yaml)");
	for (size_t i = 0; mt_tracks[i]; i++) {
		const char *track = mt_tracks[i];
		const char *desc =
			jv_str_key(ctx->model, "spec.tracks.*.description", track, b1, sizeof(b1));
		const char *base =
			jv_str_key(ctx->model, "spec.tracks.*.base", track, b2, sizeof(b2));
		const char *head =
			jv_str_key(ctx->model, "spec.tracks.*.head", track, b3, sizeof(b3));
		const char *budget =
			jv_str_key(ctx->model, "spec.tracks.*.budget_hours", track, b4, sizeof(b4));
		page_line(p);
		page_add_at(p, LABEL_COL, STYLE_DIM, mt_tracks[i]);
		page_add_at(p, VALUE_COL, desc ? STYLE_NORMAL : STYLE_DIM, "");
		page_wrap(p, VALUE_COL, desc ? STYLE_NORMAL : STYLE_DIM,
			  desc ? desc : "(no description yet)");
		if (!base && !head && !budget)
			continue;
		page_line(p);
		page_add_at(p, VALUE_COL, STYLE_DIM, "");
		if (base || head)
			page_addf(p, STYLE_DIM, "%s..%s  ", base ? base : "?", head ? head : "?");
		if (budget)
			page_addf(p, STYLE_DIM, "budget %s h", budget);
	}
}

/* What a track changed, in two lines, or why it is not known. */
static void changes_lines(struct tui_page *p, const mt_track_view *tr)
{
	mt_buf b = MT_BUF_INIT;

	page_line(p);
	page_add_at(p, LABEL_COL, STYLE_DIM, tr->name);
	page_add_at(p, VALUE_COL, STYLE_NORMAL, "");
	if (!tr->has_changes) {
		mt_buf_printf(&b, "not known: %s",
			      tr->error ?: "set tracks.NAME.base and .head in trial.yaml");
		page_wrap(p, VALUE_COL, STYLE_WARN, mt_buf_cstr(&b));
		mt_buf_dispose(&b);
		return;
	}
	mt_buf_printf(&b, "%lld files, +%lld -%lld, %lld platform lines",
		      (long long)tr->totals.files, (long long)tr->totals.added,
		      (long long)tr->totals.deleted, (long long)tr->totals.platform);
	page_wrap(p, VALUE_COL, STYLE_NORMAL, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	mt_buf_printf(&b, "model %lld, harness %lld, other %lld", (long long)tr->totals.model,
		      (long long)tr->totals.harness, (long long)tr->totals.other);
	page_line(p);
	page_add_at(p, VALUE_COL, STYLE_DIM, "");
	page_wrap(p, VALUE_COL, STYLE_DIM, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	mt_buf_printf(&b, "marked reusable %lld, model-specific %lld",
		      (long long)tr->totals.reusable, (long long)tr->totals.model_specific);
	page_line(p);
	page_add_at(p, VALUE_COL, STYLE_DIM, "");
	page_wrap(p, VALUE_COL, STYLE_DIM, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

static void changes_section(struct tui_page *p, const struct tracks_state *st)
{
	size_t i;

	tui_heading(p, "Code changes");
	page_add(p, STYLE_DIM, "  Enter lists the files");
	if (!st->tracks) {
		page_para(p, LABEL_COL, STYLE_WARN, *st->error ? st->error : "not read yet");
		return;
	}
	for (i = 0; i < st->ntv; i++)
		changes_lines(p, &st->tv[i]);
}

static void timer_line(struct tui_page *p, const struct tui_timer *t, int64_t now_ms)
{
	char clock[32];

	page_line(p);
	if (!t->running) {
		page_add_at(p, LABEL_COL, STYLE_DIM, "timer");
		page_add_at(p, VALUE_COL, STYLE_DIM, "off (t starts it)");
		return;
	}
	tui_elapsed_fmt(clock, sizeof(clock), now_ms - t->started_ms);
	page_add_at(p, LABEL_COL, STYLE_OK, "timer on");
	page_add_at(p, VALUE_COL, STYLE_OK, clock);
	page_addf(p, STYLE_NORMAL, " %s, %s", t->category, *t->track ? t->track : "no track");
	page_add(p, STYLE_DIM, " (t stops it)");
}

static void effort_section(struct tui_page *p, const struct tui_ctx *ctx,
			   const struct tracks_state *st)
{
	json_t *model = ctx->model;
	size_t i, k, ntracks = json_array_size(jv_get(model, "effort.tracks")), ncats;
	mt_buf b = MT_BUF_INIT;
	char buf[32];

	tui_heading(p, "Effort");
	tui_field(p, "total", jv_str(model, "effort.total", buf, sizeof(buf)));
	for (i = 0; i < ntracks; i++) {
		tui_field(p, jv_string_at(model, "effort.tracks.*.track", i),
			  jv_string_at(model, "effort.tracks.*.duration", i));
		ncats = json_array_size(jv_get_at(model, "effort.tracks.*.categories", i));
		for (k = 0; k < ncats; k++) {
			page_add(p, STYLE_DIM, k ? ", " : "  ");
			page_addf(p, STYLE_DIM, "%s %s",
				  jv_string_at2(model, "effort.tracks.*.categories.*.category", i, k),
				  jv_string_at2(model, "effort.tracks.*.categories.*.duration", i, k));
		}
	}
	for (i = 0; i < st->ntv; i++) {
		double hours = st->tv[i].budget_hours;
		if (!(hours > 0)) /* none (NAN), or none worth a share */
			continue;
		mt_buf_printf(&b, "%.0f%% of %g h (%s)",
			      100.0 * (double)effort_ms(st, &st->tv[i], ctx) / 3600000.0 / hours,
			      hours, st->tv[i].name);
		tui_field(p, "budget", mt_buf_cstr(&b));
		mt_buf_dispose(&b);
	}
	timer_line(p, ctx->timer, ctx->now_ms);
}

/* "by NAME" (who recorded a note or interval, from whichever machine: drawn
 * through the terminal's sanitising, draw.c) after the line, or on a line
 * of its own under the text's indent when the line has no room for it. */
static void by_author(struct tui_page *p, const char *name)
{
	if (!name)
		return;
	if (p->cur_col + 5 + draw_width(name) > p->width) {
		page_line(p);
		page_add_at(p, LABEL_COL + 3, STYLE_DIM, "");
	} else {
		page_add(p, STYLE_DIM, "  ");
	}
	page_addf(p, STYLE_DIM, "by %s", name);
}

/* A note: its id, time, track and tags, whether it is new, who wrote it,
 * then its text. */
static void note_lines(struct tui_page *p, const mt_note *n, int is_new)
{
	char iso[32], when[32];

	mt_time_iso(iso, sizeof(iso), n->created_ms);
	page_line(p);
	page_addf(p, STYLE_DIM, "  #%lld ", (long long)n->id);
	snprintf(when, sizeof(when), "%.10s %.5s", iso, iso + 11); /* as jv_time shows one */
	page_add(p, STYLE_DIM, when);
	page_addf(p, STYLE_NORMAL, "  %s", n->track ? n->track : "no track");
	for (size_t k = 0; k < n->ntags; k++)
		page_addf(p, STYLE_CMD, " #%s", n->tags[k]);
	if (is_new) /* before the author, who may need a line of its own */
		page_add(p, STYLE_NEW, "  new");
	by_author(p, n->author);
	page_para(p, LABEL_COL + 3, STYLE_NORMAL, n->text);
}

/* The notes read, read again after each reload; and the next page once the
 * view comes within two screens of the last note read. */
static void notes_sync(struct tracks_state *st, const struct tui_ctx *ctx, int lines_below)
{
	const struct tui_wizard *w = ctx->wizard;
	int h = w->layout.content.h > 0 ? w->layout.content.h : 20;
	int error = 0;

	if (st->notes.reload != w->reloads || !st->notes.n) {
		st->notes.reload = w->reloads;
		error = tui_notelist_reread(&st->notes, ctx->trial->journal);
	} else if (st->notes.more && lines_below < 2 * h) {
		error = tui_notelist_more(&st->notes, ctx->trial->journal);
	}
	if (error < 0) {
		tui_message(ctx->wizard, 1, "cannot read the notes: %s", mt_error_last());
		mt_error_clear();
	}
}

static void notes_section(struct tui_page *p, const struct tui_ctx *ctx,
			  struct tracks_state *st)
{
	json_t *count = jv_get(ctx->model, "note_count"); /* counted after the first frame */
	size_t n = count ? (size_t)jv_int(ctx->model, "note_count", 0) : st->notes.n, shown;
	const struct tui_screen *s = frame_content_screen(ctx->wizard);
	char title[96];

	/* how far below the view the notes read so far reach, last time */
	notes_sync(st, ctx, st->notes_end - s->top - ctx->wizard->layout.content.h);
	if (count)
		snprintf(title, sizeof(title), "Friction notes (%zu%s)", n,
			 n > 1 ? ", newest first" : "");
	else
		snprintf(title, sizeof(title), "Friction notes (counting...%s)",
			 st->notes.n > 1 ? ", newest first" : "");
	tui_heading(p, title);
	if (!n)
		page_para(p, LABEL_COL, STYLE_DIM,
			  "None yet: press n, or run `mtrial note TEXT` in another terminal.");
	st->max_id = st->notes.n ? st->notes.notes[0].id : 0;
	for (shown = 0; shown < st->notes.n; shown++)
		note_lines(p, &st->notes.notes[shown], st->started &&
						      st->notes.notes[shown].id > st->seen_id);
	st->notes_end = p->nlines;
	if (st->notes.more && count) {
		page_line(p);
		page_addf(p, STYLE_DIM, "  %zu older notes: scroll on to read them",
			  n > shown ? n - shown : 0);
	} else if (st->notes.more) {
		page_line(p);
		page_add(p, STYLE_DIM, "  Older notes: scroll on to read them");
	}
	if (!st->started) {
		st->started = 1; /* what is there at start is not new */
		st->seen_id = st->max_id;
	}
}

static void intervals_section(struct tui_page *p, const struct tui_ctx *ctx)
{
	json_t *model = ctx->model;
	size_t n = json_array_size(jv_get(model, "effort.intervals"));
	char title[64], when[32];

	snprintf(title, sizeof(title), "Effort intervals (%zu%s)", n,
		 n > 1 ? ", newest first" : "");
	tui_heading(p, title);
	if (!n)
		page_para(p, LABEL_COL, STYLE_DIM,
			  "None yet: press t, or run `mtrial effort start` in another terminal.");
	for (size_t i = n; i-- > 0;) {
		const char *track = jv_string_at(model, "effort.intervals.*.track", i);
		const char *text = jv_string_at(model, "effort.intervals.*.text", i);
		int running = json_is_true(jv_get_at(model, "effort.intervals.*.running", i));
		page_line(p);
		page_addf(p, STYLE_DIM, "  #%lld ",
			  (long long)jv_int_at(model, "effort.intervals.*.id", i, 0));
		page_add(p, STYLE_DIM, jv_time(jv_get_at(model, "effort.intervals.*.started", i), when,
					       sizeof(when)));
		page_addf(p, running ? STYLE_OK : STYLE_NORMAL, "  %s  %s  %s",
			  running ? "running" : jv_string_at(model, "effort.intervals.*.duration", i),
			  jv_string_at(model, "effort.intervals.*.category", i),
			  track ? track : "no track");
		by_author(p, jv_string_at(model, "effort.intervals.*.author.name", i));
		if (text && *text)
			page_para(p, LABEL_COL + 3, STYLE_NORMAL, text);
	}
}

/* --- the files view ------------------------------------------------------------ */

static const char *mark_label(const mt_track_file *f)
{
	const char *m = f->mark;
	return !m ? "-" : strcmp(m, "model-specific") == 0 ? "specific" : m;
}

/* The columns for the page's width: the kind goes under 46 columns. */
static void file_cells(struct tui_page *p, struct tui_cell *cells, int *n)
{
	if (p->width < 46) {
		memmove(cells, cells + 1, 5 * sizeof(*cells));
		*n = 5;
	} else {
		*n = 6;
	}
}

static void header_row(struct tui_page *p)
{
	struct tui_cell cells[] = {
		{"kind", KIND_W, 0, 0, STYLE_DIM}, {"+", NUM_W, 1, 0, STYLE_DIM},
		{"-", NUM_W, 1, 0, STYLE_DIM},     {"plat", NUM_W, 1, 0, STYLE_DIM},
		{"mark", MARK_W, 0, 0, STYLE_DIM}, {"path", 0, 0, 0, STYLE_DIM},
	};
	int n;

	file_cells(p, cells, &n);
	tui_row(p, cells, n, 0, 0);
}

static void file_row(struct tui_page *p, const mt_track_file *f, int sel, int focused)
{
	char add[16], del[16], plat[16];
	struct tui_cell cells[] = {
		{f->kind, KIND_W, 0, 0, STYLE_DIM},
		{add, NUM_W, 1, 0, STYLE_NORMAL},
		{del, NUM_W, 1, 0, STYLE_NORMAL},
		{plat, NUM_W, 1, 0, f->platform ? STYLE_WARN : STYLE_DIM},
		{mark_label(f), MARK_W, 0, 0, f->mark ? STYLE_OK : STYLE_DIM},
		{f->path, 0, 0, 1, STYLE_NORMAL},
	};
	int n;

	snprintf(add, sizeof(add), "%lld", (long long)f->added);
	snprintf(del, sizeof(del), "%lld", (long long)f->deleted);
	snprintf(plat, sizeof(plat), "%lld", (long long)f->platform);
	file_cells(p, cells, &n);
	tui_row(p, cells, n, sel, focused);
}

/* A track's heading row, or the line under it saying why it has no files. */
static void track_row(struct tui_page *p, const mt_track_view *tr, int why)
{
	int tot = tr->has_changes;
	mt_buf b = MT_BUF_INIT;
	char *fit;

	if (why)
		mt_buf_printf(&b, "    %s",
			      !tot ? (tr->error ?: "changes not known: set "
						   "tracks.NAME.base and .head in trial.yaml")
				   : "no file changed");
	else if (tot)
		mt_buf_printf(&b, "%s %.12s..%.12s: %lld files, %lld platform lines", tr->name,
			      tr->base, tr->head, (long long)tr->totals.files,
			      (long long)tr->totals.platform);
	else
		mt_buf_puts(&b, tr->name);
	fit = draw_fit(mt_buf_cstr(&b), p->width, 0);
	page_line(p);
	page_add(p, why ? (tot ? STYLE_DIM : STYLE_WARN) : STYLE_HEADING, fit);
	free(fit);
	mt_buf_dispose(&b);
}

/* The selected file's platform-specific lines, at most `rows`. */
static void platform_lines(struct tui_page *p, const mt_track_file *f, int rows)
{
	long long total = (long long)f->platform;
	size_t i;

	if (rows <= 0)
		return;
	if (!f->nlines) {
		page_line(p);
		page_add_at(p, LABEL_COL, STYLE_DIM,
			    f->binary ? "a binary file" : "no platform-specific line");
		return;
	}
	for (i = 0; i < f->nlines; i++) {
		const mt_track_line *l = &f->lines[i];
		char where[32], *fit;
		if ((int)i >= rows - 1 && (long long)i + 1 < total) {
			page_line(p);
			page_addf(p, STYLE_DIM, "  %s %lld more", draw_glyph(GLYPH_ELLIPSIS),
				  total - (long long)i);
			return;
		}
		snprintf(where, sizeof(where), "%s%lld", l->sign, (long long)l->line);
		page_line(p);
		page_add_at(p, LABEL_COL, *l->sign == '+' ? STYLE_OK : STYLE_ERROR, where);
		page_add_at(p, 8, STYLE_DIM, l->rule);
		fit = draw_fit(l->text,
			       p->width - p->cur_col - 2 > 0 ? p->width - p->cur_col - 2
									  : 0, 0);
		page_addf(p, STYLE_NORMAL, "  %s", fit);
		free(fit);
	}
}

/* The newest note of a track and how many it has, into b: read once a
 * reload for the track shown (a count reads every note). */
static void track_notes(mt_buf *b, struct tracks_state *st, const struct tui_ctx *ctx,
			const char *track)
{
	struct track_notes *c = &st->track_notes;

	if (c->reload != ctx->wizard->reloads || !c->track || strcmp(c->track, track) != 0) {
		free(c->track);
		free(c->newest);
		c->track = mt_strdup(track);
		c->reload = ctx->wizard->reloads;
		if (mt_journal_track_notes(ctx->trial->journal, track, &c->count, &c->newest) < 0) {
			mt_buf_printf(b, "cannot be read: %s", mt_error_last());
			mt_error_clear();
			c->reload--; /* read again next time */
			return;
		}
	}
	if (!c->count)
		mt_buf_puts(b, "none on this track (n adds one)");
	else
		mt_buf_printf(b, "%zu; newest: %s", c->count, c->newest ? c->newest : "");
}

static void detail_field(struct tui_page *p, const char *label, enum draw_style s,
			 const char *text)
{
	char *fit = draw_fit(text, p->width - 11 > 0 ? p->width - 11 : 0, 0);

	page_line(p);
	page_add_at(p, LABEL_COL, STYLE_DIM, label);
	page_add_at(p, 11, s, fit);
	free(fit);
}

/* The selected file under the list, in `rows` rows. */
static void detail(struct tui_page *p, struct tracks_state *st, const struct row *r,
		   const struct tui_ctx *ctx, int rows)
{
	mt_buf b = MT_BUF_INIT;
	char clock[32];
	const char *name = r->track->name;

	mt_buf_printf(&b, "%s, %s", r->file->path, name);
	tui_rule(p, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	platform_lines(p, r->file, rows - FIXED_ROWS);
	if (r->file->mark)
		mt_buf_printf(&b, "%s%s%s", r->file->mark, r->file->mark_note ? ": " : "",
			      r->file->mark_note ?: "");
	else
		mt_buf_puts(&b, "not marked (m: reusable, model-specific)");
	detail_field(p, "mark", r->file->mark ? STYLE_OK : STYLE_DIM, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	effort_text(&b, st, r->track, ctx);
	detail_field(p, "effort", STYLE_NORMAL, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	if (ctx->timer->running) {
		tui_elapsed_fmt(clock, sizeof(clock), ctx->now_ms - ctx->timer->started_ms);
		mt_buf_printf(&b, "on %s %s, %s", clock, ctx->timer->category,
			      *ctx->timer->track ? ctx->timer->track : "no track");
	} else {
		mt_buf_puts(&b, "off (t starts it)");
	}
	detail_field(p, "timer", ctx->timer->running ? STYLE_OK : STYLE_DIM, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	track_notes(&b, st, ctx, name);
	detail_field(p, "notes", STYLE_NORMAL, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

static void files_draw(struct tui_page *p, struct tracks_state *st, const struct tui_ctx *ctx)
{
	int height = p->height > 0 ? p->height : 20, n;
	struct row *rows = all_rows(st, &n);
	int avail = height - 2, list = avail; /* under the title and the header */

	if (st->cursor >= 0) { /* the list takes up to half, the file the rest */
		list = n < avail / 2 ? n : avail / 2;
		list = list < 3 ? 3 : list;
		if (avail - list <= FIXED_ROWS)
			list = avail; /* no room for the file */
	}
	list = tui_list_fit(list, n); /* with the detail's room kept as it was */
	st->list_rows = list;
	tui_list_scroll(&st->cursor, &st->top, list, n);
	page_line(p);
	page_add(p, STYLE_HEADING, "Changed files");
	page_add(p, STYLE_DIM, *st->said ? "  " : "  m marks, Esc back");
	page_add(p, STYLE_OK, st->said);
	header_row(p);
	for (int i = st->top; i < st->top + list && i < n; i++) {
		if (rows[i].file)
			file_row(p, rows[i].file, i == st->cursor, ctx->focused);
		else
			track_row(p, rows[i].track, i > 0 && rows[i - 1].track == rows[i].track);
	}
	list += tui_list_more(p, st->top, list, n);
	if (st->cursor >= 0 && avail - list > FIXED_ROWS)
		detail(p, st, &rows[st->cursor], ctx, avail - list);
	free(rows);
}

/* --- the screen ------------------------------------------------------------------ */

static void tracks_draw(void *state, const struct tui_ctx *ctx, struct tui_page *p)
{
	struct tracks_state *st = state;

	read_if_stale(st, ctx);
	if (st->files && st->tracks) {
		files_draw(p, st, ctx);
		return;
	}
	tracks_section(p, ctx);
	changes_section(p, st);
	effort_section(p, ctx, st);
	notes_section(p, ctx, st);
	intervals_section(p, ctx);
}

/* m: the selected file's next mark (none, reusable, model-specific, none),
 * its note kept. */
static int mark_next(struct tracks_state *st, const struct tui_ctx *ctx)
{
	int n;
	struct row *rows = all_rows(st, &n);
	const struct row *r = st->cursor >= 0 && st->cursor < n ? &rows[st->cursor] : NULL;
	const char *now = r && r->file ? r->file->mark : NULL, *next;
	int error;

	if (!r || !r->file) {
		snprintf(st->said, sizeof(st->said), "no file to mark");
		free(rows);
		return TUI_HANDLED | TUI_REDRAW;
	}
	next = !now ? "reusable" : strcmp(now, "reusable") == 0 ? "model-specific" : NULL;
	error = mt_tracks_mark(ctx->trial, st->rules, r->track->name, r->file->path, next,
			       r->file->mark_note, NULL);
	snprintf(st->said, sizeof(st->said), "%s: %s", r->file->path,
		 error < 0 ? mt_error_last() : next ? next : "mark removed");
	mt_error_clear();
	free(rows);
	read_tracks(st, ctx);
	return TUI_HANDLED | TUI_REDRAW | TUI_RELOAD;
}

/* Moves the cursor to the first file row from `to` in direction dir (+1,
 * -1); 0 when there is none that way. */
static int move_to(struct tracks_state *st, long to, int dir)
{
	int n, found = 0;
	struct row *rows = all_rows(st, &n);

	to = to < 0 ? 0 : to >= n ? n - 1 : to;
	for (long i = to; !found && i >= 0 && i < n; i += dir)
		if (rows[i].file) {
			st->cursor = (int)i;
			follow_row(st, &rows[i]);
			found = 1;
		}
	free(rows);
	return found;
}

static int files_handle(struct tracks_state *st, const struct tui_ctx *ctx, enum tui_action a)
{
	long to;

	if (a == TUI_ACT_BACK) {
		st->files = 0;
		st->said[0] = 0;
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (a == TUI_ACT_MARK)
		return mark_next(st, ctx);
	if (st->cursor >= 0 && tui_list_target(a, st->cursor, st->list_rows, &to)) {
		int dir = to >= st->cursor ? 1 : -1;
		if (!move_to(st, to, dir)) /* only headings that way: the nearest file */
			move_to(st, to, -dir);
		st->said[0] = 0;
		return TUI_HANDLED | TUI_REDRAW;
	}
	return a == TUI_ACT_OPEN ? TUI_HANDLED : TUI_UNHANDLED;
}

static int tracks_handle(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	struct tracks_state *st = state;

	read_if_stale(st, ctx);
	if (st->files && st->tracks)
		return files_handle(st, ctx, a);
	if (a == TUI_ACT_OPEN || a == TUI_ACT_MARK) {
		if (!st->tracks)
			return TUI_UNHANDLED;
		st->files = 1;
		return TUI_HANDLED | TUI_REDRAW;
	}
	return TUI_UNHANDLED;
}

static int tracks_enter(void *state, const struct tui_ctx *ctx)
{
	read_tracks(state, ctx);
	return TUI_REDRAW;
}

static void tracks_leave(void *state, const struct tui_ctx *ctx)
{
	struct tracks_state *st = state;
	(void)ctx;
	st->seen_id = st->max_id;
}

static void tracks_done(void *state)
{
	struct tracks_state *st = state;
	mt_tracks_view_free(st->tv, st->ntv);
	tui_notelist_dispose(&st->notes);
	free(st->track_notes.track);
	free(st->track_notes.newest);
	json_decref(st->tracks);
	mt_tracks_rules_free(st->rules);
}

const struct tui_screen_ops tui_tracks_ops = {
	.name = "Tracks & effort",
	.step_id = "effort",
	.enter = tracks_enter,
	.draw = tracks_draw,
	.handle = tracks_handle,
	.leave = tracks_leave,
	.done = tracks_done,
	.private_size = sizeof(struct tracks_state),
};
