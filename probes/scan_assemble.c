/* Assembling a scan's result from the per-file results (scan_int.h). */
#include "scan_int.h"
#include "error.h"
#include "jsonw.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The small part of the result: everything but the call sites. It is
 * written as it is gathered, byte for byte as jansson's json_dumps wrote it
 * when it was built from jansson objects (their cost was most of assembling
 * a large repository's result): same member order, same escapes, and an
 * entry with a string jansson refuses (not UTF-8) is left out, as
 * json_pack() left it out. */
/* mt_buf_put without the call when the bytes fit: the sites of a large
 * repository are a few million small pieces. */
static inline void put(mt_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		mt_buf_put(b, s, n);
		return;
	}
	memcpy(b->ptr + b->len, s, n);
	b->len += n;
	b->ptr[b->len] = '\0';
}

#define PUT_LIT(b, lit) put((b), (lit), sizeof(lit) - 1)

static void put_uint(mt_buf *b, uint32_t v)
{
	char num[12], *p = num + sizeof(num);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(b, p, (size_t)(num + sizeof(num) - p));
}

struct sumarr {
	mt_buf buf;
	mt_jw w;
	size_t n;
};

struct opstat {
	const char *name;
	size_t count;         /* at torch.* calls: the `ops` of the result */
	size_t method_count;  /* at tensor-method sites (certain or not) */
	size_t method_uncertain; /* of them, where the receiver may not be a tensor */
	struct paths {
		const char **v; /* borrowed paths, each once in a row */
		size_t n, cap;
	} files, method_files; /* of the torch calls; of the method sites */
};

struct summary {
	struct sumarr skipped, findings, deps, files;
	struct opstat *ops; /* in the order first seen */
	size_t nops, opscap;
	size_t *slots; /* open addressing over ops: index + 1, 0 = free */
	size_t nslots;
	size_t python_files, lines, calls, mapped, methods, certain, nots, effort[4];
	mt_buf entry; /* scratch for one entry */
	char *extra;  /* raw members at the end (mt_scan__asm_extra) */
};

static const char *const efforts[] = {"high", "medium", "low", "none"};

static void sumarr_init(struct sumarr *a)
{
	mt_buf_init(&a->buf);
	mt_jw_init(&a->w, &a->buf);
	mt_jw_array(&a->w);
	a->n = 0;
}

static int utf8_ok(const char *s)
{
	return s && mt_gitread_utf8_valid(s, strlen(s));
}

/* A string value escaped as jansson escapes it (\b \f \r, \u00XX), or
 * null. */
static void qstr(mt_buf *b, const char *s)
{
	const char *run = s;
	char u[8];

	if (!s) {
		PUT_LIT(b, "null");
		return;
	}
	PUT_LIT(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const char *esc = u;
		if (*p >= 0x20 && *p != '"' && *p != '\\')
			continue;
		put(b, run, (size_t)((const char *)p - run));
		switch (*p) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default: snprintf(u, sizeof(u), "\\u%04X", *p);
		}
		put(b, esc, strlen(esc));
		run = (const char *)p + 1;
	}
	put(b, run, strlen(run));
	PUT_LIT(b, "\"");
}

static void put_str(mt_jw *w, const char *s)
{
	mt_jw_raw(w, "", 0); /* the separator */
	qstr(w->out, s);
}

static void put_member_int(mt_jw *w, const char *key, int64_t v)
{
	mt_jw_key(w, key);
	mt_jw_int(w, v);
}

/* One array entry, written whole into the scratch buffer e and then added
 * with its separator: {"k1":v1,...}. Keys are constant. */
static void entry_str(mt_buf *e, const char *key_colon, const char *s)
{
	put(e, key_colon, strlen(key_colon));
	qstr(e, s);
}

static void entry_uint(mt_buf *e, const char *key_colon, uint32_t v)
{
	put(e, key_colon, strlen(key_colon));
	put_uint(e, v);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Doubles the hash table (or makes the first one) and places every op. */
static void ops_rehash(struct summary *sm)
{
	size_t n = sm->nslots ? sm->nslots * 2 : 256;

	free(sm->slots);
	sm->slots = calloc(n, sizeof(*sm->slots));
	if (!sm->slots)
		abort();
	sm->nslots = n;
	for (size_t i = 0; i < sm->nops; i++) {
		size_t k = str_hash(sm->ops[i].name) & (n - 1);
		while (sm->slots[k])
			k = (k + 1) & (n - 1);
		sm->slots[k] = i + 1;
	}
}

static struct opstat *op_get(struct summary *sm, const char *op)
{
	size_t k;

	if (2 * (sm->nops + 1) > sm->nslots)
		ops_rehash(sm);
	for (k = str_hash(op) & (sm->nslots - 1); sm->slots[k]; k = (k + 1) & (sm->nslots - 1))
		if (strcmp(sm->ops[sm->slots[k] - 1].name, op) == 0)
			return &sm->ops[sm->slots[k] - 1];
	if (sm->nops == sm->opscap) {
		sm->opscap = sm->opscap ? sm->opscap * 2 : 64;
		sm->ops = realloc(sm->ops, sm->opscap * sizeof(*sm->ops));
		if (!sm->ops)
			abort();
	}
	/* a copy: the job's result the name came from (the cache's, in its
	 * arena) is freed once summarised */
	sm->ops[sm->nops] = (struct opstat){.name = mt_strdup(op)};
	sm->slots[k] = ++sm->nops;
	return &sm->ops[sm->nops - 1];
}

/* Adds path unless it is the last one added (files come one at a time). */
static void add_path(struct paths *p, const char *path)
{
	if (p->n && strcmp(p->v[p->n - 1], path) == 0)
		return;
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
		if (!p->v)
			abort();
	}
	p->v[p->n++] = path;
}

static void add_op(struct summary *sm, const char *op, const char *path, int path_ok)
{
	struct opstat *o = op_get(sm, op);

	o->count++;
	if (path_ok)
		add_path(&o->files, path);
}

static void add_method_op(struct summary *sm, const char *op, int certain, const char *path,
			  int path_ok)
{
	struct opstat *o = op_get(sm, op);

	o->method_count++;
	o->method_uncertain += !certain;
	if (path_ok)
		add_path(&o->method_files, path);
}

static void add_finding(struct summary *sm, const struct ffinding *f, const char *path)
{
	mt_jw *w = &sm->findings.w;

	for (int e = 0; e < 4; e++)
		sm->effort[e] += strcmp(f->effort, efforts[e]) == 0;
	if (!utf8_ok(f->rule) || !utf8_ok(f->kind) || !utf8_ok(f->effort) || !utf8_ok(path) ||
	    !utf8_ok(f->message))
		return;
	sm->entry.len = 0;
	entry_str(&sm->entry, "{\"rule\":", f->rule);
	entry_str(&sm->entry, ",\"kind\":", f->kind);
	entry_str(&sm->entry, ",\"effort\":", f->effort);
	entry_str(&sm->entry, ",\"file\":", path);
	entry_uint(&sm->entry, ",\"line\":", f->line);
	entry_uint(&sm->entry, ",\"col\":", f->col);
	entry_str(&sm->entry, ",\"message\":", f->message);
	/* its fields, a JSON object findings.c wrote: its members join these */
	if (f->details && strlen(f->details) > 2 && utf8_ok(f->details))
		mt_buf_printf(&sm->entry, ",%.*s", (int)strlen(f->details) - 2, f->details + 1);
	PUT_LIT(&sm->entry, "}");
	mt_jw_raw(w, sm->entry.ptr, sm->entry.len);
	sm->findings.n++;
}

static void skip(struct summary *sm, const char *path, const char *reason)
{
	mt_jw *w = &sm->skipped.w;

	if (!utf8_ok(path) || !utf8_ok(reason))
		return;
	sm->entry.len = 0;
	entry_str(&sm->entry, "{\"path\":", path);
	entry_str(&sm->entry, ",\"reason\":", reason);
	PUT_LIT(&sm->entry, "}");
	mt_jw_raw(w, sm->entry.ptr, sm->entry.len);
	sm->skipped.n++;
}

static void add_dep(struct summary *sm, const struct fdep *d, const char *path)
{
	mt_jw *w = &sm->deps.w;

	if (!utf8_ok(d->name) || (d->spec && !utf8_ok(d->spec)) || !utf8_ok(path) ||
	    (d->why && !utf8_ok(d->why)))
		return;
	sm->entry.len = 0;
	entry_str(&sm->entry, "{\"name\":", d->name);
	entry_str(&sm->entry, ",\"spec\":", d->spec);
	entry_str(&sm->entry, ",\"file\":", path);
	entry_uint(&sm->entry, ",\"line\":", d->line);
	put(&sm->entry, d->cuda_only ? ",\"cuda_only\":true" : ",\"cuda_only\":false",
	    d->cuda_only ? 17 : 18);
	entry_str(&sm->entry, ",\"why\":", d->why);
	PUT_LIT(&sm->entry, "}");
	mt_jw_raw(w, sm->entry.ptr, sm->entry.len);
	sm->deps.n++;
}

static void add_file(struct summary *sm, const struct fresult *r, const char *path)
{
	mt_jw *w = &sm->files.w;

	sm->entry.len = 0;
	entry_str(&sm->entry, "{\"path\":", path);
	entry_uint(&sm->entry, ",\"lines\":", r->lines);
	entry_uint(&sm->entry, ",\"calls\":", (uint32_t)r->ncalls);
	entry_uint(&sm->entry, ",\"methods\":", (uint32_t)r->nmethods);
	entry_uint(&sm->entry, ",\"findings\":", (uint32_t)r->nfindings);
	PUT_LIT(&sm->entry, "}");
	mt_jw_raw(w, sm->entry.ptr, sm->entry.len);
	sm->files.n++;
}

static void summarise_job(struct summary *sm, const struct job *job)
{
	const struct fresult *r = &job->r;
	const char *path = job->entry->path;
	int path_ok = utf8_ok(path);
	char reason[600];

	if (r->skip || r->error) {
		if (r->error)
			snprintf(reason, sizeof(reason), "%s: %s",
				 job->kind == FILE_PYTHON ? "cannot tokenize" : "cannot parse",
				 r->error);
		skip(sm, path, r->skip ? r->skip : reason);
		return;
	}
	for (size_t i = 0; i < r->ncalls; i++) {
		sm->mapped += r->calls[i].op != NULL;
		if (r->calls[i].op && utf8_ok(r->calls[i].op))
			add_op(sm, r->calls[i].op, path, path_ok);
	}
	for (size_t i = 0; i < r->nfindings; i++)
		add_finding(sm, &r->findings[i], path);
	for (size_t i = 0; i < r->ndeps; i++)
		add_dep(sm, &r->deps[i], path);
	if (job->kind != FILE_PYTHON)
		return;
	sm->python_files++;
	sm->lines += r->lines;
	sm->calls += r->ncalls;
	sm->methods += r->nmethods;
	sm->nots += r->nnots;
	for (size_t i = 0; i < r->nmethods; i++) {
		sm->certain += r->methods[i].certain;
		/* counted apart: `ops` stays the torch calls' ops, while the
		 * distinct count a reader compares with the probe's takes both */
		if (r->methods[i].op && utf8_ok(r->methods[i].op))
			add_method_op(sm, r->methods[i].op, r->methods[i].certain, path, path_ok);
	}
	if (path_ok)
		add_file(sm, r, path);
}

static void put_array(mt_jw *w, const char *key, struct sumarr *a)
{
	mt_jw_end_array(&a->w);
	mt_jw_key(w, key);
	mt_jw_raw(w, a->buf.ptr, a->buf.len);
}

static void put_files(mt_jw *w, const struct paths *p)
{
	mt_jw_key(w, "files");
	mt_jw_array(w);
	for (size_t k = 0; k < p->n; k++)
		put_str(w, p->v[k]);
	mt_jw_end_array(w);
}

/* `ops`: the torch calls' ops; `method_ops`: the ops of tensor-method
 * sites, with how many of them are uncertain, so that a reader can list
 * every op with the count the probe judges. */
static void put_ops(mt_jw *w, const struct summary *sm)
{
	mt_jw_key(w, "ops");
	mt_jw_object(w);
	for (size_t i = 0; i < sm->nops; i++) {
		if (!sm->ops[i].count)
			continue; /* seen at method sites only */
		mt_jw_key(w, sm->ops[i].name);
		mt_jw_object(w);
		put_member_int(w, "count", (int64_t)sm->ops[i].count);
		put_files(w, &sm->ops[i].files);
		mt_jw_end_object(w);
	}
	mt_jw_end_object(w);
	mt_jw_key(w, "method_ops");
	mt_jw_object(w);
	for (size_t i = 0; i < sm->nops; i++) {
		if (!sm->ops[i].method_count)
			continue;
		mt_jw_key(w, sm->ops[i].name);
		mt_jw_object(w);
		put_member_int(w, "count", (int64_t)sm->ops[i].method_count);
		put_member_int(w, "uncertain", (int64_t)sm->ops[i].method_uncertain);
		put_files(w, &sm->ops[i].method_files);
		mt_jw_end_object(w);
	}
	mt_jw_end_object(w);
}

/* Distinct ops at torch.* calls (the table also holds those seen only at
 * tensor-method sites). */
static size_t calls_ops(const struct summary *sm)
{
	size_t n = 0;
	for (size_t i = 0; i < sm->nops; i++)
		n += sm->ops[i].count > 0;
	return n;
}

static void put_totals(mt_jw *w, const struct summary *sm)
{
	mt_jw_key(w, "totals");
	mt_jw_object(w);
	put_member_int(w, "python_files", (int64_t)sm->python_files);
	put_member_int(w, "lines", (int64_t)sm->lines);
	put_member_int(w, "calls", (int64_t)sm->calls);
	put_member_int(w, "calls_mapped", (int64_t)sm->mapped);
	put_member_int(w, "methods", (int64_t)sm->methods);
	put_member_int(w, "methods_certain", (int64_t)sm->certain);
	put_member_int(w, "methods_uncertain", (int64_t)(sm->methods - sm->certain));
	put_member_int(w, "not_tensor", (int64_t)sm->nots);
	put_member_int(w, "ops", (int64_t)calls_ops(sm));
	put_member_int(w, "ops_with_methods", (int64_t)sm->nops);
	put_member_int(w, "findings", (int64_t)sm->findings.n);
	mt_jw_key(w, "findings_by_effort");
	mt_jw_object(w);
	for (int e = 0; e < 4; e++)
		put_member_int(w, efforts[e], (int64_t)sm->effort[e]);
	mt_jw_end_object(w);
	mt_jw_end_object(w);
}

/* The summary object's text; frees what sm gathered. */
static char *summary_text(struct summary *sm)
{
	mt_buf b = MT_BUF_INIT;
	mt_jw w;

	mt_jw_init(&w, &b);
	mt_jw_object(&w);
	put_member_int(&w, "files_scanned", (int64_t)sm->python_files);
	put_array(&w, "files_skipped", &sm->skipped);
	put_ops(&w, sm);
	put_array(&w, "findings", &sm->findings);
	put_array(&w, "dependencies", &sm->deps);
	put_array(&w, "files", &sm->files);
	put_totals(&w, sm);
	if (sm->extra) {
		mt_buf_puts(&b, ",");
		mt_buf_puts(&b, sm->extra);
	}
	mt_jw_end_object(&w);
	return mt_buf_detach(&b);
}

static void summary_dispose(struct summary *sm)
{
	mt_buf_dispose(&sm->skipped.buf);
	mt_buf_dispose(&sm->findings.buf);
	mt_buf_dispose(&sm->deps.buf);
	mt_buf_dispose(&sm->files.buf);
	mt_buf_dispose(&sm->entry);
	free(sm->extra);
	for (size_t i = 0; i < sm->nops; i++) {
		free((char *)sm->ops[i].name);
		free(sm->ops[i].files.v);
		free(sm->ops[i].method_files.v);
	}
	free(sm->ops);
	free(sm->slots);
}

/* As mt_json_quote (or null), copying in one piece what needs no escape. */
static void quote_or_null(mt_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		PUT_LIT(b, "null");
		return;
	}
	while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
		p++;
	if (*p) { /* escapes, or UTF-8 to check */
		mt_json_quote(b, s);
		return;
	}
	PUT_LIT(b, "\"");
	put(b, s, (size_t)((const char *)p - s));
	PUT_LIT(b, "\"");
}

/* The members a call site and a method site share: op, file, line. */
static void put_site_rest(mt_buf *b, const char *op, const mt_buf *qpath, uint32_t line)
{
	PUT_LIT(b, ",\"op\":");
	quote_or_null(b, op);
	PUT_LIT(b, ",\"file\":");
	put(b, qpath->ptr, qpath->len);
	PUT_LIT(b, ",\"line\":");
	put_uint(b, line);
}

/* Each entry as mt_jw writes it: {"api":..,"op":..,"file":..,"line":..,
 * "col":..,"certain":true}, the path quoted once for all of them. A call
 * resolved through an import is certain; a method call is when its
 * receiver is known to be a tensor. */
void mt_scan__render_sites(mt_buf sites[3], const struct job *job)
{
	const struct fresult *r = &job->r;
	mt_buf path = MT_BUF_INIT;

	if (!r->ncalls && !r->nmethods && !r->nnots)
		return;
	mt_json_quote(&path, job->entry->path);
	for (size_t k = 0; k < r->ncalls; k++) {
		const struct fcall *c = &r->calls[k];
		if (sites[0].len)
			PUT_LIT(&sites[0], ",");
		PUT_LIT(&sites[0], "{\"api\":");
		quote_or_null(&sites[0], c->api);
		put_site_rest(&sites[0], c->op, &path, c->line);
		PUT_LIT(&sites[0], ",\"col\":");
		put_uint(&sites[0], c->col);
		PUT_LIT(&sites[0], ",\"certain\":true}");
	}
	for (size_t k = 0; k < r->nmethods; k++) {
		const struct fmethod *m = &r->methods[k];
		if (sites[1].len)
			PUT_LIT(&sites[1], ",");
		PUT_LIT(&sites[1], "{\"name\":");
		quote_or_null(&sites[1], m->name);
		put_site_rest(&sites[1], m->op, &path, m->line);
		if (m->certain)
			PUT_LIT(&sites[1], ",\"certain\":true}");
		else
			PUT_LIT(&sites[1], ",\"certain\":false}");
	}
	for (size_t k = 0; k < r->nnots; k++) {
		const struct fmethod *m = &r->nots[k];
		if (sites[2].len)
			PUT_LIT(&sites[2], ",");
		PUT_LIT(&sites[2], "{\"name\":");
		quote_or_null(&sites[2], m->name);
		put_site_rest(&sites[2], m->op, &path, m->line);
		PUT_LIT(&sites[2], ",\"receiver\":");
		quote_or_null(&sites[2], m->why);
		PUT_LIT(&sites[2], "}");
	}
	mt_buf_dispose(&path);
}

static void piece(mt_scan_result *out, const char *p, size_t n)
{
	out->parts->pieces[out->parts->npieces++] = (struct mt_scan_piece){p, n};
}

/* "calls":[...],"methods":[...],"not_tensor":[...] from the rendered sites
 * (rendering here what the workers did not: results read from the cache),
 * as pieces of the result's body: the sites' buffers move to the result
 * instead of being copied into one string (8 MB of calls for a large
 * repository). */
static int write_sites(mt_scan_result *out, struct job *jobs, size_t njobs)
{
	static const char *const open[] = {"\"calls\":[", ",\"methods\":[", ",\"not_tensor\":["};

	/* per array: its opening and closing, then per job a comma and its
	 * sites; the summary's comma and members; buffers: three per job */
	struct mt_scan_parts *parts = calloc(1, sizeof(*parts));

	if (!parts)
		return mt_error_set(MT_EIO, "out of memory");
	out->parts = parts;
	parts->pieces = malloc((6 * njobs + 10) * sizeof(*parts->pieces));
	parts->keep = malloc((3 * njobs + 1) * sizeof(*parts->keep));
	if (!parts->pieces || !parts->keep)
		return mt_error_set(MT_EIO, "out of memory");
	for (int which = 0; which < 3; which++) {
		int first = 1;
		piece(out, open[which], strlen(open[which]));
		for (size_t i = 0; i < njobs; i++) {
			mt_buf own[3] = {MT_BUF_INIT, MT_BUF_INIT, MT_BUF_INIT};
			mt_buf *b = &jobs[i].sites[which];
			if (!jobs[i].rendered) {
				mt_scan__render_sites(own, &jobs[i]);
				b = &own[which];
			}
			if (b->len) {
				if (!first)
					piece(out, ",", 1);
				piece(out, b->ptr, b->len);
				parts->keep[parts->nkeep++] = mt_buf_detach(b);
				first = 0;
			}
			for (int k = 0; k < 3; k++)
				mt_buf_dispose(&own[k]);
		}
		piece(out, "]", 1);
	}
	return 0;
}

struct mt_scan_asm {
	struct summary sm;
};

mt_scan_asm *mt_scan__asm_begin(const mt_gitlisting *l, const mt_rules *rules)
{
	mt_scan_asm *a = calloc(1, sizeof(*a));
	mt_findings paths = {0};

	if (!a)
		return NULL;
	sumarr_init(&a->sm.skipped);
	sumarr_init(&a->sm.findings);
	sumarr_init(&a->sm.deps);
	sumarr_init(&a->sm.files);
	for (size_t i = 0; i < l->nskipped; i++)
		skip(&a->sm, l->skipped[i].path, l->skipped[i].reason);
	for (size_t i = 0; i < l->nentries; i++)
		mt_rules_eval_path(rules, l->entries[i].path, &paths);
	for (size_t i = 0; i < paths.n; i++) {
		const mt_finding *f = &paths.items[i];
		struct ffinding one = {f->rule, f->kind, f->effort, f->message, f->line, f->col,
				       f->details};
		add_finding(&a->sm, &one, f->file);
	}
	mt_findings_dispose(&paths);
	return a;
}

void mt_scan__asm_extra(mt_scan_asm *a, const char *members)
{
	free(a->sm.extra);
	a->sm.extra = mt_strdup(members);
}

void mt_scan__asm_job(mt_scan_asm *a, const struct job *job)
{
	summarise_job(&a->sm, job);
}

void mt_scan__asm_free(mt_scan_asm *a)
{
	if (!a)
		return;
	summary_dispose(&a->sm);
	free(a);
}

int mt_scan__asm_end(mt_scan_asm *a, mt_scan_result *out, struct job *jobs, size_t njobs)
{
	char *text;
	int error;

	out->files_scanned = a->sm.python_files;
	out->calls = a->sm.calls;
	out->findings = a->sm.findings.n;
	text = summary_text(&a->sm);

	mt_scan__asm_free(a);
	if (!text)
		return mt_error_set(MT_EIO, "out of memory");
	out->summary = text; /* the result's now: freed with it */
	if ((error = write_sites(out, jobs, njobs)) < 0)
		return error;
	piece(out, ",", 1);
	piece(out, text + 1, strlen(text) - 2); /* the members, without braces */
	return 0;
}
