/* Private to git/: what its files share about libgit2. */
#ifndef MT_GIT_INT_H
#define MT_GIT_INT_H

#include <git2.h>

#include "error.h"

/* Sets `code` with "what: <libgit2's last error>" and returns it. */
static inline int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();
	return mt_error_set(code, "%s: %s", what, e && e->message ? e->message : "libgit2 error");
}

#endif
