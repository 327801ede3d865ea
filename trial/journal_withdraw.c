/* What the listings of withdrawn records count (the withdrawal itself is
 * mt_journal_withdraw, trial/journal.c; who withdraws is git's user,
 * probes/repo.c, a layer above). */
#include "journal.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int mt_journal_withdrawn_count(mt_journal *j, const char *kind, size_t *out)
{
	json_t *all = mt_journal_withdrawals_json(j), *w;
	size_t i;

	*out = 0;
	if (!all)
		return mt_error_last_code();
	json_array_foreach(all, i, w) {
		const char *k = json_string_value(json_object_get(w, "kind"));
		*out += k && strcmp(k, kind) == 0;
	}
	json_decref(all);
	return 0;
}
