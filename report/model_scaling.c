/* The report model's Scaling section: each system's figures per topology
 * (trial/scaling_trial.h), formatted for the templates, with the raw
 * numbers the charts draw. */
#include "model_int.h"
#include "scaling_trial.h"
#include "error.h"

#include <string.h>

static json_t *hours_fig(double seconds)
{
	return fig_of(seconds, 1.0 / 3600);
}

static json_t *pct(double share)
{
	return fig_of(share, 100);
}

static json_t *row_model(const mt_scaling_row *r)
{
	json_t *o = json_pack("{s:I, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "devices",
			      (json_int_t)r->devices, "hosts",
			      r->hosts ? json_integer(r->hosts) : json_null(), "runs", (json_int_t)r->runs,
			      "failures", (json_int_t)r->failures, "median",
			      isfinite(r->median_s) ? duration((int64_t)llround(r->median_s * 1000))
						    : json_null(),
			      "olympic",
			      isfinite(r->olympic_s) ? duration((int64_t)llround(r->olympic_s * 1000))
						     : json_null(),
			      "device_hours", fig_of(r->device_hours, 1), "throughput",
			      fig_of(r->throughput, 1), "per_device", fig_of(r->throughput_per_device, 1),
			      "efficiency", fig_of(r->efficiency, 1), "marginal",
			      fig_of(r->marginal_per_device, 1), "median_hours", hours_fig(r->median_s));

	/* the smallest topology: what the others are measured against */
	json_object_set_new(o, "smallest", json_boolean(r->efficiency_devices == r->devices));
	json_object_set_new(o, "marginal_from",
			    r->marginal_from ? json_integer(r->marginal_from) : json_null());
	json_object_set_new(o, "data_wait_pct", pct(r->data_share));
	json_object_set_new(o, "comm_wait_pct", pct(r->comm_share));
	json_object_set_new(o, "mlperf_minutes",
			    json_boolean(r->basis && strcmp(r->basis, "mlperf_minutes") == 0));
	/* raw, for the charts */
	json_object_set_new(o, "median_s", isfinite(r->median_s) ? json_real(r->median_s) : json_null());
	json_object_set_new(o, "device_hours_value",
			    isfinite(r->device_hours) ? json_real(r->device_hours) : json_null());
	return o;
}

/* One system's rows, or NULL when it has none and no run left out. */
static json_t *system_model(const mt_scaling_trial_result *r, int s, const char *name,
			    int *waits)
{
	json_t *rows = json_array();
	int mlperf = 0;

	for (size_t i = 0; i < r->scaling.n; i++) {
		const mt_scaling_row *row = &r->scaling.rows[i];
		if (strcmp(row->system, name) != 0)
			continue;
		json_array_append_new(rows, row_model(row));
		mlperf |= row->basis && strcmp(row->basis, "mlperf_minutes") == 0;
		*waits |= isfinite(row->data_share) || isfinite(row->comm_share);
	}
	if (!json_array_size(rows) && !r->scaling.unplaced[s]) {
		json_decref(rows);
		return NULL;
	}
	return json_pack("{s:s, s:s?, s:o, s:b, s:b, s:s?, s:o, s:b}", "system", name, "accelerator",
			 *r->accelerator[s] ? r->accelerator[s] : NULL, "rows", rows, "several",
			 json_array_size(rows) > 1, "mlperf_minutes", mlperf, "tradeoff",
			 *r->tradeoff[s] ? r->tradeoff[s] : NULL, "unplaced",
			 r->scaling.unplaced[s] ? json_integer((json_int_t)r->scaling.unplaced[s])
						: json_null(),
			 "ambiguous", r->ambiguous[s] > 0);
}

/* One design's figures, {systems, waits_measured}, or NULL when it has no
 * system to show; *other: the runs of the other design it left out. */
static json_t *design_model(json_t *attempts, const mt_spec *spec, const char *design,
			    size_t *other)
{
	static const char *const names[] = {"baseline", "candidate"};
	mt_scaling_trial_result r;
	json_t *systems;
	int waits = 0;

	*other = 0;
	if (mt_scaling_trial_runs(&r, attempts, spec, design) < 0) {
		mt_error_clear();
		mt_scaling_trial_result_dispose(&r);
		return NULL;
	}
	systems = json_array();
	for (int s = 0; s < 2; s++) {
		json_t *m = system_model(&r, s, names[s], &waits);
		if (m)
			json_array_append_new(systems, m);
	}
	*other = r.other_design[0] + r.other_design[1];
	mt_scaling_trial_result_dispose(&r);
	if (!json_array_size(systems)) {
		json_decref(systems);
		return NULL;
	}
	return json_pack("{s:o, s:b}", "systems", systems, "waits_measured", waits);
}

json_t *mt_model_scaling(json_t *attempts, const mt_spec *spec)
{
	json_t *matched, *best = NULL, *out;
	size_t best_runs, matched_runs;

	if (!attempts)
		return json_null();
	/* the best-recipe runs are another experiment: their own labelled
	 * figures, never pooled with the matched ones */
	matched = design_model(attempts, spec, "matched", &best_runs);
	if (best_runs)
		best = design_model(attempts, spec, "best", &matched_runs);
	if (!matched && !best_runs)
		return json_null();
	if (!matched)
		matched = json_pack("{s:[], s:b}", "systems", "waits_measured", 1);
	if (best)
		json_object_set_new(best, "run_count", json_integer((json_int_t)best_runs));
	out = json_pack("{s:O, s:O, s:o, s:o}", "systems", json_object_get(matched, "systems"),
			"waits_measured", json_object_get(matched, "waits_measured"), "best_runs",
			best_runs ? json_integer((json_int_t)best_runs) : json_null(), "best_recipe",
			best ? best : json_null());
	json_decref(matched);
	return out;
}
