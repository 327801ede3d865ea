/* The scan cache: per-file results keyed by blob id, and whole results keyed
 * by tree id, in one SQLite file shared by every trial on the machine
 * ($XDG_CACHE_HOME/mtrial/scan.db, else ~/.cache/mtrial/scan.db). Keys
 * include a version string that changes with mtrial and its tables, so an
 * upgrade never serves stale results. A cache that cannot be opened or
 * written is not an error for the scan: it only makes it slower. */
#ifndef MT_SCANCACHE_H
#define MT_SCANCACHE_H

#include <stddef.h>

typedef struct mt_scancache mt_scancache;

/* Opens (creating) the cache file; `path` NULL for the default location. */
int mt_scancache_open(mt_scancache **out, const char *path, const char *version);
void mt_scancache_free(mt_scancache *c);

/* The default cache path; caller frees. */
char *mt_scancache_default_path(void);

/* Looks up `key` in table "blob" or "tree"; *value (caller frees) is NULL on
 * a miss. */
int mt_scancache_get(mt_scancache *c, const char *table, const char *key, char **value,
		     size_t *len);

/* Batched writes: begin, put..., commit. */
int mt_scancache_begin(mt_scancache *c);
int mt_scancache_put(mt_scancache *c, const char *table, const char *key, const char *value,
		     size_t len);
int mt_scancache_commit(mt_scancache *c);

/* A whole tree's result (megabytes) is kept as a file beside the cache,
 * DIR/trees/SHA256(version, key), ending in a trailer with its CRC-32, and
 * read back mapped: a rescan then writes it out without copying it (out
 * of SQLite's overflow pages it was a third of a warm rescan). */
typedef struct {
	const char *p;
	size_t n;
} mt_scancache_piece;

/* Writes the pieces, in order, as the value of `key` (temp file, then
 * renamed: a reader sees the whole value or none). */
int mt_scancache_put_file(mt_scancache *c, const char *key, const mt_scancache_piece *pieces,
			  size_t npieces);

/* The value of `key` mapped read-only, not NUL-terminated: *value and
 * *len, and *map the mapping's length, for munmap. *value is NULL on a
 * miss, also when the file is not whole or its CRC differs. */
int mt_scancache_get_file(mt_scancache *c, const char *key, char **value, size_t *len,
			  size_t *map);

#endif
