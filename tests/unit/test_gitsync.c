/* gitsync: a tree of files written and read back, commits over parents,
 * refs, history, and what is refused (a '..' path, a remote that is not
 * one). The repository is made here; fetch and push are exercised end to
 * end by tests/cli/sync*.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixtures.h"
#include "gitread.h"
#include "gitsync.h"
#include "util.h"

static char *tmp;
static mt_gitrepo *repo;

static int setup(void **state)
{
	static const char *const files[] = {"train.py", NULL};

	(void)state;
	tmp = mt_fx_tmpdir("gitsync");
	mt_fx_write(tmp, "train.py", "import torch\n");
	mt_fx_commit(tmp, files);
	return mt_gitrepo_open(&repo, tmp);
}

static int teardown(void **state)
{
	(void)state;
	mt_gitrepo_free(repo);
	mt_fx_rmtree(tmp);
	free(tmp);
	return 0;
}

static void file(mt_gitsync_file *f, const char *path, const char *text)
{
	f->path = mt_strdup(path);
	f->why = NULL;
	assert_int_equal(mt_gitsync_put(repo, text, strlen(text), f->oid), 0);
}

/* A commit of the given files (path, text pairs) over `parent`. */
static void commit(char out[41], char tree[41], const char *parent, const char *const *pt,
		   size_t n)
{
	mt_gitsync_file *f = calloc(n, sizeof(*f));

	for (size_t i = 0; i < n; i++)
		file(&f[i], pt[2 * i], pt[2 * i + 1]);
	assert_int_equal(mt_gitsync_tree(repo, f, n, tree), 0);
	assert_int_equal(mt_gitsync_commit(repo, tree, parent, NULL, "test\n", out), 0);
	mt_gitsync_files_free(f, n);
}

static void test_tree_round_trip(void **state)
{
	static const char *const pt[] = {"objects/ab/ef", "z", "events/b.jsonl", "{\"b\":1}\n",
					 "objects/ab/cd", "y", "events/a.jsonl", "{\"a\":1}\n",
					 "objects/c", "w"};
	char c1[41], tree[41], got[41], *data;
	mt_gitsync_file *list;
	size_t n, len;

	(void)state;
	commit(c1, tree, NULL, pt, 5);
	assert_int_equal(mt_gitsync_commit_tree(repo, c1, got), 0);
	assert_string_equal(got, tree);
	assert_int_equal(mt_gitsync_list(repo, c1, &list, &n), 0);
	assert_int_equal(n, 5);
	/* sorted by path, every level */
	assert_string_equal(list[0].path, "events/a.jsonl");
	assert_string_equal(list[1].path, "events/b.jsonl");
	assert_string_equal(list[2].path, "objects/ab/cd");
	assert_string_equal(list[3].path, "objects/ab/ef");
	assert_string_equal(list[4].path, "objects/c");
	for (size_t i = 0; i < n; i++)
		assert_null(list[i].why);
	assert_int_equal(mt_gitsync_blob(repo, list[3].oid, &data, &len), 0);
	assert_int_equal(len, 1);
	assert_string_equal(data, "z");
	free(data);
	mt_gitsync_files_free(list, n);
}

static void test_refs_and_history(void **state)
{
	static const char *const one[] = {"events/a.jsonl", "1\n"};
	static const char *const two[] = {"events/a.jsonl", "1\n2\n"};
	char c1[41], c2[41], t1[41], t2[41], t3[41], got[41];

	(void)state;
	assert_int_equal(mt_gitsync_ref(repo, "refs/mtrial/none", got), 0);
	assert_string_equal(got, "");
	commit(c1, t1, NULL, one, 1);
	commit(c2, t2, c1, two, 1);
	assert_string_not_equal(t1, t2);
	assert_int_equal(mt_gitsync_set_ref(repo, "refs/mtrial/trial", c2, "test"), 0);
	assert_int_equal(mt_gitsync_ref(repo, "refs/mtrial/trial", got), 0);
	assert_string_equal(got, c2);
	assert_int_equal(mt_gitsync_contains(repo, c2, c1), 1);
	assert_int_equal(mt_gitsync_contains(repo, c1, c2), 0);
	assert_int_equal(mt_gitsync_contains(repo, c1, c1), 1);
	/* the same tree over the same parent: the same files make the same tree */
	commit(got, t3, c1, two, 1);
	assert_string_equal(t3, t2);
}

static void test_refused(void **state)
{
	mt_gitsync_file f[1];
	char tree[41], tip[41];

	(void)state;
	file(&f[0], "events/../x", "x");
	assert_int_equal(mt_gitsync_tree(repo, f, 1, tree), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "events/../x"));
	free(f[0].path);
	file(&f[0], "events//x", "x");
	assert_int_equal(mt_gitsync_tree(repo, f, 1, tree), MT_EINVALID);
	free(f[0].path);
	assert_int_equal(mt_gitsync_fetch(repo, "/nonexistent/remote.git", "refs/mtrial/trial",
					  "refs/mtrial/remotes/x/trial", tip), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "/nonexistent/remote.git"));
	assert_string_equal(tip, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_round_trip),
		cmocka_unit_test(test_refs_and_history),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
