/* A Python 3 tokenizer that reproduces CPython 3.12's tokenize stream (see
 * pylex.h) from raw bytes, without decoding them.
 *
 * The shape follows CPython's own tokenizer (Parser/lexer), because matching
 * its token boundaries, including its quirks, is the point:
 *
 * - One pass over the bytes; the caller sees tokens in a single growable
 *   array. Each token is produced by a plain function for its kind, chosen by
 *   the first byte, so there is no per-character dispatch through pointers.
 * - A mode stack for f-strings (PEP 701). Each open f-string is either
 *   scanning literal text (FSTRING_MIDDLE / FSTRING_END) or, inside a
 *   replacement field, tokenizing ordinary code. Brackets opened inside the
 *   f-string are counted per f-string (`depth`) and the depth at which the
 *   current replacement field started is `expr_depth` (-1 outside fields),
 *   exactly as CPython's curly_bracket_depth / curly_bracket_expr_start_depth,
 *   so that `:` starts a format spec only at the field's own level and `}`
 *   closes the field only at that level.
 * - Line breaks are \n, \r\n or a lone \r (compile() accepts all three). A
 *   source whose last line has no line break gets a zero-length "virtual"
 *   one, as CPython appends a newline before tokenizing; that is where the
 *   empty NEWLINE/NL at end of file comes from.
 * - Columns are byte offsets from the start of the physical line; on line 1
 *   the line starts after a UTF-8 BOM.
 *
 * Limits are CPython's: 100 indentation levels, 200 nested brackets, 150
 * nested f-strings, 3 nested replacement fields. They keep every stack a
 * fixed array, so lexing allocates nothing but the token array. */
#include "pylex.h"
#include "pylex_int.h"
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sets "LINE:COL: what" (1-based column) and returns MT_EINVALID. */
int mt_pylex__error(uint32_t line, uint32_t col, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return mt_error_set(MT_EINVALID, "%u:%u: %s", line, col + 1, what);
}

/* The limits above keep every stack a fixed array: the token array is all
 * that grows. */
int mt_pylex__grow(lexer *lx)
{
	size_t cap = lx->cap ? lx->cap * 2 : 64;
	mt_token *t;

	if (cap > SIZE_MAX / sizeof(*t))
		return mt_error_set(MT_EIO, "out of memory");
	t = realloc(lx->tok, cap * sizeof(*t));
	if (!t)
		return mt_error_set(MT_EIO, "out of memory");
	lx->tok = t;
	if (lx->match) {
		size_t *m = realloc(lx->match, cap * sizeof(*m));
		if (!m)
			return mt_error_set(MT_EIO, "out of memory");
		lx->match = m;
		if (!(m = realloc(lx->marks, cap * sizeof(*m))))
			return mt_error_set(MT_EIO, "out of memory");
		lx->marks = m;
	}
	lx->cap = cap;
	return 0;
}

/* Marks token `tok`, a name at off, when it is one of those. Out of line:
 * inlined, it costs lex_code registers in its hot loop. */
__attribute__((noinline)) static void mark_name(lexer *lx, size_t off, size_t len, size_t tok)
{
	if (marked_name(lx->s + off, len))
		lx->marks[lx->nmarks++] = tok;
}


/* --- brackets --------------------------------------------------------------- */

static int open_bracket(lexer *lx, unsigned char c)
{
	struct paren *pa;

	if (lx->level >= MAX_LEVEL)
		return ERR_HERE(lx, "too many nested parentheses");
	pa = &lx->paren[lx->level++];
	pa->ch = c;
	pa->line = lx->line;
	pa->col = col_of(lx, lx->p);
	pa->tok = lx->ntok;
	if (lx->nfs)
		lx->fs[lx->nfs - 1].depth++;
	return 0;
}

static int bracket_mismatch(lexer *lx, unsigned char c, const struct paren *opening)
{
	struct fmode *m = lx->nfs ? &lx->fs[lx->nfs - 1] : NULL;

	/* f"{)}": the field's own brace cannot be closed by something else. */
	if (m && opening->ch == '{' && m->depth - 1 == m->expr_depth)
		return ERR_HERE(lx, "f-string: unmatched '%c'", c);
	if (opening->line != lx->line)
		return ERR_HERE(lx, "closing parenthesis '%c' does not match opening parenthesis "
			       "'%c' on line %u", c, opening->ch, opening->line);
	return ERR_HERE(lx, "closing parenthesis '%c' does not match opening parenthesis '%c'",
			c, opening->ch);
}

static int close_bracket(lexer *lx, unsigned char c)
{
	struct fmode *m = lx->nfs ? &lx->fs[lx->nfs - 1] : NULL;
	const struct paren *opening;

	if (m && m->depth == 0 && c == '}')
		return ERR_HERE(lx, "f-string: single '}' is not allowed");
	if (lx->level == 0)
		return ERR_HERE(lx, "unmatched '%c'", c);
	opening = &lx->paren[--lx->level];
	if (!((opening->ch == '(' && c == ')') || (opening->ch == '[' && c == ']') ||
	      (opening->ch == '{' && c == '}')))
		return bracket_mismatch(lx, c, opening);
	if (lx->match) /* this closing token is the next one */
		lx->match[opening->tok] = lx->ntok;
	if (m) {
		m->depth--;
		if (c == '}' && m->depth == m->expr_depth) {
			/* The replacement field is over: back to literal text. */
			m->expr_depth--;
			m->in_expr = 0;
		}
	}
	return 0;
}

/* --- indentation ------------------------------------------------------------ */

static int lex_continuation(lexer *lx);

/* Compares a line's indentation with the stack, as CPython: the column with
 * tabs to multiples of 8 must agree in direction with the column counting a
 * tab as one ("altcol"), otherwise the meaning depends on the tab size. */
static int apply_indent(lexer *lx, int col, int altcol)
{
	uint32_t c0 = col_of(lx, lx->p);
	int i = lx->indent;

	if (col == lx->indstack[i]) {
		if (altcol != lx->altstack[i])
			return ERR_HERE(lx, "inconsistent use of tabs and spaces in indentation");
		return 0;
	}
	if (col > lx->indstack[i]) {
		if (i + 1 >= MAX_INDENT)
			return ERR_HERE(lx, "too many levels of indentation");
		if (altcol <= lx->altstack[i])
			return ERR_HERE(lx, "inconsistent use of tabs and spaces in indentation");
		lx->indent = ++i;
		lx->indstack[i] = col;
		lx->altstack[i] = altcol;
		return emit(lx, MT_TOK_INDENT, lx->bol, lx->p - lx->bol, lx->line, 0);
	}
	while (i > 0 && col < lx->indstack[i]) {
		i--;
		if (emit(lx, MT_TOK_DEDENT, lx->p, 0, lx->line, c0) < 0)
			return MT_EIO;
	}
	lx->indent = i;
	if (col != lx->indstack[i])
		return ERR_HERE(lx, "unindent does not match any outer indentation level");
	if (altcol != lx->altstack[i])
		return ERR_HERE(lx, "inconsistent use of tabs and spaces in indentation");
	return 0;
}

/* At the start of a physical line: measures the indentation and, on a line
 * that has code outside brackets, emits INDENT or DEDENTs. */
static int lex_indent(lexer *lx)
{
	int col = 0, altcol = 0, cont_col = 0, rc;

	lx->atbol = 0;
	for (;;) {
		int c = at(lx, lx->p);
		if (c == ' ') { /* most of the indentation: count the run at once */
			size_t q = skip_spaces(lx, lx->p);
			col += (int)(q - lx->p);
			altcol += (int)(q - lx->p);
			lx->p = q;
			continue;
		} else if (c == '\t') {
			col = (col / TABSIZE + 1) * TABSIZE;
			altcol++;
		} else if (c == '\f') {
			col = altcol = 0; /* form feed: CPython restarts the count */
		} else if (c == '\\') {
			/* Indentation split by backslashes: the first one decides. */
			cont_col = cont_col ? cont_col : col;
			if ((rc = lex_continuation(lx)) < 0)
				return rc;
			continue;
		} else {
			break;
		}
		lx->p++;
	}
	lx->blank = at(lx, lx->p) == '#' || eol_len(lx, lx->p) >= 0;
	if (lx->blank || lx->level > 0)
		return 0;
	if (cont_col)
		col = altcol = cont_col;
	return apply_indent(lx, col, altcol);
}

/* --- names, numbers --------------------------------------------------------- */

/* Digits with single underscores between them, from *p. */
static int digits(lexer *lx, size_t *p)
{
	for (;;) {
		while (is_digit(at(lx, *p)))
			(*p)++;
		if (at(lx, *p) != '_')
			return 0;
		(*p)++;
		if (!is_digit(at(lx, *p)))
			return mt_pylex__error(lx->line, col_of(lx, *p), "invalid decimal literal");
	}
}

static inline int is_radix_digit(int c, int base)
{
	if (base == 16)
		return is_digit(c) || (unsigned)((c | 0x20) - 'a') < 6;
	return (unsigned)(c - '0') < (unsigned)base;
}

/* 0x, 0o, 0b literals; p is after the letter. */
static int lex_radix(lexer *lx, size_t start, size_t p, int base)
{
	const char *name = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
	int c;

	do {
		if (at(lx, p) == '_')
			p++;
		c = at(lx, p);
		if (!is_radix_digit(c, base)) {
			if (is_digit(c))
				return mt_pylex__error(lx->line, col_of(lx, p),
						       "invalid digit '%c' in %s literal", c, name);
			return mt_pylex__error(lx->line, col_of(lx, p), "invalid %s literal", name);
		}
		while (is_radix_digit(at(lx, p), base))
			p++;
		c = at(lx, p);
	} while (c == '_');
	if (is_digit(c))
		return mt_pylex__error(lx->line, col_of(lx, p), "invalid digit '%c' in %s literal",
				       c, name);
	lx->p = p;
	return emit_here(lx, MT_TOK_NUMBER, start);
}

/* Fraction, exponent and imaginary suffix after the integer part (p is at
 * the '.', the 'e' or whatever follows the digits). Like CPython's tokenize,
 * letters right after a number are left to the next token (`1if`). */
static int lex_float_tail(lexer *lx, size_t start, size_t p)
{
	int c = at(lx, p);

	if (c == '.') {
		p++;
		if (is_digit(at(lx, p)) && digits(lx, &p) < 0)
			return MT_EINVALID;
		c = at(lx, p);
	}
	if (c == 'e' || c == 'E') {
		size_t q = p + 1;
		int d = at(lx, q);
		if (d == '+' || d == '-') {
			q++;
			if (!is_digit(at(lx, q)))
				return mt_pylex__error(lx->line, col_of(lx, q), "invalid decimal literal");
		}
		if (is_digit(at(lx, q))) {
			if (digits(lx, &q) < 0)
				return MT_EINVALID;
			p = q;
			c = at(lx, p);
		}
	}
	if (c == 'j' || c == 'J')
		p++;
	lx->p = p;
	return emit_here(lx, MT_TOK_NUMBER, start);
}

static int lex_number(lexer *lx)
{
	size_t start = lx->p, p = start;
	int c = at(lx, p);

	if (c == '.')
		return lex_float_tail(lx, start, p);
	if (c != '0') {
		if (digits(lx, &p) < 0)
			return MT_EINVALID;
		return lex_float_tail(lx, start, p);
	}
	c = at(lx, ++p);
	if (c == 'x' || c == 'X')
		return lex_radix(lx, start, p + 1, 16);
	if (c == 'o' || c == 'O')
		return lex_radix(lx, start, p + 1, 8);
	if (c == 'b' || c == 'B')
		return lex_radix(lx, start, p + 1, 2);
	/* Zeros, then maybe more digits: "0123" is accepted here (tokenize
	 * does; the compiler rejects it), "0123.5" and "012j" are valid. */
	if (digits(lx, &p) < 0)
		return MT_EINVALID;
	return lex_float_tail(lx, start, p);
}

/* The length of a string prefix at p when one is followed by a quote (0
 * otherwise), with CPython's rules: b, r, u, f, and the pairs br, rb, fr, rf
 * in any case; never u with another letter, never b with f. */
static size_t string_prefix(const lexer *lx, size_t p, int *is_f)
{
	int saw_b = 0, saw_r = 0, saw_u = 0, saw_f = 0;
	size_t i;

	for (i = 0; i < 2; i++) {
		int c = at(lx, p + i) | 0x20;
		if (c == 'b' && !(saw_b || saw_u || saw_f))
			saw_b = 1;
		else if (c == 'u' && !(saw_b || saw_u || saw_r || saw_f))
			saw_u = 1;
		else if (c == 'r' && !(saw_r || saw_u))
			saw_r = 1;
		else if (c == 'f' && !(saw_f || saw_b || saw_u))
			saw_f = 1;
		else
			return 0;
		c = at(lx, p + i + 1);
		if (c == '"' || c == '\'') {
			*is_f = saw_f;
			return i + 1;
		}
	}
	return 0;
}

static int lex_name(lexer *lx)
{
	size_t start = lx->p, pre;
	int is_f = 0;

	switch (lx->s[start] | 0x20) { /* only b, r, u, f start a string prefix */
	case 'b': case 'r': case 'u': case 'f':
		pre = string_prefix(lx, start, &is_f);
		if (pre)
			return is_f ? mt_pylex__fstring_start(lx, start, pre)
				    : mt_pylex__string(lx, start, pre);
	}
	lx->p = skip_id(lx, lx->p + 1);
	return emit_here(lx, MT_TOK_NAME, start);
}

/* --- operators, the rest ---------------------------------------------------- */

/* Length of the operator starting with c, c2, c3 (0 when c starts none). */
static inline int op_len(int c, int c2, int c3)
{
	switch (c) {
	case '(': case ')': case '[': case ']': case '{': case '}':
	case ',': case ';': case '~':
		return 1;
	case '.':
		return c2 == '.' && c3 == '.' ? 3 : 1;
	case '+': case '%': case '&': case '|': case '^': case '@': case '=': case '!':
	case ':':
		return c2 == '=' ? 2 : 1;
	case '-':
		return c2 == '=' || c2 == '>' ? 2 : 1;
	case '*': case '/':
		if (c2 == c)
			return c3 == '=' ? 3 : 2;
		return c2 == '=' ? 2 : 1;
	case '<':
		if (c2 == '<')
			return c3 == '=' ? 3 : 2;
		return c2 == '=' || c2 == '>' ? 2 : 1; /* `<>` is one token */
	case '>':
		if (c2 == '>')
			return c3 == '=' ? 3 : 2;
		return c2 == '=' ? 2 : 1;
	default:
		return 0;
	}
}

static int lex_op(lexer *lx)
{
	size_t start = lx->p;
	int c = lx->s[start], len, rc = 0;
	struct fmode *m = lx->nfs ? &lx->fs[lx->nfs - 1] : NULL;

	/* `:` at the field's own bracket level starts the format spec, even
	 * before `=` (f"{x:=10}" formats x with "=10"). */
	if (c == ':' && m && m->expr_depth >= 0 && m->depth - 1 == m->expr_depth) {
		m->in_expr = 0;
		lx->p++;
		return emit_here(lx, MT_TOK_OP, start);
	}
	len = op_len(c, at(lx, start + 1), at(lx, start + 2));
	if (len == 0) {
		if (c >= 0x20 && c < 0x7f)
			return ERR_HERE(lx, "invalid character '%c'", c);
		return ERR_HERE(lx, "invalid non-printable character U+%04X", (unsigned)c);
	}
	if (len == 1 && (c == '(' || c == '[' || c == '{'))
		rc = open_bracket(lx, (unsigned char)c);
	else if (len == 1 && (c == ')' || c == ']' || c == '}'))
		rc = close_bracket(lx, (unsigned char)c);
	if (rc < 0)
		return rc;
	lx->p += (size_t)len;
	return emit_here(lx, MT_TOK_OP, start);
}

/* A backslash outside strings must end the physical line. */
static int lex_continuation(lexer *lx)
{
	uint32_t col = col_of(lx, lx->p);
	int k = eol_len(lx, lx->p + 1);

	if (k < 0)
		return mt_pylex__error(lx->line, col + 1,
				       "unexpected character after line continuation character");
	lx->p++;
	take_eol(lx, k);
	if (at_eof(lx))
		return mt_pylex__error(lx->line - 1, col,
				       "unexpected end of file after line continuation character");
	return 0;
}

static int lex_eof(lexer *lx)
{
	if (lx->level > 0) {
		const struct paren *pa = &lx->paren[lx->level - 1];
		return mt_pylex__error(pa->line, pa->col, "'%c' was never closed", pa->ch);
	}
	if (emit(lx, MT_TOK_ENDMARKER, lx->n, 0, lx->line, col_of(lx, lx->n)) < 0)
		return MT_EIO;
	return LEX_DONE;
}

static int lex_comment(lexer *lx)
{
	size_t start = lx->p;
	const unsigned char *nl = memchr(lx->s + start, '\n', lx->n - start);
	const unsigned char *cr = memchr(lx->s + start, '\r',
					 (nl ? (size_t)(nl - lx->s) : lx->n) - start);

	lx->p = cr ? (size_t)(cr - lx->s) : nl ? (size_t)(nl - lx->s) : lx->n;
	return emit_here(lx, MT_TOK_COMMENT, start);
}

/* One token (or a group of INDENT/DEDENTs) outside f-string literal text. */
static int lex_normal(lexer *lx)
{
	int c, k, rc;

	if (lx->atbol && (rc = lex_indent(lx)) < 0)
		return rc;
	while ((c = at(lx, lx->p)) == ' ' || c == '\t' || c == '\f')
		lx->p++;
	if ((k = eol_len(lx, lx->p)) >= 0) {
		mt_tok_kind kind = lx->blank || lx->level > 0 ? MT_TOK_NL : MT_TOK_NEWLINE;
		rc = emit(lx, kind, lx->p, (size_t)k, lx->line, col_of(lx, lx->p));
		take_eol(lx, k);
		lx->atbol = 1;
		return rc;
	}
	if (c < 0)
		return lex_eof(lx);
	if (is_id_start(c))
		return lex_name(lx);
	if (is_digit(c) || (c == '.' && is_digit(at(lx, lx->p + 1))))
		return lex_number(lx);
	if (c == '"' || c == '\'')
		return mt_pylex__string(lx, lx->p, 0);
	if (c == '#')
		return lex_comment(lx);
	if (c == '\\')
		return lex_continuation(lx);
	return lex_op(lx);
}

/* How lex_code reads a token, by its first byte. */
enum {
	K_SLOW = 0, K_NAME, K_NAME_CDFI, K_DIGIT, K_OP1, K_OPEN, K_CLOSE, K_OP, K_DOT, K_EOL,
	K_QUOTE, K_HASH
};
#define K_ROW10(b)                                                                                 \
	[b] = K_NAME, [b + 1] = K_NAME, [b + 2] = K_NAME, [b + 3] = K_NAME, [b + 4] = K_NAME,     \
	[b + 5] = K_NAME, [b + 6] = K_NAME, [b + 7] = K_NAME, [b + 8] = K_NAME, [b + 9] = K_NAME
#define K_ROW16(b) K_ROW10(b), [b + 10] = K_NAME, [b + 11] = K_NAME, [b + 12] = K_NAME, \
	[b + 13] = K_NAME, [b + 14] = K_NAME, [b + 15] = K_NAME
static const unsigned char tok_start[256] = {
	K_ROW16(0x80), K_ROW16(0x90), K_ROW16(0xa0), K_ROW16(0xb0),
	K_ROW16(0xc0), K_ROW16(0xd0), K_ROW16(0xe0), K_ROW16(0xf0),
	K_ROW16('A'), K_ROW10('A' + 16), ['_'] = K_NAME,
	['a'] = K_NAME, ['b'] = K_NAME, ['c'] = K_NAME_CDFI, ['d'] = K_NAME_CDFI, ['e'] = K_NAME,
	['f'] = K_NAME_CDFI, ['g'] = K_NAME, ['h'] = K_NAME, ['i'] = K_NAME_CDFI, K_ROW16('j'),
	['z'] = K_NAME,
	[','] = K_OP1, [';'] = K_OP1, ['~'] = K_OP1,
	['('] = K_OPEN, ['['] = K_OPEN, ['{'] = K_OPEN,
	[')'] = K_CLOSE, [']'] = K_CLOSE, ['}'] = K_CLOSE,
	['+'] = K_OP, ['-'] = K_OP, ['*'] = K_OP, ['/'] = K_OP, ['%'] = K_OP, ['&'] = K_OP,
	['|'] = K_OP, ['^'] = K_OP, ['@'] = K_OP, ['='] = K_OP, ['!'] = K_OP, [':'] = K_OP,
	['<'] = K_OP, ['>'] = K_OP,
	['.'] = K_DOT,
	['0'] = K_DIGIT, ['1'] = K_DIGIT, ['2'] = K_DIGIT, ['3'] = K_DIGIT, ['4'] = K_DIGIT,
	['5'] = K_DIGIT, ['6'] = K_DIGIT, ['7'] = K_DIGIT, ['8'] = K_DIGIT, ['9'] = K_DIGIT,
	['\n'] = K_EOL, ['\r'] = K_EOL,
	['"'] = K_QUOTE, ['\''] = K_QUOTE, ['#'] = K_HASH,
};
#undef K_ROW16
#undef K_ROW10

/* At the start of a physical line, the common case in a few steps: spaces
 * only, then code, a blank line or a line inside brackets. Returns the
 * position after the indentation, or 0 when lex_indent must do it (p > 0
 * on every line but the first); leaves lx->atbol set when the line's
 * indentation differs from the current level's. */
static inline size_t quick_indent(lexer *lx, size_t p)
{
	size_t q = skip_spaces(lx, p);
	int c, col = (int)(q - p);

	if (q >= lx->n)
		return 0;
	c = lx->s[q];
	if (c == '\t' || c == '\f' || c == '\\')
		return 0;
	lx->blank = c == '#' || c == '\n' || c == '\r';
	if (!lx->blank && lx->level == 0 &&
	    (col != lx->indstack[lx->indent] || col != lx->altstack[lx->indent]))
		return q; /* atbol stays: a new level, for apply_indent */
	lx->atbol = 0;
	return q;
}

/* 1 if c after a run of digits makes more of the number: . _ e E j J x X
 * o O b B. */
static inline int number_tail(int c)
{
	switch (c) {
	case '.': case '_': case 'e': case 'E': case 'j': case 'J':
	case 'x': case 'X': case 'o': case 'O': case 'b': case 'B':
		return 1;
	default:
		return 0;
	}
}

static inline size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The fields of a token one by one. GCC's SLP vectorizer would pack them
 * through vector registers, more instructions than five stores; lex_code,
 * where put() is inlined, is compiled without it. */
#if defined(__GNUC__) && !defined(__clang__)
#define LEX_NO_SLP __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define LEX_NO_SLP
#endif
static inline void put(mt_token *t, mt_tok_kind kind, size_t off, size_t len, uint32_t line,
		       size_t col)
{
	t->kind = kind;
	t->off = (uint32_t)off;
	t->len = (uint32_t)len;
	t->line = line;
	t->col = (uint32_t)col;
}

/* Code outside f-strings, token after token, until the end (LEX_DONE), an
 * error, or the start of an f-string (LEX_MORE, lx->nfs > 0). The tokens
 * most lines are made of (names, operators, brackets, plain numbers, line
 * breaks and the spaces between them) are read here; anything else, and the
 * last two bytes, go through lex_normal. It runs for every token of every
 * file a scan reads, so its state lives in locals (registers), written back
 * to *lx around every call that reads or moves it (SAVE, LOAD): the read
 * position, the next token, the line and its start. Two bytes or more from
 * the end, an operator's next two bytes need no bounds check. One switch
 * rather than a function per case: the cases share the locals. */
LEX_NO_SLP static int lex_code(lexer *lx)
{
	const unsigned char *s = lx->s;
	const size_t n = lx->n;
	size_t p, q, bol, lim;
	mt_token *t, *tend;
	uint32_t line;
	int rc, c, len;
	mt_tok_kind kind;

#define SAVE() (lx->p = p, lx->ntok = (size_t)(t - lx->tok), lx->line = line, lx->bol = bol)
/* Each step of the loop reads a byte or more and writes a token at most,
 * so below lim both the source's last two bytes and the token array's end
 * are still ahead. */
#define LOAD()                                                                                     \
	(p = lx->p, t = lx->tok + lx->ntok, tend = lx->tok + lx->cap, line = lx->line,             \
	 bol = lx->bol, lim = n - p > 2 ? p + min_size(n - p - 2, (size_t)(tend - t)) : p)
	LOAD();
	if (lx->atbol)
		goto indent;
	for (;;) {
		while (p < n && s[p] == ' ')
			p++;
		if (p >= lim)
			goto slow;
		c = s[p];
		kind = MT_TOK_OP;
		switch (tok_start[c]) {
		case K_NAME_CDFI: /* maybe class, def, from or import */
			q = skip_id(lx, p + 1);
			if (q - p <= 2 && q < n && (s[q] == '"' || s[q] == '\''))
				goto slow; /* f"", fr'' */
			kind = MT_TOK_NAME;
			if (lx->marks)
				mark_name(lx, p, q - p, (size_t)(t - lx->tok));
			break;
		case K_NAME:
			q = skip_id(lx, p + 1);
			/* b"", rb'', f"...: at most two letters before a quote */
			if (q - p <= 2 && q < n && (s[q] == '"' || s[q] == '\''))
				goto slow;
			kind = MT_TOK_NAME;
			break;
		case K_DIGIT:
			for (q = p + 1; q < n && is_digit(s[q]); q++)
				;
			/* a fraction, an exponent, 0x, 1_000, 2j: lex_number */
			if (q == n || number_tail(s[q]))
				goto slow;
			kind = MT_TOK_NUMBER;
			break;
		case K_OP1:
			q = p + 1;
			break;
		case K_OPEN:
			if (lx->level >= MAX_LEVEL)
				goto slow;
			lx->paren[lx->level].ch = (unsigned char)c;
			lx->paren[lx->level].line = line;
			lx->paren[lx->level].col = (uint32_t)(p - bol);
			lx->paren[lx->level].tok = (size_t)(t - lx->tok);
			lx->level++;
			q = p + 1;
			break;
		case K_CLOSE:
			/* unmatched or mismatched: lex_normal says which */
			if (lx->level == 0 || lx->paren[lx->level - 1].ch != (c == ')' ? '(' : c - 2))
				goto slow;
			lx->level--;
			if (lx->match) /* this closing token is the next one */
				lx->match[lx->paren[lx->level].tok] = (size_t)(t - lx->tok);
			q = p + 1;
			break;
		case K_DOT:
			if (is_digit(s[p + 1]))
				goto slow;
			/* fall through */
		case K_OP:
			q = p + (size_t)op_len(c, s[p + 1], s[p + 2]);
			break;
		case K_EOL:
			len = c == '\r' && s[p + 1] == '\n' ? 2 : 1;
			kind = lx->blank || lx->level > 0 ? MT_TOK_NL : MT_TOK_NEWLINE;
			if (kind == MT_TOK_NEWLINE && lx->marks)
				lx->marks[lx->nmarks++] = (size_t)(t - lx->tok);
			if (kind == MT_TOK_NEWLINE || !lx->code_only)
				put(t++, kind, p, (size_t)len, line, p - bol);
			p += (size_t)len;
			line++;
			bol = p;
			lx->atbol = 1;
			goto indent;
		case K_QUOTE: /* a string without a prefix */
			SAVE();
			if ((rc = mt_pylex__string(lx, p, 0)) < 0)
				return rc;
			LOAD();
			continue;
		case K_HASH:
			SAVE();
			if ((rc = lex_comment(lx)) < 0)
				return rc;
			LOAD();
			continue;
		case K_SLOW:
		slow:
			SAVE();
			rc = lex_normal(lx);
			if (rc != LEX_MORE || lx->nfs)
				return rc;
			LOAD();
			if (lx->atbol)
				goto indent;
			continue;
		default: /* the table holds nothing else */
			__builtin_unreachable();
		}
		put(t++, kind, p, q - p, line, p - bol);
		p = q;
		continue;
	indent: /* at the start of a physical line (lx->atbol) */
		if (!(p && (q = quick_indent(lx, p)))) {
			SAVE();
			if ((rc = lex_indent(lx)) < 0)
				return rc;
			LOAD();
			q = p;
		} else if (lx->atbol) { /* spaces only: their count is the column */
			lx->atbol = 0;
			SAVE();
			lx->p = q;
			if ((rc = apply_indent(lx, (int)(q - p), (int)(q - p))) < 0)
				return rc;
			LOAD();
			q = p;
		}
		p = q;
	}
#undef SAVE
#undef LOAD
}

static void lexer_init(lexer *lx, const char *src, size_t len)
{
	const unsigned char *s = (const unsigned char *)src;

	/* Only the scalars: the stacks are written before they are read. */
	memset(lx, 0, offsetof(lexer, indstack));
	lx->level = lx->nfs = 0;
	lx->s = s;
	lx->n = len;
	if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
		lx->p = lx->bol = 3;
	lx->vnl = len > lx->p && s[len - 1] != '\n' && s[len - 1] != '\r';
	lx->line = 1;
	lx->atbol = 1;
	lx->indstack[0] = lx->altstack[0] = 0;
}

/* Lexes into b (its arrays grown as needed and left in b, also on an
 * error); `match` and `marks` arrays only with want_match. */
static int lex_into(mt_lexbuf *b, int want_match, size_t *n, const char *src, size_t len,
		    int code_only)
{
	lexer lx; /* about 6 KB, mostly the fixed stacks */
	size_t need = len / 6 + 16; /* Python averages a token per 4 to 8 bytes */
	int rc;

	*n = 0;
	if (len >= UINT32_MAX)
		return mt_error_set(MT_EINVALID, "source too large for the tokenizer (%zu bytes)", len);
	lexer_init(&lx, src ? src : "", src ? len : 0);
	lx.code_only = code_only;
	b->nmarks = 0;
	if (b->cap < need || (want_match && !b->match)) {
		mt_token *t = realloc(b->tok, need * sizeof(*t));
		size_t *m = t && want_match ? realloc(b->match, need * sizeof(*m)) : b->match;
		size_t *k = m && want_match ? realloc(b->marks, need * sizeof(*k)) : b->marks;
		if (t)
			b->tok = t;
		if (m)
			b->match = m;
		if (k)
			b->marks = k;
		if (!t || (want_match && (!m || !k)))
			return mt_error_set(MT_EIO, "out of memory");
		b->cap = need;
	}
	lx.tok = b->tok;
	lx.match = want_match ? b->match : NULL;
	lx.marks = want_match ? b->marks : NULL;
	lx.cap = b->cap;
	do {
		if (!lx.nfs)
			rc = lex_code(&lx);
		else if (!lx.fs[lx.nfs - 1].in_expr)
			rc = mt_pylex__fstring(&lx);
		else
			rc = lex_normal(&lx);
	} while (rc == LEX_MORE);
	/* mt_pylex__grow() may have moved them; a failed one left them valid */
	b->tok = lx.tok;
	if (want_match) {
		b->match = lx.match;
		b->marks = lx.marks;
	}
	b->cap = lx.cap;
	if (rc < 0)
		return rc;
	*n = lx.ntok;
	b->nmarks = lx.nmarks;
	return 0;
}

static int lex_all(mt_token **out, size_t **match, size_t *n, const char *src, size_t len,
		   int code_only)
{
	mt_lexbuf b = {0};
	int rc = lex_into(&b, match != NULL, n, src, len, code_only);

	if (rc < 0) {
		mt_lexbuf_dispose(&b);
		*out = NULL;
		if (match)
			*match = NULL;
		return rc;
	}
	*out = b.tok;
	if (match)
		*match = b.match;
	free(b.marks);
	return 0;
}

int mt_pylex_code_buf(mt_lexbuf *b, size_t *n, const char *src, size_t len)
{
	return lex_into(b, 1, n, src, len, 1);
}

void mt_lexbuf_dispose(mt_lexbuf *b)
{
	free(b->tok);
	free(b->match);
	free(b->marks);
	memset(b, 0, sizeof(*b));
}

int mt_pylex(mt_token **out, size_t *n, const char *src, size_t len)
{
	return lex_all(out, NULL, n, src, len, 0);
}

int mt_pylex_code(mt_token **out, size_t **match, size_t *n, const char *src, size_t len)
{
	return lex_all(out, match, n, src, len, 1);
}

int mt_tok_is_op(const mt_token *t, const char *src, const char *op)
{
	size_t len = strlen(op);

	return t->kind == MT_TOK_OP && t->len == len && memcmp(src + t->off, op, len) == 0;
}

int mt_tok_is_name(const mt_token *t, const char *src, const char *name)
{
	size_t len = strlen(name);

	return t->kind == MT_TOK_NAME && t->len == len && memcmp(src + t->off, name, len) == 0;
}
