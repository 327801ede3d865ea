/* A check's result as the CLI, the wizard and the report read it: the JSON
 * that mt_cmp_run() (a tensor comparison, `check compare` and `check
 * model`) and mt_curve_check_json() (`check curves`) write, and that the
 * journal keeps, read into C structs by the one reader of each shape
 * (check_view.c, the only place their keys are spelled). Every string is
 * borrowed from the JSON read, which must outlive the view; the arrays
 * belong to the view (mt_check_view_dispose). A number that is not known
 * (null, absent) is NAN; the comparison's "inf", "-inf" and "nan" are read
 * as those doubles. */
#ifndef MT_CHECK_VIEW_H
#define MT_CHECK_VIEW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "jview.h"
#include "tensor.h"

/* A shape or a multi-index, as the result lists it. */
typedef struct {
	int64_t v[MT_TENSOR_MAX_DIMS];
	int n;
} mt_check_dims;

/* A list of names or sentences. */
typedef struct {
	const char **v;
	size_t n;
} mt_check_strs;

/* One pair of tensors of a comparison (mt_cmp_run's tensors[]). */
typedef struct {
	const char *name;
	const char *dtype;           /* the reference's */
	const char *candidate_dtype; /* NULL when the candidate's is the same */
	mt_check_dims shape;         /* the reference's */
	const char *reason;          /* why not compared (then no figures); NULL */
	int has_candidate_shape;       /* not compared for its shape: */
	mt_check_dims candidate_shape; /* the candidate's */
	int passed;
	double rtol, atol;            /* the tolerances used */
	const char *tolerance_source; /* where they came from ("default float32") */
	int64_t mismatched, numel;
	double max_abs, max_rel; /* greatest |cand - ref| and relative difference */
	mt_check_dims max_abs_index, max_rel_index;
	double min_atol, min_rtol; /* the smallest passing with the other 0 */
	double cosine;
	int has_stat;              /* a --stat other than elemwise was used */
	double stat_abs, stat_rel; /* its statistics */
	int has_noise;             /* compared with the reference's second run */
	double noise_max_abs, noise_ratio;
	mt_check_strs warnings;
} mt_check_tensor;

/* A global of a torch.save file's pickle that torch.load would run. */
typedef struct {
	const char *file, *name;
	int called; /* called, not only named */
} mt_check_pickle;

/* A tensor comparison (kinds "compare" and "model"). */
typedef struct {
	const char *stat; /* "elemwise", "quantile:0.99" */
	int equal_nan;
	mt_check_tensor *tensors; /* worst first */
	size_t ntensors, failed;  /* failed: of the tensors */
	mt_check_strs only_in_reference, only_in_candidate;
	mt_check_pickle *pickle_globals;
	size_t npickle;
	int has_noise; /* --noise: the reference's second run */
	struct {
		const char *reference2;
		double max_abs, candidate_max_abs, ratio;
		const char *worst; /* the tensor with the greatest ratio; NULL: none */
		double worst_ratio;
	} noise;
	/* `check model` only (has_recipe): the recipe, the files, what ran */
	int has_recipe;
	struct {
		const char *name, *reference, *candidate, *what;
	} recipe;
	const char *model, *inputs;
} mt_check_tensors;

/* A step of a curve comparison where something was found; has 0 else. */
typedef struct {
	int has;
	double step, value;
} mt_check_mark;

/* A loss-curve comparison (kind "curves"). Numbers the comparison could not
 * give (a NaN, an infinity) are NAN. */
typedef struct {
	int64_t points, only_in_reference, only_in_candidate, outside_band, nonfinite_points;
	double rtol, atol;
	int64_t window;
	const char *align; /* "step", "index" */
	int final_only;
	double first_divergent_step, diverged_from_step; /* NAN: none */
	mt_check_mark max_abs_gap, max_rel_gap;
	int has_max_abs_gap_key; /* the key is there, even as null */
	double final_step, final_reference, final_candidate;
	int final_agree;
	double mean_abs_gap;
	const char *value_name; /* the reference file's value column ("loss") */
	/* the series as the result keeps them (downsampled), nseries each; a
	 * value not known is NAN; none in a record without them */
	double *series_steps, *series_reference, *series_candidate;
	size_t nseries;
} mt_check_curves;

/* A check, fresh from the core or as the journal keeps it. */
typedef struct {
	int64_t id;          /* the journal's; 0 for a result not read from it */
	const char *created; /* the journal's ISO time; NULL when not from it */
	const char *kind;    /* "compare", "model", "curves" */
	int rehearsal;       /* stand-ins compared: never evidence */
	int passed;
	const char *reference, *candidate; /* what the result calls the two sides */
	/* the system of each side where the check knows it (a curve read from
	 * the trial's run: "baseline", "candidate"); NULL: not known (a file) */
	const char *reference_system, *candidate_system;
	mt_check_strs warnings;            /* the check's own (pickle globals) */
	int is_curves;                     /* which of the two below is filled */
	mt_check_tensors t;
	mt_check_curves c;
} mt_check_view;

/* Reads a result of `kind` ("compare", "model", "curves") as the core
 * returns it, from jv (mt_jview_init'd on the result; its missing keys
 * counted there, for mt_jview_complete()). 0, or MT_EIO out of memory. */
int mt_check_view_read(mt_check_view *v, mt_jview *jv, const char *kind);

/* Reads a check as mt_journal_checks_json() gives it: the result with id,
 * created, kind and rehearsal. As mt_check_view_read(). */
int mt_check_view_read_record(mt_check_view *v, mt_jview *jv);

/* Reads a list of records (borrowed, must outlive them) into *out, n of
 * them; mt_check_view_free_list() disposes them. 0 or MT_EIO. */
int mt_check_view_read_list(mt_check_view **out, size_t *n, const json_t *records);

void mt_check_view_dispose(mt_check_view *v);

/* A figure of a check as the CLI and the wizard write it: `digits`
 * significant digits, or (0) the shortest that reads back the same; inf,
 * -inf and nan as the result's JSON spells them. Returns buf or a word. */
const char *mt_check_num(char *buf, size_t size, double d, int digits);

/* Disposes n views and frees the array. */
void mt_check_view_free_list(mt_check_view *v, size_t n);

#endif
