/* Importing compatibility tables (docs/compat-tables.md) from the formats
 * vendors publish them in, and keeping imported tables up to date.
 *
 * Formats read:
 *  - Markdown tables: columns found by their headers (op, status, dtypes,
 *    fallback, notes) or named in a mapping file; every table in the file
 *    that has an op column and a status (or fallback) column is read.
 *  - RST operator lists: `| aten::add |` grid cells or `- aten::add` bullets,
 *    each a `device` op (the form of the Neuron "Supported Operators" page).
 *  - The JSON of torch_neuronx.analyze() and of `neuron_parallel_compile
 *    --command analyze` (result.json, nested by aten / xla): an `observed`
 *    table.
 *  - mtrial-compat/1 YAML (a table a team shares, `tables show NAME --format
 *    yaml`): validated and kept as it is written, its name set to the import's.
 *
 * Every importer produces the table as mtrial-compat/1 YAML text, which is
 * validated with mt_compat_parse() before anything is written. Imported
 * tables live in mt_compat_user_dir() as compat-NAME.yaml, each with a
 * sidecar NAME.origin.json saying where it came from (url or file, etag,
 * last_modified, sha256, imported_at, format, map file, backend, version) so
 * that an update can fetch it again conditionally. */
#ifndef MT_COMPAT_IMPORT_H
#define MT_COMPAT_IMPORT_H

#include <stddef.h>

typedef enum {
	MT_IMPORT_AUTO = 0,
	MT_IMPORT_MARKDOWN,
	MT_IMPORT_RST,
	MT_IMPORT_ANALYZE,
	MT_IMPORT_YAML, /* mtrial's own format: a team's curated table */
} mt_compat_import_format;

/* "auto", "markdown", "rst", "analyze", "yaml". Static. */
const char *mt_compat_import_format_str(mt_compat_import_format f);
/* The format named s, or -1. */
int mt_compat_import_format_parse(const char *s);

/* A column mapping for Markdown tables whose headers mtrial does not
 * recognise (YAML: columns {op, status, dtypes, fallback, notes: "Header"},
 * statuses {"word": device|cpu_fallback|unsupported|partial|unknown}, where
 * unknown leaves the row out). */
typedef struct mt_compat_import_map mt_compat_import_map;

/* Parses a mapping; MT_EINVALID "name:LINE:COL: what" on any error. */
int mt_compat_import_map_parse(mt_compat_import_map **out, const char *text, size_t len, const char *name);
int mt_compat_import_map_load(mt_compat_import_map **out, const char *path);
void mt_compat_import_map_free(mt_compat_import_map *m);

/* What a conversion needs besides the text. Borrowed for the call. */
typedef struct {
	const char *name;         /* the table's name: [a-z0-9][a-z0-9._-]* */
	mt_compat_import_format format;  /* AUTO: a `schema: mtrial-compat/1` line, then
				     the origin's extension, then the text */
	const mt_compat_import_map *map; /* Markdown only; NULL: headers are detected */
	const char *origin;       /* file path or URL, for messages and AUTO */
	const char *source;       /* source.url of the table: the URL, or
				     "file PATH (sha256 HEX)" */
	const char *backend;      /* NULL: torch-neuronx */
	const char *version;      /* NULL: from analyze output, else "unspecified" */
	const char *retrieved;    /* YYYY-MM-DD; NULL: today (UTC) */
} mt_compat_import_convert_options;

/* What a conversion found besides the table. Owned by the caller: release
 * the contents with mt_compat_import_info_dispose(). */
typedef struct {
	mt_compat_import_format format; /* the format read */
	size_t tables;           /* Markdown: op tables read */
	char *skipped;           /* Markdown: tables left out ("line 40: 'Name |
				    Description' (no op or status column)"; one a
				    line), or NULL */
} mt_compat_import_info;

void mt_compat_import_info_dispose(mt_compat_import_info *info);

/* Converts text[0..len) into a table in mtrial-compat/1 YAML (*yaml, caller
 * frees), already validated with mt_compat_parse(). *info (may be NULL) says
 * what was read. Errors are MT_EINVALID and name the origin and line:
 * "ops.md:12: status 'beta' of aten::add is not a known word (...)". */
int mt_compat_convert(char **yaml, mt_compat_import_info *info, const char *text, size_t len,
		      const mt_compat_import_convert_options *o);

/* A table name from a file name or URL ("docs/Torch API_compat.md" ->
 * "torch-api_compat"); caller frees. MT_EINVALID when nothing usable is left. */
int mt_compat_import_name_from(char **out, const char *file_or_url);

/* Options of an import (mtrial tables import). Borrowed for the call. */
typedef struct {
	const char *as;       /* the table's name; NULL: a YAML table's own name,
				 else mt_compat_import_name_from() */
	mt_compat_import_format format;
	const char *map_path; /* --map FILE, or NULL */
	const char *backend, *version; /* NULL: defaults (see above) */
	const char *sha256;   /* expected digest of the file or download, or NULL */
	long timeout_ms;      /* total download time; 0: mt_fetch's default */
} mt_compat_import_options;

/* What an import or update did. Owned by the caller: release the contents
 * with mt_compat_import_result_dispose(). */
typedef struct {
	char *name, *path;      /* the table and the file written (or kept) */
	char *source;           /* the URL, or the file read */
	const char *outcome;    /* "imported", "updated" or "unchanged" (static) */
	mt_compat_import_format format;
	int replaced;           /* an earlier import of that name was replaced */
	int shadows_bundled;    /* a bundled table of that name is now hidden */
	char *skipped;          /* Markdown tables left out (mt_compat_import_info), or NULL */
	size_t nops, counts[5]; /* ops, and ops by mt_compat_status */
	size_t napis, api_counts[5]; /* API entries, and those by mt_compat_status */
	char *unregistered;     /* ops libtorch's registry lacks, "aten::x (line N)"
				   one a line (a newer PyTorch's op, or a typo), or NULL;
				   aten entries and the ops API entries name */
	size_t nunregistered;
} mt_compat_import_result;

/* Reads a file, or downloads an https URL (plain http to loopback only)
 * with mt_fetch, converts it and writes the table and its sidecar atomically
 * to mt_compat_user_dir(). An earlier table of the same name is replaced
 * only after the new one validates. Errors: MT_EINVALID for bad input (the
 * file, the map, a wrong digest), MT_EIO for the network or the disk,
 * MT_ENOTFOUND for a missing file. */
int mt_compat_import(mt_compat_import_result *out, const char *file_or_url, const mt_compat_import_options *o);

/* Downloads an imported table again from its recorded URL (or `url`, which
 * then becomes its URL), with If-None-Match / If-Modified-Since from the
 * sidecar: 304, or a body with the digest already recorded, is "unchanged".
 * The body is converted as at import (format, map, backend, version). On any
 * failure the current table is kept and the message says so and why.
 * `sha256` (or NULL) is the expected digest of the new body. A name that was
 * never imported takes `url` as a new import. */
int mt_compat_update(mt_compat_import_result *out, const char *name, const char *url,
		     const char *sha256, long timeout_ms);

/* The names of the imported tables whose sidecar has a URL, sorted, as a
 * NULL-terminated array (caller frees each and the array). */
int mt_compat_updatable(char ***out);

void mt_compat_import_result_dispose(mt_compat_import_result *r);

#endif
