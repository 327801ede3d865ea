/* A scan's JSON -> mt_scan_view: the one place the layers above read the
 * scan's keys. */
#include "scan_view.h"
#include "jview.h"
#include "view_int.h"

#include <stdlib.h>
#include <string.h>

/* The sites under `key`; methods name their method where calls name their
 * API. Absent in a summary. */
static mt_scan_site *read_sites(mt_jview *v, const char *key, const char *name, size_t *n)
{
	const json_t *arr = mt_jview_opt_get(v, key), *x;
	mt_scan_site *s = mt_view_items(json_array_size(arr), sizeof(*s));
	size_t i;

	json_array_foreach(arr, i, x) {
		mt_jview c;
		mt_jview_init(&c, x, v->shape);
		s[i].api = mt_jview_str(&c, name);
		s[i].op = mt_jview_str(&c, "op");
		s[i].file = mt_jview_str(&c, "file");
		s[i].module = mt_jview_opt_str(&c, "module");
		s[i].line = mt_jview_int(&c, "line", 0);
		s[i].col = mt_jview_opt_int(&c, "col", 0);
		s[i].certain = mt_jview_bool(&c, "certain", 1);
		mt_jview_close(&c, v);
	}
	*n = json_array_size(arr);
	return s;
}

/* The ops of `ops` (the calls' or the methods'), with the methods'
 * uncertain sites. */
static mt_scan_op *read_ops(mt_jview *v, const json_t *ops, int methods, size_t *n)
{
	mt_scan_op *out = mt_view_items(json_object_size(ops), sizeof(*out));
	const json_t *x, *f;
	const char *name;
	size_t i = 0, k;

	json_object_foreach((json_t *)ops, name, x) {
		const json_t *files;
		mt_jview o;
		mt_jview_init(&o, x, v->shape);
		out[i].name = name;
		out[i].count = mt_jview_int(&o, "count", 0);
		out[i].uncertain = methods ? mt_jview_int(&o, "uncertain", 0) : 0;
		files = mt_jview_get(&o, "files");
		out[i].nfiles = json_array_size(files);
		out[i].files = mt_view_items(out[i].nfiles, sizeof(*out[i].files));
		json_array_foreach(files, k, f)
			out[i].files[k] = json_string_value(f);
		i++;
		mt_jview_close(&o, v);
	}
	*n = i;
	return out;
}

static void read_findings(mt_jview *v, mt_scan_view *s)
{
	const json_t *arr = mt_jview_get(v, "findings"), *x;
	size_t i;

	s->findings = mt_view_items(json_array_size(arr), sizeof(*s->findings));
	json_array_foreach(arr, i, x) {
		mt_scan_finding *f = &s->findings[i];
		mt_jview o;
		mt_jview_init(&o, x, v->shape);
		f->rule = mt_jview_str(&o, "rule");
		f->kind = mt_jview_str(&o, "kind");
		f->effort = mt_jview_str(&o, "effort");
		f->message = mt_jview_str(&o, "message");
		f->file = mt_jview_str(&o, "file");
		f->line = mt_jview_int(&o, "line", 0);
		f->col = mt_jview_int(&o, "col", 0);
		f->json = x;
		mt_jview_close(&o, v);
	}
	s->nfindings = json_array_size(arr);
}

static void read_deps(mt_jview *v, mt_scan_view *s)
{
	const json_t *arr = mt_jview_get(v, "dependencies"), *x;
	size_t i;

	s->deps = mt_view_items(json_array_size(arr), sizeof(*s->deps));
	json_array_foreach(arr, i, x) {
		mt_jview o;
		mt_jview_init(&o, x, v->shape);
		s->deps[i].name = mt_jview_str(&o, "name");
		s->deps[i].spec = mt_jview_str(&o, "spec");
		s->deps[i].file = mt_jview_str(&o, "file");
		s->deps[i].line = mt_jview_int(&o, "line", 0);
		s->deps[i].cuda_only = mt_jview_bool(&o, "cuda_only", 0);
		s->deps[i].json = x;
		mt_jview_close(&o, v);
	}
	s->ndeps = json_array_size(arr);
}

static void read_files(mt_jview *v, mt_scan_view *s)
{
	const json_t *arr = mt_jview_get(v, "files"), *x;
	size_t i;

	s->files = mt_view_items(json_array_size(arr), sizeof(*s->files));
	json_array_foreach(arr, i, x) {
		mt_jview o;
		mt_jview_init(&o, x, v->shape);
		s->files[i].path = mt_jview_str(&o, "path");
		s->files[i].lines = mt_jview_int(&o, "lines", 0);
		s->files[i].calls = mt_jview_int(&o, "calls", 0);
		s->files[i].methods = mt_jview_int(&o, "methods", 0);
		s->files[i].findings = mt_jview_int(&o, "findings", 0);
		mt_jview_close(&o, v);
	}
	s->nfiles = json_array_size(arr);
	arr = mt_jview_get(v, "files_skipped");
	s->skipped = mt_view_items(json_array_size(arr), sizeof(*s->skipped));
	json_array_foreach(arr, i, x) {
		mt_jview o;
		mt_jview_init(&o, x, v->shape);
		s->skipped[i].path = mt_jview_str(&o, "path");
		s->skipped[i].reason = mt_jview_str(&o, "reason");
		mt_jview_close(&o, v);
	}
	s->nskipped = json_array_size(arr);
}

static void read_totals(mt_jview *v, mt_scan_view *s)
{
	mt_jview t, e;

	mt_jview_sub(&t, v, "totals");
	s->totals.lines = mt_jview_int(&t, "lines", 0);
	s->totals.calls = mt_jview_int(&t, "calls", 0);
	s->totals.calls_mapped = mt_jview_int(&t, "calls_mapped", 0);
	s->totals.methods = mt_jview_int(&t, "methods", 0);
	s->totals.methods_certain = mt_jview_int(&t, "methods_certain", 0);
	s->totals.methods_uncertain = mt_jview_int(&t, "methods_uncertain", 0);
	s->totals.not_tensor = mt_jview_int(&t, "not_tensor", 0);
	s->totals.ops = mt_jview_int(&t, "ops", 0);
	s->totals.ops_with_methods = mt_jview_int(&t, "ops_with_methods", 0);
	s->totals.findings = mt_jview_int(&t, "findings", 0);
	mt_jview_sub(&e, &t, "findings_by_effort");
	s->totals.high = mt_jview_int(&e, "high", 0);
	s->totals.medium = mt_jview_int(&e, "medium", 0);
	s->totals.low = mt_jview_int(&e, "low", 0);
	s->totals.none = mt_jview_int(&e, "none", 0);
	mt_jview_close(&e, &t);
	mt_jview_close(&t, v);
}

int mt_scan_view_read(mt_scan_view *s, const json_t *scan)
{
	mt_jview v;

	memset(s, 0, sizeof(*s));
	mt_jview_init(&v, scan, "scan");
	s->repo = mt_jview_str(&v, "repo");
	s->rev = mt_jview_str(&v, "rev");
	s->requested_rev = mt_jview_str(&v, "requested_rev");
	s->worktree = mt_jview_bool(&v, "worktree", 0);
	s->paths = mt_view_strings(mt_jview_opt_get(&v, "paths"), &s->npaths); /* a limited scan's */
	s->paths_missing = mt_view_strings(mt_jview_opt_get(&v, "paths_missing"), &s->npaths_missing);
	s->files_scanned = mt_jview_int(&v, "files_scanned", 0);
	s->ops = read_ops(&v, mt_jview_get(&v, "ops"), 0, &s->nops);
	read_findings(&v, s);
	read_deps(&v, s);
	read_files(&v, s);
	read_totals(&v, s);
	s->has_sites = mt_jview_opt_get(&v, "calls") != NULL;
	s->calls = read_sites(&v, "calls", "api", &s->ncalls);
	s->methods = read_sites(&v, "methods", "name", &s->nmethods);
	s->has_method_ops = mt_jview_opt_get(&v, "method_ops") != NULL;
	s->method_ops = read_ops(&v, mt_jview_opt_get(&v, "method_ops"), 1, &s->nmethod_ops);
	s->totals_json = mt_jview_opt_get(&v, "totals"); /* required above */
	return mt_jview_complete(&v);
}

static void ops_free(mt_scan_op *ops, size_t n)
{
	for (size_t i = 0; ops && i < n; i++)
		free(ops[i].files);
	free(ops);
}

void mt_scan_view_dispose(mt_scan_view *s)
{
	if (!s)
		return;
	free(s->paths);
	free(s->paths_missing);
	free(s->skipped);
	ops_free(s->ops, s->nops);
	ops_free(s->method_ops, s->nmethod_ops);
	free(s->findings);
	free(s->deps);
	free(s->files);
	free(s->calls);
	free(s->methods);
	memset(s, 0, sizeof(*s));
}
