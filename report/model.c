#include "model.h"
#include "journal_view.h"
#include "model_int.h"
#include "compilation.h"
#include "error.h"
#include "tracks.h"
#include "decide.h"
#include "decide_view.h"
#include "opinventory.h"
#include "runs.h"
#include "util.h"
#include "jsonutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Spec fields a go/no-go summary cannot do without; an empty one is listed
 * under "missing" so that no reader mistakes silence for a fact. */
static const struct {
	const char *path;
	const char *why;
} required_facts[] = {
	{"workload.repository", "which code is being moved"},
	{"workload.revision", "the exact revision the trial measures"},
	{"workload.token_unit", "what one counted token is"},
	{"systems.baseline.accelerator", "the current system"},
	{"systems.candidate.accelerator", "the trial system"},
	{"systems.baseline.price.hourly", "cost of the current system"},
	{"systems.candidate.price.hourly", "cost of the trial system"},
	{"quality_target.metric", "the quality target"},
	{"quality_target.threshold", "the quality target's threshold"},
	{"quality_target.direction", "whether lower or higher is better"},
	{"accounting.boundary", "what the cost figures include"},
	{"tracks.optimized.budget_hours", "the optimized track's engineering budget"},
};

static const struct {
	const char *id, *title, *empty_hint;
} steps[] = {
	{"repository", "Repository", "The op inventory appears here once 'mtrial scan' has run."},
	{"ops", "Ops & compatibility", "Each op's status on the target appears here after "
				       "'mtrial probe'."},
	{"correctness", "Correctness", "Tensor and loss-curve comparisons appear here after "
				       "'mtrial check'."},
	{"runs", "Runs & clocks", "Run attempts and their two clocks appear here after "
				  "'mtrial run -- CMD'."},
	{"effort", "Tracks & effort", "Effort intervals and friction notes appear here: "
				      "'mtrial effort start', 'mtrial note TEXT'."},
	{"summary", "Summary", "The go/no-go verdict appears here after 'mtrial decide'."},
};

static json_t *missing_facts(const mt_spec *spec)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < sizeof(required_facts) / sizeof(required_facts[0]); i++) {
		const char *v = spec ? mt_spec_get(spec, required_facts[i].path) : NULL;
		if (!v || !*v)
			json_array_append_new(arr, json_pack("{ss, ss}", "field",
							     required_facts[i].path, "why",
							     required_facts[i].why));
	}
	return arr;
}

/* The summary's tracks as arrays with formatted durations, which templates
 * can iterate over. */
static json_t *effort_tracks(const mt_effort_summary_view *sv)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < sv->ntracks; i++) {
		const mt_effort_track_view *t = &sv->tracks[i];
		json_t *cats = json_array();
		for (size_t k = 0; k < t->ncategories; k++)
			json_array_append_new(
				cats, json_pack("{ss, sI, so}", "category", t->categories[k].category,
						"ms", (json_int_t)t->categories[k].ms, "duration",
						duration(t->categories[k].ms)));
		json_array_append_new(arr, json_pack("{ss, sI, so, so}", "track", t->track, "ms",
						     (json_int_t)t->total_ms, "duration",
						     duration(t->total_ms), "categories", cats));
	}
	return arr;
}

/* Each interval as mt_effort_json writes it, with its duration formatted;
 * the running one also into `running`. */
struct effort_list {
	json_t *intervals, *running;
};

static int effort_interval(const mt_effort *e, void *payload)
{
	struct effort_list *l = payload;
	json_t *iv = mt_effort_json(e);
	int64_t end = e->stopped_ms ? e->stopped_ms : mt_now_ms();

	json_object_set_new(iv, "duration", duration(end - e->started_ms));
	if (!e->stopped_ms) {
		json_decref(l->running);
		l->running = json_incref(iv);
	}
	json_array_append_new(l->intervals, iv);
	return 0;
}

/* The Tracks & effort section; *n the intervals recorded. */
static json_t *effort_model(mt_journal *j, int64_t now_ms, size_t *n)
{
	json_t *summary = mt_journal_effort_summary_json(j, now_ms), *model, *total;
	struct effort_list l = {json_array(), json_null()};
	mt_effort_summary_view sv;

	if (!summary || mt_journal_effort_foreach(j, effort_interval, &l) < 0) {
		json_decref(summary), json_decref(l.intervals), json_decref(l.running);
		return NULL;
	}
	if (mt_effort_summary_view_read(&sv, summary) < 0) {
		mt_effort_summary_view_dispose(&sv);
		json_decref(summary), json_decref(l.intervals), json_decref(l.running);
		return NULL;
	}
	*n = json_array_size(l.intervals);
	total = json_integer(sv.total_ms);
	model = json_pack("{sO, so, so, so, so, so}", "total_ms", total, "total",
			  duration(sv.total_ms), "total_hours", fig(total, 1.0 / 3600000), "tracks",
			  effort_tracks(&sv), "intervals", l.intervals, "running", l.running);
	json_decref(total);
	mt_effort_summary_view_dispose(&sv);
	json_decref(summary);
	return model;
}

/* The Summary step's status: done with a verdict, partial when the verdict
 * is that evidence is missing, empty when there is no decision. */
static const char *summary_status(const mt_decision_view *d)
{
	if (!d->verdict)
		return "empty";
	return strcmp(d->verdict, MT_VERDICT_NOT_ENOUGH_EVIDENCE) == 0 ? "partial" : "done";
}

static json_t *steps_model(size_t intervals, json_t *notes, const mt_spec *spec, json_t *scan,
			   int probed, int checked, int ran, json_t *decision)
{
	json_t *arr = json_array();
	mt_decision_view d;

	if (mt_decide_view_read(&d, decision) < 0)
		mt_error_clear(); /* an error's object: no verdict */
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const char *status = "empty", *verdict = NULL;
		if (strcmp(steps[i].id, "effort") == 0 &&
		    (intervals || json_array_size(notes)))
			status = "partial";
		if (strcmp(steps[i].id, "repository") == 0 && spec &&
		    mt_spec_get(spec, "workload.repository"))
			status = "partial";
		if (strcmp(steps[i].id, "repository") == 0 && !json_is_null(scan))
			status = "done";
		if (strcmp(steps[i].id, "ops") == 0 && probed)
			status = "done";
		if (strcmp(steps[i].id, "correctness") == 0 && checked)
			status = checked > 1 ? "done" : "partial"; /* partial: rehearsals alone */
		if (strcmp(steps[i].id, "runs") == 0 && ran)
			status = "partial"; /* done once clocks and time to quality are known */
		if (strcmp(steps[i].id, "summary") == 0) {
			status = summary_status(&d);
			verdict = d.headline;
		}
		json_array_append_new(arr, json_pack("{ss, ss, ss, ss, ss*}", "id", steps[i].id,
						     "title", steps[i].title, "status", status,
						     "hint", steps[i].empty_hint, "verdict", verdict));
	}
	return arr;
}

/* The records withdrawn with `mtrial rm`, apart: left out of every figure
 * above (the journal's listings filter them), listed with who and why. */
static json_t *with_withdrawn(mt_journal *j, json_t *model)
{
	json_t *w = model ? mt_journal_withdrawals_json(j) : NULL;

	if (model)
		json_object_set_new(model, "withdrawn", w ? w : json_array());
	return model;
}

/* workload.repository as the path it names, when trial.yaml gives it
 * relative (".." from .mtrial/), so that the report names the folder, not
 * ".."; null when it is absolute, a URL, or not given. */
static json_t *resolved_repository(const mt_trial *t)
{
	const char *r = t->spec ? mt_spec_get(t->spec, "workload.repository") : NULL;
	char *abs = r && r[0] != '/' ? mt_trial_repository(t) : NULL;
	json_t *v = abs ? json_string(abs) : json_null();

	free(abs);
	return v ? v : json_null();
}

static json_t *build(mt_trial *t, int64_t now_ms, int with_notes)
{
	char iso[32];
	const char *name = t->spec ? mt_spec_get(t->spec, "name") : NULL;
	json_t *spec = t->spec ? mt_spec_to_json(t->spec) : json_null();
	size_t intervals = 0;
	json_t *effort = effort_model(t->journal, now_ms, &intervals);
	json_t *notes = !effort ? NULL : with_notes ? mt_journal_notes_json(t->journal) : json_array();
	json_t *scan, *probe, *checks, *correctness, *runs, *decision, *attempts;
	int checked;

	if (!effort || !notes) {
		json_decref(spec);
		json_decref(effort);
		return NULL;
	}
	scan = mt_model_probes_scan(t->journal);
	probe = mt_model_probes_probe(t->journal);
	checks = mt_model_checks_list(t->journal, &correctness, &checked);
	runs = mt_model_runs_list(t->journal, t->spec, &attempts);
	decision = mt_model_runs_decision(t, now_ms);
	mt_time_iso(iso, sizeof(iso), now_ms);
	return with_withdrawn(t->journal,
			      json_pack("{s{ss, si}, ss, s{ss, ss?, so}, so, so, so, so, so, so, so, so, so, so, so, so, "
			 "so, so, so, so, so}",
			 "mtrial",
			 "version", MT_VERSION, "journal_schema",
			 mt_journal_schema_version(t->journal), "generated", iso, "trial", "dir",
			 t->dir, "name", name, "repository", resolved_repository(t), "spec", spec, "decision", decision,
			 "effort", effort, "notes", notes,
			 "note_count", json_integer((json_int_t)json_array_size(notes)), "missing",
			 missing_facts(t->spec), "scan", scan, "exact", mt_model_probes_exact(t->journal),
			 "probe", probe, "checks", checks, "correctness", correctness,
			 "costs", mt_model_runs_costs(attempts, t->spec), "compilation", mt_report_compilation(t, runs),
			 "scaling", mt_model_scaling(attempts, t->spec),
			 "runs", runs,
			 "tracks", mt_model_probes_tracks(t, now_ms), "steps",
			 steps_model(intervals, notes, t->spec, scan, !json_is_null(probe),
				     checked, !json_is_null(runs), decision)));
}

json_t *mt_report_model(mt_trial *t, int64_t now_ms)
{
	return build(t, now_ms, 1);
}

json_t *mt_report_model_without_notes(mt_trial *t, int64_t now_ms)
{
	return build(t, now_ms, 0);
}
