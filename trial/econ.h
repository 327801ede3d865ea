/* Compile economics of a trial: what `mtrial buckets` and `mtrial
 * breakeven` read from the trial's own runs (the models themselves are
 * buckets.h and breakeven.h). One function per action, called by the CLI
 * and the wizard alike. */
#ifndef MT_ECON_H
#define MT_ECON_H

#include "breakeven.h"
#include "buckets.h"
#include "trial.h"

#include <jansson.h>

/* The shapes of run `id`, read again from its log: every step's sequence
 * length (seq= in the line protocol, a seq column in a series; a line
 * printed every k steps counts k steps), and the steady steps' lengths and
 * seconds for the step-time fit (warm-up and stalls left out). */
typedef struct {
	mt_length_count *lengths; /* one per step line with a seq */
	size_t n_lengths;
	double *fit_len, *fit_s;  /* steady intervals ending at a step with a seq */
	size_t n_fit;
	size_t steps_without_seq; /* step lines that gave none */
} mt_run_shapes;

/* MT_ENOTFOUND for no such run (withdrawn ones are refused too, naming the
 * withdrawal); MT_EINVALID when its log gives no seq, saying what to log. */
int mt_econ_run_shapes(mt_run_shapes *out, mt_trial *t, int64_t id);
void mt_run_shapes_dispose(mt_run_shapes *s);

/* The median of the candidate's measured compilations (compiles.seconds_each)
 * over its runs that are evidence (rehearsals and withdrawn runs left out)
 * of one design ("matched", NULL: the same, or "best"), and the runs it came
 * from (*runs: a new JSON array of ids); *left_out (may be NULL): the
 * candidate runs of the other design with a measured compilation, another
 * experiment, never in the median. MT_ENOTFOUND when no such run has one,
 * saying to pass --compile-seconds. */
int mt_econ_compile_seconds(double *out, json_t **runs, size_t *left_out, mt_trial *t,
                            const char *design);

/* One pair of topologies the break-even is worked out for: the baseline
 * at devices[0], the candidate at devices[1] (0: runs without a device
 * count, a group of their own), each side the medians over its runs of
 * that topology alone, never pooled with another. */
typedef struct {
	int64_t devices[2];
	mt_breakeven_side side[2]; /* price_per_hour: the hourly cost of that topology */
	const char *unpriced[2];   /* why a side has no price; NULL when priced. Borrowed
	                            * from the result's record */
	json_t *runs;              /* {baseline: [ids], candidate: [ids]} */
} mt_econ_breakeven_pair;

typedef struct {
	mt_econ_breakeven_pair *pairs; /* every baseline topology against every candidate one */
	size_t n;
	json_t *record[2]; /* the runs read, which unpriced may borrow from */
} mt_econ_breakeven_sides_result;

/* The sides of the break-even from the trial's runs that are evidence, of
 * one design ("matched", NULL: the same, or "best": runs of the other are
 * another experiment, never a side here), per topology: per system and
 * device count, the median over its runs of clock 1 plus its compilations
 * after the first step, the median steady step, and the hourly cost of
 * that topology (mt_topology_hourly_cost: NAN when it is not known, with
 * unpriced saying why). MT_ENOTFOUND naming the system that has no run
 * with both figures. Dispose *out. */
int mt_econ_breakeven_sides(mt_econ_breakeven_sides_result *out, mt_trial *t, const char *design);
void mt_econ_breakeven_sides_dispose(mt_econ_breakeven_sides_result *r);

/* "baseline 8 devices, candidate 32 devices" ("devices not known" for 0). */
void mt_econ_breakeven_pair_label(const mt_econ_breakeven_pair *p, char *buf, size_t size);

/* The break-even of pair p (mt_breakeven_compute), its cost_reason naming
 * the side that is not priced and why. */
int mt_econ_breakeven_pair_compute(mt_breakeven *out, const mt_econ_breakeven_pair *p);

/* {topology, baseline_devices, candidate_devices (null: not known), the
 * break-even's keys (mt_breakeven_json), baseline and candidate {start_s,
 * step_s, hourly_cost, unpriced}, runs}. New reference. */
json_t *mt_econ_breakeven_pair_json(const mt_econ_breakeven_pair *p, const mt_breakeven *b);

/* The hourly cost of `system` as trial.yaml lays it out (its only topology,
 * or count x hosts), for sides given by hand; NAN with *why when not known. */
double mt_econ_price(const mt_trial *t, const char *system, const char **why);

/* `mtrial buckets`: where the lengths, the compile time and the step time
 * come from. */
typedef struct {
	const char *lengths_file; /* a lengths file (buckets.h), or */
	int64_t from_run;         /* run ID's seq= (0: none) */
	int compile_auto;         /* the candidate runs' median compilation, else */
	const char *design;       /* compile_auto: of the runs of this design (NULL: from_run's
	                           * design, matched without one); not from_run's: MT_EUSAGE */
	double compile_s;
	int step_auto;            /* a fit over from_run's steady steps, else */
	double a, b, c;
	int64_t multiple;         /* >= 1 */
	size_t max_buckets;       /* 0: no limit */
} mt_econ_buckets_req;

typedef struct {
	mt_bucket_advice advice;
	mt_bucket_opts used;   /* the model as it was run */
	const char *design;    /* "matched" or "best": the design req resolved to (static) */
	json_t *compile_runs;  /* with compile_auto: the runs it came from */
	size_t compile_left_out; /* with compile_auto: the other design's runs left out */
	size_t fit_points;     /* with step_auto: the steady steps fitted */
	size_t steps_without_seq;
} mt_econ_buckets_result;

/* The bucket advice for req (t may be NULL when req needs no run).
 * MT_EINVALID / MT_EUSAGE naming the input that is wrong: --step-seconds
 * auto without --from run, a fit with too few lengths, a --design that is not
 * the run's. Dispose *out after. */
int mt_econ_buckets(mt_econ_buckets_result *out, mt_trial *t, const mt_econ_buckets_req *req);
void mt_econ_buckets_dispose(mt_econ_buckets_result *r);

/* The advice as JSON (mt_bucket_advice_json) with "inputs": {lengths_from,
 * compile_seconds, compile_from ("given" or "runs"), compile_runs,
 * compile_design and compile_other_design_runs (null unless from runs),
 * step_seconds {a, b, c}, step_from ("given" or "fit"), fit_points,
 * multiple_of, max_buckets, steps_without_seq}. New reference. */
json_t *mt_econ_buckets_json(const mt_econ_buckets_result *r, const mt_econ_buckets_req *req);

#endif
