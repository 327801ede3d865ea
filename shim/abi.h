/* The symbols libmtrial_torch.so exports, shared by the C++ module and the C
 * loader. Every function returns 0 on success or -1 with a NUL-terminated
 * message in err (at most errsize bytes). Bump MTT_ABI when a signature
 * changes: the loader refuses a module of another ABI. */
#ifndef MT_TORCH_ABI_H
#define MT_TORCH_ABI_H

#include <stddef.h>

#define MTT_ABI 2

#ifdef __cplusplus
extern "C" {
#endif

int mtt_abi(void);
int mtt_version(char *buf, size_t size, char *err, size_t errsize);
int mtt_operator_count(size_t *out, char *err, size_t errsize);
/* A TorchScript archive's ops as JSON text in *json (malloc'd; the caller
 * frees it): {methods, submodules, nodes, control_flow, ops [{op, overload,
 * count, dtypes, dtype_args, sites [{file ("" when unknown), line, col,
 * module, count}]}], other {kind: count}, scalar {op.overload: count}, metadata {op: count}}.
 * Loads the archive in-process (torch::jit::load on CPU) but runs nothing. */
int mtt_torchscript_ops(const char *path, char **json, char *err, size_t errsize);
/* Every registered operator schema as a JSON array (malloc'd):
 * [{name, overload, arguments [{name, type, kwarg_only, default?}], returns,
 * schema}]. */
int mtt_registry(char **json, char *err, size_t errsize);

#ifdef __cplusplus
}
#endif

#endif
