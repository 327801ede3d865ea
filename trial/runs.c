/* A run's figures from its log (mtrial run's timed lines, a raw log, or a
 * CSV or JSON Lines series), an MLPerf system description's topology, and
 * the runs flattened with the trial's target and prices. */
#include "runs.h"
#include "runs_int.h"
#include "topology.h"
#include "error.h"
#include "runlog.h"
#include "util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Feeds a `mtrial run` log: each line's time is its first field. */
static int feed_timed(mt_runlog *log, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int error = 0;

	while (p < end && error == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *line_end = nl ? nl : end;
		char *after;
		long long t = strtoll(p, &after, 10);
		const char *body = after;
		/* "EPOCH_MS o|e " before the line itself */
		if (after > p && after + 3 <= line_end && after[0] == ' ' &&
		    (after[1] == 'o' || after[1] == 'e') && after[2] == ' ')
			body = after + 3;
		else
			body = p, t = MT_RUNLOG_NO_TIME;
		error = mt_runlog_feed_line(log, body, (size_t)(line_end - body), (int64_t)t);
		p = nl ? nl + 1 : end;
	}
	return error;
}

/* --- CSV and JSON Lines series ------------------------------------------------ */

/* The fields a row is read into, before the metrics (MT_SERIES_EVAL). */
#define ROW_FIELDS MT_SERIES_EVAL

struct series {
	mt_runlog *log;
	const char *path;
	const char *metric; /* trial.yaml's target metric, an eval column too */
	int relative;       /* a time in seconds since start was read */
	size_t header_line;
};

/* A cell of a row: its column's name and its text ("" when empty). */
struct cell {
	const char *name, *text;
};

static int is_eval_name(const struct series *s, const char *name)
{
	const char *prefix = mt_runlog_rules_series(s->log->rules, MT_SERIES_EVAL)[0];
	return (prefix && strncasecmp(name, prefix, strlen(prefix)) == 0) ||
	       (s->metric && strcasecmp(name, s->metric) == 0);
}

/* The whole of `text` as a finite number. */
static int cell_num(const char *text, double *out)
{
	char *end;

	*out = strtod(text, &end);
	while (end != text && isspace((unsigned char)*end))
		end++;
	return end != text && !*end && isfinite(*out) ? 0 : -1;
}

/* An ISO 8601 date-time, "2026-11-20T14:03:05.250Z" or with a space, an
 * offset (+02:00, +0200) or no zone (UTC), as ms since the epoch. */
static int iso_ms(const char *text, int64_t *out)
{
	struct tm tm = {0};
	int y, mo, d, h, mi, sec, n = 0, off = 0;
	double frac = 0;
	const char *p;

	if (sscanf(text, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
	    !n)
		return -1;
	p = text + n;
	if (*p == '.' || *p == ',') {
		double scale = 0.1;
		for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	if (*p == '+' || *p == '-') {
		/* +HH, +HH:MM or +HHMM */
		int sign = *p++ == '-' ? -1 : 1, hm[2] = {0, 0};
		for (int k = 0; k < 2; k++) {
			if (k == 1 && *p == ':')
				p++;
			if (k == 1 && !*p)
				break;
			if (!isdigit((unsigned char)p[0]) || !isdigit((unsigned char)p[1]))
				return -1;
			hm[k] = (p[0] - '0') * 10 + (p[1] - '0');
			p += 2;
		}
		off = sign * (hm[0] * 60 + hm[1]);
	} else if (*p == 'Z') {
		p++;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
	tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = sec;
	*out = ((int64_t)timegm(&tm) - (int64_t)off * 60) * 1000 + (int64_t)llround(frac * 1000);
	return 0;
}

/* The row's time in ms: the first time field it gives. 1 when none. */
static int row_time(struct series *s, const char *const *cells, size_t line, int64_t *t)
{
	double v;

	if (*cells[MT_SERIES_TIME_MS]) {
		if (cell_num(cells[MT_SERIES_TIME_MS], &v) < 0 || fabs(v) > 9e12)
			return mt_runlog_warn_at(s->log, line, "time_ms '%.30s' is not ms since the epoch; row skipped",
			                         cells[MT_SERIES_TIME_MS]), -1;
		*t = (int64_t)v;
	} else if (*cells[MT_SERIES_TIMESTAMP]) {
		if (cell_num(cells[MT_SERIES_TIMESTAMP], &v) < 0 || fabs(v) > 9e9)
			return mt_runlog_warn_at(s->log, line, "timestamp '%.30s' is not seconds since the epoch; row skipped",
			                         cells[MT_SERIES_TIMESTAMP]), -1;
		*t = llround(v * 1000);
	} else if (*cells[MT_SERIES_TIME]) {
		if (cell_num(cells[MT_SERIES_TIME], &v) == 0 && v >= 0 && v < 9e9) {
			*t = llround(v * 1000);
			s->relative = 1;
		} else if (iso_ms(cells[MT_SERIES_TIME], t) < 0) {
			return mt_runlog_warn_at(s->log, line,
			                         "time '%.30s' is neither seconds since the start nor an "
			                         "ISO 8601 date-time; row skipped",
			                         cells[MT_SERIES_TIME]), -1;
		}
	} else {
		return 1;
	}
	return 0;
}

/* A diverged run's loss, "nan" or "inf": kept as NAN (not a number the
 * figures use), not a bad row. */
static int nonfinite_loss(int field, const char *text, double *out)
{
	char *end;
	double v = strtod(text, &end);

	if (field != MT_SERIES_LOSS || *end || end == text || isfinite(v))
		return 0;
	*out = NAN;
	return 1;
}

static const char *const number_fields[] = {[MT_SERIES_LOSS] = "loss", [MT_SERIES_TOKENS] = "tokens",
                                            [MT_SERIES_PADDED] = "padded", [MT_SERIES_SAMPLES] = "samples",
                                            [MT_SERIES_EPOCH] = "epoch", [MT_SERIES_SEQ] = "seq",
                                            [MT_SERIES_DATA] = "data_s", [MT_SERIES_COMM] = "comm_s"};

/* One row: a step event when it has a training figure or no metric, an
 * eval event per metric it gives. A bad cell skips the row with a warning. */
static int add_row(struct series *s, size_t line, const char *const *cells, const struct cell *evals,
                   size_t n_evals)
{
	double num[ROW_FIELDS], step, v;
	mt_run_event ev = {.kind = MT_RUN_EV_STEP, .line = line, .key = "step", .value = NAN,
	                   .epoch = NAN, .samples = NAN, .tokens = NAN, .padded = NAN, .seq = NAN,
	                   .data_s = NAN, .comm_s = NAN};
	int figures = 0, error, timed;

	if (!*cells[MT_SERIES_STEP])
		return 0; /* a row of something else (a summary, a test metric) */
	if (cell_num(cells[MT_SERIES_STEP], &step) < 0 || step < 0 || step > 1e15 || step != floor(step))
		return mt_runlog_warn_at(s->log, line, "step '%.30s' is not a whole number >= 0; row skipped",
		                         cells[MT_SERIES_STEP]);
	for (int f = MT_SERIES_LOSS; f < ROW_FIELDS; f++) {
		num[f] = NAN;
		if (*cells[f] && cell_num(cells[f], &num[f]) < 0 && !nonfinite_loss(f, cells[f], &num[f]))
			return mt_runlog_warn_at(s->log, line, "%s '%.30s' is not a number; row skipped",
			                         number_fields[f], cells[f]);
		figures += *cells[f] != '\0';
	}
	for (size_t i = 0; i < n_evals; i++)
		if (cell_num(evals[i].text, &v) < 0)
			return mt_runlog_warn_at(s->log, line, "%s '%.30s' is not a number; row skipped",
			                         evals[i].name, evals[i].text);
	if ((timed = row_time(s, cells, line, &ev.t_ms)) < 0)
		return 0; /* warned */
	if (timed > 0)
		ev.t_ms = MT_RUNLOG_NO_TIME;
	ev.step = (int64_t)step;
	ev.value = num[MT_SERIES_LOSS], ev.tokens = num[MT_SERIES_TOKENS];
	ev.padded = num[MT_SERIES_PADDED], ev.samples = num[MT_SERIES_SAMPLES];
	ev.epoch = num[MT_SERIES_EPOCH], ev.seq = num[MT_SERIES_SEQ];
	ev.data_s = num[MT_SERIES_DATA], ev.comm_s = num[MT_SERIES_COMM];
	if ((figures || !n_evals) && (error = mt_runlog_add_event(s->log, &ev)) < 0)
		return error;
	ev.kind = MT_RUN_EV_EVAL;
	for (size_t i = 0; i < n_evals; i++) {
		cell_num(evals[i].text, &ev.value);
		ev.key = (char *)evals[i].name; /* copied by mt_runlog_add_event */
		if ((error = mt_runlog_add_event(s->log, &ev)) < 0)
			return error;
	}
	return 0;
}

/* Splits line s (changed in place) at `delim` into at most max fields,
 * trimmed; "..." quotes a field ("" is a quote in it). The count, or -1 on
 * an unterminated quote. */
static int csv_fields(char *s, char delim, char **f, int max)
{
	int n = 0;

	for (;;) {
		char *w, *start;
		while (*s == ' ' || *s == '\t')
			s++;
		start = w = s;
		if (*s == '"') {
			for (s++; *s && !(*s == '"' && s[1] != '"'); s++)
				*w++ = *s == '"' ? *++s : *s;
			if (*s++ != '"')
				return -1;
		}
		while (*s && *s != delim)
			*w++ = *s++;
		while (w > start && isspace((unsigned char)w[-1]))
			w--;
		if (n < max)
			f[n] = start;
		n++;
		if (!*s) {
			*w = '\0';
			return n;
		}
		*w = '\0', s++;
	}
}

#define MAX_COLUMNS 256

/* The column of the first of `names` in the header, -1 when none. */
static int column_of(char *const *head, int n, const char *const *names)
{
	for (; *names; names++)
		for (int c = 0; c < n; c++)
			if (strcasecmp(head[c], *names) == 0)
				return c;
	return -1;
}

/* A "no step column" message listing what was looked for. */
static int no_step(const struct series *s, size_t line)
{
	const char *const *names = mt_runlog_rules_series(s->log->rules, MT_SERIES_STEP);
	mt_buf b = MT_BUF_INIT;

	for (size_t i = 0; names[i]; i++)
		mt_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	mt_error_set(MT_EINVALID, "%s:%zu: no step column in the header (looked for %s; "
	             "tables/run_events.yaml series.step names them)",
	             s->path, line, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	return MT_EINVALID;
}

/* The next line of text[*at..len) in place (its \n, and an \r before it,
 * replaced by NUL), or NULL at the end; *line counts them. */
static char *next_line(char *text, size_t len, size_t *at, size_t *line)
{
	char *start = text + *at, *nl;

	if (*at >= len)
		return NULL;
	nl = memchr(start, '\n', len - *at);
	*at = nl ? (size_t)(nl - text) + 1 : len;
	if (nl)
		*nl = '\0';
	if (nl && nl > start && nl[-1] == '\r')
		nl[-1] = '\0';
	(*line)++;
	return start;
}

/* A CSV file (or tab-separated): the header names the columns; a bad row
 * is a warning, a header without a step column an error. */
static int feed_csv(struct series *s, char *text, size_t len)
{
	char *head[MAX_COLUMNS], *row[MAX_COLUMNS], *p, delim;
	int col[ROW_FIELDS], n, error = 0;
	size_t at = 0, line = 0;

	while ((p = next_line(text, len, &at, &line)) && (!*p || *p == '#'))
		;
	if (!p)
		return mt_error_set(MT_EINVALID, "%s: empty: expected a header row (step, time, loss, ...)",
		                    s->path);
	s->header_line = line;
	delim = strchr(p, '\t') ? '\t' : ',';
	if ((n = csv_fields(p, delim, head, MAX_COLUMNS)) < 0 || n > MAX_COLUMNS)
		return mt_error_set(MT_EINVALID, "%s:%zu: unreadable header (%s)", s->path, line,
		                    n < 0 ? "an unterminated quote" : "more than 256 columns");
	for (int f = 0; f < ROW_FIELDS; f++)
		col[f] = column_of(head, n, mt_runlog_rules_series(s->log->rules, (enum mt_series_field)f));
	if (col[MT_SERIES_STEP] < 0)
		return no_step(s, line);
	if (col[MT_SERIES_TIME] < 0 && col[MT_SERIES_TIME_MS] < 0 && col[MT_SERIES_TIMESTAMP] < 0)
		error = mt_runlog_warn_at(s->log, line, "no time column (time, time_ms, timestamp): "
		                                        "no clocks for this run");
	while (!error && (p = next_line(text, len, &at, &line))) {
		const char *cells[ROW_FIELDS];
		struct cell evals[MAX_COLUMNS];
		size_t n_evals = 0;
		int m;
		if (!*p || *p == '#')
			continue;
		if ((m = csv_fields(p, delim, row, MAX_COLUMNS)) != n) {
			error = m < 0 ? mt_runlog_warn_at(s->log, line, "an unterminated quote; row skipped")
			              : mt_runlog_warn_at(s->log, line, "%d fields, the header has %d; row skipped",
			                                  m, n);
			continue;
		}
		for (int f = 0; f < ROW_FIELDS; f++)
			cells[f] = col[f] >= 0 ? row[col[f]] : "";
		for (int c = 0; c < n; c++)
			if (is_eval_name(s, head[c]) && *row[c])
				evals[n_evals++] = (struct cell){head[c], row[c]};
		error = add_row(s, line, cells, evals, n_evals);
	}
	return error;
}

/* A member of obj named by the first of `names` it has (without case),
 * as text into buf: "" when absent or null. -1 when it is not a number or
 * a string. */
static int member_text(json_t *obj, const char *const *names, char *buf, size_t size, const char **out)
{
	const char *key;
	json_t *v;

	*out = "";
	for (; *names; names++)
		json_object_foreach(obj, key, v) {
			if (strcasecmp(key, *names) != 0)
				continue;
			if (json_is_string(v))
				*out = json_string_value(v);
			else if (json_is_number(v))
				snprintf(buf, size, "%.17g", json_number_value(v)), *out = buf;
			else if (!json_is_null(v))
				return -1;
			return 0;
		}
	return 0;
}

/* One JSON Lines row: an object per line; a line that is not one is a
 * warning. */
static int jsonl_row(struct series *s, const char *p, size_t line)
{
	char bufs[ROW_FIELDS][32], ebufs[64][32];
	const char *cells[ROW_FIELDS], *key;
	struct cell evals[64];
	size_t n_evals = 0;
	json_error_t jerr;
	json_t *obj = json_loads(p, JSON_REJECT_DUPLICATES, &jerr), *v;
	int error = 0, bad = 0;

	if (!json_is_object(obj)) {
		json_decref(obj);
		return mt_runlog_warn_at(s->log, line, "not a JSON object (%s); row skipped",
		                         obj ? "another JSON value" : jerr.text);
	}
	for (int f = 0; f < ROW_FIELDS && !bad; f++) {
		const char *const *names = mt_runlog_rules_series(s->log->rules, (enum mt_series_field)f);
		if ((bad = member_text(obj, names, bufs[f], sizeof(bufs[f]), &cells[f]) < 0))
			error = mt_runlog_warn_at(s->log, line,
			                          "\"%s\" is neither a number nor text; row skipped", names[0]);
	}
	json_object_foreach(obj, key, v) {
		if (bad || !is_eval_name(s, key) || json_is_null(v) || n_evals == 64)
			continue;
		if ((bad = !json_is_number(v))) {
			error = mt_runlog_warn_at(s->log, line, "%s is not a number; row skipped", key);
			break;
		}
		snprintf(ebufs[n_evals], sizeof(ebufs[n_evals]), "%.17g", json_number_value(v));
		evals[n_evals] = (struct cell){key, ebufs[n_evals]};
		n_evals++;
	}
	if (!bad)
		error = add_row(s, line, cells, evals, n_evals);
	json_decref(obj);
	return error;
}

static int feed_jsonl(struct series *s, char *text, size_t len)
{
	size_t at = 0, line = 0;
	char *p;
	int error = 0;

	while (!error && (p = next_line(text, len, &at, &line))) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p)
			error = jsonl_row(s, p, line);
	}
	return error;
}

/* Reads a series into log: relative times get the run's start (time 0) as
 * its init_start. */
static int feed_series(mt_runlog *log, char *text, size_t len, enum mt_runs_log_format format,
                       const char *path, const char *metric)
{
	struct series s = {.log = log, .path = path, .metric = metric};
	int error = format == MT_RUNS_LOG_CSV ? feed_csv(&s, text, len) : feed_jsonl(&s, text, len);

	if (!error && s.relative) {
		mt_run_event start = {.kind = MT_RUN_EV_INIT_START, .t_ms = 0, .line = s.header_line,
		                      .key = "init_start", .value = NAN, .step = -1, .epoch = NAN,
		                      .samples = NAN, .tokens = NAN, .padded = NAN, .seq = NAN,
		                      .data_s = NAN, .comm_s = NAN};
		error = mt_runlog_add_event(log, &start);
	}
	return error;
}

int mt_runs_metrics(json_t **out, const char *path, enum mt_runs_log_format format,
		    const mt_spec *spec, int64_t submit_ms, int exit_status)
{
	mt_runlog_rules *rules = NULL;
	int error;

	*out = NULL;
	if ((error = mt_runlog_rules_load(&rules)) < 0)
		return error;
	error = mt_runs_metrics_with(out, rules, path, format, spec, submit_ms, exit_status);
	mt_runlog_rules_free(rules);
	return error;
}

static int has_tokens(const mt_runlog *log)
{
	for (size_t i = 0; i < log->n_events; i++)
		if (log->events[i].kind == MT_RUN_EV_STEP && isfinite(log->events[i].tokens))
			return 1;
	return 0;
}

/* The log's first warnings with their lines, for messages naming them. */
#define WARNINGS_KEPT 20
static json_t *warning_list(const mt_runlog *log)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < log->n_warnings && i < WARNINGS_KEPT; i++)
		json_array_append_new(a, json_pack("{s:I, s:s}", "line", (json_int_t)log->warnings[i].line,
		                                   "message", log->warnings[i].message));
	return a;
}

int mt_runs_log_feed(mt_runlog *log, const char *path, enum mt_runs_log_format format,
		     const char *metric)
{
	char *text = NULL;
	size_t len = 0;
	int error;

	if ((error = mt_file_read(&text, &len, path)) < 0)
		return error;
	if (format == MT_RUNS_LOG_TIMED)
		error = feed_timed(log, text, len);
	else if (format == MT_RUNS_LOG_CSV || format == MT_RUNS_LOG_JSONL)
		error = feed_series(log, text, len, format, path, metric);
	else if (format == MT_RUNS_LOG_RAW)
		error = mt_runlog_feed_text(log, text, len, MT_RUNLOG_NO_TIME);
	else
		error = mt_error_set(MT_EINVALID, "%s: a system description, not a run's log", path);
	free(text); /* the events hold copies */
	return error;
}

int mt_runs_metrics_with(json_t **out, const mt_runlog_rules *rules, const char *path,
			 enum mt_runs_log_format format, const mt_spec *spec, int64_t submit_ms,
			 int exit_status)
{
	mt_runlog log;
	mt_run_metrics m;
	mt_run_opts o;
	const char *metric = spec ? mt_spec_get(spec, "quality_target.metric") : NULL;
	int error;

	*out = NULL;
	mt_runlog_init(&log, rules);
	error = mt_runs_log_feed(&log, path, format, metric);
	mt_run_opts_init(&o);
	o.submit_ms = submit_ms ? submit_ms : MT_RUNLOG_NO_TIME;
	o.exit_status = exit_status;
	/* tokens as workload.token_unit counts them; a log without tokens (an
	 * MLPerf ResNet run) is measured in samples, and says so */
	o.token_unit = spec ? mt_spec_get(spec, "workload.token_unit") : NULL;
	o.unit = o.token_unit && has_tokens(&log) ? "tokens" : "samples";
	/* no target: reaching it depends on trial.yaml as it is when read
	 * (mt_runs_target), so the stored figures leave it out */
	if (error == 0 && (error = mt_run_metrics_compute(&m, &log, &o)) == 0) {
		*out = mt_run_metrics_json(&m);
		mt_run_metrics_dispose(&m);
		if (*out)
			json_object_set_new(*out, "warning_list", warning_list(&log));
		else
			error = mt_error_set(MT_EIO, "out of memory");
	}
	mt_runlog_dispose(&log);
	return error;
}

/* --- what an imported file is, and MLPerf system descriptions ----------------- */

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

enum mt_runs_log_format mt_runs_sniff(const char *path, const char *head, size_t len)
{
	const char *p = head, *end = head + len, *nl;

	if (ends_with(path, ".csv") || ends_with(path, ".tsv"))
		return MT_RUNS_LOG_CSV;
	if (ends_with(path, ".jsonl") || ends_with(path, ".ndjson"))
		return MT_RUNS_LOG_JSONL;
	if (memmem(head, len, ":::MLLOG", 8) || memmem(head, len, "mtrial:", 7))
		return MT_RUNS_LOG_RAW;
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p < end && *p == '{') {
		/* one object per line, or one object over many lines */
		nl = memchr(p, '\n', (size_t)(end - p));
		json_t *first = json_loadb(p, nl ? (size_t)(nl - p) : (size_t)(end - p), 0, NULL);
		int jsonl = json_is_object(first) && !json_object_get(first, "number_of_nodes");
		json_decref(first);
		return jsonl ? MT_RUNS_LOG_JSONL : MT_RUNS_SYSTEM;
	}
	return MT_RUNS_LOG_RAW;
}

/* A whole number >= 0 of the description: a number or a text ("8"). */
static int system_count(const char *path, json_t *d, const char *key, double *out)
{
	json_t *v = json_object_get(d, key);
	const char *t = json_string_value(v);
	char *end = NULL;

	if (!v)
		return mt_error_set(MT_EINVALID, "%s: no \"%s\": not an MLPerf system description",
		                    path, key);
	*out = json_is_number(v) ? json_number_value(v) : t ? strtod(t, &end) : NAN;
	if ((t && (end == t || *end)) || !isfinite(*out) || *out < 0 || *out != floor(*out))
		return mt_error_set(MT_EINVALID, "%s: \"%s\" is %s%s%s, not a whole number", path, key,
		                    t ? "'" : "", t ? t : "not a number or text", t ? "'" : "");
	return 0;
}

int mt_runs_system_read(json_t **out, const char *path)
{
	json_error_t jerr;
	json_t *d = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	double nodes, per_node;
	const char *model;
	int error;

	*out = NULL;
	if (!d)
		return mt_error_set(jerr.line < 1 && strstr(jerr.text, "unable to open") ? MT_ENOTFOUND
		                                                                         : MT_EINVALID,
		                    "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
	if (!json_is_object(d)) {
		json_decref(d);
		return mt_error_set(MT_EINVALID, "%s: not a JSON object: not an MLPerf system description",
		                    path);
	}
	if ((error = system_count(path, d, "number_of_nodes", &nodes)) < 0 ||
	    (error = system_count(path, d, "accelerators_per_node", &per_node)) < 0) {
		json_decref(d);
		return error;
	}
	model = json_string_value(json_object_get(d, "accelerator_model_name"));
	if (nodes < 1 || per_node < 1) {
		error = mt_error_set(MT_EINVALID, "%s: %g node(s) x %g accelerator(s) per node "
		                     "(accelerator_model_name '%s'): no devices to count device-hours on",
		                     path, nodes, per_node, model ? model : "");
		json_decref(d);
		return error;
	}
	*out = json_pack("{s:s?, s:s?, s:f, s:f, s:f, s:s?, s:s}", "system_name",
	                 json_string_value(json_object_get(d, "system_name")), "submitter",
	                 json_string_value(json_object_get(d, "submitter")), "nodes", nodes,
	                 "accelerators_per_node", per_node, "devices", nodes * per_node,
	                 "accelerator", model, "source", path);
	json_decref(d);
	return *out ? 0 : mt_error_set(MT_EIO, "out of memory");
}

double mt_runs__num(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

json_t *mt_runs__real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A number of trial.yaml, NaN without one. */
double mt_runs__spec_num(const mt_spec *spec, const char *system, const char *key)
{
	char path[96];
	const char *v;
	snprintf(path, sizeof(path), "systems.%s.%s", system, key);
	v = spec ? mt_spec_get(spec, path) : NULL;
	return v ? strtod(v, NULL) : NAN;
}

/* Devices of a system: accelerators per host x hosts (hosts default 1). */
double mt_runs__devices_of(const mt_spec *spec, const char *system)
{
	double count = mt_runs__spec_num(spec, system, "count"), hosts = mt_runs__spec_num(spec, system, "hosts");
	return isnan(count) ? NAN : count * (isnan(hosts) ? 1 : hosts);
}

/* What the log says of the compile cache next to what the run declared;
 * a warning when they disagree. */
static void flatten_cache(json_t *run, json_t *cache)
{
	const char *declared = json_string_value(json_object_get(run, "cache"));
	const char *inferred = json_string_value(json_object_get(cache, "inferred"));
	char msg[300];

	json_object_set_new(run, "cache_inferred", inferred ? json_string(inferred) : json_null());
	if (!declared || !inferred || strcmp(declared, inferred) == 0)
		return;
	snprintf(msg, sizeof(msg),
	         "declared --cache %s, but before its first step the log shows %lld compile "
	         "cache hit(s) and %lld compilation(s): %s",
	         declared, (long long)json_integer_value(json_object_get(cache, "hits")),
	         (long long)json_integer_value(json_object_get(cache, "misses")),
	         strcmp(inferred, "mixed") == 0 ? "a partly warm cache" : inferred);
	json_object_set_new(run, "cache_warning", json_string(msg));
}

/* --- what depends on trial.yaml: derived when a run is read, never stored -- */

/* The time of the first evaluation of `metric` meeting `threshold`
 * (higher: >=, else <=) among `evals`, with its event; NULL when none. */
static json_t *first_meeting(json_t *evals, const char *metric, double threshold, int higher)
{
	json_t *e;
	size_t i;

	json_array_foreach(evals, i, e) {
		double v = mt_runs__num(json_object_get(e, "value"));
		if (!json_is_integer(json_object_get(e, "t_ms")) ||
		    strcmp(json_string_value(json_object_get(e, "metric")) ?: "", metric) != 0)
			continue;
		if (higher ? v >= threshold : v <= threshold)
			return e;
	}
	return NULL;
}

/* A time (ms) the stored metrics do not hold, recovered from the target
 * block an older mtrial froze into them: the evaluation that met it minus
 * its recorded seconds (`key`: from_run_start_s or from_submission_s).
 * MT_RUNLOG_NO_TIME when that target was not reached. */
static int64_t legacy_anchor(json_t *m, const char *key)
{
	json_t *old = json_object_get(m, "target"), *e;
	const char *metric = json_string_value(json_object_get(old, "metric"));
	const char *dir = json_string_value(json_object_get(old, "direction"));
	double s = mt_runs__num(json_object_get(old, key)), threshold = mt_runs__num(json_object_get(old, "value"));

	if (!metric || !json_is_true(json_object_get(old, "reached")) || !isfinite(s) ||
	    !isfinite(threshold))
		return MT_RUNLOG_NO_TIME;
	e = first_meeting(json_object_get(m, "evaluations"), metric, threshold,
			  dir && strcmp(dir, "higher") == 0);
	return e ? json_integer_value(json_object_get(e, "t_ms")) - llround(s * 1000) : MT_RUNLOG_NO_TIME;
}

/* ms of `key` in the stored block `obj` of m, MT_RUNLOG_NO_TIME when absent. */
static int64_t stored_ms(json_t *m, const char *obj, const char *key)
{
	json_t *v = key ? json_object_get(json_object_get(m, obj), key) : json_object_get(m, obj);
	return json_is_integer(v) ? json_integer_value(v) : MT_RUNLOG_NO_TIME;
}

/* The metrics the log evaluates, "eval_accuracy, eval_loss", into b. */
static void metrics_in_log(mt_buf *b, json_t *evals)
{
	json_t *e, *seen = json_object();
	size_t i;

	json_array_foreach(evals, i, e) {
		const char *k = json_string_value(json_object_get(e, "metric"));
		if (k && !json_object_get(seen, k)) {
			json_object_set_new(seen, k, json_true());
			mt_buf_printf(b, "%s%s", b->len ? ", " : "", k);
		}
	}
	json_decref(seen);
}

json_t *mt_runs_target(json_t *m, const mt_spec *spec)
{
	const char *metric = spec ? mt_spec_get(spec, "quality_target.metric") : NULL;
	const char *threshold = spec ? mt_spec_get(spec, "quality_target.threshold") : NULL;
	const char *dir = spec ? mt_spec_get(spec, "quality_target.direction") : NULL;
	json_t *evals = json_object_get(m, "evaluations"), *e, *hit, *t;
	int64_t start = stored_ms(m, "run_start", "t_ms"), sub = stored_ms(m, "attempt", "start_ms");
	int64_t acc = sub; /* the accounting boundary's start */
	int higher = dir && strcmp(dir, "higher") == 0, evaluated = 0, legacy = 0;
	double value = threshold ? strtod(threshold, NULL) : NAN;
	mt_buf b = MT_BUF_INIT;
	size_t i;

	if (!metric || !isfinite(value) || !json_is_object(m))
		return json_null();
	json_array_foreach(evals, i, e)
		evaluated |= strcmp(json_string_value(json_object_get(e, "metric")) ?: "", metric) == 0;
	if (!json_object_get(m, "run_start")) { /* recorded by an older mtrial */
		legacy = 1;
		start = legacy_anchor(m, "from_run_start_s");
		sub = legacy_anchor(m, "from_submission_s");
		acc = sub != MT_RUNLOG_NO_TIME ? sub : stored_ms(m, "first_ms", NULL);
	} else if (strcmp(json_string_value(json_object_get(json_object_get(m, "attempt"),
							     "start_from")) ?: "", "first_event") == 0) {
		sub = MT_RUNLOG_NO_TIME; /* no submission, no init_start: clock 1 has no anchor */
	}
	hit = first_meeting(evals, metric, value, higher);
	int64_t at = hit ? json_integer_value(json_object_get(hit, "t_ms")) : 0;
	t = json_pack("{s:s, s:f, s:s, s:b, s:b, s:o, s:o, s:O?, s:O?}", "metric", metric, "value",
		      value, "direction", higher ? "higher" : "lower", "evaluated", evaluated,
		      "reached", hit != NULL, "from_run_start_s",
		      mt_runs__real_or_null(hit && start != MT_RUNLOG_NO_TIME ? (double)(at - start) / 1000 : NAN),
		      "from_submission_s",
		      mt_runs__real_or_null(hit && sub != MT_RUNLOG_NO_TIME ? (double)(at - sub) / 1000 : NAN),
		      "at_step", json_object_get(hit, "step"), "at_epoch", json_object_get(hit, "epoch"));
	/* what the cost to the target counts: the attempt's start to the hit */
	json_object_set_new(t, "from_attempt_start_s",
			    mt_runs__real_or_null(hit && acc != MT_RUNLOG_NO_TIME ? (double)(at - acc) / 1000 : NAN));
	metrics_in_log(&b, evals);
	json_object_set_new(t, "metrics_in_log", json_string(mt_buf_cstr(&b)));
	if (!hit)
		json_object_set_new(t, "reason", json_string(evaluated ? "did not reach target"
									: "the log does not evaluate the metric"));
	if (legacy && hit && start == MT_RUNLOG_NO_TIME)
		json_object_set_new(t, "note", json_string("recorded by an older mtrial without the "
							   "run's start: import the log again for "
							   "the time to target"));
	mt_buf_dispose(&b);
	return t;
}

/* Warnings about what a finished run's log holds against trial.yaml: a
 * target metric it never evaluates, a benchmark that is not the workload. */
static void flatten_warnings(json_t *run, json_t *m, json_t *target, const mt_spec *spec)
{
	const char *bench = json_string_value(json_object_get(json_object_get(m, "params"),
							      "submission_benchmark"));
	const char *model = spec ? mt_spec_get(spec, "workload.model.name") : NULL;
	const char *in_log = json_string_value(json_object_get(target, "metrics_in_log"));
	char msg[400];

	if (strcmp(json_string_value(json_object_get(run, "outcome")), "no_metric") == 0) {
		const char *metric = json_string_value(json_object_get(target, "metric"));
		snprintf(msg, sizeof(msg), "the log never evaluates the target's metric %s (%s%s): "
			 "neither reached nor missed; set quality_target.metric to what the log "
			 "evaluates, or evaluate %s", metric,
			 in_log && *in_log ? "it evaluates " : "it holds no evaluation",
			 in_log && *in_log ? in_log : "", metric);
		json_object_set_new(run, "metric_warning", json_string(msg));
	}
	if (bench && model && !mt_runs_same_workload(bench, model)) {
		snprintf(msg, sizeof(msg), "the log's submission_benchmark is '%s', but trial.yaml's "
			 "workload.model.name is '%s': another workload's run?", bench, model);
		json_object_set_new(run, "workload_warning", json_string(msg));
	}
}

int mt_runs_has_best(const mt_spec *spec)
{
	static const char *const systems[] = {"baseline", "candidate"};
	static const char *const keys[] = {"weights", "activations", "gradients",
					   "optimizer_state", "accumulation"};
	char path[64];

	for (size_t s = 0; spec && s < 2; s++)
		for (size_t k = 0; k < 5; k++) {
			snprintf(path, sizeof(path), "precision.best.%s.%s", systems[s], keys[k]);
			if (mt_spec_get(spec, path))
				return 1;
		}
	return 0;
}

/* Lowercase letters and digits of s into buf. */
static void squeeze(char *buf, size_t size, const char *s)
{
	size_t n = 0;
	for (; *s && n + 1 < size; s++)
		if (isalnum((unsigned char)*s))
			buf[n++] = (char)tolower((unsigned char)*s);
	buf[n] = '\0';
}

int mt_runs_same_workload(const char *benchmark, const char *model)
{
	char a[128], b[128];

	squeeze(a, sizeof(a), benchmark);
	squeeze(b, sizeof(b), model);
	return !*a || !*b || strstr(a, b) || strstr(b, a);
}

/* The attempt's hours inside the accounting boundary (submission to the end
 * of the attempt), from the stored metrics; for a record without them (an
 * older mtrial, or no figures from its log) the journal's start and end. */
static double attempt_hours(json_t *run, json_t *m, const char **from, const char **to)
{
	int64_t s = stored_ms(m, "attempt", "start_ms"), e = stored_ms(m, "attempt", "end_ms");
	const char *js = json_string_value(json_object_get(run, "started"));
	const char *je = json_string_value(json_object_get(run, "ended"));

	*from = json_string_value(json_object_get(json_object_get(m, "attempt"), "start_from"));
	*to = json_string_value(json_object_get(json_object_get(m, "attempt"), "end_from"));
	if (s == MT_RUNLOG_NO_TIME || e == MT_RUNLOG_NO_TIME) {
		*from = "recorded_start", *to = "recorded_end";
		if (!js || !je || iso_ms(js, &s) < 0 || iso_ms(je, &e) < 0)
			return *from = *to = NULL, NAN;
	}
	return e >= s ? (double)(e - s) / 3600000.0 : NAN;
}

/* The run's topology: what its record says (--devices, the launcher, a
 * system description), else trial.yaml's for its system as it is now
 * (trial/topology.h); a rehearsal ran elsewhere, so never trial.yaml's. */
static void run_topology(mt_topology *topo, json_t *m, const char *system, int rehearsal,
			 const mt_spec *spec)
{
	mt_topology yaml;
	int ambiguous;

	mt_topology_read(topo, json_object_get(m, "topology"));
	if (rehearsal || !system)
		return;
	mt_topology_init(&yaml);
	mt_topology_from_spec(&yaml, spec, system, topo->n[MT_TOPO_DEVICES], &ambiguous);
	mt_topology_fill(topo, &yaml);
}

/* Device-hours and prices: trial.yaml's, as it is now; the price is paid
 * for the hosts (or devices) the run used (mt_topology_hourly_cost). */
static void flatten_cost(json_t *run, json_t *m, json_t *target, const mt_spec *spec)
{
	const char *system = json_string_value(json_object_get(run, "system")), *from, *to;
	/* a rehearsal ran elsewhere (a CPU, a smaller config): trial.yaml's
	 * devices and prices are not its own, so it is not priced */
	int rehearsal = json_is_true(json_object_get(run, "rehearsal"));
	mt_topology topo;
	double devices;
	const char *unpriced = NULL;
	double price = NAN;
	double hours = attempt_hours(run, m, &from, &to);
	/* to the target inside the same boundary: from the attempt's start */
	double to_target = mt_runs__num(json_object_get(target, "from_attempt_start_s"));

	run_topology(&topo, m, system, rehearsal, spec);
	devices = topo.n[MT_TOPO_DEVICES] ? (double)topo.n[MT_TOPO_DEVICES] : NAN;
	if (system && !rehearsal && isfinite(mt_runs__spec_num(spec, system, "price.hourly")))
		price = mt_topology_hourly_cost(&topo, spec, system, &unpriced);

	json_object_set_new(run, "accounting",
			    from ? json_pack("{s:s, s:s, s:o}", "from", from, "to", to, "hours",
					     mt_runs__real_or_null(hours))
				 : json_null());
	json_object_set_new(run, "devices", mt_runs__real_or_null(devices));
	json_object_set_new(run, "devices_from",
			    isfinite(devices) ? json_string(topo.from[MT_TOPO_DEVICES]) : json_null());
	json_object_set_new(run, "topology", mt_topology_json(&topo));
	json_object_set_new(run, "device_hours", mt_runs__real_or_null(rehearsal ? NAN : devices * hours));
	json_object_set_new(run, "device_hours_to_target",
			    mt_runs__real_or_null(rehearsal ? NAN : devices * to_target / 3600.0));
	if (rehearsal || unpriced)
		json_object_set_new(run, "not_priced", json_string(rehearsal ? "rehearsal" : unpriced));
	json_object_set_new(run, "hourly_cost", mt_runs__real_or_null(price));
	json_object_set_new(run, "cost", mt_runs__real_or_null(price * hours));
	json_object_set_new(run, "cost_to_target", mt_runs__real_or_null(price * to_target / 3600.0));
}

void mt_runs_flatten(json_t *run, const mt_spec *spec)
{
	json_t *m = json_object_get(run, "metrics"), *steady = json_object_get(m, "steady");
	json_t *target = mt_runs_target(m, spec);
	int reached = json_is_true(json_object_get(target, "reached"));
	json_t *step = json_object_get(steady, "step_s");

	if (json_is_object(m)) /* the frozen target of an older record goes */
		json_object_set(m, "target", target);
	json_object_set_new(run, "clock1_s", mt_runs__real_or_null(mt_runs__num(json_object_get(json_object_get(m, "clock1"),
									      "seconds"))));
	/* clock 2: the steady-state mean, as throughput (an older record: its mean) */
	json_object_set_new(run, "steady_step_s",
			    mt_runs__real_or_null(mt_runs__num(step ? step : json_object_get(steady, "step_mean_s"))));
	json_object_set_new(run, "steady_statistic", json_is_object(steady) ? json_string("mean")
									     : json_null());
	json_object_set_new(run, "throughput",
			    json_pack("{so, sO?}", "value",
				      mt_runs__real_or_null(mt_runs__num(json_object_get(steady, "throughput"))), "unit",
				      json_object_get(steady, "unit")));
	json_object_set_new(run, "outcome", json_string(mt_run_outcome(
		json_string_value(json_object_get(run, "status")), target)));
	json_object_set_new(run, "reached", !json_is_object(target) ? json_null()
					    : reached ? json_true()
					    : json_is_true(json_object_get(target, "evaluated")) ? json_false()
					    : json_null());
	json_object_set_new(run, "time_to_target_s",
			    mt_runs__real_or_null(reached ? mt_runs__num(json_object_get(target, "from_run_start_s")) : NAN));
	json_object_set_new(run, "time_to_target_from_submission_s",
			    mt_runs__real_or_null(reached ? mt_runs__num(json_object_get(target, "from_submission_s")) : NAN));
	json_object_set_new(run, "run_minutes", mt_runs__real_or_null(mt_runs__num(json_object_get(m, "run_minutes"))));
	flatten_cache(run, json_object_get(m, "compile_cache"));
	flatten_cost(run, m, target, spec);
	flatten_warnings(run, m, target, spec);
	json_decref(target);
}

void mt_runs_set_end(json_t *metrics, int64_t end_ms)
{
	json_t *a = json_object_get(metrics, "attempt");

	if (!json_is_object(a))
		return;
	json_object_set_new(a, "end_ms", json_integer(end_ms));
	json_object_set_new(a, "end_from", json_string("process_end"));
}
