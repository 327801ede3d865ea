/* Recording runs, the reading: lines -> events (MLLOG and mtrial's
 * protocol, by the rules in tables/run_events.yaml). The figures are in
 * runlog_metrics.c; the protocol is described in runlog.h. */
#include "runlog.h"
#include "runlog_int.h"

#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "util.h"

/* --- the log ------------------------------------------------------------------- */

void mt_runlog_init(mt_runlog *log, const mt_runlog_rules *rules)
{
	memset(log, 0, sizeof(*log));
	log->rules = rules;
}

/* A block of the log's strings (events' keys and texts): one allocation
 * for thousands of them, freed at once. */
struct mt_runlog_strings {
	struct mt_runlog_strings *next;
	size_t used, size;
	char text[];
};

#define STRINGS_BLOCK 65536

void mt_runlog_dispose(mt_runlog *log)
{
	while (log->strings) {
		struct mt_runlog_strings *next = log->strings->next;
		free(log->strings);
		log->strings = next;
	}
	free(log->events);
	for (size_t i = 0; i < log->n_warnings; i++)
		free(log->warnings[i].message);
	free(log->warnings);
	memset(log, 0, sizeof(*log));
}

static int warn(mt_runlog *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int warn(mt_runlog *log, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	log->warnings_total++;
	if (log->n_warnings >= MT_RUNLOG_MAX_WARNINGS)
		return 0;
	if (log->n_warnings == log->cap_warnings) {
		size_t cap = log->cap_warnings ? 2 * log->cap_warnings : 8;
		mt_run_warning *w = realloc(log->warnings, cap * sizeof(*w));
		if (!w)
			return mt_error_set(MT_EIO, "out of memory");
		log->warnings = w;
		log->cap_warnings = cap;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log->warnings[log->n_warnings].line = log->lines;
	log->warnings[log->n_warnings++].message = mt_strdup(msg);
	return 0;
}

/* key[0..len) as a string the log owns; NULL when memory runs out. */
static char *dup_span(mt_runlog *log, const char *key, size_t len)
{
	struct mt_runlog_strings *b = log->strings;
	char *s;

	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > STRINGS_BLOCK ? len + 1 : STRINGS_BLOCK;
		if (!(b = malloc(sizeof(*b) + size)))
			return NULL;
		b->next = log->strings, b->used = 0, b->size = size;
		log->strings = b;
	}
	s = b->text + b->used;
	memcpy(s, key, len);
	s[len] = '\0';
	b->used += len + 1;
	return s;
}

/* A new event at the end of the log, blank but for kind, time, line and
 * key[0..key_len). */
static mt_run_event *push(mt_runlog *log, enum mt_run_event_kind kind, int64_t t_ms,
                          const char *key, size_t key_len)
{
	mt_run_event *ev;
	char *k = dup_span(log, key, key_len);

	if (!k)
		return NULL;
	if (log->n_events == log->cap_events) {
		size_t cap = log->cap_events ? 2 * log->cap_events : 64;
		mt_run_event *v = realloc(log->events, cap * sizeof(*v));
		if (!v)
			return NULL;
		log->events = v;
		log->cap_events = cap;
	}
	ev = &log->events[log->n_events++];
	*ev = (mt_run_event){.kind = kind,
	                     .t_ms = t_ms,
	                     .line = log->lines,
	                     .key = k,
	                     .value = NAN,
	                     .step = -1,
	                     .epoch = NAN,
	                     .samples = NAN,
	                     .tokens = NAN,
	                     .padded = NAN,
	                     .seq = NAN,
	                     .data_s = NAN,
	                     .comm_s = NAN};
	return ev;
}

/* Times beyond this (year 2255) are not ms since the epoch. */
#define MAX_TIME_MS 9e12

static double json_num(const json_t *j)
{
	return json_is_number(j) ? json_number_value(j) : NAN;
}

/* What an event takes from an MLLOG record. Strings are spans, NULL when
 * the member is absent or not a string; numbers NAN when absent or not a
 * number. */
struct mllog_fields {
	const char *key, *text, *status; /* "key", "value" as text, metadata.status */
	size_t key_len, text_len, status_len;
	double value, t, epoch, samples; /* "value", "time_ms", metadata.epoch_num, .samples_count */
};

static void fields_init(struct mllog_fields *f)
{
	*f = (struct mllog_fields){.value = NAN, .t = NAN, .epoch = NAN, .samples = NAN};
}

/* An MLLOG training point (run_events.yaml maps train_loss to a step):
 * its step from samples_count over the global batch when both are known,
 * else the one after the previous point. samples_count counts the whole
 * run, so the step's batch is the global batch (samples NAN: per step). */
static void mllog_step(mt_runlog *log, mt_run_event *ev)
{
	double step = log->mllog_gbs > 0 && isfinite(ev->samples) ? round(ev->samples / log->mllog_gbs)
	                                                          : NAN;

	ev->step = isfinite(step) && step >= 0 && step < 1e15 ? (int64_t)step
	                                                        : log->mllog_last_step + 1;
	ev->samples = NAN;
	log->mllog_last_step = ev->step;
}

static int mllog_event(mt_runlog *log, const struct mllog_fields *f, int64_t t_ms)
{
	enum mt_run_event_kind kind = MT_RUN_EV_OTHER;
	mt_run_event *ev;

	if (!f->key)
		return warn(log, "an MLLOG event without a \"key\"");
	for (size_t i = 0; i < log->rules->n_keys; i++)
		if (log->rules->keys[i].len == f->key_len &&
		    memcmp(log->rules->keys[i].key, f->key, f->key_len) == 0)
			kind = log->rules->keys[i].kind;
	if (isfinite(f->t) && fabs(f->t) < MAX_TIME_MS)
		t_ms = (int64_t)f->t;
	if (kind == MT_RUN_EV_EVAL && isnan(f->value))
		return warn(log, "MLLOG %.*s without a numeric value", (int)f->key_len, f->key);
	ev = push(log, kind, t_ms, f->key, f->key_len);
	if (!ev)
		return mt_error_set(MT_EIO, "out of memory");
	ev->value = f->value;
	if (kind == MT_RUN_EV_RUN_STOP && f->status) {
		if (!(ev->text = dup_span(log, f->status, f->status_len)))
			return mt_error_set(MT_EIO, "out of memory");
	} else if (f->text && !(ev->text = dup_span(log, f->text, f->text_len))) {
		return mt_error_set(MT_EIO, "out of memory");
	}
	ev->epoch = f->epoch;
	ev->samples = f->samples;
	if (kind == MT_RUN_EV_PARAM && f->key_len == 17 && memcmp(f->key, "global_batch_size", 17) == 0 &&
	    f->value > 0)
		log->mllog_gbs = f->value;
	if (kind == MT_RUN_EV_STEP)
		mllog_step(log, ev);
	return 0;
}

/* A string member as a span, NULL when j is not a string. */
static const char *json_span(const json_t *j, size_t *len)
{
	*len = json_is_string(j) ? json_string_length(j) : 0;
	return json_is_string(j) ? json_string_value(j) : NULL;
}

/* The fields of a record jansson parsed. */
static void fields_of_json(struct mllog_fields *f, const json_t *obj)
{
	const json_t *meta = json_object_get(obj, "metadata");

	fields_init(f);
	f->key = json_span(json_object_get(obj, "key"), &f->key_len);
	f->text = json_span(json_object_get(obj, "value"), &f->text_len);
	f->status = json_span(json_object_get(meta, "status"), &f->status_len);
	f->value = json_num(json_object_get(obj, "value"));
	f->t = json_num(json_object_get(obj, "time_ms"));
	f->epoch = json_num(json_object_get(meta, "epoch_num"));
	f->samples = json_num(json_object_get(meta, "samples_count"));
}

/* --- MLLOG records without jansson --------------------------------------------
 * Nearly every MLLOG line is plain JSON: ASCII strings without escapes,
 * short numbers. Those are read here, about ten times faster than building
 * jansson objects; anything else (an escape, a byte >= 0x80, a long or
 * malformed number, a duplicate key, deep nesting, any syntax error) goes
 * to jansson, which decides and words the warning. So the events and
 * warnings are those jansson's reading gives, line for line. */

enum { J_SLOW = -1 };                                      /* let jansson decide */
enum jrole { J_RECORD, J_METADATA, J_OTHER };              /* which object is read */
enum jtype { J_STRING, J_NUMBER, J_COMPOSITE };            /* composite: also literals */

#define J_MAX_DEPTH 32
#define J_WORDS (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) /* jstring's 8-byte steps */
#define J_MAX_KEYS 32

struct jscan {
	const char *s, *end;
	int depth;
};

struct jval {
	enum jtype type;
	const char *str; /* a string's text, a number's digits */
	size_t len;
	int real; /* a number with a fraction or an exponent */
};

static void jskip_ws(struct jscan *j)
{
	while (j->s < j->end && (*j->s == ' ' || *j->s == '\t' || *j->s == '\n' || *j->s == '\r'))
		j->s++;
}

static int jis(struct jscan *j, char c)
{
	return j->s < j->end && *j->s == c;
}

/* Bit 7 of each byte in w that is '"', '\\', below 0x20 or 0x80 and above
 * (the zero-byte bit tricks): exact up to the first such byte, which is
 * all jstring looks at (a borrow only runs towards higher bytes). */
static uint64_t jspecial8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
	uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');

	return (((quote - ones) & ~quote) | ((slash - ones) & ~slash) | (w - ones * 0x20) | w) &
	       high;
}

/* A string at j->s (the opening quote) without escapes, control or
 * non-ASCII bytes (jansson checks those). Eight bytes a step: the first
 * special byte must be the closing quote. */
static inline int jstring(struct jscan *j, const char **out, size_t *len)
{
	const char *p = j->s + 1;

	for (;;) {
		uint64_t w, hit;
		if (j->end - p < 8 || !J_WORDS) {
			while (p < j->end && !jspecial8(0x0101010101010101u * (unsigned char)*p))
				p++;
			if (p == j->end)
				return J_SLOW;
			break;
		}
		memcpy(&w, p, 8);
		if ((hit = jspecial8(w)) != 0) {
			p += __builtin_ctzll(hit) / 8; /* little-endian: the lowest byte first */
			break;
		}
		p += 8;
	}
	if (*p != '"')
		return J_SLOW;
	*out = j->s + 1;
	*len = (size_t)(p - j->s - 1);
	j->s = p + 1;
	return 0;
}

static const char *jdigits(const char *p, const char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* A real in [s, end) (already checked against JSON's grammar) the way
 * strtod rounds it, when that takes one exact operation (Clinger's fast
 * path): up to 15 digits, so they are an exact double, times or divided by
 * an exact power of ten (at most 1e22). -1 when strtod must. */
static int jreal_exact(const char *s, const char *end, double *out)
{
	static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
	                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	int neg = *s == '-', digits = 0, scale = 0, exp = 0, exp_neg = 0;
	long long m = 0;
	double v;

	for (s += neg; s < end && *s != 'e' && *s != 'E'; s++) {
		if (*s == '.') {
			scale = -1;
			continue;
		}
		if (++digits > 15)
			return -1;
		m = m * 10 + (*s - '0');
		if (scale < 0)
			scale--;
	}
	if (scale < 0)
		scale++; /* -(digits after the point) */
	if (s < end) {
		s++;
		if (*s == '+' || *s == '-')
			exp_neg = *s++ == '-';
		for (; s < end; s++)
			if ((exp = exp * 10 + (*s - '0')) > 1000)
				return -1;
	}
	exp = scale + (exp_neg ? -exp : exp);
	if (exp < -22 || exp > 22)
		return -1;
	v = exp < 0 ? (double)m / pow10[-exp] : (double)m * pow10[exp];
	*out = neg ? -v : v;
	return 0;
}

/* A number jnumber checked, as jansson reads it: an integer of up to 18
 * digits through long long, else a real through strtod (jansson's, where
 * '.' is the decimal point). -1 when jansson must say. */
static int jconvert(const struct jval *v, double *out)
{
	const char *s = v->str, *end = v->str + v->len;
	char buf[64], *after;

	if (!v->real) {
		long long m = 0;
		for (const char *q = s + (*s == '-'); q < end; q++)
			m = m * 10 + (*q - '0');
		*out = (double)(*s == '-' ? -m : m);
		return 0;
	}
	if (jreal_exact(s, end, out) == 0)
		return 0;
	if (localeconv()->decimal_point[0] != '.')
		return -1;
	memcpy(buf, s, v->len); /* jnumber keeps it shorter than buf */
	buf[v->len] = '\0';
	*out = strtod(buf, &after);
	return after == buf + v->len && !isinf(*out) ? 0 : -1;
}

/* A number at j->s, checked as JSON's grammar and jansson's limits say,
 * into v as a span: most are never needed as a double (line numbers,
 * nested figures), so jtake converts the few that are. */
static int jnumber(struct jscan *j, struct jval *v)
{
	const char *p = j->s + (jis(j, '-') ? 1 : 0), *digits = p, *end = j->end;
	long whole, exp = 0;
	double d;

	v->real = 0;
	if (p >= end || *p < '0' || *p > '9')
		return J_SLOW;
	p = *p == '0' ? p + 1 : jdigits(p, end);
	if (p < end && *p >= '0' && *p <= '9')
		return J_SLOW; /* a leading zero */
	whole = p - digits;
	if (p < end && *p == '.') {
		const char *q = jdigits(p + 1, end);
		if (q == p + 1)
			return J_SLOW;
		p = q, v->real = 1;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1 + (p + 1 < end && (p[1] == '+' || p[1] == '-'));
		const char *r = jdigits(q, end);
		if (r == q)
			return J_SLOW;
		for (const char *e = q; e < r && exp < 100000; e++)
			exp = exp * 10 + (*e - '0');
		if (q[-1] == '-')
			exp = -exp;
		p = r, v->real = 1;
	}
	v->str = j->s;
	v->len = (size_t)(p - j->s);
	if ((!v->real && p - digits > 18) || v->len >= 64)
		return J_SLOW;
	/* below 10^308 a real is finite; above, jansson may call it overflow */
	if (v->real && whole + exp > 308 && jconvert(v, &d) < 0)
		return J_SLOW;
	j->s = p;
	return 0;
}

static int jvalue(struct jscan *j, struct jval *v, struct mllog_fields *f, enum jrole role);

static int jliteral(struct jscan *j, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(j->end - j->s) < n || memcmp(j->s, word, n) != 0 ||
	    (j->s + n < j->end && isalpha((unsigned char)j->s[n])))
		return J_SLOW;
	j->s += n;
	return 0;
}

static int key_is(const char *k, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(k, word, len) == 0;
}

/* Keeps what a record's or its metadata's member says; -1 when a number
 * it needs is one for jansson. */
static int jtake(struct mllog_fields *f, enum jrole role, const char *k, size_t klen,
                 const struct jval *v)
{
	double *num = NULL;
	const char **str = NULL;
	size_t *len = NULL;

	if (role == J_RECORD && key_is(k, klen, "key"))
		str = &f->key, len = &f->key_len;
	else if (role == J_RECORD && key_is(k, klen, "value"))
		num = &f->value, str = &f->text, len = &f->text_len;
	else if (role == J_RECORD && key_is(k, klen, "time_ms"))
		num = &f->t;
	else if (role == J_METADATA && key_is(k, klen, "status"))
		str = &f->status, len = &f->status_len;
	else if (role == J_METADATA && key_is(k, klen, "epoch_num"))
		num = &f->epoch;
	else if (role == J_METADATA && key_is(k, klen, "samples_count"))
		num = &f->samples;
	if (str) {
		*str = v->type == J_STRING ? v->str : NULL;
		*len = v->type == J_STRING ? v->len : 0;
	}
	if (num) {
		*num = NAN;
		if (v->type == J_NUMBER)
			return jconvert(v, num);
	}
	return 0;
}

/* After a member or element: 1 at the closing bracket (passed), 0 after a
 * comma (passed, with the blanks after it). */
static int jnext(struct jscan *j, char close)
{
	jskip_ws(j);
	if (jis(j, close))
		return j->s++, 1;
	if (!jis(j, ','))
		return J_SLOW;
	j->s++;
	jskip_ws(j);
	return 0;
}

/* An object at j->s ('{'); rejects duplicate keys as jansson is told to. */
static int jobject(struct jscan *j, struct mllog_fields *f, enum jrole role)
{
	const char *keys[J_MAX_KEYS];
	size_t lens[J_MAX_KEYS], n = 0;
	int error;

	j->s++;
	jskip_ws(j);
	if (jis(j, '}'))
		return j->s++, 0;
	for (;;) {
		const char *k;
		size_t klen;
		struct jval v;
		if (!jis(j, '"') || jstring(j, &k, &klen) < 0 || n == J_MAX_KEYS)
			return J_SLOW;
		for (size_t i = 0; i < n; i++)
			if (lens[i] == klen && memcmp(keys[i], k, klen) == 0)
				return J_SLOW;
		keys[n] = k, lens[n++] = klen;
		jskip_ws(j);
		if (!jis(j, ':'))
			return J_SLOW;
		j->s++;
		jskip_ws(j);
		if (jvalue(j, &v, f,
		           role == J_RECORD && key_is(k, klen, "metadata") ? J_METADATA : J_OTHER) < 0)
			return J_SLOW;
		if (jtake(f, role, k, klen, &v) < 0)
			return J_SLOW;
		if ((error = jnext(j, '}')) != 0)
			return error < 0 ? error : 0;
	}
}

static int jarray(struct jscan *j, struct mllog_fields *f)
{
	int error;

	j->s++;
	jskip_ws(j);
	if (jis(j, ']'))
		return j->s++, 0;
	for (;;) {
		struct jval v;
		if (jvalue(j, &v, f, J_OTHER) < 0)
			return J_SLOW;
		if ((error = jnext(j, ']')) != 0)
			return error < 0 ? error : 0;
	}
}

/* Any value at j->s; objects met as `role`. */
static int jvalue(struct jscan *j, struct jval *v, struct mllog_fields *f, enum jrole role)
{
	int error;

	v->type = J_COMPOSITE;
	v->str = NULL;
	v->len = 0;
	if (j->s >= j->end)
		return J_SLOW;
	switch (*j->s) {
	case '"':
		v->type = J_STRING;
		return jstring(j, &v->str, &v->len);
	case '{':
	case '[':
		if (++j->depth > J_MAX_DEPTH)
			return J_SLOW;
		error = *j->s == '{' ? jobject(j, f, role) : jarray(j, f);
		j->depth--;
		return error;
	case 't':
		return jliteral(j, "true");
	case 'f':
		return jliteral(j, "false");
	case 'n':
		return jliteral(j, "null");
	default:
		v->type = J_NUMBER;
		return jnumber(j, v);
	}
}

/* Reads s[0..len) as one MLLOG object without jansson: 0 with *f and
 * *used (the bytes up to the closing brace), J_SLOW when jansson must. */
static int mllog_fast(struct mllog_fields *f, const char *s, size_t len, size_t *used)
{
	struct jscan j = {s, s + len, 0};
	struct jval v;

	fields_init(f);
	jskip_ws(&j);
	if (!jis(&j, '{') || jvalue(&j, &v, f, J_RECORD) < 0)
		return J_SLOW;
	*used = (size_t)(j.s - s);
	return 0;
}

/* One MLLOG record: s[0..len) starts just after the prefix. */
static int read_mllog_record(mt_runlog *log, const char *s, size_t len, int64_t t_ms)
{
	struct mllog_fields f;
	json_error_t jerr;
	json_t *obj = NULL;
	size_t before, used;
	int error;

	if (mllog_fast(&f, s, len, &used) < 0) {
		obj = json_loadb(s, len, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
		if (!obj)
			return warn(log,
			            "MLLOG line is not JSON (%s at column %d): truncated or "
			            "interleaved output?",
			            jerr.text, jerr.column);
		if (!json_is_object(obj)) {
			json_decref(obj);
			return warn(log, "MLLOG line does not hold a JSON object");
		}
		fields_of_json(&f, obj);
		used = (size_t)jerr.position;
	}
	before = log->warnings_total;
	error = mllog_event(log, &f, t_ms);
	json_decref(obj); /* after the event: f borrows its strings */
	if (log->warnings_total != before) /* one warning a record is enough */
		return error;
	for (size_t i = used; !error && i < len; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return warn(log, "text after the MLLOG event: interleaved output?");
	return error;
}

/* A decimal number filling s[0..len). */
static int parse_num(const char *s, size_t len, double *out)
{
	char buf[64], *end;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = strtod(buf, &end);
	return (*end || !isfinite(*out)) ? -1 : 0;
}

struct pair {
	const char *name, *val;
	size_t name_len, val_len;
};

/* A field name: letters, digits and _ . - / (so that it is also a JSON
 * string and a metric name a report can show). */
static int good_name(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-/", s[i]))
			return 0;
	return len < 64;
}

/* Splits "a=1 b=2" into pairs; -1 (after a warning) on a malformed token. */
static int split_pairs(mt_runlog *log, const char *s, size_t len, struct pair *v, size_t max,
                       size_t *n)
{
	size_t i = 0;

	*n = 0;
	while (i < len) {
		size_t start, eq = 0;
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && s[i] != ' ' && s[i] != '\t') {
			if (s[i] == '=' && !eq)
				eq = i;
			i++;
		}
		if (!eq || eq == start || *n == max || !good_name(s + start, eq - start)) {
			warn(log, "mtrial: '%.*s' is not field=value",
			     (int)(i - start > 40 ? 40 : i - start), s + start);
			return -1;
		}
		v[*n] = (struct pair){s + start, s + eq + 1, eq - start, i - eq - 1};
		(*n)++;
	}
	return 0;
}

static int is_field(const mt_runlog_rules *r, const struct pair *p, enum pfield f)
{
	return strlen(r->fields[f]) == p->name_len &&
	       memcmp(r->fields[f], p->name, p->name_len) == 0;
}

#define MAX_PAIRS 32

/* Reads the fields every protocol line may carry into `common` (step,
 * epoch, samples, tokens, time); the rest are left to the caller. */
static int read_common(mt_runlog *log, const struct pair *p, double num, mt_run_event *common,
                       int *taken)
{
	const mt_runlog_rules *r = log->rules;

	*taken = 1;
	if (is_field(r, p, PF_STEP)) {
		if (num < 0 || num > 1e15 || num != floor(num))
			return warn(log, "mtrial: step must be a whole number >= 0"), -1;
		common->step = (int64_t)num;
	} else if (is_field(r, p, PF_EPOCH)) {
		common->epoch = num;
	} else if (is_field(r, p, PF_SAMPLES)) {
		common->samples = num;
	} else if (is_field(r, p, PF_TOKENS)) {
		common->tokens = num;
	} else if (is_field(r, p, PF_PADDED)) {
		common->padded = num;
	} else if (is_field(r, p, PF_SEQ)) {
		common->seq = num;
	} else if (is_field(r, p, PF_DATA) || is_field(r, p, PF_COMM)) {
		if (num < 0 || num > 1e9)
			return warn(log, "mtrial: %s must be seconds >= 0",
			            is_field(r, p, PF_DATA) ? "data_s" : "comm_s"), -1;
		*(is_field(r, p, PF_DATA) ? &common->data_s : &common->comm_s) = num;
	} else if (is_field(r, p, PF_TIME)) {
		if (fabs(num) >= MAX_TIME_MS)
			return warn(log, "mtrial: time_ms out of range"), -1;
		common->t_ms = (int64_t)num;
	} else {
		*taken = 0;
	}
	return 0;
}

/* Appends an event like `c` (its numbers and time) named key[0..len). */
static int add_like(mt_runlog *log, const mt_run_event *c, enum mt_run_event_kind kind,
                    const char *key, size_t len)
{
	char name[64];
	mt_run_event *ev;

	snprintf(name, sizeof(name), "%.*s", (int)len, key);
	if (!(ev = push(log, kind, c->t_ms, name, strlen(name))))
		return mt_error_set(MT_EIO, "out of memory");
	ev->value = c->value;
	ev->step = c->step;
	ev->epoch = c->epoch;
	ev->samples = c->samples;
	ev->tokens = c->tokens;
	ev->padded = c->padded;
	ev->seq = c->seq;
	ev->data_s = c->data_s;
	ev->comm_s = c->comm_s;
	return 0;
}

/* One protocol record: s[0..len) starts just after the prefix. A step
 * line is one step event (value: its loss); an eval line one eval event per
 * metric. */
static int read_proto_record(mt_runlog *log, const char *s, size_t len, int64_t t_ms)
{
	const mt_runlog_rules *r = log->rules;
	size_t wlen = strlen(r->eval_word), n, metrics = 0;
	int is_eval = len >= wlen && memcmp(s, r->eval_word, wlen) == 0 &&
	              (len == wlen || s[wlen] == ' ' || s[wlen] == '\t');
	struct pair p[MAX_PAIRS];
	double num[MAX_PAIRS];
	int taken[MAX_PAIRS], error = 0;
	mt_run_event c = {.t_ms = t_ms,
	                  .step = -1,
	                  .value = NAN,
	                  .epoch = NAN,
	                  .samples = NAN,
	                  .tokens = NAN,
	                  .padded = NAN,
	                  .seq = NAN,
	                  .data_s = NAN,
	                  .comm_s = NAN};

	if (is_eval)
		s += wlen, len -= wlen;
	if (split_pairs(log, s, len, p, MAX_PAIRS, &n) < 0)
		return 0; /* warned */
	for (size_t i = 0; i < n; i++) {
		if (parse_num(p[i].val, p[i].val_len, &num[i]) < 0)
			return warn(log, "mtrial: %.*s=%.*s is not a number", (int)p[i].name_len,
			            p[i].name, (int)(p[i].val_len > 30 ? 30 : p[i].val_len),
			            p[i].val);
		if (read_common(log, &p[i], num[i], &c, &taken[i]) < 0)
			return 0; /* warned */
		metrics += !taken[i];
	}
	if (!is_eval) {
		if (c.step < 0)
			return warn(log, "mtrial: a step line without %s=", r->fields[PF_STEP]);
		for (size_t i = 0; i < n; i++)
			if (!taken[i] && is_field(r, &p[i], PF_LOSS))
				c.value = num[i];
		return add_like(log, &c, MT_RUN_EV_STEP, "step", 4);
	}
	if (!metrics)
		return warn(log, "mtrial: an eval line without a metric");
	for (size_t i = 0; i < n && !error; i++) {
		c.value = num[i];
		if (!taken[i])
			error = add_like(log, &c, MT_RUN_EV_EVAL, p[i].name, p[i].name_len);
	}
	return error;
}

/* The first prefix[0..n) in [s, end), NULL when none: memchr for its byte
 * at `anchor`, its last byte (the ':' of "mtrial:", which the m of JSON's
 * "time_ms" lacks), then the whole prefix. */
static const char *find_prefix(const char *s, const char *end, const char *prefix, size_t n,
                               size_t anchor)
{
	const char *p = s + anchor;

	while (p < end && (p = memchr(p, prefix[anchor], (size_t)(end - p))) != NULL) {
		const char *start = p - anchor;
		if ((size_t)(end - start) < n)
			return NULL;
		if (start[n - 1] == prefix[n - 1] && memcmp(start, prefix, n) == 0)
			return start;
		p++;
	}
	return NULL;
}

/* The first occurrence of either prefix in s[0..len) at or after `from`;
 * *is_mllog says which (the MLLOG prefix where both start). len when none. */
static size_t next_record(const mt_runlog_rules *r, const char *s, size_t len, size_t from,
                          int *is_mllog)
{
	const char *ml, *pl;
	size_t upto = len; /* a protocol prefix must start before the MLLOG one */

	if (from >= len)
		return len;
	ml = find_prefix(s + from, s + len, r->mllog_prefix, r->mllog_len, r->mllog_anchor);
	if (ml && (size_t)(ml - s) + r->proto_len - 1 < len)
		upto = (size_t)(ml - s) + r->proto_len - 1;
	pl = find_prefix(s + from, s + upto, r->proto_prefix, r->proto_len, r->proto_anchor);
	if (pl) {
		*is_mllog = 0;
		return (size_t)(pl - s);
	}
	*is_mllog = ml != NULL;
	return ml ? (size_t)(ml - s) : len;
}

/* The first of `w` in s[0..len), NULL when none. */
static const char *find_any(const char *s, size_t len, const struct words *w)
{
	for (size_t i = 0; i < w->n; i++) {
		const char *p = memmem(s, len, w->w[i], strlen(w->w[i]));
		if (p)
			return p;
	}
	return NULL;
}

/* A compile cache line: one cache_hit or cache_miss event. Most lines of a
 * log are neither: one memchr for the byte all patterns hold turns them
 * away. */
static int read_cache_line(mt_runlog *log, const char *line, size_t len, int64_t t_ms)
{
	const mt_runlog_rules *r = log->rules;
	enum mt_run_event_kind kind;
	const char *key;

	if (r->cache_anchor && !memchr(line, r->cache_anchor, len))
		return 0;
	if (find_any(line, len, &r->cache_hit))
		kind = MT_RUN_EV_CACHE_HIT, key = "cache_hit";
	else if (find_any(line, len, &r->cache_miss))
		kind = MT_RUN_EV_CACHE_MISS, key = "cache_miss";
	else
		return 0;
	return push(log, kind, t_ms, key, strlen(key)) ? 0 : mt_error_set(MT_EIO, "out of memory");
}

int mt_runlog_feed_line(mt_runlog *log, const char *line, size_t len, int64_t t_ms)
{
	const mt_runlog_rules *r = log->rules;
	int is_mllog = 0, next_mllog = 0, error = 0;
	size_t at = next_record(r, line, len, 0, &is_mllog), records = 0;

	log->lines++;
	while (at < len && !error) {
		size_t pre = strlen(is_mllog ? r->mllog_prefix : r->proto_prefix);
		size_t end = next_record(r, line, len, at + pre, &next_mllog);
		records++;
		if (is_mllog)
			error = read_mllog_record(log, line + at + pre, end - at - pre, t_ms);
		else
			error = read_proto_record(log, line + at + pre, end - at - pre, t_ms);
		at = end;
		is_mllog = next_mllog;
	}
	if (!error && records > 1)
		error = warn(log, "%zu records on one line: interleaved output?", records);
	if (!error && records == 0)
		error = read_cache_line(log, line, len, t_ms);
	return error;
}

int mt_runlog_add_event(mt_runlog *log, const mt_run_event *ev)
{
	size_t lines = log->lines;
	mt_run_event *e;

	log->lines = ev->line; /* push stamps the log's line */
	e = push(log, ev->kind, ev->t_ms, ev->key, strlen(ev->key));
	log->lines = lines;
	if (!e)
		return mt_error_set(MT_EIO, "out of memory");
	*e = (mt_run_event){.kind = ev->kind,
	                    .t_ms = ev->t_ms,
	                    .line = ev->line,
	                    .key = e->key,
	                    .value = ev->value,
	                    .step = ev->step,
	                    .epoch = ev->epoch,
	                    .samples = ev->samples,
	                    .tokens = ev->tokens,
	                    .padded = ev->padded,
	                    .seq = ev->seq,
	                    .data_s = ev->data_s,
	                    .comm_s = ev->comm_s};
	if (ev->text && !(e->text = dup_span(log, ev->text, strlen(ev->text))))
		return mt_error_set(MT_EIO, "out of memory");
	return 0;
}

int mt_runlog_warn_at(mt_runlog *log, size_t line, const char *fmt, ...)
{
	char msg[300];
	size_t lines = log->lines;
	va_list ap;
	int error;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log->lines = line; /* warn stamps the log's line */
	error = warn(log, "%s", msg);
	log->lines = lines;
	return error;
}

int mt_runlog_feed_text(mt_runlog *log, const char *text, size_t len, int64_t t_ms)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len, n = end - i;
		int error;
		if (n && text[i + n - 1] == '\r')
			n--;
		if ((error = mt_runlog_feed_line(log, text + i, n, t_ms)) < 0)
			return error;
		i = end + 1;
	}
	return 0;
}
