/* The log capture of `mtrial run`: the child's two output streams passed
 * through as they come and kept, one line each with its time, in the log:
 * "EPOCH_MS o|e TEXT" (o: the child's stdout, e: its stderr), so that
 * clocks can be computed from it later, whatever the training prints. */
#ifndef MT_RUN_CAPTURE_H
#define MT_RUN_CAPTURE_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

typedef struct {
	int fd;         /* the read end of the child's pipe, -1 when closed */
	FILE *echo;     /* where its lines are passed through */
	char tag;       /* 'o' or 'e' in the log */
	mt_buf partial; /* a line not ended yet */
} mt_run_stream;

typedef struct {
	mt_run_stream s[2];
	FILE *log;    /* borrowed */
	size_t lines; /* lines written to the log */
} mt_run_capture;

/* Takes the two read ends (closed when they end or at dispose), passed
 * through to out_echo and err_echo. */
void mt_run_capture_init(mt_run_capture *c, FILE *log, int out_fd, FILE *out_echo, int err_fd,
			 FILE *err_echo);

/* Waits up to timeout_ms for output and handles what came. 1 while a
 * stream is open, 0 once both ended (every line logged), -1 when poll
 * fails. */
int mt_run_capture_step(mt_run_capture *c, int timeout_ms);

void mt_run_capture_dispose(mt_run_capture *c);

#endif
