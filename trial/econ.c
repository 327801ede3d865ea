/* Compile economics of a trial (see econ.h): the runs' own logs and stored
 * figures, read for the bucket advisor and the break-even. */
#include "econ.h"

#include "error.h"
#include "journal.h"
#include "runlog.h"
#include "runs.h"
#include "runview.h"
#include "stats.h"
#include "topology.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mt_run_shapes_dispose(mt_run_shapes *s)
{
	if (!s)
		return;
	free(s->lengths);
	free(s->fit_len);
	free(s->fit_s);
	memset(s, 0, sizeof(*s));
}

/* How run r's log (read from path) is laid out: `mtrial run`'s timed
 * lines, else what the imported file's name and first bytes say. */
static enum mt_runs_log_format format_of(const mt_run_view *r, const char *path)
{
	char head[4096];
	size_t len = 0;
	FILE *f;

	if (strcmp(r->origin ?: "", "run") == 0)
		return MT_RUNS_LOG_TIMED;
	if ((f = fopen(path, "rb"))) {
		len = fread(head, 1, sizeof(head), f);
		fclose(f);
	}
	return mt_runs_sniff(r->source ?: path, head, len);
}

/* Run `id` as the journal lists it (*out, read into *v); MT_ENOTFOUND for
 * none or a withdrawn one. */
static int run_of(json_t **out, mt_run_view *v, mt_trial *t, int64_t id)
{
	json_t *runs = mt_journal_runs_json(t->journal, id), *r;

	if (!runs)
		return mt_error_last_code() ? mt_error_last_code() : MT_EIO;
	r = json_array_get(runs, 0);
	if (!r) {
		json_decref(runs);
		return mt_error_set(MT_ENOTFOUND, "run %lld: no such run (mtrial runs lists them)",
		                    (long long)id);
	}
	(void)mt_runview_read(v, r);
	if (v->withdrawn) {
		json_decref(runs);
		return mt_error_set(MT_ENOTFOUND, "run %lld was withdrawn (mtrial runs --all)",
		                    (long long)id);
	}
	*out = json_incref(r);
	json_decref(runs);
	return 0;
}

/* Every stall of m, so that its interval leaves the fit. */
static int is_stall(const mt_run_metrics *m, int64_t step)
{
	for (size_t i = 0; i < m->n_stalls; i++)
		if (m->stalls[i].step == step)
			return 1;
	return 0;
}

/* The lengths and the fit's points out of a log read with its figures. */
static int collect(mt_run_shapes *s, const mt_runlog *log, const mt_run_metrics *m)
{
	const mt_run_event *prev = NULL;
	size_t intervals = 0;

	s->lengths = calloc(log->n_events + 1, sizeof(*s->lengths));
	s->fit_len = calloc(log->n_events + 1, sizeof(*s->fit_len));
	s->fit_s = calloc(log->n_events + 1, sizeof(*s->fit_s));
	if (!s->lengths || !s->fit_len || !s->fit_s)
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < log->n_events; i++) {
		const mt_run_event *ev = &log->events[i];
		int forward;
		if (ev->kind != MT_RUN_EV_STEP)
			continue;
		forward = prev && ev->step > prev->step;
		if (!isfinite(ev->seq) || ev->seq < 1 || ev->seq > 1e12) {
			s->steps_without_seq++;
		} else {
			uint64_t k = forward ? (uint64_t)(ev->step - prev->step) : 1;
			s->lengths[s->n_lengths++] = (mt_length_count){(int64_t)ceil(ev->seq), k};
		}
		if (forward && ev->t_ms != MT_RUNLOG_NO_TIME && prev->t_ms != MT_RUNLOG_NO_TIME &&
		    ev->t_ms >= prev->t_ms) {
			if (intervals++ >= m->warmup_skipped && !is_stall(m, ev->step) && isfinite(ev->seq) &&
			    ev->seq >= 1) {
				s->fit_len[s->n_fit] = ceil(ev->seq);
				s->fit_s[s->n_fit++] = (double)(ev->t_ms - prev->t_ms) / 1000 /
				                       (double)(ev->step - prev->step);
			}
		}
		if (!prev || ev->step > prev->step)
			prev = ev;
	}
	return 0;
}

int mt_econ_run_shapes(mt_run_shapes *out, mt_trial *t, int64_t id)
{
	mt_runlog_rules *rules = NULL;
	mt_runlog log;
	mt_run_metrics m;
	mt_run_opts o;
	mt_run_view v;
	json_t *r = NULL;
	char *path = NULL;
	int error, logged = 0;

	memset(out, 0, sizeof(*out));
	if ((error = run_of(&r, &v, t, id)) < 0 || (error = mt_runlog_rules_load(&rules)) < 0)
		goto done;
	path = mt_trial_run_log(t, v.id, v.system, v.source);
	if (!path) {
		error = mt_error_set(MT_ENOTFOUND, "run %lld has no log", (long long)id);
		goto done;
	}
	mt_runlog_init(&log, rules);
	logged = 1;
	if ((error = mt_runs_log_feed(&log, path, format_of(&v, path), NULL)) < 0)
		goto done;
	mt_run_opts_init(&o);
	if ((error = mt_run_metrics_compute(&m, &log, &o)) < 0)
		goto done;
	error = collect(out, &log, &m);
	mt_run_metrics_dispose(&m);
	if (!error && !out->n_lengths)
		error = mt_error_set(MT_EINVALID,
		                     "run %lld: its log gives no sequence length: print seq=LENGTH on "
		                     "each step line (mtrial:step=N loss=X seq=L), or give a series a "
		                     "seq column",
		                     (long long)id);
done:
	if (logged)
		mt_runlog_dispose(&log);
	mt_runlog_rules_free(rules);
	json_decref(r);
	free(path);
	if (error)
		mt_run_shapes_dispose(out);
	return error;
}

/* The runs that are evidence for `system`: not rehearsals, not withdrawn
 * (the journal's list leaves those out). New reference. */
static json_t *evidence(mt_trial *t, const char *system, const char *design)
{
	json_t *all = mt_runs_standing(t), *out = json_array(), *r;
	size_t i;

	if (!all || !out) {
		json_decref(all), json_decref(out);
		return NULL;
	}
	json_array_foreach(all, i, r) {
		mt_run_view v;
		(void)mt_runview_read(&v, r);
		if (v.system && strcmp(v.system, system) == 0 && !v.rehearsal &&
		    (!design || strcmp(v.design, design) == 0))
			json_array_append(out, r);
	}
	json_decref(all);
	return out;
}

int mt_econ_compile_seconds(double *out, json_t **runs, size_t *left_out, mt_trial *t,
                            const char *design)
{
	json_t *c = evidence(t, "candidate", NULL), *r;
	double *v;
	size_t i, n = 0, others = 0;

	*runs = NULL;
	design = design ? design : "matched";
	if (!c)
		return mt_error_set(MT_EIO, "out of memory");
	if (!(v = malloc((json_array_size(c) + 1) * sizeof(*v))) || !(*runs = json_array())) {
		free(v), json_decref(c);
		return mt_error_set(MT_EIO, "out of memory");
	}
	json_array_foreach(c, i, r) {
		mt_run_view rv;
		(void)mt_runview_read(&rv, r);
		if (isfinite(rv.figures.compiles.seconds_each) &&
		    strcmp(rv.design ? rv.design : "matched", design) != 0) {
			others++; /* another experiment: never in this median */
		} else if (isfinite(rv.figures.compiles.seconds_each)) {
			v[n++] = rv.figures.compiles.seconds_each;
			json_array_append_new(*runs, json_integer(rv.id));
		}
	}
	*out = mt_median(v, n);
	free(v), json_decref(c);
	if (left_out)
		*left_out = others;
	if (!n) {
		json_decref(*runs), *runs = NULL;
		return mt_error_set(MT_ENOTFOUND, "no candidate run of the %s design has a measured "
		                    "compilation (mtrial runs)%s: pass --compile-seconds SECONDS",
		                    design, others ? ", the other design's are another experiment" : "");
	}
	return 0;
}

double mt_econ_price(const mt_trial *t, const char *system, const char **why)
{
	mt_topology topo;
	int ambiguous;

	mt_topology_init(&topo);
	if (t && t->spec)
		mt_topology_from_spec(&topo, t->spec, system, 0, &ambiguous);
	return mt_topology_hourly_cost(&topo, t ? t->spec : NULL, system, why);
}

/* One run that can be a side: its topology's devices, start and step. */
struct side_run {
	int64_t id, devices;
	double start, step, hourly;
	const char *not_priced; /* borrowed from the runs read */
};

/* The runs of `system` with clock 1 and a steady step (*out, *n); their
 * strings are borrowed from *record. */
static int side_runs(struct side_run **out, size_t *n, json_t **record, mt_trial *t,
                     const char *system, const char *design)
{
	json_t *runs = evidence(t, system, design), *r;
	size_t i;

	*n = 0;
	*record = runs;
	if (!runs || !(*out = calloc(json_array_size(runs) + 1, sizeof(**out))))
		return mt_error_set(MT_EIO, "out of memory");
	json_array_foreach(runs, i, r) {
		mt_run_view v;
		(void)mt_runview_read(&v, r);
		double c1 = v.figures.clock1_s, st = v.figures.step_median_s;
		double all = v.figures.compiles.seconds_total, first = v.figures.compiles.first_seconds;
		if (!isfinite(c1) || !isfinite(st))
			continue;
		(*out)[(*n)++] = (struct side_run){
		    .id = v.id,
		    .devices = isfinite(v.devices.count) ? (int64_t)v.devices.count : 0,
		    .start = c1 + (isfinite(all) ? all - (isfinite(first) ? first : 0) : 0),
		    .step = st,
		    .hourly = v.devices.hourly_cost,
		    .not_priced = v.devices.not_priced};
	}
	return 0;
}

/* The side of the runs at `devices`: medians, and their hourly cost when
 * they all have the same one. */
static void side_of(mt_breakeven_side *s, const char **unpriced, json_t *ids,
                    const struct side_run *r, size_t n, int64_t devices, double *buf)
{
	size_t k = 0;

	s->price_per_hour = NAN;
	*unpriced = NULL;
	for (size_t i = 0; i < n; i++)
		if (r[i].devices == devices) {
			buf[k] = r[i].start, buf[n + k++] = r[i].step;
			json_array_append_new(ids, json_integer(r[i].id));
			if (!*unpriced && !isfinite(r[i].hourly))
				*unpriced = r[i].not_priced ? r[i].not_priced
				                            : "trial.yaml gives no hourly price for it";
			else if (k > 1 && isfinite(s->price_per_hour) && s->price_per_hour != r[i].hourly)
				*unpriced = "its runs have different hourly costs (their hosts differ)";
			s->price_per_hour = r[i].hourly;
		}
	if (*unpriced)
		s->price_per_hour = NAN;
	s->clock1_s = mt_median(buf, k);
	s->step_s = mt_median(buf + n, k);
}

/* The distinct device counts of r[0..n), smallest first, into d; how many. */
static size_t topologies(int64_t *d, const struct side_run *r, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < k && d[j] != r[i].devices)
			j++;
		if (j < k)
			continue;
		for (j = k++; j > 0 && d[j - 1] > r[i].devices; j--)
			d[j] = d[j - 1];
		d[j] = r[i].devices;
	}
	return k;
}

void mt_econ_breakeven_pair_label(const mt_econ_breakeven_pair *p, char *buf, size_t size)
{
	char d[2][32];

	for (int s = 0; s < 2; s++)
		if (p->devices[s])
			snprintf(d[s], sizeof(d[s]), "%lld device%s", (long long)p->devices[s],
			         p->devices[s] == 1 ? "" : "s");
		else
			snprintf(d[s], sizeof(d[s]), "devices not known");
	snprintf(buf, size, "baseline %s, candidate %s", d[0], d[1]);
}

int mt_econ_breakeven_pair_compute(mt_breakeven *out, const mt_econ_breakeven_pair *p)
{
	int error = mt_breakeven_compute(out, &p->side[0], &p->side[1]);

	if (!error && (p->unpriced[0] || p->unpriced[1]))
		out->cost_reason = p->unpriced[0] ? p->unpriced[0] : p->unpriced[1];
	return error;
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const mt_econ_breakeven_pair *p, int s)
{
	return json_pack("{s:f, s:f, s:o, s:s?}", "start_s", p->side[s].clock1_s, "step_s",
	                 p->side[s].step_s, "hourly_cost", real_or_null(p->side[s].price_per_hour),
	                 "unpriced", p->unpriced[s]);
}

json_t *mt_econ_breakeven_pair_json(const mt_econ_breakeven_pair *p, const mt_breakeven *b)
{
	json_t *j = mt_breakeven_json(b);
	char label[96];

	if (!j)
		return NULL;
	mt_econ_breakeven_pair_label(p, label, sizeof(label));
	json_object_set_new(j, "topology", json_string(label));
	for (int s = 0; s < 2; s++) {
		json_object_set_new(j, s ? "candidate_devices" : "baseline_devices",
		                    p->devices[s] ? json_integer(p->devices[s]) : json_null());
		json_object_set_new(j, s ? "candidate" : "baseline", side_json(p, s));
	}
	json_object_set_new(j, "runs", p->runs ? json_incref(p->runs) : json_null());
	return j;
}

void mt_econ_breakeven_sides_dispose(mt_econ_breakeven_sides_result *r)
{
	for (size_t i = 0; r && i < r->n; i++)
		json_decref(r->pairs[i].runs);
	if (r) {
		free(r->pairs);
		json_decref(r->record[0]), json_decref(r->record[1]);
		memset(r, 0, sizeof(*r));
	}
}

/* Every topology of the baseline against every one of the candidate. */
static int pairs_of(mt_econ_breakeven_sides_result *out, struct side_run *const run[2],
                    const size_t n[2])
{
	int64_t *d[2] = {calloc(n[0] + 1, sizeof(int64_t)), calloc(n[1] + 1, sizeof(int64_t))};
	double *buf = calloc(2 * (n[0] + n[1]) + 2, sizeof(double));
	size_t k[2] = {d[0] ? topologies(d[0], run[0], n[0]) : 0,
	               d[1] ? topologies(d[1], run[1], n[1]) : 0};
	int error = 0;

	out->pairs = calloc(k[0] * k[1] + 1, sizeof(*out->pairs));
	if (!d[0] || !d[1] || !buf || !out->pairs)
		error = mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; !error && i < k[0]; i++)
		for (size_t j = 0; j < k[1]; j++) {
			mt_econ_breakeven_pair *p = &out->pairs[out->n++];
			json_t *ids[2] = {json_array(), json_array()};
			p->devices[0] = d[0][i], p->devices[1] = d[1][j];
			for (int s = 0; s < 2; s++)
				side_of(&p->side[s], &p->unpriced[s], ids[s], run[s], n[s],
				        p->devices[s], buf);
			p->runs = json_pack("{s:o, s:o}", "baseline", ids[0], "candidate", ids[1]);
		}
	free(d[0]), free(d[1]), free(buf);
	return error;
}

int mt_econ_breakeven_sides(mt_econ_breakeven_sides_result *out, mt_trial *t, const char *design)
{
	static const char *const systems[] = {"baseline", "candidate"};
	struct side_run *run[2] = {NULL, NULL};
	size_t n[2] = {0, 0};
	int error = 0;

	memset(out, 0, sizeof(*out));
	design = design ? design : "matched";
	for (int s = 0; s < 2 && !error; s++)
		if (!(error = side_runs(&run[s], &n[s], &out->record[s], t, systems[s], design)) &&
		    !n[s])
			error = mt_error_set(MT_ENOTFOUND, "the %s has no run of the %s design with "
			                     "both a clock 1 and a steady step (mtrial runs): pass "
			                     "--%s CLOCK1_S,STEP_S",
			                     systems[s], design, systems[s]);
	if (!error)
		error = pairs_of(out, run, n);
	free(run[0]), free(run[1]);
	if (error)
		mt_econ_breakeven_sides_dispose(out);
	return error;
}

void mt_econ_buckets_dispose(mt_econ_buckets_result *r)
{
	if (!r)
		return;
	mt_bucket_advice_dispose(&r->advice);
	json_decref(r->compile_runs);
	memset(r, 0, sizeof(*r));
}

/* The design whose compile times req reads: --design when given, else
 * the design of the run it reads (--from run), else matched. A --design
 * that is not the run's is refused naming both: the run's lengths and its
 * steps are one experiment's, the compile time would be another's. */
static int design_of(const char **out, mt_trial *t, const mt_econ_buckets_req *req)
{
	mt_run_view v;
	json_t *r = NULL;
	int error;

	*out = req->design && strcmp(req->design, "best") == 0 ? "best" : "matched";
	if (!t || req->from_run <= 0)
		return 0;
	if ((error = run_of(&r, &v, t, req->from_run)) < 0)
		return error;
	if (req->design && strcmp(req->design, v.design) != 0)
		error = mt_error_set(MT_EUSAGE, "--design %s, but run %lld is of the %s design: its "
		                     "lengths and steps are that experiment's, never pooled with the "
		                     "%s design's compile times; drop --design (the run's design is "
		                     "the default), or move the run (mtrial runs design %lld %s --why "
		                     "TEXT)",
		                     req->design, (long long)req->from_run, v.design, req->design,
		                     (long long)req->from_run, req->design);
	else
		*out = strcmp(v.design, "best") == 0 ? "best" : "matched";
	json_decref(r);
	return error;
}

/* The lengths of req: its file's, or its run's with the fit's points. */
static int lengths_of(mt_length_count **v, size_t *n, mt_run_shapes *shapes, mt_trial *t,
                      const mt_econ_buckets_req *req)
{
	int error;

	if (req->lengths_file)
		return mt_buckets_read_lengths(v, n, req->lengths_file);
	if (!t || req->from_run <= 0)
		return mt_error_set(MT_EUSAGE, "give --lengths FILE or --from run ID");
	if ((error = mt_econ_run_shapes(shapes, t, req->from_run)) < 0)
		return error;
	*v = shapes->lengths, *n = shapes->n_lengths;
	shapes->lengths = NULL;
	return 0;
}

int mt_econ_buckets(mt_econ_buckets_result *out, mt_trial *t, const mt_econ_buckets_req *req)
{
	mt_run_shapes shapes = {0};
	mt_length_count *v = NULL;
	size_t n = 0;
	double coef[3];
	int error;

	memset(out, 0, sizeof(*out));
	mt_bucket_opts_init(&out->used);
	out->used.multiple = req->multiple, out->used.max_buckets = req->max_buckets;
	out->used.compile_s = req->compile_s;
	out->used.a = req->a, out->used.b = req->b, out->used.c = req->c;
	if (req->step_auto && (req->lengths_file || req->from_run <= 0)) {
		error = mt_error_set(MT_EUSAGE, "--step-seconds auto fits a run's steps: it needs "
		                     "--from run ID (or give --step-seconds A,B[,C])");
		goto done;
	}
	if ((error = design_of(&out->design, t, req)) < 0 ||
	    (error = lengths_of(&v, &n, &shapes, t, req)) < 0)
		goto done;
	out->steps_without_seq = shapes.steps_without_seq;
	if (req->compile_auto) {
		if (!t) {
			error = mt_error_set(MT_EUSAGE, "--compile-seconds auto reads the trial's runs");
			goto done;
		}
		if ((error = mt_econ_compile_seconds(&out->used.compile_s, &out->compile_runs,
		                                     &out->compile_left_out, t, out->design)) < 0)
			goto done;
	}
	if (req->step_auto) {
		double seen[3];
		size_t distinct = 0;
		for (size_t i = 0; i < shapes.n_fit && distinct < 3; i++) {
			size_t k = 0;
			while (k < distinct && seen[k] != shapes.fit_len[i])
				k++;
			if (k == distinct)
				seen[distinct++] = shapes.fit_len[i];
		}
		if ((error = mt_buckets_fit(coef, shapes.fit_len, shapes.fit_s, shapes.n_fit,
		                            distinct >= 3)) < 0) {
			mt_error_prefix(error, "run %lld, --step-seconds auto: ", (long long)req->from_run);
			goto done;
		}
		out->used.a = coef[0], out->used.b = coef[1], out->used.c = coef[2];
		out->fit_points = shapes.n_fit;
	}
	error = mt_buckets_advise(&out->advice, v, n, &out->used);
done:
	free(v);
	mt_run_shapes_dispose(&shapes);
	if (error)
		mt_econ_buckets_dispose(out);
	return error;
}

json_t *mt_econ_buckets_json(const mt_econ_buckets_result *r, const mt_econ_buckets_req *req)
{
	json_t *j = mt_bucket_advice_json(&r->advice), *in;
	char from[64];

	if (!j)
		return NULL;
	if (req->lengths_file)
		snprintf(from, sizeof(from), "file");
	else
		snprintf(from, sizeof(from), "run %lld", (long long)req->from_run);
	in = json_pack("{s:s, s:s?, s:f, s:s, s:O?, s:s?, s:o?, s:{s:f, s:f, s:f}, s:s, s:I, s:I, "
	               "s:I, s:I}",
	               "lengths_from", from, "lengths_file", req->lengths_file, "compile_seconds",
	               r->used.compile_s, "compile_from", req->compile_auto ? "runs" : "given",
	               "compile_runs", r->compile_runs, "compile_design",
	               req->compile_auto ? r->design : NULL,
	               "compile_other_design_runs",
	               req->compile_auto ? json_integer((json_int_t)r->compile_left_out) : NULL,
	               "step_seconds", "a", r->used.a, "b", r->used.b,
	               "c", r->used.c, "step_from", req->step_auto ? "fit" : "given", "fit_points",
	               (json_int_t)r->fit_points, "multiple_of", (json_int_t)r->used.multiple,
	               "max_buckets", (json_int_t)r->used.max_buckets, "steps_without_seq",
	               (json_int_t)r->steps_without_seq);
	if (!in || json_object_set_new(j, "inputs", in)) {
		json_decref(j);
		return NULL;
	}
	return j;
}
