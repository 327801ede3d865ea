/* Scanning for a trial, the same for `mtrial scan`, `mtrial probe` and the
 * wizard: the limit trial.yaml's scan.paths sets, and the scan recorded in
 * the trial's journal. */
#ifndef MT_SCAN_TRIAL_H
#define MT_SCAN_TRIAL_H

#include <stddef.h>
#include <stdint.h>

#include "scan.h"
#include "trial.h"

/* The paths under trial.yaml's scan.paths (*out NULL, *n 0 when it has
 * none, or t is NULL); caller frees with mt_scan_paths_free(). */
int mt_scan_trial_paths(char ***out, size_t *n, const mt_trial *t);

void mt_scan_paths_free(char **v, size_t n);

/* What to scan. The scan's own options; repo NULL takes the trial's
 * repository (trial.yaml workload.repository, when a local path; else
 * "."), paths NULL (npaths 0) the trial's scan.paths. `recording` (may be NULL) is called with `payload`
 * when the scan is done and its result is being written down, which takes
 * a moment on a large repository. */
typedef struct {
	mt_scan_options scan;
	void (*recording)(void *payload);
} mt_scan_trial_options;

/* A scan and what became of it in the record. */
typedef struct {
	mt_scan_result scan;
	int paths_from_trial;  /* the limit is trial.yaml's scan.paths */
	int rev_from_trial;    /* the revision is trial.yaml's workload.revision */
	char **paths_missing;  /* limits with nothing there at the revision */
	size_t npaths_missing;
	size_t files_scanned, calls, findings;
	int64_t scan_id;       /* the record's id, 0 when not recorded */
	int unchanged;         /* the latest scan had the same result: scan_id is its */
	char *not_recorded;    /* why not (no trial, the journal's words); NULL when recorded */
} mt_scan_trial_result;

/* Scans and, when `t` is not NULL, records the scan in t's journal (a
 * rescan of an unchanged tree is not stored twice). `no_trial` (may be
 * NULL) says why t is NULL, for not_recorded. Fails only when the scan
 * does (out zeroed): a record that fails is in out->not_recorded. The
 * caller disposes *out. */
int mt_scan_trial_run(mt_scan_trial_result *out, mt_trial *t, const mt_scan_trial_options *o,
		      const char *no_trial);

void mt_scan_trial_result_dispose(mt_scan_trial_result *r);

#endif
