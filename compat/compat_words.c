/* The words of a compatibility table's cells, for the readers of
 * compat_import (compat_md.c's Markdown, compat_rst.c): op names, statuses,
 * dtypes, what a limitations text says, and the mapping file
 * (mt_compat_import_map) that names a table's columns and words. */
#include "compat_import_int.h"
#include "compat.h"
#include "error.h"
#include "util.h"
#include "ytree.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *const mt_compat__role_names[] = {"op", "status", "dtypes", "fallback", "notes",
					     NULL};

/* The status for a normalised word: the map's first, then the known ones;
 * -1 when neither knows it. */
static int status_word(const mt_compat_import_map *map, const char *w)
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
static int status_head(const mt_compat_import_map *map, const char *cell, size_t n)
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
int mt_compat__status_cell(const mt_compat_import_map *map, const char *cell, char **rest)
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
int mt_compat__fallback_cell(const char *cell)
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
int mt_compat__dtype_list(strv *out, const char *cell)
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
void mt_compat__dtypes_in(strv *out, const char *text)
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
void mt_compat__ops_in(strv *out, const char *text)
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
int mt_compat__kind_in(const char *text, int *only)
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

static int map_columns(mt_compat_import_map *m, const mt_ynode *cols, const char *name)
{
	for (size_t i = 0; cols && i < cols->n; i++) {
		const mt_ynode *c = cols->kids[i];
		int r = -1;
		char w[256];
		for (int k = 0; k < R_N; k++)
			if (strcmp(c->key, mt_compat__role_names[k]) == 0)
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

static int map_statuses(mt_compat_import_map *m, const mt_ynode *sts, const char *name)
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

int mt_compat_import_map_parse(mt_compat_import_map **out, const char *text, size_t len, const char *name)
{
	static const char *const keys[] = {"columns", "statuses", NULL};
	mt_compat_import_map *m = calloc(1, sizeof(*m));
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
		mt_compat_import_map_free(m);
	else
		*out = m;
	return error;
}

int mt_compat_import_map_load(mt_compat_import_map **out, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	int error = mt_file_read(&text, &len, path);
	*out = NULL;
	if (error == 0)
		error = mt_compat_import_map_parse(out, text, len, path);
	free(text);
	return error;
}

void mt_compat_import_map_free(mt_compat_import_map *m)
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
