#include "template.h"
#include "embedded.h"
#include "error.h"
#include "sanitize.h"
#include "util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

#define FLUSH_AT (64 * 1024)

struct render {
	const char *tmpl; /* whole template, for line numbers and blocks */
	const char *end;
	const char *name;
	enum mt_template_escape escape;
	mt_buf *out;
	FILE *sink; /* NULL: everything stays in out */
	const struct mt_template_list *lists;
	json_t *stack[MAX_DEPTH];
	int depth, blocks;
	struct {
		const char *name, *body, *body_end;
		size_t len;
	} found[MAX_DEPTH]; /* blocks already looked up */
	int nfound;
};

/* Writes what the output holds up to its last line break to the sink: the
 * line being written stays, as the escapes and standalone tags look back
 * along it. `all`: everything. */
static int flush(struct render *r, int all)
{
	size_t n = r->out->len;

	if (!r->sink || (!all && n < FLUSH_AT))
		return 0;
	while (!all && n > 0 && r->out->ptr[n - 1] != '\n')
		n--;
	if (n && fwrite(r->out->ptr, 1, n, r->sink) != n)
		return mt_error_set(MT_EIO, "%s: write failed", r->name);
	memmove(r->out->ptr, r->out->ptr + n, r->out->len - n);
	r->out->len -= n;
	r->out->ptr[r->out->len] = '\0';
	return 0;
}

static int line_of(const struct render *r, const char *p)
{
	int line = 1;
	for (const char *q = r->tmpl; q < p; q++)
		line += *q == '\n';
	return line;
}

static json_t *lookup(struct render *r, const char *name, size_t len)
{
	char key[256];
	json_t *v = NULL;
	char *seg, *save = NULL;

	if (len == 1 && name[0] == '.')
		return r->stack[r->depth - 1];
	if (len >= sizeof(key))
		return NULL;
	memcpy(key, name, len);
	key[len] = '\0';
	seg = strtok_r(key, ".", &save);
	for (int i = r->depth - 1; i >= 0 && !v; i--)
		if (json_is_object(r->stack[i]))
			v = json_object_get(r->stack[i], seg);
	while (v && (seg = strtok_r(NULL, ".", &save)))
		v = json_is_array(v) ? json_array_get(v, (size_t)atoi(seg)) : json_object_get(v, seg);
	return v;
}

static int truthy(json_t *v)
{
	if (!v || json_is_null(v) || json_is_false(v))
		return 0;
	if (json_is_array(v))
		return json_array_size(v) > 0;
	if (json_is_object(v))
		return json_object_size(v) > 0;
	if (json_is_string(v))
		return json_string_length(v) > 0;
	return 1;
}

/* The value as text, before any escaping: a string's own bytes, a scalar
 * printed into num[64], anything else dumped as JSON into *dumped (caller
 * frees). */
static const char *value_text(json_t *v, char *num, char **dumped, size_t *n)
{
	*dumped = NULL;
	*n = 0;
	if (!v || json_is_null(v))
		return "";
	if (json_is_string(v)) {
		*n = json_string_length(v);
		return json_string_value(v);
	}
	if (json_is_integer(v))
		snprintf(num, 64, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(num, 64, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(num, 64, "%s", json_is_true(v) ? "true" : "false");
	else if ((*dumped = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)))
		num = *dumped;
	else
		return "";
	*n = strlen(num);
	return num;
}

/* 1 when s[0..n) is printable ASCII alone: nothing for the sanitiser. */
static int plain_ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

void mt_html_escape(mt_buf *out, const char *in, size_t len)
{
	mt_buf safe = MT_BUF_INIT;
	const char *s = in;
	size_t n = len, i = 0;

	/* no control, C1 or bidi override from a value reaches the page or an
	 * SVG label (XML forbids C0 controls; an override reorders the text) */
	if (!plain_ascii(in, len)) {
		mt_term_safe_put(&safe, in, len, MT_TERM_TEXT, 1);
		s = mt_buf_cstr(&safe), n = safe.len;
	}
	while (i < n) {
		size_t run = i;
		while (run < n && s[run] != '&' && s[run] != '<' && s[run] != '>' && s[run] != '"' &&
		       s[run] != '\'')
			run++;
		mt_buf_put(out, s + i, run - i);
		if ((i = run) >= n)
			break;
		switch (s[i++]) {
		case '&': mt_buf_puts(out, "&amp;"); break;
		case '<': mt_buf_puts(out, "&lt;"); break;
		case '>': mt_buf_puts(out, "&gt;"); break;
		case '"': mt_buf_puts(out, "&quot;"); break;
		default: mt_buf_puts(out, "&#39;"); break;
		}
	}
	mt_buf_dispose(&safe);
}

/* Markdown is read as plain text as often as rendered, so only what would
 * change the document's structure is escaped, judged from the output line
 * so far: a value in a table row (a line starting with '|') has its '|'
 * escaped, which GFM honours inside code spans too; outside a code span (an
 * even number of backticks before it on the line) a '<' that could open an
 * HTML tag becomes "&lt;" and, in a value that holds "](" or "][", a '['
 * "\\[" (no link or image; "[WIP]" stays as it is); a line break in a
 * value becomes a space (emit_value), so a note cannot end its list item or
 * table row. A backtick in a value inside a code span is left alone: the
 * span ends early but nothing is lost. */
static void markdown_escape(mt_buf *out, const char *s, size_t n)
{
	size_t start = out->len, ticks = 0;
	int table, link = memmem(s, n, "](", 2) || memmem(s, n, "][", 2);

	while (start > 0 && out->ptr[start - 1] != '\n')
		start--;
	table = start < out->len && out->ptr[start] == '|';
	for (size_t i = start; i < out->len; i++)
		ticks += out->ptr[i] == '`';
	for (size_t i = 0; i < n; i++) {
		char c = s[i], next = i + 1 < n ? s[i + 1] : '\0';
		if (c == '|' && table)
			mt_buf_puts(out, "\\|");
		else if (c == '<' && ticks % 2 == 0 &&
			 (isalpha((unsigned char)next) || next == '/' || next == '!' || next == '?'))
			mt_buf_puts(out, "&lt;");
		else if (c == '[' && link && ticks % 2 == 0)
			mt_buf_puts(out, "\\[");
		else
			mt_buf_put(out, &c, 1);
		ticks += c == '`';
	}
}

/* 1 when the output's line so far is inside a <code> element (the
 * templates open and close one on a line). */
static int inside_code(const mt_buf *out)
{
	const char *nl = out->len ? memrchr(out->ptr, '\n', out->len) : NULL;
	const char *start = nl ? nl + 1 : out->ptr, *end = out->ptr + out->len, *lt;

	while (end > start && (lt = memrchr(start, '<', (size_t)(end - start)))) {
		if ((size_t)(out->ptr + out->len - lt) >= 7 && strncmp(lt, "</code>", 7) == 0)
			return 0;
		if ((size_t)(out->ptr + out->len - lt) >= 5 && strncmp(lt, "<code", 5) == 0)
			return 1;
		end = lt;
	}
	return 0;
}

/* The model's strings are written for Markdown as much as for reading: a
 * `span` in backticks becomes <code>span</code> in HTML instead of showing
 * its backticks; a lone backtick stays, as does every backtick of a value
 * already inside a <code> element (a command keeps its text). */
static void html_value_escape(mt_buf *out, const char *s, size_t n)
{
	int code = inside_code(out);
	size_t i = 0;

	while (i < n) {
		const char *tick = code ? NULL : memchr(s + i, '`', n - i);
		const char *end = tick ? memchr(tick + 1, '`', n - (size_t)(tick + 1 - s)) : NULL;
		if (!end) {
			mt_html_escape(out, s + i, n - i);
			return;
		}
		mt_html_escape(out, s + i, (size_t)(tick - (s + i)));
		mt_buf_puts(out, "<code>");
		mt_html_escape(out, tick + 1, (size_t)(end - tick - 1));
		mt_buf_puts(out, "</code>");
		i = (size_t)(end + 1 - s);
	}
}

static void emit_value(struct render *r, json_t *v, int raw)
{
	mt_buf safe = MT_BUF_INIT;
	char num[64], *dumped;
	size_t n;
	const char *text = value_text(v, num, &dumped, &n);

	if (raw || r->escape == MT_TEMPLATE_TEXT) {
		mt_buf_put(r->out, text, n);
	} else if (r->escape == MT_TEMPLATE_HTML) {
		html_value_escape(r->out, text, n);
	} else if (plain_ascii(text, n)) {
		markdown_escape(r->out, text, n);
	} else {
		/* a Markdown report is read in a terminal or an editor as often
		 * as rendered: no control, C1 or bidi override from a value (a
		 * note, a file name) reaches it, and a line break becomes a space */
		mt_term_safe_put(&safe, text, n, MT_TERM_LINE, 1);
		markdown_escape(r->out, mt_buf_cstr(&safe), safe.len);
	}
	mt_buf_dispose(&safe);
	free(dumped);
}

/* A tag alone on its line (only blanks around it) takes the whole line away,
 * as in mustache, so section markers leave no blank lines in the output. */
static int standalone(const char *line_start, const char *tag, const char *after,
		      const char **skip_to)
{
	const char *p;
	for (p = line_start; p < tag; p++)
		if (*p != ' ' && *p != '\t')
			return 0;
	for (p = after; *p == ' ' || *p == '\t'; p++)
		;
	if (*p == '\n' || *p == '\0') {
		*skip_to = *p ? p + 1 : p;
		return 1;
	}
	if (p[0] == '\r' && p[1] == '\n') {
		*skip_to = p + 2;
		return 1;
	}
	return 0;
}

/* Finds the {{/name}} closing the section whose body starts at p. */
static const char *find_close(const char *p, const char *end, const char *name, size_t len,
			      const char **close_end)
{
	int nest = 0;
	while ((p = strstr(p, "{{")) && p < end) {
		const char *q = p + 2, *e = strstr(q, "}}");
		if (!e)
			return NULL;
		if ((*q == '#' || *q == '^' || *q == '/' || *q == '<') && (size_t)(e - q - 1) == len &&
		    strncmp(q + 1, name, len) == 0) {
			if (*q != '/')
				nest++;
			else if (nest-- == 0) {
				*close_end = e + 2;
				return p;
			}
		}
		p = e + 2;
	}
	return NULL;
}

static int render_range(struct render *r, const char *p, const char *end);

/* A streamed list's section body, rendered once per item it gives. */
struct streamed {
	struct render *r;
	const char *body, *body_end;
};

static int render_item(struct render *r, json_t *item, const char *body, const char *body_end)
{
	int error;

	r->stack[r->depth++] = item;
	error = render_range(r, body, body_end);
	r->depth--;
	return error < 0 ? error : flush(r, 0);
}

static int streamed_item(json_t *item, void *renderer)
{
	struct streamed *s = renderer;
	return render_item(s->r, item, s->body, s->body_end);
}

static const struct mt_template_list *streamed_list(const struct render *r, const char *name,
						    size_t len)
{
	for (const struct mt_template_list *l = r->lists; l && l->name; l++)
		if (strlen(l->name) == len && strncmp(l->name, name, len) == 0)
			return l;
	return NULL;
}

static int render_section(struct render *r, char kind, const char *name, size_t len,
			  const char *body, const char *body_end)
{
	const struct mt_template_list *list = kind == '#' ? streamed_list(r, name, len) : NULL;
	json_t *v;
	int error = 0;

	v = list ? NULL : lookup(r, name, len);
	if (kind == '^')
		return truthy(v) ? 0 : render_range(r, body, body_end);
	if (!list && !truthy(v))
		return 0;
	if (r->depth >= MAX_DEPTH)
		return mt_error_set(MT_EINVALID, "%s: sections nested too deeply", r->name);
	if (list) {
		struct streamed s = {r, body, body_end};
		return list->foreach(list->payload, streamed_item, &s);
	}
	if (json_is_array(v)) {
		size_t i;
		json_t *item;
		json_array_foreach(v, i, item) {
			if ((error = render_item(r, item, body, body_end)) < 0)
				break;
		}
		return error;
	}
	r->stack[r->depth++] = v;
	error = render_range(r, body, body_end);
	r->depth--;
	return error;
}

static const char *line_begin(const char *p, const char *floor)
{
	while (p > floor && p[-1] != '\n')
		p--;
	return p;
}

/* The body of the section whose opening tag ends at `after`: *body_end
 * before its closing tag (or that tag's line, when standalone), *pp after. */
static int section_body(struct render *r, const char *q, size_t len, const char *tag,
			const char *after, const char **body_end, const char **pp)
{
	const char *close_end, *skip;
	const char *close = find_close(after, r->end, q, len, &close_end);

	if (!close)
		return mt_error_set(MT_EINVALID, "%s:%d: section '%.*s' is not closed", r->name,
				    line_of(r, tag), (int)len, q);
	*body_end = close;
	if (standalone(line_begin(close, after), close, close_end, &skip)) {
		*body_end = line_begin(close, after);
		close_end = skip;
	}
	*pp = close_end;
	return 0;
}

static int open_section(struct render *r, char kind, const char *q, size_t len,
			const char *tag, const char *after, const char **pp)
{
	const char *body_end;
	int error = section_body(r, q, len, tag, after, &body_end, pp);

	if (error < 0 || kind == '<') /* a block is rendered where {{>name}} asks */
		return error;
	return render_section(r, kind, q, len, after, body_end);
}

/* {{>name}}: the block {{<name}}...{{/name}}, defined anywhere in the
 * template, rendered here in the current context. */
static int render_block(struct render *r, const char *q, size_t len, const char *tag)
{
	const char *p = r->tmpl, *def = NULL, *after, *body, *body_end, *skip;
	int error;

	for (int i = 0; i < r->nfound; i++)
		if (r->found[i].len == len && strncmp(r->found[i].name, q, len) == 0) {
			body = r->found[i].body, body_end = r->found[i].body_end;
			goto render;
		}
	while ((p = strstr(p, "{{<")) && p < r->end) {
		after = p + 3;
		if (strncmp(after, q, len) == 0 && strncmp(after + len, "}}", 2) == 0) {
			def = p;
			break;
		}
		p = after;
	}
	if (!def)
		return mt_error_set(MT_EINVALID, "%s:%d: no block '%.*s' ({{<%.*s}})", r->name,
				    line_of(r, tag), (int)len, q, (int)len, q);
	body = def + 3 + len + 2;
	if (standalone(line_begin(def, r->tmpl), def, body, &skip))
		body = skip;
	if ((error = section_body(r, q, len, def, body, &body_end, &p)) < 0)
		return error;
	if (r->nfound < MAX_DEPTH) {
		r->found[r->nfound].name = q, r->found[r->nfound].len = len;
		r->found[r->nfound].body = body, r->found[r->nfound++].body_end = body_end;
	}
render:
	if (r->blocks >= MAX_DEPTH)
		return mt_error_set(MT_EINVALID, "%s: blocks nested too deeply", r->name);
	r->blocks++;
	error = render_range(r, body, body_end);
	r->blocks--;
	return error;
}

static int render_tag(struct render *r, const char **pp, const char *line_start)
{
	const char *tag = *pp, *q = tag + 2, *e = strstr(q, "}}"), *after, *skip;
	char kind;
	size_t len;

	if (!e || e >= r->end)
		return mt_error_set(MT_EINVALID, "%s:%d: '{{' without '}}'", r->name,
				    line_of(r, tag));
	after = e + 2;
	kind = strchr("#^/!&<>", *q) && *q ? *q++ : 0;
	while (*q == ' ')
		q++;
	len = (size_t)(e - q);
	while (len && q[len - 1] == ' ')
		len--;
	if (kind && kind != '&' && standalone(line_start, tag, after, &skip)) {
		r->out->len -= (size_t)(tag - line_start);
		r->out->ptr[r->out->len] = '\0';
		after = skip;
	}
	*pp = after;
	if (kind == '!')
		return 0;
	if (kind == '/')
		return mt_error_set(MT_EINVALID, "%s:%d: '{{/%.*s}}' closes no section", r->name,
				    line_of(r, tag), (int)len, q);
	if (!kind || kind == '&') {
		emit_value(r, lookup(r, q, len), kind == '&');
		return 0;
	}
	if (kind == '>')
		return render_block(r, q, len, tag);
	return open_section(r, kind, q, len, tag, after, pp);
}

static int render_range(struct render *r, const char *p, const char *end)
{
	const char *range_start = p;
	int error;

	while (p < end) {
		const char *tag = strstr(p, "{{");
		if (!tag || tag >= end) {
			mt_buf_put(r->out, p, (size_t)(end - p));
			break;
		}
		mt_buf_put(r->out, p, (size_t)(tag - p));
		p = tag;
		if ((error = render_tag(r, &p, line_begin(tag, range_start))) < 0)
			return error;
	}
	return 0;
}

static int render(mt_buf *buf, FILE *sink, const char *tmpl, json_t *model, const char *name,
		  const struct mt_template_list *lists)
{
	struct render r = {.tmpl = tmpl, .name = name, .escape = mt_template_escape_for(name),
			   .out = buf, .sink = sink, .lists = lists, .depth = 1};
	int error;

	r.end = tmpl + strlen(tmpl);
	r.stack[0] = model;
	mt_buf_puts(buf, "");
	error = render_range(&r, tmpl, r.end);
	return error < 0 ? error : flush(&r, 1);
}

int mt_template_render(char **out, const char *tmpl, json_t *model, const char *name)
{
	mt_buf buf = MT_BUF_INIT;
	int error = render(&buf, NULL, tmpl, model, name, NULL);

	*out = NULL;
	if (error < 0) {
		mt_buf_dispose(&buf);
		return error;
	}
	*out = mt_buf_detach(&buf);
	return 0;
}

int mt_template_write(FILE *out, const char *tmpl, json_t *model, const char *name,
		      const struct mt_template_list *lists)
{
	mt_buf buf = MT_BUF_INIT;
	int error = render(&buf, out, tmpl, model, name, lists);

	mt_buf_dispose(&buf);
	return error;
}

enum mt_template_escape mt_template_escape_for(const char *name)
{
	size_t n = strlen(name);
	if (n >= 5 && strcmp(name + n - 5, ".html") == 0)
		return MT_TEMPLATE_HTML;
	if (n >= 3 && strcmp(name + n - 3, ".md") == 0)
		return MT_TEMPLATE_MARKDOWN;
	return MT_TEMPLATE_TEXT;
}

int mt_template_load(char **out, const char *name)
{
	return mt_embedded_load(out, mt_embedded_templates, "MTRIAL_TEMPLATE_DIR", name);
}
