/* Private to python/pylex*.c: the lexer's state and the inline helpers
 * its loops share. pylex.c holds the lexer and its fast path, pylex_str.c
 * the string and f-string literals (see pylex.c for the design). */
#ifndef MT_PYLEX_INT_H
#define MT_PYLEX_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "error.h"
#include "pylex.h"

#define MAX_INDENT 100
#define MAX_LEVEL 200
#define MAX_FSTRING 150
#define MAX_EXPR_NESTING 3
#define TABSIZE 8

struct paren {
	unsigned char ch;
	uint32_t line, col;
	size_t tok; /* the index its token will have */
};

/* One open f-string. */
struct fmode {
	uint32_t line, col;  /* of its FSTRING_START, for errors */
	unsigned char quote; /* ' or " */
	unsigned char qsize; /* 1 or 3 */
	unsigned char raw;
	unsigned char in_expr; /* tokenizing code inside a replacement field */
	int depth;      /* brackets open inside this f-string, fields included */
	int expr_depth; /* depth at which the innermost open field started */
};

typedef struct {
	const unsigned char *s;
	size_t n;        /* source length */
	size_t p;        /* read position */
	size_t bol;      /* offset of the current physical line's first byte */
	uint32_t line;   /* 1-based */
	int vnl;         /* the virtual line break at n is still to be read */
	int atbol;       /* at the beginning of a logical line's physical line */
	int blank;       /* the current line holds only whitespace or a comment */
	mt_token *tok;
	size_t ntok, cap;
	size_t *match;   /* with code_only: closing token of each opening one */
	size_t *marks;   /* with match: see mt_pylex_code_buf */
	size_t nmarks;
	int indent;      /* top of indstack */
	int indstack[MAX_INDENT], altstack[MAX_INDENT];
	int level;       /* open brackets */
	struct paren paren[MAX_LEVEL];
	int nfs;         /* open f-strings */
	int code_only;   /* leave out COMMENT, NL and ENDMARKER */
	struct fmode fs[MAX_FSTRING];
} lexer;

enum { LEX_MORE = 0, LEX_DONE = 1 };

static inline int at(const lexer *lx, size_t p)
{
	return p < lx->n ? lx->s[p] : -1;
}

static inline int is_digit(int c)
{
	return (unsigned)(c - '0') < 10;
}

/* Byte classes, looked up in the loops that run over every byte. */
enum { C_ID_START = 1, C_ID = 2, C_STR = 4 };
#define ID_START_ROW(b) [b] = C_ID_START | C_ID
#define ID_ROW16(b)                                                                                \
	ID_START_ROW(b), ID_START_ROW(b + 1), ID_START_ROW(b + 2), ID_START_ROW(b + 3),            \
		ID_START_ROW(b + 4), ID_START_ROW(b + 5), ID_START_ROW(b + 6), ID_START_ROW(b + 7), \
		ID_START_ROW(b + 8), ID_START_ROW(b + 9), ID_START_ROW(b + 10),                    \
		ID_START_ROW(b + 11), ID_START_ROW(b + 12), ID_START_ROW(b + 13),                  \
		ID_START_ROW(b + 14), ID_START_ROW(b + 15)
/* Any byte >= 0x80 counts as a letter: UTF-8 sequences of non-ASCII
 * identifiers pass through whole without being decoded or validated
 * (CPython checks them against PEP 3131 later; a scanner has no use for
 * that). C_STR: the bytes a string literal's body cannot skip over. */
static const unsigned char byte_class[256] = {
	ID_ROW16(0x80), ID_ROW16(0x90), ID_ROW16(0xa0), ID_ROW16(0xb0),
	ID_ROW16(0xc0), ID_ROW16(0xd0), ID_ROW16(0xe0), ID_ROW16(0xf0),
	ID_ROW16('A'), ID_START_ROW('A' + 16), ID_START_ROW('A' + 17), ID_START_ROW('A' + 18),
	ID_START_ROW('A' + 19), ID_START_ROW('A' + 20), ID_START_ROW('A' + 21),
	ID_START_ROW('A' + 22), ID_START_ROW('A' + 23), ID_START_ROW('A' + 24),
	ID_START_ROW('A' + 25),
	ID_ROW16('a'), ID_START_ROW('a' + 16), ID_START_ROW('a' + 17), ID_START_ROW('a' + 18),
	ID_START_ROW('a' + 19), ID_START_ROW('a' + 20), ID_START_ROW('a' + 21),
	ID_START_ROW('a' + 22), ID_START_ROW('a' + 23), ID_START_ROW('a' + 24),
	ID_START_ROW('a' + 25),
	ID_START_ROW('_'),
	['0'] = C_ID, ['1'] = C_ID, ['2'] = C_ID, ['3'] = C_ID, ['4'] = C_ID,
	['5'] = C_ID, ['6'] = C_ID, ['7'] = C_ID, ['8'] = C_ID, ['9'] = C_ID,
	['\''] = C_STR, ['"'] = C_STR, ['\\'] = C_STR, ['\n'] = C_STR, ['\r'] = C_STR,
};
#undef ID_ROW16
#undef ID_START_ROW

static inline int is_id_start(int c)
{
	return c >= 0 && (byte_class[c] & C_ID_START);
}

/* Length of the line break at p: 1 or 2 bytes, 0 for the virtual one at the
 * end of a source without a final line break, -1 when p is not at one. */
static inline int eol_len(const lexer *lx, size_t p)
{
	if (p < lx->n) {
		unsigned char c = lx->s[p];
		if (c == '\n')
			return 1;
		if (c == '\r')
			return p + 1 < lx->n && lx->s[p + 1] == '\n' ? 2 : 1;
		return -1;
	}
	return lx->vnl ? 0 : -1;
}

/* The byte loops below run over most of the source: identifiers, string
 * bodies, indentation. They go 16 bytes a step where SSE2 is there (every
 * x86-64), then byte by byte, and always through local pointers: the source
 * is read through unsigned char, which may alias the lexer's fields, so a
 * loop over lx->p would reload and store it per byte. */
#ifdef __SSE2__
/* Bit i set when byte i of v is an identifier byte (as C_ID). */
static inline unsigned id_mask16(__m128i v)
{
	__m128i high = _mm_cmplt_epi8(v, _mm_setzero_si128());
	/* a range as one signed comparison: shifted so that it starts at
	 * -128, 'a'..'z' (either case) and '0'..'9' are the bytes below
	 * -128 + 26 and -128 + 10; no other ASCII byte lands there */
	__m128i letter = _mm_add_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)),
				      _mm_set1_epi8((char)(0x80 - 'a')));
	__m128i digit = _mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - '0')));

	letter = _mm_cmplt_epi8(letter, _mm_set1_epi8(-128 + 26));
	digit = _mm_cmplt_epi8(digit, _mm_set1_epi8(-128 + 10));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
		_mm_or_si128(high, letter),
		_mm_or_si128(digit, _mm_cmpeq_epi8(v, _mm_set1_epi8('_')))));
}

/* Bit i set when byte i of v is a quote, a backslash or a line break. */
static inline unsigned str_mask16(__m128i v)
{
	__m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\'')),
				 _mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')));
	return (unsigned)_mm_movemask_epi8(m);
}
#endif

/* The first position from p on that is not an identifier byte (or n). */
static inline size_t skip_id(const lexer *lx, size_t p)
{
	const unsigned char *q = lx->s + p, *end = lx->s + lx->n;

#ifdef __SSE2__
	for (; end - q >= 16; q += 16) {
		unsigned other = ~id_mask16(_mm_loadu_si128((const __m128i *)q)) & 0xFFFF;
		if (other)
			return (size_t)(q - lx->s) + (size_t)__builtin_ctz(other);
	}
#endif
	while (q < end && (byte_class[*q] & C_ID))
		q++;
	return (size_t)(q - lx->s);
}

/* The first position from p on holding a quote, a backslash or a line
 * break (C_STR), or n. */
static inline size_t find_str_special(const lexer *lx, size_t p)
{
	const unsigned char *q = lx->s + p, *end = lx->s + lx->n;

#ifdef __SSE2__
	for (; end - q >= 16; q += 16) {
		unsigned hit = str_mask16(_mm_loadu_si128((const __m128i *)q));
		if (hit)
			return (size_t)(q - lx->s) + (size_t)__builtin_ctz(hit);
	}
#endif
	while (q < end && !(byte_class[*q] & C_STR))
		q++;
	return (size_t)(q - lx->s);
}

/* The first position from p on holding the quote q, a brace, a backslash
 * or a line break (or n): the end of an f-string's plain literal text. */
static inline size_t find_fstr_special(const lexer *lx, size_t p, unsigned char quote)
{
	const unsigned char *s = lx->s + p, *end = lx->s + lx->n;

#ifdef __SSE2__
	for (; end - s >= 16; s += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)s);
		__m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)quote)),
					 _mm_cmpeq_epi8(v, _mm_set1_epi8('{')));
		unsigned hit;
		m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('}')));
		m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
		m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
		m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')));
		if ((hit = (unsigned)_mm_movemask_epi8(m)))
			return (size_t)(s - lx->s) + (size_t)__builtin_ctz(hit);
	}
#endif
	while (s < end && *s != quote && *s != '{' && *s != '}' && *s != '\\' && *s != '\n' &&
	       *s != '\r')
		s++;
	return (size_t)(s - lx->s);
}

/* The first position from p on that is not a space (or n). */
static inline size_t skip_spaces(const lexer *lx, size_t p)
{
	const unsigned char *q = lx->s + p, *end = lx->s + lx->n;

#ifdef __SSE2__
	for (; end - q >= 16; q += 16) {
		unsigned other = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
					 _mm_loadu_si128((const __m128i *)q), _mm_set1_epi8(' '))) &
				 0xFFFF;
		if (other)
			return (size_t)(q - lx->s) + (size_t)__builtin_ctz(other);
	}
#endif
	while (q < end && *q == ' ')
		q++;
	return (size_t)(q - lx->s);
}

static inline int at_eof(const lexer *lx)
{
	return lx->p >= lx->n && !lx->vnl;
}

/* Consumes a line break of k bytes (from eol_len) at the read position. */
static inline void take_eol(lexer *lx, int k)
{
	if (k == 0)
		lx->vnl = 0;
	lx->p += (size_t)k;
	lx->line++;
	lx->bol = lx->p;
}

static inline uint32_t col_of(const lexer *lx, size_t off)
{
	return (uint32_t)(off - lx->bol);
}

/* Sets "LINE:COL: what" (1-based column) and returns MT_EINVALID. */
int mt_pylex__error(uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Doubles the token array (and the match and mark arrays with it). */
int mt_pylex__grow(lexer *lx);

/* An error at the read position. */
#define ERR_HERE(lx, ...) mt_pylex__error((lx)->line, col_of((lx), (lx)->p), __VA_ARGS__)

/* 1 if s[0..n) is def, class, import or from (see mt_pylex_code_buf). */
static inline int marked_name(const unsigned char *s, size_t n)
{
	switch (n) {
	case 3: return s[0] == 'd' && s[1] == 'e' && s[2] == 'f';
	case 4: return memcmp(s, "from", 4) == 0;
	case 5: return memcmp(s, "class", 5) == 0;
	case 6: return memcmp(s, "import", 6) == 0;
	default: return 0;
	}
}

static inline int emit(lexer *lx, mt_tok_kind kind, size_t off, size_t len, uint32_t line,
		       uint32_t col)
{
	mt_token *t;

	if (lx->code_only &&
	    (kind == MT_TOK_COMMENT || kind == MT_TOK_NL || kind == MT_TOK_ENDMARKER))
		return LEX_MORE;
	if (lx->ntok == lx->cap && mt_pylex__grow(lx) < 0)
		return MT_EIO;
	if (lx->marks && (kind == MT_TOK_INDENT || kind == MT_TOK_DEDENT || kind == MT_TOK_NEWLINE ||
			  (kind == MT_TOK_NAME && marked_name(lx->s + off, len))))
		lx->marks[lx->nmarks++] = lx->ntok;
	t = &lx->tok[lx->ntok++];
	t->kind = kind;
	t->off = (uint32_t)off;
	t->len = (uint32_t)len;
	t->line = line;
	t->col = col;
	return LEX_MORE;
}

/* A token starting at `off` on the current line and ending at the read
 * position. */
static inline int emit_here(lexer *lx, mt_tok_kind kind, size_t off)
{
	return emit(lx, kind, off, lx->p - off, lx->line, col_of(lx, off));
}

/* pylex_str.c: a string literal that is not an f-string (prefix bytes
 * precede the quote), the start of an f-string, and the read position
 * inside an f-string outside any replacement field. */
int mt_pylex__string(lexer *lx, size_t start, size_t prefix);
int mt_pylex__fstring_start(lexer *lx, size_t start, size_t prefix);
int mt_pylex__fstring(lexer *lx);

#endif
