/* The probe: an op inventory joined with a compatibility table.
 *
 * Precedence, and what each result names as its source:
 *   observed on hardware (an `observed` table: analyze output)  "observed:NAME:LINE"
 *   the team's override: trial.yaml, then the journal's         "override:trial.yaml#N",
 *                                                               "override:journal#ID"
 *   the table                                                   "table:NAME:LINE"
 *   nothing                                                     "none" (status unknown)
 * An op with an overload (aten::add.Tensor) matches its base name's entry
 * when a table has none for the overload. */
#ifndef MT_PROBE_H
#define MT_PROBE_H

#include <jansson.h>
#include "compat.h"

typedef struct {
	const mt_compat_table *table;    /* required */
	const mt_compat_table *observed; /* optional */
	json_t *overrides; /* optional: [{op, status, note, conditions, source}],
			      borrowed; the first for an op wins; source names
			      it ("override:journal#3"), else
			      "override:trial.yaml#N" (N = 1-based position) */
} mt_probe_inputs;

/* Probes the call sites in `sites` (a scan's calls [{api, op, file, line,
 * col}] and methods [{name, op, file, line}]; sites without an op are not
 * ops). *out (new reference): table {name, backend, version, kind, source,
 * retrieved}, ops [{op, status, source, count, conditions, notes, apis,
 * locations [{file, line, col}]}] (unsupported first, then partial,
 * cpu_fallback, unknown, device; by count within), rules [{id, text}],
 * summary {ops, device, cpu_fallback, unsupported, partial, unknown,
 * support_percentage} where support_percentage counts device and partial
 * ops among the distinct ops. A bad override is MT_EINVALID naming it. */
int mt_probe_run(json_t **out, const mt_probe_inputs *in, json_t *calls, json_t *methods);

#endif
