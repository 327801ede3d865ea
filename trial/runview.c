/* Reading a recorded run's JSON into trial/runview.h's structs: the only
 * place the keys of a run row, its figures and the per-system summary are
 * spelled outside the code that writes them (trial/journal_runs.c,
 * trial/runlog_metrics.c, trial/runs.c). */
#include "runview.h"
#include "error.h"
#include "jview.h"

#include <math.h>
#include <string.h>

/* 1, 0 or -1 for a boolean that is null (not known). */
static int tristate(mt_jview *v, const char *key, int required)
{
	const json_t *x = required ? mt_jview_get(v, key) : mt_jview_opt_get(v, key);
	return json_is_boolean(x) ? json_is_true(x) : -1;
}

/* The target block: mt_runs_target's shape, or the log's own
 * (runlog_metrics.c) in figures read straight from a log. */
static void read_target(mt_run_target_view *t, mt_jview *m)
{
	const json_t *obj = mt_jview_get(m, "target");
	mt_jview v;

	if (!json_is_object(obj))
		return;
	mt_jview_sub(&v, m, "target");
	t->known = 1;
	t->metric = mt_jview_str(&v, "metric");
	t->direction = mt_jview_str(&v, "direction");
	t->value = mt_jview_num(&v, "value");
	t->evaluated = tristate(&v, "evaluated", 0); /* records before it say none */
	t->reached = tristate(&v, "reached", 1);
	t->from_run_start_s = mt_jview_num(&v, "from_run_start_s");
	t->from_submission_s = mt_jview_num(&v, "from_submission_s");
	t->from_attempt_start_s = mt_jview_opt_num(&v, "from_attempt_start_s");
	t->at_step = mt_jview_int(&v, "at_step", -1);
	t->metrics_in_log = mt_jview_opt_str(&v, "metrics_in_log");
	t->reason = mt_jview_opt_str(&v, "reason");
	mt_jview_close(&v, m);
}

/* metrics.compiles: null when none were measured; absent in older records. */
static void read_compiles(mt_run_compiles_view *c, mt_jview *m)
{
	const json_t *obj = mt_jview_opt_get(m, "compiles");
	mt_jview v;

	if (!json_is_object(obj))
		return;
	mt_jview_sub(&v, m, "compiles");
	c->known = 1;
	c->count = mt_jview_int(&v, "count", 0);
	c->seconds_each = mt_jview_num(&v, "seconds_each");
	c->seconds_total = mt_jview_num(&v, "seconds_total");
	c->first_seconds = mt_jview_num(&v, "first_seconds");
	c->steady_step_s = mt_jview_num(&v, "steady_step_s");
	c->share = mt_jview_num(&v, "share");
	c->from = mt_jview_str(&v, "from");
	mt_jview_close(&v, m);
}

/* A number in a nested object (a required key) that may be null: NAN then. */
static double num_in(mt_jview *m, const char *obj, const char *key)
{
	const json_t *o = mt_jview_get(m, obj);
	mt_jview v;
	double x;

	if (!json_is_object(o))
		return NAN;
	mt_jview_sub(&v, m, obj);
	x = mt_jview_num(&v, key);
	mt_jview_close(&v, m);
	return x;
}

/* steady.data_wait or comm_wait's share: null (not measured) and older
 * records without the key are NAN. */
static double wait_share(mt_jview *steady, const char *key)
{
	mt_jview w;

	mt_jview_init(&w, mt_jview_opt_get(steady, key), steady->shape);
	return mt_jview_opt_num(&w, "share");
}

/* metrics.steady: null when no interval was measured. */
static void read_steady(mt_run_figures *f, mt_jview *m)
{
	mt_jview v;

	if (!json_is_object(mt_jview_get(m, "steady")))
		return;
	mt_jview_sub(&v, m, "steady");
	f->steady = 1;
	f->step_median_s = mt_jview_num(&v, "step_median_s");
	f->intervals = mt_jview_int(&v, "intervals", 0);
	f->warmup_skipped = mt_jview_int(&v, "warmup_skipped", 0);
	f->padding_fraction = mt_jview_opt_num(&v, "padding_fraction"); /* older records lack it */
	f->data_wait_share = wait_share(&v, "data_wait");
	f->comm_wait_share = wait_share(&v, "comm_wait");
	mt_jview_close(&v, m);
}

static void read_figures(mt_run_figures *f, mt_jview *m)
{
	f->known = 1;
	f->status = mt_jview_str(m, "status");
	f->first_ms = mt_jview_int(m, "first_ms", MT_RUNLOG_NO_TIME);
	f->last_ms = mt_jview_int(m, "last_ms", MT_RUNLOG_NO_TIME);
	f->steps = mt_jview_int(m, "steps", 0);
	f->warnings = mt_jview_int(m, "warnings", 0);
	f->run_minutes = mt_jview_num(m, "run_minutes");
	f->clock1_s = num_in(m, "clock1", "seconds");
	if (json_is_object(mt_jview_opt_get(m, "run_start"))) { /* older records lack it */
		mt_jview v;
		mt_jview_sub(&v, m, "run_start");
		f->run_start_ms = mt_jview_int(&v, "t_ms", MT_RUNLOG_NO_TIME);
		mt_jview_close(&v, m);
	}
	read_steady(f, m);
	read_target(&f->target, m);
	read_compiles(&f->compiles, m);
	f->topology = mt_jview_opt_get(m, "topology");
	f->launcher = mt_jview_opt_get(m, "launcher");
	f->evaluations = mt_jview_get(m, "evaluations");
	f->stalls = mt_jview_get(m, "stalls");
	if (json_is_object(mt_jview_get(m, "last_step"))) {
		mt_jview v;
		mt_jview_sub(&v, m, "last_step");
		f->last_step = mt_jview_int(&v, "step", -1);
		f->last_loss = mt_jview_num(&v, "loss");
		mt_jview_close(&v, m);
	}
	f->warning_list = mt_jview_opt_get(m, "warning_list");
}

int mt_runview_figures(mt_run_figures *f, const json_t *metrics)
{
	mt_jview m;

	mt_run_target_view *t = &f->target;
	mt_run_compiles_view *c = &f->compiles;

	memset(f, 0, sizeof(*f));
	f->first_ms = f->last_ms = f->run_start_ms = MT_RUNLOG_NO_TIME;
	f->clock1_s = f->step_median_s = f->padding_fraction = f->run_minutes = NAN;
	f->data_wait_share = f->comm_wait_share = NAN;
	f->last_step = -1, f->last_loss = NAN;
	t->value = t->from_run_start_s = t->from_submission_s = t->from_attempt_start_s = NAN;
	t->evaluated = t->reached = -1;
	t->at_step = -1;
	c->seconds_each = c->seconds_total = c->first_seconds = c->steady_step_s = c->share = NAN;
	if (!json_is_object(metrics))
		return 0;
	mt_jview_init(&m, metrics, "run figures");
	read_figures(f, &m);
	return mt_jview_complete(&m);
}

/* The withdrawal {when, who, why} of a run listed with it. */
static void read_withdrawn(mt_run_view *r, mt_jview *v)
{
	mt_jview w;

	if (!json_is_object(mt_jview_get(v, "withdrawn")))
		return;
	mt_jview_sub(&w, v, "withdrawn");
	r->withdrawn = 1;
	r->withdrawn_when = mt_jview_str(&w, "when");
	r->withdrawn_who = mt_jview_str(&w, "who");
	r->withdrawn_why = mt_jview_str(&w, "why");
	mt_jview_close(&w, v);
}

/* The journal's columns (trial/journal_runs.c). */
static void read_row(mt_run_view *r, mt_jview *v)
{
	const json_t *exit_status;

	r->id = mt_jview_int(v, "id", 0);
	r->system = mt_jview_str(v, "system");
	r->track = mt_jview_str(v, "track");
	r->label = mt_jview_str(v, "label");
	r->cache = mt_jview_str(v, "cache");
	r->origin = mt_jview_str(v, "origin");
	r->command = mt_jview_str(v, "command");
	r->source = mt_jview_str(v, "source");
	r->status = mt_jview_str(v, "status");
	r->note = mt_jview_opt_str(v, "note");
	r->started = mt_jview_str(v, "started");
	r->ended = mt_jview_str(v, "ended");
	r->started_ms = mt_jview_int(v, "started_ms", 0);
	exit_status = mt_jview_get(v, "exit_status");
	r->has_exit = json_is_integer(exit_status);
	r->exit_status = r->has_exit ? (int)json_integer_value(exit_status) : -1;
	r->rehearsal = mt_jview_bool(v, "rehearsal", 0);
	/* a run recorded before designs, or evidence built without one */
	r->design = mt_jview_opt_str(v, "design") ?: "matched";
	r->design_changes = mt_jview_opt_get(v, "design_changes");
	read_withdrawn(r, v);
	r->live = mt_jview_opt_get(v, "live");
}

/* throughput {value, unit} and accounting {from, to, hours} | null. */
static void read_rates(mt_run_view *r, mt_jview *v)
{
	mt_jview s;

	mt_jview_sub(&s, v, "throughput");
	r->throughput = mt_jview_num(&s, "value");
	r->throughput_unit = mt_jview_opt_str(&s, "unit"); /* absent without a steady state */
	mt_jview_close(&s, v);
	if (!json_is_object(mt_jview_get(v, "accounting")))
		return;
	mt_jview_sub(&s, v, "accounting");
	r->accounting_from = mt_jview_str(&s, "from");
	r->accounting_to = mt_jview_str(&s, "to");
	r->accounting_hours = mt_jview_num(&s, "hours");
	mt_jview_close(&s, v);
}

/* What mt_runs_flatten adds. */
static void read_flat(mt_run_view *r, mt_jview *v)
{
	mt_run_devices_view *d = &r->devices;

	r->flattened = 1;
	r->outcome = mt_jview_str(v, "outcome");
	r->reached = tristate(v, "reached", 1);
	r->clock1_s = mt_jview_num(v, "clock1_s");
	r->steady_step_s = mt_jview_num(v, "steady_step_s");
	r->steady_statistic = mt_jview_str(v, "steady_statistic");
	r->time_to_target_s = mt_jview_num(v, "time_to_target_s");
	r->time_to_target_from_submission_s = mt_jview_num(v, "time_to_target_from_submission_s");
	r->run_minutes = mt_jview_num(v, "run_minutes");
	read_rates(r, v);
	d->count = mt_jview_num(v, "devices");
	d->from = mt_jview_str(v, "devices_from");
	d->device_hours = mt_jview_num(v, "device_hours");
	d->device_hours_to_target = mt_jview_num(v, "device_hours_to_target");
	d->hourly_cost = mt_jview_num(v, "hourly_cost");
	d->cost = mt_jview_num(v, "cost");
	d->cost_to_target = mt_jview_num(v, "cost_to_target");
	d->not_priced = mt_jview_opt_str(v, "not_priced");
	r->cache_inferred = mt_jview_str(v, "cache_inferred");
	r->cache_warning = mt_jview_opt_str(v, "cache_warning");
	r->metric_warning = mt_jview_opt_str(v, "metric_warning");
	r->workload_warning = mt_jview_opt_str(v, "workload_warning");
}

int mt_runview_read(mt_run_view *r, const json_t *run)
{
	mt_run_devices_view *d = &r->devices;
	mt_jview v;
	int error, figures;

	memset(r, 0, sizeof(*r));
	r->reached = -1;
	r->clock1_s = r->steady_step_s = r->throughput = r->time_to_target_s = NAN;
	r->time_to_target_from_submission_s = r->run_minutes = r->accounting_hours = NAN;
	d->count = d->device_hours = d->device_hours_to_target = d->cost = d->cost_to_target = NAN;
	mt_jview_init(&v, run, "run");
	read_row(r, &v);
	figures = mt_runview_figures(&r->figures, mt_jview_get(&v, "metrics"));
	/* a row not flattened (trial/econ.c reads the journal's) has none of it */
	if (json_object_get(run, "outcome"))
		read_flat(r, &v);
	error = mt_jview_complete(&v);
	return error < 0 ? error : figures;
}

/* The i-th object of array a, or MT_ENOTFOUND past its end. */
static int item(mt_jview *v, const json_t *a, size_t i, const char *shape)
{
	const json_t *x = json_array_get(a, i);

	if (!x)
		return MT_ENOTFOUND;
	mt_jview_init(v, x, shape);
	return 0;
}

int mt_runview_eval(mt_run_eval_view *out, const mt_run_figures *f, size_t i)
{
	mt_jview v;

	if (item(&v, f->evaluations, i, "run evaluation") < 0)
		return MT_ENOTFOUND;
	out->metric = mt_jview_str(&v, "metric");
	out->value = mt_jview_num(&v, "value");
	out->t_ms = mt_jview_int(&v, "t_ms", MT_RUNLOG_NO_TIME);
	out->step = mt_jview_int(&v, "step", -1);
	return mt_jview_complete(&v);
}

int mt_runview_stall(mt_run_stall_view *out, const mt_run_figures *f, size_t i)
{
	mt_jview v;

	if (item(&v, f->stalls, i, "run stall") < 0)
		return MT_ENOTFOUND;
	out->step = mt_jview_int(&v, "step", -1);
	out->seconds = mt_jview_num(&v, "seconds");
	out->median_s = mt_jview_num(&v, "median_s");
	return mt_jview_complete(&v);
}

int mt_runview_warning(mt_run_warning_view *out, const mt_run_figures *f, size_t i)
{
	mt_jview v;

	if (item(&v, f->warning_list, i, "run warning") < 0)
		return MT_ENOTFOUND;
	out->line = mt_jview_int(&v, "line", 0);
	out->message = mt_jview_str(&v, "message");
	return mt_jview_complete(&v);
}

/* min, median, max and olympic mean of a summary (mt_run_summary_json). */
static void read_spread(mt_run_spread *out, mt_jview *v, const char *key)
{
	mt_jview s;

	mt_jview_sub(&s, v, key);
	out->min = mt_jview_num(&s, "min");
	out->median = mt_jview_num(&s, "median");
	out->max = mt_jview_num(&s, "max");
	out->olympic_mean = mt_jview_num(&s, "olympic_mean");
	mt_jview_close(&s, v);
}

int mt_runview_system(mt_run_system_view *s, const json_t *systems, const char *name)
{
	mt_jview v;

	memset(s, 0, sizeof(*s));
	s->devices = s->price_hourly = NAN;
	s->time_to_target_s = s->run_minutes = (mt_run_spread){NAN, NAN, NAN, NAN};
	mt_jview_init(&v, json_object_get(systems, name), "runs by system");
	if (!v.obj)
		return 0;
	s->known = 1;
	s->runs = mt_jview_int(&v, "runs", 0);
	s->failed = mt_jview_int(&v, "failed", 0);
	s->missed = mt_jview_int(&v, "missed", 0);
	s->no_metric = mt_jview_int(&v, "no_metric", 0);
	s->running = mt_jview_int(&v, "running", 0);
	s->reached = mt_jview_int(&v, "reached", 0);
	read_spread(&s->time_to_target_s, &v, "time_to_target_s");
	read_spread(&s->run_minutes, &v, "run_minutes");
	s->devices = mt_jview_num(&v, "devices");
	s->price_hourly = mt_jview_num(&v, "price_hourly");
	s->several_topologies = json_is_true(mt_jview_opt_get(&v, "several_topologies"));
	return mt_jview_complete(&v);
}

int mt_runview_launcher(mt_run_launcher_view *l, const json_t *launcher)
{
	mt_jview v;

	mt_jview_init(&v, launcher, "launcher");
	l->launcher = mt_jview_str(&v, "launcher");
	l->rank_from = mt_jview_str(&v, "rank_from");
	l->job = mt_jview_opt_str(&v, "job");
	l->ranks = mt_jview_opt_int(&v, "ranks", 0);
	l->hosts = json_is_array(mt_jview_opt_get(&v, "hosts")) ? mt_jview_opt_get(&v, "hosts")
								 : NULL;
	l->hosts_from = mt_jview_opt_str(&v, "hosts_from");
	l->hosts_text = mt_jview_opt_str(&v, "hosts_text");
	return mt_jview_complete(&v);
}

int mt_runview_topology(mt_run_topology_view *tp, const json_t *topology)
{
	mt_jview v;

	mt_jview_init(&v, topology, "system description");
	tp->source = mt_jview_str(&v, "source");
	tp->system_name = mt_jview_str(&v, "system_name");
	tp->accelerator = mt_jview_str(&v, "accelerator");
	tp->nodes = mt_jview_num(&v, "nodes");
	tp->accelerators_per_node = mt_jview_num(&v, "accelerators_per_node");
	tp->devices = mt_jview_num(&v, "devices");
	return mt_jview_complete(&v);
}
