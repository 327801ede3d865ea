/* libFuzzer harness for the loss-curve readers (CSV, JSON Lines, MLPerf
 * logs, and run logs read through the runs' rules, timed or not): any
 * bytes must either give a curve or fail with a message naming the line
 * or the file. A run log is read from a file: the input is written to one
 * scratch file, made once. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <stdio.h>
#include <unistd.h>

#include "curves.h"
#include "error.h"

static const char *scratch(const uint8_t *data, size_t size)
{
	static char path[64];
	FILE *fp;

	if (!path[0]) {
		int fd;
		snprintf(path, sizeof(path), "/tmp/fuzz-curves-XXXXXX");
		if ((fd = mkstemp(path)) < 0)
			abort();
		close(fd);
	}
	if (!(fp = fopen(path, "wb")) || fwrite(data, 1, size, fp) != size)
		abort();
	fclose(fp);
	return path;
}

static void runlog(const uint8_t *data, size_t size)
{
	const char *path = scratch(data, size);
	mt_curve *c = NULL;

	for (int timed = 0; timed < 2; timed++) {
		if (mt_curve_read_runlog(&c, path, timed ? MT_RUNS_LOG_TIMED : MT_RUNS_LOG_RAW,
					 NULL) < 0) {
			if (!mt_error_last()[0])
				abort();
			continue;
		}
		mt_curve_free(c);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mt_curve *c = NULL;
	mt_curve_read_opts opts = {0};

	runlog(data, size);
	if (mt_curve_parse(&c, (const char *)data, size, "fuzz.csv", &opts) < 0) {
		if (!mt_error_last()[0])
			abort();
		return 0;
	}
	mt_curve_free(c);
	return 0;
}
