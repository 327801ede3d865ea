#include "scan.h"
#include "deps.h"
#include "embedded.h"
#include "arena.h"
#include "error.h"
#include "extract.h"
#include "jsonw.h"
#include "jsonutil.h"
#include "rules.h"
#include "gitread.h"
#include "opmap.h"
#include "scancache.h"
#include "scan_int.h"
#include "strtab.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Bump when the per-file result format, the extraction or the summary
 * (cached whole per tree) changes. 4: the summary's method_ops, and
 * split() with no argument or sep= is a str's. 5: a finding's details.
 * 6: a tree's figures cached beside its body (and every table read from
 * $MTRIAL_TABLES_DIR in the version). 7: a tree's body kept as a file
 * beside the cache, mapped when read. 8: a string literal's role (a name
 * among names, a dict key, a subscript, a Literal type) and pathlib
 * receivers. 9: a requirement's PEP 508 marker judged for the target. */
#define SCAN_FORMAT 9

struct shared {
	const mt_scan_options *opts;
	char **paths, **missing; /* the limit, normalised; those with nothing */
	size_t npaths, nmissing;
	const mt_opmap *opmap;
	const mt_rules *rules;
	mt_gitrepo *repo; /* the caller's handle; workers dup it */
	struct job *jobs;
	size_t njobs;
	size_t next;      /* next job to take */
	size_t done, todo;
	const char *last_path;
	mt_scan_asm *asm_; /* the summary, built as jobs settle */
	size_t summed;     /* jobs [0, summed) are in it */
	int error;
	char error_msg[512];
	pthread_mutex_t lock;
	pthread_cond_t progress;
};

static enum file_kind kind_of(const char *path)
{
	size_t n = strlen(path);
	if (n > 3 && strcmp(path + n - 3, ".py") == 0)
		return FILE_PYTHON;
	if (mt_deps_is_manifest(path))
		return FILE_MANIFEST;
	return FILE_OTHER;
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (const char *p = s; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

const char *mt_scan_cache_version(void)
{
	static char version[64];
	const char *dir = getenv("MTRIAL_TABLES_DIR");
	uint64_t h = 1469598103934665603ULL; /* FNV-1a over the tables */

	if (version[0])
		return version;
	/* the tables the scan reads: from $MTRIAL_TABLES_DIR when it is set
	 * (every one, not only findings.yaml: an api map changed there changes
	 * the results), else the bundled ones */
	for (const struct mt_embedded *t = mt_embedded_tables; t->name; t++) {
		char *path = dir && *dir ? mt_path_join(dir, t->name) : NULL, *text = NULL;
		if (path && mt_file_read(&text, NULL, path) < 0)
			mt_error_clear(); /* unreadable: the load says so */
		h = fnv(h, t->name);
		h = fnv(h, path ? (text ? text : "") : t->text);
		free(path);
		free(text);
	}
	h = mt_rules_digest(h); /* a team's rules, or tables read from a directory */
	snprintf(version, sizeof(version), "%s/%d/%016llx", MT_VERSION, SCAN_FORMAT,
		 (unsigned long long)h);
	return version;
}

static void result_dispose(struct fresult *r)
{
	free(r->calls);
	free(r->methods);
	free(r->nots);
	free(r->findings);
	free(r->deps);
	mt_arena_free(r->arena);
	memset(r, 0, sizeof(*r));
}

/* --- one file, on a worker thread ----------------------------------------- */

/* Newlines, plus one for a last line without one. 16 bytes a step, the
 * matches summed per byte lane and added up every 255 steps: with a line
 * every 40 bytes or so, a memchr() call per line cost twice as much (and
 * popcount is a libgcc call without -mpopcnt). */
static size_t count_lines(const char *data, size_t size)
{
	size_t lines = size && data[size - 1] != '\n', i = 0;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	while (i + 16 <= size) {
		size_t lim = size - i > 16 * 255 ? i + 16 * 255 : size;
		__m128i acc = zero, sum;
		for (; i + 16 <= lim; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(data + i));
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
		}
		sum = _mm_sad_epu8(acc, zero);
		lines += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_extract_epi16(sum, 4);
	}
#endif
	for (; i < size; i++)
		lines += data[i] == '\n';
	return lines;
}

/* Appends the findings (a file may get some as source and some as a
 * manifest). */
static void take_findings(struct fresult *r, const mt_findings *acc)
{
	struct ffinding *grown;

	if (!acc->n)
		return;
	grown = realloc(r->findings, (r->nfindings + acc->n) * sizeof(*r->findings));
	if (!grown)
		abort();
	r->findings = grown;
	for (size_t i = 0; i < acc->n; i++) {
		const mt_finding *f = &acc->items[i];
		struct ffinding *o = &r->findings[r->nfindings + i];
		o->rule = mt_arena_strdup(&r->arena, f->rule);
		o->kind = mt_arena_strdup(&r->arena, f->kind);
		o->effort = mt_arena_strdup(&r->arena, f->effort);
		o->message = mt_arena_strdup(&r->arena, f->message);
		o->line = f->line;
		o->col = f->col;
		o->details = f->details ? mt_arena_strdup(&r->arena, f->details) : NULL;
	}
	r->nfindings += acc->n;
}

/* `self.norm(x)` calls a submodule far more often than Tensor.norm: a
 * method called directly on `self` is not counted as a tensor method. */
static int module_attribute(const mt_call *c)
{
	return strncmp(c->callee, "self.", 5) == 0 && !strchr(c->callee + 5, '.');
}

/* A method call whose receiver is not a tensor: on an object of a class,
 * unless torch.nn.Module has the method too and dispatches the op on its
 * parameters (`model.to(dev)`, `net.double()`: those stay, uncertain). */
static int not_tensor(const mt_opmap *opmap, const mt_call *c)
{
	const mt_opmap_entry *e;

	if (c->recv == MT_RECV_NOT_TENSOR)
		return 1;
	if (c->recv != MT_RECV_OBJECT)
		return 0;
	e = mt_opmap_method_entry(opmap, c->method);
	return !(e && e->also && strncmp(e->also, "torch.nn.Module.", 16) == 0 && e->op);
}

static int is_torch_api(const char *api)
{
	return api && (strcmp(api, "torch") == 0 || strncmp(api, "torch.", 6) == 0);
}

/* The op of an api (methods = 0) or a method (1), looked up in the opmap
 * once per name and worker: a repository calls the same few hundred apis
 * and methods tens of thousands of times, and each opmap lookup is a few
 * binary searches. */
static const char *memo_op(mt_strtab *memo, const mt_opmap *opmap, int methods, const char *name,
			   size_t len, enum mt_op_kind *kind)
{
	mt_strtab_slot *e = mt_strtab_find(memo, (uint64_t)methods, name, len);

	if (!e->key) {
		e->ptr = methods ? mt_opmap_method(opmap, name, kind) : mt_opmap_api(opmap, name, kind);
		e->value = (uint64_t)*kind;
		mt_strtab_claim(memo, e, (uint64_t)methods, name, len);
	}
	*kind = (enum mt_op_kind)e->value;
	return e->ptr;
}

/* What a worker keeps from one file to the next. */
struct wstate {
	mt_gitrepo *repo;
	mt_strtab ops;        /* memo_op */
	mt_findings_memo *rules; /* which rules each name matches */
	mt_lexbuf lex;        /* token arrays, reused from file to file */
};

static void python_result(const struct shared *s, struct wstate *ws, struct fresult *r,
			  const char *path, const char *data, size_t size)
{
	mt_pyfile py;
	mt_findings acc = {0};

	r->lines = (uint32_t)count_lines(data, size);
	if (mt_extract_buf(&py, data, size, &ws->lex) < 0) {
		r->error = mt_arena_strdup(&r->arena, mt_error_last());
		return;
	}
	/* every member of an entry is set below: no need to zero them */
	r->calls = malloc((py.ncalls + 1) * sizeof(*r->calls));
	r->methods = malloc((py.ncalls + 1) * sizeof(*r->methods));
	r->nots = malloc((py.ncalls + 1) * sizeof(*r->nots));
	if (!r->calls || !r->methods || !r->nots)
		abort();
	for (size_t i = 0; i < py.ncalls; i++) {
		const mt_call *c = &py.calls[i];
		if (is_torch_api(c->api)) {
			struct fcall *o = &r->calls[r->ncalls++];
			enum mt_op_kind kind;
			o->api = mt_arena_strdup(&r->arena, c->api);
			o->op = memo_op(&ws->ops, s->opmap, 0, c->api, c->api_len, &kind);
			o->line = c->line;
			o->col = c->col;
		} else if (c->method && !module_attribute(c)) {
			enum mt_op_kind kind;
			const char *op = memo_op(&ws->ops, s->opmap, 1, c->method,
						 c->method_len, &kind);
			struct fmethod *o;
			if (kind == MT_OP_UNKNOWN) /* not a tensor method */
				continue;
			/* a tensor method's name on what is not a tensor (`line.split()`)
			 * is kept apart, with what the receiver is */
			o = not_tensor(s->opmap, c) ? &r->nots[r->nnots++]
						    : &r->methods[r->nmethods++];
			o->name = mt_arena_strdup(&r->arena, c->method);
			o->op = op;
			o->line = c->line;
			o->certain = c->recv == MT_RECV_TENSOR;
			o->why = c->recv_why;
		}
	}
	mt_rules_eval_python_memo(s->rules, path, &py, ws->rules, &acc);
	take_findings(r, &acc);
	mt_findings_dispose(&acc);
	mt_pyfile_dispose(&py);
}

static void manifest_result(const struct shared *s, struct fresult *r, const char *path,
			    const char *data, size_t size)
{
	mt_dependency *deps = NULL;
	mt_findings acc = {0};
	size_t n = 0;

	if (mt_deps_parse(&deps, &n, path, data, size) < 0) {
		r->error = mt_arena_strdup(&r->arena, mt_error_last());
		return;
	}
	r->deps = calloc(n + 1, sizeof(*r->deps));
	for (size_t i = 0; i < n; i++) {
		struct fdep *o = &r->deps[r->ndeps++];
		o->name = mt_arena_strdup(&r->arena, deps[i].name);
		o->spec = mt_arena_strdup(&r->arena, deps[i].spec);
		o->why = mt_arena_strdup(&r->arena, deps[i].why);
		o->line = deps[i].line;
		o->cuda_only = deps[i].cuda_only;
	}
	mt_rules_eval_deps(s->rules, deps, n, &acc);
	take_findings(r, &acc);
	mt_findings_dispose(&acc);
	mt_deps_free(deps, n);
}

/* The per-file cache value: compact JSON arrays, independent of the path
 * (the same blob has the same result wherever it sits). */
static char *encode_result(const struct fresult *r)
{
	mt_buf b = MT_BUF_INIT;
	mt_jw w;

	mt_jw_init(&w, &b);
	mt_jw_object(&w);
	mt_jw_key(&w, "l");
	mt_jw_int(&w, r->lines);
	if (r->skip) {
		mt_jw_key(&w, "s");
		mt_jw_str(&w, r->skip);
	}
	if (r->error) {
		mt_jw_key(&w, "e");
		mt_jw_str(&w, r->error);
	}
	mt_jw_key(&w, "c");
	mt_jw_array(&w);
	for (size_t i = 0; i < r->ncalls; i++) {
		mt_jw_array(&w);
		mt_jw_str(&w, r->calls[i].api);
		mt_jw_str(&w, r->calls[i].op);
		mt_jw_int(&w, r->calls[i].line);
		mt_jw_int(&w, r->calls[i].col);
		mt_jw_end_array(&w);
	}
	mt_jw_end_array(&w);
	mt_jw_key(&w, "m");
	mt_jw_array(&w);
	for (size_t i = 0; i < r->nmethods; i++) {
		mt_jw_array(&w);
		mt_jw_str(&w, r->methods[i].name);
		mt_jw_str(&w, r->methods[i].op);
		mt_jw_int(&w, r->methods[i].line);
		mt_jw_bool(&w, r->methods[i].certain);
		mt_jw_end_array(&w);
	}
	mt_jw_end_array(&w);
	mt_jw_key(&w, "x");
	mt_jw_array(&w);
	for (size_t i = 0; i < r->nnots; i++) {
		mt_jw_array(&w);
		mt_jw_str(&w, r->nots[i].name);
		mt_jw_str(&w, r->nots[i].op);
		mt_jw_int(&w, r->nots[i].line);
		mt_jw_str(&w, r->nots[i].why);
		mt_jw_end_array(&w);
	}
	mt_jw_end_array(&w);
	mt_jw_key(&w, "f");
	mt_jw_array(&w);
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct ffinding *f = &r->findings[i];
		mt_jw_array(&w);
		mt_jw_str(&w, f->rule);
		mt_jw_str(&w, f->kind);
		mt_jw_str(&w, f->effort);
		mt_jw_int(&w, f->line);
		mt_jw_int(&w, f->col);
		mt_jw_str(&w, f->message);
		if (f->details)
			mt_jw_str(&w, f->details);
		mt_jw_end_array(&w);
	}
	mt_jw_end_array(&w);
	mt_jw_key(&w, "d");
	mt_jw_array(&w);
	for (size_t i = 0; i < r->ndeps; i++) {
		const struct fdep *d = &r->deps[i];
		mt_jw_array(&w);
		mt_jw_str(&w, d->name);
		mt_jw_str(&w, d->spec);
		mt_jw_int(&w, d->line);
		mt_jw_bool(&w, d->cuda_only);
		mt_jw_str(&w, d->why);
		mt_jw_end_array(&w);
	}
	mt_jw_end_array(&w);
	mt_jw_end_object(&w);
	return mt_buf_detach(&b);
}

static const char *jstr(mt_arena **a, json_t *arr, size_t i)
{
	return mt_arena_strdup(a, json_string_value(json_array_get(arr, i)));
}

static uint32_t jint(json_t *arr, size_t i)
{
	return (uint32_t)json_integer_value(json_array_get(arr, i));
}

/* The inverse of encode_result, for a value read from the cache. */
static int decode_result(struct fresult *r, const char *text)
{
	json_t *v = json_loads(text, 0, NULL), *c, *x;
	size_t i;

	if (!v)
		return -1;
	r->lines = (uint32_t)json_integer_value(json_object_get(v, "l"));
	if ((x = json_object_get(v, "s")))
		r->skip = mt_arena_strdup(&r->arena, json_string_value(x));
	if ((x = json_object_get(v, "e")))
		r->error = mt_arena_strdup(&r->arena, json_string_value(x));
	c = json_object_get(v, "c");
	r->calls = calloc(json_array_size(c) + 1, sizeof(*r->calls));
	json_array_foreach(c, i, x)
		r->calls[r->ncalls++] = (struct fcall){jstr(&r->arena, x, 0), jstr(&r->arena, x, 1),
						       jint(x, 2), jint(x, 3)};
	c = json_object_get(v, "m");
	r->methods = calloc(json_array_size(c) + 1, sizeof(*r->methods));
	json_array_foreach(c, i, x)
		r->methods[r->nmethods++] = (struct fmethod){
			jstr(&r->arena, x, 0), jstr(&r->arena, x, 1), jint(x, 2),
			json_is_true(json_array_get(x, 3)), NULL};
	c = json_object_get(v, "x");
	r->nots = calloc(json_array_size(c) + 1, sizeof(*r->nots));
	json_array_foreach(c, i, x)
		r->nots[r->nnots++] = (struct fmethod){jstr(&r->arena, x, 0), jstr(&r->arena, x, 1),
						       jint(x, 2), 0, jstr(&r->arena, x, 3)};
	c = json_object_get(v, "f");
	r->findings = calloc(json_array_size(c) + 1, sizeof(*r->findings));
	json_array_foreach(c, i, x)
		r->findings[r->nfindings++] = (struct ffinding){
			jstr(&r->arena, x, 0), jstr(&r->arena, x, 1), jstr(&r->arena, x, 2),
			jstr(&r->arena, x, 5), jint(x, 3), jint(x, 4),
			json_is_string(json_array_get(x, 6)) ? jstr(&r->arena, x, 6) : NULL};
	c = json_object_get(v, "d");
	r->deps = calloc(json_array_size(c) + 1, sizeof(*r->deps));
	json_array_foreach(c, i, x)
		r->deps[r->ndeps++] = (struct fdep){jstr(&r->arena, x, 0), jstr(&r->arena, x, 1),
						    jstr(&r->arena, x, 4), jint(x, 2),
						    json_is_true(json_array_get(x, 3))};
	json_decref(v);
	return 0;
}

/* Reads and analyses one file. Returns 0 or a negative code (a real
 * failure, not a file that must be skipped). Python source is read in
 * place, without a copy (the lexer needs no NUL at the end); a manifest's
 * parsers get a NUL-terminated copy. */
static int process(const struct shared *s, struct wstate *ws, struct job *job)
{
	uint64_t max = s->opts->max_file_bytes ? s->opts->max_file_bytes : MT_SCAN_MAX_FILE_BYTES;
	char *copy = NULL, reason[256];
	mt_gitview view = {0};
	const char *data;
	size_t size = 0;
	int error;

	if (job->manifest) {
		error = mt_gitrepo_read(&copy, &size, reason, sizeof(reason), ws->repo, job->entry,
					max);
		data = copy;
	} else {
		error = mt_gitrepo_read_view(&view, reason, sizeof(reason), ws->repo, job->entry,
					     max);
		data = view.data;
		size = view.size;
	}
	if (error < 0) {
		mt_gitview_dispose(&view);
		return error;
	}
	if (!data)
		job->r.skip = mt_arena_strdup(&job->r.arena, reason);
	if (data && job->kind == FILE_PYTHON)
		python_result(s, ws, &job->r, job->entry->path, data, size);
	if (data && job->manifest && !job->r.error)
		manifest_result(s, &job->r, job->entry->path, data, size);
	free(copy);
	mt_gitview_dispose(&view);
	if (s->opts->use_cache) /* the encoded value is only for the cache */
		job->cached = encode_result(&job->r);
	mt_scan__render_sites(job->sites, job);
	job->rendered = 1;
	job->done = 1;
	return 0;
}

static void *worker(void *arg)
{
	struct shared *s = arg;
	struct wstate ws = {.rules = mt_findings_memo_new(s->rules)};
	int error = mt_gitrepo_dup(&ws.repo, s->repo);

	for (;;) {
		struct job *job = NULL;
		pthread_mutex_lock(&s->lock);
		if (error < 0 && !s->error) {
			s->error = error;
			snprintf(s->error_msg, sizeof(s->error_msg), "%s", mt_error_last());
		}
		while (!s->error && s->next < s->njobs && s->jobs[s->next].done)
			s->next++;
		if (!s->error && s->next < s->njobs)
			job = &s->jobs[s->next++];
		pthread_mutex_unlock(&s->lock);
		if (!job)
			break;
		error = process(s, &ws, job);
		pthread_mutex_lock(&s->lock);
		job->settled = 1;
		s->done++;
		s->last_path = job->entry->path;
		/* the waiting thread polls for progress; wake it only at the end,
		 * a wake-up per file costs more than small files take */
		if (s->done == s->todo || error < 0)
			pthread_cond_signal(&s->progress);
		pthread_mutex_unlock(&s->lock);
	}
	mt_gitrepo_free(ws.repo);
	mt_strtab_dispose(&ws.ops);
	mt_findings_memo_free(ws.rules);
	mt_lexbuf_dispose(&ws.lex);
	pthread_mutex_lock(&s->lock);
	pthread_cond_signal(&s->progress);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Adds the settled jobs [summed, upto) to the summary, in job order, and
 * frees each one's result: all that is kept of it is its rendered sites
 * (and its cache value), so what a scan holds grows with the sites it
 * reports, not with the files it reads. */
static void summarise(struct shared *s, size_t upto)
{
	for (size_t i = s->summed; i < upto; i++) {
		mt_scan__asm_job(s->asm_, &s->jobs[i]);
		if (s->jobs[i].rendered)
			result_dispose(&s->jobs[i].r);
	}
	s->summed = upto;
}

/* Runs the workers over the jobs without a result, reporting progress from
 * this thread. */
static int run_workers(struct shared *s, int nthreads)
{
	pthread_t th[16];
	size_t todo = 0, reported = (size_t)-1;
	int started = 0;

	for (size_t i = 0; i < s->njobs; i++)
		todo += !s->jobs[i].done;
	if (todo == 0)
		return 0;
	if (nthreads <= 0 && getenv("MTRIAL_SCAN_THREADS")) /* for benchmarks */
		nthreads = atoi(getenv("MTRIAL_SCAN_THREADS"));
	if (nthreads <= 0)
		nthreads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > 16)
		nthreads = 16;
	if ((size_t)nthreads > todo)
		nthreads = (int)todo;
	s->todo = todo;
	for (; started < nthreads; started++)
		if (pthread_create(&th[started], NULL, worker, s) != 0)
			break;
	if (started == 0)
		return mt_error_set(MT_EIO, "cannot start a scan thread");
	pthread_mutex_lock(&s->lock);
	while (s->done < todo && !s->error) {
		struct timespec until;
		size_t upto = s->summed;
		if (s->opts->progress && s->done != reported) {
			reported = s->done;
			s->opts->progress(s->done, todo, s->last_path ? s->last_path : "",
					  s->opts->payload);
		}
		/* the summary of the jobs settled so far, in job order, while the
		 * workers go on: less to do once they are finished */
		while (upto < s->njobs && s->jobs[upto].settled)
			upto++;
		if (upto > s->summed) {
			pthread_mutex_unlock(&s->lock);
			summarise(s, upto);
			pthread_mutex_lock(&s->lock);
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 10 * 1000000L; /* summary and progress at 100 Hz */
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->progress, &s->lock, &until);
	}
	pthread_mutex_unlock(&s->lock);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (s->error)
		return mt_error_set(s->error, "%s", s->error_msg);
	if (s->opts->progress)
		s->opts->progress(todo, todo, "", s->opts->payload);
	return 0;
}

/* The blob cache key: the id, plus the base name for a manifest (the parser
 * depends on it), plus a size limit other than the default (a file over it
 * is skipped, its reason naming the limit; the default's key is the one it
 * always had). */
static void blob_key(char *key, size_t size, const struct job *job, uint64_t max)
{
	const char *base = strrchr(job->entry->path, '/');
	int n;

	base = base ? base + 1 : job->entry->path;
	if (job->manifest)
		n = snprintf(key, size, "%s:%s", job->entry->oid, base);
	else
		n = snprintf(key, size, "%s", job->entry->oid);
	if (max && max != MT_SCAN_MAX_FILE_BYTES && n > 0 && (size_t)n < size)
		snprintf(key + n, size - (size_t)n, ":max=%llu", (unsigned long long)max);
}

static void cache_lookup_jobs(mt_scancache *cache, struct shared *s)
{
	char key[512];
	for (size_t i = 0; cache && i < s->njobs; i++) {
		blob_key(key, sizeof(key), &s->jobs[i], s->opts->max_file_bytes);
		if (mt_scancache_get(cache, "blob", key, &s->jobs[i].cached, NULL) < 0 ||
		    !s->jobs[i].cached)
			continue;
		if (decode_result(&s->jobs[i].r, s->jobs[i].cached) == 0) {
			s->jobs[i].from_cache = s->jobs[i].done = 1;
			mt_scan__render_sites(s->jobs[i].sites, &s->jobs[i]);
			s->jobs[i].rendered = 1;
			free(s->jobs[i].cached); /* never written back */
			s->jobs[i].cached = NULL;
		} else { /* a damaged entry: scan the file again */
			free(s->jobs[i].cached);
			s->jobs[i].cached = NULL;
			result_dispose(&s->jobs[i].r);
		}
	}
}

static void cache_store_jobs(mt_scancache *cache, const struct shared *s)
{
	char key[512];
	if (!cache || mt_scancache_begin(cache) < 0)
		return;
	for (size_t i = 0; i < s->njobs; i++) {
		if (s->jobs[i].from_cache || !s->jobs[i].cached)
			continue;
		blob_key(key, sizeof(key), &s->jobs[i], s->opts->max_file_bytes);
		mt_scancache_put(cache, "blob", key, s->jobs[i].cached,
				 strlen(s->jobs[i].cached));
	}
	mt_scancache_commit(cache);
}

/* --- the entry point ------------------------------------------------------------ */

/* The whole-result key: the tree, the size limit and the paths the scan is
 * limited to (none: the key it always had). */
static void tree_key(char *key, size_t size, const char *what, const mt_gitlisting *l,
		     const struct shared *s)
{
	const mt_scan_options *o = s->opts;
	int n = snprintf(key, size, "%s:%s:%llu", what, l->tree,
			 (unsigned long long)(o->max_file_bytes ? o->max_file_bytes
								: MT_SCAN_MAX_FILE_BYTES));

	if (s->npaths && n > 0 && (size_t)n < size)
		snprintf(key + n, size - (size_t)n, ":paths=%016llx",
			 (unsigned long long)mt_scan__paths_hash(s->paths, s->npaths));
}

/* The result's figures (scan.h) as the text the tree cache keeps beside
 * the body; paths_missing quoted as the summary quotes them; and the
 * summary's length: the body ends with its members, so it is not stored
 * twice (nor read twice on a rescan). */
static char *figures_text(const mt_scan_result *r, const struct shared *s)
{
	mt_buf b = MT_BUF_INIT;

	mt_buf_printf(&b, "{\"files_scanned\":%zu,\"calls\":%zu,\"findings\":%zu,"
		      "\"summary_bytes\":%zu,\"paths_missing\":[", r->files_scanned, r->calls,
		      r->findings, strlen(r->summary));
	for (size_t i = 0; i < s->nmissing; i++) {
		if (i)
			mt_buf_puts(&b, ",");
		mt_json_quote(&b, s->missing[i]);
	}
	mt_buf_puts(&b, "]}");
	return mt_buf_detach(&b);
}

/* The inverse of figures_text, into r and *summary_bytes; -1 when it does
 * not read. Reading the text on a fresh scan too gives paths_missing as a
 * hit gives them. */
static int figures_read(mt_scan_result *r, size_t *summary_bytes, const char *text)
{
	json_t *v = json_loads(text, 0, NULL), *missing = json_object_get(v, "paths_missing"), *x;
	size_t i;

	if (!json_is_array(missing) || !json_is_integer(json_object_get(v, "summary_bytes"))) {
		json_decref(v);
		return -1;
	}
	*summary_bytes = (size_t)mt_json_num(v, "summary_bytes");
	r->files_scanned = (size_t)mt_json_num(v, "files_scanned");
	r->calls = (size_t)mt_json_num(v, "calls");
	r->findings = (size_t)mt_json_num(v, "findings");
	r->paths_missing = calloc(json_array_size(missing) + 1, sizeof(char *));
	if (!r->paths_missing)
		abort();
	json_array_foreach(missing, i, x)
		if (json_is_string(x))
			r->paths_missing[r->npaths_missing++] = mt_strdup(json_string_value(x));
	json_decref(v);
	return 0;
}

/* The result for this tree from the cache; 1 on a hit. */
static int cached_tree(mt_scan_result *out, mt_scancache *cache, const mt_gitlisting *l,
		       const struct shared *o)
{
	char key[160], *figures = NULL;
	size_t len = 0, sb = 0;

	if (!cache || !l->tree[0])
		return 0;
	tree_key(key, sizeof(key), "figures", l, o);
	if (mt_scancache_get(cache, "tree", key, &figures, NULL) < 0 || !figures ||
	    figures_read(out, &sb, figures) < 0)
		goto miss;
	tree_key(key, sizeof(key), "body", l, o);
	if (mt_scancache_get_file(cache, key, &out->body, &len, &out->body_map) < 0 ||
	    !out->body || sb < 2 || sb - 2 > len)
		goto miss;
	out->body_len = len;
	/* the summary: the body's last members, in braces */
	if (!(out->summary = malloc(sb + 1)))
		abort();
	out->summary[0] = '{';
	memcpy(out->summary + 1, out->body + len - (sb - 2), sb - 2);
	memcpy(out->summary + sb - 1, "}", 2);
	free(figures);
	return 1;
miss:
	free(figures);
	if (out->body_map)
		munmap(out->body, out->body_map);
	else
		free(out->body);
	out->body = NULL;
	out->body_len = out->body_map = 0;
	for (size_t i = 0; i < out->npaths_missing; i++)
		free(out->paths_missing[i]);
	free(out->paths_missing);
	out->paths_missing = NULL;
	out->npaths_missing = 0;
	return 0;
}

/* The body, as a file of the cache, and its figures, in SQLite beside it
 * (written second: a figures row always has its body). */
static void store_tree(mt_scancache *cache, const mt_gitlisting *l, const struct shared *o,
		       const mt_scan_result *r, const char *figures)
{
	const struct mt_scan_parts *pp = mt_scan__parts_of(r);
	mt_scancache_piece one = {r->body, r->body_len}, *pieces = &one;
	size_t npieces = 1;
	char key[160];
	int error;

	if (!cache || !l->tree[0])
		return;
	if (!r->body) {
		if (!(pieces = calloc(pp->npieces ? pp->npieces : 1, sizeof(*pieces))))
			abort();
		for (size_t i = 0; i < pp->npieces; i++)
			pieces[i] = (mt_scancache_piece){pp->pieces[i].p, pp->pieces[i].n};
		npieces = pp->npieces;
	}
	tree_key(key, sizeof(key), "body", l, o);
	error = mt_scancache_put_file(cache, key, pieces, npieces);
	if (pieces != &one)
		free(pieces);
	if (error < 0 || mt_scancache_begin(cache) < 0)
		return;
	tree_key(key, sizeof(key), "figures", l, o);
	mt_scancache_put(cache, "tree", key, figures, strlen(figures));
	mt_scancache_commit(cache);
}

static int make_jobs(struct shared *s, const mt_gitlisting *l)
{
	s->jobs = calloc(l->nentries ? l->nentries : 1, sizeof(*s->jobs));
	if (!s->jobs)
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < l->nentries; i++) {
		enum file_kind k = kind_of(l->entries[i].path);
		if (k == FILE_OTHER)
			continue;
		s->jobs[s->njobs].entry = &l->entries[i];
		s->jobs[s->njobs].kind = k;
		s->jobs[s->njobs].manifest = mt_deps_is_manifest(l->entries[i].path);
		s->njobs++;
	}
	return 0;
}

/* MTRIAL_SCAN_TIMING=1 prints where a scan spends its time, for bench/. */
static void phase(const char *what)
{
	static int64_t last;
	int64_t now = mt_mono_ms();
	if (getenv("MTRIAL_SCAN_TIMING") && what)
		fprintf(stderr, "scan timing: %-12s %4lld ms\n", what, (long long)(now - last));
	last = now;
}

static int scan_listing(mt_scan_result *out, struct shared *s, const mt_gitlisting *l,
			mt_scancache *cache)
{
	size_t from_cache = 0, summary_bytes;
	char *figures;
	int error;

	if ((error = make_jobs(s, l)) < 0)
		return error;
	cache_lookup_jobs(cache, s);
	for (size_t i = 0; i < s->njobs; i++)
		s->jobs[i].settled = s->jobs[i].done; /* from the cache */
	phase("cache lookup");
	if (!(s->asm_ = mt_scan__asm_begin(l, s->rules)))
		return mt_error_set(MT_EIO, "out of memory");
	if (s->npaths) {
		char *members = mt_scan__paths_members(s->paths, s->npaths, s->missing,
						       s->nmissing);
		mt_scan__asm_extra(s->asm_, members);
		free(members);
	}
	if ((error = run_workers(s, s->opts->threads)) < 0)
		return error;
	phase("files");
	cache_store_jobs(cache, s);
	phase("cache store");
	summarise(s, s->njobs);
	error = mt_scan__asm_end(s->asm_, out, s->jobs, s->njobs);
	s->asm_ = NULL;
	if (error < 0)
		return error;
	figures = figures_text(out, s);
	if (figures_read(out, &summary_bytes, figures) < 0) {
		free(figures);
		return mt_error_set(MT_EIO, "out of memory");
	}
	phase("assemble");
	store_tree(cache, l, s, out, figures);
	free(figures);
	phase("tree store");
	for (size_t i = 0; i < s->njobs; i++)
		from_cache += s->jobs[i].from_cache;
	out->cache_hit = from_cache ? "blobs" : "none";
	out->blobs_read = s->njobs - from_cache;
	return 0;
}

static void fill_header(mt_scan_result *out, const mt_gitrepo *repo, const mt_gitlisting *l,
			const mt_scan_options *o)
{
	out->repo = mt_strdup(mt_gitrepo_path(repo));
	memcpy(out->commit, l->commit, sizeof(out->commit));
	memcpy(out->tree, l->tree, sizeof(out->tree));
	out->worktree = o->worktree;
	out->requested_rev = o->rev ? mt_strdup(o->rev) : NULL;
}

/* The files at the revision, held to opts->paths (normalised already):
 * for a scan the tree cache did not answer. Keeps the ids the header was
 * given (a branch that moved since is listed at the commit it names now). */
static int list_files(struct shared *s, mt_gitlisting *l, mt_scan_result *out)
{
	int error;

	mt_gitlisting_dispose(l);
	if ((error = mt_gitrepo_list_ext(l, s->repo, s->opts->rev, s->opts->worktree,
					 MT_LIST_NO_SIZES)) < 0)
		return error;
	memcpy(out->commit, l->commit, sizeof(out->commit));
	memcpy(out->tree, l->tree, sizeof(out->tree));
	if (!s->npaths)
		return 0;
	return mt_scan__paths_filter(l, s->paths, s->npaths, &s->missing, &s->nmissing);
}

/* The revision's ids, which is all a rescan of a tree the cache holds
 * reads (no tree is walked), the limit normalised, and the header. */
static int resolve_rev(struct shared *s, mt_gitlisting *l, mt_scan_result *out)
{
	const mt_scan_options *o = s->opts;
	int error;

	if ((error = mt_gitrepo_list_ext(l, s->repo, o->rev, o->worktree, MT_LIST_IDS_ONLY)) < 0 ||
	    (error = mt_scan__paths_norm(&s->paths, &s->npaths, o->paths, o->npaths,
					 mt_gitrepo_path(s->repo))) < 0)
		return error;
	fill_header(out, s->repo, l, o);
	if (s->npaths && !(out->paths = calloc(s->npaths, sizeof(*out->paths))))
		return mt_error_set(MT_EIO, "out of memory");
	for (; out->npaths < s->npaths; out->npaths++)
		out->paths[out->npaths] = mt_strdup(s->paths[out->npaths]);
	return 0;
}

int mt_scan_run(mt_scan_result *out, const mt_scan_options *o)
{
	struct shared s = {.opts = o};
	mt_gitlisting l = {0};
	mt_scancache *cache = NULL;
	mt_opmap *opmap = NULL;
	mt_rules *rules = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	phase(NULL);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.progress, NULL);
	if ((error = mt_gitrepo_open(&s.repo, o->repo ? o->repo : ".")) < 0 ||
	    (error = resolve_rev(&s, &l, out)) < 0)
		goto cleanup;
	phase("resolve");
	if (o->use_cache && mt_scancache_open(&cache, o->cache_path, mt_scan_cache_version()) < 0)
		cache = NULL; /* a cache that cannot be opened only costs time */
	if (cached_tree(out, cache, &l, &s)) {
		out->cache_hit = "tree";
		goto cleanup;
	}
	phase("tree lookup");
	if ((error = list_files(&s, &l, out)) < 0)
		goto cleanup;
	phase("list");
	if ((error = mt_opmap_load(&opmap)) < 0 || (error = mt_rules_load(&rules)) < 0)
		goto cleanup;
	s.opmap = opmap;
	s.rules = rules;
	phase("load tables");
	error = scan_listing(out, &s, &l, cache);
cleanup:
	for (size_t i = 0; i < s.njobs; i++) {
		free(s.jobs[i].cached);
		result_dispose(&s.jobs[i].r);
		mt_buf_dispose(&s.jobs[i].sites[0]);
		mt_buf_dispose(&s.jobs[i].sites[1]);
		mt_buf_dispose(&s.jobs[i].sites[2]);
	}
	free(s.jobs);
	for (size_t i = 0; i < s.npaths; i++)
		free(s.paths[i]);
	free(s.paths);
	for (size_t i = 0; i < s.nmissing; i++)
		free(s.missing[i]);
	free(s.missing);
	mt_scan__asm_free(s.asm_);
	mt_rules_free(rules);
	mt_opmap_free(opmap);
	mt_scancache_free(cache);
	mt_gitlisting_dispose(&l);
	mt_gitrepo_free(s.repo);
	pthread_mutex_destroy(&s.lock);
	pthread_cond_destroy(&s.progress);
	if (error < 0)
		mt_scan_result_dispose(out);
	return error;
}
