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
int mt_torchscript_check(const char *path, int64_t *size);

/* The inventory of a TorchScript archive: checked, then loaded through the
 * libtorch shim, every method of the root module with its submodules
 * inlined. */
int mt_torchscript_inventory(json_t **out, const char *path);

/* The inventory of an optrace.py output file (format "mtrial-optrace",
 * version 1). A malformed file is MT_EINVALID naming the file and the field
 * ("ops.json: ops[3].count: expected a non-negative integer"). */
int mt_trace_inventory(json_t **out, const char *path);

/* Parses a trace already in memory; `name` names it in messages. */
int mt_trace_parse(json_t **out, const char *text, size_t len, const char *name);

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
int mt_inventory_diff(json_t **out, json_t *a, json_t *b);

#endif
