/* torch.save files without libtorch: a zip, a pickle and the storages. */
#include "torchsave.h"
#include "arena.h"
#include "error.h"
#include "util.h"
#include "zip.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- pickle values ---------------------------------------------------------- */

enum vkind { V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_TUPLE, V_LIST, V_DICT, V_GLOBAL,
	     V_STORAGE, V_TENSOR, V_MARK, V_OBJ };

/* A global the pickle names that tensors do not need, and whether a REDUCE
 * or NEWOBJ calls it. */
struct ts_global {
	const char *name; /* in the arena */
	int called;
};

typedef struct val {
	enum vkind k;
	int64_t i;
	double f;
	const char *s; /* V_STR: the text; V_GLOBAL: "module.name" */
	struct val **items; /* tuple, list: n items; dict: n/2 key, value pairs */
	size_t n, cap;
	/* V_STORAGE */
	mt_dtype dtype;
	const unsigned char *data;
	uint64_t nbytes;
	/* V_TENSOR */
	mt_tensor t;
	const unsigned char *owned; /* a gathered copy, or NULL */
} val;

struct mt_torchsave {
	const unsigned char *map;
	uint64_t len;
	int mapped; /* map is ours to unmap (open), else borrowed (parse) */
	mt_arena *arena;
	mt_tensor *tensors;
	size_t n, cap;
	unsigned char **copies; /* gathered strided tensors */
	size_t ncopies;
	uint64_t gathered; /* their bytes, bounded by gather_limit() */
	struct ts_global *globals; /* distinct, outside what tensors need */
	size_t nglobals;
};

/* The state of one unpickling. */
struct pk {
	const char *path;
	mt_torchsave *f;
	const mt_zip_entry *entries;
	size_t nentries;
	const char *prefix; /* "archive/" of archive/data.pkl */
	size_t prefix_len;
	const unsigned char *p, *end;
	val **stack;
	size_t sp, scap;
	val **memo;
	size_t nmemo, memo_used; /* memo slots allocated, and written (MEMOIZE's next index) */
	uint64_t pkl_len;        /* data.pkl's length: bounds the memo */
};

static val *new_val(struct pk *k, enum vkind kind)
{
	val *v = mt_arena_alloc(&k->f->arena, sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->k = kind;
	return v;
}

static void add_item(struct pk *k, val *c, val *item)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		val **items = mt_arena_alloc(&k->f->arena, cap * sizeof(*items));
		if (c->n)
			memcpy(items, c->items, c->n * sizeof(*items));
		c->items = items;
		c->cap = cap;
	}
	c->items[c->n++] = item;
}

static int push(struct pk *k, val *v)
{
	if (k->sp == k->scap) {
		size_t cap = k->scap ? 2 * k->scap : 64;
		val **s = realloc(k->stack, cap * sizeof(*s));
		if (!s)
			return mt_error_set(MT_EIO, "out of memory");
		k->stack = s;
		k->scap = cap;
	}
	k->stack[k->sp++] = v;
	return 0;
}

static val *pop(struct pk *k)
{
	return k->sp ? k->stack[--k->sp] : NULL;
}

/* The index just above the topmost mark, or (size_t)-1. */
static size_t mark_at(struct pk *k)
{
	for (size_t i = k->sp; i-- > 0;)
		if (k->stack[i]->k == V_MARK)
			return i;
	return (size_t)-1;
}

/* The memo is an array indexed by the file's numbers, so an index is bounded
 * by data.pkl's length: pickle numbers its memo from 0, one put per opcode,
 * and a pickle of N bytes holds fewer than N puts. A larger index can only
 * come from a crafted file, which would otherwise cost 8 bytes of memory per
 * unit of the index. */
static int memo_put(struct pk *k, size_t idx, val *v)
{
	if (idx >= k->pkl_len)
		return mt_error_set(MT_EINVALID, "%s: data.pkl: memo index %zu out of range (a "
				    "pickle of %llu bytes numbers its memo below that)", k->path, idx,
				    (unsigned long long)k->pkl_len);
	if (idx >= k->nmemo) {
		size_t n = idx + 64 > 2 * k->nmemo ? idx + 64 : 2 * k->nmemo;
		if (n > k->pkl_len)
			n = (size_t)k->pkl_len;
		val **m = realloc(k->memo, n * sizeof(*m));
		if (!m)
			return mt_error_set(MT_EIO, "out of memory");
		memset(m + k->nmemo, 0, (n - k->nmemo) * sizeof(*m));
		k->memo = m;
		k->nmemo = n;
	}
	if (!k->memo[idx])
		k->memo_used++;
	k->memo[idx] = v;
	return 0;
}

/* --- globals ---------------------------------------------------------------- */

/* The globals torch.save writes for tensors, dicts, lists and the plain
 * values around them (torch.load's weights_only=True allows these and the
 * dtypes, storage and tensor classes). */
static const char *const tensor_globals[] = {
	"collections.OrderedDict", "torch._utils._rebuild_tensor",
	"torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor_v3",
	"torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state",
	"torch._utils._rebuild_sparse_tensor", "torch._utils._rebuild_sparse_csr_tensor",
	"torch._utils._rebuild_meta_tensor_no_storage", "torch.nn.parameter.Parameter",
	"torch.serialization._get_layout", "torch.Size", "torch.Tensor", "torch.device",
	"_codecs.encode", "__builtin__.set", "builtins.set", "__builtin__.frozenset",
	"builtins.frozenset", "__builtin__.bytearray", "builtins.bytearray",
};

static const char *const dtype_names[] = {
	"float16", "float32", "float64", "bfloat16", "half", "float", "double", "complex32",
	"complex64", "complex128", "int8", "int16", "int32", "int64", "uint8", "bool",
	"short", "int", "long", "cfloat", "cdouble",
};

static int in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

/* torch.float32, torch.FloatStorage, torch.storage.TypedStorage,
 * torch.cuda.FloatTensor: a dtype or a storage or tensor class. */
static int tensor_class(const char *name)
{
	static const char *const modules[] = {"torch.", "torch.storage.", "torch.cuda."};
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		size_t m = strlen(modules[i]), n;
		const char *rest = name + m;
		if (strncmp(name, modules[i], m) != 0 || strchr(rest, '.'))
			continue;
		n = strlen(rest);
		if ((n > 7 && strcmp(rest + n - 7, "Storage") == 0) ||
		    (n > 6 && strcmp(rest + n - 6, "Tensor") == 0) ||
		    (i == 0 && in_list(rest, dtype_names, sizeof(dtype_names) / sizeof(dtype_names[0]))))
			return 1;
	}
	return 0;
}

/* Notes a global outside what tensors need: torch.load(weights_only=False)
 * would import it, and call it when `called`; mtrial never does either. */
static int note_global(struct pk *k, const char *name, int called)
{
	mt_torchsave *f = k->f;
	struct ts_global *g;

	if (in_list(name, tensor_globals, sizeof(tensor_globals) / sizeof(tensor_globals[0])) ||
	    tensor_class(name))
		return 0;
	for (size_t i = 0; i < f->nglobals; i++)
		if (strcmp(f->globals[i].name, name) == 0) {
			f->globals[i].called |= called;
			return 0;
		}
	if (f->nglobals == MT_TORCHSAVE_GLOBALS_MAX) /* enough to warn; the search stays short */
		return 0;
	if (!(g = realloc(f->globals, (f->nglobals + 1) * sizeof(*g))))
		return mt_error_set(MT_EIO, "out of memory");
	f->globals = g;
	f->globals[f->nglobals++] = (struct ts_global){name, called};
	return 0;
}

/* --- storages and tensors ------------------------------------------------- */

static const struct {
	const char *name;
	mt_dtype dtype;
} storages[] = {
	{"torch.FloatStorage", MT_DT_F32},   {"torch.DoubleStorage", MT_DT_F64},
	{"torch.HalfStorage", MT_DT_F16},    {"torch.BFloat16Storage", MT_DT_BF16},
	{"torch.LongStorage", MT_DT_I64},    {"torch.IntStorage", MT_DT_I32},
	{"torch.ShortStorage", MT_DT_I16},   {"torch.CharStorage", MT_DT_I8},
	{"torch.ByteStorage", MT_DT_U8},     {"torch.BoolStorage", MT_DT_BOOL},
};

/* BINPERSID ('storage', torch.FloatStorage, key, location, numel). */
static int persistent(struct pk *k, val *pid, val **out)
{
	val *type, *key, *v;
	char name[256];
	const mt_zip_entry *e;
	int dt = -1;

	if (pid->k != V_TUPLE || pid->n < 5 || pid->items[0]->k != V_STR ||
	    strcmp(pid->items[0]->s, "storage") != 0)
		return mt_error_set(MT_EINVALID, "%s: data.pkl: a persistent id that is not a storage",
				    k->path);
	type = pid->items[1];
	key = pid->items[2];
	for (size_t i = 0; type->k == V_GLOBAL && i < sizeof(storages) / sizeof(storages[0]); i++)
		if (strcmp(type->s, storages[i].name) == 0)
			dt = storages[i].dtype;
	if (dt < 0)
		return mt_error_set(MT_EINVALID, "%s: storage type %s is not supported (complex or "
				    "quantized tensors)", k->path, type->k == V_GLOBAL ? type->s : "?");
	if (key->k != V_STR)
		return mt_error_set(MT_EINVALID, "%s: data.pkl: a storage key that is not a string",
				    k->path);
	snprintf(name, sizeof(name), "%.*sdata/%s", (int)k->prefix_len, k->prefix, key->s);
	e = NULL;
	for (size_t i = 0; i < k->nentries; i++)
		if (k->entries[i].name_len == strlen(name) &&
		    memcmp(k->entries[i].name, name, k->entries[i].name_len) == 0)
			e = &k->entries[i];
	if (!e)
		return mt_error_set(MT_EINVALID, "%s: storage %s is missing from the archive", k->path,
				    name);
	if (e->method != 0)
		return mt_error_set(MT_EINVALID, "%s: storage %s is compressed (torch.save stores "
				    "them uncompressed)", k->path, name);
	v = new_val(k, V_STORAGE);
	v->dtype = (mt_dtype)dt;
	v->data = k->f->map + e->offset;
	v->nbytes = e->size;
	*out = v;
	return 0;
}

static int int_tuple(val *v, int64_t *out, int *n)
{
	if (v->k != V_TUPLE || v->n > MT_TENSOR_MAX_DIMS)
		return -1;
	for (size_t i = 0; i < v->n; i++) {
		if (v->items[i]->k != V_INT || v->items[i]->i < 0)
			return -1;
		out[i] = v->items[i]->i;
	}
	*n = (int)v->n;
	return 0;
}

/* The bytes a file's strided views may be gathered into, all together. A
 * view's size is a number in the file: a stride of 0 (an expanded tensor)
 * lets a few bytes of pickle ask for terabytes. Transposed or sliced views
 * take no more than their storages, which the file holds; the slack is for
 * honest expanded ones. */
static uint64_t gather_limit(const mt_torchsave *f)
{
	return 4 * f->len + (64u << 20);
}

/* _rebuild_tensor_v2(storage, offset, size, stride, ...): a view into the
 * storage; contiguous views point into the mapping, others are gathered. */
static int rebuild_tensor(struct pk *k, val *args, val **out)
{
	int64_t size[MT_TENSOR_MAX_DIMS], stride[MT_TENSOR_MAX_DIMS];
	int nd = 0, ns = 0, contiguous = 1;
	uint64_t numel = 1, last = 0, esize;
	val *st, *v;

	if (args->k != V_TUPLE || args->n < 4 || args->items[0]->k != V_STORAGE ||
	    args->items[1]->k != V_INT || int_tuple(args->items[2], size, &nd) < 0 ||
	    int_tuple(args->items[3], stride, &ns) < 0 || nd != ns || args->items[1]->i < 0)
		return mt_error_set(MT_EINVALID, "%s: data.pkl: malformed _rebuild_tensor_v2 arguments",
				    k->path);
	st = args->items[0];
	esize = mt_dtype_size(st->dtype);
	for (int d = nd - 1; d >= 0; d--) {
		if (size[d] && numel > UINT64_MAX / (uint64_t)size[d])
			return mt_error_set(MT_EINVALID, "%s: a tensor's size overflows", k->path);
		if (size[d] != 1 && (uint64_t)stride[d] != numel)
			contiguous = 0;
		numel *= (uint64_t)size[d];
		if (size[d])
			last += (uint64_t)(size[d] - 1) * (uint64_t)stride[d];
	}
	if (numel && ((uint64_t)args->items[1]->i + last + 1 > st->nbytes / esize))
		return mt_error_set(MT_EINVALID,
				    "%s: a tensor reaches past the end of its storage (truncated file?)",
				    k->path);
	v = new_val(k, V_TENSOR);
	v->t.dtype = st->dtype;
	v->t.ndim = nd;
	memcpy(v->t.shape, size, (size_t)nd * sizeof(int64_t));
	v->t.numel = numel;
	if (numel > UINT64_MAX / esize)
		return mt_error_set(MT_EINVALID, "%s: a tensor's size overflows", k->path);
	v->t.nbytes = numel * esize;
	if (contiguous || !numel) {
		v->t.data = st->data + (uint64_t)args->items[1]->i * esize;
	} else {
		unsigned char *copy, **copies;
		int64_t idx[MT_TENSOR_MAX_DIMS] = {0};
		if (v->t.nbytes > gather_limit(k->f) - k->f->gathered)
			return mt_error_set(MT_EINVALID, "%s: a strided view of %llu bytes (over a "
					    "storage of %llu) would take more memory than a file of "
					    "%llu bytes warrants: save it with .contiguous()", k->path,
					    (unsigned long long)v->t.nbytes,
					    (unsigned long long)st->nbytes, (unsigned long long)k->f->len);
		k->f->gathered += v->t.nbytes;
		copy = malloc(v->t.nbytes);
		copies = realloc(k->f->copies, (k->f->ncopies + 1) * sizeof(*copies));
		if (!copy || !copies) {
			free(copy);
			if (copies)
				k->f->copies = copies;
			return mt_error_set(MT_EIO, "out of memory");
		}
		k->f->copies = copies;
		k->f->copies[k->f->ncopies++] = copy;
		for (uint64_t i = 0; i < numel; i++) {
			uint64_t off = (uint64_t)args->items[1]->i;
			for (int d = 0; d < nd; d++)
				off += (uint64_t)idx[d] * (uint64_t)stride[d];
			memcpy(copy + i * esize, st->data + off * esize, esize);
			for (int d = nd - 1; d >= 0 && ++idx[d] == size[d]; d--)
				idx[d] = 0;
		}
		v->t.data = copy;
	}
	*out = v;
	return 0;
}

/* REDUCE: the callables a torch.save file needs; anything else is opaque,
 * and noted as a call torch.load would make. */
static int reduce(struct pk *k, val *fn, val *args, val **out)
{
	int error;

	if (fn->k == V_GLOBAL && strcmp(fn->s, "collections.OrderedDict") == 0) {
		*out = new_val(k, V_DICT);
		return 0;
	}
	if (fn->k == V_GLOBAL && strcmp(fn->s, "torch._utils._rebuild_tensor_v2") == 0)
		return rebuild_tensor(k, args, out);
	if (fn->k == V_GLOBAL && (strcmp(fn->s, "torch._utils._rebuild_parameter") == 0 ||
				  strcmp(fn->s, "torch._utils._rebuild_parameter_with_state") == 0) &&
	    args->k == V_TUPLE && args->n >= 1 && args->items[0]->k == V_TENSOR) {
		*out = args->items[0];
		return 0;
	}
	if (fn->k == V_GLOBAL && (error = note_global(k, fn->s, 1)) < 0)
		return error;
	*out = new_val(k, V_OBJ);
	return 0;
}

/* --- the machine ------------------------------------------------------------- */

static int need(struct pk *k, size_t n)
{
	return (size_t)(k->end - k->p) >= n ? 0 : -1;
}

static uint64_t rd_le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int str_val(struct pk *k, size_t len, val **out)
{
	val *v;
	if (need(k, len) < 0)
		return -1;
	v = new_val(k, V_STR);
	v->s = mt_arena_strndup(&k->f->arena, (const char *)k->p, len);
	k->p += len;
	*out = v;
	return 0;
}

/* GLOBAL "module\nname\n". */
static int global_val(struct pk *k, val **out)
{
	const unsigned char *nl1 = memchr(k->p, '\n', (size_t)(k->end - k->p)), *nl2;
	char buf[512];
	val *v;
	if (!nl1 || !(nl2 = memchr(nl1 + 1, '\n', (size_t)(k->end - nl1 - 1))))
		return -1;
	snprintf(buf, sizeof(buf), "%.*s.%.*s", (int)(nl1 - k->p), (const char *)k->p,
		 (int)(nl2 - nl1 - 1), (const char *)nl1 + 1);
	v = new_val(k, V_GLOBAL);
	v->s = mt_arena_strdup(&k->f->arena, buf);
	k->p = nl2 + 1;
	*out = v;
	return 0;
}

static val *tuple_from(struct pk *k, size_t from)
{
	val *t = new_val(k, V_TUPLE);
	for (size_t i = from; i < k->sp; i++)
		add_item(k, t, k->stack[i]);
	k->sp = from;
	return t;
}

static int truncated(struct pk *k)
{
	return mt_error_set(MT_EINVALID, "%s: data.pkl is truncated (an opcode's argument runs "
			    "past its end)", k->path);
}

/* Runs the pickle to STOP; *root gets the result. */
static int run(struct pk *k, val **root)
{
	const unsigned char *start = k->p;

	while (k->p < k->end) {
		unsigned op = *k->p++;
		val *v = NULL, *a, *b;
		size_t m;
		int error = 0;

		switch (op) {
		case 0x80: /* PROTO */
			if (need(k, 1) < 0)
				return truncated(k);
			k->p++;
			continue;
		case 0x95: /* FRAME */
			if (need(k, 8) < 0)
				return truncated(k);
			k->p += 8;
			continue;
		case '.': /* STOP */
			if (!(*root = pop(k)))
				return mt_error_set(MT_EINVALID, "%s: data.pkl: empty stack at STOP", k->path);
			return 0;
		case '(': v = new_val(k, V_MARK); break;
		case '}': v = new_val(k, V_DICT); break;
		case ']': v = new_val(k, V_LIST); break;
		case ')': v = new_val(k, V_TUPLE); break;
		case 'N': v = new_val(k, V_NONE); break;
		case 0x88: case 0x89: v = new_val(k, V_BOOL); v->i = op == 0x88; break;
		case 'K': case 'M': case 'J': {
			int n = op == 'K' ? 1 : op == 'M' ? 2 : 4;
			if (need(k, (size_t)n) < 0)
				return truncated(k);
			v = new_val(k, V_INT);
			v->i = op == 'J' ? (int32_t)rd_le(k->p, 4) : (int64_t)rd_le(k->p, n);
			k->p += n;
			break;
		}
		case 0x8a: { /* LONG1 */
			size_t n;
			if (need(k, 1) < 0)
				return truncated(k);
			if ((n = *k->p) > 8)
				return mt_error_set(MT_EINVALID, "%s: data.pkl: an integer wider than 64 "
						    "bits", k->path);
			if (need(k, 1 + n) < 0)
				return truncated(k);
			v = new_val(k, V_INT);
			v->i = (int64_t)rd_le(k->p + 1, (int)n);
			if (n && n < 8 && (k->p[n] & 0x80))
				v->i -= (int64_t)1 << (8 * n);
			k->p += 1 + n;
			break;
		}
		case 'G': { /* BINFLOAT, big-endian */
			uint64_t bits = 0;
			if (need(k, 8) < 0)
				return truncated(k);
			for (int i = 0; i < 8; i++)
				bits = bits << 8 | k->p[i];
			v = new_val(k, V_FLOAT);
			memcpy(&v->f, &bits, sizeof(v->f));
			k->p += 8;
			break;
		}
		case 'X': case 'T': case 0x8c: case 0x8d: case 'U': { /* strings */
			int n = op == 0x8c || op == 'U' ? 1 : op == 0x8d ? 8 : 4;
			uint64_t len;
			if (need(k, (size_t)n) < 0)
				return truncated(k);
			len = rd_le(k->p, n);
			k->p += n;
			if (len > (uint64_t)(k->end - k->p) || str_val(k, (size_t)len, &v) < 0)
				return truncated(k);
			break;
		}
		case 'c': /* GLOBAL */
			if (global_val(k, &v) < 0)
				return truncated(k);
			if ((error = note_global(k, v->s, 0)) < 0)
				return error;
			break;
		case 0x93: /* STACK_GLOBAL */
			b = pop(k);
			a = pop(k);
			if (!a || !b || a->k != V_STR || b->k != V_STR)
				return mt_error_set(MT_EINVALID, "%s: data.pkl: bad STACK_GLOBAL", k->path);
			v = new_val(k, V_GLOBAL);
			{
				char buf[512];
				snprintf(buf, sizeof(buf), "%s.%s", a->s, b->s);
				v->s = mt_arena_strdup(&k->f->arena, buf);
			}
			if ((error = note_global(k, v->s, 0)) < 0)
				return error;
			break;
		case 'q': case 'r': case 0x94: /* BINPUT, LONG_BINPUT, MEMOIZE */
			if (!k->sp)
				return mt_error_set(MT_EINVALID, "%s: data.pkl: memo of an empty stack", k->path);
			if (op == 0x94) {
				m = k->memo_used; /* pickle's len(memo) */
			} else {
				int n = op == 'q' ? 1 : 4;
				if (need(k, (size_t)n) < 0)
					return truncated(k);
				m = (size_t)rd_le(k->p, n);
				k->p += n;
			}
			if ((error = memo_put(k, m, k->stack[k->sp - 1])) < 0)
				return error;
			continue;
		case 'h': case 'j': { /* BINGET, LONG_BINGET */
			int n = op == 'h' ? 1 : 4;
			if (need(k, (size_t)n) < 0)
				return truncated(k);
			m = (size_t)rd_le(k->p, n);
			k->p += n;
			if (m >= k->nmemo || !k->memo[m])
				return mt_error_set(MT_EINVALID, "%s: data.pkl: memo %zu read before it "
						    "was written", k->path, m);
			v = k->memo[m];
			break;
		}
		case 't': /* TUPLE */
			if ((m = mark_at(k)) == (size_t)-1)
				return mt_error_set(MT_EINVALID, "%s: data.pkl: TUPLE without a mark", k->path);
			v = tuple_from(k, m + 1);
			k->sp = m; /* drop the mark */
			break;
		case 0x85: case 0x86: case 0x87: { /* TUPLE1..3 */
			size_t n = op - 0x84;
			if (k->sp < n)
				return mt_error_set(MT_EINVALID, "%s: data.pkl: stack underflow", k->path);
			v = tuple_from(k, k->sp - n);
			break;
		}
		case 'a': /* APPEND */
			b = pop(k);
			if (!b || !k->sp)
				return mt_error_set(MT_EINVALID, "%s: data.pkl: stack underflow", k->path);
			if (k->stack[k->sp - 1]->k == V_LIST)
				add_item(k, k->stack[k->sp - 1], b);
			continue;
		case 'e': case 'u': /* APPENDS, SETITEMS */
			if ((m = mark_at(k)) == (size_t)-1 || m == 0)
				return mt_error_set(MT_EINVALID, "%s: data.pkl: %s without a mark", k->path,
						    op == 'e' ? "APPENDS" : "SETITEMS");
			a = k->stack[m - 1];
			if ((op == 'e' && a->k == V_LIST) || (op == 'u' && a->k == V_DICT))
				for (size_t i = m + 1; i < k->sp; i++)
					add_item(k, a, k->stack[i]);
			k->sp = m;
			continue;
		case 's': /* SETITEM */
			b = pop(k);
			a = pop(k);
			if (!a || !b || !k->sp)
				return mt_error_set(MT_EINVALID, "%s: data.pkl: stack underflow", k->path);
			if (k->stack[k->sp - 1]->k == V_DICT) {
				add_item(k, k->stack[k->sp - 1], a);
				add_item(k, k->stack[k->sp - 1], b);
			}
			continue;
		case 'R': case 0x81: /* REDUCE, NEWOBJ */
			b = pop(k);
			a = pop(k);
			if (!a || !b)
				return mt_error_set(MT_EINVALID, "%s: data.pkl: stack underflow", k->path);
			if ((error = reduce(k, a, b, &v)) < 0)
				return error;
			break;
		case 'b': /* BUILD: state set on an object (a state_dict's _metadata) */
			if (!pop(k) || !k->sp)
				return mt_error_set(MT_EINVALID, "%s: data.pkl: stack underflow", k->path);
			continue;
		case 'Q': /* BINPERSID */
			if (!(a = pop(k)))
				return mt_error_set(MT_EINVALID, "%s: data.pkl: stack underflow", k->path);
			if ((error = persistent(k, a, &v)) < 0)
				return error;
			break;
		case '0': /* POP */
			pop(k);
			continue;
		default:
			return mt_error_set(MT_EINVALID, "%s: data.pkl offset %zu: pickle opcode 0x%02x "
					    "is not one torch.save writes", k->path,
					    (size_t)(k->p - 1 - start), op);
		}
		if ((error = push(k, v)) < 0)
			return error;
	}
	return mt_error_set(MT_EINVALID, "%s: data.pkl ends without STOP (truncated)", k->path);
}

/* --- naming the tensors -------------------------------------------------- */

static int add_tensor(mt_torchsave *f, val *v, const char *name)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		mt_tensor *t = realloc(f->tensors, cap * sizeof(*t));
		if (!t)
			return mt_error_set(MT_EIO, "out of memory");
		f->tensors = t;
		f->cap = cap;
	}
	f->tensors[f->n] = v->t;
	f->tensors[f->n++].name = mt_arena_strdup(&f->arena, name);
	return 0;
}

static int collect(mt_torchsave *f, val *v, const char *prefix, int depth)
{
	char name[1024];
	int error = 0;

	if (depth > 64)
		return 0;
	if (v->k == V_TENSOR)
		return add_tensor(f, v, *prefix ? prefix : "tensor");
	if (v->k == V_DICT) {
		for (size_t i = 0; i + 1 < v->n && error == 0; i += 2) {
			val *key = v->items[i];
			char kbuf[64];
			const char *ks = key->k == V_STR ? key->s : NULL;
			if (!ks && key->k == V_INT) {
				snprintf(kbuf, sizeof(kbuf), "%lld", (long long)key->i);
				ks = kbuf;
			}
			if (!ks)
				continue;
			snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", ks);
			error = collect(f, v->items[i + 1], name, depth + 1);
		}
	} else if (v->k == V_LIST || v->k == V_TUPLE) {
		for (size_t i = 0; i < v->n && error == 0; i++) {
			snprintf(name, sizeof(name), "%s%s%zu", prefix, *prefix ? "." : "", i);
			error = collect(f, v->items[i], name, depth + 1);
		}
	}
	return error;
}

/* --- the file ------------------------------------------------------------------ */

int mt_torchsave_open(mt_torchsave **out, const char *path)
{
	const unsigned char *map = NULL;
	uint64_t len = 0;
	int error;

	*out = NULL;
	if ((error = mt_file_map(path, &map, &len)) < 0)
		return error;
	if ((error = mt_torchsave_parse(out, map, len, path)) < 0) {
		mt_file_unmap(map, len);
		return error;
	}
	(*out)->mapped = 1;
	return 0;
}

int mt_torchsave_parse(mt_torchsave **out, const unsigned char *buf, uint64_t len,
		       const char *path)
{
	mt_torchsave *f = calloc(1, sizeof(*f));
	struct pk k = {.path = path, .f = f};
	mt_zip_entry *entries = NULL;
	const mt_zip_entry *pkl;
	const char *why = NULL;
	size_t n = 0;
	val *root = NULL;
	int error;

	*out = NULL;
	if (!f)
		return mt_error_set(MT_EIO, "out of memory");
	f->map = buf;
	f->len = len;
	if (f->len >= 2 && f->map[0] == 0x80) {
		error = mt_error_set(MT_EINVALID, "%s: torch.save's legacy format (a bare pickle, "
				     "before PyTorch 1.6), which mtrial does not read: save again with "
				     "a current torch, or as safetensors", path);
		goto fail;
	}
	if (mt_zip_list(f->map, f->len, &entries, &n, &why) < 0) {
		error = mt_error_set(MT_EINVALID, "%s: %s (torch.save writes a zip)", path, why);
		goto fail;
	}
	if (mt_zip_find_suffix(entries, n, "/constants.pkl")) {
		error = mt_error_set(MT_EINVALID, "%s: a TorchScript archive, not a torch.save file of "
				     "tensors (see 'mtrial ops show' and 'mtrial check model')", path);
		goto fail;
	}
	if (!(pkl = mt_zip_find_suffix(entries, n, "/data.pkl")) || pkl->method != 0) {
		error = mt_error_set(MT_EINVALID, "%s: a zip without torch.save's data.pkl", path);
		goto fail;
	}
	k.entries = entries;
	k.nentries = n;
	k.prefix = pkl->name;
	k.prefix_len = pkl->name_len - strlen("data.pkl");
	k.p = f->map + pkl->offset;
	k.end = k.p + pkl->size;
	k.pkl_len = pkl->size;
	if ((error = run(&k, &root)) == 0)
		error = collect(f, root, "", 0);
	if (error == 0 && f->n == 0)
		error = mt_error_set(MT_EINVALID, "%s: holds no tensor (tensors inside other Python "
				     "objects are not found: save a tensor, a dict or a list)", path);
fail:
	free(entries);
	free(k.stack);
	free(k.memo);
	if (error < 0) {
		mt_torchsave_free(f);
		return error;
	}
	*out = f;
	return 0;
}

size_t mt_torchsave_count(const mt_torchsave *f)
{
	return f ? f->n : 0;
}

const mt_tensor *mt_torchsave_at(const mt_torchsave *f, size_t i)
{
	return f && i < f->n ? &f->tensors[i] : NULL;
}

size_t mt_torchsave_global_count(const mt_torchsave *f)
{
	return f ? f->nglobals : 0;
}

const char *mt_torchsave_global_at(const mt_torchsave *f, size_t i, int *called)
{
	if (!f || i >= f->nglobals)
		return NULL;
	if (called)
		*called = f->globals[i].called;
	return f->globals[i].name;
}

void mt_torchsave_free(mt_torchsave *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->ncopies; i++)
		free(f->copies[i]);
	free(f->copies);
	free(f->globals);
	free(f->tensors);
	if (f->mapped)
		mt_file_unmap(f->map, f->len);
	mt_arena_free(f->arena);
	free(f);
}
