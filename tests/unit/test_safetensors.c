/* safetensors headers: a good file reads back; every lie a header can tell
 * (offsets, sizes, header length, overlaps, dtypes) is MT_EINVALID naming
 * the tensor or field, without reading past the buffer (ASan checks that:
 * each buffer is allocated to its exact size). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "safetensors.h"

/* A file in memory of exactly the right size: length, header, data bytes. */
static unsigned char *file(const char *header, size_t data_len, size_t *size)
{
	size_t h = strlen(header);
	unsigned char *b = malloc(8 + h + data_len);
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)((uint64_t)h >> (8 * i));
	memcpy(b + 8, header, h);
	memset(b + 8 + h, 0, data_len);
	*size = 8 + h + data_len;
	return b;
}

static int parse(const char *header, size_t data_len)
{
	size_t size, n = 0;
	mt_tensor *t = NULL;
	unsigned char *b = file(header, data_len, &size);
	int error = mt_safetensors_parse(&t, &n, b, size, "x.safetensors");
	mt_safetensors_free(t, n);
	free(b);
	return error;
}

static void expect_bad(const char *header, size_t data_len, const char *fragment)
{
	assert_int_equal(parse(header, data_len), MT_EINVALID);
	if (!strstr(mt_error_last(), fragment) || !strstr(mt_error_last(), "x.safetensors"))
		fail_msg("'%s' lacks '%s'", mt_error_last(), fragment);
}

static void test_good(void **state)
{
	size_t size, n;
	mt_tensor *t;
	unsigned char *b =
	    file("{\"__metadata__\":{\"format\":\"pt\"},"
	         "\"z\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[8,20]},"
	         "\"a\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]},"
	         "\"e\":{\"dtype\":\"F32\",\"shape\":[0,4],\"data_offsets\":[20,20]},"
	         "\"s\":{\"dtype\":\"BOOL\",\"shape\":[],\"data_offsets\":[20,21]}}",
	         21, &size);
	(void)state;
	assert_int_equal(mt_safetensors_parse(&t, &n, b, size, "x.safetensors"), 0);
	assert_int_equal(n, 4);
	assert_string_equal(t[0].name, "a"); /* sorted by name */
	assert_string_equal(t[3].name, "z");
	assert_int_equal(t[3].dtype, MT_DT_BF16);
	assert_int_equal(t[3].ndim, 2);
	assert_int_equal(t[3].numel, 6);
	assert_ptr_equal(t[3].data, b + size - 21 + 8);
	assert_int_equal(t[1].numel, 0); /* e: empty */
	assert_int_equal(t[2].ndim, 0);  /* s: 0-d */
	assert_int_equal(t[2].numel, 1);
	mt_safetensors_free(t, n);
	free(b);
}

static void test_lies(void **state)
{
	size_t size, n;
	mt_tensor *t;
	unsigned char *b;
	(void)state;
	expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 8,
	           "tensor 'w': data_offsets [0, 16] are not within the data section (8 bytes)");
	expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,16]}}", 16,
	           "hold 16 bytes, but 3 elements of F32 need 12");
	expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904,8],"
	           "\"data_offsets\":[0,16]}}",
	           16, "tensor 'w': shape has more elements");
	expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,-4]}}", 16,
	           "tensor 'w': data_offsets is not a pair");
	expect_bad("{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
	           "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[7,15]}}",
	           16, "overlap");
	expect_bad("{\"w\":{\"dtype\":\"F8_E5M2\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
	           "tensor 'w': unsupported dtype F8_E5M2");
	expect_bad("{\"w\":{\"dtype\":\"float32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
	           "unsupported dtype float32");
	expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":[1,-2],\"data_offsets\":[0,4]}}", 4,
	           "shape[1]");
	expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"
	           "\"data_offsets\":[0,4]}}",
	           4, "17 dimensions");
	expect_bad("{\"w\":[1]}", 0, "tensor 'w': entry is not a JSON object");
	expect_bad("{\"w\":", 0, "invalid JSON");
	expect_bad("[]", 0, "not a safetensors file");
	/* a header length past the end, and files too short for one */
	b = file("{}", 0, &size);
	b[0] = 200;
	assert_int_equal(mt_safetensors_parse(&t, &n, b, size, "x.safetensors"), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "header length 200 runs past the end"));
	for (size_t cut = 0; cut < size; cut++)
		assert_int_equal(mt_safetensors_parse(&t, &n, b, cut, "x.safetensors"),
		                 MT_EINVALID);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_lies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
