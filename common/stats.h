/* Figures over a set of numbers, shared by the run figures (trial/), the
 * compile economics and the report and wizard that show them. */
#ifndef MT_STATS_H
#define MT_STATS_H

#include <stddef.h>

/* The median of v[0..n): the middle value, or with an even n the mean of
 * the two middle ones; NAN when n is 0. Sorts v in place (ascending), which
 * callers after the minimum and maximum rely on. NANs must be left out by
 * the caller. */
double mt_median(double *v, size_t n);

/* MLPerf's olympic mean of sorted v[0..n) (as mt_median leaves it): the
 * mean without the fastest and the slowest; NAN with fewer than 3. */
double mt_olympic_mean(const double *v, size_t n);

#endif
