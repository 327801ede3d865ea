/* The differences between the static scan and an exact source of ops, as
 * `mtrial ops diff scan trace` prints them, for the Ops step. The page is as
 * tall as the lists: the frame scrolls it, so every op can be read. */
#include "opsdiff.h"
#include "screen.h"
#include "rows.h"
#include "model_path.h"
#include "jsonutil.h"

#include <stdio.h>
#include <string.h>

#define COUNT_W 8

void opsdiff_describe(mt_buf *b, json_t *side, const char *rev)
{
	const char *source = mt_json_str(side, "source") ? mt_json_str(side, "source") : "scan";
	const char *file = mt_json_str(side, "file");

	rev = rev ? rev : mt_json_str(side, "rev");
	if (strcmp(source, "scan") == 0) {
		mt_buf_printf(b, "scan %.7s", rev ? rev : "");
		return;
	}
	mt_buf_printf(b, "%s %s", strcmp(source, "torchscript") == 0 ? "TorchScript" : source,
		      file ? file : "?");
	if (json_object_get(side, "steps"))
		mt_buf_printf(b, ", %lld optimizer steps", (long long)jv_int(side, "steps", 0));
}

/* "  against   scan abc1234" and the like. */
static void side_field(struct tui_page *p, const char *key, json_t *side)
{
	mt_buf b = MT_BUF_INIT;

	opsdiff_describe(&b, side, NULL);
	tui_wrap_field(p, TUI_LABEL_COL, key, TUI_VALUE_COL, mt_buf_cstr(&b), 2, STYLE_NORMAL);
	mt_buf_dispose(&b);
}

/* Why ops are on one side by design, for the kind of exact source. */
static void explanation(struct tui_page *p, json_t *exact)
{
	char text[400];

	if (strcmp(mt_json_str(exact, "source") ? mt_json_str(exact, "source") : "", "trace") == 0)
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
static json_int_t count_of(json_t *diff, const char *op, int which)
{
	json_t *c = json_object_get(json_object_get(diff, "counts"), op);
	json_int_t a = json_integer_value(json_array_get(c, 0));
	json_int_t b = json_integer_value(json_array_get(c, 1));

	return which == 0 ? a : which == 1 || b ? b : a;
}

/* "Missed by the static scan (12)" then its ops with their counts. */
static void section(struct tui_page *p, json_t *diff, const char *key, const char *title,
		    int which)
{
	json_t *ops = json_object_get(diff, key), *op;
	char heading[96], count[24];
	size_t i;

	snprintf(heading, sizeof(heading), "%s (%zu)", title, json_array_size(ops));
	tui_heading(p, heading);
	if (!json_array_size(ops)) {
		page_line(p);
		page_add_at(p, TUI_LABEL_COL, STYLE_DIM, "(none)");
	}
	json_array_foreach(ops, i, op) {
		struct tui_cell c[] = {
			{"", 1, 0, 0, STYLE_NORMAL},
			{json_string_value(op), p->width - 3 - COUNT_W, 0, 0, STYLE_NORMAL},
			{count, COUNT_W, 1, 0, STYLE_NORMAL},
		};
		snprintf(count, sizeof(count), "%lld",
			 (long long)count_of(diff, json_string_value(op), which));
		tui_row(p, c, 3, 0, 0);
	}
}

/* "Run decomposed (3)": each composite the scan names, then the ops the
 * trace ran for it. */
static void decomposed(struct tui_page *p, json_t *diff)
{
	json_t *ops = json_object_get(diff, "decomposed"), *op, *into, *v;
	char heading[96];
	size_t i, k;

	if (!json_array_size(ops))
		return;
	snprintf(heading, sizeof(heading), "Run decomposed (%zu)", json_array_size(ops));
	tui_heading(p, heading);
	json_array_foreach(ops, i, op) {
		mt_buf b = MT_BUF_INIT;
		into = json_object_get(json_object_get(diff, "decompositions"), json_string_value(op));
		mt_buf_printf(&b, "%s %s", json_string_value(op), draw_glyph(GLYPH_ARROW));
		json_array_foreach(into, k, v)
			mt_buf_printf(&b, "%s %s", k ? "," : "", json_string_value(v));
		struct tui_cell c[] = {
			{"", 1, 0, 0, STYLE_NORMAL},
			{mt_buf_cstr(&b), p->width - 2, 0, 0, STYLE_NORMAL},
		};
		tui_row(p, c, 2, 0, 0);
		mt_buf_dispose(&b);
	}
}

void opsdiff_draw(struct tui_page *p, json_t *diff, const char *why)
{
	json_t *exact = json_object_get(diff, "b");
	char title[96];

	page_line(p);
	page_add(p, STYLE_HEADING, "Differences");
	page_add(p, STYLE_DIM, "  (Esc returns to the ops)");
	if (!diff) {
		page_para(p, TUI_LABEL_COL, STYLE_WARN, why ? why : "Nothing to compare.");
		return;
	}
	side_field(p, "ops of", exact);
	side_field(p, "against", json_object_get(diff, "a"));
	explanation(p, exact);
	section(p, diff, "missed_by_scan", "Missed by the static scan", 1);
	decomposed(p, diff);
	section(p, diff, "backward_only", "Seen only in backward", -1);
	section(p, diff, "only_a", "Only in the scan", 0);
	snprintf(title, sizeof(title), "In both: %zu ops",
		 json_array_size(json_object_get(diff, "both")));
	tui_heading(p, title);
}
