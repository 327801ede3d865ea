/* Charts as inline SVG for the HTML report: a line chart (values over time,
 * with a target line) and a horizontal bar chart (plain or stacked, with a
 * marker line). Self-contained markup with no script and no external asset;
 * axes get round ticks, every label text is escaped. A chart with no data
 * draws its title and says so instead of drawing empty axes.
 *
 * Numbers are written with '.' as the decimal point whatever the process's
 * locale (the wizard runs under the user's). */
#ifndef MT_REPORT_SVG_H
#define MT_REPORT_SVG_H

#include <stddef.h>
#include "util.h"

/* The shape of a line's points, drawn in its legend entry too: with the
 * colour and the dashes, a line reads apart from the others even when
 * colours do not (printed in grey, or to a reader who cannot tell them). */
typedef enum { MT_SVG_CIRCLE, MT_SVG_SQUARE, MT_SVG_TRIANGLE, MT_SVG_DIAMOND } mt_svg_marker;

/* One line of a line chart. Series with the same name share one legend
 * entry (say, every baseline run). */
typedef struct {
	const char *name;  /* legend text */
	const char *label; /* tooltip prefix of each point ("run #3"), may be NULL */
	const char *color; /* a CSS colour */
	const double *x, *y;
	size_t n;
	int dashed; /* a dashed line (and legend entry): runs that are not evidence */
	mt_svg_marker marker;
} mt_svg_series;

typedef struct {
	const char *title;
	const char *x_label, *y_label;
	const mt_svg_series *series;
	size_t n_series;
	double target; /* NAN: none; else a dashed horizontal line */
	const char *target_label;
	const char *empty; /* said when no series has a finite point */
} mt_svg_lines;

/* Appends a line chart to `out`. Points that are not finite are skipped.
 * Like every mt_buf append, running out of memory truncates the text. */
void mt_svg_line_chart(mt_buf *out, const mt_svg_lines *c);

/* Horizontal bars, one row each; with several segments each bar is a stack
 * of them, in order, with a legend. */
typedef struct {
	const char *title;
	const char *value_label; /* the value axis, e.g. "hours" */
	const char *const *rows; /* n_rows labels */
	size_t n_rows;
	const char *const *segments; /* n_segments names (the legend) */
	const char *const *colors;   /* per segment; with one segment, per row */
	size_t n_segments;
	const double *values; /* n_rows x n_segments, row-major; not finite or < 0: 0 */
	const char *unit;     /* after each bar's total ("h", "USD"), may be NULL */
	/* NULL, or n_rows limits (a budget), each NAN for none or drawn as a
	 * dashed vertical line across its own row only, named by its label
	 * beside it: a limit of one row never looks like one of the others. */
	const double *limits;
	const char *const *limit_labels; /* n_rows, with limits */
	const char *empty; /* said when every value is 0 */
} mt_svg_bars;

/* Appends a bar chart to `out`. A bar's segments beyond the 16th are not
 * drawn. */
void mt_svg_bar_chart(mt_buf *out, const mt_svg_bars *c);

/* Round tick values covering [lo, hi] with about `want` intervals: a step
 * of 1, 2 or 5 times a power of ten, the first tick <= lo, the last >= hi.
 * Writes at most `max` ticks and returns how many; *step gets the step. */
size_t mt_svg_ticks(double lo, double hi, int want, double *ticks, size_t max, double *step);

#endif
