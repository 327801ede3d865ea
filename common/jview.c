#include "jview.h"
#include "error.h"

#include <math.h>
#include <string.h>

void mt_jview_init(mt_jview *v, const json_t *obj, const char *shape)
{
	memset(v, 0, sizeof(*v));
	v->obj = json_is_object(obj) ? obj : NULL;
	v->shape = shape;
}

static const json_t *lookup(mt_jview *v, const char *key, int required)
{
	const json_t *x = v->obj ? json_object_get(v->obj, key) : NULL;

	if (!x && required && v->missing++ == 0)
		snprintf(v->first_missing, sizeof(v->first_missing), "%s", key);
	return x;
}

void mt_jview_sub(mt_jview *sub, mt_jview *v, const char *key)
{
	mt_jview_init(sub, lookup(v, key, 1), v->shape);
}

void mt_jview_close(mt_jview *sub, mt_jview *v)
{
	if (sub->missing && v->missing++ == 0)
		snprintf(v->first_missing, sizeof(v->first_missing), "%s", sub->first_missing);
	v->missing += sub->missing - (sub->missing > 0);
}

const char *mt_jview_str(mt_jview *v, const char *key)
{
	return json_string_value(lookup(v, key, 1));
}

double mt_jview_num(mt_jview *v, const char *key)
{
	const json_t *x = lookup(v, key, 1);
	return json_is_number(x) ? json_number_value(x) : NAN;
}

int64_t mt_jview_int(mt_jview *v, const char *key, int64_t none)
{
	const json_t *x = lookup(v, key, 1);
	return json_is_integer(x) ? (int64_t)json_integer_value(x) : none;
}

int mt_jview_bool(mt_jview *v, const char *key, int none)
{
	const json_t *x = lookup(v, key, 1);
	return json_is_boolean(x) ? json_is_true(x) : none;
}

const json_t *mt_jview_get(mt_jview *v, const char *key)
{
	const json_t *x = lookup(v, key, 1);
	return json_is_null(x) ? NULL : x;
}

const char *mt_jview_opt_str(mt_jview *v, const char *key)
{
	return json_string_value(lookup(v, key, 0));
}

double mt_jview_opt_num(mt_jview *v, const char *key)
{
	const json_t *x = lookup(v, key, 0);
	return json_is_number(x) ? json_number_value(x) : NAN;
}

int64_t mt_jview_opt_int(mt_jview *v, const char *key, int64_t none)
{
	const json_t *x = lookup(v, key, 0);
	return json_is_integer(x) ? (int64_t)json_integer_value(x) : none;
}

const json_t *mt_jview_opt_get(mt_jview *v, const char *key)
{
	const json_t *x = lookup(v, key, 0);
	return json_is_null(x) ? NULL : x;
}

int mt_jview_complete(const mt_jview *v)
{
	if (!v->missing)
		return 0;
	return mt_error_set(MT_EINVALID, "%s: key '%s' missing%s", v->shape ? v->shape : "record",
			    v->first_missing, v->missing > 1 ? " (and others)" : "");
}
