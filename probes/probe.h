/* The probe: an op inventory joined with a compatibility table.
 *
 * Precedence, and what each result names as its source:
 *   observed on hardware (an `observed` table: analyze output)  "observed:NAME:LINE"
 *   the team's override: trial.yaml, then the journal's         "override:trial.yaml#N",
 *                                                               "override:journal#ID"
 *   the table                                                   "table:NAME:LINE"
 *   nothing                                                     "none" (status unknown)
 * An op with an overload (aten::add.Tensor) matches its base name's entry
 * when a table has none for the overload.
 *
 * A call site the scan resolved to a public API (torch.cumsum, and a tensor
 * method x.cumsum as torch.Tensor.cumsum, its receiver assumed a tensor) is
 * judged by the table's entry for that API first, then by its aten op: the
 * op's entry, else the API entries that name the op. A CPU fallback limited
 * to some dtypes applies only when the inventory saw the op with one of
 * them; an inventory without dtypes (a static scan) keeps the fallback and
 * says under which condition. */
#ifndef MT_PROBE_H
#define MT_PROBE_H

#include <jansson.h>
#include "compat.h"

typedef struct {
	const mt_compat_table *table;    /* required */
	const mt_compat_table *observed; /* optional */
	json_t *overrides; /* optional: [{op | api, status, note, conditions,
			      source}], borrowed; the first for an op (an API)
			      wins; source names it ("override:journal#3"),
			      else "override:trial.yaml#N" (N = 1-based
			      position). An API's decides its calls, before its
			      op's; an op reached only by overridden APIs
			      follows the worst of them ("via") */
	json_t *inventory_ops; /* optional, borrowed: an inventory's ops {op:
				  {dtypes [], dtype_args []}} (a trace, a
				  TorchScript graph); an op without dtypes has
				  none known */
} mt_probe_inputs;

/* Probes the call sites in `sites` (a scan's calls [{api, op, file, line,
 * col}] and methods [{name, op, file, line}]; sites without an op are not
 * ops). *out (new reference): table {name, backend, version, kind, source,
 * retrieved}, ops [{op, status, source, count, conditions, notes, apis,
 * dtypes?, locations [{file, line, col}]}] (unsupported first, then
 * partial, cpu_fallback, unknown, device; by count within), apis [{api,
 * status, kind, source, count, op, conditions, notes, receiver?, certain,
 * locations}] (the sites resolved to a public API name; a trace's and a
 * graph's sites name ops only), listed_by ("api" when the table lists APIs
 * and the inventory has API sites, else "op": what a reader is shown
 * first), rules [{id, text}], summary {ops, device, cpu_fallback,
 * unsupported, partial, unknown, uncertain, support_percentage, support_of
 * "ops", apis {apis, device, ..., support_percentage, support_of "apis"}}
 * where support_percentage counts device and partial entries among the
 * distinct ops (APIs). A bad override is MT_EINVALID naming it. */
int mt_probe_run(json_t **out, const mt_probe_inputs *in, json_t *calls, json_t *methods);

#endif
