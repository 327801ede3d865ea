/* Reading the files of a git repository at any revision through libgit2:
 * tree objects for the listing, blobs from the object database for the
 * contents. Never a checkout, never a filter or hook, never the repository's
 * code. With --worktree the work tree's own files take the place of the
 * committed ones that differ.
 *
 * Threads: a handle and everything done through it belong to one thread at a
 * time (libgit2 objects must not be shared); mt_gitrepo_dup() gives another
 * thread its own handle on the same repository. */
#ifndef MT_GITREAD_H
#define MT_GITREAD_H

#include <stddef.h>
#include <stdint.h>

typedef struct mt_gitrepo mt_gitrepo;

/* Opens the repository containing `path` (any path inside a work tree, a
 * .git dir, or a bare repository). MT_ENOTFOUND with libgit2's words
 * ("not a git repository: PATH: could not find repository from 'PATH'")
 * otherwise; libgit2's ownership check (safe.directory) gives MT_ESTATE.
 * A git dir that lacks core.bare and is not named .git (a mirror) is taken
 * as bare, as git does, not as the work tree of its parent directory. */
int mt_gitrepo_open(mt_gitrepo **out, const char *path);

/* Closes the handle; NULL is fine. */
void mt_gitrepo_free(mt_gitrepo *r);

/* Another handle on the same repository for use by another thread. */
int mt_gitrepo_dup(mt_gitrepo **out, const mt_gitrepo *r);

/* The work tree root, or the git dir when bare; no trailing '/'. Borrowed,
 * lives as long as the handle. */
const char *mt_gitrepo_path(const mt_gitrepo *r);

/* 1 for a bare repository, 0 otherwise. */
int mt_gitrepo_is_bare(const mt_gitrepo *r);

typedef enum {
	MT_ENTRY_BLOB,    /* a blob in the object database */
	MT_ENTRY_WORKTREE /* content from the work tree (--worktree) */
} mt_entry_source;

typedef struct {
	char *path;   /* repository-relative, '/'-separated */
	char oid[41]; /* hex blob id; for a work-tree file, the id of its bytes
			 as they are on disk (git hash-object --no-filters) */
	uint64_t size; /* bytes: the object header (no inflate) or lstat;
			  MT_SIZE_UNKNOWN with MT_LIST_NO_SIZES */
	mt_entry_source source;
} mt_gitentry;

typedef struct {
	char *path;
	char *reason; /* "symlink (not followed)", "submodule at <commit id>",
			 "deleted in work tree", "blob <id> missing from the
			 object database (partial clone?)", "unreadable blob
			 <id>: <libgit2's words>" (a corrupt object or pack),
			 "unreadable tree <id>: ..." (a directory), "directory
			 nested over 96 levels: ..." (--worktree), ... */
} mt_gitskip;

typedef struct {
	char commit[41];  /* full id the revision resolved to; "" for
			     --worktree in a repository with no commits */
	char tree[41];    /* its tree id (the whole-scan cache key); "" for
			     --worktree */
	mt_gitentry *entries; /* regular and executable files, sorted by path
				 (strcmp) */
	size_t nentries;
	mt_gitskip *skipped;  /* symlinks, submodules (listed, not entered),
				 ..., sorted by path */
	size_t nskipped;
} mt_gitlisting;

/* Lists the tracked files at `rev`: NULL for HEAD, or any revision git
 * understands (branch, tag, short or full id, HEAD~2, ...) peeled to a
 * commit. Reads tree objects and object headers only, no blob.
 *
 * With `worktree`, the work tree is compared with `rev` through the index
 * (as `git diff REV` plus untracked files): files modified or added replace
 * or join the committed ones (source MT_ENTRY_WORKTREE), untracked files
 * that .gitignore does not ignore are added, deleted ones are listed as
 * skipped. Those work-tree files are read once here to hash them (about
 * 0.6 s per 500 MB); unchanged files stay blobs. Submodules are neither
 * compared nor entered.
 *
 * Errors: an unknown revision names it ("unknown revision 'nope': <libgit2
 * message>", MT_ENOTFOUND); a revision whose commit cannot be read (a
 * damaged object database) names the commit (MT_EINVALID); a repository with no commits is MT_ESTATE unless
 * `worktree`; `worktree` in a bare repository is MT_ESTATE. `out` is
 * caller-owned, zeroed on error, released with mt_gitlisting_dispose(). */
int mt_gitrepo_list(mt_gitlisting *out, mt_gitrepo *r, const char *rev, int worktree);

#define MT_SIZE_UNKNOWN UINT64_MAX

/* Flags for mt_gitrepo_list_ext. MT_LIST_NO_SIZES: a blob's size is not
 * read from its object header (MT_SIZE_UNKNOWN; mt_gitrepo_read checks the
 * size once it has the blob), only its presence is checked; a header that
 * cannot be read is then not an error of the listing. Headers are most of
 * the cost of listing a large packed tree. Without `worktree` only. */
enum { MT_LIST_NO_SIZES = 1, MT_LIST_IDS_ONLY = 2 };
/* MT_LIST_IDS_ONLY: only `commit` and `tree` are filled (the revision
 * resolved, with mt_gitrepo_list()'s errors), no tree is walked: what a
 * rescan needs to find its whole result in the cache. */

/* mt_gitrepo_list with flags. */
int mt_gitrepo_list_ext(mt_gitlisting *out, mt_gitrepo *r, const char *rev, int worktree,
			unsigned flags);

/* Frees the listing's contents and zeroes it. */
void mt_gitlisting_dispose(mt_gitlisting *l);

/* An entry's bytes read by mt_gitrepo_read_view. */
typedef struct {
	const char *data; /* NULL when the entry was skipped */
	size_t size;
	void *priv_obj;   /* private */
	char *priv_buf;   /* private */
	void *priv_pack;  /* private: the pack reader priv_buf goes back to */
} mt_gitview;

/* As mt_gitrepo_read, without copying a blob out of libgit2's object (or out
 * of the pack reader's buffer, see gitpack.h): data is borrowed until
 * mt_gitview_dispose() and is not NUL-terminated. One view per repository
 * handle at a time reads fastest: a disposed view's buffer is reused. */
int mt_gitrepo_read_view(mt_gitview *out, char *reason, size_t reason_size, mt_gitrepo *r,
			 const mt_gitentry *e, uint64_t max_bytes);

/* Releases what mt_gitrepo_read_view() read (also after an error). */
void mt_gitview_dispose(mt_gitview *v);

/* Reads one entry's bytes: the blob from the object database, or the work
 * tree file (no symlink followed at any path component).
 *
 * When the file must be skipped, returns 0 with *data = NULL and the reason
 * written into `reason` (at most reason_size bytes; 128 is plenty):
 *   "too large (12.3 MB, limit 4 MB)"  size over max_bytes, checked before
 *                                       reading (0 = no limit)
 *   "binary (NUL byte)"                a NUL in the first 8000 bytes, as git
 *   "not UTF-8 (invalid byte 0xff at line 3)"
 *   "symlink (not followed)", "deleted in work tree", "blob <id> missing..."
 *   "unreadable blob <id>: <libgit2's words>"  a corrupt object or pack
 * Otherwise *data (caller frees) holds *size bytes plus a terminating NUL not
 * counted in *size, and reason is "". `reason` may be NULL (size 0) when the
 * words are not wanted. Negative MT_E* on real failures (I/O, an entry path
 * with "..": MT_EINVALID). */
int mt_gitrepo_read(char **data, size_t *size, char *reason, size_t reason_size,
		    mt_gitrepo *r, const mt_gitentry *e, uint64_t max_bytes);

/* Reads the file `path` (repository-relative, '/'-separated) as it is at
 * `rev` (NULL for HEAD; any revision git understands): the blob's bytes,
 * unchecked and unlimited (a symlink gives its target's name, as git stores
 * it). *data (caller frees) holds *size bytes plus a NUL not counted in *size.
 * Errors: an unknown revision as mt_gitrepo_list() says it (MT_ENOTFOUND),
 * a path that is not there at rev (MT_ENOTFOUND, "'p' not found at rev:
 * <libgit2 message>"), a directory or submodule (MT_EINVALID). *data is NULL
 * and *size 0 on error. */
int mt_gitrepo_read_path(char **data, size_t *size, mt_gitrepo *r, const char *rev,
			 const char *path);

/* The blob id git gives `size` bytes (git hash-object --no-filters) as 40 hex
 * digits plus NUL. */
int mt_gitblob_id(char out[41], const void *data, size_t size);

/* Why `data` is not acceptable source text ("binary (NUL byte)", "not UTF-8
 * (invalid byte 0xc3 at line 7)"), written into `reason`; returns 1 then, 0
 * when it is fine (reason ""). The checks mt_gitrepo_read() applies. */
int mt_gitread_check_text(char *reason, size_t reason_size, const char *data, size_t size);

/* 1 if s[0..n) is valid UTF-8 (no overlongs, surrogates or code points past
 * U+10FFFF: what mt_gitread_check_text and jansson's json_string accept). */
int mt_gitread_utf8_valid(const char *s, size_t n);

#endif
