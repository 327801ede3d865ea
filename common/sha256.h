/* SHA-256, for digests of fetched tables and recorded inventories. */
#ifndef MT_SHA256_H
#define MT_SHA256_H

#include <stddef.h>

/* SHA-256 (FIPS 180-4) of data as 64 lowercase hex digits and a NUL. */
int mt_sha256_hex(char out[65], const void *data, size_t len);

/* The same, never with the CPU's SHA instructions (which mt_sha256_hex
 * uses where there are some): for tests to compare the two. */
int mt_sha256_hex_portable(char out[65], const void *data, size_t len);

#endif
