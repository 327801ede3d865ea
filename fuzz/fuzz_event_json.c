/* libFuzzer harness for the reader of events lines (trial/events_json.c,
 * issue 19): whatever it takes, jansson (json_loadb with
 * JSON_REJECT_DUPLICATES, as the index read lines before) must take too,
 * as an equal value written back to the same text (keys in the same
 * order). What it gives up on, jansson reads; that is never checked here. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *fast = mt_event_json_fast((const char *)data, size);
	json_t *slow = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);

	if (fast) {
		char *a, *b;
		if (!slow || !json_equal(fast, slow))
			abort();
		a = json_dumps(fast, JSON_COMPACT | JSON_ENCODE_ANY);
		b = json_dumps(slow, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!a || !b || strcmp(a, b) != 0)
			abort();
		free(a);
		free(b);
	}
	json_decref(fast);
	json_decref(slow);
	return 0;
}
