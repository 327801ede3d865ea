/* The scan's inventory as lists: rows laid out in fixed columns cut with an
 * ellipsis, a cursor, and the source of the selected row underneath. */
#include "inventory.h"
#include "error.h"
#include "rows.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KIND_W 18
#define MAX_LOC_W 24
#define EFFORT_W 6
#define MIN_MESSAGE_W 6

/* --- indexing a scan ----------------------------------------------------- */

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* "file:line" of a finding or call into buf. */
static const char *where(char *buf, size_t size, const char *file, int64_t line)
{
	snprintf(buf, size, "%s:%lld", file ? file : "?", (long long)line);
	return buf;
}

/* "file:line:col" of a call site into buf. */
static const char *site_where(char *buf, size_t size, const mt_scan_site *call)
{
	snprintf(buf, size, "%s:%lld:%lld", call->file ? call->file : "?",
		 (long long)call->line, (long long)call->col + 1);
	return buf;
}

static int op_cmp(const void *a, const void *b)
{
	const struct inv_op *x = a, *y = b;

	if (!x->name != !y->name) /* the unmapped calls go last */
		return !x->name ? 1 : -1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->name ? strcmp(x->name, y->name) : 0;
}

/* The ops table, plus a row for the calls no op maps: the scan lists calls
 * file by file, so counting file changes counts their files. */
static void index_ops(struct inventory *inv)
{
	const mt_scan_view *s = &inv->view;
	struct inv_op unmapped = {NULL, 0, 0};
	const char *last_file = NULL;
	size_t i;

	inv->ops = calloc(s->nops + 1, sizeof(*inv->ops));
	if (!inv->ops)
		abort();
	for (i = 0; i < s->nops; i++)
		inv->ops[inv->nops++] =
			(struct inv_op){s->ops[i].name, s->ops[i].count, s->ops[i].nfiles};
	for (i = 0; i < s->ncalls; i++) {
		if (s->calls[i].op)
			continue;
		unmapped.count++;
		unmapped.nfiles += !same_str(last_file, s->calls[i].file);
		last_file = s->calls[i].file;
	}
	if (unmapped.count)
		inv->ops[inv->nops++] = unmapped;
	qsort(inv->ops, inv->nops, sizeof(*inv->ops), op_cmp);
}

static const char *const effort_order[] = {"high", "medium", "low", "none", NULL};

static void index_findings(struct inventory *inv)
{
	const mt_scan_finding *all = inv->view.findings;
	size_t i, n = inv->view.nfindings;

	inv->findings = calloc(n + 1, sizeof(*inv->findings));
	if (!inv->findings)
		abort();
	for (const char *const *e = effort_order; *e; e++)
		for (i = 0; i < n; i++)
			if (same_str(all[i].effort, *e))
				inv->findings[inv->nfindings++] = &all[i];
	for (i = 0; i < n; i++) /* an effort level not known here: last */
		if (!all[i].effort || !mt_str_in(all[i].effort, effort_order))
			inv->findings[inv->nfindings++] = &all[i];
	inv->kind_w = 4;  /* "kind" */
	inv->where_w = 5; /* "where" */
	for (i = 0; i < inv->nfindings; i++) {
		char buf[512];
		int k = draw_width(inv->findings[i]->kind);
		int l = draw_width(where(buf, sizeof(buf), inv->findings[i]->file,
					 inv->findings[i]->line));
		inv->kind_w = k > inv->kind_w ? k : inv->kind_w;
		inv->where_w = l > inv->where_w ? l : inv->where_w;
	}
}

static void close_op(struct inventory *inv)
{
	free(inv->sites);
	inv->sites = NULL;
	inv->nsites = 0;
	inv->site_w = 0;
	inv->opened = 0;
}

/* Keeps the source's repository open: the next scan is often of the same
 * one. */
static void drop_index(struct inventory *inv)
{
	close_op(inv);
	source_forget(&inv->src);
	json_decref(inv->scan);
	free(inv->ops);
	free(inv->findings);
	mt_scan_view_dispose(&inv->view);
	inv->scan = NULL;
	inv->ops = NULL;
	inv->findings = NULL;
	inv->nops = inv->nfindings = 0;
	memset(inv->cursor, 0, sizeof(inv->cursor));
	memset(inv->top, 0, sizeof(inv->top));
}

int inventory_sync(struct inventory *inv, json_t *scan, int64_t scan_id)
{
	if (scan == inv->scan && scan_id == inv->scan_id)
		return 0;
	drop_index(inv);
	inv->scan_id = scan_id;
	if (!scan)
		return 1;
	inv->scan = json_incref(scan);
	if (mt_scan_view_read(&inv->view, scan) < 0)
		mt_error_clear(); /* a record older than a key: none of it */
	index_ops(inv);
	index_findings(inv);
	return 1;
}

void inventory_dispose(struct inventory *inv)
{
	drop_index(inv);
	source_dispose(&inv->src);
	memset(inv, 0, sizeof(*inv));
}

/* --- rows ---------------------------------------------------------------- */

static int row_count(const struct inventory *inv, enum inv_view v)
{
	switch (v) {
	case INV_OPS:
		return (int)(inv->nops + (inv->opened ? inv->nsites : 0));
	case INV_FILES:
		return (int)inv->view.nfiles;
	default:
		return (int)inv->nfindings;
	}
}

/* Row r of the op list: the op's index, and the call site's index or -1. */
static int op_row(const struct inventory *inv, int r, int *site)
{
	int e = inv->opened - 1, n = (int)inv->nsites;

	*site = -1;
	if (e < 0 || r <= e)
		return r;
	if (r <= e + n) {
		*site = r - e - 1;
		return e;
	}
	return r - n;
}

/* The first call of an op (by_file 0) or in a file. */
static const mt_scan_site *first_call(const struct inventory *inv, int by_file,
				      const char *value)
{
	for (size_t i = 0; i < inv->view.ncalls; i++) {
		const mt_scan_site *c = &inv->view.calls[i];
		if (same_str(by_file ? c->file : c->op, value))
			return c;
	}
	return NULL;
}

static void open_op(struct inventory *inv, int i)
{
	const mt_scan_site *c;
	size_t k;

	close_op(inv);
	inv->sites = calloc(inv->view.ncalls + 1, sizeof(*inv->sites));
	if (!inv->sites)
		abort();
	for (k = 0; k < inv->view.ncalls; k++) {
		char buf[512];
		int w;
		c = &inv->view.calls[k];
		if (!same_str(c->op, inv->ops[i].name))
			continue;
		inv->sites[inv->nsites++] = c;
		w = draw_width(site_where(buf, sizeof(buf), c));
		inv->site_w = w > inv->site_w ? w : inv->site_w;
	}
	inv->opened = i + 1;
}

/* --- handling keys ------------------------------------------------------- */

static int move_to(struct inventory *inv, enum inv_view v, long to)
{
	int n = row_count(inv, v);

	to = to >= n ? n - 1 : to;
	inv->cursor[v] = to < 0 ? 0 : (int)to;
	return TUI_HANDLED | TUI_REDRAW;
}

/* Enter on an op opens it (or closes it when open); on a call site, it
 * closes the op it belongs to. */
static int toggle_op(struct inventory *inv)
{
	int site, i = op_row(inv, inv->cursor[INV_OPS], &site);

	if (i >= (int)inv->nops)
		return TUI_HANDLED;
	if (site >= 0 || i == inv->opened - 1)
		close_op(inv);
	else
		open_op(inv, i);
	inv->cursor[INV_OPS] = i;
	return TUI_HANDLED | TUI_REDRAW;
}

int inventory_handle(struct inventory *inv, enum inv_view v, enum tui_action a)
{
	int page = inv->list_rows > 2 ? inv->list_rows - 1 : 1, site;

	if (!inv->scan)
		return TUI_UNHANDLED;
	switch (a) {
	case TUI_ACT_MOVE_UP:
		return move_to(inv, v, (long)inv->cursor[v] - 1);
	case TUI_ACT_MOVE_DOWN:
		return move_to(inv, v, (long)inv->cursor[v] + 1);
	case TUI_ACT_PAGE_UP:
		return move_to(inv, v, (long)inv->cursor[v] - page);
	case TUI_ACT_PAGE_DOWN:
		return move_to(inv, v, (long)inv->cursor[v] + page);
	case TUI_ACT_FIRST:
		return move_to(inv, v, 0);
	case TUI_ACT_LAST:
		return move_to(inv, v, row_count(inv, v) - 1);
	case TUI_ACT_OPEN:
		return v == INV_OPS ? toggle_op(inv) : TUI_HANDLED;
	case TUI_ACT_BACK:
		if (v != INV_OPS || !inv->opened)
			return TUI_UNHANDLED;
		inv->cursor[v] = op_row(inv, inv->cursor[v], &site);
		close_op(inv);
		return TUI_HANDLED | TUI_REDRAW;
	default:
		return TUI_UNHANDLED;
	}
}

/* --- drawing rows -------------------------------------------------------- */

/* The location column of the open op's call sites: as wide as the widest,
 * up to three fifths of the row. */
static int site_width(const struct inventory *inv, int width)
{
	int max = (width - 4) * 3 / 5;
	return inv->site_w < max ? inv->site_w : max;
}

static void op_line(struct inventory *inv, struct tui_page *p, int r, int sel, int focused)
{
	char count[24], files[24], loc[512];
	int site, i = op_row(inv, r, &site);
	const struct inv_op *op = &inv->ops[i];
	mt_buf text = MT_BUF_INIT;

	if (site < 0) {
		snprintf(count, sizeof(count), "%lld", (long long)op->count);
		snprintf(files, sizeof(files), "%zu", op->nfiles);
		mt_buf_printf(&text, "%s %s",
			      draw_glyph(i == inv->opened - 1 ? GLYPH_OPEN : GLYPH_CLOSED),
			      op->name ? op->name : "(no aten op)");
		struct tui_cell c[] = {{mt_buf_cstr(&text), p->width - 14, 0, 0,
				        op->name ? STYLE_NORMAL : STYLE_DIM},
				       {count, 6, 1, 0, STYLE_NORMAL},
				       {files, 6, 1, 0, STYLE_DIM}};
		tui_row(p, c, 3, sel, focused);
	} else {
		const mt_scan_site *call = inv->sites[site];
		struct tui_cell c[] = {{"", 3, 0, 0, STYLE_NORMAL},
				       {site_where(loc, sizeof(loc), call),
				        site_width(inv, p->width), 0, 1, STYLE_NORMAL},
				       {call->api, 0, 0, 0, STYLE_DIM}};
		tui_row(p, c, 3, sel, focused);
	}
	mt_buf_dispose(&text);
}

static void file_line(struct inventory *inv, struct tui_page *p, int r, int sel, int focused)
{
	const mt_scan_file *f = &inv->view.files[r];
	char calls[24], methods[24], findings[24];

	snprintf(calls, sizeof(calls), "%lld", (long long)f->calls);
	snprintf(methods, sizeof(methods), "%lld", (long long)f->methods);
	snprintf(findings, sizeof(findings), "%lld", (long long)f->findings);
	struct tui_cell c[] = {{f->path, p->width - 27, 0, 1, STYLE_NORMAL},
			       {calls, 7, 1, 0, STYLE_NORMAL},
			       {methods, 8, 1, 0, STYLE_NORMAL},
			       {findings, 9, 1, 0, f->findings ? STYLE_WARN : STYLE_DIM}};
	tui_row(p, c, 4, sel, focused);
}

enum draw_style inventory_effort_style(const char *effort)
{
	if (same_str(effort, "high"))
		return STYLE_ERROR;
	if (same_str(effort, "medium"))
		return STYLE_WARN;
	return same_str(effort, "low") ? STYLE_NORMAL : STYLE_DIM;
}

/* Column widths of the finding list: as wide as the widest value within
 * limits, narrowed (the wider first) until the message has some room; the
 * whole message shows under the list. */
static void finding_widths(const struct inventory *inv, int width, int *kind_w, int *loc_w)
{
	*kind_w = inv->kind_w > MAX_KIND_W ? MAX_KIND_W : inv->kind_w;
	*loc_w = inv->where_w > MAX_LOC_W ? MAX_LOC_W : inv->where_w;
	while (EFFORT_W + 1 + *kind_w + 1 + *loc_w + 1 + MIN_MESSAGE_W > width &&
	       (*kind_w > 6 || *loc_w > 6)) {
		if (*loc_w >= *kind_w)
			(*loc_w)--;
		else
			(*kind_w)--;
	}
}

static void finding_line(struct inventory *inv, struct tui_page *p, int r, int sel, int focused)
{
	const mt_scan_finding *f = inv->findings[r];
	char loc[512];
	int kind_w, loc_w;

	finding_widths(inv, p->width, &kind_w, &loc_w);
	struct tui_cell c[] = {{f->effort, EFFORT_W, 0, 0, inventory_effort_style(f->effort)},
			       {f->kind, kind_w, 0, 0, STYLE_NORMAL},
			       {where(loc, sizeof(loc), f->file, f->line), loc_w, 0, 1, STYLE_DIM},
			       {f->message, 0, 0, 0, STYLE_NORMAL}};
	tui_row(p, c, 4, sel, focused);
}

static void header_line(struct tui_page *p, enum inv_view v, const struct inventory *inv)
{
	int kind_w, loc_w;

	if (v == INV_OPS) {
		struct tui_cell c[] = {{"op", p->width - 14, 0, 0, STYLE_DIM},
				       {"calls", 6, 1, 0, STYLE_DIM},
				       {"files", 6, 1, 0, STYLE_DIM}};
		tui_row(p, c, 3, 0, 0);
	} else if (v == INV_FILES) {
		struct tui_cell c[] = {{"file", p->width - 27, 0, 0, STYLE_DIM},
				       {"calls", 7, 1, 0, STYLE_DIM},
				       {"methods", 8, 1, 0, STYLE_DIM},
				       {"findings", 9, 1, 0, STYLE_DIM}};
		tui_row(p, c, 4, 0, 0);
	} else {
		finding_widths(inv, p->width, &kind_w, &loc_w);
		struct tui_cell c[] = {{"effort", EFFORT_W, 0, 0, STYLE_DIM},
				       {"kind", kind_w, 0, 0, STYLE_DIM},
				       {"where", loc_w, 0, 0, STYLE_DIM},
				       {"message", 0, 0, 0, STYLE_DIM}};
		tui_row(p, c, 4, 0, 0);
	}
}

/* --- the selected row's source ------------------------------------------- */

/* What the selected row points at in the source. */
struct target {
	const char *file;
	long line, col; /* line from 1, column from 0 (as the scan gives them) */
	const char *what;    /* "torch.relu", a finding's kind, ... */
	const char *message; /* a finding's message, or NULL */
};

static struct target call_target(const mt_scan_site *c)
{
	return (struct target){c->file, (long)c->line, (long)c->col, c->api, NULL};
}

static struct target selected_target(const struct inventory *inv, enum inv_view v)
{
	struct target t = {0};
	int site, r = inv->cursor[v];
	const mt_scan_site *o;

	if (v == INV_OPS && r < row_count(inv, v)) {
		int i = op_row(inv, r, &site);
		o = site >= 0 ? inv->sites[site] : first_call(inv, 0, inv->ops[i].name);
		t = o ? call_target(o) : t;
	} else if (v == INV_FILES) {
		const char *path = r >= 0 && (size_t)r < inv->view.nfiles ? inv->view.files[r].path
									  : NULL;
		o = first_call(inv, 1, path);
		t = o ? call_target(o) : (struct target){path, 0, 0, NULL, NULL};
	} else if (v == INV_FINDINGS && r < (int)inv->nfindings) {
		const mt_scan_finding *f = inv->findings[r];
		t = (struct target){f->file, (long)f->line, (long)f->col, f->kind, f->message};
	}
	return t;
}

/* "── src/train.py:8:12 torch.nn.functional.cross_entropy ──────" */
static void rule_line(struct tui_page *p, const struct target *t)
{
	mt_buf b = MT_BUF_INIT;

	if (t->file && t->line > 0)
		mt_buf_printf(&b, "%s:%ld:%ld", t->file, t->line, t->col + 1);
	else if (t->file)
		mt_buf_puts(&b, t->file);
	if (t->what)
		mt_buf_printf(&b, "%s%s", b.len ? " " : "", t->what);
	tui_rule(p, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

/* The rows lines of the source around t (rows == 1: its line alone). */
static void source_rows(struct tui_page *p, struct inventory *inv, const struct target *t,
			int rows)
{
	const mt_scan_view *s = &inv->view;
	struct source_at at = {s->repo, s->rev, s->worktree, t->file, t->line, t->col};

	if (!t->file || t->line < 1) {
		page_line(p);
		page_add_at(p, 2, STYLE_DIM, t->file ? "no torch call in this file" : "");
		return;
	}
	source_draw(&inv->src, p, &at, rows);
}

static void detail(struct tui_page *p, struct inventory *inv, enum inv_view v, int rows)
{
	struct target t = selected_target(inv, v);

	rule_line(p, &t);
	if (t.message) {
		source_rows(p, inv, &t, 1);
		tui_wrap_rows(p, t.message, 2, rows - 2, STYLE_NORMAL);
	} else {
		source_rows(p, inv, &t, rows - 1);
	}
}

/* --- the view ------------------------------------------------------------ */

static void title_line(struct tui_page *p, enum inv_view v, const struct inventory *inv)
{
	char hint[64];

	page_line(p);
	if (v == INV_OPS)
		page_addf(p, STYLE_HEADING, "By op: %zu ops, %lld calls", inv->nops,
			  (long long)inv->view.totals.calls);
	else if (v == INV_FILES)
		page_addf(p, STYLE_HEADING, "By file: %zu files", inv->view.nfiles);
	else
		page_addf(p, STYLE_HEADING, "By finding: %zu, most effort first", inv->nfindings);
	snprintf(hint, sizeof(hint), "%s", v == INV_OPS ? "  Enter: call sites" : "");
	page_add(p, STYLE_DIM, hint);
}

/* Rows for the source under the list: more on a tall pane. */
static int detail_rows(int height)
{
	return height >= 24 ? 6 : height >= 14 ? 4 : 2;
}

void inventory_draw(struct inventory *inv, enum inv_view v, const struct tui_ctx *ctx,
		    struct tui_page *p)
{
	int height = p->height > 0 ? p->height : 20, rows = detail_rows(height);
	int n = row_count(inv, v), list = height - 2 - rows, *top = &inv->top[v];
	int cur = inv->cursor[v] < n ? inv->cursor[v] : n - 1;

	title_line(p, v, inv);
	header_line(p, v, inv);
	list = list < 1 ? 1 : n > list ? tui_list_fit(list, n) : list; /* short: padded */
	inv->list_rows = list;
	cur = cur < 0 ? 0 : cur;
	inv->cursor[v] = cur;
	if (cur < *top)
		*top = cur;
	if (cur >= *top + list)
		*top = cur - list + 1;
	if (*top > n - list)
		*top = n - list > 0 ? n - list : 0;
	for (int r = *top; r < *top + list; r++) {
		if (r >= n) {
			page_line(p);
			if (r == 0)
				page_add_at(p, 2, STYLE_DIM, "(none)");
			continue;
		}
		if (v == INV_OPS)
			op_line(inv, p, r, r == cur, ctx->focused);
		else if (v == INV_FILES)
			file_line(inv, p, r, r == cur, ctx->focused);
		else
			finding_line(inv, p, r, r == cur, ctx->focused);
	}
	tui_list_more(p, *top, list, n);
	if (n)
		detail(p, inv, v, rows);
}
