/* Loss curves: readers for CSV, JSON Lines and MLPerf logs, and the band
 * comparison of two curves. */
#include "curves.h"
#include "error.h"

#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const step_names[] = {"step", "iteration", "iter", "global_step", NULL};
static const char *const value_names[] = {"loss", "train_loss", "eval_loss", "value", NULL};
static const char *const mllog_keys[] = {"train_loss", "loss", "eval_loss", "eval_accuracy", NULL};
static const char *const mllog_steps[] = {"step_num", "epoch_num", "samples_count", "step", NULL};

/* The state of one read: the curve being filled and where the text is. */
struct reader {
	const char *path;
	const mt_curve_read_opts *opts;
	mt_curve *c;
	size_t cap;
	char **lines; /* NUL-terminated lines of a private copy of the text */
	size_t nlines;
};

static int bad(const struct reader *r, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(const struct reader *r, size_t line, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mt_error_vat(MT_EINVALID, r->path, line, 0, fmt, ap);
	va_end(ap);
	return error;
}

static int add_point(struct reader *r, double step, double value, size_t line)
{
	mt_curve *c = r->c;

	if (c->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		mt_curve_point *p = realloc(c->pts, cap * sizeof(*p));
		if (!p)
			return mt_error_set(MT_EIO, "out of memory reading %s", r->path);
		c->pts = p;
		r->cap = cap;
	}
	c->pts[c->n++] = (mt_curve_point){step, value, (int)line};
	return 0;
}

/* A whole string as a number: "0.5", " 3 ", "nan", "inf". */
static int parse_num(const char *s, double *out)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return -1;
	*out = strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	return end != s && !*end ? 0 : -1;
}

static const char *first_named(const char *const *names, int (*has)(const char *, void *),
			       void *payload)
{
	for (; *names; names++)
		if (has(*names, payload))
			return *names;
	return NULL;
}

static char *join_names(const char *const *names)
{
	mt_buf b = MT_BUF_INIT;
	for (size_t i = 0; names[i]; i++)
		mt_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	return mt_buf_detach(&b);
}

/* --- CSV ------------------------------------------------------------------ */

struct csv_row {
	char **f;
	size_t n, cap;
};

/* Splits a line in place at `delim`, honouring double quotes ("" inside
 * quotes is one quote); fields are trimmed. 1 on an unterminated quote. */
static int csv_split(struct csv_row *row, char *s, char delim)
{
	row->n = 0;
	for (;;) {
		char *field, *w;
		int quoted = 0;
		while (*s == ' ')
			s++;
		if (row->n == row->cap) {
			size_t cap = row->cap ? row->cap * 2 : 16;
			char **f = realloc(row->f, cap * sizeof(*f));
			if (!f)
				return mt_error_set(MT_EIO, "out of memory");
			row->f = f;
			row->cap = cap;
		}
		field = w = s;
		if (*s == '"') {
			quoted = 1;
			for (s++; *s && !(*s == '"' && s[1] != '"'); s++)
				*w++ = *s == '"' ? *s++ : *s;
			if (*s != '"')
				return 1;
			s++;
		}
		for (; *s && *s != delim; s++)
			*w++ = *s;
		while (w > field && !quoted && isspace((unsigned char)w[-1]))
			w--;
		row->f[row->n++] = field;
		if (!*s) {
			*w = '\0';
			return 0;
		}
		s++;
		*w = '\0';
	}
}

static int csv_has(const char *name, void *payload)
{
	const struct csv_row *h = payload;
	for (size_t i = 0; i < h->n; i++)
		if (strcasecmp(h->f[i], name) == 0)
			return 1;
	return 0;
}

/* The column named `want` (or the first of `names` when want is NULL). */
static int csv_column(struct reader *r, const struct csv_row *h, size_t line, const char *want,
		      const char *const *names, const char *what, char **name_out)
{
	const char *name = want ? want : first_named(names, csv_has, (void *)h);

	for (size_t i = 0; name && i < h->n; i++)
		if (strcasecmp(h->f[i], name) == 0) {
			*name_out = mt_strdup(h->f[i]);
			return (int)i;
		}
	if (want)
		return bad(r, line, "no %s column '%s' in the header", what, want);
	char *list = join_names(names);
	bad(r, line, "no %s column in the header (looked for %s; --%s-col names one)", what, list,
	    what);
	free(list);
	return MT_EINVALID;
}

static int csv_row_point(struct reader *r, struct csv_row *row, size_t line, int sc, int vc,
			 size_t ncols)
{
	double step, value;

	if ((size_t)(sc > vc ? sc : vc) >= row->n)
		return bad(r, line, "%zu fields, the header has %zu", row->n, ncols);
	if (!*row->f[vc])
		return 0; /* not logged at this step (an eval column, say) */
	if (parse_num(row->f[sc], &step) < 0 || !isfinite(step))
		return bad(r, line, "step '%s' is not a number", row->f[sc]);
	if (parse_num(row->f[vc], &value) < 0)
		return bad(r, line, "%s '%s' is not a number", r->c->value_name, row->f[vc]);
	return add_point(r, step, value, line);
}

static int read_csv(struct reader *r)
{
	struct csv_row row = {0}, head = {0};
	size_t i = 0, hline;
	int sc = -1, vc = -1, error = 0;
	char delim;

	while (i < r->nlines && (!*r->lines[i] || r->lines[i][0] == '#'))
		i++;
	if (i == r->nlines)
		return bad(r, 0, "empty file: expected a header row");
	hline = i + 1;
	delim = strchr(r->lines[i], '\t') ? '\t' : ',';
	if ((error = csv_split(&head, r->lines[i], delim)) != 0) {
		error = error < 0 ? error : bad(r, hline, "unterminated quote");
		goto cleanup;
	}
	if ((sc = csv_column(r, &head, hline, r->opts->step, step_names, "step",
			     &r->c->step_name)) < 0 ||
	    (vc = csv_column(r, &head, hline, r->opts->value, value_names, "value",
			     &r->c->value_name)) < 0) {
		error = MT_EINVALID;
		goto cleanup;
	}
	for (i++; i < r->nlines && error == 0; i++) {
		char *s = r->lines[i];
		while (*s == ' ')
			s++;
		if (!*s || *s == '#')
			continue;
		if ((error = csv_split(&row, s, delim)) > 0)
			error = bad(r, i + 1, "unterminated quote");
		else if (error == 0)
			error = csv_row_point(r, &row, i + 1, sc, vc, head.n);
	}
cleanup:
	free(row.f);
	free(head.f);
	return error;
}

/* --- JSON lines and MLPerf events ----------------------------------------- */

/* Python's json module writes NaN, Infinity and -Infinity, which JSON lacks:
 * they become strings, which json_number() reads back. 1 when rewritten. */
static int quote_nonfinite(const char *s, mt_buf *out)
{
	static const char *const tokens[] = {"-Infinity", "Infinity", "NaN"};
	int in_str = 0, changed = 0;

	for (; *s; s++) {
		size_t k = 0;
		if (in_str) {
			if (*s == '\\' && s[1])
				mt_buf_put(out, s++, 1);
			else if (*s == '"')
				in_str = 0;
			mt_buf_put(out, s, 1);
			continue;
		}
		in_str = *s == '"';
		for (; k < 3 && strncmp(s, tokens[k], strlen(tokens[k])) != 0; k++)
			;
		if (k == 3) {
			mt_buf_put(out, s, 1);
			continue;
		}
		mt_buf_printf(out, "\"%s\"", tokens[k]);
		s += strlen(tokens[k]) - 1;
		changed = 1;
	}
	return changed;
}

/* One JSON object; `col` is where the text starts on its line, from 0. */
static json_t *parse_json_line(struct reader *r, const char *text, size_t line, int col)
{
	mt_buf fixed = MT_BUF_INIT;
	json_error_t jerr;
	json_t *v;

	if ((strstr(text, "NaN") || strstr(text, "Infinity")) && quote_nonfinite(text, &fixed))
		text = mt_buf_cstr(&fixed);
	v = json_loads(text, 0, &jerr);
	mt_buf_dispose(&fixed);
	if (!v)
		bad(r, line, "column %d: %s", jerr.column + col, jerr.text);
	else if (!json_is_object(v)) {
		json_decref(v);
		v = NULL;
		bad(r, line, "expected a JSON object");
	}
	return v;
}

/* A JSON value as a number: numbers, null (NaN), and numeric strings
 * ("NaN", "inf", "0.5"). -1 otherwise. */
static int json_number(const json_t *v, double *out)
{
	if (json_is_number(v))
		*out = json_number_value(v);
	else if (json_is_null(v))
		*out = NAN;
	else if (!json_is_string(v) || parse_num(json_string_value(v), out) < 0)
		return -1;
	return 0;
}

static int json_has(const char *name, void *payload)
{
	return json_object_get(payload, name) != NULL;
}

/* Reads step and value from one object: a missing value skips it. */
static int json_point(struct reader *r, const json_t *obj, const char *value_field, size_t line)
{
	const json_t *sv = json_object_get(obj, r->c->step_name);
	const json_t *vv = json_object_get(obj, r->c->value_name);
	double step, value;

	if (vv && value_field) {
		if (!json_is_object(vv))
			return bad(r, line, "'%s' is not an object with '%s'", r->c->value_name,
				   value_field);
		vv = json_object_get(vv, value_field);
	}
	if (!vv)
		return 0;
	if (!sv)
		return bad(r, line, "no step '%s'", r->c->step_name);
	if (json_number(sv, &step) < 0 || !isfinite(step))
		return bad(r, line, "step '%s' is not a number", r->c->step_name);
	if (json_number(vv, &value) < 0)
		return bad(r, line, "'%s%s%s' is not a number", r->c->value_name,
			   value_field ? "." : "", value_field ? value_field : "");
	return add_point(r, step, value, line);
}

/* Picks the value key (and then the step key) from the first object that
 * has one; 1 when chosen, 0 when this object has none. */
static int jsonl_choose(struct reader *r, json_t *obj, size_t line)
{
	const char *v = r->opts->value ? r->opts->value : first_named(value_names, json_has, obj);
	const char *s;

	if (!v || !json_object_get(obj, v))
		return 0;
	s = r->opts->step ? r->opts->step : first_named(step_names, json_has, obj);
	if (!s) {
		char *list = join_names(step_names);
		bad(r, line, "no step key (looked for %s; --step-col names one)", list);
		free(list);
		return MT_EINVALID;
	}
	r->c->value_name = mt_strdup(v);
	r->c->step_name = mt_strdup(s);
	return 1;
}

static int read_jsonl(struct reader *r)
{
	int error = 0;

	for (size_t i = 0; i < r->nlines && error == 0; i++) {
		const char *s = r->lines[i];
		json_t *obj;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			continue;
		if (!(obj = parse_json_line(r, s, i + 1, (int)(s - r->lines[i]))))
			return MT_EINVALID;
		if (r->c->value_name || (error = jsonl_choose(r, obj, i + 1)) > 0)
			error = json_point(r, obj, NULL, i + 1);
		json_decref(obj);
	}
	return error < 0 ? error : 0;
}

struct mllog_event {
	json_t *ev;
	size_t line;
};

static int events_has(const char *key, void *payload)
{
	const struct mllog_event *e = payload;
	for (; e->ev; e++)
		if (strcmp(json_string_value(json_object_get(e->ev, "key")), key) == 0)
			return 1;
	return 0;
}

static int events_parse(struct reader *r, struct mllog_event **out)
{
	struct mllog_event *evs = calloc(r->nlines + 1, sizeof(*evs));
	size_t n = 0;

	if (!evs)
		return mt_error_set(MT_EIO, "out of memory");
	*out = evs;
	for (size_t i = 0; i < r->nlines; i++) {
		const char *s = strstr(r->lines[i], ":::MLLOG");
		json_t *ev;
		if (!s)
			continue;
		if (!(ev = parse_json_line(r, s + 8, i + 1, (int)(s + 8 - r->lines[i]))))
			return MT_EINVALID;
		evs[n++] = (struct mllog_event){ev, i + 1};
		if (!json_is_string(json_object_get(ev, "key")))
			return bad(r, i + 1, "an MLLOG event without a \"key\"");
	}
	return 0;
}

/* The event key to read, and a member of its value when `key.field`. */
static int mllog_choose_key(struct reader *r, struct mllog_event *evs, char **field)
{
	const char *want = r->opts->value, *dot;
	char *list;

	*field = NULL;
	if (want && events_has(want, evs)) {
		r->c->value_name = mt_strdup(want);
		return 0;
	}
	if (want && (dot = strrchr(want, '.')) != NULL) {
		r->c->value_name = strndup(want, (size_t)(dot - want));
		if (events_has(r->c->value_name, evs)) {
			*field = mt_strdup(dot + 1);
			return 0;
		}
	}
	if (want)
		return bad(r, 0, "no MLLOG events with key '%s'", want);
	if ((want = first_named(mllog_keys, events_has, evs))) {
		r->c->value_name = mt_strdup(want);
		return 0;
	}
	list = join_names(mllog_keys);
	bad(r, 0, "no MLLOG events with any of %s (--key names one)", list);
	free(list);
	return MT_EINVALID;
}

/* One event of the chosen key: the step from its metadata, the value from
 * "value", put in one object for json_point. */
static int mllog_point(struct reader *r, const struct mllog_event *e, const char *field)
{
	json_t *md = json_object_get(e->ev, "metadata"), *step, *value, *flat;
	int error;

	if (!r->c->step_name) {
		const char *s = r->opts->step;
		if (!s)
			s = first_named(mllog_steps, json_has, md);
		r->c->step_name = mt_strdup(s ? s : mllog_steps[0]);
	}
	step = json_object_get(md, r->c->step_name);
	if (!step || json_is_null(step))
		return bad(r, e->line, "'%s' event without metadata.%s", r->c->value_name,
			   r->c->step_name);
	value = json_object_get(e->ev, "value");
	flat = json_pack("{sOsO}", r->c->step_name, step, r->c->value_name,
			 value ? value : json_null());
	error = json_point(r, flat, field, e->line);
	json_decref(flat);
	return error;
}

static int read_mllog(struct reader *r)
{
	struct mllog_event *evs = NULL;
	char *field = NULL;
	int error;

	if ((error = events_parse(r, &evs)) < 0 || (error = mllog_choose_key(r, evs, &field)) < 0)
		goto cleanup;
	for (struct mllog_event *e = evs; e->ev && error == 0; e++) {
		const char *key = json_string_value(json_object_get(e->ev, "key"));
		json_t *status = json_object_get(json_object_get(e->ev, "metadata"), "status");
		if (strcmp(key, "run_stop") == 0 && json_is_string(status)) {
			free(r->c->status);
			r->c->status = mt_strdup(json_string_value(status));
		}
		if (strcmp(key, r->c->value_name) == 0)
			error = mllog_point(r, e, field);
	}
cleanup:
	for (struct mllog_event *e = evs; e && e->ev; e++)
		json_decref(e->ev);
	free(evs);
	free(field);
	return error;
}

/* --- the series ----------------------------------------------------------- */

static int point_cmp(const void *a, const void *b)
{
	const mt_curve_point *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int same_value(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/* Sorts by step; a step logged twice with one value is kept once. */
static int finish_series(struct reader *r)
{
	mt_curve *c = r->c;
	size_t w = 0;

	if (c->n == 0 && !c->value_name && r->opts->value)
		return bad(r, 0, "no line has '%s': the series is empty", r->opts->value);
	if (c->n == 0 && !c->value_name) {
		char *list = join_names(value_names);
		bad(r, 0, "no line has any of %s (--key names one): the series is empty", list);
		free(list);
		return MT_EINVALID;
	}
	if (c->n == 0)
		return bad(r, 0, "no '%s' values: the series is empty", c->value_name);
	qsort(c->pts, c->n, sizeof(*c->pts), point_cmp);
	for (size_t i = 0; i < c->n; i++) {
		if (w && c->pts[w - 1].step == c->pts[i].step) {
			if (!same_value(c->pts[w - 1].value, c->pts[i].value))
				return bad(r, (size_t)c->pts[i].line,
					   "step %g again, with %s %g (line %d had %g)",
					   c->pts[i].step, c->value_name, c->pts[i].value,
					   c->pts[w - 1].line, c->pts[w - 1].value);
			continue;
		}
		c->pts[w++] = c->pts[i];
		c->nonfinite += !isfinite(c->pts[i].value);
	}
	c->n = w;
	return 0;
}

int mt_curve_finish(mt_curve *c, const mt_curve_read_opts *opts)
{
	static const mt_curve_read_opts defaults = {0};
	struct reader r = {.path = c->path, .opts = opts ? opts : &defaults, .c = c, .cap = c->n};
	return finish_series(&r);
}

static mt_curve_format detect(char **lines, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (strstr(lines[i], ":::MLLOG"))
			return MT_CURVE_MLLOG;
	for (i = 0; i < n; i++) {
		const char *s = lines[i];
		while (isspace((unsigned char)*s))
			s++;
		if (*s)
			return *s == '{' ? MT_CURVE_JSONL : MT_CURVE_CSV;
	}
	return MT_CURVE_CSV;
}

/* Splits a private copy of the text into NUL-terminated lines (no \r). */
static int split_lines(struct reader *r, char *copy, size_t len)
{
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += copy[i] == '\n';
	if (!(r->lines = malloc(n * sizeof(char *))))
		return mt_error_set(MT_EIO, "out of memory");
	for (char *s = copy, *end = copy + len; s <= end;) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		char *e = nl ? nl : end;
		*e = '\0';
		if (e > s && e[-1] == '\r')
			e[-1] = '\0';
		r->lines[r->nlines++] = s;
		s = e + 1;
	}
	return 0;
}

int mt_curve_parse(mt_curve **out, const char *text, size_t len, const char *path,
		   const mt_curve_read_opts *opts)
{
	static const char *const names[] = {"csv", "csv", "jsonl", "mllog"};
	static const mt_curve_read_opts defaults = {0};
	struct reader r = {.path = path, .opts = opts ? opts : &defaults};
	char *copy = malloc(len + 1);
	mt_curve_format f;
	int error;

	*out = NULL;
	r.c = calloc(1, sizeof(*r.c));
	if (!copy || !r.c) {
		error = mt_error_set(MT_EIO, "out of memory");
		goto cleanup;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	if ((error = split_lines(&r, copy, len)) < 0)
		goto cleanup;
	f = r.opts->format != MT_CURVE_AUTO ? r.opts->format : detect(r.lines, r.nlines);
	r.c->path = mt_strdup(path);
	r.c->format = names[f];
	error = f == MT_CURVE_MLLOG ? read_mllog(&r) : f == MT_CURVE_JSONL ? read_jsonl(&r)
									   : read_csv(&r);
	if (error == 0)
		error = finish_series(&r);
cleanup:
	if (error == 0)
		*out = r.c;
	else
		mt_curve_free(r.c);
	free(r.lines);
	free(copy);
	return error;
}

int mt_curve_read(mt_curve **out, const char *path, const mt_curve_read_opts *opts)
{
	char *text = NULL;
	size_t len = 0;
	int error;

	*out = NULL;
	if ((error = mt_file_read(&text, &len, path)) < 0)
		return error;
	error = mt_curve_parse(out, text, len, path, opts);
	free(text);
	return error;
}

void mt_curve_free(mt_curve *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->step_name);
	free(c->value_name);
	free(c->status);
	free(c->system);
	free(c->pts);
	free(c);
}

/* --- comparison ----------------------------------------------------------- */

int mt_curve_within(double a, double b, double rtol, double atol)
{
	if (!isfinite(a) || !isfinite(b))
		return 0;
	return fabs(b - a) <= atol + rtol * fabs(a);
}

void mt_curve_smooth(double *out, const double *in, size_t n, int window)
{
	double sum = 0, *tmp;
	size_t bad_in_window = 0, w = window > 1 ? (size_t)window : 1;

	if (w == 1 || n == 0) {
		if (out != in)
			memmove(out, in, n * sizeof(*out));
		return;
	}
	/* the sum runs over finite values; a non-finite one spoils its windows */
	if (!(tmp = malloc(n * sizeof(*tmp))))
		return;
	for (size_t i = 0; i < n; i++) {
		if (isfinite(in[i]))
			sum += in[i];
		else
			bad_in_window++;
		if (i >= w) {
			if (isfinite(in[i - w]))
				sum -= in[i - w];
			else
				bad_in_window--;
		}
		tmp[i] = bad_in_window ? NAN : sum / (double)(i + 1 < w ? i + 1 : w);
	}
	memcpy(out, tmp, n * sizeof(*out));
	free(tmp);
}

static int align(mt_curve_cmp *out, const mt_curve *ref, const mt_curve *cand, int by_index)
{
	size_t cap = ref->n < cand->n ? ref->n : cand->n, i = 0, j = 0;

	out->steps = malloc((cap + 1) * sizeof(double));
	out->ref = malloc((cap + 1) * sizeof(double));
	out->cand = malloc((cap + 1) * sizeof(double));
	if (!out->steps || !out->ref || !out->cand)
		return mt_error_set(MT_EIO, "out of memory");
	while (i < ref->n && j < cand->n) {
		double a = ref->pts[i].step, b = cand->pts[j].step;
		if (!by_index && a != b) {
			a < b ? i++ : j++;
			continue;
		}
		out->steps[out->n] = a;
		out->ref[out->n] = ref->pts[i++].value;
		out->cand[out->n++] = cand->pts[j++].value;
	}
	out->only_ref = ref->n - out->n;
	out->only_cand = cand->n - out->n;
	if (out->n == 0)
		return mt_error_set(MT_EINVALID,
				    "no step is common to %s (steps %g..%g) and %s (steps %g..%g); "
				    "--align index pairs points by position",
				    ref->path, ref->pts[0].step, ref->pts[ref->n - 1].step,
				    cand->path, cand->pts[0].step, cand->pts[cand->n - 1].step);
	return 0;
}

static void mark_max(mt_curve_mark *m, double step, double value)
{
	if (!m->has || value > m->value)
		*m = (mt_curve_mark){1, step, value};
}

/* The band, the gaps and the final point over the aligned values. */
static void judge(mt_curve_cmp *c, const mt_curve_cmp_opts *o)
{
	double sum = 0;
	size_t finite = 0, run = 0; /* run: where the current stretch outside began */
	int inside_last = 1;

	for (size_t i = 0; i < c->n; i++) {
		double a = c->ref[i], b = c->cand[i];
		int in = mt_curve_within(a, b, o->rtol, o->atol);
		if (!isfinite(a) || !isfinite(b)) {
			c->nonfinite++;
		} else {
			sum += fabs(b - a);
			finite++;
			mark_max(&c->max_abs_gap, c->steps[i], fabs(b - a));
			if (a != 0)
				mark_max(&c->max_rel_gap, c->steps[i], fabs(b - a) / fabs(a));
		}
		if (!in) {
			c->outside++;
			if (!c->first_divergent.has)
				c->first_divergent = (mt_curve_mark){1, c->steps[i], b};
			if (inside_last)
				run = i;
		}
		inside_last = in;
	}
	if (!inside_last)
		c->diverged_from = (mt_curve_mark){1, c->steps[run], c->cand[run]};
	c->mean_abs_gap = finite ? sum / (double)finite : NAN;
	c->final_step = c->steps[c->n - 1];
	c->final_ref = c->ref[c->n - 1];
	c->final_cand = c->cand[c->n - 1];
	c->final_agree = mt_curve_within(c->final_ref, c->final_cand, o->rtol, o->atol);
	c->passed = o->final_only ? c->final_agree : c->outside == 0;
}

/* The first step where a curve (smoothed like the comparison) reaches the
 * target: the whole series, not only the common steps. */
static int reach(mt_curve_mark *m, const mt_curve *c, const mt_curve_cmp_opts *o)
{
	double *v = calloc(c->n + 1, sizeof(*v)); /* zeroed: gcc cannot see that n > 0 */

	if (!v)
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < c->n; i++)
		v[i] = c->pts[i].value;
	mt_curve_smooth(v, v, c->n, o->window);
	for (size_t i = 0; i < c->n && !m->has; i++)
		if (isfinite(v[i]) && (o->higher_is_better ? v[i] >= o->target : v[i] <= o->target))
			*m = (mt_curve_mark){1, c->pts[i].step, v[i]};
	free(v);
	return 0;
}

int mt_curve_compare(mt_curve_cmp *out, const mt_curve *ref, const mt_curve *cand,
		     const mt_curve_cmp_opts *opts)
{
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = align(out, ref, cand, opts->align_index)) < 0)
		return error;
	mt_curve_smooth(out->ref, out->ref, out->n, opts->window);
	mt_curve_smooth(out->cand, out->cand, out->n, opts->window);
	judge(out, opts);
	if (opts->has_target && ((error = reach(&out->target_ref, ref, opts)) < 0 ||
				 (error = reach(&out->target_cand, cand, opts)) < 0))
		return error;
	return 0;
}

void mt_curve_cmp_dispose(mt_curve_cmp *c)
{
	free(c->steps);
	free(c->ref);
	free(c->cand);
	memset(c, 0, sizeof(*c));
}

/* --- output --------------------------------------------------------------- */

/* A number for JSON: integral steps as integers, NaN and inf as null. */
static json_t *jnum(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *jstep(const mt_curve_mark *m)
{
	return m->has ? jnum(m->step) : json_null();
}

static json_t *jmark(const mt_curve_mark *m)
{
	return m->has ? json_pack("{soso}", "step", jnum(m->step), "value", jnum(m->value))
		      : json_null();
}

static json_t *series_json(const mt_curve_cmp *c, size_t max_points)
{
	json_t *steps = json_array(), *ref = json_array(), *cand = json_array();
	size_t k = c->n > max_points && max_points > 1 ? max_points : c->n;

	for (size_t i = 0; i < k; i++) {
		/* evenly spread indices, the first and the last kept */
		double spread = (double)(c->n - 1) / (double)(k > 1 ? k - 1 : 1);
		size_t at = k == c->n ? i : (size_t)llround((double)i * spread);
		json_array_append_new(steps, jnum(c->steps[at]));
		json_array_append_new(ref, jnum(c->ref[at]));
		json_array_append_new(cand, jnum(c->cand[at]));
	}
	return json_pack("{sosososIsb}", "steps", steps, "reference", ref, "candidate", cand,
			 "points", (json_int_t)k, "downsampled", k < c->n);
}

static json_t *target_json(const mt_curve_cmp *c, const mt_curve_cmp_opts *o)
{
	json_t *ratio = json_null();

	if (c->target_ref.has && c->target_cand.has && c->target_ref.step != 0)
		ratio = json_real(c->target_cand.step / c->target_ref.step);
	return json_pack("{sosssososo}", "value", json_real(o->target), "direction",
			 o->higher_is_better ? "higher" : "lower", "reference_step",
			 jstep(&c->target_ref), "candidate_step", jstep(&c->target_cand),
			 "ratio", ratio);
}

json_t *mt_curve_cmp_json(const mt_curve_cmp *c, const mt_curve_cmp_opts *o, size_t max_points)
{
	json_t *j = json_object();

	json_object_set_new(j, "passed", json_boolean(c->passed));
	json_object_set_new(j, "points", json_integer((json_int_t)c->n));
	json_object_set_new(j, "only_in_reference", json_integer((json_int_t)c->only_ref));
	json_object_set_new(j, "only_in_candidate", json_integer((json_int_t)c->only_cand));
	json_object_set_new(j, "outside_band", json_integer((json_int_t)c->outside));
	json_object_set_new(j, "nonfinite_points", json_integer((json_int_t)c->nonfinite));
	json_object_set_new(j, "rtol", json_real(o->rtol));
	json_object_set_new(j, "atol", json_real(o->atol));
	json_object_set_new(j, "window", json_integer(o->window > 1 ? o->window : 1));
	json_object_set_new(j, "align", json_string(o->align_index ? "index" : "step"));
	json_object_set_new(j, "final_only", json_boolean(o->final_only));
	json_object_set_new(j, "first_divergent_step", jstep(&c->first_divergent));
	json_object_set_new(j, "diverged_from_step", jstep(&c->diverged_from));
	json_object_set_new(j, "max_abs_gap", jmark(&c->max_abs_gap));
	json_object_set_new(j, "max_rel_gap", jmark(&c->max_rel_gap));
	json_object_set_new(j, "final",
			    json_pack("{sosososb}", "step", jnum(c->final_step), "reference",
				      jnum(c->final_ref), "candidate", jnum(c->final_cand), "agree",
				      c->final_agree));
	json_object_set_new(j, "mean_abs_gap", jnum(c->mean_abs_gap));
	if (o->has_target)
		json_object_set_new(j, "target", target_json(c, o));
	json_object_set_new(j, "series", series_json(c, max_points));
	return j;
}

static void plot_range(const mt_curve_cmp *c, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < c->n; i++) {
		const double v[2] = {c->ref[i], c->cand[i]};
		for (int k = 0; k < 2; k++)
			if (isfinite(v[k])) {
				*lo = fmin(*lo, v[k]);
				*hi = fmax(*hi, v[k]);
			}
	}
	if (*lo > *hi)
		*lo = *hi = 0;
	if (*lo == *hi) { /* a flat line drawn in the middle */
		*lo -= 1;
		*hi += 1;
	}
}

void mt_curve_plot(mt_buf *out, const mt_curve_cmp *c, int width, int height)
{
	double lo, hi, s0 = c->n ? c->steps[0] : 0, s1 = c->n ? c->steps[c->n - 1] : 0;
	unsigned char *cell;

	if (width < 8 || height < 2 || !(cell = calloc((size_t)width * (size_t)height, 1)))
		return;
	plot_range(c, &lo, &hi);
	for (size_t i = 0; i < c->n; i++) {
		int x = s1 > s0 ? (int)lround((c->steps[i] - s0) / (s1 - s0) * (width - 1)) : 0;
		const double v[2] = {c->ref[i], c->cand[i]};
		for (int k = 0; k < 2; k++)
			if (isfinite(v[k])) {
				int y = (int)lround((hi - v[k]) / (hi - lo) * (height - 1));
				cell[(size_t)(y * width + x)] |= (unsigned char)(1 << k);
			}
	}
	for (int y = 0; y < height; y++) {
		double label = hi - (hi - lo) * y / (height - 1);
		if (y == 0 || y == height - 1 || y == height / 2)
			mt_buf_printf(out, "%10.4g |", label);
		else
			mt_buf_puts(out, "           |");
		for (int x = 0; x < width; x++)
			mt_buf_put(out, &" *o#"[cell[(size_t)y * (size_t)width + (size_t)x]], 1);
		mt_buf_puts(out, "\n");
	}
	mt_buf_puts(out, "           +");
	for (int x = 0; x < width; x++)
		mt_buf_puts(out, "-");
	mt_buf_printf(out, "\n           %-*g%*g\n", width / 2, s0, width - width / 2, s1);
	mt_buf_puts(out, "           * reference  o candidate  # both\n");
	free(cell);
}

json_t *mt_curve_file_json(const mt_curve *c)
{
	json_t *f = json_pack("{sssssssssIsIso}", "path", c->path, "format", c->format, "step",
			      c->step_name, "value", c->value_name, "points", (json_int_t)c->n,
			      "nonfinite", (json_int_t)c->nonfinite, "status",
			      c->status ? json_string(c->status) : json_null());

	if (f && c->system) /* a run's: decide tells a system against itself */
		json_object_set_new(f, "system", json_string(c->system));
	return f;
}
