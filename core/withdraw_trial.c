#include "withdraw_trial.h"
#include "journal.h"
#include "util.h"

#include <stdlib.h>

int mt_withdraw_trial(mt_trial *t, const char *kind, int64_t id, const char *why, int64_t *id_out,
		      char **who_out)
{
	char *who = mt_strdup(mt_journal_author_name(t->journal));
	int error = mt_journal_withdraw(t->journal, kind, id, who, why, id_out);

	if (error == 0 && who_out)
		*who_out = who;
	else
		free(who);
	return error;
}
