/* The Tracks & effort step's notes, a page at a time (notelist.h). */
#include "notelist.h"
#include "journal_page.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
	return s ? mt_strdup(s) : NULL;
}

/* Appends a copy of the note the journal lends. */
static int take_note(const mt_note *note, void *payload)
{
	struct tui_notelist *l = payload;
	mt_note *n;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : TUI_NOTES_PAGE;
		if (!(l->notes = realloc(l->notes, l->cap * sizeof(*l->notes))))
			abort();
	}
	n = &l->notes[l->n++];
	*n = (mt_note){.id = note->id, .created_ms = note->created_ms,
		       .track = dup_or_null(note->track), .text = dup_or_null(note->text),
		       .interval_id = note->interval_id, .ntags = note->ntags,
		       .author = dup_or_null(note->author), .email = dup_or_null(note->email),
		       .host = dup_or_null(note->host)};
	n->tags = note->ntags ? calloc(note->ntags, sizeof(*n->tags)) : NULL;
	if (note->ntags && !n->tags)
		abort();
	for (size_t i = 0; i < note->ntags; i++)
		n->tags[i] = mt_strdup(note->tags[i]);
	return 0;
}

static void clear(struct tui_notelist *l)
{
	for (size_t i = 0; i < l->n; i++)
		mt_note_dispose(&l->notes[i]);
	l->n = 0;
}

/* Reads up to `want` notes older than `before` (0: the newest). */
static int read_page(struct tui_notelist *l, mt_journal *j, int64_t before, size_t want)
{
	size_t had = l->n;
	int error = mt_journal_notes_page(j, before, want, take_note, l);

	l->more = error == 0 && l->n - had == want;
	return error;
}

int tui_notelist_reread(struct tui_notelist *l, mt_journal *j)
{
	size_t want = l->n > TUI_NOTES_PAGE ? l->n : TUI_NOTES_PAGE;

	clear(l);
	return read_page(l, j, 0, want);
}

int tui_notelist_more(struct tui_notelist *l, mt_journal *j)
{
	if (!l->more || !l->n)
		return 0;
	return read_page(l, j, l->notes[l->n - 1].id, TUI_NOTES_PAGE);
}

void tui_notelist_dispose(struct tui_notelist *l)
{
	clear(l);
	free(l->notes);
	memset(l, 0, sizeof(*l));
}
