/* One sanitiser for every string from outside before a terminal or a
 * document sees it (see sanitize.h for what is replaced and why). */
#include "sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lowest valid second byte and the highest, per lead byte: overlong
 * forms, surrogates (ED A0..) and code points past U+10FFFF (F4 90..) are
 * invalid, as RFC 3629 says. */
static int lead(unsigned char c, int *len, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80, *hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		*len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		*len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		*len = 4;
	else
		return 0;
	if (c == 0xe0)
		*lo = 0xa0;
	else if (c == 0xed)
		*hi = 0x9f;
	else if (c == 0xf0)
		*lo = 0x90;
	else if (c == 0xf4)
		*hi = 0x8f;
	return 1;
}

int mt_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo, hi;
	int len;

	if (n == 0)
		return -1;
	if (u[0] < 0x80)
		return *cp = u[0], 1;
	if (!lead(u[0], &len, &lo, &hi))
		return 0;
	*cp = u[0] & (0x7f >> len);
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if (u[i] < (i == 1 ? lo : 0x80) || u[i] > (i == 1 ? hi : 0xbf))
			return 0;
		*cp = (*cp << 6) | (u[i] & 0x3f);
	}
	return len;
}

int mt_term_cp_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e ||
	       cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* What a whitespace control becomes in `mode`: itself, a space, or 0 when
 * it is replaced like any other control. */
static char whitespace(uint32_t cp, enum mt_term_mode mode, int crlf)
{
	if (cp != '\t' && cp != '\n' && cp != '\r')
		return 0;
	if (mode == MT_TERM_LINE)
		return ' ';
	if (mode == MT_TERM_TEXT && (cp != '\r' || crlf))
		return (char)cp;
	return 0;
}

static void put(mt_buf *out, const char *s, size_t n)
{
	if (mt_buf_put(out, s, n) < 0)
		abort();
}

size_t mt_term_safe_put(mt_buf *out, const char *s, size_t n, enum mt_term_mode mode, int last)
{
	size_t i = 0;

	while (i < n) {
		uint32_t cp = 0;
		int len;
		char ws;
		size_t run = i;

		/* printable ASCII, most of any output, is copied in one piece */
		while (run < n && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7f)
			run++;
		if (run > i) {
			put(out, s + i, run - i);
			i = run;
			continue;
		}
		len = mt_utf8_decode(s + i, n - i, &cp);
		if (len < 0 && !last)
			break; /* the rest of the character comes with the next call */
		if (len <= 0) {
			put(out, "?", 1);
			i++;
			continue;
		}
		if (cp == '\r' && mode == MT_TERM_TEXT && i + 1 == n && !last)
			break; /* a \n may follow */
		if (!mt_term_cp_unsafe(cp))
			put(out, s + i, (size_t)len);
		else if ((ws = whitespace(cp, mode, i + 1 < n && s[i + 1] == '\n')))
			put(out, &ws, 1);
		else
			put(out, "?", 1);
		i += (size_t)len;
	}
	return i;
}

char *mt_term_safe(const char *s, enum mt_term_mode mode)
{
	mt_buf b = MT_BUF_INIT;

	s = s ? s : "";
	mt_term_safe_put(&b, s, strlen(s), mode, 1);
	return mt_buf_detach(&b);
}

char *mt_term_safe_json(const char *json, size_t len)
{
	mt_buf b = MT_BUF_INIT;
	size_t i = 0;

	while (i < len) {
		uint32_t cp = 0;
		int n;
		char esc[8];
		size_t run = i;

		while (run < len && (unsigned char)json[run] >= 0x20 && (unsigned char)json[run] < 0x7f)
			run++;
		if (run > i) {
			put(&b, json + i, run - i);
			i = run;
			continue;
		}
		n = mt_utf8_decode(json + i, len - i, &cp);

		if (n > 0 && (!mt_term_cp_unsafe(cp) || cp == '\n' || cp == '\t' || cp == '\r')) {
			/* outside strings only these whitespace controls can stand */
			put(&b, json + i, (size_t)n);
			i += (size_t)n;
			continue;
		}
		snprintf(esc, sizeof(esc), "\\u%04x", n > 0 ? (unsigned)cp : 0xfffdu);
		put(&b, esc, 6);
		i += n > 0 ? (size_t)n : 1;
	}
	return mt_buf_detach(&b);
}
