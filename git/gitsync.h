/* A set of files kept under a ref of its own, exchanged with a remote
 * (`mtrial sync`, issue 19): the files' tree read from a commit, a new
 * commit of a tree of files with its parents, the ref moved, fetched and
 * pushed. Never a branch, never the index or the work tree.
 *
 * Trees, blobs, commits and refs go through libgit2. Fetch and push run
 * the `git` command (`git ls-remote`, `git fetch`, `git push`) in the
 * repository, so that the user's own setup (ssh agents, credential
 * helpers, insteadOf, proxies) applies; its words are kept on failure. */
#ifndef MT_GITSYNC_H
#define MT_GITSYNC_H

#include <stddef.h>

#include "gitread.h"

/* One file of a tree: its path ('/'-separated, from the tree's root) and
 * blob id. `why` is NULL for a blob, else why the entry is not one
 * ("symlink", "submodule", "a tree entry of mode 0160000"...): such an
 * entry is listed to be named, never read. */
typedef struct {
	char *path;
	char oid[41];
	char *why;
} mt_gitsync_file;

void mt_gitsync_files_free(mt_gitsync_file *v, size_t n);

/* The commit `ref` points to (full name) in hex, "" when there is no such
 * ref. */
int mt_gitsync_ref(mt_gitrepo *r, const char *ref, char oid[41]);

/* Points `ref` at commit `oid` (hex), creating it when needed. */
int mt_gitsync_set_ref(mt_gitrepo *r, const char *ref, const char *oid, const char *log);

/* The files of commit `commit`'s tree, every level, sorted by path. *out
 * (caller frees with mt_gitsync_files_free) is NULL, *n 0 for an empty
 * tree. */
int mt_gitsync_list(mt_gitrepo *r, const char *commit, mt_gitsync_file **out, size_t *n);

/* A blob's bytes (caller frees; NUL-terminated beyond len). */
int mt_gitsync_blob(mt_gitrepo *r, const char *oid, char **data, size_t *len);

/* Writes `len` bytes as a blob: its id in oid. */
int mt_gitsync_put(mt_gitrepo *r, const char *data, size_t len, char oid[41]);

/* The tree made of files[0..n) (blobs written already, paths unique,
 * any order) in hex. A path libgit2 refuses as a tree entry ("..", ".git",
 * an empty component) fails naming it. */
int mt_gitsync_tree(mt_gitrepo *r, mt_gitsync_file *files, size_t n, char tree[41]);

/* The tree id of commit `commit`, in hex. */
int mt_gitsync_commit_tree(mt_gitrepo *r, const char *commit, char tree[41]);

/* 1 when commit `a` is `b` or has it in its history, 0 when not. */
int mt_gitsync_contains(mt_gitrepo *r, const char *a, const char *b);

/* A new commit of `tree` with the parents given (hex; NULL or "" ones are
 * left out), by git's user (user.name and user.email, else "mtrial"). */
int mt_gitsync_commit(mt_gitrepo *r, const char *tree, const char *parent1, const char *parent2,
		      const char *message, char oid[41]);

/* Fetches `remote`'s `ref` into the local ref `into` (forced: it is the
 * remote's copy), through `git fetch`. *tip is the fetched commit, ""
 * when the remote has no such ref (then `into` is left as it was). A
 * remote that is not there or not a repository is MT_EINVALID naming it
 * with git's words. */
int mt_gitsync_fetch(mt_gitrepo *r, const char *remote, const char *ref, const char *into,
		     char tip[41]);

/* Pushes the local `ref` to the same name on `remote` through `git push`:
 * 0 when pushed, 1 when refused because the remote's ref moved meanwhile
 * (fetch and try again), else an error with git's words. */
int mt_gitsync_push(mt_gitrepo *r, const char *remote, const char *ref);

#endif
