/* libFuzzer harness for optrace.py output files: any bytes must either give
 * an inventory or fail with a message naming the field; an inventory must
 * compare with itself and with a scan. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "opinventory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *inv = NULL, *d = NULL;

	if (mt_opinventory_trace_parse(&inv, (const char *)data, size, "fuzz.json") < 0) {
		if (!mt_error_last()[0])
			abort();
		return 0;
	}
	if (mt_opinventory_diff(&d, inv, inv) < 0)
		abort();
	json_decref(d);
	/* against a scan naming composites: the decomposition matching, each op
	 * in one list whatever the trace holds */
	json_t *scan = json_pack("{s{s{si}, s{si}, s{si}}}", "ops", "aten::linear", "count", 1,
				 "aten::log_softmax", "count", 1, "aten::_log_softmax", "count", 1);
	if (!scan || mt_opinventory_diff(&d, scan, inv) < 0)
		abort();
	json_decref(d);
	json_decref(scan);
	json_decref(inv);
	return 0;
}
