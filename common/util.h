/* Small helpers shared by every library: a growable string buffer, files,
 * paths and clocks. Nothing here knows about trials or curses. */
#ifndef MT_UTIL_H
#define MT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

/* A growable, always NUL-terminated string. Initialise with MT_BUF_INIT or
 * mt_buf_init(); release the contents with mt_buf_dispose(). */
typedef struct {
	char *ptr;
	size_t len;
	size_t cap;
} mt_buf;

#define MT_BUF_INIT {NULL, 0, 0}

void mt_buf_init(mt_buf *b);
void mt_buf_dispose(mt_buf *b);
/* Appends; returns 0, or MT_EIO when memory runs out. */
int mt_buf_put(mt_buf *b, const char *s, size_t n);
int mt_buf_puts(mt_buf *b, const char *s);
int mt_buf_printf(mt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Makes room for `extra` more bytes at once (one allocation instead of a
 * doubling series when the final size is known). 0 or MT_EIO. */
int mt_buf_reserve(mt_buf *b, size_t extra);
/* Hands the string to the caller (who frees it) and resets the buffer. */
char *mt_buf_detach(mt_buf *b);
/* The contents, "" for an empty buffer. Borrowed. */
const char *mt_buf_cstr(const mt_buf *b);

/* Reads a whole file into *out (caller frees); *len may be NULL. */
int mt_file_read(char **out, size_t *len, const char *path);
/* Maps a regular file read-only: *data and *len (a 0-byte file maps to
 * NULL, 0). MT_ENOTFOUND when absent, MT_EINVALID for a directory or other
 * non-regular file, MT_EIO otherwise; messages name the path. */
int mt_file_map(const char *path, const unsigned char **data, uint64_t *len);
void mt_file_unmap(const unsigned char *data, uint64_t len);

/* Writes a file through a temporary name and rename(2), so a reader never
 * sees half of it. `excl`: fail with MT_EEXISTS when path already exists. */
int mt_file_write_atomic(const char *path, const char *data, size_t len, int excl);
/* All n bytes to fd, retrying short writes and EINTR: 0, or -1 with errno
 * set (no message: callers name what they were writing). */
int mt_fd_write_all(int fd, const void *p, size_t n);
/* 1 if path exists (any type), 0 otherwise. */
int mt_path_exists(const char *path);
int mt_path_is_dir(const char *path);
/* mkdir -p with mode 0755. */
int mt_mkdir_p(const char *path);
/* Joins two path parts with one '/'; caller frees. */
char *mt_path_join(const char *a, const char *b);
/* An absolute, normalised path (realpath) for an existing path; caller frees. */
char *mt_path_abs(const char *path);

/* The value of `key` in an environment array (environ's shape), NULL when
 * it is not set. Borrowed. */
const char *mt_env_get(char *const *envp, const char *key);

/* Wall-clock milliseconds since the epoch. */
int64_t mt_now_ms(void);
/* Monotonic milliseconds, for durations. */
int64_t mt_mono_ms(void);
/* Formats ms-since-epoch as "2026-11-29T14:30:00Z" (UTC) into buf (>= 21). */
void mt_time_iso(char *buf, size_t size, int64_t ms);
/* Formats a duration as "1h 02m", "3m 05s" or "12s" into buf. */
void mt_duration_fmt(char *buf, size_t size, int64_t ms);

/* Parses a duration as a person writes it: one or more parts, each a
 * decimal number and a unit h, m or s ("1.5h", "0.5m", "90s", "1h30m",
 * "1h 02m" as mt_duration_fmt writes it), into *ms (rounded to the ms).
 * MT_EUSAGE naming `what` (e.g. "--duration") for a negative number, a
 * missing unit, overflow or anything else. Zero is allowed: the caller
 * knows whether it makes sense. */
int mt_duration_parse(int64_t *ms, const char *s, const char *what);

/* strdup that never returns NULL for a non-NULL input (aborts on OOM). */
char *mt_strdup(const char *s);
/* 1 if s is one of the NULL-terminated list. */
int mt_str_in(const char *s, const char *const *list);

#endif
