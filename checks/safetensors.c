/* safetensors headers, validated against the buffer they describe. */
#include "safetensors.h"

#include "error.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The dtype of a safetensors code, only codes (a torch name is not one). */
static int dtype_of_code(const char *code)
{
	for (int t = 0; t < MT_DT_COUNT; t++)
		if (strcmp(code, mt_dtype_code(t)) == 0)
			return t;
	return -1;
}

static int bad(const char *path, const char *name, const char *what)
{
	return mt_error_set(MT_EINVALID, "%s: tensor '%s': %s", path, name, what);
}

static int parse_shape(mt_tensor *t, json_t *shape, const char *path)
{
	json_t *d;
	size_t i;

	if (!json_is_array(shape))
		return bad(path, t->name, "shape is not a list");
	if (json_array_size(shape) > MT_TENSOR_MAX_DIMS)
		return mt_error_set(MT_EINVALID,
		                    "%s: tensor '%s': shape has %zu dimensions; mtrial "
		                    "reads at most %d",
		                    path, t->name, json_array_size(shape), MT_TENSOR_MAX_DIMS);
	t->ndim = (int)json_array_size(shape);
	t->numel = 1;
	json_array_foreach(shape, i, d)
	{
		if (!json_is_integer(d) || json_integer_value(d) < 0)
			return mt_error_set(MT_EINVALID,
			                    "%s: tensor '%s': shape[%zu] is not a "
			                    "non-negative integer",
			                    path, t->name, i);
		t->shape[i] = json_integer_value(d);
		if (__builtin_mul_overflow(t->numel, (uint64_t)t->shape[i], &t->numel))
			return bad(path, t->name, "shape has more elements than 2^64");
	}
	return 0;
}

/* Fills t from its header entry; [*begin, *end) are its offsets in the data
 * section of `data_len` bytes. */
static int parse_entry(mt_tensor *t, json_t *e, uint64_t data_len, uint64_t *begin, uint64_t *end,
                       const char *path)
{
	json_t *dt = json_object_get(e, "dtype"), *offs = json_object_get(e, "data_offsets");
	uint64_t need;
	int code, error;

	if (!json_is_object(e))
		return bad(path, t->name, "entry is not a JSON object");
	if (!json_is_string(dt))
		return bad(path, t->name, "dtype is missing or not a string");
	if ((code = dtype_of_code(json_string_value(dt))) < 0)
		return mt_error_set(MT_EINVALID,
		                    "%s: tensor '%s': unsupported dtype %s (mtrial "
		                    "reads BOOL, U8, I8, I16, I32, I64, U16, U32, U64, F16, BF16, "
		                    "F32, F64)",
		                    path, t->name, json_string_value(dt));
	t->dtype = (mt_dtype)code;
	if ((error = parse_shape(t, json_object_get(e, "shape"), path)) < 0)
		return error;
	if (!json_is_array(offs) || json_array_size(offs) != 2 ||
	    !json_is_integer(json_array_get(offs, 0)) ||
	    !json_is_integer(json_array_get(offs, 1)) ||
	    json_integer_value(json_array_get(offs, 0)) < 0 ||
	    json_integer_value(json_array_get(offs, 1)) < 0)
		return bad(path, t->name, "data_offsets is not a pair of non-negative integers");
	*begin = (uint64_t)json_integer_value(json_array_get(offs, 0));
	*end = (uint64_t)json_integer_value(json_array_get(offs, 1));
	if (*begin > *end || *end > data_len)
		return mt_error_set(MT_EINVALID,
		                    "%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64
		                    "] are not within the data section (%" PRIu64 " bytes)",
		                    path, t->name, *begin, *end, data_len);
	if (__builtin_mul_overflow(t->numel, (uint64_t)mt_dtype_size(t->dtype), &need) ||
	    need != *end - *begin)
		return mt_error_set(
		    MT_EINVALID,
		    "%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 "] hold %" PRIu64
		    " bytes, but %" PRIu64 " elements of %s need %" PRIu64,
		    path, t->name, *begin, *end, *end - *begin, t->numel, mt_dtype_code(t->dtype),
		    t->numel * (uint64_t)mt_dtype_size(t->dtype));
	t->nbytes = need;
	return 0;
}

struct span {
	uint64_t begin, end;
	const char *name;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->begin < y->begin   ? -1
	       : x->begin > y->begin ? 1
	       : x->end < y->end     ? -1
	                             : x->end > y->end;
}

/* Two tensors sharing bytes would make one's mismatch the other's. */
static int check_overlaps(struct span *s, size_t n, const char *path)
{
	const struct span *prev = NULL;

	qsort(s, n, sizeof(*s), cmp_span);
	for (size_t i = 0; i < n; i++) {
		if (s[i].begin == s[i].end)
			continue;
		if (prev && s[i].begin < prev->end)
			return mt_error_set(MT_EINVALID,
			                    "%s: tensor '%s': data_offsets overlap "
			                    "those of tensor '%s'",
			                    path, s[i].name, prev->name);
		prev = &s[i];
	}
	return 0;
}

static int cmp_tensor_name(const void *a, const void *b)
{
	return strcmp(((const mt_tensor *)a)->name, ((const mt_tensor *)b)->name);
}

/* The header as a JSON object, or an error saying why the buffer is not a
 * safetensors file. *data_off is where the data section starts. */
static int load_header(json_t **out, uint64_t *data_off, const unsigned char *buf, uint64_t size,
                       const char *path)
{
	json_error_t jerr;
	uint64_t n;

	if (size < 8)
		return mt_error_set(MT_EINVALID,
		                    "%s: not a safetensors file: %" PRIu64 " bytes, "
		                    "fewer than the 8 of the header length",
		                    path, size);
	n = le64(buf);
	if (n > size - 8)
		return mt_error_set(MT_EINVALID,
		                    "%s: not a safetensors file: header length %" PRIu64
		                    " runs past the end of the file (%" PRIu64 " bytes)",
		                    path, n, size);
	if (n == 0 || buf[8] != '{')
		return mt_error_set(MT_EINVALID,
		                    "%s: not a safetensors file: the header does not "
		                    "start with a JSON object",
		                    path);
	if (!(*out = json_loadb((const char *)buf + 8, n, JSON_REJECT_DUPLICATES, &jerr)))
		return mt_error_set(MT_EINVALID, "%s: header: invalid JSON at byte %d: %s", path,
		                    jerr.position + 8, jerr.text);
	if (!json_is_object(*out)) {
		json_decref(*out);
		return mt_error_set(MT_EINVALID, "%s: header: not a JSON object", path);
	}
	*data_off = 8 + n;
	return 0;
}

int mt_safetensors_parse(mt_tensor **out, size_t *count, const void *buf, uint64_t size,
                         const char *path)
{
	json_t *h = NULL, *e, *meta;
	const char *key;
	mt_tensor *ts = NULL;
	struct span *spans = NULL;
	uint64_t data_off = 0;
	size_t n = 0, cap;
	int error;

	*out = NULL;
	*count = 0;
	if ((error = load_header(&h, &data_off, buf, size, path)) < 0)
		return error;
	meta = json_object_get(h, "__metadata__");
	if (meta && !json_is_object(meta)) {
		error =
		    mt_error_set(MT_EINVALID, "%s: header: __metadata__ is not an object", path);
		goto cleanup;
	}
	cap = json_object_size(h);
	ts = calloc(cap ? cap : 1, sizeof(*ts));
	spans = calloc(cap ? cap : 1, sizeof(*spans));
	if (!ts || !spans) {
		error = mt_error_set(MT_EIO, "%s: out of memory", path);
		goto cleanup;
	}
	json_object_foreach(h, key, e)
	{
		if (strcmp(key, "__metadata__") == 0)
			continue;
		mt_tensor *t = &ts[n];
		t->name = strdup(key);
		n++;
		if ((error = parse_entry(t, e, size - data_off, &spans[n - 1].begin,
		                         &spans[n - 1].end, path)) < 0)
			goto cleanup;
		t->data = (const unsigned char *)buf + data_off + spans[n - 1].begin;
		spans[n - 1].name = t->name;
	}
	if ((error = check_overlaps(spans, n, path)) < 0)
		goto cleanup;
	qsort(ts, n, sizeof(*ts), cmp_tensor_name);
	*out = ts;
	*count = n;
	ts = NULL;
cleanup:
	mt_safetensors_free(ts, n);
	free(spans);
	json_decref(h);
	return error;
}

void mt_safetensors_free(mt_tensor *tensors, size_t count)
{
	if (!tensors)
		return;
	for (size_t i = 0; i < count; i++)
		free((char *)tensors[i].name);
	free(tensors);
}
