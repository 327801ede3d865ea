/* The latest scan's inventory as three lists for the Repository step: by op
 * (an op opens onto its call sites), by file, and by finding (most effort
 * first). A cursor moves through the list; under it, the selected call
 * site's source line with a few lines around it, read from the repository
 * at the scan's revision. Each list fills the page exactly (page->height
 * rows), so the frame never scrolls it: the list scrolls itself to keep the
 * cursor in view and the source stays put. No curses here. */
#ifndef MT_TUI_INVENTORY_H
#define MT_TUI_INVENTORY_H

#include <stdint.h>
#include <jansson.h>

#include "scan_view.h"
#include "screen.h"
#include "source.h"

enum inv_view { INV_OPS, INV_FILES, INV_FINDINGS, INV__COUNT };

struct inv_op {
	const char *name; /* borrowed from the scan; NULL: calls no aten op maps */
	json_int_t count;
	size_t nfiles;
};

/* Zeroed is empty (no scan). Everything below borrows from `view`. */
struct inventory {
	json_t *scan; /* own reference */
	mt_scan_view view; /* the scan read, borrowing from it */
	int64_t scan_id;
	struct inv_op *ops; /* most calls first, then by name */
	size_t nops;
	int opened;         /* 1 + the index of the op showing its call
			       sites; 0 for none */
	const mt_scan_site **sites; /* that op's calls, in file and line order */
	size_t nsites;
	int site_w;         /* the widest "file:line:col" among them */
	const mt_scan_finding **findings; /* most effort first, in scan order within one level */
	size_t nfindings;
	int kind_w, where_w; /* the widest kind and "file:line" among them */
	int cursor[INV__COUNT], top[INV__COUNT];
	int list_rows; /* list rows at the last draw, for paging */
	struct tui_source src;
};

/* Takes the scan (borrowed; NULL for none) when it is another than the one
 * held, indexing it afresh with every cursor at the top. Returns 1 then. */
int inventory_sync(struct inventory *inv, json_t *scan, int64_t scan_id);

/* Draws view v into p. */
void inventory_draw(struct inventory *inv, enum inv_view v, const struct tui_ctx *ctx,
		    struct tui_page *p);

/* Moves the cursor of view v, or opens or closes the op under it (OPEN,
 * BACK). Returns tui_result bits; TUI_UNHANDLED for BACK with no op open
 * and for the actions it has no use for. */
int inventory_handle(struct inventory *inv, enum inv_view v, enum tui_action a);

/* The style an effort level shows in: high as an error, medium as a
 * warning, low as plain text, none dim. */
enum draw_style inventory_effort_style(const char *effort);

/* Releases everything and zeroes inv. */
void inventory_dispose(struct inventory *inv);

#endif
