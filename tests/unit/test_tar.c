/* common/tar.c: what mt_tar_add writes reads back (a long name through
 * ustar's prefix, an empty file, a size of a whole block); the names a
 * reader refuses; each header field the reader checks, broken one at a
 * time in a stream the writer made, refused naming the entry and the field;
 * gzip's trailer and CRC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "tar.h"

#define LONG_NAME "record/objects/sha256/" \
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef/" \
	"0123456789abcdef0123456789abcdef.json"

/* A stream of three entries, ended: plain and gzipped. */
struct stream {
	mt_buf tar;
	unsigned char *gz;
	size_t gz_len;
};

static void make(struct stream *s)
{
	char block[512];

	memset(block, 'x', sizeof(block));
	mt_buf_init(&s->tar);
	assert_int_equal(mt_tar_add(&s->tar, "MANIFEST", "m\n", 2, 1700000000), 0);
	assert_int_equal(mt_tar_add(&s->tar, LONG_NAME, "", 0, 1700000000), 0);
	assert_int_equal(mt_tar_add(&s->tar, "logs/1-candidate.log", block, sizeof(block), 0), 0);
	assert_int_equal(mt_tar_finish_gz(&s->gz, &s->gz_len, &s->tar), 0);
}

static void unmake(struct stream *s)
{
	mt_buf_dispose(&s->tar);
	free(s->gz);
}

static void test_round_trip(void **state)
{
	struct stream st;
	mt_tar t;
	(void)state;

	make(&st);
	assert_int_equal(mt_tar_read_gz(&t, st.gz, st.gz_len), 0);
	assert_int_equal(t.n, 3);
	assert_string_equal(t.entries[0].name, "MANIFEST");
	assert_memory_equal(t.entries[0].data, "m\n", 2);
	assert_string_equal(t.entries[1].name, LONG_NAME);
	assert_int_equal(t.entries[1].size, 0);
	assert_int_equal(mt_tar_find(&t, "logs/1-candidate.log")->size, 512);
	assert_null(mt_tar_find(&t, "logs"));
	mt_tar_dispose(&t);
	assert_int_equal(mt_tar_read(&t, (unsigned char *)st.tar.ptr, st.tar.len), 0);
	assert_int_equal(t.n, 3);
	mt_tar_dispose(&t);
	unmake(&st);
}

static void test_names(void **state)
{
	static const char *const bad[] = {"", "/etc/passwd", "../x", "a/../../x", "a/..", "./a",
					  "a//b", "a/./b", "a\\b", "a\nb", "a\x1b[2Jb"};
	mt_buf tar = MT_BUF_INIT;
	char longer[300];
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(mt_tar_name_check(bad[i]), MT_EINVALID);
		assert_int_equal(mt_tar_add(&tar, bad[i], "x", 1, 0), MT_EINVALID);
	}
	assert_int_equal(tar.len, 0); /* nothing written for a name refused */
	assert_int_equal(mt_tar_name_check("a/..b/c.."), 0);
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(mt_tar_name_check(longer), MT_EINVALID);
	/* 200 bytes with no '/' to split ustar's prefix from its name at */
	longer[200] = '\0';
	assert_int_equal(mt_tar_add(&tar, longer, "x", 1, 0), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "ustar cannot hold the name"));
	mt_buf_dispose(&tar);
}

/* The stream with byte `at` of it set to v (and, when fix_sum, the
 * header's checksum made right again), read plain: the error's message. */
static const char *broken(size_t at, unsigned char v, int fix_sum)
{
	static char msg[512];
	struct stream st;
	unsigned char *h;
	mt_tar t;

	make(&st);
	st.tar.ptr[at] = (char)v;
	if (fix_sum) {
		unsigned sum = 0;
		h = (unsigned char *)st.tar.ptr + at / 512 * 512;
		memset(h + 148, ' ', 8);
		for (int i = 0; i < 512; i++)
			sum += h[i];
		snprintf((char *)h + 148, 8, "%06o", sum);
	}
	assert_int_equal(mt_tar_read(&t, (unsigned char *)st.tar.ptr, st.tar.len), MT_EINVALID);
	assert_null(t.entries);
	snprintf(msg, sizeof(msg), "%s", mt_error_last());
	unmake(&st);
	return msg;
}

static void test_headers(void **state)
{
	/* the second header is at 1024: MANIFEST's header and its block */
	const size_t h = 1024;
	(void)state;

	assert_non_null(strstr(broken(h + 140, '9' ^ 1, 0), "checksum does not match"));
	assert_non_null(strstr(broken(h + 150, 'z', 0), "checksum field is not octal"));
	assert_non_null(strstr(broken(h + 124, '9', 1), "tar entry 2"));
	assert_non_null(strstr(broken(h + 124, '9', 1), "size field is not octal"));
	assert_non_null(strstr(broken(h + 136, 'x', 1), "mtime field is not octal"));
	assert_non_null(strstr(broken(h + 156, '2', 1), "symlink"));
	assert_non_null(strstr(broken(h + 156, '1', 1), "hard link"));
	assert_non_null(strstr(broken(h + 156, '3', 1), "not a regular file"));
	assert_non_null(strstr(broken(h + 257, 'x', 1), "not a ustar header"));
	/* a size past the data present: 0o77777 bytes */
	assert_non_null(strstr(broken(h + 124 + 6, '7', 1), "more than the data present"));
	/* the long name's prefix made absolute */
	assert_non_null(strstr(broken(h + 345, '/', 1), "an absolute path"));
	/* a control character in the third entry's name (its header at 1536:
	 * the second entry is empty), named with it made harmless */
	assert_non_null(strstr(broken(1536 + 4, 0x1b, 1), "tar entry 3 ('logs?1-candidate.log'): name: a control"));
}

static void test_end_and_duplicates(void **state)
{
	struct stream st;
	mt_tar t;
	(void)state;

	make(&st);
	/* the end-of-archive blocks cut off: truncated */
	assert_int_equal(mt_tar_read(&t, (unsigned char *)st.tar.ptr, st.tar.len - 1024), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "truncated"));
	/* one of the two end blocks cut off */
	assert_int_equal(mt_tar_read(&t, (unsigned char *)st.tar.ptr, st.tar.len - 512), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "truncated"));
	unmake(&st);

	mt_buf_init(&st.tar);
	assert_int_equal(mt_tar_add(&st.tar, "a", "1", 1, 0), 0);
	assert_int_equal(mt_tar_add(&st.tar, "a", "2", 1, 0), 0);
	assert_int_equal(mt_tar_finish_gz(&st.gz, &st.gz_len, &st.tar), 0);
	assert_int_equal(mt_tar_read_gz(&t, st.gz, st.gz_len), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "'a': the name comes twice"));
	unmake(&st);
}

static void test_gzip(void **state)
{
	struct stream st;
	mt_tar t;
	(void)state;

	make(&st);
	st.gz[st.gz_len - 8] ^= 1; /* the CRC-32 */
	assert_int_equal(mt_tar_read_gz(&t, st.gz, st.gz_len), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "gzip"));
	st.gz[st.gz_len - 8] ^= 1;
	st.gz[st.gz_len - 4] ^= 1; /* ISIZE */
	assert_int_equal(mt_tar_read_gz(&t, st.gz, st.gz_len), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "ISIZE"));
	st.gz[st.gz_len - 4] ^= 1;
	st.gz[st.gz_len - 1] = 0x7f; /* ISIZE past the cap: refused before any allocation */
	assert_int_equal(mt_tar_read_gz(&t, st.gz, st.gz_len), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "more than"));
	st.gz[st.gz_len - 1] = 0;
	assert_int_equal(mt_tar_read_gz(&t, st.gz, st.gz_len / 2), MT_EINVALID);
	assert_int_equal(mt_tar_read_gz(&t, (unsigned char *)"not gzip at all!!!!", 19), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "not a gzip stream"));
	assert_int_equal(mt_tar_read_gz(&t, st.gz, st.gz_len), 0);
	mt_tar_dispose(&t);
	unmake(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_end_and_duplicates),
		cmocka_unit_test(test_gzip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
