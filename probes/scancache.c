#include "scancache.h"
#include "error.h"
#include "util.h"

#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct mt_scancache {
	sqlite3 *db;
	char *version;
	char *trees; /* the folder of the whole results kept as files */
	sqlite3_stmt *get[2], *put[2]; /* [0] blob, [1] tree */
	sqlite3_stmt *rowid; /* a tree value's row, for get_large() */
};

static int cache_error(mt_scancache *c, const char *what)
{
	return mt_error_set(MT_EIO, "scan cache: %s: %s", what, sqlite3_errmsg(c->db));
}

char *mt_scancache_default_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	mt_buf b = MT_BUF_INIT;

	if (xdg && *xdg)
		mt_buf_printf(&b, "%s/mtrial/scan.db", xdg);
	else
		mt_buf_printf(&b, "%s/.cache/mtrial/scan.db", home && *home ? home : "/tmp");
	return mt_buf_detach(&b);
}

static int prepare_all(mt_scancache *c)
{
	static const char *const tables[2] = {"blob", "tree"};
	char sql[160];

	if (sqlite3_prepare_v2(c->db, "SELECT rowid FROM tree WHERE key = ?1 AND version = ?2", -1,
			       &c->rowid, NULL) != SQLITE_OK)
		return cache_error(c, "prepare");

	for (int t = 0; t < 2; t++) {
		snprintf(sql, sizeof(sql), "SELECT value FROM %s WHERE key = ?1 AND version = ?2",
			 tables[t]);
		if (sqlite3_prepare_v2(c->db, sql, -1, &c->get[t], NULL) != SQLITE_OK)
			return cache_error(c, "prepare");
		snprintf(sql, sizeof(sql),
			 "INSERT OR REPLACE INTO %s (key, version, value) VALUES (?1, ?2, ?3)",
			 tables[t]);
		if (sqlite3_prepare_v2(c->db, sql, -1, &c->put[t], NULL) != SQLITE_OK)
			return cache_error(c, "prepare");
	}
	return 0;
}

int mt_scancache_open(mt_scancache **out, const char *path, const char *version)
{
	mt_scancache *c = calloc(1, sizeof(*c));
	char *def = path ? NULL : mt_scancache_default_path(), *dir = NULL, *slash;
	int error = 0;

	*out = NULL;
	if (!c)
		abort();
	c->version = mt_strdup(version);
	dir = mt_strdup(path ? path : def);
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if ((error = mt_mkdir_p(dir)) < 0)
			goto cleanup;
		c->trees = mt_path_join(dir, "trees");
	} else {
		c->trees = mt_strdup(slash ? "/trees" : "trees");
	}
	if (sqlite3_open(path ? path : def, &c->db) != SQLITE_OK) {
		error = cache_error(c, path ? path : def);
		goto cleanup;
	}
	sqlite3_busy_timeout(c->db, 10000);
	/* mapped: the megabytes of a whole result are read without a copy
	 * into SQLite's page cache first */
	if (sqlite3_exec(c->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;"
			 "PRAGMA mmap_size=268435456;"
			 "CREATE TABLE IF NOT EXISTS blob (key TEXT PRIMARY KEY, version TEXT,"
			 " value BLOB);"
			 "CREATE TABLE IF NOT EXISTS tree (key TEXT PRIMARY KEY, version TEXT,"
			 " value BLOB);",
			 NULL, NULL, NULL) != SQLITE_OK) {
		error = cache_error(c, "schema");
		goto cleanup;
	}
	if ((error = prepare_all(c)) < 0)
		goto cleanup;
	*out = c;
cleanup:
	free(def);
	free(dir);
	if (error < 0)
		mt_scancache_free(c);
	return error;
}

void mt_scancache_free(mt_scancache *c)
{
	if (!c)
		return;
	sqlite3_finalize(c->rowid);
	for (int t = 0; t < 2; t++) {
		sqlite3_finalize(c->get[t]);
		sqlite3_finalize(c->put[t]);
	}
	sqlite3_close(c->db);
	free(c->version);
	free(c->trees);
	free(c);
}

static int table_index(const char *table)
{
	return strcmp(table, "tree") == 0;
}

/* Maps the pages of a fresh buffer of n bytes in one call rather than one
 * fault each as the copy reaches them: on these virtual machines a page
 * fault costs more than copying the page. Only a hint. */
static void prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)p + page - 1) & ~(page - 1), to = ((uintptr_t)p + n) & ~(page - 1);

	if (to > from)
		madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
	(void)p, (void)n;
#endif
}

/* A whole result (megabytes) read through an incremental blob handle
 * straight into the caller's buffer: a plain SELECT has SQLite assemble the
 * value in a buffer of its own first, and the two fresh copies of a large
 * repository's 10 MB cost more than the rest of a rescan. */
static int get_large(mt_scancache *c, const char *key, char **value, size_t *len)
{
	sqlite3_blob *blob = NULL;
	sqlite3_int64 rowid;
	int rc, n, error = 0;

	sqlite3_bind_text(c->rowid, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->rowid, 2, c->version, -1, SQLITE_STATIC);
	rc = sqlite3_step(c->rowid);
	rowid = rc == SQLITE_ROW ? sqlite3_column_int64(c->rowid, 0) : 0;
	sqlite3_reset(c->rowid);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : cache_error(c, "read");
	if (sqlite3_blob_open(c->db, "main", "tree", "value", rowid, 0, &blob) != SQLITE_OK)
		return cache_error(c, "read");
	n = sqlite3_blob_bytes(blob);
	if (!(*value = malloc((size_t)n + 1)))
		abort();
	prefault(*value, (size_t)n + 1);
	if (sqlite3_blob_read(blob, *value, n, 0) != SQLITE_OK) {
		error = cache_error(c, "read");
		free(*value);
		*value = NULL;
	} else {
		(*value)[n] = '\0';
		if (len)
			*len = (size_t)n;
	}
	sqlite3_blob_close(blob);
	return error;
}

int mt_scancache_get(mt_scancache *c, const char *table, const char *key, char **value,
		     size_t *len)
{
	sqlite3_stmt *st = c->get[table_index(table)];
	int rc, error = 0;

	*value = NULL;
	if (table_index(table))
		return get_large(c, key, value, len);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->version, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		int n = sqlite3_column_bytes(st, 0);
		*value = malloc((size_t)n + 1);
		if (!*value)
			abort();
		memcpy(*value, sqlite3_column_blob(st, 0), (size_t)n);
		(*value)[n] = '\0';
		if (len)
			*len = (size_t)n;
	} else if (rc != SQLITE_DONE) {
		error = cache_error(c, "read");
	}
	sqlite3_reset(st);
	return error;
}

int mt_scancache_begin(mt_scancache *c)
{
	return sqlite3_exec(c->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? 0
									   : cache_error(c, "begin");
}

int mt_scancache_put(mt_scancache *c, const char *table, const char *key, const char *value,
		     size_t len)
{
	sqlite3_stmt *st = c->put[table_index(table)];
	int error = 0;

	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->version, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, value, (int)len, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		error = cache_error(c, "write");
	sqlite3_reset(st);
	return error;
}

int mt_scancache_commit(mt_scancache *c)
{
	return sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK
		       ? 0
		       : cache_error(c, "commit");
}

/* --- whole results as files ------------------------------------------------------ */

/* The trailer after a value: this magic, then the value's CRC-32 (little
 * endian). A file without it, or whose CRC differs, is not a value. */
#define TRAILER_MAGIC "MTB1"
#define TRAILER_LEN 8

/* DIR/trees/SHA256(version NUL key) into out. */
static void file_of(const mt_scancache *c, const char *key, char *out, size_t size)
{
	mt_buf b = MT_BUF_INIT;
	char hex[65];

	mt_buf_puts(&b, c->version);
	mt_buf_put(&b, "", 1);
	mt_buf_puts(&b, key);
	mt_sha256_hex(hex, b.ptr, b.len);
	mt_buf_dispose(&b);
	snprintf(out, size, "%s/%s", c->trees, hex);
}

int mt_scancache_put_file(mt_scancache *c, const char *key, const mt_scancache_piece *pieces,
			  size_t npieces)
{
	char path[4096], tmp[4200];
	unsigned char trailer[TRAILER_LEN];
	uint32_t crc = 0;
	int fd, ok;

	if (mt_mkdir_p(c->trees) < 0)
		return -1;
	file_of(c, key, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		return mt_error_set(MT_EIO, "scan cache: %s: %s", tmp, strerror(errno));
	ok = 1;
	for (size_t i = 0; ok && i < npieces; i++) {
		crc = libdeflate_crc32(crc, pieces[i].p, pieces[i].n);
		ok = mt_fd_write_all(fd, pieces[i].p, pieces[i].n) == 0;
	}
	memcpy(trailer, TRAILER_MAGIC, 4);
	for (int i = 0; i < 4; i++)
		trailer[4 + i] = (unsigned char)(crc >> (8 * i));
	ok = ok && mt_fd_write_all(fd, trailer, sizeof(trailer)) == 0;
	if (close(fd) < 0)
		ok = 0;
	if (!ok || rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		return mt_error_set(MT_EIO, "scan cache: %s: %s", path, strerror(e));
	}
	return 0;
}

int mt_scancache_get_file(mt_scancache *c, const char *key, char **value, size_t *len,
			  size_t *map)
{
	char path[4096];
	struct stat st;
	unsigned char *p;
	uint32_t crc = 0;
	size_t n;
	int fd;

	*value = NULL, *len = 0, *map = 0;
	file_of(c, key, path, sizeof(path));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : mt_error_set(MT_EIO, "scan cache: %s: %s", path,
							  strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < TRAILER_LEN) {
		close(fd);
		return 0;
	}
	/* populated in one call: a fault a page costs more than the write */
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 0;
	n = (size_t)st.st_size - TRAILER_LEN;
	for (int i = 0; i < 4; i++)
		crc |= (uint32_t)p[n + 4 + (size_t)i] << (8 * i);
	if (memcmp(p + n, TRAILER_MAGIC, 4) != 0 || libdeflate_crc32(0, p, n) != crc) {
		munmap(p, (size_t)st.st_size);
		return 0;
	}
	*value = (char *)p, *len = n, *map = (size_t)st.st_size;
	return 0;
}
