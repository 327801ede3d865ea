#include "jsonutil.h"
#include "sanitize.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void mt_json_array_sort(json_t *arr, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(arr), i;
	json_t **items = malloc((n ? n : 1) * sizeof(*items));

	if (!items)
		return;
	for (i = 0; i < n; i++)
		items[i] = json_incref(json_array_get(arr, i));
	qsort(items, n, sizeof(*items), cmp);
	json_array_clear(arr);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, items[i]);
	free(items);
}

int mt_json_cmp_strings(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

json_t *mt_json_text(const char *s)
{
	mt_buf b = MT_BUF_INIT;
	json_t *v;
	size_t n;

	if (!s)
		return json_null();
	if ((v = json_string(s)))
		return v;
	n = strlen(s);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int len = mt_utf8_decode(s + i, n - i, &cp);
		if (len > 0)
			mt_buf_put(&b, s + i, (size_t)len);
		else
			mt_buf_puts(&b, "\xef\xbf\xbd"); /* U+FFFD */
		i += len > 0 ? (size_t)len : 1;
	}
	v = json_string(mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	return v;
}

const char *mt_json_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

double mt_json_num(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

json_int_t mt_json_int(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

json_t *mt_json_path(const json_t *o, const char *path)
{
	json_t *v = (json_t *)o;
	char key[64];

	while (v && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		v = json_object_get(v, key);
		path += n + (path[n] == '.');
	}
	return v;
}

const char *mt_json_str_at(const json_t *o, const char *path)
{
	return json_string_value(mt_json_path(o, path));
}
