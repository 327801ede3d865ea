/* Reading a listed file's bytes: blobs through the pack reader or libgit2,
 * work-tree files without following symlinks, and the checks that make
 * them source text. */
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

/* git looks for a NUL byte in this many leading bytes to call a file binary
 * (buffer_is_binary() in git's xdiff-interface.c). */
#define BINARY_PROBE 8000

/* ---- reading ----------------------------------------------------------- */

static void fmt_size(char *buf, size_t n, uint64_t v)
{
	static const char *const unit[] = {"KB", "MB", "GB", "TB"};
	double x = (double)v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, n, "%llu bytes", (unsigned long long)v);
		return;
	}
	while (x >= 1024 && u < 3) {
		x /= 1024;
		u++;
	}
	if (x - (double)(uint64_t)x < 0.05)
		snprintf(buf, n, "%.0f %s", x, unit[u]);
	else
		snprintf(buf, n, "%.1f %s", x, unit[u]);
}

/* Writes the "too large" reason and returns 1 when size is over max. */
static int too_large(char *reason, size_t rs, uint64_t size, uint64_t max)
{
	char a[32], b[32];

	if (!max || size <= max)
		return 0;
	fmt_size(a, sizeof(a), size);
	fmt_size(b, sizeof(b), max);
	snprintf(reason, rs, "too large (%s, limit %s)", a, b);
	return 1;
}

/* Offset of the first byte that does not start a valid UTF-8 sequence
 * (Unicode table 3-7: no overlongs, surrogates or code points past
 * U+10FFFF), or n when all is valid. ASCII goes 16 bytes a step. */
static size_t utf8_bad(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		for (uint64_t a, b; i + 16 <= n; i += 16) {
			memcpy(&a, s + i, 8);
			memcpy(&b, s + i + 8, 8);
			if ((a | b) & 0x8080808080808080ULL)
				break;
		}
		if (i >= n)
			break;
		unsigned c = s[i], lo = 0x80, hi = 0xBF;
		size_t len;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			len = 2;
		else if (c >= 0xE0 && c <= 0xEF)
			len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
		else if (c >= 0xF0 && c <= 0xF4)
			len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
		else
			return i;
		if (n - i < len || s[i + 1] < lo || s[i + 1] > hi)
			return i;
		for (size_t k = 2; k < len; k++)
			if ((s[i + k] & 0xC0) != 0x80)
				return i;
		i += len;
	}
	return n;
}

int mt_gitread_utf8_valid(const char *s, size_t n)
{
	return utf8_bad((const unsigned char *)s, n) == n;
}

int mt_gitread_check_text(char *reason, size_t reason_size, const char *data, size_t size)
{
	size_t bad, line = 1;
	const char *p = data, *end;

	if (reason_size)
		reason[0] = '\0';
	if (!size)
		return 0;
	if (memchr(data, 0, size < BINARY_PROBE ? size : BINARY_PROBE)) {
		snprintf(reason, reason_size, "binary (NUL byte)");
		return 1;
	}
	bad = utf8_bad((const unsigned char *)data, size);
	if (bad == size)
		return 0;
	end = data + bad;
	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		line++;
		p++;
	}
	snprintf(reason, reason_size, "not UTF-8 (invalid byte 0x%02x at line %zu)",
		 (unsigned char)data[bad], line);
	return 1;
}

mt_gitpack *mt_gitread__pack(mt_gitrepo *r)
{
	if (!r->pack_tried) {
		const char *common = git_repository_commondir(r->repo);
		size_t n = strlen(common);
		char *objects = malloc(n + 9);
		r->pack_tried = 1;
		if (objects) {
			snprintf(objects, n + 9, "%s%sobjects", common,
				 n && common[n - 1] == '/' ? "" : "/");
			r->pack = mt_gitpack_open(objects);
			free(objects);
		}
	}
	return r->pack;
}

/* The blob through the pack reader: 1 when it answered (the blob, or the
 * reason it is skipped), 0 to ask libgit2, < 0 on an error. With `packbuf`
 * the data stays in the reader's buffer (see read_blob). */
static int read_packed(char **data, size_t *size, char **packbuf, char *reason, size_t rs,
		       mt_gitrepo *r, const mt_gitentry *e, const git_oid *id, uint64_t max)
{
	mt_gitpack *pk = mt_gitread__pack(r);
	char *buf;
	size_t len;
	int type;

	if (!pk || mt_gitpack_read(pk, id->id, &type, &buf, &len, max ? max : UINT64_MAX) != 1)
		return 0;
	if (type != MT_GITPACK_BLOB) {
		mt_gitpack_release(pk, buf);
		return mt_error_set(MT_EINVALID, "%s: object %s is not a blob", e->path, e->oid);
	}
	if (!buf) {
		too_large(reason, rs, len, max);
		return 1;
	}
	if (packbuf) {
		*data = *packbuf = buf;
		*size = len;
		return 1;
	}
	if (!(*data = malloc(len + 1))) {
		mt_gitpack_release(pk, buf);
		return mt_error_set(MT_EIO, "%s: out of memory for %zu bytes", e->path, len);
	}
	memcpy(*data, buf, len);
	(*data)[len] = '\0';
	*size = len;
	mt_gitpack_release(pk, buf);
	return 1;
}

/* With `keep`, *data points into the object, which *keep then holds (no
 * copy, no NUL after the bytes); or, read from a pack by gitpack.c, into
 * its buffer, which *packbuf then holds. */
static int read_blob(char **data, size_t *size, git_odb_object **keep, char **packbuf,
		     char *reason, size_t rs, mt_gitrepo *r, const mt_gitentry *e, uint64_t max)
{
	git_odb_object *obj = NULL;
	git_object_t type;
	git_oid id;
	size_t len;
	int gerr, error = 0;

	if (git_oid_fromstr(&id, e->oid) < 0)
		return mt_error_set(MT_EINVALID, "%s: bad blob id '%s'", e->path, e->oid);
	if (e->size != MT_SIZE_UNKNOWN && too_large(reason, rs, e->size, max))
		return 0;
	if ((error = read_packed(data, size, keep ? packbuf : NULL, reason, rs, r, e, &id, max)) != 0)
		return error < 0 ? error : 0;
	/* a listing without sizes: the header now, so that a huge blob is
	 * refused before it is inflated */
	gerr = e->size == MT_SIZE_UNKNOWN ? git_odb_read_header(&len, &type, r->odb, &id) : 0;
	if (gerr == 0 && too_large(reason, rs, e->size == MT_SIZE_UNKNOWN ? len : e->size, max))
		return 0;
	if (gerr == 0)
		gerr = git_odb_read(&obj, r->odb, &id);
	if (gerr == GIT_ENOTFOUND) {
		snprintf(reason, rs, "blob %s missing from the object database (partial clone?)", e->oid);
		return 0;
	}
	if (gerr < 0) { /* a corrupt object or pack: skip this file, name it */
		unreadable(reason, rs, "blob", e->oid);
		return 0;
	}
	len = git_odb_object_size(obj);
	if (git_odb_object_type(obj) != GIT_OBJECT_BLOB) {
		error = mt_error_set(MT_EINVALID, "%s: object %s is not a blob", e->path, e->oid);
		goto cleanup;
	}
	if (too_large(reason, rs, len, max)) /* the listing's size was stale */
		goto cleanup;
	if (keep) {
		*data = (char *)git_odb_object_data(obj);
		*size = len;
		*keep = obj;
		return 0;
	}
	if (!(*data = malloc(len + 1))) {
		error = mt_error_set(MT_EIO, "%s: out of memory for %zu bytes", e->path, len);
		goto cleanup;
	}
	memcpy(*data, git_odb_object_data(obj), len);
	(*data)[len] = '\0';
	*size = len;
cleanup:
	git_odb_object_free(obj);
	return error;
}

/* Opens root/rel for reading one component at a time with O_NOFOLLOW, so
 * that no symlink is followed anywhere in `rel`. -errno on failure. */
static int open_nofollow(const char *root, const char *rel)
{
	char *copy = mt_strdup(rel), *comp = copy, *slash;
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = dfd;

	while (fd >= 0 && comp) {
		if ((slash = strchr(comp, '/')) != NULL)
			*slash = '\0';
		if (!*comp || !strcmp(comp, ".") || !strcmp(comp, "..")) {
			close(dfd);
			free(copy);
			return -EINVAL;
		}
		/* O_NONBLOCK: opening a FIFO must not wait; fstat rejects it. */
		fd = openat(dfd, comp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
				       (slash ? O_DIRECTORY : O_NONBLOCK | O_NOCTTY));
		if (fd < 0 && (errno == ENOTDIR || errno == ELOOP) && slash) {
			struct stat st; /* ENOTDIR for a symlinked directory */
			if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				errno = ELOOP;
		}
		int saved = errno;
		close(dfd);
		errno = saved;
		dfd = fd;
		comp = slash ? slash + 1 : NULL;
	}
	free(copy);
	return fd >= 0 ? fd : -errno;
}

/* Reads all of fd into a fresh NUL-terminated buffer, stopping as soon as
 * it is over max (then *data stays NULL and the reason is set). `hint` is
 * the size fstat gave; the file may have changed since. */
static int read_fd(char **data, size_t *size, char *reason, size_t rs, int fd, size_t hint,
		   uint64_t max, const char *path)
{
	size_t cap = hint + 1, len = 0; /* + 1: room to see EOF without growing */
	char *buf = malloc(cap + 1), *grown;
	ssize_t got;
	int error = 0;

	for (;;) {
		if (buf && len == cap && (grown = realloc(buf, cap * 2 + 1)) != NULL)
			buf = grown, cap *= 2;
		if (!buf || len == cap) {
			error = mt_error_set(MT_EIO, "%s: out of memory", path);
			goto cleanup;
		}
		got = read(fd, buf + len, cap - len);
		if (got == 0)
			break;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			error = mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
			goto cleanup;
		}
		len += (size_t)got;
		if (too_large(reason, rs, len, max))
			goto cleanup;
	}
	buf[len] = '\0';
	*data = buf;
	*size = len;
	buf = NULL;
cleanup:
	free(buf);
	return error;
}

static int read_worktree(char **data, size_t *size, char *reason, size_t rs, mt_gitrepo *r,
			 const mt_gitentry *e, uint64_t max)
{
	struct stat st;
	int fd, error = 0;

	if (r->bare)
		return mt_error_set(MT_ESTATE, "%s: a bare repository has no work tree", r->path);
	fd = open_nofollow(r->path, e->path);
	if (fd == -ELOOP || fd == -EMLINK)
		snprintf(reason, rs, "symlink (not followed)");
	else if (fd == -ENOENT || fd == -ENOTDIR)
		snprintf(reason, rs, "deleted in work tree");
	else if (fd == -EACCES || fd == -EPERM)
		snprintf(reason, rs, "unreadable (%s)", strerror(-fd));
	else if (fd == -EINVAL)
		return mt_error_set(MT_EINVALID, "%s: not a plain relative path", e->path);
	else if (fd < 0)
		return mt_error_set(MT_EIO, "%s/%s: %s", r->path, e->path, strerror(-fd));
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0)
		error = mt_error_set(MT_EIO, "%s: %s", e->path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(reason, rs, "not a regular file");
	else if (!too_large(reason, rs, (uint64_t)st.st_size, max))
		error = read_fd(data, size, reason, rs, fd, (size_t)st.st_size, max, e->path);
	close(fd);
	return error;
}

static int read_entry(char **data, size_t *size, git_odb_object **keep, char **packbuf,
		      char *reason, size_t reason_size, mt_gitrepo *r, const mt_gitentry *e,
		      uint64_t max_bytes)
{
	char spare[8];
	int error;

	*data = NULL;
	*size = 0;
	if (!reason || !reason_size) { /* the caller does not want the words */
		reason = spare;
		reason_size = sizeof(spare);
	}
	reason[0] = '\0';
	if (e->source == MT_ENTRY_WORKTREE)
		error = read_worktree(data, size, reason, reason_size, r, e, max_bytes);
	else
		error = read_blob(data, size, keep, packbuf, reason, reason_size, r, e, max_bytes);
	if (error < 0 || !*data)
		return error;
	if (mt_gitread_check_text(reason, reason_size, *data, *size)) {
		if (keep && *keep) {
			git_odb_object_free(*keep);
			*keep = NULL;
		} else if (packbuf && *packbuf) {
			mt_gitpack_release(r->pack, *packbuf);
			*packbuf = NULL;
		} else {
			free(*data);
		}
		*data = NULL;
		*size = 0;
	}
	return 0;
}

int mt_gitrepo_read(char **data, size_t *size, char *reason, size_t reason_size,
		    mt_gitrepo *r, const mt_gitentry *e, uint64_t max_bytes)
{
	return read_entry(data, size, NULL, NULL, reason, reason_size, r, e, max_bytes);
}

int mt_gitrepo_read_view(mt_gitview *out, char *reason, size_t reason_size, mt_gitrepo *r,
			 const mt_gitentry *e, uint64_t max_bytes)
{
	git_odb_object *obj = NULL;
	char *data = NULL, *packbuf = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	error = read_entry(&data, &out->size, e->source == MT_ENTRY_BLOB ? &obj : NULL, &packbuf,
			   reason, reason_size, r, e, max_bytes);
	out->data = data;
	out->priv_obj = obj;
	if (packbuf) {
		out->priv_buf = packbuf;
		out->priv_pack = r->pack;
	} else {
		out->priv_buf = obj ? NULL : data; /* a work-tree file is a buffer of ours */
	}
	return error;
}

void mt_gitview_dispose(mt_gitview *v)
{
	git_odb_object_free(v->priv_obj);
	if (v->priv_pack)
		mt_gitpack_release(v->priv_pack, v->priv_buf);
	else
		free(v->priv_buf);
	memset(v, 0, sizeof(*v));
}

/* rev:path as a blob. libgit2's own words are carried in the message. */
static int lookup_path(git_blob **out, mt_gitrepo *r, const char *spec, const char *path)
{
	git_object *treeish = NULL;
	const git_error *e;
	int gerr, error = 0;

	gerr = git_revparse_single(&treeish, r->repo, spec);
	if (gerr < 0) {
		e = git_error_last();
		return mt_error_set(gerr == GIT_ENOTFOUND ? MT_ENOTFOUND : MT_EINVALID,
				    "%s revision '%s': %s",
				    gerr == GIT_ENOTFOUND ? "unknown" : "bad", spec,
				    e && e->message ? e->message : "libgit2 error");
	}
	gerr = git_object_lookup_bypath((git_object **)out, treeish, path, GIT_OBJECT_BLOB);
	if (gerr < 0) {
		e = git_error_last();
		error = mt_error_set(gerr == GIT_ENOTFOUND ? MT_ENOTFOUND : MT_EINVALID,
				     "'%s' %s at %s: %s", path,
				     gerr == GIT_ENOTFOUND ? "not found" : "is not a file", spec,
				     e && e->message ? e->message : "libgit2 error");
	}
	git_object_free(treeish);
	return error;
}

int mt_gitrepo_read_path(char **data, size_t *size, mt_gitrepo *r, const char *rev,
			 const char *path)
{
	git_blob *blob = NULL;
	size_t len;
	int error;

	*data = NULL;
	*size = 0;
	if (!path || !*path)
		return mt_error_set(MT_EINVALID, "no path to read");
	if ((error = lookup_path(&blob, r, rev ? rev : "HEAD", path)) < 0)
		return error;
	len = (size_t)git_blob_rawsize(blob);
	if (!(*data = malloc(len + 1))) {
		error = mt_error_set(MT_EIO, "%s: out of memory for %zu bytes", path, len);
		goto cleanup;
	}
	memcpy(*data, git_blob_rawcontent(blob), len);
	(*data)[len] = '\0';
	*size = len;
cleanup:
	git_blob_free(blob);
	return error;
}

int mt_gitblob_id(char out[41], const void *data, size_t size)
{
	git_oid id;
	int error = 0;

	out[0] = '\0';
	if (git_libgit2_init() < 0)
		return git_fail(MT_EIO, "libgit2");
	if (git_odb_hash(&id, size ? data : "", size, GIT_OBJECT_BLOB) < 0)
		error = git_fail(MT_EIO, "hashing a blob");
	else
		git_oid_tostr(out, 41, &id);
	git_libgit2_shutdown();
	return error;
}
