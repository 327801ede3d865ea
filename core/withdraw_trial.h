/* `mtrial rm KIND ID --why TEXT` and the wizard's withdraw key: a record
 * leaves every figure, in the name of whoever is at the keyboard. */
#ifndef MT_WITHDRAW_TRIAL_H
#define MT_WITHDRAW_TRIAL_H

#include <stdint.h>

#include "trial.h"

/* mt_journal_withdraw in the name of the events' author, so that the CLI
 * and the wizard name the same person and say no for the same reasons.
 * *id_out (may be NULL) gets the withdrawal's id; *who_out (may be NULL)
 * gets who, the caller frees it; both untouched on an error. */
int mt_withdraw_trial(mt_trial *t, const char *kind, int64_t id, const char *why, int64_t *id_out,
		      char **who_out);

#endif
