/* A set of files under a ref of its own: see gitsync.h. */
#include "gitsync.h"
#include "error.h"
#include "git_int.h"
#include "sanitize.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void mt_gitsync_files_free(mt_gitsync_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].why);
	}
	free(v);
}

static int oid_in(git_oid *oid, const char *hex, const char *what)
{
	if (git_oid_fromstr(oid, hex) < 0)
		return git_fail(MT_EINVALID, what);
	return 0;
}

int mt_gitsync_ref(mt_gitrepo *r, const char *ref, char oid[41])
{
	git_oid id;
	int rc = git_reference_name_to_id(&id, r->repo, ref);

	oid[0] = '\0';
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return git_fail(MT_EIO, ref);
	git_oid_tostr(oid, 41, &id);
	return 0;
}

int mt_gitsync_set_ref(mt_gitrepo *r, const char *ref, const char *oid, const char *log)
{
	git_reference *out = NULL;
	git_oid id;
	int error;

	if ((error = oid_in(&id, oid, ref)) < 0)
		return error;
	if (git_reference_create(&out, r->repo, ref, &id, 1, log) < 0)
		return git_fail(MT_EIO, ref);
	git_reference_free(out);
	return 0;
}

struct listing {
	mt_gitsync_file *v;
	size_t n, cap;
};

static void add_file(struct listing *l, const char *path, const git_oid *id, const char *why)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 32;
		if (!(l->v = realloc(l->v, l->cap * sizeof(*l->v))))
			abort();
	}
	l->v[l->n].path = mt_strdup(path);
	git_oid_tostr(l->v[l->n].oid, 41, id);
	l->v[l->n].why = why ? mt_strdup(why) : NULL;
	l->n++;
}

/* Lists tree `t` under `prefix` ("" at the root, else "dir/"). */
static int list_tree(mt_gitrepo *r, git_tree *t, const char *prefix, struct listing *l, int depth)
{
	int error = 0;

	for (size_t i = 0; i < git_tree_entrycount(t) && !error; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		git_filemode_t mode = git_tree_entry_filemode(e);
		char *path = malloc(strlen(prefix) + strlen(git_tree_entry_name(e)) + 2);
		git_tree *sub = NULL;

		sprintf(path, "%s%s", prefix, git_tree_entry_name(e));
		if (mode == GIT_FILEMODE_TREE && depth < 32) {
			strcat(path, "/");
			if (git_tree_lookup(&sub, r->repo, git_tree_entry_id(e)) < 0)
				error = git_fail(MT_EIO, path);
			else
				error = list_tree(r, sub, path, l, depth + 1);
			git_tree_free(sub);
		} else if (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE) {
			add_file(l, path, git_tree_entry_id(e), NULL);
		} else {
			add_file(l, path, git_tree_entry_id(e),
				 mode == GIT_FILEMODE_LINK	 ? "a symlink, not a file"
				 : mode == GIT_FILEMODE_COMMIT ? "a submodule, not a file"
				 : mode == GIT_FILEMODE_TREE   ? "a directory nested too deep"
							       : "not a file");
		}
		free(path);
	}
	return error;
}

static int cmp_files(const void *a, const void *b)
{
	return strcmp(((const mt_gitsync_file *)a)->path, ((const mt_gitsync_file *)b)->path);
}

int mt_gitsync_list(mt_gitrepo *r, const char *commit, mt_gitsync_file **out, size_t *n)
{
	struct listing l = {0};
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_oid id;
	int error;

	*out = NULL;
	*n = 0;
	if ((error = oid_in(&id, commit, commit)) < 0)
		return error;
	if (git_commit_lookup(&c, r->repo, &id) < 0 || git_commit_tree(&t, c) < 0) {
		error = git_fail(MT_EIO, commit);
		goto cleanup;
	}
	if ((error = list_tree(r, t, "", &l, 0)) < 0) {
		mt_gitsync_files_free(l.v, l.n);
		goto cleanup;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_files);
	*out = l.v;
	*n = l.n;
cleanup:
	git_tree_free(t);
	git_commit_free(c);
	return error;
}

int mt_gitsync_blob(mt_gitrepo *r, const char *oid, char **data, size_t *len)
{
	git_blob *b = NULL;
	git_oid id;
	int error;

	*data = NULL;
	*len = 0;
	if ((error = oid_in(&id, oid, oid)) < 0)
		return error;
	if (git_blob_lookup(&b, r->repo, &id) < 0)
		return git_fail(MT_EIO, oid);
	*len = (size_t)git_blob_rawsize(b);
	*data = malloc(*len + 1);
	memcpy(*data, git_blob_rawcontent(b), *len);
	(*data)[*len] = '\0';
	git_blob_free(b);
	return 0;
}

int mt_gitsync_put(mt_gitrepo *r, const char *data, size_t len, char oid[41])
{
	git_oid id;

	if (git_blob_create_from_buffer(&id, r->repo, data, len) < 0)
		return git_fail(MT_EIO, "writing a blob");
	git_oid_tostr(oid, 41, &id);
	return 0;
}

/* The tree of files[0..n), sorted, whose paths start with a directory of
 * `skip` bytes. */
static int build(mt_gitrepo *r, const mt_gitsync_file *files, size_t n, size_t skip, git_oid *out)
{
	git_treebuilder *tb = NULL;
	git_oid id;
	char name[256];
	size_t i = 0, j;
	int error = 0;

	if (git_treebuilder_new(&tb, r->repo, NULL) < 0)
		return git_fail(MT_EIO, "making a tree");
	while (i < n && !error) {
		const char *rest = files[i].path + skip, *slash = strchr(rest, '/');
		size_t len = slash ? (size_t)(slash - rest) : strlen(rest);

		if (len == 0 || len >= sizeof(name)) {
			error = mt_error_set(MT_EINVALID, "%s: not a file name", files[i].path);
			break;
		}
		memcpy(name, rest, len);
		name[len] = '\0';
		if (!slash) {
			if ((error = oid_in(&id, files[i].oid, files[i].path)) == 0 &&
			    git_treebuilder_insert(NULL, tb, name, &id, GIT_FILEMODE_BLOB) < 0)
				error = git_fail(MT_EINVALID, files[i].path);
			i++;
			continue;
		}
		/* sorted by path: the files under name/ follow one another */
		for (j = i; j < n && strncmp(files[j].path + skip, rest, len + 1) == 0; j++)
			;
		if ((error = build(r, files + i, j - i, skip + len + 1, &id)) == 0 &&
		    git_treebuilder_insert(NULL, tb, name, &id, GIT_FILEMODE_TREE) < 0)
			error = git_fail(MT_EINVALID, files[i].path);
		i = j;
	}
	if (!error && git_treebuilder_write(out, tb) < 0)
		error = git_fail(MT_EIO, "writing a tree");
	git_treebuilder_free(tb);
	return error;
}

int mt_gitsync_tree(mt_gitrepo *r, mt_gitsync_file *files, size_t n, char tree[41])
{
	git_oid id;
	int error;

	if (n)
		qsort(files, n, sizeof(*files), cmp_files);
	if ((error = build(r, files, n, 0, &id)) < 0)
		return error;
	git_oid_tostr(tree, 41, &id);
	return 0;
}

int mt_gitsync_commit_tree(mt_gitrepo *r, const char *commit, char tree[41])
{
	git_commit *c = NULL;
	git_oid id;
	int error;

	if ((error = oid_in(&id, commit, commit)) < 0)
		return error;
	if (git_commit_lookup(&c, r->repo, &id) < 0)
		return git_fail(MT_EIO, commit);
	git_oid_tostr(tree, 41, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

int mt_gitsync_contains(mt_gitrepo *r, const char *a, const char *b)
{
	git_oid ia, ib;
	int rc;

	if (oid_in(&ia, a, a) < 0 || oid_in(&ib, b, b) < 0)
		return mt_error_last_code();
	if (git_oid_equal(&ia, &ib))
		return 1;
	if ((rc = git_graph_descendant_of(r->repo, &ia, &ib)) < 0)
		return git_fail(MT_EIO, a);
	return rc;
}

int mt_gitsync_commit(mt_gitrepo *r, const char *tree, const char *parent1, const char *parent2,
		      const char *message, char oid[41])
{
	const char *hex[2] = {parent1, parent2};
	const git_commit *parents[2];
	git_commit *owned[2] = {NULL, NULL};
	git_signature *sig = NULL;
	git_tree *t = NULL;
	git_oid id;
	size_t np = 0;
	int error = 0;

	if (git_signature_default(&sig, r->repo) < 0 &&
	    git_signature_now(&sig, "mtrial", "mtrial@localhost") < 0)
		return git_fail(MT_EIO, "a commit's signature");
	if ((error = oid_in(&id, tree, tree)) < 0)
		goto cleanup;
	if (git_tree_lookup(&t, r->repo, &id) < 0) {
		error = git_fail(MT_EIO, tree);
		goto cleanup;
	}
	for (int i = 0; i < 2; i++) {
		if (!hex[i] || !*hex[i])
			continue;
		if ((error = oid_in(&id, hex[i], hex[i])) < 0)
			goto cleanup;
		if (git_commit_lookup(&owned[np], r->repo, &id) < 0) {
			error = git_fail(MT_EIO, hex[i]);
			goto cleanup;
		}
		parents[np] = owned[np];
		np++;
	}
	if (git_commit_create(&id, r->repo, NULL, sig, sig, NULL, message, t, np, parents) < 0) {
		error = git_fail(MT_EIO, "making the commit");
		goto cleanup;
	}
	git_oid_tostr(oid, 41, &id);
cleanup:
	git_commit_free(owned[0]);
	git_commit_free(owned[1]);
	git_tree_free(t);
	git_signature_free(sig);
	return error;
}

/* Reads what the child writes on fds[0] (stdout) and fds[1] (stderr). */
static void drain(int fds[2], mt_buf *out, mt_buf *err)
{
	struct pollfd p[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
	mt_buf *to[2] = {out, err};
	char chunk[4096];
	int open = 2;

	while (open > 0) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t got;
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if ((got = read(p[i].fd, chunk, sizeof(chunk))) > 0) {
				mt_buf_put(to[i], chunk, (size_t)got);
			} else if (got == 0 || errno != EINTR) {
				close(p[i].fd);
				p[i].fd = -1;
				open--;
			}
		}
	}
}

/* Runs `git -C DIR argv...` (no shell): its exit status (-1 when it could
 * not run), what it printed in out and err. */
static int run_git(mt_gitrepo *r, const char *const *argv, mt_buf *out, mt_buf *err)
{
	const char *args[16] = {"git", "-C", r->path};
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, fds[2], status = 0;
	size_t n = 3;
	pid_t pid;

	while (*argv && n < 15)
		args[n++] = *argv++;
	args[n] = NULL;
	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
		mt_buf_printf(err, "cannot make a pipe: %s", strerror(errno));
		goto fail;
	}
	if ((pid = fork()) < 0) {
		mt_buf_printf(err, "cannot start git: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		/* a prompt would hang a sync nobody watches; ssh agents and
		 * credential helpers still answer */
		setenv("GIT_TERMINAL_PROMPT", "0", 0);
		execvp("git", (char *const *)args);
		dprintf(2, "cannot run git: %s\n", strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	fds[0] = po[0];
	fds[1] = pe[0];
	drain(fds, out, err);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
fail:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	return -1;
}

/* Sets `code` with "what: git's last words" (sanitised: they quote the
 * remote's answer). */
static int git_said(int code, const char *what, const mt_buf *err)
{
	char *safe = mt_term_safe(err->len ? mt_buf_cstr(err) : "git failed", MT_TERM_LINE);
	size_t n = strlen(safe);

	while (n && (safe[n - 1] == '\n' || safe[n - 1] == ' '))
		safe[--n] = '\0';
	mt_error_set(code, "%s: %s", what, safe);
	free(safe);
	return code;
}

/* git's words for a remote that is not one (no such path, no such name) */
static int not_a_remote(const mt_buf *err)
{
	const char *s = mt_buf_cstr(err);
	return strstr(s, "does not appear to be a git repository") ||
	       strstr(s, "not a git repository") || strstr(s, "No such file or directory");
}

/* 1 when the commit `hex` starts with is in the object database: its
 * history came with it, by a fetch or made here. */
static int have_commit(mt_gitrepo *r, const char *hex)
{
	char id[41];
	git_oid oid;

	snprintf(id, sizeof(id), "%.40s", hex);
	return git_oid_fromstr(&oid, id) == 0 && git_odb_exists(r->odb, &oid);
}

int mt_gitsync_fetch(mt_gitrepo *r, const char *remote, const char *ref, const char *into,
		     char tip[41])
{
	mt_buf out = MT_BUF_INIT, err = MT_BUF_INIT, spec = MT_BUF_INIT;
	const char *ls[] = {"ls-remote", "--", remote, ref, NULL};
	char what[512];
	int rc, error = 0;

	tip[0] = '\0';
	snprintf(what, sizeof(what), "git ls-remote %s", remote);
	if ((rc = run_git(r, ls, &out, &err)) != 0) {
		error = git_said(rc == 128 && not_a_remote(&err) ? MT_EINVALID : MT_EIO, what,
				 &err);
		goto cleanup;
	}
	if (out.len < 40) /* the remote has no such ref yet */
		goto cleanup;
	if (have_commit(r, out.ptr)) { /* made or fetched here before: no fetch */
		snprintf(tip, 41, "%.40s", out.ptr);
		error = mt_gitsync_set_ref(r, into, tip, "mtrial sync: known");
		goto cleanup;
	}
	mt_buf_printf(&spec, "+%s:%s", ref, into);
	{
		const char *fetch[] = {"fetch", "-q", "--no-tags", "--", remote,
				       mt_buf_cstr(&spec), NULL};
		mt_buf_dispose(&err);
		snprintf(what, sizeof(what), "git fetch %s %s", remote, ref);
		if ((rc = run_git(r, fetch, &out, &err)) != 0) {
			error = git_said(MT_EIO, what, &err);
			goto cleanup;
		}
	}
	error = mt_gitsync_ref(r, into, tip);
cleanup:
	mt_buf_dispose(&out);
	mt_buf_dispose(&err);
	mt_buf_dispose(&spec);
	return error;
}

int mt_gitsync_push(mt_gitrepo *r, const char *remote, const char *ref)
{
	mt_buf out = MT_BUF_INIT, err = MT_BUF_INIT, spec = MT_BUF_INIT;
	char what[512];
	int rc, error = 0;

	mt_buf_printf(&spec, "%s:%s", ref, ref);
	const char *push[] = {"push", "-q", "--porcelain", "--", remote, mt_buf_cstr(&spec), NULL};
	snprintf(what, sizeof(what), "git push %s %s", remote, ref);
	if ((rc = run_git(r, push, &out, &err)) != 0) {
		/* refused as not a fast-forward, or a ref another push holds
		 * locked: the remote moved meanwhile */
		if (rc > 0 && rc != 128 && (strstr(mt_buf_cstr(&out), "rejected") ||
					    strstr(mt_buf_cstr(&err), "rejected")))
			error = 1;
		else
			error = git_said(rc == 128 && not_a_remote(&err) ? MT_EINVALID : MT_EIO,
					 what, err.len ? &err : &out);
	}
	mt_buf_dispose(&out);
	mt_buf_dispose(&err);
	mt_buf_dispose(&spec);
	return error;
}
