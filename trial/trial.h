/* A trial on disk: the directory holding trial.yaml and journal.db. */
#ifndef MT_TRIAL_H
#define MT_TRIAL_H

#include "spec.h"
#include "journal.h"

#define MT_TRIAL_DEFAULT_DIR ".mtrial"
#define MT_TRIAL_SPEC "trial.yaml"
#define MT_TRIAL_JOURNAL "journal.db"

typedef struct {
	char *dir;          /* absolute path of the trial directory */
	char *spec_path;
	char *journal_path;
	mt_spec *spec;      /* NULL until mt_trial_open() with load_spec */
	mt_journal *journal;
	/* the standing runs, read once while held (trial/runs.h,
	 * mt_runs_hold); private to trial/ */
	struct json_t *runs_held;
	int runs_holds;
} mt_trial;

/* Finds the trial directory: `explicit_dir` when given, else $MTRIAL_DIR,
 * else the nearest at or above `cwd` of a trial's own directory (trial.yaml
 * with journal.db or events/: init --trial DIR, init --from-bundle B DIR)
 * or a ".mtrial/trial.yaml" (init's default). Caller frees.
 * MT_ENOTFOUND, with a message naming where it looked, when there is none. */
int mt_trial_find(char **out, const char *explicit_dir, const char *cwd);

/* Opens the trial in `dir`: validates trial.yaml when `load_spec` (an invalid
 * spec fails the open with the spec's error) and opens the journal. */
int mt_trial_open(mt_trial **out, const char *dir, int load_spec);
void mt_trial_free(mt_trial *t);

/* Creates a new trial directory with the template spec and an empty journal.
 * A `repository` (absolute path) that holds dir is written relative to dir
 * ("..") so that a clone with the trial committed points at itself.
 * MT_EEXISTS when dir already holds a trial.yaml or journal.db: nothing is
 * overwritten. */
int mt_trial_create(const char *dir, const char *name, const char *repository,
		    const char *revision);

/* In a trial made from a bundle (core/bundle_trial.h), each run's log as
 * the bundle carried it, under the trial directory: the id and the system. */
#define MT_TRIAL_BUNDLE_LOG "logs/%lld-%s.log"

/* The file to read run `id`'s log from: in a trial made from a bundle its
 * copy (MT_TRIAL_BUNDLE_LOG) when there is one (the path recorded is the
 * writer's, on another machine), else `source` as recorded. Caller frees;
 * NULL when neither. */
char *mt_trial_run_log(const mt_trial *t, int64_t id, const char *system, const char *source);

/* workload.repository as a local path: a relative one is read against the
 * trial directory (in a trial made from a bundle, as its writer read it:
 * the marker's second line), an absolute one as it is. NULL when the spec
 * gives none or gives a URL. Caller frees. */
char *mt_trial_repository(const mt_trial *t);

#endif
