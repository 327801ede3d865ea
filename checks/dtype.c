/* Element types: sizes, names and conversion to double. */
#include "tensor.h"

#include <string.h>

static const struct {
	const char *name, *code;
	size_t size;
} dtypes[MT_DT_COUNT] = {
	[MT_DT_BOOL] = {"bool", "BOOL", 1},	   [MT_DT_U8] = {"uint8", "U8", 1},
	[MT_DT_I8] = {"int8", "I8", 1},		   [MT_DT_I16] = {"int16", "I16", 2},
	[MT_DT_I32] = {"int32", "I32", 4},	   [MT_DT_I64] = {"int64", "I64", 8},
	[MT_DT_U16] = {"uint16", "U16", 2},	   [MT_DT_U32] = {"uint32", "U32", 4},
	[MT_DT_U64] = {"uint64", "U64", 8},	   [MT_DT_F16] = {"float16", "F16", 2},
	[MT_DT_BF16] = {"bfloat16", "BF16", 2}, [MT_DT_F32] = {"float32", "F32", 4},
	[MT_DT_F64] = {"float64", "F64", 8},
};

size_t mt_dtype_size(mt_dtype t)
{
	return (unsigned)t < MT_DT_COUNT ? dtypes[t].size : 0;
}

const char *mt_dtype_name(mt_dtype t)
{
	return (unsigned)t < MT_DT_COUNT ? dtypes[t].name : "unknown";
}

const char *mt_dtype_code(mt_dtype t)
{
	return (unsigned)t < MT_DT_COUNT ? dtypes[t].code : "?";
}

int mt_dtype_parse(const char *s)
{
	for (int i = 0; s && i < MT_DT_COUNT; i++)
		if (strcmp(s, dtypes[i].name) == 0 || strcmp(s, dtypes[i].code) == 0)
			return i;
	return -1;
}

int mt_dtype_is_float(mt_dtype t)
{
	return t == MT_DT_F16 || t == MT_DT_BF16 || t == MT_DT_F32 || t == MT_DT_F64;
}

/* IEEE half to float, subnormals, infinities and NaN included. */
static float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
	float f;

	if (exp == 0x1f) {
		bits = sign | 0x7f800000u | (mant << 13);
	} else if (exp != 0) {
		bits = sign | ((exp + 112) << 23) | (mant << 13);
	} else if (mant == 0) {
		bits = sign;
	} else { /* subnormal: normalise */
		exp = 113;
		while (!(mant & 0x400)) {
			mant <<= 1;
			exp--;
		}
		bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
	}
	memcpy(&f, &bits, sizeof(f));
	return f;
}

static float bf16_to_float(uint16_t b)
{
	uint32_t bits = (uint32_t)b << 16;
	float f;
	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* Unaligned loads: a mapped file's tensors need not be aligned. */
#define DEFINE_LOAD(name, type)                                                    \
	static type name(const void *p, uint64_t i)                                \
	{                                                                          \
		type v;                                                            \
		memcpy(&v, (const char *)p + i * sizeof(type), sizeof(type));      \
		return v;                                                          \
	}
DEFINE_LOAD(load_u8, uint8_t)
DEFINE_LOAD(load_i8, int8_t)
DEFINE_LOAD(load_i16, int16_t)
DEFINE_LOAD(load_i32, int32_t)
DEFINE_LOAD(load_i64, int64_t)
DEFINE_LOAD(load_u16, uint16_t)
DEFINE_LOAD(load_u32, uint32_t)
DEFINE_LOAD(load_u64, uint64_t)
DEFINE_LOAD(load_f32, float)
DEFINE_LOAD(load_f64, double)

double mt_tensor_get(mt_dtype t, const void *data, uint64_t i)
{
	switch (t) {
	case MT_DT_BOOL: return load_u8(data, i) != 0;
	case MT_DT_U8: return load_u8(data, i);
	case MT_DT_I8: return load_i8(data, i);
	case MT_DT_I16: return load_i16(data, i);
	case MT_DT_I32: return load_i32(data, i);
	case MT_DT_I64: return (double)load_i64(data, i);
	case MT_DT_U16: return load_u16(data, i);
	case MT_DT_U32: return load_u32(data, i);
	case MT_DT_U64: return (double)load_u64(data, i);
	case MT_DT_F16: return half_to_float(load_u16(data, i));
	case MT_DT_BF16: return bf16_to_float(load_u16(data, i));
	case MT_DT_F32: return load_f32(data, i);
	case MT_DT_F64: return load_f64(data, i);
	default: return 0;
	}
}

void mt_tensor_to_double(mt_dtype t, const void *data, uint64_t first, size_t n, double *out)
{
	size_t k;
	switch (t) {
	case MT_DT_F32: {
		/* two at a time through GCC/clang vector types: cvtps2pd on x86 */
		typedef float v2f __attribute__((vector_size(8)));
		typedef double v2d __attribute__((vector_size(16)));
		const char *p = (const char *)data + first * sizeof(float);
		for (k = 0; k + 2 <= n; k += 2) {
			v2f f;
			v2d d;
			memcpy(&f, p + k * sizeof(float), sizeof(f));
			d = __builtin_convertvector(f, v2d);
			memcpy(out + k, &d, sizeof(d));
		}
		for (; k < n; k++)
			out[k] = load_f32(data, first + k);
		break;
	}
	case MT_DT_F64:
		memcpy(out, (const char *)data + first * sizeof(double), n * sizeof(double));
		break;
	default:
		for (k = 0; k < n; k++)
			out[k] = mt_tensor_get(t, data, first + k);
	}
}
