/* `mtrial sync [REMOTE]` (issue 19): the trial's events and artefacts
 * exchanged with a remote through a ref of their own, the same for the
 * CLI and the wizard.
 *
 * The ref is refs/mtrial/KEY in the repository the trial directory is in
 * (else the trial's own, trial.yaml workload.repository): KEY is "trial"
 * for the usual REPO/.mtrial and for a trial kept outside the repository,
 * else "trial-" and the trial directory's path in the repository with
 * every character but letters, digits, '-' and '_' made '_'. Its commit's tree holds events/WRITER.jsonl and
 * objects/... as they are under the trial directory. The remote's copy is
 * fetched into refs/mtrial/remotes/REMOTE/KEY. No branch, index or work
 * tree file outside the trial directory is touched. */
#ifndef MT_SYNC_TRIAL_H
#define MT_SYNC_TRIAL_H

#include <stddef.h>
#include <stdint.h>

#include "trial.h"

#define MT_SYNC_DEFAULT_REMOTE "origin"
/* The local record of the last sync, in the trial directory (kept out of
 * git by its .gitignore). */
#define MT_SYNC_FILE "synced"

typedef struct {
	const char *remote; /* a remote's name or URL or path; NULL: origin */
	int attempts;       /* pushes tried while the remote moves; 0: 5 */
} mt_sync_trial_options;

/* A file of the remote's tree that was not taken, and why. */
typedef struct {
	char *file; /* its path in the tree: events/NAME.jsonl, objects/... */
	char *reason;
} mt_sync_refusal;

typedef struct {
	char *remote, *ref;  /* as given; refs/mtrial/KEY */
	char tip[41];        /* the remote ref's commit after the sync, "" when none */
	int pushed;          /* a new tip was pushed */
	int attempts;        /* fetch-merge-push rounds made */
	size_t events_received, events_sent; /* lines of events files */
	size_t objects_received, objects_sent;
	size_t events, writers, machines;    /* in the union */
	int reindexed; /* the index was made again (events received were older
			* than its last), not only caught up */
	int64_t at_ms;
	mt_sync_refusal *refused; /* files not taken: the rest is synced */
	size_t nrefused;
} mt_sync_trial_result;

/* Fetches the remote's ref, adds what it has to the trial's files
 * (a writer's file grows only by appending: the longer of two versions
 * wins when one is a prefix of the other; else the file is refused, the
 * local one kept), commits the union when it differs and pushes it,
 * fetching again when the remote moved meanwhile. Then records the sync
 * in MT_SYNC_FILE and reopens t's journal so that its index takes the new
 * events. Refused files are in out->refused; the call fails only when
 * nothing could be synced (a remote that is not one is MT_EINVALID). The
 * caller disposes *out. */
int mt_sync_trial_run(mt_sync_trial_result *out, mt_trial *t, const mt_sync_trial_options *o);

void mt_sync_trial_result_dispose(mt_sync_trial_result *r);

/* The last sync as MT_SYNC_FILE records it. */
typedef struct {
	int64_t at_ms;
	char *remote;
	char tip[41];
	size_t events, writers, machines;
} mt_sync_last;

/* 1 with *out filled (caller disposes) when the trial has synced, 0 when
 * it never has (or the record cannot be read). */
int mt_sync_trial_last(mt_sync_last *out, const char *trial_dir);

void mt_sync_last_dispose(mt_sync_last *l);

#endif
