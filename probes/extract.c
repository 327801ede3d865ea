/* Import resolution and call extraction over the token stream (extract.h).
 *
 * Two passes over the significant tokens (mt_pylex_code: no comments, no NL):
 *   1. imports made at module level, in any block that is not a function or
 *      class body, are visible in the whole module (a function body runs
 *      after the module has been imported, so an import below a function
 *      still binds the names it uses);
 *   2. a walk that keeps a stack of function/class scopes whose imports are
 *      visible from their line to the end of the block, and records calls,
 *      references and string literals. */
#include "extract.h"
#include "arena.h"
#include "pylex.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static char *arena_strndup(void **arena, const char *s, size_t n)
{
	return mt_arena_strndup((mt_arena **)arena, s, n);
}

#define GROW(arr, n, cap)                                                                          \
	do {                                                                                       \
		if ((n) == (cap)) {                                                                \
			(cap) = (cap) ? (cap) * 2 : 16;                                            \
			(arr) = realloc((arr), (cap) * sizeof(*(arr)));                            \
			if (!(arr))                                                                \
				abort();                                                           \
		}                                                                                  \
	} while (0)

/* --- the walk's state ------------------------------------------------------ */

struct binding {
	const char *name; /* local name, in the arena */
	size_t name_len;
	const char *target; /* fully qualified, in the arena */
	size_t target_len;
};

struct level {
	int scope;        /* 1 if this indented block is a def/class body */
	size_t nbindings; /* bindings visible when the block was entered */
};

struct walker {
	const char *src;
	mt_token *toks; /* significant tokens */
	size_t n;
	size_t *match; /* index of the matching bracket, for ( [ { */
	const size_t *marks; /* the tokens pass 1 reads (mt_pylex_code_buf) */
	size_t nmarks;
	mt_pyfile *out;
	size_t ncalls_cap, nrefs_cap, nstrings_cap, nimports_cap;
	struct binding *bindings;
	size_t nbindings, bindings_cap;
	size_t nmodule; /* bindings [0, nmodule) are the module's */
	uint64_t bloom[16]; /* name_bit() of every name ever bound: most lookups miss */
	struct level *levels;
	size_t nlevels, levels_cap;
	int def_line;   /* the current logical line is a def/class header */
	size_t def_nl;  /* the NEWLINE that ended the last such line: an INDENT
			   right after it opens a scope (SIZE_MAX: none yet) */
	int fdepth;     /* f-string nesting */
	mt_buf chain;           /* scratch for a chain written with spaces */
	mt_buf mod, full;       /* scratch for imports */
	mt_kwarg *kw;           /* scratch for one call's keywords */
	size_t kwcap;
};

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
enum { KW_NONE = 0, KW_OTHER, KW_IMPORT, KW_FROM, KW_DEF, KW_CLASS };

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

static int keyword_slow(const char *t, size_t n);

/* The KW_ of Python's keyword at token i (a NAME), KW_NONE for a name. */
static inline int keyword(const struct walker *w, size_t i)
{
	const char *t = w->src + w->toks[i].off;
	size_t n = w->toks[i].len;

	if (n > 8 || !(kw_lengths[(unsigned char)t[0]] & (1u << n)))
		return KW_NONE;
	return keyword_slow(t, n);
}

static int keyword_slow(const char *t, size_t n)
{
#define KW(k) (n == sizeof(k) - 1 && memcmp(t, k, sizeof(k) - 1) == 0)
#define IS(cond) ((cond) ? KW_OTHER : KW_NONE)

	switch (t[0]) {
	case 'F': return IS(KW("False"));
	case 'N': return IS(KW("None"));
	case 'T': return IS(KW("True"));
	case 'a': return IS(KW("and") || KW("as") || KW("assert") || KW("async") || KW("await"));
	case 'b': return IS(KW("break"));
	case 'c': return KW("class") ? KW_CLASS : IS(KW("continue"));
	case 'd': return KW("def") ? KW_DEF : IS(KW("del"));
	case 'e': return IS(KW("elif") || KW("else") || KW("except"));
	case 'f': return KW("from") ? KW_FROM : IS(KW("finally") || KW("for"));
	case 'g': return IS(KW("global"));
	case 'i': return KW("import") ? KW_IMPORT : IS(KW("if") || KW("in") || KW("is"));
	case 'l': return IS(KW("lambda"));
	case 'n': return IS(KW("nonlocal") || KW("not"));
	case 'o': return IS(KW("or"));
	case 'p': return IS(KW("pass"));
	case 'r': return IS(KW("raise") || KW("return"));
	case 't': return IS(KW("try"));
	case 'w': return IS(KW("while") || KW("with"));
	case 'y': return IS(KW("yield"));
	default: return KW_NONE;
	}
#undef IS
#undef KW
}

/* 1 if token i starts a statement (for `import` and `from`). */
static int at_statement_start(const struct walker *w, size_t i)
{
	mt_tok_kind k;
	if (i == 0)
		return 1;
	k = w->toks[i - 1].kind;
	return k == MT_TOK_NEWLINE || k == MT_TOK_INDENT || k == MT_TOK_DEDENT ||
	       is_op(w, i - 1, ";") || is_op(w, i - 1, ":");
}

/* Reads a dotted name NAME(.NAME)* at i into buf; returns the index after it
 * (i when there is none). */
static size_t read_dotted(const struct walker *w, size_t i, mt_buf *buf)
{
	size_t j = i;
	if (!is_name(w, j))
		return i;
	mt_buf_put(buf, w->src + w->toks[j].off, w->toks[j].len);
	j++;
	while (is_op(w, j, ".") && is_name(w, j + 1)) {
		mt_buf_puts(buf, ".");
		mt_buf_put(buf, w->src + w->toks[j + 1].off, w->toks[j + 1].len);
		j += 2;
	}
	return j;
}

/* A bit of the 1024-bit filter, from the first and last bytes and length. */
static inline unsigned name_bit(const char *name, size_t n)
{
	return ((unsigned char)name[0] * 31u + (unsigned char)name[n - 1] * 7u + (unsigned)n) & 1023;
}

static void bind(struct walker *w, const char *name, size_t name_len, const char *target)
{
	unsigned bit = name_bit(name, name_len);

	w->bloom[bit / 64] |= 1ull << (bit % 64);
	GROW(w->bindings, w->nbindings, w->bindings_cap);
	w->bindings[w->nbindings].name = arena_strndup(&w->out->arena, name, name_len);
	w->bindings[w->nbindings].name_len = name_len;
	w->bindings[w->nbindings].target_len = strlen(target);
	w->bindings[w->nbindings].target = arena_strndup(&w->out->arena, target,
							 w->bindings[w->nbindings].target_len);
	w->nbindings++;
}

static void record_import(struct walker *w, const char *module, uint32_t line)
{
	mt_pyfile *f = w->out;
	GROW(f->imports, f->nimports, w->nimports_cap);
	f->imports[f->nimports].module = arena_strndup(&f->arena, module, strlen(module));
	f->imports[f->nimports].line = line;
	f->nimports++;
}

/* The innermost, latest binding of name[0..n), or NULL. */
static const struct binding *lookup(const struct walker *w, const char *name, size_t n)
{
	unsigned bit = name_bit(name, n);

	if (!(w->bloom[bit / 64] & (1ull << (bit % 64))))
		return NULL;
	for (size_t k = w->nbindings; k-- > 0;)
		if (w->bindings[k].name_len == n && memcmp(w->bindings[k].name, name, n) == 0)
			return &w->bindings[k];
	return NULL;
}

/* The end of the logical line starting at i (index of its NEWLINE or n). */
static size_t line_end(const struct walker *w, size_t i)
{
	while (i < w->n && w->toks[i].kind != MT_TOK_NEWLINE && !is_op(w, i, ";"))
		i++;
	return i;
}

/* `import a.b as c, d.e`: binds and returns the index after the statement. */
static size_t parse_import(struct walker *w, size_t i, int do_bind)
{
	size_t end = line_end(w, i);
	mt_buf *mod = &w->mod;

	for (i++; i < end;) {
		size_t j;
		mod->len = 0;
		j = read_dotted(w, i, mod);
		if (j == i)
			break;
		if (!do_bind)
			record_import(w, mod->ptr, w->toks[i].line);
		if (is_kw(w, j, "as") && is_name(w, j + 1)) {
			if (do_bind)
				bind(w, w->src + w->toks[j + 1].off, w->toks[j + 1].len, mod->ptr);
			j += 2;
		} else if (do_bind) {
			/* `import torch.nn` binds `torch` to the package torch */
			bind(w, w->src + w->toks[i].off, w->toks[i].len,
			     arena_strndup(&w->out->arena, w->src + w->toks[i].off,
					   w->toks[i].len));
		}
		i = is_op(w, j, ",") ? j + 1 : j;
		if (i == j)
			break;
	}
	return end;
}

/* `from a.b import c as d, (e, f)`; relative and star imports bind nothing. */
static size_t parse_from(struct walker *w, size_t i, int do_bind)
{
	size_t end = line_end(w, i), j;
	mt_buf *mod = &w->mod, *full = &w->full;

	if (is_op(w, i + 1, ".") || is_op(w, i + 1, "..."))
		return end; /* the repository's own relative imports */
	mod->len = 0;
	j = read_dotted(w, i + 1, mod);
	if (j == i + 1 || !is_kw(w, j, "import"))
		return end;
	if (!do_bind)
		record_import(w, mod->ptr, w->toks[i].line);
	for (j++; j < end; j++) {
		if (!is_name(w, j))
			continue; /* ( ) , and the star */
		full->len = 0;
		mt_buf_put(full, mod->ptr, mod->len);
		mt_buf_put(full, ".", 1);
		mt_buf_put(full, w->src + w->toks[j].off, w->toks[j].len);
		if (is_kw(w, j + 1, "as") && is_name(w, j + 2)) {
			if (do_bind)
				bind(w, w->src + w->toks[j + 2].off, w->toks[j + 2].len, full->ptr);
			j += 2;
		} else if (do_bind) {
			bind(w, w->src + w->toks[j].off, w->toks[j].len, full->ptr);
		}
	}
	return end;
}

/* Pass 1: module-level imports, outside any def or class body. */
static void collect_module_imports(struct walker *w)
{
	int *scope_stack = NULL;
	size_t nstack = 0, cap = 0, header_nl = SIZE_MAX, next = 0;
	int header = 0, depth = 0, scope;

	/* Only the lexer's marks: INDENT, DEDENT, NEWLINE and the names def,
	 * class, import and from; the other tokens change nothing here. An
	 * import is read to its NEWLINE (or `;`), which is then skipped, and
	 * so is every mark up to it. */
	for (size_t k = 0; k < w->nmarks; k++) {
		size_t i = w->marks[k];
		if (i < next)
			continue;
		switch (w->toks[i].kind) {
		case MT_TOK_INDENT:
			/* a def/class header ends with NEWLINE before its body's INDENT */
			scope = i > 0 && header_nl == i - 1;
			GROW(scope_stack, nstack, cap);
			scope_stack[nstack++] = scope;
			depth += scope;
			break;
		case MT_TOK_DEDENT:
			if (nstack)
				depth -= scope_stack[--nstack];
			break;
		case MT_TOK_NEWLINE:
			if (header)
				header_nl = i;
			header = 0;
			break;
		case MT_TOK_NAME:
			switch (keyword(w, i)) {
			case KW_DEF:
			case KW_CLASS:
				header |= at_statement_start(w, i) || is_kw(w, i - 1, "async");
				break;
			case KW_IMPORT:
				if (depth == 0 && at_statement_start(w, i))
					next = parse_import(w, i, 1) + 1;
				break;
			case KW_FROM:
				if (depth == 0 && at_statement_start(w, i))
					next = parse_from(w, i, 1) + 1;
				break;
			}
			break;
		default:
			break;
		}
	}
	free(scope_stack);
	w->nmodule = w->nbindings;
}

/* --- calls and their arguments --------------------------------------------- */

/* The source text of tokens [a, b) when they form a simple value: one
 * literal, a keyword constant, or a dotted name; else NULL. */
static char *simple_value(struct walker *w, size_t a, size_t b)
{
	size_t j;
	if (a >= b)
		return NULL;
	if (b - a == 1 && (w->toks[a].kind == MT_TOK_STRING || w->toks[a].kind == MT_TOK_NUMBER ||
			   w->toks[a].kind == MT_TOK_NAME))
		return arena_strndup(&w->out->arena, w->src + w->toks[a].off, w->toks[a].len);
	if (b - a == 2 && is_op(w, a, "-") && w->toks[a + 1].kind == MT_TOK_NUMBER)
		return arena_strndup(&w->out->arena, w->src + w->toks[a].off,
				     w->toks[a + 1].off + w->toks[a + 1].len - w->toks[a].off);
	for (j = a; j < b; j += 2) {
		if (!is_name(w, j) || (j + 1 < b && !is_op(w, j + 1, ".")))
			return NULL;
	}
	if (!is_name(w, b - 1))
		return NULL;
	return arena_strndup(&w->out->arena, w->src + w->toks[a].off,
			     w->toks[b - 1].off + w->toks[b - 1].len - w->toks[a].off);
}

static size_t skip_group(const struct walker *w, size_t j)
{
	if (w->match[j] != (size_t)-1)
		return w->match[j];
	return j;
}

/* The byte of a one-byte OP token, else 0. */
static inline int op_char(const struct walker *w, size_t i)
{
	const mt_token *t = &w->toks[i];
	return t->kind == MT_TOK_OP && t->len == 1 ? (unsigned char)w->src[t->off] : 0;
}

/* Fills arg0 and the keyword arguments of the call whose '(' is at `open`.
 * The keywords are gathered in the walker's scratch, then copied into the
 * arena at once. */
static void read_arguments(struct walker *w, mt_call *c, size_t open)
{
	size_t close = w->match[open], start = open + 1, nth = 0;

	if (close == (size_t)-1)
		return;
	for (size_t j = start; j <= close; j++) {
		int ch = j < close ? op_char(w, j) : ','; /* the closing bracket ends one too */
		if (ch == '(' || ch == '[' || ch == '{') {
			j = skip_group(w, j);
			continue;
		}
		if (ch != ',')
			continue;
		if (j > start && is_name(w, start) && is_op(w, start + 1, "=")) {
			GROW(w->kw, c->nkwargs, w->kwcap);
			w->kw[c->nkwargs].key = arena_strndup(&w->out->arena,
							      w->src + w->toks[start].off,
							      w->toks[start].len);
			w->kw[c->nkwargs].value = simple_value(w, start + 2, j);
			c->nkwargs++;
		} else if (nth == 0 && j > start && !is_op(w, start, "*") && !is_op(w, start, "**")) {
			c->arg0 = simple_value(w, start, j);
		}
		if (j > start)
			nth++;
		start = j + 1;
	}
	if (c->nkwargs) {
		c->kwargs = mt_arena_alloc((mt_arena **)&w->out->arena,
					   c->nkwargs * sizeof(*c->kwargs));
		memcpy(c->kwargs, w->kw, c->nkwargs * sizeof(*c->kwargs));
	}
}

static mt_call *new_call(struct walker *w, size_t first)
{
	mt_pyfile *f = w->out;
	mt_call *c;
	GROW(f->calls, f->ncalls, w->ncalls_cap);
	c = &f->calls[f->ncalls++];
	memset(c, 0, sizeof(*c));
	c->line = w->toks[first].line;
	c->col = w->toks[first].col;
	return c;
}

/* Everything a call holds lives in the arena: the chain's text, its
 * resolved name (NULL when its first name is not bound). */
static void record_chain_call(struct walker *w, size_t first, size_t end, const char *chain,
			      size_t chain_len, char *resolved, size_t resolved_len, size_t nparts)
{
	int method = !resolved && nparts > 1;
	mt_call *c = new_call(w, method ? end - 1 : first);
	c->callee_len = (uint32_t)chain_len;
	c->callee = arena_strndup(&w->out->arena, chain, chain_len);
	c->api_len = (uint32_t)resolved_len;
	c->api = resolved;
	if (method) { /* the chain ends with it */
		c->method_len = w->toks[end - 1].len;
		c->method = c->callee + chain_len - c->method_len;
	}
	read_arguments(w, c, end);
}

static void record_ref(struct walker *w, size_t first, char *resolved)
{
	mt_pyfile *f = w->out;
	GROW(f->refs, f->nrefs, w->nrefs_cap);
	f->refs[f->nrefs].api = resolved;
	f->refs[f->nrefs].line = w->toks[first].line;
	f->refs[f->nrefs].col = w->toks[first].col;
	f->nrefs++;
}

/* In the arena, the binding's target followed by rest[0..n). */
static char *resolve(struct walker *w, const struct binding *b, const char *rest, size_t n)
{
	char *p = mt_arena_alloc((mt_arena **)&w->out->arena, b->target_len + n + 1);

	memcpy(p, b->target, b->target_len);
	memcpy(p + b->target_len, rest, n);
	p[b->target_len + n] = '\0';
	return p;
}

/* A dotted name chain starting at name token i (not after a '.'): a call, a
 * reference, or nothing. Returns the index after the chain. Most chains are
 * neither, so the text is only put together for those that are; and most
 * are written without spaces, so their text is the source's. */
static size_t visit_chain(struct walker *w, size_t i)
{
	const mt_token *t = w->toks;
	size_t end = i + 1, nparts, n0 = t[i].len, len, sum = t[i].len;
	const struct binding *target = lookup(w, w->src + t[i].off, n0);
	const char *chain;
	char *resolved = NULL;
	int call, ch;

	/* the byte after each part: a dot goes on, a parenthesis calls */
	while ((ch = end < w->n ? op_char(w, end) : 0) == '.' && is_name(w, end + 1)) {
		sum += 1 + t[end + 1].len;
		end += 2;
	}
	call = ch == '(';
	if (!call && !target)
		return end;
	nparts = (end - i + 1) / 2;
	chain = w->src + t[i].off;
	len = t[end - 1].off + t[end - 1].len - t[i].off;
	if (len != sum) { /* `a . b`, or over lines in brackets */
		w->chain.len = 0;
		read_dotted(w, i, &w->chain);
		chain = w->chain.ptr;
		len = w->chain.len;
	}
	if (target) /* the binding, then the rest of the chain */
		resolved = resolve(w, target, chain + n0, len - n0);
	if (call)
		record_chain_call(w, i, end, chain, len, resolved,
				  resolved ? target->target_len + len - n0 : 0, nparts);
	else if (resolved)
		record_ref(w, i, resolved);
	return end;
}

/* `.a.b.name(` after a closing bracket, a literal or an f-string: a method
 * call on an expression. */
static void visit_expr_method(struct walker *w, size_t dot)
{
	mt_call *c;
	size_t name = dot + 1;

	while (is_op(w, name + 1, ".") && is_name(w, name + 2))
		name += 2;
	if (!is_op(w, name + 1, "("))
		return;
	c = new_call(w, name);
	c->callee_len = w->toks[name].off + w->toks[name].len - w->toks[dot].off;
	c->callee = arena_strndup(&w->out->arena, w->src + w->toks[dot].off, c->callee_len);
	c->method_len = w->toks[name].len;
	c->method = c->callee + c->callee_len - c->method_len; /* the callee ends with it */
	read_arguments(w, c, name + 1);
}

static void record_string(struct walker *w, size_t a, size_t b)
{
	mt_pyfile *f = w->out;
	GROW(f->strings, f->nstrings, w->nstrings_cap);
	f->strings[f->nstrings].text = arena_strndup(&f->arena, w->src + w->toks[a].off,
						     w->toks[b].off + w->toks[b].len -
							     w->toks[a].off);
	f->strings[f->nstrings].line = w->toks[a].line;
	f->strings[f->nstrings].col = w->toks[a].col;
	f->nstrings++;
}

/* Records an f-string once, from its start to its matching end. */
static void visit_fstring(struct walker *w, size_t i)
{
	int depth = 0;
	for (size_t j = i; j < w->n; j++) {
		if (w->toks[j].kind == MT_TOK_FSTRING_START)
			depth++;
		else if (w->toks[j].kind == MT_TOK_FSTRING_END && --depth == 0) {
			record_string(w, i, j);
			return;
		}
	}
}

/* --- pass 2 ---------------------------------------------------------------- */

static void enter_block(struct walker *w, int scope)
{
	GROW(w->levels, w->nlevels, w->levels_cap);
	w->levels[w->nlevels].scope = scope;
	w->levels[w->nlevels].nbindings = w->nbindings;
	w->nlevels++;
}

static void leave_block(struct walker *w)
{
	if (!w->nlevels)
		return;
	w->nlevels--;
	if (w->levels[w->nlevels].scope)
		w->nbindings = w->levels[w->nlevels].nbindings;
}

static int in_function(const struct walker *w)
{
	for (size_t k = 0; k < w->nlevels; k++)
		if (w->levels[k].scope)
			return 1;
	return 0;
}

static int ends_expression(const struct walker *w, size_t i)
{
	mt_tok_kind k = w->toks[i].kind;
	return is_op(w, i, ")") || is_op(w, i, "]") || k == MT_TOK_STRING ||
	       k == MT_TOK_FSTRING_END || k == MT_TOK_NUMBER;
}

static size_t visit_statement_token(struct walker *w, size_t i)
{
	size_t end;

	switch (keyword(w, i)) {
	case KW_NONE:
		if (i > 0 && op_char(w, i - 1) == '.')
			return i + 1;
		return visit_chain(w, i);
	case KW_IMPORT:
		if (!at_statement_start(w, i))
			return i + 1;
		end = parse_import(w, i, 0);
		if (in_function(w))
			parse_import(w, i, 1);
		return end;
	case KW_FROM:
		if (!at_statement_start(w, i) || is_op(w, i + 1, "("))
			return i + 1;
		end = parse_from(w, i, 0);
		if (in_function(w))
			parse_from(w, i, 1);
		return end;
	case KW_DEF:
	case KW_CLASS:
		w->def_line |= at_statement_start(w, i) || is_kw(w, i - 1, "async");
		return is_name(w, i + 1) ? i + 2 : i + 1; /* the defined name is no call */
	default:
		return i + 1;
	}
}

static void walk(struct walker *w)
{
	w->def_nl = SIZE_MAX;
	for (size_t i = 0; i < w->n;) {
		/* nine tokens in ten are operators and names */
		if (w->toks[i].kind == MT_TOK_OP) {
			if (op_char(w, i) == '.' && i > 0 && ends_expression(w, i - 1) &&
			    is_name(w, i + 1))
				visit_expr_method(w, i);
			i++;
			continue;
		}
		if (w->toks[i].kind == MT_TOK_NAME) {
			i = visit_statement_token(w, i);
			continue;
		}
		switch (w->toks[i].kind) {
		case MT_TOK_INDENT:
			/* a def/class header ends with NEWLINE before its body's INDENT */
			enter_block(w, i > 0 && w->def_nl == i - 1);
			i++;
			break;
		case MT_TOK_DEDENT:
			leave_block(w);
			i++;
			break;
		case MT_TOK_NEWLINE:
			if (w->def_line)
				w->def_nl = i;
			w->def_line = 0;
			i++;
			break;
		case MT_TOK_STRING:
			record_string(w, i, i);
			i++;
			break;
		case MT_TOK_FSTRING_START:
			if (w->fdepth++ == 0)
				visit_fstring(w, i);
			i++;
			break;
		case MT_TOK_FSTRING_END:
			w->fdepth -= w->fdepth > 0;
			i++;
			break;
		default:
			i++;
		}
	}
}

/* --- entry points ------------------------------------------------------------ */

int mt_extract(mt_pyfile *out, const char *src, size_t len)
{
	mt_lexbuf b = {0};
	int error = mt_extract_buf(out, src, len, &b);

	mt_lexbuf_dispose(&b);
	return error;
}

int mt_extract_buf(mt_pyfile *out, const char *src, size_t len, mt_lexbuf *lb)
{
	struct walker w = {0};
	size_t n = 0;
	int error;

	memset(out, 0, sizeof(*out));
	/* the walk looks at no comment, NL or ENDMARKER */
	if ((error = mt_pylex_code_buf(lb, &n, src, len)) < 0)
		return error;
	w.match = lb->match;
	w.marks = lb->marks;
	w.nmarks = lb->nmarks;
	w.src = src;
	w.toks = lb->tok;
	w.n = n;
	w.out = out;
	/* a call comes about every 20 tokens: sized once, the array is
	 * rarely moved as it grows */
	w.ncalls_cap = n / 16 + 16;
	if (!(out->calls = malloc(w.ncalls_cap * sizeof(*out->calls))))
		abort();
	collect_module_imports(&w);
	walk(&w);
	free(w.bindings);
	free(w.levels);
	free(w.kw);
	mt_buf_dispose(&w.chain);
	mt_buf_dispose(&w.mod);
	mt_buf_dispose(&w.full);
	return 0;
}

void mt_pyfile_dispose(mt_pyfile *f)
{
	free(f->calls);
	free(f->refs);
	free(f->strings);
	free(f->imports);
	mt_arena_free(f->arena);
	memset(f, 0, sizeof(*f));
}
