/* The differences between the static scan and an exact source of ops, as
 * `mtrial ops diff scan trace` prints them, for the Ops step. The page is as
 * tall as the lists: the frame scrolls it, so every op can be read. */
#include "opsdiff.h"
#include "screen.h"
#include "rows.h"
#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_W 8

void opsdiff_describe(mt_buf *b, const char *source, const char *file, const char *rev,
		      int64_t steps)
{
	source = source ? source : "scan";
	if (strcmp(source, "scan") == 0) {
		mt_buf_printf(b, "scan %.7s", rev ? rev : "");
		return;
	}
	mt_buf_printf(b, "%s %s", strcmp(source, "torchscript") == 0 ? "TorchScript" : source,
		      file ? file : "?");
	if (steps >= 0)
		mt_buf_printf(b, ", %lld optimizer steps", (long long)steps);
}

void opsdiff_set(struct opsdiff *d, json_t *diff, const int64_t steps[2], const char *why)
{
	opsdiff_dispose(d);
	if (diff && mt_opinventory_diff_view_read(&d->v, diff) < 0)
		mt_error_clear(); /* what is there is drawn */
	d->diff = json_incref(diff);
	d->steps[0] = steps ? steps[0] : -1;
	d->steps[1] = steps ? steps[1] : -1;
	d->why = why ? mt_strdup(why) : NULL;
}

void opsdiff_dispose(struct opsdiff *d)
{
	if (d->diff)
		mt_opinventory_diff_view_dispose(&d->v);
	json_decref(d->diff);
	free(d->why);
	memset(d, 0, sizeof(*d));
}

/* "  against   scan abc1234" and the like: side 0 (a) or 1 (b). */
static void side_field(struct tui_page *p, const char *key, const struct opsdiff *d, int side)
{
	mt_buf b = MT_BUF_INIT;

	if (side == 0)
		opsdiff_describe(&b, d->v.a.source, d->v.a.file, d->v.a.rev, d->steps[0]);
	else
		opsdiff_describe(&b, d->v.b.source, d->v.b.file, d->v.b.rev, d->steps[1]);
	tui_wrap_field(p, TUI_LABEL_COL, key, TUI_VALUE_COL, mt_buf_cstr(&b), 2, STYLE_NORMAL);
	mt_buf_dispose(&b);
}

/* Why ops are on one side by design, for the kind of exact source. */
static void explanation(struct tui_page *p, const char *exact_source)
{
	char text[400];

	if (strcmp(exact_source ? exact_source : "", "trace") == 0)
		snprintf(text, sizeof(text),
			 "A trace names what the dispatcher ran after decomposition "
			 "(aten::linear %s aten::t + aten::addmm) and every backward op; the scan "
			 "names the calls in the code. A composite and what it decomposes into "
			 "are matched (Run decomposed), each op is listed once.",
			 draw_glyph(GLYPH_ARROW));
	else
		snprintf(text, sizeof(text),
			 "A TorchScript graph names the ops its exported methods call, as the scan "
			 "does, with the model's submodules inlined; it has no loss, backward or "
			 "optimizer, which the scan may see in the training code.");
	page_para(p, TUI_LABEL_COL, STYLE_DIM, text);
}

/* A count of one side: `which` 0 for the scan, 1 for the exact source, -1
 * for whichever saw the op. */
static int64_t count_of(const mt_opinventory_diff_op *op, int which)
{
	return which == 0 ? op->a : which == 1 || op->b ? op->b : op->a;
}

/* "Missed by the static scan (12)" then its ops with their counts. */
static void section(struct tui_page *p, const mt_opinventory_diff_list *ops, const char *title,
		    int which)
{
	char heading[96], count[24];

	snprintf(heading, sizeof(heading), "%s (%zu)", title, ops->n);
	tui_heading(p, heading);
	if (!ops->n) {
		page_line(p);
		page_add_at(p, TUI_LABEL_COL, STYLE_DIM, "(none)");
	}
	for (size_t i = 0; i < ops->n; i++) {
		struct tui_cell c[] = {
			{"", 1, 0, 0, STYLE_NORMAL},
			{ops->v[i].op, p->width - 3 - COUNT_W, 0, 0, STYLE_NORMAL},
			{count, COUNT_W, 1, 0, STYLE_NORMAL},
		};
		snprintf(count, sizeof(count), "%lld", (long long)count_of(&ops->v[i], which));
		tui_row(p, c, 3, 0, 0);
	}
}

/* "Run decomposed (3)": each composite the scan names, then the ops the
 * trace ran for it. */
static void decomposed(struct tui_page *p, const mt_opinventory_diff_view *v)
{
	char heading[96];

	if (!v->ndecomposed)
		return;
	snprintf(heading, sizeof(heading), "Run decomposed (%zu)", v->ndecomposed);
	tui_heading(p, heading);
	for (size_t i = 0; i < v->ndecomposed; i++) {
		const mt_inventory_decomposition *d = &v->decomposed[i];
		mt_buf b = MT_BUF_INIT;
		mt_buf_printf(&b, "%s %s", d->composite, draw_glyph(GLYPH_ARROW));
		for (size_t k = 0; k < d->nops; k++)
			mt_buf_printf(&b, "%s %s", k ? "," : "", d->ops[k]);
		struct tui_cell c[] = {
			{"", 1, 0, 0, STYLE_NORMAL},
			{mt_buf_cstr(&b), p->width - 2, 0, 0, STYLE_NORMAL},
		};
		tui_row(p, c, 2, 0, 0);
		mt_buf_dispose(&b);
	}
}

void opsdiff_draw(struct tui_page *p, const struct opsdiff *d)
{
	const mt_opinventory_diff_view *v = &d->v;
	char title[96];

	page_line(p);
	page_add(p, STYLE_HEADING, "Differences");
	page_add(p, STYLE_DIM, "  (Esc returns to the ops)");
	if (!d->diff) {
		page_para(p, TUI_LABEL_COL, STYLE_WARN, d->why ? d->why : "Nothing to compare.");
		return;
	}
	side_field(p, "ops of", d, 1);
	side_field(p, "against", d, 0);
	explanation(p, v->b.source);
	section(p, &v->missed_by_scan, "Missed by the static scan", 1);
	decomposed(p, v);
	section(p, &v->backward_only, "Seen only in backward", -1);
	section(p, &v->only_a, "Only in the scan", 0);
	snprintf(title, sizeof(title), "In both: %zu ops", v->both.n);
	tui_heading(p, title);
}
