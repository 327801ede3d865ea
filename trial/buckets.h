/* Compile economics, the shapes: which sequence-length buckets minimise a
 * run's total time when every bucket is compiled once (a new input shape
 * compiles a new graph on the target) and every step pays for the padding to
 * its bucket.
 *
 * The cost model, exactly:
 *   total = (number of buckets) x compile_s + sum over steps of step_s(bucket(L))
 *   step_s(B) = a + b*B + c*B^2
 *   bucket(L) = the smallest chosen bucket >= L
 * Candidate buckets are the observed lengths rounded up to a multiple of M;
 * the largest is always chosen. The optimum is exact: dynamic programming
 * over the distinct rounded lengths, ties to fewer buckets. */
#ifndef MT_BUCKETS_H
#define MT_BUCKETS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* How many steps had this longest sequence length. */
typedef struct {
	int64_t length; /* > 0 */
	uint64_t count; /* > 0 */
} mt_length_count;

typedef struct {
	double compile_s;   /* seconds one bucket's compilation takes, >= 0 */
	double a, b, c;     /* step_s(B) = a + b*B + c*B^2 */
	int64_t multiple;   /* M: candidates are lengths rounded up to a multiple of it, >= 1 */
	size_t max_buckets; /* K: at most this many buckets; 0: no limit */
} mt_bucket_opts;

/* One choice of buckets and what the model predicts of it. */
typedef struct {
	int64_t *buckets; /* ascending */
	size_t n_buckets; /* = compilations */
	double predicted_s;
	double compile_s;        /* n_buckets x compile_s */
	double padding_fraction; /* sum(B - L) / sum(B) over the steps */
} mt_bucket_plan;

typedef struct {
	mt_bucket_plan best;       /* the optimum under the options */
	mt_bucket_plan pad_to_max; /* one bucket: the largest rounded length */
	mt_bucket_plan per_length; /* every distinct rounded length its own bucket */
	uint64_t steps;
	size_t distinct;         /* distinct lengths observed */
	size_t candidates;       /* distinct rounded lengths */
	int64_t longest;
} mt_bucket_advice;

/* Sets *o to no compile time, step_s(B) = 0, M = 1 and no bucket limit. */
void mt_bucket_opts_init(mt_bucket_opts *o);

/* Works out the optimum and the two alternatives for the lengths v[0..n)
 * (any order, a length may repeat). MT_EINVALID when a length or count is
 * not positive, compile_s is negative or not finite, M < 1, or there is no
 * length; MT_EIO when memory runs out. Dispose *out after. */
int mt_buckets_advise(mt_bucket_advice *out, const mt_length_count *v, size_t n,
                      const mt_bucket_opts *o);
void mt_bucket_advice_dispose(mt_bucket_advice *a);

/* The model's seconds for one step in bucket B. */
double mt_bucket_step_s(const mt_bucket_opts *o, int64_t B);

/* Reads a lengths file: one positive integer per line (a step's longest
 * sequence), or "length,count" lines; blank lines, lines starting with '#'
 * and a first line starting with "length" (a header) are skipped. *out holds
 * one entry per distinct length, in the order first seen, its count summed
 * (malloc'd). MT_EINVALID naming FILE:LINE for anything else; MT_ENOTFOUND
 * or MT_EIO when the file cannot be read. */
int mt_buckets_read_lengths(mt_length_count **out, size_t *n, const char *path);

/* A least-squares fit of step seconds against padded length,
 * secs[i] ~ a + b*len[i] (+ c*len[i]^2 when quadratic), into coef[3] (c is 0
 * when not quadratic). MT_EINVALID when there are too few distinct lengths
 * for the fit (2, or 3 with quadratic) or the system is singular. */
int mt_buckets_fit(double coef[3], const double *len, const double *secs, size_t n,
                   int quadratic);

/* {buckets, compiles, compile_seconds, predicted_seconds, padding_fraction,
 * alternatives {pad_to_max {...}, per_length {...}}, steps, distinct_lengths,
 * candidates, saving_seconds (against the better alternative)}; new reference,
 * NULL when memory runs out. */
json_t *mt_bucket_advice_json(const mt_bucket_advice *a);

#endif
