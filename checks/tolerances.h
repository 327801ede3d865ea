/* Tolerance rules as the CLI and the wizard build them: the ones given
 * there, then trial.yaml's (tolerances.overrides by glob, then
 * tolerances.default), each named by where it came from so that the report
 * reads the same whoever recorded the check. */
#ifndef MT_TOLERANCES_H
#define MT_TOLERANCES_H

#include "compare.h"
#include "spec.h"

#define MT_CMP_MAX_RULES 128

typedef struct {
	mt_cmp_rule rules[MT_CMP_MAX_RULES];
	char *owned[2 * MT_CMP_MAX_RULES]; /* copies of the globs and sources */
	size_t n, nowned;
} mt_cmp_rules;

/* Appends a rule (glob NULL: every tensor; rtol or atol NaN: the dtype's
 * default), copying glob and source. MT_EUSAGE past MT_CMP_MAX_RULES. */
int mt_cmp_rules_add(mt_cmp_rules *r, const char *glob, double rtol, double atol,
		     const char *source);

/* Appends trial.yaml's rules: each tolerances.overrides entry ("trial.yaml
 * tolerances.overrides GLOB"), then tolerances.default. Sets *equal_nan
 * (may be NULL) when trial.yaml says tolerances.equal_nan. */
int mt_cmp_rules_add_spec(mt_cmp_rules *r, const mt_spec *spec, int *equal_nan);

/* Points o at the rules (valid while r lives). */
void mt_cmp_rules_apply(const mt_cmp_rules *r, mt_cmp_options *o);

void mt_cmp_rules_dispose(mt_cmp_rules *r);

#endif
