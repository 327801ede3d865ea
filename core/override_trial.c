#include "override_trial.h"
#include "opmap.h"

#include <stdlib.h>
#include <string.h>

int mt_override_trial_add(mt_override_trial_result *out, mt_trial *t, const char *op,
			  const char *status, const char *note)
{
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = mt_journal_override_add(t->journal, op, status, note, &out->id)) < 0)
		return error;
	out->warning = mt_aten_unregistered_warning(op);
	return 0;
}

void mt_override_trial_result_dispose(mt_override_trial_result *r)
{
	free(r->warning);
	memset(r, 0, sizeof(*r));
}
