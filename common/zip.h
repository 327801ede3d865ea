/* The entries of a zip archive held in memory (a mapped file): what
 * torch.jit.save and torch.save write. Reads the central directory (zip64
 * included) and each entry's local header; never reads outside buf. */
#ifndef MT_ZIP_H
#define MT_ZIP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	const char *name; /* in buf, not NUL-terminated */
	size_t name_len;
	uint64_t offset; /* of the entry's data in buf */
	uint64_t size;   /* compressed size (= size when stored) */
	int method;      /* 0 stored, 8 deflated */
} mt_zip_entry;

/* *out (malloc'd, *n entries) on success; -1 with *why (static text:
 * "no end-of-central-directory record", ...) when buf is no readable zip. */
int mt_zip_list(const unsigned char *buf, uint64_t len, mt_zip_entry **out, size_t *n,
		const char **why);

/* The first entry whose name ends with `suffix`, or NULL. */
const mt_zip_entry *mt_zip_find_suffix(const mt_zip_entry *e, size_t n, const char *suffix);

#endif
