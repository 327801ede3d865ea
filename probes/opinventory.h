/* Exact op inventories: a TorchScript archive's graphs and a dispatch trace
 * of a real run (probes/optrace.py), in the same shape as a scan's so that
 * the probe and `ops diff` take any of them.
 *
 * An inventory (jansson, new reference):
 *   source    "scan" | "torchscript" | "trace"
 *   file      the archive or trace file (absolute), absent for a scan
 *   calls     [{api, op, file, line, col, count?}]: the probe's call sites;
 *             a trace has no source lines, so its sites are {api, op, count}
 *   methods   [] (tensor-method sites: scans only)
 *   ops       {op: {count, overloads [], dtypes [], files [], backward_only?,
 *             phases?, shapes?, distinct_shapes?}} keyed by base name
 *             ("aten::add", overloads ["Tensor", "Scalar"])
 *   torchscript {methods, entry_points, submodules, nodes, control_flow,
 *             other, scalar, torch, note}: counted from the entry points
 *             (methods no other method calls), ops {conditional} the nodes
 *             in a branch or a loop body or trace {torch, python, devices, command, steps,
 *             max_steps, ended, exit_status, error}
 */
#ifndef MT_OPINVENTORY_H
#define MT_OPINVENTORY_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* Archives larger than this are refused before libtorch opens them. */
#define MT_TORCHSCRIPT_MAX_SIZE ((int64_t)8 << 30)

/* Python's own limits (its tokenizer's MAXLEVEL and MAXINDENT): code nested
 * deeper is refused before libtorch's recursive parser sees it. */
#define MT_TORCHSCRIPT_MAX_NESTING 200
#define MT_TORCHSCRIPT_MAX_INDENT 100
/* A code/ entry larger than this once inflated is refused. */
#define MT_TORCHSCRIPT_MAX_CODE ((size_t)256 << 20)

/* What the user is told before an archive is loaded in-process. */
#define MT_TORCHSCRIPT_NOTICE                                                            \
	"TorchScript archives hold code that libtorch compiles when it loads them: "     \
	"open only files you trust. mtrial reads the graphs and runs no method."

/* How a TorchScript inventory's counts read (its torchscript.note). */
#define MT_TORCHSCRIPT_COUNTS                                                            \
	"Counts are graph nodes: an op in a branch counts though the branch may never be "  \
	"taken, and one in a loop body counts once however often the loop runs: those are " \
	"counted apart as conditional."

/* What a trace's per-op input shapes mean, and what they do not. */
#define MT_TRACE_SHAPES                                                                  \
	"Input shapes in training: the distinct input shapes of each op in the training "   \
	"steps' forward and backward (set-up such as data loading left out). A compiling "  \
	"backend compiles per graph signature, not per op: ops whose shapes vary together " \
	"may cost one compilation per new step shape."

/* Checks that `path` looks like a TorchScript archive without loading it: a
 * regular file under the size cap, a zip, with the code/ and constants.pkl
 * entries torch.jit.save writes, its code/ entries nested no deeper than
 * MT_TORCHSCRIPT_MAX_NESTING brackets and MT_TORCHSCRIPT_MAX_INDENT blocks.
 * MT_EINVALID naming the file and what it is instead (a torch.save
 * checkpoint, a truncated zip, not a zip), or the entry and line nested too
 * deep;
 * MT_ENOTFOUND when absent. *size gets its size. */
int mt_opinventory_torchscript_check(const char *path, int64_t *size);

/* The inventory of a TorchScript archive: checked, then loaded through the
 * libtorch shim, every method of the root module with its submodules
 * inlined. */
int mt_opinventory_torchscript_inventory(json_t **out, const char *path);

/* The inventory of an optrace.py output file (format "mtrial-optrace",
 * version 1). A malformed file is MT_EINVALID naming the file and the field
 * ("ops.json: ops[3].count: expected a non-negative integer"). */
int mt_opinventory_trace(json_t **out, const char *path);

/* Parses a trace already in memory; `name` names it in messages. */
int mt_opinventory_trace_parse(json_t **out, const char *text, size_t len, const char *name);

/* Compares two inventories by base op name. *out: {a: {source, file?},
 * b: {...}, counts {op: [a, b]}, and lists of ops, sorted, each op in
 * exactly one: both; only_a, only_b; and when one side is a dispatch trace
 * and the other a scan or a graph (which name the ops the code calls, not
 * what they decompose into), decomposed (composites the other side names
 * whose decomposition the trace ran: aten::log_softmax), explained (the
 * trace's ops those account for: aten::_log_softmax; decompositions
 * {composite: [explained ops]} says which), backward_only (trace ops seen
 * only in backward, which neither a scan nor a graph has); and when one
 * side is a scan, missed_by_scan (the other side's remaining ops, which
 * then are in no only_ list). Composites come from tables/
 * decompositions.yaml. */
int mt_opinventory_diff(json_t **out, json_t *a, json_t *b);

/* An op of an inventory, keyed by its base name. */
typedef struct {
	const char *name; /* aten::add */
	int64_t count;
	int backward_only; /* a trace's op seen only in backward */
	int has_phases;    /* a trace's: the counts by phase below */
	int64_t setup, forward, backward, optimizer;
	int64_t conditional;     /* a graph's nodes in a branch or loop body */
	const char **dtypes;     /* ndtypes */
	size_t ndtypes;
	const char **dtype_args; /* the dtypes it converts to, ndtype_args */
	size_t ndtype_args;
	int64_t distinct_shapes; /* a trace's input shapes in training, 0 unknown */
} mt_inventory_op;

/* A call site of an inventory (a trace's has no file). */
typedef struct {
	const char *api, *op;
	const char *file;   /* NULL for a trace's */
	const char *module; /* a graph's submodule, NULL or "" for none */
	int64_t line;
} mt_inventory_call;

/* A count by name (a graph's nodes left out). */
typedef struct {
	const char *name;
	int64_t count;
} mt_inventory_count;

/* An inventory (a scan's, a graph's, a trace's) as other layers read it.
 * Strings are borrowed from the JSON read, which must outlive the view;
 * NULL is none. */
typedef struct {
	const char *source;   /* "scan", "torchscript", "trace" */
	const char *file;     /* the archive or trace; NULL for a scan */
	const char *repo, *rev; /* a scan's */
	int64_t size;         /* an archive's bytes */
	int64_t inventory_id; /* the trial's record, 0 when not recorded */
	mt_inventory_op *ops; /* in the inventory's order, nops */
	size_t nops;
	mt_inventory_call *calls; /* ncalls */
	size_t ncalls;
	int is_torchscript;
	struct {
		const char *torch; /* libtorch's version */
		const char **methods, **entry_points; /* nmethods, nentry_points */
		size_t nmethods, nentry_points;
		int64_t submodules, nodes, control_flow;
		mt_inventory_count *metadata, *scalar; /* nodes left out, by op */
		size_t nmetadata, nscalar;
	} ts;
	int is_trace;
	struct {
		const char *torch, *python, *step_counter, *ended, *incomplete, *error;
		const char **devices, **warnings; /* ndevices, nwarnings */
		size_t ndevices, nwarnings;
		int64_t steps;
	} trace;
	int has_trace_steps; /* the trace says how many optimizer steps it saw (trace.steps) */
	const json_t *detail; /* the torchscript or trace object whole, for what
	                         passes it on (the report's model); NULL for a scan */
} mt_opinventory_view;

/* Reads an inventory (borrowed) into *v: 0, or MT_EINVALID naming the
 * first key missing (filled as far as it goes either way). Dispose of it
 * with mt_opinventory_view_dispose. */
int mt_opinventory_view_read(mt_opinventory_view *v, const json_t *inv);
void mt_opinventory_view_dispose(mt_opinventory_view *v);

/* An op of a difference with its count on each side. */
typedef struct {
	const char *op;
	int64_t a, b;
} mt_opinventory_diff_op;

/* A list of a difference's ops, sorted. */
typedef struct {
	mt_opinventory_diff_op *v;
	size_t n;
} mt_opinventory_diff_list;

/* A composite one side names and the ops the trace ran for it. */
typedef struct {
	const char *composite;
	const char **ops; /* nops */
	size_t nops;
} mt_inventory_decomposition;

/* mt_opinventory_diff's result as other layers read it. Strings are borrowed
 * from the JSON read, which must outlive the view; NULL is none. */
typedef struct {
	struct {
		const char *source, *file, *rev; /* file: an exact source's; rev: a scan's */
	} a, b;
	mt_opinventory_diff_list both, only_a, only_b, backward_only;
	int has_missed_by_scan; /* one side is a scan: the other's rest is listed */
	mt_opinventory_diff_list missed_by_scan;
	mt_inventory_decomposition *decomposed; /* ndecomposed */
	size_t ndecomposed;
} mt_opinventory_diff_view;

/* Reads a difference (borrowed) into *v: 0, or MT_EINVALID naming the
 * first key missing. Dispose of it with mt_opinventory_diff_view_dispose. */
int mt_opinventory_diff_view_read(mt_opinventory_diff_view *v, const json_t *diff);
void mt_opinventory_diff_view_dispose(mt_opinventory_diff_view *v);

#endif
