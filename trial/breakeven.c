/* Compile economics, the run length (see breakeven.h). Both totals are
 * lines in n: their difference, candidate minus baseline, is
 * d0 + n x slope, which crosses zero at most once. */
#include "breakeven.h"

#include "error.h"

#include <math.h>
#include <string.h>

/* The leader where the difference d (candidate - baseline) has this sign. */
static const char *leader(double d)
{
	return d < 0 ? "candidate" : d > 0 ? "baseline" : "neither";
}

/* The crossing of d0 + n x slope with zero for n > 0: sets *at (NAN:
 * none), the leaders before and after, and why there is none. */
static void cross(double d0, double slope, double *at, const char **before, const char **after,
                  const char **reason, const char *what)
{
	double tol = 1e-12 * fmax(1.0, fabs(d0));

	*at = NAN;
	*before = leader(fabs(d0) <= tol ? slope : d0);
	*after = leader(slope != 0 ? slope : d0);
	*reason = NULL;
	if (fabs(d0) <= tol && slope == 0) {
		*reason = strcmp(what, "time") == 0 ? "the two systems take the same time at every run length"
		                                    : "the two systems cost the same at every run length";
	} else if (slope == 0 || -d0 / slope <= 0) {
		*after = *before;
		*reason = strcmp(what, "time") == 0
		              ? "one system is faster at every run length: it starts no later and steps no slower"
		              : "one system is cheaper at every run length: it starts no dearer and steps no dearer";
	} else {
		*at = -d0 / slope;
	}
}

static int check_side(const mt_breakeven_side *s, const char *name)
{
	if (!isfinite(s->clock1_s) || s->clock1_s < 0)
		return mt_error_set(MT_EINVALID, "%s clock 1: %g is not a number of seconds >= 0", name,
		                    s->clock1_s);
	if (!isfinite(s->step_s) || s->step_s < 0)
		return mt_error_set(MT_EINVALID, "%s step: %g is not a number of seconds >= 0", name,
		                    s->step_s);
	if (!isnan(s->price_per_hour) && (!isfinite(s->price_per_hour) || s->price_per_hour < 0))
		return mt_error_set(MT_EINVALID, "%s price: %g is not a price >= 0", name,
		                    s->price_per_hour);
	return 0;
}

/* The first whole step count at or past an exact crossing. */
static double whole(double at)
{
	double r = round(at);
	return fabs(at - r) <= 1e-9 * fmax(1.0, at) ? r : ceil(at);
}

int mt_breakeven_compute(mt_breakeven *out, const mt_breakeven_side *b, const mt_breakeven_side *c)
{
	int error;
	double at;

	memset(out, 0, sizeof(*out));
	out->steps = out->crossing = out->hours_baseline = out->hours_candidate = NAN;
	out->cost_steps = NAN;
	if ((error = check_side(b, "baseline")) < 0 || (error = check_side(c, "candidate")) < 0)
		return error;
	cross(c->clock1_s - b->clock1_s, c->step_s - b->step_s, &out->crossing, &out->winner_before,
	      &out->winner_after, &out->reason, "time");
	if (!isnan(out->crossing)) {
		out->steps = whole(out->crossing);
		out->hours_baseline = (b->clock1_s + out->steps * b->step_s) / 3600;
		out->hours_candidate = (c->clock1_s + out->steps * c->step_s) / 3600;
	}
	if (isnan(b->price_per_hour) || isnan(c->price_per_hour)) {
		out->cost_reason = "no price for one of the systems (trial.yaml's prices)";
		return 0;
	}
	cross(c->price_per_hour * c->clock1_s - b->price_per_hour * b->clock1_s,
	      c->price_per_hour * c->step_s - b->price_per_hour * b->step_s, &at,
	      &out->cost_winner_before, &out->cost_winner_after, &out->cost_reason, "cost");
	if (!isnan(at))
		out->cost_steps = whole(at);
	return 0;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *count(double v)
{
	return isfinite(v) ? json_integer((json_int_t)v) : json_null();
}

json_t *mt_breakeven_json(const mt_breakeven *b)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:s, s:s, s:s?, s:s?, s:s?, s:s?}", "steps",
	                 count(b->steps), "crossing", num(b->crossing), "hours_baseline",
	                 num(b->hours_baseline), "hours_candidate", num(b->hours_candidate),
	                 "cost_steps", count(b->cost_steps), "winner_before", b->winner_before,
	                 "winner_after", b->winner_after, "reason", b->reason, "cost_winner_before",
	                 b->cost_winner_before, "cost_winner_after", b->cost_winner_after,
	                 "cost_reason", b->cost_reason);
}
