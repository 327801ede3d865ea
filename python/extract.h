/* From Python source to calls: import resolution and call extraction over
 * the token stream of pylex.h. Nothing is executed.
 *
 * Resolution: every import binds a local name to a fully qualified module or
 * object (`import torch.nn as nn`, `from torch.nn import functional as F`,
 * `import torch.nn` binds `torch`). Imports inside a function or class are
 * visible from their line to the end of that block. Relative imports (`from
 * . import x`) and star imports bind nothing. A call's callee written as a
 * dotted chain whose first name is bound resolves to the binding plus the
 * rest of the chain (`F.gelu` -> `torch.nn.functional.gelu`).
 *
 * Local names hide imports: a function's parameters, the targets of its
 * assignments, for loops, with and except clauses (from that statement on),
 * a lambda's parameters and a comprehension's targets (in it). `def f(data):
 * data.size(0)` is a method call even with `import data` at the top. At
 * module level an import of a name holds in the whole file.
 *
 * A method call's receiver is judged from what the file shows (enum
 * mt_recv): a str literal, what open() or a str method returns, a name
 * bound to one of those, a class instance (`Tracer()`, `Image.open(p)`), a
 * container display or a module is not a tensor; what a torch function or
 * a tensor method returns is a tensor; anything else is unknown. */
#ifndef MT_EXTRACT_H
#define MT_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "pylex.h"

typedef struct {
	char *key;   /* keyword argument name */
	char *value; /* its source text when a simple literal or dotted name
			(`True`, `'cuda'` with quotes, `3`, `torch.float64`),
			NULL otherwise */
} mt_kwarg;

/* What a method call's receiver is, as far as the file shows. */
enum mt_recv {
	MT_RECV_UNKNOWN = 0, /* nothing in the file says (a parameter, an attribute,
				the result of a call to the repository's own code) */
	MT_RECV_TENSOR,      /* a tensor: the result of a torch call, a tensor
				method or an index into a tensor */
	MT_RECV_NOT_TENSOR,  /* a str, a file, a number, a container, a
				module: not a tensor op */
	MT_RECV_OBJECT,      /* an object of a class (`Net()`, `Image.open(p)`,
				a Tracer): not a tensor, though a
				torch.nn.Module's to/cuda/double dispatch the
				op on its parameters */
};

typedef struct {
	char *callee;  /* the callee as written, dotted (`F.gelu`, `x.view`,
			  `tokenizer`); for a receiver that is not a plain
			  name chain (`f(x).view`, `a[0].cuda`) it starts with
			  `.` (`.view`) */
	char *api;     /* fully qualified when the chain's first name is bound by
			  an import (`torch.nn.functional.gelu`), else NULL */
	char *method;  /* the last attribute when the callee has a receiver
			  that does not resolve (`view` in `x.view`), else NULL */
	uint32_t line; /* 1-based, of the callee's first token; for a method
			  call (method != NULL), of the method's name */
	uint32_t col;  /* 0-based byte column of the same token, as
			  ast.col_offset */
	char *arg0;    /* the first positional argument's source text when a
			  simple literal or dotted name, else NULL */
	mt_kwarg *kwargs;
	size_t nkwargs;
	enum mt_recv recv;    /* for a method call (method != NULL) */
	const char *recv_why; /* with MT_RECV_NOT_TENSOR, what it is instead
				 ("a str", "a class instance"); static */
	/* strlen of callee, api and method (0 when NULL): matching rules
	 * against every call of a large repository should not measure them
	 * again for each rule */
	uint32_t callee_len, api_len, method_len;
} mt_call;

/* A bound dotted name used without being called (`torch.float64`,
 * `@triton.jit`, `nn.Module` as a base class). */
typedef struct {
	char *api; /* fully qualified */
	uint32_t line, col;
} mt_ref;

/* What a string literal is to the code around it. Only a value can be a
 * hard-coded setting: a name among names or a type is not used as one. */
enum mt_strrole {
	MT_STR_VALUE = 0, /* anything else: an argument, a default, an assigned
			     or compared value, a dict's value */
	MT_STR_NAME,      /* one name among others: an element of a list, set or
			     tuple display whose elements are all string
			     literals (`{"cuda", "mps"}`, `choices=["cpu",
			     "cuda"]`), a dict display's key, a subscript
			     (`stats["cuda"]`) */
	MT_STR_TYPE,      /* in a typing Literal[...] (`Literal["cpu", "cuda"]`),
			     in an annotation or not */
};

typedef struct {
	char *text; /* the literal's source text, prefix and quotes included */
	uint32_t line, col;
	enum mt_strrole role;
} mt_strlit;

typedef struct {
	char *module; /* absolute module imported (`torch.nn`, `triton`,
			 `flash_attn.flash_attn_interface`); for `from a import b`
			 this is `a` */
	uint32_t line;
} mt_import;

typedef struct {
	mt_call *calls;
	size_t ncalls;
	mt_ref *refs;
	size_t nrefs;
	mt_strlit *strings;
	size_t nstrings;
	mt_import *imports;
	size_t nimports;
	void *arena; /* owns every string above; private */
} mt_pyfile;

/* Lexes and extracts `src`. On a file that cannot be lexed returns
 * MT_EINVALID with the lexer's "LINE:COL: what". Thread-safe. */
int mt_extract(mt_pyfile *out, const char *src, size_t len);

/* As mt_extract, tokenizing into lb (see mt_lexbuf), which a thread keeps
 * from one file to the next. */
int mt_extract_buf(mt_pyfile *out, const char *src, size_t len, mt_lexbuf *lb);

/* Frees everything the extraction allocated. */
void mt_pyfile_dispose(mt_pyfile *f);

#endif
