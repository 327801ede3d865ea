/* libFuzzer harness for the safetensors header check: any bytes must either
 * give tensors whose every element lies inside the buffer, or fail with a
 * message. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mt_tensor *ts = NULL;
	size_t n = 0;
	double sum = 0;

	if (mt_safetensors_parse(&ts, &n, data, size, "fuzz.safetensors") < 0) {
		if (!mt_error_last()[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		for (uint64_t k = 0; k < ts[i].numel; k++)
			sum += mt_tensor_get(ts[i].dtype, ts[i].data, k);
	mt_safetensors_free(ts, n);
	return sum != sum ? 0 : 0;
}
