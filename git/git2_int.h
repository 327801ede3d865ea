/* Private to git/: libgit2, loaded on first use (dlopen), like libcurl and
 * libtorch. Linked in, it and what it links (Kerberos, mbedTLS, libssh2,
 * OpenSSL's libcrypto, PCRE2, http-parser: fifteen shared objects) were
 * mapped and relocated at the start of every command, `note` and
 * `--version` too, though only the commands that read a repository use it.
 *
 * git_int.h includes this after <git2.h>: the git_* names git/ uses then
 * call through mt_git2, which git_libgit2_init() fills on its first call.
 * Every use of libgit2 in git/ starts with git_libgit2_init(), so nothing
 * calls through the table before it is filled; a name missing from the list
 * below fails to link (it is not linked any more), so none is missed. */
#ifndef MT_GIT2_INT_H
#define MT_GIT2_INT_H

#include <git2.h>

/* The libgit2 functions git/ calls. */
#define MT_GIT2_FUNCTIONS(X) \
	X(git_libgit2_init) \
	X(git_libgit2_shutdown) \
	X(git_error_last) \
	X(git_blob_create_from_buffer) \
	X(git_blob_free) \
	X(git_blob_is_binary) \
	X(git_blob_lookup) \
	X(git_blob_rawcontent) \
	X(git_blob_rawsize) \
	X(git_buf_dispose) \
	X(git_commit_create) \
	X(git_commit_free) \
	X(git_commit_id) \
	X(git_commit_lookup) \
	X(git_commit_tree) \
	X(git_commit_tree_id) \
	X(git_config_entry_free) \
	X(git_config_free) \
	X(git_config_get_bool) \
	X(git_config_get_entry) \
	X(git_config_get_string_buf) \
	X(git_config_open_default) \
	X(git_diff_find_options_init) \
	X(git_diff_find_similar) \
	X(git_diff_free) \
	X(git_diff_get_delta) \
	X(git_diff_num_deltas) \
	X(git_diff_options_init) \
	X(git_diff_tree_to_tree) \
	X(git_diff_tree_to_workdir_with_index) \
	X(git_diff_to_buf) \
	X(git_error_clear) \
	X(git_graph_descendant_of) \
	X(git_ignore_path_is_ignored) \
	X(git_libgit2_opts) \
	X(git_libgit2_version) \
	X(git_object_free) \
	X(git_object_lookup_bypath) \
	X(git_object_peel) \
	X(git_odb_exists) \
	X(git_odb_free) \
	X(git_odb_hash) \
	X(git_odb_hashfile) \
	X(git_odb_object_data) \
	X(git_odb_object_free) \
	X(git_odb_object_size) \
	X(git_odb_object_type) \
	X(git_odb_read) \
	X(git_odb_read_header) \
	X(git_oid_equal) \
	X(git_oid_fromstr) \
	X(git_oid_tostr) \
	X(git_patch_free) \
	X(git_patch_from_diff) \
	X(git_patch_get_line_in_hunk) \
	X(git_patch_num_hunks) \
	X(git_patch_num_lines_in_hunk) \
	X(git_reference_create) \
	X(git_reference_dwim) \
	X(git_reference_free) \
	X(git_reference_name_to_id) \
	X(git_reference_resolve) \
	X(git_reference_target) \
	X(git_repository_commondir) \
	X(git_repository_config_snapshot) \
	X(git_repository_discover) \
	X(git_repository_free) \
	X(git_repository_head_unborn) \
	X(git_repository_is_bare) \
	X(git_repository_is_worktree) \
	X(git_repository_odb) \
	X(git_repository_open) \
	X(git_repository_open_bare) \
	X(git_repository_open_ext) \
	X(git_repository_path) \
	X(git_repository_workdir) \
	X(git_revparse_single) \
	X(git_signature_default) \
	X(git_signature_free) \
	X(git_signature_now) \
	X(git_tree_entry_byindex) \
	X(git_tree_entry_filemode) \
	X(git_tree_entry_id) \
	X(git_tree_entry_name) \
	X(git_tree_entry_type) \
	X(git_tree_entrycount) \
	X(git_tree_free) \
	X(git_tree_id) \
	X(git_tree_lookup) \
	X(git_treebuilder_free) \
	X(git_treebuilder_insert) \
	X(git_treebuilder_new) \
	X(git_treebuilder_write)

struct mt_git2_api {
#define MT_GIT2_FIELD(name) __typeof__(&name) name;
	MT_GIT2_FUNCTIONS(MT_GIT2_FIELD)
#undef MT_GIT2_FIELD
};

extern struct mt_git2_api mt_git2;

/* git_libgit2_init(): loads libgit2 once (thread-safe), then initialises
 * it: its count of inits, or MT_EIO with a message naming the library and
 * dlopen's reason (and git_error_last() gives those words too). */
int mt_git2_init(void);
/* git_libgit2_shutdown(): nothing when the library could not be loaded */
int mt_git2_shutdown(void);
/* git_error_last(): the load's failure when the library is not loaded */
const git_error *mt_git2_error_last(void);

/* git2_dl.c fills the table by these names, so it goes without them */
#ifndef MT_GIT2_DL_IMPL
#define git_libgit2_init mt_git2_init
#define git_libgit2_shutdown mt_git2_shutdown
#define git_error_last mt_git2_error_last
#define git_blob_create_from_buffer (mt_git2.git_blob_create_from_buffer)
#define git_blob_free (mt_git2.git_blob_free)
#define git_blob_is_binary (mt_git2.git_blob_is_binary)
#define git_blob_lookup (mt_git2.git_blob_lookup)
#define git_blob_rawcontent (mt_git2.git_blob_rawcontent)
#define git_blob_rawsize (mt_git2.git_blob_rawsize)
#define git_buf_dispose (mt_git2.git_buf_dispose)
#define git_commit_create (mt_git2.git_commit_create)
#define git_commit_free (mt_git2.git_commit_free)
#define git_commit_id (mt_git2.git_commit_id)
#define git_commit_lookup (mt_git2.git_commit_lookup)
#define git_commit_tree (mt_git2.git_commit_tree)
#define git_commit_tree_id (mt_git2.git_commit_tree_id)
#define git_config_entry_free (mt_git2.git_config_entry_free)
#define git_config_free (mt_git2.git_config_free)
#define git_config_get_bool (mt_git2.git_config_get_bool)
#define git_config_get_entry (mt_git2.git_config_get_entry)
#define git_config_get_string_buf (mt_git2.git_config_get_string_buf)
#define git_config_open_default (mt_git2.git_config_open_default)
#define git_diff_find_options_init (mt_git2.git_diff_find_options_init)
#define git_diff_find_similar (mt_git2.git_diff_find_similar)
#define git_diff_free (mt_git2.git_diff_free)
#define git_diff_get_delta (mt_git2.git_diff_get_delta)
#define git_diff_num_deltas (mt_git2.git_diff_num_deltas)
#define git_diff_options_init (mt_git2.git_diff_options_init)
#define git_diff_tree_to_tree (mt_git2.git_diff_tree_to_tree)
#define git_diff_tree_to_workdir_with_index (mt_git2.git_diff_tree_to_workdir_with_index)
#define git_diff_to_buf (mt_git2.git_diff_to_buf)
#define git_error_clear (mt_git2.git_error_clear)
#define git_graph_descendant_of (mt_git2.git_graph_descendant_of)
#define git_ignore_path_is_ignored (mt_git2.git_ignore_path_is_ignored)
#define git_libgit2_opts (mt_git2.git_libgit2_opts)
#define git_libgit2_version (mt_git2.git_libgit2_version)
#define git_object_free (mt_git2.git_object_free)
#define git_object_lookup_bypath (mt_git2.git_object_lookup_bypath)
#define git_object_peel (mt_git2.git_object_peel)
#define git_odb_exists (mt_git2.git_odb_exists)
#define git_odb_free (mt_git2.git_odb_free)
#define git_odb_hash (mt_git2.git_odb_hash)
#define git_odb_hashfile (mt_git2.git_odb_hashfile)
#define git_odb_object_data (mt_git2.git_odb_object_data)
#define git_odb_object_free (mt_git2.git_odb_object_free)
#define git_odb_object_size (mt_git2.git_odb_object_size)
#define git_odb_object_type (mt_git2.git_odb_object_type)
#define git_odb_read (mt_git2.git_odb_read)
#define git_odb_read_header (mt_git2.git_odb_read_header)
#define git_oid_equal (mt_git2.git_oid_equal)
#define git_oid_fromstr (mt_git2.git_oid_fromstr)
#define git_oid_tostr (mt_git2.git_oid_tostr)
#define git_patch_free (mt_git2.git_patch_free)
#define git_patch_from_diff (mt_git2.git_patch_from_diff)
#define git_patch_get_line_in_hunk (mt_git2.git_patch_get_line_in_hunk)
#define git_patch_num_hunks (mt_git2.git_patch_num_hunks)
#define git_patch_num_lines_in_hunk (mt_git2.git_patch_num_lines_in_hunk)
#define git_reference_create (mt_git2.git_reference_create)
#define git_reference_dwim (mt_git2.git_reference_dwim)
#define git_reference_free (mt_git2.git_reference_free)
#define git_reference_name_to_id (mt_git2.git_reference_name_to_id)
#define git_reference_resolve (mt_git2.git_reference_resolve)
#define git_reference_target (mt_git2.git_reference_target)
#define git_repository_commondir (mt_git2.git_repository_commondir)
#define git_repository_config_snapshot (mt_git2.git_repository_config_snapshot)
#define git_repository_discover (mt_git2.git_repository_discover)
#define git_repository_free (mt_git2.git_repository_free)
#define git_repository_head_unborn (mt_git2.git_repository_head_unborn)
#define git_repository_is_bare (mt_git2.git_repository_is_bare)
#define git_repository_is_worktree (mt_git2.git_repository_is_worktree)
#define git_repository_odb (mt_git2.git_repository_odb)
#define git_repository_open (mt_git2.git_repository_open)
#define git_repository_open_bare (mt_git2.git_repository_open_bare)
#define git_repository_open_ext (mt_git2.git_repository_open_ext)
#define git_repository_path (mt_git2.git_repository_path)
#define git_repository_workdir (mt_git2.git_repository_workdir)
#define git_revparse_single (mt_git2.git_revparse_single)
#define git_signature_default (mt_git2.git_signature_default)
#define git_signature_free (mt_git2.git_signature_free)
#define git_signature_now (mt_git2.git_signature_now)
#define git_tree_entry_byindex (mt_git2.git_tree_entry_byindex)
#define git_tree_entry_filemode (mt_git2.git_tree_entry_filemode)
#define git_tree_entry_id (mt_git2.git_tree_entry_id)
#define git_tree_entry_name (mt_git2.git_tree_entry_name)
#define git_tree_entry_type (mt_git2.git_tree_entry_type)
#define git_tree_entrycount (mt_git2.git_tree_entrycount)
#define git_tree_free (mt_git2.git_tree_free)
#define git_tree_id (mt_git2.git_tree_id)
#define git_tree_lookup (mt_git2.git_tree_lookup)
#define git_treebuilder_free (mt_git2.git_treebuilder_free)
#define git_treebuilder_insert (mt_git2.git_treebuilder_insert)
#define git_treebuilder_new (mt_git2.git_treebuilder_new)
#define git_treebuilder_write (mt_git2.git_treebuilder_write)
#endif /* MT_GIT2_DL_IMPL */

#endif
