/* The changes between two revisions of a repository, through libgit2's
 * diff (no checkout), renames found: each changed file with its text, then
 * each added or deleted line, handed to callbacks. What the lines mean is
 * the caller's business (probes/tracks.c classifies them). */
#ifndef MT_GITDIFF_H
#define MT_GITDIFF_H

#include <stddef.h>
#include "util.h"

/* One changed file. All borrowed, valid during the callback only. */
typedef struct {
	const char *path;     /* its path at head, or at base when deleted */
	const char *old_path; /* its path at base for a rename, else NULL */
	const char *status;   /* "added", "deleted", "renamed", "copied",
				 "typechange" or "modified" */
	int binary;           /* libgit2 found the change binary */
	const char *text;     /* its content at head (at base when deleted); NULL
				 when binary or unreadable */
	size_t len;
} mt_gitdiff_file;

/* One added or deleted line of the last file given. Borrowed, valid during
 * the callback only. */
typedef struct {
	int added;        /* 1 added, 0 deleted */
	int lineno;       /* its number at head when added, at base when deleted */
	const char *text; /* not NUL-terminated; ends with its newline if it had one */
	size_t len;
} mt_gitdiff_line;

/* Called for each changed file, then for each of its added and deleted
 * lines; `payload` is mt_gitdiff_trees's. A negative return stops the walk
 * and is returned (with the callback's own error message). */
typedef struct {
	int (*file)(const mt_gitdiff_file *f, void *payload);
	int (*line)(const mt_gitdiff_line *l, void *payload);
} mt_gitdiff_cb;

/* Walks the changes from `base` to `head` (any revision libgit2 reads,
 * peeled to a commit) in the repository at (or above) `repo`. base_id and
 * head_id receive the full commit ids. MT_EINVALID "not a git repository:
 * REPO (libgit2's words)" or for a revision that is not a commit;
 * MT_ENOTFOUND naming a revision that does not exist; MT_EIO with
 * libgit2's words. */
int mt_gitdiff_trees(char base_id[41], char head_id[41], const char *repo, const char *base,
		     const char *head, const mt_gitdiff_cb *cb, void *payload);

/* The same changes as a unified patch (`git diff BASE HEAD`, renames
 * found), appended to *out; errors as mt_gitdiff_trees's. */
int mt_gitdiff_patch(mt_buf *out, const char *repo, const char *base, const char *head);

#endif
