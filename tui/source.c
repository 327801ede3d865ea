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

/* --- drawing -------------------------------------------------------------- */

#define TAB_STOP 8

/* The line with tabs expanded and, when the column the target starts at
 * would be off the right edge, shifted left by `shift` bytes (behind an
 * ellipsis); `shift` is kept on a UTF-8 character boundary. */
static void shaped_line(mt_buf *out, const char *s, size_t n, size_t shift)
{
	mt_buf exp = MT_BUF_INIT;
	size_t col = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\t') {
			do
				mt_buf_put(&exp, " ", 1), col++;
			while (col % TAB_STOP);
			continue;
		}
		mt_buf_put(&exp, s + i, 1);
		col += ((unsigned char)s[i] & 0xc0) != 0x80;
	}
	if (shift >= exp.len) {
		shift = 0;
	} else {
		while (shift > 0 && ((unsigned char)exp.ptr[shift] & 0xc0) == 0x80)
			shift--;
	}
	if (shift)
		mt_buf_puts(out, draw_glyph(GLYPH_ELLIPSIS));
	mt_buf_puts(out, mt_buf_cstr(&exp) + shift);
	mt_buf_dispose(&exp);
}

static void source_row(struct tui_page *p, const struct tui_source *s, long n, int mark,
		       int digits, size_t shift)
{
	size_t len;
	const char *line = source_line(s, (int)n, &len);
	const char *arrow = draw_glyph(GLYPH_ARROW);
	enum draw_style style = mark ? STYLE_NORMAL : STYLE_DIM;
	mt_buf text = MT_BUF_INIT;

	page_line(p);
	if (!line)
		return;
	if (mark)
		page_add(p, style, arrow);
	page_add_at(p, draw_width(arrow), style, "");
	page_addf(p, STYLE_DIM, "%*ld ", digits, n);
	shaped_line(&text, line, len, shift);
	page_add(p, style, mt_buf_cstr(&text));
	mt_buf_dispose(&text);
}

void source_draw(struct tui_source *s, struct tui_page *p, const struct source_at *at, int rows)
{
	long first = at->line - (rows - 1) / 2, avail;
	int digits, prefix;
	size_t shift = 0;

	if (source_load(s, at->repo, at->rev, at->worktree, at->file) < 0) {
		page_line(p);
		page_add_at(p, 2, STYLE_WARN, s->error);
		return;
	}
	if (first + rows - 1 > (long)s->nlines) /* at the end: more lines above */
		first = (long)s->nlines - rows + 1;
	first = first < 1 ? 1 : first;
	digits = snprintf(NULL, 0, "%ld", first + rows - 1);
	prefix = digits + 1 + draw_width(draw_glyph(GLYPH_ARROW));
	avail = p->width - prefix;
	if (at->col + 16 > avail && avail > 24)
		shift = (size_t)(at->col - avail / 3);
	for (long n = first; n < first + rows; n++)
		source_row(p, s, n, n == at->line, digits, shift);
}
