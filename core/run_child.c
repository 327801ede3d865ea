#include "run_child.h"
#include "error.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted; /* how many interrupts arrived */
static volatile sig_atomic_t first_signal; /* the first one: mtrial exits 128 + it */

static void on_signal(int sig)
{
	if (!interrupted)
		first_signal = sig;
	interrupted++;
}

int mt_run_child_interrupted(int *sig)
{
	if (sig)
		*sig = first_signal;
	return interrupted;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* In the child: its own group, the pipes as stdout and stderr, the command. */
static void exec_child(char **argv, int out[2], int err[2])
{
	signal(SIGINT, SIG_DFL); /* even when the shell started us ignoring it */
	signal(SIGTERM, SIG_DFL);
	setpgid(0, 0); /* its own group: an interrupt reaches the whole job */
	dup2(out[1], STDOUT_FILENO);
	dup2(err[1], STDERR_FILENO);
	close(out[0]), close(out[1]), close(err[0]), close(err[1]);
	execvp(argv[0], argv);
	fprintf(stderr, "mtrial run: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int mt_run_child_start(mt_run_child *c, char **argv)
{
	int out[2] = {-1, -1}, err[2] = {-1, -1}, error = 0;
	struct sigaction sa = {0};

	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->out = c->err = -1;
	interrupted = first_signal = 0;
	if (pipe(out) < 0 || pipe(err) < 0) {
		error = mt_error_set(MT_EIO, "pipe: %s", strerror(errno));
		goto cleanup;
	}
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &c->old_int);
	sigaction(SIGTERM, &sa, &c->old_term);
	if ((c->pid = fork()) < 0) {
		error = mt_error_set(MT_EIO, "fork: %s", strerror(errno));
		sigaction(SIGINT, &c->old_int, NULL);
		sigaction(SIGTERM, &c->old_term, NULL);
		goto cleanup;
	}
	if (c->pid == 0)
		exec_child(argv, out, err);
	setpgid(c->pid, c->pid);
	c->out = out[0], c->err = err[0];
	out[0] = err[0] = -1;
cleanup:
	for (int i = 0; i < 2; i++)
		close_fd(&out[i]), close_fd(&err[i]);
	return error;
}

int mt_run_child_forward(mt_run_child *c)
{
	int64_t now = mt_now_ms();

	if (interrupted && !c->forwarded) {
		c->forwarded = 1;
		c->forwarded_ms = now;
		kill(-c->pid, SIGINT);
		return 1;
	}
	if (c->forwarded == 1 && (interrupted > 1 || now - c->forwarded_ms > MT_RUN_GRACE_MS)) {
		c->forwarded = 2;
		c->forwarded_ms = now;
		kill(-c->pid, SIGTERM);
	} else if (c->forwarded == 2 && now - c->forwarded_ms > MT_RUN_GRACE_MS) {
		c->forwarded = 3;
		kill(-c->pid, SIGKILL);
	}
	return 0;
}

void mt_run_child_wait(mt_run_child *c, int *status)
{
	*status = 0;
	close_fd(&c->out);
	close_fd(&c->err);
	while (waitpid(c->pid, status, 0) < 0 && errno == EINTR)
		if (interrupted)
			kill(-c->pid, SIGKILL);
	sigaction(SIGINT, &c->old_int, NULL);
	sigaction(SIGTERM, &c->old_term, NULL);
}
