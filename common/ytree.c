/* YAML -> a tree of mt_ynode, read with libyaml's event API. Every node and
 * string lives in one arena, so a reader that stops half-way frees nothing
 * node by node, and a partial tree is as easy to hand out as a whole one. */
#include "ytree.h"
#include "arena.h"
#include "error.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* libyaml resolves "!!str" to this; messages show what the user wrote. */
#define YAML_PREFIX "tag:yaml.org,2002:"

struct mt_ytree {
	mt_ynode *root;
	mt_arena *arena;
};

struct reader {
	yaml_parser_t parser;
	const char *name; /* prefixes every message */
	const char *text;
	size_t len;
	unsigned flags;
	int in_key;       /* reading a key: faults say so */
	mt_arena **arena;
	mt_yfault *fault; /* never NULL */
};

static mt_ynode *node_new(struct reader *r, enum mt_ynode_kind kind, const yaml_mark_t *mark)
{
	mt_ynode *n = mt_arena_alloc(r->arena, sizeof(*n));

	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = (uint32_t)mark->line + 1;
	n->col = (uint32_t)mark->column + 1;
	return n;
}

/* An arena cannot grow a block in place: a full array is copied into one
 * twice its size, and the old one stays until the tree is freed. */
static void node_append(struct reader *r, mt_ynode *parent, mt_ynode *kid)
{
	if (parent->n == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		mt_ynode **kids = mt_arena_alloc(r->arena, cap * sizeof(*kids));
		if (parent->n)
			memcpy(kids, parent->kids, parent->n * sizeof(*kids));
		parent->kids = kids;
		parent->cap = cap;
	}
	parent->kids[parent->n++] = kid;
}

static int fault_at(const struct reader *r, enum mt_yfault_kind kind, const yaml_mark_t *m,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Records the fault and sets "name:LINE:COL: what". */
static int fault_at(const struct reader *r, enum mt_yfault_kind kind, const yaml_mark_t *m,
		    const char *fmt, ...)
{
	va_list ap;
	int error;

	r->fault->kind = kind;
	r->fault->line = (uint32_t)m->line + 1;
	r->fault->col = (uint32_t)m->column + 1;
	r->fault->at_key = r->in_key;
	r->fault->too_deep = 0;
	va_start(ap, fmt);
	error = mt_error_vat(MT_EINVALID, r->name, m->line + 1, m->column + 1, fmt, ap);
	va_end(ap);
	return error;
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
	mt_yfault *f = r->fault;

	if (p->error == YAML_MEMORY_ERROR) {
		f->kind = MT_YFAULT_MEMORY;
		return mt_error_set(MT_EIO, "%s: out of memory while reading YAML", r->name);
	}
	if (p->error == YAML_READER_ERROR) {
		m = offset_mark(r, p->problem_offset);
		f->problem = p->problem ? p->problem : "unreadable";
		f->offset = p->problem_offset;
		return fault_at(r, MT_YFAULT_ENCODING, &m, "%s (byte 0x%02X)", f->problem,
				(unsigned)p->problem_value & 0xFFu);
	}
	f->problem = p->problem ? p->problem : "invalid YAML";
	f->context = p->context;
	if (!p->context)
		return fault_at(r, MT_YFAULT_SYNTAX, &m, "%s", f->problem);
	if (cm->line == m.line && cm->column == m.column)
		return fault_at(r, MT_YFAULT_SYNTAX, &m, "%s (%s)", f->problem, p->context);
	return fault_at(r, MT_YFAULT_SYNTAX, &m, "%s (%s at %zu:%zu)", f->problem, p->context,
			cm->line + 1, cm->column + 1);
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

/* Plain data: anchors, aliases and tags would let one value stand for
 * another or change its type behind the caller's back. */
static int refuse_props(const struct reader *r, const yaml_event_t *ev)
{
	const size_t core = strlen(YAML_PREFIX);
	const char *anchor, *tag;
	char *detail = r->fault->detail;
	size_t size = sizeof(r->fault->detail);

	if (ev->type == YAML_ALIAS_EVENT) {
		snprintf(detail, size, "%s", (const char *)ev->data.alias.anchor);
		return fault_at(r, MT_YFAULT_ALIAS, &ev->start_mark,
				"aliases (*%s) are not supported: write the value out",
				(const char *)ev->data.alias.anchor);
	}
	event_props(ev, &anchor, &tag);
	if (anchor && !(r->flags & MT_YTREE_ANCHORS)) {
		snprintf(detail, size, "%s", anchor);
		return fault_at(r, MT_YFAULT_ANCHOR, &ev->start_mark,
				"anchors (&%s) are not supported", anchor);
	}
	if (!tag || (r->flags & MT_YTREE_TAGS))
		return 0;
	snprintf(detail, size, "%s", tag);
	if (strncmp(tag, YAML_PREFIX, core) == 0)
		return fault_at(r, MT_YFAULT_TAG, &ev->start_mark,
				"tags (!!%s) are not supported: quote a value to make it text",
				tag + core);
	return fault_at(r, MT_YFAULT_TAG, &ev->start_mark, "tags (%s) are not supported", tag);
}

/* The same, noting for callers that word faults their own way whether the
 * node was also too deep (they may have checked the depth first). */
static int check_props(const struct reader *r, const yaml_event_t *ev, int depth)
{
	int error = refuse_props(r, ev);

	if (error < 0)
		r->fault->too_deep = depth > MT_YTREE_MAX_DEPTH;
	return error;
}

/* A copy of a scalar's bytes; NUL (from a "\0" escape) would silently cut
 * every C string that holds the value, so it is refused unless asked. */
static int scalar_text(struct reader *r, const yaml_event_t *ev, char **out)
{
	size_t len = ev->data.scalar.length;

	*out = NULL;
	if (!(r->flags & MT_YTREE_NUL) && memchr(ev->data.scalar.value, '\0', len))
		return fault_at(r, MT_YFAULT_NUL, &ev->start_mark,
				"a value must not contain a NUL character");
	*out = mt_arena_strndup(r->arena, (const char *)ev->data.scalar.value, len);
	return 0;
}

static int read_scalar(struct reader *r, const yaml_event_t *ev, mt_ynode **out)
{
	mt_ynode *n;
	char *text;
	int error = scalar_text(r, ev, &text);

	if (error < 0)
		return error;
	n = node_new(r, MT_YNODE_SCALAR, &ev->start_mark);
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	n->text = text;
	if ((r->flags & MT_YTREE_NULL_EMPTY) && mt_ytree_is_null(n))
		text[0] = '\0';
	*out = n;
	return 0;
}

static int read_node(struct reader *r, yaml_event_t *ev, int depth, mt_ynode **out);

static int read_items(struct reader *r, mt_ynode *list, int depth)
{
	mt_ynode *item;
	yaml_event_t ev;
	int error;

	for (;;) {
		if ((error = next_event(r, &ev)) < 0)
			return error;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		error = read_node(r, &ev, depth + 1, &item);
		if (item)
			node_append(r, list, item);
		if (error < 0)
			return error;
	}
}

/* Consumes the key's event; a key must be a scalar. *key stays NULL on
 * failure, and *collection says that the key was a list or a map. */
static int read_key(struct reader *r, yaml_event_t *ev, char **key, int *collection)
{
	int error;

	*key = NULL;
	r->in_key = 1;
	error = check_props(r, ev, 0);
	*collection = ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT;
	if (!error && *collection)
		error = fault_at(r, MT_YFAULT_KEY, &ev->start_mark,
				 "a key must be plain text, not a list or map");
	if (!error)
		error = scalar_text(r, ev, key);
	r->in_key = 0;
	yaml_event_delete(ev);
	return error;
}

/* Reads one "key: value" into map; *done is set at the end of the map. */
static int read_member(struct reader *r, mt_ynode *map, int depth, int *done)
{
	const mt_ynode *first;
	mt_ynode *value = NULL;
	yaml_mark_t kmark;
	yaml_event_t ev;
	char *key = NULL;
	int error, collection = 0;

	if ((error = next_event(r, &ev)) < 0)
		return error;
	if (ev.type == YAML_MAPPING_END_EVENT) {
		yaml_event_delete(&ev);
		*done = 1;
		return 0;
	}
	kmark = ev.start_mark;
	error = read_key(r, &ev, &key, &collection);
	if (!error && !(r->flags & MT_YTREE_DUPLICATES) && (first = mt_ytree_get(map, key))) {
		error = fault_at(r, MT_YFAULT_DUPLICATE, &kmark,
				 "duplicate key '%s' (first at line %u)", key,
				 (unsigned)first->key_line);
		r->fault->at_key = 1;
		snprintf(r->fault->detail, sizeof(r->fault->detail), "%s", key);
	}
	if (!error && (error = next_event(r, &ev)) == 0)
		error = read_node(r, &ev, depth + 1, &value);
	if (!value && (key || collection)) /* for MT_YTREE_PARTIAL: the value not reached */
		value = node_new(r, MT_YNODE_NONE, &kmark);
	if (value) {
		value->key = key;
		value->key_line = (uint32_t)kmark.line + 1;
		value->key_col = (uint32_t)kmark.column + 1;
		node_append(r, map, value);
	}
	return error;
}

static int read_members(struct reader *r, mt_ynode *map, int depth)
{
	int error, done = 0;

	while (!done)
		if ((error = read_member(r, map, depth, &done)) < 0)
			return error;
	return 0;
}

/* Reads the node that starts with *ev, which it consumes. *out is the node,
 * as far as it was read, even on failure; NULL when not even started. */
static int read_node(struct reader *r, yaml_event_t *ev, int depth, mt_ynode **out)
{
	int error = check_props(r, ev, depth);

	*out = NULL;
	if (!error && depth > MT_YTREE_MAX_DEPTH)
		error = fault_at(r, MT_YFAULT_DEPTH, &ev->start_mark,
				 "nested deeper than %d levels", MT_YTREE_MAX_DEPTH);
	if (error < 0)
		goto cleanup;
	if (ev->type == YAML_SCALAR_EVENT) {
		error = read_scalar(r, ev, out);
	} else if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT) {
		int map = ev->type == YAML_MAPPING_START_EVENT;
		*out = node_new(r, map ? MT_YNODE_MAP : MT_YNODE_LIST, &ev->start_mark);
		(*out)->open = 1;
		error = map ? read_members(r, *out, depth) : read_items(r, *out, depth);
		(*out)->open = error < 0;
	} else {
		error = fault_at(r, MT_YFAULT_SYNTAX, &ev->start_mark, "unexpected YAML event %d",
				 (int)ev->type);
	}
cleanup:
	yaml_event_delete(ev);
	return error;
}

/* Reads the next event and checks its type; the event is consumed. */
static int expect_event(struct reader *r, yaml_event_type_t type)
{
	yaml_event_t ev;
	int error = next_event(r, &ev);

	if (error < 0)
		return error;
	if (ev.type != type && type == YAML_STREAM_END_EVENT)
		error = fault_at(r, MT_YFAULT_DOCUMENTS, &ev.start_mark,
				 "only one YAML document is allowed");
	else if (ev.type != type)
		error = fault_at(r, MT_YFAULT_SYNTAX, &ev.start_mark, "unexpected YAML event %d",
				 (int)ev.type);
	yaml_event_delete(&ev);
	return error;
}

/* The whole stream: no document (an empty root) or exactly one. */
static int read_stream(struct reader *r, mt_ynode **root)
{
	yaml_event_t ev;
	int error;

	*root = NULL;
	if ((error = expect_event(r, YAML_STREAM_START_EVENT)) < 0 ||
	    (error = next_event(r, &ev)) < 0)
		return error;
	if (ev.type == YAML_STREAM_END_EVENT) {
		int map = (r->flags & MT_YTREE_EMPTY_MAP) != 0;
		*root = node_new(r, map ? MT_YNODE_MAP : MT_YNODE_NONE, &ev.start_mark);
		yaml_event_delete(&ev);
		return 0;
	}
	yaml_event_delete(&ev); /* the document start */
	if ((error = next_event(r, &ev)) < 0 || (error = read_node(r, &ev, 0, root)) < 0)
		return error;
	if ((error = expect_event(r, YAML_DOCUMENT_END_EVENT)) < 0)
		return error;
	return expect_event(r, YAML_STREAM_END_EVENT);
}

int mt_ytree_parse(mt_ytree **out, const char *text, size_t len, const char *name,
		   unsigned flags, mt_yfault *fault)
{
	static const yaml_mark_t start = {0, 0, 0};
	mt_yfault ignored;
	struct reader r = {.name = name ? name : "<input>", .text = text ? text : "",
			   .len = text ? len : 0, .flags = flags, .fault = fault ? fault : &ignored};
	mt_ytree *tree;
	int error;

	*out = NULL;
	memset(r.fault, 0, sizeof(*r.fault));
	if (!yaml_parser_initialize(&r.parser)) {
		r.fault->kind = MT_YFAULT_MEMORY;
		return mt_error_set(MT_EIO, "%s: out of memory while reading YAML", r.name);
	}
	tree = calloc(1, sizeof(*tree));
	if (!tree)
		abort(); /* as mt_strdup() does */
	r.arena = &tree->arena;
	yaml_parser_set_input_string(&r.parser, (const unsigned char *)r.text, r.len);
	error = read_stream(&r, &tree->root);
	yaml_parser_delete(&r.parser);
	if (error < 0 && !(flags & MT_YTREE_PARTIAL)) {
		mt_ytree_free(tree);
		return error;
	}
	if (!tree->root) /* failed before the first node */
		tree->root = node_new(&r, MT_YNODE_NONE, &start);
	*out = tree;
	return error;
}

void mt_ytree_free(mt_ytree *tree)
{
	if (!tree)
		return;
	mt_arena_free(tree->arena);
	free(tree);
}

const mt_ynode *mt_ytree_root(const mt_ytree *tree)
{
	return tree->root;
}

const mt_ynode *mt_ytree_getn(const mt_ynode *map, const char *key, size_t len)
{
	if (!map || map->kind != MT_YNODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++) {
		const char *k = map->kids[i]->key;
		if (k && strlen(k) == len && memcmp(k, key, len) == 0)
			return map->kids[i];
	}
	return NULL;
}

const mt_ynode *mt_ytree_get(const mt_ynode *map, const char *key)
{
	return mt_ytree_getn(map, key, strlen(key));
}

int mt_ytree_is_null(const mt_ynode *n)
{
	static const char *const words[] = {"", "~", "null", "Null", "NULL", NULL};

	return n->kind == MT_YNODE_SCALAR && n->plain && mt_str_in(n->text, words);
}

/* The reader's faults in the words the dependency and findings tables used
 * before the shared reader (which says the same things at the same places,
 * in more words); the tests and the tables' authors know these. */
static int yaml_words(const char *name, const mt_yfault *f, int error)
{
	const char *what;

	switch (f->kind) {
	case MT_YFAULT_ENCODING:
		return mt_error_set(MT_EINVALID, "%s: %s at byte %zu", name, f->problem, f->offset);
	case MT_YFAULT_SYNTAX:
		if (!f->context)
			return error;
		return mt_error_set(MT_EINVALID, "%s:%u:%u: %s %s", name, f->line, f->col,
				    f->problem, f->context);
	case MT_YFAULT_DUPLICATE:
		return mt_error_set(MT_EINVALID, "%s:%u:%u: duplicate key %s", name, f->line,
				    f->col, f->detail);
	case MT_YFAULT_ALIAS: /* the depth was checked first, and a key's kind */
		what = f->too_deep ? "nested too deeply"
		       : f->at_key ? "a key must be plain text"
				   : "aliases are not supported: write the value out";
		break;
	case MT_YFAULT_KEY:
		what = "a key must be plain text";
		break;
	case MT_YFAULT_DEPTH:
		what = "nested too deeply";
		break;
	default:
		return error;
	}
	return mt_error_set(MT_EINVALID, "%s:%u:%u: %s", name, f->line, f->col, what);
}

int mt_ytree_parse_table(mt_ytree **out, const char *text, size_t len, const char *name)
{
	const unsigned flags = MT_YTREE_ANCHORS | MT_YTREE_TAGS | MT_YTREE_NUL | MT_YTREE_EMPTY_MAP;
	mt_yfault fault;
	int error = mt_ytree_parse(out, text, len, name, flags, &fault);

	return error < 0 ? yaml_words(name, &fault, error) : 0;
}
