/* libFuzzer harness for the command line's value parsers (common/parse.c:
 * --duration, --timeout, --rtol/--atol, --tol): any string must either give
 * a value inside the option's range or be refused with MT_EUSAGE, never
 * overflow, crash or leak; --tol keeps the whole glob. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static void values(const char *s)
{
	int64_t ms = -1;
	long tmo = -1;
	double v = -1, rtol = -1, atol = -1;
	char *glob = NULL;
	int rc;

	rc = mt_parse_duration(s, &ms);
	check(rc == 0 ? ms > 0 && ms <= 7LL * 24 * 3600000 : rc == MT_EUSAGE && *mt_error_last());
	rc = mt_parse_seconds_ms(s, 3600, &tmo);
	check(rc == 0 ? tmo >= 0 && tmo <= 3600000 : rc == MT_EUSAGE);
	rc = mt_parse_nonneg(s, &v);
	check(rc == 0 ? isfinite(v) && v >= 0 : rc == MT_EUSAGE);
	rc = mt_parse_tol(s, &glob, &rtol, &atol);
	if (rc == 0) {
		check(glob[0] && strlen(glob) == (size_t)(strrchr(s, '=') - s));
		check(isfinite(rtol) && rtol >= 0 && isfinite(atol) && atol >= 0);
		free(glob);
	} else {
		check(rc == MT_EUSAGE && *mt_error_last());
	}
	mt_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1); /* an argv string ends at its first NUL */

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	values(s);
	free(s);
	return 0;
}
