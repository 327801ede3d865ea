/* The Ops & compatibility step: the latest probe. Its table's identity on
 * top, so that every status on the screen shows where it came from and how
 * old that is; the counts by status as a stacked bar with a legend; the ops,
 * blockers first, filtered by text and by status; under them the selected
 * op's status, source, conditions, notes and call sites. Enter gives the op
 * the whole pane, its call sites as a list with the selected one's source
 * underneath. A probe against a table that lists public APIs lists the
 * APIs (torch.cumsum) instead, each with its aten op, as `mtrial probe`
 * does. Like the Repository step's lists, the page is laid out to the
 * pane's height, so the list scrolls itself to keep the cursor in view. */
#include "error.h"
#include "probe.h"
#include "probe_trial.h"
#include "ops_int.h"
#include "rows.h"
#include "share.h"
#include "source.h"
#include "model_path.h"
#include "opsdiff.h"
#include "util.h"
#include "jsonutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALUE_COL 12  /* values after "  retrieved " and the like */
#define CALLS_W 5
#define MAX_SOURCE_W 22
#define NARROW 40     /* below this width the list has no source column */
#define MAX_WRAP 3    /* rows for an op's conditions, and for its notes */


/* How each status looks, in the order of the bar and its legend. */
static const struct look {
	const char *status;
	const char *letter; /* the status without colour */
	enum draw_style text, bar;
} looks[] = {
	{"device", "D", STYLE_OP_DEVICE, STYLE_BAR_DEVICE},
	{"partial", "P", STYLE_OP_PARTIAL, STYLE_BAR_PARTIAL},
	{"cpu_fallback", "C", STYLE_OP_FALLBACK, STYLE_BAR_FALLBACK},
	{"unsupported", "U", STYLE_OP_UNSUPPORTED, STYLE_BAR_UNSUPPORTED},
	{"unknown", "?", STYLE_OP_UNKNOWN, STYLE_BAR_UNKNOWN},
};
#define NLOOKS (sizeof(looks) / sizeof(looks[0]))

struct ops_state {
	json_t *probe; /* own reference; NULL with none */
	mt_probe_view pv; /* the probe read, borrowing from it */
	int64_t probe_id;
	const mt_probe_entry **shown; /* the ops the filter lets through, in the probe's order */
	size_t nshown;
	char text[128];     /* the filter's text, "" for none */
	const char *status; /* the filter's status (from mt_compat_status_order), NULL: all */
	char *follow;       /* the selected op's name, kept across probes */
	int cursor, top, list_rows;
	int details;        /* the selected op has the whole pane */
	int site, site_top, site_rows;
	struct tui_source src;
	int diff_open;      /* the differences have the whole pane */
	struct opsdiff diff; /* what they show */
	struct ops_prompt pr;
};

static int same_str(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* What an entry is listed by: its API, or its op. */
static const char *name_of(const mt_probe_entry *e)
{
	return e ? e->name : NULL;
}

/* "66.7", "100": a share as the probe gives it. */
static const char *share_text(double pct, char *buf, size_t size)
{
	if (pct != pct)
		return "?";
	snprintf(buf, size, "%g", pct);
	return buf;
}

static const struct look *look_of(const char *status)
{
	for (size_t i = 0; i < NLOOKS; i++)
		if (same_str(looks[i].status, status))
			return &looks[i];
	return &looks[NLOOKS - 1]; /* a status this wizard does not know: unknown */
}

/* --- the filter ----------------------------------------------------------- */

static int contains(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

static int passes(const struct ops_state *st, const mt_probe_entry *op)
{
	if (st->status && !same_str(st->status, op->status))
		return 0;
	if (!*st->text || contains(name_of(op), st->text) || contains(op->op, st->text))
		return 1;
	for (size_t i = 0; i < op->napis; i++)
		if (contains(op->apis[i], st->text))
			return 1;
	return 0;
}

static const mt_probe_entry *selected_op(const struct ops_state *st)
{
	return st->cursor >= 0 && (size_t)st->cursor < st->nshown ? st->shown[st->cursor] : NULL;
}

/* Remembers the selection by name: a new probe or filter keeps it. */
static void follow_cursor(struct ops_state *st)
{
	const mt_probe_entry *op = selected_op(st);

	free(st->follow);
	st->follow = op && name_of(op) ? mt_strdup(name_of(op)) : NULL;
}

/* The ops that pass the filter, the cursor on the followed op when it is
 * among them. */
static void refilter(struct ops_state *st)
{
	size_t i, n;
	const mt_probe_entry *ops = mt_probe_view_listed(&st->pv, &n), *op;

	free(st->shown);
	st->shown = calloc(n + 1, sizeof(*st->shown));
	if (!st->shown)
		abort();
	st->nshown = 0;
	for (i = 0; i < n; i++) {
		op = &ops[i];
		if (!passes(st, op))
			continue;
		if (same_str(st->follow, name_of(op)))
			st->cursor = (int)st->nshown;
		st->shown[st->nshown++] = op;
	}
	if (st->cursor >= (int)st->nshown)
		st->cursor = st->nshown ? (int)st->nshown - 1 : 0;
	if (!same_str(st->follow, name_of(selected_op(st))))
		st->details = 0; /* the op shown in full is gone */
	follow_cursor(st);
}

/* True when the probe has an op called `name` that only the status filter
 * hides. */
static int hidden_by_status(const struct ops_state *st, const char *name)
{
	size_t i, n;
	const mt_probe_entry *ops = mt_probe_view_listed(&st->pv, &n);

	for (i = 0; i < n; i++)
		if (same_str(name_of(&ops[i]), name))
			return st->status && !same_str(st->status, ops[i].status);
	return 0;
}

/* Takes a probe that is not the one held (a probe or a finding from here,
 * or from another terminal). The selection follows its op; when the op's
 * new status is one the filter hides (the team just recorded a finding
 * about it), the status filter goes rather than the op. */
static void sync(struct ops_state *st, const struct tui_ctx *ctx)
{
	if (ctx->probe == st->probe && ctx->probe_id == st->probe_id)
		return;
	free(st->shown); /* it points into the view */
	st->shown = NULL;
	st->nshown = 0;
	mt_probe_view_dispose(&st->pv);
	json_decref(st->probe);
	st->probe = json_incref(ctx->probe);
	st->probe_id = ctx->probe_id;
	/* a record older than a key reads it as none, as it always did */
	if (st->probe && mt_probe_view_read(&st->pv, st->probe) < 0)
		mt_error_clear();
	source_forget(&st->src);
	if (st->follow && hidden_by_status(st, st->follow))
		st->status = NULL;
	refilter(st);
}

struct ops_prompt *tui_ops_prompt(void *state)
{
	return &((struct ops_state *)state)->pr;
}

const char *tui_ops_selected_name(void *state)
{
	return name_of(selected_op(state));
}

const char *tui_ops_selected_status(void *state)
{
	const mt_probe_entry *op = selected_op(state);
	return op ? op->status : NULL;
}

const char *tui_ops_filter_text(void *state)
{
	return ((struct ops_state *)state)->text;
}

const char *tui_ops_filter_status(void *state)
{
	return ((struct ops_state *)state)->status;
}

static void filter_changed(struct ops_state *st)
{
	free(st->follow);
	st->follow = NULL;
	st->cursor = st->top = 0;
	st->details = 0;
	refilter(st);
}

void tui_ops_set_filter_text(void *state, const char *text)
{
	struct ops_state *st = state;

	snprintf(st->text, sizeof(st->text), "%s", text ? text : "");
	filter_changed(st);
}

void tui_ops_set_filter_status(void *state, const char *status)
{
	struct ops_state *st = state;

	st->status = NULL;
	for (size_t i = 0; status && mt_compat_status_order[i]; i++)
		if (strcmp(mt_compat_status_order[i], status) == 0)
			st->status = mt_compat_status_order[i];
	filter_changed(st);
}

void tui_ops_show_diff(void *state, json_t *diff, const int64_t steps[2], const char *why)
{
	struct ops_state *st = state;

	opsdiff_set(&st->diff, diff, steps, why);
	st->diff_open = diff || why;
}

/* --- the table, the bar and the legend ------------------------------------ */

static void field(struct tui_page *p, const char *key, enum draw_style s, const char *value)
{
	page_line(p);
	page_add_at(p, TUI_LABEL_COL, STYLE_DIM, key);
	page_add_at(p, VALUE_COL, s, value ? value : "?");
}

/* "rules  11 for every op: float64 runs as float32 on the device; ..." */
static void rules_field(struct tui_page *p, const mt_probe_view *v)
{
	mt_buf b = MT_BUF_INIT;

	mt_buf_printf(&b, "%zu for every op: ", v->nrules);
	for (size_t i = 0; i < v->nrules; i++)
		mt_buf_printf(&b, "%s%s", i ? "; " : "", v->rules[i]);
	field(p, "rules", STYLE_NORMAL, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

/* "ops from  trace /tmp/ops.json, 3 optimizer steps": which inventory the
 * probe read (a probe recorded before probes said so read a scan), on a
 * second row when it needs one and there is room. */
static void from_field(struct tui_page *p, const mt_probe_view *v, int64_t steps, int full)
{
	mt_buf b = MT_BUF_INIT;

	opsdiff_describe(&b, v->from_source, v->from_file, v->rev, steps);
	tui_wrap_field(p, TUI_LABEL_COL, "ops from", VALUE_COL, mt_buf_cstr(&b), full ? 2 : 1,
		       STYLE_NORMAL);
	mt_buf_dispose(&b);
}

/* Where the statuses come from: the table's name and kind, the source of
 * the ops, the date the table was retrieved and, with room, its backend and version, its source and its
 * rules. The name and the date come first, so that a narrow pane cuts
 * neither. A probe of another revision than the latest scan's says so. */
static void identity(struct tui_page *p, const struct tui_ctx *ctx, const mt_probe_view *v,
		     int full)
{
	const char *rev = v->rev, *scanned = ctx->scan_view->rev;
	char line[128];

	page_line(p);
	page_addf(p, STYLE_HEADING, "Table %s", v->table_name ? v->table_name : "?");
	page_addf(p, STYLE_DIM, " (%s)", v->table_kind ? v->table_kind : "?");
	from_field(p, v, ctx->probe_steps, full);
	field(p, "retrieved", STYLE_NORMAL, v->table_retrieved);
	page_addf(p, STYLE_DIM, "  probe #%lld", (long long)v->probe_id);
	if (rev && scanned && strcmp(rev, scanned) != 0) {
		snprintf(line, sizeof(line), "%.12s; the latest scan is newer: p probes it", rev);
		field(p, "probed", STYLE_WARN, line);
	}
	if (!full)
		return;
	snprintf(line, sizeof(line), "%s %s", v->table_backend ? v->table_backend : "?",
		 v->table_version ? v->table_version : "");
	field(p, "backend", STYLE_NORMAL, line);
	field(p, "source", STYLE_DIM, v->table_source);
	if (v->nrules)
		rules_field(p, v);
}

/* One line, each status a segment as wide as its share of the ops
 * (mt_share_cells: unknown never loses a column to rounding), in its
 * colour and filled with its letter, so that a segment reads as wide
 * without colour and on any background. The unknown share is filled as
 * a progress bar's rest is, not with its letter: '?' is also what the
 * draw layer shows for a character it cannot draw, and a row of them reads
 * as text the terminal garbled (a probe with every op unknown drew one). */
static void status_bar(struct tui_page *p, const mt_probe_view *v)
{
	const mt_probe_counts *summary = mt_probe_view_listed_counts(v);
	double n[NLOOKS];
	int w[NLOOKS];
	mt_buf seg = MT_BUF_INIT;

	for (size_t i = 0; i < NLOOKS; i++)
		n[i] = (double)mt_probe_counts_of(summary, looks[i].status);
	mt_share_cells(n, NLOOKS, p->width, NLOOKS - 1 /* unknown */, w);
	page_line(p);
	if (!summary->entries)
		page_add(p, STYLE_DIM, "(the scan has no ops)");
	for (size_t i = 0; i < NLOOKS; i++) {
		if (!w[i])
			continue;
		const char *fill = i == NLOOKS - 1 ? draw_glyph(GLYPH_BAR_EMPTY) : looks[i].letter;
		for (int k = 0; k < w[i]; k++)
			mt_buf_puts(&seg, fill);
		page_add(p, looks[i].bar, mt_buf_cstr(&seg));
		mt_buf_dispose(&seg);
	}
}

/* "D device 1  P partial 1  C cpu_fallback 0 ..." flowing onto as many lines
 * as the width needs, then the share of ops supported (device or partial, as
 * `mtrial probe` counts them); listing APIs, the share of APIs and then the
 * ops' count and share. */
static void legend(struct tui_page *p, const mt_probe_view *v)
{
	const mt_probe_counts *summary = mt_probe_view_listed_counts(v), *ops = &v->op_counts;
	char count[32], share[128], pct[32];
	int col = 0;

	page_line(p);
	for (size_t i = 0; i <= NLOOKS; i++) {
		int w;
		if (i < NLOOKS) {
			snprintf(count, sizeof(count), " %lld",
				 (long long)mt_probe_counts_of(summary, looks[i].status));
			w = 2 + draw_width(looks[i].status) + draw_width(count);
		} else {
			if (v->by_api)
				snprintf(share, sizeof(share), "%s%% of APIs supported; %lld ops, %s%%",
					 share_text(summary->support_percentage, count, sizeof(count)),
					 (long long)ops->entries,
					 share_text(ops->support_percentage, pct, sizeof(pct)));
			else
				snprintf(share, sizeof(share), "%s%% supported",
					 share_text(summary->support_percentage, count, sizeof(count)));
			/* the unknown are not counted supported: their share goes
			 * with it, or 0% would read as a verdict no table gave */
			if (summary->unknown > 0 && summary->entries > 0)
				snprintf(share + strlen(share), sizeof(share) - strlen(share),
					 ", %.3g%% unknown",
					 100.0 * (double)summary->unknown / (double)summary->entries);
			w = draw_width(share);
		}
		if (col && col + 2 + w > p->width) {
			page_line(p);
			col = 0;
		} else if (col) {
			page_add(p, STYLE_NORMAL, "  ");
			col += 2;
		}
		if (i < NLOOKS) {
			page_add(p, looks[i].text, looks[i].letter);
			page_addf(p, STYLE_NORMAL, " %s", looks[i].status);
			page_add(p, STYLE_NORMAL, count);
		} else {
			page_add(p, STYLE_DIM, share);
		}
		col += w;
	}
}

/* --- the list ------------------------------------------------------------- */

/* "table:torch-neuron-inf1:190" as "table line 190": the table is named on
 * top. Overrides and "none" as they are. */
static const char *short_source(const char *source, char *buf, size_t size)
{
	const char *first = source ? strchr(source, ':') : NULL;
	const char *last = source ? strrchr(source, ':') : NULL;

	if (!first || first == last || strncmp(source, "override:", 9) == 0)
		return source ? source : "?";
	snprintf(buf, size, "%.*s line %s", (int)(first - source), source, last + 1);
	return buf;
}

static int source_width(const struct ops_state *st, int width)
{
	int w = 6; /* "source" */
	char buf[128];

	if (width < NARROW)
		return 0;
	for (size_t i = 0; i < st->nshown; i++) {
		int sw = draw_width(short_source(st->shown[i]->source, buf, sizeof(buf)));
		w = sw > w ? sw : w;
	}
	return w > MAX_SOURCE_W ? MAX_SOURCE_W : w;
}

static void op_row(struct tui_page *p, const mt_probe_entry *op, int src_w, int selected,
		   int focused)
{
	const struct look *l = look_of(op->status);
	char calls[24], buf[128];
	int unsupported = l->text == STYLE_OP_UNSUPPORTED;
	struct tui_cell c[] = {
		{l->letter, 1, 0, 0, l->text},
		{name_of(op), p->width - 2 - (CALLS_W + 1) - (src_w ? src_w + 1 : 0), 0, 0,
		 unsupported ? STYLE_OP_UNSUPPORTED : STYLE_NORMAL},
		{calls, CALLS_W, 1, 0, STYLE_NORMAL},
		{short_source(op->source, buf, sizeof(buf)), src_w, 0, 0, STYLE_DIM},
	};

	snprintf(calls, sizeof(calls), "%lld", (long long)op->count);
	tui_row(p, c, src_w ? 4 : 3, selected, focused);
}

static void header_row(struct tui_page *p, int src_w, int apis)
{
	struct tui_cell c[] = {
		{"", 1, 0, 0, STYLE_DIM},
		{apis ? "API" : "op", p->width - 2 - (CALLS_W + 1) - (src_w ? src_w + 1 : 0), 0, 0, STYLE_DIM},
		{"calls", CALLS_W, 1, 0, STYLE_DIM},
		{"source", src_w, 0, 0, STYLE_DIM},
	};
	tui_row(p, c, src_w ? 4 : 3, 0, 0);
}

/* "3 ops, blockers first  / filter  v status  r finding  T import", or
 * what the filter keeps. */
static void title_row(struct tui_page *p, const struct ops_state *st)
{
	static const struct {
		enum tui_action a;
		const char *what;
	} hints[] = {{TUI_ACT_FILTER, "filter"},
		     {TUI_ACT_SHOW_STATUS, "status"},
		     {TUI_ACT_FINDING, "finding"},
		     {TUI_ACT_IMPORT_TABLE, "import"}};
	size_t total = st->pv.by_api ? st->pv.napis : st->pv.nops;
	const char *what = st->pv.by_api ? "APIs" : "ops";
	char keys[32], title[64], hint[4][48];
	int width = 0;

	page_line(p);
	if (st->status || *st->text) {
		page_addf(p, STYLE_HEADING, "%zu of %zu %s:", st->nshown, total, what);
		if (st->status)
			page_addf(p, STYLE_WARN, " %s", st->status);
		if (*st->text)
			page_addf(p, STYLE_WARN, "%s\"%s\"", st->status ? ", " : " ", st->text);
		page_add(p, STYLE_DIM, "  Esc shows all");
		return;
	}
	snprintf(title, sizeof(title), "%zu %s, blockers first", total, what);
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		tui_action_keys(hints[i].a, keys, sizeof(keys));
		snprintf(hint[i], sizeof(hint[i]), "  %s %s", keys, hints[i].what);
		width += draw_width(hint[i]);
	}
	if (draw_width(title) + width > p->width) /* the hints matter more */
		snprintf(title, sizeof(title), "%zu %s", total, what);
	page_add(p, STYLE_HEADING, title);
	width = draw_width(title);
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		if (width + draw_width(hint[i]) > p->width)
			break;
		page_add(p, STYLE_DIM, hint[i]);
		width += draw_width(hint[i]);
	}
}

static void list_rows(struct tui_page *p, struct ops_state *st, int rows, int focused)
{
	int src_w = source_width(st, p->width), n = (int)st->nshown;

	st->list_rows = rows;
	if (st->cursor < st->top)
		st->top = st->cursor;
	if (st->cursor >= st->top + rows)
		st->top = st->cursor - rows + 1;
	if (st->top > n - rows)
		st->top = n - rows > 0 ? n - rows : 0;
	header_row(p, src_w, st->pv.by_api);
	if (!n) {
		page_line(p);
		page_add_at(p, 2, STYLE_DIM, "(none: Esc shows all)");
	}
	for (int r = st->top; r < st->top + rows && r < n; r++)
		op_row(p, st->shown[r], src_w, r == st->cursor, focused);
	tui_list_more(p, st->top, rows, n);
}

/* --- the selected op, under the list --------------------------------------- */

/* "train.py:8" */
static const char *where(char *buf, size_t size, const mt_probe_site *loc)
{
	snprintf(buf, size, "%s:%lld", loc->file ? loc->file : "?", (long long)loc->line);
	return buf;
}

/* An entry's conditions as one text, with what its status assumes (a
 * method call's receiver) or borrows (another API's entry); caller frees. */
static char *conditions(const mt_probe_entry *op)
{
	mt_buf b = MT_BUF_INIT;

	for (size_t i = 0; i < op->nconditions; i++)
		mt_buf_printf(&b, "%s%s", i ? "; " : "", op->conditions[i]);
	if (op->receiver)
		mt_buf_printf(&b, "%sa tensor method: the receiver is assumed to be a tensor",
			      b.len ? "; " : "");
	if (op->via)
		mt_buf_printf(&b, "%sby the %s for %s", b.len ? "; " : "",
			      strncmp(op->source ?: "", "override:", 9) ? "entry" : "override",
			      op->via);
	return mt_buf_detach(&b);
}

/* Why an op has no call site, by the source of the ops. */
static const char *no_sites(const mt_probe_view *v)
{
	const char *from = v->from_source;

	if (same_str(from, "trace"))
		return "none: a dispatch trace records no source lines";
	if (same_str(from, "torchscript"))
		return "none: the graph gives this op no source line";
	return "none: the op comes from no call the scan saw";
}

/* "at train.py:8, model.py:12 (+3 more)" cut to the width. */
static void sites_line(struct tui_page *p, const mt_probe_view *v, const mt_probe_entry *op)
{
	mt_buf b = MT_BUF_INIT;
	char buf[512], more[32];
	size_t i, n = op->nsites;
	const mt_probe_site *loc;
	char *fit;

	mt_buf_puts(&b, n ? "at " : no_sites(v));
	for (i = 0; i < n; i++) {
		loc = &op->sites[i];
		int room = p->width - 2 - draw_width(mt_buf_cstr(&b));
		snprintf(more, sizeof(more), " (+%zu more)", n - i);
		if (i && 2 + draw_width(where(buf, sizeof(buf), loc)) +
				 (i + 1 < n ? draw_width(more) : 0) > room) {
			mt_buf_puts(&b, more);
			break;
		}
		mt_buf_printf(&b, "%s%s", i ? ", " : "", where(buf, sizeof(buf), loc));
	}
	fit = draw_fit(mt_buf_cstr(&b), p->width - 2, 0);
	page_line(p);
	page_add_at(p, 2, STYLE_NORMAL, fit);
	free(fit);
	mt_buf_dispose(&b);
}

/* `rows` lines: a rule naming the op, its status and source, where it is
 * called, then its conditions and notes, each on what is left. */
static void summary_rows(struct tui_page *p, const mt_probe_view *v, const mt_probe_entry *op,
			 int rows)
{
	const struct look *l = look_of(op->status);
	char *when = conditions(op);
	const char *notes = op->notes;
	int left = rows - 3, need_when = *when ? tui_wrap_count(when, p->width - 8) : 0;
	int when_rows = need_when < left ? need_when : left;

	if (notes && *notes && when_rows == left && left > 1)
		when_rows = left / 2; /* the notes get a share */
	tui_rule(p, name_of(op));
	page_line(p);
	page_add_at(p, 2, l->text, l->letter);
	page_addf(p, l->text, " %s", op->status);
	page_addf(p, STYLE_DIM, "  %s", op->source);
	if (op->api) /* an API: the op it runs */
		page_addf(p, STYLE_NORMAL, "  %s", op->op ? op->op : "(no aten op)");
	sites_line(p, v, op);
	tui_wrap_field(p, 2, "when", 8, when, when_rows, STYLE_NORMAL);
	tui_wrap_field(p, 2, "notes", 8, notes, left - when_rows, STYLE_NORMAL);
	free(when);
}

/* --- the op in full -------------------------------------------------------- */

/* The worktree flag of the scan the probe read, when the latest scan is
 * that one; the probe itself does not keep it. */
static int probe_worktree(const mt_probe_view *v, const struct tui_ctx *ctx)
{
	const mt_scan_view *s = ctx->scan_view;

	return v->repo && v->rev && s->repo && s->rev && !strcmp(v->repo, s->repo) &&
	       !strcmp(v->rev, s->rev) && s->worktree;
}

static void site_rows(struct tui_page *p, struct ops_state *st, const mt_probe_entry *op,
		      int rows, int focused)
{
	int n = (int)op->nsites;
	char buf[512];

	st->site_rows = rows;
	st->site = st->site >= n ? n - 1 : st->site;
	st->site = st->site < 0 ? 0 : st->site;
	if (st->site < st->site_top)
		st->site_top = st->site;
	if (st->site >= st->site_top + rows)
		st->site_top = st->site - rows + 1;
	if (st->site_top > n - rows)
		st->site_top = n - rows > 0 ? n - rows : 0;
	for (int r = st->site_top; r < st->site_top + rows && r < n; r++) {
		struct tui_cell c[] = {{"", 1, 0, 0, STYLE_NORMAL},
				       {where(buf, sizeof(buf), &op->sites[r]), 0, 0, 1,
					STYLE_NORMAL}};
		tui_row(p, c, 2, r == st->site, focused);
	}
	tui_list_more(p, st->site_top, rows, n);
}

/* How many rows the conditions and the notes get in the op's page, out of
 * `room`, each at most MAX_WRAP. */
static void wrap_budget(const mt_probe_entry *op, const char *when, int width, int room,
			int *when_rows, int *notes_rows)
{
	const char *notes = op->notes;
	int nw = *when ? tui_wrap_count(when, width - VALUE_COL) : 0;
	int nn = notes && *notes ? tui_wrap_count(notes, width - VALUE_COL) : 0;

	nw = nw > MAX_WRAP ? MAX_WRAP : nw;
	nn = nn > MAX_WRAP ? MAX_WRAP : nn;
	room = room < 0 ? 0 : room;
	while (nw + nn > room) { /* the longer one gives a row back */
		if (nw > nn)
			nw--;
		else
			nn--;
	}
	*when_rows = nw;
	*notes_rows = nn;
}

static void details_fields(struct tui_page *p, const mt_probe_view *v, const mt_probe_entry *op,
			   const char *when, int when_rows, int notes_rows)
{
	const struct look *l = look_of(op->status);
	mt_buf apis = MT_BUF_INIT, table = MT_BUF_INIT;

	page_line(p);
	page_add(p, STYLE_HEADING, name_of(op));
	page_line(p);
	page_add_at(p, TUI_LABEL_COL, STYLE_DIM, "status");
	page_add_at(p, VALUE_COL, l->text, l->letter);
	page_addf(p, l->text, " %s", op->status);
	field(p, "source", STYLE_NORMAL, op->source);
	mt_buf_printf(&table, "%s, retrieved %s", v->table_name ? v->table_name : "?",
		      v->table_retrieved ? v->table_retrieved : "?");
	field(p, "table", STYLE_NORMAL, mt_buf_cstr(&table));
	mt_buf_printf(&apis, "%lld:", (long long)op->count);
	for (size_t i = 0; i < op->napis; i++)
		mt_buf_printf(&apis, "%s %s", i ? "," : "", op->apis[i]);
	if (op->api) /* an API: the op it runs, and how */
		mt_buf_printf(&apis, " %s%s%s", op->op ? op->op : "(no aten op)",
			      op->kind ? ", " : "", op->kind ? op->kind : "");
	field(p, "calls", STYLE_NORMAL, mt_buf_cstr(&apis));
	tui_wrap_field(p, TUI_LABEL_COL, "when", VALUE_COL, when, when_rows, STYLE_NORMAL);
	tui_wrap_field(p, TUI_LABEL_COL, "notes", VALUE_COL, op->notes, notes_rows, STYLE_NORMAL);
	mt_buf_dispose(&apis);
	mt_buf_dispose(&table);
}

/* Rows for the source under the call sites: more on a tall pane. */
static int source_rows(int height)
{
	return height >= 20 ? 5 : height >= 14 ? 3 : 2;
}

/* The op's fields, then its call sites as a list and the selected one's
 * source: the page is exactly the pane's height. */
static void details_draw(struct tui_page *p, struct ops_state *st, const struct tui_ctx *ctx,
			 int height)
{
	const mt_probe_entry *op = selected_op(st);
	const mt_probe_site *loc;
	char *when = conditions(op), title[64], buf[512];
	int n = (int)op->nsites, src = n ? source_rows(height) : 0;
	int sites_min = n < 2 ? n : 2, when_rows, notes_rows, rows;

	/* fixed: name, status, source, table, calls (5), the sites' title (1) */
	wrap_budget(op, when, p->width, height - 6 - src - sites_min, &when_rows, &notes_rows);
	details_fields(p, &st->pv, op, when, when_rows, notes_rows);
	free(when);
	snprintf(title, sizeof(title), "Call sites (%d)", n);
	page_line(p);
	page_add(p, STYLE_HEADING, title);
	if (!n) {
		page_line(p);
		page_add_at(p, 2, STYLE_DIM, no_sites(&st->pv));
		return;
	}
	rows = tui_list_fit(height - p->nlines - src, n); /* the source takes the rest */
	src = height - p->nlines - rows - (rows < n); /* less the "more" line */
	site_rows(p, st, op, rows, ctx->focused);
	if (src < 2)
		return;
	loc = &op->sites[st->site];
	tui_rule(p, where(buf, sizeof(buf), loc));
	source_draw(&st->src, p,
		    &(struct source_at){st->pv.repo, st->pv.rev, probe_worktree(&st->pv, ctx),
					loc->file, (long)loc->line, (long)loc->col},
		    src - 1);
}

/* --- the screen ------------------------------------------------------------ */

static void nothing_yet(struct tui_page *p, const struct tui_ctx *ctx)
{
	char buf[128];
	const char *table;

	tui_heading(p, "Op status on the candidate");
	page_line(p);
	if (ctx->probe_unread) { /* drawn once so, then read (megabytes on a large repository) */
		snprintf(buf, sizeof(buf), ctx->probe_unreadable ? "Probe #%lld cannot be read."
								 : "Reading probe #%lld...",
			 (long long)ctx->probe_unread);
		page_add_at(p, TUI_LABEL_COL, ctx->probe_unreadable ? STYLE_ERROR : STYLE_DIM, buf);
		if (ctx->probe_unreadable)
			page_para(p, TUI_LABEL_COL, STYLE_NORMAL,
				  "The message line says why; `mtrial doctor` names the artefacts "
				  "missing. Press `p` to probe again.");
		return;
	}
	page_add_at(p, TUI_LABEL_COL, STYLE_WARN, "Nothing probed yet.");
	page_para(p, TUI_LABEL_COL, STYLE_NORMAL,
		  "A probe joins the scan's ops with a compatibility table taken from the "
		  "Neuron documentation: for each op, whether the device runs it, runs it under "
		  "conditions, falls back to the CPU or does not run it, and which table of "
		  "which date says so. Press `p`, or run `mtrial probe`.");
	if (!jv_int(ctx->model, "scan.id", 0))
		page_para(p, TUI_LABEL_COL, STYLE_WARN,
			  "It needs a scan first: press `s` to scan the repository.");
	tui_heading(p, "Candidate");
	tui_field(p, "accelerator",
		  jv_str(ctx->model, "spec.systems.candidate.accelerator", buf, sizeof(buf)));
	table = jv_str(ctx->model, "spec.probe.table", buf, sizeof(buf));
	tui_field(p, "table", table ? table : MT_PROBE_DEFAULT_TABLE);
	page_add(p, STYLE_DIM, table ? " (trial.yaml)" : " (the default)");
}

/* Rows for the selected op under the list: none on a short pane. */
static int summary_height(int height)
{
	return height >= 20 ? 5 : height >= 15 ? 3 : 0;
}

static void list_draw(struct tui_page *p, struct ops_state *st, const struct tui_ctx *ctx,
		      int height)
{
	int below = summary_height(height), rows, shown;

	identity(p, ctx, &st->pv, height >= 18);
	status_bar(p, &st->pv);
	legend(p, &st->pv);
	title_row(p, st);
	rows = height - p->nlines - 1 - below; /* 1: the header */
	rows = rows < 1 ? 1 : rows;
	shown = st->nshown ? (int)st->nshown : 1; /* "(none...)" takes a row */
	list_rows(p, st, tui_list_fit(rows, shown), ctx->focused);
	if (selected_op(st) && below)
		summary_rows(p, &st->pv, selected_op(st), below);
}

static void ops_draw(void *state, const struct tui_ctx *ctx, struct tui_page *p)
{
	struct ops_state *st = state;
	int height = p->height > 0 ? p->height : 20;

	sync(st, ctx);
	if (st->diff_open)
		opsdiff_draw(p, &st->diff);
	else if (!st->probe)
		nothing_yet(p, ctx);
	else if (st->details && selected_op(st))
		details_draw(p, st, ctx, height);
	else
		list_draw(p, st, ctx, height);
}

static int move_to(struct ops_state *st, long to)
{
	const mt_probe_entry *op = selected_op(st);
	int n = st->details ? (op ? (int)op->nsites : 0) : (int)st->nshown;
	int *cur = st->details ? &st->site : &st->cursor;

	to = to >= n ? n - 1 : to;
	*cur = to < 0 ? 0 : (int)to;
	if (!st->details)
		follow_cursor(st);
	return TUI_HANDLED | TUI_REDRAW;
}

static int back(struct ops_state *st)
{
	if (st->details) {
		st->details = 0;
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (!st->status && !*st->text)
		return TUI_UNHANDLED; /* the frame moves to the step list */
	st->status = NULL;
	st->text[0] = '\0';
	refilter(st);
	return TUI_HANDLED | TUI_REDRAW;
}

/* The differences: the frame scrolls them; Esc, q or D again go back. */
static int diff_handle(struct ops_state *st, enum tui_action a)
{
	switch (a) {
	case TUI_ACT_BACK:
	case TUI_ACT_QUIT:
	case TUI_ACT_OP_DIFF:
		tui_ops_show_diff(st, NULL, NULL, NULL);
		return TUI_HANDLED | TUI_REDRAW;
	default:
		return TUI_UNHANDLED;
	}
}

static int ops_handle(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	struct ops_state *st = state;
	int rows = st->details ? st->site_rows : st->list_rows;
	long to;

	int result;

	sync(st, ctx);
	if (st->diff_open && (result = diff_handle(st, a)) != TUI_UNHANDLED)
		return result;
	if ((result = ops_prompt_action(st, ctx, a)) != TUI_UNHANDLED || st->diff_open)
		return result;
	if (!st->probe)
		return TUI_UNHANDLED; /* the frame scrolls the explanation */
	if (tui_list_target(a, st->details ? st->site : st->cursor, rows, &to))
		return move_to(st, to);
	switch (a) {
	case TUI_ACT_OPEN:
		if (!st->details && selected_op(st)) {
			st->details = 1;
			st->site = st->site_top = 0;
		}
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_ACT_BACK:
		return back(st);
	default:
		return TUI_UNHANDLED;
	}
}

static void ops_done(void *state)
{
	struct ops_state *st = state;

	free(st->shown);
	mt_probe_view_dispose(&st->pv);
	json_decref(st->probe);
	free(st->follow);
	source_dispose(&st->src);
	opsdiff_dispose(&st->diff);
	ops_prompt_dispose(&st->pr);
}

/* p, i and D from any step: what they act on is what this step shows. */
static const enum tui_action summoned_by[] = {TUI_ACT_PROBE, TUI_ACT_OP_SOURCE, TUI_ACT_OP_DIFF,
					      TUI_ACT_NONE};

static int ops_summon(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	sync(state, ctx);
	return ops_prompt_action(state, ctx, a);
}

const struct tui_screen_ops tui_ops_ops = {
	.name = "Ops & compatibility",
	.step_id = "ops",
	.draw = ops_draw,
	.handle = ops_handle,
	.summoned_by = summoned_by,
	.summon = ops_summon,
	.input = ops_prompt_input,
	.elsewhere = ops_prompt_elsewhere,
	.done = ops_done,
	.private_size = sizeof(struct ops_state),
};
