/* bench/startup's timer: runs each command RUNS times, interleaved (one
 * run of each per round, so every command sees the same load), and prints
 * per command the median wall time in ms, the median CPU time (user +
 * system) in ms, the median minor page faults and the median peak RSS in
 * KB, from wait4()'s rusage: no shell, no `date` between the clock and the
 * program. On a loaded machine the CPU time says more than the wall time.
 *
 * usage: bench_spawn RUNS CMD ARGS... [:: CMD ARGS...]...
 * output: one line per command: "WALL_MS CPU_MS FAULTS RSS_KB" */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[1]) : 0, ncmd = 0;
	char **cmds[64];

	if (runs < 1) {
		fprintf(stderr, "usage: bench_spawn RUNS CMD ARGS... [:: CMD ARGS...]...\n");
		return 2;
	}
	cmds[ncmd++] = argv + 2;
	for (int i = 2; i < argc && ncmd < 64; i++)
		if (strcmp(argv[i], "::") == 0) {
			argv[i] = NULL;
			cmds[ncmd++] = argv + i + 1;
		}
	double *ms = calloc((size_t)ncmd * runs, sizeof(double));
	double *faults = calloc((size_t)ncmd * runs, sizeof(double));
	double *rss = calloc((size_t)ncmd * runs, sizeof(double));
	double *cpu = calloc((size_t)ncmd * runs, sizeof(double));
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	for (int r = 0; r < runs; r++)
		for (int c = 0; c < ncmd; c++) {
			struct timespec t0, t1;
			struct rusage ru;
			pid_t pid;
			int status;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			if (posix_spawnp(&pid, cmds[c][0], &fa, NULL, cmds[c], environ) != 0) {
				perror(cmds[c][0]);
				return 1;
			}
			if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
			    WEXITSTATUS(status) != 0) {
				fprintf(stderr, "bench_spawn: %s failed\n", cmds[c][0]);
				return 1;
			}
			clock_gettime(CLOCK_MONOTONIC, &t1);
			ms[c * runs + r] = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
			faults[c * runs + r] = (double)ru.ru_minflt;
			rss[c * runs + r] = (double)ru.ru_maxrss;
			cpu[c * runs + r] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
					    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
		}
	for (int c = 0; c < ncmd; c++)
		printf("%.2f %.2f %.0f %.0f\n", median(ms + c * runs, runs),
		       median(cpu + c * runs, runs), median(faults + c * runs, runs),
		       median(rss + c * runs, runs));
	return 0;
}
