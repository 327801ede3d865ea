/* The criteria judged from the other records (decide.h): correctness from
 * the checks, ops from the latest probe, effort from the timed hours, and
 * the team's own judgement. */
#include "decide_int.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- correctness ------------------------------------------------------------ */

/* The latest check of each (kind, reference, candidate) that is evidence:
 * checks come newest first, so the first of a pair wins; rehearsals are
 * left out (a rehearsal recorded after a real check does not hide it).
 * New reference. */
static int check_rehearsal(json_t *ch)
{
	return json_is_true(json_object_get(ch, "rehearsal"));
}

static json_t *latest_checks(json_t *checks)
{
	json_t *seen = json_object(), *out = json_array(), *ch;
	size_t i;
	json_array_foreach(checks, i, ch) {
		char *key = NULL;
		if (check_rehearsal(ch))
			continue;
		if (asprintf(&key, "%s\x1f%s\x1f%s", mt_dc_str(ch, "kind") ?: "", mt_dc_str(ch, "reference") ?: "",
			     mt_dc_str(ch, "candidate") ?: "") < 0)
			continue;
		if (!json_object_get(seen, key)) {
			json_object_set_new(seen, key, json_true());
			json_array_append(out, ch);
		}
		free(key);
	}
	json_decref(seen);
	return out;
}

/* A check whose two sides are runs of one system (baseline against baseline):
 * a run-to-run spread, not the candidate system against the baseline. A
 * side whose system is not known (a file) is taken at the command line's
 * word, as the other system. */
static int check_of_one_system(json_t *ch)
{
	return mt_dc_streq(mt_dc_str(ch, "reference_system"), mt_dc_str(ch, "candidate_system"));
}

static void put_check(mt_buf *b, json_t *ch)
{
	mt_buf_printf(b, "%s#%lld %s %s vs %s", b->len ? "; " : "",
		      (long long)json_integer_value(json_object_get(ch, "id")), mt_dc_str(ch, "kind") ?: "?",
		      mt_dc_str(ch, "reference") ?: "?", mt_dc_str(ch, "candidate") ?: "?");
}

/* The rehearsal checks, oldest first ("#2, #5"); how many. */
static size_t rehearsal_checks(json_t *checks, mt_buf *b)
{
	size_t i = json_array_size(checks), n = 0;
	while (i-- > 0) {
		json_t *ch = json_array_get(checks, i);
		if (check_rehearsal(ch))
			mt_buf_printf(b, "%s#%lld", n++ ? ", " : "",
				      (long long)json_integer_value(json_object_get(ch, "id")));
	}
	return n;
}

/* mt_dc_need() for a comparison of the two systems: when rehearsal checks are
 * recorded, says that a real comparison is needed and how many were left
 * out. */
static void need_comparison(json_t *c, size_t nrehearsals)
{
	mt_buf b = MT_BUF_INIT;

	mt_buf_puts(&b, "tensors or loss curves of both systems compared");
	if (nrehearsals)
		mt_buf_printf(&b, ": a real comparison, not a rehearsal (%zu rehearsal check(s) left "
			      "out: they compared stand-ins and are not evidence)", nrehearsals);
	mt_dc_need(c, mt_buf_cstr(&b), "mtrial check compare REF CAND (or mtrial check curves A B)");
	mt_buf_dispose(&b);
}

/* Appends to c's evidence the checks of one system against itself, and why
 * they are not counted. */
static void one_system_note(json_t *c, size_t n, const mt_buf *which)
{
	mt_buf note = MT_BUF_INIT;
	const char *ev = mt_dc_str(c, "evidence");

	mt_buf_printf(&note, "%s%s%zu check%s of a system against itself not counted (%s): "
		      "two runs of one system measure its run-to-run spread, not the candidate "
		      "system against the baseline", ev ? ev : "", ev && *ev ? "; " : "", n,
		      n > 1 ? "s" : "", mt_buf_cstr(which));
	json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&note)));
	mt_buf_dispose(&note);
}

void mt_dc_judge_correctness(struct ctx *x, json_t *c, double threshold)
{
	json_t *latest = latest_checks(json_object_get(x->ev, "checks")), *ch;
	mt_buf failed = MT_BUF_INIT, ids = MT_BUF_INIT, est = MT_BUF_INIT, rh = MT_BUF_INIT;
	mt_buf self = MT_BUF_INIT;
	size_t i, systems = 0, nfailed = 0, nest = 0, nself = 0;
	size_t nrh = rehearsal_checks(json_object_get(x->ev, "checks"), &rh);

	json_array_foreach(latest, i, ch) {
		int model = mt_dc_streq(mt_dc_str(ch, "kind"), "model"), pass = json_is_true(json_object_get(ch, "passed"));
		if (check_of_one_system(ch)) {
			nself++, put_check(&self, ch);
			continue;
		}
		mt_buf_printf(&ids, "%s#%lld", ids.len ? ", " : "checks ",
			      (long long)json_integer_value(json_object_get(ch, "id")));
		systems += !model;
		if (!pass && model)
			nest++, put_check(&est, ch);
		else if (!pass)
			nfailed++, put_check(&failed, ch);
	}
	if (ids.len)
		mt_buf_puts(&ids, " (mtrial check list)");
	mt_dc_source(c, ids.len ? mt_buf_cstr(&ids)
		   : nself ? "only checks of a system against itself recorded (mtrial check list)"
		   : nrh   ? "only rehearsal checks recorded (mtrial check list)"
			   : "no checks recorded (mtrial check list)");
	if (nfailed) {
		mt_dc_judge(c, "not_met", (double)nfailed, "%zu of %zu comparisons of the two systems failed "
		      "(the latest of each pair): %s", nfailed, systems, mt_buf_cstr(&failed));
	} else if (!systems) {
		mt_dc_judge(c, "unknown", NAN, "%s", json_array_size(latest) > nself
			   ? "only CPU estimates of a number format (check model) are recorded: "
			     "nothing compares the candidate system with the baseline"
			   : nself ? "only checks of a system against itself are recorded: "
				     "nothing compares the candidate system with the baseline"
			   : nrh ? "only rehearsal checks are recorded: they compared stand-ins, "
				   "not the candidate system with the baseline"
				 : "no correctness check is recorded");
		need_comparison(c, nrh);
	} else {
		mt_dc_judge(c, "met", 0, "all %zu comparisons of the two systems passed under their "
		      "tolerances (the latest of each pair)", systems);
		if (nest)
			mt_dc_condition(c, "the number-format estimate failed: %s", mt_buf_cstr(&est));
	}
	if (nself) /* listed, and why they do not count */
		one_system_note(c, nself, &self);
	if (nrh) { /* said, so that a reader sees they were not overlooked */
		mt_buf note = MT_BUF_INIT;
		mt_buf_printf(&note, "%s; rehearsal check%s %s left out: not evidence",
			      mt_dc_str(c, "evidence"), nrh > 1 ? "s" : "", mt_buf_cstr(&rh));
		json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&note)));
		mt_buf_dispose(&note);
	}
	if (isfinite(threshold)) { /* said where it is read, not left to look applied */
		mt_buf note = MT_BUF_INIT;
		mt_buf_printf(&note, "%s; the threshold %g is not applied: each check's own "
			      "tolerances decide (trial.yaml tolerances, or its --rtol/--atol)",
			      mt_dc_str(c, "evidence"), threshold);
		json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&note)));
		mt_buf_dispose(&note);
	}
	mt_buf_dispose(&failed);
	mt_buf_dispose(&ids);
	mt_buf_dispose(&est);
	mt_buf_dispose(&rh);
	mt_buf_dispose(&self);
	json_decref(latest);
}

/* ---- ops ---------------------------------------------------------------------- */

/* The probe's ops by what the decision asks of them. */
struct op_counts {
	size_t unsupported, cpu_fallback, partial, unknown, overridden;
	mt_buf unsup, fallback, part, unk, over;
};

/* Lists at most this many ops in a sentence; the rest are counted. */
#define OPS_NAMED 5

static void name_op(mt_buf *b, size_t n, json_t *op, int with_source)
{
	if (n > OPS_NAMED)
		return;
	if (n == OPS_NAMED) {
		mt_buf_puts(b, ", ...");
		return;
	}
	mt_buf_printf(b, "%s%s", n ? ", " : "", mt_dc_str(op, "op") ?: "?");
	if (with_source)
		mt_buf_printf(b, " (%s: %s)", mt_dc_str(op, "status") ?: "?", mt_dc_str(op, "source") ?: "?");
	else if (json_string_value(json_array_get(json_object_get(op, "conditions"), 0)))
		mt_buf_printf(b, " (%s)", json_string_value(json_array_get(json_object_get(op, "conditions"), 0)));
}

static void count_ops(struct op_counts *k, json_t *ops)
{
	json_t *op;
	size_t i;

	memset(k, 0, sizeof(*k));
	json_array_foreach(ops, i, op) {
		const char *st = mt_dc_str(op, "status") ?: "unknown", *src = mt_dc_str(op, "source") ?: "";
		if (strncmp(src, "override:", 9) == 0)
			name_op(&k->over, k->overridden++, op, 1);
		if (strcmp(st, "unsupported") == 0)
			name_op(&k->unsup, k->unsupported++, op, 0);
		else if (strcmp(st, "cpu_fallback") == 0)
			name_op(&k->fallback, k->cpu_fallback++, op, 0);
		else if (strcmp(st, "partial") == 0)
			name_op(&k->part, k->partial++, op, 0);
		else if (strcmp(st, "unknown") == 0)
			name_op(&k->unk, k->unknown++, op, 0);
	}
}

static void op_counts_dispose(struct op_counts *k)
{
	mt_buf_dispose(&k->unsup);
	mt_buf_dispose(&k->fallback);
	mt_buf_dispose(&k->part);
	mt_buf_dispose(&k->unk);
	mt_buf_dispose(&k->over);
}

/* "probe #4 (table NAME VERSION, retrieved DATE; from a scan)". */
static void probe_source(json_t *c, json_t *probe)
{
	json_t *t = json_object_get(probe, "table");
	mt_buf b = MT_BUF_INIT;
	mt_buf_printf(&b, "probe #%lld (table %s %s, retrieved %s; ops from the %s)",
		      (long long)json_integer_value(json_object_get(probe, "id")), mt_dc_str(t, "name") ?: "?",
		      mt_dc_str(t, "version") ?: "?", mt_dc_str(t, "retrieved") ?: "?",
		      mt_dc_str(json_object_get(probe, "from"), "source") ?: "scan");
	mt_dc_source(c, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

static void ops_conditions(json_t *c, struct op_counts *k, double threshold)
{
	if (k->overridden)
		mt_dc_condition(c, "%zu op(s) rest on the team's overrides, which must hold on the "
			  "versions deployed: %s", k->overridden, mt_buf_cstr(&k->over));
	if (k->partial)
		mt_dc_condition(c, "%zu op(s) are supported only partially (their conditions must hold): %s",
			  k->partial, mt_buf_cstr(&k->part));
	if (k->cpu_fallback)
		mt_dc_condition(c, "%zu op(s) fall back to the CPU%s: %s", k->cpu_fallback,
			  isfinite(threshold) ? " (within the threshold)" : "", mt_buf_cstr(&k->fallback));
}

/* Ends the evidence with the table the ops were judged against and why
 * that one. */
static void table_said(struct ctx *x, json_t *c)
{
	const char *set = mt_spec_get(x->spec, "probe.table");
	mt_buf b = MT_BUF_INIT;

	mt_buf_printf(&b, "%s; judged against table %s (%s)", mt_dc_str(c, "evidence") ?: "",
		      mt_decide_table(x->spec), set && *set ? "trial.yaml probe.table"
						      : "mtrial probe's default: trial.yaml sets no probe.table");
	json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&b)));
	mt_buf_dispose(&b);
}

/* Says in the source that a later probe used another table and was left
 * out: the decision judges against the trial's table only. */
static void other_probe_note(json_t *c, json_t *other)
{
	mt_buf b = MT_BUF_INIT;

	mt_buf_printf(&b, "%s; probe #%lld (table %s) left out: not the trial's table",
		      mt_dc_str(c, "source") ?: "", (long long)json_integer_value(json_object_get(other, "id")),
		      mt_dc_str(other, "table") ?: "?");
	mt_dc_source(c, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

/* The APIs of a status (unsupported, unknown) a probe against an
 * API-keyed table found that dispatch no aten op of their own
 * (torch.onnx.export): the op counts never see them. Their names into b
 * (at most OPS_NAMED); how many. */
static size_t apis_without_op(json_t *probe, const char *status, mt_buf *b)
{
	json_t *a;
	size_t i, n = 0;

	json_array_foreach(json_object_get(probe, "apis"), i, a)
		if (mt_dc_streq(mt_dc_str(a, "status"), status) && !mt_dc_str(a, "op")) {
			if (n < OPS_NAMED)
				mt_buf_printf(b, "%s%s (%s)", n ? ", " : "", mt_dc_str(a, "api") ?: "?",
					      mt_dc_str(a, "source") ?: "?");
			n++;
		}
	if (n > OPS_NAMED)
		mt_buf_printf(b, " and %zu more", n - OPS_NAMED);
	return n;
}

/* Unknown: k->unknown ops and nunk APIs without an op of their own (named
 * in unk_apis) have no known status on the candidate. */
static void unknown_ops(json_t *c, struct op_counts *k, size_t total, size_t nunk,
			const mt_buf *unk_apis, double threshold)
{
	mt_buf b = MT_BUF_INIT;

	if (k->unknown)
		mt_buf_printf(&b, "%zu of %zu ops have no known status on the candidate: %s",
			      k->unknown, total, mt_buf_cstr(&k->unk));
	if (nunk)
		mt_buf_printf(&b, "%s%zu API(s) that run no aten op of their own have no known "
			      "status: %s", k->unknown ? "; and " : "", nunk, mt_buf_cstr(unk_apis));
	mt_dc_judge(c, "unknown", isfinite(threshold) ? (double)k->cpu_fallback : NAN, "%s",
	      mt_buf_cstr(&b));
	mt_dc_need(c, "how the ops and APIs of unknown status run on the candidate",
	     "mtrial tables import FILE (the target's table), mtrial override OP|API STATUS "
	     "--note TEXT, or mtrial probe --observed ANALYZE.json");
	mt_buf_dispose(&b);
}

void mt_dc_judge_ops(struct ctx *x, json_t *c, double threshold)
{
	json_t *probe = json_object_get(x->ev, "probe");
	struct op_counts k;
	size_t total = json_array_size(json_object_get(probe, "ops"));

	json_t *other = json_object_get(x->ev, "probe_other");
	mt_buf apis = MT_BUF_INIT, unk_apis = MT_BUF_INIT;
	size_t napis, nunk;
	char what[160];

	if (!json_is_object(probe) && !json_is_object(other)) {
		mt_dc_source(c, "no probe recorded");
		mt_dc_judge(c, "unknown", NAN, "the op inventory has not been probed against a "
		      "compatibility table");
		mt_dc_need(c, "a probe of the op inventory", "mtrial scan, then mtrial probe");
		return;
	}
	if (!json_is_object(probe)) { /* only against other tables: none decides */
		mt_dc_source(c, "no probe against the trial's table recorded");
		other_probe_note(c, other);
		mt_dc_judge(c, "unknown", NAN, "the op inventory has not been probed against the trial's "
		      "table %s", mt_decide_table(x->spec));
		snprintf(what, sizeof(what), "a probe of the op inventory against %s", mt_decide_table(x->spec));
		mt_dc_need(c, what, "mtrial probe (its table: trial.yaml probe.table)");
		return;
	}
	probe_source(c, probe);
	if (json_is_object(other))
		other_probe_note(c, other);
	count_ops(&k, json_object_get(probe, "ops"));
	napis = apis_without_op(probe, "unsupported", &apis);
	nunk = apis_without_op(probe, "unknown", &unk_apis);
	if (k.unsupported || napis) {
		mt_buf b = MT_BUF_INIT;
		if (k.unsupported)
			mt_buf_printf(&b, "%zu of %zu ops are unsupported on the candidate with no "
				      "workaround recorded: %s", k.unsupported, total, mt_buf_cstr(&k.unsup));
		if (napis)
			mt_buf_printf(&b, "%s%zu API(s) that run no aten op of their own are unsupported: %s",
				      k.unsupported ? "; and " : "", napis, mt_buf_cstr(&apis));
		mt_dc_judge(c, "not_met", (double)(k.unsupported + napis), "%s", mt_buf_cstr(&b));
		mt_buf_dispose(&b);
	} else if (isfinite(threshold) && (double)k.cpu_fallback > threshold) {
		mt_dc_judge(c, "not_met", (double)k.cpu_fallback, "%zu of %zu ops fall back to the CPU "
		      "(threshold %g): %s", k.cpu_fallback, total, threshold, mt_buf_cstr(&k.fallback));
	} else if (k.unknown || nunk) {
		/* unknown is never counted to look small: an API that runs no
		 * op of its own is as open a question as an op */
		unknown_ops(c, &k, total, nunk, &unk_apis, threshold);
	} else {
		mt_dc_judge(c, "met", isfinite(threshold) ? (double)k.cpu_fallback : 0,
		      "none of the %zu ops is unsupported; %zu fall back to the CPU%s, %zu partial, "
		      "%zu rest on overrides", total, k.cpu_fallback,
		      isfinite(threshold) ? " (threshold allows it)" : "", k.partial, k.overridden);
		ops_conditions(c, &k, threshold);
	}
	table_said(x, c);
	op_counts_dispose(&k);
	mt_buf_dispose(&apis);
	mt_buf_dispose(&unk_apis);
}

/* ---- effort ------------------------------------------------------------------- */

void mt_dc_judge_effort(struct ctx *x, json_t *c, double threshold)
{
	json_t *effort = json_object_get(x->ev, "effort"), *tr;
	double budget = mt_dc_spec_num(x->spec, "tracks.optimized.budget_hours");
	double hours = (double)json_integer_value(json_object_get(effort, "total_ms")) / 3600000.0;
	double opt = (double)json_integer_value(json_object_get(
			     json_object_get(json_object_get(effort, "by_track"), "optimized"), "total_ms")) /
		     3600000.0;
	mt_buf b = MT_BUF_INIT;
	const char *name;

	mt_dc_source(c, "effort intervals in the journal (mtrial effort log); trial.yaml "
		  "tracks.optimized.budget_hours");
	if (!isfinite(threshold))
		threshold = budget;
	if (mt_dc_lacks_threshold(x, c, threshold))
		return;
	json_object_set_new(c, "threshold", json_real(threshold));
	if (hours <= 0) {
		mt_dc_judge(c, "unknown", NAN, "no engineering time is recorded");
		mt_dc_need(c, "the engineering time spent on each track",
		     "mtrial effort start/stop, or mtrial effort add --duration 2h --track T");
		return;
	}
	json_object_foreach(json_object_get(effort, "by_track"), name, tr)
		mt_buf_printf(&b, "%s%s %.1f h", b.len ? ", " : "", name,
			      (double)json_integer_value(json_object_get(tr, "total_ms")) / 3600000.0);
	mt_dc_judge(c, hours <= threshold ? "met" : "not_met", hours, "%.1f h timed (%s) %s %g h%s", hours,
	      mt_buf_cstr(&b), hours <= threshold ? "<=" : ">", threshold,
	      json_is_true(json_object_get(x->ev, "effort_running"))
		      ? "; a timer is still running, counted up to now" : "");
	if (isfinite(budget) && opt > budget)
		mt_dc_caveat(x, "the optimized track took %.1f h, over its budget of %g h", opt, budget);
	mt_buf_dispose(&b);
}

/* ---- custom: the team's own judgement ---------------------------------------- */

void mt_dc_judge_custom(struct ctx *x, json_t *c, double threshold)
{
	char path[64], what[64];
	const char *j, *e;

	(void)threshold;
	snprintf(path, sizeof(path), "criteria.%zu.judgement", x->index);
	j = mt_spec_get(x->spec, path);
	snprintf(path, sizeof(path), "criteria.%zu.evidence", x->index);
	e = mt_spec_get(x->spec, path);
	snprintf(path, sizeof(path), "trial.yaml criteria.%zu", x->index);
	mt_dc_source(c, path);
	if (!j || !e) {
		snprintf(what, sizeof(what), "criteria.%zu.judgement and .evidence", x->index);
		mt_dc_judge(c, "unknown", NAN, "a custom criterion is judged by the team, and trial.yaml "
		      "records no judgement with its evidence");
		mt_dc_need(c, what, "edit trial.yaml");
		return;
	}
	mt_dc_judge(c, strcmp(j, "met") == 0 ? "met" : "not_met", NAN, "the team's judgement: %s", e);
}
