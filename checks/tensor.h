/* Tensors read from files for numeric comparison: a dtype, a shape and the
 * bytes, mapped or owned by the file they came from. */
#ifndef MT_TENSOR_H
#define MT_TENSOR_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
	MT_DT_BOOL,
	MT_DT_U8,
	MT_DT_I8,
	MT_DT_I16,
	MT_DT_I32,
	MT_DT_I64,
	MT_DT_U16,
	MT_DT_U32,
	MT_DT_U64,
	MT_DT_F16,
	MT_DT_BF16,
	MT_DT_F32,
	MT_DT_F64,
	MT_DT_COUNT
} mt_dtype;

#define MT_TENSOR_MAX_DIMS 16

typedef struct {
	const char *name; /* owned by the file */
	mt_dtype dtype;
	int ndim;
	int64_t shape[MT_TENSOR_MAX_DIMS];
	uint64_t numel;
	const void *data; /* numel elements, little-endian, contiguous, row-major */
	uint64_t nbytes;
} mt_tensor;

/* Bytes per element (bool 1). */
size_t mt_dtype_size(mt_dtype t);

/* The name torch gives it ("float32", "bfloat16", "bool"). Static. */
const char *mt_dtype_name(mt_dtype t);

/* The safetensors code ("F32", "BF16", "BOOL"). Static. */
const char *mt_dtype_code(mt_dtype t);

/* The dtype of a torch name, or of a safetensors code ("F32", "BF16",
 * "BOOL"); -1 when neither. */
int mt_dtype_parse(const char *s);

/* 1 for f16, bf16, f32, f64. */
int mt_dtype_is_float(mt_dtype t);

/* Element i of data as a double (exact for every dtype but u64/i64 beyond
 * 2^53). */
double mt_tensor_get(mt_dtype t, const void *data, uint64_t i);

/* Converts n elements to double into out (the comparison's inner loop). */
void mt_tensor_to_double(mt_dtype t, const void *data, uint64_t first, size_t n, double *out);

#endif
