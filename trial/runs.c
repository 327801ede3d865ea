#include "runs.h"
#include "error.h"
#include "runlog.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Feeds a `mtrial run` log: each line's time is its first field. */
static int feed_timed(mt_runlog *log, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int error = 0;

	while (p < end && error == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *line_end = nl ? nl : end;
		char *after;
		long long t = strtoll(p, &after, 10);
		const char *body = after;
		/* "EPOCH_MS o|e " before the line itself */
		if (after > p && after + 3 <= line_end && after[0] == ' ' &&
		    (after[1] == 'o' || after[1] == 'e') && after[2] == ' ')
			body = after + 3;
		else
			body = p, t = MT_RUNLOG_NO_TIME;
		error = mt_runlog_feed_line(log, body, (size_t)(line_end - body), (int64_t)t);
		p = nl ? nl + 1 : end;
	}
	return error;
}

int mt_runs_metrics(json_t **out, const char *path, enum mt_runs_log_format format,
		    const mt_spec *spec, int64_t submit_ms, int exit_status)
{
	mt_runlog_rules *rules = NULL;
	int error;

	*out = NULL;
	if ((error = mt_runlog_rules_load(&rules)) < 0)
		return error;
	error = mt_runs_metrics_with(out, rules, path, format, spec, submit_ms, exit_status);
	mt_runlog_rules_free(rules);
	return error;
}

int mt_runs_metrics_with(json_t **out, const mt_runlog_rules *rules, const char *path,
			 enum mt_runs_log_format format, const mt_spec *spec, int64_t submit_ms,
			 int exit_status)
{
	mt_runlog log;
	mt_run_metrics m;
	mt_run_opts o;
	const char *metric = spec ? mt_spec_get(spec, "quality_target.metric") : NULL;
	const char *threshold = spec ? mt_spec_get(spec, "quality_target.threshold") : NULL;
	const char *direction = spec ? mt_spec_get(spec, "quality_target.direction") : NULL;
	char *text = NULL;
	size_t len = 0;
	int error;

	*out = NULL;
	if ((error = mt_file_read(&text, &len, path)) < 0)
		return error;
	mt_runlog_init(&log, rules);
	error = format == MT_RUNS_LOG_TIMED ? feed_timed(&log, text, len)
					    : mt_runlog_feed_text(&log, text, len, MT_RUNLOG_NO_TIME);
	free(text); /* the events hold copies: the log's text goes before its figures */
	text = NULL;
	mt_run_opts_init(&o);
	o.submit_ms = submit_ms ? submit_ms : MT_RUNLOG_NO_TIME;
	o.exit_status = exit_status;
	o.unit = spec && mt_spec_get(spec, "workload.token_unit") ? "tokens" : "samples";
	if (metric && threshold) {
		o.target_metric = metric;
		o.target = strtod(threshold, NULL);
		o.higher_is_better = direction && strcmp(direction, "higher") == 0;
	}
	if (error == 0 && (error = mt_run_metrics_compute(&m, &log, &o)) == 0) {
		*out = mt_run_metrics_json(&m);
		mt_run_metrics_dispose(&m);
		if (!*out)
			error = mt_error_set(MT_EIO, "out of memory");
	}
	mt_runlog_dispose(&log);
	return error;
}

static double num(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A number of trial.yaml, NaN without one. */
static double spec_num(const mt_spec *spec, const char *system, const char *key)
{
	char path[96];
	const char *v;
	snprintf(path, sizeof(path), "systems.%s.%s", system, key);
	v = spec ? mt_spec_get(spec, path) : NULL;
	return v ? strtod(v, NULL) : NAN;
}

/* Devices of a system: accelerators per host x hosts (hosts default 1). */
static double devices_of(const mt_spec *spec, const char *system)
{
	double count = spec_num(spec, system, "count"), hosts = spec_num(spec, system, "hosts");
	return isnan(count) ? NAN : count * (isnan(hosts) ? 1 : hosts);
}

void mt_runs_flatten(json_t *run, const mt_spec *spec)
{
	json_t *m = json_object_get(run, "metrics"), *steady = json_object_get(m, "steady");
	json_t *target = json_object_get(m, "target");
	const char *system = json_string_value(json_object_get(run, "system"));
	double devices = system ? devices_of(spec, system) : NAN;
	double price = system ? spec_num(spec, system, "price.hourly") : NAN;
	double first = num(json_object_get(m, "first_ms")), last = num(json_object_get(m, "last_ms"));
	double hours = isfinite(first) && isfinite(last) && last >= first
			       ? (last - first) / 3600000.0
			       : NAN;
	double to_target = json_is_true(json_object_get(target, "reached"))
				   ? num(json_object_get(target, "from_run_start_s"))
				   : NAN;

	json_object_set_new(run, "clock1_s", real_or_null(num(json_object_get(json_object_get(m, "clock1"),
									      "seconds"))));
	json_object_set_new(run, "steady_step_s",
			    real_or_null(num(json_object_get(steady, "step_median_s"))));
	json_object_set_new(run, "throughput",
			    json_pack("{so, sO?}", "value",
				      real_or_null(num(json_object_get(steady, "throughput"))), "unit",
				      json_object_get(steady, "unit")));
	json_object_set_new(run, "reached",
			    json_is_object(target)
				    ? json_boolean(json_is_true(json_object_get(target, "reached")))
				    : json_null());
	json_object_set_new(run, "time_to_target_s", real_or_null(to_target));
	json_object_set_new(run, "time_to_target_from_submission_s",
			    real_or_null(json_is_true(json_object_get(target, "reached"))
						 ? num(json_object_get(target, "from_submission_s"))
						 : NAN));
	json_object_set_new(run, "run_minutes", real_or_null(num(json_object_get(m, "run_minutes"))));
	json_object_set_new(run, "devices", real_or_null(devices));
	json_object_set_new(run, "device_hours", real_or_null(devices * hours));
	json_object_set_new(run, "cost", real_or_null(price * hours));
	json_object_set_new(run, "cost_to_target", real_or_null(price * to_target / 3600.0));
}

json_t *mt_runs_by_system(json_t *runs, const mt_spec *spec)
{
	static const char *const systems[] = {"baseline", "candidate"};
	json_t *out = json_object();

	for (size_t s = 0; s < 2; s++) {
		json_t **items = calloc(json_array_size(runs) + 1, sizeof(*items)), *r, *sum;
		size_t i, n = 0;
		json_array_foreach(runs, i, r)
			if (strcmp(json_string_value(json_object_get(r, "system")), systems[s]) == 0 &&
			    json_is_object(json_object_get(r, "metrics"))) {
				/* the attempt's status is the journal's: an imported log
				 * without an end marker is not a failure */
				items[n] = json_copy(json_object_get(r, "metrics"));
				json_object_set(items[n++], "status", json_object_get(r, "status"));
			}
		sum = n ? mt_run_summary_json(items, n) : json_null();
		for (i = 0; i < n; i++)
			json_decref(items[i]);
		free(items);
		if (json_is_object(sum)) {
			json_object_set_new(sum, "devices", real_or_null(devices_of(spec, systems[s])));
			json_object_set_new(sum, "price_hourly",
					    real_or_null(spec_num(spec, systems[s], "price.hourly")));
		}
		json_object_set_new(out, systems[s], sum ? sum : json_null());
	}
	return out;
}
