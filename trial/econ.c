/* Compile economics of a trial (see econ.h): the runs' own logs and stored
 * figures, read for the bucket advisor and the break-even. */
#include "econ.h"

#include "error.h"
#include "journal.h"
#include "runlog.h"
#include "runs.h"
#include "runview.h"
#include "stats.h"

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

double mt_econ_price(const mt_trial *t, const char *system)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "systems.%s.price.hourly", system);
	p = t && t->spec ? mt_spec_get(t->spec, key) : NULL;
	return p ? strtod(p, NULL) : NAN;
}

/* One system's side: medians over its runs with clock 1 and a steady step. */
static int side(mt_breakeven_side *s, json_t **ids, mt_trial *t, const char *system,
		const char *design)
{
	json_t *runs = evidence(t, system, design), *r;
	double *start, *step;
	size_t i, n = 0;

	*ids = json_array();
	start = malloc((json_array_size(runs) + 1) * sizeof(*start));
	step = malloc((json_array_size(runs) + 1) * sizeof(*step));
	if (!runs || !*ids || !start || !step) {
		json_decref(runs), free(start), free(step);
		return mt_error_set(MT_EIO, "out of memory");
	}
	json_array_foreach(runs, i, r) {
		mt_run_view v;
		(void)mt_runview_read(&v, r);
		double c1 = v.figures.clock1_s, st = v.figures.step_median_s;
		double all = v.figures.compiles.seconds_total, first = v.figures.compiles.first_seconds;
		if (!isfinite(c1) || !isfinite(st))
			continue;
		start[n] = c1 + (isfinite(all) ? all - (isfinite(first) ? first : 0) : 0);
		step[n++] = st;
		json_array_append_new(*ids, json_integer(v.id));
	}
	s->clock1_s = mt_median(start, n);
	s->step_s = mt_median(step, n);
	s->price_per_hour = mt_econ_price(t, system);
	json_decref(runs), free(start), free(step);
	if (!n)
		return mt_error_set(MT_ENOTFOUND, "the %s has no run of the %s design with both a "
		                    "clock 1 and a steady step (mtrial runs): pass --%s CLOCK1_S,STEP_S",
		                    system, design, system);
	return 0;
}

int mt_econ_breakeven_sides(mt_breakeven_side *b, mt_breakeven_side *c, json_t **used, mt_trial *t,
                            const char *design)
{
	json_t *bi = NULL, *ci = NULL;
	int error;

	*used = NULL;
	design = design ? design : "matched";
	if ((error = side(b, &bi, t, "baseline", design)) < 0 ||
	    (error = side(c, &ci, t, "candidate", design)) < 0) {
		json_decref(bi), json_decref(ci);
		return error;
	}
	*used = json_pack("{s:o, s:o}", "baseline", bi, "candidate", ci);
	return *used ? 0 : mt_error_set(MT_EIO, "out of memory");
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
