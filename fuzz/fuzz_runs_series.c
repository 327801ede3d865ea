/* libFuzzer harness for what `mtrial runs import` reads besides logs: CSV
 * and JSON Lines series and MLPerf system descriptions. Any bytes must give
 * figures, a warning per bad row, or an MT_EINVALID naming the file, never
 * crash, hang or leak. The first byte picks the format and whether the
 * trial has a target metric (an eval column by that name) and a token unit.
 * The readers take a path, so the input goes through a file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "runs.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char spec_text[] = "schema: 1\n"
				"name: fuzz\n"
				"workload: {token_unit: target}\n"
				"quality_target: {metric: accuracy, threshold: 0.5, direction: higher}\n";

static char path[64];

static void remove_input(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static mt_runlog_rules *rules;
	static mt_spec *spec;
	static const enum mt_runs_log_format formats[] = {MT_RUNS_LOG_CSV, MT_RUNS_LOG_JSONL,
							  MT_RUNS_SYSTEM};
	uint8_t pick = size ? data[0] : 0;
	json_t *out = NULL;
	FILE *f;
	int error;

	if (!rules && mt_runlog_rules_load(&rules) < 0)
		abort(); /* the bundled table must always read */
	if (!spec && mt_spec_parse(&spec, spec_text, strlen(spec_text), "fuzz.yaml") < 0)
		abort();
	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/fuzz_runs_series.%d", (int)getpid());
		atexit(remove_input);
	}
	if (!(f = fopen(path, "wb")))
		abort();
	if (size > 1)
		fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	if (formats[pick % 3] == MT_RUNS_SYSTEM)
		error = mt_runs_system_read(&out, path);
	else
		error = mt_runs_metrics_with(&out, rules, path, formats[pick % 3],
					     pick & 4 ? spec : NULL, 0, -1);
	if (error == MT_EIO)
		abort(); /* the file was written: only memory can fail */
	if ((error == 0) != (out != NULL))
		abort();
	json_decref(out);
	mt_error_clear();
	return 0;
}
