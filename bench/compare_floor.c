/* The floor for bench/compare: one pass computing max |a - b| over the
 * float32 data of two safetensors files holding one tensor each, mapped as
 * mtrial maps them. Single-threaded; -O2 lets GCC vectorise the loop.
 * Usage: bench_compare_floor A B; prints the maximum. */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const float *map_data(const char *path, size_t *n)
{
	struct stat st;
	uint64_t hlen;
	int fd = open(path, O_RDONLY);
	const unsigned char *p;

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	madvise((void *)p, (size_t)st.st_size, MADV_SEQUENTIAL);
	memcpy(&hlen, p, 8); /* little-endian hosts only: a benchmark */
	*n = ((size_t)st.st_size - 8 - hlen) / sizeof(float);
	return (const float *)(p + 8 + hlen);
}

int main(int argc, char **argv)
{
	size_t na, nb;
	const float *a, *b;
	float m = 0;

	if (argc != 3 || !(a = map_data(argv[1], &na)) || !(b = map_data(argv[2], &nb)) || na != nb)
		return fprintf(stderr, "usage: bench_compare_floor A B (same size)\n"), 2;
	for (size_t i = 0; i < na; i++) {
		float d = fabsf(a[i] - b[i]);
		m = d > m ? d : m;
	}
	printf("%g\n", m);
	return 0;
}
