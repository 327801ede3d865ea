/* Loss curves from runs: a run's log read through the rules every run is
 * read with (trial/runlog.h, tables/run_events.yaml), and the runs the
 * journal records, named by id. */
#include "curves.h"
#include "error.h"
#include "journal.h"
#include "runlog.h"
#include "runview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The event keys a run's curve defaults to when its steps carry no loss,
 * in the order curves of MLPerf logs take them. */
static const char *const default_keys[] = {"train_loss", "loss", "eval_loss", "eval_accuracy",
					   NULL};

/* 1 when e is a point of the series named `key`: "loss" is the step lines'
 * loss= (a step without one has NaN), any other key an eval or MLLOG event
 * of that name. */
static int is_point(const mt_run_event *e, const char *key, int step_loss)
{
	if (step_loss)
		return e->kind == MT_RUN_EV_STEP && !isnan(e->value);
	return (e->kind == MT_RUN_EV_EVAL || e->kind == MT_RUN_EV_OTHER) && e->key &&
	       strcmp(e->key, key) == 0;
}

static size_t count_points(const mt_runlog *log, const char *key, int step_loss)
{
	size_t n = 0;
	for (size_t i = 0; i < log->n_events; i++)
		n += is_point(&log->events[i], key, step_loss);
	return n;
}

/* Picks the value: the one asked, else step losses, else the first default
 * key logged. *step_loss 1 for the step lines' loss=. NULL when none. */
static const char *pick_value(const mt_runlog *log, const char *asked, int *step_loss)
{
	*step_loss = 0;
	if (asked) {
		*step_loss = strcmp(asked, "loss") == 0 && count_points(log, asked, 1);
		return asked;
	}
	if (count_points(log, "loss", 1))
		return *step_loss = 1, "loss";
	for (int i = 0; default_keys[i]; i++)
		if (count_points(log, default_keys[i], 0))
			return default_keys[i];
	return NULL;
}

enum step_field { BY_STEP, BY_EPOCH, BY_SAMPLES, BY_NONE };
static const char *const step_field_names[] = {"step", "epoch_num", "samples_count"};

static double step_of(const mt_run_event *e, enum step_field f)
{
	return f == BY_STEP ? (e->step >= 0 ? (double)e->step : NAN)
	       : f == BY_EPOCH ? e->epoch
			       : e->samples;
}

/* The step field asked (step, epoch or samples, or MLLOG's epoch_num and
 * samples_count), else the first that every point has. */
static enum step_field pick_step(const mt_runlog *log, const char *key, int step_loss,
				 const char *asked)
{
	static const char *const short_names[] = {"step", "epoch", "samples"};

	for (int f = BY_STEP; f < BY_NONE; f++) {
		int all = 1;
		if (asked) {
			if (strcmp(asked, step_field_names[f]) == 0 || strcmp(asked, short_names[f]) == 0)
				return (enum step_field)f;
			continue;
		}
		for (size_t i = 0; all && i < log->n_events; i++)
			all = !is_point(&log->events[i], key, step_loss) ||
			      !isnan(step_of(&log->events[i], (enum step_field)f));
		if (all)
			return (enum step_field)f;
	}
	return BY_NONE;
}

/* Fills c from the log's events. */
static int points_from(mt_curve *c, const mt_runlog *log, const mt_curve_read_opts *opts)
{
	int step_loss;
	const char *key = pick_value(log, opts->value, &step_loss);
	enum step_field f;

	if (!key)
		return mt_error_set(MT_EINVALID, "%s: no step line with loss= (mtrial:step=N loss=L) "
				    "and none of train_loss, loss, eval_loss, eval_accuracy logged "
				    "(--key names another): the series is empty", c->path);
	if ((f = pick_step(log, key, step_loss, opts->step)) == BY_NONE)
		return mt_error_set(MT_EINVALID, "%s: %s", c->path,
				    opts->step ? "--step-col: a run log's steps are step, epoch or samples"
					       : "its points have no step, epoch_num or samples_count in common");
	c->value_name = mt_strdup(key);
	c->step_name = mt_strdup(step_field_names[f]);
	if (!(c->pts = calloc(log->n_events ? log->n_events : 1, sizeof(*c->pts))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < log->n_events; i++) {
		const mt_run_event *e = &log->events[i];
		if (e->kind == MT_RUN_EV_RUN_STOP && e->text && !c->status)
			c->status = mt_strdup(e->text);
		if (is_point(e, key, step_loss) && !isnan(step_of(e, f)))
			c->pts[c->n++] = (mt_curve_point){step_of(e, f), e->value, (int)e->line};
	}
	return mt_curve_finish(c, opts);
}

int mt_curve_read_runlog(mt_curve **out, const char *path, enum mt_runs_log_format format,
			 const mt_curve_read_opts *opts)
{
	static const mt_curve_read_opts defaults = {0};
	mt_runlog_rules *rules = NULL;
	mt_runlog log;
	mt_curve *c = calloc(1, sizeof(*c));
	int error;

	*out = NULL;
	if (!c)
		return mt_error_set(MT_EIO, "out of memory");
	c->path = mt_strdup(path);
	c->format = format == MT_RUNS_LOG_TIMED ? "run log" : "log";
	if ((error = mt_runlog_rules_load(&rules)) < 0)
		goto cleanup;
	mt_runlog_init(&log, rules);
	if ((error = mt_runs_log_feed(&log, path, format, NULL)) == 0)
		error = points_from(c, &log, opts ? opts : &defaults);
	mt_runlog_dispose(&log);
cleanup:
	mt_runlog_rules_free(rules);
	if (error < 0)
		mt_curve_free(c);
	else
		*out = c;
	return error;
}

/* --- naming a curve: a run's id, or a file ----------------------------------- */

/* The first bytes of a file, for telling its format; 0 when unreadable. */
static size_t head_of(const char *path, char *buf, size_t size)
{
	FILE *fp = fopen(path, "rb");
	size_t n = fp ? fread(buf, 1, size - 1, fp) : 0;
	if (fp)
		fclose(fp);
	buf[n] = '\0';
	return n;
}

/* `mtrial run`'s log: its first line starts "EPOCH_MS o " or "EPOCH_MS e ". */
static int looks_timed(const char *head)
{
	size_t digits = strspn(head, "0123456789");
	return digits >= 10 && head[digits] == ' ' && (head[digits + 1] == 'o' ||
						       head[digits + 1] == 'e') &&
	       head[digits + 2] == ' ';
}

/* How the rules read an imported run's file, or -1 for the curve readers. */
static int run_format(const char *path, const char *origin)
{
	char head[4096];
	size_t n;

	if (origin && strcmp(origin, "run") == 0)
		return MT_RUNS_LOG_TIMED;
	n = head_of(path, head, sizeof(head));
	if (looks_timed(head))
		return MT_RUNS_LOG_TIMED;
	return (int)mt_runs_sniff(path, head, n);
}

static int open_run(mt_curve **out, int64_t id, mt_journal *j, const mt_curve_read_opts *opts)
{
	json_t *runs;
	mt_run_view r;
	char name[1400], *log = NULL;
	int format, error, temp = 0;

	if (!j)
		return mt_error_set(MT_ENOTFOUND, "run #%lld: no trial here to look it up in",
				    (long long)id);
	if (!(runs = mt_journal_runs_json(j, id)))
		return mt_error_last_code();
	if (mt_runview_read(&r, json_array_get(runs, 0)) < 0)
		mt_error_clear(); /* what is there is read; a run without its log is none */
	if (!json_array_size(runs) || !r.source) {
		json_decref(runs);
		return mt_error_set(MT_ENOTFOUND, "no run #%lld in this trial ('mtrial runs' lists them)",
				    (long long)id);
	}
	/* the file where it was written, or the record's copy of it */
	if ((error = mt_journal_run_log(j, id, &log, &temp)) < 0) {
		json_decref(runs);
		return error;
	}
	format = run_format(log, r.origin);
	snprintf(name, sizeof(name), "run #%lld (%s%s%s): %s", (long long)id, r.system,
		 r.label ? ", " : "", r.label ? r.label : "", r.source);
	error = format == MT_RUNS_SYSTEM
			? mt_error_set(MT_EINVALID, "run #%lld: %s is a system description", (long long)id,
				       r.source)
			: mt_curve_read_runlog(out, log, (enum mt_runs_log_format)format, opts);
	if (temp)
		unlink(log);
	free(log);
	if (error == 0) {
		free((*out)->path);
		(*out)->path = mt_strdup(name);
		(*out)->system = r.system ? mt_strdup(r.system) : NULL;
	} else {
		mt_error_prefix(error, "run #%lld: ", (long long)id);
	}
	json_decref(runs);
	return error;
}

int64_t mt_curve_run_id(const char *arg)
{
	struct stat st;
	const char *digits = strncmp(arg, "run:", 4) == 0 ? arg + 4 : arg;
	char *end;
	long long id;

	if (digits == arg && stat(arg, &st) == 0)
		return -1;
	id = strtoll(digits, &end, 10);
	return *digits && *digits != '-' && !*end && id > 0 ? id : -1;
}

int mt_curve_open(mt_curve **out, const char *arg, mt_journal *j, const mt_curve_read_opts *opts)
{
	int64_t id = mt_curve_run_id(arg);
	char head[4096];

	*out = NULL;
	if (id > 0)
		return open_run(out, id, j, opts);
	if (strncmp(arg, "run:", 4) == 0)
		return mt_error_set(MT_EINVALID, "%s: expected run:N, N a run's id ('mtrial runs')", arg);
	if (opts && opts->format != MT_CURVE_AUTO)
		return mt_curve_read(out, arg, opts);
	head_of(arg, head, sizeof(head));
	if (looks_timed(head))
		return mt_curve_read_runlog(out, arg, MT_RUNS_LOG_TIMED, opts);
	if (!strstr(head, ":::MLLOG") && (strstr(head, "mtrial:step=") || strstr(head, "mtrial:eval")))
		return mt_curve_read_runlog(out, arg, MT_RUNS_LOG_RAW, opts);
	return mt_curve_read(out, arg, opts);
}

json_t *mt_curve_check_json(const mt_curve_cmp *r, const mt_curve_cmp_opts *o, const mt_curve *ref,
			    const mt_curve *cand)
{
	json_t *res = mt_curve_cmp_json(r, o, MT_CURVE_SERIES_MAX);

	if (!res)
		return NULL;
	json_object_set_new(res, "reference", json_string(ref->path));
	json_object_set_new(res, "candidate", json_string(cand->path));
	json_object_set_new(res, "files", json_pack("{s:o, s:o}", "reference", mt_curve_file_json(ref),
						    "candidate", mt_curve_file_json(cand)));
	return res;
}
