#include "decide.h"
#include "error.h"
#include "runs.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What every judge reads, and what the decision collects across criteria. */
struct ctx {
	const mt_spec *spec;
	size_t index;      /* the criterion being judged: criteria.INDEX */
	json_t *ev;        /* the evidence, borrowed */
	json_t *caveats;   /* general caveats found while judging */
	int failures_told; /* the candidate's failed attempts are a condition once */
};

/* ---- small helpers ------------------------------------------------------- */

static double num(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* A number of trial.yaml, NaN when absent or not a number. */
static double spec_num(const mt_spec *spec, const char *path)
{
	const char *v = mt_spec_get(spec, path);
	char *end;
	double d;

	if (!v)
		return NAN;
	d = strtod(v, &end);
	return end != v && *end == '\0' ? d : NAN;
}

/* The name a table file declares on its top-level `name:` line (the
 * compatibility tables' format, docs/compat-tables.md), into buf; NULL
 * when the file cannot be read or has none. */
static const char *table_file_name(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[512];
	const char *found = NULL;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *v = line + 5, *end;
		if (strncmp(line, "name:", 5) != 0)
			continue;
		v += strspn(v, " \t\"'");
		end = v + strcspn(v, "\"'#\r\n");
		while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		snprintf(buf, size, "%.*s", (int)(end - v), v);
		found = *buf ? buf : NULL;
	}
	if (f)
		fclose(f);
	return found;
}

/* The table the trial judges ops against, as probes name it: trial.yaml's
 * probe.table (a table's name, or a file: the name it declares), else the
 * one `mtrial probe` uses by default. Borrowed from spec or a static buffer. */
static const char *trial_table(const mt_spec *spec)
{
	static char buf[256];
	const char *name = spec ? mt_spec_get(spec, "probe.table") : NULL;

	if (!name || !*name)
		return MT_DECIDE_DEFAULT_TABLE;
	if (strchr(name, '/') || strstr(name, ".yaml") || strstr(name, ".yml"))
		return table_file_name(name, buf, sizeof(buf)) ?: name;
	return name;
}

static void set_text(json_t *c, const char *key, const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	json_object_set_new(c, key, s ? json_string(s) : json_null());
	free(s);
}

/* Sets the criterion's status, the value compared and the evidence. */
static void judge(json_t *c, const char *status, double value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void judge(json_t *c, const char *status, double value, const char *fmt, ...)
{
	va_list ap;
	json_object_set_new(c, "status", json_string(status));
	json_object_set_new(c, "value", real_or_null(value));
	va_start(ap, fmt);
	set_text(c, "evidence", fmt, ap);
	va_end(ap);
}

/* Adds what would settle an unknown criterion and the command recording it. */
static void need(json_t *c, const char *what, const char *command)
{
	json_array_append_new(json_object_get(c, "missing"),
			      json_pack("{ss, ss}", "what", what, "command", command));
}

static void condition(json_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void condition(json_t *c, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		json_array_append_new(json_object_get(c, "conditions"), json_string(s));
	va_end(ap);
	free(s);
}

static void caveat(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void caveat(struct ctx *x, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		json_array_append_new(x->caveats, json_string(s));
	va_end(ap);
	free(s);
}

static void source(json_t *c, const char *text)
{
	json_object_set_new(c, "source", json_string(text));
}

/* "#3, #5" for the ids of the runs in `runs`. */
static void put_ids(mt_buf *b, json_t *runs)
{
	json_t *r;
	size_t i;
	json_array_foreach(runs, i, r)
		mt_buf_printf(b, "%s#%lld", i ? ", " : "", (long long)json_integer_value(json_object_get(r, "id")));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of the finite values of `key` over `runs`; *n how many. */
static double median_of(json_t *runs, const char *key, size_t *n)
{
	double *v = malloc((json_array_size(runs) + 1) * sizeof(*v)), m = NAN;
	json_t *r;
	size_t i, k = 0;

	json_array_foreach(runs, i, r)
		if (isfinite(num(json_object_get(r, key))))
			v[k++] = num(json_object_get(r, key));
	if (k) {
		qsort(v, k, sizeof(*v), cmp_double);
		m = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	*n = k;
	return m;
}

/* ---- runs: which ones a criterion reads ------------------------------------ */

/* The candidate's tracks in the order a criterion prefers them: the
 * portability track (the code as ported), runs that name no track, then the
 * optimized one (what the engineering budget bought). */
static const char *const track_order[] = {"portability", "", "optimized"};
#define N_TRACKS 3

static const char *track_label(const char *t)
{
	return *t ? t : "no track";
}

static int is_rehearsal(json_t *r)
{
	return json_is_true(json_object_get(r, "rehearsal"));
}

/* Runs of `system` (and of `track` when not NULL; "" is no track) whose
 * status is one of `statuses` (NULL: any). Rehearsals are never evidence:
 * left out. New reference. */
static json_t *runs_of(json_t *ev, const char *system, const char *track,
		       const char *const *statuses)
{
	json_t *out = json_array(), *r;
	size_t i;
	json_array_foreach(json_object_get(ev, "runs"), i, r) {
		const char *tr = str(r, "track") ?: "";
		if (is_rehearsal(r) || !streq(str(r, "system"), system) ||
		    (track && strcmp(tr, track) != 0))
			continue;
		if (statuses && !mt_str_in(str(r, "status") ?: "", statuses))
			continue;
		json_array_append(out, r);
	}
	return out;
}

/* The rehearsals of `system` (NULL: either). New reference. */
static json_t *rehearsals_of(json_t *ev, const char *system)
{
	json_t *out = json_array(), *r;
	size_t i;
	json_array_foreach(json_object_get(ev, "runs"), i, r)
		if (is_rehearsal(r) && (!system || streq(str(r, "system"), system)))
			json_array_append(out, r);
	return out;
}

/* need() for a run of `system`: when only rehearsals of it are recorded,
 * says that a real run is needed and how many rehearsals were left out. */
static void need_run(struct ctx *x, json_t *c, const char *system, const char *what,
		     const char *command)
{
	json_t *rh = rehearsals_of(x->ev, system);
	mt_buf b = MT_BUF_INIT;

	mt_buf_puts(&b, what);
	if (json_array_size(rh))
		mt_buf_printf(&b, ": a real run, not a rehearsal (%zu %s rehearsal run(s) left out: "
			      "they test the pipeline and are not evidence)",
			      json_array_size(rh), system);
	need(c, mt_buf_cstr(&b), command);
	mt_buf_dispose(&b);
	json_decref(rh);
}

/* Appends to a run criterion's evidence the rehearsals of `system` (NULL:
 * both) it left out, so that a reader sees they were not overlooked. */
static void rehearsals_left_out(struct ctx *x, json_t *c, const char *system)
{
	json_t *rh = rehearsals_of(x->ev, system);
	mt_buf b = MT_BUF_INIT;

	if (json_array_size(rh)) {
		mt_buf_printf(&b, "%s; rehearsal run%s ", str(c, "evidence") ?: "",
			      json_array_size(rh) > 1 ? "s" : "");
		put_ids(&b, rh);
		mt_buf_puts(&b, " left out: not evidence");
		json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&b)));
	}
	mt_buf_dispose(&b);
	json_decref(rh);
}

static const char *const finished[] = {"success", NULL};
static const char *const broken[] = {"failed", "aborted", "lost", NULL};

/* Runs of `runs` whose flattened `key` is a number. New reference. */
static json_t *with_number(json_t *runs, const char *key)
{
	json_t *out = json_array(), *r;
	size_t i;
	json_array_foreach(runs, i, r)
		if (isfinite(num(json_object_get(r, key))))
			json_array_append(out, r);
	return out;
}

/* The candidate's failed, aborted and lost attempts: a condition on the
 * first run-based criterion that is met. */
static void attempts_condition(struct ctx *x, json_t *c)
{
	json_t *all = runs_of(x->ev, "candidate", NULL, NULL);
	json_t *bad = runs_of(x->ev, "candidate", NULL, broken);
	mt_buf b = MT_BUF_INIT;

	if (!x->failures_told && json_array_size(bad)) {
		put_ids(&b, bad);
		condition(c, "%zu of %zu candidate attempts failed, were aborted or lost (runs %s): "
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
	json_t *r, *e;
	size_t i, k;
	int found = 0;

	json_array_foreach(runs, i, r)
		json_array_foreach(json_object_get(json_object_get(r, "metrics"), "evaluations"), k, e) {
			double v = num(json_object_get(e, "value"));
			if (!streq(str(e, "metric"), metric) || !isfinite(v))
				continue;
			if (!found || (higher ? v > *best : v < *best)) {
				*best = v;
				*run_id = json_integer_value(json_object_get(r, "id"));
			}
			found = 1;
		}
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
	json_t *runs = runs_of(ev, "candidate", track, NULL);
	json_t *done = runs_of(ev, "candidate", track, finished);
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
	json_t *all = runs_of(x->ev, "candidate", NULL, NULL), *with = json_array(), *r;
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
		put_ids(&b, with);
		mt_buf_printf(&b, " (candidate): evaluations of %s; trial.yaml quality_target", metric);
		source(c, mt_buf_cstr(&b));
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
	json_t *runs = runs_of(x->ev, "candidate", NULL, finished), *r;
	const char *in_log = NULL;
	size_t i, n = 0;

	json_array_foreach(runs, i, r)
		if (streq(str(r, "outcome"), "no_metric")) {
			n++;
			in_log = in_log ?: str(json_object_get(json_object_get(r, "metrics"), "target"),
					       "metrics_in_log");
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
	json_t *done = runs_of(x->ev, "candidate", NULL, finished), *missed = json_array(), *r;
	mt_buf b = MT_BUF_INIT;
	size_t i;

	json_array_foreach(done, i, r)
		if (streq(str(r, "outcome"), "missed"))
			json_array_append(missed, r);
	if (json_array_size(missed)) {
		put_ids(&b, missed);
		condition(c, "%zu of %zu finished candidate runs did not reach the target (runs %s)",
			  json_array_size(missed), json_array_size(done), mt_buf_cstr(&b));
	}
	mt_buf_dispose(&b);
	json_decref(done);
	json_decref(missed);
}

static void judge_quality(struct ctx *x, json_t *c, double threshold)
{
	const char *metric = mt_spec_get(x->spec, "quality_target.metric");
	const char *dir = mt_spec_get(x->spec, "quality_target.direction");
	struct track_quality q[N_TRACKS];
	json_t *by;
	mt_buf b = MT_BUF_INIT;
	int higher = streq(dir, "higher"), met = -1, seen = 0;

	source(c, "candidate runs' evaluations (mtrial runs); trial.yaml quality_target");
	if (!isfinite(threshold))
		threshold = spec_num(x->spec, "quality_target.threshold");
	if (!metric || !dir || !isfinite(threshold)) {
		judge(c, "unknown", NAN, "trial.yaml does not name the quality target (metric, "
		      "threshold and direction)");
		need(c, "quality_target.metric, .threshold and .direction", "edit trial.yaml");
		return;
	}
	json_object_set_new(c, "threshold", json_real(threshold));
	json_object_set_new(c, "by_track", by = json_object());
	evaluated_source(x, c, metric);
	for (int t = 0; t < N_TRACKS; t++) {
		track_quality(&q[t], x->ev, track_order[t], metric, higher, threshold);
		if (q[t].evaluated) {
			mt_buf_printf(&b, "%s%s %.4g (run #%lld)", seen++ ? ", " : "",
				      track_label(track_order[t]), q[t].best, (long long)q[t].run_id);
			json_object_set_new(by, track_label(track_order[t]),
					    json_pack("{sf, sI, sb}", "best", q[t].best, "run",
						      q[t].run_id, "reached", q[t].reached));
		}
		if (met < 0 && q[t].reached)
			met = t;
	}
	if (met >= 0) {
		json_object_set_new(c, "track", json_string(track_label(track_order[met])));
		/* runs that name no track: "reached by runs of no track", never
		 * "on the no track track" */
		judge(c, "met", q[met].best, "%s %s %.4g reached %s%s%s; best per track: %s",
		      metric, higher ? ">=" : "<=", threshold,
		      *track_order[met] ? "on the " : "by runs of ", track_label(track_order[met]),
		      *track_order[met] ? " track" : "", mt_buf_cstr(&b));
		if (strcmp(track_order[met], "optimized") == 0)
			condition(c, "the target is reached only on the optimized track: the move "
				  "needs that track's changes, not only the port");
		missed_condition(x, c);
		attempts_condition(x, c);
	} else if (q[0].finished || q[1].finished || q[2].finished) {
		judge(c, "not_met", best_of_tracks(q, higher), "%s never %s %.4g in the candidate's finished runs; best "
		      "per track: %s", metric, higher ? ">=" : "<=", threshold, mt_buf_cstr(&b));
	} else {
		judge(c, "unknown", NAN, "%s%s", seen ? "the candidate has not finished a run yet; its "
			   "evaluations so far do not reach the target" : "no candidate run evaluated "
			   "the quality metric", no_metric_note(x, metric));
		need_run(x, c, "candidate", "a finished candidate run that evaluates the quality metric",
			 "mtrial run --system candidate --track portability -- CMD (or mtrial runs import LOG)");
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
				? num(json_object_get(r, "device_hours_to_target"))
				: num(json_object_get(r, "devices")) *
					  num(json_object_get(r, "time_to_target_s")) / 3600));
	m = median_of(tmp, "dh", &n);
	json_decref(tmp);
	return m;
}

/* The evidence of both clocks beside the judged one, kept apart: wall-clock
 * to the target from run start and from submission, and device-hours. */
static void other_clocks(mt_buf *b, json_t *c, json_t *cand, json_t *base, const struct ratio *r)
{
	double dc = device_hours_to_target(cand), db = device_hours_to_target(base);
	size_t n;
	double sc = median_of(cand, "time_to_target_from_submission_s", &n);
	double sb = median_of(base, "time_to_target_from_submission_s", &n);

	json_object_set_new(c, "figures", json_pack("{s{so, so, so}, s{so, so, so}}",
		"candidate", "median", real_or_null(median_of(cand, r->key, &n)), "device_hours",
		real_or_null(dc), "from_submission_s", real_or_null(sc), "baseline", "median",
		real_or_null(median_of(base, r->key, &n)), "device_hours", real_or_null(db),
		"from_submission_s", real_or_null(sb)));

	if (strcmp(r->key, "time_to_target_s") != 0) {
		double tc = median_of(cand, "time_to_target_s", &n), tb = median_of(base, "time_to_target_s", &n);
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
		json_t *runs = runs_of(ev, "candidate", track_order[t], NULL);
		size_t n;
		double v = median_of(runs, r->key, &n) / base;
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
	double sc = num(json_object_get(json_object_get(f, "candidate"), "from_submission_s"));
	double sb = num(json_object_get(json_object_get(f, "baseline"), "from_submission_s"));

	if (!isfinite(sc) || !isfinite(sb))
		caveat(x, "time to quality counts from run start: the time from submission "
		       "(compilation and start-up) is not known for both systems");
	else if (sc / sb > threshold)
		condition(c, "from submission, compilation included, the candidate takes %.2fx the "
			  "baseline's time (threshold %.2fx): the threshold holds only while "
			  "compilation is left out, e.g. with a warm compile cache", sc / sb, threshold);
}

/* No candidate track with a figure, or no baseline figure: not_met when the
 * candidate's finished runs missed the target, else unknown with what is
 * missing on each side. */
static void no_pair(struct ctx *x, json_t *c, const struct ratio *r, size_t nb)
{
	json_t *done = runs_of(x->ev, "candidate", NULL, finished), *d;
	json_t *cand = runs_of(x->ev, "candidate", NULL, NULL), *cn = with_number(cand, r->key);
	size_t i, missed = 0;

	json_array_foreach(done, i, d)
		missed += json_is_false(json_object_get(d, "reached"));
	if (missed && !json_array_size(cn)) {
		judge(c, "not_met", NAN, "the candidate's %zu finished run(s) did not reach the "
		      "quality target, so it has no %s", missed, r->what);
	} else {
		judge(c, "unknown", NAN, "%s%s%s", nb ? "" : "no baseline run has a figure to compare with",
		      !nb && !json_array_size(cn) ? "; " : "",
		      json_array_size(cn) ? "" : "no candidate run has reached the quality target yet");
		if (!nb)
			need_run(x, c, "baseline", "a baseline run that reaches the quality target",
				 "mtrial runs import LOG --system baseline (or mtrial run --system baseline -- CMD)");
		if (!json_array_size(cn))
			need_run(x, c, "candidate", "a candidate run that reaches the quality target",
				 "mtrial run --system candidate -- CMD (or mtrial runs import LOG --system candidate)");
	}
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
		json_t *runs = runs_of(x->ev, systems[s], NULL, NULL), *r;
		size_t i;
		json_array_foreach(runs, i, r)
			if (!json_is_number(json_object_get(r, "cost_to_target")) &&
			    json_is_number(json_object_get(r, "cost")))
				sum[s] += num(json_object_get(r, "cost")), n[s]++;
		json_decref(runs);
	}
	if (n[0] || n[1])
		mt_buf_printf(b, "; outside the medians, the attempts that did not reach the target "
			      "cost %.3g %s more on the candidate (%zu) and %.3g on the baseline (%zu)",
			      sum[0], unit, n[0], sum[1], n[1]);
}

static void judge_ratio_runs(struct ctx *x, json_t *c, double threshold, const struct ratio *r)
{
	json_t *base = runs_of(x->ev, "baseline", NULL, NULL), *bn = with_number(base, r->key);
	json_t *cand = NULL, *cn = NULL;
	mt_buf b = MT_BUF_INIT, src = MT_BUF_INIT;
	size_t nb, nc;
	double mb = median_of(bn, r->key, &nb), ratio = NAN, mc;
	int t = nb ? pick_track(x->ev, r, mb, threshold, &ratio) : -1;

	if (t < 0) {
		no_pair(x, c, r, nb);
		goto cleanup;
	}
	cand = runs_of(x->ev, "candidate", track_order[t], NULL);
	cn = with_number(cand, r->key);
	mc = median_of(cn, r->key, &nc);
	mt_buf_printf(&b, "candidate (%s) median %s %.3g %s over %zu run(s) vs baseline %.3g %s "
		      "over %zu: %.2fx, threshold %.2fx", track_label(track_order[t]), r->what,
		      mc * r->scale, r->unit, nc, mb * r->scale, r->unit, nb, ratio, threshold);
	other_clocks(&b, c, cn, bn, r);
	if (strcmp(r->key, "cost_to_target") == 0)
		spend_outside(&b, x, r->unit);
	mt_buf_puts(&src, "runs ");
	put_ids(&src, cn);
	mt_buf_puts(&src, " (candidate) and ");
	put_ids(&src, bn);
	mt_buf_printf(&src, " (baseline): %s", r->key);
	source(c, mt_buf_cstr(&src));
	json_object_set_new(c, "track", json_string(track_label(track_order[t])));
	judge(c, ratio <= threshold ? "met" : "not_met", ratio, "%s", mt_buf_cstr(&b));
	if (ratio <= threshold && strcmp(track_order[t], "optimized") == 0)
		condition(c, "within the threshold only on the optimized track");
	if (ratio <= threshold && strcmp(r->key, "time_to_target_s") == 0)
		compile_condition(x, c, threshold);
	if (ratio <= threshold)
		attempts_condition(x, c);
cleanup:
	mt_buf_dispose(&b);
	mt_buf_dispose(&src);
	json_decref(base);
	json_decref(bn);
	json_decref(cand);
	json_decref(cn);
}

/* A criterion judged against a threshold it does not have: unknown. */
static int lacks_threshold(struct ctx *x, json_t *c, double threshold)
{
	char what[64];
	if (isfinite(threshold))
		return 0;
	snprintf(what, sizeof(what), "criteria.%zu.threshold", x->index);
	judge(c, "unknown", NAN, "the criterion has no threshold to judge against");
	need(c, what, "edit trial.yaml");
	return 1;
}

static void judge_time(struct ctx *x, json_t *c, double threshold)
{
	static const struct ratio r = {"time_to_target_s", "time to the target", 1.0 / 60, "min"};
	source(c, "runs of both systems: time_to_target_s");
	if (!lacks_threshold(x, c, threshold))
		judge_ratio_runs(x, c, threshold, &r);
}

static void judge_cost(struct ctx *x, json_t *c, double threshold)
{
	static const char *const systems[] = {"baseline", "candidate"};
	const char *cur = mt_spec_get(x->spec, "systems.candidate.price.currency");
	struct ratio r = {"cost_to_target", "cost to the target", 1, cur ? cur : "(currency not named)"};
	int priced = 1;

	source(c, "runs of both systems: cost_to_target; trial.yaml systems.*.price.hourly");
	if (lacks_threshold(x, c, threshold))
		return;
	for (size_t s = 0; s < 2; s++) {
		char path[64];
		snprintf(path, sizeof(path), "systems.%s.price.hourly", systems[s]);
		if (!isfinite(spec_num(x->spec, path))) {
			if (priced)
				judge(c, "unknown", NAN, "trial.yaml gives no hourly price for the %s",
				      systems[s]);
			need(c, path, "edit trial.yaml (the on-demand rate, with its source)");
			priced = 0;
		}
	}
	if (priced)
		judge_ratio_runs(x, c, threshold, &r);
}

/* ---- correctness ------------------------------------------------------------ */

/* The latest check of each (kind, reference, candidate) that is evidence:
 * checks come newest first, so the first of a pair wins; rehearsals are
 * left out (a rehearsal recorded after a real check does not hide it).
 * New reference. */
static json_t *latest_checks(json_t *checks)
{
	json_t *seen = json_object(), *out = json_array(), *ch;
	size_t i;
	json_array_foreach(checks, i, ch) {
		char *key = NULL;
		if (is_rehearsal(ch))
			continue;
		if (asprintf(&key, "%s\x1f%s\x1f%s", str(ch, "kind") ?: "", str(ch, "reference") ?: "",
			     str(ch, "candidate") ?: "") < 0)
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

static void put_check(mt_buf *b, json_t *ch)
{
	mt_buf_printf(b, "%s#%lld %s %s vs %s", b->len ? "; " : "",
		      (long long)json_integer_value(json_object_get(ch, "id")), str(ch, "kind") ?: "?",
		      str(ch, "reference") ?: "?", str(ch, "candidate") ?: "?");
}

/* The rehearsal checks, oldest first ("#2, #5"); how many. */
static size_t rehearsal_checks(json_t *checks, mt_buf *b)
{
	size_t i = json_array_size(checks), n = 0;
	while (i-- > 0) {
		json_t *ch = json_array_get(checks, i);
		if (is_rehearsal(ch))
			mt_buf_printf(b, "%s#%lld", n++ ? ", " : "",
				      (long long)json_integer_value(json_object_get(ch, "id")));
	}
	return n;
}

/* need() for a comparison of the two systems: when rehearsal checks are
 * recorded, says that a real comparison is needed and how many were left
 * out. */
static void need_comparison(json_t *c, size_t nrehearsals)
{
	mt_buf b = MT_BUF_INIT;

	mt_buf_puts(&b, "tensors or loss curves of both systems compared");
	if (nrehearsals)
		mt_buf_printf(&b, ": a real comparison, not a rehearsal (%zu rehearsal check(s) left "
			      "out: they compared stand-ins and are not evidence)", nrehearsals);
	need(c, mt_buf_cstr(&b), "mtrial check compare REF CAND (or mtrial check curves A B)");
	mt_buf_dispose(&b);
}

static void judge_correctness(struct ctx *x, json_t *c, double threshold)
{
	json_t *latest = latest_checks(json_object_get(x->ev, "checks")), *ch;
	mt_buf failed = MT_BUF_INIT, ids = MT_BUF_INIT, est = MT_BUF_INIT, rh = MT_BUF_INIT;
	size_t i, systems = 0, nfailed = 0, nest = 0;
	size_t nrh = rehearsal_checks(json_object_get(x->ev, "checks"), &rh);

	json_array_foreach(latest, i, ch) {
		int model = streq(str(ch, "kind"), "model"), pass = json_is_true(json_object_get(ch, "passed"));
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
	source(c, ids.len ? mt_buf_cstr(&ids)
		   : nrh   ? "only rehearsal checks recorded (mtrial check list)"
			   : "no checks recorded (mtrial check list)");
	if (nfailed) {
		judge(c, "not_met", (double)nfailed, "%zu of %zu comparisons of the two systems failed "
		      "(the latest of each pair): %s", nfailed, systems, mt_buf_cstr(&failed));
	} else if (!systems) {
		judge(c, "unknown", NAN, "%s", json_array_size(latest)
			   ? "only CPU estimates of a number format (check model) are recorded: "
			     "nothing compares the candidate system with the baseline"
			   : nrh ? "only rehearsal checks are recorded: they compared stand-ins, "
				   "not the candidate system with the baseline"
				 : "no correctness check is recorded");
		need_comparison(c, nrh);
	} else {
		judge(c, "met", 0, "all %zu comparisons of the two systems passed under their "
		      "tolerances (the latest of each pair)", systems);
		if (nest)
			condition(c, "the number-format estimate failed: %s", mt_buf_cstr(&est));
	}
	if (nrh) { /* said, so that a reader sees they were not overlooked */
		mt_buf note = MT_BUF_INIT;
		mt_buf_printf(&note, "%s; rehearsal check%s %s left out: not evidence",
			      str(c, "evidence"), nrh > 1 ? "s" : "", mt_buf_cstr(&rh));
		json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&note)));
		mt_buf_dispose(&note);
	}
	if (isfinite(threshold)) { /* said where it is read, not left to look applied */
		mt_buf note = MT_BUF_INIT;
		mt_buf_printf(&note, "%s; the threshold %g is not applied: each check's own "
			      "tolerances decide (trial.yaml tolerances, or its --rtol/--atol)",
			      str(c, "evidence"), threshold);
		json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&note)));
		mt_buf_dispose(&note);
	}
	mt_buf_dispose(&failed);
	mt_buf_dispose(&ids);
	mt_buf_dispose(&est);
	mt_buf_dispose(&rh);
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
	mt_buf_printf(b, "%s%s", n ? ", " : "", str(op, "op") ?: "?");
	if (with_source)
		mt_buf_printf(b, " (%s: %s)", str(op, "status") ?: "?", str(op, "source") ?: "?");
	else if (json_string_value(json_array_get(json_object_get(op, "conditions"), 0)))
		mt_buf_printf(b, " (%s)", json_string_value(json_array_get(json_object_get(op, "conditions"), 0)));
}

static void count_ops(struct op_counts *k, json_t *ops)
{
	json_t *op;
	size_t i;

	memset(k, 0, sizeof(*k));
	json_array_foreach(ops, i, op) {
		const char *st = str(op, "status") ?: "unknown", *src = str(op, "source") ?: "";
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
		      (long long)json_integer_value(json_object_get(probe, "id")), str(t, "name") ?: "?",
		      str(t, "version") ?: "?", str(t, "retrieved") ?: "?",
		      str(json_object_get(probe, "from"), "source") ?: "scan");
	source(c, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
}

static void ops_conditions(json_t *c, struct op_counts *k, double threshold)
{
	if (k->overridden)
		condition(c, "%zu op(s) rest on the team's overrides, which must hold on the "
			  "versions deployed: %s", k->overridden, mt_buf_cstr(&k->over));
	if (k->partial)
		condition(c, "%zu op(s) are supported only partially (their conditions must hold): %s",
			  k->partial, mt_buf_cstr(&k->part));
	if (k->cpu_fallback)
		condition(c, "%zu op(s) fall back to the CPU%s: %s", k->cpu_fallback,
			  isfinite(threshold) ? " (within the threshold)" : "", mt_buf_cstr(&k->fallback));
}

/* Ends the evidence with the table the ops were judged against and why
 * that one. */
static void table_said(struct ctx *x, json_t *c)
{
	const char *set = mt_spec_get(x->spec, "probe.table");
	mt_buf b = MT_BUF_INIT;

	mt_buf_printf(&b, "%s; judged against table %s (%s)", str(c, "evidence") ?: "",
		      trial_table(x->spec), set && *set ? "trial.yaml probe.table"
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
		      str(c, "source") ?: "", (long long)json_integer_value(json_object_get(other, "id")),
		      str(other, "table") ?: "?");
	source(c, mt_buf_cstr(&b));
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
		if (streq(str(a, "status"), status) && !str(a, "op")) {
			if (n < OPS_NAMED)
				mt_buf_printf(b, "%s%s (%s)", n ? ", " : "", str(a, "api") ?: "?",
					      str(a, "source") ?: "?");
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
	judge(c, "unknown", isfinite(threshold) ? (double)k->cpu_fallback : NAN, "%s",
	      mt_buf_cstr(&b));
	need(c, "how the ops and APIs of unknown status run on the candidate",
	     "mtrial tables import FILE (the target's table), mtrial override OP|API STATUS "
	     "--note TEXT, or mtrial probe --observed ANALYZE.json");
	mt_buf_dispose(&b);
}

static void judge_ops(struct ctx *x, json_t *c, double threshold)
{
	json_t *probe = json_object_get(x->ev, "probe");
	struct op_counts k;
	size_t total = json_array_size(json_object_get(probe, "ops"));

	json_t *other = json_object_get(x->ev, "probe_other");
	mt_buf apis = MT_BUF_INIT, unk_apis = MT_BUF_INIT;
	size_t napis, nunk;
	char what[160];

	if (!json_is_object(probe) && !json_is_object(other)) {
		source(c, "no probe recorded");
		judge(c, "unknown", NAN, "the op inventory has not been probed against a "
		      "compatibility table");
		need(c, "a probe of the op inventory", "mtrial scan, then mtrial probe");
		return;
	}
	if (!json_is_object(probe)) { /* only against other tables: none decides */
		source(c, "no probe against the trial's table recorded");
		other_probe_note(c, other);
		judge(c, "unknown", NAN, "the op inventory has not been probed against the trial's "
		      "table %s", trial_table(x->spec));
		snprintf(what, sizeof(what), "a probe of the op inventory against %s", trial_table(x->spec));
		need(c, what, "mtrial probe (its table: trial.yaml probe.table)");
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
		judge(c, "not_met", (double)(k.unsupported + napis), "%s", mt_buf_cstr(&b));
		mt_buf_dispose(&b);
	} else if (isfinite(threshold) && (double)k.cpu_fallback > threshold) {
		judge(c, "not_met", (double)k.cpu_fallback, "%zu of %zu ops fall back to the CPU "
		      "(threshold %g): %s", k.cpu_fallback, total, threshold, mt_buf_cstr(&k.fallback));
	} else if (k.unknown || nunk) {
		/* unknown is never counted to look small: an API that runs no
		 * op of its own is as open a question as an op */
		unknown_ops(c, &k, total, nunk, &unk_apis, threshold);
	} else {
		judge(c, "met", isfinite(threshold) ? (double)k.cpu_fallback : 0,
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

static void judge_effort(struct ctx *x, json_t *c, double threshold)
{
	json_t *effort = json_object_get(x->ev, "effort"), *tr;
	double budget = spec_num(x->spec, "tracks.optimized.budget_hours");
	double hours = (double)json_integer_value(json_object_get(effort, "total_ms")) / 3600000.0;
	double opt = (double)json_integer_value(json_object_get(
			     json_object_get(json_object_get(effort, "by_track"), "optimized"), "total_ms")) /
		     3600000.0;
	mt_buf b = MT_BUF_INIT;
	const char *name;

	source(c, "effort intervals in the journal (mtrial effort log); trial.yaml "
		  "tracks.optimized.budget_hours");
	if (!isfinite(threshold))
		threshold = budget;
	if (lacks_threshold(x, c, threshold))
		return;
	json_object_set_new(c, "threshold", json_real(threshold));
	if (hours <= 0) {
		judge(c, "unknown", NAN, "no engineering time is recorded");
		need(c, "the engineering time spent on each track",
		     "mtrial effort start/stop, or mtrial effort add --duration 2h --track T");
		return;
	}
	json_object_foreach(json_object_get(effort, "by_track"), name, tr)
		mt_buf_printf(&b, "%s%s %.1f h", b.len ? ", " : "", name,
			      (double)json_integer_value(json_object_get(tr, "total_ms")) / 3600000.0);
	judge(c, hours <= threshold ? "met" : "not_met", hours, "%.1f h timed (%s) %s %g h%s", hours,
	      mt_buf_cstr(&b), hours <= threshold ? "<=" : ">", threshold,
	      json_is_true(json_object_get(x->ev, "effort_running"))
		      ? "; a timer is still running, counted up to now" : "");
	if (isfinite(budget) && opt > budget)
		caveat(x, "the optimized track took %.1f h, over its budget of %g h", opt, budget);
	mt_buf_dispose(&b);
}

/* ---- custom: the team's own judgement ---------------------------------------- */

static void judge_custom(struct ctx *x, json_t *c, double threshold)
{
	char path[64], what[64];
	const char *j, *e;

	(void)threshold;
	snprintf(path, sizeof(path), "criteria.%zu.judgement", x->index);
	j = mt_spec_get(x->spec, path);
	snprintf(path, sizeof(path), "criteria.%zu.evidence", x->index);
	e = mt_spec_get(x->spec, path);
	snprintf(path, sizeof(path), "trial.yaml criteria.%zu", x->index);
	source(c, path);
	if (!j || !e) {
		snprintf(what, sizeof(what), "criteria.%zu.judgement and .evidence", x->index);
		judge(c, "unknown", NAN, "a custom criterion is judged by the team, and trial.yaml "
		      "records no judgement with its evidence");
		need(c, what, "edit trial.yaml");
		return;
	}
	judge(c, strcmp(j, "met") == 0 ? "met" : "not_met", NAN, "the team's judgement: %s", e);
}

/* ---- the decision -------------------------------------------------------------- */

typedef void (*judge_fn)(struct ctx *x, json_t *c, double threshold);

static const struct {
	const char *kind;
	judge_fn judge;
	int runs; /* judged from run attempts */
} judges[] = {
	{"quality", judge_quality, 1},
	{"correctness", judge_correctness, 0},
	{"ops", judge_ops, 0},
	{"time_to_quality", judge_time, 1},
	{"cost_to_quality", judge_cost, 1},
	{"effort", judge_effort, 0},
	{"custom", judge_custom, 0},
};
#define N_JUDGES (sizeof(judges) / sizeof(judges[0]))

static const char *spec_item(const mt_spec *spec, size_t i, const char *field)
{
	char path[64];
	snprintf(path, sizeof(path), "criteria.%zu.%s", i, field);
	return mt_spec_get(spec, path);
}

/* Criterion i of trial.yaml, judged. NULL with MT_EINVALID for a kind this
 * code does not know (the schema and this table out of step). */
static json_t *criterion(struct ctx *x, size_t i, int *runs)
{
	const char *name = spec_item(x->spec, i, "name"), *kind = spec_item(x->spec, i, "kind");
	const char *desc = spec_item(x->spec, i, "description");
	char at[32], th[64];
	double threshold;
	json_t *c;

	snprintf(at, sizeof(at), "criteria.%zu", i);
	snprintf(th, sizeof(th), "%s.threshold", at);
	threshold = spec_num(x->spec, th);
	c = json_pack("{ss, ss?, ss?, so, so, s[], s[]}", "name", name ? name : at, "kind", kind,
		      "description", desc, "threshold",
		      isfinite(threshold) ? json_real(threshold) : json_null(), "track", json_null(),
		      "conditions", "missing");
	x->index = i;
	if (!kind) {
		source(c, "trial.yaml");
		judge(c, "unknown", NAN, "the criterion names no kind, so nothing can judge it");
		snprintf(th, sizeof(th), "%s.kind", at);
		need(c, th, "edit trial.yaml");
		return c;
	}
	for (size_t k = 0; k < N_JUDGES; k++)
		if (strcmp(judges[k].kind, kind) == 0) {
			judges[k].judge(x, c, threshold);
			*runs |= judges[k].runs && streq(str(c, "status"), "met");
			if (judges[k].runs) /* quality reads the candidate's runs alone */
				rehearsals_left_out(x, c, strcmp(kind, "quality") == 0 ? "candidate" : NULL);
			if (strcmp(kind, "custom") != 0 && spec_item(x->spec, i, "judgement"))
				caveat(x, "%s.judgement is ignored: a %s criterion is judged from the "
				       "record", at, kind);
			return c;
		}
	json_decref(c);
	mt_error_set(MT_EINVALID, "trial.yaml: %s.kind (%s): '%s' is not a kind mtrial decide "
		     "knows", at, name ? name : "unnamed", kind);
	return NULL;
}

/* Collects failed, missing and conditions across the criteria; counts. */
static void collect(json_t *d, json_t *criteria, size_t counts[3])
{
	json_t *failed = json_array(), *missing = json_array(), *conds = json_array(), *c, *v;
	size_t i, k;

	json_array_foreach(criteria, i, c) {
		const char *st = str(c, "status"), *name = str(c, "name");
		counts[streq(st, "met") ? 0 : streq(st, "not_met") ? 1 : 2]++;
		if (streq(st, "not_met"))
			json_array_append_new(failed, json_pack("{ss, sO}", "criterion", name,
								"evidence", json_object_get(c, "evidence")));
		json_array_foreach(json_object_get(c, "missing"), k, v)
			json_array_append_new(missing, json_pack("{ss, sO, sO}", "criterion", name, "what",
								 json_object_get(v, "what"), "command",
								 json_object_get(v, "command")));
		if (streq(st, "met"))
			json_array_foreach(json_object_get(c, "conditions"), k, v)
				json_array_append_new(conds, json_pack("{ss, sO}", "criterion", name,
								       "text", v));
	}
	json_object_set_new(d, "failed", failed);
	json_object_set_new(d, "missing", missing);
	json_object_set_new(d, "conditions", conds);
}

static const char *verdict_of(const size_t counts[3], size_t conditions)
{
	if (counts[1])
		return MT_VERDICT_NO_GO;
	if (counts[2] || !counts[0])
		return MT_VERDICT_NOT_ENOUGH_EVIDENCE;
	return conditions ? MT_VERDICT_GO_WITH_CONDITIONS : MT_VERDICT_GO;
}

/* The verdict in words, as the issue and the report write it. */
static const char *headline(const char *verdict)
{
	return streq(verdict, MT_VERDICT_GO_WITH_CONDITIONS) ? "GO WITH CONDITIONS"
	       : streq(verdict, MT_VERDICT_NO_GO)           ? "NO-GO"
	       : streq(verdict, MT_VERDICT_NOT_ENOUGH_EVIDENCE) ? "NOT ENOUGH EVIDENCE"
								 : "GO";
}

/* The caveat that comes with the verdict itself, before the general ones. */
static void verdict_caveat(json_t *d, json_t *caveats, const size_t counts[3])
{
	const char *v = str(d, "verdict");
	json_t *first;
	char *s = NULL;
	int n = -1;

	if (streq(v, MT_VERDICT_NO_GO)) {
		first = json_array_get(json_object_get(d, "failed"), 0);
		n = asprintf(&s, "%s is not met: %s%s", str(first, "criterion"), str(first, "evidence"),
			     counts[2] ? "; other criteria are still unknown" : "");
	} else if (streq(v, MT_VERDICT_NOT_ENOUGH_EVIDENCE) && !counts[0] && !counts[2]) {
		n = asprintf(&s, "trial.yaml lists no criteria: nothing decides the trial");
	} else if (streq(v, MT_VERDICT_NOT_ENOUGH_EVIDENCE)) {
		first = json_array_get(json_object_get(d, "missing"), 0);
		n = asprintf(&s, "%zu of %zu criteria cannot be judged yet; first missing, for %s: "
			     "%s; record it with: %s", counts[2], counts[0] + counts[2], str(first, "criterion"),
			     str(first, "what"), str(first, "command"));
	} else if (streq(v, MT_VERDICT_GO_WITH_CONDITIONS)) {
		first = json_array_get(json_object_get(d, "conditions"), 0);
		n = asprintf(&s, "a go only if this holds (%s): %s", str(first, "criterion"),
			     str(first, "text"));
	}
	if (n >= 0)
		json_array_insert_new(caveats, 0, json_string(s));
	free(s);
}

/* Caveats about the evidence as a whole, whatever the verdict. */
static void general_caveats(struct ctx *x, json_t *criteria, int runs_met)
{
	json_t *c, *probe = json_object_get(x->ev, "probe"), *o;
	int quality = 0, ops = 0;
	size_t i;

	json_array_foreach(criteria, i, c) {
		quality |= streq(str(c, "kind"), "quality");
		ops |= streq(str(c, "kind"), "ops");
	}
	if (json_array_size(criteria) && !quality)
		json_array_insert_new(x->caveats, 0, json_string(
			"no criterion judges the model's quality: the verdict says nothing about "
			"whether the candidate trains an equally good model"));
	if (runs_met) {
		json_t *cr = runs_of(x->ev, "candidate", NULL, NULL), *br = runs_of(x->ev, "baseline", NULL, NULL);
		json_t *cn = with_number(cr, "time_to_target_s"), *bn = with_number(br, "time_to_target_s");
		if (json_array_size(cn) < 3 || json_array_size(bn) < 3)
			caveat(x, "the run figures rest on %zu candidate and %zu baseline run(s) that "
			       "reached the target: too few to show the spread between runs (3 or more "
			       "each)", json_array_size(cn), json_array_size(bn));
		json_decref(cr), json_decref(br), json_decref(cn), json_decref(bn);
	}
	if (ops && json_is_object(probe) && streq(str(json_object_get(probe, "from"), "source"), "scan"))
		caveat(x, "the ops come from a static scan, which misses ops inside modules and in "
		       "the backward pass: probe a dispatch trace (mtrial ops tracer, then mtrial "
		       "probe --from trace)");
	json_array_foreach(json_object_get(x->ev, "overrides"), i, o)
		if (ops && json_is_object(probe) && str(o, "created") && str(probe, "created") &&
		    strcmp(str(o, "created"), str(probe, "created")) > 0) {
			caveat(x, "an override was recorded after the latest probe (%s on %s): run "
			       "mtrial probe again", str(o, "op") ?: str(o, "api"), str(o, "created"));
			break;
		}
}

int mt_decide_from(json_t **out, const mt_spec *spec, json_t *evidence)
{
	struct ctx x = {.spec = spec, .ev = evidence, .caveats = json_array()};
	json_t *criteria = json_array(), *lists = json_object(), *c;
	size_t n = spec ? mt_spec_count(spec, "criteria") : 0, counts[3] = {0, 0, 0};
	const char *verdict;
	int runs_met = 0;
	char summary[128];

	*out = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!(c = criterion(&x, i, &runs_met))) {
			json_decref(criteria);
			json_decref(lists);
			json_decref(x.caveats);
			return MT_EINVALID;
		}
		json_array_append_new(criteria, c);
	}
	collect(lists, criteria, counts);
	verdict = verdict_of(counts, json_array_size(json_object_get(lists, "conditions")));
	json_object_set_new(lists, "verdict", json_string(verdict));
	general_caveats(&x, criteria, runs_met);
	verdict_caveat(lists, x.caveats, counts);
	snprintf(summary, sizeof(summary), "%zu of %zu criteria met, %zu not met, %zu unknown",
		 counts[0], n, counts[1], counts[2]);
	*out = json_pack("{ss, ss, ss, sO, s{sI, sI, sI}, so, sO, sO, sO, so}", "verdict", verdict,
			 "headline", headline(verdict), "summary", summary, "caveat",
			 json_array_size(x.caveats) ? json_array_get(x.caveats, 0) : json_null(),
			 "counts", "met", (json_int_t)counts[0], "not_met", (json_int_t)counts[1],
			 "unknown", (json_int_t)counts[2], "criteria", criteria, "failed",
			 json_object_get(lists, "failed"), "missing", json_object_get(lists, "missing"),
			 "conditions", json_object_get(lists, "conditions"), "caveats", x.caveats);
	json_decref(lists);
	return *out ? 0 : mt_error_set(MT_EIO, "out of memory");
}

/* ---- the evidence, from the journal ------------------------------------------- */

/* The latest probe against the trial's table (an exploratory probe against
 * another table does not decide), with its id and time, and "latest_other"
 * {id, table} when a later probe used another table; null when no probe
 * used the trial's table, with "trial_table" and the other's name kept in
 * the evidence for the criterion to say so. */
static json_t *trial_probe(mt_journal *j, const mt_spec *spec, json_t **other)
{
	json_t *p = NULL, *last = NULL;
	int64_t id = 0, created = 0, last_id = 0;
	char when[32];

	*other = json_null();
	if (mt_journal_probe_latest(j, &last, &last_id, NULL) == 0 &&
	    !streq(str(json_object_get(last, "table"), "name"), trial_table(spec))) {
		json_decref(*other);
		*other = json_pack("{sI, ss?}", "id", (json_int_t)last_id, "table",
				   str(json_object_get(last, "table"), "name"));
	}
	json_decref(last);
	if (mt_journal_probe_latest_of(j, trial_table(spec), &p, &id, &created) < 0) {
		mt_error_clear(); /* MT_ENOTFOUND or an unreadable row: no probe to judge */
		return json_null();
	}
	mt_time_iso(when, sizeof(when), created);
	json_object_set_new(p, "id", json_integer(id));
	json_object_set_new(p, "created", json_string(when));
	return p;
}

json_t *mt_decide_evidence(mt_trial *t, int64_t now_ms)
{
	json_t *runs = mt_journal_runs_json(t->journal, 0), *checks = NULL, *overrides = NULL;
	json_t *effort = NULL, *r, *other = NULL, *probe;
	mt_effort cur;
	int running;
	size_t i;

	if (!runs || !(checks = mt_journal_checks_json(t->journal, NULL, 0)) ||
	    !(overrides = mt_journal_overrides_json(t->journal)) ||
	    !(effort = mt_journal_effort_summary_json(t->journal, now_ms))) {
		json_decref(runs);
		json_decref(checks);
		json_decref(overrides);
		return NULL;
	}
	json_array_foreach(runs, i, r)
		mt_runs_flatten(r, t->spec);
	running = mt_journal_effort_current(t->journal, &cur) == 0;
	if (running)
		mt_effort_dispose(&cur);
	mt_error_clear();
	probe = trial_probe(t->journal, t->spec, &other);
	return json_pack("{so, so, so, so, so, so, sb}", "runs", runs, "checks", checks, "probe",
			 probe, "probe_other", other, "overrides", overrides, "effort", effort,
			 "effort_running", running);
}

int mt_decide(json_t **out, mt_trial *t, int64_t now_ms)
{
	json_t *ev = mt_decide_evidence(t, now_ms);
	int error;

	*out = NULL;
	if (!ev)
		return mt_error_last_code() ? mt_error_last_code() : MT_EIO;
	error = mt_decide_from(out, t->spec, ev);
	json_decref(ev);
	return error;
}

int mt_decide_is_go(const json_t *decision)
{
	return streq(json_string_value(json_object_get(decision, "verdict")), MT_VERDICT_GO);
}
