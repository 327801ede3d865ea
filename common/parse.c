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

/* One "<number><unit>" term at *p ("90m", "1.5h"): its ms, or -1 when it
 * is not one or alone exceeds max_ms. */
static int64_t term(const char **p, int64_t max_ms)
{
	const char *s = *p;
	char num[32];
	double v, unit;
	size_t n = strspn(s, "0123456789");

	if (n == 0)
		return -1;
	if (s[n] == '.')
		n += 1 + strspn(s + n + 1, "0123456789");
	if (n >= sizeof(num) || s[n - 1] == '.')
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	v = strtod(num, NULL);
	unit = s[n] == 'h' ? 3600000 : s[n] == 'm' ? 60000 : s[n] == 's' ? 1000 : 0;
	if (unit == 0 || v * unit > (double)max_ms)
		return -1;
	*p = s + n + 1;
	return (int64_t)llround(v * unit);
}

int mt_parse_duration(const char *s, int64_t *out)
{
	const int64_t max_ms = 7LL * 24 * 3600000; /* effort is logged by the day */
	const char *p = s;
	int64_t total = 0, t;

	while (*p) {
		if ((t = term(&p, max_ms)) < 0 || (total += t) > max_ms)
			break;
	}
	if (*p || total <= 0 || total > max_ms)
		return mt_error_set(MT_EUSAGE, "bad duration '%s' (e.g. 45m, 1h30m, 1.5h; at "
				    "most a week)", s);
	*out = total;
	return 0;
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
