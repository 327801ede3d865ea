/* Recording runs, the figures: one run's (clock1, steady state, stalls,
 * time to target, MLPerf's run minutes, status) worked out from its events,
 * and a summary across runs. The events come from runlog.c. */
#include "runlog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "stats.h"
/* A number as JSON, null when NAN. */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jtime(int64_t t)
{
	return t == MT_RUNLOG_NO_TIME ? json_null() : json_integer(t);
}

json_t *mt_run_event_json(const mt_run_event *ev)
{
	return json_pack("{s:s, s:o, s:I, s:s?, s:s?, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "kind",
	                 mt_run_event_kind_name(ev->kind), "t_ms", jtime(ev->t_ms), "line",
	                 (json_int_t)ev->line, "key", ev->key, "text", ev->text, "value",
	                 jnum(ev->value), "step",
	                 ev->step >= 0 ? json_integer(ev->step) : json_null(), "epoch",
	                 jnum(ev->epoch), "samples", jnum(ev->samples), "tokens", jnum(ev->tokens),
	                 "padded", jnum(ev->padded), "seq", jnum(ev->seq));
}

/* --- one run's figures --------------------------------------------------------- */

void mt_run_opts_init(mt_run_opts *o)
{
	*o = (mt_run_opts){.submit_ms = MT_RUNLOG_NO_TIME,
	                   .end_ms = MT_RUNLOG_NO_TIME,
	                   .exit_status = -1,
	                   .warmup_steps = 5,
	                   .warmup_fraction = 0.1,
	                   .stall_factor = 5.0,
	                   .stall_window = 10,
	                   .unit = "samples",
	                   .target = NAN,
	                   .higher_is_better = 1};
}

void mt_run_metrics_dispose(mt_run_metrics *m)
{
	free(m->evals);
	free(m->stalls);
	memset(m, 0, sizeof(*m));
}

/* The first event of `kind` with a time, or NULL. */
static const mt_run_event *first_of(const mt_runlog *log, enum mt_run_event_kind kind)
{
	for (size_t i = 0; i < log->n_events; i++)
		if (log->events[i].kind == kind && log->events[i].t_ms != MT_RUNLOG_NO_TIME)
			return &log->events[i];
	return NULL;
}

/* The value of the first param event `key`, or NAN. */
static double param(const mt_runlog *log, const char *key)
{
	for (size_t i = 0; i < log->n_events; i++)
		if (log->events[i].kind == MT_RUN_EV_PARAM && strcmp(log->events[i].key, key) == 0)
			return log->events[i].value;
	return NAN;
}

static void status_of(mt_run_metrics *m, const mt_runlog *log, const mt_run_opts *o)
{
	const mt_run_event *stop = NULL;

	for (size_t i = 0; i < log->n_events; i++)
		if (log->events[i].kind == MT_RUN_EV_RUN_STOP)
			stop = &log->events[i];
	m->status = "unknown";
	if (stop && stop->text) {
		/* MLPerf writes success or aborted; anything else did not end well. */
		m->status = strcmp(stop->text, "success") == 0   ? "success"
		            : strcmp(stop->text, "aborted") == 0 ? "aborted"
		                                                 : "failed";
		m->status_from = "run_stop";
	} else if (o->exit_status >= 0) {
		m->status = o->exit_status == 0 ? "success" : "failed";
		m->status_from = "exit_status";
	}
}

/* A measured stretch of training: one step interval (between two step
 * lines, maybe several steps apart) or one epoch. */
struct interval {
	int64_t end_step; /* the step or epoch number it ends */
	double ms;        /* whole interval */
	double steps;     /* steps it covers (1 for an epoch) */
	double units;     /* tokens or samples it processed, NAN when unknown */
	double data_s;    /* waited for input over the interval (the ending line's
	                     data_s= per step, times its steps), NAN when not given */
	double comm_s;    /* communicating, the same way */
};

/* Step intervals: between consecutive step events that move forward. */
static size_t step_intervals(const mt_runlog *log, const mt_run_opts *o, struct interval *iv)
{
	const mt_run_event *prev = NULL;
	int tokens = o->unit && strcmp(o->unit, "tokens") == 0;
	double gbs = param(log, "global_batch_size");
	size_t n = 0;

	for (size_t i = 0; i < log->n_events; i++) {
		const mt_run_event *ev = &log->events[i];
		if (ev->kind != MT_RUN_EV_STEP || ev->t_ms == MT_RUNLOG_NO_TIME)
			continue;
		if (prev && ev->step > prev->step && ev->t_ms >= prev->t_ms) {
			double per = tokens                  ? ev->tokens
			             : isfinite(ev->samples) ? ev->samples
			                                     : gbs;
			double steps = (double)(ev->step - prev->step);
			iv[n++] = (struct interval){ev->step, (double)(ev->t_ms - prev->t_ms),
			                            steps, per * steps, ev->data_s * steps,
			                            ev->comm_s * steps};
		}
		prev = ev;
	}
	return n;
}

/* Epoch intervals, for an MLLOG run without step lines: epoch_start to the
 * next epoch_stop; an epoch is train_samples samples. */
static size_t epoch_intervals(const mt_runlog *log, const mt_run_opts *o, struct interval *iv)
{
	const mt_run_event *start = NULL;
	double per = o->unit && strcmp(o->unit, "samples") == 0 ? param(log, "train_samples") : NAN;
	size_t n = 0;

	for (size_t i = 0; i < log->n_events; i++) {
		const mt_run_event *ev = &log->events[i];
		if (ev->t_ms == MT_RUNLOG_NO_TIME)
			continue;
		if (ev->kind == MT_RUN_EV_EPOCH_START) {
			start = ev;
		} else if (ev->kind == MT_RUN_EV_EPOCH_STOP && start && ev->t_ms >= start->t_ms) {
			double e = isfinite(ev->epoch) ? ev->epoch : start->epoch;
			int64_t num = isfinite(e) && fabs(e) < 1e15 ? (int64_t)e : (int64_t)n + 1;
			iv[n++] = (struct interval){num, (double)(ev->t_ms - start->t_ms), 1, per, NAN, NAN};
			start = NULL;
		}
	}
	return n;
}

/* Stalls: an interval whose per-step time is more than stall_factor times
 * the median of the (up to) stall_window intervals on each side of it;
 * every interval is judged, warm-up included, since a recompilation for a
 * new shape can come at any time, the second step's too. Looking both ways
 * lets a stall near the start be seen (a run of six steps, two of them
 * compiling, has no window before them), and a stall stays one as long as
 * stalls are fewer than half of its neighbours. Marks stall[i]. */
static int find_stalls(mt_run_metrics *m, const struct interval *iv, size_t n, const mt_run_opts *o,
                       unsigned char *stall)
{
	size_t w = o->stall_window ? o->stall_window : 10;
	double *win = malloc(2 * w * sizeof(*win));

	m->stalls = calloc(n ? n : 1, sizeof(*m->stalls));
	if (!win || !m->stalls) {
		free(win);
		return mt_error_set(MT_EIO, "out of memory");
	}
	for (size_t i = 0; n >= 3 && i < n; i++) {
		size_t from = i > w ? i - w : 0, to = i + w < n ? i + w : n - 1, k = 0;
		double med, s = iv[i].ms / iv[i].steps / 1000;
		for (size_t j = from; j <= to; j++)
			if (j != i)
				win[k++] = iv[j].ms / iv[j].steps / 1000;
		med = mt_median(win, k);
		stall[i] = med > 0 && s > o->stall_factor * med;
		if (stall[i])
			m->stalls[m->n_stalls++] = (mt_run_stall){iv[i].end_step, s, med};
	}
	free(win);
	return 0;
}

/* Compilations: a new graph stalls the step that needs it. The first is
 * the first step's excess over a steady step (inside clock 1, start-up
 * included), when clock 1 is itself a stall; every stall's excess is one
 * more. The steady step is the median interval that is not a stall, over
 * the whole run (a short run's warm-up may leave no steady state). Neuron
 * compile-cache misses count them when the log has no step times. */
static int compiles(mt_run_metrics *m, const struct interval *iv, size_t n,
                    const unsigned char *stall, const mt_run_opts *o)
{
	double *v = malloc((n + 1) * sizeof(*v)), each;
	size_t k = 0;

	if (!v)
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!stall[i])
			v[k++] = iv[i].ms / iv[i].steps / 1000;
	m->compile_ref_s = mt_median(v, k);
	k = 0;
	if (isfinite(m->compile_ref_s) && isfinite(m->clock1_s) && m->clock1_to &&
	    strcmp(m->clock1_to, "first_step") == 0 && m->clock1_s > o->stall_factor * m->compile_ref_s)
		v[k++] = m->compile_first_s = m->clock1_s - m->compile_ref_s;
	for (size_t i = 0; isfinite(m->compile_ref_s) && i < n; i++)
		if (stall[i])
			v[k++] = (iv[i].ms - iv[i].steps * m->compile_ref_s * 1000) / 1000;
	m->compiles = k;
	m->compile_total_s = 0;
	for (size_t i = 0; i < k; i++)
		m->compile_total_s += v[i];
	each = mt_median(v, k);
	m->compile_each_s = k ? each : NAN;
	if (!k)
		m->compile_total_s = isfinite(m->compile_ref_s) ? 0 : NAN;
	m->compiles_from = isfinite(m->compile_ref_s) ? (m->cache_misses_all ? "both" : "stalls")
	                   : m->cache_misses_all ? "cache" : NULL;
	if (!isfinite(m->compile_ref_s) && m->cache_misses_all)
		m->compiles = m->cache_misses_all;
	free(v);
	return 0;
}

/* The share of the steady intervals' time that the intervals reporting
 * `waited` (data_s or comm_s) spent waiting; NAN when none reports it. */
static double wait_share(const struct interval *iv, size_t from, size_t n, int comm, size_t *reporting)
{
	double waited = 0, ms = 0;

	*reporting = 0;
	for (size_t i = from; i < n; i++) {
		double w = comm ? iv[i].comm_s : iv[i].data_s;
		if (!isfinite(w))
			continue;
		waited += w;
		ms += iv[i].ms;
		++*reporting;
	}
	return ms > 0 ? waited / (ms / 1000) : NAN;
}

/* Steady state: what is left after skipping the warm-up. */
static int steady(mt_run_metrics *m, const struct interval *iv, size_t n, const mt_run_opts *o)
{
	size_t skip = (size_t)ceil(o->warmup_fraction * (double)n);
	double ms = 0, steps = 0, units = 0, *per;

	if (skip < o->warmup_steps)
		skip = o->warmup_steps;
	m->intervals = n;
	m->warmup_skipped = skip < n ? skip : n;
	if (skip >= n)
		return 0;
	per = malloc((n - skip) * sizeof(*per));
	if (!per)
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = skip; i < n; i++) {
		per[i - skip] = iv[i].ms / iv[i].steps / 1000;
		ms += iv[i].ms;
		steps += iv[i].steps;
		units += iv[i].units; /* NAN as soon as one is unknown */
	}
	m->step_median_s = mt_median(per, n - skip);
	m->step_mean_s = ms / steps / 1000;
	m->throughput = ms > 0 ? units / (ms / 1000) : NAN;
	m->data_share = wait_share(iv, skip, n, 0, &m->data_intervals);
	m->comm_share = wait_share(iv, skip, n, 1, &m->comm_intervals);
	free(per);
	return 0;
}

/* The compile cache lines up to the first step (the start-up clock 1
 * measures) and in the whole log; what they say of the start. */
static void compile_cache(mt_run_metrics *m, const mt_runlog *log)
{
	int before = 1;

	for (size_t i = 0; i < log->n_events; i++) {
		enum mt_run_event_kind k = log->events[i].kind;
		before = before && k != MT_RUN_EV_STEP;
		m->cache_hits += before && k == MT_RUN_EV_CACHE_HIT;
		m->cache_misses += before && k == MT_RUN_EV_CACHE_MISS;
		m->cache_hits_all += k == MT_RUN_EV_CACHE_HIT;
		m->cache_misses_all += k == MT_RUN_EV_CACHE_MISS;
	}
	if (m->cache_hits || m->cache_misses)
		m->cache_inferred = !m->cache_misses ? "warm" : !m->cache_hits ? "cold" : "mixed";
}

/* 1 - tokens / padded over the steps that give both. */
static double padding_fraction(const mt_runlog *log)
{
	double tokens = 0, padded = 0;

	for (size_t i = 0; i < log->n_events; i++) {
		const mt_run_event *ev = &log->events[i];
		if (ev->kind == MT_RUN_EV_STEP && isfinite(ev->tokens) && isfinite(ev->padded)) {
			tokens += ev->tokens;
			padded += ev->padded;
		}
	}
	return padded > 0 ? 1 - tokens / padded : NAN;
}

static int timing(mt_run_metrics *m, const mt_runlog *log, const mt_run_opts *o)
{
	struct interval *iv = calloc(log->n_events ? log->n_events : 1, sizeof(*iv));
	unsigned char *stall = calloc(log->n_events ? log->n_events : 1, 1);
	size_t n;
	int error;

	if (!iv || !stall) {
		free(iv), free(stall);
		return mt_error_set(MT_EIO, "out of memory");
	}
	m->unit = o->unit;
	n = step_intervals(log, o, iv);
	m->interval = m->steps ? "step" : NULL;
	if (!m->steps && (n = epoch_intervals(log, o, iv)) > 0)
		m->interval = "epoch";
	error = find_stalls(m, iv, n, o, stall);
	if (!error)
		error = steady(m, iv, n, o);
	if (!error)
		error = compiles(m, iv, n, stall, o);
	free(iv), free(stall);
	return error;
}

static void clocks(mt_run_metrics *m, const mt_runlog *log, const mt_run_opts *o, int64_t *anchor)
{
	const mt_run_event *init = first_of(log, MT_RUN_EV_INIT_START);
	const mt_run_event *start = first_of(log, MT_RUN_EV_RUN_START);
	const mt_run_event *stop = first_of(log, MT_RUN_EV_RUN_STOP);
	const mt_run_event *step = first_of(log, MT_RUN_EV_STEP);

	*anchor = o->submit_ms;
	m->clock1_from = "submission";
	if (*anchor == MT_RUNLOG_NO_TIME && init) {
		*anchor = init->t_ms;
		m->clock1_from = "init_start";
	}
	m->clock1_to = step ? "first_step" : start ? "run_start" : NULL;
	if (*anchor == MT_RUNLOG_NO_TIME || !m->clock1_to) {
		m->clock1_from = m->clock1_to = NULL;
	} else {
		m->clock1_s = (double)((step ? step : start)->t_ms - *anchor) / 1000;
	}
	if (start && stop)
		m->run_minutes = (double)(stop->t_ms - start->t_ms) / 60000;
	if (start || step) {
		m->run_start_ms = (start ? start : step)->t_ms;
		m->run_start_from = start ? "run_start" : "first_step";
	}
}

/* The accounting boundary, one for every source: submission (the process's
 * start, else init_start, else the first event) to the attempt's end (the
 * process's end, else the last event), so that start-up, compilation and
 * an attempt that died before its first step are paid for too. */
static void attempt(mt_run_metrics *m, const mt_runlog *log, const mt_run_opts *o)
{
	const mt_run_event *init = first_of(log, MT_RUN_EV_INIT_START), *stop = NULL;

	for (size_t i = 0; i < log->n_events; i++)
		if (log->events[i].kind == MT_RUN_EV_RUN_STOP && log->events[i].t_ms != MT_RUNLOG_NO_TIME)
			stop = &log->events[i];
	m->attempt_start_ms = o->submit_ms != MT_RUNLOG_NO_TIME ? o->submit_ms
	                      : init                           ? init->t_ms
	                                                       : m->first_ms;
	m->attempt_start_from = o->submit_ms != MT_RUNLOG_NO_TIME ? "submission"
	                        : init                           ? "init_start"
	                                                         : "first_event";
	m->attempt_end_ms = o->end_ms != MT_RUNLOG_NO_TIME ? o->end_ms : m->last_ms;
	m->attempt_end_from = o->end_ms != MT_RUNLOG_NO_TIME           ? "process_end"
	                      : stop && stop->t_ms == m->last_ms ? "run_stop"
	                                                         : "last_event";
	/* a start without an end (no timed line): the caller may know the end */
	if (m->attempt_start_ms == MT_RUNLOG_NO_TIME)
		m->attempt_start_from = NULL;
	if (m->attempt_end_ms == MT_RUNLOG_NO_TIME)
		m->attempt_end_from = NULL;
}

static void to_target(mt_run_metrics *m, const mt_runlog *log, const mt_run_opts *o, int64_t anchor)
{
	const mt_run_event *start = first_of(log, MT_RUN_EV_RUN_START);

	if (!start)
		start = first_of(log, MT_RUN_EV_STEP);
	m->target_metric = o->target_metric;
	m->target = o->target;
	m->higher_is_better = o->higher_is_better;
	if (!o->target_metric)
		return;
	for (size_t i = 0; i < m->n_evals; i++) {
		const mt_run_event *ev = m->evals[i];
		if (strcmp(ev->key, o->target_metric) != 0 || ev->t_ms == MT_RUNLOG_NO_TIME)
			continue;
		if (o->higher_is_better ? ev->value >= o->target : ev->value <= o->target) {
			m->reached = 1;
			m->target_eval = ev;
			if (start)
				m->to_target_s = (double)(ev->t_ms - start->t_ms) / 1000;
			if (anchor != MT_RUNLOG_NO_TIME)
				m->to_target_submit_s = (double)(ev->t_ms - anchor) / 1000;
			return;
		}
	}
}

int mt_run_metrics_compute(mt_run_metrics *m, const mt_runlog *log, const mt_run_opts *o)
{
	int64_t anchor;
	int error;

	*m = (mt_run_metrics){.first_ms = MT_RUNLOG_NO_TIME,
	                      .last_ms = MT_RUNLOG_NO_TIME,
	                      .attempt_start_ms = MT_RUNLOG_NO_TIME,
	                      .attempt_end_ms = MT_RUNLOG_NO_TIME,
	                      .run_start_ms = MT_RUNLOG_NO_TIME,
	                      .clock1_s = NAN,
	                      .compile_each_s = NAN,
	                      .compile_total_s = NAN,
	                      .compile_first_s = NAN,
	                      .compile_ref_s = NAN,
	                      .run_minutes = NAN,
	                      .step_median_s = NAN,
	                      .step_mean_s = NAN,
	                      .throughput = NAN,
	                      .target = NAN,
	                      .to_target_s = NAN,
	                      .to_target_submit_s = NAN,
	                      .padding_fraction = NAN,
	                      .data_share = NAN,
	                      .comm_share = NAN,
	                      .warnings = log->warnings_total,
	                      .log = log};
	m->evals = calloc(log->n_events ? log->n_events : 1, sizeof(*m->evals));
	if (!m->evals)
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < log->n_events; i++) {
		const mt_run_event *ev = &log->events[i];
		if (ev->t_ms != MT_RUNLOG_NO_TIME) {
			if (m->first_ms == MT_RUNLOG_NO_TIME || ev->t_ms < m->first_ms)
				m->first_ms = ev->t_ms;
			if (m->last_ms == MT_RUNLOG_NO_TIME || ev->t_ms > m->last_ms)
				m->last_ms = ev->t_ms;
		}
		m->steps += ev->kind == MT_RUN_EV_STEP;
		if (ev->kind == MT_RUN_EV_STEP)
			m->last_step = ev;
		if (ev->kind == MT_RUN_EV_EVAL)
			m->evals[m->n_evals++] = ev;
	}
	status_of(m, log, o);
	compile_cache(m, log);
	m->token_unit = o->token_unit;
	m->padding_fraction = padding_fraction(log);
	clocks(m, log, o, &anchor);
	attempt(m, log, o);
	to_target(m, log, o, anchor);
	error = timing(m, log, o);
	if (error)
		mt_run_metrics_dispose(m);
	return error;
}

/* --- as JSON ------------------------------------------------------------------- */

static json_t *evals_json(const mt_run_metrics *m)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < m->n_evals; i++) {
		const mt_run_event *ev = m->evals[i];
		json_array_append_new(
		    a, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "metric", ev->key, "value",
		                 jnum(ev->value), "t_ms", jtime(ev->t_ms), "step",
		                 ev->step >= 0 ? json_integer(ev->step) : json_null(), "epoch",
		                 jnum(ev->epoch), "samples", jnum(ev->samples)));
	}
	return a;
}

static json_t *target_json(const mt_run_metrics *m)
{
	const mt_run_event *ev = m->target_eval;
	int evaluated = 0;
	json_t *t;

	if (!m->target_metric)
		return json_null();
	for (size_t i = 0; i < m->n_evals; i++)
		evaluated |= strcmp(m->evals[i]->key, m->target_metric) == 0;
	t = json_pack("{s:s, s:o, s:s, s:b, s:b, s:o, s:o, s:o, s:o}", "metric", m->target_metric,
	              "value", jnum(m->target), "direction",
	              m->higher_is_better ? "higher" : "lower", "evaluated", evaluated, "reached",
	              m->reached, "from_run_start_s", jnum(m->to_target_s), "from_submission_s",
	              jnum(m->to_target_submit_s), "at_step",
	              ev && ev->step >= 0 ? json_integer(ev->step) : json_null(), "at_epoch",
	              jnum(ev ? ev->epoch : NAN));
	if (t && !m->reached)
		json_object_set_new(t, "reason", json_string(evaluated ? "did not reach target"
		                                                       : "the log does not evaluate the metric"));
	return t;
}

/* The accounting boundary and the run's start (time to target counts from it). */
static void times_json(json_t *out, const mt_run_metrics *m)
{
	json_object_set_new(out, "attempt",
	                    m->attempt_start_from
	                        ? json_pack("{s:I, s:s, s:o, s:s?}", "start_ms",
	                                    (json_int_t)m->attempt_start_ms, "start_from",
	                                    m->attempt_start_from, "end_ms",
	                                    jtime(m->attempt_end_ms), "end_from",
	                                    m->attempt_end_from)
	                        : json_null());
	json_object_set_new(out, "run_start",
	                    m->run_start_from ? json_pack("{s:I, s:s}", "t_ms", (json_int_t)m->run_start_ms,
	                                                  "from", m->run_start_from)
	                                      : json_null());
}

/* The run's settings as the log states them (the first of each key):
 * submission_benchmark names the workload an MLPerf log ran. */
static json_t *params_json(const mt_run_metrics *m)
{
	json_t *p = json_object();

	for (size_t i = 0; p && m->log && i < m->log->n_events; i++) {
		const mt_run_event *ev = &m->log->events[i];
		if (ev->kind != MT_RUN_EV_PARAM || json_object_get(p, ev->key))
			continue;
		json_object_set_new(p, ev->key, ev->text ? json_string(ev->text) : jnum(ev->value));
	}
	return p;
}

/* What throughput counts, as a reader should see it: "samples/s",
 * "target tokens/s" (workload.token_unit), "tokens/s" (not declared). */
static void unit_name(char *buf, size_t size, const mt_run_metrics *m)
{
	const char *unit = m->unit ? m->unit : "samples";
	int tokens = strcmp(unit, "tokens") == 0;

	if (tokens && m->token_unit)
		snprintf(buf, size, "%s tokens/s", m->token_unit);
	else
		snprintf(buf, size, "%s/s", unit);
}

/* {share, intervals} of the steady time spent waiting, or null when no
 * steady interval reports it: not measured, never zero. */
static json_t *wait_json(double share, size_t intervals)
{
	if (!intervals || !isfinite(share))
		return json_null();
	return json_pack("{s:f, s:I}", "share", share, "intervals", (json_int_t)intervals);
}

static json_t *steady_json(const mt_run_metrics *m)
{
	char unit[64];

	if (!m->interval)
		return json_null();
	unit_name(unit, sizeof(unit), m);
	/* clock 2 is the mean, as throughput is: steady time over steps and
	 * over units, so that the two agree; the median is kept beside it */
	return json_pack("{s:s, s:I, s:I, s:o, s:s, s:o, s:o, s:o, s:s, s:s?, s:o, s:o, s:o}", "interval",
	                 m->interval, "intervals", (json_int_t)m->intervals, "warmup_skipped",
	                 (json_int_t)m->warmup_skipped, "step_s", jnum(m->step_mean_s), "statistic",
	                 "mean", "step_median_s", jnum(m->step_median_s),
	                 "step_mean_s", jnum(m->step_mean_s), "throughput", jnum(m->throughput),
	                 "unit", unit, "token_unit", m->token_unit, "padding_fraction",
	                 jnum(m->padding_fraction), "data_wait", wait_json(m->data_share, m->data_intervals),
	                 "comm_wait", wait_json(m->comm_share, m->comm_intervals));
}

/* The compilations found and what share of the attempt they took. */
static json_t *compiles_json(const mt_run_metrics *m)
{
	double span = m->attempt_start_ms != MT_RUNLOG_NO_TIME && m->attempt_end_ms != MT_RUNLOG_NO_TIME
	                  ? (double)(m->attempt_end_ms - m->attempt_start_ms) / 1000
	                  : NAN;

	if (!m->compiles_from)
		return json_null();
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:s, s:I}", "count", (json_int_t)m->compiles,
	                 "seconds_each", jnum(m->compile_each_s), "seconds_total",
	                 jnum(m->compile_total_s), "first_seconds", jnum(m->compile_first_s),
	                 "steady_step_s", jnum(m->compile_ref_s), "share",
	                 jnum(span > 0 ? m->compile_total_s / span : NAN), "from", m->compiles_from,
	                 "cache_misses", (json_int_t)m->cache_misses_all);
}

/* The compile cache lines the log holds and what they say of the start. */
static json_t *cache_json(const mt_run_metrics *m)
{
	return json_pack("{s:s?, s:I, s:I, s:I, s:I}", "inferred", m->cache_inferred, "hits",
	                 (json_int_t)m->cache_hits, "misses", (json_int_t)m->cache_misses,
	                 "hits_total", (json_int_t)m->cache_hits_all, "misses_total",
	                 (json_int_t)m->cache_misses_all);
}

json_t *mt_run_metrics_json(const mt_run_metrics *m)
{
	json_t *stalls = json_array(), *clock1 = json_null();

	for (size_t i = 0; stalls && i < m->n_stalls; i++)
		json_array_append_new(stalls, json_pack("{s:I, s:f, s:f}", "step",
		                                        (json_int_t)m->stalls[i].step, "seconds",
		                                        m->stalls[i].seconds, "median_s",
		                                        m->stalls[i].median_s));
	if (m->clock1_from)
		clock1 = json_pack("{s:o, s:s, s:s}", "seconds", jnum(m->clock1_s), "from",
		                   m->clock1_from, "to", m->clock1_to);
	json_t *last = m->last_step ? json_pack("{s:I, s:o, s:o}", "step", (json_int_t)m->last_step->step,
	                                        "loss", jnum(m->last_step->value), "t_ms",
	                                        jtime(m->last_step->t_ms))
	                            : json_null();
	json_t *out = json_pack(
	    "{s:s, s:s?, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o}",
	    "status",
	    m->status, "status_from", m->status_from, "first_ms", jtime(m->first_ms), "last_ms",
	    jtime(m->last_ms), "steps", (json_int_t)m->steps, "last_step", last, "evaluations",
	    evals_json(m), "clock1", clock1, "run_minutes", jnum(m->run_minutes), "steady",
	    steady_json(m), "stalls", stalls, "target", target_json(m), "compile_cache",
	    cache_json(m), "compiles", compiles_json(m), "warnings", (json_int_t)m->warnings, "params",
	    params_json(m));

	if (out)
		times_json(out, m);
	return out;
}

/* --- across runs ----------------------------------------------------------------- */

/* min, median, max and olympic mean of v[0..n) (reordered). */
static json_t *stats_json(double *v, size_t n)
{
	double med;

	if (n == 0)
		return json_pack("{s:n, s:n, s:n, s:n}", "min", "median", "max", "olympic_mean");
	med = mt_median(v, n); /* sorts */
	return json_pack("{s:f, s:f, s:f, s:o}", "min", v[0], "median", med, "max", v[n - 1],
	                 "olympic_mean", jnum(mt_olympic_mean(v, n)));
}

const char *mt_run_outcome(const char *status, json_t *target)
{
	if (status && strcmp(status, "running") == 0)
		return "running";
	if (!status || strcmp(status, "success") != 0)
		return "failed";
	if (!json_is_object(target))
		return "no_target";
	if (json_is_true(json_object_get(target, "reached")))
		return "reached";
	/* a target block from before "evaluated" was kept: its reason says */
	if (json_is_false(json_object_get(target, "evaluated")))
		return "no_metric";
	return "missed";
}

json_t *mt_run_summary_json(json_t *const *runs, size_t n)
{
	double *ttt = calloc(n ? n : 1, sizeof(*ttt)), *mins = calloc(n ? n : 1, sizeof(*mins));
	size_t nt = 0, nm = 0, failed = 0, missed = 0, no_metric = 0, running = 0, reached = 0;
	json_t *out = NULL;

	if (!ttt || !mins)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		const char *status = json_string_value(json_object_get(runs[i], "status"));
		json_t *target = json_object_get(runs[i], "target");
		json_t *t = json_object_get(target, "from_run_start_s");
		json_t *rm = json_object_get(runs[i], "run_minutes");
		const char *outcome = mt_run_outcome(status, target);
		failed += strcmp(outcome, "failed") == 0;
		missed += strcmp(outcome, "missed") == 0;
		no_metric += strcmp(outcome, "no_metric") == 0;
		running += strcmp(outcome, "running") == 0;
		reached += strcmp(outcome, "reached") == 0;
		if (strcmp(outcome, "reached") == 0 && json_is_number(t))
			ttt[nt++] = json_number_value(t);
		if (status && strcmp(status, "success") == 0 && json_is_number(rm))
			mins[nm++] = json_number_value(rm);
	}
	out = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "runs", (json_int_t)n, "failed",
	                (json_int_t)failed, "missed", (json_int_t)missed, "no_metric",
	                (json_int_t)no_metric, "running", (json_int_t)running, "reached",
	                (json_int_t)reached, "time_to_target_s", stats_json(ttt, nt), "run_minutes",
	                stats_json(mins, nm));
	if (out && (nt < 3 || nm < 3))
		json_object_set_new(out, "olympic_note",
		                    json_string("the olympic mean drops the fastest and the "
		                                "slowest run: it needs at least 3 values, "
		                                "null with fewer"));
cleanup:
	free(ttt);
	free(mins);
	return out;
}
