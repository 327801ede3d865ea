/* What a trial says about its scans: the limit trial.yaml's scan.paths
 * sets, the same for `mtrial scan`, `mtrial probe` and the wizard. */
#ifndef MT_SCAN_TRIAL_H
#define MT_SCAN_TRIAL_H

#include <stddef.h>

#include "trial.h"

/* The paths under trial.yaml's scan.paths (*out NULL, *n 0 when it has
 * none, or t is NULL); caller frees with mt_scan_paths_free(). */
int mt_scan_trial_paths(char ***out, size_t *n, const mt_trial *t);

void mt_scan_paths_free(char **v, size_t n);

#endif
