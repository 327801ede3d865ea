/* `mtrial override OP STATUS --note TEXT` and the wizard's finding (f on
 * the Ops step): what the team found out about an op on the candidate,
 * recorded in the trial; it outranks documented tables in the probe. */
#ifndef MT_OVERRIDE_TRIAL_H
#define MT_OVERRIDE_TRIAL_H

#include <stdint.h>

#include "trial.h"

typedef struct {
	int64_t id;    /* the override's id in the journal */
	char *warning; /* the op is not in the aten registry (a typo?): recorded
			  all the same; NULL when it is */
} mt_override_trial_result;

/* Records that `op` is `status` (device, cpu_fallback, unsupported or
 * partial) on the candidate, with the note saying who found it, where and
 * on which version (required). The caller disposes *out. */
int mt_override_trial_add(mt_override_trial_result *out, mt_trial *t, const char *op,
			  const char *status, const char *note);

void mt_override_trial_result_dispose(mt_override_trial_result *r);

#endif
