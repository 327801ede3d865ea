/* One way to run a journal statement: prepare, bind by a type string, step,
 * finalize, with sqlite's own words in the error. */
#include "journal_int.h"
#include "error.h"
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int mt_jstmt_error(mt_journal *j, const char *what)
{
	return mt_error_set(MT_EIO, "%s: %s: %s", j->path, what, sqlite3_errmsg(j->db));
}

int mt_jstmt_exec_sql(mt_journal *j, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(j->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int error = mt_error_set(MT_EIO, "%s: %s", j->path,
					 msg ? msg : sqlite3_errmsg(j->db));
		sqlite3_free(msg);
		return error;
	}
	return 0;
}

int mt_jstmt_begin(mt_journal *j)
{
	j->recorded = j->last_t = 0;
	j->last_uid[0] = '\0';
	return mt_jstmt_exec_sql(j, "BEGIN IMMEDIATE");
}

int mt_jstmt_finish(mt_journal *j, int error)
{
	int64_t recorded = j->recorded;

	j->recorded = 0;
	/* SET reads the row as it was: last_uid is compared to the old last */
	if (error == 0 && recorded)
		error = mt_jstmt_run(j, "counting events", "UPDATE event_count SET n = n + ?1,"
				     " last_uid = CASE WHEN ?2 > last_t OR (?2 = last_t AND ?3 >"
				     " last_uid) THEN ?3 ELSE last_uid END, last_t = max(last_t, ?2)",
				     "IIt", recorded, j->last_t, j->last_uid);
	if (error < 0) {
		sqlite3_exec(j->db, "ROLLBACK", NULL, NULL, NULL);
		return error;
	}
	return mt_jstmt_exec_sql(j, "COMMIT");
}

static void bind_text(sqlite3_stmt *st, int i, const char *s, int empty_is_null,
		      sqlite3_destructor_type copy)
{
	if (s && (*s || !empty_is_null))
		sqlite3_bind_text(st, i, s, -1, copy);
	else
		sqlite3_bind_null(st, i);
}

static void bind_int64_or_null(sqlite3_stmt *st, int i, int64_t v)
{
	if (v)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* Binds the arguments `types` describes (see journal_int.h). Text is
 * copied (SQLITE_TRANSIENT) unless the statement is stepped and reset
 * before the caller's strings can die (SQLITE_STATIC: mt_jstmt_run). */
static int bind_args_as(sqlite3_stmt *st, const char *types, va_list ap,
			sqlite3_destructor_type copy)
{
	for (int i = 1; *types; types++, i++) {
		int has;
		switch (*types) {
		case 'i': sqlite3_bind_int(st, i, va_arg(ap, int)); break;
		case 'I': sqlite3_bind_int64(st, i, va_arg(ap, int64_t)); break;
		case 'N': bind_int64_or_null(st, i, va_arg(ap, int64_t)); break;
		case 't': bind_text(st, i, va_arg(ap, const char *), 0, copy); break;
		case 'T': bind_text(st, i, va_arg(ap, const char *), 1, copy); break;
		case 'X':
			has = va_arg(ap, int);
			if (has)
				sqlite3_bind_int(st, i, va_arg(ap, int));
			else
				(void)va_arg(ap, int), sqlite3_bind_null(st, i);
			break;
		default:
			return mt_error_set(MT_ERROR, "journal: unknown argument type '%c'", *types);
		}
	}
	return 0;
}

static int bind_args(sqlite3_stmt *st, const char *types, va_list ap)
{
	return bind_args_as(st, types, ap, SQLITE_TRANSIENT);
}

static int prepare_v(mt_journal *j, sqlite3_stmt **out, const char *sql, const char *types,
		     va_list ap)
{
	int error;

	if (sqlite3_prepare_v2(j->db, sql, -1, out, NULL) != SQLITE_OK)
		return mt_jstmt_error(j, "prepare");
	if ((error = bind_args(*out, types, ap)) < 0) {
		sqlite3_finalize(*out);
		*out = NULL;
	}
	return error;
}

int mt_jstmt_prepare(mt_journal *j, sqlite3_stmt **out, const char *sql, const char *types, ...)
{
	va_list ap;
	int error;

	va_start(ap, types);
	error = prepare_v(j, out, sql, types, ap);
	va_end(ap);
	return error;
}

/* Steps st to its first row: 1 a row, 0 none, or the error naming what. */
static int step_first(mt_journal *j, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : mt_jstmt_error(j, what);
}

int mt_jstmt_first(mt_journal *j, sqlite3_stmt **out, const char *what, const char *sql,
		   const char *types, ...)
{
	va_list ap;
	int error;

	va_start(ap, types);
	error = prepare_v(j, out, sql, types, ap);
	va_end(ap);
	return error < 0 ? error : step_first(j, *out, what);
}

static int run_once(mt_journal *j, const char *what, const char *sql, const char *types,
		    va_list ap)
{
	sqlite3_stmt *st = NULL;
	int error = prepare_v(j, &st, sql, types, ap);

	if (error == 0 && sqlite3_step(st) != SQLITE_DONE)
		error = mt_jstmt_error(j, what);
	sqlite3_finalize(st);
	return error;
}

/* The kept statement of `sql`, prepared on first use; NULL when the cache
 * is full (the caller prepares one of its own). */
static sqlite3_stmt *cached(mt_journal *j, const char *sql)
{
	sqlite3_stmt *st = NULL;

	/* most callers give a literal: its address finds it, the text checked
	 * once (a buffer of the caller's may hold another text each call) */
	for (size_t i = 0; i < j->ncache; i++)
		if (j->cache[i].given == sql && strcmp(j->cache[i].sql, sql) == 0)
			return j->cache[i].st;
	for (size_t i = 0; i < j->ncache; i++)
		if (strcmp(j->cache[i].sql, sql) == 0)
			return j->cache[i].st;
	if (j->ncache == MT_JSTMT_CACHE ||
	    sqlite3_prepare_v3(j->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	j->cache[j->ncache].sql = mt_strdup(sql);
	j->cache[j->ncache].given = sql;
	j->cache[j->ncache++].st = st;
	return st;
}

void mt_jstmt_cache_free(mt_journal *j)
{
	for (size_t i = 0; i < j->ncache; i++) {
		sqlite3_finalize(j->cache[i].st);
		free(j->cache[i].sql);
	}
	j->ncache = 0;
}

static int run_v(mt_journal *j, const char *what, const char *sql, const char *types, va_list ap)
{
	sqlite3_stmt *st = cached(j, sql);
	int error;

	if (!st)
		return run_once(j, what, sql, types, ap);
	error = bind_args_as(st, types, ap, SQLITE_STATIC); /* reset below */
	if (error == 0 && sqlite3_step(st) != SQLITE_DONE)
		error = mt_jstmt_error(j, what);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return error;
}

int mt_jstmt_first_kept(mt_journal *j, sqlite3_stmt **out, const char *what, const char *sql,
			const char *types, ...)
{
	va_list ap;
	int error;

	if (!(*out = cached(j, sql)))
		return mt_jstmt_error(j, what);
	va_start(ap, types);
	error = bind_args(*out, types, ap);
	va_end(ap);
	return error < 0 ? error : step_first(j, *out, what);
}

void mt_jstmt_release(sqlite3_stmt *st)
{
	if (st) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
}

int mt_jstmt_run(mt_journal *j, const char *what, const char *sql, const char *types, ...)
{
	va_list ap;
	int error;

	va_start(ap, types);
	error = run_v(j, what, sql, types, ap);
	va_end(ap);
	return error;
}

int mt_jstmt_write(mt_journal *j, int64_t *id_out, const char *what, const char *sql,
		   const char *types, ...)
{
	va_list ap;
	int error;

	if ((error = mt_jstmt_begin(j)) < 0)
		return error;
	va_start(ap, types);
	error = run_v(j, what, sql, types, ap);
	va_end(ap);
	if (error == 0 && id_out)
		*id_out = sqlite3_last_insert_rowid(j->db);
	return mt_jstmt_finish(j, error);
}

json_t *mt_jstmt_rows_json(mt_journal *j, mt_jstmt_row_fn row, const char *what, const char *sql,
			   const char *types, ...)
{
	sqlite3_stmt *st = NULL;
	json_t *arr = NULL, *r;
	va_list ap;
	int rc;

	va_start(ap, types);
	rc = prepare_v(j, &st, sql, types, ap);
	va_end(ap);
	if (rc < 0)
		return NULL;
	arr = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((r = row(j, st)))
			json_array_append_new(arr, r);
	if (rc != SQLITE_DONE) {
		mt_jstmt_error(j, what);
		json_decref(arr);
		arr = NULL;
	}
	sqlite3_finalize(st);
	return arr;
}

char *mt_jstmt_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? mt_strdup((const char *)s) : NULL;
}

int mt_jstmt_col_json(mt_journal *j, sqlite3_stmt *st, int i, const char *what, json_t **out)
{
	json_error_t jerr;

	if (!(*out = json_loads((const char *)sqlite3_column_text(st, i), 0, &jerr)))
		return mt_error_set(MT_EINVALID, "%s: stored %s is not JSON: %s", j->path, what,
				    jerr.text);
	return 0;
}
