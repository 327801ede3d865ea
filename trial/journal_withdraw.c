/* Withdrawing a mistaken record, and the listings of withdrawn records
 * (who withdraws is the events' author, as every event names it). */
#include "journal_int.h"
#include "error.h"
#include "jsonutil.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What can be withdrawn: the kind's table, and a one-line description of a
 * row for the list of withdrawn entries (SQL over that table: constants,
 * never user text). */
static const struct withdrawable {
	const char *kind, *table, *what;
} withdrawables[] = {
	{"run", "runs", "system || ' run, ' || status || coalesce(', ' || label, '')"},
	{"check", "checks", "kind || ' check: ' || reference || ' vs ' || candidate"},
	{"override", "op_overrides", "op || ' ' || status || ': ' || note"},
	{"effort", "effort", "category || coalesce(' on ' || track, '') || coalesce(': ' || text, '')"},
	{"note", "notes", "text"},
};
#define N_WITHDRAWABLE (sizeof(withdrawables) / sizeof(withdrawables[0]))

const char *const mt_withdraw_kinds[] = {"run", "check", "override", "effort", "note", NULL};

static const struct withdrawable *withdrawable(const char *kind)
{
	for (size_t i = 0; kind && i < N_WITHDRAWABLE; i++)
		if (strcmp(withdrawables[i].kind, kind) == 0)
			return &withdrawables[i];
	return NULL;
}

json_t *mt_journal_withdrawal_of(mt_journal *j, const char *kind, int64_t id)
{
	sqlite3_stmt *st = NULL;
	json_t *out = NULL;
	char when[32];

	if (mt_jstmt_first(j, &st, "reading withdrawals", "SELECT who, why, created_ms FROM"
			   " withdrawals WHERE kind = ? AND item_id = ?", "tI", kind, id) == 1) {
		mt_time_iso(when, sizeof(when), sqlite3_column_int64(st, 2));
		out = json_pack("{ss, ss, ss}", "who", sqlite3_column_text(st, 0), "why",
				sqlite3_column_text(st, 1), "when", when);
	}
	sqlite3_finalize(st);
	return out ? out : json_null();
}

/* The row must exist, not be withdrawn yet, and (effort) not be running:
 * a running timer is stopped first, so that its end is on record. */
static int withdraw_check(mt_journal *j, const struct withdrawable *w, int64_t id)
{
	sqlite3_stmt *st = NULL;
	char sql[160];
	json_t *before;
	int error, rc;

	snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE id = ?",
		 strcmp(w->kind, "effort") == 0 ? "stopped_ms IS NULL" : "0", w->table);
	rc = mt_jstmt_first(j, &st, "reading the record", sql, "I", id);
	if (rc == 1 && sqlite3_column_int(st, 0))
		rc = mt_error_set(MT_ESTATE, "effort #%lld is the running timer: stop it "
				  "first (mtrial effort stop)", (long long)id);
	else if (rc == 0)
		rc = mt_error_set(MT_ENOTFOUND, "no %s #%lld", w->kind, (long long)id);
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	before = mt_journal_withdrawal_of(j, w->kind, id);
	error = 0;
	if (!json_is_null(before))
		error = mt_error_set(MT_EEXISTS, "%s #%lld was already withdrawn by %s on %s: %s",
				     w->kind, (long long)id,
				     json_string_value(json_object_get(before, "who")),
				     json_string_value(json_object_get(before, "when")),
				     json_string_value(json_object_get(before, "why")));
	json_decref(before);
	return error;
}

const char *mt_journal_author_name(mt_journal *j)
{
	const char *name, *email, *host;

	mt_events_author(j->events, &name, &email, &host);
	return name;
}

int mt_journal_withdraw(mt_journal *j, const char *kind, int64_t id, const char *who,
			const char *why, int64_t *id_out)
{
	const struct withdrawable *w = withdrawable(kind);
	char uid[MT_EVENT_ID_LEN + 1];
	int error;

	if (!w)
		return mt_journal_check_choice("kind", kind ? kind : "", mt_withdraw_kinds);
	if (!why || !*why)
		return mt_error_set(MT_EINVALID, "withdrawing needs a reason: why the %s is "
				    "mistaken", kind);
	if ((error = mt_jevent_begin(j)) < 0)
		return error;
	if (!who)
		who = mt_journal_author_name(j);
	if ((error = withdraw_check(j, w, id)) == 0)
		error = mt_jevent_uid_of(j, w->table, w->kind, id, uid);
	if (error == 0)
		error = mt_jevent_emit(j, "withdraw", mt_now_ms(),
				       json_pack("{ss, ss, ss, so}", "kind", w->kind, "item", uid,
						 "who", who && *who ? who : "unknown", "why",
						 mt_json_text(why)), id_out);
	return mt_jstmt_finish(j, error);
}

int mt_japply_withdraw(mt_journal *j, const mt_event *e, int64_t *rowid_out)
{
	const struct withdrawable *w = withdrawable(mt_json_str(e->data, "kind"));
	const char *why = mt_json_str(e->data, "why"), *who = mt_json_str(e->data, "who");
	int64_t id;
	int error;

	if (!w)
		return mt_journal_check_choice("kind", mt_json_str(e->data, "kind") ?: "",
					       mt_withdraw_kinds);
	if (!why || !*why)
		return mt_error_set(MT_EINVALID, "withdrawing needs a reason: why the %s is "
				    "mistaken", w->kind);
	if ((error = mt_japply_ref(j, w->table, w->kind, mt_json_str(e->data, "item"), &id)) < 0 ||
	    (error = withdraw_check(j, w, id)) < 0)
		return error;
	error = mt_jstmt_run(j, "recording the withdrawal", "INSERT INTO withdrawals (uid,"
			     " created_ms, kind, item_id, who, why) VALUES (?, ?, ?, ?, ?, ?)",
			     "tItItt", e->id, e->t, w->kind, id, who && *who ? who : "unknown", why);
	if (error == 0 && rowid_out)
		*rowid_out = sqlite3_last_insert_rowid(j->db);
	return error;
}

/* One withdrawal as JSON, with what the withdrawn row was. */
static json_t *withdrawal_row(mt_journal *j, sqlite3_stmt *st)
{
	const struct withdrawable *w = withdrawable((const char *)sqlite3_column_text(st, 2));
	sqlite3_stmt *what_st = NULL;
	char when[32], sql[256];
	json_t *what = NULL;

	snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE id = ?", w ? w->what : "''",
		 w ? w->table : "withdrawals");
	if (mt_jstmt_first(j, &what_st, "reading the record", sql, "I",
			   (int64_t)sqlite3_column_int64(st, 3)) == 1 &&
	    sqlite3_column_text(what_st, 0))
		what = json_string((const char *)sqlite3_column_text(what_st, 0));
	sqlite3_finalize(what_st);
	mt_time_iso(when, sizeof(when), sqlite3_column_int64(st, 1));
	return json_pack("{sI, ss, ss, sI, so, ss, ss}", "id",
			 (json_int_t)sqlite3_column_int64(st, 0), "when", when, "kind",
			 (const char *)sqlite3_column_text(st, 2), "item_id",
			 (json_int_t)sqlite3_column_int64(st, 3), "what", what ? what : json_null(),
			 "who", (const char *)sqlite3_column_text(st, 4), "why",
			 (const char *)sqlite3_column_text(st, 5));
}

json_t *mt_journal_withdrawals_json(mt_journal *j)
{
	return mt_jstmt_rows_json(j, withdrawal_row, "reading withdrawals", "SELECT id, created_ms,"
				  " kind, item_id, who, why FROM withdrawals ORDER BY id", "");
}

int mt_journal_withdrawn_count(mt_journal *j, const char *kind, size_t *out)
{
	json_t *all = mt_journal_withdrawals_json(j), *w;
	size_t i;

	*out = 0;
	if (!all)
		return mt_error_last_code();
	json_array_foreach(all, i, w) {
		const char *k = json_string_value(json_object_get(w, "kind"));
		*out += k && strcmp(k, kind) == 0;
	}
	json_decref(all);
	return 0;
}
