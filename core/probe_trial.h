/* The probe of a trial, shared by `mtrial probe` and the wizard: which
 * table, which overrides, and recording the result. */
#ifndef MT_PROBE_TRIAL_H
#define MT_PROBE_TRIAL_H

#include <stdint.h>
#include <jansson.h>
#include "compat.h"
#include "probe.h"
#include "trial.h"

/* The table a probe uses when neither the command line nor trial.yaml's
 * probe.table names one: the target's own, which makes no per-op claim. */
#define MT_PROBE_DEFAULT_TABLE "torchneuron-2.14"

/* trial.yaml's probe.overrides, then the journal's (newest first), as the
 * probe takes them (mt_probe_inputs' overrides). */
typedef struct {
	mt_probe_override *v;
	size_t n;
	json_t *recorded; /* the journal's rows, which v's strings borrow */
} mt_probe_overrides;

/* Reads t's overrides into *o (the spec's strings are borrowed: t must
 * outlive o). 0, or an error (set). mt_probe_overrides_dispose() frees. */
int mt_probe_overrides_read(mt_probe_overrides *o, mt_trial *t);
void mt_probe_overrides_dispose(mt_probe_overrides *o);

/* An observed table: an imported table of kind observed, or an analyze JSON
 * file converted in memory (nothing is written). MT_EINVALID for a
 * documented table. */
int mt_probe_load_observed(mt_compat_table **out, const char *name_or_file);

/* Probes `inventory` (a scan's whole result: calls and methods; borrowed)
 * against `table_name` (NULL: trial.yaml's probe.table, else the default),
 * with `observed` (NULL for none) and, when `t` is not NULL, the trial's
 * overrides; then records it in the trial's journal (scan_id 0 when the
 * inventory is not a recorded scan). *out gets the result with repo, rev
 * and probe_id; *probe_id (may be NULL) the record's id, 0 without a
 * trial. */
int mt_probe_trial(json_t **out, int64_t *probe_id, mt_trial *t, const char *table_name,
		   const char *observed, json_t *inventory, int64_t scan_id);

/* What a file holds: "torchscript" for a zip, else "trace". */
const char *mt_inventory_file_kind(const char *path);

/* The op inventory named by `what`:
 *   "scan"                  the trial's latest scan
 *   "torchscript", "trace"  the trial's latest inventory of that source
 *   a FILE                  read as `kind` ("torchscript" or "trace"; NULL:
 *                           a zip is TorchScript, anything else a trace),
 *                           then recorded in the trial when `t` is not NULL
 *                           (a file named like a source: ./scan)
 * *out (new reference) gets "source" and, when recorded, "inventory_id";
 * *recorded (may be NULL) is 1 when this call stored it. Needs a trial for
 * the names; a file that is neither is MT_EINVALID naming it. */
int mt_inventory_resolve(json_t **out, mt_trial *t, const char *what, const char *kind,
			 int *recorded);

#endif
