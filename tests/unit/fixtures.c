#include "fixtures.h"
#include "util.h"

#include <git2.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *mt_fx_tmpdir(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char tmpl[4096];

	snprintf(tmpl, sizeof(tmpl), "%s/mtrial-%s-XXXXXX", base && *base ? base : "/tmp", tag);
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		abort();
	}
	return mt_strdup(tmpl);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void mt_fx_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void mt_fx_write(const char *dir, const char *name, const char *text)
{
	char *path = mt_path_join(dir, name);
	char *slash = strrchr(path, '/');
	FILE *f;

	*slash = '\0';
	mt_mkdir_p(path);
	*slash = '/';
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		abort();
	}
	fputs(text, f);
	fclose(f);
	free(path);
}

void mt_fx_copy(const char *dir, const char *name, const char *src)
{
	char path[4096], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", MT_SOURCE_DIR, src);
	if (mt_file_read(&text, &len, path) < 0) {
		fprintf(stderr, "fixture %s unreadable\n", path);
		abort();
	}
	mt_fx_write(dir, name, text);
	free(text);
}

static void git_ok(int gerr)
{
	if (gerr < 0) {
		const git_error *e = git_error_last();
		fprintf(stderr, "libgit2: %s\n", e && e->message ? e->message : "?");
		abort();
	}
}

void mt_fx_commit(const char *dir, const char *const *files)
{
	git_repository *repo;
	git_index *index;
	git_oid tree_id, id, head;
	git_commit *parent = NULL;
	git_tree *tree;
	git_signature *sig;

	git_libgit2_init();
	git_ok(git_repository_init(&repo, dir, 0));
	if (git_reference_name_to_id(&head, repo, "HEAD") == 0)
		git_ok(git_commit_lookup(&parent, repo, &head));
	git_ok(git_repository_index(&index, repo));
	for (; *files; files++)
		git_ok(git_index_add_bypath(index, *files));
	git_ok(git_index_write(index));
	git_ok(git_index_write_tree(&tree_id, index));
	git_ok(git_tree_lookup(&tree, repo, &tree_id));
	git_ok(git_signature_new(&sig, "t", "t@example.com", 1700000000, 0));
	git_ok(git_commit_create_v(&id, repo, "HEAD", sig, sig, NULL, "c", tree, parent ? 1 : 0,
				   parent));
	git_commit_free(parent);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(index);
	git_repository_free(repo);
	git_libgit2_shutdown();
}

int mt_fx_teardown_tmpdir(void **state)
{
	mt_fx_rmtree(*state);
	free(*state);
	return 0;
}
