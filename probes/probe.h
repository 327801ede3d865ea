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
 * op's entry, else the API entries that name the op, else those of the
 * APIs whose calls reached it, else the API entries whose API runs the op
 * by the API map (torch.nn.Linear is judged by torch.nn.functional.linear's
 * entry: both run aten::linear). A CPU fallback limited
 * to some dtypes applies only when the inventory saw the op with one of
 * them; an inventory without dtypes (a static scan) keeps the fallback and
 * says under which condition. */
#ifndef MT_PROBE_H
#define MT_PROBE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "compat.h"
#include "opmap.h"

/* What the team found out about an op or a torch API: trial.yaml's
 * probe.overrides, the journal's `mtrial override`. Strings borrowed. */
typedef struct {
	const char *name;   /* the op ("aten::foo": an overload matches its base), or the API */
	int is_api;
	const char *status; /* a status word (compat.h); another is an error */
	const char *note;   /* NULL: none */
	const char *source; /* "override:journal#3"; NULL: "override:trial.yaml#N", N
			       its 1-based place in the list */
} mt_probe_override;

typedef struct {
	const mt_compat_table *table;    /* required */
	const mt_compat_table *observed; /* optional */
	/* optional: the first for an op (an API) wins. An API's decides its
	 * calls, before its op's; an op reached only by overridden APIs
	 * follows the worst of them ("via") */
	const mt_probe_override *overrides;
	size_t noverrides;
	json_t *inventory_ops; /* optional, borrowed: an inventory's ops {op:
				  {dtypes [], dtype_args []}} (a trace, a
				  TorchScript graph); an op without dtypes has
				  none known */
	const mt_opmap *opmap; /* optional: the API map (api_map.yaml) that
				  says which op a table's API entry without
				  ops runs; NULL: mt_probe_run loads it */
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

/* Where an entry is called. */
typedef struct {
	const char *file; /* repository-relative; NULL for a trace's or graph's op */
	int64_t line;     /* 1-based, 0 unknown */
	int64_t col;      /* 1-based, 0 unknown */
	int certain;      /* 0: a method call whose receiver may not be a tensor */
} mt_probe_site;

/* One entry of a probe: an op, or a public API. Strings are borrowed from
 * the result; NULL is none. */
typedef struct {
	const char *name;     /* the API for an API entry, else the op */
	const char *api;      /* NULL for an op entry */
	const char *op;       /* the aten op; NULL for an API without one */
	const char *status;   /* device, partial, cpu_fallback, unsupported, unknown */
	const char *source;   /* "table:NAME:LINE", "override:...", "observed:...", "none" */
	const char *kind;     /* an API entry's mapping to its op (the table's kind) */
	const char *via;      /* the API entry or override the status came through */
	const char *receiver; /* a tensor method's receiver ("assumed a tensor") */
	const char *notes;    /* the table's or the override's note */
	int64_t count;        /* call sites */
	int certain;          /* 0 when every site is uncertain */
	const char **conditions; /* the conditions of the status, nconditions */
	size_t nconditions;
	const char **apis; /* an op entry: the APIs whose calls reach it, napis */
	size_t napis;
	mt_probe_site *sites; /* in the scan's order, nsites */
	size_t nsites;
	const json_t *json; /* the entry whole, for what passes it on (the report's model) */
} mt_probe_entry;

/* Counts by status of the distinct ops (APIs) of a probe. */
typedef struct {
	int64_t entries; /* distinct ops (APIs) */
	int64_t device, partial, cpu_fallback, unsupported, unknown;
	int64_t uncertain;         /* seen only at uncertain sites */
	double support_percentage; /* device and partial among entries, one decimal */
} mt_probe_counts;

/* A probe's result as other layers read it: mt_probe_run's, with what
 * mt_probe_trial adds. Strings are borrowed from the JSON read, which
 * must outlive the view; the arrays are the view's own. */
typedef struct {
	const char *table_name, *table_backend, *table_version, *table_kind;
	const char *table_source, *table_retrieved;
	int by_api;             /* listed_by "api": a reader is shown the APIs first */
	const char *repo, *rev; /* the scan's, NULL when not probed from a scan */
	const char *from_source; /* "scan", "torchscript", "trace" */
	const char *from_file;   /* the inventory's file, NULL for a scan */
	const json_t *from;      /* the whole "from" object, for the ops diff */
	const char **from_paths; /* a scan limited to these paths, nfrom_paths */
	size_t nfrom_paths;
	const char **rules; /* the table's backend-wide rules' texts, nrules */
	size_t nrules;
	mt_probe_entry *ops, *apis; /* nops, napis; worst first */
	size_t nops, napis;
	mt_probe_counts op_counts, api_counts;
	int64_t probe_id; /* the journal's record (read back: its id), 0 when not recorded */
	int64_t from_inventory_id; /* the inventory's record, -1 when the probe does not say */
	int64_t from_steps; /* a trace's optimizer steps, -1 when the probe does not say */
} mt_probe_view;

/* Reads a probe's result (mt_probe_run's or mt_probe_trial's, borrowed)
 * into *v: 0, or MT_EINVALID naming the first key missing (the view is filled as
 * far as it goes either way; an older record's absent keys read as none).
 * Dispose of it with mt_probe_view_dispose. */
int mt_probe_view_read(mt_probe_view *v, const json_t *res);
void mt_probe_view_dispose(mt_probe_view *v);

/* The entries a reader is shown first (the APIs or the ops) and their
 * counts. */
const mt_probe_entry *mt_probe_view_listed(const mt_probe_view *v, size_t *n);
const mt_probe_counts *mt_probe_view_listed_counts(const mt_probe_view *v);

/* A status's count ("device", "partial", ...: mt_compat_status_order's
 * names) in c; 0 for another name. */
int64_t mt_probe_counts_of(const mt_probe_counts *c, const char *status);

/* Probes an inventory (borrowed): a scan's whole result, or an exact
 * source's (mt_opinventory_*; a trace's ops' dtypes decide dtype-limited
 * fallbacks), with in's table, observed table and overrides. *out is
 * mt_probe_run's result with repo and rev (a scan's) and from {source,
 * file, inventory_id, paths, steps: what the inventory gives of them}. */
int mt_probe_inventory(json_t **out, const mt_probe_inputs *in, json_t *inventory);

/* Cuts the call sites of entry (an mt_probe_entry's json, whose owner
 * passes it on) to its first max. */
void mt_probe_entry_cut_sites(json_t *entry, size_t max);

#endif
