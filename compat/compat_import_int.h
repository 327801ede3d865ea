/* Private to compat_import: what compat_import.c (the API, the conversion,
 * the files) shares with its readers compat_md.c, compat_rst.c and
 * compat_analyze.c. Each reader turns a source into entries and says in an
 * identity what the table is; compat_import.c writes them out as
 * mtrial-compat/1 YAML. */
#ifndef MT_COMPAT_IMPORT_INT_H
#define MT_COMPAT_IMPORT_INT_H

#include "compat_import.h"
#include "util.h"

#include <stddef.h>

/* realloc that aborts when out of memory, as mt_strdup and the arena do. */
void *mt_compat__xrealloc(void *p, size_t n);

/* A growable array of owned strings. */
typedef struct {
	char **v;
	size_t n;
} strv;

/* Appends a copy of text. */
void mt_compat__strv_push(strv *s, const char *text);
/* 1 when s holds text, else 0. */
int mt_compat__strv_has(const strv *s, const char *text);
/* Frees the strings and empties s. */
void mt_compat__strv_dispose(strv *s);

/* s without leading blanks and trailing blanks or CR; cuts s in place. */
char *mt_compat__trim(char *s);

/* One entry of the table being built: an aten op, or (api set) a public
 * API written under apis:. */
struct entry {
	char *op;         /* "aten::add", or the API "torch.Tensor.abs" */
	int status;       /* mt_compat_status */
	int api;          /* 1: an API entry */
	int kind;         /* API entries: mt_compat_api_kind */
	strv conds, dtypes, hlo;
	strv names;       /* API entries: the aten ops they name */
	strv fallback;    /* a cpu_fallback's dtypes (dtypes.fallback) */
	mt_buf notes;
	unsigned line;    /* in the source; 0 for JSON */
	long count, nfail; /* analyze: compiled and failed occurrences */
};

struct entries {
	struct entry *v;
	size_t n;
};

/* The entry of op, or NULL; borrowed until the next entry_add. */
struct entry *mt_compat__entry_find(struct entries *e, const char *op);
/* Appends an entry for op; borrowed until the next entry_add. */
struct entry *mt_compat__entry_add(struct entries *e, const char *op, int status,
				   unsigned line);
/* Appends text (when not empty) to the entry's notes, "; " between. */
void mt_compat__note_add(struct entry *x, const char *text);

/* The identity the formats decide: kind, device, version and the note. */
struct identity {
	const char *kind, *device, *version;
	mt_buf note;
};

/* A text's lines. */
struct lines {
	char **v; /* mutable copies, no line ending */
	size_t n;
};

/* Splits text[0..len) into *l (no byte-order mark, no CR before LF). */
void mt_compat__lines_split(struct lines *l, const char *text, size_t len);
void mt_compat__lines_dispose(struct lines *l);

/* Lowercase ASCII, no emphasis, backticks or U+FE0F, '_' and '-' as spaces,
 * single spaces, no trailing '?', ':' or '.'. */
void mt_compat__norm(char *dst, size_t size, const char *s);
/* Copies an op name out of a cell (aten:: added when there is no
 * namespace); 0, or -1 when it is not namespace::name[.overload]. */
int mt_compat__op_name(char *out, size_t size, const char *cell);
/* A name out of a cell: no backticks, emphasis, link target, escapes or
 * call signature ("`abs(input)`" -> "abs"). */
void mt_compat__clean_name(char *out, size_t size, const char *cell);
/* "|---|:--:|": the line under a Markdown table's header. */
int mt_compat__md_is_delimiter(const char *line);

/* The words of cells and limitations texts (compat_words.c), as the
 * Markdown reader takes them. */
#define ST_SKIP 100 /* a mapped word that leaves the row out */
#define IDENT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* Column mapping (mt_compat_import_map): header per role, extra status words. */
enum role { R_OP, R_STATUS, R_DTYPES, R_FALLBACK, R_NOTES, R_N };
extern const char *const mt_compat__role_names[]; /* by role, NULL-ended */

struct mt_compat_import_map {
	char *columns[R_N]; /* normalised header, or NULL */
	struct word *words; /* normalised word -> status or ST_SKIP */
	size_t nwords;
};
/* A status cell: the whole cell, else its words before "(", ",", ";", ":"
 * or " - ", else its first word or symbol ("✅ Supported"). What follows the
 * status goes to *rest (caller frees) unless it only says it again. */
int mt_compat__status_cell(const mt_compat_import_map *map, const char *cell, char **rest);
/* A fallback cell: 1 yes, 0 no or empty, -1 neither. */
int mt_compat__fallback_cell(const char *cell);
/* A dtypes cell: how many dtypes it names, all in *out; 0 (and *out empty)
 * when a word is not a dtype, so that the caller keeps the text as a note. */
int mt_compat__dtype_list(strv *out, const char *cell);
/* The dtypes prose names, into *out (none when it names them by exception). */
void mt_compat__dtypes_in(strv *out, const char *text);
/* The operators prose names ("falls back to aten::cumsum"), into *out. */
void mt_compat__ops_in(strv *out, const char *text);
/* The kind of API a limitations text names (Native, Host-only, Needs a
 * process group), or 0; *only: the text says nothing else. */
int mt_compat__kind_in(const char *text, int *only);

/* The readers: each adds the ops of text[0..len) to *e and fills *id (the
 * note, and what the format decides); 0, or MT_EINVALID naming o->origin.
 * o->origin is set. */
int mt_compat__from_markdown(struct entries *e, struct identity *id, mt_compat_import_info *info,
			     const char *text, size_t len, const mt_compat_import_convert_options *o);
int mt_compat__from_rst(struct entries *e, struct identity *id, const char *text, size_t len,
			const mt_compat_import_convert_options *o);
/* *version (caller frees): torch-neuronx's version as the output names it,
 * or left NULL. */
int mt_compat__from_analyze(struct entries *e, struct identity *id, const char *text,
			    size_t len, const mt_compat_import_convert_options *o, char **version);

#endif
