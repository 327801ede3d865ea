#include "run_capture.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

/* Writes the complete lines of s->partial (or all of it, at the end). */
static void flush_lines(mt_run_stream *s, FILE *log, int all, size_t *lines)
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
static int pump(mt_run_stream *s, FILE *log, size_t *lines)
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

void mt_run_capture_init(mt_run_capture *c, FILE *log, int out_fd, FILE *out_echo, int err_fd,
			 FILE *err_echo)
{
	*c = (mt_run_capture){.s = {{out_fd, out_echo, 'o', MT_BUF_INIT},
				    {err_fd, err_echo, 'e', MT_BUF_INIT}},
			      .log = log};
}

int mt_run_capture_step(mt_run_capture *c, int timeout_ms)
{
	struct pollfd p[2] = {{c->s[0].fd, POLLIN, 0}, {c->s[1].fd, POLLIN, 0}};

	if (c->s[0].fd < 0 && c->s[1].fd < 0)
		return 0;
	if (poll(p, 2, timeout_ms) < 0 && errno != EINTR)
		return -1;
	for (int i = 0; i < 2; i++)
		if (c->s[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR)))
			pump(&c->s[i], c->log, &c->lines);
	return c->s[0].fd >= 0 || c->s[1].fd >= 0;
}

void mt_run_capture_dispose(mt_run_capture *c)
{
	for (int i = 0; i < 2; i++) {
		if (c->s[i].fd >= 0)
			close(c->s[i].fd);
		c->s[i].fd = -1;
		mt_buf_dispose(&c->s[i].partial);
	}
}
