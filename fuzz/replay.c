/* A main for the harnesses in a build without libFuzzer: runs the harness
 * once on each file named on the command line, so that the normal build
 * keeps every harness compiling and the test suite replays the inputs that
 * once made one fail (fuzz/regress/NAME/). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *text = NULL;
		size_t len = 0;
		if (mt_file_read(&text, &len, argv[i]) < 0) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 2;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)text, len);
		free(text);
	}
	return 0;
}
