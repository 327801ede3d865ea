/* A line of an events file parsed into jansson values without jansson's
 * reader (issue 19: its byte-at-a-time lexer was a third of a rebuild).
 * It takes only what jansson (json_loadb with JSON_REJECT_DUPLICATES) takes
 * and makes the same values in the same key order; on anything else (an
 * error, a \u0000, a number to round or too long, a duplicate key, deep
 * nesting) it gives up, and jansson reads the line and says what is wrong. */
#include "events.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* jansson's JSON_PARSER_MAX_DEPTH is 2048: deeper than this is left to it */
#define FAST_MAX_DEPTH 256

struct fast {
	const unsigned char *p, *end;
	int depth;
	char *buf; /* a string with escapes, decoded: never longer than the line */
	size_t cap;
};

static void skip_ws(struct fast *f)
{
	while (f->p < f->end && (*f->p == ' ' || *f->p == '\t' || *f->p == '\n' || *f->p == '\r'))
		f->p++;
}

/* The length of the UTF-8 sequence at q as jansson's stream_get takes it
 * (no overlong form, no surrogate, at most U+10FFFF), 0 when it does not. */
static size_t utf8_len(const unsigned char *q, const unsigned char *end)
{
	unsigned c = q[0];
	size_t n = c < 0xC2 ? 0 : c <= 0xDF ? 2 : c <= 0xEF ? 3 : c <= 0xF4 ? 4 : 0;
	uint32_t v;

	if (!n || (size_t)(end - q) < n)
		return 0;
	v = c & (0x7Fu >> n);
	for (size_t i = 1; i < n; i++) {
		if ((q[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (q[i] & 0x3F);
	}
	if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || (n == 3 && v < 0x800) ||
	    (n == 4 && v < 0x10000))
		return 0;
	return n;
}

static int hex4(const unsigned char *q, const unsigned char *end, uint32_t *out)
{
	uint32_t v = 0;

	if (end - q < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		unsigned c = q[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t utf8_put(char *o, uint32_t v)
{
	if (v < 0x80) {
		o[0] = (char)v;
		return 1;
	}
	if (v < 0x800) {
		o[0] = (char)(0xC0 | (v >> 6));
		o[1] = (char)(0x80 | (v & 0x3F));
		return 2;
	}
	if (v < 0x10000) {
		o[0] = (char)(0xE0 | (v >> 12));
		o[1] = (char)(0x80 | ((v >> 6) & 0x3F));
		o[2] = (char)(0x80 | (v & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (v >> 18));
	o[1] = (char)(0x80 | ((v >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((v >> 6) & 0x3F));
	o[3] = (char)(0x80 | (v & 0x3F));
	return 4;
}

/* One escape after the backslash at *q: its bytes into o (*on of them),
 * q past it; -1 when jansson would refuse it or \u0000 (not allowed). */
static int escape(const unsigned char **q, const unsigned char *end, char *o, size_t *on)
{
	const unsigned char *s = *q + 1;
	uint32_t v, w;

	if (s >= end)
		return -1;
	*on = 1;
	switch (*s) {
	case '"': case '\\': case '/': o[0] = (char)*s; break;
	case 'b': o[0] = '\b'; break;
	case 'f': o[0] = '\f'; break;
	case 'n': o[0] = '\n'; break;
	case 'r': o[0] = '\r'; break;
	case 't': o[0] = '\t'; break;
	case 'u':
		if (hex4(s + 1, end, &v) < 0 || v == 0 || (v >= 0xDC00 && v <= 0xDFFF))
			return -1;
		s += 4;
		if (v >= 0xD800 && v <= 0xDBFF) { /* a pair, or nothing */
			if (end - s < 3 || s[1] != '\\' || s[2] != 'u' || hex4(s + 3, end, &w) < 0 ||
			    w < 0xDC00 || w > 0xDFFF)
				return -1;
			v = 0x10000 + ((v - 0xD800) << 10) + (w - 0xDC00);
			s += 6;
		}
		*on = utf8_put(o, v);
		break;
	default:
		return -1;
	}
	*q = s + 1;
	return 0;
}

/* The string whose quote f->p is at: *s (in the line, or f->buf when it
 * had escapes) and *n; f->p after its closing quote. */
static int string(struct fast *f, const char **s, size_t *n)
{
	const unsigned char *q = f->p + 1, *start = q;
	size_t on, len;

	while (q < f->end && *q != '"' && *q != '\\' && *q >= 0x20 && *q < 0x80)
		q++;
	if (q < f->end && *q == '"') { /* the usual case: printable ASCII as it is */
		*s = (const char *)start;
		*n = (size_t)(q - start);
		f->p = q + 1;
		return 0;
	}
	if (!f->buf) {
		f->cap = (size_t)(f->end - f->p);
		if (!(f->buf = malloc(f->cap + 1)))
			return -1;
	}
	len = (size_t)(q - start);
	memcpy(f->buf, start, len);
	while (q < f->end && *q != '"') {
		if (*q < 0x20)
			return -1;
		if (*q == '\\') {
			if (escape(&q, f->end, f->buf + len, &on) < 0)
				return -1;
			len += on;
		} else if (*q >= 0x80) {
			if (!(on = utf8_len(q, f->end)))
				return -1;
			memcpy(f->buf + len, q, on);
			len += on;
			q += on;
		} else {
			f->buf[len++] = (char)*q++;
		}
	}
	if (q >= f->end)
		return -1;
	*s = f->buf;
	*n = len;
	f->p = q + 1;
	return 0;
}

static int is_digit(const unsigned char *q, const unsigned char *end)
{
	return q < end && *q >= '0' && *q <= '9';
}

/* A number as jansson scans it: an integer of up to 18 digits is made
 * here, any other (a real, a long integer) by jansson from its text alone,
 * so its rounding and range are jansson's. */
static json_t *number(struct fast *f)
{
	const unsigned char *q = f->p, *digits;
	int neg = *q == '-', real = 0;
	int64_t v = 0;

	q += neg;
	digits = q;
	if (q < f->end && *q == '0') {
		if (is_digit(++q, f->end))
			return NULL;
	} else if (is_digit(q, f->end)) {
		while (is_digit(q, f->end))
			q++;
	} else {
		return NULL;
	}
	if (q < f->end && *q == '.') {
		if (!is_digit(++q, f->end))
			return NULL;
		while (is_digit(q, f->end))
			q++;
		real = 1;
	}
	if (q < f->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < f->end && (*q == '+' || *q == '-'))
			q++;
		if (!is_digit(q, f->end))
			return NULL;
		while (is_digit(q, f->end))
			q++;
		real = 1;
	}
	if (real || q - digits > 18) {
		json_t *x = json_loadb((const char *)f->p, (size_t)(q - f->p), JSON_DECODE_ANY, NULL);
		f->p = q;
		return x;
	}
	for (const unsigned char *d = digits; d < q; d++)
		v = v * 10 + (*d - '0');
	f->p = q;
	return json_integer(neg ? -v : v);
}

static int is_alpha(const unsigned char *q, const unsigned char *end)
{
	return q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'));
}

/* true, false or null: jansson reads a run of letters as one word. */
static json_t *literal(struct fast *f, const char *word, json_t *v)
{
	size_t n = strlen(word);

	if ((size_t)(f->end - f->p) < n || memcmp(f->p, word, n) != 0 ||
	    is_alpha(f->p + n, f->end))
		return NULL;
	f->p += n;
	return v;
}

static json_t *value(struct fast *f);

static json_t *object(struct fast *f)
{
	json_t *obj = json_object(), *v;
	const char *key;
	char *own = NULL;
	size_t n;

	f->p++;
	skip_ws(f);
	if (f->p < f->end && *f->p == '}') {
		f->p++;
		return obj;
	}
	for (;;) {
		if (f->p >= f->end || *f->p != '"' || string(f, &key, &n) < 0 ||
		    json_object_getn(obj, key, n))
			break;
		if (key == f->buf) { /* the value may need the buffer */
			if (!(own = malloc(n + 1)))
				break;
			memcpy(own, key, n);
			key = own;
		}
		skip_ws(f);
		if (f->p >= f->end || *f->p++ != ':')
			break;
		skip_ws(f);
		if (!(v = value(f)) || json_object_setn_new_nocheck(obj, key, n, v) < 0)
			break;
		free(own);
		own = NULL;
		skip_ws(f);
		if (f->p < f->end && *f->p == '}') {
			f->p++;
			return obj;
		}
		if (f->p >= f->end || *f->p++ != ',')
			break;
		skip_ws(f);
	}
	free(own);
	json_decref(obj);
	return NULL;
}

static json_t *array(struct fast *f)
{
	json_t *arr = json_array(), *v;

	f->p++;
	skip_ws(f);
	if (f->p < f->end && *f->p == ']') {
		f->p++;
		return arr;
	}
	for (;;) {
		if (!(v = value(f)) || json_array_append_new(arr, v) < 0)
			break;
		skip_ws(f);
		if (f->p < f->end && *f->p == ']') {
			f->p++;
			return arr;
		}
		if (f->p >= f->end || *f->p++ != ',')
			break;
		skip_ws(f);
	}
	json_decref(arr);
	return NULL;
}

static json_t *value(struct fast *f)
{
	const char *s;
	size_t n;
	json_t *v = NULL;

	if (f->p >= f->end)
		return NULL;
	switch (*f->p) {
	case '{':
	case '[':
		if (++f->depth > FAST_MAX_DEPTH)
			return NULL;
		v = *f->p == '{' ? object(f) : array(f);
		f->depth--;
		return v;
	case '"':
		return string(f, &s, &n) < 0 ? NULL : json_stringn_nocheck(s, n);
	case 't': return literal(f, "true", json_true());
	case 'f': return literal(f, "false", json_false());
	case 'n': return literal(f, "null", json_null());
	default:
		return *f->p == '-' || (*f->p >= '0' && *f->p <= '9') ? number(f) : NULL;
	}
}

json_t *mt_event_json_fast(const char *text, size_t len)
{
	struct fast f = {.p = (const unsigned char *)text,
			 .end = (const unsigned char *)text + len};
	json_t *v = NULL;

	skip_ws(&f);
	if (f.p < f.end && (*f.p == '{' || *f.p == '['))
		v = value(&f);
	skip_ws(&f);
	if (v && f.p != f.end) {
		json_decref(v);
		v = NULL;
	}
	free(f.buf);
	return v;
}
