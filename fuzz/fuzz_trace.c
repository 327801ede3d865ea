/* libFuzzer harness for optrace.py output files: any bytes must either give
 * an inventory or fail with a message naming the field. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "exact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *inv = NULL, *d = NULL;

	if (mt_trace_parse(&inv, (const char *)data, size, "fuzz.json") < 0) {
		if (!mt_error_last()[0])
			abort();
		return 0;
	}
	if (mt_inventory_diff(&d, inv, inv) < 0)
		abort();
	json_decref(d);
	json_decref(inv);
	return 0;
}
