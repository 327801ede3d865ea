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
#include "runview.h"
#include "journal_page.h"
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
	int64_t now_ms; /* the model's: a running interval counts up to it */
};

static int effort_interval(const mt_effort *e, void *payload)
{
	struct effort_list *l = payload;
	json_t *iv = mt_effort_json(e);
	int64_t end = e->stopped_ms ? e->stopped_ms : l->now_ms;

	if (!e->stopped_ms) /* mt_effort_json's own clock read a moment later */
		json_object_set_new(iv, "duration_ms", json_integer(end - e->started_ms));
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
	struct effort_list l = {json_array(), json_null(), now_ms};
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

/* What the steps' statuses are worked out from: counts, not the lists. */
struct step_facts {
	int effort; /* an effort interval or a note is recorded */
	int repository, scanned, probed, checked, ran;
	json_t *decision; /* NULL: not worked out yet (the Summary's status unknown) */
};

static const char *step_status(const char *id, const struct step_facts *f,
			       const mt_decision_view *d)
{
	const char *status = "empty";

	if (strcmp(id, "effort") == 0 && f->effort)
		status = "partial";
	if (strcmp(id, "repository") == 0 && f->repository)
		status = "partial";
	if (strcmp(id, "repository") == 0 && f->scanned)
		status = "done";
	if (strcmp(id, "ops") == 0 && f->probed)
		status = "done";
	if (strcmp(id, "correctness") == 0 && f->checked)
		status = f->checked > 1 ? "done" : "partial"; /* partial: rehearsals alone */
	if (strcmp(id, "runs") == 0 && f->ran)
		status = "partial"; /* done once clocks and time to quality are known */
	if (strcmp(id, "summary") == 0)
		status = f->decision ? summary_status(d) : "unknown";
	return status;
}

static json_t *steps_model(const struct step_facts *f)
{
	json_t *arr = json_array();
	mt_decision_view d;

	if (mt_decide_view_read(&d, f->decision) < 0)
		mt_error_clear(); /* an error's object: no verdict */
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const char *verdict = strcmp(steps[i].id, "summary") == 0 ? d.headline : NULL;
		json_array_append_new(arr, json_pack("{ss, ss, ss, ss, ss*}", "id", steps[i].id,
						     "title", steps[i].title, "status",
						     step_status(steps[i].id, f, &d), "hint",
						     steps[i].empty_hint, "verdict", verdict));
	}
	return arr;
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

/* --- the sections, each built when first asked for -------------------------- */

enum part_id {
	P_MTRIAL, P_GENERATED, P_TRIAL, P_SPEC, P_DECISION, P_EFFORT, P_NOTES, P_NOTE_COUNT,
	P_MISSING, P_SCAN, P_EXACT, P_PROBE, P_CHECKS, P_CORRECTNESS, P_COSTS, P_COMPILATION,
	P_SCALING, P_RUNS, P_TRACKS, P_STEPS, P_WITHDRAWN, P_RECORD, NPARTS
};

struct mt_report_parts {
	mt_trial *t;
	int64_t now_ms;
	unsigned flags;
	json_t *v[NPARTS];  /* owned; NULL: not built */
	size_t intervals;   /* with P_EFFORT */
	int checked;        /* with P_CHECKS */
	mt_run_view *attempts; /* with P_RUNS: the evidence, borrowing from it */
	size_t nattempts;
};

static json_t *part(mt_report_parts *p, enum part_id id);

static json_t *part_mtrial(mt_report_parts *p)
{
	return json_pack("{ss, si}", "version", MT_VERSION, "journal_schema",
			 mt_journal_schema_version(p->t->journal));
}

static json_t *part_generated(mt_report_parts *p)
{
	char iso[32];

	mt_time_iso(iso, sizeof(iso), p->now_ms);
	return json_string(iso);
}

static json_t *part_trial(mt_report_parts *p)
{
	const char *name = p->t->spec ? mt_spec_get(p->t->spec, "name") : NULL;

	return json_pack("{ss, ss?, so}", "dir", p->t->dir, "name", name, "repository",
			 resolved_repository(p->t));
}

static json_t *part_spec(mt_report_parts *p)
{
	return p->t->spec ? mt_spec_to_json(p->t->spec) : json_null();
}

static json_t *part_decision(mt_report_parts *p)
{
	return mt_model_runs_decision(p->t, p->now_ms);
}

static json_t *part_effort(mt_report_parts *p)
{
	return effort_model(p->t->journal, p->now_ms, &p->intervals);
}

static json_t *part_notes(mt_report_parts *p)
{
	return mt_journal_notes_json(p->t->journal);
}

/* The notes' number: of the list when it is built, else counted by SQL. */
static json_t *part_note_count(mt_report_parts *p)
{
	size_t n = 0;

	if (p->v[P_NOTES])
		return json_integer((json_int_t)json_array_size(p->v[P_NOTES]));
	return mt_journal_note_count(p->t->journal, 0, &n) < 0 ? NULL : json_integer((json_int_t)n);
}

static json_t *part_missing(mt_report_parts *p)
{
	return missing_facts(p->t->spec);
}

static json_t *part_scan(mt_report_parts *p)
{
	return mt_model_probes_scan(p->t->journal);
}

static json_t *part_exact(mt_report_parts *p)
{
	return mt_model_probes_exact(p->t->journal);
}

static json_t *part_probe(mt_report_parts *p)
{
	return mt_model_probes_probe(p->t->journal);
}

/* The checks and, with them, the Correctness section. */
static json_t *part_checks(mt_report_parts *p)
{
	return mt_model_checks_list(p->t->journal, &p->v[P_CORRECTNESS], &p->checked);
}

/* The runs section and, read from it, the attempts that are evidence. */
static json_t *part_runs(mt_report_parts *p)
{
	json_t *attempts = NULL, *runs = mt_model_runs_list(p->t, &attempts);
	size_t n = json_array_size(attempts);

	p->attempts = n ? calloc(n, sizeof(*p->attempts)) : NULL;
	if (n && !p->attempts)
		abort();
	for (size_t i = 0; i < n; i++)
		(void)mt_runview_read(&p->attempts[i], json_array_get(attempts, i));
	mt_error_clear(); /* an older record's absent keys read as unknown */
	p->nattempts = n;
	p->v[P_COSTS] = runs ? mt_model_runs_costs(attempts, p->t->spec) : NULL;
	p->v[P_SCALING] = runs ? mt_model_scaling(attempts, p->t->spec) : NULL;
	return runs;
}

static json_t *part_compilation(mt_report_parts *p)
{
	if (!part(p, P_RUNS))
		return NULL;
	return mt_report_compilation(p->t, p->attempts, p->nattempts);
}

static json_t *part_tracks(mt_report_parts *p)
{
	return mt_model_probes_tracks(p->t, p->now_ms);
}

/* Whether the journal holds a `kind` ("note", "effort", "run", "scan",
 * "probe"): of the part when it is built, else asked of the journal (one
 * row read). A journal that cannot be read holds none, as its listings
 * would say. */
static int any(mt_report_parts *p, const char *kind, enum part_id id)
{
	int has = 0;

	if (p->v[id] && (id == P_RUNS || id == P_SCAN || id == P_PROBE))
		return !json_is_null(p->v[id]);
	if (p->v[id])
		return id == P_EFFORT ? p->intervals > 0 : json_array_size(p->v[id]) > 0;
	if (mt_journal_has(p->t->journal, kind, &has) < 0)
		mt_error_clear();
	return has;
}

static json_t *part_steps(mt_report_parts *p)
{
	struct step_facts f = {0};
	const mt_spec *spec = p->t->spec;

	if (!part(p, P_CHECKS))
		return NULL;
	f.effort = any(p, "effort", P_EFFORT) || any(p, "note", P_NOTES);
	f.repository = spec && mt_spec_get(spec, "workload.repository");
	/* asked of the journal unless built: a probe of a large repository is
	 * megabytes to read for a yes */
	f.scanned = any(p, "scan", P_SCAN);
	f.probed = any(p, "probe", P_PROBE);
	f.checked = p->checked;
	f.ran = any(p, "run", P_RUNS);
	f.decision = p->flags & MT_REPORT_PARTS_DEFER_DECISION ? p->v[P_DECISION]
								: part(p, P_DECISION);
	return steps_model(&f);
}

/* The records withdrawn with `mtrial rm`, apart: left out of every figure
 * above (the journal's listings filter them), listed with who and why. */
static json_t *part_withdrawn(mt_report_parts *p)
{
	json_t *w = mt_journal_withdrawals_json(p->t->journal);

	mt_error_clear(); /* unreadable: listed as none, as before */
	return w ? w : json_array();
}

/* The report names this many refused lines, then counts the rest. */
#define REPORT_REFUSED 10

/* What the record is made of (issue 19): events, writers, the lines of
 * events files refused and the artefacts missing, said where the figures
 * above stop: a record that lost nothing says so too. */
static json_t *part_record(mt_report_parts *p)
{
	mt_record_summary s;
	json_t *refused = json_array(), *missing = json_array(), *v = NULL;
	char at[200];

	if (mt_journal_record_summary(p->t->journal, REPORT_REFUSED, &s) == 0) {
		for (size_t i = 0; i < s.nfirst; i++) {
			snprintf(at, sizeof(at), "%s:%lld", s.first[i].file, (long long)s.first[i].line);
			json_array_append_new(refused, json_pack("{ss, ss}", "at", at, "why",
								 s.first[i].reason));
		}
		for (size_t i = 0; i < s.nmissing; i++)
			json_array_append_new(missing, json_pack("{ss, ss, ss?}", "object",
								 s.missing[i].ref, "what",
								 s.missing[i].what, "event",
								 s.missing[i].uid));
		v = json_pack("{sI, sI, sI, sO, so, sO}", "events", (json_int_t)s.events, "writers",
			      (json_int_t)s.writers, "refused_count", (json_int_t)s.refused,
			      "refused", refused, "refused_more",
			      s.refused > (int64_t)s.nfirst
				      ? json_integer((json_int_t)(s.refused - (int64_t)s.nfirst))
				      : json_null(),
			      "missing_artefacts", missing);
	}
	mt_record_summary_dispose(&s);
	json_decref(refused);
	json_decref(missing);
	mt_error_clear(); /* an index that cannot say: the part is left out */
	return v ? v : json_null();
}

static const struct {
	const char *key;
	json_t *(*build)(mt_report_parts *p);
} parts[NPARTS] = {
	[P_MTRIAL] = {"mtrial", part_mtrial},
	[P_GENERATED] = {"generated", part_generated},
	[P_TRIAL] = {"trial", part_trial},
	[P_SPEC] = {"spec", part_spec},
	[P_DECISION] = {"decision", part_decision},
	[P_EFFORT] = {"effort", part_effort},
	[P_NOTES] = {"notes", part_notes},
	[P_NOTE_COUNT] = {"note_count", part_note_count},
	[P_MISSING] = {"missing", part_missing},
	[P_SCAN] = {"scan", part_scan},
	[P_EXACT] = {"exact", part_exact},
	[P_PROBE] = {"probe", part_probe},
	[P_CHECKS] = {"checks", part_checks},
	[P_CORRECTNESS] = {"correctness", NULL}, /* made with the checks */
	[P_COSTS] = {"costs", NULL},             /* made with the runs */
	[P_COMPILATION] = {"compilation", part_compilation},
	[P_SCALING] = {"scaling", NULL},         /* made with the runs */
	[P_RUNS] = {"runs", part_runs},
	[P_TRACKS] = {"tracks", part_tracks},
	[P_STEPS] = {"steps", part_steps},
	[P_WITHDRAWN] = {"withdrawn", part_withdrawn},
	[P_RECORD] = {"record", part_record},
};

/* The part whose builder makes part id: the checks make the Correctness
 * section, the runs their costs and scaling. */
static enum part_id owner_of(enum part_id id)
{
	if (id == P_CORRECTNESS)
		return P_CHECKS;
	return id == P_COSTS || id == P_SCALING ? P_RUNS : id;
}

/* Builds part id (with its owner) unless it is built. */
static json_t *part(mt_report_parts *p, enum part_id id)
{
	enum part_id owner = owner_of(id);

	if (!p->v[owner])
		p->v[owner] = parts[owner].build(p);
	return p->v[owner] ? p->v[id] : NULL;
}

mt_report_parts *mt_report_parts_new(mt_trial *t, int64_t now_ms, unsigned flags)
{
	mt_report_parts *p = calloc(1, sizeof(*p));

	if (!p)
		abort();
	p->t = t;
	p->now_ms = now_ms;
	p->flags = flags;
	return p;
}

void mt_report_parts_free(mt_report_parts *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < NPARTS; i++)
		json_decref(p->v[i]);
	free(p->attempts);
	free(p);
}

static int part_index(const char *key)
{
	for (int i = 0; i < NPARTS; i++)
		if (strcmp(parts[i].key, key) == 0)
			return i;
	return -1;
}

json_t *mt_report_parts_get(mt_report_parts *p, const char *key)
{
	int i = part_index(key);
	json_t *v;

	if (i < 0) {
		mt_error_set(MT_EINVALID, "the report model has no section '%s'", key);
		return NULL;
	}
	if (!(v = part(p, (enum part_id)i)) && !*mt_error_last())
		mt_error_set(MT_ERROR, "the report's %s could not be built", key);
	return v;
}

void mt_report_parts_drop(mt_report_parts *p, const char *key)
{
	int i = part_index(key);

	if (i < 0 || owner_of((enum part_id)i) != (enum part_id)i)
		return; /* a companion goes with its owner only */
	for (int k = 0; k < NPARTS; k++)
		if (owner_of((enum part_id)k) == (enum part_id)i) {
			json_decref(p->v[k]);
			p->v[k] = NULL;
		}
	if (i == P_RUNS) {
		free(p->attempts);
		p->attempts = NULL;
		p->nattempts = 0;
	}
}

/* Every section in order; without the notes, "notes" empty and
 * "note_count" 0. */
static json_t *whole(mt_trial *t, int64_t now_ms, int with_notes)
{
	mt_report_parts *p = mt_report_parts_new(t, now_ms, 0);
	json_t *model = json_object();

	mt_runs_hold(t); /* the runs read once for every section */
	for (int i = 0; i < NPARTS && model; i++) {
		json_t *v;
		if (!with_notes && (i == P_NOTES || i == P_NOTE_COUNT)) {
			/* left out, not built: the steps still ask the journal */
			json_object_set_new(model, parts[i].key,
					    i == P_NOTES ? json_array() : json_integer(0));
			continue;
		}
		if (!(v = part(p, (enum part_id)i))) {
			json_decref(model);
			model = NULL;
		} else {
			json_object_set(model, parts[i].key, v);
		}
	}
	mt_report_parts_free(p);
	mt_runs_release(t);
	return model;
}

json_t *mt_report_model(mt_trial *t, int64_t now_ms)
{
	return whole(t, now_ms, 1);
}

json_t *mt_report_model_without_notes(mt_trial *t, int64_t now_ms)
{
	return whole(t, now_ms, 0);
}
