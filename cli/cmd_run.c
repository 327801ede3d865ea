/* mtrial run -- CMD ARGS...: runs the training command as a child, passes
 * its output through, keeps every line with its time in the trial's runs/
 * directory, and records the attempt, failed or interrupted ones too.
 *
 * The log: one line per output line, "EPOCH_MS o|e TEXT" (o: the child's
 * stdout, e: its stderr), so that clocks can be computed from it later,
 * whatever the training prints.
 *
 * --rehearsal records the attempt as a rehearsal: a run made to test the
 * pipeline, the launcher or the log format (a CPU, a smaller config),
 * listed with the others but never evidence (trial/decide.h). */
#include "cli.h"
#include "error.h"
#include "runs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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

/* After an interrupt: SIGINT to the command's group at once, SIGTERM after
 * this long (or at a second Ctrl-C), SIGKILL this long after that. */
#define GRACE_MS 10000

struct stream {
	int fd;         /* the read end of the child's pipe, -1 when closed */
	FILE *echo;     /* where its lines are passed through */
	char tag;       /* 'o' or 'e' in the log */
	mt_buf partial; /* a line not ended yet */
};

/* Writes the complete lines of s->partial (or all of it, at the end). */
static void flush_lines(struct stream *s, FILE *log, int all, size_t *lines)
{
	char *start = s->partial.ptr, *nl;
	size_t left = s->partial.len;
	int64_t now = mt_now_ms();

	if (!start) /* nothing read yet */
		return;
	while (left && ((nl = memchr(start, '\n', left)) || all)) {
		size_t n = nl ? (size_t)(nl - start) : left;
		fprintf(log, "%lld %c %.*s\n", (long long)now, s->tag, (int)n, start);
		(*lines)++;
		start += n + (nl != NULL);
		left -= n + (nl != NULL);
	}
	memmove(s->partial.ptr, start, left);
	s->partial.len = left;
	if (s->partial.ptr)
		s->partial.ptr[left] = '\0';
	fflush(log);
}

/* Reads what is there; passes it through and logs it. 0 at end of file. */
static int pump(struct stream *s, FILE *log, size_t *lines)
{
	char buf[65536];
	ssize_t n = read(s->fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n <= 0) {
		flush_lines(s, log, 1, lines);
		close(s->fd);
		s->fd = -1;
		return 0;
	}
	fwrite(buf, 1, (size_t)n, s->echo);
	fflush(s->echo);
	mt_buf_put(&s->partial, buf, (size_t)n);
	flush_lines(s, log, 0, lines);
	return 1;
}

struct run_args {
	struct cli_attempt at;
	char **argv;
};

/* The command as one shell-quoted line, for the record. */
static char *command_line(char **argv)
{
	mt_buf b = MT_BUF_INIT;
	for (int i = 0; argv[i]; i++) {
		const char *a = argv[i];
		int plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789-_./=:,+@%") == strlen(a);
		mt_buf_puts(&b, i ? " " : "");
		if (plain) {
			mt_buf_puts(&b, a);
			continue;
		}
		mt_buf_puts(&b, "'");
		for (; *a; a++)
			mt_buf_puts(&b, *a == '\'' ? "'\\''" : (char[]){*a, 0});
		mt_buf_puts(&b, "'");
	}
	return mt_buf_detach(&b);
}

static int run(struct cli *cli, const struct run_args *a, int *child_status)
{
	mt_trial *t = NULL;
	char *cmd = command_line(a->argv), *dir = NULL, *path = NULL, name[64], host[256] = "";
	int out[2] = {-1, -1}, err[2] = {-1, -1}, error, status = 0;
	/* the command's own output reaches its terminal as it wrote it (progress
	 * bars, colours); what is stored in the log is sanitised when shown */
	struct stream s[2] = {{-1, cli_raw_stdout(), 'o', MT_BUF_INIT},
			      {-1, cli_raw_stderr(), 'e', MT_BUF_INIT}};
	struct sigaction sa = {0}, old_int, old_term;
	mt_journal_run rec = {0};
	int64_t id = 0, started = mt_now_ms();
	size_t lines = 0;
	FILE *log = NULL;
	int forwarded = 0;
	int64_t interrupt_ms = 0;
	pid_t pid;

	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		goto done;
	dir = mt_path_join(t->dir, "runs");
	snprintf(name, sizeof(name), "%lld-%s.log", (long long)started, a->at.system);
	path = mt_path_join(dir, name);
	if ((error = mt_mkdir_p(dir)) < 0)
		goto done;
	if (!(log = fopen(path, "wx"))) {
		error = mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		goto done;
	}
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	rec = (mt_journal_run){.system = a->at.system, .track = a->at.track, .label = a->at.label,
			       .cache = a->at.cache, .origin = "run", .command = cmd, .log = path,
			       .status = "running", .started_ms = started, .pid = getpid(),
			       .host = host[0] ? host : NULL, .rehearsal = a->at.rehearsal};
	if ((error = mt_journal_run_add(t->journal, &rec, &id)) < 0)
		goto done;
	fprintf(stderr, "mtrial: run #%lld (%s%s%s%s): %s\n", (long long)id, a->at.system,
		a->at.track ? ", " : "", a->at.track ? a->at.track : "",
		a->at.rehearsal ? ", a rehearsal: not evidence" : "", cmd);
	if (pipe(out) < 0 || pipe(err) < 0) {
		error = mt_error_set(MT_EIO, "pipe: %s", strerror(errno));
		goto done;
	}
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if ((pid = fork()) < 0) {
		error = mt_error_set(MT_EIO, "fork: %s", strerror(errno));
		goto restore;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL); /* even when the shell started us ignoring it */
		signal(SIGTERM, SIG_DFL);
		setpgid(0, 0); /* its own group: an interrupt reaches the whole job */
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		close(out[0]), close(out[1]), close(err[0]), close(err[1]);
		execvp(a->argv[0], a->argv);
		fprintf(stderr, "mtrial run: %s: %s\n", a->argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(out[1]), close(err[1]);
	out[1] = err[1] = -1;
	s[0].fd = out[0];
	s[1].fd = err[0];
	out[0] = err[0] = -1;
	while (s[0].fd >= 0 || s[1].fd >= 0) {
		struct pollfd p[2] = {{s[0].fd, POLLIN, 0}, {s[1].fd, POLLIN, 0}};
		if (interrupted && !forwarded) {
			forwarded = 1;
			interrupt_ms = mt_now_ms();
			kill(-pid, SIGINT);
			fprintf(stderr, "\nmtrial: interrupted: stopping the command (its attempt is "
					"kept as aborted)\n");
		} else if (forwarded == 1 &&
			   (interrupted > 1 || mt_now_ms() - interrupt_ms > GRACE_MS)) {
			forwarded = 2;
			interrupt_ms = mt_now_ms();
			kill(-pid, SIGTERM);
		} else if (forwarded == 2 && mt_now_ms() - interrupt_ms > GRACE_MS) {
			forwarded = 3;
			kill(-pid, SIGKILL);
		}
		if (poll(p, 2, 1000) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++)
			if (s[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				pump(&s[i], log, &lines);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		if (interrupted)
			kill(-pid, SIGKILL);
	{
		/* interrupted means aborted, whatever the command made of the signal */
		const char *st = interrupted || WIFSIGNALED(status)		 ? "aborted"
				 : WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "success"
										 : "failed";
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		int64_t ended = mt_now_ms(); /* the attempt's end, as it is accounted for */
		json_t *metrics = NULL;
		char *text = NULL;
		fflush(log);
		if (mt_runs_metrics(&metrics, path, MT_RUNS_LOG_TIMED, t->spec, started, code) < 0) {
			fprintf(stderr, "mtrial: run #%lld: no figures from its log: %s\n",
				(long long)id, mt_error_last());
			mt_error_clear();
		} else {
			const char *mst = json_string_value(json_object_get(metrics, "status"));
			/* an MLPerf run_stop that says aborted: the run did not converge */
			if (strcmp(st, "success") == 0 && mst && strcmp(mst, "aborted") == 0)
				st = "aborted";
			mt_runs_set_end(metrics, ended);
			text = json_dumps(metrics, JSON_COMPACT);
		}
		error = mt_journal_run_end(t->journal, id, st, 1, code, ended, text);
		free(text);
		json_decref(metrics);
		*child_status = code;
		if (error == 0)
			fprintf(stderr, "mtrial: run #%lld %s (exit status %d, %zu lines in %s)\n",
				(long long)id, st, code, lines, path);
		if (error == 0) {
			json_t *runs = mt_journal_runs_json(t->journal, id), *r = json_array_get(runs, 0);
			mt_runs_flatten(r, t->spec);
			if (json_string_value(json_object_get(r, "cache_warning")))
				fprintf(stderr, "mtrial: run #%lld: warning: %s\n", (long long)id,
					json_string_value(json_object_get(r, "cache_warning")));
			if (cli->json)
				cli_print_json(json_incref(r));
			json_decref(runs);
		}
	}
restore:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
done:
	for (int i = 0; i < 2; i++) {
		if (s[i].fd >= 0)
			close(s[i].fd);
		mt_buf_dispose(&s[i].partial);
	}
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	if (log)
		fclose(log);
	if (error < 0 && id) /* recorded as running, then failed to run: say so */
		mt_journal_run_end(t->journal, id, "failed", 0, 0, mt_now_ms(), NULL);
	free(cmd);
	free(dir);
	free(path);
	mt_trial_free(t);
	return error;
}

int cmd_run(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS, CLI_ATTEMPT_OPTIONS, {0}};
	struct run_args a = {.at.system = "candidate"};
	int opt, error, child = 0;

	optind = 1;
	while ((opt = cli_getopt(cli, argc, argv, "+h" CLI_ATTEMPT_SHORT, opts)) >= 0)
		if (!cli_attempt_opt(&a.at, opt))
			return cli_usage_error(cli, "bad option");
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if ((error = cli_attempt_check(cli, &a.at)) != 0)
		return error;
	if (optind >= argc)
		return cli_usage_error(cli, "no command: mtrial run [OPTIONS] -- CMD ARGS...");
	a.argv = argv + optind;
	if ((error = run(cli, &a, &child)) < 0)
		return cli_fail(cli, error);
	/* as a shell reports a job a signal stopped (130 for Ctrl-C), whatever
	 * the command made of it: a script that catches KeyboardInterrupt and
	 * exits 0 was still cut short, and a caller's `&&` must not go on */
	if (interrupted)
		return 128 + first_signal;
	return child == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
