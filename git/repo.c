#include "repo.h"
#include "error.h"
#include "git_int.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mt_repo_discover(char **workdir, char **head, const char *path)
{
	git_buf gitdir = {0};
	git_repository *repo = NULL;
	git_oid oid;
	const char *root;
	int error = 0;

	*workdir = NULL;
	if (head)
		*head = NULL;
	if (git_libgit2_init() < 0)
		return git_fail(MT_EIO, "libgit2");
	if (git_repository_discover(&gitdir, path, 0, NULL) < 0) {
		error = git_fail(MT_ENOTFOUND, path);
		mt_error_prefix(MT_ENOTFOUND, "not a git repository: ");
		goto cleanup;
	}
	if (git_repository_open(&repo, gitdir.ptr) < 0) {
		error = git_fail(MT_EIO, gitdir.ptr);
		goto cleanup;
	}
	/* the trial's repository as the scan will open it */
	if ((error = mt_gitrepo__guess_bare(&repo)) < 0)
		goto cleanup;
	root = git_repository_is_bare(repo) ? git_repository_path(repo)
					    : git_repository_workdir(repo);
	*workdir = mt_strdup(root);
	{
		size_t n = strlen(*workdir);
		if (n > 1 && (*workdir)[n - 1] == '/')
			(*workdir)[n - 1] = '\0';
	}
	if (head && git_reference_name_to_id(&oid, repo, "HEAD") == 0) {
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof(hex), &oid);
		*head = mt_strdup(hex);
	}
cleanup:
	git_repository_free(repo);
	git_buf_dispose(&gitdir);
	git_libgit2_shutdown();
	return error;
}

const char *mt_repo_libgit2_version(void)
{
	static char v[32];
	int major, minor, rev;

	if (git_libgit2_init() < 0) {
		git_fail(MT_EIO, "libgit2");
		return NULL;
	}
	git_libgit2_version(&major, &minor, &rev);
	git_libgit2_shutdown();
	snprintf(v, sizeof(v), "%d.%d.%d", major, minor, rev);
	return v;
}

