#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double mt_olympic_mean(const double *v, size_t n)
{
	double sum = 0;

	if (n < 3)
		return NAN;
	for (size_t i = 1; i + 1 < n; i++)
		sum += v[i];
	return sum / (double)(n - 2);
}

double mt_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
