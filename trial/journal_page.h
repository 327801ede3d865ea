/* The journal's long lists a page at a time, for a reader that shows the
 * newest first and never holds them all (the wizard on a trial of 100,000
 * notes, issue 18). */
#ifndef MT_JOURNAL_PAGE_H
#define MT_JOURNAL_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "journal.h"

/* *out the notes not withdrawn whose id is above after_id (0: all),
 * counted by SQL without reading them: all of them reads every page of
 * the table; those since a known id only the newest. */
int mt_journal_note_count(mt_journal *j, int64_t after_id, size_t *out);

/* *out 1 when the journal holds a `kind` ("note", "effort", "run") that
 * is not withdrawn, else 0: one row read, however many there are. */
int mt_journal_has(mt_journal *j, const char *kind, int *out);

/* *count the notes not withdrawn on `track`, and *newest (caller frees;
 * NULL with none) the newest one's text. Reads every note, as a count. */
int mt_journal_track_notes(mt_journal *j, const char *track, size_t *count, char **newest);

/* *out the largest run id, 0 with none: a bound on the runs there are
 * (withdrawn ones too), read from the table's last row alone. */
int mt_journal_run_id_max(mt_journal *j, int64_t *out);

/* Calls cb for at most `limit` notes not withdrawn, newest first, from
 * the newest whose id is below `before` (0: from the newest of all): a page
 * keyed by the last id shown, so that a note added meanwhile does not shift
 * the next page. The note is borrowed as for mt_journal_notes_foreach; a
 * non-zero return from cb stops the walk and is returned. */
int mt_journal_notes_page(mt_journal *j, int64_t before, size_t limit, mt_note_cb cb,
			  void *payload);

#endif
