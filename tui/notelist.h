/* The friction notes the Tracks & effort step lists, newest first, read
 * from the journal a page at a time as the reader scrolls towards the
 * oldest: a trial of 100,000 notes opens as fast as one of ten (issue 18). */
#ifndef MT_TUI_NOTELIST_H
#define MT_TUI_NOTELIST_H

#include <stddef.h>
#include <stdint.h>

#include "journal.h"

/* Notes read per page. */
#define TUI_NOTES_PAGE 100

struct tui_notelist {
	mt_note *notes;   /* owned; newest first */
	size_t n, cap;
	int more;         /* older notes are left to read */
	unsigned reload;  /* the wizard's reload they were read at */
};

/* Reads the newest notes again, as many as were read (a page at least),
 * so that a note added meanwhile shows at the top and paging stays put. */
int tui_notelist_reread(struct tui_notelist *l, mt_journal *j);

/* Reads the next page of older notes, when there are more. */
int tui_notelist_more(struct tui_notelist *l, mt_journal *j);

void tui_notelist_dispose(struct tui_notelist *l);

#endif
