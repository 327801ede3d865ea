#include "scan.h"
#include "deps.h"
#include "embedded.h"
#include "error.h"
#include "extract.h"
#include "findings.h"
#include "gitread.h"
#include "opmap.h"
#include "scancache.h"
#include "util.h"

#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bump when the per-file result format or the extraction changes. */
#define SCAN_FORMAT 1

/* What one file needs: Python source, a dependency manifest, or only its
 * path (a .cu file is a finding by name alone). */
enum file_kind { FILE_OTHER, FILE_PYTHON, FILE_MANIFEST };

struct job {
	const mt_gitentry *entry;
	enum file_kind kind;
	char *result;      /* per-file result (compact JSON), from cache or worker */
	int from_cache;
};

struct shared {
	const mt_scan_options *opts;
	const mt_opmap *opmap;
	const mt_rules *rules;
	mt_gitrepo *repo; /* the caller's handle; workers dup it */
	struct job *jobs;
	size_t njobs;
	size_t next;      /* next job to take */
	size_t done;
	const char *last_path;
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

const char *mt_scan_cache_version(void)
{
	static char version[64];
	uint64_t h = 1469598103934665603ULL; /* FNV-1a over the bundled tables */

	if (version[0])
		return version;
	for (const struct mt_embedded *t = mt_embedded_tables; t->name; t++)
		for (const char *p = t->text; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	snprintf(version, sizeof(version), "%s/%d/%016llx", MT_VERSION, SCAN_FORMAT,
		 (unsigned long long)h);
	return version;
}

/* --- one file, on a worker thread ----------------------------------------- */

static size_t count_lines(const char *data, size_t size)
{
	size_t lines = size && data[size - 1] != '\n';
	for (const char *p = data; (p = memchr(p, '\n', (size_t)(data + size - p))); p++)
		lines++;
	return lines;
}

static json_t *findings_json(const mt_findings *acc)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < acc->n; i++) {
		const mt_finding *f = &acc->items[i];
		json_array_append_new(arr, json_pack("[s, s, s, I, I, s]", f->rule, f->kind,
						     f->effort, (json_int_t)f->line,
						     (json_int_t)f->col, f->message));
	}
	return arr;
}

/* `self.norm(x)` calls a submodule far more often than Tensor.norm: a
 * method called directly on `self` is not counted as a tensor method. */
static int module_attribute(const mt_call *c)
{
	return strncmp(c->callee, "self.", 5) == 0 && !strchr(c->callee + 5, '.');
}

static json_t *python_result(const struct shared *s, const char *path, const char *data,
			     size_t size)
{
	mt_pyfile py;
	mt_findings acc = {0};
	json_t *calls, *methods, *res;

	if (mt_extract(&py, data, size) < 0)
		return json_pack("{sI, ss}", "l", (json_int_t)count_lines(data, size), "e",
				 mt_error_last());
	calls = json_array();
	methods = json_array();
	for (size_t i = 0; i < py.ncalls; i++) {
		const mt_call *c = &py.calls[i];
		if (c->api && (strcmp(c->api, "torch") == 0 || strncmp(c->api, "torch.", 6) == 0)) {
			const char *op = mt_opmap_api(s->opmap, c->api, NULL);
			json_array_append_new(calls, json_pack("[s, s?, I, I]", c->api, op,
							       (json_int_t)c->line,
							       (json_int_t)c->col));
		} else if (c->method && !module_attribute(c) &&
			   mt_opmap_is_tensor_method(s->opmap, c->method)) {
			json_array_append_new(methods,
					      json_pack("[s, s?, I]", c->method,
							mt_opmap_method(s->opmap, c->method, NULL),
							(json_int_t)c->line));
		}
	}
	mt_rules_eval_python(s->rules, path, &py, &acc);
	res = json_pack("{sI, so, so, so}", "l", (json_int_t)count_lines(data, size), "c", calls,
			"m", methods, "f", findings_json(&acc));
	mt_findings_dispose(&acc);
	mt_pyfile_dispose(&py);
	return res;
}

static json_t *manifest_result(const struct shared *s, const char *path, const char *data,
			       size_t size)
{
	mt_dependency *deps = NULL;
	mt_findings acc = {0};
	size_t n = 0;
	json_t *arr, *res;

	if (mt_deps_parse(&deps, &n, path, data, size) < 0)
		return json_pack("{ss}", "e", mt_error_last());
	arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("[s, s?, I, b, s?]", deps[i].name,
						     deps[i].spec, (json_int_t)deps[i].line,
						     deps[i].cuda_only, deps[i].why));
	mt_rules_eval_deps(s->rules, deps, n, &acc);
	res = json_pack("{so, so}", "d", arr, "f", findings_json(&acc));
	mt_findings_dispose(&acc);
	mt_deps_free(deps, n);
	return res;
}

/* Reads and analyses one file into job->result; a file that must be skipped
 * gives {"s": reason}. Returns 0 or a negative code (a real failure). */
static int process(const struct shared *s, mt_gitrepo *repo, struct job *job)
{
	char *data = NULL, reason[256];
	size_t size = 0;
	json_t *res;
	int error = mt_gitrepo_read(&data, &size, reason, sizeof(reason), repo, job->entry,
				    s->opts->max_file_bytes ? s->opts->max_file_bytes
							    : MT_SCAN_MAX_FILE_BYTES);
	if (error < 0)
		return error;
	if (!data)
		res = json_pack("{ss}", "s", reason);
	else if (job->kind == FILE_PYTHON)
		res = python_result(s, job->entry->path, data, size);
	else
		res = manifest_result(s, job->entry->path, data, size);
	free(data);
	job->result = json_dumps(res, JSON_COMPACT);
	json_decref(res);
	return job->result ? 0 : mt_error_set(MT_EIO, "out of memory");
}

static void *worker(void *arg)
{
	struct shared *s = arg;
	mt_gitrepo *repo = NULL;
	int error = mt_gitrepo_dup(&repo, s->repo);

	for (;;) {
		struct job *job = NULL;
		pthread_mutex_lock(&s->lock);
		if (error < 0 && !s->error) {
			s->error = error;
			snprintf(s->error_msg, sizeof(s->error_msg), "%s", mt_error_last());
		}
		while (!s->error && s->next < s->njobs && s->jobs[s->next].result)
			s->next++;
		if (!s->error && s->next < s->njobs)
			job = &s->jobs[s->next++];
		pthread_mutex_unlock(&s->lock);
		if (!job)
			break;
		error = process(s, repo, job);
		pthread_mutex_lock(&s->lock);
		s->done++;
		s->last_path = job->entry->path;
		pthread_cond_signal(&s->progress);
		pthread_mutex_unlock(&s->lock);
	}
	mt_gitrepo_free(repo);
	pthread_mutex_lock(&s->lock);
	pthread_cond_signal(&s->progress);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Runs the workers over the jobs without a result, reporting progress from
 * this thread. */
static int run_workers(struct shared *s, int nthreads)
{
	pthread_t th[16];
	size_t todo = 0, reported = (size_t)-1;
	int started = 0;

	for (size_t i = 0; i < s->njobs; i++)
		todo += s->jobs[i].result == NULL;
	if (todo == 0)
		return 0;
	if (nthreads <= 0)
		nthreads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > 16)
		nthreads = 16;
	if ((size_t)nthreads > todo)
		nthreads = (int)todo;
	for (; started < nthreads; started++)
		if (pthread_create(&th[started], NULL, worker, s) != 0)
			break;
	if (started == 0)
		return mt_error_set(MT_EIO, "cannot start a scan thread");
	pthread_mutex_lock(&s->lock);
	while (s->done < todo && !s->error) {
		if (s->opts->progress && s->done != reported) {
			reported = s->done;
			s->opts->progress(s->done, todo, s->last_path ? s->last_path : "",
					  s->opts->payload);
		}
		pthread_cond_wait(&s->progress, &s->lock);
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
 * depends on it). */
static void blob_key(char *key, size_t size, const struct job *job)
{
	const char *base = strrchr(job->entry->path, '/');
	base = base ? base + 1 : job->entry->path;
	if (job->kind == FILE_MANIFEST)
		snprintf(key, size, "%s:%s", job->entry->oid, base);
	else
		snprintf(key, size, "%s", job->entry->oid);
}

static void cache_lookup_jobs(mt_scancache *cache, struct shared *s)
{
	char key[512];
	for (size_t i = 0; cache && i < s->njobs; i++) {
		blob_key(key, sizeof(key), &s->jobs[i]);
		if (mt_scancache_get(cache, "blob", key, &s->jobs[i].result, NULL) == 0 &&
		    s->jobs[i].result)
			s->jobs[i].from_cache = 1;
	}
}

static void cache_store_jobs(mt_scancache *cache, const struct shared *s)
{
	char key[512];
	if (!cache || mt_scancache_begin(cache) < 0)
		return;
	for (size_t i = 0; i < s->njobs; i++) {
		if (s->jobs[i].from_cache || !s->jobs[i].result)
			continue;
		blob_key(key, sizeof(key), &s->jobs[i]);
		mt_scancache_put(cache, "blob", key, s->jobs[i].result,
				 strlen(s->jobs[i].result));
	}
	mt_scancache_commit(cache);
}

/* --- assembling the result -------------------------------------------------- */

struct acc {
	json_t *calls, *methods, *findings, *deps, *skipped, *files, *ops;
	size_t python_files, lines, high, medium, low, none;
};

static void add_op(struct acc *a, const char *op, const char *path)
{
	json_t *o = json_object_get(a->ops, op), *files;
	if (!o) {
		o = json_pack("{sI, s[]}", "count", (json_int_t)0, "files");
		json_object_set_new(a->ops, op, o);
	}
	json_object_set_new(o, "count", json_integer(json_integer_value(json_object_get(o, "count")) + 1));
	files = json_object_get(o, "files");
	if (!json_array_size(files) ||
	    strcmp(json_string_value(json_array_get(files, json_array_size(files) - 1)), path) != 0)
		json_array_append_new(files, json_string(path));
}

static void add_findings(struct acc *a, json_t *list, const char *path)
{
	size_t i;
	json_t *f;
	json_array_foreach(list, i, f) {
		const char *effort = json_string_value(json_array_get(f, 2));
		json_array_append_new(a->findings,
				      json_pack("{sO, sO, sO, ss, sO, sO, sO}", "rule",
						json_array_get(f, 0), "kind", json_array_get(f, 1),
						"effort", json_array_get(f, 2), "file", path, "line",
						json_array_get(f, 3), "col", json_array_get(f, 4),
						"message", json_array_get(f, 5)));
		a->high += strcmp(effort, "high") == 0;
		a->medium += strcmp(effort, "medium") == 0;
		a->low += strcmp(effort, "low") == 0;
		a->none += strcmp(effort, "none") == 0;
	}
}

static void add_python(struct acc *a, json_t *r, const char *path)
{
	json_t *calls = json_object_get(r, "c"), *methods = json_object_get(r, "m"), *c;
	size_t i;

	json_array_foreach(calls, i, c) {
		json_t *op = json_array_get(c, 1);
		json_array_append_new(a->calls, json_pack("{sO, sO, ss, sO, sO}", "api",
							  json_array_get(c, 0), "op", op, "file",
							  path, "line", json_array_get(c, 2), "col",
							  json_array_get(c, 3)));
		if (json_is_string(op))
			add_op(a, json_string_value(op), path);
	}
	json_array_foreach(methods, i, c)
		json_array_append_new(a->methods, json_pack("{sO, sO, ss, sO}", "name",
							    json_array_get(c, 0), "op",
							    json_array_get(c, 1), "file", path,
							    "line", json_array_get(c, 2)));
	add_findings(a, json_object_get(r, "f"), path);
	a->python_files++;
	a->lines += (size_t)json_integer_value(json_object_get(r, "l"));
	json_array_append_new(a->files, json_pack("{ss, sO, si, si, si}", "path", path, "lines",
						  json_object_get(r, "l"), "calls",
						  (int)json_array_size(calls), "methods",
						  (int)json_array_size(methods), "findings",
						  (int)json_array_size(json_object_get(r, "f"))));
}

static void add_manifest(struct acc *a, json_t *r, const char *path)
{
	json_t *d;
	size_t i;
	json_array_foreach(json_object_get(r, "d"), i, d)
		json_array_append_new(a->deps, json_pack("{sO, sO, ss, sO, sO, sO}", "name",
							 json_array_get(d, 0), "spec",
							 json_array_get(d, 1), "file", path, "line",
							 json_array_get(d, 2), "cuda_only",
							 json_array_get(d, 3), "why",
							 json_array_get(d, 4)));
	add_findings(a, json_object_get(r, "f"), path);
}

static void skip(struct acc *a, const char *path, const char *reason)
{
	json_array_append_new(a->skipped, json_pack("{ss, ss}", "path", path, "reason", reason));
}

static int add_job(struct acc *a, const struct job *job)
{
	const char *path = job->entry->path;
	json_t *r = json_loads(job->result, 0, NULL), *e;

	if (!r)
		return mt_error_set(MT_EIO, "%s: corrupt scan result", path);
	if ((e = json_object_get(r, "s")))
		skip(a, path, json_string_value(e));
	else if ((e = json_object_get(r, "e"))) {
		char reason[600];
		snprintf(reason, sizeof(reason), "%s: %s",
			 job->kind == FILE_PYTHON ? "cannot tokenize" : "cannot parse",
			 json_string_value(e));
		skip(a, path, reason);
	} else if (job->kind == FILE_PYTHON)
		add_python(a, r, path);
	else
		add_manifest(a, r, path);
	json_decref(r);
	return 0;
}

static json_t *totals(const struct acc *a)
{
	size_t mapped = 0, i;
	json_t *c;
	json_array_foreach(a->calls, i, c)
		mapped += json_is_string(json_object_get(c, "op"));
	return json_pack("{sI, sI, sI, sI, sI, sI, sI, s{sI, sI, sI, sI}}", "python_files",
			 (json_int_t)a->python_files, "lines", (json_int_t)a->lines, "calls",
			 (json_int_t)json_array_size(a->calls), "calls_mapped",
			 (json_int_t)mapped, "methods", (json_int_t)json_array_size(a->methods),
			 "ops", (json_int_t)json_object_size(a->ops), "findings",
			 (json_int_t)json_array_size(a->findings), "findings_by_effort", "high",
			 (json_int_t)a->high, "medium", (json_int_t)a->medium, "low",
			 (json_int_t)a->low, "none", (json_int_t)a->none);
}

static int assemble(json_t **out, const mt_gitlisting *l, const struct shared *s)
{
	struct acc a = {json_array(), json_array(), json_array(), json_array(), json_array(),
			json_array(), json_object(), 0, 0, 0, 0, 0, 0};
	mt_findings paths = {0};
	int error = 0;

	for (size_t i = 0; i < l->nskipped; i++)
		skip(&a, l->skipped[i].path, l->skipped[i].reason);
	for (size_t i = 0; i < l->nentries; i++)
		mt_rules_eval_path(s->rules, l->entries[i].path, &paths);
	for (size_t i = 0; i < paths.n; i++) {
		json_t *one = findings_json(&(mt_findings){.items = &paths.items[i], .n = 1});
		add_findings(&a, one, paths.items[i].file);
		json_decref(one);
	}
	for (size_t i = 0; i < s->njobs && error == 0; i++)
		error = add_job(&a, &s->jobs[i]);
	mt_findings_dispose(&paths);
	*out = json_pack("{ss, ss, sb, sI, so, so, so, so, so, so, so, so}", "rev", l->commit,
			 "tree", l->tree, "worktree", s->opts->worktree, "files_scanned",
			 (json_int_t)a.python_files, "files_skipped", a.skipped, "calls", a.calls,
			 "methods", a.methods, "ops", a.ops, "findings", a.findings,
			 "dependencies", a.deps, "files", a.files, "totals", totals(&a));
	if (error < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return error;
}

/* --- the entry point ------------------------------------------------------------ */

static void tree_key(char *key, size_t size, const mt_gitlisting *l, const mt_scan_options *o)
{
	snprintf(key, size, "%s:%llu", l->tree,
		 (unsigned long long)(o->max_file_bytes ? o->max_file_bytes
							: MT_SCAN_MAX_FILE_BYTES));
}

/* A whole result for this tree from the cache, or NULL. */
static json_t *cached_tree(mt_scancache *cache, const mt_gitlisting *l, const mt_scan_options *o)
{
	char key[128], *text = NULL;
	json_t *r;

	if (!cache || !l->tree[0])
		return NULL;
	tree_key(key, sizeof(key), l, o);
	if (mt_scancache_get(cache, "tree", key, &text, NULL) < 0 || !text)
		return NULL;
	r = json_loads(text, 0, NULL);
	free(text);
	if (r) /* the same tree may be another commit's */
		json_object_set_new(r, "rev", json_string(l->commit));
	return r;
}

static void store_tree(mt_scancache *cache, const mt_gitlisting *l, const mt_scan_options *o,
		       json_t *result)
{
	char key[128], *text;
	if (!cache || !l->tree[0] || mt_scancache_begin(cache) < 0)
		return;
	tree_key(key, sizeof(key), l, o);
	if ((text = json_dumps(result, JSON_COMPACT))) {
		mt_scancache_put(cache, "tree", key, text, strlen(text));
		free(text);
	}
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
		s->njobs++;
	}
	return 0;
}

static void finish_result(json_t *r, const mt_gitrepo *repo, const mt_scan_options *o,
			  const char *hit, size_t blobs_read)
{
	json_object_set_new(r, "repo", json_string(mt_gitrepo_path(repo)));
	json_object_set_new(r, "requested_rev", o->rev ? json_string(o->rev) : json_null());
	json_object_set_new(r, "cache", json_pack("{ss, sI}", "hit", hit, "blobs_read",
						 (json_int_t)blobs_read));
}

static int scan_listing(json_t **out, struct shared *s, const mt_gitlisting *l,
			mt_scancache *cache)
{
	size_t from_cache = 0;
	int error;

	if ((error = make_jobs(s, l)) < 0)
		return error;
	cache_lookup_jobs(cache, s);
	if ((error = run_workers(s, s->opts->threads)) < 0)
		return error;
	cache_store_jobs(cache, s);
	if ((error = assemble(out, l, s)) < 0)
		return error;
	store_tree(cache, l, s->opts, *out);
	for (size_t i = 0; i < s->njobs; i++)
		from_cache += s->jobs[i].from_cache;
	finish_result(*out, s->repo, s->opts, from_cache ? "blobs" : "none",
		      s->njobs - from_cache);
	return 0;
}

int mt_scan_run(json_t **out, const mt_scan_options *o)
{
	struct shared s = {.opts = o};
	mt_gitlisting l = {0};
	mt_scancache *cache = NULL;
	mt_opmap *opmap = NULL;
	mt_rules *rules = NULL;
	int error;

	*out = NULL;
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.progress, NULL);
	if ((error = mt_gitrepo_open(&s.repo, o->repo ? o->repo : ".")) < 0 ||
	    (error = mt_gitrepo_list(&l, s.repo, o->rev, o->worktree)) < 0)
		goto cleanup;
	if (o->use_cache && mt_scancache_open(&cache, o->cache_path, mt_scan_cache_version()) < 0)
		cache = NULL; /* a cache that cannot be opened only costs time */
	if ((*out = cached_tree(cache, &l, o))) {
		finish_result(*out, s.repo, o, "tree", 0);
		goto cleanup;
	}
	if ((error = mt_opmap_load(&opmap)) < 0 || (error = mt_rules_load(&rules)) < 0)
		goto cleanup;
	s.opmap = opmap;
	s.rules = rules;
	error = scan_listing(out, &s, &l, cache);
cleanup:
	for (size_t i = 0; i < s.njobs; i++)
		free(s.jobs[i].result);
	free(s.jobs);
	mt_rules_free(rules);
	mt_opmap_free(opmap);
	mt_scancache_free(cache);
	mt_gitlisting_dispose(&l);
	mt_gitrepo_free(s.repo);
	pthread_mutex_destroy(&s.lock);
	pthread_cond_destroy(&s.progress);
	return error;
}
