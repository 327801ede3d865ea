#include "scan_trial.h"
#include "error.h"
#include "spec.h"
#include "util.h"

#include <jansson.h>
#include <stdlib.h>

int mt_scan_trial_paths(char ***out, size_t *n, const mt_trial *t)
{
	json_t *spec = t && t->spec ? mt_spec_to_json(t->spec) : NULL;
	json_t *paths = json_object_get(json_object_get(spec, "scan"), "paths"), *p;
	size_t i;

	*out = NULL;
	*n = 0;
	if (json_array_size(paths) && !(*out = calloc(json_array_size(paths), sizeof(**out)))) {
		json_decref(spec);
		return mt_error_set(MT_EIO, "out of memory");
	}
	json_array_foreach(paths, i, p)
		if (json_is_string(p))
			(*out)[(*n)++] = mt_strdup(json_string_value(p));
	json_decref(spec);
	return 0;
}

void mt_scan_paths_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
