/* The symbols libmtrial_torch.so exports, shared by the C++ module and the C
 * loader. Every function returns 0 on success or -1 with a NUL-terminated
 * message in err (at most errsize bytes). Bump MTT_ABI when a signature
 * changes: the loader refuses a module of another ABI. */
#ifndef MT_TORCH_ABI_H
#define MT_TORCH_ABI_H

#include <stddef.h>

#define MTT_ABI 3

#ifdef __cplusplus
extern "C" {
#endif

/* A tensor handed across the ABI: contiguous, on the host, its bytes owned
 * (malloc'd) by the receiver, who frees name and data with free(). */
typedef struct {
	char *name;     /* "weight", "layers.0.bias", "0" for a list item */
	char dtype[16]; /* torch's name: "float32", "bfloat16", "bool" */
	int ndim;
	long long shape[16];
	void *data;
	unsigned long long nbytes;
} mtt_tensor;

int mtt_abi(void);
int mtt_version(char *buf, size_t size, char *err, size_t errsize);
int mtt_operator_count(size_t *out, char *err, size_t errsize);
/* A TorchScript archive's ops as JSON text in *json (malloc'd; the caller
 * frees it): {methods (every method of the root), entry_points (those no
 * other method of the root calls: the only ones walked, callees inlined),
 * submodules, nodes, control_flow, ops [{op, overload, count, conditional
 * (nodes inside an if-branch or a loop body), dtypes, dtype_args, sites
 * [{file ("" when unknown), line, col, module, count}]}], other {kind:
 * count}, scalar {op.overload: count}, metadata {op: count}}.
 * Loads the archive in-process (torch::jit::load on CPU) but runs nothing. */
int mtt_torchscript_ops(const char *path, char **json, char *err, size_t errsize);
/* Every registered operator schema as a JSON array (malloc'd):
 * [{name, overload, arguments [{name, type, kwarg_only, default?}], returns,
 * schema}]. */
int mtt_registry(char **json, char *err, size_t errsize);
/* Runs a TorchScript model's forward on the CPU with its parameters and the
 * floating-point inputs cast to `dtype` ("float32", "bfloat16", "float16",
 * "float64"); the outputs (a tensor, or tuples, lists and dicts of them)
 * as tensors of that dtype in *out. Nothing but forward runs, on one
 * intra-op thread (the same reduction order in every run). A failure of
 * forward is one line in err: an interpreter traceback's last line, or a
 * schema mismatch without the printed argument; cut at a sentence's end,
 * saying so, to leave the caller 512 bytes of a long err. */
int mtt_run_model(const char *path, const mtt_tensor *inputs, size_t nin, const char *dtype,
		  mtt_tensor **out, size_t *n, char *err, size_t errsize);

#ifdef __cplusplus
}
#endif

#endif
