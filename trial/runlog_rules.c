/* Recording runs, the rules: tables/run_events.yaml read into the
 * reader's form (runlog_int.h): the MLLOG keys, the line protocol's
 * fields, the names of a CSV or JSON Lines series' columns and the compile
 * cache patterns, every mistake named with its line and column. */
#include "runlog_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "error.h"
#include "util.h"
#include "ytree.h"

static const char *const kind_names[] = {
    [MT_RUN_EV_OTHER] = "other",
    [MT_RUN_EV_CACHE_CLEAR] = "cache_clear",
    [MT_RUN_EV_INIT_START] = "init_start",
    [MT_RUN_EV_INIT_STOP] = "init_stop",
    [MT_RUN_EV_RUN_START] = "run_start",
    [MT_RUN_EV_RUN_STOP] = "run_stop",
    [MT_RUN_EV_EPOCH_START] = "epoch_start",
    [MT_RUN_EV_EPOCH_STOP] = "epoch_stop",
    [MT_RUN_EV_BLOCK_START] = "block_start",
    [MT_RUN_EV_BLOCK_STOP] = "block_stop",
    [MT_RUN_EV_EVAL] = "eval",
    [MT_RUN_EV_PARAM] = "param",
    [MT_RUN_EV_STEP] = "step",
    [MT_RUN_EV_CACHE_HIT] = "cache_hit",
    [MT_RUN_EV_CACHE_MISS] = "cache_miss",
};

#define N_KINDS (sizeof(kind_names) / sizeof(kind_names[0]))

const char *mt_run_event_kind_name(enum mt_run_event_kind kind)
{
	return (size_t)kind < N_KINDS ? kind_names[kind] : "other";
}

static const char *const pfield_names[PF_COUNT] = {"step",  "loss", "tokens", "samples",
                                                   "epoch", "time", "padded", "seq",
                                                   "data_s", "comm_s"};

static const char *const series_names[MT_SERIES_COUNT] = {
    [MT_SERIES_STEP] = "step",       [MT_SERIES_TIME] = "time",
    [MT_SERIES_TIME_MS] = "time_ms", [MT_SERIES_TIMESTAMP] = "timestamp",
    [MT_SERIES_LOSS] = "loss",       [MT_SERIES_TOKENS] = "tokens",
    [MT_SERIES_PADDED] = "padded",   [MT_SERIES_SAMPLES] = "samples",
    [MT_SERIES_EPOCH] = "epoch",     [MT_SERIES_SEQ] = "seq",
    [MT_SERIES_DATA] = "data_s",     [MT_SERIES_COMM] = "comm_s",
    [MT_SERIES_EVAL] = "eval_prefix"};

static void words_free(struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->w[i]);
	free(w->w);
}

const char *const *mt_runlog_rules_series(const mt_runlog_rules *r, enum mt_series_field field)
{
	static const char *const none[] = {NULL};
	return field < MT_SERIES_COUNT && r->series[field].w
	           ? (const char *const *)r->series[field].w
	           : none;
}

void mt_runlog_rules_free(mt_runlog_rules *r)
{
	if (!r)
		return;
	free(r->mllog_prefix);
	for (size_t i = 0; i < r->n_keys; i++)
		free(r->keys[i].key);
	free(r->keys);
	free(r->proto_prefix);
	free(r->eval_word);
	for (int f = 0; f < PF_COUNT; f++)
		free(r->fields[f]);
	for (int f = 0; f < MT_SERIES_COUNT; f++)
		words_free(&r->series[f]);
	words_free(&r->cache_hit);
	words_free(&r->cache_miss);
	free(r);
}

static int bad_at(const char *name, const mt_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad_at(const char *name, const mt_ynode *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mt_error_set(MT_EINVALID, "%s:%u:%u: %s", name, n->key ? n->key_line : n->line,
	                    n->key ? n->key_col : n->col, msg);
}

/* A non-empty scalar without blanks (a prefix, a word or a field name). */
static int read_word(const char *name, const mt_ynode *n, const char *what, char **out)
{
	if (n->kind != MT_YNODE_SCALAR || !n->text[0] || strpbrk(n->text, " \t\r\n"))
		return bad_at(name, n, "%s must be text without blanks", what);
	free(*out);
	*out = mt_strdup(n->text);
	return 0;
}

static int kind_of(const char *s)
{
	for (size_t k = 0; k < N_KINDS; k++)
		if (strcmp(s, kind_names[k]) == 0)
			return (int)k;
	return -1;
}

static int read_keys(mt_runlog_rules *r, const char *name, const mt_ynode *keys)
{
	if (keys->kind != MT_YNODE_MAP)
		return bad_at(name, keys, "mllog.keys must map MLLOG keys to event kinds");
	r->keys = calloc(keys->n ? keys->n : 1, sizeof(*r->keys));
	if (!r->keys)
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < keys->n; i++) {
		const mt_ynode *k = keys->kids[i];
		int kind = k->kind == MT_YNODE_SCALAR ? kind_of(k->text) : -1;
		if (kind < 0)
			return mt_error_set(MT_EINVALID, "%s:%u:%u: '%s' is not an event kind",
			                    name, k->line, k->col,
			                    k->kind == MT_YNODE_SCALAR ? k->text : "(not text)");
		r->keys[r->n_keys].key = mt_strdup(k->key);
		r->keys[r->n_keys].len = strlen(k->key);
		r->keys[r->n_keys++].kind = (enum mt_run_event_kind)kind;
	}
	return 0;
}

static int read_mllog(mt_runlog_rules *r, const char *name, const mt_ynode *m)
{
	int error = 0;

	if (m->kind != MT_YNODE_MAP)
		return bad_at(name, m, "mllog must be a map");
	for (size_t i = 0; i < m->n && !error; i++) {
		const mt_ynode *k = m->kids[i];
		if (strcmp(k->key, "prefix") == 0)
			error = read_word(name, k, "mllog.prefix", &r->mllog_prefix);
		else if (strcmp(k->key, "keys") == 0)
			error = read_keys(r, name, k);
		else
			error = bad_at(name, k, "unknown key '%s' in mllog", k->key);
	}
	if (!error && (!r->mllog_prefix || !r->keys))
		error = bad_at(name, m, "mllog needs prefix and keys");
	return error;
}

static int read_fields(mt_runlog_rules *r, const char *name, const mt_ynode *m)
{
	if (m->kind != MT_YNODE_MAP)
		return bad_at(name, m, "protocol.fields must be a map");
	for (size_t i = 0; i < m->n; i++) {
		const mt_ynode *k = m->kids[i];
		int f = 0;
		while (f < PF_COUNT && strcmp(k->key, pfield_names[f]) != 0)
			f++;
		if (f == PF_COUNT)
			return bad_at(name, k,
			              "unknown field '%s' (step, loss, tokens, samples, "
			              "epoch, time, padded, seq, data_s, comm_s)",
			              k->key);
		if (read_word(name, k, "a field name", &r->fields[f]) < 0)
			return MT_EINVALID;
		if (strchr(r->fields[f], '='))
			return bad_at(name, k, "a field name cannot hold '='");
	}
	if (!r->fields[PF_PADDED]) /* added later: rule files without it still read */
		r->fields[PF_PADDED] = mt_strdup("padded");
	if (!r->fields[PF_SEQ])
		r->fields[PF_SEQ] = mt_strdup("seq");
	if (!r->fields[PF_DATA])
		r->fields[PF_DATA] = mt_strdup("data_s");
	if (!r->fields[PF_COMM])
		r->fields[PF_COMM] = mt_strdup("comm_s");
	for (int f = 0; f < PF_COUNT; f++)
		if (!r->fields[f])
			return bad_at(name, m, "protocol.fields needs '%s'", pfield_names[f]);
	return 0;
}

static int read_protocol(mt_runlog_rules *r, const char *name, const mt_ynode *m)
{
	int error = 0;

	if (m->kind != MT_YNODE_MAP)
		return bad_at(name, m, "protocol must be a map");
	for (size_t i = 0; i < m->n && !error; i++) {
		const mt_ynode *k = m->kids[i];
		if (strcmp(k->key, "prefix") == 0)
			error = read_word(name, k, "protocol.prefix", &r->proto_prefix);
		else if (strcmp(k->key, "eval") == 0)
			error = read_word(name, k, "protocol.eval", &r->eval_word);
		else if (strcmp(k->key, "fields") == 0)
			error = read_fields(r, name, k);
		else
			error = bad_at(name, k, "unknown key '%s' in protocol", k->key);
	}
	if (!error && (!r->proto_prefix || !r->eval_word || !r->fields[0]))
		error = bad_at(name, m, "protocol needs prefix, eval and fields");
	return error;
}

/* A list of non-empty texts (or one text) into *w, NULL-terminated. */
static int read_words(const char *name, const mt_ynode *n, const char *what, struct words *w)
{
	size_t count = n->kind == MT_YNODE_LIST ? n->n : 1;

	if (n->kind != MT_YNODE_LIST && n->kind != MT_YNODE_SCALAR)
		return bad_at(name, n, "%s must be a text or a list of texts", what);
	words_free(w);
	if (!(w->w = calloc(count + 1, sizeof(*w->w))))
		return mt_error_set(MT_EIO, "out of memory");
	for (w->n = 0; w->n < count; w->n++) {
		const mt_ynode *k = n->kind == MT_YNODE_LIST ? n->kids[w->n] : n;
		if (k->kind != MT_YNODE_SCALAR || !k->text[0])
			return bad_at(name, k, "%s: each must be a non-empty text", what);
		w->w[w->n] = mt_strdup(k->text);
	}
	return 0;
}

/* series: the column (CSV) or key (JSONL) names of each field. */
static int read_series(mt_runlog_rules *r, const char *name, const mt_ynode *m)
{
	if (m->kind != MT_YNODE_MAP)
		return bad_at(name, m, "series must be a map");
	for (size_t i = 0; i < m->n; i++) {
		const mt_ynode *k = m->kids[i];
		int f = 0;
		while (f < MT_SERIES_COUNT && strcmp(k->key, series_names[f]) != 0)
			f++;
		if (f == MT_SERIES_COUNT)
			return bad_at(name, k,
			              "unknown series field '%s' (step, time, time_ms, timestamp, "
			              "loss, tokens, padded, samples, epoch, seq, data_s, comm_s, eval_prefix)",
			              k->key);
		if (read_words(name, k, k->key, &r->series[f]) < 0)
			return MT_EINVALID;
	}
	if (!r->series[MT_SERIES_STEP].n)
		return bad_at(name, m, "series needs 'step'");
	return 0;
}

/* compile_cache: the text of a line that says a compiled graph came from
 * the cache (hit) or that the compiler ran (miss). */
static int read_cache(mt_runlog_rules *r, const char *name, const mt_ynode *m)
{
	int error = 0;

	if (m->kind != MT_YNODE_MAP)
		return bad_at(name, m, "compile_cache must be a map");
	for (size_t i = 0; i < m->n && !error; i++) {
		const mt_ynode *k = m->kids[i];
		if (strcmp(k->key, "hit") == 0)
			error = read_words(name, k, "compile_cache.hit", &r->cache_hit);
		else if (strcmp(k->key, "miss") == 0)
			error = read_words(name, k, "compile_cache.miss", &r->cache_miss);
		else if (strcmp(k->key, "source") != 0)
			error = bad_at(name, k, "unknown key '%s' in compile_cache", k->key);
	}
	return error;
}

static int read_rules(mt_runlog_rules *r, const char *name, const mt_ynode *root)
{
	int error = 0, seen_mllog = 0, seen_protocol = 0;

	if (root->kind != MT_YNODE_MAP)
		return mt_error_set(MT_EINVALID,
		                    "%s:%u:%u: expected a map (source, mllog, "
		                    "protocol)",
		                    name, root->line, root->col);
	for (size_t i = 0; i < root->n && !error; i++) {
		const mt_ynode *k = root->kids[i];
		if (strcmp(k->key, "source") == 0) {
			if (k->kind != MT_YNODE_SCALAR || !k->text[0])
				error = bad_at(name, k, "source must be text");
		} else if (strcmp(k->key, "mllog") == 0) {
			error = read_mllog(r, name, k);
			seen_mllog = 1;
		} else if (strcmp(k->key, "protocol") == 0) {
			error = read_protocol(r, name, k);
			seen_protocol = 1;
		} else if (strcmp(k->key, "series") == 0) {
			error = read_series(r, name, k);
		} else if (strcmp(k->key, "compile_cache") == 0) {
			error = read_cache(r, name, k);
		} else {
			error = bad_at(name, k, "unknown key '%s'", k->key);
		}
	}
	if (!error && (!seen_mllog || !seen_protocol || !mt_ytree_get(root, "source")))
		error = mt_error_set(MT_EINVALID, "%s:1:1: needs source, mllog and protocol", name);
	return error;
}

/* The byte of a prefix to look for first: the first one that is not a
 * blank, punctuation, a digit or a small letter, which fill JSON and log
 * text (the M of ":::MLLOG"); else its first byte. */
static size_t prefix_anchor(const char *prefix)
{
	for (size_t i = 0; prefix[i]; i++)
		if (!strchr(" \t\":,{}[]._-/", prefix[i]) && !isdigit((unsigned char)prefix[i]) &&
		    !islower((unsigned char)prefix[i]))
			return i;
	return 0;
}

/* The byte every compile cache pattern holds at its prefix_anchor, 0 when
 * they differ (or there are none). */
static char cache_anchor(const mt_runlog_rules *r)
{
	char c = 0;
	const struct words *lists[] = {&r->cache_hit, &r->cache_miss};

	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			char a = lists[l]->w[i][prefix_anchor(lists[l]->w[i])];
			if (c && a != c)
				return 0;
			c = a;
		}
	return c;
}

int mt_runlog_rules_parse(mt_runlog_rules **out, const char *text, size_t len, const char *name)
{
	mt_runlog_rules *r = calloc(1, sizeof(*r));
	mt_ytree *tree = NULL;
	int error;

	*out = NULL;
	if (!r)
		return mt_error_set(MT_EIO, "out of memory");
	error = mt_ytree_parse(&tree, text, len, name, 0, NULL);
	if (!error)
		error = read_rules(r, name, mt_ytree_root(tree));
	mt_ytree_free(tree);
	if (!error) {
		r->mllog_len = strlen(r->mllog_prefix);
		r->proto_len = strlen(r->proto_prefix);
		r->mllog_anchor = prefix_anchor(r->mllog_prefix);
		r->proto_anchor = prefix_anchor(r->proto_prefix);
		r->cache_anchor = cache_anchor(r);
	}
	if (error) {
		mt_runlog_rules_free(r);
		return error;
	}
	*out = r;
	return 0;
}

int mt_runlog_rules_load(mt_runlog_rules **out)
{
	char *text = NULL;
	int error =
	    mt_embedded_load(&text, mt_embedded_tables, "MTRIAL_TABLES_DIR", "run_events.yaml");

	*out = NULL;
	if (error)
		return error;
	error = mt_runlog_rules_parse(out, text, strlen(text), "run_events.yaml");
	free(text);
	return error;
}
