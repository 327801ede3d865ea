/* What a name or an expression is, as far as the file shows: the receiver
 * of a method call is judged by it (extract.h, enum mt_recv). Read
 * backwards from the expression's last token, so that `f(x).a[0].m(` and
 * `x.m(` are judged alike; nothing is inferred across functions or files.
 * A wrong "not a tensor" would lose a real op, so every rule below says
 * K_UNKNOWN when in doubt. */
#include "extract_int.h"

#include <stdio.h>

/* Expressions nest this deep before the judgement gives up. */
#define MAX_DEPTH 32

static int tok_in(const struct walker *w, size_t i, const char *const *list)
{
	for (; *list; list++)
		if (tok_text_eq(w, i, *list, strlen(*list)))
			return 1;
	return 0;
}

static int str_in(const char *s, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && memcmp(*list, s, n) == 0)
			return 1;
	return 0;
}

/* Builtins by what they return (when not rebound in the file). */
static const char *const builtins_str[] = {"str", "repr", "format", "chr", "hex", "oct", "bin",
					   "ascii", "input", "open", "bytes", NULL};
static const char *const builtins_numbers[] = {
	"int", "float", "bool", "complex", "len", "range", "ord", "hash", "id", "isinstance",
	"issubclass", "hasattr", "callable", "divmod", NULL};
static const char *const builtins_other[] = {
	"list", "dict", "set", "tuple", "frozenset", "sorted", "reversed", "enumerate", "zip",
	"map", "filter", "vars", "dir", "globals", "locals", "iter", "object", "super", "print",
	"bytearray", "memoryview", "slice", NULL};

/* Tensor methods and attributes that do not give a tensor. */
static const char *const tensor_to_numbers[] = {
	"item", "size", "dim", "numel", "nelement", "ndimension", "element_size", "data_ptr",
	"stride", "get_device", "is_contiguous", "is_floating_point", "is_complex",
	"storage_offset", "__len__", "shape", "ndim", "dtype", "device", "is_cuda", NULL};
static const char *const tensor_to_other[] = {"tolist", "numpy", "storage", "untyped_storage",
					      "register_hook", "backward", NULL};
/* Tensor attributes that are tensors. */
static const char *const tensor_attrs[] = {"data", "grad", "T", "mT", "H", "mH", "real", "imag",
					   NULL};

/* Modules of the standard library and libraries whose objects are not
 * tensors (a torch.Tensor never comes out of them). */
static const char *const plain_modules[] = {
	"os", "sys", "re", "json", "math", "random", "time", "datetime", "pathlib", "io", "csv",
	"collections", "itertools", "functools", "argparse", "logging", "string", "glob",
	"shutil", "subprocess", "pickle", "typing", "codecs", "gzip", "bz2", "lzma", "zipfile",
	"tarfile", "urllib", "hashlib", "struct", "warnings", "unicodedata", "textwrap",
	"socket", "threading", "queue", "tempfile", "platform", "inspect", "traceback",
	"contextlib", "dataclasses", "enum", "heapq", "bisect", "statistics", "numpy", "PIL",
	"pandas", "yaml", NULL};
/* torch namespaces whose calls give objects, not tensors: graph modules and
 * tracers, optimizers, data loaders, profilers. (torch.distributed,
 * torch.jit, torch.hub and torch.onnx calls may give tensors or modules.) */
static const char *const torch_plain[] = {"torch.fx.", "torch.optim.", "torch.utils.data.",
					  "torch.backends.", "torch.profiler.", NULL};
/* torch namespaces whose lower-case functions are ops on tensors. */
static const char *const torch_ops[] = {"torch", "torch.nn.functional", "torch.linalg",
					"torch.fft", "torch.special", "torch.nn.init", NULL};
static const char *const torch_not_tensor[] = {
	"device", "finfo", "iinfo", "no_grad", "enable_grad", "inference_mode", "autocast",
	"compile", "manual_seed", "seed", "save", "numel", "typename", NULL};

static int camel(const char *s, size_t n)
{
	if (!n || s[0] < 'A' || s[0] > 'Z')
		return 0;
	for (size_t k = 1; k < n; k++)
		if (s[k] >= 'a' && s[k] <= 'z')
			return 1;
	return 0; /* ALL_CAPS: a constant */
}

static int ends_with(const char *s, size_t n, const char *tail)
{
	size_t t = strlen(tail);
	return n >= t && memcmp(s + n - t, tail, t) == 0;
}

static enum kind torch_api_kind(const char *api, size_t n, const char *last, size_t nlast)
{
	size_t parent = (size_t)(last - api) - 1;

	if (camel(last, nlast))
		return ends_with(last, nlast, "Tensor") || str_in(last, nlast,
								 (const char *const[]){"Parameter", NULL})
			       ? K_TENSOR
			       : K_INSTANCE; /* a module, an optimizer, a tracer... */
	for (const char *const *p = torch_plain; *p; p++)
		if (strncmp(api, *p, strlen(*p)) == 0)
			return K_INSTANCE;
	if (str_in(last, nlast, torch_not_tensor) || strncmp(last, "is_", 3) == 0 ||
	    strncmp(last, "get_", 4) == 0 || strncmp(last, "set_", 4) == 0)
		return K_OTHER;
	if (n == 10 && memcmp(api, "torch.load", 10) == 0)
		return K_UNKNOWN; /* whatever was saved */
	return str_in(api, parent, torch_ops) ? K_TENSOR : K_UNKNOWN;
}

/* What a call to the fully qualified api gives. */
static enum kind api_kind(const char *api)
{
	size_t n = strlen(api), root;
	const char *last = strrchr(api, '.');

	last = last ? last + 1 : api;
	if (strncmp(api, "torch.", 6) == 0)
		return torch_api_kind(api, n, last, n - (size_t)(last - api));
	root = strcspn(api, ".");
	if (strncmp(api, "pathlib.", 8) == 0)
		return K_PATH; /* Path(p), PurePath(p), Path.cwd(), Path.home() */
	if (!str_in(api, root, plain_modules))
		return K_UNKNOWN; /* einops, transformers... may give tensors */
	if (strncmp(api, "os.path.", 8) == 0 || strcmp(api, "os.getcwd") == 0 ||
	    strcmp(api, "os.getenv") == 0 || strcmp(api, "os.listdir") == 0 ||
	    (strcmp(last, "open") == 0 && strncmp(api, "PIL.", 4) != 0))
		return K_STR; /* a path, or a file */
	return camel(last, strlen(last)) || strcmp(api, "PIL.Image.open") == 0 ? K_INSTANCE : K_OTHER;
}

static enum kind before(const struct walker *w, size_t e, size_t *start, int depth);

/* What calling a method `m` on a receiver of kind rk gives. */
static enum kind method_result(const struct walker *w, enum kind rk, size_t m)
{
	switch (rk) {
	case K_STR: return K_STR; /* a str, a list of str, or a number of them */
	case K_PATH: return K_PATH; /* resolve(), absolute(), read_text()... */
	case K_TENSOR:
		if (tok_in(w, m, tensor_to_numbers))
			return K_NUMBERS;
		return tok_in(w, m, tensor_to_other) ? K_OTHER : K_TENSOR;
	default: return K_UNKNOWN; /* list.pop() may well give a tensor */
	}
}

/* What a name called on its own gives: a builtin or a class. */
static enum kind plain_call_kind(const struct walker *w, size_t ce)
{
	const char *t = w->src + w->toks[ce].off;
	size_t n = w->toks[ce].len;

	if (tok_in(w, ce, builtins_str))
		return K_STR;
	if (tok_in(w, ce, builtins_numbers))
		return K_NUMBERS;
	if (tok_in(w, ce, builtins_other))
		return K_OTHER;
	/* a class of the repository's own: an instance (`Net()`, a Tracer
	 * subclass), unless it is named as a tensor type */
	if (camel(t, n) && !ends_with(t, n, "Tensor"))
		return K_INSTANCE;
	return K_UNKNOWN;
}

/* The fully qualified name of the chain [s, ce] rooted at an import b, in
 * buf; 0 when it does not fit. */
static int chain_api(const struct walker *w, const struct binding *b, size_t s, size_t ce,
		     char *buf, size_t size)
{
	size_t at = 0;

	if (b->target_len + 1 > size)
		return 0;
	memcpy(buf, b->target, b->target_len);
	at = b->target_len;
	for (size_t j = s + 2; j <= ce; j += 2) {
		if (at + 1 + w->toks[j].len + 1 > size)
			return 0;
		buf[at++] = '.';
		memcpy(buf + at, w->src + w->toks[j].off, w->toks[j].len);
		at += w->toks[j].len;
	}
	buf[at] = '\0';
	return 1;
}

/* What the call whose callee ends at token ce gives. */
static enum kind call_kind(const struct walker *w, size_t ce, size_t *start, int depth)
{
	const struct binding *b;
	char api[256];
	size_t s = ce;

	*start = ce;
	if (!is_name(w, ce) || keyword(w, ce) != KW_NONE)
		return K_UNKNOWN; /* f(x)(y), fs[0](x) */
	while (s >= 2 && op_char(w, s - 1) == '.' && is_name(w, s - 2))
		s -= 2;
	if (s == 0 || op_char(w, s - 1) != '.') { /* a chain rooted at a name */
		b = lookup(w, w->src + w->toks[s].off, w->toks[s].len);
		if (b && b->target) {
			*start = s;
			return chain_api(w, b, s, ce, api, sizeof(api)) ? api_kind(api) : K_UNKNOWN;
		}
		if (s == ce && b) /* a local: a function, or a class of the file's */
			return b->kind == K_CLASS ? K_INSTANCE : K_UNKNOWN;
		if (s == ce)
			return plain_call_kind(w, ce);
	}
	return method_result(w, before(w, ce - 2, start, depth + 1), ce);
}

/* 1 if token i can end what is called or indexed: `f(`, `x)[`, `"s"[`. */
static int ends_primary(const struct walker *w, size_t i)
{
	int ch = op_char(w, i);
	mt_tok_kind k = w->toks[i].kind;

	if (k == MT_TOK_NAME)
		return keyword(w, i) == KW_NONE;
	return ch == ')' || ch == ']' || k == MT_TOK_STRING || k == MT_TOK_FSTRING_END;
}

/* A name, or an attribute `.name` of the expression before the dot. */
static enum kind name_kind(const struct walker *w, size_t e, size_t *start, int depth)
{
	const struct binding *b;
	enum kind base;
	int kw = keyword(w, e);

	*start = e;
	if (kw == KW_CONST)
		return K_OTHER; /* None, True, False */
	if (kw != KW_NONE)
		return K_UNKNOWN;
	if (e >= 2 && op_char(w, e - 1) == '.') {
		base = before(w, e - 2, start, depth + 1);
		if (base == K_TENSOR && tok_in(w, e, tensor_attrs))
			return K_TENSOR;
		if (base == K_TENSOR && tok_in(w, e, tensor_to_numbers))
			return K_NUMBERS;
		return base == K_PATH ? K_PATH : K_UNKNOWN; /* p.parent, p.name */
	}
	b = lookup(w, w->src + w->toks[e].off, w->toks[e].len);
	if (!b)
		return K_UNKNOWN;
	if (b->target) /* an imported object: a module, a class, a function */
		return strncmp(b->target, "torch", 5) == 0 ? K_UNKNOWN : K_OTHER;
	return (enum kind)b->kind;
}

/* `x[i]`, `[...]`, `(...)` and `{...}` ending at e. */
static enum kind bracket_kind(const struct walker *w, size_t e, size_t *start, int depth)
{
	size_t o = w->open_of[e];
	enum kind k;
	int ch = op_char(w, e);

	if (o >= e)
		return K_UNKNOWN; /* not a bracket the lexer matched */
	*start = o;
	if (ch == '}')
		return K_OTHER; /* a dict or a set */
	if (o > 0 && ends_primary(w, o - 1)) {
		if (ch == ')')
			return call_kind(w, o - 1, start, depth + 1);
		k = before(w, o - 1, start, depth + 1); /* an index: a tensor's is a tensor */
		return k == K_TENSOR || k == K_STR ? k : K_UNKNOWN;
	}
	if (ch == ']')
		return K_OTHER; /* a list or a comprehension */
	if (o + 1 == e || find_at_depth0(w, o + 1, e, ',', 0) < e)
		return K_OTHER; /* a tuple */
	return mt_extract__expr_kind(w, o + 1, e);
}

/* The kind of the expression ending at token e; *start gets its first
 * token. */
static enum kind before(const struct walker *w, size_t e, size_t *start, int depth)
{
	int ch = op_char(w, e);

	*start = e;
	if (depth > MAX_DEPTH)
		return K_UNKNOWN;
	switch (w->toks[e].kind) {
	case MT_TOK_STRING:
		while (*start > 0 && w->toks[*start - 1].kind == MT_TOK_STRING)
			--*start; /* implicit concatenation */
		return K_STR;
	case MT_TOK_FSTRING_END:
		return K_STR; /* *start stays: a method on it only needs the kind */
	case MT_TOK_NUMBER: return K_NUMBERS;
	case MT_TOK_NAME: return name_kind(w, e, start, depth);
	default: break;
	}
	if (ch == ')' || ch == ']' || ch == '}')
		return bracket_kind(w, e, start, depth);
	return K_UNKNOWN;
}

/* 1 when the tokens [a, s) are `PATH /` ... `/`: a path joined with what
 * follows (`root / "data" / name`) is a path. */
static int joins_path(const struct walker *w, size_t a, size_t s)
{
	size_t t;

	while (s > a + 1 && is_op(w, s - 1, "/")) {
		if (before(w, s - 2, &t, 1) == K_PATH && t == a)
			return 1;
		s = t;
	}
	return 0;
}

enum kind mt_extract__expr_kind(const struct walker *w, size_t a, size_t b)
{
	size_t s;
	enum kind k;

	if (a >= b || b > w->n)
		return K_UNKNOWN;
	if (find_at_depth0(w, a, b, ',', 0) < b)
		return K_OTHER; /* a tuple */
	k = before(w, b - 1, &s, 0);
	if (s == a)
		return k;
	if (joins_path(w, a, s))
		return K_PATH;
	/* "%d" % n, "a" + b: an operation on a str literal is a str */
	if (w->toks[a].kind == MT_TOK_STRING || w->toks[a].kind == MT_TOK_FSTRING_START)
		return K_STR;
	return K_UNKNOWN; /* `a if c else b`, `x * 2`, `not x` */
}

enum kind mt_extract__elem_kind(enum kind k)
{
	return k == K_STR || k == K_TENSOR || k == K_NUMBERS ? k : K_UNKNOWN;
}

enum kind mt_extract__annotation_kind(const struct walker *w, size_t a, size_t b)
{
	static const char *const str[] = {"str", "bytes", NULL};
	static const char *const numbers[] = {"int", "float", "bool", "complex", NULL};
	static const char *const other[] = {"list", "dict", "set", "tuple", "List", "Dict",
					    "Set", "Tuple", "Sequence", "Mapping", "Iterable",
					    "Iterator", "Callable", NULL};
	static const char *const paths[] = {"Path", "PurePath", "PosixPath", "PurePosixPath",
					    NULL};
	const struct binding *bd;

	if (a >= b || !is_name(w, a))
		return K_UNKNOWN;
	if (tok_in(w, b - 1, paths) && (b == a + 1 || op_char(w, b - 2) == '.'))
		return K_PATH; /* Path, pathlib.Path */
	if (b == a + 1 && tok_in(w, a, str))
		return K_STR;
	if (b == a + 1 && tok_in(w, a, numbers))
		return K_NUMBERS;
	if (tok_in(w, a, other) && (b == a + 1 || is_op(w, a + 1, "[")))
		return K_OTHER;
	/* Tensor or torch.Tensor, bound by an import of torch */
	if (!tok_text_eq(w, b - 1, "Tensor", 6))
		return K_UNKNOWN;
	bd = lookup(w, w->src + w->toks[a].off, w->toks[a].len);
	return bd && bd->target && strncmp(bd->target, "torch", 5) == 0 ? K_TENSOR : K_UNKNOWN;
}

/* str methods that a tensor has too, whose first argument is a str only
 * for the str's: a tensor splits by sizes (`x.split(2)`), a str by a
 * separator (`line.split(' ')`). */
static const char *const str_arg_methods[] = {"split", NULL};

/* 1 when the call after `last` (`last . name ( arg`) is one of those with
 * a str literal or an f-string as its first argument, with none at all
 * (`line.split()`: a tensor's split needs its sizes), or with a str's own
 * keyword (`sep=`). */
static int str_argument(const struct walker *w, const mt_call *c, size_t last)
{
	size_t arg = last + 4;

	if (arg >= w->n || !str_in(c->method, c->method_len, str_arg_methods))
		return 0;
	if (is_op(w, arg, ")"))
		return 1;
	if (tok_text_eq(w, arg, "sep", 3) && arg + 1 < w->n && is_op(w, arg + 1, "="))
		return 1;
	return w->toks[arg].kind == MT_TOK_STRING || w->toks[arg].kind == MT_TOK_FSTRING_START;
}

void mt_extract__receiver(const struct walker *w, mt_call *c, size_t last)
{
	size_t s;
	enum kind k = before(w, last, &s, 0);

	if ((k == K_UNKNOWN || k == K_INSTANCE) && str_argument(w, c, last))
		k = K_STR; /* what returned it is unknown, but a separator is a str */

	c->recv = k == K_TENSOR	    ? MT_RECV_TENSOR
		  : k == K_UNKNOWN  ? MT_RECV_UNKNOWN
		  : k == K_INSTANCE ? MT_RECV_OBJECT
				    : MT_RECV_NOT_TENSOR;
	switch (k) {
	case K_STR: c->recv_why = "a str, a file or a list of str"; break;
	case K_NUMBERS: c->recv_why = "a number"; break;
	case K_INSTANCE: c->recv_why = "an object of a class (a module, a tracer, an image)"; break;
	case K_CLASS: c->recv_why = "a class"; break;
	case K_PATH: c->recv_why = "a filesystem path (pathlib)"; break;
	case K_OTHER: c->recv_why = "a container, None, a module or a library's object"; break;
	default: c->recv_why = NULL;
	}
}

/* --- what a string literal is to the code around it ------------------------- */

/* The last token of the string literal starting at j (a STRING, or an
 * f-string from its start to its end), or SIZE_MAX when none starts there. */
static size_t string_end(const struct walker *w, size_t j)
{
	int depth = 0;

	if (j < w->n && w->toks[j].kind == MT_TOK_STRING)
		return j;
	if (j >= w->n || w->toks[j].kind != MT_TOK_FSTRING_START)
		return SIZE_MAX;
	for (; j < w->n; j++)
		if (w->toks[j].kind == MT_TOK_FSTRING_START)
			depth++;
		else if (w->toks[j].kind == MT_TOK_FSTRING_END && --depth == 0)
			return j;
	return SIZE_MAX;
}

/* 1 if every element of the display opened at o is a string literal
 * (implicitly concatenated or not): a collection of names. Judged once for
 * all the strings of one display. */
static int all_strings(struct walker *w, size_t o)
{
	size_t close = w->match[o], j = o + 1, e;
	int all = close < w->n && close > o + 1;

	if (w->names_open == o)
		return w->names_all;
	while (all && j < close) {
		if ((e = string_end(w, j)) == SIZE_MAX) {
			all = 0;
			break;
		}
		while (string_end(w, e + 1) != SIZE_MAX && e + 1 < close)
			e = string_end(w, e + 1);
		j = e + 1;
		if (j < close && !is_op(w, j, ","))
			all = 0;
		j++;
	}
	w->names_open = o;
	w->names_all = all;
	return all;
}

/* 1 if the bracket o opens a display (a list, a set, a dict, a tuple or
 * mere parentheses), not a call's arguments or a subscript. */
static int opens_display(const struct walker *w, size_t o)
{
	return op_char(w, o) == '{' || o == 0 || !ends_primary(w, o - 1);
}

enum mt_strrole mt_extract__string_role(struct walker *w, size_t a, size_t b)
{
	size_t o, p = a, q = b + 1;

	for (size_t k = 0; k < w->nopens; k++) { /* Literal["cpu", "cuda"] */
		o = w->opens[k];
		if (op_char(w, o) == '[' && o > 0 && is_name(w, o - 1) &&
		    tok_text_eq(w, o - 1, "Literal", 7))
			return MT_STR_TYPE;
	}
	if (!w->nopens)
		return MT_STR_VALUE;
	o = w->opens[w->nopens - 1];
	while (p > o + 1 && w->toks[p - 1].kind == MT_TOK_STRING) /* "a" "b" */
		p--;
	while (q < w->n && w->toks[q].kind == MT_TOK_STRING)
		q++;
	if (p - 1 != o && !is_op(w, p - 1, ","))
		return MT_STR_VALUE; /* a part of an expression: `"cuda:" + str(i)` */
	if (op_char(w, o) == '{' && is_op(w, q, ":"))
		return MT_STR_NAME; /* a dict's key */
	if (q != w->match[o] && !is_op(w, q, ","))
		return MT_STR_VALUE;
	if (!opens_display(w, o))
		return op_char(w, o) == '[' && p - 1 == o && q == w->match[o] ? MT_STR_NAME
									   : MT_STR_VALUE;
	/* `("cuda")` is a value in parentheses, `("cuda",)` a tuple */
	if (op_char(w, o) == '(' && p - 1 == o && q == w->match[o])
		return MT_STR_VALUE;
	return all_strings(w, o) ? MT_STR_NAME : MT_STR_VALUE;
}
