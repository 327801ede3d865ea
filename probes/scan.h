/* mtrial scan: the static op inventory of a repository at a revision.
 * Reads through libgit2 (gitread.h), lexes and resolves each Python file
 * (extract.h), maps calls to aten ops (opmap.h), applies the findings rules
 * and the dependency table (findings.h, deps.h). Per-file results are cached
 * by blob id and whole results by tree id (scancache.h), so an unchanged file
 * is never lexed twice and a rescan of an unchanged tree reads no blob. */
#ifndef MT_SCAN_H
#define MT_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* Progress: called on the thread that called mt_scan_run(), never
 * concurrently, with `path` borrowed for the call. done == total at the end. */
typedef void (*mt_scan_progress_cb)(size_t done, size_t total, const char *path, void *payload);

typedef struct {
	const char *repo;        /* a path inside the repository; NULL = "." */
	const char *rev;         /* NULL = HEAD */
	int worktree;            /* add uncommitted changes */
	int use_cache;           /* read and write the cache */
	const char *cache_path;  /* NULL = the default location */
	uint64_t max_file_bytes; /* 0 = MT_SCAN_MAX_FILE_BYTES */
	int threads;             /* 0 = one per core */
	mt_scan_progress_cb progress;
	void *payload;
} mt_scan_options;

#define MT_SCAN_MAX_FILE_BYTES (4u << 20)

/* Runs a scan. *out is the result (new reference): repo, rev, tree,
 * worktree, files_scanned, files_skipped [{path, reason}], calls [{api, op,
 * file, line, col}], methods [{name, op, file, line}], ops {op: {count,
 * files}}, findings [{rule, kind, effort, file, line, col, message}],
 * dependencies [{name, spec, file, line, cuda_only, why}], submodules,
 * files [{path, lines, calls, methods, findings}], totals {...},
 * cache {hit: "tree"|"blobs"|"none", blobs_read}. */
int mt_scan_run(json_t **out, const mt_scan_options *opts);

/* The version string that keys the cache: mtrial's version and a hash of
 * the tables compiled in. Static. */
const char *mt_scan_cache_version(void);

#endif
