/* The go/no-go decision of a trial from its record (decision.h): the
 * evidence in mt_decide_from's shape, each other layer's record read
 * through its typed view. */
#include "decision.h"

#include "check_view.h"
#include "decide.h"
#include "error.h"
#include "journal.h"
#include "probe.h"
#include "runs.h"
#include "util.h"

#include <string.h>

/* The evidence's checks: {id, kind, passed, rehearsal, reference,
 * candidate, and reference_system, candidate_system where known} of each, newest first. New reference, NULL with the error
 * set. */
static json_t *checks_evidence(mt_journal *j)
{
	json_t *rows = mt_journal_checks_json(j, NULL, 0), *out = NULL;
	mt_check_view *v = NULL;
	size_t n = 0;

	if (!rows)
		return NULL;
	if (mt_check_view_read_list(&v, &n, rows) == 0 && (out = json_array()))
		for (size_t i = 0; i < n; i++)
			json_array_append_new(
			    out, json_pack("{sI, ss?, sb, sb, ss?, ss?, ss?, ss?}", "id",
					   (json_int_t)v[i].id, "kind", v[i].kind, "passed",
					   v[i].passed, "rehearsal", v[i].rehearsal, "reference",
					   v[i].reference, "candidate", v[i].candidate,
					   "reference_system", v[i].reference_system,
					   "candidate_system", v[i].candidate_system));
	mt_check_view_free_list(v, n);
	json_decref(rows);
	return out;
}

static json_t *strs_json(const char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* A probe as the decision reads it (decide.h), from its view. */
static json_t *probe_evidence(const mt_probe_view *v, int64_t id, const char *created)
{
	json_t *ops = json_array(), *apis = json_array();

	for (size_t i = 0; i < v->nops; i++) {
		const mt_probe_entry *e = &v->ops[i];
		json_array_append_new(ops, json_pack("{ss?, ss?, ss?, so}", "op", e->name, "status",
						     e->status, "source", e->source, "conditions",
						     strs_json(e->conditions, e->nconditions)));
	}
	for (size_t i = 0; i < v->napis; i++) {
		const mt_probe_entry *e = &v->apis[i];
		json_array_append_new(apis, json_pack("{ss?, ss?, ss?, ss?}", "api", e->name, "op",
						      e->op, "status", e->status, "source",
						      e->source));
	}
	return json_pack("{sI, ss, s{ss?}, s{ss?, ss?, ss?}, so, so}", "id", (json_int_t)id,
			 "created", created, "from", "source", v->from_source, "table", "name",
			 v->table_name, "version", v->table_version, "retrieved",
			 v->table_retrieved, "ops", ops, "apis", apis);
}

/* The latest probe against the trial's table (an exploratory probe against
 * another table does not decide), or null; *other {id, table} when a later
 * probe used another table, else null. */
static json_t *trial_probe(mt_journal *j, const mt_spec *spec, json_t **other)
{
	const char *table = mt_decide_table(spec);
	json_t *p = NULL, *out;
	int64_t id = 0, created = 0, last_id = 0;
	char *last_table = NULL;
	mt_probe_view v;
	char when[32];

	*other = json_null();
	/* the latest probe's table from the index (its result is megabytes) */
	if (mt_journal_probe_latest_table(j, &last_id, &last_table, NULL) == 0 &&
	    (!last_table || strcmp(last_table, table) != 0)) {
		json_decref(*other);
		*other = json_pack("{sI, ss?}", "id", (json_int_t)last_id, "table", last_table);
	}
	free(last_table);
	mt_error_clear();
	if (mt_journal_probe_latest_of(j, table, &p, &id, &created) < 0) {
		mt_error_clear(); /* MT_ENOTFOUND or an unreadable row: no probe to judge */
		return json_null();
	}
	mt_time_iso(when, sizeof(when), created);
	(void)mt_probe_view_read(&v, p);
	mt_error_clear();
	out = probe_evidence(&v, id, when);
	mt_probe_view_dispose(&v);
	json_decref(p);
	return out;
}

json_t *mt_decision_evidence(mt_trial *t, int64_t now_ms)
{
	json_t *runs = mt_runs_standing(t), *checks = NULL, *overrides = NULL;
	json_t *effort = NULL, *other = NULL, *probe;
	mt_effort cur;
	int running;

	if (!runs || !(checks = checks_evidence(t->journal)) ||
	    !(overrides = mt_journal_overrides_json(t->journal)) ||
	    !(effort = mt_journal_effort_summary_json(t->journal, now_ms))) {
		json_decref(runs);
		json_decref(checks);
		json_decref(overrides);
		return NULL;
	}
	running = mt_journal_effort_current(t->journal, &cur) == 0;
	if (running)
		mt_effort_dispose(&cur);
	mt_error_clear();
	probe = trial_probe(t->journal, t->spec, &other);
	return json_pack("{so, so, so, so, so, so, sb}", "runs", runs, "checks", checks, "probe",
			 probe, "probe_other", other, "overrides", overrides, "effort", effort,
			 "effort_running", running);
}

int mt_decision(json_t **out, mt_trial *t, int64_t now_ms)
{
	json_t *ev = mt_decision_evidence(t, now_ms);
	int error;

	*out = NULL;
	if (!ev)
		return mt_error_last_code() ? mt_error_last_code() : MT_EIO;
	error = mt_decide_from(out, t->spec, ev);
	json_decref(ev);
	return error;
}
