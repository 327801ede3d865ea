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
#include "extract_int.h"
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

static inline uint32_t name_hash(const char *name, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t k = 0; k < n; k++)
		h = (h ^ (unsigned char)name[k]) * 16777619u;
	return h;
}

/* The slot of name[0..n): its own, else the free one where it would go. */
static struct nameslot *slot_of(const struct walker *w, const char *name, size_t n)
{
	size_t mask = w->nslots - 1, k = name_hash(name, n) & mask;

	while (w->slots[k].name &&
	       (w->slots[k].len != n || memcmp(w->slots[k].name, name, n) != 0))
		k = (k + 1) & mask;
	return &w->slots[k];
}

/* Room for one more name: the table is kept at most half full. */
static void slots_reserve(struct walker *w)
{
	struct nameslot *old = w->slots;
	size_t nold = w->nslots;

	if (w->nslots && (w->nnames + 1) * 2 <= w->nslots)
		return;
	w->nslots = w->nslots ? w->nslots * 2 : 256;
	if (!(w->slots = calloc(w->nslots, sizeof(*w->slots))))
		abort();
	for (size_t k = 0; k < nold; k++)
		if (old[k].name)
			*slot_of(w, old[k].name, old[k].len) = old[k];
	free(old);
}

/* Binds name to target (an import), or to a local of `kind` when target is
 * NULL; the binding hides the name's earlier one until it is popped. */
static void bind_kind(struct walker *w, const char *name, size_t name_len, const char *target,
		      enum kind kind)
{
	struct binding *b;
	struct nameslot *s;

	slots_reserve(w);
	GROW(w->bindings, w->nbindings, w->bindings_cap);
	b = &w->bindings[w->nbindings];
	b->name = arena_strndup(&w->out->arena, name, name_len);
	b->name_len = name_len;
	b->target_len = target ? strlen(target) : 0;
	b->target = target ? arena_strndup(&w->out->arena, target, b->target_len) : NULL;
	b->kind = (uint8_t)kind;
	s = slot_of(w, name, name_len);
	if (!s->name) {
		s->name = b->name;
		s->len = (uint32_t)name_len;
		w->nnames++;
	}
	b->prev = s->top;
	s->top = (uint32_t)++w->nbindings;
}

static void bind(struct walker *w, const char *name, size_t name_len, const char *target)
{
	bind_kind(w, name, name_len, target, K_UNKNOWN);
}

/* Unbinds down to `mark` bindings, showing what they hid again. */
static void pop_bindings(struct walker *w, size_t mark)
{
	while (w->nbindings > mark) {
		const struct binding *b = &w->bindings[--w->nbindings];
		slot_of(w, b->name, b->name_len)->top = b->prev;
	}
}

static void record_import(struct walker *w, const char *module, uint32_t line)
{
	mt_pyfile *f = w->out;
	GROW(f->imports, f->nimports, w->nimports_cap);
	f->imports[f->nimports].module = arena_strndup(&f->arena, module, strlen(module));
	f->imports[f->nimports].line = line;
	f->nimports++;
}

const struct binding *mt_extract__lookup(const struct walker *w, const char *name, size_t n)
{
	const struct nameslot *s;

	if (!w->nslots)
		return NULL;
	s = slot_of(w, name, n);
	return s->top ? &w->bindings[s->top - 1] : NULL;
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
		mt_extract__receiver(w, c, end - 3);
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

	if (target && !target->target)
		target = NULL; /* a local name: hides any import of that name */
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
	mt_extract__receiver(w, c, name - 2);
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
	f->strings[f->nstrings].role = mt_extract__string_role(w, a, b);
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

/* --- pass 2: blocks and local names ----------------------------------------- */

static void enter_block(struct walker *w, int scope, size_t mark)
{
	GROW(w->levels, w->nlevels, w->levels_cap);
	w->levels[w->nlevels].scope = scope;
	w->levels[w->nlevels].nbindings = mark;
	w->nlevels++;
}

static void leave_block(struct walker *w)
{
	if (!w->nlevels)
		return;
	w->nlevels--;
	if (w->levels[w->nlevels].scope)
		pop_bindings(w, w->levels[w->nlevels].nbindings);
}

static int in_function(const struct walker *w)
{
	for (size_t k = 0; k < w->nlevels; k++)
		if (w->levels[k].scope)
			return 1;
	return 0;
}

/* Where a local name bound now lives: 1 in a function, a lambda or a
 * comprehension (it hides imports there), 0 at module level (an import of
 * the same name is the module's for the whole file: the local is not
 * bound), -1 in a class body (its names are not visible in its methods). */
static int local_scope(const struct walker *w)
{
	if (w->ntemps)
		return 1;
	for (size_t k = w->nlevels; k-- > 0;)
		if (w->levels[k].scope)
			return w->levels[k].scope == 1 ? 1 : -1;
	return 0;
}

static void bind_local(struct walker *w, size_t tok, enum kind kind)
{
	const char *name = w->src + w->toks[tok].off;
	size_t n = w->toks[tok].len;
	const struct binding *b;
	int where = local_scope(w);

	if (where < 0 || (where == 0 && (b = lookup(w, name, n)) && b->target))
		return;
	bind_kind(w, name, n, NULL, kind);
}

/* A name that starts a parameter in (open, close): after the opening
 * token, a comma, `*` or `**`. */
static int param_start(const struct walker *w, size_t j, size_t open)
{
	if (!is_name(w, j) || keyword(w, j) != KW_NONE)
		return 0;
	return j - 1 == open || op_char(w, j - 1) == ',' || op_char(w, j - 1) == '*' ||
	       is_op(w, j - 1, "**");
}

/* Binds the parameters in (open, close) as locals; a def's are typed by
 * their annotations. */
static void bind_params(struct walker *w, size_t open, size_t close)
{
	for (size_t j = open + 1; j < close; j++) {
		int ch = op_char(w, j);
		enum kind kind = K_UNKNOWN;
		if (ch == '(' || ch == '[' || ch == '{') {
			j = w->match[j] < close ? w->match[j] : j;
			continue;
		}
		if (!param_start(w, j, open))
			continue;
		if (is_op(w, j + 1, ":") && is_op(w, open, "(")) { /* annotated */
			size_t comma = find_at_depth0(w, j + 2, close, ',', 0);
			kind = mt_extract__annotation_kind(w, j + 2,
							   find_at_depth0(w, j + 2, comma, '=', 0));
		}
		bind_kind(w, w->src + w->toks[j].off, w->toks[j].len, NULL, kind);
	}
}

static void pend(struct walker *w, size_t tok, enum kind kind)
{
	GROW(w->pending, w->npending, w->pending_cap);
	w->pending[w->npending++] = (struct pending){tok, (uint8_t)kind};
}

static void bind_pending(struct walker *w)
{
	for (size_t k = 0; k < w->npending; k++)
		bind_local(w, w->pending[k].tok, (enum kind)w->pending[k].kind);
	w->npending = 0;
}

/* The names of a target list [a, b) of an assignment (`x`, `x, y`), bound
 * when the statement ends; nothing when it holds more than names. */
static void pend_targets(struct walker *w, size_t a, size_t b, enum kind kind)
{
	size_t n = 0;

	for (size_t j = a; j < b; j += 2) {
		if (!is_name(w, j) || keyword(w, j) != KW_NONE || (j + 1 < b && !is_op(w, j + 1, ",")))
			return;
		n++;
	}
	if (n > 1) /* unpacked: a str's parts are str, a tensor's tensors */
		kind = kind == K_STR || kind == K_TENSOR ? kind : K_UNKNOWN;
	for (size_t j = a; j < b; j += 2)
		pend(w, j, kind);
}

/* `a = b = value`, `a, b = ...`, `a: T = ...` at statement start i: the
 * targets are bound when the statement ends. */
static void visit_assignment(struct walker *w, size_t i)
{
	size_t j = i, ntargets = 0, end, value;
	enum kind kind;

	while (is_name(w, j) && keyword(w, j) == KW_NONE && ++ntargets && is_op(w, j + 1, ","))
		j += 2;
	if (!ntargets || !is_name(w, j) || j + 1 >= w->n || w->toks[j + 1].kind != MT_TOK_OP ||
	    w->src[w->toks[j + 1].off + w->toks[j + 1].len - 1] != (w->toks[j + 1].len == 1 &&
								   w->src[w->toks[j + 1].off] == ':'
							       ? ':'
							       : '='))
		return; /* most statements are calls, not `x =`, `x: T` or `x += ` */
	end = line_end(w, j + 1);
	if (ntargets == 1 && is_op(w, j + 1, ":")) { /* annotated */
		pend(w, i, mt_extract__annotation_kind(w, j + 2,
						       find_at_depth0(w, j + 2, end, '=', 0)));
		return;
	}
	if (ntargets == 1 && w->toks[j + 1].kind == MT_TOK_OP && w->toks[j + 1].len >= 2 &&
	    w->src[w->toks[j + 1].off + w->toks[j + 1].len - 1] == '=' &&
	    !is_op(w, j + 1, "==") && !is_op(w, j + 1, "!=") && !is_op(w, j + 1, "<=") &&
	    !is_op(w, j + 1, ">=")) { /* `x += t`: a number plus a tensor is a tensor */
		pend(w, i, K_UNKNOWN);
		return;
	}
	if (!is_op(w, j + 1, "="))
		return;
	/* `a = b = value`: the value follows the last `=` */
	for (value = j + 2; find_at_depth0(w, value, end, '=', 0) < end;)
		value = find_at_depth0(w, value, end, '=', 0) + 1;
	kind = mt_extract__expr_kind(w, value, end);
	for (size_t t = i; t < value; t = find_at_depth0(w, t, end, '=', 0) + 1)
		pend_targets(w, t, find_at_depth0(w, t, end, '=', 0), kind);
}

/* Binds the names of a target list [a, b) (`x`, `i, x`, `(i, x)`) to kind,
 * or to K_UNKNOWN when there is more than one. */
static void bind_targets(struct walker *w, size_t a, size_t b, enum kind kind, int temp)
{
	size_t names = 0;

	for (size_t j = a; j < b; j++)
		names += is_name(w, j);
	for (size_t j = a; j < b; j++) {
		if (!is_name(w, j) || keyword(w, j) != KW_NONE || (j > a && op_char(w, j - 1) == '.'))
			continue;
		if (temp)
			bind_kind(w, w->src + w->toks[j].off, w->toks[j].len, NULL,
				  names == 1 || kind == K_STR ? kind : K_UNKNOWN);
		else
			bind_local(w, j, names == 1 || kind == K_STR ? kind : K_UNKNOWN);
	}
}

/* `for TARGETS in ITER:` */
static void visit_for(struct walker *w, size_t i)
{
	size_t end = line_end(w, i), in = find_at_depth0(w, i + 1, end, 0, KW_IN), colon;

	if (in == end)
		return;
	colon = find_at_depth0(w, in + 1, end, ':', 0);
	bind_targets(w, i + 1, in,
		     mt_extract__elem_kind(mt_extract__expr_kind(w, in + 1, colon)), 0);
}

/* `with A as a, B as b:` and `except E as e:` */
static void visit_as(struct walker *w, size_t i, int except)
{
	size_t end = line_end(w, i), item = i + 1;

	end = find_at_depth0(w, i + 1, end, ':', 0);
	while (item < end) {
		size_t comma = find_at_depth0(w, item, end, ',', 0);
		size_t as = find_at_depth0(w, item, comma, 0, KW_AS);
		if (as < comma && is_name(w, as + 1))
			bind_local(w, as + 1,
				   except ? K_OTHER : mt_extract__expr_kind(w, item, as));
		item = comma + 1;
	}
}

static void push_temp(struct walker *w, size_t end)
{
	GROW(w->temps, w->ntemps, w->temps_cap);
	w->temps[w->ntemps++] = (struct temp){end, w->nbindings};
}

/* `lambda a, b=1: body`: a and b are the body's, up to the end of the
 * lambda (a comma, a closing bracket or the end of the line). */
static void visit_lambda(struct walker *w, size_t i)
{
	size_t end = line_end(w, i), colon = find_at_depth0(w, i + 1, end, ':', 0), j;

	for (j = colon + 1; j < end; j++) {
		int ch = op_char(w, j);
		if (ch == '(' || ch == '[' || ch == '{')
			j = w->match[j] < end ? w->match[j] : j;
		else if (ch == ',' || ch == ')' || ch == ']' || ch == '}' ||
			 (is_name(w, j) && keyword(w, j) == KW_FOR))
			break;
	}
	push_temp(w, j);
	bind_params(w, i, colon);
}

/* A comprehension `[x.f() for x in xs if ...]` at the bracket `open`: its
 * targets are local to the brackets. */
static void visit_comprehension(struct walker *w, size_t open)
{
	size_t close = w->match[open], f = find_at_depth0(w, open + 1, close, 0, KW_FOR);

	if (f == close)
		return;
	push_temp(w, close);
	while (f < close) {
		size_t in = find_at_depth0(w, f + 1, close, 0, KW_IN), stop = close;
		size_t next_for = find_at_depth0(w, in + 1, close, 0, KW_FOR);
		size_t next_if = find_at_depth0(w, in + 1, close, 0, KW_IF);
		stop = next_for < next_if ? next_for : next_if;
		if (in < close)
			bind_targets(w, f + 1, in,
				     mt_extract__elem_kind(mt_extract__expr_kind(w, in + 1, stop)), 1);
		f = next_for;
	}
}

/* `def f(a, b: str):` at i: its parameters are bound at the `)`, after the
 * defaults (the enclosing scope's) are read. */
static void visit_def(struct walker *w, size_t i, int cls)
{
	if (is_name(w, i + 1)) /* the name is the enclosing scope's */
		bind_local(w, i + 1, cls ? K_CLASS : K_UNKNOWN);
	w->def_line = 1;
	w->def_class = cls;
	w->def_mark = w->nbindings;
	if (!cls && is_name(w, i + 1) && is_op(w, i + 2, "(") && w->match[i + 2] < w->n)
		w->params_end = w->match[i + 2];
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
	int kw = keyword(w, i);

	switch (kw) {
	case KW_NONE:
		if (i > 0 && op_char(w, i - 1) == '.')
			return i + 1;
		if (at_statement_start(w, i))
			visit_assignment(w, i);
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
		if (at_statement_start(w, i) || is_kw(w, i - 1, "async"))
			visit_def(w, i, kw == KW_CLASS);
		return is_name(w, i + 1) ? i + 2 : i + 1; /* the defined name is no call */
	case KW_FOR:
		if (at_statement_start(w, i) || is_kw(w, i - 1, "async"))
			visit_for(w, i);
		return i + 1;
	case KW_WITH:
	case KW_EXCEPT:
		if (at_statement_start(w, i) || is_kw(w, i - 1, "async"))
			visit_as(w, i, kw == KW_EXCEPT);
		return i + 1;
	case KW_LAMBDA:
		visit_lambda(w, i);
		return i + 1;
	default:
		return i + 1;
	}
}

/* Closes the bracket whose closing token is i: it and any left open inside
 * it (the walk skipped none, but a bracket it never saw stays untouched). */
static void close_bracket(struct walker *w, size_t i)
{
	for (size_t k = w->nopens; k-- > 0;)
		if (w->opens[k] == w->open_of[i]) {
			w->nopens = k;
			return;
		}
}

/* An operator token: brackets are remembered from their closing side,
 * comprehensions and a def's parameters bound, methods on expressions
 * visited. */
static void visit_op(struct walker *w, size_t i)
{
	int ch = op_char(w, i);

	if (ch == '(' || ch == '[' || ch == '{') {
		GROW(w->opens, w->nopens, w->opens_cap);
		w->opens[w->nopens++] = i;
		if (w->match[i] < w->n && w->match[i] - i > 4) /* room for `x for x in y` */
			visit_comprehension(w, i);
	} else if (ch == ')' || ch == ']' || ch == '}') {
		close_bracket(w, i);
	}
	if (ch == ')' && i == w->params_end) {
		bind_params(w, w->open_of[i], i);
		w->params_end = 0;
	} else if (ch == '.' && i > 0 && ends_expression(w, i - 1) && is_name(w, i + 1)) {
		visit_expr_method(w, i);
	} else if (ch == ';') {
		bind_pending(w);
	}
}

/* The end of a logical line: an assignment's targets are bound; a one-line
 * def (no INDENT follows) has no body left for its parameters. */
static void visit_newline(struct walker *w, size_t i)
{
	bind_pending(w);
	if (w->def_line) {
		w->def_nl = i;
		if (!w->def_class && (i + 1 >= w->n || w->toks[i + 1].kind != MT_TOK_INDENT))
			pop_bindings(w, w->def_mark);
	}
	w->def_line = 0;
}

static void walk(struct walker *w)
{
	w->def_nl = SIZE_MAX;
	for (size_t i = 0; i < w->n;) {
		/* nine tokens in ten are operators and names */
		while (w->ntemps && i >= w->temps[w->ntemps - 1].end)
			pop_bindings(w, w->temps[--w->ntemps].nbindings);
		if (w->toks[i].kind == MT_TOK_OP) {
			visit_op(w, i);
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
			if (i > 0 && w->def_nl == i - 1) /* the parameters are the body's */
				enter_block(w, w->def_class ? 2 : 1,
					    w->def_class ? w->nbindings : w->def_mark);
			else
				enter_block(w, 0, w->nbindings);
			i++;
			break;
		case MT_TOK_DEDENT:
			leave_block(w);
			i++;
			break;
		case MT_TOK_NEWLINE:
			visit_newline(w, i);
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
	w.names_open = SIZE_MAX;
	/* a call comes about every 20 tokens: sized once, the array is
	 * rarely moved as it grows */
	w.ncalls_cap = n / 16 + 16;
	if (!(out->calls = malloc(w.ncalls_cap * sizeof(*out->calls))))
		abort();
	/* the receivers of methods are read backwards, from their closing
	 * brackets */
	if (!(w.open_of = malloc((n + 1) * sizeof(*w.open_of))))
		abort();
	/* every closing bracket gets its opening one: a file that lexes has
	 * no unmatched bracket */
	for (size_t i = 0; i < n; i++) {
		int ch = op_char(&w, i);
		if ((ch == '(' || ch == '[' || ch == '{') && w.match[i] < n)
			w.open_of[w.match[i]] = i;
	}
	collect_module_imports(&w);
	walk(&w);
	free(w.bindings);
	free(w.slots);
	free(w.temps);
	free(w.pending);
	free(w.open_of);
	free(w.opens);
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
