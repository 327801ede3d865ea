#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MT_ERROR_MAX 2048

static _Thread_local char last_msg[MT_ERROR_MAX];
static _Thread_local int last_code;

int mt_error_vset(int code, const char *fmt, va_list ap)
{
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	last_code = code;
	return code;
}

int mt_error_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mt_error_vset(code, fmt, ap);
	va_end(ap);
	return code;
}

int mt_error_vat(int code, const char *file, unsigned long line, unsigned long col,
		 const char *fmt, va_list ap)
{
	char msg[MT_ERROR_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!line)
		return mt_error_set(code, "%s: %s", file, msg);
	if (!col)
		return mt_error_set(code, "%s:%lu: %s", file, line, msg);
	return mt_error_set(code, "%s:%lu:%lu: %s", file, line, col, msg);
}

int mt_error_at(int code, const char *file, unsigned long line, unsigned long col,
		const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mt_error_vat(code, file, line, col, fmt, ap);
	va_end(ap);
	return error;
}

int mt_error_prefix(int code, const char *fmt, ...)
{
	char old[MT_ERROR_MAX];
	size_t n;
	va_list ap;

	memcpy(old, last_msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	n = strlen(last_msg);
	snprintf(last_msg + n, sizeof(last_msg) - n, "%s", old);
	last_code = code;
	return code;
}

const char *mt_error_last(void)
{
	return last_msg;
}

int mt_error_last_code(void)
{
	return last_code;
}

void mt_error_clear(void)
{
	last_msg[0] = '\0';
	last_code = MT_OK;
}

int mt_error_code_for_write(int e)
{
	return e == ENOENT || e == ENOTDIR || e == EACCES || e == EROFS ? MT_ENOTFOUND : MT_EIO;
}

int mt_error_exit_status(int code)
{
	switch (code) {
	case MT_OK:
		return 0;
	case MT_EINVALID:
	case MT_EUSAGE:
	case MT_ENOTFOUND:
	case MT_EEXISTS:
	case MT_ESTATE:
		return 2;
	default:
		return 1;
	}
}
