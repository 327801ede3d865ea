#include "util.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void mt_buf_init(mt_buf *b)
{
	b->ptr = NULL;
	b->len = b->cap = 0;
}

void mt_buf_dispose(mt_buf *b)
{
	free(b->ptr);
	mt_buf_init(b);
}

static int buf_grow(mt_buf *b, size_t extra)
{
	size_t want = b->len + extra + 1;
	char *p;

	if (want <= b->cap)
		return 0;
	if (want < b->cap * 2)
		want = b->cap * 2;
	if (want < 64)
		want = 64;
	p = realloc(b->ptr, want);
	if (!p)
		return mt_error_set(MT_EIO, "out of memory");
	b->ptr = p;
	b->cap = want;
	return 0;
}

int mt_buf_reserve(mt_buf *b, size_t extra)
{
	size_t want = b->len + extra + 1;
	char *p;

	if (want <= b->cap)
		return 0;
	if (!(p = realloc(b->ptr, want)))
		return mt_error_set(MT_EIO, "out of memory");
	b->ptr = p;
	b->cap = want;
	return 0;
}

int mt_buf_put(mt_buf *b, const char *s, size_t n)
{
	if (buf_grow(b, n) < 0)
		return MT_EIO;
	memcpy(b->ptr + b->len, s, n);
	b->len += n;
	b->ptr[b->len] = '\0';
	return 0;
}

int mt_buf_puts(mt_buf *b, const char *s)
{
	return mt_buf_put(b, s, strlen(s));
}

int mt_buf_printf(mt_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_grow(b, (size_t)n) < 0)
		return MT_EIO;
	va_start(ap, fmt);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *mt_buf_detach(mt_buf *b)
{
	char *p = b->ptr ? b->ptr : mt_strdup("");
	mt_buf_init(b);
	return p;
}

const char *mt_buf_cstr(const mt_buf *b)
{
	return b->ptr ? b->ptr : "";
}

int mt_file_read(char **out, size_t *len, const char *path)
{
	FILE *f = fopen(path, "rb");
	mt_buf b = MT_BUF_INIT;
	char chunk[65536];
	size_t n;

	*out = NULL;
	if (!f)
		return mt_error_set(errno == ENOENT ? MT_ENOTFOUND : MT_EIO, "%s: %s", path,
				    strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (mt_buf_put(&b, chunk, n) < 0) {
			fclose(f);
			mt_buf_dispose(&b);
			return MT_EIO;
		}
	}
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		mt_buf_dispose(&b);
		return mt_error_set(MT_EIO, "%s: read failed: %s", path, strerror(e));
	}
	fclose(f);
	if (len)
		*len = b.len;
	*out = mt_buf_detach(&b);
	return 0;
}

const char *mt_env_get(char *const *envp, const char *key)
{
	size_t len = strlen(key);

	for (; envp && *envp; envp++)
		if (strncmp(*envp, key, len) == 0 && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

int mt_fd_write_all(int fd, const void *p, size_t n)
{
	const char *at = p;

	while (n) {
		ssize_t w = write(fd, at, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		at += w, n -= (size_t)w;
	}
	return 0;
}

int mt_file_write_atomic(const char *path, const char *data, size_t len, int excl)
{
	char tmp[PATH_MAX];
	int fd, error = 0;

	if (excl && mt_path_exists(path))
		return mt_error_set(MT_EEXISTS, "%s already exists", path);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) /* named as asked: a folder that is not there is the caller's input */
		return mt_error_set(mt_error_code_for_write(errno), "%s: cannot write it: %s", path,
				    strerror(errno));
	if (mt_fd_write_all(fd, data, len) < 0) {
		error = mt_error_set(MT_EIO, "%s: write failed: %s", tmp, strerror(errno));
		goto cleanup;
	}
	if (fsync(fd) < 0) {
		error = mt_error_set(MT_EIO, "%s: fsync failed: %s", tmp, strerror(errno));
		goto cleanup;
	}
	close(fd);
	fd = -1;
	if (excl) {
		/* link(2) fails if the target appeared meanwhile: no overwrite race. */
		if (link(tmp, path) < 0) {
			error = mt_error_set(errno == EEXIST ? MT_EEXISTS : MT_EIO, "%s: %s", path,
					     errno == EEXIST ? "already exists" : strerror(errno));
			goto cleanup;
		}
		unlink(tmp);
		return 0;
	}
	if (rename(tmp, path) < 0) {
		error = mt_error_set(MT_EIO, "%s: rename failed: %s", path, strerror(errno));
		goto cleanup;
	}
	return 0;
cleanup:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return error;
}

int mt_path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

int mt_path_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mt_mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(tmp))
		return mt_error_set(MT_EINVALID, "bad directory name '%s'", path);
	memcpy(tmp, path, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return mt_error_set(MT_EIO, "%s: %s", tmp, strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return mt_error_set(MT_EIO, "%s: %s", tmp, strerror(errno));
	if (!mt_path_is_dir(tmp))
		return mt_error_set(MT_EIO, "%s: not a directory", tmp);
	return 0;
}

char *mt_path_join(const char *a, const char *b)
{
	mt_buf buf = MT_BUF_INIT;
	size_t la = strlen(a);

	if (b[0] == '/' || la == 0)
		return mt_strdup(b);
	mt_buf_puts(&buf, a);
	if (a[la - 1] != '/')
		mt_buf_puts(&buf, "/");
	mt_buf_puts(&buf, b);
	return mt_buf_detach(&buf);
}

char *mt_path_abs(const char *path)
{
	char *p = realpath(path, NULL);
	if (!p)
		mt_error_set(errno == ENOENT ? MT_ENOTFOUND : MT_EIO, "%s: %s", path,
			     strerror(errno));
	return p;
}

int64_t mt_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mt_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void mt_time_iso(char *buf, size_t size, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void mt_duration_fmt(char *buf, size_t size, int64_t ms)
{
	int64_t s = ms / 1000;
	if (s < 0)
		s = 0;
	if (s >= 3600)
		snprintf(buf, size, "%lldh %02lldm", (long long)(s / 3600),
			 (long long)(s % 3600 / 60));
	else if (s >= 60)
		snprintf(buf, size, "%lldm %02llds", (long long)(s / 60), (long long)(s % 60));
	else
		snprintf(buf, size, "%llds", (long long)s);
}

#define DURATION_EXAMPLES "e.g. 45m, 1.5h, 1h30m, 90s"
#define DURATION_MAX_MS 1e15 /* 31,000 years: past it, ms stop being exact */

/* One part: digits[.digits] and a unit; digits by hand, since strtod would
 * take signs, exponents, hex and the locale's decimal comma. */
static int duration_part(double *ms, const char **p, const char *s, const char *what)
{
	const char *q = *p;
	double v = 0, scale = 1;
	int digits = 0;

	for (; *q >= '0' && *q <= '9'; q++, digits++)
		v = v * 10 + (*q - '0');
	if (*q == '.')
		for (q++; *q >= '0' && *q <= '9'; q++, digits++)
			v += (*q - '0') * (scale /= 10);
	if (**p == '-')
		return mt_error_set(MT_EUSAGE, "%s '%s': a duration cannot be negative", what, s);
	if (!digits)
		return mt_error_set(MT_EUSAGE, "%s '%s': expected a number at '%s' (%s)", what, s,
				    *p, DURATION_EXAMPLES);
	if (*q != 'h' && *q != 'm' && *q != 's')
		return mt_error_set(MT_EUSAGE, "%s '%s': '%.*s' needs a unit, h, m or s (%s)", what,
				    s, (int)(q - *p), *p, DURATION_EXAMPLES);
	*ms = v * (*q == 'h' ? 3600000.0 : *q == 'm' ? 60000.0 : 1000.0);
	*p = q + 1;
	return 0;
}

int mt_duration_parse(int64_t *ms, const char *s, const char *what)
{
	const char *p = s;
	double total = 0, part = 0;
	int error;

	while (*p == ' ')
		p++;
	if (!*p)
		return mt_error_set(MT_EUSAGE, "%s is empty (%s)", what, DURATION_EXAMPLES);
	while (*p) {
		if ((error = duration_part(&part, &p, s, what)) < 0)
			return error;
		total += part;
		if (total > DURATION_MAX_MS)
			return mt_error_set(MT_EUSAGE, "%s '%s' is too long", what, s);
		while (*p == ' ')
			p++;
	}
	*ms = (int64_t)(total + 0.5); /* total >= 0 */
	return 0;
}

char *mt_strdup(const char *s)
{
	char *p;
	if (!s)
		return NULL;
	p = strdup(s);
	if (!p)
		abort();
	return p;
}

int mt_str_in(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

int mt_file_map(const char *path, const unsigned char **data, uint64_t *len)
{
	struct stat st;
	void *p;
	int fd;

	*data = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return mt_error_set(errno == ENOENT ? MT_ENOTFOUND : MT_EIO, "%s: %s", path,
				    strerror(errno));
	if (fstat(fd, &st) != 0) {
		close(fd);
		return mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return mt_error_set(MT_EINVALID, "%s: not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return mt_error_set(MT_EIO, "%s: cannot map: %s", path, strerror(errno));
	*data = p;
	*len = (uint64_t)st.st_size;
	return 0;
}

void mt_file_unmap(const unsigned char *data, uint64_t len)
{
	if (data && len)
		munmap((void *)data, (size_t)len);
}
