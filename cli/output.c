/* The CLI's text output made safe once for every command: stdout and stderr
 * are replaced by streams that pass what is printed through the sanitiser
 * (common/sanitize.h) before it reaches the descriptors, so a repository
 * file name, a note or an imported table printed by any command cannot
 * drive the terminal. The CLI's own control sequences (progress lines) and
 * a training command's output passed through by `mtrial run` go through the
 * raw streams kept here. */
#include "cli.h"
#include "sanitize.h"
#include "util.h"

#include <errno.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct filter {
	int fd;
	mt_buf pending; /* the start of a character cut between two writes */
};

static FILE *raw_out, *raw_err;
static struct filter filters[2] = {{1, MT_BUF_INIT}, {2, MT_BUF_INIT}};

/* How many bytes s starts with that every mode keeps as they are:
 * printable ASCII, \t and \n (most of what any command prints). Sixteen
 * bytes at a time where SSE2 is there: a warm rescan prints 10 MB. */
static size_t plain_prefix(const char *s, size_t n)
{
	size_t i = 0, stop;

	while (i < n) {
#ifdef __SSE2__
		const __m128i low = _mm_set1_epi8(0x1f), high = _mm_set1_epi8(0x7f);

		/* signed: bytes from 0x80 are negative, not above 0x1f */
		while (n - i >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
			__m128i ok = _mm_and_si128(_mm_cmpgt_epi8(v, low),
						   _mm_cmplt_epi8(v, high));
			if (_mm_movemask_epi8(ok) != 0xffff)
				break;
			i += 16;
		}
#endif
		/* the next 16 bytes one at a time: a \n or \t, or the end */
		for (stop = n - i > 16 ? i + 16 : n; i < stop; i++)
			if (!(((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f) ||
			      s[i] == '\n' || s[i] == '\t'))
				return i;
	}
	return i;
}

/* Sanitises pending + s[0..n); keeps a cut character for the next call.
 * A plain start (nothing pending) is written as it is, without a copy. */
static int filter_put(struct filter *f, const char *s, size_t n, int last)
{
	mt_buf out = MT_BUF_INIT;
	size_t took, plain = f->pending.len ? 0 : plain_prefix(s, n);
	int error;

	if (plain && mt_fd_write_all(f->fd, s, plain) < 0)
		return -1;
	if (plain == n && (!last || !f->pending.len))
		return 0;
	mt_buf_put(&f->pending, s + plain, n - plain);
	took = mt_term_safe_put(&out, mt_buf_cstr(&f->pending), f->pending.len, MT_TERM_TEXT,
				last);
	memmove(f->pending.ptr, f->pending.ptr + took, f->pending.len - took);
	f->pending.len -= took;
	f->pending.ptr[f->pending.len] = '\0';
	error = mt_fd_write_all(f->fd, mt_buf_cstr(&out), out.len);
	mt_buf_dispose(&out);
	return error;
}

static ssize_t filter_write(void *cookie, const char *s, size_t n)
{
	return filter_put(cookie, s, n, 0) < 0 ? -1 : (ssize_t)n;
}

static FILE *filtered(struct filter *f, int mode)
{
	cookie_io_functions_t io = {.write = filter_write};
	FILE *fp = fopencookie(f, "w", io);

	if (fp)
		setvbuf(fp, NULL, mode, BUFSIZ);
	return fp;
}

/* At exit, after stdio's last flush would be too late to see a cut
 * character: say it as '?' rather than drop it. */
static void flush_pending(void)
{
	for (int i = 0; i < 2; i++) {
		fflush(i == 0 ? stdout : stderr);
		if (filters[i].pending.len)
			filter_put(&filters[i], "", 0, 1);
	}
}

void cli_output_filter(void)
{
	FILE *out, *err;

	if (raw_out)
		return;
	out = filtered(&filters[0], isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF);
	err = filtered(&filters[1], _IONBF);
	if (!out || !err) { /* no memory for two streams: print as before */
		if (out)
			fclose(out);
		if (err)
			fclose(err);
		return;
	}
	raw_out = stdout, raw_err = stderr;
	stdout = out, stderr = err;
	atexit(flush_pending);
}

void cli_output_raw(void)
{
	if (!raw_out)
		return;
	flush_pending();
	stdout = raw_out, stderr = raw_err;
	raw_out = raw_err = NULL;
}

FILE *cli_raw_stdout(void)
{
	fflush(stdout);
	return raw_out ? raw_out : stdout;
}

FILE *cli_raw_stderr(void)
{
	fflush(stderr);
	return raw_err ? raw_err : stderr;
}

const char *cli_line(const char *s)
{
	static char *ring[8];
	static unsigned next;
	char **slot = &ring[next++ % 8];

	free(*slot);
	*slot = mt_term_safe(s, MT_TERM_LINE);
	return *slot;
}

void cli_status_line(const char *fmt, ...)
{
	FILE *err = cli_raw_stderr();
	char *text = NULL, *safe;
	va_list ap;

	if (!isatty(STDERR_FILENO))
		return;
	fputs("\r\033[K", err);
	if (fmt) {
		va_start(ap, fmt);
		if (vasprintf(&text, fmt, ap) < 0)
			text = NULL;
		va_end(ap);
		safe = mt_term_safe(text, MT_TERM_LINE);
		fputs(safe, err);
		free(safe);
		free(text);
	}
	fflush(err);
}
