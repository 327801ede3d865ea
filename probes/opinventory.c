/* Exact op inventories from TorchScript archives and dispatch traces. */
#include "opinventory.h"
#include "embedded.h"
#include "error.h"
#include "jsonutil.h"
#include "mt_torch.h"
#include "util.h"
#include "ytree.h"
#include "zip.h"

#include <inttypes.h>
#include <libdeflate.h>
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

/* An entry's bytes: stored ones borrowed from the map, deflated ones
 * inflated into *heap (the caller frees it). NULL with *why on failure. */
static const unsigned char *entry_bytes(const unsigned char *map, const mt_zip_entry *e,
					unsigned char **heap, size_t *len, const char **why)
{
	struct libdeflate_decompressor *d;
	size_t cap = e->size * 4 + 4096;
	enum libdeflate_result r = LIBDEFLATE_INSUFFICIENT_SPACE;

	*heap = NULL;
	*len = (size_t)e->size;
	if (e->method == 0)
		return map + e->offset;
	if (e->method != 8)
		return *why = "compressed with a method other than deflate", NULL;
	if (!(d = libdeflate_alloc_decompressor()))
		return *why = "out of memory", NULL;
	while (r == LIBDEFLATE_INSUFFICIENT_SPACE && cap <= MT_TORCHSCRIPT_MAX_CODE) {
		free(*heap);
		if (!(*heap = malloc(cap)))
			break;
		r = libdeflate_deflate_decompress(d, map + e->offset, (size_t)e->size, *heap, cap, len);
		cap *= 2;
	}
	libdeflate_free_decompressor(d);
	if (r == LIBDEFLATE_SUCCESS)
		return *heap;
	free(*heap);
	*heap = NULL;
	*why = r == LIBDEFLATE_INSUFFICIENT_SPACE ? "larger than the limit for code once inflated"
						   : "corrupt deflate data";
	return NULL;
}

struct nesting {
	size_t line, depth;     /* where the deepest point is, and how deep */
	size_t indent_line, indents;
};

/* The deepest bracket nesting and indentation of Python source, outside
 * strings and comments: what libtorch's recursive-descent parser recurses
 * on. Indentation levels are counted up to one over the limit. */
static void measure_nesting(const unsigned char *p, size_t n, struct nesting *out)
{
	size_t line = 1, depth = 0, col = 0, levels = 0, widths[MT_TORCHSCRIPT_MAX_INDENT + 2];
	int quote = 0, triple = 0, comment = 0, bol = 1;

	memset(out, 0, sizeof(*out));
	widths[0] = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (c == '\n') {
			line++, comment = 0, bol = 1, col = 0;
			quote = triple ? quote : 0; /* an unclosed quote ends with its line */
			continue;
		}
		if (bol && (c == ' ' || c == '\t')) {
			col += c == '\t' ? 8 - col % 8 : 1;
			continue;
		}
		if (bol && !quote && depth == 0 && c != '#' && c != '\r') {
			while (levels && col < widths[levels])
				levels--;
			if (col > widths[levels] && levels <= MT_TORCHSCRIPT_MAX_INDENT)
				widths[++levels] = col;
			if (levels > out->indents)
				out->indents = levels, out->indent_line = line;
		}
		bol = 0;
		if (comment)
			continue;
		if (quote) {
			if (c == '\\')
				i++;
			else if (c == quote && (!triple || (i + 2 < n && p[i + 1] == c && p[i + 2] == c)))
				i += triple ? 2 : 0, quote = 0;
		} else if (c == '#') {
			comment = 1;
		} else if (c == '\'' || c == '"') {
			quote = c;
			triple = i + 2 < n && p[i + 1] == c && p[i + 2] == c;
			i += triple ? 2 : 0;
		} else if (c == '(' || c == '[' || c == '{') {
			if (++depth > out->depth)
				out->depth = depth, out->line = line;
		} else if ((c == ')' || c == ']' || c == '}') && depth) {
			depth--;
		}
	}
}

/* Refuses code nested deeper than Python itself accepts before libtorch's
 * recursive parser sees it: 100,000 nested parentheses overflow its stack. */
static int check_nesting(const char *path, const unsigned char *map, const mt_zip_entry *entries,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const mt_zip_entry *e = &entries[i];
		unsigned char *heap = NULL;
		const unsigned char *text;
		const char *why = NULL;
		struct nesting nest;
		size_t len;

		if (!memmem(e->name, e->name_len, "/code/", 6) || e->name_len < 3 ||
		    memcmp(e->name + e->name_len - 3, ".py", 3) != 0)
			continue;
		if (!(text = entry_bytes(map, e, &heap, &len, &why)))
			return mt_error_set(MT_EINVALID, "%s: %.*s: %s", path, (int)e->name_len, e->name,
					    why);
		measure_nesting(text, len, &nest);
		free(heap);
		if (nest.depth > MT_TORCHSCRIPT_MAX_NESTING)
			return mt_error_set(MT_EINVALID,
					    "%s: %.*s:%zu: brackets nested %zu deep, over the limit of "
					    "%d (Python's own); refused before libtorch parses it",
					    path, (int)e->name_len, e->name, nest.line, nest.depth,
					    MT_TORCHSCRIPT_MAX_NESTING);
		if (nest.indents > MT_TORCHSCRIPT_MAX_INDENT)
			return mt_error_set(MT_EINVALID,
					    "%s: %.*s:%zu: blocks indented over %d levels deep (Python's "
					    "own limit); refused before libtorch parses it",
					    path, (int)e->name_len, e->name, nest.indent_line,
					    MT_TORCHSCRIPT_MAX_INDENT);
	}
	return 0;
}

int mt_opinventory_torchscript_check(const char *path, int64_t *size)
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
	else
		error = check_nesting(path, map, entries, n);
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

int mt_opinventory_torchscript_inventory(json_t **out, const char *path)
{
	char *text = NULL, version[64] = "";
	json_t *graph = NULL, *inv = NULL, *op, *site, *v;
	json_error_t jerr;
	int64_t size;
	size_t i, k;
	int error;

	*out = NULL;
	if ((error = mt_opinventory_torchscript_check(path, &size)) < 0 ||
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
		json_object_set_new(e, "conditional",
				    json_integer(json_integer_value(json_object_get(e, "conditional")) +
						 json_integer_value(json_object_get(op, "conditional"))));
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
	json_object_set_new(graph, "note", json_string(MT_TORCHSCRIPT_COUNTS));
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

int mt_opinventory_trace_parse(json_t **out, const char *text, size_t len, const char *name)
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
							  "steps", "step_counter", "max_steps",
							  "ended", "exit_status", "error",
							  "incomplete", "warnings", NULL};
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

int mt_opinventory_trace(json_t **out, const char *path)
{
	char *text = NULL, *abs;
	size_t len = 0;
	int error;

	*out = NULL;
	if ((error = mt_file_read(&text, &len, path)) < 0)
		return error;
	if ((error = mt_opinventory_trace_parse(out, text, len, path)) == 0) {
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

/* {composite: [ops]} of a tables/decompositions.yaml tree. */
static json_t *decompositions_json(const mt_ynode *map)
{
	json_t *table = json_object();
	for (size_t i = 0; map && map->kind == MT_YNODE_MAP && i < map->n; i++) {
		const mt_ynode *list = map->kids[i];
		json_t *ops = json_array();
		for (size_t k = 0; list->kind == MT_YNODE_LIST && k < list->n; k++)
			if (list->kids[k]->kind == MT_YNODE_SCALAR)
				json_array_append_new(ops, json_string(list->kids[k]->text));
		json_object_set_new(table, list->key, ops);
	}
	return table;
}

/* tables/decompositions.yaml's {composite: [ops it dispatches to]}, loaded
 * once (kept for the process); NULL with the error set when unreadable. */
static json_t *decompositions(void)
{
	static json_t *table;
	const mt_ynode *map;
	mt_ytree *tree = NULL;
	char *text = NULL;

	if (table)
		return table;
	if (mt_embedded_load(&text, mt_embedded_tables, "MTRIAL_TABLES_DIR", "decompositions.yaml") < 0)
		return NULL;
	if (mt_ytree_parse(&tree, text, strlen(text), "decompositions.yaml", 0, NULL) == 0) {
		map = mt_ytree_get(mt_ytree_root(tree), "decompositions");
		if (map && map->kind == MT_YNODE_MAP)
			table = decompositions_json(map);
		else
			mt_error_set(MT_EINVALID, "decompositions.yaml: no decompositions map");
	}
	mt_ytree_free(tree);
	free(text);
	return table;
}

static int is_trace(json_t *inv)
{
	const char *s = json_string_value(json_object_get(inv, "source"));
	return s && strcmp(s, "trace") == 0;
}

static void append_string(json_t *arr, const char *s)
{
	json_array_append_new(arr, json_string(s));
}

/* An op that this many composites or more dispatch to (aten::clone,
 * aten::view, aten::mul) is generic: seen in a trace, it shows that some
 * composite ran, not which. A composite is matched through an op of its own
 * (aten::native_batch_norm for aten::batch_norm), never through a generic
 * one alone: an SGD's momentum aten::clone is no aten::batch_norm. */
#define GENERIC_DECOMPOSED 4

/* How many composites of the table dispatch to op. */
static size_t composites_naming(json_t *table, const char *op)
{
	static json_t *freq; /* {op: n}, for the process, like the table */
	json_t *list, *t;
	const char *c;
	size_t i;

	if (!freq) {
		freq = json_object();
		json_object_foreach(table, c, list)
			json_array_foreach(list, i, t)
				json_object_set_new(freq, json_string_value(t),
						    json_integer(json_integer_value(json_object_get(
							    freq, json_string_value(t))) + 1));
	}
	return (size_t)json_integer_value(json_object_get(freq, op));
}

/* 1 when the trace ran op in a way a forward call of the code can explain:
 * not only in backward (a composite's gradient, not its forward), and not
 * only inside the optimizer's step (torch.optim's own ops). */
static int forward_like(json_t *disp_ops, const char *op)
{
	json_t *e = json_object_get(disp_ops, op), *ph = json_object_get(e, "phases");
	json_int_t n = json_integer_value(json_object_get(e, "count"));

	if (json_is_true(json_object_get(e, "backward_only")))
		return 0;
	return !ph || json_integer_value(json_object_get(ph, "optimizer")) < n;
}

/* The trace's ops (not named by the other side itself) that composite c's
 * entry lists, into seen; *specific set when one of them is not generic. */
static void decomposed_seen(json_t *seen, int *specific, json_t *table, const char *c, json_t *comp,
			    json_t *disp, json_t *disp_ops)
{
	json_t *t;
	size_t i;

	*specific = 0;
	json_array_foreach(json_object_get(table, c), i, t) {
		const char *op = json_string_value(t);
		if (!json_object_get(disp, op) || json_object_get(comp, op) || !forward_like(disp_ops, op))
			continue;
		json_array_append(seen, t);
		*specific |= composites_naming(table, op) < GENERIC_DECOMPOSED;
	}
}

/* Matches the composites one side names (a scan or a graph: aten::log_softmax)
 * to the ops the dispatch trace ran instead (aten::_log_softmax): fills
 * d.decompositions {composite: [trace ops]}, and *explained {op: 1} with
 * the trace's ops a composite accounts for. A composite whose entry has an
 * op of its own needs that op in the trace; one that dispatches only to
 * generic ops (aten::reshape to aten::clone) is matched by them. */
static int match_decompositions(json_t *d, json_t *comp, json_t *disp, json_t *disp_ops,
				json_t *explained)
{
	json_t *table = decompositions(), *into, *t;
	const char *c;

	if (!table)
		return mt_error_last_code();
	json_object_foreach(comp, c, into) {
		json_t *seen;
		int specific, has_specific = 0;
		size_t i;
		if (json_object_get(disp, c)) /* the trace saw the composite itself */
			continue;
		json_array_foreach(json_object_get(table, c), i, t)
			has_specific |= composites_naming(table, json_string_value(t)) < GENERIC_DECOMPOSED;
		seen = json_array();
		decomposed_seen(seen, &specific, table, c, comp, disp, disp_ops);
		if (json_array_size(seen) && (specific || !has_specific)) {
			json_array_foreach(seen, i, t)
				json_object_set_new(explained, json_string_value(t), json_true());
			json_object_set_new(json_object_get(d, "decompositions"), c, seen);
		} else {
			json_decref(seen);
		}
	}
	return 0;
}

/* Which list an op only one side has goes to: every op is in exactly one. */
static const char *bucket(json_t *d, json_t *inv, json_t *other, const char *op, json_t *explained,
			  int side)
{
	json_t *e = json_object_get(json_object_get(inv, "ops"), op);
	if (json_object_get(json_object_get(d, "decompositions"), op))
		return "decomposed";
	if (json_object_get(explained, op))
		return "explained";
	if (is_trace(inv) && !is_trace(other) && json_is_true(json_object_get(e, "backward_only")))
		return "backward_only"; /* neither a scan nor a graph has a backward pass */
	if (is_scan(other) && !is_scan(inv))
		return "missed_by_scan";
	return side ? "only_b" : "only_a";
}

static void sort_lists(json_t *d)
{
	const char *k;
	json_t *v;
	json_object_foreach(d, k, v)
		if (json_is_array(v))
			mt_json_array_sort(v, mt_json_cmp_strings);
}

int mt_opinventory_diff(json_t **out, json_t *a, json_t *b)
{
	json_t *ca = counts_by_base(a), *cb = counts_by_base(b), *explained = json_object(), *v;
	json_t *d = json_pack("{so, so, s[], s[], s[], s[], s[], s[], s{}, s{}}", "a", side(a), "b",
			      side(b), "only_a", "only_b", "both", "backward_only", "decomposed",
			      "explained", "decompositions", "counts");
	const char *op;
	int error = 0;

	if (!d || !ca || !cb || !explained) {
		error = mt_error_set(MT_EIO, "comparing inventories: out of memory");
		goto done;
	}
	if (is_scan(a) != is_scan(b))
		json_object_set_new(d, "missed_by_scan", json_array());
	if (is_trace(a) != is_trace(b) &&
	    (error = match_decompositions(d, is_trace(a) ? cb : ca, is_trace(a) ? ca : cb,
					  json_object_get(is_trace(a) ? a : b, "ops"), explained)) < 0)
		goto done;
	for (int k = 0; k < 2; k++)
		json_object_foreach(k ? cb : ca, op, v) {
			json_t *other = json_object_get(k ? ca : cb, op);
			if (other && k)
				continue;
			append_string(json_object_get(d, other ? "both" : bucket(d, k ? b : a, k ? a : b, op,
										explained, k)),
				      op);
			json_object_set_new(json_object_get(d, "counts"), op,
					    k ? json_pack("[I, O]", (json_int_t)0, v)
					      : json_pack("[O, I]", v, other ? json_integer_value(other) : 0));
		}
	sort_lists(d);
	*out = d;
	d = NULL;
done:
	json_decref(d);
	json_decref(ca);
	json_decref(cb);
	json_decref(explained);
	return error;
}
