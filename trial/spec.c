/* trial.yaml -> a tree of maps, lists and scalars that remember where they
 * were written, read with libyaml's event API. What the keys mean is the
 * business of spec_schema.c; this file only knows YAML. */
#define MT_SPEC_INTERNAL
#include "spec.h"
#include "error.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Far deeper than any schema path (four levels); the limit bounds the
 * recursive reader's stack on hostile input such as "[[[[[[...". */
#define SPEC_MAX_DEPTH 64

/* libyaml resolves "!!str" to this; messages show what the user wrote. */
#define YAML_PREFIX "tag:yaml.org,2002:"

struct mt_spec {
	mt_snode *root;
};

struct reader {
	yaml_parser_t parser;
	const char *name; /* the path or label that prefixes every message */
	const char *text;
	size_t len;
};

static mt_snode *node_new(enum mt_snode_kind kind, const yaml_mark_t *mark)
{
	mt_snode *n = calloc(1, sizeof(*n));

	/* Out of memory aborts, as mt_strdup() does: the tree is tiny. */
	if (!n)
		abort();
	n->kind = kind;
	n->line = mark->line + 1;
	n->col = mark->column + 1;
	return n;
}

static void node_free(mt_snode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->key);
	free(n->text);
	free(n);
}

static void node_append(mt_snode *parent, mt_snode *kid)
{
	if (parent->n == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		mt_snode **kids = realloc(parent->kids, cap * sizeof(*kids));
		if (!kids)
			abort();
		parent->kids = kids;
		parent->cap = cap;
	}
	parent->kids[parent->n++] = kid;
}

static int fail_at(const struct reader *r, const yaml_mark_t *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(const struct reader *r, const yaml_mark_t *m, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mt_error_set(MT_EINVALID, "%s:%zu:%zu: %s", r->name, m->line + 1, m->column + 1,
			    msg);
}

/* Reader errors (bad UTF-8, control characters) carry a byte offset, not a
 * mark: count lines up to it so every message has the same shape. */
static yaml_mark_t offset_mark(const struct reader *r, size_t offset)
{
	yaml_mark_t m = {0, 0, 0};

	for (size_t i = 0; i < offset && i < r->len; i++) {
		if (r->text[i] == '\n') {
			m.line++;
			m.column = 0;
		} else {
			m.column++;
		}
	}
	return m;
}

/* libyaml's own words, at its own position, so the user sees what the
 * YAML parser saw. The context's mark is added when it is elsewhere (an
 * unclosed quote fails at the end of the file but started earlier). */
static int yaml_problem(const struct reader *r)
{
	const yaml_parser_t *p = &r->parser;
	const yaml_mark_t *cm = &p->context_mark;
	yaml_mark_t m = p->problem_mark;

	if (p->error == YAML_MEMORY_ERROR)
		return mt_error_set(MT_EIO, "%s: out of memory while reading YAML", r->name);
	if (p->error == YAML_READER_ERROR) {
		m = offset_mark(r, p->problem_offset);
		return fail_at(r, &m, "%s (byte 0x%02X)", p->problem ? p->problem : "unreadable",
			       (unsigned)p->problem_value & 0xFFu);
	}
	if (!p->context)
		return fail_at(r, &m, "%s", p->problem ? p->problem : "invalid YAML");
	if (cm->line == m.line && cm->column == m.column)
		return fail_at(r, &m, "%s (%s)", p->problem, p->context);
	return fail_at(r, &m, "%s (%s at %zu:%zu)", p->problem, p->context, cm->line + 1,
		       cm->column + 1);
}

static int next_event(struct reader *r, yaml_event_t *ev)
{
	if (yaml_parser_parse(&r->parser, ev))
		return 0;
	return yaml_problem(r);
}

/* The anchor and tag of a node's first event, if it has them. */
static void event_props(const yaml_event_t *ev, const char **anchor, const char **tag)
{
	const yaml_char_t *a = NULL, *t = NULL;

	if (ev->type == YAML_SCALAR_EVENT) {
		a = ev->data.scalar.anchor;
		t = ev->data.scalar.tag;
	} else if (ev->type == YAML_SEQUENCE_START_EVENT) {
		a = ev->data.sequence_start.anchor;
		t = ev->data.sequence_start.tag;
	} else if (ev->type == YAML_MAPPING_START_EVENT) {
		a = ev->data.mapping_start.anchor;
		t = ev->data.mapping_start.tag;
	}
	*anchor = (const char *)a;
	*tag = (const char *)t;
}

/* The spec is plain data: anchors, aliases and tags would let one value
 * stand for another or change its type behind the schema's back. */
static int check_event(const struct reader *r, const yaml_event_t *ev)
{
	const size_t core = strlen(YAML_PREFIX);
	const char *anchor, *tag;

	if (ev->type == YAML_ALIAS_EVENT)
		return fail_at(r, &ev->start_mark,
			       "aliases (*%s) are not supported: write the value out",
			       (const char *)ev->data.alias.anchor);
	event_props(ev, &anchor, &tag);
	if (anchor)
		return fail_at(r, &ev->start_mark, "anchors (&%s) are not supported", anchor);
	if (tag && strncmp(tag, YAML_PREFIX, core) == 0)
		return fail_at(r, &ev->start_mark,
			       "tags (!!%s) are not supported: quote a value to make it text",
			       tag + core);
	if (tag)
		return fail_at(r, &ev->start_mark, "tags (%s) are not supported", tag);
	return 0;
}

/* A copy of a scalar's bytes; NUL (from a "\0" escape) would silently cut
 * every C string that holds the value, so it is refused. */
static int scalar_text(const struct reader *r, const yaml_event_t *ev, char **out)
{
	size_t len = ev->data.scalar.length;
	char *text;

	*out = NULL;
	if (memchr(ev->data.scalar.value, '\0', len))
		return fail_at(r, &ev->start_mark, "a value must not contain a NUL character");
	text = malloc(len + 1);
	if (!text)
		abort();
	memcpy(text, ev->data.scalar.value, len);
	text[len] = '\0';
	*out = text;
	return 0;
}

static int is_null_word(const char *s)
{
	static const char *const words[] = {"~", "null", "Null", "NULL", NULL};
	return mt_str_in(s, words);
}

static int read_scalar(const struct reader *r, const yaml_event_t *ev, mt_snode **out)
{
	mt_snode *n;
	char *text;
	int error = scalar_text(r, ev, &text);

	if (error < 0)
		return error;
	n = node_new(MT_SNODE_SCALAR, &ev->start_mark);
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	/* A YAML null is an empty value: "not yet known" either way. */
	if (n->plain && is_null_word(text))
		text[0] = '\0';
	n->text = text;
	*out = n;
	return 0;
}

static int read_node(struct reader *r, yaml_event_t *ev, int depth, mt_snode **out);

static int read_list(struct reader *r, const yaml_mark_t *mark, int depth, mt_snode **out)
{
	mt_snode *list = node_new(MT_SNODE_LIST, mark), *item;
	yaml_event_t ev;
	int error;

	for (;;) {
		if ((error = next_event(r, &ev)) < 0)
			goto cleanup;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if ((error = read_node(r, &ev, depth + 1, &item)) < 0)
			goto cleanup;
		node_append(list, item);
	}
	*out = list;
	return 0;
cleanup:
	node_free(list);
	return error;
}

/* Consumes the key's event; a key must be a scalar. */
static int read_key(const struct reader *r, yaml_event_t *ev, char **key, yaml_mark_t *mark)
{
	int error = check_event(r, ev);

	*key = NULL;
	*mark = ev->start_mark;
	if (!error && ev->type != YAML_SCALAR_EVENT)
		error = fail_at(r, &ev->start_mark, "a key must be plain text, not a list or map");
	if (!error)
		error = scalar_text(r, ev, key);
	yaml_event_delete(ev);
	return error;
}

static const mt_snode *map_find(const mt_snode *map, const char *key, size_t len)
{
	for (size_t i = 0; i < map->n; i++) {
		const char *k = map->kids[i]->key;
		if (strlen(k) == len && memcmp(k, key, len) == 0)
			return map->kids[i];
	}
	return NULL;
}

/* Reads one "key: value" into map; *done is set at the end of the map. */
static int read_member(struct reader *r, mt_snode *map, int depth, int *done)
{
	yaml_event_t ev;
	yaml_mark_t kmark;
	const mt_snode *first;
	mt_snode *value = NULL;
	char *key = NULL;
	int error;

	if ((error = next_event(r, &ev)) < 0)
		return error;
	if (ev.type == YAML_MAPPING_END_EVENT) {
		yaml_event_delete(&ev);
		*done = 1;
		return 0;
	}
	if ((error = read_key(r, &ev, &key, &kmark)) < 0)
		goto cleanup;
	if ((first = map_find(map, key, strlen(key))) != NULL) {
		error = fail_at(r, &kmark, "duplicate key '%s' (first at line %zu)", key,
				first->key_line);
		goto cleanup;
	}
	if ((error = next_event(r, &ev)) < 0 || (error = read_node(r, &ev, depth + 1, &value)) < 0)
		goto cleanup;
	value->key = key;
	value->key_line = kmark.line + 1;
	value->key_col = kmark.column + 1;
	node_append(map, value);
	return 0;
cleanup:
	free(key);
	return error;
}

static int read_map(struct reader *r, const yaml_mark_t *mark, int depth, mt_snode **out)
{
	mt_snode *map = node_new(MT_SNODE_MAP, mark);
	int error, done = 0;

	while (!done) {
		if ((error = read_member(r, map, depth, &done)) < 0) {
			node_free(map);
			return error;
		}
	}
	*out = map;
	return 0;
}

/* Reads the node that starts with *ev, which it consumes. */
static int read_node(struct reader *r, yaml_event_t *ev, int depth, mt_snode **out)
{
	int error = check_event(r, ev);

	*out = NULL;
	if (error < 0)
		goto cleanup;
	if (depth > SPEC_MAX_DEPTH) {
		error = fail_at(r, &ev->start_mark, "nested deeper than %d levels", SPEC_MAX_DEPTH);
		goto cleanup;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		error = read_scalar(r, ev, out);
		break;
	case YAML_SEQUENCE_START_EVENT:
		error = read_list(r, &ev->start_mark, depth, out);
		break;
	case YAML_MAPPING_START_EVENT:
		error = read_map(r, &ev->start_mark, depth, out);
		break;
	default:
		error = fail_at(r, &ev->start_mark, "unexpected YAML event %d", (int)ev->type);
		break;
	}
cleanup:
	yaml_event_delete(ev);
	return error;
}

/* Reads the next event and checks its type; the event is consumed. */
static int expect_event(struct reader *r, yaml_event_type_t type, yaml_event_t *ev)
{
	int error = next_event(r, ev);

	if (error < 0)
		return error;
	if (ev->type != type && type == YAML_STREAM_END_EVENT)
		error = fail_at(r, &ev->start_mark, "only one YAML document is allowed");
	else if (ev->type != type)
		error = fail_at(r, &ev->start_mark, "unexpected YAML event %d", (int)ev->type);
	yaml_event_delete(ev);
	return error;
}

static int check_root(const struct reader *r, const mt_snode *root)
{
	yaml_mark_t m = {0, root->line - 1, root->col - 1};

	if (root->kind == MT_SNODE_MAP)
		return 0;
	if (root->kind == MT_SNODE_SCALAR && root->text[0] == '\0')
		return fail_at(r, &m,
			       "the document is empty (expected keys such as schema: and name:)");
	return fail_at(r, &m, "the top level must be a map of keys (schema:, name:, ...), not %s",
		       root->kind == MT_SNODE_LIST ? "a list" : "a single value");
}

/* The whole stream: exactly one document whose top level is a map. */
static int read_document(struct reader *r, mt_snode **out)
{
	mt_snode *root = NULL;
	yaml_event_t ev;
	int error;

	*out = NULL;
	if ((error = expect_event(r, YAML_STREAM_START_EVENT, &ev)) < 0)
		return error;
	if ((error = next_event(r, &ev)) < 0)
		return error;
	if (ev.type == YAML_STREAM_END_EVENT) {
		error = fail_at(r, &ev.start_mark,
				"the file is empty (expected keys such as schema: and name:)");
		yaml_event_delete(&ev);
		return error;
	}
	yaml_event_delete(&ev); /* the document start */
	if ((error = next_event(r, &ev)) < 0 || (error = read_node(r, &ev, 0, &root)) < 0)
		return error;
	if ((error = expect_event(r, YAML_DOCUMENT_END_EVENT, &ev)) < 0 ||
	    (error = expect_event(r, YAML_STREAM_END_EVENT, &ev)) < 0 ||
	    (error = check_root(r, root)) < 0) {
		node_free(root);
		return error;
	}
	*out = root;
	return 0;
}

int mt_spec_parse(mt_spec **out, const char *text, size_t len, const char *name)
{
	struct reader r = {.name = name ? name : "<input>", .text = text ? text : "",
			   .len = text ? len : 0};
	mt_snode *root = NULL;
	int error;

	*out = NULL;
	if (!yaml_parser_initialize(&r.parser))
		return mt_error_set(MT_EIO, "%s: out of memory while reading YAML", r.name);
	yaml_parser_set_input_string(&r.parser, (const unsigned char *)r.text, r.len);
	error = read_document(&r, &root);
	yaml_parser_delete(&r.parser);
	if (error < 0)
		return error;
	if ((error = mt_spec__validate(root, r.name)) < 0) {
		node_free(root);
		return error;
	}
	*out = calloc(1, sizeof(**out));
	if (!*out)
		abort();
	(*out)->root = root;
	return 0;
}

int mt_spec_load(mt_spec **out, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	int error;

	*out = NULL;
	if ((error = mt_file_read(&text, &len, path)) < 0)
		return error;
	error = mt_spec_parse(out, text, len, path);
	free(text);
	return error;
}

void mt_spec_free(mt_spec *spec)
{
	if (!spec)
		return;
	node_free(spec->root);
	free(spec);
}

/* A member of a map by key, or an item of a list by decimal index. */
static const mt_snode *node_child(const mt_snode *n, const char *part, size_t len)
{
	size_t index = 0;

	if (n->kind == MT_SNODE_MAP)
		return map_find(n, part, len);
	if (n->kind != MT_SNODE_LIST || len == 0 || len > 9)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (part[i] < '0' || part[i] > '9')
			return NULL;
		index = index * 10 + (size_t)(part[i] - '0');
	}
	return index < n->n ? n->kids[index] : NULL;
}

/* The node at a dotted path; "" or NULL is the top level. */
static const mt_snode *node_at(const mt_spec *spec, const char *path)
{
	const mt_snode *n = spec ? spec->root : NULL;

	if (!path)
		return n;
	while (n && *path) {
		size_t len = strcspn(path, ".");
		n = node_child(n, path, len);
		path += len;
		if (*path == '.' && *++path == '\0')
			return NULL; /* "a." names nothing */
	}
	return n;
}

/* An empty value reads as NULL too: "not yet known" is not a fact, and
 * callers test for a filled-in value with a NULL check. */
const char *mt_spec_get(const mt_spec *spec, const char *path)
{
	const mt_snode *n = node_at(spec, path);
	return n && n->kind == MT_SNODE_SCALAR && n->text[0] ? n->text : NULL;
}

size_t mt_spec_count(const mt_spec *spec, const char *path)
{
	const mt_snode *n = node_at(spec, path);
	return n && n->kind != MT_SNODE_SCALAR ? n->n : 0;
}

json_t *mt_spec_to_json(const mt_spec *spec)
{
	return spec ? mt_spec__json(spec->root) : NULL;
}
