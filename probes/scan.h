/* mtrial scan: the static op inventory of a repository at a revision.
 * Reads through libgit2 (gitread.h), lexes and resolves each Python file
 * (extract.h), maps calls to aten ops (opmap.h), applies the findings rules
 * and the dependency table (rules.h, deps.h). Per-file results are cached
 * by blob id and whole results by tree id (scancache.h), so an unchanged file
 * is never lexed twice and a rescan of an unchanged tree reads no blob. */
#ifndef MT_SCAN_H
#define MT_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
	const char *const *paths; /* limit the scan to these folders or files
				     (relative to the repository root, or
				     absolute inside its work tree); npaths 0 =
				     the whole repository */
	size_t npaths;
	mt_scan_progress_cb progress;
	void *payload;
} mt_scan_options;

#define MT_SCAN_MAX_FILE_BYTES (4u << 20)

/* A scan's result. The call sites of a large repository are tens of
 * thousands of entries, so the result is kept as JSON text and only its
 * small summary is parsed when needed. */
struct mt_scan_parts;

typedef struct {
	char *repo;            /* the work tree root, or the git dir when bare */
	char commit[41];       /* the full id the revision resolved to */
	char tree[41];         /* its tree id; "" with --worktree */
	int worktree;
	char *requested_rev;   /* as given; NULL for HEAD */
	const char *cache_hit; /* "tree", "blobs" or "none"; static */
	size_t blobs_read;     /* files read and analysed in this run */
	char **paths;          /* the limit, normalised ("pkg/sub"); NULL when
				  none. Also in the summary: "paths" [..] and
				  "paths_missing" [..] (those with nothing at the
				  revision) */
	size_t npaths;
	char *body;            /* JSON members, without braces: calls [{api, op,
				  file, line, col, certain}], methods [{name, op,
				  file, line, certain}] (certain: the receiver is
				  known to be a tensor), not_tensor [{name, op,
				  file, line, receiver}] (a tensor method's name
				  called on what the file shows is not a tensor:
				  not counted), then the summary's members;
				  not NUL-terminated: body_len bytes */
	size_t body_len;
	size_t body_map;       /* body is a read-only mapping of this many
				  bytes (the cache's file), 0: malloc'd */
	struct mt_scan_parts *parts; /* private to probes/ (scan_int.h): a fresh
					scan's body as pieces, body NULL */
	char *summary;         /* a JSON object: files_scanned, files_skipped
				  [{path, reason}], ops {op: {count, files}},
				  findings [{rule, kind, effort, file, line, col,
				  message, and mt_finding.details' fields}],
				  dependencies [{name, spec, file, line,
				  cuda_only, why}], files [{path, lines, calls,
				  methods, findings}], totals {...} */
	/* What callers show without parsing the summary (its megabytes were
	 * most of a rescan's time): the summary's files_scanned,
	 * totals.calls and totals.findings, and paths_missing as its reader
	 * gives them (strings the result owns) */
	size_t files_scanned, calls, findings;
	char **paths_missing;
	size_t npaths_missing;
} mt_scan_result;

/* Runs a scan into *out (caller disposes; zeroed on error). A path in
 * opts->paths that leaves the repository ("..", absolute outside it) is a
 * usage error; one with nothing under it at the revision is listed in the
 * summary's paths_missing, for the caller to warn about. */
int mt_scan_run(mt_scan_result *out, const mt_scan_options *opts);

void mt_scan_result_dispose(mt_scan_result *r);

/* The whole result as one JSON object: repo, rev, requested_rev, tree,
 * worktree, cache {hit, blobs_read}, the members of `extra` (may be NULL),
 * then the body. Caller frees. */
char *mt_scan_result_json(const mt_scan_result *r, json_t *extra);
/* The same JSON written to f, without building it in memory first. */
int mt_scan_result_write_json(FILE *f, const mt_scan_result *r, json_t *extra);

/* The header members plus the summary, parsed (new reference): what text
 * output, the trial record's summary and the report use. */
json_t *mt_scan_result_summary(const mt_scan_result *r);

/* The version string that keys the cache: mtrial's version and a hash of
 * the tables compiled in. Static. */
const char *mt_scan_cache_version(void);

#endif
