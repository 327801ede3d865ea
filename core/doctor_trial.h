/* What `mtrial doctor` says of a trial's record (issue 19): the lines of
 * events files refused, the artefacts missing, the temporary files of
 * artefact writers killed mid-write (removed), and a journal.db that a
 * team committed to git before it became a local index. */
#ifndef MT_DOCTOR_TRIAL_H
#define MT_DOCTOR_TRIAL_H

#include "journal.h"
#include "objects.h"
#include "trial.h"

typedef struct {
	mt_record_summary record; /* every refused line */
	int journal_tracked;      /* 1 committed at HEAD, 0 not, -1 cannot tell */
	char *journal_rel;        /* journal.db's path in its repository; NULL when none */
	char *why_unknown;        /* why it cannot tell, with -1 */
	mt_objects_swept swept;   /* artefacts' temporary files: removed, a live writer's kept */
	char *sweep_error;        /* why some could not be removed; NULL when none */
} mt_doctor_trial_result;

/* Fills *out, the stale temporary files removed on the way (the caller disposes of it, also on error). */
int mt_doctor_trial(mt_doctor_trial_result *out, mt_trial *t);
void mt_doctor_trial_result_dispose(mt_doctor_trial_result *r);

#endif
