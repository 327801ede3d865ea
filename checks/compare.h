/* Numeric comparison of a candidate's tensors with a reference's, by the
 * rule of torch.testing.assert_close: an element passes when
 *
 *     |cand - ref| <= atol + rtol * |ref|
 *
 * (the reference is the `expected` side), with assert_close's default
 * tolerances per dtype. Each tensor pair is read once, in chunks converted
 * to double, split across threads; files are mapped, so tensors larger than
 * memory stream through. */
#ifndef MT_COMPARE_H
#define MT_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "tensor.h"
#include "tensorfile.h"

/* What decides that a tensor passes. ELEMWISE (the default, assert_close's
 * rule): every element passes. The others are Polygraphy's
 * --check-error-stat: the statistic of the absolute errors |cand - ref| is
 * compared with atol and that of the relative errors |cand - ref| / |ref|
 * (|ref| = 0 replaced by 2.22e-16) with rtol; the tensor passes when either
 * is within its tolerance; a NaN statistic fails. MEDIAN and QUANTILE keep
 * both error arrays in memory (16 bytes per element of the largest tensor). */
typedef enum {
	MT_STAT_ELEMWISE,
	MT_STAT_MAX,
	MT_STAT_MEAN,
	MT_STAT_MEDIAN,
	MT_STAT_QUANTILE,
} mt_cmp_stat;

/* A tolerance rule: tensors whose name matches `glob` (fnmatch; NULL matches
 * every tensor) get rtol and atol; a NaN keeps that one at the dtype's
 * default. `source` says where the rule came from ("--tol *.attn.*",
 * "trial.yaml tolerances.default"). Strings are borrowed. */
typedef struct {
	const char *glob;
	double rtol, atol;
	const char *source;
} mt_cmp_rule;

/* Progress: `done` of `total` bytes of tensor data compared. Called on the
 * thread that called mt_cmp_run(), never concurrently; payload is the
 * options' payload. */
typedef void (*mt_cmp_progress_cb)(uint64_t done, uint64_t total, void *payload);

typedef struct {
	mt_cmp_stat stat;
	double quantile;          /* for MT_STAT_QUANTILE, in [0, 1] */
	int equal_nan;            /* NaN in both at the same place passes */
	const mt_cmp_rule *rules; /* the first that matches a name wins */
	size_t nrules;
	int threads; /* 0: $MTRIAL_CHECK_THREADS, else 2 */
	mt_cmp_progress_cb progress;
	void *payload;
} mt_cmp_options;

/* The outcome for one pair of tensors. */
typedef struct {
	int passed;
	uint64_t numel, mismatched;
	/* Greatest |cand - ref| and |cand - ref| / |ref| over the mismatched
	 * elements with their flat indices, as assert_close reports them (a
	 * NaN outranks every number); over all elements when none mismatch. */
	double max_abs, max_rel;
	uint64_t max_abs_index, max_rel_index;
	/* The smallest atol passing with rtol 0, and the smallest rtol passing
	 * with atol 0 (inf when no finite one does, e.g. a difference where
	 * ref is 0). */
	double min_atol, min_rtol;
	double cosine;             /* in double; 1 when both are all zeros, 0 when one is */
	double stat_abs, stat_rel; /* the statistic checked (ELEMWISE: none, 0) */
	uint64_t near_zero;        /* elements with |ref| <= atol */
} mt_cmp_stats;

/* The default (rtol, atol) of assert_close for a pair of dtypes: the loosest
 * of the two (0, 0 for integers and bool). *which is the dtype they come
 * from. */
void mt_cmp_default_tolerance(mt_dtype ref, mt_dtype cand, double *rtol, double *atol,
                              mt_dtype *which);

/* Compares one pair of tensors of the same shape with the given tolerances.
 * Returns 0, or MT_EIO when memory for a median/quantile runs out. */
int mt_cmp_tensors(mt_cmp_stats *out, const mt_tensor *ref, const mt_tensor *cand, double rtol,
                   double atol, const mt_cmp_options *o);

/* Compares every tensor of `cand` with the one of the same name in `ref`
 * (and, when `noise` is given, `noise` with `ref` too: the reference's own
 * run-to-run spread). *out is the result as JSON: reference, candidate,
 * passed, stat, equal_nan, tensors[] (worst first), only_in_reference[],
 * only_in_candidate[], noise, and pickle_globals[] and warnings[] when a
 * torch.save file names code torch.load would run (mt_cmp_note_pickle). Non-finite numbers are the strings "inf",
 * "-inf" and "nan". The names are what the result calls the inputs. */
int mt_cmp_run(json_t **out, const mt_tensor_set *ref, const mt_tensor_set *cand,
               const mt_tensor_set *noise, const char *ref_name, const char *cand_name,
               const char *noise_name, const mt_cmp_options *o);

/* Adds to a check's result what torch.load would run when it reads f:
 * "pickle_globals" gets {file, name, called} per global of f's pickle beyond
 * what tensors need, "warnings" a sentence each. mtrial ran none of them;
 * the comparison's verdict is unchanged. */
void mt_cmp_note_pickle(json_t *res, const mt_tensor_file *f);

/* Parses "elemwise", "max", "mean", "median" or "quantile:Q" into o->stat
 * and o->quantile; MT_EUSAGE otherwise. */
int mt_cmp_parse_stat(mt_cmp_options *o, const char *s);

/* The name of o's stat ("quantile:0.99"), into buf. */
const char *mt_cmp_stat_name(const mt_cmp_options *o, char *buf, size_t size);

/* The share of reference values within atol of zero above which a tensor
 * is warned about: there the relative error says little and atol decides. */
#define MT_CMP_NEAR_ZERO_SHARE 0.10

#endif
