/* The text of the file a call site or finding is in, as the scan saw it:
 * read through libgit2 at the scan's revision (from the work tree when the
 * scan included it). The last file asked for is kept, and so is a failure
 * to read it, so that moving within one file, and the redraw every second,
 * read nothing again. No curses here. */
#ifndef MT_TUI_SOURCE_H
#define MT_TUI_SOURCE_H

#include <stddef.h>

#include "gitread.h"
#include "page.h"

/* Zeroed is empty. What it holds is keyed by repo, rev, worktree and path. */
struct tui_source {
	char *repo, *rev, *path;
	int worktree;
	mt_gitrepo *git; /* open on `repo`, kept across files */
	char *data;      /* the file, NUL-terminated; NULL when it failed */
	size_t size;
	size_t *starts;  /* byte offset of each line */
	size_t nlines;
	char error[256]; /* why data is NULL */
};

/* Makes path (repository-relative) at rev in the repository at `repo` the
 * file held, reading it unless it is already. 0, or -1 with s->error set. */
int source_load(struct tui_source *s, const char *repo, const char *rev, int worktree,
		const char *path);

/* Line n (from 1) of the file held, without its line end, and its length;
 * NULL past the end or when nothing is held. Borrowed until the next load. */
const char *source_line(const struct tui_source *s, int n, size_t *len);

/* Where a call or finding is, for source_draw. Borrowed. */
struct source_at {
	const char *repo, *rev; /* the scan's */
	int worktree;           /* the scan read the work tree */
	const char *file;       /* repository-relative */
	long line, col;         /* line from 1, column from 0 (as scans give them) */
};

/* Appends `rows` lines of the file around at->line to p (rows == 1: that
 * line alone), each with its number, that line marked with an arrow and,
 * when at->col would be off the right edge, every line shifted left behind
 * an ellipsis. A file that cannot be read shows why on one line. */
void source_draw(struct tui_source *s, struct tui_page *p, const struct source_at *at, int rows);

/* Forgets the file held (a new scan may have read another version of it
 * from the work tree); the repository stays open. */
void source_forget(struct tui_source *s);

/* Releases everything and zeroes s. */
void source_dispose(struct tui_source *s);

#endif
