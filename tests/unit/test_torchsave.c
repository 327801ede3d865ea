/* torch.save files read without libtorch: every tensor of the fixtures
 * written by torch 1.13 (tests/data/torchsave/make.py: each dtype, a 0-d
 * and an empty tensor, transposed and strided views, a Parameter, a
 * state_dict, nested lists and tuples; pickle protocols 2 and 4) comes back
 * with its name, dtype, shape and every value exactly as torch has them;
 * damaged files are refused with the file named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "error.h"
#include "torchsave.h"

#define DATA MT_SOURCE_DIR "/tests/data/torchsave/"

static void check_file(const char *path)
{
	json_error_t jerr;
	json_t *expected = json_load_file(DATA "expected.json", 0, &jerr), *e;
	mt_torchsave *f = NULL;
	const char *name;

	assert_non_null(expected);
	if (mt_torchsave_open(&f, path) < 0)
		fail_msg("%s", mt_error_last());
	assert_int_equal(mt_torchsave_count(f), json_object_size(expected));
	json_object_foreach(expected, name, e) {
		const mt_tensor *t = NULL;
		json_t *shape = json_object_get(e, "shape"), *values = json_object_get(e, "values");
		for (size_t i = 0; i < mt_torchsave_count(f); i++)
			if (strcmp(mt_torchsave_at(f, i)->name, name) == 0)
				t = mt_torchsave_at(f, i);
		if (!t)
			fail_msg("%s: tensor %s not read", path, name);
		assert_string_equal(mt_dtype_name(t->dtype), json_string_value(json_object_get(e, "dtype")));
		assert_int_equal(t->ndim, json_array_size(shape));
		for (int d = 0; d < t->ndim; d++)
			assert_int_equal(t->shape[d], json_integer_value(json_array_get(shape, (size_t)d)));
		assert_int_equal(t->numel, json_array_size(values));
		for (size_t i = 0; i < t->numel; i++) {
			double want = json_number_value(json_array_get(values, i));
			double got = mt_tensor_get(t->dtype, t->data, i);
			if (got != want)
				fail_msg("%s: %s[%zu] = %.17g, torch has %.17g", path, name, i, got, want);
		}
	}
	mt_torchsave_free(f);
	json_decref(expected);
}

static void test_protocol_2(void **state)
{
	(void)state;
	check_file(DATA "tensors.pt");
}

static void test_protocol_4(void **state)
{
	(void)state;
	check_file(DATA "tensors-p4.pt");
}

static void refused(const char *path, const char *message)
{
	mt_torchsave *f = NULL;
	assert_int_equal(mt_torchsave_open(&f, path), MT_EINVALID);
	assert_null(f);
	if (!strstr(mt_error_last(), message) || !strstr(mt_error_last(), path))
		fail_msg("%s: expected '%s' in '%s'", path, message, mt_error_last());
}

static void test_damaged(void **state)
{
	char path[256];
	FILE *fp;
	mt_torchsave *f = NULL;
	unsigned char *bytes;
	size_t n;
	(void)state;

	refused(DATA "truncated.pt", "truncated or damaged zip");
	refused(DATA "make.py", "not a zip file");
	assert_int_equal(mt_torchsave_open(&f, DATA "nope.pt"), MT_ENOTFOUND);
	/* the pickle cut short inside the archive: rewrite data.pkl's bytes */
	snprintf(path, sizeof(path), "%s/mtrial-ts-%d.pt", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	fp = fopen(DATA "tensors.pt", "rb");
	assert_non_null(fp);
	bytes = malloc(1 << 16);
	n = fread(bytes, 1, 1 << 16, fp);
	fclose(fp);
	{ /* a legacy pickle: the first bytes of torch.save(_use_new_zipfile_serialization=False) */
		static const unsigned char legacy[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc};
		fp = fopen(path, "wb");
		fwrite(legacy, 1, sizeof(legacy), fp);
		fclose(fp);
		refused(path, "legacy format");
	}
	{ /* an unknown opcode where the pickle starts (after PROTO 2) */
		unsigned char *pk = memmem(bytes, n, "\x80\x02", 2);
		assert_non_null(pk);
		pk[2] = 0xff;
		fp = fopen(path, "wb");
		fwrite(bytes, 1, n, fp);
		fclose(fp);
		refused(path, "pickle opcode 0xff");
	}
	unlink(path);
	free(bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protocol_2),
		cmocka_unit_test(test_protocol_4),
		cmocka_unit_test(test_damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
