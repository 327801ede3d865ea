#include "jsonw.h"
#include "sanitize.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mt_jw_init(mt_jw *w, mt_buf *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->first[0] = 1;
}

/* Writes the comma before a value or key, unless it is the first. */
static void sep(mt_jw *w)
{
	if (!w->first[w->depth])
		mt_buf_put(w->out, ",", 1);
	w->first[w->depth] = 0;
}

static void open(mt_jw *w, const char *c)
{
	sep(w);
	mt_buf_put(w->out, c, 1);
	if (w->depth < (int)sizeof(w->first) - 1)
		w->depth++;
	w->first[w->depth] = 1;
}

static void close_(mt_jw *w, const char *c)
{
	if (w->depth > 0)
		w->depth--;
	mt_buf_put(w->out, c, 1);
}

void mt_jw_object(mt_jw *w)
{
	open(w, "{");
}

void mt_jw_array(mt_jw *w)
{
	open(w, "[");
}

void mt_jw_end_object(mt_jw *w)
{
	close_(w, "}");
}

void mt_jw_end_array(mt_jw *w)
{
	close_(w, "]");
}

void mt_jw_key(mt_jw *w, const char *key)
{
	sep(w);
	mt_json_quote(w->out, key);
	mt_buf_put(w->out, ":", 1);
	w->first[w->depth] = 1; /* the value takes no comma */
}

void mt_jw_str(mt_jw *w, const char *s)
{
	if (!s) {
		mt_jw_null(w);
		return;
	}
	sep(w);
	mt_json_quote(w->out, s);
}

void mt_jw_int(mt_jw *w, int64_t v)
{
	char num[24], *p = num + sizeof(num);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	/* by hand: snprintf dominates writing tens of thousands of line numbers */
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	sep(w);
	mt_buf_put(w->out, p, (size_t)(num + sizeof(num) - p));
}

void mt_jw_bool(mt_jw *w, int v)
{
	sep(w);
	mt_buf_puts(w->out, v ? "true" : "false");
}

void mt_jw_null(mt_jw *w)
{
	sep(w);
	mt_buf_put(w->out, "null", 4);
}

void mt_jw_raw(mt_jw *w, const char *json, size_t len)
{
	sep(w);
	mt_buf_put(w->out, json, len);
}

void mt_json_quote(mt_buf *out, const char *s)
{
	const char *run = s;

	mt_buf_put(out, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];
		uint32_t cp;
		int n;
		if (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			continue;
		/* a NUL ends a sequence early: decoding never reads past it */
		if (*p >= 0x80 && (n = mt_utf8_decode((const char *)p, 4, &cp)) > 0) {
			p += n - 1;
			continue;
		}
		mt_buf_put(out, run, (size_t)((const char *)p - run));
		if (*p == '"' || *p == '\\')
			snprintf(esc, sizeof(esc), "\\%c", *p);
		else if (*p == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (*p == '\t')
			snprintf(esc, sizeof(esc), "\\t");
		else if (*p >= 0x80) /* not UTF-8 (a Latin-1 file name): JSON cannot hold it */
			snprintf(esc, sizeof(esc), "\\ufffd");
		else
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
		mt_buf_puts(out, esc);
		run = (const char *)p + 1;
	}
	mt_buf_puts(out, run);
	mt_buf_put(out, "\"", 1);
}

/* Tries 15, 16 then 17 significant digits: 17 always round-trips, and the
 * first that does is the shortest a reader needs. Caller has the C locale. */
static void put_real(mt_buf *out, double v)
{
	char num[40];

	if (!isfinite(v)) { /* not JSON; jansson refuses these before we get here */
		mt_buf_puts(out, "null");
		return;
	}
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(num, sizeof(num), "%.*g", digits, v);
		if (strtod(num, NULL) == v)
			break;
	}
	mt_buf_puts(out, num);
	if (!strpbrk(num, ".eE"))
		mt_buf_puts(out, ".0");
}

void mt_json_real(mt_buf *out, double v)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;

	put_real(out, v);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
}

/* Length of the JSON string starting at s (a quote), quotes included. */
static size_t string_len(const char *s)
{
	size_t i = 1;

	while (s[i] && s[i] != '"')
		i += s[i] == '\\' && s[i + 1] ? 2 : 1;
	return s[i] ? i + 1 : i;
}

/* Rewrites each number token of jansson's text that is a real: jansson
 * writes them at 17 digits, which round-trips but shows noise. */
static char *shorten_reals(const char *text)
{
	mt_buf b = MT_BUF_INIT;
	const char *p = text;

	while (*p) {
		size_t n;

		if (*p == '"') {
			n = string_len(p);
		} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
			n = strspn(p, "-+0123456789.eE");
			if (memchr(p, '.', n) || memchr(p, 'e', n) || memchr(p, 'E', n)) {
				put_real(&b, strtod(p, NULL));
				p += n;
				continue;
			}
		} else {
			n = strcspn(p, "\"-0123456789");
			n = n ? n : 1;
		}
		mt_buf_put(&b, p, n);
		p += n;
	}
	return mt_buf_detach(&b);
}

char *mt_json_dumps(const json_t *v, size_t flags)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	char *text = json_dumps(v, flags | JSON_REAL_PRECISION(17));
	char *out = text ? shorten_reals(text) : NULL;

	if (c) {
		uselocale(old);
		freelocale(c);
	}
	free(text);
	return out;
}
