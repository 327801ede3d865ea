/* The command line's values (--duration, --timeout, --rtol/--atol, --tol),
 * parsed in one place so that every command reads them alike and a fuzz
 * harness (fuzz/fuzz_values.c) can reach them. Each takes the whole string:
 * no leading space, sign or trailing text. */
#ifndef MT_PARSE_H
#define MT_PARSE_H

#include <stdint.h>

/* A finite number >= 0 ("0", "1e-5", "0.25"): 0, or MT_EUSAGE. No message:
 * the caller names the option. */
int mt_parse_nonneg(const char *s, double *out);

/* --duration: hours, minutes and seconds ("90m", "1h30m", "1h 30m", "45s",
 * "1.5h", as mt_duration_parse reads them) into ms, more than 0 and at most
 * a week: 0, or MT_EUSAGE naming --duration. */
int mt_parse_duration(const char *s, int64_t *out);

/* Seconds, decimals allowed ("30", "2.5"), more than 0 and at most max_s,
 * into ms: 0, or MT_EUSAGE (no message). */
int mt_parse_seconds_ms(const char *s, double max_s, long *out);

/* --tol GLOB=RTOL,ATOL: *glob (caller frees) is everything before the last
 * '=', rtol and atol as mt_parse_nonneg. 0, or MT_EUSAGE "--tol S: ...". */
int mt_parse_tol(const char *s, char **glob, double *rtol, double *atol);

#endif
