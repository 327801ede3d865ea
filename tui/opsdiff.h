/* The Ops step's differences view and the names of op sources: what the
 * static scan saw against what a trace or a TorchScript archive holds. */
#ifndef MT_TUI_OPSDIFF_H
#define MT_TUI_OPSDIFF_H

#include <jansson.h>

#include "page.h"
#include "util.h"

/* Appends what an inventory is to b: "trace /tmp/ops.json, 3 optimizer
 * steps", "TorchScript /m/net.pt", "scan abc1234". `side` has "source" and,
 * as mt_opinventory_diff's sides and a probe's "from" have them, "file" and a
 * trace's "steps"; `rev` is a scan's revision (NULL: side's "rev"). */
void opsdiff_describe(mt_buf *b, json_t *side, const char *rev);

/* Draws the differences (mt_opinventory_diff's result, its side a the scan)
 * as one page the frame scrolls: the sources, a line on why some ops are on
 * one side by design, then the ops the scan missed, those seen only in
 * backward and those only in the scan, each with its count. With no diff,
 * `why` says what to record first. */
void opsdiff_draw(struct tui_page *p, json_t *diff, const char *why);

#endif
