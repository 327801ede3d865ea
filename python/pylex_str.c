/* String literals and f-strings for the tokenizer (pylex.c): CPython's
 * quoting rules, and the mode stack of PEP 701 f-strings whose replacement
 * fields pylex.c tokenizes as code. */
#include "pylex_int.h"
#include "error.h"

static int unterminated(uint32_t line, uint32_t col, int qsize, int fstring)
{
	return mt_pylex__error(line, col, "unterminated %s%sstring literal",
			       qsize == 3 ? "triple-quoted " : "", fstring ? "f-" : "");
}

/* A string literal that is not an f-string; prefix bytes precede the quote.
 * A backslash always protects the next byte, raw or not, so r"\"" is one
 * string and a backslash before a line break continues the literal. */
int mt_pylex__string(lexer *lx, size_t start, size_t prefix)
{
	uint32_t line = lx->line, col = col_of(lx, start);
	size_t p = start + prefix;
	unsigned char q = lx->s[p];
	int qsize = 1, endq = 0;

	if (at(lx, p + 1) == q && at(lx, p + 2) == q)
		qsize = 3;
	else if (at(lx, p + 1) == q)
		endq = 1; /* "" */
	lx->p = p + (size_t)(qsize == 3 ? 3 : endq ? 2 : 1);
	while (endq < qsize) {
		int c, k;
		if (!endq) /* skip plain text up to a quote, backslash or line break */
			lx->p = find_str_special(lx, lx->p);
		c = at(lx, lx->p);
		if (c == q) {
			endq++;
			lx->p++;
			continue;
		}
		endq = 0;
		if ((k = eol_len(lx, lx->p)) > 0 && qsize == 3) {
			take_eol(lx, k);
			continue;
		}
		if (c < 0 || k >= 0) {
			struct fmode *m = lx->nfs ? &lx->fs[lx->nfs - 1] : NULL;
			/* f"{x" ... the quote was meant to end the f-string. */
			if (m && m->quote == q && m->qsize == qsize)
				return mt_pylex__error(line, col, "f-string: expecting '}'");
			return unterminated(line, col, qsize, 0);
		}
		lx->p++;
		if (c == '\\' && (k = eol_len(lx, lx->p)) > 0)
			take_eol(lx, k);
		else if (c == '\\' && lx->p < lx->n)
			lx->p++;
	}
	return emit(lx, MT_TOK_STRING, start, lx->p - start, line, col);
}

int mt_pylex__fstring_start(lexer *lx, size_t start, size_t prefix)
{
	size_t p = start + prefix;
	unsigned char q = lx->s[p];
	struct fmode *m;
	size_t i;

	if (lx->nfs >= MAX_FSTRING)
		return ERR_HERE(lx, "too many nested f-strings");
	m = &lx->fs[lx->nfs++];
	memset(m, 0, sizeof(*m));
	m->line = lx->line;
	m->col = col_of(lx, start);
	m->quote = q;
	m->qsize = at(lx, p + 1) == q && at(lx, p + 2) == q ? 3 : 1;
	for (i = 0; i < prefix; i++)
		m->raw |= (lx->s[start + i] | 0x20) == 'r';
	m->expr_depth = -1;
	lx->p = p + m->qsize;
	return emit_here(lx, MT_TOK_FSTRING_START, start);
}

/* The end of a literal text piece at `{`/`}`. CPython ends a piece at `{{`
 * or `}}` keeping the first brace in it and skipping the second, which is
 * how the escapes become one literal brace; a single brace (any brace in a
 * format spec) ends the piece before it and hands over to code. */
static int fmiddle_brace(lexer *lx, struct fmode *m, size_t start, uint32_t line, uint32_t col,
			 int c, int in_spec)
{
	size_t end;

	if (!in_spec && at(lx, lx->p) == c) {
		end = lx->p++;
		return emit(lx, MT_TOK_FSTRING_MIDDLE, start, end - start, line, col);
	}
	lx->p--;
	if (c == '{' && ++m->expr_depth >= MAX_EXPR_NESTING)
		return ERR_HERE(lx, "f-string: expressions nested too deeply");
	m->in_expr = 1;
	return emit(lx, MT_TOK_FSTRING_MIDDLE, start, lx->p - start, line, col);
}

/* After a backslash in literal text. Returns 1 when `\N{` began a named
 * escape, whose `}` then ends the piece. */
static int fmiddle_escape(lexer *lx, const struct fmode *m)
{
	int c = at(lx, lx->p), k;

	if (c == '{' || c == '}')
		return 0; /* "\{" is a backslash, then a field */
	if ((k = eol_len(lx, lx->p)) > 0) {
		take_eol(lx, k);
		return 0;
	}
	if (c < 0)
		return 0;
	lx->p++;
	if (!m->raw && c == 'N' && at(lx, lx->p) == '{') {
		lx->p++;
		return 1;
	}
	return 0;
}

/* One FSTRING_MIDDLE: literal text (or format spec text) up to a brace or
 * the closing quotes. In a format spec, pieces are emitted even when empty,
 * as CPython does. */
static int lex_fmiddle(lexer *lx, struct fmode *m)
{
	size_t start = lx->p;
	uint32_t line = lx->line, col = col_of(lx, start);
	int in_spec = m->expr_depth >= 0, named = 0, endq = 0, c, k;

	while (endq < m->qsize) {
		size_t q = find_fstr_special(lx, lx->p, m->quote);
		if (q > lx->p) { /* plain text */
			lx->p = q;
			endq = 0;
		}
		if ((k = eol_len(lx, lx->p)) >= 0 && (m->qsize == 1 || k == 0)) {
			if (in_spec && m->qsize == 1) {
				/* A line break ends a format spec; code takes over. */
				m->in_expr = 1;
				return emit(lx, MT_TOK_FSTRING_MIDDLE, start, lx->p - start, line, col);
			}
			return unterminated(m->line, m->col, m->qsize, 1);
		}
		if (k > 0) {
			take_eol(lx, k);
			endq = 0;
			continue;
		}
		if (lx->p >= lx->n)
			return unterminated(m->line, m->col, m->qsize, 1);
		c = lx->s[lx->p++];
		if (c == m->quote) {
			endq++;
			continue;
		}
		endq = 0;
		if (c == '}' && named)
			return emit(lx, MT_TOK_FSTRING_MIDDLE, start, lx->p - start, line, col);
		if (c == '{' || c == '}')
			return fmiddle_brace(lx, m, start, line, col, c, in_spec);
		if (c == '\\')
			named |= fmiddle_escape(lx, m);
	}
	lx->p -= m->qsize; /* the quotes are the FSTRING_END */
	return emit(lx, MT_TOK_FSTRING_MIDDLE, start, lx->p - start, line, col);
}

/* The read position is inside an f-string, outside any replacement field. */
int mt_pylex__fstring(lexer *lx)
{
	struct fmode *m = &lx->fs[lx->nfs - 1];
	size_t p = lx->p;
	int i;

	if (at(lx, p) == '{' && at(lx, p + 1) != '{') {
		/* A field right away: the `{` is an ordinary OP token. */
		if (++m->expr_depth >= MAX_EXPR_NESTING)
			return ERR_HERE(lx, "f-string: expressions nested too deeply");
		m->in_expr = 1;
		return LEX_MORE;
	}
	for (i = 0; i < m->qsize && at(lx, p + (size_t)i) == m->quote; i++)
		;
	if (i < m->qsize)
		return lex_fmiddle(lx, m);
	lx->p += m->qsize;
	lx->nfs--;
	return emit_here(lx, MT_TOK_FSTRING_END, p);
}
