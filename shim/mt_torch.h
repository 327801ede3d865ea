/* The libtorch shim behind a plain C interface.
 *
 * libtorch is never linked into mtrial: the C++ module libmtrial_torch.so is
 * opened with dlopen() the first time a function here is called, because
 * linking libtorch costs about half a second of start-up for every command.
 * No C++ type or exception crosses this header: each call returns 0 or a
 * negative MT_E* code with the shim's message (the caught exception's text)
 * in mt_error_last(). */
#ifndef MT_TORCH_H
#define MT_TORCH_H

#include <stddef.h>
#include "abi.h" /* mtt_tensor */

/* Loads the module if not yet loaded. Looks at $MTRIAL_TORCH_MODULE, then
 * beside the executable, then ../lib/mtrial/, then the build tree. */
int mt_torch_load(void);

/* 1 once the module is loaded in this process (for tests and doctor). */
int mt_torch_loaded(void);

/* The path the module was loaded from, NULL before. Borrowed. */
const char *mt_torch_module_path(void);

/* libtorch's version string ("1.13.1"), copied into buf. */
int mt_torch_version(char *buf, size_t size);

/* The number of operators registered with the JIT
 * (torch::jit::getAllOperators()). */
int mt_torch_operator_count(size_t *out);

/* The ops of a TorchScript archive, as JSON text in *json (heap; free()):
 * see mtt_torchscript_ops in abi.h. The file is loaded in-process and its
 * methods are never run; callers check the path first (probes' mt_opinventory_torchscript_check
 * does). MT_EINVALID with libtorch's message when it is not loadable. */
int mt_torch_script_ops(const char *path, char **json);

/* libtorch's registered operator schemas as a JSON array in *json (heap):
 * see mtt_registry in abi.h. */
int mt_torch_registry(char **json);

/* Runs a TorchScript model's forward on the CPU in `dtype` (its parameters
 * and floating-point inputs cast to it): the outputs in *out (*n of them). */
int mt_torch_run_model(const char *path, const mtt_tensor *inputs, size_t nin, const char *dtype,
		       mtt_tensor **out, size_t *n);

void mt_torch_tensors_free(mtt_tensor *arr, size_t n);

#endif
