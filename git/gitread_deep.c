/* Work trees nested deeper than libgit2 walks (its iterator refuses past
 * 100 levels, "directory nesting too deep"): which directories those are,
 * and pathspecs that cover everything else, so that the comparison with
 * the work tree runs on the rest (gitread.c, apply_worktree). Read with
 * openat() one level at a time: a path longer than PATH_MAX is no
 * obstacle. */
#include "gitread.h"
#include "error.h"
#include "git_int.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct strs {
	char **v;
	size_t n, cap;
};

static void push(struct strs *s, char *str)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		if (!(s->v = realloc(s->v, s->cap * sizeof(*s->v))))
			abort();
	}
	s->v[s->n++] = str;
}

static char *child_path(const char *rel, const char *name)
{
	size_t a = strlen(rel), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (!p)
		abort();
	memcpy(p, rel, a);
	if (a)
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

static int is_dir_at(int dfd, const struct dirent *d)
{
	struct stat st;

	if (d->d_type != DT_UNKNOWN)
		return d->d_type == DT_DIR;
	return fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* 1 if the directory dfd (owned: closed here), at rel and depth, holds a
 * directory at depth `limit`: those are added to deep, and pathspecs for
 * the rest of it to specs. 0 otherwise (specs unchanged: the caller covers
 * rel with one). */
static int find_deep(int dfd, const char *rel, int depth, int limit, struct strs *specs,
		     struct strs *deep)
{
	size_t mark = specs->n;
	struct dirent *d;
	int found = 0;
	DIR *dir;

	if (depth >= limit) {
		close(dfd);
		push(deep, mt_strdup(rel));
		return 1;
	}
	if (!(dir = fdopendir(dfd))) {
		close(dfd);
		return 0;
	}
	while ((d = readdir(dir)) != NULL) {
		char *child;
		int cfd;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    (depth == 0 && !strcmp(d->d_name, ".git")))
			continue;
		child = child_path(rel, d->d_name);
		cfd = is_dir_at(dirfd(dir), d) ? openat(dirfd(dir), d->d_name,
							O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
								O_CLOEXEC)
					       : -1;
		if (cfd >= 0 && find_deep(cfd, child, depth + 1, limit, specs, deep)) {
			found = 1;
			free(child);
		} else {
			push(specs, child);
		}
	}
	closedir(dir);
	if (!found) {
		while (specs->n > mark)
			free(specs->v[--specs->n]);
	}
	return found;
}

int mt_gitread__deep_dirs(char ***specs, size_t *nspecs, char ***deep, size_t *ndeep,
			  const char *root, int limit)
{
	struct strs s = {0}, d = {0};
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	*specs = *deep = NULL;
	*nspecs = *ndeep = 0;
	if (fd < 0)
		return mt_error_set(MT_EIO, "%s: %s", root, strerror(errno));
	if (!find_deep(fd, "", 0, limit, &s, &d))
		return 0;
	*specs = s.v;
	*nspecs = s.n;
	*deep = d.v;
	*ndeep = d.n;
	return 1;
}
