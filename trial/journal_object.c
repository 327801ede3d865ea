/* The journal's payloads kept as artefacts (trial/objects.h): an event
 * carries {"object", "bytes"} where version 1 carried the payload, and the
 * index keeps that reference, reading the artefact when asked. journal.db
 * stays small and a rebuild reads no artefact; an artefact that has not
 * arrived yet (a sync half done) or is damaged fails only what needs it,
 * named, never the record. */
#include "journal_int.h"
#include "error.h"
#include "objects.h"

#include <stdlib.h>
#include <string.h>

int mt_jobject_put_json(mt_journal *j, const json_t *v, int sorted, json_t **ref_out)
{
	char ref[MT_OBJECT_REF_LEN + 1];
	char *text = json_dumps(v, JSON_COMPACT | (sorted ? JSON_SORT_KEYS : 0));
	size_t len = text ? strlen(text) : 0;
	int error;

	*ref_out = NULL;
	if (!text)
		return mt_error_set(MT_ERROR, "%s: cannot encode a result to store", j->path);
	error = mt_object_put(mt_events_trial_dir(j->events), text, len, ref);
	if (error == 0)
		*ref_out = mt_object_ref_json(ref, len);
	free(text);
	return error;
}

int mt_jobject_col_json(mt_journal *j, sqlite3_stmt *st, int i, const char *uid,
			const char *what, json_t **out)
{
	const char *ref;
	char *text = NULL;
	size_t len;
	json_error_t jerr;
	int error = mt_jstmt_col_json(j, st, i, what, out);

	if (error < 0 || !mt_object_ref_of(*out, &ref, NULL))
		return error;
	error = mt_object_get(mt_events_trial_dir(j->events), ref, &text, &len);
	json_decref(*out);
	*out = NULL;
	if (error == 0 && !(*out = json_loadb(text, len, 0, &jerr)))
		error = mt_error_set(MT_EINVALID, "artefact %s is not JSON: %s", ref, jerr.text);
	if (error < 0)
		mt_error_prefix(error, "the %s of event %s: ", what, uid ? uid : "(none)");
	free(text);
	return error;
}
