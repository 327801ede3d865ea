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

json_t *jv_get_at(json_t *root, const char *path, size_t i)
{
	const char *star = strchr(path, '*');
	char full[256];

	if (!star)
		return jv_get(root, path);
	if (snprintf(full, sizeof(full), "%.*s%zu%s", (int)(star - path), path, i, star + 1) >=
	    (int)sizeof(full))
		return NULL;
	return jv_get(root, full);
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
