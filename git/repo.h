/* Reading a git repository through libgit2: never a checkout, never running
 * the repository's code. */
#ifndef MT_REPO_H
#define MT_REPO_H

#include <stdint.h>

/* Finds the repository containing `path`. *workdir (caller frees) is its work
 * tree root, or the git directory for a bare repository; *head (caller frees,
 * may be NULL on input to skip) is HEAD's full commit id, or NULL for a
 * repository with no commits yet. MT_ENOTFOUND with libgit2's words when
 * `path` is not in a git repository. */
int mt_repo_discover(char **workdir, char **head, const char *path);

/* libgit2's version as "1.5.1". Static. */
const char *mt_repo_libgit2_version(void);

#endif
