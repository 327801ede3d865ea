/* The Correctness step's two drawings, laid out in a page: tensors counted
 * by the decade of their greatest absolute difference, and two loss curves
 * overlaid in characters. No curses here. */
#ifndef MT_TUI_CHARTDRAW_H
#define MT_TUI_CHARTDRAW_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "check_view.h"
#include "page.h"
#include "runview.h"

/* The lines the error histogram takes whole: a title and a line per
 * decade. */
int chart_histogram_rows(void);

/* The error histogram in at most `rows` new lines: how many tensors have
 * their greatest absolute difference (min_atol: the atol that passes them
 * with rtol 0) in each decade, as bars, the decades of their atol marked.
 * With fewer rows than it needs, only the decades from the lowest to the
 * highest that has a tensor or a tolerance. */
void chart_histogram(struct tui_page *p, const mt_check_tensor *tensors, size_t n, int rows);

/* A curves result's two series overlaid in `rows` new lines (at least 6):
 * '*' the reference, 'o' the candidate, '#' both in one cell, each in its
 * style; the first step outside the band marked by a line and named under
 * the axis; a legend last. */
void chart_curves(struct tui_page *p, const mt_check_curves *c, int rows);

/* A run's evaluations (f's) of `metric` (NULL: every metric) as points, value
 * against seconds since origin_ms, in `rows` new lines (at least 6), with
 * a horizontal line at `target` (NaN: none); the axis in seconds and a
 * legend last. */
void chart_evals(struct tui_page *p, const mt_run_figures *f, const char *metric, double target,
		 int64_t origin_ms, int rows);

/* Each system's total time as start + steps * step (the report's
 * compilation.breakeven); NaN is not known. */
struct chart_breakeven {
	double base_start_s, base_step_s, cand_start_s, cand_step_s;
	double steps; /* where the lines cross; NaN: they do not */
};

/* Total time (hours) against run length for both systems, in `rows` new
 * lines (at least 6): '*' the baseline, 'o' the candidate, the break-even a
 * vertical line and the trial's own run length (NaN: none) marked under the
 * axis. */
void chart_breakeven(struct tui_page *p, const struct chart_breakeven *be, double run_length,
		     int rows);

#endif
