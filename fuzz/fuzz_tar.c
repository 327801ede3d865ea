/* libFuzzer harness for common/tar.c, the reader of bundles another team
 * sends (issue 20): the input is read as a gzip stream and as a plain tar
 * stream. Must not happen: a crash, a leak, a read outside the input; a
 * refusal without a message; an entry whose name the reader's own check
 * refuses ('..', absolute, control characters), whose data lies outside
 * the inflated stream, or whose name comes twice; a stream read that,
 * written again by mt_tar_add, does not read back to the same entries. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "tar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_entries(const mt_tar *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const mt_tar_entry *e = &t->entries[i];
		if (mt_tar_name_check(e->name) < 0 || e->data < t->raw ||
		    e->size > t->raw_len || (size_t)(e->data - t->raw) > t->raw_len - e->size)
			abort();
		for (size_t j = 0; j < i; j++)
			if (strcmp(t->entries[j].name, e->name) == 0)
				abort();
	}
}

/* Written again and read back: the same names and bytes, in order. */
static void round_trip(const mt_tar *t)
{
	mt_buf out = MT_BUF_INIT;
	unsigned char *gz = NULL;
	size_t gz_len = 0;
	mt_tar back;

	for (size_t i = 0; i < t->n; i++)
		if (mt_tar_add(&out, t->entries[i].name, t->entries[i].data, t->entries[i].size, 0) < 0)
			abort(); /* a name the reader took, the writer must take */
	if (mt_tar_finish_gz(&gz, &gz_len, &out) < 0 || mt_tar_read_gz(&back, gz, gz_len) < 0 ||
	    back.n != t->n)
		abort();
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(back.entries[i].name, t->entries[i].name) != 0 ||
		    back.entries[i].size != t->entries[i].size ||
		    memcmp(back.entries[i].data, t->entries[i].data, t->entries[i].size) != 0)
			abort();
	mt_tar_dispose(&back);
	mt_buf_dispose(&out);
	free(gz);
}

static void one(int gz, const uint8_t *data, size_t size)
{
	mt_tar t;
	int error = gz ? mt_tar_read_gz(&t, data, size) : mt_tar_read(&t, data, size);

	if (error < 0) {
		if (!*mt_error_last() || t.entries || t.raw)
			abort();
		return;
	}
	check_entries(&t);
	round_trip(&t);
	mt_tar_dispose(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(1, data, size);
	one(0, data, size);
	mt_error_clear();
	return 0;
}
