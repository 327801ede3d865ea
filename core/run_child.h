/* The training command of `mtrial run` as a child process: started in a
 * process group of its own with its output on two pipes, stopped step by
 * step after an interrupt, and waited for. */
#ifndef MT_RUN_CHILD_H
#define MT_RUN_CHILD_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* After an interrupt: SIGINT to the command's group at once, SIGTERM after
 * this long (or at a second Ctrl-C), SIGKILL this long after that. */
#define MT_RUN_GRACE_MS 10000

typedef struct {
	pid_t pid;
	int out, err;         /* the read ends of its stdout and stderr, -1 once taken */
	int forwarded;        /* signals sent: 0 none, 1 SIGINT, 2 SIGTERM, 3 SIGKILL */
	int64_t forwarded_ms; /* when the last was sent */
	struct sigaction old_int, old_term;
} mt_run_child;

/* Catches SIGINT and SIGTERM in this process (counted, for
 * mt_run_child_interrupted) and starts argv (execvp) in its own process
 * group, its stdout and stderr on pipes. The caller waits for it with
 * mt_run_child_wait(), which puts the handlers back. */
int mt_run_child_start(mt_run_child *c, char **argv);

/* How many interrupts arrived since mt_run_child_start; *sig (may be NULL)
 * the first one's number. */
int mt_run_child_interrupted(int *sig);

/* Passes an interrupt on to the command's group, harder as time goes or
 * interrupts repeat. Returns 1 when it has just sent the first (SIGINT),
 * for the caller to say so. */
int mt_run_child_forward(mt_run_child *c);

/* Waits for the command to end (SIGKILL when interrupted meanwhile), closes
 * what is left of its pipes and restores the signal handlers. *status as
 * waitpid's. */
void mt_run_child_wait(mt_run_child *c, int *status);

#endif
