/* Exact op inventories from TorchScript archives and dispatch traces. */
#include "exact.h"
#include "error.h"
#include "jsonutil.h"
#include "mt_torch.h"
#include "util.h"
#include "zip.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --- the zip container, checked before libtorch sees it ------------------- */

/* An entry under <archive>/code/: the serialized TorchScript. */
static int has_code(const mt_zip_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (memmem(e[i].name, e[i].name_len, "/code/", 6))
			return 1;
	return 0;
}

int mt_torchscript_check(const char *path, int64_t *size)
{
	const unsigned char *map = NULL;
	mt_zip_entry *entries = NULL;
	const char *why = NULL;
	uint64_t len = 0;
	size_t n = 0;
	int error;

	*size = 0;
	if ((error = mt_file_map(path, &map, &len)) < 0)
		return error;
	*size = (int64_t)len;
	if (len == 0)
		error = mt_error_set(MT_EINVALID, "%s: empty file, not a TorchScript archive", path);
	else if (len > (uint64_t)MT_TORCHSCRIPT_MAX_SIZE)
		error = mt_error_set(MT_EINVALID,
				     "%s: %" PRIu64 " bytes, over the %" PRId64
				     "-byte limit for a TorchScript archive",
				     path, len, MT_TORCHSCRIPT_MAX_SIZE);
	else if (len >= 2 && map[0] == 0x80 && map[1] <= 5)
		error = mt_error_set(MT_EINVALID,
				     "%s: a pickle (torch.save's legacy format), not a TorchScript "
				     "archive; export the model with torch.jit.script(model).save(PATH)",
				     path);
	else if (len < 4 || memcmp(map, "PK\3\4", 4) != 0)
		error = mt_error_set(MT_EINVALID,
				     "%s: not a zip file, so not a TorchScript archive (torch.jit.save "
				     "writes a zip)",
				     path);
	else if (mt_zip_list(map, len, &entries, &n, &why) < 0)
		error = mt_error_set(MT_EINVALID, "%s: %s", path, why);
	else if (!has_code(entries, n) || !mt_zip_find_suffix(entries, n, "/constants.pkl"))
		error = mt_error_set(
			MT_EINVALID, "%s: %s; export the model with torch.jit.script(model).save(PATH)",
			path,
			mt_zip_find_suffix(entries, n, "/data.pkl")
				? "a torch.save checkpoint (weights and pickled Python objects), "
				  "not a TorchScript archive (it has no code/)"
				: "a zip file without the code/ and constants.pkl entries of a "
				  "TorchScript archive");
	free(entries);
	mt_file_unmap(map, len);
	return error;
}

/* --- inventories ------------------------------------------------------------ */

static void add_unique(json_t *arr, json_t *value)
{
	json_t *v;
	size_t i;
	json_array_foreach(arr, i, v)
		if (json_equal(v, value))
			return;
	json_array_append(arr, value);
}

/* ops[name]: created empty on first use. */
static json_t *op_entry(json_t *ops, const char *name)
{
	json_t *e = json_object_get(ops, name);
	if (!e) {
		e = json_pack("{sI, s[], s[], s[]}", "count", (json_int_t)0, "overloads", "dtypes",
			      "files");
		json_object_set_new(ops, name, e);
	}
	return e;
}

static void add_count(json_t *e, json_int_t n)
{
	json_t *c = json_object_get(e, "count");
	json_integer_set(c, json_integer_value(c) + n);
}

static json_t *new_inventory(const char *source, const char *path)
{
	char *abs = path ? mt_path_abs(path) : NULL;
	json_t *inv = json_pack("{ss, s[], s[], s{}}", "source", source, "calls", "methods", "ops");
	if (path)
		json_object_set_new(inv, "file", json_string(abs ? abs : path));
	free(abs);
	return inv;
}

int mt_torchscript_inventory(json_t **out, const char *path)
{
	char *text = NULL, version[64] = "";
	json_t *graph = NULL, *inv = NULL, *op, *site, *v;
	json_error_t jerr;
	int64_t size;
	size_t i, k;
	int error;

	*out = NULL;
	if ((error = mt_torchscript_check(path, &size)) < 0 ||
	    (error = mt_torch_script_ops(path, &text)) < 0 ||
	    (error = mt_torch_version(version, sizeof(version))) < 0)
		goto done;
	if (!(graph = json_loads(text, 0, &jerr))) {
		error = mt_error_set(MT_EIO, "%s: the shim's answer is not JSON: %s", path, jerr.text);
		goto done;
	}
	inv = new_inventory("torchscript", path);
	json_object_set_new(inv, "size", json_integer(size));
	json_array_foreach(json_object_get(graph, "ops"), i, op) {
		const char *name = json_string_value(json_object_get(op, "op"));
		json_t *e = op_entry(json_object_get(inv, "ops"), name);
		json_t *overload = json_object_get(op, "overload");

		add_count(e, json_integer_value(json_object_get(op, "count")));
		add_unique(json_object_get(e, "overloads"), overload);
		json_array_foreach(json_object_get(op, "dtypes"), k, v)
			add_unique(json_object_get(e, "dtypes"), v);
		json_array_foreach(json_object_get(op, "dtype_args"), k, v) {
			if (!json_object_get(e, "dtype_args"))
				json_object_set_new(e, "dtype_args", json_array());
			add_unique(json_object_get(e, "dtype_args"), v);
		}
		json_array_foreach(json_object_get(op, "sites"), k, site) {
			const char *file = json_string_value(json_object_get(site, "file"));
			json_t *call = json_pack("{ss, ss, sO, sO}", "api", name, "op", name, "count",
						 json_object_get(site, "count"), "module",
						 json_object_get(site, "module"));
			if (file && *file) { /* nodes the graph knows no line of have no file */
				json_object_set(call, "file", json_object_get(site, "file"));
				json_object_set(call, "line", json_object_get(site, "line"));
				json_object_set(call, "col", json_object_get(site, "col"));
				add_unique(json_object_get(e, "files"), json_object_get(site, "file"));
			}
			json_array_append_new(json_object_get(inv, "calls"), call);
		}
	}
	json_object_del(graph, "ops");
	json_object_set_new(graph, "torch", json_string(version));
	json_object_set(inv, "torchscript", graph);
	*out = inv;
	inv = NULL;
done:
	json_decref(inv);
	json_decref(graph);
	free(text);
	return error;
}

/* --- traces ------------------------------------------------------------------- */

struct trace_ctx {
	const char *name;
	char where[128];
};

static int bad(struct trace_ctx *c, const char *what)
{
	return mt_error_set(MT_EINVALID, "%s: %s: %s", c->name, c->where, what);
}

/* t[key] of a type: the value, or NULL with the error set naming the field. */
static json_t *field(struct trace_ctx *c, json_t *t, const char *key, json_type type,
		     int optional, const char *what)
{
	json_t *v = json_object_get(t, key);
	if ((!v || json_is_null(v)) && optional)
		return v ? v : json_null();
	int typed = type == JSON_TRUE ? json_is_boolean(v) : v && json_typeof(v) == type;
	if (!typed || (type == JSON_INTEGER && json_integer_value(v) < 0)) {
		size_t len = strlen(c->where);
		snprintf(c->where + len, sizeof(c->where) - len, "%s%s", len ? "." : "", key);
		bad(c, v ? what : "missing");
		c->where[len] = '\0';
		return NULL;
	}
	return v;
}

static int check_strings(struct trace_ctx *c, json_t *arr, const char *key)
{
	json_t *v;
	size_t i;
	json_array_foreach(arr, i, v)
		if (!json_is_string(v)) {
			size_t len = strlen(c->where);
			snprintf(c->where + len, sizeof(c->where) - len, "%s%s[%zu]", len ? "." : "",
				 key, i);
			return bad(c, "expected a string");
		}
	return 0;
}

static int trace_op(struct trace_ctx *c, json_t *inv, json_t *op, size_t index)
{
	json_t *name, *overload, *count, *dtypes, *shapes, *phases, *e, *bwd;
	char base[256];
	int fresh;

	snprintf(c->where, sizeof(c->where), "ops[%zu]", index);
	if (!json_is_object(op))
		return bad(c, "expected an object");
	if (!(name = field(c, op, "op", JSON_STRING, 0, "expected a string")) ||
	    !(overload = field(c, op, "overload", JSON_STRING, 1, "expected a string")) ||
	    !(count = field(c, op, "count", JSON_INTEGER, 0, "expected a non-negative integer")) ||
	    !(dtypes = field(c, op, "dtypes", JSON_ARRAY, 1, "expected an array")) ||
	    !(shapes = field(c, op, "shapes", JSON_ARRAY, 1, "expected an array")) ||
	    !(phases = field(c, op, "phases", JSON_OBJECT, 1, "expected an object")) ||
	    !(bwd = field(c, op, "backward_only", JSON_TRUE, 1, "expected true or false")))
		return mt_error_last_code();
	if (json_is_array(dtypes) && check_strings(c, dtypes, "dtypes") < 0)
		return mt_error_last_code();
	if (!strstr(json_string_value(name), "::"))
		return bad(c, "op: expected a qualified operator name such as aten::add");
	/* torch 1.13 wraps optimizer.step and zero_grad in profiler ranges: that
	 * instrumentation is no op of the model's */
	if (strncmp(json_string_value(name), "profiler::", 10) == 0)
		return 0;
	snprintf(base, sizeof(base), "%s", json_string_value(name));
	e = op_entry(json_object_get(inv, "ops"), base);
	/* backward_only holds for the base op when it holds for every overload */
	fresh = !json_object_get(e, "backward_only");
	json_object_set_new(e, "backward_only",
			    json_boolean(json_is_true(bwd) &&
					 (fresh || json_is_true(json_object_get(e, "backward_only")))));
	add_count(e, json_integer_value(count));
	if (json_is_string(overload)) { /* "" for the default overload, as in schemas */
		json_t *o = json_string(strcmp(json_string_value(overload), "default") == 0
						? "" : json_string_value(overload));
		add_unique(json_object_get(e, "overloads"), o);
		json_decref(o);
	}
	if (json_is_array(dtypes)) {
		size_t i;
		json_t *v;
		json_array_foreach(dtypes, i, v)
			add_unique(json_object_get(e, "dtypes"), v);
	}
	if (json_is_object(phases)) {
		json_t *sum = json_object_get(e, "phases"), *v;
		const char *k;
		if (!sum)
			json_object_set_new(e, "phases", sum = json_object());
		json_object_foreach(phases, k, v) {
			json_t *have = json_object_get(sum, k);
			json_object_set_new(sum, k, json_integer(json_integer_value(have) +
								 json_integer_value(v)));
		}
	}
	if (json_is_array(shapes)) {
		json_t *all = json_object_get(e, "shapes"), *v;
		size_t i;
		if (!all)
			json_object_set_new(e, "shapes", all = json_array());
		json_array_foreach(shapes, i, v)
			add_unique(all, v);
		json_object_set_new(e, "distinct_shapes",
				    json_integer(json_integer_value(json_object_get(e, "distinct_shapes")) +
						 (json_is_integer(json_object_get(op, "distinct_shapes"))
							  ? json_integer_value(json_object_get(op, "distinct_shapes"))
							  : (json_int_t)json_array_size(shapes))));
	}
	json_array_append_new(json_object_get(inv, "calls"),
			      json_pack("{ss, ss, sO}", "api", base, "op", base, "count", count));
	return 0;
}

int mt_trace_parse(json_t **out, const char *text, size_t len, const char *name)
{
	struct trace_ctx c = {.name = name};
	json_t *root, *inv = NULL, *ops, *meta, *v;
	json_error_t jerr;
	const char *format;
	size_t i;
	int error = 0;

	*out = NULL;
	if (!(root = json_loadb(text, len, 0, &jerr)))
		return mt_error_set(MT_EINVALID, "%s:%d:%d: not JSON: %s", name, jerr.line,
				    jerr.column, jerr.text);
	format = json_string_value(json_object_get(root, "format"));
	if (!json_is_object(root) || !format || strcmp(format, "mtrial-optrace") != 0) {
		error = mt_error_set(MT_EINVALID,
				     "%s: not an optrace file (\"format\": \"mtrial-optrace\" missing); "
				     "produce one with probes/optrace.py",
				     name);
		goto done;
	}
	if (json_integer_value(json_object_get(root, "version")) != 1) {
		error = mt_error_set(MT_EINVALID, "%s: version: %s; this mtrial reads version 1", name,
				     json_is_integer(json_object_get(root, "version"))
					     ? "unsupported"
					     : "missing or not an integer");
		goto done;
	}
	if (!(ops = field(&c, root, "ops", JSON_ARRAY, 0, "expected an array")) ||
	    !field(&c, root, "torch", JSON_STRING, 0, "expected a string") ||
	    !field(&c, root, "steps", JSON_INTEGER, 1, "expected a non-negative integer") ||
	    !field(&c, root, "devices", JSON_ARRAY, 1, "expected an array")) {
		error = mt_error_last_code();
		goto done;
	}
	inv = new_inventory("trace", NULL);
	json_array_foreach(ops, i, v)
		if ((error = trace_op(&c, inv, v, i)) < 0)
			goto done;
	meta = json_object();
	for (const char *const *k = (const char *const[]){"torch", "python", "devices", "command",
							  "steps", "max_steps", "ended",
							  "exit_status", "error", NULL};
	     *k; k++)
		if (json_object_get(root, *k))
			json_object_set(meta, *k, json_object_get(root, *k));
	json_object_set_new(inv, "trace", meta);
	*out = inv;
	inv = NULL;
done:
	json_decref(inv);
	json_decref(root);
	return error;
}

int mt_trace_inventory(json_t **out, const char *path)
{
	char *text = NULL, *abs;
	size_t len = 0;
	int error;

	*out = NULL;
	if ((error = mt_file_read(&text, &len, path)) < 0)
		return error;
	if ((error = mt_trace_parse(out, text, len, path)) == 0) {
		abs = mt_path_abs(path);
		json_object_set_new(*out, "file", json_string(abs ? abs : path));
		free(abs);
	}
	free(text);
	return error;
}

/* --- diff ----------------------------------------------------------------------- */

static int is_scan(json_t *inv)
{
	const char *s = json_string_value(json_object_get(inv, "source"));
	return !s || strcmp(s, "scan") == 0; /* a recorded scan has no source key */
}

static json_t *side(json_t *inv)
{
	json_t *s = json_pack("{ss}", "source", is_scan(inv) ? "scan" : json_string_value(json_object_get(inv, "source")));
	if (json_object_get(inv, "file"))
		json_object_set(s, "file", json_object_get(inv, "file"));
	if (json_object_get(inv, "rev"))
		json_object_set(s, "rev", json_object_get(inv, "rev"));
	return s;
}

/* The base name of an op key ("aten::add.Tensor" -> "aten::add"). */
static void base_name(char *buf, size_t size, const char *op)
{
	const char *colons = strstr(op, "::");
	const char *dot = strchr(colons ? colons + 2 : op, '.');
	size_t n = dot ? (size_t)(dot - op) : strlen(op);
	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), op);
}

static void count_base(json_t *counts, const char *op, json_int_t n)
{
	char base[256];
	base_name(base, sizeof(base), op);
	json_object_set_new(counts, base,
			    json_integer(json_integer_value(json_object_get(counts, base)) + n));
}

/* {base op: count} of an inventory's ops, with a scan's tensor-method
 * calls (x.double() is aten::to), which its "ops" leaves out. */
static json_t *counts_by_base(json_t *inv)
{
	json_t *counts = json_object(), *e;
	const char *op;
	size_t i;

	json_object_foreach(json_object_get(inv, "ops"), op, e)
		count_base(counts, op, json_integer_value(json_object_get(e, "count")));
	json_array_foreach(json_object_get(inv, "methods"), i, e)
		if (json_is_string(json_object_get(e, "op")))
			count_base(counts, json_string_value(json_object_get(e, "op")), 1);
	return counts;
}

int mt_inventory_diff(json_t **out, json_t *a, json_t *b)
{
	json_t *ca = counts_by_base(a), *cb = counts_by_base(b), *v, *e;
	json_t *d = json_pack("{so, so, s[], s[], s[], s[], s{}}", "a", side(a), "b", side(b),
			      "only_a", "only_b", "both", "backward_only", "counts");
	json_t *missed = NULL;
	const char *op;

	if (!d || !ca || !cb) {
		json_decref(d);
		json_decref(ca);
		json_decref(cb);
		return mt_error_set(MT_EIO, "comparing inventories: out of memory");
	}
	if (is_scan(a) != is_scan(b)) {
		missed = json_array();
		json_object_set_new(d, "missed_by_scan", missed);
	}
	json_object_foreach(ca, op, v) {
		json_t *other = json_object_get(cb, op);
		json_array_append_new(json_object_get(d, other ? "both" : "only_a"), json_string(op));
		json_object_set_new(json_object_get(d, "counts"), op,
				    json_pack("[O, I]", v, other ? json_integer_value(other) : 0));
		if (!other && missed && is_scan(b))
			json_array_append_new(missed, json_string(op));
	}
	json_object_foreach(cb, op, v) {
		if (json_object_get(ca, op))
			continue;
		json_array_append_new(json_object_get(d, "only_b"), json_string(op));
		json_object_set_new(json_object_get(d, "counts"), op, json_pack("[I, O]", (json_int_t)0, v));
		if (missed && is_scan(a))
			json_array_append_new(missed, json_string(op));
	}
	for (int k = 0; k < 2; k++)
		json_object_foreach(json_object_get(k ? b : a, "ops"), op, e)
			if (json_is_true(json_object_get(e, "backward_only"))) {
				json_t *name = json_string(op);
				add_unique(json_object_get(d, "backward_only"), name);
				json_decref(name);
			}
	mt_json_array_sort(json_object_get(d, "only_a"), mt_json_cmp_strings);
	mt_json_array_sort(json_object_get(d, "only_b"), mt_json_cmp_strings);
	mt_json_array_sort(json_object_get(d, "both"), mt_json_cmp_strings);
	mt_json_array_sort(json_object_get(d, "backward_only"), mt_json_cmp_strings);
	if (missed)
		mt_json_array_sort(missed, mt_json_cmp_strings);
	json_decref(ca);
	json_decref(cb);
	*out = d;
	return 0;
}
