/* Importing compatibility tables (see compat_import.h): the public API, the
 * conversion from the readers' entries into mtrial-compat/1 YAML, and the
 * files: import, update and the sidecar origin files. The readers live in
 * compat_md.c (with the mapping file), compat_rst.c and compat_analyze.c;
 * what they share is declared in compat_import_int.h. */
#include "compat_import_int.h"
#include "compat.h"
#include "embedded.h"
#include "error.h"
#include "opmap.h"
#include "fetch.h"
#include "util.h"
#include "ytree.h"

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define IMPORT_MAX_BYTES (8u << 20) /* the same cap as a download */

static const char *const format_names[] = {"auto", "markdown", "rst", "analyze", "yaml"};

const char *mt_compat_import_format_str(mt_compat_import_format f)
{
	return (unsigned)f < 5 ? format_names[f] : "auto";
}

int mt_compat_import_format_parse(const char *s)
{
	for (int i = 0; s && i < 5; i++)
		if (strcmp(s, format_names[i]) == 0)
			return i;
	return -1;
}

/* --- small helpers ------------------------------------------------------------- */

void *mt_compat__xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		abort(); /* as mt_strdup and the arena do */
	return q;
}

void mt_compat__strv_push(strv *s, const char *text)
{
	s->v = mt_compat__xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = mt_strdup(text);
}

int mt_compat__strv_has(const strv *s, const char *text)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], text) == 0)
			return 1;
	return 0;
}

void mt_compat__strv_dispose(strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* A YAML double-quoted scalar: JSON-style escapes, UTF-8 passed through. */
static void yq(mt_buf *b, const char *s)
{
	mt_buf_put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			mt_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			mt_buf_printf(b, "\\x%02x", c);
		else
			mt_buf_put(b, s, 1);
	}
	mt_buf_put(b, "\"", 1);
}

static void today(char out[11])
{
	char iso[32];
	mt_time_iso(iso, sizeof(iso), mt_now_ms());
	memcpy(out, iso, 10);
	out[10] = '\0';
}

char *mt_compat__trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int valid_name(const char *s)
{
	return s && (islower((unsigned char)*s) || isdigit((unsigned char)*s)) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-") == strlen(s) &&
	       strlen(s) < 200;
}

static int name_error(const char *name)
{
	return mt_error_set(MT_EINVALID, "table name '%s' must match [a-z0-9][a-z0-9._-]* "
			    "(give one with --as NAME)", name);
}

int mt_compat_import_name_from(char **out, const char *src)
{
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	size_t n = strcspn(base, "?#");
	mt_buf b = MT_BUF_INIT;

	for (size_t i = n; i > 1; i--) /* the last extension goes */
		if (base[i - 1] == '.') {
			n = i - 1;
			break;
		}
	for (size_t i = 0; i < n; i++) {
		char c = (char)tolower((unsigned char)base[i]);
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789._-", c))
			c = '-';
		if ((c == '-' && b.len && b.ptr[b.len - 1] == '-') ||
		    (!b.len && !isalnum((unsigned char)c)))
			continue;
		mt_buf_put(&b, &c, 1);
	}
	while (b.len && strchr("-._", b.ptr[b.len - 1]))
		b.ptr[--b.len] = '\0';
	*out = NULL;
	if (!b.len) {
		mt_buf_dispose(&b);
		return mt_error_set(MT_EINVALID, "cannot make a table name from '%s': give one "
				    "with --as NAME", src);
	}
	*out = mt_buf_detach(&b);
	return 0;
}

/* --- the table being built ----------------------------------------------------- */

struct entry *mt_compat__entry_find(struct entries *e, const char *op)
{
	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->v[i].op, op) == 0)
			return &e->v[i];
	return NULL;
}

struct entry *mt_compat__entry_add(struct entries *e, const char *op, int status,
				   unsigned line)
{
	struct entry *x;
	e->v = mt_compat__xrealloc(e->v, (e->n + 1) * sizeof(*e->v));
	x = &e->v[e->n++];
	memset(x, 0, sizeof(*x));
	x->op = mt_strdup(op);
	x->status = status;
	x->line = line;
	return x;
}

static void entries_dispose(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].op);
		mt_compat__strv_dispose(&e->v[i].conds);
		mt_compat__strv_dispose(&e->v[i].dtypes);
		mt_compat__strv_dispose(&e->v[i].hlo);
		mt_compat__strv_dispose(&e->v[i].names);
		mt_compat__strv_dispose(&e->v[i].fallback);
		mt_buf_dispose(&e->v[i].notes);
	}
	free(e->v);
}

void mt_compat__note_add(struct entry *x, const char *text)
{
	if (*text)
		mt_buf_printf(&x->notes, "%s%s", x->notes.len ? "; " : "", text);
}

/* Ops sorted by name, then the API entries in the order of the source. */
static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->api != y->api)
		return x->api - y->api;
	if (x->api && x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->op, y->op);
}

/* "    key: [a, b]\n" (indent given), nothing for an empty list. */
static void emit_list(mt_buf *b, const char *indent, const char *key, const strv *v)
{
	if (!v->n)
		return;
	mt_buf_printf(b, "%s%s: [", indent, key);
	for (size_t k = 0; k < v->n; k++) {
		mt_buf_puts(b, k ? ", " : "");
		yq(b, v->v[k]);
	}
	mt_buf_puts(b, "]\n");
}

static void emit_entry(mt_buf *b, const struct entry *x)
{
	mt_buf_puts(b, "  ");
	yq(b, x->op);
	mt_buf_puts(b, ":");
	if (x->line)
		mt_buf_printf(b, "  # source line %u", x->line);
	mt_buf_printf(b, "\n    status: %s\n", mt_compat_status_str((mt_compat_status)x->status));
	if (x->api && x->kind)
		mt_buf_printf(b, "    kind: %s\n", mt_compat_api_kind_str((mt_compat_api_kind)x->kind));
	emit_list(b, "    ", "ops", &x->names);
	if (x->conds.n)
		mt_buf_puts(b, "    conditions:\n");
	for (size_t k = 0; k < x->conds.n; k++) {
		mt_buf_puts(b, "      - ");
		yq(b, x->conds.v[k]);
		mt_buf_puts(b, "\n");
	}
	if (x->dtypes.n || x->fallback.n)
		mt_buf_puts(b, "    dtypes:\n");
	emit_list(b, "      ", "supported", &x->dtypes);
	emit_list(b, "      ", "fallback", &x->fallback);
	if (x->notes.len) {
		mt_buf_puts(b, "    notes: ");
		yq(b, mt_buf_cstr(&x->notes));
		mt_buf_puts(b, "\n");
	}
}

static char *emit(struct entries *e, const struct identity *id,
		  const mt_compat_import_convert_options *o)
{
	mt_buf b = MT_BUF_INIT;
	char day[11];

	today(day);
	qsort(e->v, e->n, sizeof(*e->v), cmp_entry);
	mt_buf_puts(&b, "# Imported by mtrial tables import; replaced by mtrial tables update.\n"
			"schema: mtrial-compat/1\nname: ");
	yq(&b, o->name);
	mt_buf_puts(&b, "\nbackend: ");
	yq(&b, o->backend ? o->backend : "torch-neuronx");
	mt_buf_puts(&b, "\nversion: ");
	yq(&b, o->version ? o->version : id->version ? id->version : "unspecified");
	if (id->device)
		mt_buf_printf(&b, "\ndevice: %s", id->device);
	mt_buf_printf(&b, "\nkind: %s\nsource:\n  url: ", id->kind);
	yq(&b, o->source ? o->source : o->origin ? o->origin : "unknown");
	mt_buf_puts(&b, "\nretrieved: ");
	yq(&b, o->retrieved ? o->retrieved : day);
	mt_buf_puts(&b, "\ndefault: unknown\nnote: ");
	yq(&b, mt_buf_cstr(&id->note));
	mt_buf_puts(&b, "\nrules: []\nops:\n");
	for (size_t i = 0; i < e->n; i++) {
		if (e->v[i].api && (!i || !e->v[i - 1].api))
			mt_buf_puts(&b, "apis:\n");
		emit_entry(&b, &e->v[i]);
	}
	return mt_buf_detach(&b);
}

/* --- lines ------------------------------------------------------------------- */

void mt_compat__lines_split(struct lines *l, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	memset(l, 0, sizeof(*l));
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3; /* a byte-order mark */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		l->v = mt_compat__xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->v[l->n] = mt_compat__xrealloc(NULL, n + 1);
		memcpy(l->v[l->n], p, n);
		l->v[l->n][n] = '\0';
		if (n && l->v[l->n][n - 1] == '\r')
			l->v[l->n][n - 1] = '\0';
		l->n++;
		p += n + 1;
	}
}

void mt_compat__lines_dispose(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* 0 when text is UTF-8 without NUL bytes; else MT_EINVALID naming the line. */
static int check_text(const char *text, size_t len, const char *origin)
{
	unsigned line = 1;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		size_t k = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : (c & 0xf0) == 0xe0 ? 2
						: c >= 0xf0 && c < 0xf5 ? 3 : 9;
		int ok = c && k != 9 && i + k < len;

		for (size_t j = 1; ok && j <= k; j++)
			ok = ((unsigned char)text[i + j] & 0xc0) == 0x80;
		if (!ok)
			return mt_error_set(MT_EINVALID, "%s:%u: not UTF-8 text (byte 0x%02x)",
					    origin, line, c);
		line += c == '\n';
		i += k;
	}
	return 0;
}

/* --- conversion --------------------------------------------------------------- */

/* A line `schema: mtrial-compat/1` at the top level: mtrial's own format,
 * whatever the file is called. */
static int own_schema(const struct lines *l)
{
	for (size_t k = 0; k < l->n; k++) {
		char *v;
		if (strncmp(l->v[k], "schema:", 7) != 0)
			continue;
		v = mt_compat__trim(l->v[k] + 7);
		v += *v == '"' || *v == '\'';
		return !strncmp(v, "mtrial-compat/1", 15);
	}
	return 0;
}

static mt_compat_import_format detect(const char *origin, const char *text, size_t len)
{
	const char *ext = origin ? strrchr(origin, '.') : NULL;
	mt_compat_import_format f = MT_IMPORT_AUTO;
	size_t i = 0;
	struct lines l;
	int md = 0;

	if (ext && strcspn(ext, "?#") < strlen(ext))
		ext = NULL; /* a URL's query: decide by the text */
	mt_compat__lines_split(&l, text, len);
	for (size_t k = 0; k + 1 < l.n && !md; k++)
		md = strchr(l.v[k], '|') && mt_compat__md_is_delimiter(l.v[k + 1]);
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (own_schema(&l) || (ext && (!strcasecmp(ext, ".yaml") || !strcasecmp(ext, ".yml"))))
		f = MT_IMPORT_YAML;
	else if (ext && (!strcasecmp(ext, ".md") || !strcasecmp(ext, ".markdown")))
		f = MT_IMPORT_MARKDOWN;
	else if (ext && !strcasecmp(ext, ".rst"))
		f = MT_IMPORT_RST;
	else if ((ext && !strcasecmp(ext, ".json")) || (i < len && text[i] == '{'))
		f = MT_IMPORT_ANALYZE;
	else
		f = md ? MT_IMPORT_MARKDOWN : MT_IMPORT_RST;
	mt_compat__lines_dispose(&l);
	return f;
}

/* text with the value of its top-level `name:` replaced by name (*out,
 * caller frees); the rest of the file, comments and lines, as it was. */
static int rename_table(char **out, const char *text, size_t len, const char *name,
			const char *origin)
{
	mt_ytree *tree = NULL;
	const mt_ynode *n;
	mt_buf b = MT_BUF_INIT;
	const char *p = text, *end = text + len, *eol;
	int error = mt_ytree_parse(&tree, text, len, origin, MT_YTREE_NULL_EMPTY, NULL);

	n = error ? NULL : mt_ytree_get(mt_ytree_root(tree), "name");
	for (uint32_t line = 1; n && line < n->line && p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	for (uint32_t col = 1; n && col < n->col && p < end && *p != '\n'; col++)
		do /* libyaml counts characters, not bytes */
			p++;
		while (p < end && ((unsigned char)*p & 0xc0) == 0x80);
	if (n && !error) {
		eol = memchr(p, '\n', (size_t)(end - p));
		mt_buf_put(&b, text, (size_t)(p - text));
		yq(&b, name);
		mt_buf_put(&b, eol ? eol : end, eol ? (size_t)(end - eol) : 0);
	}
	mt_ytree_free(tree);
	if (error == 0)
		*out = mt_buf_detach(&b);
	mt_buf_dispose(&b);
	return error;
}

/* A table in mtrial's own format: validated as any table, kept as it is
 * written (its comments say where its data came from), named o->name. */
static int from_yaml(char **yaml, const char *text, size_t len,
		     const mt_compat_import_convert_options *o)
{
	mt_compat_table *t = NULL;
	int error;

	if (o->backend || o->version || o->map)
		return mt_error_set(MT_EINVALID, "%s: a table in mtrial-compat/1 YAML names its "
				    "own backend and version and has no columns to map: --backend, "
				    "--version and --map are for the other formats", o->origin);
	if ((error = mt_compat_parse(&t, text, len, o->origin)) < 0)
		return error;
	if (strcmp(mt_compat_name(t), o->name) == 0) {
		*yaml = mt_compat__xrealloc(NULL, len + 1);
		memcpy(*yaml, text, len);
		(*yaml)[len] = '\0';
	} else if ((error = rename_table(yaml, text, len, o->name, o->origin)) == 0) {
		mt_compat_free(t);
		t = NULL;
		if (mt_compat_parse(&t, *yaml, strlen(*yaml), o->origin) < 0 ||
		    strcmp(mt_compat_name(t), o->name) != 0)
			error = mt_error_set(MT_EINVALID, "%s: cannot rename the table to '%s': "
					     "write its name: on a line of its own, or import it "
					     "under its own name", o->origin, o->name);
	}
	mt_compat_free(t);
	if (error < 0) {
		free(*yaml);
		*yaml = NULL;
	}
	return error;
}

/* The name a YAML table gives itself (*out, caller frees), or NULL. */
static void own_name(char **out, const char *text, size_t len)
{
	mt_compat_table *t = NULL;

	*out = NULL;
	if (detect(NULL, text, len) == MT_IMPORT_YAML &&
	    mt_compat_parse(&t, text, len, "input") == 0)
		*out = mt_strdup(mt_compat_name(t));
	mt_compat_free(t);
	mt_error_clear();
}

int mt_compat_convert(char **yaml, mt_compat_import_info *info, const char *text, size_t len,
		      const mt_compat_import_convert_options *o)
{
	mt_compat_import_convert_options opt = *o;
	mt_compat_import_info scratch, *in = info ? info : &scratch;
	struct entries e = {0};
	struct identity id = {.kind = "documented"};
	mt_compat_table *t = NULL;
	char *version = NULL, label[300];
	int error = 0;

	*yaml = NULL;
	memset(in, 0, sizeof(*in));
	opt.origin = opt.origin ? opt.origin : "input";
	if (!valid_name(opt.name))
		return name_error(opt.name ? opt.name : "");
	if (len > IMPORT_MAX_BYTES)
		return mt_error_set(MT_EINVALID, "%s: %zu bytes, more than the %u MiB a table may "
				    "come from", opt.origin, len, IMPORT_MAX_BYTES >> 20);
	in->format = opt.format = opt.format ? opt.format : detect(opt.origin, text, len);
	if (opt.format == MT_IMPORT_YAML)
		return (error = check_text(text, len, opt.origin)) < 0
			       ? error
			       : from_yaml(yaml, text, len, &opt);
	if (opt.format == MT_IMPORT_ANALYZE)
		error = mt_compat__from_analyze(&e, &id, text, len, &opt, &version);
	else if ((error = check_text(text, len, opt.origin)) == 0)
		error = opt.format == MT_IMPORT_MARKDOWN
				? mt_compat__from_markdown(&e, &id, in, text, len, &opt)
				: mt_compat__from_rst(&e, &id, text, len, &opt);
	if (error == 0 && !e.n)
		error = mt_error_set(MT_EINVALID, "%s: no APIs or operators found", opt.origin);
	id.version = version;
	if (error == 0) {
		*yaml = emit(&e, &id, &opt);
		snprintf(label, sizeof(label), "compat-%s.yaml (imported from %s)", opt.name,
			 opt.origin);
		if ((error = mt_compat_parse(&t, *yaml, strlen(*yaml), label)) < 0) {
			free(*yaml);
			*yaml = NULL;
		}
	}
	if (error < 0 || !info)
		mt_compat_import_info_dispose(in);
	mt_compat_free(t);
	entries_dispose(&e);
	mt_buf_dispose(&id.note);
	free(version);
	return error;
}

void mt_compat_import_info_dispose(mt_compat_import_info *info)
{
	free(info->skipped);
	info->skipped = NULL;
}

/* --- writing tables and their origin ------------------------------------------ */

static char *user_file(const char *name, const char *suffix, const char *prefix)
{
	char *dir = mt_compat_user_dir(), *path;
	mt_buf b = MT_BUF_INIT;
	mt_buf_printf(&b, "%s%s%s", prefix, name, suffix);
	path = mt_path_join(dir, mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	free(dir);
	return path;
}

static int user_dir_create(void)
{
	char *dir = mt_compat_user_dir();
	int error = mt_mkdir_p(dir);
	free(dir);
	return error;
}

static int bundled(const char *name)
{
	char file[256];
	snprintf(file, sizeof(file), "compat-%s.yaml", name);
	for (const struct mt_embedded *e = mt_embedded_tables; e->name; e++)
		if (strcmp(e->name, file) == 0)
			return 1;
	return 0;
}

/* The sidecar of `name`, or NULL (*out) when there is none. */
static int origin_load(json_t **out, const char *name)
{
	char *path = user_file(name, ".origin.json", "");
	json_error_t jerr;
	int error = 0;

	*out = NULL;
	if (mt_path_exists(path) && !(*out = json_load_file(path, 0, &jerr)))
		error = mt_error_set(MT_EINVALID, "%s:%d: %s", path, jerr.line, jerr.text);
	else if (*out && !json_is_object(*out))
		error = mt_error_set(MT_EINVALID, "%s: not a JSON object", path);
	free(path);
	return error;
}

static int origin_save(const char *name, json_t *origin)
{
	char *path = user_file(name, ".origin.json", "");
	char *text = json_dumps(origin, JSON_INDENT(2) | JSON_SORT_KEYS);
	mt_buf b = MT_BUF_INIT;
	int error;

	mt_buf_printf(&b, "%s\n", text ? text : "{}");
	error = mt_file_write_atomic(path, b.ptr, b.len, 0);
	mt_buf_dispose(&b);
	free(text);
	free(path);
	return error;
}

/* Adds op to *unknown unless libtorch's registry (the one mtrial was built
 * with) has its base name. */
static void check_registered(mt_compat_import_result *r, mt_buf *unknown, const char *op,
			     unsigned line)
{
	const char *colons = strstr(op, "::");
	const char *dot = strchr(colons ? colons + 2 : op, '.');
	char base[256];

	snprintf(base, sizeof(base), "%.*s", (int)(dot ? (size_t)(dot - op) : strlen(op)), op);
	if (mt_aten_registered(base))
		return;
	mt_buf_printf(unknown, "%s (line %u)\n", op, line);
	r->nunregistered++;
}

/* Counts the table at r->path by status, and lists the ops that libtorch's
 * registry does not have. */
static int result_counts(mt_compat_import_result *r)
{
	mt_compat_table *t = NULL;
	mt_buf unknown = MT_BUF_INIT;
	int error = mt_compat_load(&t, r->path);

	if (error < 0)
		return error;
	r->nops = mt_compat_nops(t);
	r->napis = mt_compat_napis(t);
	memset(r->counts, 0, sizeof(r->counts));
	memset(r->api_counts, 0, sizeof(r->api_counts));
	r->nunregistered = 0;
	for (size_t i = 0; i < r->nops; i++) {
		const mt_compat_op *op = mt_compat_op_at(t, i);
		r->counts[op->status]++;
		check_registered(r, &unknown, op->op, op->line);
	}
	for (size_t i = 0; i < r->napis; i++) {
		const mt_compat_api *a = mt_compat_api_at(t, i);
		r->api_counts[a->status]++;
		for (const char *const *o = a->ops; *o; o++)
			check_registered(r, &unknown, *o, a->line);
	}
	free(r->unregistered);
	r->unregistered = unknown.len ? mt_buf_detach(&unknown) : NULL;
	mt_buf_dispose(&unknown);
	mt_compat_free(t);
	return 0;
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* Where a body came from and how to read it, as the sidecar records it. */
struct origin {
	const char *name, *url, *file, *map, *backend, *version, *etag, *last_modified;
	mt_compat_import_format format;
	const char *sha256; /* expected (files: checked here) */
};

/* Converts a body read from g->url or g->file and writes the table and its
 * sidecar. */
static int import_body(mt_compat_import_result *r, const struct origin *g, const char *body,
		       size_t len)
{
	mt_compat_import_convert_options o = {.name = g->name, .format = g->format,
				       .backend = g->backend, .version = g->version};
	mt_compat_import_map *map = NULL;
	mt_compat_import_info info = {0};
	char sha[65], iso[32], *yaml = NULL;
	mt_buf src = MT_BUF_INIT;
	json_t *side = NULL;
	int error;

	if ((error = mt_sha256_hex(sha, body ? body : "", len)) < 0)
		goto cleanup;
	if (g->file && g->sha256 && strcasecmp(sha, g->sha256) != 0) {
		error = mt_error_set(MT_EINVALID, "%s: sha256 mismatch: expected %s, got %s",
				     g->file, g->sha256, sha);
		goto cleanup;
	}
	if (g->map && (error = mt_compat_import_map_load(&map, g->map)) < 0)
		goto cleanup;
	if (g->url)
		mt_buf_puts(&src, g->url);
	else
		mt_buf_printf(&src, "file %s (sha256 %s)", g->file, sha);
	o.origin = g->url ? g->url : g->file;
	o.source = mt_buf_cstr(&src);
	o.map = map;
	if ((error = mt_compat_convert(&yaml, &info, body ? body : "", len, &o)) < 0)
		goto cleanup;
	r->format = info.format;
	r->skipped = info.skipped;
	r->name = mt_strdup(g->name);
	r->path = user_file(g->name, ".yaml", "compat-");
	r->source = mt_strdup(o.origin);
	r->replaced = mt_path_exists(r->path);
	r->shadows_bundled = bundled(g->name);
	mt_time_iso(iso, sizeof(iso), mt_now_ms());
	side = json_pack("{ss, so, so, so, so, ss, ss, ss, so, so, so}", "name", g->name, "url",
			 jstr(g->url), "file", jstr(g->file), "etag", jstr(g->etag),
			 "last_modified", jstr(g->last_modified), "sha256", sha, "imported_at",
			 iso, "format", mt_compat_import_format_str(r->format), "map", jstr(g->map),
			 "backend", jstr(g->backend), "version", jstr(g->version));
	if ((error = user_dir_create()) == 0 &&
	    (error = mt_file_write_atomic(r->path, yaml, strlen(yaml), 0)) == 0 &&
	    (error = origin_save(g->name, side)) == 0)
		error = result_counts(r);
cleanup:
	json_decref(side);
	mt_buf_dispose(&src);
	mt_compat_import_map_free(map);
	free(yaml);
	return error;
}

static int is_url(const char *s)
{
	const char *colon = strstr(s, "://");
	return colon && colon > s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "0123456789+.-") == (size_t)(colon - s);
}

static void set_timeouts(mt_fetch_request *req, long timeout_ms)
{
	req->total_timeout_ms = timeout_ms;
	req->connect_timeout_ms = timeout_ms > 0 && timeout_ms < 10000 ? timeout_ms : 0;
}

/* The import's name: --as, else a YAML table's own name, else one made
 * from the file name or URL. */
static int import_name(char **name, const char *src, const mt_compat_import_options *o,
		       const char *body, size_t len)
{
	int error = 0;

	*name = NULL;
	if (o->as)
		*name = mt_strdup(o->as);
	else if (o->format == MT_IMPORT_AUTO || o->format == MT_IMPORT_YAML)
		own_name(name, body ? body : "", len);
	if (!*name && (error = mt_compat_import_name_from(name, src)) < 0)
		return error;
	return valid_name(*name) ? 0 : name_error(*name);
}

int mt_compat_import(mt_compat_import_result *out, const char *src, const mt_compat_import_options *o)
{
	struct origin g = {.format = o->format, .backend = o->backend, .version = o->version,
			   .sha256 = o->sha256};
	mt_fetch_request req = {.url = src, .sha256 = o->sha256};
	mt_fetch_response resp = {0};
	char *name = NULL, *map = NULL, *file = NULL, *body = NULL;
	size_t len = 0;
	int error;

	memset(out, 0, sizeof(*out));
	if (o->as && !valid_name(o->as))
		return name_error(o->as);
	if (o->map_path && !(map = mt_path_abs(o->map_path))) {
		error = mt_error_set(MT_ENOTFOUND, "%s: no such mapping file", o->map_path);
		goto cleanup;
	}
	g.map = map;
	if (is_url(src)) {
		set_timeouts(&req, o->timeout_ms);
		if ((error = mt_fetch(&resp, &req)) < 0 ||
		    (error = import_name(&name, src, o, resp.body, resp.len)) < 0)
			goto cleanup;
		g.url = src;
		g.etag = resp.etag;
		g.last_modified = resp.last_modified;
		g.name = name;
		error = import_body(out, &g, resp.body, resp.len);
	} else {
		if (!(file = mt_path_abs(src))) {
			error = mt_error_set(MT_ENOTFOUND, "%s: no such file", src);
			goto cleanup;
		}
		if ((error = mt_file_read(&body, &len, file)) < 0 ||
		    (error = import_name(&name, src, o, body, len)) < 0)
			goto cleanup;
		g.file = file;
		g.name = name;
		error = import_body(out, &g, body, len);
	}
	if (error == 0)
		out->outcome = "imported";
cleanup:
	if (error < 0)
		mt_compat_import_result_dispose(out);
	mt_fetch_response_dispose(&resp);
	free(body);
	free(file);
	free(map);
	free(name);
	return error;
}

/* Fills a result for a table left as it is. */
static int unchanged(mt_compat_import_result *r, const char *name, const char *url, json_t *side)
{
	r->name = mt_strdup(name);
	r->path = user_file(name, ".yaml", "compat-");
	r->source = mt_strdup(url);
	r->outcome = "unchanged";
	r->format = (mt_compat_import_format)mt_compat_import_format_parse(
		json_string_value(json_object_get(side, "format")));
	r->shadows_bundled = bundled(name);
	return result_counts(r);
}

static const char *side_str(json_t *side, const char *key)
{
	return json_string_value(json_object_get(side, key));
}

/* The download and what follows it; the caller words the failure. A
 * conditional request is made only for the recorded URL, while its table is
 * there, and when a given digest is the recorded one. */
static int update_fetch(mt_compat_import_result *out, const char *name, json_t *side, const char *url,
			const char *sha256, long timeout_ms)
{
	const char *old_url = side_str(side, "url"), *old_sha = side_str(side, "sha256");
	char *table = user_file(name, ".yaml", "compat-"), sha[65];
	int cond = old_url && !strcmp(url, old_url) && old_sha && mt_path_exists(table) &&
		   (!sha256 || !strcasecmp(sha256, old_sha));
	mt_fetch_request req = {.url = url, .sha256 = sha256};
	mt_fetch_response resp = {0};
	struct origin g = {.name = name, .url = url, .map = side_str(side, "map"),
			   .backend = side_str(side, "backend"),
			   .version = side_str(side, "version")};
	int error, fmt = mt_compat_import_format_parse(side_str(side, "format"));

	free(table);
	if (cond) {
		req.etag = side_str(side, "etag");
		req.last_modified = side_str(side, "last_modified");
	}
	set_timeouts(&req, timeout_ms);
	if ((error = mt_fetch(&resp, &req)) < 0)
		return error;
	mt_sha256_hex(sha, resp.body ? resp.body : "", resp.len);
	if (resp.not_modified || (cond && !strcasecmp(sha, old_sha))) {
		if (!resp.not_modified) { /* the same bytes: keep the new validators */
			json_object_set_new(side, "etag", jstr(resp.etag));
			json_object_set_new(side, "last_modified", jstr(resp.last_modified));
			error = origin_save(name, side);
		}
		if (error == 0)
			error = unchanged(out, name, url, side);
	} else {
		g.format = fmt < 0 ? MT_IMPORT_AUTO : (mt_compat_import_format)fmt;
		g.etag = resp.etag;
		g.last_modified = resp.last_modified;
		if ((error = import_body(out, &g, resp.body, resp.len)) == 0)
			out->outcome = "updated";
	}
	mt_fetch_response_dispose(&resp);
	return error;
}

int mt_compat_update(mt_compat_import_result *out, const char *name, const char *url,
		     const char *sha256, long timeout_ms)
{
	json_t *side = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	if (!valid_name(name))
		return name_error(name);
	if ((error = origin_load(&side, name)) < 0)
		return error;
	if (!side && !url) {
		error = mt_error_set(MT_ENOTFOUND, "%s: not an imported table, so there is no URL "
				     "to update it from (give --url URL)", name);
	} else if (!side) {
		mt_compat_import_options o = {.as = name, .sha256 = sha256, .timeout_ms = timeout_ms};
		error = mt_compat_import(out, url, &o);
	} else if (!url && !side_str(side, "url")) {
		error = mt_error_set(MT_EINVALID, "%s was imported from the file %s, not a URL: "
				     "import it again, or give --url URL", name,
				     side_str(side, "file") ? side_str(side, "file") : "(unknown)");
	} else {
		error = update_fetch(out, name, side, url ? url : side_str(side, "url"), sha256,
				     timeout_ms);
		if (error < 0)
			mt_error_prefix(error, "%s: kept the current table: ", name);
	}
	if (error < 0)
		mt_compat_import_result_dispose(out);
	json_decref(side);
	return error;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int mt_compat_updatable(char ***out)
{
	char *dir = mt_compat_user_dir();
	DIR *d = opendir(dir);
	struct dirent *de;
	strv names = {0};

	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char name[256], *table;
		json_t *side = NULL;
		if (n <= 12 || n - 12 >= sizeof(name) || strcmp(de->d_name + n - 12, ".origin.json"))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 12), de->d_name);
		table = user_file(name, ".yaml", "compat-");
		if (valid_name(name) && mt_path_exists(table) && origin_load(&side, name) == 0 &&
		    side_str(side, "url"))
			/* a table removed by hand stays removed */
			mt_compat__strv_push(&names, name);
		free(table);
		json_decref(side);
		mt_error_clear();
	}
	if (d)
		closedir(d);
	free(dir);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	names.v = mt_compat__xrealloc(names.v, (names.n + 1) * sizeof(*names.v));
	names.v[names.n] = NULL;
	*out = names.v;
	return 0;
}

void mt_compat_import_result_dispose(mt_compat_import_result *r)
{
	free(r->name);
	free(r->path);
	free(r->source);
	free(r->skipped);
	free(r->unregistered);
	memset(r, 0, sizeof(*r));
}
