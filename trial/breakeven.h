/* Compile economics, the run length: from how many steps the system with the
 * longer start (clock 1 plus its compilations) but the faster step pays off.
 * Each system's total time is clock1_s + n x step_s; the break-even is the n
 * where the two totals are equal, and the same for cost with an hourly
 * price. */
#ifndef MT_BREAKEVEN_H
#define MT_BREAKEVEN_H

#include <jansson.h>

/* One system: its start, its steady step and what an hour of it costs
 * (NAN: not priced). */
typedef struct {
	double clock1_s;
	double step_s;
	double price_per_hour;
} mt_breakeven_side;

typedef struct {
	double steps;           /* the first whole step count where the totals are equal or
	                           the later winner leads; NAN: no crossing */
	double crossing;        /* the exact crossing, NAN: none */
	double hours_baseline;  /* each system's total at `steps`, NAN when none */
	double hours_candidate;
	double cost_steps;      /* the same for cost; NAN: none, or not priced */
	const char *winner_before; /* "baseline", "candidate" or "neither" (equal); static */
	const char *winner_after;
	const char *reason;      /* why there is no crossing; NULL when there is one */
	const char *cost_winner_before, *cost_winner_after;
	const char *cost_reason; /* why there is no cost crossing; NULL when there is one */
} mt_breakeven;

/* Works out the break-even of the two systems. MT_EINVALID naming the value
 * when a clock or step is negative or not finite, or a price is negative. */
int mt_breakeven_compute(mt_breakeven *out, const mt_breakeven_side *baseline,
                         const mt_breakeven_side *candidate);

/* {steps, crossing, hours_baseline, hours_candidate, cost_steps, winner_before,
 * winner_after, reason, cost_winner_before, cost_winner_after, cost_reason};
 * unknown numbers are null. New reference, NULL when memory runs out. */
json_t *mt_breakeven_json(const mt_breakeven *b);

#endif
