/* Loss curves: a series of (step, value) read from a CSV file, a JSON Lines
 * file or an MLPerf log (":::MLLOG {json}" lines), and the comparison of a
 * candidate curve with a reference curve inside a tolerance band. */
#ifndef MT_CURVES_H
#define MT_CURVES_H

#include <stddef.h>
#include <jansson.h>
#include "journal.h" /* mt_journal */
#include "runs.h"    /* enum mt_runs_log_format */
#include "util.h"

typedef enum {
	MT_CURVE_AUTO, /* MLLOG lines anywhere, else '{' first: JSONL, else CSV */
	MT_CURVE_CSV,
	MT_CURVE_JSONL,
	MT_CURVE_MLLOG,
} mt_curve_format;

/* Which columns or keys to read; NULL members take the defaults:
 * CSV and JSONL: step from step/iteration/iter/global_step, value from
 * loss/train_loss/eval_loss/value. MLPerf: the first of train_loss, loss,
 * eval_loss, eval_accuracy logged; the step from the event's metadata
 * step_num, else epoch_num, else samples_count, else step. */
typedef struct {
	mt_curve_format format;
	const char *step;  /* CSV column, JSONL key or MLPerf metadata field */
	const char *value; /* CSV column, JSONL key or MLPerf event key ("key.field"
			      reads a member of an object value) */
} mt_curve_read_opts;

typedef struct {
	double step, value;
	int line; /* in the file, from 1 */
} mt_curve_point;

/* A series sorted by step, without repeated steps. Values may be NaN or
 * infinite (a diverged run): they are kept, and counted. */
typedef struct {
	char *path;
	const char *format; /* "csv", "jsonl", "mllog"; static */
	char *step_name;    /* the column, key or metadata field read */
	char *value_name;
	char *status; /* MLPerf run_stop's metadata.status, NULL when none */
	char *system; /* the system of the trial's run read ("baseline"), NULL for a file */
	mt_curve_point *pts;
	size_t n;
	size_t nonfinite;
} mt_curve;

/* Reads a curve from a file. Bad input fails with MT_EINVALID and a message
 * naming the file and line. */
int mt_curve_read(mt_curve **out, const char *path, const mt_curve_read_opts *opts);

/* Reads a curve from text in memory (len bytes, need not end in NUL); `path`
 * names it in messages. */
int mt_curve_parse(mt_curve **out, const char *text, size_t len, const char *path,
		   const mt_curve_read_opts *opts);

void mt_curve_free(mt_curve *c);

/* Sorts c's points by step and drops a step logged twice with one value,
 * for readers of other sources (checks/curves_run.c). An empty series, or
 * a step twice with two values, is MT_EINVALID naming c->path. */
int mt_curve_finish(mt_curve *c, const mt_curve_read_opts *opts);

/* --- runs: mtrial's run logs and recorded runs (checks/curves_run.c) ------ */

/* Reads the loss series of a run's log through the rules every run is read
 * with (tables/run_events.yaml, trial/runlog.h), laid out as `format`:
 * `mtrial run`'s timed lines ("EPOCH_MS o|e LINE"), the lines as printed,
 * or an imported CSV or JSON Lines series. The value:
 * opts->value, else the step lines' loss= (mtrial:step=N loss=L), else the
 * first of train_loss, loss, eval_loss and eval_accuracy logged (MLLOG keys
 * or mtrial:eval fields); the step: opts->step (step, epoch or samples),
 * else the events' step, else MLLOG's epoch_num, else samples_count. */
int mt_curve_read_runlog(mt_curve **out, const char *path, enum mt_runs_log_format format,
			 const mt_curve_read_opts *opts);

/* Reads the curve that `arg` names: "run:N" (a recorded run of the journal
 * j: its log, timed or imported), a bare whole number N with no file of
 * that name (the same), `mtrial run`'s log file (told by its timed lines),
 * a log of mtrial: protocol lines, or a CSV, JSON Lines or MLPerf file
 * (mt_curve_read; so is any file when opts->format is not AUTO). j may be NULL (no trial): a run is then MT_ENOTFOUND.
 * c->path is "run #N (SYSTEM[, LABEL]): PATH" for a run. */
/* The run `arg` names: N for "run:N", or for N alone when no file has that
 * name; else -1 (a malformed "run:..." included). */
int64_t mt_curve_run_id(const char *arg);

int mt_curve_open(mt_curve **out, const char *arg, mt_journal *j,
		  const mt_curve_read_opts *opts);

/* What a comparison says of one file: {path, format, step, value, points,
 * nonfinite, status}, and system for a trial's run. New reference. */
json_t *mt_curve_file_json(const mt_curve *c);

/* The defaults of `mtrial check curves` and of the wizard: a 5% band (the
 * drift a run in another precision shows, at any loss scale), and at most
 * this many points of the aligned series kept for drawing. */
#define MT_CURVE_DEFAULT_RTOL 0.05
#define MT_CURVE_SERIES_MAX 2000

/* 1 when b lies within the band around the reference a:
 * |b - a| <= atol + rtol * |a|. A NaN or infinite value on either side is
 * outside. */
int mt_curve_within(double a, double b, double rtol, double atol);

/* Trailing moving mean over `window` points (fewer at the start), into out
 * (which may be in). A non-finite value spoils the windows that hold it. */
void mt_curve_smooth(double *out, const double *in, size_t n, int window);

typedef struct {
	double rtol, atol;
	int window;      /* moving mean over this many points; <= 1: none */
	int align_index; /* pair the i-th points instead of equal steps */
	int final_only;  /* passed judges the last compared point only */
	int has_target;
	double target;
	int higher_is_better; /* for the target: 1 accuracy-like, 0 loss-like */
} mt_curve_cmp_opts;

/* A step where something was found; `has` 0 when nothing was. */
typedef struct {
	int has;
	double step, value;
} mt_curve_mark;

typedef struct {
	size_t n; /* points compared */
	double *steps, *ref, *cand; /* n each: the compared values (smoothed) */
	size_t only_ref, only_cand; /* steps in one series only */
	size_t outside;             /* points outside the band */
	size_t nonfinite;           /* compared points with a NaN or inf */
	mt_curve_mark first_divergent; /* the first point outside the band */
	mt_curve_mark diverged_from;   /* outside from here to the last point */
	mt_curve_mark max_abs_gap, max_rel_gap;
	double final_step, final_ref, final_cand;
	int final_agree;
	double mean_abs_gap; /* over the finite pairs */
	int passed;
	mt_curve_mark target_ref, target_cand; /* the first step at the target */
} mt_curve_cmp;

/* Aligns the candidate with the reference and compares them. Fails with
 * MT_EINVALID when no step is common. The result's arrays belong to it. */
int mt_curve_compare(mt_curve_cmp *out, const mt_curve *ref, const mt_curve *cand,
		     const mt_curve_cmp_opts *opts);

void mt_curve_cmp_dispose(mt_curve_cmp *c);

/* The comparison as JSON (without reference, candidate: the caller's names),
 * with the aligned series evenly downsampled to at most max_points. */
json_t *mt_curve_cmp_json(const mt_curve_cmp *c, const mt_curve_cmp_opts *opts,
			  size_t max_points);

/* A curve check's result, as `check curves` and the wizard record it:
 * mt_curve_cmp_json (the series capped at MT_CURVE_SERIES_MAX) with
 * reference and candidate (the curves' paths, or a run's name) and files
 * (mt_curve_file_json of each). New reference. */
json_t *mt_curve_check_json(const mt_curve_cmp *r, const mt_curve_cmp_opts *o, const mt_curve *ref,
			    const mt_curve *cand);

/* Draws both compared series into `out` as a width x height character plot
 * with an axis: '*' the reference, 'o' the candidate, '#' both. */
void mt_curve_plot(mt_buf *out, const mt_curve_cmp *c, int width, int height);

#endif
