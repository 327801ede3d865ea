#include "share.h"

#include <math.h>

static double positive(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

/* The part with a positive count and no cell, the largest count first
 * (with too few cells for all, the largest show); n when none. */
static size_t next_without_cell(const double *counts, size_t n, const int *cells)
{
	size_t best = n;
	for (size_t i = 0; i < n; i++)
		if (positive(counts[i]) > 0 && !cells[i] &&
		    (best == n || counts[i] > counts[best]))
			best = i;
	return best;
}

/* The widest part that can give a cell and keep one, never `keep`; n when
 * none can. */
static size_t widest_giver(size_t n, int keep, const int *cells)
{
	size_t best = n;
	for (size_t i = 0; i < n; i++)
		if ((int)i != keep && cells[i] > 1 && (best == n || cells[i] > cells[best]))
			best = i;
	return best;
}

/* The part still at its whole share with the largest remainder (then the
 * largest count); n when none is left. */
static size_t largest_remainder(const double *counts, size_t n, const double *exact,
				const int *cells)
{
	size_t best = n;
	for (size_t i = 0; i < n; i++) {
		double rest = exact[i] - cells[i];
		if (positive(counts[i]) <= 0 || cells[i] != (int)floor(exact[i]) || rest <= 0)
			continue;
		if (best == n || rest > exact[best] - cells[best] ||
		    (rest == exact[best] - cells[best] && counts[i] > counts[best]))
			best = i;
	}
	return best;
}

static size_t largest_share(size_t n, const double *exact)
{
	size_t best = 0;
	for (size_t i = 1; i < n; i++)
		best = exact[i] > exact[best] ? i : best;
	return best;
}

void mt_share_cells(const double *counts, size_t n, int width, int keep, int *cells)
{
	double total = 0, exact[n ? n : 1];
	int left = width;
	size_t i;

	for (i = 0; i < n; i++) {
		cells[i] = 0;
		total += positive(counts[i]);
	}
	if (total <= 0 || width <= 0)
		return;
	for (i = 0; i < n; i++) {
		exact[i] = positive(counts[i]) / total * width;
		cells[i] = (int)floor(exact[i]);
		left -= cells[i];
	}
	while ((i = next_without_cell(counts, n, cells)) < n) {
		size_t from = left > 0 ? n : widest_giver(n, keep, cells);
		if (left <= 0 && from == n)
			break; /* fewer cells than parts: the smallest go without */
		cells[i] = 1;
		if (from < n)
			cells[from]--;
		else
			left--;
	}
	while (left > 0) {
		i = largest_remainder(counts, n, exact, cells);
		if (i == n) /* only when rounding in floating point left a cell over */
			i = largest_share(n, exact);
		cells[i]++;
		left--;
	}
}
