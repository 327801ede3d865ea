/* common/sanitize.c: what reaches a terminal from a hostile string (escape
 * sequences, C1 controls raw and in UTF-8, invalid UTF-8, bidi overrides),
 * what is kept byte for byte (printable UTF-8), the three modes, input cut
 * inside a character, and JSON kept equivalent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sanitize.h"

static void assert_safe(const char *in, enum mt_term_mode mode, const char *want)
{
	char *got = mt_term_safe(in, mode);
	if (strcmp(got, want) != 0)
		fail_msg("mode %d: want '%s', got '%s'", (int)mode, want, got);
	free(got);
}

static void test_escape_sequences(void **state)
{
	(void)state;
	/* set the title, ring the bell, clear the screen: nothing of it acts */
	assert_safe("a\033]0;pwned\007b\033[2Jc", MT_TERM_STRICT, "a?]0;pwned?b?[2Jc");
	assert_safe("\x7f", MT_TERM_TEXT, "?");
	assert_safe("x\x01y", MT_TERM_LINE, "x?y");
}

static void test_c1(void **state)
{
	(void)state;
	/* 0x9b is CSI in an 8-bit terminal; raw it is invalid UTF-8 */
	assert_safe("a\x9b"
		    "2Jb",
		    MT_TERM_STRICT, "a?2Jb");
	/* U+009B and U+0085 encoded in UTF-8 */
	assert_safe("a\xc2\x9b"
		    "2J\xc2\x85z",
		    MT_TERM_STRICT, "a?2J?z");
	/* U+00A0, the first code point past C1, is printable */
	assert_safe("\xc2\xa0", MT_TERM_STRICT, "\xc2\xa0");
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	assert_safe("\xc0\xaf", MT_TERM_STRICT, "??");         /* overlong '/' */
	assert_safe("\xe0\x80\xaf", MT_TERM_STRICT, "???");    /* overlong, 3 bytes */
	assert_safe("\xed\xa0\x80", MT_TERM_STRICT, "???");    /* a surrogate */
	assert_safe("\xf4\x90\x80\x80", MT_TERM_STRICT, "????"); /* past U+10FFFF */
	assert_safe("\x80x", MT_TERM_STRICT, "?x");            /* stray continuation */
	assert_safe("\xe6\xa8", MT_TERM_STRICT, "??");         /* cut at the end */
	assert_safe("\xff\xfe", MT_TERM_STRICT, "??");
}

static void test_bidi(void **state)
{
	(void)state;
	/* RLO ... PDF, RLI ... PDI, LRM, line separator */
	assert_safe("a\xe2\x80\xae"
		    "cba\xe2\x80\xac"
		    "d",
		    MT_TERM_STRICT, "a?cba?d");
	assert_safe("\xe2\x81\xa7x\xe2\x81\xa9", MT_TERM_STRICT, "?x?");
	assert_safe("\xe2\x80\x8e\xe2\x80\xa8", MT_TERM_STRICT, "??");
	/* U+2030 (per mille) beside them is printable */
	assert_safe("\xe2\x80\xb0", MT_TERM_STRICT, "\xe2\x80\xb0");
}

static void test_printable_kept(void **state)
{
	(void)state;
	const char *s = "caf\xc3\xa9_\xe6\xa8\xa1\xe5\x9e\x8b.py \xf0\x9f\x98\x80 ~!";
	assert_safe(s, MT_TERM_STRICT, s);
	assert_safe(NULL, MT_TERM_STRICT, "");
}

static void test_modes(void **state)
{
	(void)state;
	assert_safe("a\tb\nc\r\nd\re", MT_TERM_STRICT, "a?b?c??d?e");
	assert_safe("a\tb\nc\r\nd\re", MT_TERM_LINE, "a b c  d e");
	assert_safe("a\tb\nc\r\nd\re", MT_TERM_TEXT, "a\tb\nc\r\nd?e");
}

/* A stream cut anywhere gives what the whole gives. */
static void test_split_input(void **state)
{
	(void)state;
	const char *s = "\xe6\xa8\xa1\033[2J\xc2\x9bz\r\n\xe2\x80\xae.\r";
	size_t len = strlen(s);
	char *whole = mt_term_safe(s, MT_TERM_TEXT);

	for (size_t cut = 0; cut <= len; cut++) {
		mt_buf out = MT_BUF_INIT, rest = MT_BUF_INIT;
		size_t took = mt_term_safe_put(&out, s, cut, MT_TERM_TEXT, 0);
		assert_true(took <= cut && cut - took <= 3);
		mt_buf_put(&rest, s + took, len - took);
		assert_int_equal(mt_term_safe_put(&out, rest.ptr, rest.len, MT_TERM_TEXT, 1),
				 rest.len);
		if (strcmp(mt_buf_cstr(&out), whole) != 0)
			fail_msg("cut at %zu: '%s' against '%s'", cut, mt_buf_cstr(&out), whole);
		mt_buf_dispose(&out);
		mt_buf_dispose(&rest);
	}
	free(whole);
}

static void test_decode(void **state)
{
	(void)state;
	uint32_t cp = 0;
	assert_int_equal(mt_utf8_decode("\xf0\x9f\x98\x80", 4, &cp), 4);
	assert_int_equal(cp, 0x1f600);
	assert_int_equal(mt_utf8_decode("\xf0\x9f\x98", 3, &cp), -1);
	assert_int_equal(mt_utf8_decode("\xf0\x9f\x41", 3, &cp), 0);
	assert_int_equal(mt_utf8_decode("\xdf\xbf", 2, &cp), 2);
	assert_int_equal(cp, 0x7ff);
}

/* The JSON copy parses to the same value and holds no control. */
static void test_json(void **state)
{
	(void)state;
	const char *text = "a\033]0;t\007\xc2\x9b\xe2\x80\xae\x7f caf\xc3\xa9";
	json_t *v = json_pack("{ss}", "note", text), *back;
	char *dumped = json_dumps(v, JSON_COMPACT);
	char *safe = mt_term_safe_json(dumped, strlen(dumped));

	for (const unsigned char *p = (const unsigned char *)safe; *p; p++)
		assert_true(*p >= 0x20 && *p != 0x7f && *p != 0x9b);
	assert_null(strstr(safe, "\xc2\x9b"));
	assert_null(strstr(safe, "\xe2\x80\xae"));
	assert_non_null(strstr(safe, "caf\xc3\xa9"));
	back = json_loads(safe, 0, NULL);
	assert_non_null(back);
	assert_true(json_equal(v, back));
	json_decref(back);
	json_decref(v);
	free(dumped);
	free(safe);
	safe = mt_term_safe_json("\"\xff\"", 3);
	assert_string_equal(safe, "\"\\ufffd\"");
	free(safe);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_sequences), cmocka_unit_test(test_c1),
		cmocka_unit_test(test_invalid_utf8),     cmocka_unit_test(test_bidi),
		cmocka_unit_test(test_printable_kept),   cmocka_unit_test(test_modes),
		cmocka_unit_test(test_split_input),      cmocka_unit_test(test_decode),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
