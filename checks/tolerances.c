#include "tolerances.h"
#include "error.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *own(mt_cmp_rules *r, const char *s)
{
	char *copy;
	if (!s)
		return NULL;
	copy = mt_strdup(s);
	r->owned[r->nowned++] = copy;
	return copy;
}

int mt_cmp_rules_add(mt_cmp_rules *r, const char *glob, double rtol, double atol,
		     const char *source)
{
	if (r->n >= MT_CMP_MAX_RULES)
		return mt_error_set(MT_EUSAGE, "more than %d tolerance rules", MT_CMP_MAX_RULES);
	r->rules[r->n].glob = own(r, glob);
	r->rules[r->n].source = own(r, source);
	r->rules[r->n].rtol = rtol;
	r->rules[r->n].atol = atol;
	r->n++;
	return 0;
}

/* trial.yaml's number at `path`, NaN when it gives none. */
static double spec_number(const mt_spec *spec, const char *path)
{
	const char *v = mt_spec_get(spec, path);
	return v ? strtod(v, NULL) : NAN;
}

int mt_cmp_rules_add_spec(mt_cmp_rules *r, const mt_spec *spec, int *equal_nan)
{
	char path[96], rt[96], at[96], source[512];
	const char *name, *v;
	int error = 0;

	if (!spec)
		return 0;
	for (size_t i = 0; error == 0 && i < mt_spec_count(spec, "tolerances.overrides"); i++) {
		snprintf(path, sizeof(path), "tolerances.overrides.%zu.name", i);
		snprintf(rt, sizeof(rt), "tolerances.overrides.%zu.rtol", i);
		snprintf(at, sizeof(at), "tolerances.overrides.%zu.atol", i);
		if (!(name = mt_spec_get(spec, path)))
			continue;
		snprintf(source, sizeof(source), "trial.yaml tolerances.overrides %s", name);
		error = mt_cmp_rules_add(r, name, spec_number(spec, rt), spec_number(spec, at), source);
	}
	if (error == 0 && (mt_spec_get(spec, "tolerances.default.rtol") ||
			   mt_spec_get(spec, "tolerances.default.atol")))
		error = mt_cmp_rules_add(r, NULL, spec_number(spec, "tolerances.default.rtol"),
					 spec_number(spec, "tolerances.default.atol"),
					 "trial.yaml tolerances.default");
	if (equal_nan && (v = mt_spec_get(spec, "tolerances.equal_nan")))
		*equal_nan = strcmp(v, "true") == 0;
	return error;
}

void mt_cmp_rules_apply(const mt_cmp_rules *r, mt_cmp_options *o)
{
	o->rules = r->rules;
	o->nrules = r->n;
}

void mt_cmp_rules_dispose(mt_cmp_rules *r)
{
	for (size_t i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	r->nowned = r->n = 0;
}
