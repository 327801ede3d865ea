/* A repository handle, and the listing of its files at a revision (with
 * --worktree, the work tree's changes over it). Reading the files is
 * gitread.c's. */
#include "gitread.h"
#include "error.h"
#include "git_int.h"
#include "gitpack.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* One file of a listing under construction: an entry when `reason` is NULL,
 * a skipped path otherwise. */
typedef struct {
	char *path;
	char *reason;
	char oid[41];
	uint64_t size;
	mt_entry_source source;
	int dead; /* replaced by a work-tree item */
} item;

typedef struct {
	item *v;
	size_t n, cap;
} items;

static char *strip_slash(const char *s)
{
	char *copy = mt_strdup(s);
	size_t n = strlen(copy);

	if (n > 1 && copy[n - 1] == '/')
		copy[n - 1] = '\0';
	return copy;
}

/* Takes ownership of `repo` (freed on failure too). */
static int wrap_repo(mt_gitrepo **out, git_repository *repo)
{
	mt_gitrepo *r = calloc(1, sizeof(*r));
	int error = 0;

	if (!r) {
		git_repository_free(repo);
		return mt_error_set(MT_EIO, "out of memory");
	}
	r->repo = repo;
	if (git_repository_odb(&r->odb, repo) < 0) {
		error = git_fail(MT_EIO, git_repository_path(repo));
		goto cleanup;
	}
	r->bare = git_repository_is_bare(repo);
	r->gitdir = mt_strdup(git_repository_path(repo));
	r->path = strip_slash(r->bare ? r->gitdir : git_repository_workdir(repo));
cleanup:
	if (error < 0) {
		git_odb_free(r->odb);
		git_repository_free(repo);
		free(r);
		r = NULL;
	}
	*out = r;
	return error;
}

static int open_fail(int gerror, const char *path)
{
	if (gerror == GIT_ENOTFOUND) {
		git_fail(MT_ENOTFOUND, path);
		return mt_error_prefix(MT_ENOTFOUND, "not a git repository: ");
	}
	return git_fail(gerror == GIT_EOWNER ? MT_ESTATE : MT_EIO, path);
}

/* git init always writes core.bare. A git dir without it, not named .git
 * and with no core.worktree (a mirror, a hand-made copy) is bare to git
 * when used directly, whereas libgit2 would take its parent directory for
 * a work tree. Reopens *repo bare then. */
int mt_gitrepo__guess_bare(git_repository **repo)
{
	const char *gitdir = git_repository_path(*repo);
	size_t n = strlen(gitdir);
	git_config *cfg = NULL;
	git_config_entry *wt = NULL;
	git_repository *bare = NULL;
	int v, error = 0;

	if (git_repository_is_bare(*repo) || git_repository_is_worktree(*repo) ||
	    (n >= 5 && !strncmp(gitdir + n - 5, ".git/", 5)))
		return 0;
	if (git_repository_config_snapshot(&cfg, *repo) < 0)
		return git_fail(MT_EIO, gitdir);
	if (git_config_get_bool(&v, cfg, "core.bare") == GIT_ENOTFOUND &&
	    git_config_get_entry(&wt, cfg, "core.worktree") == GIT_ENOTFOUND) {
		if (git_repository_open_bare(&bare, gitdir) < 0) {
			error = git_fail(MT_EIO, gitdir);
			goto cleanup;
		}
		git_repository_free(*repo);
		*repo = bare;
	}
cleanup:
	git_config_entry_free(wt);
	git_config_free(cfg);
	return error;
}

/* `flags` are git_repository_open_ext()'s. One libgit2 init per handle. */
static int open_handle(mt_gitrepo **out, const char *path, unsigned flags)
{
	git_repository *repo = NULL;
	int error;

	*out = NULL;
	if (git_libgit2_init() < 0)
		return git_fail(MT_EIO, "libgit2");
	/* libgit2 re-hashes every object it reads with collision-detecting
	 * SHA-1, a third of the time of a scan; git itself checks hashes in
	 * fsck, not on every read. A damaged object still fails to inflate. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	error = git_repository_open_ext(&repo, path, flags, NULL);
	if (error < 0)
		error = open_fail(error, path);
	else if ((error = mt_gitrepo__guess_bare(&repo)) < 0)
		git_repository_free(repo);
	else
		error = wrap_repo(out, repo);
	if (error < 0)
		git_libgit2_shutdown();
	return error;
}

int mt_gitrepo_open(mt_gitrepo **out, const char *path)
{
	int error = open_handle(out, path, 0);

	/* now, not on the first blob: mt_gitrepo_dup() then shares the
	 * mappings, and threads never open them concurrently */
	if (error == 0)
		mt_gitread__pack(*out);
	return error;
}

int mt_gitrepo_dup(mt_gitrepo **out, const mt_gitrepo *r)
{
	/* The git dir, not the work tree: libgit2 then finds the same work
	 * tree through core.worktree or a linked worktree's gitdir file. */
	int error = open_handle(out, r->gitdir, GIT_REPOSITORY_OPEN_NO_SEARCH);

	if (error == 0 && r->pack_tried) { /* the same mappings, a reader of its own */
		(*out)->pack = mt_gitpack_share(r->pack);
		(*out)->pack_tried = 1;
	}
	return error;
}

void mt_gitrepo_free(mt_gitrepo *r)
{
	if (!r)
		return;
	mt_gitpack_free(r->pack);
	git_odb_free(r->odb);
	git_repository_free(r->repo);
	free(r->path);
	free(r->gitdir);
	free(r);
	git_libgit2_shutdown();
}

const char *mt_gitrepo_path(const mt_gitrepo *r)
{
	return r->path;
}

int mt_gitrepo_is_bare(const mt_gitrepo *r)
{
	return r->bare;
}

/* ---- building a listing ------------------------------------------------ */

/* Appends an item owning `path`; `reason` (NULL for an entry) is copied. */
static item *items_add(items *it, char *path, const char *reason)
{
	item *x;

	if (it->n == it->cap) {
		size_t cap = it->cap ? it->cap * 2 : 256;
		item *v = realloc(it->v, cap * sizeof(*v));
		if (!v) {
			free(path);
			mt_error_set(MT_EIO, "out of memory");
			return NULL;
		}
		it->v = v;
		it->cap = cap;
	}
	x = &it->v[it->n++];
	memset(x, 0, sizeof(*x));
	x->path = path;
	x->reason = reason ? mt_strdup(reason) : NULL;
	return x;
}

static void items_dispose(items *it)
{
	for (size_t i = 0; i < it->n; i++) {
		free(it->v[i].path);
		free(it->v[i].reason);
	}
	free(it->v);
	memset(it, 0, sizeof(*it));
}

static int item_cmp(const void *a, const void *b)
{
	return strcmp(((const item *)a)->path, ((const item *)b)->path);
}

static void items_sort(items *it)
{
	if (it->n) /* qsort's base must not be NULL */
		qsort(it->v, it->n, sizeof(item), item_cmp);
}

/* The live item for `path` among the first `n` (sorted), or NULL. */
static item *items_find(items *it, size_t n, const char *path)
{
	item key = {.path = (char *)path};
	item *x = n ? bsearch(&key, it->v, n, sizeof(item), item_cmp) : NULL;
	return x && !x->dead ? x : NULL;
}

typedef struct {
	items *it;
	git_odb *odb;
	int error;
	int no_sizes; /* MT_LIST_NO_SIZES */
} walk_ctx;

static int add_blob(walk_ctx *c, char *path, const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1], why[128];
	git_object_t type;
	size_t len;
	item *x;
	int gerr;

	git_oid_tostr(hex, sizeof(hex), id);
	if (c->no_sizes) { /* an index lookup, no header to inflate */
		gerr = git_odb_exists(c->odb, id) ? 0 : GIT_ENOTFOUND;
		len = 0;
	} else {
		gerr = git_odb_read_header(&len, &type, c->odb, id);
	}
	if (gerr == GIT_ENOTFOUND) {
		snprintf(why, sizeof(why), "blob %s missing from the object database (partial clone?)", hex);
		return items_add(c->it, path, why) ? 0 : MT_EIO;
	}
	if (gerr < 0) { /* a corrupt object or pack: this file only */
		unreadable(why, sizeof(why), "blob", hex);
		return items_add(c->it, path, why) ? 0 : MT_EIO;
	}
	if (!(x = items_add(c->it, path, NULL)))
		return MT_EIO;
	memcpy(x->oid, hex, sizeof(hex));
	x->size = c->no_sizes ? MT_SIZE_UNKNOWN : len;
	x->source = MT_ENTRY_BLOB;
	return 0;
}

static int walk_tree(walk_ctx *c, mt_gitrepo *r, const git_tree *tree, const char *root,
		     int depth);
static int walk_cb(const char *root, const git_tree_entry *te, void *payload);

/* A subtree at root/name/: walked, or listed as skipped when it cannot be
 * read (a corrupt tree object names its directory, not the whole scan). */
static int walk_subtree(walk_ctx *c, mt_gitrepo *r, const git_tree_entry *te, const char *root,
			int depth)
{
	char *dir = mt_path_join(root, git_tree_entry_name(te)), hex[GIT_OID_HEXSZ + 1], why[512];
	git_tree *sub = NULL;
	size_t n = strlen(dir);
	int error;

	git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(te));
	if (depth >= 4096) {
		snprintf(why, sizeof(why), "tree %s nested over 4096 levels (not entered)", hex);
		return items_add(c->it, dir, why) ? 0 : MT_EIO;
	}
	if (git_tree_lookup(&sub, r->repo, git_tree_entry_id(te)) < 0) {
		unreadable(why, sizeof(why), "tree", hex);
		return items_add(c->it, dir, why) ? 0 : MT_EIO;
	}
	dir = realloc(dir, n + 2);
	if (!dir)
		abort();
	memcpy(dir + n, "/", 2);
	error = walk_tree(c, r, sub, dir, depth + 1);
	free(dir);
	git_tree_free(sub);
	return error;
}

/* Every entry of tree, whose path is root ("" or "dir/"), and its
 * subtrees, in git's order. */
static int walk_tree(walk_ctx *c, mt_gitrepo *r, const git_tree *tree, const char *root,
		     int depth)
{
	for (size_t i = 0; i < git_tree_entrycount(tree); i++) {
		const git_tree_entry *te = git_tree_entry_byindex(tree, i);
		int error = git_tree_entry_filemode(te) == GIT_FILEMODE_TREE
				    ? walk_subtree(c, r, te, root, depth)
				    : (walk_cb(root, te, c) < 0 ? c->error : 0);
		if (error < 0)
			return error;
	}
	return 0;
}

static int walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
	walk_ctx *c = payload;
	git_filemode_t mode = git_tree_entry_filemode(te);
	char why[128], hex[GIT_OID_HEXSZ + 1];
	char *path;

	path = mt_path_join(root, git_tree_entry_name(te)); /* root is "" or "dir/" */
	if (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE)
		c->error = add_blob(c, path, git_tree_entry_id(te));
	else if (mode == GIT_FILEMODE_LINK)
		c->error = items_add(c->it, path, "symlink (not followed)") ? 0 : MT_EIO;
	else if (mode == GIT_FILEMODE_COMMIT) {
		git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(te));
		snprintf(why, sizeof(why), "submodule at %s", hex);
		c->error = items_add(c->it, path, why) ? 0 : MT_EIO;
	} else {
		snprintf(why, sizeof(why), "unsupported mode %06o", (unsigned)mode);
		c->error = items_add(c->it, path, why) ? 0 : MT_EIO;
	}
	return c->error < 0 ? -1 : 0;
}

/* libgit2's git_tree_entry_filemode(): a tree entry's mode as git means it */
static git_filemode_t normalize_mode(unsigned m)
{
	if ((m & 0170000) == GIT_FILEMODE_TREE)
		return GIT_FILEMODE_TREE;
	if (m & 0111)
		return GIT_FILEMODE_BLOB_EXECUTABLE;
	if ((m & 0170000) == GIT_FILEMODE_COMMIT)
		return GIT_FILEMODE_COMMIT;
	if ((m & 0170000) == GIT_FILEMODE_LINK)
		return GIT_FILEMODE_LINK;
	return GIT_FILEMODE_BLOB;
}

/* One tree (and its subtrees) read through the pack reader, for a listing
 * without sizes: what walk_cb() does, without libgit2's tree objects and
 * with an index lookup for each blob. 1 when done; 0 when some tree or
 * blob is not in a pack (or a tree does not parse): the caller then lets
 * libgit2 do it all; < 0 on an error. */
static int walk_packed(items *it, mt_gitpack *pk, const unsigned char id[20], const char *root,
		       int depth)
{
	char *data, *path, why[128], hex[GIT_OID_HEXSZ + 1];
	size_t size, rlen = strlen(root);
	const char *p, *end;
	int type, rc = 1;

	if (depth > 1000 || mt_gitpack_read(pk, id, &type, &data, &size, UINT64_MAX) != 1)
		return 0;
	if (type != MT_GITPACK_TREE) {
		mt_gitpack_release(pk, data);
		return 0;
	}
	for (p = data, end = data + size; rc == 1 && p < end;) {
		unsigned mode = 0;
		const char *name, *nul;
		git_oid oid;
		while (p < end && *p >= '0' && *p <= '7')
			mode = mode * 8 + (unsigned)(*p++ - '0');
		if (p >= end || *p++ != ' ' || !(nul = memchr(p, '\0', (size_t)(end - p))) ||
		    end - nul < 21 || nul == p) {
			rc = 0;
			break;
		}
		name = p;
		memcpy(oid.id, nul + 1, 20);
		p = nul + 21;
		git_filemode_t m = normalize_mode(mode);
		if (!(path = malloc(rlen + (size_t)(nul - name) + 2))) {
			rc = mt_error_set(MT_EIO, "out of memory");
			break;
		}
		memcpy(path, root, rlen);
		memcpy(path + rlen, name, (size_t)(nul - name) + 1);
		if (m == GIT_FILEMODE_TREE) {
			strcat(path, "/");
			rc = walk_packed(it, pk, oid.id, path, depth + 1);
			free(path);
			continue;
		}
		if (m == GIT_FILEMODE_BLOB || m == GIT_FILEMODE_BLOB_EXECUTABLE) {
			item *x;
			if (!mt_gitpack_has(pk, oid.id)) {
				free(path);
				rc = 0; /* loose, or missing: libgit2 says which */
				break;
			}
			if (!(x = items_add(it, path, NULL))) {
				rc = MT_EIO;
				break;
			}
			git_oid_tostr(x->oid, sizeof(x->oid), &oid);
			x->size = MT_SIZE_UNKNOWN;
			x->source = MT_ENTRY_BLOB;
			continue;
		}
		if (m == GIT_FILEMODE_LINK) {
			snprintf(why, sizeof(why), "symlink (not followed)");
		} else {
			git_oid_tostr(hex, sizeof(hex), &oid);
			snprintf(why, sizeof(why), "submodule at %s", hex);
		}
		if (!items_add(it, path, why))
			rc = MT_EIO;
	}
	mt_gitpack_release(pk, data);
	return rc;
}

static int list_tree(items *it, mt_gitrepo *r, git_tree *tree, int no_sizes)
{
	walk_ctx c = {it, r->odb, 0, no_sizes};
	size_t before = it->n;
	int rc;

	if (no_sizes && r->pack) {
		if ((rc = walk_packed(it, r->pack, git_tree_id(tree)->id, "", 0)) != 0)
			return rc < 0 ? rc : 0;
		while (it->n > before) { /* start again through libgit2 */
			it->n--;
			free(it->v[it->n].path);
			free(it->v[it->n].reason);
		}
	}

	return walk_tree(&c, r, tree, "", 0);
}

/* 1 (the error set) when spec is a reference whose commit cannot be read:
 * the object database is damaged (a truncated pack index, a lost pack),
 * which "unknown revision" would hide. */
static int named_but_unreadable(mt_gitrepo *r, const char *spec, const char *msg)
{
	git_reference *ref = NULL, *res = NULL;
	char hex[GIT_OID_HEXSZ + 1], *copy = mt_strdup(msg);
	int found = git_reference_dwim(&ref, r->repo, spec) == 0 &&
		    git_reference_resolve(&res, ref) == 0 && git_reference_target(res);

	if (found) {
		git_oid_tostr(hex, sizeof(hex), git_reference_target(res));
		mt_error_set(MT_EINVALID, "revision '%s' is commit %s, which cannot be read: %s "
			     "(a damaged object database: a lost or truncated pack or pack index?)",
			     spec, hex, copy);
	}
	free(copy);
	git_reference_free(res);
	git_reference_free(ref);
	return found;
}

/* The commit `rev` names, or NULL for --worktree in a repository whose HEAD
 * has no commit yet. */
static int resolve(git_commit **out, mt_gitrepo *r, const char *rev, int worktree)
{
	git_object *obj = NULL;
	const char *spec = rev ? rev : "HEAD";
	int error = 0, gerr;

	*out = NULL;
	if (!rev && git_repository_head_unborn(r->repo) == 1) {
		if (worktree)
			return 0;
		return mt_error_set(MT_ESTATE, "%s: the repository has no commits yet", r->path);
	}
	gerr = git_revparse_single(&obj, r->repo, spec);
	if (gerr < 0) {
		const git_error *e = git_error_last();
		const char *msg = e && e->message ? e->message : "libgit2 error";
		if (gerr == GIT_ENOTFOUND && named_but_unreadable(r, spec, msg))
			return MT_EINVALID;
		if (gerr == GIT_ENOTFOUND)
			return mt_error_set(MT_ENOTFOUND, "unknown revision '%s': %s", spec, msg);
		return mt_error_set(MT_EINVALID, "bad revision '%s': %s", spec, msg);
	}
	if (git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT) < 0) {
		const git_error *e = git_error_last();
		error = mt_error_set(MT_EINVALID, "revision '%s' is not a commit: %s", spec,
				     e && e->message ? e->message : "libgit2 error");
	}
	git_object_free(obj);
	return error;
}

/* ---- the work tree ----------------------------------------------------- */

/* Describes the work-tree file `rel` (owned) as an entry or a skip. */
static int add_worktree_file(items *it, mt_gitrepo *r, char *rel)
{
	char *full = mt_path_join(r->path, rel);
	const char *why = NULL;
	struct stat st;
	git_oid id;
	item *x;
	int error = 0;

	if (lstat(full, &st) < 0)
		why = errno == ENOENT || errno == ENOTDIR ? "deleted in work tree" : strerror(errno);
	else if (S_ISLNK(st.st_mode))
		why = "symlink (not followed)";
	else if (S_ISDIR(st.st_mode))
		why = "nested repository (not entered)";
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (git_odb_hashfile(&id, full, GIT_OBJECT_BLOB) < 0)
		why = "unreadable in work tree";
	if (why) {
		error = items_add(it, rel, why) ? 0 : MT_EIO;
		goto cleanup;
	}
	if (!(x = items_add(it, rel, NULL))) {
		error = MT_EIO;
		goto cleanup;
	}
	git_oid_tostr(x->oid, sizeof(x->oid), &id);
	x->size = (uint64_t)st.st_size;
	x->source = MT_ENTRY_WORKTREE;
cleanup:
	free(full);
	return error;
}

/* `rel` (owned) is in the revision but not in the index and work tree
 * together. Still on disk, it was only removed from the index (git rm
 * --cached): libgit2 folds the untracked file into this one delta, so it is
 * added back unless .gitignore ignores it. */
static int apply_deleted(items *it, mt_gitrepo *r, char *rel)
{
	char *full = mt_path_join(r->path, rel);
	struct stat st;
	int present = lstat(full, &st) == 0, ignored = 0;

	free(full);
	if (!present)
		return items_add(it, rel, "deleted in work tree") ? 0 : MT_EIO;
	if (git_ignore_path_is_ignored(&ignored, r->repo, rel) < 0) {
		int error = git_fail(MT_EIO, rel);
		free(rel);
		return error;
	}
	if (ignored) {
		free(rel);
		return 0;
	}
	return add_worktree_file(it, r, rel);
}

/* Applies one difference between the revision and the work tree to the
 * first `base` items (the sorted committed listing). */
static int apply_delta(items *it, size_t base, mt_gitrepo *r, const git_diff_delta *d)
{
	const char *path = d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path;
	item *old = items_find(it, base, path);
	char *rel, why[128], hex[GIT_OID_HEXSZ + 1];
	size_t n;

	if (d->status == GIT_DELTA_UNMODIFIED || d->status == GIT_DELTA_IGNORED)
		return 0;
	if (d->new_file.mode == GIT_FILEMODE_COMMIT || d->old_file.mode == GIT_FILEMODE_COMMIT) {
		/* A submodule, checked out or not, is never entered: the
		 * committed gitlink stands, a newly staged one joins. */
		if (old || d->new_file.mode != GIT_FILEMODE_COMMIT)
			return 0;
		git_oid_tostr(hex, sizeof(hex), &d->new_file.id);
		snprintf(why, sizeof(why), "submodule at %s", hex);
		return items_add(it, mt_strdup(path), why) ? 0 : MT_EIO;
	}
	if (old)
		old->dead = 1;
	rel = mt_strdup(path);
	n = strlen(rel);
	if (n > 1 && rel[n - 1] == '/') /* an untracked nested repository */
		rel[n - 1] = '\0';
	if (d->status == GIT_DELTA_DELETED)
		return apply_deleted(it, r, rel);
	return add_worktree_file(it, r, rel);
}

/* libgit2 walks a work tree 100 levels deep at most */
#define WORKTREE_DEPTH 96

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The comparison with the work tree failed: when it holds directories
 * nested deeper than libgit2 walks, compares everything else and lists
 * those as skipped (their committed files stay as committed). Otherwise
 * the failure, in libgit2's words. */
static int compare_around_deep(git_diff **diff, items *it, mt_gitrepo *r, git_tree *tree,
			       git_diff_options *opts)
{
	char **specs = NULL, **deep = NULL, why[160];
	size_t nspecs = 0, ndeep = 0;
	int error = git_fail(MT_EIO, "comparing with the work tree"), found;

	found = mt_gitread__deep_dirs(&specs, &nspecs, &deep, &ndeep, r->path, WORKTREE_DEPTH);
	if (found <= 0)
		return error;
	mt_error_clear();
	error = 0;
	opts->pathspec.strings = specs;
	opts->pathspec.count = nspecs;
	opts->flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH; /* paths, not patterns */
	if (nspecs && git_diff_tree_to_workdir_with_index(diff, r->repo, tree, opts) < 0)
		error = git_fail(MT_EIO, "comparing with the work tree");
	else if (!nspecs && git_diff_tree_to_tree(diff, r->repo, tree, tree, NULL) < 0)
		error = git_fail(MT_EIO, "comparing with the work tree");
	snprintf(why, sizeof(why), "directory nested over %d levels: not compared with the work "
		 "tree (libgit2 walks 100 at most); committed files in it are scanned as committed",
		 WORKTREE_DEPTH);
	for (size_t i = 0; i < ndeep && error == 0; i++) {
		error = items_add(it, deep[i], why) ? 0 : MT_EIO;
		deep[i] = NULL; /* the item owns it */
	}
	free_strs(specs, nspecs);
	free_strs(deep, ndeep);
	return error;
}

static int apply_worktree(items *it, mt_gitrepo *r, git_tree *tree)
{
	git_diff_options opts;
	git_diff *diff = NULL;
	size_t base = it->n, n;
	int error = 0;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);

	/* Submodules are listed from the tree and never opened. */
	opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
		     GIT_DIFF_IGNORE_SUBMODULES | GIT_DIFF_INCLUDE_TYPECHANGE;
	items_sort(it);
	if (git_diff_tree_to_workdir_with_index(&diff, r->repo, tree, &opts) < 0 &&
	    (error = compare_around_deep(&diff, it, r, tree, &opts)) < 0)
		return error;
	n = git_diff_num_deltas(diff);
	for (size_t i = 0; i < n && error == 0; i++)
		error = apply_delta(it, base, r, git_diff_get_delta(diff, i));
	git_diff_free(diff);
	return error;
}

/* Moves the live items into the listing, sorted, entries apart from skips. */
static int finish(mt_gitlisting *out, items *it)
{
	size_t ne = 0, ns = 0;

	items_sort(it);
	for (size_t i = 0, last = SIZE_MAX; i < it->n; i++) {
		item *x = &it->v[i];
		if (x->dead)
			continue;
		/* One path, one item, should libgit2 report a path twice. */
		if (last != SIZE_MAX && !strcmp(it->v[last].path, x->path)) {
			x->dead = 1;
			continue;
		}
		last = i;
		*(x->reason ? &ns : &ne) += 1;
	}
	out->entries = calloc(ne ? ne : 1, sizeof(mt_gitentry));
	out->skipped = calloc(ns ? ns : 1, sizeof(mt_gitskip));
	if (!out->entries || !out->skipped)
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < it->n; i++) {
		item *x = &it->v[i];
		if (x->dead)
			continue;
		if (x->reason) {
			out->skipped[out->nskipped++] = (mt_gitskip){x->path, x->reason};
		} else {
			mt_gitentry *e = &out->entries[out->nentries++];
			e->path = x->path;
			memcpy(e->oid, x->oid, sizeof(e->oid));
			e->size = x->size;
			e->source = x->source;
		}
		x->path = x->reason = NULL;
	}
	return 0;
}

int mt_gitrepo_list(mt_gitlisting *out, mt_gitrepo *r, const char *rev, int worktree)
{
	return mt_gitrepo_list_ext(out, r, rev, worktree, 0);
}

int mt_gitrepo_list_ext(mt_gitlisting *out, mt_gitrepo *r, const char *rev, int worktree,
			unsigned flags)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	items it = {0};
	int error;

	memset(out, 0, sizeof(*out));
	if (worktree && r->bare)
		return mt_error_set(MT_ESTATE, "%s: a bare repository has no work tree", r->path);
	if ((error = resolve(&commit, r, rev, worktree)) < 0)
		goto cleanup;
	if (commit) {
		if (git_commit_tree(&tree, commit) < 0) {
			error = git_fail(MT_EIO, "reading the commit's tree");
			goto cleanup;
		}
		git_oid_tostr(out->commit, sizeof(out->commit), git_commit_id(commit));
		if (!worktree)
			git_oid_tostr(out->tree, sizeof(out->tree), git_tree_id(tree));
		if (!(flags & MT_LIST_IDS_ONLY) &&
		    (error = list_tree(&it, r, tree, (flags & MT_LIST_NO_SIZES) && !worktree)) < 0)
			goto cleanup;
	}
	if (flags & MT_LIST_IDS_ONLY)
		goto cleanup;
	if (worktree && (error = apply_worktree(&it, r, tree)) < 0)
		goto cleanup;
	error = finish(out, &it);
cleanup:
	items_dispose(&it);
	git_tree_free(tree);
	git_commit_free(commit);
	if (error < 0)
		mt_gitlisting_dispose(out);
	return error;
}

void mt_gitlisting_dispose(mt_gitlisting *l)
{
	for (size_t i = 0; i < l->nentries; i++)
		free(l->entries[i].path);
	for (size_t i = 0; i < l->nskipped; i++) {
		free(l->skipped[i].path);
		free(l->skipped[i].reason);
	}
	free(l->entries);
	free(l->skipped);
	memset(l, 0, sizeof(*l));
}
