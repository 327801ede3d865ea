/* The Markdown reader of compat_import: every op table of a file, its
 * columns found by their headers or named in a mapping file (the
 * mt_import_map functions of compat_import.h), and the words of its cells:
 * op names, statuses, dtypes. */
#include "compat_import_int.h"
#include "compat.h"
#include "error.h"
#include "util.h"
#include "ytree.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_SKIP 100          /* a mapped word that leaves the row out */
#define IDENT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* --- words: op names, statuses, dtypes --------------------------------------- */

/* Lowercase ASCII, no emphasis, backticks or U+FE0F, '_' and '-' as spaces,
 * single spaces, no trailing '?', ':' or '.'. */
void mt_compat__norm(char *dst, size_t size, const char *s)
{
	size_t n = 0;
	for (; *s && n + 1 < size; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '*' || c == '`')
			continue;
		if (c == 0xef && (unsigned char)s[1] == 0xb8 && (unsigned char)s[2] == 0x8f) {
			s += 2; /* variation selector: "⚠️" is "⚠" */
			continue;
		}
		if (c == '_' || c == '-' || c == '\t')
			c = ' ';
		if (c == ' ' && (!n || dst[n - 1] == ' '))
			continue;
		dst[n++] = (char)tolower(c);
	}
	while (n && strchr(" ?:.", dst[n - 1]))
		n--;
	dst[n] = '\0';
}

struct word {
	const char *w;
	int status;
};

static const struct word known_words[] = {
	{"yes", MT_COMPAT_DEVICE}, {"y", MT_COMPAT_DEVICE}, {"supported", MT_COMPAT_DEVICE},
	{"true", MT_COMPAT_DEVICE}, {"full", MT_COMPAT_DEVICE},
	{"fully supported", MT_COMPAT_DEVICE}, {"native", MT_COMPAT_DEVICE},
	{"device", MT_COMPAT_DEVICE}, {"on device", MT_COMPAT_DEVICE},
	{"\u2705", MT_COMPAT_DEVICE}, {"\u2713", MT_COMPAT_DEVICE}, {"\u2714", MT_COMPAT_DEVICE},
	{"\u2611", MT_COMPAT_DEVICE}, {"\U0001F7E2", MT_COMPAT_DEVICE},
	{"no", MT_COMPAT_UNSUPPORTED}, {"n", MT_COMPAT_UNSUPPORTED},
	{"unsupported", MT_COMPAT_UNSUPPORTED}, {"not supported", MT_COMPAT_UNSUPPORTED},
	{"false", MT_COMPAT_UNSUPPORTED}, {"not implemented", MT_COMPAT_UNSUPPORTED},
	{"unimplemented", MT_COMPAT_UNSUPPORTED}, {"\u274C", MT_COMPAT_UNSUPPORTED},
	{"\u2717", MT_COMPAT_UNSUPPORTED}, {"\u2718", MT_COMPAT_UNSUPPORTED},
	{"\U0001F6AB", MT_COMPAT_UNSUPPORTED}, {"\u26D4", MT_COMPAT_UNSUPPORTED},
	{"\U0001F534", MT_COMPAT_UNSUPPORTED},
	{"partial", MT_COMPAT_PARTIAL}, {"partially", MT_COMPAT_PARTIAL},
	{"partially supported", MT_COMPAT_PARTIAL}, {"partial support", MT_COMPAT_PARTIAL},
	{"limited", MT_COMPAT_PARTIAL}, {"limited support", MT_COMPAT_PARTIAL},
	{"conditional", MT_COMPAT_PARTIAL}, {"\u26A0", MT_COMPAT_PARTIAL},
	{"\U0001F7E1", MT_COMPAT_PARTIAL}, {"\U0001F7E0", MT_COMPAT_PARTIAL},
	{"fallback", MT_COMPAT_CPU_FALLBACK}, {"cpu", MT_COMPAT_CPU_FALLBACK},
	{"cpu fallback", MT_COMPAT_CPU_FALLBACK}, {"fallback to cpu", MT_COMPAT_CPU_FALLBACK},
	{"falls back to cpu", MT_COMPAT_CPU_FALLBACK}, {"cpu only", MT_COMPAT_CPU_FALLBACK},
	{NULL, 0},
};

/* Column mapping (mt_import_map): header per role, extra status words. */
enum role { R_OP, R_STATUS, R_DTYPES, R_FALLBACK, R_NOTES, R_N };
static const char *const role_names[] = {"op", "status", "dtypes", "fallback", "notes", NULL};

struct mt_import_map {
	char *columns[R_N]; /* normalised header, or NULL */
	struct word *words; /* normalised word -> status or ST_SKIP */
	size_t nwords;
};

/* The status for a normalised word: the map's first, then the known ones;
 * -1 when neither knows it. */
static int status_word(const mt_import_map *map, const char *w)
{
	for (size_t i = 0; map && i < map->nwords; i++)
		if (strcmp(map->words[i].w, w) == 0)
			return map->words[i].status;
	for (const struct word *k = known_words; k->w; k++)
		if (strcmp(k->w, w) == 0)
			return k->status;
	return -1;
}

/* The status of a cell's first n bytes, or -1. */
static int status_head(const mt_import_map *map, const char *cell, size_t n)
{
	char head[256], w[256];

	if (!n || n >= sizeof(head))
		return -1;
	memcpy(head, cell, n);
	head[n] = '\0';
	mt_compat__norm(w, sizeof(w), head);
	return *w ? status_word(map, w) : -1;
}

/* A status cell: the whole cell, else its words before "(", ",", ";", ":"
 * or " - ", else its first word or symbol ("✅ Supported"). What follows the
 * status goes to *rest (caller frees) unless it only says it again. */
static int status_cell(const mt_import_map *map, const char *cell, char **rest)
{
	char w[256];
	const char *dash = strstr(cell, " - ");
	size_t n = strcspn(cell, "(,;:");
	int st;

	*rest = NULL;
	mt_compat__norm(w, sizeof(w), cell);
	if ((st = status_word(map, w)) >= 0)
		return st;
	if (dash && (size_t)(dash - cell) < n)
		n = (size_t)(dash - cell);
	if ((st = status_head(map, cell, n)) < 0 &&
	    (st = status_head(map, cell, n = strcspn(cell, " (,;:"))) < 0)
		return -1;
	cell += n;
	cell += strspn(cell, " -(,;:");
	*rest = mt_strdup(cell);
	n = strlen(*rest);
	if (n && (*rest)[n - 1] == ')' && !strchr(*rest, '(')) /* "Partial (fp32 only)" */
		(*rest)[n - 1] = '\0';
	mt_compat__norm(w, sizeof(w), *rest);
	if (status_word(map, w) == st) /* "✅ Supported" says it twice */
		**rest = '\0';
	return st;
}

/* A fallback cell: 1 yes, 0 no or empty, -1 neither. */
static int fallback_cell(const char *cell)
{
	static const char *const yes[] = {"yes", "y", "true", "\u2705", "\u2713", "\u2714",
					  "cpu", "fallback", "cpu fallback", "supported", NULL};
	static const char *const no[] = {"", "no", "n", "false", "none", "n/a", "na", "\u274C",
					 "\u2717", "\u2718", "\u2014", "\u2013", NULL};
	char w[256];
	mt_compat__norm(w, sizeof(w), cell);
	return mt_str_in(w, yes) ? 1 : mt_str_in(w, no) ? 0 : -1;
}

void mt_compat__clean_name(char *out, size_t size, const char *cell)
{
	char tmp[256], *s, *p;
	size_t n = 0;

	for (const char *c = cell; *c && n + 1 < sizeof(tmp); c++) {
		if (*c == '`' || *c == '*' || *c == '[')
			continue;
		if (*c == ']') /* [aten::add](link): the text only */
			break;
		if (*c == '\\' && ispunct((unsigned char)c[1]))
			c++;
		tmp[n++] = *c;
	}
	tmp[n] = '\0';
	s = mt_compat__trim(tmp);
	if ((p = strchr(s, '(')))
		*p = '\0';
	snprintf(out, size, "%s", mt_compat__trim(s));
}

/* Copies an op name out of a cell: no backticks, emphasis, link target or
 * signature; aten:: added when there is no namespace. 0, or -1 when what is
 * left is not namespace::name[.overload]. */
int mt_compat__op_name(char *out, size_t size, const char *cell)
{
	char s[256], *p;
	size_t n, k;

	mt_compat__clean_name(s, sizeof(s), cell);
	if (!strncmp(s, "torch.", 6) || !strncmp(s, "Tensor.", 7) || !strncmp(s, "nn.", 3))
		return -1; /* a Python API, not an aten op */
	snprintf(out, size, "%s%s", strstr(s, "::") ? "" : "aten::", s);
	p = strstr(out, "::");
	for (k = 0; k < (size_t)(p - out); k++)
		if (!isalnum((unsigned char)out[k]) && out[k] != '_')
			return -1;
	p += 2;
	if (!*p || isdigit((unsigned char)*p) || p == out + 2)
		return -1;
	n = strspn(p, IDENT_CHARS);
	if (p[n] == '.' && p[n + 1])
		n += 1 + strspn(p + n + 1, IDENT_CHARS);
	return n && !p[n] ? 0 : -1;
}

static const char *const dtype_names[] = {
	"float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8",
	"uint16", "uint32", "uint64", "bool", "complex32", "complex64", "complex128",
	"float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", NULL};

/* The dtype a lowercase word names, or NULL. In prose only the names and
 * the abbreviations that mean nothing else (fp16, bf16): "float", "long" or
 * "half" are ordinary words there. */
static const char *dtype_of(const char *tok, int prose)
{
	static const char *const alias[][2] = {
		{"fp32", "float32"}, {"fp16", "float16"}, {"bf16", "bfloat16"}, {"fp64", "float64"},
		{"f32", "float32"}, {"f16", "float16"}, {"f64", "float64"}, {"i64", "int64"},
		{"i32", "int32"}, {"float", "float32"}, {"half", "float16"}, {"double", "float64"},
		{"long", "int64"}, {NULL, NULL}};

	if (!strncmp(tok, "torch.", 6))
		tok += 6;
	for (int i = 0; alias[i][0] && (!prose || i < 4); i++)
		if (!strcmp(tok, alias[i][0]))
			return alias[i][1];
	for (int i = 0; dtype_names[i]; i++)
		if (!strcmp(tok, dtype_names[i]))
			return dtype_names[i];
	return NULL;
}

/* A dtypes cell: how many dtypes it names, all in *out; 0 (and *out empty)
 * when a word is not a dtype, so that the caller keeps the text as a note. */
static int dtype_list(strv *out, const char *cell)
{
	char buf[512], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", cell);
	for (tok = strtok_r(buf, ", /;`|", &save); tok; tok = strtok_r(NULL, ", /;`|", &save)) {
		const char *d;
		for (char *c = tok; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (!(d = dtype_of(tok, 0))) {
			mt_compat__strv_dispose(out);
			return 0;
		}
		if (!mt_compat__strv_has(out, d))
			mt_compat__strv_push(out, d);
	}
	return (int)out->n;
}

/* --- what a limitations text says ---------------------------------------------- */

/* The dtypes prose names, into *out. Prose that names dtypes by exception
 * ("every dtype except float32") limits nothing: *out stays empty, and the
 * fallback is taken for every dtype, the cautious reading. */
static void dtypes_in(strv *out, const char *text)
{
	static const char *const except[] = {"except", "other than", "besides", "excluding",
					     "apart from", NULL};
	char buf[1024], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", text);
	for (char *c = buf; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (int i = 0; except[i]; i++)
		if (strstr(buf, except[i]))
			return;
	for (tok = strtok_r(buf, " \t,;:()[]{}/|`*'\"", &save); tok;
	     tok = strtok_r(NULL, " \t,;:()[]{}/|`*'\"", &save)) {
		size_t n = strlen(tok);
		const char *d;
		while (n && tok[n - 1] == '.')
			tok[--n] = '\0';
		if ((d = dtype_of(tok, 1)) && !mt_compat__strv_has(out, d))
			mt_compat__strv_push(out, d);
	}
}

/* The operators prose names ("falls back to aten::cumsum"), into *out. */
static void ops_in(strv *out, const char *text)
{
	for (const char *c = strstr(text, "::"); c; c = strstr(c + 2, "::")) {
		const char *start = c;
		char tok[256], op[256];
		size_t n;

		while (start > text && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
			start--;
		n = (size_t)(c + 2 - start) + strspn(c + 2, IDENT_CHARS ".");
		while (n && start[n - 1] == '.')
			n--;
		if (start == c || n >= sizeof(tok))
			continue;
		memcpy(tok, start, n);
		tok[n] = '\0';
		if (mt_compat__op_name(op, sizeof(op), tok) == 0 && !mt_compat__strv_has(out, op))
			mt_compat__strv_push(out, op);
	}
}

/* The kind of API a limitations text names (TorchNeuron's `Y` entries say
 * Native, Host-only or Needs a process group), or 0; *only: the text says
 * nothing else. */
static int kind_in(const char *text, int *only)
{
	static const char *const alone[] = {"native", "host only", "needs a process group",
					    "requires a process group", "process group", NULL};
	char w[1024], padded[1040];

	mt_compat__norm(w, sizeof(w), text);
	*only = mt_str_in(w, alone);
	snprintf(padded, sizeof(padded), " %s ", w);
	for (char *c = padded; *c; c++)
		if (!isalnum((unsigned char)*c))
			*c = ' ';
	if (strstr(padded, " process group "))
		return MT_COMPAT_API_PROCESS_GROUP;
	if (strstr(padded, " host only "))
		return MT_COMPAT_API_HOST_ONLY;
	if (strstr(padded, " native ") && !strstr(padded, " non native ") &&
	    !strstr(padded, " not native "))
		return MT_COMPAT_API_NATIVE;
	return 0;
}

/* --- the mapping file ---------------------------------------------------------- */

static int map_columns(mt_import_map *m, const mt_ynode *cols, const char *name)
{
	for (size_t i = 0; cols && i < cols->n; i++) {
		const mt_ynode *c = cols->kids[i];
		int r = -1;
		char w[256];
		for (int k = 0; k < R_N; k++)
			if (strcmp(c->key, role_names[k]) == 0)
				r = k;
		if (r < 0)
			return mt_error_set(MT_EINVALID, "%s:%u:%u: unknown column role '%s' "
					    "(op, status, dtypes, fallback, notes)", name,
					    c->key_line, c->key_col, c->key);
		if (c->kind != MT_YNODE_SCALAR || !*c->text)
			return mt_error_set(MT_EINVALID, "%s:%u:%u: '%s' must name a column "
					    "header", name, c->line, c->col, c->key);
		mt_compat__norm(w, sizeof(w), c->text);
		m->columns[r] = mt_strdup(w);
	}
	return 0;
}

static int map_statuses(mt_import_map *m, const mt_ynode *sts, const char *name)
{
	m->words = mt_compat__xrealloc(NULL, ((sts ? sts->n : 0) + 1) * sizeof(*m->words));
	for (size_t i = 0; sts && i < sts->n; i++) {
		const mt_ynode *s = sts->kids[i];
		int st = s->kind == MT_YNODE_SCALAR ? mt_compat_status_parse(s->text) : -1;
		char w[256];
		if (st < 0)
			return mt_error_set(MT_EINVALID, "%s:%u:%u: '%s' must map to device, "
					    "cpu_fallback, unsupported, partial or unknown (row "
					    "left out)", name, s->line, s->col, s->key);
		mt_compat__norm(w, sizeof(w), s->key);
		m->words[m->nwords].w = mt_strdup(w);
		m->words[m->nwords++].status = st == MT_COMPAT_UNKNOWN ? ST_SKIP : st;
	}
	return 0;
}

int mt_import_map_parse(mt_import_map **out, const char *text, size_t len, const char *name)
{
	static const char *const keys[] = {"columns", "statuses", NULL};
	mt_import_map *m = calloc(1, sizeof(*m));
	mt_ytree *tree = NULL;
	const mt_ynode *root, *cols, *sts;
	int error;

	*out = NULL;
	if (!m)
		return mt_error_set(MT_EIO, "out of memory");
	if ((error = mt_ytree_parse(&tree, text, len, name, MT_YTREE_EMPTY_MAP, NULL)) < 0)
		goto cleanup;
	root = mt_ytree_root(tree);
	cols = mt_ytree_get(root, "columns");
	sts = mt_ytree_get(root, "statuses");
	error = root->kind != MT_YNODE_MAP
			? mt_error_set(MT_EINVALID, "%s:1:1: a mapping is a map with columns "
				       "and statuses", name)
			: 0;
	for (size_t i = 0; !error && i < root->n; i++)
		if (!mt_str_in(root->kids[i]->key, keys))
			error = mt_error_set(MT_EINVALID, "%s:%u:%u: unknown key '%s' (columns, "
					     "statuses)", name, root->kids[i]->key_line,
					     root->kids[i]->key_col, root->kids[i]->key);
	if (!error && ((cols && cols->kind != MT_YNODE_MAP && !mt_ytree_is_null(cols)) ||
		       (sts && sts->kind != MT_YNODE_MAP && !mt_ytree_is_null(sts))))
		error = mt_error_set(MT_EINVALID, "%s: columns and statuses must be maps", name);
	if (!error && !(error = map_columns(m, cols && cols->kind == MT_YNODE_MAP ? cols : NULL,
					    name)))
		error = map_statuses(m, sts && sts->kind == MT_YNODE_MAP ? sts : NULL, name);
cleanup:
	mt_ytree_free(tree);
	if (error < 0)
		mt_import_map_free(m);
	else
		*out = m;
	return error;
}

int mt_import_map_load(mt_import_map **out, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	int error = mt_file_read(&text, &len, path);
	*out = NULL;
	if (error == 0)
		error = mt_import_map_parse(out, text, len, path);
	free(text);
	return error;
}

void mt_import_map_free(mt_import_map *m)
{
	if (!m)
		return;
	for (int r = 0; r < R_N; r++)
		free(m->columns[r]);
	for (size_t i = 0; i < m->nwords; i++)
		free((char *)m->words[i].w);
	free(m->words);
	free(m);
}

/* --- Markdown ------------------------------------------------------------------ */

struct md {
	const mt_import_convert_options *o;
	struct entries *e;
	size_t tables, rows, apis;
	mt_buf columns;     /* the first table's columns, for the note */
	mt_buf skipped;     /* tables that are not op tables, one a line */
	char heads[7][128]; /* the namespace each heading level names, or "" */
	char table_ns[128]; /* the namespace the name column's header names */
	char row_ns[128];   /* the namespace a heading row of this table names */
	int api_column;     /* the name column's header says API, not op */
};

/* Splits a table row in place into at most `max` trimmed cells; "\|" is a
 * pipe inside a cell. cols[i]: the 1-based column where cell i starts in the
 * line as written. */
static size_t md_cells(char *line, char **cells, unsigned *cols, size_t max)
{
	char *s = mt_compat__trim(line), *w;
	size_t n = 0, len = strlen(s);

	if (*s == '|')
		s++, len--;
	if (len && s[len - 1] == '|' && (len < 2 || s[len - 2] != '\\'))
		s[--len] = '\0';
	cols[n] = (unsigned)(s - line) + 1;
	cells[n++] = w = s;
	for (char *r = s; *r; r++) {
		if (*r == '\\' && r[1] == '|') {
			*w++ = *++r;
		} else if (*r == '|') {
			*w++ = '\0';
			if (n == max)
				break;
			cols[n] = (unsigned)(r + 1 - line) + 1;
			cells[n++] = w;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	for (size_t i = 0; i < n; i++) {
		char *t = mt_compat__trim(cells[i]);
		cols[i] += (unsigned)(t - cells[i]);
		cells[i] = t;
	}
	return n;
}

/* "|---|:--:|": the line under a table's header. */
int mt_compat__md_is_delimiter(const char *line)
{
	return strchr(line, '-') && strchr(line, '|') && strspn(line, "|-: \t") == strlen(line);
}

/* --- names: aten ops, APIs and the namespaces headings name -------------------- */

/* Python identifiers joined by dots. */
static int is_dotted(const char *s)
{
	for (;;) {
		size_t n = strspn(s, IDENT_CHARS);
		if (!n || isdigit((unsigned char)*s))
			return 0;
		s += n;
		if (!*s)
			return 1;
		if (*s++ != '.')
			return 0;
	}
}

/* The namespace a heading names ("## torch.Tensor", "Namespace
 * `torch.nn.functional`"): its first word that is a dotted Python name and
 * either is in backticks or starts with torch. 0, or -1 when none. */
static int namespace_of(char *out, size_t size, const char *heading)
{
	char buf[256], name[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", heading);
	for (tok = strtok_r(buf, " \t,;:()[]", &save); tok; tok = strtok_r(NULL, " \t,;:()[]", &save)) {
		size_t n;
		mt_compat__clean_name(name, sizeof(name), tok);
		n = strlen(name);
		while (n && name[n - 1] == '.')
			name[--n] = '\0';
		if (n < size && is_dotted(name) && (strchr(tok, '`') || !strncmp(name, "torch", 5))) {
			snprintf(out, size, "%s", name);
			return 0;
		}
	}
	return -1;
}

/* The namespace in effect: a heading row's, the name column header's, else
 * the deepest heading's that names one, or NULL. */
static const char *md_namespace(const struct md *m)
{
	if (m->row_ns[0])
		return m->row_ns;
	if (m->table_ns[0])
		return m->table_ns;
	for (int level = 6; level > 0; level--)
		if (m->heads[level][0])
			return m->heads[level];
	return NULL;
}

/* A heading of `level` ends the sections of its level and deeper. */
static void md_heading(struct md *m, int level, const char *text)
{
	for (int k = level; k <= 6; k++)
		m->heads[k][0] = '\0';
	if (namespace_of(m->heads[level], sizeof(m->heads[level]), text) < 0)
		m->heads[level][0] = '\0';
}

/* "## text" (ATX) or a line over "===" / "---" (setext): its level, else 0;
 * *text points at the words. */
static int heading_level(const struct lines *l, size_t i, const char **text)
{
	const char *s = l->v[i] + strspn(l->v[i], " "), *next = i + 1 < l->n ? l->v[i + 1] : "";
	size_t hashes = strspn(s, "#");

	if (hashes >= 1 && hashes <= 6 && (s[hashes] == ' ' || !s[hashes])) {
		*text = s + hashes;
		return (int)hashes;
	}
	*text = s;
	if (!*s || strchr(s, '|') || !*next || !strchr("=-", *next))
		return 0;
	if (strspn(next, next[0] == '=' ? "= " : "- ") != strlen(next) || strlen(next) < 2)
		return 0;
	return next[0] == '=' ? 1 : 2;
}

enum { NAME_SHORT = -2, NAME_NONE = -1, NAME_OP = 0, NAME_API = 1 };

/* A name cell's token as an entry key: an aten op ("aten::abs"), or an API
 * ("torch.Tensor.abs"): fully qualified names (first part starting with
 * torch) as they are, other names under the namespace in effect, and
 * without one the usual short prefixes (Tensor., nn., F., dist.) spelled
 * out. A bare name with no namespace is an aten op, unless the column is
 * an API column (NAME_SHORT). *clear: the token is a name beyond doubt,
 * not a word of a heading row. */
static int md_name(const struct md *m, const char *tok, char *out, size_t size, int *clear)
{
	static const char *const prefix[][2] = {{"Tensor.", "torch.Tensor."}, {"nn.", "torch.nn."},
						{"F.", "torch.nn.functional."},
						{"dist.", "torch.distributed."}, {NULL, NULL}};
	const char *ns = md_namespace(m), *name;
	char buf[256];

	mt_compat__clean_name(buf, sizeof(buf), tok);
	name = buf + (buf[0] == '.'); /* ".abs" under a heading */
	*clear = strchr(tok, '`') || strstr(name, "::") || strchr(name, '.') || ns;
	if (strstr(name, "::"))
		return mt_compat__op_name(out, size, name) == 0 ? NAME_OP : NAME_NONE;
	if (!is_dotted(name))
		return NAME_NONE;
	if (!strncmp(name, "torch", 5) && strchr(name, '.'))
		return snprintf(out, size, "%s", name), NAME_API;
	if (ns)
		return snprintf(out, size, "%s.%s", ns, name), NAME_API;
	for (int i = 0; prefix[i][0]; i++)
		if (!strncmp(name, prefix[i][0], strlen(prefix[i][0])))
			return snprintf(out, size, "%s%s", prefix[i][1],
					name + strlen(prefix[i][0])), NAME_API;
	if (m->api_column)
		return NAME_SHORT;
	return strchr(name, '.') || mt_compat__op_name(out, size, name) < 0 ? NAME_NONE : NAME_OP;
}

/* --- columns ----------------------------------------------------------------------- */

static int header_role(const char *h, int *strength)
{
	static const char *const exact[R_N][24] = {
		{"op", "ops", "operator", "operators", "aten op", "aten ops", "aten operator",
		 "aten operators", "op name", "operator name", "name", "aten", "aten name", "api",
		 "apis", "pytorch api", "pytorch apis", "torch api", "python api", "api name",
		 "function", "functions", "pytorch function", NULL},
		{"status", "support", "supported", "support status", "support level", "state",
		 "neuron support", "supported on neuron", "neuron", "neuron status", NULL},
		{"dtype", "dtypes", "data type", "data types", "supported dtypes",
		 "supported data types", "types", NULL},
		{"fallback", "cpu fallback", "fallback to cpu", "falls back to cpu", "cpu", NULL},
		{"notes", "note", "comments", "comment", "conditions", "condition", "limitations",
		 "limitation", "remarks", "details", "description", "constraints", "caveats",
		 NULL},
	};
	static const struct { const char *part; int role; } parts[] = {
		{"fallback", R_FALLBACK}, {"fall back", R_FALLBACK}, {"dtype", R_DTYPES},
		{"data type", R_DTYPES}, {"note", R_NOTES}, {"comment", R_NOTES},
		{"condition", R_NOTES}, {"limitation", R_NOTES}, {"caveat", R_NOTES},
		{"support", R_STATUS}, {"status", R_STATUS}, {"operator", R_OP}, {" op ", R_OP},
		{" api ", R_OP}, {" apis ", R_OP}, {" function ", R_OP}, {NULL, 0}};
	char padded[300];

	for (int r = 0; r < R_N; r++)
		if (mt_str_in(h, exact[r]))
			return *strength = 2, r;
	*strength = 1;
	snprintf(padded, sizeof(padded), " %s ", h);
	for (int i = 0; parts[i].part; i++)
		if (strstr(padded, parts[i].part))
			return parts[i].role;
	return -1;
}

/* A normalised header that names public APIs rather than aten ops. */
static int api_header(const char *h)
{
	char padded[300];
	snprintf(padded, sizeof(padded), " %s ", h);
	return strstr(padded, " api ") || strstr(padded, " apis ") || strstr(padded, " function ") ||
	       strstr(padded, " functions ");
}

/* Finds the columns of one table: col[role] = index or -1. A column the
 * mapping names wins; else an exact header beats one that contains a word. */
static int md_columns(struct md *m, char **cells, size_t n, int *col, unsigned line)
{
	const mt_import_map *map = m->o->map;
	int best[R_N] = {0};

	for (int r = 0; r < R_N; r++)
		col[r] = -1;
	for (size_t i = 0; i < n; i++) {
		char h[256];
		int r = -1, strength = 3;
		mt_compat__norm(h, sizeof(h), cells[i]);
		for (int k = 0; map && k < R_N && r < 0; k++)
			if (map->columns[k] && strcmp(map->columns[k], h) == 0)
				r = k;
		if (r < 0 && *h && (r = header_role(h, &strength)) >= 0 && map &&
		    map->columns[r])
			r = -1; /* the mapping names this role's column */
		if (r < 0 || strength < best[r])
			continue;
		if (strength == best[r])
			return mt_error_set(MT_EINVALID, "%s:%u: columns '%s' and '%s' both look "
					    "like the %s column; name the right one in a mapping "
					    "file (--map)", m->o->origin, line, cells[col[r]],
					    cells[i], role_names[r]);
		best[r] = strength;
		col[r] = (int)i;
	}
	return 0;
}

/* What a column's cells are: every one a status word, or every one a name. */
struct sniff {
	int status, name, seen;
};

static void sniff_cell(const struct md *m, struct sniff *s, const char *cell)
{
	char *rest = NULL, out[256];
	int clear, st = status_cell(m->o->map, cell, &rest);

	free(rest);
	if (!*cell)
		return;
	s->seen = 1;
	s->status &= st >= 0;
	s->name &= st < 0 && md_name(m, cell, out, sizeof(out), &clear) >= 0 && clear;
}

/* Where the headers do not say which column holds the names or the status
 * (the target's exact headers are not known offline), the cells do: a
 * column of status words only is the status column, and one of clear names
 * only (aten::x, dotted or backticked names, any name under a namespace
 * heading) is the name column. Only columns the headers left unassigned. */
static void md_sniff(const struct md *m, const struct lines *l, size_t from, size_t to,
		     size_t ncols, int *col)
{
	struct sniff s[64];
	char *cells[64];
	unsigned cols[64];
	int used[64] = {0};

	for (size_t i = 0; i < ncols; i++)
		s[i] = (struct sniff){1, 1, 0};
	for (int r = 0; r < R_N; r++)
		if (col[r] >= 0)
			used[col[r]] = 1;
	for (size_t row = from; row < to; row++) {
		char *copy = mt_strdup(l->v[row]);
		size_t n = md_cells(copy, cells, cols, 64);
		for (size_t i = 0; i < n && i < ncols; i++)
			sniff_cell(m, &s[i], cells[i]);
		free(copy);
	}
	for (size_t i = 0; i < ncols && col[R_STATUS] < 0 && col[R_FALLBACK] < 0; i++)
		if (!used[i] && s[i].seen && s[i].status)
			col[R_STATUS] = (int)i, used[i] = 1;
	for (size_t i = 0; i < ncols && col[R_OP] < 0; i++)
		if (!used[i] && s[i].seen && s[i].name)
			col[R_OP] = (int)i;
}

/* Up to 8 distinct short cells of a table outside its name column: the
 * words a mapping file would have to explain. */
static void md_words(mt_buf *b, const struct lines *l, size_t from, size_t to, int name_col)
{
	strv seen = {0};
	char *cells[64];
	unsigned cols[64];

	for (size_t row = from; row < to && seen.n < 8; row++) {
		char *copy = mt_strdup(l->v[row]);
		size_t n = md_cells(copy, cells, cols, 64);
		for (size_t i = 0; i < n && seen.n < 8; i++)
			if ((int)i != name_col && *cells[i] && strlen(cells[i]) <= 24 &&
			    !mt_compat__strv_has(&seen, cells[i]))
				mt_compat__strv_push(&seen, cells[i]);
		free(copy);
	}
	for (size_t i = 0; i < seen.n; i++)
		mt_buf_printf(b, "%s'%s'", i ? ", " : "; words seen: ", seen.v[i]);
	mt_compat__strv_dispose(&seen);
}

/* --- rows ----------------------------------------------------------------------- */

/* A row's status from its status and fallback cells (*rest: what the status
 * cell says after its word, caller frees). at[role]: the cells' columns. */
static int md_status(struct md *m, const char *const cell[R_N], const unsigned at[R_N],
		     const char *name, unsigned line, char **rest)
{
	const char *origin = m->o->origin;
	int st = -2, fb = fallback_cell(cell[R_FALLBACK]);

	*rest = NULL;
	if (*cell[R_STATUS] && (st = status_cell(m->o->map, cell[R_STATUS], rest)) < 0)
		return mt_error_set(MT_EINVALID, "%s:%u:%u: status '%s' of %s is not a known word "
				    "(Y/yes/supported/\u2705, N/no/unsupported/\u274C, partial/"
				    "limited/\u26A0, CPU_FALLBACK/fallback/cpu); map it under "
				    "statuses in a mapping file (--map)", origin, line,
				    at[R_STATUS], cell[R_STATUS], name);
	if (fb < 0)
		return mt_error_set(MT_EINVALID, "%s:%u:%u: fallback '%s' of %s is neither yes "
				    "nor no", origin, line, at[R_FALLBACK], cell[R_FALLBACK], name);
	if (st == -2 && !fb)
		return mt_error_set(MT_EINVALID, "%s:%u:%u: %s has no status", origin, line,
				    at[R_STATUS], name);
	if (fb && (st == -2 || st == MT_COMPAT_UNSUPPORTED))
		return MT_COMPAT_CPU_FALLBACK;
	return st;
}

/* What a row says besides its status: a partial's conditions (else notes),
 * dtypes, and for a cpu_fallback the dtypes its limitations name. */
static void md_fill(struct entry *x, const char *const cell[R_N], const char *rest,
		    int fallback_column)
{
	strv dtypes = {0};

	if (x->status == MT_COMPAT_PARTIAL) { /* the notes say when it holds */
		if (*rest)
			mt_compat__strv_push(&x->conds, rest);
		if (*cell[R_NOTES])
			mt_compat__strv_push(&x->conds, cell[R_NOTES]);
		if (!x->conds.n)
			mt_compat__strv_push(&x->conds,
					     "the source marks it partial without saying when");
		if (fallback_column)
			mt_compat__note_add(x, "the source also marks a CPU fallback");
	} else {
		mt_compat__note_add(x, rest);
		mt_compat__note_add(x, cell[R_NOTES]);
	}
	if (*cell[R_DTYPES] && (x->api || !dtype_list(&x->dtypes, cell[R_DTYPES])))
		mt_buf_printf(&x->notes, "%sdtypes: %s", x->notes.len ? "; " : "", cell[R_DTYPES]);
	if (x->status == MT_COMPAT_CPU_FALLBACK) {
		dtypes_in(&dtypes, rest);
		dtypes_in(&dtypes, cell[R_NOTES]);
		for (size_t i = 0; i < dtypes.n; i++)
			if (!mt_compat__strv_has(&x->fallback, dtypes.v[i]))
				mt_compat__strv_push(&x->fallback, dtypes.v[i]);
	}
	mt_compat__strv_dispose(&dtypes);
}

/* Adds one entry of a row; one listed twice must say the same both times. */
static int md_entry(struct md *m, const char *key, int api, int st, const char *const cell[R_N],
		    const char *rest, unsigned line, unsigned col)
{
	struct entry *x = mt_compat__entry_find(m->e, key);
	const char *c[R_N];
	int kind = 0, only;

	if (x && x->status != st)
		return mt_error_set(MT_EINVALID, "%s:%u:%u: %s is %s here but %s at line %u",
				    m->o->origin, line, col, key,
				    mt_compat_status_str((mt_compat_status)st),
				    mt_compat_status_str((mt_compat_status)x->status), x->line);
	if (x)
		return 0;
	memcpy(c, cell, sizeof(c));
	if (api) { /* "Native" alone: the kind says it all */
		int k1 = kind_in(rest, &only), k2;
		rest = only ? "" : rest;
		k2 = kind_in(cell[R_NOTES], &only);
		c[R_NOTES] = only ? "" : cell[R_NOTES];
		kind = k1 ? k1 : k2;
	}
	x = mt_compat__entry_add(m->e, key, st, line);
	x->api = api;
	x->kind = kind;
	if (api) {
		ops_in(&x->names, rest);
		ops_in(&x->names, cell[R_NOTES]);
	}
	md_fill(x, c, rest, fallback_cell(cell[R_FALLBACK]) == 1);
	api ? m->apis++ : m->rows++;
	return 0;
}

/* The names of a name cell, one a token: "," and <br> separate them; call
 * signatures ("abs(input, *, out=None)") go. */
static void md_split_names(char *out, size_t size, const char *cell)
{
	size_t n = 0;
	int depth = 0;

	for (const char *c = cell; *c && n + 1 < size; c++) {
		if (*c == '(' || *c == ')') {
			depth += *c == '(' ? 1 : depth ? -1 : 0;
			continue;
		}
		if (!depth)
			out[n++] = *c;
	}
	out[n] = '\0';
	for (char *br; (br = strstr(out, "<br")) != NULL;) {
		char *gt = strchr(br, '>');
		memset(br, ',', gt ? (size_t)(gt - br + 1) : strlen(br));
	}
}

static int md_name_error(struct md *m, const char *tok, int kind, unsigned line, unsigned col)
{
	if (kind == NAME_SHORT)
		return mt_error_set(MT_EINVALID, "%s:%u:%u: '%s' is a short name and no heading "
				    "above it names its namespace (## torch.Tensor); write it fully "
				    "qualified (torch.Tensor.%s)", m->o->origin, line, col, tok, tok);
	return mt_error_set(MT_EINVALID, "%s:%u:%u: '%s' is neither an aten op name "
			    "(aten::add) nor a PyTorch API name (torch.add)", m->o->origin, line,
			    col, tok);
}

/* One row: the name cell may name several ops or APIs ("," or <br>). A row
 * with nothing but a word that is not clearly a name ("| **Reductions** |
 * |") is a heading inside the table; one naming a namespace ("|
 * **torch.Tensor** | |") qualifies the short names below it. */
static int md_row(struct md *m, char **cells, const unsigned *cols, size_t n, const int *col,
		  unsigned line)
{
	const char *cell[R_N];
	unsigned at[R_N];
	char names[512], *tok, *save = NULL, *rest = NULL, key[256];
	int st = 0, others = 0, error = 0, clear, kind;
	strv keys = {0}, apis = {0};

	for (int r = 0; r < R_N; r++) {
		int ok = col[r] >= 0 && (size_t)col[r] < n;
		cell[r] = ok ? cells[col[r]] : "";
		at[r] = ok ? cols[col[r]] : n ? cols[n - 1] : 1;
		others |= r != R_OP && *cell[r];
	}
	if (!others && !strchr(cell[R_OP], '`') && !strstr(cell[R_OP], "::") &&
	    namespace_of(m->row_ns, sizeof(m->row_ns), cell[R_OP]) == 0)
		return 0;
	md_split_names(names, sizeof(names), cell[R_OP]);
	for (tok = strtok_r(names, ",", &save); tok && !error; tok = strtok_r(NULL, ",", &save)) {
		if (!*(tok = mt_compat__trim(tok)))
			continue;
		kind = md_name(m, tok, key, sizeof(key), &clear);
		if (kind >= 0 && (others || clear)) {
			mt_compat__strv_push(&keys, key);
			mt_compat__strv_push(&apis, kind == NAME_API ? "1" : "0");
		} else if (others) {
			error = md_name_error(m, tok, kind, line, at[R_OP]);
		}
	}
	if (!error && keys.n && (st = md_status(m, cell, at, keys.v[0], line, &rest)) < 0)
		error = st;
	for (size_t i = 0; !error && st != ST_SKIP && i < keys.n; i++)
		error = md_entry(m, keys.v[i], apis.v[i][0] == '1', st, cell, rest ? rest : "",
				 line, at[R_OP]);
	free(rest);
	mt_compat__strv_dispose(&keys);
	mt_compat__strv_dispose(&apis);
	return error;
}

static void md_describe(mt_buf *b, char **cells, size_t n, const int *col)
{
	if (!col) { /* a skipped table: its header */
		for (size_t i = 0; i < n; i++)
			mt_buf_printf(b, "%s%s", i ? " | " : "'", cells[i]);
		mt_buf_puts(b, "'");
		return;
	}
	for (int r = 0; r < R_N; r++)
		if (col[r] >= 0)
			mt_buf_printf(b, "%s%s '%s'", r ? ", " : "", r == R_OP ? "name" : role_names[r],
				      (size_t)col[r] < n ? cells[col[r]] : "");
}

/* A name column whose header names a namespace ("| torch.Tensor | Supported
 * |") qualifies the short names below it; where no header says which column
 * holds the names, that one does. */
static void md_name_column(struct md *m, char **hcells, size_t hn, int *col)
{
	char norm[256];

	m->row_ns[0] = m->table_ns[0] = '\0';
	for (size_t i = 0; i < hn && col[R_OP] < 0; i++) {
		int used = 0;
		for (int r = 0; r < R_N; r++)
			used |= col[r] == (int)i;
		if (!used && namespace_of(m->table_ns, sizeof(m->table_ns), hcells[i]) == 0)
			col[R_OP] = (int)i;
	}
	if (col[R_OP] >= 0 && !m->table_ns[0])
		namespace_of(m->table_ns, sizeof(m->table_ns), hcells[col[R_OP]]);
	m->api_column = 0;
	if (col[R_OP] >= 0) {
		mt_compat__norm(norm, sizeof(norm), hcells[col[R_OP]]);
		m->api_column = api_header(norm) || m->table_ns[0];
	}
}

/* One table: its header at l->v[h], the delimiter below it. *next: the
 * first line after the table. A table without both a name column and a
 * status (or fallback) column, by its headers or its cells, is not an op
 * table: it is listed in m->skipped with the words it holds. */
static int md_table(struct md *m, struct lines *l, size_t h, size_t *next)
{
	char *hcells[64], *cells[64];
	unsigned hcols[64], cols[64];
	size_t hn = md_cells(l->v[h], hcells, hcols, 64);
	int col[R_N], error;

	*next = h + 2;
	while (*next < l->n && strchr(l->v[*next], '|') && *mt_compat__trim(l->v[*next]))
		(*next)++;
	if ((error = md_columns(m, hcells, hn, col, (unsigned)h + 1)) < 0)
		return error;
	md_name_column(m, hcells, hn, col);
	if (col[R_OP] < 0 || (col[R_STATUS] < 0 && col[R_FALLBACK] < 0))
		md_sniff(m, l, h + 2, *next, hn, col);
	if (col[R_OP] < 0 || (col[R_STATUS] < 0 && col[R_FALLBACK] < 0)) {
		mt_buf_printf(&m->skipped, "%sline %zu: ", m->skipped.len ? "\n" : "", h + 1);
		md_describe(&m->skipped, hcells, hn, NULL);
		mt_buf_printf(&m->skipped, " (no %s column", col[R_OP] < 0 ? "name" : "status");
		md_words(&m->skipped, l, h + 2, *next, col[R_OP]);
		mt_buf_puts(&m->skipped, ")");
		return 0;
	}
	if (!m->tables++)
		md_describe(&m->columns, hcells, hn, col);
	for (size_t i = h + 2; i < *next; i++) {
		size_t n = md_cells(l->v[i], cells, cols, 64);
		if ((error = md_row(m, cells, cols, n, col, (unsigned)i + 1)) < 0)
			return error;
	}
	return 0;
}

/* Every table of the file, outside fenced code blocks, with the headings
 * above them. */
static int md_read(struct md *m, const char *text, size_t len)
{
	struct lines l;
	int fence = 0, error = 0, level;
	const char *words;

	mt_compat__lines_split(&l, text, len);
	for (size_t i = 0; i < l.n && !error;) {
		const char *s = l.v[i] + strspn(l.v[i], " ");
		if (!strncmp(s, "```", 3) || !strncmp(s, "~~~", 3))
			fence = !fence;
		if (!fence && i + 1 < l.n && strchr(l.v[i], '|') &&
		    mt_compat__md_is_delimiter(l.v[i + 1])) {
			error = md_table(m, &l, i, &i);
			continue;
		}
		if (!fence && (level = heading_level(&l, i, &words)) > 0)
			md_heading(m, level, words);
		i++;
	}
	mt_compat__lines_dispose(&l);
	if (!error && !m->tables)
		error = mt_error_set(MT_EINVALID, "%s: no Markdown table with an API or op column "
				     "and a status column%s%s%s; name the columns and words in a "
				     "mapping file (--map)", m->o->origin,
				     m->skipped.len ? " (" : "", mt_buf_cstr(&m->skipped),
				     m->skipped.len ? ")" : "");
	return error;
}

int mt_compat__from_markdown(struct entries *e, struct identity *id, mt_import_info *info,
			     const char *text, size_t len, const mt_import_convert_options *o)
{
	struct md m = {.o = o, .e = e};
	int error = md_read(&m, text, len);

	if (error == 0) {
		mt_buf_printf(&id->note, "Imported from %s: %zu Markdown table%s, %zu API row%s "
			      "and %zu op row%s (columns %s%s). Status words were read as: Y/yes/"
			      "supported/check mark = device (its kind from the limitations: "
			      "Native, Host-only, Needs a process group), N/no/unsupported/cross "
			      "= unsupported, partial/limited/warning sign = partial (the notes "
			      "as its condition), CPU_FALLBACK/fallback/cpu = cpu_fallback (the "
			      "aten ops and dtypes the limitations name)%s. Short names are "
			      "qualified by the heading above naming their namespace. An API or "
			      "op the source does not list is unknown.", o->origin, m.tables,
			      m.tables == 1 ? "" : "s", m.apis, m.apis == 1 ? "" : "s", m.rows,
			      m.rows == 1 ? "" : "s", mt_buf_cstr(&m.columns),
			      o->map ? ", as the mapping file names them" : "",
			      o->map && o->map->nwords ? ", plus the mapping file's words" : "");
		info->tables = m.tables;
		info->skipped = m.skipped.len ? mt_buf_detach(&m.skipped) : NULL;
	}
	mt_buf_dispose(&m.columns);
	mt_buf_dispose(&m.skipped);
	return error;
}
