/* Each system's summary across its runs (mt_runs_by_system), grouped by
 * device count: no figure pools topologies. */
#include "runs.h"
#include "runs_int.h"
#include "runlog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A system's devices as its runs count them (flattened: a system
 * description imported with them wins over trial.yaml) when they agree,
 * else trial.yaml's count x hosts. */
static double system_devices(json_t *runs, const char *system, const mt_spec *spec)
{
	double d = NAN;
	json_t *r;
	size_t i;

	json_array_foreach(runs, i, r) {
		double v = mt_runs__num(json_object_get(r, "devices"));
		if (json_is_true(json_object_get(r, "rehearsal")) || !isfinite(v) ||
		    strcmp(json_string_value(json_object_get(r, "system")) ?: "", system) != 0)
			continue;
		if (isfinite(d) && d != v)
			return mt_runs__devices_of(spec, system);
		d = v;
	}
	return isfinite(d) ? d : mt_runs__devices_of(spec, system);
}

/* The run's metrics with the journal's status (an imported log without an
 * end marker is not a failure), for mt_run_summary_json. New reference. */
static json_t *summary_item(json_t *r)
{
	json_t *m = json_copy(json_object_get(r, "metrics"));

	json_object_set(m, "status", json_object_get(r, "status"));
	return m;
}

/* The system's summary per device count, smallest first: no figure pools
 * topologies. A run without a known count is in none. */
static json_t *topologies_of(json_t *runs, const char *system)
{
	json_t *out = json_array(), *r;
	json_t **items = calloc(json_array_size(runs) + 1, sizeof(*items));
	double last = 0;
	size_t i;

	for (;;) {
		double next = INFINITY;
		size_t n = 0;
		json_array_foreach(runs, i, r) {
			double d = mt_runs__num(json_object_get(r, "devices"));
			if (strcmp(json_string_value(json_object_get(r, "system")) ?: "", system) == 0 &&
			    json_is_object(json_object_get(r, "metrics")) &&
			    !json_is_true(json_object_get(r, "rehearsal")) && d > last && d < next)
				next = d;
		}
		if (!isfinite(next) || !items)
			break;
		json_array_foreach(runs, i, r)
			if (strcmp(json_string_value(json_object_get(r, "system")) ?: "", system) == 0 &&
			    json_is_object(json_object_get(r, "metrics")) &&
			    !json_is_true(json_object_get(r, "rehearsal")) &&
			    mt_runs__num(json_object_get(r, "devices")) == next)
				items[n++] = summary_item(r);
		json_array_append_new(out, json_pack("{s:f, s:o}", "devices", next, "summary",
						     mt_run_summary_json(items, n)));
		for (size_t k = 0; k < n; k++)
			json_decref(items[k]);
		last = next;
	}
	free(items);
	return out;
}

/* With runs at several device counts, the summary's figures over time
 * would pool them: they become unknown, and the per-topology ones say. */
static void unpool(json_t *sum, json_t *topologies)
{
	static const char *const spreads[] = {"time_to_target_s", "run_minutes"};

	json_object_set(sum, "topologies", topologies);
	json_object_set_new(sum, "several_topologies", json_boolean(json_array_size(topologies) > 1));
	if (json_array_size(topologies) <= 1)
		return;
	for (size_t k = 0; k < 2; k++)
		json_object_set_new(sum, spreads[k],
				    json_pack("{s:n, s:n, s:n, s:n}", "min", "median", "max",
					      "olympic_mean"));
	json_object_set_new(sum, "pooled_note",
			    json_string("runs at several device counts: their times are given per "
					"topology, never pooled"));
}

/* The runs of `design` (a run without one is matched). New reference. */
static json_t *of_design(json_t *runs, const char *design, size_t *others)
{
	json_t *out = json_array(), *r;
	size_t i;

	*others = 0;
	json_array_foreach(runs, i, r) {
		if (strcmp(json_string_value(json_object_get(r, "design")) ?: "matched", design) == 0)
			json_array_append(out, r);
		else
			(*others)++;
	}
	return out;
}

static json_t *by_system(json_t *runs, const mt_spec *spec);

json_t *mt_runs_by_system(json_t *runs, const mt_spec *spec)
{
	size_t best_n, matched_n;
	json_t *matched = of_design(runs, "matched", &best_n), *out = by_system(matched, spec);

	/* the best-recipe runs are another experiment: summed apart, never
	 * pooled with the matched ones */
	if (best_n) {
		json_t *best = of_design(runs, "best", &matched_n);
		json_object_set_new(out, "best", by_system(best, spec));
		json_decref(best);
	}
	json_decref(matched);
	return out;
}

static json_t *by_system(json_t *runs, const mt_spec *spec)
{
	static const char *const systems[] = {"baseline", "candidate"};
	json_t *out = json_object();

	for (size_t s = 0; s < 2; s++) {
		json_t **items = calloc(json_array_size(runs) + 1, sizeof(*items)), *r, *sum;
		size_t i, n = 0;
		json_array_foreach(runs, i, r)
			if (strcmp(json_string_value(json_object_get(r, "system")), systems[s]) == 0 &&
			    json_is_object(json_object_get(r, "metrics")) &&
			    !json_is_true(json_object_get(r, "rehearsal"))) {
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
			json_t *topologies = topologies_of(runs, systems[s]);
			unpool(sum, topologies);
			json_decref(topologies);
			json_object_set_new(sum, "devices", mt_runs__real_or_null(system_devices(runs, systems[s], spec)));
			json_object_set_new(sum, "price_hourly",
					    mt_runs__real_or_null(mt_runs__spec_num(spec, systems[s], "price.hourly")));
		}
		json_object_set_new(out, systems[s], sum ? sum : json_null());
	}
	return out;
}

json_t *mt_runs_fastest_missed(json_t *runs, const char *design)
{
	static const char *const systems[] = {"baseline", "candidate"};
	json_t *out = json_array();

	for (size_t s = 0; s < 2; s++) {
		json_t *r, *fastest = NULL;
		double best = NAN;
		size_t i;
		json_array_foreach(runs, i, r) {
			json_t *tp = json_object_get(r, "throughput");
			double v = mt_runs__num(json_object_get(tp, "value"));
			if (strcmp(json_string_value(json_object_get(r, "system")) ?: "", systems[s]) != 0 ||
			    strcmp(json_string_value(json_object_get(r, "design")) ?: "matched", design) != 0 ||
			    json_is_true(json_object_get(r, "rehearsal")) || !isfinite(v))
				continue;
			if (isnan(best) || v > best)
				best = v, fastest = r;
		}
		if (fastest && json_is_false(json_object_get(fastest, "reached")))
			json_array_append_new(out, json_pack("{ss, sO, sf, sO}", "system", systems[s], "run",
							     json_object_get(fastest, "id"), "throughput",
							     best, "unit",
							     json_object_get(json_object_get(fastest, "throughput"),
									     "unit")));
	}
	return out;
}
