/* One workload at several topologies: per system and device count, the
 * runs, time to the target, device-hours, throughput, the scaling
 * efficiency against the system's smallest topology and the throughput
 * each added device brings. No figure mixes topologies: an eight-device
 * run that finishes sooner may still use more device-hours than a slower
 * four-device run (10 h on 4 devices is 40 device-hours, 6 h on 8 is 48),
 * and which is better depends on whether the team values turnaround or
 * scarce devices, so both are kept. */
#ifndef MT_SCALING_H
#define MT_SCALING_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* One attempt as the scaling figures need it (rehearsals left out by the
 * caller). */
typedef struct {
	const char *system; /* "baseline", "candidate"; borrowed */
	int64_t devices;    /* 0: not known (counted apart, in no topology) */
	int64_t hosts;      /* 0: not known */
	int failed;         /* failed, aborted or lost */
	double to_target_s; /* run start to the target; NAN when not reached */
	double run_minutes; /* MLPerf's run_stop - run_start; NAN without */
	double throughput;  /* steady units per second; NAN when not known */
	double data_share;  /* steady time waiting for input; NAN: not measured */
	double comm_share;  /* steady time communicating; NAN: not measured */
} mt_scaling_run;

typedef struct {
	const char *system; /* borrowed from the runs */
	int64_t devices;
	int64_t hosts; /* 0 when its runs do not say, or disagree */
	size_t runs, failures;
	const char *basis;          /* "time_to_target" (runs that reached the target),
	                               "mlperf_minutes" (none did: MLPerf's own minutes), or
	                               NULL (no time at all); static */
	size_t timed;               /* runs the time figures are over */
	double median_s, olympic_s; /* olympic: NAN with fewer than 3 */
	double device_hours;        /* devices x the median, in hours */
	double throughput, throughput_per_device; /* medians over the runs giving it */
	double efficiency;                        /* (D0 T0) / (D T) against the system's smallest
	                                             topology with a time on the same basis; 1 for it;
	                                             NAN when there is none */
	int64_t efficiency_devices;               /* D0 */
	double marginal_per_device;               /* (X - Xp) / (D - Dp) against the next smaller
	                                             topology with a throughput; NAN for the smallest */
	int64_t marginal_from;                    /* Dp */
	double data_share, comm_share; /* medians over the runs measuring them; NAN: none */
	size_t data_runs, comm_runs;
} mt_scaling_row;

typedef struct {
	mt_scaling_row *rows; /* by system (baseline first), then devices */
	size_t n;
	size_t unplaced[2]; /* runs of baseline, candidate with no device count */
} mt_scaling;

/* Groups runs[0..n) by system and device count and works out each group's
 * figures. 0, or MT_EIO. Dispose *out. */
int mt_scaling_compute(mt_scaling *out, const mt_scaling_run *runs, size_t n);

void mt_scaling_dispose(mt_scaling *s);

/* The rows of `system` (NULL: all) as JSON, each with "devices" and its
 * figures under their names; unknown figures are null. New reference. */
json_t *mt_scaling_json(const mt_scaling *s, const char *system);

/* Where a system's faster topology costs more device-hours than another
 * one: one sentence with both numbers into buf (""), e.g. "candidate: 8
 * devices reach the target in 6.0 h against 10.0 h on 4, but use 48
 * device-hours against 40." 1 when written. */
int mt_scaling_tradeoff(const mt_scaling *s, const char *system, char *buf, size_t size);

#endif
