/* gitread: listing a repository at any revision and reading its files
 * through libgit2. Every fixture repository is built here with libgit2
 * itself: two commits, a branch, tags, a symlink, a submodule gitlink, a
 * binary file, invalid UTF-8, a large file; copies of it with a work tree
 * to change, a bare packed one, an empty repository and one with a missing
 * blob. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <git2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fixtures.h"
#include "gitread.h"
#include "scan.h"
#include "util.h"

#define TRAIN_V1 "import torch\nx = torch.zeros(3)\n"
#define TRAIN_V2 "import torch\nx = torch.ones(3).cuda()\n"
#define TRAIN_V3 "import torch_neuronx\nx = torch.ones(3).to('xla')\n"
#define MODEL_PY "import torch.nn as nn\n# caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\n"
#define BAD_PY "ok = 1\nok = 2\nname = '\xff'\n"
#define GITLINK "0123456789abcdef0123456789abcdef01234567"
#define BIG_SIZE 10000

static struct {
	char *tmp;  /* holds everything below */
	char *work; /* the fixture repository with a work tree */
	char c1[41], c2[41], tree2[41];
} fx;

/* ---- building fixtures ------------------------------------------------- */

static void ok(int gerr)
{
	if (gerr < 0) {
		const git_error *e = git_error_last();
		fail_msg("libgit2: %s", e && e->message ? e->message : "?");
	}
}

static void write_bytes(const char *dir, const char *name, const void *data, size_t len)
{
	char *path = mt_path_join(dir, name);
	FILE *f;

	mt_fx_write(dir, name, ""); /* creates the parent directories */
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	free(path);
}

static char *join(const char *a, const char *b)
{
	return mt_path_join(a, b);
}

/* Commits the repository's index on HEAD; parent is HEAD's commit if any. */
static void commit_index(char hex[41], git_repository *repo, const char *msg)
{
	git_index *index;
	git_oid tree_id, id, parent_id;
	git_tree *tree;
	git_commit *parent = NULL;
	git_signature *sig;

	ok(git_repository_index(&index, repo));
	ok(git_index_write(index));
	ok(git_index_write_tree(&tree_id, index));
	ok(git_tree_lookup(&tree, repo, &tree_id));
	ok(git_signature_new(&sig, "Test", "test@example.com", 1700000000, 0));
	if (git_reference_name_to_id(&parent_id, repo, "HEAD") == 0)
		ok(git_commit_lookup(&parent, repo, &parent_id));
	ok(git_commit_create_v(&id, repo, "HEAD", sig, sig, NULL, msg, tree, parent ? 1 : 0,
			       parent));
	git_oid_tostr(hex, 41, &id);
	git_commit_free(parent);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(index);
}

static void add_paths(git_repository *repo, const char *const *paths)
{
	git_index *index;

	ok(git_repository_index(&index, repo));
	for (; *paths; paths++)
		ok(git_index_add_bypath(index, *paths));
	ok(git_index_write(index));
	git_index_free(index);
}

static void add_gitlink(git_repository *repo, const char *path, const char *hex)
{
	git_index *index;
	git_index_entry e;

	memset(&e, 0, sizeof(e));
	e.mode = GIT_FILEMODE_COMMIT;
	e.path = path;
	ok(git_oid_fromstr(&e.id, hex));
	ok(git_repository_index(&index, repo));
	ok(git_index_add(index, &e));
	ok(git_index_write(index));
	git_index_free(index);
}

static void tag_and_branch(git_repository *repo, const char *c1)
{
	git_object *target;
	git_reference *branch;
	git_signature *sig;
	git_oid id;

	ok(git_revparse_single(&target, repo, c1));
	ok(git_signature_new(&sig, "Test", "test@example.com", 1700000000, 0));
	ok(git_tag_create(&id, repo, "v1", target, sig, "first", 0));
	ok(git_tag_create_lightweight(&id, repo, "light", target, 0));
	ok(git_branch_create(&branch, repo, "old", (git_commit *)target, 0));
	git_reference_free(branch);
	git_signature_free(sig);
	git_object_free(target);
}

static void first_commit(git_repository *repo, const char *dir)
{
	static const char *const paths[] = {"train.py", "pkg/model.py", "README.md", NULL};

	mt_fx_write(dir, "train.py", TRAIN_V1);
	mt_fx_write(dir, "pkg/model.py", MODEL_PY);
	mt_fx_write(dir, "README.md", "# demo\n");
	add_paths(repo, paths);
	commit_index(fx.c1, repo, "first");
}

static void second_commit(git_repository *repo, const char *dir)
{
	static const char *const paths[] = {"train.py", "bin/run.sh", "link", "data/blob.bin",
					    "bad.py", "big.py", ".gitignore", NULL};
	static const char bin[] = "\x7f" "ELF\0\0\0binary";
	char *big = malloc(BIG_SIZE), *p;

	memset(big, 'a', BIG_SIZE);
	for (size_t i = 99; i < BIG_SIZE; i += 100)
		big[i] = '\n';
	mt_fx_write(dir, "train.py", TRAIN_V2);
	mt_fx_write(dir, "bin/run.sh", "#!/bin/sh\npython train.py\n");
	p = join(dir, "bin/run.sh");
	chmod(p, 0755);
	free(p);
	p = join(dir, "link");
	assert_int_equal(symlink("train.py", p), 0);
	free(p);
	write_bytes(dir, "data/blob.bin", bin, sizeof(bin));
	mt_fx_write(dir, "bad.py", BAD_PY);
	write_bytes(dir, "big.py", big, BIG_SIZE);
	mt_fx_write(dir, ".gitignore", "*.log\n");
	add_paths(repo, paths);
	add_gitlink(repo, "vendor/sub", GITLINK);
	commit_index(fx.c2, repo, "second");
	free(big);
}

/* The fixture repository in fx.tmp/name (caller frees the path). Commit
 * times are fixed, so every copy has the same commit ids. */
static char *build_fixture(const char *name)
{
	char *dir = join(fx.tmp, name);
	git_repository *repo;

	ok(git_repository_init(&repo, dir, 0));
	first_commit(repo, dir);
	second_commit(repo, dir);
	tag_and_branch(repo, fx.c1);
	git_repository_free(repo);
	return dir;
}

static int setup(void **state)
{
	git_repository *repo;
	git_object *tree;
	char *empty;

	(void)state;
	git_libgit2_init();
	fx.tmp = mt_fx_tmpdir("gitread");
	/* No user or system configuration: no excludesFile, no defaults. */
	empty = join(fx.tmp, "noconfig");
	mt_mkdir_p(empty);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, empty);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, empty);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, empty);
	free(empty);
	fx.work = build_fixture("work");
	ok(git_repository_open(&repo, fx.work));
	ok(git_revparse_single(&tree, repo, "HEAD^{tree}"));
	git_oid_tostr(fx.tree2, sizeof(fx.tree2), git_object_id(tree));
	git_object_free(tree);
	git_repository_free(repo);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mt_fx_rmtree(fx.tmp);
	free(fx.tmp);
	free(fx.work);
	git_libgit2_shutdown();
	return 0;
}

/* A bare repository holding the fixture's history in one pack (with
 * deltas), written by libgit2's pack builder, and its branches. git_clone
 * is not used: libgit2 1.5 leaks pcre2 match data in git_remote_create. */
static char *bare_fixture(const char *name)
{
	char *dir = join(fx.tmp, name), *packdir = join(dir, "objects/pack");
	git_repository *src, *bare;
	git_packbuilder *pb;
	git_reference *ref;
	git_oid c1, c2;

	ok(git_repository_init(&bare, dir, 1));
	ok(git_repository_open(&src, fx.work));
	ok(git_oid_fromstr(&c1, fx.c1));
	ok(git_oid_fromstr(&c2, fx.c2));
	ok(git_packbuilder_new(&pb, src));
	ok(git_packbuilder_insert_commit(pb, &c2));
	ok(git_packbuilder_insert_commit(pb, &c1));
	ok(git_packbuilder_write(pb, packdir, 0, NULL, NULL));
	git_packbuilder_free(pb);
	ok(git_reference_create(&ref, bare, "refs/heads/master", &c2, 0, "test"));
	git_reference_free(ref);
	ok(git_reference_create(&ref, bare, "refs/heads/old", &c1, 0, "test"));
	git_reference_free(ref);
	ok(git_repository_set_head(bare, "refs/heads/master"));
	git_repository_free(src);
	git_repository_free(bare);
	free(packdir);
	return dir;
}

/* ---- helpers ----------------------------------------------------------- */

static const mt_gitentry *entry(const mt_gitlisting *l, const char *path)
{
	for (size_t i = 0; i < l->nentries; i++)
		if (!strcmp(l->entries[i].path, path))
			return &l->entries[i];
	return NULL;
}

static const char *skipped(const mt_gitlisting *l, const char *path)
{
	for (size_t i = 0; i < l->nskipped; i++)
		if (!strcmp(l->skipped[i].path, path))
			return l->skipped[i].reason;
	return NULL;
}

static void assert_blob(const mt_gitentry *e, const char *content, mt_entry_source source)
{
	char id[41];

	assert_non_null(e);
	assert_int_equal(mt_gitblob_id(id, content, strlen(content)), 0);
	assert_string_equal(e->oid, id);
	assert_int_equal(e->size, strlen(content));
	assert_int_equal(e->source, source);
}

static mt_gitrepo *open_ok(const char *path)
{
	mt_gitrepo *r = NULL;

	if (mt_gitrepo_open(&r, path) != 0)
		fail_msg("open %s: %s", path, mt_error_last());
	return r;
}

static void list_ok(mt_gitlisting *l, mt_gitrepo *r, const char *rev, int worktree)
{
	if (mt_gitrepo_list(l, r, rev, worktree) != 0)
		fail_msg("list %s: %s", rev ? rev : "HEAD", mt_error_last());
}

/* The text of e, or "skip: <reason>". Caller frees. */
static char *read_text(mt_gitrepo *r, const mt_gitentry *e, uint64_t max)
{
	char *data, reason[256];
	size_t size;

	if (mt_gitrepo_read(&data, &size, reason, sizeof(reason), r, e, max) != 0)
		fail_msg("read %s: %s", e->path, mt_error_last());
	if (data) {
		assert_string_equal(reason, "");
		assert_int_equal(strlen(data), size);
		return data;
	}
	assert_true(reason[0] != '\0');
	data = malloc(strlen(reason) + 7);
	sprintf(data, "skip: %s", reason);
	return data;
}

static void assert_read(mt_gitrepo *r, const mt_gitentry *e, uint64_t max, const char *want)
{
	char *got;

	assert_non_null(e);
	got = read_text(r, e, max);
	assert_string_equal(got, want);
	free(got);
}

/* ---- listing ----------------------------------------------------------- */

static void test_list_head(void **state)
{
	static const char *const want[] = {".gitignore", "README.md", "bad.py", "big.py",
					   "bin/run.sh", "data/blob.bin", "pkg/model.py",
					   "train.py"};
	mt_gitrepo *r = open_ok(fx.work);
	mt_gitlisting l;
	char sub[64];

	(void)state;
	list_ok(&l, r, NULL, 0);
	assert_string_equal(l.commit, fx.c2);
	assert_string_equal(l.tree, fx.tree2);
	assert_int_equal(l.nentries, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < l.nentries; i++)
		assert_string_equal(l.entries[i].path, want[i]);
	assert_blob(entry(&l, "train.py"), TRAIN_V2, MT_ENTRY_BLOB);
	assert_blob(entry(&l, "pkg/model.py"), MODEL_PY, MT_ENTRY_BLOB);
	assert_int_equal(entry(&l, "big.py")->size, BIG_SIZE);
	assert_int_equal(l.nskipped, 2);
	assert_string_equal(skipped(&l, "link"), "symlink (not followed)");
	snprintf(sub, sizeof(sub), "submodule at %s", GITLINK);
	assert_string_equal(skipped(&l, "vendor/sub"), sub);
	assert_false(mt_gitrepo_is_bare(r));
	mt_gitlisting_dispose(&l);
	assert_null(l.entries);
	mt_gitrepo_free(r);
}

/* MT_LIST_NO_SIZES: the same entries and skips, sizes unknown; reading
 * still refuses a blob over the limit by its header, with the same words. */
static void test_list_no_sizes(void **state)
{
	mt_gitrepo *r = open_ok(fx.work);
	mt_gitlisting l, q;

	(void)state;
	list_ok(&l, r, NULL, 0);
	assert_int_equal(mt_gitrepo_list_ext(&q, r, NULL, 0, MT_LIST_NO_SIZES), 0);
	assert_string_equal(q.commit, l.commit);
	assert_string_equal(q.tree, l.tree);
	assert_int_equal(q.nentries, l.nentries);
	for (size_t i = 0; i < l.nentries; i++) {
		assert_string_equal(q.entries[i].path, l.entries[i].path);
		assert_string_equal(q.entries[i].oid, l.entries[i].oid);
		assert_true(q.entries[i].size == MT_SIZE_UNKNOWN);
	}
	assert_int_equal(q.nskipped, l.nskipped);
	for (size_t i = 0; i < l.nskipped; i++) {
		assert_string_equal(q.skipped[i].path, l.skipped[i].path);
		assert_string_equal(q.skipped[i].reason, l.skipped[i].reason);
	}
	assert_read(r, entry(&q, "big.py"), 4096, "skip: too large (9.8 KB, limit 4 KB)");
	assert_read(r, entry(&q, "train.py"), strlen(TRAIN_V2), TRAIN_V2);
	mt_gitlisting_dispose(&q);
	mt_gitlisting_dispose(&l);
	mt_gitrepo_free(r);
}

/* Every way of naming the first commit lists its content. */
static void test_list_revisions(void **state)
{
	const char *revs[] = {"old", "v1", "light", "HEAD~1", "HEAD^", NULL, fx.c1};
	char shortid[8];
	mt_gitrepo *r = open_ok(fx.work);
	mt_gitlisting l;

	(void)state;
	memcpy(shortid, fx.c1, 7);
	shortid[7] = '\0';
	revs[5] = shortid;
	for (size_t i = 0; i < sizeof(revs) / sizeof(revs[0]); i++) {
		list_ok(&l, r, revs[i], 0);
		assert_string_equal(l.commit, fx.c1);
		assert_int_equal(l.nentries, 3);
		assert_int_equal(l.nskipped, 0);
		assert_blob(entry(&l, "train.py"), TRAIN_V1, MT_ENTRY_BLOB);
		assert_null(entry(&l, "bad.py"));
		mt_gitlisting_dispose(&l);
	}
	list_ok(&l, r, fx.c2, 0);
	assert_blob(entry(&l, "train.py"), TRAIN_V2, MT_ENTRY_BLOB);
	mt_gitlisting_dispose(&l);
	mt_gitrepo_free(r);
}

static void test_open_inside(void **state)
{
	const char *const where[] = {"pkg", ".git", ".git/refs", "bin/run.sh"};
	char *abs = mt_path_abs(fx.work);

	(void)state;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		char *p = join(fx.work, where[i]);
		mt_gitrepo *r = open_ok(p);
		mt_gitlisting l;
		assert_string_equal(mt_gitrepo_path(r), abs);
		list_ok(&l, r, NULL, 0);
		assert_string_equal(l.commit, fx.c2);
		mt_gitlisting_dispose(&l);
		mt_gitrepo_free(r);
		free(p);
	}
	free(abs);
}

/* A bare clone whose objects came through the transport, in a pack: sizes
 * from packed (delta) headers agree with the loose originals. */
static void test_bare_packed(void **state)
{
	char *dir = bare_fixture("bare.git"), *abs = mt_path_abs(dir);
	mt_gitrepo *r = open_ok(dir), *w = open_ok(fx.work);
	mt_gitlisting l, lw;

	(void)state;
	assert_true(mt_gitrepo_is_bare(r));
	assert_string_equal(mt_gitrepo_path(r), abs);
	list_ok(&l, r, NULL, 0);
	list_ok(&lw, w, NULL, 0);
	assert_string_equal(l.tree, fx.tree2);
	assert_int_equal(l.nentries, lw.nentries);
	for (size_t i = 0; i < l.nentries; i++) {
		assert_string_equal(l.entries[i].oid, lw.entries[i].oid);
		assert_int_equal(l.entries[i].size, lw.entries[i].size);
	}
	assert_read(r, entry(&l, "train.py"), 0, TRAIN_V2);
	mt_gitlisting_dispose(&l);
	list_ok(&l, r, "old", 0);
	assert_read(r, entry(&l, "train.py"), 0, TRAIN_V1);
	mt_gitlisting_dispose(&l);
	assert_int_equal(mt_gitrepo_list(&l, r, NULL, 1), MT_ESTATE);
	assert_non_null(strstr(mt_error_last(), "bare"));
	mt_gitlisting_dispose(&lw);
	mt_gitrepo_free(w);
	mt_gitrepo_free(r);
	free(abs);
	free(dir);
}

/* A git dir without core.bare and not named .git (a mirror, a hand-made
 * copy) is bare, as git takes it, not the work tree of its parent. */
static void test_bare_unset(void **state)
{
	char *dir = bare_fixture("mirror"), *abs = mt_path_abs(dir);
	git_repository *repo;
	git_config *cfg;
	mt_gitrepo *r, *d;
	mt_gitlisting l;

	(void)state;
	ok(git_repository_open(&repo, dir));
	ok(git_repository_config(&cfg, repo));
	ok(git_config_delete_entry(cfg, "core.bare"));
	git_config_free(cfg);
	git_repository_free(repo);
	r = open_ok(dir);
	assert_true(mt_gitrepo_is_bare(r));
	assert_string_equal(mt_gitrepo_path(r), abs);
	assert_int_equal(mt_gitrepo_dup(&d, r), 0);
	assert_true(mt_gitrepo_is_bare(d));
	list_ok(&l, d, NULL, 0);
	assert_string_equal(l.tree, fx.tree2);
	mt_gitlisting_dispose(&l);
	assert_int_equal(mt_gitrepo_list(&l, r, NULL, 1), MT_ESTATE);
	mt_gitrepo_free(d);
	mt_gitrepo_free(r);
	free(abs);
	free(dir);
}

/* ---- the work tree ----------------------------------------------------- */

static void change_worktree(const char *dir)
{
	char *p;

	mt_fx_write(dir, "train.py", TRAIN_V3);
	mt_fx_write(dir, "new.py", "import torch\n");
	mt_fx_write(dir, "newdir/deep/mod.py", "x = 1\n");
	mt_fx_write(dir, "debug.log", "ignored\n");
	mt_fx_write(dir, "staged.py", "staged = True\n");
	p = join(dir, "README.md");
	assert_int_equal(unlink(p), 0);
	free(p);
	p = join(dir, "pkg/model.py"); /* a file that became a symlink */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("../train.py", p), 0);
	free(p);
}

/* git add `add`; git rm --cached `unstage` (the file stays on disk). */
static void stage(const char *dir, const char *add, const char *unstage)
{
	git_repository *repo;
	git_index *index;

	ok(git_repository_open(&repo, dir));
	ok(git_repository_index(&index, repo));
	ok(git_index_add_bypath(index, add));
	ok(git_index_remove_bypath(index, unstage));
	ok(git_index_write(index));
	git_index_free(index);
	git_repository_free(repo);
}

static void test_worktree(void **state)
{
	char *dir = build_fixture("wt"), id[41];
	mt_gitrepo *r;
	mt_gitlisting l;
	git_oid oid;

	(void)state;
	change_worktree(dir);
	stage(dir, "staged.py", "bin/run.sh");
	r = open_ok(dir);
	list_ok(&l, r, NULL, 1);
	assert_string_equal(l.commit, fx.c2);
	assert_string_equal(l.tree, "");
	assert_blob(entry(&l, "train.py"), TRAIN_V3, MT_ENTRY_WORKTREE);
	ok(git_odb_hash(&oid, TRAIN_V3, strlen(TRAIN_V3), GIT_OBJECT_BLOB));
	assert_string_equal(entry(&l, "train.py")->oid, git_oid_tostr(id, sizeof(id), &oid));
	assert_blob(entry(&l, "new.py"), "import torch\n", MT_ENTRY_WORKTREE);
	assert_blob(entry(&l, "newdir/deep/mod.py"), "x = 1\n", MT_ENTRY_WORKTREE);
	assert_blob(entry(&l, "staged.py"), "staged = True\n", MT_ENTRY_WORKTREE);
	assert_blob(entry(&l, "bad.py"), BAD_PY, MT_ENTRY_BLOB);
	assert_null(entry(&l, "debug.log"));
	assert_null(skipped(&l, "debug.log"));
	assert_null(entry(&l, "README.md"));
	assert_string_equal(skipped(&l, "README.md"), "deleted in work tree");
	assert_null(entry(&l, "pkg/model.py"));
	assert_string_equal(skipped(&l, "pkg/model.py"), "symlink (not followed)");
	assert_string_equal(skipped(&l, "link"), "symlink (not followed)");
	for (size_t i = 1; i < l.nentries; i++)
		assert_true(strcmp(l.entries[i - 1].path, l.entries[i].path) < 0);
	for (size_t i = 1; i < l.nskipped; i++)
		assert_true(strcmp(l.skipped[i - 1].path, l.skipped[i].path) < 0);
	assert_read(r, entry(&l, "train.py"), 0, TRAIN_V3);
	/* Untracked now, not ignored: still scanned, from the work tree. */
	assert_blob(entry(&l, "bin/run.sh"), "#!/bin/sh\npython train.py\n", MT_ENTRY_WORKTREE);
	assert_read(r, entry(&l, "bin/run.sh"), 0, "#!/bin/sh\npython train.py\n");
	assert_non_null(strstr(skipped(&l, "vendor/sub"), "submodule at "));
	mt_gitlisting_dispose(&l);
	/* The committed revision is still there, untouched by the work tree. */
	list_ok(&l, r, NULL, 0);
	assert_blob(entry(&l, "train.py"), TRAIN_V2, MT_ENTRY_BLOB);
	mt_gitlisting_dispose(&l);
	mt_gitrepo_free(r);
	free(dir);
}

/* Work-tree reads never follow a symlink, at the end or in the middle. */
static void test_worktree_read_nofollow(void **state)
{
	char *dir = build_fixture("wt-links"), *p;
	mt_gitrepo *r = open_ok(dir);
	mt_gitentry e = {.source = MT_ENTRY_WORKTREE, .size = 0};

	(void)state;
	p = join(dir, "pkglink");
	assert_int_equal(symlink("pkg", p), 0);
	free(p);
	e.path = "pkglink/model.py";
	assert_read(r, &e, 0, "skip: symlink (not followed)");
	e.path = "link";
	assert_read(r, &e, 0, "skip: symlink (not followed)");
	e.path = "gone.py";
	assert_read(r, &e, 0, "skip: deleted in work tree");
	e.path = "pkg";
	assert_read(r, &e, 0, "skip: not a regular file");
	e.path = "pkg/model.py";
	assert_read(r, &e, 0, MODEL_PY);
	e.path = "pkg/../train.py";
	{
		char *data, reason[64];
		size_t size;
		assert_int_equal(mt_gitrepo_read(&data, &size, reason, sizeof(reason), r, &e, 0),
				 MT_EINVALID);
		assert_null(data);
	}
	mt_gitrepo_free(r);
	free(dir);
}

/* ---- errors and odd repositories --------------------------------------- */

static void test_not_a_repository(void **state)
{
	char *dir = join(fx.tmp, "plain");
	git_buf found = {0};
	mt_gitrepo *r = (mt_gitrepo *)&r;

	(void)state;
	mt_mkdir_p(dir);
	if (git_repository_discover(&found, dir, 0, NULL) == 0) {
		git_buf_dispose(&found); /* TMPDIR lies inside a repository */
		free(dir);
		skip();
	}
	assert_int_equal(mt_gitrepo_open(&r, dir), MT_ENOTFOUND);
	assert_null(r);
	assert_non_null(strstr(mt_error_last(), "not a git repository"));
	assert_non_null(strstr(mt_error_last(), dir));
	assert_int_equal(mt_gitrepo_open(&r, "/nonexistent/mtrial/path"), MT_ENOTFOUND);
	free(dir);
}

static void test_bad_revisions(void **state)
{
	mt_gitrepo *r = open_ok(fx.work);
	mt_gitlisting l;

	(void)state;
	assert_int_equal(mt_gitrepo_list(&l, r, "nope", 0), MT_ENOTFOUND);
	assert_non_null(strstr(mt_error_last(), "unknown revision 'nope'"));
	assert_null(l.entries);
	assert_int_equal(l.nentries, 0);
	assert_int_equal(mt_gitrepo_list(&l, r, "HEAD~5", 0), MT_ENOTFOUND);
	assert_non_null(strstr(mt_error_last(), "'HEAD~5'"));
	assert_int_equal(mt_gitrepo_list(&l, r, "HEAD:train.py", 0), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "not a commit"));
	assert_int_equal(mt_gitrepo_list(&l, r, "nope", 1), MT_ENOTFOUND);
	mt_gitrepo_free(r);
}

static void test_empty_repository(void **state)
{
	char *dir = join(fx.tmp, "empty");
	git_repository *repo;
	mt_gitrepo *r;
	mt_gitlisting l;

	(void)state;
	ok(git_repository_init(&repo, dir, 0));
	git_repository_free(repo);
	mt_fx_write(dir, "a.py", "import torch\n");
	r = open_ok(dir);
	assert_int_equal(mt_gitrepo_list(&l, r, NULL, 0), MT_ESTATE);
	assert_non_null(strstr(mt_error_last(), "no commits"));
	assert_int_equal(mt_gitrepo_list(&l, r, "HEAD", 0), MT_ENOTFOUND);
	list_ok(&l, r, NULL, 1);
	assert_string_equal(l.commit, "");
	assert_string_equal(l.tree, "");
	assert_int_equal(l.nentries, 1);
	assert_blob(entry(&l, "a.py"), "import torch\n", MT_ENTRY_WORKTREE);
	assert_read(r, &l.entries[0], 0, "import torch\n");
	mt_gitlisting_dispose(&l);
	mt_gitrepo_free(r);
	free(dir);
}

/* A blob the object database does not have (a partial clone) is skipped by
 * the listing, and read() of a stale entry skips it too. */
static void test_missing_blob(void **state)
{
	char *dir = join(fx.tmp, "partial"), hex[41], *obj, reason[160];
	git_repository *repo;
	git_oid blob;
	mt_gitrepo *r;
	mt_gitlisting l;
	mt_gitentry e = {.path = "gone.py", .size = 5, .source = MT_ENTRY_BLOB};

	(void)state;
	ok(git_repository_init(&repo, dir, 0));
	mt_fx_write(dir, "gone.py", "gone\n");
	mt_fx_write(dir, "here.py", "here\n");
	add_paths(repo, (const char *const[]){"gone.py", "here.py", NULL});
	commit_index(hex, repo, "one");
	ok(git_blob_create_from_buffer(&blob, repo, "gone\n", 5));
	git_oid_tostr(hex, sizeof(hex), &blob);
	git_repository_free(repo);
	snprintf(reason, sizeof(reason), ".git/objects/%.2s/%s", hex, hex + 2);
	obj = join(dir, reason);
	assert_int_equal(unlink(obj), 0);
	r = open_ok(dir);
	list_ok(&l, r, NULL, 0);
	assert_int_equal(l.nentries, 1);
	assert_string_equal(l.entries[0].path, "here.py");
	snprintf(reason, sizeof(reason), "blob %s missing from the object database (partial clone?)", hex);
	assert_string_equal(skipped(&l, "gone.py"), reason);
	mt_gitlisting_dispose(&l);
	assert_int_equal(mt_gitrepo_list_ext(&l, r, NULL, 0, MT_LIST_NO_SIZES), 0);
	assert_int_equal(l.nentries, 1);
	assert_string_equal(skipped(&l, "gone.py"), reason);
	memcpy(e.oid, hex, sizeof(e.oid));
	memmove(reason + 6, reason, strlen(reason) + 1);
	memcpy(reason, "skip: ", 6);
	assert_read(r, &e, 0, reason);
	mt_gitlisting_dispose(&l);
	mt_gitrepo_free(r);
	free(obj);
	free(dir);
}

/* ---- reading ----------------------------------------------------------- */

static void test_read_reasons(void **state)
{
	mt_gitrepo *r = open_ok(fx.work);
	mt_gitlisting l;
	char *data, reason[256];
	size_t size = 99;

	(void)state;
	list_ok(&l, r, NULL, 0);
	assert_read(r, entry(&l, "data/blob.bin"), 0, "skip: binary (NUL byte)");
	assert_read(r, entry(&l, "bad.py"), 0, "skip: not UTF-8 (invalid byte 0xff at line 3)");
	assert_read(r, entry(&l, "big.py"), 4096, "skip: too large (9.8 KB, limit 4 KB)");
	assert_read(r, entry(&l, "pkg/model.py"), 0, MODEL_PY);
	assert_read(r, entry(&l, "train.py"), strlen(TRAIN_V2), TRAIN_V2);
	assert_int_equal(mt_gitrepo_read(&data, &size, reason, sizeof(reason), r,
					 entry(&l, "big.py"), 4 << 20), 0);
	assert_int_equal(size, BIG_SIZE);
	assert_int_equal(data[99], '\n');
	assert_int_equal(data[BIG_SIZE], '\0');
	free(data);
	/* No reason buffer: the skip still shows as NULL data. */
	assert_int_equal(mt_gitrepo_read(&data, &size, NULL, 0, r, entry(&l, "bad.py"), 0), 0);
	assert_null(data);
	assert_int_equal(size, 0);
	mt_gitlisting_dispose(&l);
	mt_gitrepo_free(r);
}

/* mt_gitrepo_read_view: the same bytes and skip reasons as mt_gitrepo_read,
 * without the copy. */
static void assert_view(mt_gitrepo *r, const mt_gitentry *e, uint64_t max)
{
	char *data = NULL, reason[256], vreason[256];
	size_t size = 0;
	mt_gitview v;

	assert_int_equal(mt_gitrepo_read(&data, &size, reason, sizeof(reason), r, e, max), 0);
	assert_int_equal(mt_gitrepo_read_view(&v, vreason, sizeof(vreason), r, e, max), 0);
	assert_string_equal(vreason, reason);
	assert_int_equal(v.size, size);
	assert_int_equal(!v.data, !data);
	if (data)
		assert_memory_equal(v.data, data, size);
	mt_gitview_dispose(&v);
	assert_null(v.data);
	free(data);
}

static void test_read_view(void **state)
{
	static const char *const paths[] = {"data/blob.bin", "bad.py", "big.py", "pkg/model.py",
					    "train.py"};
	mt_gitrepo *r = open_ok(fx.work);
	mt_gitlisting l;

	(void)state;
	list_ok(&l, r, NULL, 0);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		assert_view(r, entry(&l, paths[i]), 0);
		assert_view(r, entry(&l, paths[i]), 4096);
	}
	mt_gitlisting_dispose(&l);
	list_ok(&l, r, NULL, 1); /* work-tree files are read into a buffer */
	for (size_t i = 0; i < l.nentries; i++)
		assert_view(r, &l.entries[i], 0);
	mt_gitlisting_dispose(&l);
	mt_gitrepo_free(r);
}

/* A scan's summary is, byte for byte, the text jansson writes for it
 * (member order, escapes), also for paths with control characters, quotes
 * and bytes that are not UTF-8 (whose entries are left out, as json_pack
 * left them out). */
static void test_scan_summary_text(void **state)
{
	static const char *const names[] = {"tab\tname.py", "quo\"te.py", "back\\slash.py",
					    "ctl\x01\x1f\x7f.py", "cr\rname.py", "bad\xff.py",
					    "plain.py", NULL};
	static const char src[] = "import torch\nx = torch.zeros(3).cuda()\ny = x.to('cuda')\n";
	char *dir = join(fx.tmp, "scanpaths"), hex[41], *again;
	mt_scan_options o = {.use_cache = 0, .threads = 2};
	git_repository *repo;
	git_config *cfg;
	mt_scan_result r;
	json_t *v;

	(void)state;
	ok(git_repository_init(&repo, dir, 0));
	ok(git_repository_config(&cfg, repo));
	ok(git_config_set_bool(cfg, "core.protectNTFS", 0)); /* quotes, backslashes */
	git_config_free(cfg);
	for (const char *const *n = names; *n; n++)
		mt_fx_write(dir, *n, src);
	add_paths(repo, names);
	commit_index(hex, repo, "odd paths");
	git_repository_free(repo);
	o.repo = dir;
	if (mt_scan_run(&r, &o) != 0)
		fail_msg("scan: %s", mt_error_last());
	v = json_loads(r.summary, 0, NULL);
	assert_non_null(v);
	again = json_dumps(v, JSON_COMPACT);
	assert_string_equal(again, r.summary);
	assert_int_equal(json_array_size(json_object_get(v, "files")), 6); /* not bad\xff.py */
	assert_true(json_array_size(json_object_get(v, "findings")) >= 6);
	free(again);
	json_decref(v);
	mt_scan_result_dispose(&r);
	free(dir);
}

/* One file at a revision, without a listing: what the wizard shows a call
 * site's line from. Work-tree changes do not show; errors name the path. */
static void assert_path(mt_gitrepo *r, const char *rev, const char *path, const char *want,
			size_t want_size)
{
	char *data = NULL;
	size_t size = 99;

	if (mt_gitrepo_read_path(&data, &size, r, rev, path) != 0)
		fail_msg("read %s:%s: %s", rev ? rev : "HEAD", path, mt_error_last());
	assert_int_equal(size, want_size);
	assert_memory_equal(data, want, want_size);
	assert_int_equal(data[size], '\0');
	free(data);
}

static void assert_path_fails(mt_gitrepo *r, const char *rev, const char *path, int code,
			      const char *words)
{
	char *data = (char *)"untouched";
	size_t size = 99;

	assert_int_equal(mt_gitrepo_read_path(&data, &size, r, rev, path), code);
	assert_null(data);
	assert_int_equal(size, 0);
	if (!strstr(mt_error_last(), words))
		fail_msg("'%s' lacks '%s'", mt_error_last(), words);
}

static void test_read_path(void **state)
{
	static const char bin[] = "\x7f" "ELF\0\0\0binary";
	char *dir = bare_fixture("bare-path.git");
	mt_gitrepo *r = open_ok(fx.work), *bare = open_ok(dir);

	(void)state;
	assert_path(r, NULL, "train.py", TRAIN_V2, strlen(TRAIN_V2));
	assert_path(r, "HEAD", "pkg/model.py", MODEL_PY, strlen(MODEL_PY));
	assert_path(r, "old", "train.py", TRAIN_V1, strlen(TRAIN_V1));
	assert_path(r, "v1", "train.py", TRAIN_V1, strlen(TRAIN_V1));
	assert_path(r, fx.c1, "train.py", TRAIN_V1, strlen(TRAIN_V1));
	assert_path(r, fx.c2, "data/blob.bin", bin, sizeof(bin)); /* bytes as they are */
	assert_path(r, NULL, "link", "train.py", 8);             /* the link, not its target */
	assert_path(bare, "master", "train.py", TRAIN_V2, strlen(TRAIN_V2));
	assert_path(bare, "old", "pkg/model.py", MODEL_PY, strlen(MODEL_PY));
	assert_path_fails(r, "nope", "train.py", MT_ENOTFOUND, "unknown revision 'nope'");
	assert_path_fails(r, NULL, "missing.py", MT_ENOTFOUND, "'missing.py' not found at HEAD");
	assert_path_fails(r, "old", "bad.py", MT_ENOTFOUND, "'bad.py' not found at old");
	assert_path_fails(r, NULL, "pkg", MT_EINVALID, "'pkg' is not a file");
	assert_path_fails(r, NULL, "vendor/sub", MT_EINVALID, "is not a file");
	assert_path_fails(r, NULL, "", MT_EINVALID, "no path");
	mt_gitrepo_free(bare);
	mt_gitrepo_free(r);
	free(dir);
}

static void test_check_text(void **state)
{
	static const struct {
		const char *text;
		const char *reason;
	} cases[] = {
		{"plain ascii\n", ""},
		{"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\n", ""},
		{"a\nb\n\xc0\x80\n", "not UTF-8 (invalid byte 0xc0 at line 3)"},      /* overlong */
		{"\xe0\x80\xaf", "not UTF-8 (invalid byte 0xe0 at line 1)"},          /* overlong */
		{"\n\xed\xa0\x80", "not UTF-8 (invalid byte 0xed at line 2)"},        /* surrogate */
		{"\xf4\x90\x80\x80", "not UTF-8 (invalid byte 0xf4 at line 1)"},      /* > U+10FFFF */
		{"0123456789abcdef0123\n\xe4\xb8", "not UTF-8 (invalid byte 0xe4 at line 2)"},
		{"0123456789abcdef0123456789\x80", "not UTF-8 (invalid byte 0x80 at line 1)"},
		{"\xe4\xb8x", "not UTF-8 (invalid byte 0xe4 at line 1)"},
	};
	char reason[128], buf[9000];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int bad = mt_gitread_check_text(reason, sizeof(reason), cases[i].text,
						strlen(cases[i].text));
		assert_string_equal(reason, cases[i].reason);
		assert_int_equal(bad, cases[i].reason[0] != '\0');
	}
	memset(buf, 'x', sizeof(buf));
	buf[8500] = '\0'; /* past git's 8000-byte probe: text, and valid UTF-8 */
	assert_int_equal(mt_gitread_check_text(reason, sizeof(reason), buf, sizeof(buf)), 0);
	buf[7999] = '\0';
	assert_int_equal(mt_gitread_check_text(reason, sizeof(reason), buf, sizeof(buf)), 1);
	assert_string_equal(reason, "binary (NUL byte)");
}

static void test_blob_id(void **state)
{
	char id[41];

	(void)state;
	assert_int_equal(mt_gitblob_id(id, "hello\n", 6), 0);
	assert_string_equal(id, "ce013625030ba8dba906f756967f9e9ca394464a");
	assert_int_equal(mt_gitblob_id(id, NULL, 0), 0);
	assert_string_equal(id, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

/* ---- threads ----------------------------------------------------------- */

typedef struct {
	mt_gitrepo *r;
	const mt_gitlisting *l;
	char **out; /* one text per entry, as read_text */
	int error;
} reader;

static void *read_all(void *arg)
{
	reader *t = arg;

	for (int round = 0; round < 20 && !t->error; round++) {
		for (size_t i = 0; i < t->l->nentries; i++) {
			char *data, reason[256];
			size_t size;
			if (mt_gitrepo_read(&data, &size, reason, sizeof(reason), t->r,
					    &t->l->entries[i], 8192) != 0) {
				t->error = 1;
				break;
			}
			free(t->out[i]);
			t->out[i] = data ? data : mt_strdup(reason);
		}
	}
	return NULL;
}

static void test_dup_threads(void **state)
{
	mt_gitrepo *r = open_ok(fx.work), *d[2];
	mt_gitlisting l;
	reader t[2];
	pthread_t th[2];

	(void)state;
	list_ok(&l, r, NULL, 0);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(mt_gitrepo_dup(&d[k], r), 0);
		assert_string_equal(mt_gitrepo_path(d[k]), mt_gitrepo_path(r));
		t[k] = (reader){d[k], &l, calloc(l.nentries, sizeof(char *)), 0};
	}
	mt_gitrepo_free(r); /* the copies stand on their own */
	for (int k = 0; k < 2; k++)
		assert_int_equal(pthread_create(&th[k], NULL, read_all, &t[k]), 0);
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	for (size_t i = 0; i < l.nentries; i++) {
		char *want = read_text(d[0], &l.entries[i], 8192);
		assert_int_equal(t[0].error | t[1].error, 0);
		assert_string_equal(t[0].out[i], t[1].out[i]);
		if (strncmp(want, "skip: ", 6) == 0)
			assert_string_equal(t[0].out[i], want + 6);
		else
			assert_string_equal(t[0].out[i], want);
		free(want);
	}
	assert_string_equal(t[0].out[l.nentries - 1], TRAIN_V2);
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < l.nentries; i++)
			free(t[k].out[i]);
		free(t[k].out);
		mt_gitrepo_free(d[k]);
	}
	mt_gitlisting_dispose(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_head),
		cmocka_unit_test(test_list_no_sizes),
		cmocka_unit_test(test_list_revisions),
		cmocka_unit_test(test_open_inside),
		cmocka_unit_test(test_bare_packed),
		cmocka_unit_test(test_bare_unset),
		cmocka_unit_test(test_worktree),
		cmocka_unit_test(test_worktree_read_nofollow),
		cmocka_unit_test(test_not_a_repository),
		cmocka_unit_test(test_bad_revisions),
		cmocka_unit_test(test_empty_repository),
		cmocka_unit_test(test_missing_blob),
		cmocka_unit_test(test_read_reasons),
		cmocka_unit_test(test_read_view),
		cmocka_unit_test(test_scan_summary_text),
		cmocka_unit_test(test_read_path),
		cmocka_unit_test(test_check_text),
		cmocka_unit_test(test_blob_id),
		cmocka_unit_test(test_dup_threads),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
