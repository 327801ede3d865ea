/* libFuzzer harness for the pack reader (git/gitpack.c): a hostile
 * repository's .idx and .pack must never make it read outside the files or
 * hand out more bytes than an object's size. The input is a 4-byte
 * little-endian length L, then L bytes of .idx, then the .pack; every id the
 * index lists (up to 256) is looked up and read, with and without a size
 * cap. Seeds from any small repository:
 *   p=$(ls REPO/.git/objects/pack/pack-*.pack); i=${p%.pack}.idx
 *   python3 -c 'import struct,sys; i=open(sys.argv[1],"rb").read(); \
 *     sys.stdout.buffer.write(struct.pack("<I",len(i))+i+open(sys.argv[2],"rb").read())' \
 *     "$i" "$p" > corpus/seed */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static int write_file(const char *name, const uint8_t *p, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/pack/%s", dir, name);
	if (!(f = fopen(path, "wb")))
		return -1;
	if (n && fwrite(p, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

static void cleanup(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/pack/x.idx", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/pack/x.pack", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/pack", dir);
	rmdir(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t idx_len;
	mt_gitpack *p;

	if (!dir[0]) {
		char path[128];
		snprintf(dir, sizeof(dir), "/tmp/fuzz_gitpack.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/pack", dir);
		mkdir(path, 0700);
		atexit(cleanup);
	}
	if (size < 4)
		return 0;
	memcpy(&idx_len, data, 4);
	if (idx_len > size - 4)
		return 0;
	if (write_file("x.idx", data + 4, idx_len) < 0 ||
	    write_file("x.pack", data + 4 + idx_len, size - 4 - idx_len) < 0)
		abort();
	if (!(p = mt_gitpack_open(dir)))
		return 0;
	/* the ids come from the index itself, where lookups start */
	size_t ids = idx_len >= 8 + 1024 ? (idx_len - 8 - 1024) / 20 : 0;
	for (size_t i = 0; i < ids && i < 256; i++) {
		const unsigned char *id = data + 4 + 8 + 1024 + i * 20;
		char *buf;
		size_t n;
		int type;
		if (mt_gitpack_has(p, id) != mt_gitpack_has(p, id))
			abort();
		if (mt_gitpack_read(p, id, &type, &buf, &n, UINT64_MAX) == 1 && buf) {
			volatile char last = n ? buf[n - 1] : 0; /* ASan checks the size */
			(void)last;
			mt_gitpack_release(p, buf);
		}
		if (mt_gitpack_read(p, id, &type, &buf, &n, 64) == 1 && buf) {
			if (n > 64)
				abort();
			free(buf);
		}
	}
	mt_gitpack_free(p);
	return 0;
}
