/* What runs.c (reading and flattening runs) and runs_systems.c (the
 * per-system summaries) share. Private to the runs module. */
#ifndef MT_RUNS_INT_H
#define MT_RUNS_INT_H

#include <jansson.h>

#include "spec.h"

/* A JSON number's value, NAN for anything else. */
double mt_runs__num(json_t *v);

/* A real, or null when v is not finite. New reference. */
json_t *mt_runs__real_or_null(double v);

/* systems.SYSTEM.KEY of trial.yaml as a number, NAN without one. */
double mt_runs__spec_num(const mt_spec *spec, const char *system, const char *key);

/* A system's devices in trial.yaml: count per host x hosts (hosts default 1). */
double mt_runs__devices_of(const mt_spec *spec, const char *system);

#endif
