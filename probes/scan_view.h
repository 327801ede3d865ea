/* A scan's result as the layers above read it (the CLI's text, the
 * wizard's Inventory and Ops steps): mt_scan_result_json's object, or its
 * summary (mt_scan_result_summary), or a scan recorded in the journal.
 * Strings are borrowed from the JSON read, which must outlive the view; the
 * arrays are the view's own. NULL is none. */
#ifndef MT_SCAN_VIEW_H
#define MT_SCAN_VIEW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* A call site: a call (api) or a tensor method call (api is its name). */
typedef struct {
	const char *api;    /* torch.cumsum; a method's name: cumsum */
	const char *op;     /* the aten op, NULL when it maps to none */
	const char *file;   /* repository-relative */
	const char *module; /* a trace's or graph's module, NULL for a scan */
	int64_t line;       /* 1-based */
	int64_t col;        /* 0-based; 0 when not known */
	int certain;        /* 0: a method call whose receiver may not be a tensor */
} mt_scan_site;

/* An op of the scan's calls: how often, in which files. */
typedef struct {
	const char *name; /* aten::cumsum */
	int64_t count;
	size_t nfiles;
	const char **files; /* their paths, nfiles (NULL: an item not a string) */
	int64_t uncertain;  /* method_ops': sites whose receiver may not be a tensor */
} mt_scan_op;

typedef struct {
	const char *rule, *kind, *effort, *message;
	const char *file;
	int64_t line, col;
	const json_t *json; /* the finding whole, for what passes it on (the report's model) */
} mt_scan_finding;

typedef struct {
	const char *name, *spec, *file;
	int64_t line;
	int cuda_only; /* a CUDA-only package: no use on Trainium */
	const json_t *json; /* the dependency whole, for what passes it on */
} mt_scan_dependency;

typedef struct {
	const char *path;
	int64_t lines, calls, methods, findings;
} mt_scan_file;

typedef struct {
	const char *path, *reason;
} mt_scan_skipped;

typedef struct {
	const char *repo, *rev;  /* the work tree (or git dir), the full commit id */
	const char *requested_rev; /* as asked, NULL for HEAD */
	int worktree;            /* uncommitted changes included */
	const char **paths;      /* the limit, npaths (0: the whole repository) */
	size_t npaths;
	const char **paths_missing; /* limits with nothing at the revision, npaths_missing */
	size_t npaths_missing;
	int64_t files_scanned;
	mt_scan_skipped *skipped;
	size_t nskipped;
	mt_scan_op *ops; /* the calls' ops, in the scan's order */
	size_t nops;
	mt_scan_finding *findings;
	size_t nfindings;
	mt_scan_dependency *deps;
	size_t ndeps;
	mt_scan_file *files;
	size_t nfiles;
	struct {
		int64_t lines, calls, calls_mapped, methods, methods_certain, methods_uncertain;
		int64_t not_tensor, ops, ops_with_methods, findings;
		int64_t high, medium, low, none; /* findings by effort */
	} totals;
	/* the sites: a whole scan's; a summary has none (has_sites 0) */
	int has_sites;
	mt_scan_site *calls, *methods;
	size_t ncalls, nmethods;
	/* the ops of tensor-method sites (method_ops; has_method_ops 0 for a
	   scan recorded before it), with their uncertain sites */
	int has_method_ops;
	mt_scan_op *method_ops;
	size_t nmethod_ops;
	const json_t *totals_json; /* totals whole, for what passes it on */
} mt_scan_view;

/* Reads a scan (borrowed) into *v: 0, or MT_EINVALID naming the first key
 * missing (filled as far as it goes either way: a record older than a key
 * reads it as none). Dispose of it with mt_scan_view_dispose. */
int mt_scan_view_read(mt_scan_view *v, const json_t *scan);
void mt_scan_view_dispose(mt_scan_view *v);

#endif
