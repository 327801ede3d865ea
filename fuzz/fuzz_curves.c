/* libFuzzer harness for the loss-curve reader (CSV, JSON Lines, MLPerf
 * logs): any bytes must either give a curve or fail with a message naming
 * the line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "curves.h"
#include "error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mt_curve *c = NULL;
	mt_curve_read_opts opts = {0};

	if (mt_curve_parse(&c, (const char *)data, size, "fuzz.csv", &opts) < 0) {
		if (!mt_error_last()[0])
			abort();
		return 0;
	}
	mt_curve_free(c);
	return 0;
}
