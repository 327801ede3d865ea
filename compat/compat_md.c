/* The Markdown reader of compat_import: every op table of a file, its
 * columns found by their headers or named in a mapping file (the
 * mt_compat_import_map functions of compat_import.h, read in compat_words.c),
 * and the words of its cells (compat_words.c). */
#include "compat_import_int.h"
#include "compat.h"
#include "error.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Markdown ------------------------------------------------------------------ */

struct md {
	const mt_compat_import_convert_options *o;
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
	const mt_compat_import_map *map = m->o->map;
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
					    cells[i], mt_compat__role_names[r]);
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
	int clear, st = mt_compat__status_cell(m->o->map, cell, &rest);

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
	int st = -2, fb = mt_compat__fallback_cell(cell[R_FALLBACK]);

	*rest = NULL;
	if (*cell[R_STATUS] && (st = mt_compat__status_cell(m->o->map, cell[R_STATUS], rest)) < 0)
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
	if (*cell[R_DTYPES] && (x->api || !mt_compat__dtype_list(&x->dtypes, cell[R_DTYPES])))
		mt_buf_printf(&x->notes, "%sdtypes: %s", x->notes.len ? "; " : "", cell[R_DTYPES]);
	if (x->status == MT_COMPAT_CPU_FALLBACK) {
		mt_compat__dtypes_in(&dtypes, rest);
		mt_compat__dtypes_in(&dtypes, cell[R_NOTES]);
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
		int k1 = mt_compat__kind_in(rest, &only), k2;
		rest = only ? "" : rest;
		k2 = mt_compat__kind_in(cell[R_NOTES], &only);
		c[R_NOTES] = only ? "" : cell[R_NOTES];
		kind = k1 ? k1 : k2;
	}
	x = mt_compat__entry_add(m->e, key, st, line);
	x->api = api;
	x->kind = kind;
	if (api) {
		mt_compat__ops_in(&x->names, rest);
		mt_compat__ops_in(&x->names, cell[R_NOTES]);
	}
	md_fill(x, c, rest, mt_compat__fallback_cell(cell[R_FALLBACK]) == 1);
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
			mt_buf_printf(b, "%s%s '%s'", r ? ", " : "", r == R_OP ? "name" : mt_compat__role_names[r],
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

int mt_compat__from_markdown(struct entries *e, struct identity *id, mt_compat_import_info *info,
			     const char *text, size_t len, const mt_compat_import_convert_options *o)
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
