/* What extract.c and extract_kind.c share: the walk's state and the token
 * tests. Private to mt_extract. */
#ifndef MT_EXTRACT_INT_H
#define MT_EXTRACT_INT_H

#include "extract.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- the walk's state ------------------------------------------------------ */

/* What a name or an expression is, as far as the file shows (extract_kind.c). */
enum kind {
	K_UNKNOWN = 0,
	K_TENSOR,  /* from a torch call */
	K_STR,     /* a str or bytes, a file, or a list of them: what they hold
		      is str too */
	K_NUMBERS, /* an int, float or bool, or a range of ints */
	K_OTHER,   /* another non-tensor: container, class instance, module */
	K_INSTANCE, /* an object of a class: a module, a tracer, an image */
	K_CLASS,   /* a class defined in the file: calling it gives K_INSTANCE */
	K_PATH,    /* a pathlib path: its methods and attributes, and `p / x`,
		      give paths, str, numbers or iterators of paths, never a
		      tensor */
};

/* A name bound by an import (target set) or locally (target NULL: an
 * assignment, a parameter, a loop or with target...), which hides any
 * import of the same name while it is visible. */
struct binding {
	const char *name; /* local name, in the arena */
	size_t name_len;
	const char *target; /* fully qualified, in the arena; NULL for a local */
	size_t target_len;
	uint32_t prev;      /* the binding of the same name it hides: index + 1 */
	uint8_t kind;       /* a local's enum kind */
};

/* The names bound so far, by name: slot.top is the visible binding (index +
 * 1, 0 = none). A name keeps its slot once it has one. */
struct nameslot {
	const char *name;
	uint32_t len;
	uint32_t top;
};

struct level {
	int scope;        /* 1 if this indented block is a def body, 2 a class body */
	size_t nbindings; /* bindings visible when the block was entered */
};

/* A lambda's or a comprehension's names, visible up to token `end`. */
struct temp {
	size_t end;
	size_t nbindings;
};

/* A local name bound when its statement ends (the right side of an
 * assignment still sees the old binding). */
struct pending {
	size_t tok;
	uint8_t kind;
};

struct walker {
	const char *src;
	mt_token *toks; /* significant tokens */
	size_t n;
	size_t *match; /* index of the matching bracket, for ( [ { */
	size_t *open_of; /* the reverse, for ) ] } before the walk's position */
	const size_t *marks; /* the tokens pass 1 reads (mt_pylex_code_buf) */
	size_t nmarks;
	mt_pyfile *out;
	size_t ncalls_cap, nrefs_cap, nstrings_cap, nimports_cap;
	struct binding *bindings;
	size_t nbindings, bindings_cap;
	size_t nmodule; /* bindings [0, nmodule) are the module's */
	struct nameslot *slots;
	size_t nslots, nnames;
	struct level *levels;
	size_t nlevels, levels_cap;
	struct temp *temps;
	size_t ntemps, temps_cap;
	struct pending *pending;
	size_t npending, pending_cap;
	int def_line;   /* the current logical line is a def/class header */
	int def_class;  /* ... and it is a class's */
	size_t def_nl;  /* the NEWLINE that ended the last such line: an INDENT
			   right after it opens a scope (SIZE_MAX: none yet) */
	size_t def_mark;   /* bindings before the last def's parameters */
	size_t params_end; /* the `)` after which they are bound (0: none) */
	int fdepth;     /* f-string nesting */
	size_t *opens;  /* the brackets open at the walk's position, innermost
			   last: what a string literal stands in */
	size_t nopens, opens_cap;
	size_t names_open;  /* the display last judged a collection of names, */
	int names_all;      /* ... and whether it is one (SIZE_MAX: none yet) */
	mt_buf chain;           /* scratch for a chain written with spaces */
	mt_buf mod, full;       /* scratch for imports */
	mt_kwarg *kw;           /* scratch for one call's keywords */
	size_t kwcap;
};

#define GROW(arr, n, cap)                                                                          \
	do {                                                                                       \
		if ((n) == (cap)) {                                                                \
			(cap) = (cap) ? (cap) * 2 : 16;                                            \
			(arr) = realloc((arr), (cap) * sizeof(*(arr)));                            \
			if (!(arr))                                                                \
				abort();                                                           \
		}                                                                                  \
	} while (0)

/* The comparisons below run for every token of every file: string
 * literals' lengths come from sizeof, never strlen. */
static inline int tok_text_eq(const struct walker *w, size_t i, const char *s, size_t n)
{
	const char *t = w->src + w->toks[i].off;

	/* the first byte inline: most comparisons are one-byte operators, and
	 * a memcmp() call for each cost 2.8% of a scan */
	return w->toks[i].len == n && (n == 0 || (t[0] == s[0] && memcmp(t + 1, s + 1, n - 1) == 0));
}

static inline int is_op_n(const struct walker *w, size_t i, const char *op, size_t n)
{
	return i < w->n && w->toks[i].kind == MT_TOK_OP && tok_text_eq(w, i, op, n);
}

static inline int is_name(const struct walker *w, size_t i)
{
	return i < w->n && w->toks[i].kind == MT_TOK_NAME;
}

static inline int is_kw_n(const struct walker *w, size_t i, const char *kw, size_t n)
{
	return is_name(w, i) && tok_text_eq(w, i, kw, n);
}

#define is_op(w, i, op) is_op_n((w), (i), (op), sizeof(op) - 1)
#define is_kw(w, i, kw) is_kw_n((w), (i), (kw), sizeof(kw) - 1)

/* What a name token is to the walk, by first letter: every name token is
 * looked up once. */
enum { KW_NONE = 0, KW_OTHER, KW_IMPORT, KW_FROM, KW_DEF, KW_CLASS, KW_FOR, KW_WITH, KW_EXCEPT,
       KW_LAMBDA, KW_IN, KW_AS, KW_IF, KW_CONST };

/* By first byte, bit n set when a keyword of n bytes starts with it: most
 * names are told apart from every keyword by one look-up. */
static const uint16_t kw_lengths[256] = {
	['F'] = 1 << 5, ['N'] = 1 << 4, ['T'] = 1 << 4,
	['a'] = 1 << 2 | 1 << 3 | 1 << 5 | 1 << 6, ['b'] = 1 << 5, ['c'] = 1 << 5 | 1 << 8,
	['d'] = 1 << 3, ['e'] = 1 << 4 | 1 << 6, ['f'] = 1 << 3 | 1 << 4 | 1 << 7,
	['g'] = 1 << 6, ['i'] = 1 << 2 | 1 << 6, ['l'] = 1 << 6, ['n'] = 1 << 3 | 1 << 8,
	['o'] = 1 << 2, ['p'] = 1 << 4, ['r'] = 1 << 5 | 1 << 6, ['t'] = 1 << 3,
	['w'] = 1 << 4 | 1 << 5, ['y'] = 1 << 5,
};

static inline int keyword_slow(const char *t, size_t n)
{
#define KW(k) (n == sizeof(k) - 1 && memcmp(t, k, sizeof(k) - 1) == 0)
#define IS(cond) ((cond) ? KW_OTHER : KW_NONE)

	switch (t[0]) {
	case 'F': return KW("False") ? KW_CONST : KW_NONE;
	case 'N': return KW("None") ? KW_CONST : KW_NONE;
	case 'T': return KW("True") ? KW_CONST : KW_NONE;
	case 'a':
		if (KW("as"))
			return KW_AS;
		return IS(KW("and") || KW("assert") || KW("async") || KW("await"));
	case 'b': return IS(KW("break"));
	case 'c': return KW("class") ? KW_CLASS : IS(KW("continue"));
	case 'd': return KW("def") ? KW_DEF : IS(KW("del"));
	case 'e': return KW("except") ? KW_EXCEPT : IS(KW("elif") || KW("else"));
	case 'f':
		if (KW("for"))
			return KW_FOR;
		return KW("from") ? KW_FROM : IS(KW("finally"));
	case 'g': return IS(KW("global"));
	case 'i':
		if (KW("import"))
			return KW_IMPORT;
		if (KW("in"))
			return KW_IN;
		return KW("if") ? KW_IF : IS(KW("is"));
	case 'l': return KW("lambda") ? KW_LAMBDA : KW_NONE;
	case 'n': return IS(KW("nonlocal") || KW("not"));
	case 'o': return IS(KW("or"));
	case 'p': return IS(KW("pass"));
	case 'r': return IS(KW("raise") || KW("return"));
	case 't': return IS(KW("try"));
	case 'w': return KW("with") ? KW_WITH : IS(KW("while"));
	case 'y': return IS(KW("yield"));
	default: return KW_NONE;
	}
#undef IS
#undef KW
}


/* The KW_ of Python's keyword at token i (a NAME), KW_NONE for a name. */
static inline int keyword(const struct walker *w, size_t i)
{
	const char *t = w->src + w->toks[i].off;
	size_t n = w->toks[i].len;

	if (n > 8 || !(kw_lengths[(unsigned char)t[0]] & (1u << n)))
		return KW_NONE;
	return keyword_slow(t, n);
}

/* The byte of a one-byte OP token, else 0. */
static inline int op_char(const struct walker *w, size_t i)
{
	const mt_token *t = &w->toks[i];
	return t->kind == MT_TOK_OP && t->len == 1 ? (unsigned char)w->src[t->off] : 0;
}

/* The first token in [i, end) at bracket depth 0 that is the op `op` (or,
 * with kw, a keyword of that KW_), else end. */
static inline size_t find_at_depth0(const struct walker *w, size_t i, size_t end, int op, int kw)
{
	for (; i < end; i++) {
		int ch = op_char(w, i);
		if ((ch == '(' || ch == '[' || ch == '{') && w->match[i] < end)
			i = w->match[i];
		else if ((op && ch == op) || (kw && is_name(w, i) && keyword(w, i) == kw))
			return i;
	}
	return end;
}

/* The visible binding of name[0..n), or NULL (extract.c). */
const struct binding *mt_extract__lookup(const struct walker *w, const char *name, size_t n);
#define lookup mt_extract__lookup

/* The kind of the expression in tokens [a, b): K_UNKNOWN unless the file
 * shows it (extract_kind.c). */
enum kind mt_extract__expr_kind(const struct walker *w, size_t a, size_t b);

/* The kind of what the elements of an iterable of kind k are. */
enum kind mt_extract__elem_kind(enum kind k);

/* The kind of a parameter's annotation in tokens [a, b). */
enum kind mt_extract__annotation_kind(const struct walker *w, size_t a, size_t b);

/* What the string literal in tokens [a, b] is to the code around it, from
 * the brackets open at the walk's position (extract_kind.c). */
enum mt_strrole mt_extract__string_role(struct walker *w, size_t a, size_t b);

/* Sets c->recv and c->recv_why for a method call whose receiver ends at
 * token `last` (extract_kind.c). */
void mt_extract__receiver(const struct walker *w, mt_call *c, size_t last);

#endif
