/* Error reporting in the manner of libgit2: functions return 0 or a negative
 * MT_E* code and leave a message that the caller at the top reads with
 * mt_error_last(). The message is thread-local and lives until the next
 * mt_error_set()/mt_error_clear() on the same thread. */
#ifndef MT_ERROR_H
#define MT_ERROR_H

#include <stdarg.h>

enum mt_error_code {
	MT_OK = 0,
	MT_ERROR = -1,     /* generic failure */
	MT_ENOTFOUND = -3, /* a file, trial, key or record that is not there */
	MT_EEXISTS = -4,   /* refusing to overwrite something */
	MT_EINVALID = -5,  /* bad input: spec, arguments, file contents */
	MT_EIO = -6,       /* the operating system or a library failed */
	MT_ESTATE = -7,    /* the operation does not fit the current state */
	MT_EUSAGE = -8,    /* command-line usage */
};

/* Sets the last error message (printf-style) and returns `code`, so that a
 * failing path can be written `return mt_error_set(MT_EIO, "...")`. */
int mt_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like mt_error_set, with a va_list. */
int mt_error_vset(int code, const char *fmt, va_list ap);

/* Sets "file:LINE:COL: message", the one way a reader says where its
 * input is wrong: col 0 leaves the column out, line 0 both ("file: ..."). */
int mt_error_at(int code, const char *file, unsigned long line, unsigned long col,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int mt_error_vat(int code, const char *file, unsigned long line, unsigned long col,
		 const char *fmt, va_list ap);

/* Prefixes the current message with more context ("file.yaml: " + old). */
int mt_error_prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last message on this thread; never NULL (empty when none). Borrowed. */
const char *mt_error_last(void);

/* The code passed with the last message, MT_OK when none. */
int mt_error_last_code(void);

/* Forgets the last error. */
void mt_error_clear(void);

/* The code for a file the caller named that cannot be opened for writing
 * (errno e): a folder missing or not writable is the caller's input
 * (MT_ENOTFOUND, exit status 2), anything else MT_EIO. */
int mt_error_code_for_write(int e);

/* The process exit status for an error code: 2 for input and usage errors
 * (MT_EINVALID, MT_EUSAGE, MT_ENOTFOUND, MT_EEXISTS, MT_ESTATE), 1 otherwise. */
int mt_error_exit_status(int code);

#endif
