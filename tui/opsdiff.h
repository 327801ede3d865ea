/* The Ops step's differences view and the names of op sources: what the
 * static scan saw against what a trace or a TorchScript archive holds. */
#ifndef MT_TUI_OPSDIFF_H
#define MT_TUI_OPSDIFF_H

#include <jansson.h>

#include "opinventory.h"
#include "page.h"
#include "util.h"

/* Appends what an inventory is to b: "trace /tmp/ops.json, 3 optimizer
 * steps", "TorchScript /m/net.pt", "scan abc1234". source NULL is a scan's;
 * rev is a scan's revision, file an exact source's, steps a trace's
 * optimizer steps (-1: not known). */
void opsdiff_describe(mt_buf *b, const char *source, const char *file, const char *rev,
		      int64_t steps);

/* The differences the view shows: mt_opinventory_diff's result (its side a
 * the scan) read, each side's trace steps, or why there are none. Zeroed is
 * none. */
struct opsdiff {
	json_t *diff;               /* own reference; NULL: none */
	mt_opinventory_diff_view v; /* diff read, borrowing from it */
	int64_t steps[2];           /* sides a and b: a trace's optimizer steps, -1 */
	char *why;                  /* with no diff: what to record first */
};

/* Takes diff (a reference; NULL for none) with its sides' steps (NULL:
 * none known) or, with no diff, why (copied). */
void opsdiff_set(struct opsdiff *d, json_t *diff, const int64_t steps[2], const char *why);
void opsdiff_dispose(struct opsdiff *d);

/* Draws the differences as one page the frame scrolls: the sources, a line
 * on why some ops are on one side by design, then the ops the scan missed,
 * those seen only in backward and those only in the scan, each with its
 * count. With no diff, `why` says what to record first. */
void opsdiff_draw(struct tui_page *p, const struct opsdiff *d);

#endif
