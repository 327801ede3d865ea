/* libFuzzer harness for the run log reader: any bytes, read as a training
 * run's output, must give events, warnings and figures (whose JSON and
 * summary build), never crash, hang or leak. The first byte picks options so
 * that both units, both target directions and a tiny stall window are
 * reached. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "runlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static mt_runlog_rules *rules;
	mt_runlog log;
	mt_run_opts o;
	mt_run_metrics m;
	json_t *j, *s;
	uint8_t pick = size ? data[0] : 0;

	if (!rules && mt_runlog_rules_load(&rules) < 0)
		abort(); /* the bundled table must always read */
	mt_runlog_init(&log, rules);
	if (mt_runlog_feed_text(&log, (const char *)data, size,
	                        pick & 1 ? 1700000000000 : MT_RUNLOG_NO_TIME) < 0)
		abort(); /* only memory can fail */
	for (size_t i = 0; i < log.n_events; i++) {
		j = mt_run_event_json(&log.events[i]);
		if (!j)
			abort();
		json_decref(j);
	}
	mt_run_opts_init(&o);
	o.unit = pick & 2 ? "tokens" : "samples";
	o.higher_is_better = (pick & 4) != 0;
	o.target_metric = pick & 8 ? "eval_loss" : "eval_accuracy";
	o.target = pick & 4 ? 0.75 : 2.0;
	o.stall_window = pick >> 4;
	o.warmup_steps = pick >> 5;
	o.submit_ms = pick & 16 ? 1600000000000 : MT_RUNLOG_NO_TIME;
	if (mt_run_metrics_compute(&m, &log, &o) < 0)
		abort();
	j = mt_run_metrics_json(&m);
	if (!j)
		abort();
	s = mt_run_summary_json(&j, 1);
	if (!s)
		abort();
	json_decref(s);
	json_decref(j);
	mt_run_metrics_dispose(&m);
	mt_runlog_dispose(&log);
	return 0;
}
