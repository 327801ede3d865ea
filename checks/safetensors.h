/* The safetensors format: an 8-byte little-endian header length, a JSON
 * header naming each tensor's dtype, shape and [begin, end) byte offsets in
 * the data section that follows, then the data. The header is checked
 * against the buffer before any tensor is handed out, so a reader never
 * reads past the end whatever the header claims. */
#ifndef MT_SAFETENSORS_H
#define MT_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "tensor.h"

/* Parses and validates the safetensors file held in buf[0..size) (usually
 * mapped). On success *out is an array of *count tensors sorted by name,
 * owned by the caller (mt_safetensors_free); their data and nbytes point into
 * buf, so buf must outlive them. `path` is used in messages only. Every
 * failure is MT_EINVALID with a message naming the path and the tensor or
 * field at fault ("x.safetensors: tensor 'w': data_offsets [0, 16] hold 16
 * bytes, shape [3] of float32 needs 12"). */
int mt_safetensors_parse(mt_tensor **out, size_t *count, const void *buf, uint64_t size,
                         const char *path);

/* Frees an array from mt_safetensors_parse() with its names. */
void mt_safetensors_free(mt_tensor *tensors, size_t count);

#endif
