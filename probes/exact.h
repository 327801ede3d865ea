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
 *   torchscript {methods, submodules, nodes, control_flow, other, scalar,
 *             torch} or trace {torch, python, devices, command, steps,
 *             max_steps, ended, exit_status, error}
 */
#ifndef MT_EXACT_H
#define MT_EXACT_H

#include <stdint.h>
#include <jansson.h>

/* Archives larger than this are refused before libtorch opens them. */
#define MT_TORCHSCRIPT_MAX_SIZE ((int64_t)8 << 30)

/* What the user is told before an archive is loaded in-process. */
#define MT_TORCHSCRIPT_NOTICE                                                            \
	"TorchScript archives hold code that libtorch compiles when it loads them: "     \
	"open only files you trust. mtrial reads the graphs and runs no method."

/* Checks that `path` looks like a TorchScript archive without loading it: a
 * regular file under the size cap, a zip, with the code/ and constants.pkl
 * entries torch.jit.save writes. MT_EINVALID naming the file and what it is
 * instead (a torch.save checkpoint, a truncated zip, not a zip);
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
 * b: {...}, only_a [op], only_b [op], both [op], backward_only [op] (ops
 * of either that a trace saw only in backward), missed_by_scan [op] (when
 * one side is a scan: ops the other saw that the scan did not), counts
 * {op: [a, b]}}. Ops are sorted. */
int mt_inventory_diff(json_t **out, json_t *a, json_t *b);

#endif
