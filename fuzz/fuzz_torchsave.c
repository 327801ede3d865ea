/* libFuzzer harness for the torch.save reader (zip, pickle, storages): any
 * bytes must either give tensors whose every element can be read, or fail
 * with a message, never read outside the buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "torchsave.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mt_torchsave *f = NULL;
	double sum = 0;

	if (mt_torchsave_parse(&f, data, size, "fuzz.pt") < 0) {
		if (!mt_error_last()[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < mt_torchsave_count(f); i++) {
		const mt_tensor *t = mt_torchsave_at(f, i);
		for (uint64_t k = 0; k < t->numel; k++)
			sum += mt_tensor_get(t->dtype, t->data, k);
	}
	mt_torchsave_free(f);
	return sum != sum ? 0 : 0; /* keeps the reads */
}
