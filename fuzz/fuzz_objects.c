/* libFuzzer harness for the artefacts (trial/objects.c): the input is the
 * file an object's name points at, as a sync, a full disk or a tamperer
 * may have left it. Reading it must never crash or leak, and gives either
 * the bytes its name is the hash of, or an error that names it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "objects.h"
#include "sha256.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256], ref[MT_OBJECT_REF_LEN + 1], *path;

/* An object of "mtrial" stored, so that its name and directory exist. */
static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/fuzz_objects.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || mt_object_put(dir, "mtrial", 6, ref) < 0)
		abort();
	path = mt_object_path(dir, ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL, hex[65];
	size_t len = 0;

	if (!path)
		setup();
	if (mt_file_write_atomic(path, (const char *)data, size, 0) < 0)
		abort();
	if (mt_object_get(dir, ref, &out, &len) == 0) {
		mt_sha256_hex(hex, out, len);
		if (strcmp(hex, ref + 7) != 0 || out[len] != '\0')
			abort(); /* read back, it is what its name says */
	} else if (!strstr(mt_error_last(), ref) || out) {
		abort(); /* a failure names the artefact and gives nothing */
	}
	mt_error_clear();
	free(out);
	return 0;
}
