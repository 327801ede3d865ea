/* Private to git/: what its files share about libgit2. */
#ifndef MT_GIT_INT_H
#define MT_GIT_INT_H

#include <stdio.h>

#include "error.h"
#include "git2_int.h"
#include "gitpack.h"
#include "gitread.h"

/* Sets `code` with "what: <libgit2's last error>" and returns it. */
static inline int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();
	return mt_error_set(code, "%s: %s", what, e && e->message ? e->message : "libgit2 error");
}

/* A repository handle (gitread.h): opened and listed in gitrepo.c, read
 * from in gitread.c. */
struct mt_gitrepo {
	git_repository *repo;
	git_odb *odb;
	char *path;   /* work tree root or git dir, no trailing '/' */
	char *gitdir; /* libgit2's git dir, for mt_gitrepo_dup() */
	int bare;
	mt_gitpack *pack; /* packs read directly, opened on the first blob */
	int pack_tried;
};

/* A git dir opened by libgit2 as having its parent for a work tree when
 * git itself would take it as bare (no core.bare, not named .git, no
 * core.worktree: a mirror, a hand-made copy): *repo reopened bare then. */
int mt_gitrepo__guess_bare(git_repository **repo);

/* The pack reader of r's object database, opened on the first call (NULL
 * when the packs cannot be read directly: libgit2 reads them then). */
mt_gitpack *mt_gitread__pack(mt_gitrepo *r);

/* The skip reason for an object libgit2 could not read (a corrupt loose
 * object, a damaged pack): its id and libgit2's words. */
static inline void unreadable(char *why, size_t size, const char *what, const char *hex)
{
	const git_error *e = git_error_last();
	snprintf(why, size, "unreadable %s %s: %s", what, hex,
		 e && e->message ? e->message : "libgit2 error");
}

/* When the work tree under root holds directories `limit` levels deep,
 * returns 1 with those (deep, repository-relative) and pathspecs covering
 * every other file and directory (specs); 0 when there is none. The caller
 * frees both arrays and their strings. (gitread_deep.c, for gitrepo.c) */
int mt_gitread__deep_dirs(char ***specs, size_t *nspecs, char ***deep, size_t *ndeep,
			  const char *root, int limit);

#endif
