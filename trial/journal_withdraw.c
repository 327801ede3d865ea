/* Withdrawing a record in the name of whoever is at the keyboard: what
 * `mtrial rm` and the wizard's withdraw key both call, so that the two name
 * the same person and say no for the same reasons (trial/journal.c). */
#include "journal.h"
#include "error.h"
#include "util.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

char *mt_journal_user(void)
{
	git_config *cfg = NULL;
	git_buf name = {0};
	const char *env = getenv("USER");
	char *out = NULL;

	/* git's user.name, as the team's commits name them */
	git_libgit2_init();
	if (git_config_open_default(&cfg) == 0 &&
	    git_config_get_string_buf(&name, cfg, "user.name") == 0 && name.ptr && *name.ptr)
		out = mt_strdup(name.ptr);
	git_buf_dispose(&name);
	git_config_free(cfg);
	git_libgit2_shutdown();
	git_error_clear();
	return out ? out : mt_strdup(env && *env ? env : "unknown");
}

int mt_journal_withdraw_by_user(mt_journal *j, const char *kind, int64_t id, const char *why,
				int64_t *id_out, char **who_out)
{
	char *who = mt_journal_user();
	int error = mt_journal_withdraw(j, kind, id, who, why, id_out);

	if (error == 0 && who_out)
		*who_out = who;
	else
		free(who);
	return error;
}

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
