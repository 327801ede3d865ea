/* Dotted-path access into the report model. */
#include "model_path.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *jv_get(json_t *root, const char *path)
{
	char key[128];

	while (root && path && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		if (json_is_object(root)) {
			root = json_object_get(root, key);
		} else if (json_is_array(root)) {
			char *end;
			unsigned long i = strtoul(key, &end, 10);
			root = (*key && !*end) ? json_array_get(root, i) : NULL;
		} else {
			return NULL;
		}
		path += n;
		if (*path == '.')
			path++;
	}
	return root;
}

const char *jv_text(json_t *v, char *buf, size_t size)
{
	if (json_is_string(v))
		return *json_string_value(v) ? json_string_value(v) : NULL;
	if (json_is_integer(v))
		snprintf(buf, size, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, size, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, size, "%s", json_is_true(v) ? "true" : "false");
	else
		return NULL;
	return buf;
}

const char *jv_str(json_t *root, const char *path, char *buf, size_t size)
{
	return jv_text(jv_get(root, path), buf, size);
}

int64_t jv_int(json_t *root, const char *path, int64_t dflt)
{
	json_t *v = jv_get(root, path);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

const char *jv_time(json_t *v, char *buf, size_t size)
{
	const char *s = json_string_value(v);
	if (!s || strlen(s) < 16)
		return s ? s : "";
	snprintf(buf, size, "%.10s %.5s", s, s + 11);
	return buf;
}

double jv_num(json_t *root, const char *path)
{
	json_t *v = jv_get(root, path);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *jv_string(json_t *root, const char *path)
{
	return json_string_value(jv_get(root, path));
}

/* path with its "*"s replaced by keys[0], keys[1], ... into out; 0, or -1
 * when it does not fit or there are more "*"s than keys. */
static int subst(char *out, size_t size, const char *path, const char *const *keys, size_t n)
{
	size_t len = 0, k = 0;

	for (const char *c = path; *c; c++) {
		const char *put = *c == '*' ? (k < n ? keys[k++] : NULL) : NULL;
		size_t add = put ? strlen(put) : 1;
		if (*c == '*' && !put)
			return -1;
		if (len + add >= size)
			return -1;
		memcpy(out + len, put ? put : c, add);
		len += add;
	}
	out[len] = '\0';
	return 0;
}

static json_t *get_keys(json_t *root, const char *path, const char *const *keys, size_t n)
{
	char full[256];

	return subst(full, sizeof(full), path, keys, n) < 0 ? NULL : jv_get(root, full);
}

json_t *jv_get_at(json_t *root, const char *path, size_t i)
{
	char a[24];
	const char *keys[] = {a};

	snprintf(a, sizeof(a), "%zu", i);
	return get_keys(root, path, keys, 1);
}

json_t *jv_get_at2(json_t *root, const char *path, size_t i, size_t k)
{
	char a[24], b[24];
	const char *keys[] = {a, b};

	snprintf(a, sizeof(a), "%zu", i);
	snprintf(b, sizeof(b), "%zu", k);
	return get_keys(root, path, keys, 2);
}

json_t *jv_get_key(json_t *root, const char *path, const char *key)
{
	return get_keys(root, path, &key, 1);
}

const char *jv_str_key(json_t *root, const char *path, const char *key, char *buf, size_t size)
{
	return jv_text(jv_get_key(root, path, key), buf, size);
}

const char *jv_string_key(json_t *root, const char *path, const char *key)
{
	return json_string_value(jv_get_key(root, path, key));
}

int64_t jv_int_key(json_t *root, const char *path, const char *key, int64_t dflt)
{
	json_t *v = jv_get_key(root, path, key);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

double jv_num_key(json_t *root, const char *path, const char *key)
{
	json_t *v = jv_get_key(root, path, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *jv_string_at2(json_t *root, const char *path, size_t i, size_t k)
{
	return json_string_value(jv_get_at2(root, path, i, k));
}

const char *jv_string_at(json_t *root, const char *path, size_t i)
{
	return json_string_value(jv_get_at(root, path, i));
}

int64_t jv_int_at(json_t *root, const char *path, size_t i, int64_t dflt)
{
	json_t *v = jv_get_at(root, path, i);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

double jv_num_at(json_t *root, const char *path, size_t i)
{
	json_t *v = jv_get_at(root, path, i);
	return json_is_number(v) ? json_number_value(v) : NAN;
}
