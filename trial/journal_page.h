/* The journal's long lists a page at a time, for a reader that shows the
 * newest first and never holds them all (the wizard on a trial of 100,000
 * notes, issue 18). */
#ifndef MT_JOURNAL_PAGE_H
#define MT_JOURNAL_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "journal.h"

/* *out the notes not withdrawn, counted by SQL without reading them. */
int mt_journal_note_count(mt_journal *j, size_t *out);

/* *out the effort intervals not withdrawn, counted as the notes. */
int mt_journal_effort_count(mt_journal *j, size_t *out);

/* *out the runs not withdrawn, of `status` ("running") or, NULL, any. */
int mt_journal_run_count(mt_journal *j, const char *status, size_t *out);

/* Calls cb for at most `limit` notes not withdrawn, newest first, from
 * the newest whose id is below `before` (0: from the newest of all): a page
 * keyed by the last id shown, so that a note added meanwhile does not shift
 * the next page. The note is borrowed as for mt_journal_notes_foreach; a
 * non-zero return from cb stops the walk and is returned. */
int mt_journal_notes_page(mt_journal *j, int64_t before, size_t limit, mt_note_cb cb,
			  void *payload);

#endif
