/* The trial's part of `mtrial doctor`. */
#include "doctor_trial.h"
#include "error.h"
#include "gitread.h"
#include "repo.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* path (absolute) relative to root, or NULL when it is not under it. */
static char *relative_to(const char *root, const char *path)
{
	char rroot[PATH_MAX], rpath[PATH_MAX];
	size_t n;

	if (!realpath(root, rroot) || !realpath(path, rpath))
		return NULL;
	n = strlen(rroot);
	if (strncmp(rroot, rpath, n) != 0 || rpath[n] != '/')
		return NULL;
	return mt_strdup(rpath + n + 1);
}

/* Whether HEAD of the repository holding the trial has journal.db: an
 * older mtrial's journal committed by a team, which each clone then sees
 * instead of the events (issue 19). */
static void journal_tracked(mt_doctor_trial_result *out, const mt_trial *t)
{
	char *workdir = NULL, *data = NULL;
	mt_gitrepo *r = NULL;
	size_t size = 0;
	int error;

	out->journal_tracked = -1;
	if ((error = mt_repo_discover(&workdir, NULL, t->dir)) == MT_ENOTFOUND) {
		out->journal_tracked = 0; /* in no repository: tracked by none */
		goto cleanup;
	}
	if (error == 0 && !(out->journal_rel = relative_to(workdir, t->journal_path))) {
		out->journal_tracked = 0; /* the repository holds the trial elsewhere */
		goto cleanup;
	}
	if (error == 0 && (error = mt_gitrepo_open(&r, workdir)) == 0)
		error = mt_gitrepo_read_path(&data, &size, r, NULL, out->journal_rel);
	if (error == 0 || error == MT_ENOTFOUND)
		out->journal_tracked = error == 0;
cleanup:
	if (out->journal_tracked < 0)
		out->why_unknown = mt_strdup(mt_error_last());
	mt_error_clear();
	free(data);
	mt_gitrepo_free(r);
	free(workdir);
}

int mt_doctor_trial(mt_doctor_trial_result *out, mt_trial *t)
{
	memset(out, 0, sizeof(*out));
	journal_tracked(out, t);
	if (mt_objects_sweep(t->dir, &out->swept) < 0) {
		out->sweep_error = mt_strdup(mt_error_last());
		mt_error_clear();
	}
	return mt_journal_record_summary(t->journal, (size_t)-1 >> 1, &out->record);
}

void mt_doctor_trial_result_dispose(mt_doctor_trial_result *r)
{
	mt_record_summary_dispose(&r->record);
	free(r->journal_rel);
	free(r->why_unknown);
	free(r->sweep_error);
	memset(r, 0, sizeof(*r));
}
