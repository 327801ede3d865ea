#include "scaling_trial.h"
#include "error.h"
#include "journal.h"
#include "runs.h"
#include "runview.h"
#include "topology.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const systems[] = {"baseline", "candidate"};

static int system_index(const char *s)
{
	return !s ? -1 : strcmp(s, systems[0]) == 0 ? 0 : strcmp(s, systems[1]) == 0 ? 1 : -1;
}

/* The run's topology: what its record says (flags, launcher, an MLPerf
 * system description), else trial.yaml's for its system and its devices. */
static void run_topology(mt_topology *topo, const json_t *recorded, const mt_spec *spec,
			 const char *system, int *ambiguous)
{
	mt_topology yaml;

	mt_topology_read(topo, recorded);
	mt_topology_init(&yaml);
	mt_topology_from_spec(&yaml, spec, system, topo->n[MT_TOPO_DEVICES], ambiguous);
	mt_topology_fill(topo, &yaml);
}

/* A flattened run (trial/runview.h) as the scaling figures read it. */
static void read_run(mt_scaling_run *r, mt_topology *topo, const mt_run_view *v,
		     const mt_spec *spec, int *ambiguous)
{
	r->system = v->system;
	run_topology(topo, v->figures.topology, spec, v->system, ambiguous);
	r->devices = topo->n[MT_TOPO_DEVICES];
	r->hosts = topo->n[MT_TOPO_HOSTS];
	r->failed = v->outcome && strcmp(v->outcome, "failed") == 0;
	r->to_target_s = v->time_to_target_s;
	r->run_minutes = v->run_minutes;
	r->throughput = v->throughput;
	r->data_share = v->figures.data_wait_share;
	r->comm_share = v->figures.comm_wait_share;
}

int mt_scaling_trial_runs(mt_scaling_trial_result *out, json_t *runs, const mt_spec *spec,
                          const char *design)
{
	json_t *run;
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	out->design = design && strcmp(design, "best") == 0 ? "best" : "matched";
	out->record = json_incref(runs);
	out->runs = calloc(json_array_size(runs) + 1, sizeof(*out->runs));
	if (!out->runs)
		return mt_error_set(MT_EIO, "out of memory");
	json_array_foreach(runs, i, run) {
		int ambiguous = 0, s;
		mt_topology topo;
		mt_run_view v;
		if (json_is_true(json_object_get(run, "rehearsal")))
			continue; /* a rehearsal tests the pipeline: never evidence */
		if (mt_runview_read(&v, run) < 0)
			mt_error_clear(); /* what was there is read; the rest is unknown */
		if (strcmp(v.design ? v.design : "matched", out->design) != 0) { /* another experiment */
			if ((s = system_index(v.system)) >= 0)
				out->other_design[s]++;
			continue;
		}
		read_run(&out->runs[out->n_runs], &topo, &v, spec, &ambiguous);
		s = system_index(out->runs[out->n_runs].system);
		if (s >= 0 && !*out->accelerator[s] && *topo.accelerator)
			snprintf(out->accelerator[s], sizeof(out->accelerator[s]), "%s", topo.accelerator);
		if (s >= 0 && ambiguous && !out->runs[out->n_runs].devices)
			out->ambiguous[s]++;
		out->n_runs++;
	}
	if ((error = mt_scaling_compute(&out->scaling, out->runs, out->n_runs)) < 0)
		return error;
	for (int s = 0; s < 2; s++) {
		char path[64];
		const char *acc;
		mt_scaling_tradeoff(&out->scaling, systems[s], out->tradeoff[s], sizeof(out->tradeoff[s]));
		snprintf(path, sizeof(path), "systems.%s.accelerator", systems[s]);
		acc = spec ? mt_spec_get(spec, path) : NULL;
		if (acc) /* trial.yaml's name for it wins over a run's record */
			snprintf(out->accelerator[s], sizeof(out->accelerator[s]), "%s", acc);
	}
	return 0;
}

int mt_scaling_trial(mt_scaling_trial_result *out, mt_trial *t)
{
	return mt_scaling_trial_design(out, t, "matched");
}

int mt_scaling_trial_design(mt_scaling_trial_result *out, mt_trial *t, const char *design)
{
	json_t *runs;
	int error;

	memset(out, 0, sizeof(*out));
	if (!(runs = mt_runs_standing(t)))
		return mt_error_last_code() ? mt_error_last_code() : MT_EIO;
	error = mt_scaling_trial_runs(out, runs, t->spec, design);
	json_decref(runs);
	return error;
}

void mt_scaling_trial_result_dispose(mt_scaling_trial_result *r)
{
	mt_scaling_dispose(&r->scaling);
	free(r->runs);
	json_decref(r->record);
	memset(r, 0, sizeof(*r));
}

json_t *mt_scaling_trial_json(const mt_scaling_trial_result *r, const char *system)
{
	json_t *out = json_object();

	for (int s = 0; s < 2; s++) {
		json_t *rows;
		if (system && strcmp(system, systems[s]) != 0)
			continue;
		rows = mt_scaling_json(&r->scaling, systems[s]);
		json_object_set_new(
		    out, systems[s],
		    json_pack("{s:s?, s:o, s:I, s:s?, s:I, s:I, s:b, s:I}", "accelerator",
		              *r->accelerator[s] ? r->accelerator[s] : NULL, "topologies", rows,
		              "topology_count", (json_int_t)json_array_size(rows), "tradeoff",
		              *r->tradeoff[s] ? r->tradeoff[s] : NULL, "runs_without_devices",
		              (json_int_t)r->scaling.unplaced[s], "runs_with_ambiguous_topology",
		              (json_int_t)r->ambiguous[s], "several_topologies",
		              json_array_size(rows) > 1, "other_design_runs",
		              (json_int_t)r->other_design[s]));
	}
	return json_pack("{s:s, s:o}", "design", r->design ? r->design : "matched", "systems", out);
}
