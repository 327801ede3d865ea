/* The criteria judged from the run attempts (decide.h): which runs a
 * criterion reads, quality, and time and cost to quality. */
#include "decide_int.h"
#include "error.h"
#include "runs.h"
#include "runview.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- runs: which ones a criterion reads ------------------------------------ */

/* The candidate's tracks in the order a criterion prefers them: the
 * portability track (the code as ported), runs that name no track, then the
 * optimized one (what the engineering budget bought). */
static const char *const track_order[] = {"portability", "", "optimized"};
#define N_TRACKS 3

const char *mt_dc_track_label(const char *t)
{
	return *t ? t : "no track";
}

/* Run r of the evidence read (a key it lacks reads as none, as in the
 * JSON: the evidence of tests holds only what a criterion reads). */
static void view(mt_run_view *v, json_t *r)
{
	(void)mt_runview_read(v, r);
	mt_error_clear();
}

int mt_dc_is_rehearsal(json_t *r)
{
	mt_run_view v;

	view(&v, r);
	return v.rehearsal;
}

/* Runs of `system` (and of `track` when not NULL; "" is no track) whose
 * status is one of `statuses` (NULL: any). Rehearsals are never evidence:
 * left out. New reference. */
json_t *mt_dc_runs_of(json_t *ev, const char *system, const char *track,
		       const char *const *statuses)
{
	json_t *out = json_array(), *r;
	size_t i;
	json_array_foreach(json_object_get(ev, "runs"), i, r) {
		mt_run_view v;
		view(&v, r);
		if (v.rehearsal || !mt_dc_streq(v.system, system) ||
		    (track && strcmp(v.track ?: "", track) != 0))
			continue;
		if (statuses && !mt_str_in(v.status ?: "", statuses))
			continue;
		json_array_append(out, r);
	}
	return out;
}

/* The rehearsals of `system` (NULL: either). New reference. */
json_t *mt_dc_rehearsals_of(json_t *ev, const char *system)
{
	json_t *out = json_array(), *r;
	size_t i;
	json_array_foreach(json_object_get(ev, "runs"), i, r) {
		mt_run_view v;
		view(&v, r);
		if (v.rehearsal && (!system || mt_dc_streq(v.system, system)))
			json_array_append(out, r);
	}
	return out;
}

/* mt_dc_need() for a run of `system`: when only rehearsals of it are recorded,
 * says that a real run is needed and how many rehearsals were left out. */
void mt_dc_need_run(struct ctx *x, json_t *c, const char *system, const char *what,
		     const char *command)
{
	json_t *rh = mt_dc_rehearsals_of(x->ev, system);
	mt_buf b = MT_BUF_INIT;

	mt_buf_puts(&b, what);
	if (json_array_size(rh))
		mt_buf_printf(&b, ": a real run, not a rehearsal (%zu %s rehearsal run(s) left out: "
			      "they test the pipeline and are not evidence)",
			      json_array_size(rh), system);
	mt_dc_need(c, mt_buf_cstr(&b), command);
	mt_buf_dispose(&b);
	json_decref(rh);
}

/* Appends to a run criterion's evidence the rehearsals of `system` (NULL:
 * both) it left out, so that a reader sees they were not overlooked. */
void mt_dc_rehearsals_left_out(struct ctx *x, json_t *c, const char *system)
{
	json_t *rh = mt_dc_rehearsals_of(x->ev, system);
	mt_buf b = MT_BUF_INIT;

	if (json_array_size(rh)) {
		mt_buf_printf(&b, "%s; rehearsal run%s ", mt_dc_str(c, "evidence") ?: "",
			      json_array_size(rh) > 1 ? "s" : "");
		mt_dc_put_ids(&b, rh);
		mt_buf_puts(&b, " left out: not evidence");
		json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&b)));
	}
	mt_buf_dispose(&b);
	json_decref(rh);
}

const char *mt_dc_design(const struct ctx *x)
{
	return x->design ? x->design : "matched";
}

const char *mt_dc_design_command(const struct ctx *x, const char *command)
{
	static const char *const verbs[] = {"mtrial runs import", "mtrial run"};
	static char buf[512];
	size_t n = 0;

	/* a trial of one design (no precision.best, no best run) says nothing
	 * of designs: matched is the default */
	if (strcmp(mt_dc_design(x), "matched") == 0 && !x->other_design &&
	    !mt_runs_has_best(x->spec))
		return command;
	/* the option after each command that records a run */
	for (const char *p = command; *p && n + 1 < sizeof(buf);) {
		size_t k = 0;
		for (; k < 2; k++)
			if (strncmp(p, verbs[k], strlen(verbs[k])) == 0 && p[strlen(verbs[k])] == ' ')
				break;
		if (k == 2) {
			buf[n++] = *p++;
			continue;
		}
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s --design %s", verbs[k],
				      mt_dc_design(x));
		p += strlen(verbs[k]);
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
	}
	buf[n] = '\0';
	return buf;
}

static const char *const finished[] = {"success", NULL};
static const char *const broken[] = {"failed", "aborted", "lost", NULL};

/* Runs of `runs` whose flattened `key` is a number. New reference. */
json_t *mt_dc_with_number(json_t *runs, const char *key)
{
	json_t *out = json_array(), *r;
	size_t i;
	json_array_foreach(runs, i, r)
		if (isfinite(mt_dc_num(json_object_get(r, key))))
			json_array_append(out, r);
	return out;
}

/* The candidate's failed, aborted and lost attempts: a condition on the
 * first run-based criterion that is met. */
void mt_dc_attempts_condition(struct ctx *x, json_t *c)
{
	json_t *all = mt_dc_runs_of(x->ev, "candidate", NULL, NULL);
	json_t *bad = mt_dc_runs_of(x->ev, "candidate", NULL, broken);
	mt_buf b = MT_BUF_INIT;

	if (!x->failures_told && json_array_size(bad)) {
		mt_dc_put_ids(&b, bad);
		mt_dc_condition(c, "%zu of %zu candidate attempts failed, were aborted or lost (runs %s): "
			  "the candidate must run reliably, not only once",
			  json_array_size(bad), json_array_size(all), mt_buf_cstr(&b));
		x->failures_told = 1;
	}
	mt_buf_dispose(&b);
	json_decref(all);
	json_decref(bad);
}

/* ---- quality ---------------------------------------------------------------- */

/* The best evaluation of `metric` in `runs`: *best, its run's id; 0 when none. */
static int best_eval(json_t *runs, const char *metric, int higher, double *best, json_int_t *run_id)
{
	mt_run_eval_view e;
	mt_run_view rv;
	json_t *r;
	size_t i;
	int found = 0;

	json_array_foreach(runs, i, r) {
		view(&rv, r);
		for (size_t k = 0; mt_runview_eval(&e, &rv.figures, k) != MT_ENOTFOUND; k++) {
			double v = e.value;
			if (!mt_dc_streq(e.metric, metric) || !isfinite(v))
				continue;
			if (!found || (higher ? v > *best : v < *best)) {
				*best = v;
				*run_id = rv.id;
			}
			found = 1;
		}
	}
	mt_error_clear();
	return found;
}

struct track_quality {
	int evaluated, reached, finished;
	double best;
	json_int_t run_id;
};

static void track_quality(struct track_quality *q, json_t *ev, const char *track,
			  const char *metric, int higher, double threshold)
{
	json_t *runs = mt_dc_runs_of(ev, "candidate", track, NULL);
	json_t *done = mt_dc_runs_of(ev, "candidate", track, finished);
	double unused;
	json_int_t id;

	memset(q, 0, sizeof(*q));
	q->evaluated = best_eval(runs, metric, higher, &q->best, &q->run_id);
	q->reached = q->evaluated && (higher ? q->best >= threshold : q->best <= threshold);
	q->finished = best_eval(done, metric, higher, &unused, &id);
	json_decref(runs);
	json_decref(done);
}

/* The best evaluation across the tracks that have one. */
static double best_of_tracks(const struct track_quality *q, int higher)
{
	double best = NAN;
	for (int t = 0; t < N_TRACKS; t++)
		if (q[t].evaluated && (isnan(best) || (higher ? q[t].best > best : q[t].best < best)))
			best = q[t].best;
	return best;
}

/* "runs #2, #4 (candidate): evaluations of METRIC; trial.yaml ...". */
static void evaluated_source(struct ctx *x, json_t *c, const char *metric)
{
	json_t *all = mt_dc_runs_of(x->ev, "candidate", NULL, NULL), *with = json_array(), *r;
	mt_buf b = MT_BUF_INIT;
	double best;
	json_int_t id;
	size_t i;

	json_array_foreach(all, i, r) {
		json_t *one = json_pack("[O]", r);
		if (best_eval(one, metric, 0, &best, &id))
			json_array_append(with, r);
		json_decref(one);
	}
	if (json_array_size(with)) {
		mt_buf_puts(&b, "runs ");
		mt_dc_put_ids(&b, with);
		mt_buf_printf(&b, " (candidate): evaluations of %s; trial.yaml quality_target", metric);
		mt_dc_source(c, mt_buf_cstr(&b));
	}
	mt_buf_dispose(&b);
	json_decref(all);
	json_decref(with);
}

/* "; 10 finished candidate runs' logs evaluate eval_accuracy instead" when
 * finished runs never evaluate `metric` (mt_run_outcome's no_metric): not
 * a failure, and not a miss either. Static buffer: used at once. */
static const char *no_metric_note(struct ctx *x, const char *metric)
{
	static char note[300];
	json_t *runs = mt_dc_runs_of(x->ev, "candidate", NULL, finished), *r;
	const char *in_log = NULL;
	size_t i, n = 0;

	json_array_foreach(runs, i, r) {
		mt_run_view v;
		view(&v, r);
		if (mt_dc_streq(v.outcome, "no_metric")) {
			n++;
			in_log = in_log ?: v.figures.target.metrics_in_log;
		}
	}
	note[0] = '\0';
	if (n)
		snprintf(note, sizeof(note), "; %zu finished candidate run(s) never evaluate %s: their "
			 "logs evaluate %s", n, metric, in_log && *in_log ? in_log : "nothing");
	json_decref(runs);
	return note;
}

/* Finished candidate runs that evaluated the metric and never reached the
 * target (outcome missed): a met quality criterion holds only if the
 * candidate reaches it reliably. */
static void missed_condition(struct ctx *x, json_t *c)
{
	json_t *done = mt_dc_runs_of(x->ev, "candidate", NULL, finished), *missed = json_array(), *r;
	mt_buf b = MT_BUF_INIT;
	size_t i;

	json_array_foreach(done, i, r) {
		mt_run_view v;
		view(&v, r);
		if (mt_dc_streq(v.outcome, "missed"))
			json_array_append(missed, r);
	}
	if (json_array_size(missed)) {
		mt_dc_put_ids(&b, missed);
		mt_dc_condition(c, "%zu of %zu finished candidate runs did not reach the target (runs %s)",
			  json_array_size(missed), json_array_size(done), mt_buf_cstr(&b));
	}
	mt_buf_dispose(&b);
	json_decref(done);
	json_decref(missed);
}

void mt_dc_judge_quality(struct ctx *x, json_t *c, double threshold)
{
	const char *metric = mt_spec_get(x->spec, "quality_target.metric");
	const char *dir = mt_spec_get(x->spec, "quality_target.direction");
	struct track_quality q[N_TRACKS];
	json_t *by;
	mt_buf b = MT_BUF_INIT;
	int higher = mt_dc_streq(dir, "higher"), met = -1, seen = 0;

	mt_dc_source(c, "candidate runs' evaluations (mtrial runs); trial.yaml quality_target");
	if (!isfinite(threshold))
		threshold = mt_dc_spec_num(x->spec, "quality_target.threshold");
	if (!metric || !dir || !isfinite(threshold)) {
		mt_dc_judge(c, "unknown", NAN, "trial.yaml does not name the quality target (metric, "
		      "threshold and direction)");
		mt_dc_need(c, "quality_target.metric, .threshold and .direction", "edit trial.yaml");
		return;
	}
	json_object_set_new(c, "threshold", json_real(threshold));
	json_object_set_new(c, "by_track", by = json_object());
	evaluated_source(x, c, metric);
	for (int t = 0; t < N_TRACKS; t++) {
		track_quality(&q[t], x->ev, track_order[t], metric, higher, threshold);
		if (q[t].evaluated) {
			mt_buf_printf(&b, "%s%s %.4g (run #%lld)", seen++ ? ", " : "",
				      mt_dc_track_label(track_order[t]), q[t].best, (long long)q[t].run_id);
			json_object_set_new(by, mt_dc_track_label(track_order[t]),
					    json_pack("{sf, sI, sb}", "best", q[t].best, "run",
						      q[t].run_id, "reached", q[t].reached));
		}
		if (met < 0 && q[t].reached)
			met = t;
	}
	if (met >= 0) {
		json_object_set_new(c, "track", json_string(mt_dc_track_label(track_order[met])));
		/* runs that name no track: "reached by runs of no track", never
		 * "on the no track track" */
		mt_dc_judge(c, "met", q[met].best, "%s %s %.4g reached %s%s%s; best per track: %s",
		      metric, higher ? ">=" : "<=", threshold,
		      *track_order[met] ? "on the " : "by runs of ", mt_dc_track_label(track_order[met]),
		      *track_order[met] ? " track" : "", mt_buf_cstr(&b));
		if (strcmp(track_order[met], "optimized") == 0)
			mt_dc_condition(c, "the target is reached only on the optimized track: the move "
				  "needs that track's changes, not only the port");
		missed_condition(x, c);
		mt_dc_attempts_condition(x, c);
	} else if (q[0].finished || q[1].finished || q[2].finished) {
		mt_dc_judge(c, "not_met", best_of_tracks(q, higher), "%s never %s %.4g in the candidate's finished runs; best "
		      "per track: %s", metric, higher ? ">=" : "<=", threshold, mt_buf_cstr(&b));
	} else {
		mt_dc_judge(c, "unknown", NAN, "%s%s", seen ? "the candidate has not finished a run yet; its "
			   "evaluations so far do not reach the target" : "no candidate run evaluated "
			   "the quality metric", no_metric_note(x, metric));
		mt_dc_need_run(x, c, "candidate", "a finished candidate run that evaluates the quality metric",
			 mt_dc_design_command(x, "mtrial run --system candidate --track portability -- CMD (or mtrial runs import LOG)"));
	}
	mt_buf_dispose(&b);
}

/* ---- time and cost to quality: candidate over baseline ---------------------- */

/* A ratio criterion: which figure of a run, in which unit. */
struct ratio {
	const char *key;  /* the flattened run's figure */
	const char *what; /* as the evidence names it */
	double scale;     /* figure x scale = the unit shown */
	const char *unit;
};

/* Median device-hours to the target over runs that reached it. */
static double device_hours_to_target(json_t *runs)
{
	json_t *tmp = json_array(), *r;
	double m;
	size_t i, n;
	/* inside the accounting boundary (mt_runs_flatten), else from run start */
	json_array_foreach(runs, i, r)
		json_array_append_new(tmp, json_pack("{sf}", "dh",
			json_is_number(json_object_get(r, "device_hours_to_target"))
				? mt_dc_num(json_object_get(r, "device_hours_to_target"))
				: mt_dc_num(json_object_get(r, "devices")) *
					  mt_dc_num(json_object_get(r, "time_to_target_s")) / 3600));
	m = mt_dc_median_of(tmp, "dh", &n);
	json_decref(tmp);
	return m;
}

/* The evidence of both clocks beside the judged one, kept apart: wall-clock
 * to the target from run start and from submission, and device-hours. */
static void other_clocks(mt_buf *b, json_t *c, json_t *cand, json_t *base, const struct ratio *r)
{
	double dc = device_hours_to_target(cand), db = device_hours_to_target(base);
	size_t n;
	double sc = mt_dc_median_of(cand, "time_to_target_from_submission_s", &n);
	double sb = mt_dc_median_of(base, "time_to_target_from_submission_s", &n);

	json_object_set_new(c, "figures", json_pack("{s{so, so, so}, s{so, so, so}}",
		"candidate", "median", mt_dc_real_or_null(mt_dc_median_of(cand, r->key, &n)), "device_hours",
		mt_dc_real_or_null(dc), "from_submission_s", mt_dc_real_or_null(sc), "baseline", "median",
		mt_dc_real_or_null(mt_dc_median_of(base, r->key, &n)), "device_hours", mt_dc_real_or_null(db),
		"from_submission_s", mt_dc_real_or_null(sb)));

	if (strcmp(r->key, "time_to_target_s") != 0) {
		double tc = mt_dc_median_of(cand, "time_to_target_s", &n), tb = mt_dc_median_of(base, "time_to_target_s", &n);
		mt_buf_printf(b, "; turnaround to the target %.3g vs %.3g min (%.2fx)", tc / 60, tb / 60,
			      tc / tb);
	}
	if (isfinite(dc) && isfinite(db))
		mt_buf_printf(b, "; device-hours to the target %.3g vs %.3g (%.2fx, from the attempt's start)", dc, db,
			      dc / db);
	if (isfinite(sc) && isfinite(sb))
		mt_buf_printf(b, "; from submission, compilation included, %.3g vs %.3g min (%.2fx)",
			      sc / 60, sb / 60, sc / sb);
}

/* The candidate's best track for the ratio: *pick the track (index into
 * track_order) whose median over the baseline's is lowest among those
 * within the threshold, else lowest of all; -1 when no track has a figure. */
static int pick_track(json_t *ev, const struct ratio *r, double base, double threshold,
		      double *ratio)
{
	int pick = -1, within = 0;
	for (int t = 0; t < N_TRACKS; t++) {
		json_t *runs = mt_dc_runs_of(ev, "candidate", track_order[t], NULL);
		size_t n;
		double v = mt_dc_median_of(runs, r->key, &n) / base;
		json_decref(runs);
		if (!n)
			continue;
		if (v <= threshold && !within) { /* the preferred order decides among passes */
			pick = t, *ratio = v, within = 1;
		} else if (!within && (pick < 0 || v < *ratio)) {
			pick = t, *ratio = v;
		}
	}
	return pick;
}

/* Time to quality is judged from run start, as MLPerf times a run; the
 * clock from submission adds compilation and start-up. When that clock
 * breaks the threshold the verdict holds only with the compilation left out
 * (a warm cache); when it is not known, a caveat says so. */
static void compile_condition(struct ctx *x, json_t *c, double threshold)
{
	json_t *f = json_object_get(c, "figures");
	double sc = mt_dc_num(json_object_get(json_object_get(f, "candidate"), "from_submission_s"));
	double sb = mt_dc_num(json_object_get(json_object_get(f, "baseline"), "from_submission_s"));

	if (!isfinite(sc) || !isfinite(sb))
		mt_dc_caveat(x, "time to quality counts from run start: the time from submission "
		       "(compilation and start-up) is not known for both systems");
	else if (sc / sb > threshold)
		mt_dc_condition(c, "from submission, compilation included, the candidate takes %.2fx the "
			  "baseline's time (threshold %.2fx): the threshold holds only while "
			  "compilation is left out, e.g. with a warm compile cache", sc / sb, threshold);
}

/* No candidate track with a figure, or no baseline figure: not_met when the
 * candidate's finished runs missed the target, else unknown with what is
 * missing on each side. */
static void no_pair(struct ctx *x, json_t *c, const struct ratio *r, size_t nb)
{
	json_t *base = mt_dc_runs_of(x->ev, "baseline", NULL, NULL);
	json_t *done = mt_dc_runs_of(x->ev, "candidate", NULL, finished), *d;
	json_t *cand = mt_dc_runs_of(x->ev, "candidate", NULL, NULL), *cn = mt_dc_with_number(cand, r->key);
	size_t i, missed = 0;

	json_array_foreach(done, i, d)
		missed += json_is_false(json_object_get(d, "reached"));
	if (missed && !json_array_size(cn)) {
		mt_dc_judge(c, "not_met", NAN, "the candidate's %zu finished run(s) did not reach the "
		      "quality target, so it has no %s", missed, r->what);
	} else if (!json_array_size(cand) || !json_array_size(base)) {
		/* a side with no run of this design at all: the comparison
		 * lacks it, whatever the other design holds */
		int no_cand = !json_array_size(cand), no_base = !json_array_size(base);
		mt_dc_judge(c, "unknown", NAN, "the %s comparison lacks a %s run", mt_dc_design(x),
			    no_cand && no_base ? "baseline and a candidate" : no_cand ? "candidate" : "baseline");
		if (no_base)
			mt_dc_need_run(x, c, "baseline", "a baseline run that reaches the quality target",
				 mt_dc_design_command(x, "mtrial runs import LOG --system baseline (or mtrial run --system baseline -- CMD)"));
		if (no_cand)
			mt_dc_need_run(x, c, "candidate", "a candidate run that reaches the quality target",
				 mt_dc_design_command(x, "mtrial run --system candidate -- CMD (or mtrial runs import LOG --system candidate)"));
	} else {
		mt_dc_judge(c, "unknown", NAN, "%s%s%s", nb ? "" : "no baseline run has a figure to compare with",
		      !nb && !json_array_size(cn) ? "; " : "",
		      json_array_size(cn) ? "" : "no candidate run has reached the quality target yet");
		if (!nb)
			mt_dc_need_run(x, c, "baseline", "a baseline run that reaches the quality target",
				 mt_dc_design_command(x, "mtrial runs import LOG --system baseline (or mtrial run --system baseline -- CMD)"));
		if (!json_array_size(cn))
			mt_dc_need_run(x, c, "candidate", "a candidate run that reaches the quality target",
				 mt_dc_design_command(x, "mtrial run --system candidate -- CMD (or mtrial runs import LOG --system candidate)"));
	}
	json_decref(base);
	json_decref(done);
	json_decref(cand);
	json_decref(cn);
}

/* What a system's attempts with no cost to the target (failed, aborted,
 * short of the target, without its metric) cost in all, inside the same
 * boundary: "; outside the medians, the attempts that did not reach the
 * target cost 0.0012 USD more on the candidate (2) and 0 on the baseline
 * (0)". The medians judge; this keeps the rest of the spend in sight. */
static void spend_outside(mt_buf *b, struct ctx *x, const char *unit)
{
	static const char *const systems[] = {"candidate", "baseline"};
	double sum[2] = {0, 0};
	size_t n[2] = {0, 0};

	for (int s = 0; s < 2; s++) {
		json_t *runs = mt_dc_runs_of(x->ev, systems[s], NULL, NULL), *r;
		size_t i;
		json_array_foreach(runs, i, r)
			if (!json_is_number(json_object_get(r, "cost_to_target")) &&
			    json_is_number(json_object_get(r, "cost")))
				sum[s] += mt_dc_num(json_object_get(r, "cost")), n[s]++;
		json_decref(runs);
	}
	if (n[0] || n[1])
		mt_buf_printf(b, "; outside the medians, the attempts that did not reach the target "
			      "cost %.3g %s more on the candidate (%zu) and %.3g on the baseline (%zu)",
			      sum[0], unit, n[0], sum[1], n[1]);
}

/* A system whose fastest run by throughput missed the target: said in the
 * evidence, since that run never wins a figure to the target. */
static void fastest_missed_note(struct ctx *x, json_t *c)
{
	json_t *missed = mt_runs_fastest_missed(json_object_get(x->ev, "runs"), mt_dc_design(x)), *m;
	mt_buf b = MT_BUF_INIT;
	size_t i;

	mt_buf_puts(&b, mt_dc_str(c, "evidence") ?: "");
	json_array_foreach(missed, i, m)
		mt_buf_printf(&b, "; the %s's fastest run by throughput, #%lld (%.4g %s), missed the "
			      "quality target: it does not enter this figure", mt_dc_str(m, "system"),
			      (long long)json_integer_value(json_object_get(m, "run")),
			      mt_dc_num(json_object_get(m, "throughput")), mt_dc_str(m, "unit") ?: "");
	if (json_array_size(missed))
		json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&b)));
	mt_buf_dispose(&b);
	json_decref(missed);
}

static void judge_ratio_runs(struct ctx *x, json_t *c, double threshold, const struct ratio *r)
{
	json_t *base = mt_dc_runs_of(x->ev, "baseline", NULL, NULL), *bn = mt_dc_with_number(base, r->key);
	json_t *cand = NULL, *cn = NULL;
	mt_buf b = MT_BUF_INIT, src = MT_BUF_INIT;
	size_t nb, nc;
	double mb = mt_dc_median_of(bn, r->key, &nb), ratio = NAN, mc;
	int t = nb ? pick_track(x->ev, r, mb, threshold, &ratio) : -1;

	if (t < 0) {
		no_pair(x, c, r, nb);
		goto cleanup;
	}
	cand = mt_dc_runs_of(x->ev, "candidate", track_order[t], NULL);
	cn = mt_dc_with_number(cand, r->key);
	mc = mt_dc_median_of(cn, r->key, &nc);
	mt_buf_printf(&b, "candidate (%s) median %s %.3g %s over %zu run(s) vs baseline %.3g %s "
		      "over %zu: %.2fx, threshold %.2fx", mt_dc_track_label(track_order[t]), r->what,
		      mc * r->scale, r->unit, nc, mb * r->scale, r->unit, nb, ratio, threshold);
	other_clocks(&b, c, cn, bn, r);
	if (strcmp(r->key, "cost_to_target") == 0)
		spend_outside(&b, x, r->unit);
	mt_buf_puts(&src, "runs ");
	mt_dc_put_ids(&src, cn);
	mt_buf_puts(&src, " (candidate) and ");
	mt_dc_put_ids(&src, bn);
	mt_buf_printf(&src, " (baseline): %s", r->key);
	mt_dc_source(c, mt_buf_cstr(&src));
	json_object_set_new(c, "track", json_string(mt_dc_track_label(track_order[t])));
	mt_dc_judge(c, ratio <= threshold ? "met" : "not_met", ratio, "%s", mt_buf_cstr(&b));
	if (ratio <= threshold && strcmp(track_order[t], "optimized") == 0)
		mt_dc_condition(c, "within the threshold only on the optimized track");
	if (ratio <= threshold && strcmp(r->key, "time_to_target_s") == 0)
		compile_condition(x, c, threshold);
	if (ratio <= threshold)
		mt_dc_attempts_condition(x, c);
cleanup:
	fastest_missed_note(x, c);
	mt_buf_dispose(&b);
	mt_buf_dispose(&src);
	json_decref(base);
	json_decref(bn);
	json_decref(cand);
	json_decref(cn);
}

void mt_dc_judge_time(struct ctx *x, json_t *c, double threshold)
{
	static const struct ratio r = {"time_to_target_s", "time to the target", 1.0 / 60, "min"};
	mt_dc_source(c, "runs of both systems: time_to_target_s");
	if (!mt_dc_lacks_threshold(x, c, threshold))
		judge_ratio_runs(x, c, threshold, &r);
}

void mt_dc_judge_device_hours(struct ctx *x, json_t *c, double threshold)
{
	static const struct ratio r = {"device_hours_to_target", "device-hours to the target", 1,
				       "device-hours"};
	mt_dc_source(c, "runs of both systems: device_hours_to_target");
	if (!mt_dc_lacks_threshold(x, c, threshold))
		judge_ratio_runs(x, c, threshold, &r);
}

void mt_dc_judge_cost(struct ctx *x, json_t *c, double threshold)
{
	static const char *const systems[] = {"baseline", "candidate"};
	const char *cur = mt_spec_get(x->spec, "systems.candidate.price.currency");
	struct ratio r = {"cost_to_target", "cost to the target", 1, cur ? cur : "(currency not named)"};
	int priced = 1;

	mt_dc_source(c, "runs of both systems: cost_to_target; trial.yaml systems.*.price.hourly");
	if (mt_dc_lacks_threshold(x, c, threshold))
		return;
	for (size_t s = 0; s < 2; s++) {
		char path[64];
		snprintf(path, sizeof(path), "systems.%s.price.hourly", systems[s]);
		if (!isfinite(mt_dc_spec_num(x->spec, path))) {
			if (priced)
				mt_dc_judge(c, "unknown", NAN, "trial.yaml gives no hourly price for the %s",
				      systems[s]);
			mt_dc_need(c, path, "edit trial.yaml (the on-demand rate, with its source)");
			priced = 0;
		}
	}
	if (priced)
		judge_ratio_runs(x, c, threshold, &r);
}
