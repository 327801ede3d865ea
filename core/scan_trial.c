#include "scan_trial.h"
#include "error.h"
#include "spec.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mt_scan_trial_paths(char ***out, size_t *n, const mt_trial *t)
{
	size_t count = t && t->spec ? mt_spec_count(t->spec, "scan.paths") : 0;
	char key[64];

	*out = NULL;
	*n = 0;
	if (count && !(*out = calloc(count, sizeof(**out))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < count; i++) {
		const char *p;
		snprintf(key, sizeof(key), "scan.paths.%zu", i);
		if ((p = mt_spec_get(t->spec, key))) /* an empty item is none */
			(*out)[(*n)++] = mt_strdup(p);
	}
	return 0;
}

void mt_scan_paths_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The figures the callers show, as the scan gives them typed (parsing its
 * summary took a rescan of a large repository longer than the rest). */
static int read_summary(mt_scan_trial_result *out)
{
	const mt_scan_result *r = &out->scan;

	out->files_scanned = r->files_scanned;
	out->calls = r->calls;
	out->findings = r->findings;
	if (r->npaths_missing && !(out->paths_missing = calloc(r->npaths_missing, sizeof(char *))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < r->npaths_missing; i++)
		out->paths_missing[out->npaths_missing++] = mt_strdup(r->paths_missing[i]);
	return 0;
}

static char *result_text(void *arg)
{
	return mt_scan_result_json(arg, NULL);
}

/* Writes the scan into the journal; its failure is the record's, not the
 * scan's. The whole result is made only when the journal has not got it. */
static void record(mt_scan_trial_result *out, mt_trial *t)
{
	const mt_scan_result *r = &out->scan;
	mt_journal_scan rec = {r->repo, r->commit, r->tree, r->worktree, r->summary, NULL,
			       result_text, (void *)r};

	if (mt_journal_scan_add(t->journal, &rec, &out->scan_id, &out->unchanged) < 0) {
		out->not_recorded = mt_strdup(mt_error_last());
		out->scan_id = 0;
		mt_error_clear();
	}
}

int mt_scan_trial_run(mt_scan_trial_result *out, mt_trial *t, const mt_scan_trial_options *o,
		      const char *no_trial)
{
	mt_scan_options so = o->scan;
	char **spec_paths = NULL, *trial_repo = NULL;
	size_t nspec = 0;
	int error;

	memset(out, 0, sizeof(*out));
	if (!so.npaths && (error = mt_scan_trial_paths(&spec_paths, &nspec, t)) < 0)
		return error;
	if (!so.repo && (trial_repo = mt_trial_repository(t))) {
		so.repo = trial_repo; /* the trial's own, wherever the command runs */
		if (!mt_path_exists(trial_repo)) {
			error = mt_error_set(MT_ENOTFOUND, "trial.yaml workload.repository: %s: no "
					     "such directory (--repo PATH scans another)", trial_repo);
			free(trial_repo);
			mt_scan_paths_free(spec_paths, nspec);
			return error;
		}
	}
	/* the trial's own repository at the revision the baseline runs from,
	 * not whatever its HEAD is now (--rev HEAD scans that) */
	if (trial_repo && !so.rev && !so.worktree && t->spec &&
	    (so.rev = mt_spec_get(t->spec, "workload.revision")) && *so.rev)
		out->rev_from_trial = 1;
	else if (!out->rev_from_trial)
		so.rev = o->scan.rev;
	if (!so.npaths) {
		so.paths = (const char *const *)spec_paths;
		so.npaths = nspec;
		out->paths_from_trial = nspec > 0;
	}
	error = mt_scan_run(&out->scan, &so);
	if (error < 0 && out->rev_from_trial)
		mt_error_prefix(error, "trial.yaml workload.revision %s (--rev REV scans another): ",
				so.rev);
	free(trial_repo);
	mt_scan_paths_free(spec_paths, nspec);
	if (error == 0 && (error = read_summary(out)) == 0 && o->recording && t)
		o->recording(so.payload);
	if (error < 0) {
		mt_scan_trial_result_dispose(out);
		return error;
	}
	if (t)
		record(out, t);
	else
		out->not_recorded = mt_strdup(no_trial ? no_trial : "no trial");
	return 0;
}

void mt_scan_trial_result_dispose(mt_scan_trial_result *r)
{
	mt_scan_result_dispose(&r->scan);
	mt_scan_paths_free(r->paths_missing, r->npaths_missing);
	free(r->not_recorded);
	memset(r, 0, sizeof(*r));
}
