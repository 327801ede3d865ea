/* SHA-256 (common/sha256.c): FIPS 180-4's examples, and the CPU's SHA
 * instructions (where mt_sha256_hex uses them) against the portable code
 * on every length up to 1,000 bytes and a line of an events file's size. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sha256.h"

static void test_fips_examples(void **state)
{
	static const struct {
		const char *text, *digest;
	} cases[] = {
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
		{"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
		 "klmnopqrlmnopqrsmnopqrstnopqrstu",
		 "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
	};
	char a[65], b[65];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(mt_sha256_hex(a, cases[i].text, strlen(cases[i].text)), 0);
		assert_string_equal(a, cases[i].digest);
		assert_int_equal(mt_sha256_hex_portable(b, cases[i].text, strlen(cases[i].text)), 0);
		assert_string_equal(b, cases[i].digest);
	}
	{ /* a million 'a' */
		char *m = malloc(1000000);
		memset(m, 'a', 1000000);
		mt_sha256_hex(a, m, 1000000);
		assert_string_equal(a, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
		free(m);
	}
}

static void test_fast_is_portable(void **state)
{
	size_t n = 20000;
	unsigned char *buf = malloc(n);
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	char a[65], b[65];

	(void)state;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (unsigned char)x;
	}
	for (size_t len = 0; len <= 1000; len++) {
		mt_sha256_hex(a, buf + len % 7, len); /* unaligned too */
		mt_sha256_hex_portable(b, buf + len % 7, len);
		assert_string_equal(a, b);
	}
	mt_sha256_hex(a, buf, n);
	mt_sha256_hex_portable(b, buf, n);
	assert_string_equal(a, b);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips_examples),
		cmocka_unit_test(test_fast_is_portable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
