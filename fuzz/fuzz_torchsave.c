/* libFuzzer harness for the torch.save reader (zip, pickle, storages): any
 * bytes must either give tensors whose every element can be read and the
 * globals it names, or fail with a message, never read outside the buffer.
 * Run it with -rss_limit_mb=256: no number in the file may make the reader
 * allocate much more than the file's size. */
#include <string.h>
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
	for (size_t i = 0; i < mt_torchsave_global_count(f); i++) {
		int called = -1;
		const char *name = mt_torchsave_global_at(f, i, &called);
		if (!name || called < 0)
			abort();
		sum += (double)strlen(name);
	}
	if (mt_torchsave_global_at(f, mt_torchsave_global_count(f), NULL))
		abort();
	mt_torchsave_free(f);
	return sum != sum ? 0 : 0; /* keeps the reads */
}
