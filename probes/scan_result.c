/* A scan's result as its callers take it (scan.h): written as JSON, in
 * full or as its summary, and disposed of. */
#include "scan.h"
#include "error.h"
#include "jsonw.h"
#include "scan_int.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void mt_scan_result_dispose(mt_scan_result *r)
{
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i]);
	free(r->paths);
	free(r->repo);
	free(r->requested_rev);
	if (r->body_map)
		munmap(r->body, r->body_map);
	else
		free(r->body);
	if (r->parts) {
		for (size_t i = 0; i < r->parts->nkeep; i++)
			free(r->parts->keep[i]);
		free(r->parts->keep);
		free(r->parts->pieces);
		free(r->parts);
	}
	free(r->summary);
	for (size_t i = 0; i < r->npaths_missing; i++)
		free(r->paths_missing[i]);
	free(r->paths_missing);
	memset(r, 0, sizeof(*r));
}

/* The members that depend on how the result was obtained, not on the tree. */
static void write_header(mt_jw *w, const mt_scan_result *r)
{
	mt_jw_key(w, "repo");
	mt_jw_str(w, r->repo);
	mt_jw_key(w, "rev");
	mt_jw_str(w, r->commit);
	mt_jw_key(w, "requested_rev");
	mt_jw_str(w, r->requested_rev);
	mt_jw_key(w, "tree");
	mt_jw_str(w, r->tree);
	mt_jw_key(w, "worktree");
	mt_jw_bool(w, r->worktree);
	mt_jw_key(w, "cache");
	mt_jw_object(w);
	mt_jw_key(w, "hit");
	mt_jw_str(w, r->cache_hit);
	mt_jw_key(w, "blobs_read");
	mt_jw_int(w, (int64_t)r->blobs_read);
	mt_jw_end_object(w);
}

/* Everything before the body: the header members and `extra`. */
static void json_head(mt_buf *b, const mt_scan_result *r, json_t *extra)
{
	const char *key;
	json_t *v;
	mt_jw w;

	mt_jw_init(&w, b);
	mt_jw_object(&w);
	write_header(&w, r);
	json_object_foreach(extra, key, v) {
		char *enc = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		mt_jw_key(&w, key);
		mt_jw_raw(&w, enc, strlen(enc));
		free(enc);
	}
	mt_buf_put(b, ",", 1);
}

char *mt_scan_result_json(const mt_scan_result *r, json_t *extra)
{
	const struct mt_scan_parts *pp = mt_scan__parts_of(r);
	mt_buf b = MT_BUF_INIT;
	size_t body = r->body ? r->body_len : 0;

	json_head(&b, r, extra);
	for (size_t i = 0; i < pp->npieces; i++)
		body += pp->pieces[i].n;
	mt_buf_reserve(&b, body + 1);
	if (r->body)
		mt_buf_put(&b, r->body, body);
	for (size_t i = 0; i < pp->npieces; i++)
		mt_buf_put(&b, pp->pieces[i].p, pp->pieces[i].n);
	mt_buf_put(&b, "}", 1);
	return mt_buf_detach(&b);
}

/* In pieces of 64 KB at most: the CLI's stdout is a filtering stream that
 * holds a whole write in buffers of its own (two fresh copies of a 10 MB
 * body cost a rescan more than reading it from the cache). */
static void write_chunked(FILE *f, const char *p, size_t n)
{
	while (n) {
		size_t k = n < 65536 ? n : 65536;
		fwrite(p, 1, k, f);
		p += k, n -= k;
	}
}

int mt_scan_result_write_json(FILE *f, const mt_scan_result *r, json_t *extra)
{
	mt_buf b = MT_BUF_INIT;

	json_head(&b, r, extra);
	fputs(mt_buf_cstr(&b), f);
	mt_buf_dispose(&b);
	if (r->body)
		write_chunked(f, r->body, r->body_len);
	for (size_t i = 0; i < mt_scan__parts_of(r)->npieces; i++)
		write_chunked(f, mt_scan__parts_of(r)->pieces[i].p, mt_scan__parts_of(r)->pieces[i].n);
	fputc('}', f);
	return ferror(f) ? mt_error_set(MT_EIO, "write error: %s", strerror(errno)) : 0;
}

json_t *mt_scan_result_summary(const mt_scan_result *r)
{
	json_t *s = json_loads(r->summary, 0, NULL);
	if (!s) {
		mt_error_set(MT_EIO, "corrupt scan summary");
		return NULL;
	}
	json_object_set_new(s, "repo", json_string(r->repo));
	json_object_set_new(s, "rev", json_string(r->commit));
	json_object_set_new(s, "tree", json_string(r->tree));
	json_object_set_new(s, "worktree", json_boolean(r->worktree));
	json_object_set_new(s, "requested_rev",
			    r->requested_rev ? json_string(r->requested_rev) : json_null());
	json_object_set_new(s, "cache", json_pack("{ss, sI}", "hit", r->cache_hit, "blobs_read",
						 (json_int_t)r->blobs_read));
	return s;
}
