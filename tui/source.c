/* One file at a time from the scanned repository, split into lines. */
#include "source.h"
#include "error.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static int held(const struct tui_source *s, const char *repo, const char *rev, int worktree,
		const char *path)
{
	return same(s->repo, repo) && same(s->rev, rev) && same(s->path, path) &&
	       s->worktree == worktree;
}

void source_forget(struct tui_source *s)
{
	free(s->rev);
	free(s->path);
	free(s->data);
	free(s->starts);
	s->rev = s->path = s->data = NULL;
	s->starts = NULL;
	s->size = s->nlines = 0;
	s->error[0] = '\0';
}

static void split_lines(struct tui_source *s)
{
	size_t n = 1;

	for (size_t i = 0; i < s->size; i++)
		n += s->data[i] == '\n' && i + 1 < s->size;
	s->starts = malloc(n * sizeof(*s->starts));
	if (!s->starts)
		abort();
	s->starts[0] = 0;
	s->nlines = 1;
	for (size_t i = 0; i < s->size; i++)
		if (s->data[i] == '\n' && i + 1 < s->size)
			s->starts[s->nlines++] = i + 1;
}

static int open_repo(struct tui_source *s, const char *repo)
{
	if (s->git && same(s->repo, repo))
		return 0;
	mt_gitrepo_free(s->git);
	s->git = NULL;
	free(s->repo);
	s->repo = mt_strdup(repo);
	return mt_gitrepo_open(&s->git, repo);
}

/* The work tree's copy, with the checks a scan applies (no symlink, text). */
static int read_worktree(struct tui_source *s, const char *path)
{
	mt_gitentry e = {.path = (char *)path, .source = MT_ENTRY_WORKTREE};
	char reason[160];
	int error = mt_gitrepo_read(&s->data, &s->size, reason, sizeof(reason), s->git, &e, 0);

	if (error == 0 && !s->data)
		error = mt_error_set(MT_EINVALID, "%s: %s", path, reason);
	return error;
}

int source_load(struct tui_source *s, const char *repo, const char *rev, int worktree,
		const char *path)
{
	int error;

	if (!repo || !path)
		return snprintf(s->error, sizeof(s->error), "the scan names no file here"), -1;
	if (held(s, repo, rev ? rev : "", worktree, path))
		return s->data ? 0 : -1;
	source_forget(s);
	s->rev = mt_strdup(rev ? rev : "");
	s->path = mt_strdup(path);
	s->worktree = worktree;
	if ((error = open_repo(s, repo)) == 0)
		error = worktree ? read_worktree(s, path)
				 : mt_gitrepo_read_path(&s->data, &s->size, s->git, rev, path);
	if (error < 0) {
		snprintf(s->error, sizeof(s->error), "%s", mt_error_last());
		mt_error_clear();
		return -1;
	}
	split_lines(s);
	return 0;
}

const char *source_line(const struct tui_source *s, int n, size_t *len)
{
	size_t start, end;

	if (!s->data || n < 1 || (size_t)n > s->nlines)
		return NULL;
	start = s->starts[n - 1];
	end = (size_t)n < s->nlines ? s->starts[n] - 1 : s->size;
	if (end > start && s->data[end - 1] == '\n')
		end--;
	if (end > start && s->data[end - 1] == '\r')
		end--;
	*len = end - start;
	return s->data + start;
}

void source_dispose(struct tui_source *s)
{
	source_forget(s);
	mt_gitrepo_free(s->git);
	free(s->repo);
	memset(s, 0, sizeof(*s));
}
