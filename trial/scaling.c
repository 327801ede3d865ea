#include "scaling.h"
#include "error.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int system_rank(const char *s)
{
	return !s ? 2 : strcmp(s, "baseline") == 0 ? 0 : strcmp(s, "candidate") == 0 ? 1 : 2;
}

static int cmp_run(const void *a, const void *b)
{
	const mt_scaling_run *x = *(const mt_scaling_run *const *)a;
	const mt_scaling_run *y = *(const mt_scaling_run *const *)b;
	int sx = system_rank(x->system), sy = system_rank(y->system);

	if (sx != sy)
		return sx - sy;
	if (sx == 2 && x->system && y->system && strcmp(x->system, y->system))
		return strcmp(x->system, y->system);
	return (x->devices > y->devices) - (x->devices < y->devices);
}

/* The median of a field over the group's runs that give it; *count of them. */
static double median_field(mt_scaling_run *const *g, size_t n, size_t offset, double *buf,
                           size_t *count)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		double v = *(const double *)((const char *)g[i] + offset);
		if (isfinite(v))
			buf[k++] = v;
	}
	if (count)
		*count = k;
	return mt_median(buf, k);
}

/* One group's own figures: everything but what compares it with others. */
static void group_row(mt_scaling_row *r, mt_scaling_run *const *g, size_t n, double *buf)
{
	size_t k = 0;

	*r = (mt_scaling_row){.system = g[0]->system,
	                      .devices = g[0]->devices,
	                      .runs = n,
	                      .hosts = g[0]->hosts,
	                      .efficiency = NAN,
	                      .marginal_per_device = NAN};
	for (size_t i = 0; i < n; i++) {
		r->failures += g[i]->failed != 0;
		if (g[i]->hosts != r->hosts)
			r->hosts = 0; /* its runs disagree: not known */
		if (isfinite(g[i]->to_target_s))
			buf[k++] = g[i]->to_target_s;
	}
	r->basis = k ? "time_to_target" : NULL;
	for (size_t i = 0; !k && i < n; i++)
		if (!g[i]->failed && isfinite(g[i]->run_minutes))
			buf[r->timed++] = g[i]->run_minutes * 60;
	if (!k && r->timed)
		r->basis = "mlperf_minutes", k = r->timed;
	r->timed = k;
	r->median_s = mt_median(buf, k);
	r->olympic_s = mt_olympic_mean(buf, k);
	r->device_hours = (double)r->devices * r->median_s / 3600;
	r->throughput = median_field(g, n, offsetof(mt_scaling_run, throughput), buf, NULL);
	r->throughput_per_device = r->throughput / (double)r->devices;
	r->data_share =
	    median_field(g, n, offsetof(mt_scaling_run, data_share), buf, &r->data_runs);
	r->comm_share =
	    median_field(g, n, offsetof(mt_scaling_run, comm_share), buf, &r->comm_runs);
}

/* Efficiency and marginal throughput of the rows [from, to) of one system,
 * smallest topology first. */
static void compare_rows(mt_scaling_row *rows, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		mt_scaling_row *r = &rows[i];
		for (size_t b = from; b <= i && r->basis; b++) {
			const mt_scaling_row *base = &rows[b];
			if (!base->basis || strcmp(base->basis, r->basis) != 0)
				continue;
			r->efficiency = (double)base->devices * base->median_s /
			                ((double)r->devices * r->median_s);
			r->efficiency_devices = base->devices;
			break;
		}
		for (size_t p = i; p-- > from && isfinite(r->throughput);) {
			if (!isfinite(rows[p].throughput))
				continue;
			r->marginal_per_device = (r->throughput - rows[p].throughput) /
			                         (double)(r->devices - rows[p].devices);
			r->marginal_from = rows[p].devices;
			break;
		}
	}
}

int mt_scaling_compute(mt_scaling *out, const mt_scaling_run *runs, size_t n)
{
	mt_scaling_run **sorted = calloc(n ? n : 1, sizeof(*sorted));
	double *buf = calloc(n ? n : 1, sizeof(*buf));
	size_t placed = 0;

	memset(out, 0, sizeof(*out));
	out->rows = calloc(n ? n : 1, sizeof(*out->rows));
	if (!sorted || !buf || !out->rows) {
		free(sorted), free(buf), free(out->rows);
		out->rows = NULL;
		return mt_error_set(MT_EIO, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		int s = system_rank(runs[i].system);
		if (runs[i].devices > 0)
			sorted[placed++] = (mt_scaling_run *)&runs[i];
		else if (s < 2)
			out->unplaced[s]++;
	}
	qsort(sorted, placed, sizeof(*sorted), cmp_run);
	for (size_t i = 0, sys_from = 0; i < placed;) {
		size_t j = i;
		while (j < placed && cmp_run(&sorted[i], &sorted[j]) == 0)
			j++;
		group_row(&out->rows[out->n++], sorted + i, j - i, buf);
		if (j == placed ||
		    system_rank(sorted[j]->system) != system_rank(sorted[i]->system) ||
		    (sorted[j]->system && sorted[i]->system &&
		     strcmp(sorted[j]->system, sorted[i]->system) != 0)) {
			compare_rows(out->rows, sys_from, out->n);
			sys_from = out->n;
		}
		i = j;
	}
	free(sorted);
	free(buf);
	return 0;
}

void mt_scaling_dispose(mt_scaling *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *row_json(const mt_scaling_row *r)
{
	return json_pack(
	    "{s:s, s:I, s:o, s:I, s:I, s:s?, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
	    "s:o, s:o, s:o, s:o, s:I, s:I}",
	    "system", r->system, "devices", (json_int_t)r->devices, "hosts",
	    r->hosts ? json_integer(r->hosts) : json_null(), "runs", (json_int_t)r->runs,
	    "failures", (json_int_t)r->failures, "time_basis", r->basis, "timed_runs",
	    (json_int_t)r->timed, "median_time_s", num(r->median_s), "olympic_mean_time_s",
	    num(r->olympic_s), "device_hours_at_median", num(r->device_hours), "throughput",
	    num(r->throughput), "throughput_per_device", num(r->throughput_per_device),
	    "scaling_efficiency", num(r->efficiency), "efficiency_against_devices",
	    r->efficiency_devices ? json_integer(r->efficiency_devices) : json_null(),
	    "marginal_throughput_per_added_device", num(r->marginal_per_device),
	    "marginal_against_devices",
	    r->marginal_from ? json_integer(r->marginal_from) : json_null(), "data_wait_share",
	    num(r->data_share), "comm_wait_share", num(r->comm_share), "data_wait_runs",
	    (json_int_t)r->data_runs, "comm_wait_runs", (json_int_t)r->comm_runs);
}

json_t *mt_scaling_json(const mt_scaling *s, const char *system)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < s->n; i++)
		if (!system || (s->rows[i].system && strcmp(s->rows[i].system, system) == 0))
			json_array_append_new(arr, row_json(&s->rows[i]));
	return arr;
}

int mt_scaling_tradeoff(const mt_scaling *s, const char *system, char *buf, size_t size)
{
	const mt_scaling_row *fast = NULL, *lean = NULL;
	const char *basis = NULL;
	char fast_t[32], lean_t[32];

	if (size)
		*buf = '\0';
	/* compare like with like: the target's time when any topology has it */
	for (size_t i = 0; i < s->n; i++)
		if (s->rows[i].system && strcmp(s->rows[i].system, system) == 0 &&
		    s->rows[i].basis && (!basis || strcmp(s->rows[i].basis, "time_to_target") == 0))
			basis = s->rows[i].basis;
	for (size_t i = 0; basis && i < s->n; i++) {
		const mt_scaling_row *r = &s->rows[i];
		if (!r->system || strcmp(r->system, system) != 0 || !r->basis ||
		    strcmp(r->basis, basis) != 0)
			continue;
		if (!fast || r->median_s < fast->median_s)
			fast = r;
		if (!lean || r->device_hours < lean->device_hours)
			lean = r;
	}
	if (!fast || !lean || fast == lean || !(fast->device_hours > lean->device_hours))
		return 0;
	mt_duration_fmt(fast_t, sizeof(fast_t), (int64_t)llround(fast->median_s * 1000));
	mt_duration_fmt(lean_t, sizeof(lean_t), (int64_t)llround(lean->median_s * 1000));
	snprintf(buf, size,
		 "%s: %lld devices %s in %s against %s on %lld, but use %.3g device-hours "
		 "against %.3g: the faster topology costs more device-hours.",
		 system, (long long)fast->devices,
		 strcmp(basis, "time_to_target") == 0 ? "reach the target" : "finish (MLPerf time)",
		 fast_t, lean_t, (long long)lean->devices, fast->device_hours, lean->device_hours);
	return 1;
}
