/* libFuzzer harness for the Python tokenizer: any bytes must either
 * tokenize into a well-formed stream or fail with a "LINE:COL: what"
 * message, never read out of bounds, crash or leak.
 *
 * Well-formed means: tokens in source order without overlap, inside the
 * input; each token's line and column agree with its offset; exactly one
 * ENDMARKER, last; INDENT/DEDENT and FSTRING_START/FSTRING_END balanced. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "pylex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_pylex: %s failed at token %zu\n", #cond, i); \
		abort(); \
	} \
} while (0)

static int is_break(const uint8_t *s, size_t i, size_t size)
{
	return s[i] == '\n' || (s[i] == '\r' && !(i + 1 < size && s[i + 1] == '\n'));
}

/* A failure sets MT_EINVALID and "LINE:COL: what", LINE and COL >= 1. */
static void check_failure(int rc, const mt_token *t, size_t n)
{
	unsigned line = 0, col = 0;
	int used = 0;
	size_t i = 0;

	CHECK(rc == MT_EINVALID && t == NULL && n == 0);
	CHECK(sscanf(mt_error_last(), "%u:%u: %n", &line, &col, &used) == 2);
	CHECK(line >= 1 && col >= 1 && used > 0 && mt_error_last()[used] != '\0');
}

/* Walks the source beside the tokens, recomputing line and column. */
static void check_positions(const uint8_t *s, size_t size, const mt_token *t, size_t n)
{
	size_t start = size >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	size_t pos = start, bol = start, i, prev_end = start;
	uint32_t line = 1;
	int open_line = size > start && s[size - 1] != '\n' && s[size - 1] != '\r';

	for (i = 0; i < n; i++) {
		CHECK(t[i].off >= prev_end && (size_t)t[i].off + t[i].len <= size);
		for (; pos < t[i].off; pos++) {
			if (is_break(s, pos, size)) {
				line++;
				bol = pos + 1;
			}
		}
		if (t[i].off == size && open_line &&
		    (t[i].kind == MT_TOK_DEDENT || t[i].kind == MT_TOK_ENDMARKER)) {
			/* After the line break CPython adds to the last line. */
			CHECK(t[i].line == line + 1 && t[i].col == 0);
		} else {
			CHECK(t[i].line == line && t[i].col == t[i].off - bol);
		}
		prev_end = (size_t)t[i].off + t[i].len;
		CHECK(i == 0 || t[i].line >= t[i - 1].line);
	}
}

static void check_tokens(const uint8_t *s, size_t size, const mt_token *t, size_t n)
{
	long indents = 0, fstrings = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		CHECK(t[i].kind <= MT_TOK_DEDENT);
		CHECK((t[i].kind == MT_TOK_ENDMARKER) == (i == n - 1));
		indents += t[i].kind == MT_TOK_INDENT;
		indents -= t[i].kind == MT_TOK_DEDENT;
		fstrings += t[i].kind == MT_TOK_FSTRING_START;
		fstrings -= t[i].kind == MT_TOK_FSTRING_END;
		CHECK(indents >= 0 && fstrings >= 0);
		if (t[i].kind == MT_TOK_OP)
			CHECK(t[i].len >= 1 && t[i].len <= 3);
		if (t[i].kind == MT_TOK_NAME)
			CHECK(mt_tok_is_name(&t[i], (const char *)s, "") == 0 && t[i].len > 0);
	}
	CHECK(indents == 0 && fstrings == 0);
	check_positions(s, size, t, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mt_token *t = (mt_token *)data; /* both must be reset on failure */
	size_t n = 1;
	size_t i = 0;
	int rc;

	/* libFuzzer's buffer is exactly `size` bytes and not NUL-terminated,
	 * so ASan sees any read past the end. */
	rc = mt_pylex(&t, &n, (const char *)data, size);
	if (rc < 0) {
		check_failure(rc, t, n);
		return 0;
	}
	CHECK(n >= 1);
	check_tokens(data, size, t, n);
	free(t);
	return 0;
}
