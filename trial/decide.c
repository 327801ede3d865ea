#include "decide.h"
#include "error.h"

#include <string.h>

/* Not yet implemented: the API is committed first so that the report and
 * the wizard can be written against it. */
int mt_decide(json_t **out, mt_trial *t, int64_t now_ms)
{
	(void)t;
	(void)now_ms;
	*out = NULL;
	return mt_error_set(MT_EINVALID, "mtrial decide is not implemented yet");
}

json_t *mt_decide_evidence(mt_trial *t, int64_t now_ms)
{
	(void)t;
	(void)now_ms;
	mt_error_set(MT_EINVALID, "mtrial decide is not implemented yet");
	return NULL;
}

int mt_decide_from(json_t **out, const mt_spec *spec, json_t *evidence)
{
	(void)spec;
	(void)evidence;
	*out = NULL;
	return mt_error_set(MT_EINVALID, "mtrial decide is not implemented yet");
}

int mt_decide_is_go(const json_t *decision)
{
	const char *v = json_string_value(json_object_get(decision, "verdict"));
	return v && strcmp(v, MT_VERDICT_GO) == 0;
}
