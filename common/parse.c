/* Command-line values (see parse.h). */
#include "parse.h"
#include "error.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* strtod on the whole string; strtod alone also takes leading spaces, a
 * sign, "nan", "inf" and hex, none of which is a value a user means here. */
static int number(const char *s, double *out)
{
	char *end;

	if (!s || !((*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9')))
		return MT_EUSAGE;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return MT_EUSAGE;
	*out = strtod(s, &end);
	return *end || !isfinite(*out) ? MT_EUSAGE : 0;
}

int mt_parse_nonneg(const char *s, double *out)
{
	double v;

	if (number(s, &v) < 0)
		return MT_EUSAGE;
	*out = v;
	return 0;
}

int mt_parse_duration(const char *s, int64_t *out)
{
	const int64_t max_ms = 7LL * 24 * 3600000; /* effort is logged by the day */
	int64_t ms = 0;
	int error = mt_duration_parse(&ms, s, "--duration");

	if (error == 0 && (ms <= 0 || ms > max_ms))
		error = mt_error_set(MT_EUSAGE, "--duration '%s': must be more than 0 and at most "
				     "a week (7d = 168h)", s);
	if (error == 0)
		*out = ms;
	return error;
}

int mt_parse_seconds_ms(const char *s, double max_s, long *out)
{
	double v;

	if (number(s, &v) < 0 || v <= 0 || v > max_s)
		return MT_EUSAGE;
	*out = (long)(v * 1000);
	return 0;
}

int mt_parse_tol(const char *s, char **glob, double *rtol, double *atol)
{
	const char *eq = strrchr(s, '='), *comma;
	char *nums;
	int ok;

	if (!eq || eq == s)
		return mt_error_set(MT_EUSAGE, "--tol %s: expected GLOB=RTOL,ATOL", s);
	nums = mt_strdup(eq + 1);
	comma = strchr(nums, ',');
	if (comma)
		nums[comma - nums] = '\0';
	ok = comma && mt_parse_nonneg(nums, rtol) == 0 && mt_parse_nonneg(comma + 1, atol) == 0;
	free(nums);
	if (!ok)
		return mt_error_set(MT_EUSAGE, "--tol %s: expected GLOB=RTOL,ATOL with two "
				    "non-negative numbers", s);
	*glob = malloc((size_t)(eq - s) + 1);
	if (!*glob)
		abort();
	memcpy(*glob, s, (size_t)(eq - s));
	(*glob)[eq - s] = '\0';
	return 0;
}
