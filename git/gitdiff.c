/* The changes between two revisions: libgit2's tree-to-tree diff, renames
 * found, walked file by file and line by line. */
#include "gitdiff.h"
#include "error.h"
#include "git_int.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int tree_of(git_tree **out, git_commit **commit, git_repository *repo, const char *rev)
{
	git_object *obj = NULL;
	int rc = git_revparse_single(&obj, repo, rev);

	*out = NULL;
	if (rc == GIT_ENOTFOUND || rc == GIT_EAMBIGUOUS || rc == GIT_EINVALIDSPEC)
		return mt_error_set(MT_ENOTFOUND, "revision '%s' not found in the repository", rev);
	if (rc < 0)
		return git_fail(MT_EIO, rev);
	rc = git_object_peel((git_object **)commit, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0)
		return mt_error_set(MT_EINVALID, "revision '%s' is not a commit", rev);
	if (git_commit_tree(out, *commit) < 0)
		return git_fail(MT_EIO, rev);
	return 0;
}

static const char *status_name(git_delta_t s)
{
	switch (s) {
	case GIT_DELTA_ADDED: return "added";
	case GIT_DELTA_DELETED: return "deleted";
	case GIT_DELTA_RENAMED: return "renamed";
	case GIT_DELTA_COPIED: return "copied";
	case GIT_DELTA_TYPECHANGE: return "typechange";
	default: return "modified";
	}
}

/* Gives the file to cb->file with its text at head (or at base when the
 * change deleted it), NULL when binary or unreadable. */
static int give_file(git_repository *repo, const git_diff_delta *d, const mt_gitdiff_cb *cb,
		     void *payload)
{
	const git_diff_file *f = d->status == GIT_DELTA_DELETED ? &d->old_file : &d->new_file;
	git_blob *blob = NULL;
	mt_gitdiff_file file = {
		.path = d->new_file.path ? d->new_file.path : d->old_file.path,
		.old_path = d->status == GIT_DELTA_RENAMED ? d->old_file.path : NULL,
		.status = status_name(d->status),
		.binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0,
	};
	int error;

	if (git_blob_lookup(&blob, repo, &f->id) == 0 && !git_blob_is_binary(blob)) {
		file.text = git_blob_rawcontent(blob);
		file.len = (size_t)git_blob_rawsize(blob);
	}
	error = cb->file(&file, payload);
	git_blob_free(blob);
	return error;
}

/* Gives each added or deleted line of the patch to cb->line. */
static int give_lines(git_patch *patch, const char *path, const mt_gitdiff_cb *cb, void *payload)
{
	size_t nh = git_patch_num_hunks(patch);

	for (size_t h = 0; h < nh; h++) {
		int nl = git_patch_num_lines_in_hunk(patch, h);
		for (int l = 0; l < nl; l++) {
			const git_diff_line *line = NULL;
			mt_gitdiff_line out;
			int error;
			if (git_patch_get_line_in_hunk(&line, patch, h, (size_t)l) < 0)
				return git_fail(MT_EIO, path);
			if (line->origin != GIT_DIFF_LINE_ADDITION && line->origin != GIT_DIFF_LINE_DELETION)
				continue;
			out.added = line->origin == GIT_DIFF_LINE_ADDITION;
			out.lineno = out.added ? line->new_lineno : line->old_lineno;
			out.text = line->content;
			out.len = line->content_len;
			if ((error = cb->line(&out, payload)) < 0)
				return error;
		}
	}
	return 0;
}

static int walk(git_repository *repo, git_diff *diff, const mt_gitdiff_cb *cb, void *payload)
{
	int error = 0;

	for (size_t i = 0; i < git_diff_num_deltas(diff) && error == 0; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *path = d->new_file.path ? d->new_file.path : d->old_file.path;
		git_patch *patch = NULL;

		if ((error = give_file(repo, d, cb, payload)) < 0)
			break;
		if (git_patch_from_diff(&patch, diff, i) < 0)
			error = git_fail(MT_EIO, path);
		else if (patch)
			error = give_lines(patch, path, cb, payload);
		git_patch_free(patch);
	}
	return error;
}

/* What is done with the diff once made: walked, or printed as a patch. */
struct diff_use {
	int (*fn)(git_repository *repo, git_diff *diff, struct diff_use *use);
	const mt_gitdiff_cb *cb;
	void *payload;
	mt_buf *patch;
};

static int use_walk(git_repository *repo, git_diff *diff, struct diff_use *use)
{
	return walk(repo, diff, use->cb, use->payload);
}

static int use_patch(git_repository *repo, git_diff *diff, struct diff_use *use)
{
	git_buf buf = {0};
	int error = 0;

	(void)repo;
	if (git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH) < 0)
		return git_fail(MT_EIO, "patch");
	if (buf.size && mt_buf_put(use->patch, buf.ptr, buf.size) < 0)
		error = mt_error_set(MT_EIO, "out of memory");
	git_buf_dispose(&buf);
	return error;
}

/* The diff from base to head, renames found, given to use->fn. */
static int with_diff(char base_id[41], char head_id[41], const char *repo_path, const char *base,
		     const char *head, struct diff_use *use)
{
	git_repository *repo = NULL;
	git_commit *cbase = NULL, *chead = NULL;
	git_tree *tb = NULL, *th = NULL;
	git_diff *diff = NULL;
	git_diff_find_options find;
	int error = 0;

	if (git_libgit2_init() < 0)
		return git_fail(MT_EIO, "libgit2");
	if (git_repository_open_ext(&repo, repo_path, 0, NULL) < 0) {
		const git_error *e = git_error_last();
		error = mt_error_set(MT_EINVALID, "not a git repository: %s (%s)", repo_path,
				     e && e->message ? e->message : "libgit2 found none");
		goto done;
	}
	if ((error = tree_of(&tb, &cbase, repo, base)) < 0 ||
	    (error = tree_of(&th, &chead, repo, head)) < 0)
		goto done;
	if (git_diff_tree_to_tree(&diff, repo, tb, th, NULL) < 0) {
		error = git_fail(MT_EIO, "diff");
		goto done;
	}
	git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
	find.flags = GIT_DIFF_FIND_RENAMES;
	git_diff_find_similar(diff, &find);
	if ((error = use->fn(repo, diff, use)) == 0) {
		git_oid_tostr(base_id, 41, git_commit_id(cbase));
		git_oid_tostr(head_id, 41, git_commit_id(chead));
	}
done:
	git_diff_free(diff);
	git_tree_free(tb);
	git_tree_free(th);
	git_commit_free(cbase);
	git_commit_free(chead);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return error;
}

int mt_gitdiff_trees(char base_id[41], char head_id[41], const char *repo_path, const char *base,
		     const char *head, const mt_gitdiff_cb *cb, void *payload)
{
	struct diff_use use = {.fn = use_walk, .cb = cb, .payload = payload};

	return with_diff(base_id, head_id, repo_path, base, head, &use);
}

int mt_gitdiff_patch(mt_buf *out, const char *repo_path, const char *base, const char *head)
{
	struct diff_use use = {.fn = use_patch, .patch = out};
	char base_id[41], head_id[41];

	return with_diff(base_id, head_id, repo_path, base, head, &use);
}
