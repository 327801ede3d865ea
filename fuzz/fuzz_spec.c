/* libFuzzer harness for the trial.yaml reader: any bytes must either parse
 * into a spec whose every accessor works, or fail with a message, never
 * crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mt_spec *spec = NULL;
	json_t *json;

	if (mt_spec_parse(&spec, (const char *)data, size, "fuzz.yaml") < 0) {
		/* Every failure leaves a message for the user. */
		if (!mt_error_last()[0])
			abort();
		return 0;
	}
	json = mt_spec_to_json(spec);
	if (!json)
		abort();
	json_decref(json);
	(void)mt_spec_get(spec, "name");
	(void)mt_spec_get(spec, "criteria.0.kind");
	(void)mt_spec_count(spec, "criteria");
	(void)mt_spec_count(spec, "systems.baseline.software");
	mt_spec_free(spec);
	return 0;
}
