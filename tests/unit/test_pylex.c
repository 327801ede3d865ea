/* python/pylex.c: hand-written token streams for each part of the grammar,
 * exact error messages, and a differential test against the token streams
 * CPython 3.12's tokenize module produced for tests/data/pylex/ (see
 * gen_expected.py there). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixtures.h"
#include "pylex.h"
#include "util.h"

static const char *const kind_names[] = {
	[MT_TOK_ENDMARKER] = "ENDMARKER",
	[MT_TOK_NAME] = "NAME",
	[MT_TOK_NUMBER] = "NUMBER",
	[MT_TOK_STRING] = "STRING",
	[MT_TOK_FSTRING_START] = "FSTRING_START",
	[MT_TOK_FSTRING_MIDDLE] = "FSTRING_MIDDLE",
	[MT_TOK_FSTRING_END] = "FSTRING_END",
	[MT_TOK_OP] = "OP",
	[MT_TOK_NEWLINE] = "NEWLINE",
	[MT_TOK_NL] = "NL",
	[MT_TOK_COMMENT] = "COMMENT",
	[MT_TOK_INDENT] = "INDENT",
	[MT_TOK_DEDENT] = "DEDENT",
};

#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

/* One expected token; text is compared byte for byte. */
struct want {
	mt_tok_kind kind;
	uint32_t line, col;
	const char *text;
};

#define T(k, l, c, s) {MT_TOK_##k, (l), (c), (s)}

static void print_tokens(const char *src, const mt_token *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		print_message("  %zu: %s %u:%u \"%.*s\"\n", i, kind_names[t[i].kind], t[i].line,
			      t[i].col, (int)t[i].len, src + t[i].off);
}

static int same(const char *src, const mt_token *t, const struct want *w)
{
	return t->kind == w->kind && t->line == w->line && t->col == w->col &&
	       t->len == strlen(w->text) && memcmp(src + t->off, w->text, t->len) == 0;
}

/* Tokenizes src and compares every token with w; on a difference prints
 * both streams so the failure says what changed. */
static void check_tokens(const char *src, size_t len, const struct want *w, size_t nw)
{
	mt_token *t = NULL;
	size_t n = 0, i;

	if (mt_pylex(&t, &n, src, len) < 0)
		fail_msg("unexpected error: %s\nsource: %s", mt_error_last(), src);
	for (i = 0; i < n && i < nw && same(src, &t[i], &w[i]); i++)
		;
	if (i < n || i < nw) {
		print_message("source: %s\ngot:\n", src);
		print_tokens(src, t, n);
		if (i < nw)
			print_message("first difference at %zu: want %s %u:%u \"%s\"\n", i,
				      kind_names[w[i].kind], w[i].line, w[i].col, w[i].text);
		free(t);
		fail_msg("token %zu differs (got %zu tokens, want %zu)", i, n, nw);
	}
	free(t);
}

#define EXPECT(src, ...) do { \
	static const struct want w_[] = {__VA_ARGS__}; \
	check_tokens((src), sizeof(src) - 1, w_, sizeof(w_) / sizeof(w_[0])); \
} while (0)

/* --- the basics ------------------------------------------------------------- */

static void test_statement(void **state)
{
	(void)state;
	EXPECT("x = torch.ones(2)\n",
	       T(NAME, 1, 0, "x"), T(OP, 1, 2, "="), T(NAME, 1, 4, "torch"), T(OP, 1, 9, "."),
	       T(NAME, 1, 10, "ones"), T(OP, 1, 14, "("), T(NUMBER, 1, 15, "2"),
	       T(OP, 1, 16, ")"), T(NEWLINE, 1, 17, "\n"), T(ENDMARKER, 2, 0, ""));
}

static void test_empty_sources(void **state)
{
	mt_token *t = NULL;
	size_t n = 0;

	(void)state;
	EXPECT("", T(ENDMARKER, 1, 0, ""));
	EXPECT("\n", T(NL, 1, 0, "\n"), T(ENDMARKER, 2, 0, ""));
	EXPECT("  \n\n", T(NL, 1, 2, "\n"), T(NL, 2, 0, "\n"), T(ENDMARKER, 3, 0, ""));
	EXPECT("\xEF\xBB\xBF", T(ENDMARKER, 1, 0, ""));
	assert_int_equal(mt_pylex(&t, &n, NULL, 0), 0);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].kind, MT_TOK_ENDMARKER);
	free(t);
}

static void test_comments(void **state)
{
	(void)state;
	EXPECT("x = 1  # set x\n# alone\n",
	       T(NAME, 1, 0, "x"), T(OP, 1, 2, "="), T(NUMBER, 1, 4, "1"),
	       T(COMMENT, 1, 7, "# set x"), T(NEWLINE, 1, 14, "\n"),
	       T(COMMENT, 2, 0, "# alone"), T(NL, 2, 7, "\n"), T(ENDMARKER, 3, 0, ""));
	EXPECT("# no newline", T(COMMENT, 1, 0, "# no newline"), T(NL, 1, 12, ""),
	       T(ENDMARKER, 2, 0, ""));
}

static void test_unicode_names(void **state)
{
	(void)state;
	/* Columns are bytes: "café" is 5 of them, "π" 2. */
	EXPECT("café = π + 变量\n",
	       T(NAME, 1, 0, "café"), T(OP, 1, 6, "="), T(NAME, 1, 8, "π"), T(OP, 1, 11, "+"),
	       T(NAME, 1, 13, "变量"), T(NEWLINE, 1, 19, "\n"), T(ENDMARKER, 2, 0, ""));
	EXPECT("s = 'ü'; t = f'{ü}'\n",
	       T(NAME, 1, 0, "s"), T(OP, 1, 2, "="), T(STRING, 1, 4, "'ü'"), T(OP, 1, 8, ";"),
	       T(NAME, 1, 10, "t"), T(OP, 1, 12, "="), T(FSTRING_START, 1, 14, "f'"),
	       T(OP, 1, 16, "{"), T(NAME, 1, 17, "ü"), T(OP, 1, 19, "}"),
	       T(FSTRING_END, 1, 20, "'"), T(NEWLINE, 1, 21, "\n"), T(ENDMARKER, 2, 0, ""));
}

static void test_bom(void **state)
{
	mt_token *t = NULL;
	size_t n = 0;
	static const char src[] = "\xEF\xBB\xBFx = 1\n";

	(void)state;
	/* Line 1 starts after the BOM, as ast.col_offset counts it. */
	EXPECT("\xEF\xBB\xBFx = 1\n", T(NAME, 1, 0, "x"), T(OP, 1, 2, "="), T(NUMBER, 1, 4, "1"),
	       T(NEWLINE, 1, 5, "\n"), T(ENDMARKER, 2, 0, ""));
	assert_int_equal(mt_pylex(&t, &n, src, sizeof(src) - 1), 0);
	assert_int_equal(t[0].off, 3);
	free(t);
}

/* --- strings ---------------------------------------------------------------- */

static void test_string_prefixes(void **state)
{
	static const char *const strings[] = {
		"'a'", "\"a\"", "r'a'", "R\"a\"", "u'a'", "U'a'", "b'a'", "B'a'", "br'a'",
		"Br'a'", "bR'a'", "BR'a'", "rb'a'", "rB'a'", "Rb'a'", "RB'a'", "''", "\"\"",
		"''''''", "'''a'''", "\"\"\"a\"\"\"", "rb'''a'''",
	};
	static const char *const fstrings[] = {
		"f'", "F'", "fr'", "fR'", "Fr'", "FR'", "rf'", "rF'", "Rf'", "RF'", "f\"\"\"",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		struct want w[] = {T(STRING, 1, 0, strings[i]), T(NEWLINE, 1, 0, ""),
				   T(ENDMARKER, 2, 0, "")};
		w[1].col = (uint32_t)strlen(strings[i]);
		check_tokens(strings[i], strlen(strings[i]), w, 3);
	}
	for (i = 0; i < sizeof(fstrings) / sizeof(fstrings[0]); i++) {
		const char *quote = strpbrk(fstrings[i], "'\"");
		char src[32];
		mt_token *t = NULL;
		size_t n = 0;

		snprintf(src, sizeof(src), "%sx%s\n", fstrings[i], quote);
		assert_int_equal(mt_pylex(&t, &n, src, strlen(src)), 0);
		assert_int_equal(t[0].kind, MT_TOK_FSTRING_START);
		assert_int_equal(t[0].len, strlen(fstrings[i]));
		assert_int_equal(t[1].kind, MT_TOK_FSTRING_MIDDLE);
		assert_int_equal(t[2].kind, MT_TOK_FSTRING_END);
		assert_int_equal(t[2].len, strlen(quote));
		free(t);
	}
}

static void test_not_prefixes(void **state)
{
	(void)state;
	/* u never combines; b never with f; a name can end right before a quote. */
	EXPECT("ur'a' bu'a' fb'a' rr'a'",
	       T(NAME, 1, 0, "ur"), T(STRING, 1, 2, "'a'"), T(NAME, 1, 6, "bu"),
	       T(STRING, 1, 8, "'a'"), T(NAME, 1, 12, "fb"), T(STRING, 1, 14, "'a'"),
	       T(NAME, 1, 18, "rr"), T(STRING, 1, 20, "'a'"), T(NEWLINE, 1, 23, ""),
	       T(ENDMARKER, 2, 0, ""));
}

static void test_string_escapes(void **state)
{
	(void)state;
	EXPECT("'it\\'s' \"\\\"\" r\"\\\"\" r'\\\\'\n",
	       T(STRING, 1, 0, "'it\\'s'"), T(STRING, 1, 8, "\"\\\"\""),
	       T(STRING, 1, 13, "r\"\\\"\""), T(STRING, 1, 19, "r'\\\\'"),
	       T(NEWLINE, 1, 24, "\n"), T(ENDMARKER, 2, 0, ""));
	/* A backslash before the line break continues a one-quote string. */
	EXPECT("s = 'a\\\nb'\nt = 1\n",
	       T(NAME, 1, 0, "s"), T(OP, 1, 2, "="), T(STRING, 1, 4, "'a\\\nb'"),
	       T(NEWLINE, 2, 2, "\n"), T(NAME, 3, 0, "t"), T(OP, 3, 2, "="),
	       T(NUMBER, 3, 4, "1"), T(NEWLINE, 3, 5, "\n"), T(ENDMARKER, 4, 0, ""));
}

static void test_triple_quotes(void **state)
{
	(void)state;
	EXPECT("x = '''a\n'b' ''c\n'''\ny = \"\"\"\\\"\"\"\" \"\"\n",
	       T(NAME, 1, 0, "x"), T(OP, 1, 2, "="), T(STRING, 1, 4, "'''a\n'b' ''c\n'''"),
	       T(NEWLINE, 3, 3, "\n"), T(NAME, 4, 0, "y"), T(OP, 4, 2, "="),
	       T(STRING, 4, 4, "\"\"\"\\\"\"\"\""), T(STRING, 4, 13, "\"\""),
	       T(NEWLINE, 4, 15, "\n"), T(ENDMARKER, 5, 0, ""));
}

/* --- f-strings -------------------------------------------------------------- */

static void test_fstring_fields(void **state)
{
	(void)state;
	EXPECT("f\"a{x}b{y!r}{z=}\"",
	       T(FSTRING_START, 1, 0, "f\""), T(FSTRING_MIDDLE, 1, 2, "a"), T(OP, 1, 3, "{"),
	       T(NAME, 1, 4, "x"), T(OP, 1, 5, "}"), T(FSTRING_MIDDLE, 1, 6, "b"),
	       T(OP, 1, 7, "{"), T(NAME, 1, 8, "y"), T(OP, 1, 9, "!"), T(NAME, 1, 10, "r"),
	       T(OP, 1, 11, "}"), T(OP, 1, 12, "{"), T(NAME, 1, 13, "z"), T(OP, 1, 14, "="),
	       T(OP, 1, 15, "}"), T(FSTRING_END, 1, 16, "\""), T(NEWLINE, 1, 17, ""),
	       T(ENDMARKER, 2, 0, ""));
	EXPECT("f'{x!s}{x!a}{x = }{a!=b}'",
	       T(FSTRING_START, 1, 0, "f'"), T(OP, 1, 2, "{"), T(NAME, 1, 3, "x"),
	       T(OP, 1, 4, "!"), T(NAME, 1, 5, "s"), T(OP, 1, 6, "}"), T(OP, 1, 7, "{"),
	       T(NAME, 1, 8, "x"), T(OP, 1, 9, "!"), T(NAME, 1, 10, "a"), T(OP, 1, 11, "}"),
	       T(OP, 1, 12, "{"), T(NAME, 1, 13, "x"), T(OP, 1, 15, "="), T(OP, 1, 17, "}"),
	       T(OP, 1, 18, "{"), T(NAME, 1, 19, "a"), T(OP, 1, 20, "!="), T(NAME, 1, 22, "b"),
	       T(OP, 1, 23, "}"), T(FSTRING_END, 1, 24, "'"), T(NEWLINE, 1, 25, ""),
	       T(ENDMARKER, 2, 0, ""));
}

static void test_fstring_brace_escapes(void **state)
{
	(void)state;
	/* CPython ends the text at a doubled brace, keeping the first. */
	EXPECT("f\"a{{b}}c{x}\"\n",
	       T(FSTRING_START, 1, 0, "f\""), T(FSTRING_MIDDLE, 1, 2, "a{"),
	       T(FSTRING_MIDDLE, 1, 5, "b}"), T(FSTRING_MIDDLE, 1, 8, "c"), T(OP, 1, 9, "{"),
	       T(NAME, 1, 10, "x"), T(OP, 1, 11, "}"), T(FSTRING_END, 1, 12, "\""),
	       T(NEWLINE, 1, 13, "\n"), T(ENDMARKER, 2, 0, ""));
	EXPECT("f'{{{x}}}'",
	       T(FSTRING_START, 1, 0, "f'"), T(FSTRING_MIDDLE, 1, 2, "{"), T(OP, 1, 4, "{"),
	       T(NAME, 1, 5, "x"), T(OP, 1, 6, "}"), T(FSTRING_MIDDLE, 1, 7, "}"),
	       T(FSTRING_END, 1, 9, "'"), T(NEWLINE, 1, 10, ""), T(ENDMARKER, 2, 0, ""));
}

static void test_fstring_format_spec(void **state)
{
	(void)state;
	/* Spec text is FSTRING_MIDDLE; nested fields are code; an empty piece
	 * of spec before `}` is still a token, as in CPython. */
	EXPECT("f\"{x:{width}.{prec}}\"",
	       T(FSTRING_START, 1, 0, "f\""), T(OP, 1, 2, "{"), T(NAME, 1, 3, "x"),
	       T(OP, 1, 4, ":"), T(OP, 1, 5, "{"), T(NAME, 1, 6, "width"), T(OP, 1, 11, "}"),
	       T(FSTRING_MIDDLE, 1, 12, "."), T(OP, 1, 13, "{"), T(NAME, 1, 14, "prec"),
	       T(OP, 1, 18, "}"), T(FSTRING_MIDDLE, 1, 19, ""), T(OP, 1, 19, "}"),
	       T(FSTRING_END, 1, 20, "\""), T(NEWLINE, 1, 21, ""), T(ENDMARKER, 2, 0, ""));
	EXPECT("f'{x!r:>10}{y:}'",
	       T(FSTRING_START, 1, 0, "f'"), T(OP, 1, 2, "{"), T(NAME, 1, 3, "x"),
	       T(OP, 1, 4, "!"), T(NAME, 1, 5, "r"), T(OP, 1, 6, ":"),
	       T(FSTRING_MIDDLE, 1, 7, ">10"), T(OP, 1, 10, "}"), T(OP, 1, 11, "{"),
	       T(NAME, 1, 12, "y"), T(OP, 1, 13, ":"), T(FSTRING_MIDDLE, 1, 14, ""),
	       T(OP, 1, 14, "}"), T(FSTRING_END, 1, 15, "'"), T(NEWLINE, 1, 16, ""),
	       T(ENDMARKER, 2, 0, ""));
	/* `:=` at the field's level is a spec "=10"; inside parentheses, walrus. */
	EXPECT("f'{x:=10}{(y:=1)}'",
	       T(FSTRING_START, 1, 0, "f'"), T(OP, 1, 2, "{"), T(NAME, 1, 3, "x"),
	       T(OP, 1, 4, ":"), T(FSTRING_MIDDLE, 1, 5, "=10"), T(OP, 1, 8, "}"),
	       T(OP, 1, 9, "{"), T(OP, 1, 10, "("), T(NAME, 1, 11, "y"), T(OP, 1, 12, ":="),
	       T(NUMBER, 1, 14, "1"), T(OP, 1, 15, ")"), T(OP, 1, 16, "}"),
	       T(FSTRING_END, 1, 17, "'"), T(NEWLINE, 1, 18, ""), T(ENDMARKER, 2, 0, ""));
}

static void test_fstring_nested(void **state)
{
	(void)state;
	/* Different quotes, and (3.12) the same quotes inside a field. */
	EXPECT("f\"{f'{x}'}\" f\"{d[\"k\"]}\"",
	       T(FSTRING_START, 1, 0, "f\""), T(OP, 1, 2, "{"), T(FSTRING_START, 1, 3, "f'"),
	       T(OP, 1, 5, "{"), T(NAME, 1, 6, "x"), T(OP, 1, 7, "}"),
	       T(FSTRING_END, 1, 8, "'"), T(OP, 1, 9, "}"), T(FSTRING_END, 1, 10, "\""),
	       T(FSTRING_START, 1, 12, "f\""), T(OP, 1, 14, "{"), T(NAME, 1, 15, "d"),
	       T(OP, 1, 16, "["), T(STRING, 1, 17, "\"k\""), T(OP, 1, 20, "]"),
	       T(OP, 1, 21, "}"), T(FSTRING_END, 1, 22, "\""), T(NEWLINE, 1, 23, ""),
	       T(ENDMARKER, 2, 0, ""));
}

static void test_fstring_code_in_fields(void **state)
{
	(void)state;
	/* `:` inside brackets of a field is code: dicts, slices, lambdas. */
	EXPECT("f'{ {1: 2}[1] }{a[1:2]}{(lambda v: v)(x)}'",
	       T(FSTRING_START, 1, 0, "f'"), T(OP, 1, 2, "{"), T(OP, 1, 4, "{"),
	       T(NUMBER, 1, 5, "1"), T(OP, 1, 6, ":"), T(NUMBER, 1, 8, "2"), T(OP, 1, 9, "}"),
	       T(OP, 1, 10, "["), T(NUMBER, 1, 11, "1"), T(OP, 1, 12, "]"), T(OP, 1, 14, "}"),
	       T(OP, 1, 15, "{"), T(NAME, 1, 16, "a"), T(OP, 1, 17, "["), T(NUMBER, 1, 18, "1"),
	       T(OP, 1, 19, ":"), T(NUMBER, 1, 20, "2"), T(OP, 1, 21, "]"), T(OP, 1, 22, "}"),
	       T(OP, 1, 23, "{"), T(OP, 1, 24, "("), T(NAME, 1, 25, "lambda"),
	       T(NAME, 1, 32, "v"), T(OP, 1, 33, ":"), T(NAME, 1, 35, "v"), T(OP, 1, 36, ")"),
	       T(OP, 1, 37, "("), T(NAME, 1, 38, "x"), T(OP, 1, 39, ")"), T(OP, 1, 40, "}"),
	       T(FSTRING_END, 1, 41, "'"), T(NEWLINE, 1, 42, ""), T(ENDMARKER, 2, 0, ""));
}

static void test_fstring_multiline(void **state)
{
	(void)state;
	EXPECT("x = f\"\"\"ab\ncd{y\n  + 1:>4}\nef\"\"\"\n",
	       T(NAME, 1, 0, "x"), T(OP, 1, 2, "="), T(FSTRING_START, 1, 4, "f\"\"\""),
	       T(FSTRING_MIDDLE, 1, 8, "ab\ncd"), T(OP, 2, 2, "{"), T(NAME, 2, 3, "y"),
	       T(NL, 2, 4, "\n"), T(OP, 3, 2, "+"), T(NUMBER, 3, 4, "1"), T(OP, 3, 5, ":"),
	       T(FSTRING_MIDDLE, 3, 6, ">4"), T(OP, 3, 8, "}"), T(FSTRING_MIDDLE, 3, 9, "\nef"),
	       T(FSTRING_END, 4, 2, "\"\"\""), T(NEWLINE, 4, 5, "\n"), T(ENDMARKER, 5, 0, ""));
}

static void test_fstring_backslashes(void **state)
{
	(void)state;
	/* \N{...} is one escape: its `}` ends the text piece. */
	EXPECT("f'\\N{DASH}{x}\\'' rf'\\{x}'",
	       T(FSTRING_START, 1, 0, "f'"), T(FSTRING_MIDDLE, 1, 2, "\\N{DASH}"),
	       T(OP, 1, 10, "{"), T(NAME, 1, 11, "x"), T(OP, 1, 12, "}"),
	       T(FSTRING_MIDDLE, 1, 13, "\\'"), T(FSTRING_END, 1, 15, "'"),
	       T(FSTRING_START, 1, 17, "rf'"), T(FSTRING_MIDDLE, 1, 20, "\\"),
	       T(OP, 1, 21, "{"), T(NAME, 1, 22, "x"), T(OP, 1, 23, "}"),
	       T(FSTRING_END, 1, 24, "'"), T(NEWLINE, 1, 25, ""), T(ENDMARKER, 2, 0, ""));
}

/* --- numbers and operators -------------------------------------------------- */

static void test_numbers(void **state)
{
	static const char *const numbers[] = {
		"0", "7", "00", "0_0", "1_000_000", "0x_FF", "0XdeadBEEF", "0o17", "0O_7",
		"0b1010", "0B_1_0", "1.5", ".5", "5.", "1e10", "1E-5", "1e+5", "1.5e-3",
		"1_000.5e-3j", "1j", "1J", ".5j", "5.j", "012j", "0123.5", "09.5", "0e0",
		"1_2.3_4e5_6", "0123",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		struct want w[] = {T(NUMBER, 1, 0, numbers[i]), T(NEWLINE, 1, 0, ""),
				   T(ENDMARKER, 2, 0, "")};
		w[1].col = (uint32_t)strlen(numbers[i]);
		check_tokens(numbers[i], strlen(numbers[i]), w, 3);
	}
}

static void test_number_boundaries(void **state)
{
	(void)state;
	/* As tokenize: letters after a number start the next token. */
	EXPECT("1if x else 2\n",
	       T(NUMBER, 1, 0, "1"), T(NAME, 1, 1, "if"), T(NAME, 1, 4, "x"),
	       T(NAME, 1, 6, "else"), T(NUMBER, 1, 11, "2"), T(NEWLINE, 1, 12, "\n"),
	       T(ENDMARKER, 2, 0, ""));
	EXPECT("1.__class__ 1..real 1e 1.2.3",
	       T(NUMBER, 1, 0, "1."), T(NAME, 1, 2, "__class__"), T(NUMBER, 1, 12, "1."),
	       T(OP, 1, 14, "."), T(NAME, 1, 15, "real"), T(NUMBER, 1, 20, "1"),
	       T(NAME, 1, 21, "e"), T(NUMBER, 1, 23, "1.2"), T(NUMBER, 1, 26, ".3"),
	       T(NEWLINE, 1, 28, ""), T(ENDMARKER, 2, 0, ""));
}

static void test_operators(void **state)
{
	static const char *const ops[] = {
		"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^", "~",
		"<", ">", "<=", ">=", "==", "!=", "<>", "->", ":=", "=", "+=", "-=", "*=",
		"/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", ">>=", "<<=", ".", "...",
		",", ":", ";", "!", "(", ")", "[", "]", "{", "}",
	};
	size_t i;
	mt_token *t = NULL;
	size_t n = 0;

	(void)state;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		char src[16];
		/* Brackets come with their partner; the operator sits between names. */
		const char *after = ops[i][0] == '(' ? ")" : ops[i][0] == '[' ? "]" :
				    ops[i][0] == '{' ? "}" : "";
		const char *before = ops[i][0] == ')' ? "(" : ops[i][0] == ']' ? "[" :
				     ops[i][0] == '}' ? "{" : "";

		snprintf(src, sizeof(src), "%sa%sb%s", before, ops[i], after);
		if (mt_pylex(&t, &n, src, strlen(src)) < 0)
			fail_msg("%s: %s", src, mt_error_last());
		assert_true(mt_tok_is_op(&t[*before ? 2 : 1], src, ops[i]));
		free(t);
	}
	EXPECT("a..b", T(NAME, 1, 0, "a"), T(OP, 1, 1, "."), T(OP, 1, 2, "."),
	       T(NAME, 1, 3, "b"), T(NEWLINE, 1, 4, ""), T(ENDMARKER, 2, 0, ""));
}

static void test_is_op_is_name(void **state)
{
	static const char src[] = "torch.cuda(x) ** 2";
	mt_token *t = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(mt_pylex(&t, &n, src, sizeof(src) - 1), 0);
	assert_true(mt_tok_is_name(&t[0], src, "torch"));
	assert_false(mt_tok_is_name(&t[0], src, "torc"));
	assert_false(mt_tok_is_name(&t[0], src, "torch.cuda"));
	assert_false(mt_tok_is_op(&t[0], src, "torch"));
	assert_true(mt_tok_is_op(&t[1], src, "."));
	assert_true(mt_tok_is_name(&t[2], src, "cuda"));
	assert_true(mt_tok_is_op(&t[6], src, "**"));
	assert_false(mt_tok_is_op(&t[6], src, "*"));
	assert_false(mt_tok_is_name(&t[7], src, "2"));
	free(t);
}

/* --- lines and indentation -------------------------------------------------- */

static void test_explicit_continuation(void **state)
{
	(void)state;
	EXPECT("x = 1 + \\\n    2\ny\n",
	       T(NAME, 1, 0, "x"), T(OP, 1, 2, "="), T(NUMBER, 1, 4, "1"), T(OP, 1, 6, "+"),
	       T(NUMBER, 2, 4, "2"), T(NEWLINE, 2, 5, "\n"), T(NAME, 3, 0, "y"),
	       T(NEWLINE, 3, 1, "\n"), T(ENDMARKER, 4, 0, ""));
}

static void test_implicit_continuation(void **state)
{
	(void)state;
	/* Inside brackets: NL, comments, no INDENT whatever the columns. */
	EXPECT("f(a,\n        b,  # c\n\n  c)\n",
	       T(NAME, 1, 0, "f"), T(OP, 1, 1, "("), T(NAME, 1, 2, "a"), T(OP, 1, 3, ","),
	       T(NL, 1, 4, "\n"), T(NAME, 2, 8, "b"), T(OP, 2, 9, ","),
	       T(COMMENT, 2, 12, "# c"), T(NL, 2, 15, "\n"), T(NL, 3, 0, "\n"),
	       T(NAME, 4, 2, "c"), T(OP, 4, 3, ")"), T(NEWLINE, 4, 4, "\n"),
	       T(ENDMARKER, 5, 0, ""));
}

static void test_indent_dedent(void **state)
{
	(void)state;
	EXPECT("if a:\n    if b:\n        c\n\n  # odd\n    d\ne\n",
	       T(NAME, 1, 0, "if"), T(NAME, 1, 3, "a"), T(OP, 1, 4, ":"), T(NEWLINE, 1, 5, "\n"),
	       T(INDENT, 2, 0, "    "), T(NAME, 2, 4, "if"), T(NAME, 2, 7, "b"),
	       T(OP, 2, 8, ":"), T(NEWLINE, 2, 9, "\n"), T(INDENT, 3, 0, "        "),
	       T(NAME, 3, 8, "c"), T(NEWLINE, 3, 9, "\n"), T(NL, 4, 0, "\n"),
	       T(COMMENT, 5, 2, "# odd"), T(NL, 5, 7, "\n"), T(DEDENT, 6, 4, ""),
	       T(NAME, 6, 4, "d"), T(NEWLINE, 6, 5, "\n"), T(DEDENT, 7, 0, ""),
	       T(NAME, 7, 0, "e"), T(NEWLINE, 7, 1, "\n"), T(ENDMARKER, 8, 0, ""));
	/* Two levels closed at once, at end of file. */
	EXPECT("if a:\n if b:\n  c\n",
	       T(NAME, 1, 0, "if"), T(NAME, 1, 3, "a"), T(OP, 1, 4, ":"), T(NEWLINE, 1, 5, "\n"),
	       T(INDENT, 2, 0, " "), T(NAME, 2, 1, "if"), T(NAME, 2, 4, "b"), T(OP, 2, 5, ":"),
	       T(NEWLINE, 2, 6, "\n"), T(INDENT, 3, 0, "  "), T(NAME, 3, 2, "c"),
	       T(NEWLINE, 3, 3, "\n"), T(DEDENT, 4, 0, ""), T(DEDENT, 4, 0, ""),
	       T(ENDMARKER, 4, 0, ""));
}

static void test_tabs_and_form_feeds(void **state)
{
	(void)state;
	/* A tab goes to the next multiple of 8: "\t" and "\t" + spaces nest. */
	EXPECT("if a:\n\tb\n\t    c\n",
	       T(NAME, 1, 0, "if"), T(NAME, 1, 3, "a"), T(OP, 1, 4, ":"), T(NEWLINE, 1, 5, "\n"),
	       T(INDENT, 2, 0, "\t"), T(NAME, 2, 1, "b"), T(NEWLINE, 2, 2, "\n"),
	       T(INDENT, 3, 0, "\t    "), T(NAME, 3, 5, "c"), T(NEWLINE, 3, 6, "\n"),
	       T(DEDENT, 4, 0, ""), T(DEDENT, 4, 0, ""), T(ENDMARKER, 4, 0, ""));
	/* A form feed restarts the indentation count. */
	EXPECT("\fx\nif x:\n  \f  y\n",
	       T(NAME, 1, 1, "x"), T(NEWLINE, 1, 2, "\n"), T(NAME, 2, 0, "if"),
	       T(NAME, 2, 3, "x"), T(OP, 2, 4, ":"), T(NEWLINE, 2, 5, "\n"),
	       T(INDENT, 3, 0, "  \f  "), T(NAME, 3, 5, "y"), T(NEWLINE, 3, 6, "\n"),
	       T(DEDENT, 4, 0, ""), T(ENDMARKER, 4, 0, ""));
}

static void test_line_endings(void **state)
{
	(void)state;
	EXPECT("if a:\r\n  b\r\n\r\nc = '''x\r\ny'''\r\n",
	       T(NAME, 1, 0, "if"), T(NAME, 1, 3, "a"), T(OP, 1, 4, ":"),
	       T(NEWLINE, 1, 5, "\r\n"), T(INDENT, 2, 0, "  "), T(NAME, 2, 2, "b"),
	       T(NEWLINE, 2, 3, "\r\n"), T(NL, 3, 0, "\r\n"), T(DEDENT, 4, 0, ""),
	       T(NAME, 4, 0, "c"), T(OP, 4, 2, "="), T(STRING, 4, 4, "'''x\r\ny'''"),
	       T(NEWLINE, 5, 4, "\r\n"), T(ENDMARKER, 6, 0, ""));
	/* A lone CR ends a line too, as compile() reads it. */
	EXPECT("a = 1\rb = (\r2)\r",
	       T(NAME, 1, 0, "a"), T(OP, 1, 2, "="), T(NUMBER, 1, 4, "1"),
	       T(NEWLINE, 1, 5, "\r"), T(NAME, 2, 0, "b"), T(OP, 2, 2, "="),
	       T(OP, 2, 4, "("), T(NL, 2, 5, "\r"), T(NUMBER, 3, 0, "2"), T(OP, 3, 1, ")"),
	       T(NEWLINE, 3, 2, "\r"), T(ENDMARKER, 4, 0, ""));
}

static void test_no_final_newline(void **state)
{
	(void)state;
	/* As tokenize: an empty NEWLINE, the DEDENTs and ENDMARKER on the
	 * line after. */
	EXPECT("if x:\n  y",
	       T(NAME, 1, 0, "if"), T(NAME, 1, 3, "x"), T(OP, 1, 4, ":"), T(NEWLINE, 1, 5, "\n"),
	       T(INDENT, 2, 0, "  "), T(NAME, 2, 2, "y"), T(NEWLINE, 2, 3, ""),
	       T(DEDENT, 3, 0, ""), T(ENDMARKER, 3, 0, ""));
	EXPECT("x\n  ", T(NAME, 1, 0, "x"), T(NEWLINE, 1, 1, "\n"), T(NL, 2, 2, ""),
	       T(ENDMARKER, 3, 0, ""));
}

/* --- errors ----------------------------------------------------------------- */

struct bad {
	const char *src;
	const char *msg;
};

static const struct bad bad_sources[] = {
	{"x = 'abc\ny = 1\n", "1:5: unterminated string literal"},
	{"x = b'abc", "1:5: unterminated string literal"},
	{"x = 'a\\", "1:5: unterminated string literal"},
	{"x = '''abc\n\n", "1:5: unterminated triple-quoted string literal"},
	{"x = \"\"\"a\\\n", "1:5: unterminated triple-quoted string literal"},
	{"x = f\"abc\n", "1:5: unterminated f-string literal"},
	{"x = f'''abc {x}\n", "1:5: unterminated triple-quoted f-string literal"},
	{"x = (1,\n 2\n", "1:5: '(' was never closed"},
	{"x = [1, (2,\n", "1:9: '(' was never closed"},
	{"x = f\"{x\n", "1:7: '{' was never closed"},
	{"x = 1)\n", "1:6: unmatched ')'"},
	{"x = }", "1:5: unmatched '}'"},
	{"x = (1]\n", "1:7: closing parenthesis ']' does not match opening parenthesis '('"},
	{"x = (1,\n2]\n",
	 "2:2: closing parenthesis ']' does not match opening parenthesis '(' on line 1"},
	{"if x:\n    a\n  b\n", "3:3: unindent does not match any outer indentation level"},
	{"if x:\n\ty\n        z\n", "3:9: inconsistent use of tabs and spaces in indentation"},
	{"if x:\n\tif y:\n  \tz\n", "3:4: inconsistent use of tabs and spaces in indentation"},
	{"a $ b\n", "1:3: invalid character '$'"},
	{"a ? b\n", "1:3: invalid character '?'"},
	{"a ` b\n", "1:3: invalid character '`'"},
	{"a = 1\x01\n", "1:6: invalid non-printable character U+0001"},
	{"x = 1 \\ 2\n", "1:8: unexpected character after line continuation character"},
	{"x = \\", "1:5: unexpected end of file after line continuation character"},
	{"if x:\n  \\\n", "2:3: unexpected end of file after line continuation character"},
	{"x = 0x\n", "1:7: invalid hexadecimal literal"},
	{"x = 0x_", "1:8: invalid hexadecimal literal"},
	{"x = 0o", "1:7: invalid octal literal"},
	{"x = 0o8\n", "1:7: invalid digit '8' in octal literal"},
	{"x = 0b12\n", "1:8: invalid digit '2' in binary literal"},
	{"x = 1__0\n", "1:7: invalid decimal literal"},
	{"x = 1_\n", "1:7: invalid decimal literal"},
	{"x = 1e+\n", "1:8: invalid decimal literal"},
	{"x = f\"{x}}\"\n", "1:10: f-string: single '}' is not allowed"},
	{"x = f\"{\"\n", "1:8: f-string: expecting '}'"},
	{"x = f\"{x)}\"\n", "1:9: f-string: unmatched ')'"},
	{"f\"{a:{b:{c:{d}}}}\"\n", "1:12: f-string: expressions nested too deeply"},
};

static void test_errors(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_sources) / sizeof(bad_sources[0]); i++) {
		const struct bad *b = &bad_sources[i];
		mt_token *t = (mt_token *)b; /* must come back NULL */
		size_t n = 99;
		int rc = mt_pylex(&t, &n, b->src, strlen(b->src));

		if (rc != MT_EINVALID)
			fail_msg("%s: rc %d, want MT_EINVALID", b->src, rc);
		assert_null(t);
		assert_int_equal(n, 0);
		if (strcmp(mt_error_last(), b->msg) != 0)
			fail_msg("source %s\n  got:  %s\n  want: %s", b->src, mt_error_last(), b->msg);
	}
}

static void test_limits(void **state)
{
	mt_buf b = MT_BUF_INIT;
	mt_token *t = NULL;
	size_t n = 0;
	int i;

	(void)state;
	for (i = 0; i < 200; i++)
		mt_buf_puts(&b, "(");
	assert_int_equal(mt_pylex(&t, &n, b.ptr, b.len), MT_EINVALID);
	assert_string_equal(mt_error_last(), "1:200: '(' was never closed");
	mt_buf_puts(&b, "(");
	assert_int_equal(mt_pylex(&t, &n, b.ptr, b.len), MT_EINVALID);
	assert_string_equal(mt_error_last(), "1:201: too many nested parentheses");
	mt_buf_dispose(&b);
	for (i = 0; i <= 100; i++)
		mt_buf_printf(&b, "%*sif x:\n", i, "");
	assert_int_equal(mt_pylex(&t, &n, b.ptr, b.len), MT_EINVALID);
	assert_string_equal(mt_error_last(), "101:101: too many levels of indentation");
	mt_buf_dispose(&b);
}

/* A large source: the token array grows well past its first guess. */
static void test_large_source(void **state)
{
	mt_buf b = MT_BUF_INIT;
	mt_token *t = NULL;
	size_t n = 0;
	int i;

	(void)state;
	for (i = 0; i < 20000; i++)
		mt_buf_puts(&b, "a(b,c,d,e,f,g,h)\n");
	assert_int_equal(mt_pylex(&t, &n, b.ptr, b.len), 0);
	assert_int_equal(n, 20000 * 17 + 1);
	assert_int_equal(t[n - 1].kind, MT_TOK_ENDMARKER);
	assert_int_equal(t[n - 1].line, 20001);
	assert_int_equal(t[n - 2].line, 20000);
	free(t);
	mt_buf_dispose(&b);
}

/* --- the differential test against CPython's tokenize ---------------------- */

#define CORPUS MT_SOURCE_DIR "/tests/data/pylex"

/* End line and byte column of a token, counted as tokenize does: a line
 * break inside a token moves the end to the next line, but a NEWLINE or NL
 * token ends on its own line. */
static void token_end(const char *src, const mt_token *t, uint32_t *line, uint32_t *col)
{
	size_t i, end = (size_t)t->off + t->len, bol = 0;
	int broke = 0;

	*line = t->line;
	*col = t->col + t->len;
	if (t->kind == MT_TOK_NEWLINE || t->kind == MT_TOK_NL)
		return;
	for (i = t->off; i < end; i++) {
		if (src[i] == '\n' || (src[i] == '\r' && !(i + 1 < end && src[i + 1] == '\n'))) {
			(*line)++;
			bol = i + 1;
			broke = 1;
		}
	}
	if (broke)
		*col = (uint32_t)(end - bol);
}

static int kind_of(const char *name)
{
	size_t k;

	for (k = 0; k < NKINDS; k++)
		if (strcmp(kind_names[k], name) == 0)
			return (int)k;
	return -1;
}

/* mt_pylex_code's match: each opening bracket's closing token, as a stack
 * over the one-byte bracket OP tokens pairs them. */
static void check_match(const char *name, const char *src, const mt_token *c, size_t nc,
			const size_t *match)
{
	size_t *stack = calloc(nc + 1, sizeof(*stack)), depth = 0;

	assert_non_null(stack);
	for (size_t i = 0; i < nc; i++) {
		char ch = c[i].kind == MT_TOK_OP && c[i].len == 1 ? src[c[i].off] : 0;
		if (ch == '(' || ch == '[' || ch == '{')
			stack[depth++] = i;
		else if ((ch == ')' || ch == ']' || ch == '}') && depth && match[stack[--depth]] != i)
			fail_msg("%s: bracket at token %zu closes at %zu, match says %zu", name,
				 stack[depth], i, match[stack[depth]]);
	}
	assert_int_equal(depth, 0);
	free(stack);
}

/* mt_pylex_code_buf gives mt_pylex_code's tokens c[0..nc) and marks exactly
 * the INDENT, DEDENT and NEWLINE tokens and the names def, class, import
 * and from; returns how many. */
static size_t check_marks(const char *name, const char *src, size_t len, const mt_token *c,
			  size_t nc)
{
	mt_lexbuf b = {0};
	size_t n = 0, k = 0;

	if (mt_pylex_code_buf(&b, &n, src, len) < 0)
		fail_msg("%s: mt_pylex_code_buf: %s", name, mt_error_last());
	if (n != nc || (n && memcmp(b.tok, c, n * sizeof(*c)) != 0))
		fail_msg("%s: mt_pylex_code_buf's tokens differ from mt_pylex_code's", name);
	for (size_t i = 0; i < n; i++) {
		if (!(c[i].kind == MT_TOK_INDENT || c[i].kind == MT_TOK_DEDENT ||
		      c[i].kind == MT_TOK_NEWLINE || mt_tok_is_name(&c[i], src, "def") ||
		      mt_tok_is_name(&c[i], src, "class") || mt_tok_is_name(&c[i], src, "import") ||
		      mt_tok_is_name(&c[i], src, "from")))
			continue;
		if (k >= b.nmarks || b.marks[k] != i)
			fail_msg("%s: token %zu is not marked (mark %zu)", name, i, k);
		k++;
	}
	if (k != b.nmarks)
		fail_msg("%s: %zu marks, want %zu", name, b.nmarks, k);
	mt_lexbuf_dispose(&b);
	return k;
}

static void test_marks(void **state)
{
	/* names that only begin like the keywords, and keywords in an
	 * f-string's field and in a file's last bytes */
	static const char src[] = "import os\nfrom a import b\nclass C:\n    def f(self):\n"
				  "        return f\"{imports}{def}\" + classes, define\nif x: import y";
	mt_token *c = NULL;
	size_t nc = 0, *match = NULL;

	(void)state;
	assert_int_equal(mt_pylex_code(&c, &match, &nc, src, sizeof(src) - 1), 0);
	/* import NEWLINE from import NEWLINE class NEWLINE INDENT def NEWLINE
	 * INDENT def NEWLINE DEDENT DEDENT import NEWLINE */
	assert_int_equal(check_marks("test_marks", src, sizeof(src) - 1, c, nc), 17);
	free(c);
	free(match);
}

/* mt_pylex_code gives exactly mt_pylex's tokens minus COMMENT, NL and
 * ENDMARKER, and the brackets' matches. */
static void check_code_only(const char *name, const char *src, size_t len, const mt_token *t,
			    size_t n)
{
	mt_token *c = NULL;
	size_t nc = 0, k = 0, *match = NULL;

	if (mt_pylex_code(&c, &match, &nc, src, len) < 0)
		fail_msg("%s: mt_pylex_code: %s", name, mt_error_last());
	check_match(name, src, c, nc, match);
	free(match);
	for (size_t i = 0; i < n; i++) {
		if (t[i].kind == MT_TOK_COMMENT || t[i].kind == MT_TOK_NL ||
		    t[i].kind == MT_TOK_ENDMARKER)
			continue;
		if (k >= nc || memcmp(&t[i], &c[k], sizeof(*c)) != 0)
			fail_msg("%s: mt_pylex_code differs at its token %zu", name, k);
		k++;
	}
	if (k != nc)
		fail_msg("%s: mt_pylex_code has %zu tokens, want %zu", name, nc, k);
	check_marks(name, src, len, c, nc);
	free(c);
}

/* Compares the tokens of name.py with name.tokens; returns the count. */
static size_t compare_with_cpython(const char *name)
{
	char *py = mt_path_join(CORPUS, name), *exp_path, *src = NULL, *exp = NULL, *line;
	char *save = NULL;
	size_t len, n = 0, i = 0;
	mt_token *t = NULL;
	mt_buf b = MT_BUF_INIT;

	mt_buf_printf(&b, "%.*s.tokens", (int)(strlen(py) - 3), py);
	exp_path = mt_buf_detach(&b);
	if (mt_file_read(&src, &len, py) < 0 || mt_file_read(&exp, NULL, exp_path) < 0)
		fail_msg("%s (run gen_expected.py?)", mt_error_last());
	if (mt_pylex(&t, &n, src, len) < 0)
		fail_msg("%s: %s", name, mt_error_last());
	for (line = strtok_r(exp, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind[32];
		unsigned l, c, el, ec;
		uint32_t gl, gc;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%31s %u %u %u %u", kind, &l, &c, &el, &ec) != 5)
			fail_msg("%s: bad line \"%s\"", exp_path, line);
		if (i >= n)
			fail_msg("%s: only %zu tokens, CPython has more: %s", name, n, line);
		token_end(src, &t[i], &gl, &gc);
		if ((int)t[i].kind != kind_of(kind) || t[i].line != l || t[i].col != c ||
		    gl != el || gc != ec)
			fail_msg("%s: token %zu: CPython %s %u:%u-%u:%u, pylex %s %u:%u-%u:%u \"%.*s\"",
				 name, i, kind, l, c, el, ec, kind_names[t[i].kind], t[i].line,
				 t[i].col, gl, gc, (int)t[i].len, src + t[i].off);
		i++;
	}
	if (i != n)
		fail_msg("%s: pylex has %zu tokens, CPython %zu", name, n, i);
	check_code_only(name, src, len, t, n);
	free(t);
	free(src);
	free(exp);
	free(exp_path);
	free(py);
	return n;
}

static void test_matches_cpython_tokenize(void **state)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	size_t files = 0, tokens = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 3 && strcmp(e->d_name + len - 3, ".py") == 0 &&
		    strcmp(e->d_name, "gen_expected.py") != 0) {
			tokens += compare_with_cpython(e->d_name);
			files++;
		}
	}
	closedir(d);
	/* Guards against an empty or moved corpus passing silently. */
	assert_true(files >= 15);
	assert_true(tokens >= 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statement),
		cmocka_unit_test(test_empty_sources),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_unicode_names),
		cmocka_unit_test(test_bom),
		cmocka_unit_test(test_string_prefixes),
		cmocka_unit_test(test_not_prefixes),
		cmocka_unit_test(test_string_escapes),
		cmocka_unit_test(test_triple_quotes),
		cmocka_unit_test(test_fstring_fields),
		cmocka_unit_test(test_fstring_brace_escapes),
		cmocka_unit_test(test_fstring_format_spec),
		cmocka_unit_test(test_fstring_nested),
		cmocka_unit_test(test_fstring_code_in_fields),
		cmocka_unit_test(test_fstring_multiline),
		cmocka_unit_test(test_fstring_backslashes),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_number_boundaries),
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_is_op_is_name),
		cmocka_unit_test(test_explicit_continuation),
		cmocka_unit_test(test_implicit_continuation),
		cmocka_unit_test(test_indent_dedent),
		cmocka_unit_test(test_tabs_and_form_feeds),
		cmocka_unit_test(test_line_endings),
		cmocka_unit_test(test_no_final_newline),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_large_source),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_matches_cpython_tokenize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
