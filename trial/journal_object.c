/* The journal's payloads kept as artefacts (trial/objects.h): an event
 * carries {"object", "bytes"} where version 1 carried the payload, and the
 * index keeps that reference, reading the artefact when asked. journal.db
 * stays small and a rebuild reads no artefact; an artefact that has not
 * arrived yet (a sync half done) or is damaged fails only what needs it,
 * named, never the record. */
#include "journal_int.h"
#include "error.h"
#include "objects.h"
#include "util.h"

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

/* The payloads that can be artefacts, as the index keeps them. */
static const char *const payloads[][3] = {
	{"scan", "scans", "result"},
	{"scan summary", "scans", "summary"},
	{"probe", "probes", "result"},
	{"inventory", "inventories", "result"},
};
#define N_PAYLOADS (sizeof(payloads) / sizeof(payloads[0]))

int mt_jobject_missing(mt_journal *j, mt_missing_artefact **out, size_t *n)
{
	mt_buf sql = MT_BUF_INIT;
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int error, rc;

	*out = NULL;
	*n = 0;
	/* a reference is a short object that starts so: an inline payload is
	 * told apart without parsing it */
	for (size_t i = 0; i < N_PAYLOADS; i++)
		mt_buf_printf(&sql, "SELECT %zu, uid, json_extract(%s, '$.object') FROM %s WHERE"
			      " substr(%s, 1, 18) = '{\"object\":\"sha256:' UNION ALL ", i,
			      payloads[i][2], payloads[i][1], payloads[i][2]);
	mt_buf_printf(&sql, "SELECT %zu, uid, log_object FROM runs WHERE log_object IS NOT NULL",
		      N_PAYLOADS);
	error = mt_jstmt_prepare(j, &st, mt_buf_cstr(&sql), "");
	while (error == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *ref = (const char *)sqlite3_column_text(st, 2);
		char *path = ref ? mt_object_path(mt_events_trial_dir(j->events), ref) : NULL;
		if (path && !mt_path_exists(path)) {
			if (*n == cap && !(*out = realloc(*out, (cap = cap ? cap * 2 : 8) * sizeof(**out))))
				abort();
			size_t k = (size_t)sqlite3_column_int(st, 0);
			(*out)[(*n)++] = (mt_missing_artefact){
				.ref = mt_strdup(ref), .uid = mt_jstmt_col_text(st, 1),
				.what = k < N_PAYLOADS ? payloads[k][0] : "run log"};
		}
		free(path);
	}
	if (error == 0 && rc != SQLITE_DONE)
		error = mt_jstmt_error(j, "reading the artefacts the record names");
	sqlite3_finalize(st);
	mt_buf_dispose(&sql);
	return error;
}
