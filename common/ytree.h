/* A YAML document as a tree of maps, lists and scalars that remember where
 * they were written, read with libyaml's event API. trial.yaml, the bundled
 * tables and environment.yml are all read through it; what the keys mean is
 * each caller's business.
 *
 * The reader takes plain data only. By default it refuses, as MT_EINVALID
 * "NAME:LINE:COL: what": aliases (always), anchors, tags, a key that is not a
 * scalar, a key twice, a NUL byte in a value ("\0"), more than one document,
 * and nesting deeper than MT_YTREE_MAX_DEPTH. libyaml's own failures carry
 * its words and position ("found unexpected end of stream (while scanning a
 * quoted scalar at 2:7)"); bad UTF-8 is reported at the line and column of
 * the byte. Flags relax some refusals for callers that always accepted
 * them. */
#ifndef MT_YTREE_H
#define MT_YTREE_H

#include <stddef.h>
#include <stdint.h>

/* Bounds the recursive reader's stack on hostile input ("[[[[[[..."): the
 * top node is at depth 0, and a node deeper than this is refused. */
#define MT_YTREE_MAX_DEPTH 64

enum mt_ynode_kind {
	MT_YNODE_NONE,   /* no value: an empty stream, or (MT_YTREE_PARTIAL) a
			    value the reader did not reach */
	MT_YNODE_SCALAR,
	MT_YNODE_MAP,
	MT_YNODE_LIST,
};

typedef struct mt_ynode {
	enum mt_ynode_kind kind;
	uint32_t line, col;         /* where the value starts, 1-based */
	char *key;                  /* a map member: its key; NULL otherwise */
	uint32_t key_line, key_col; /* where the key starts */
	char *text;                 /* scalars: the value, "" when empty */
	int plain;                  /* scalars: unquoted (not '...', "...", | or >),
				       so 8 may be an integer and ~ a null */
	int open;                   /* MT_YTREE_PARTIAL: the reader stopped
				       inside this map or list */
	struct mt_ynode **kids;     /* maps: members in file order; lists: items */
	size_t n;
	size_t cap;                 /* the reader's: room in kids */
} mt_ynode;

typedef struct mt_ytree mt_ytree;

/* Options for mt_ytree_parse; 0 is the strictest reading. */
enum {
	MT_YTREE_ANCHORS = 1 << 0,    /* accept &anchors (ignored; aliases stay refused) */
	MT_YTREE_TAGS = 1 << 1,       /* accept tags (ignored: !!int 8 is the text "8") */
	MT_YTREE_NUL = 1 << 2,        /* accept "\0" in a scalar: its text ends there */
	MT_YTREE_DUPLICATES = 1 << 3, /* accept a key twice; mt_ytree_get finds the first */
	MT_YTREE_NULL_EMPTY = 1 << 4, /* a plain ~, null, Null or NULL reads as "" */
	MT_YTREE_EMPTY_MAP = 1 << 5,  /* a stream with no document reads as an empty map
					 (else as a MT_YNODE_NONE root) */
	MT_YTREE_PARTIAL = 1 << 6,    /* on failure, *out still receives what was read */
};

/* What the reader refused, for a caller that words its messages its own
 * way (mt_error_last() always holds the reader's wording). */
enum mt_yfault_kind {
	MT_YFAULT_NONE,
	MT_YFAULT_MEMORY,    /* MT_EIO */
	MT_YFAULT_ENCODING,  /* libyaml's reader: bad UTF-8, a control character */
	MT_YFAULT_SYNTAX,    /* libyaml's scanner or parser */
	MT_YFAULT_ALIAS,
	MT_YFAULT_ANCHOR,
	MT_YFAULT_TAG,
	MT_YFAULT_KEY,       /* a key that is a list or a map */
	MT_YFAULT_DUPLICATE,
	MT_YFAULT_NUL,
	MT_YFAULT_DEPTH,
	MT_YFAULT_DOCUMENTS, /* a second document */
};

typedef struct {
	enum mt_yfault_kind kind;
	uint32_t line, col;  /* where, 1-based */
	const char *problem; /* ENCODING, SYNTAX: libyaml's words (static) */
	const char *context; /* SYNTAX: what libyaml was doing, or NULL (static) */
	size_t offset;       /* ENCODING: the offending byte's offset */
	int at_key;          /* the refused node is a map key */
	int too_deep;        /* the refused node is also deeper than the limit */
	char detail[1024];   /* ALIAS, ANCHOR: the name; TAG: the tag; DUPLICATE:
				the key (cut to fit) */
} mt_yfault;

/* Reads the single document in text[0..len) into *out (free with
 * mt_ytree_free). `name` prefixes every message ("<input>" when NULL);
 * `flags` are MT_YTREE_*. Returns 0, MT_EINVALID with mt_error_last() =
 * "name:LINE:COL: what", or MT_EIO when memory runs out. `fault` (may be NULL) receives the details
 * of a failure. Without MT_YTREE_PARTIAL *out is NULL after a failure; with
 * it, *out is the tree read up to the failure: every map and list the
 * reader was inside is marked open, and a member whose key was read but
 * not its value (or whose key was a list or map: key NULL) ends its map
 * with a MT_YNODE_NONE value. A caller that checks a file as it goes can
 * then report its own error when that comes first in the file. */
int mt_ytree_parse(mt_ytree **out, const char *text, size_t len, const char *name,
		   unsigned flags, mt_yfault *fault);

/* Reads one YAML document as the bundled tables (cuda_packages.yaml,
 * findings.yaml) and environment.yml have always been read: anchors, tags
 * and "\0" pass, an empty file is an empty map, and aliases, duplicate keys,
 * keys that are lists or maps and nesting beyond MT_YTREE_MAX_DEPTH are
 * refused, as MT_EINVALID "name:LINE:COL: what" (an encoding fault "name:
 * what at byte N") with libyaml's words, in the wording these files had
 * before this reader. Free with mt_ytree_free. */
int mt_ytree_parse_table(mt_ytree **out, const char *text, size_t len, const char *name);

/* Frees a tree and every node and string in it; NULL is fine. */
void mt_ytree_free(mt_ytree *tree);

/* The document's top node; never NULL. Borrowed: lives as long as tree. */
const mt_ynode *mt_ytree_root(const mt_ytree *tree);

/* The member `key` of a map, or NULL (also when map is NULL or not a map).
 * Borrowed. */
const mt_ynode *mt_ytree_get(const mt_ynode *map, const char *key);

/* The same for the key key[0..len), which need not end with a NUL. */
const mt_ynode *mt_ytree_getn(const mt_ynode *map, const char *key, size_t len);

/* 1 for YAML's null: a plain scalar "", ~, null, Null or NULL. A quoted
 * "null" is text. */
int mt_ytree_is_null(const mt_ynode *n);

#endif
