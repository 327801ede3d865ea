/* A Python 3 tokenizer covering the token grammar (as Python 3.12's
 * tokenize): names (including non-ASCII identifiers), numbers, every string
 * prefix (r, b, u, f, rb, br, fr, rf in any case), triple quotes, f-strings
 * whose replacement fields are tokenized as code (nested quotes, nested
 * f-strings, format specs, `!r`, `=`), comments, explicit (backslash) and
 * implicit (inside brackets) line continuation, INDENT/DEDENT.
 *
 * It never executes or imports anything; it only reads bytes. */
#ifndef MT_PYLEX_H
#define MT_PYLEX_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
	MT_TOK_ENDMARKER = 0,
	MT_TOK_NAME,     /* identifiers and keywords */
	MT_TOK_NUMBER,
	MT_TOK_STRING,   /* a whole non-f string literal, prefix and quotes included */
	MT_TOK_FSTRING_START,  /* f" / rf''' ... */
	MT_TOK_FSTRING_MIDDLE, /* literal text between replacement fields */
	MT_TOK_FSTRING_END,
	MT_TOK_OP,       /* operators and delimiters: ( ) [ ] { } . , : = -> ** etc. */
	MT_TOK_NEWLINE,  /* end of a logical line */
	MT_TOK_NL,       /* a line break that does not end a logical line; blank lines */
	MT_TOK_COMMENT,
	MT_TOK_INDENT,
	MT_TOK_DEDENT,
} mt_tok_kind;

typedef struct {
	mt_tok_kind kind;
	uint32_t off;  /* byte offset of the token's first byte in the source */
	uint32_t len;  /* bytes */
	uint32_t line; /* 1-based line of the first byte */
	uint32_t col;  /* 0-based byte column of the first byte, as ast.col_offset */
} mt_token;

/* Tokenizes src[0..len) into *out (caller frees with free()), *n tokens, the
 * last one MT_TOK_ENDMARKER. A UTF-8 BOM at the start is skipped. On a source
 * that cannot be tokenized (unterminated string or bracket at EOF, bad
 * dedent, stray character), returns MT_EINVALID with mt_error_last() =
 * "LINE:COL: what" (1-based line, 1-based column) and *out = NULL.
 * Thread-safe: no global state. */
int mt_pylex(mt_token **out, size_t *n, const char *src, size_t len);

/* As mt_pylex, without the COMMENT, NL and ENDMARKER tokens: the tokens a
 * parser reads (an empty source gives *n == 0). When `match` is not NULL,
 * *match (caller frees, NULL on error) gives for each `(`, `[` or `{` OP
 * token the index of the token that closes it; its other entries are not
 * set. */
int mt_pylex_code(mt_token **out, size_t **match, size_t *n, const char *src, size_t len);

/* Token buffers a thread keeps from one source to the next (a scan lexes
 * thousands): reused, they are not faulted in afresh for every file. Zero
 * it to start; mt_lexbuf_dispose() frees it. */
typedef struct {
	mt_token *tok;
	size_t *match;
	size_t *marks; /* see mt_pylex_code_buf */
	size_t nmarks;
	size_t cap;
} mt_lexbuf;

/* As mt_pylex_code with `match`, into b->tok and b->match (grown as
 * needed, kept on an error). b->marks[0..b->nmarks) are the indexes, in
 * order, of the INDENT, DEDENT and NEWLINE tokens and of the NAME tokens
 * `def`, `class`, `import` and `from`: all that a pass over a module's
 * statements and blocks needs to look at. */
int mt_pylex_code_buf(mt_lexbuf *b, size_t *n, const char *src, size_t len);
void mt_lexbuf_dispose(mt_lexbuf *b);

/* 1 if the token is an OP whose text equals `op`. */
int mt_tok_is_op(const mt_token *t, const char *src, const char *op);

/* 1 if the token is a NAME whose text equals `name`. */
int mt_tok_is_name(const mt_token *t, const char *src, const char *name);

#endif
