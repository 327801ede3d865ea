/* common/ytree.c: positions of keys and values, quoted and plain scalars,
 * member order and lookup, every refusal with its exact message and its
 * fault, the flags that relax them, the depth limit and partial trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "util.h"
#include "ytree.h"

static mt_ytree *parse_ok(const char *text, unsigned flags)
{
	mt_ytree *t = NULL;

	mt_error_clear();
	if (mt_ytree_parse(&t, text, text ? strlen(text) : 0, "t.yaml", flags, NULL) != 0)
		fail_msg("for input:\n%s\ngot '%s'", text, mt_error_last());
	assert_non_null(t);
	assert_string_equal(mt_error_last(), "");
	return t;
}

/* Fails with MT_EINVALID and exactly `message`; returns the fault. */
static mt_yfault parse_fails(const char *text, size_t len, unsigned flags, const char *message)
{
	mt_ytree *t = (mt_ytree *)&t; /* must be reset to NULL */
	mt_yfault f;
	int error = mt_ytree_parse(&t, text, len, "t.yaml", flags, &f);

	if (error != MT_EINVALID || strcmp(mt_error_last(), message) != 0)
		fail_msg("for input:\n%s\nwant '%s'\ngot  %d '%s'", text, message, error,
			 mt_error_last());
	assert_null(t);
	return f;
}

static mt_yfault fails(const char *text, const char *message)
{
	return parse_fails(text, strlen(text), 0, message);
}

static void assert_at(const mt_ynode *n, uint32_t line, uint32_t col)
{
	assert_non_null(n);
	if (n->line != line || n->col != col)
		fail_msg("'%s': value at %u:%u, want %u:%u", n->key ? n->key : "-", n->line, n->col,
			 line, col);
}

static void assert_key_at(const mt_ynode *n, uint32_t line, uint32_t col)
{
	assert_non_null(n);
	if (n->key_line != line || n->key_col != col)
		fail_msg("'%s': key at %u:%u, want %u:%u", n->key, n->key_line, n->key_col, line,
			 col);
}

static void test_positions(void **state)
{
	static const char text[] = "name: x\n"               /* 1 */
				   "systems:\n"              /* 2 */
				   "  baseline:\n"           /* 3 */
				   "    count:   8\n"        /* 4 */
				   "  target: {count: 16}\n" /* 5 */
				   "list:\n"                 /* 6 */
				   "  - a\n"                 /* 7 */
				   "  -   [b, c]\n";         /* 8 */
	mt_ytree *t = parse_ok(text, 0);
	const mt_ynode *root = mt_ytree_root(t), *sys, *base, *count, *target, *list;

	(void)state;
	assert_int_equal(root->kind, MT_YNODE_MAP);
	assert_at(root, 1, 1);
	assert_null(root->key);
	assert_int_equal(root->n, 3);
	assert_key_at(mt_ytree_get(root, "name"), 1, 1);
	assert_at(mt_ytree_get(root, "name"), 1, 7);
	sys = mt_ytree_get(root, "systems");
	assert_key_at(sys, 2, 1);
	assert_at(sys, 3, 3); /* a block map starts at its first key */
	base = mt_ytree_get(sys, "baseline");
	assert_key_at(base, 3, 3);
	count = mt_ytree_get(base, "count");
	assert_key_at(count, 4, 5);
	assert_at(count, 4, 14);
	target = mt_ytree_get(sys, "target");
	assert_int_equal(target->kind, MT_YNODE_MAP);
	assert_at(target, 5, 11);
	assert_key_at(mt_ytree_get(target, "count"), 5, 12);
	assert_at(mt_ytree_get(target, "count"), 5, 19);
	list = mt_ytree_get(root, "list");
	assert_int_equal(list->kind, MT_YNODE_LIST);
	assert_int_equal(list->n, 2);
	assert_at(list->kids[0], 7, 5);
	assert_null(list->kids[0]->key);
	assert_int_equal(list->kids[1]->kind, MT_YNODE_LIST);
	assert_at(list->kids[1], 8, 7);
	assert_at(list->kids[1]->kids[1], 8, 11);
	assert_string_equal(list->kids[1]->kids[1]->text, "c");
	assert_int_equal(list->kids[1]->open, 0);
	mt_ytree_free(t);
}

static void test_scalars(void **state)
{
	static const char text[] = "plain: 8\n"
				   "double: \"8\"\n"
				   "single: '8'\n"
				   "block: |\n  two\n  lines\n"
				   "folded: >\n  one\n  line\n"
				   "empty:\n"
				   "tilde: ~\n"
				   "null_word: Null\n"
				   "quoted_null: \"null\"\n"
				   "escaped: \"a\\tb\"\n";
	mt_ytree *t = parse_ok(text, 0);
	const mt_ynode *root = mt_ytree_root(t);

	(void)state;
	assert_string_equal(mt_ytree_get(root, "plain")->text, "8");
	assert_true(mt_ytree_get(root, "plain")->plain);
	assert_string_equal(mt_ytree_get(root, "double")->text, "8");
	assert_false(mt_ytree_get(root, "double")->plain);
	assert_false(mt_ytree_get(root, "single")->plain);
	assert_string_equal(mt_ytree_get(root, "block")->text, "two\nlines\n");
	assert_false(mt_ytree_get(root, "block")->plain);
	assert_string_equal(mt_ytree_get(root, "folded")->text, "one line\n");
	assert_false(mt_ytree_get(root, "folded")->plain);
	assert_string_equal(mt_ytree_get(root, "escaped")->text, "a\tb");
	/* nulls are text as written unless asked */
	assert_string_equal(mt_ytree_get(root, "empty")->text, "");
	assert_int_equal(mt_ytree_get(root, "empty")->kind, MT_YNODE_SCALAR);
	assert_string_equal(mt_ytree_get(root, "tilde")->text, "~");
	assert_true(mt_ytree_is_null(mt_ytree_get(root, "empty")));
	assert_true(mt_ytree_is_null(mt_ytree_get(root, "tilde")));
	assert_true(mt_ytree_is_null(mt_ytree_get(root, "null_word")));
	assert_false(mt_ytree_is_null(mt_ytree_get(root, "quoted_null")));
	assert_false(mt_ytree_is_null(mt_ytree_get(root, "plain")));
	assert_false(mt_ytree_is_null(root));
	mt_ytree_free(t);

	t = parse_ok(text, MT_YTREE_NULL_EMPTY);
	root = mt_ytree_root(t);
	assert_string_equal(mt_ytree_get(root, "tilde")->text, "");
	assert_string_equal(mt_ytree_get(root, "null_word")->text, "");
	assert_string_equal(mt_ytree_get(root, "quoted_null")->text, "null");
	assert_string_equal(mt_ytree_get(root, "plain")->text, "8");
	mt_ytree_free(t);
}

static void test_order_and_lookup(void **state)
{
	mt_buf many = MT_BUF_INIT;
	mt_ytree *t = parse_ok("zeta: 1\nalpha: 2\nmid: 3\n", 0);
	const mt_ynode *root = mt_ytree_root(t);

	(void)state;
	assert_string_equal(root->kids[0]->key, "zeta");
	assert_string_equal(root->kids[1]->key, "alpha");
	assert_string_equal(root->kids[2]->key, "mid");
	assert_ptr_equal(mt_ytree_get(root, "alpha"), root->kids[1]);
	assert_ptr_equal(mt_ytree_getn(root, "midnight", 3), root->kids[2]);
	assert_null(mt_ytree_getn(root, "al", 2));
	assert_null(mt_ytree_get(root, "beta"));
	assert_null(mt_ytree_get(root->kids[0], "zeta")); /* not a map */
	assert_null(mt_ytree_get(NULL, "zeta"));
	mt_ytree_free(t);

	/* past the first growth of the member array */
	for (int i = 0; i < 100; i++)
		mt_buf_printf(&many, "k%d: %d\n", i, i);
	t = parse_ok(mt_buf_cstr(&many), 0);
	root = mt_ytree_root(t);
	assert_int_equal(root->n, 100);
	for (int i = 0; i < 100; i++) {
		char key[8];
		snprintf(key, sizeof(key), "k%d", i);
		assert_ptr_equal(mt_ytree_get(root, key), root->kids[i]);
		assert_int_equal(root->kids[i]->key_line, i + 1);
	}
	mt_ytree_free(t);
	mt_buf_dispose(&many);
}

static void test_empty_streams(void **state)
{
	mt_ytree *t = parse_ok("", 0);

	(void)state;
	assert_int_equal(mt_ytree_root(t)->kind, MT_YNODE_NONE);
	assert_at(mt_ytree_root(t), 1, 1);
	mt_ytree_free(t);
	t = parse_ok("# nothing\n# at all\n", 0);
	assert_int_equal(mt_ytree_root(t)->kind, MT_YNODE_NONE);
	assert_at(mt_ytree_root(t), 3, 1); /* where the stream ends */
	mt_ytree_free(t);
	t = parse_ok("# nothing\n", MT_YTREE_EMPTY_MAP);
	assert_int_equal(mt_ytree_root(t)->kind, MT_YNODE_MAP);
	assert_int_equal(mt_ytree_root(t)->n, 0);
	mt_ytree_free(t);
	/* a document with nothing in it is an empty scalar, for the caller */
	t = parse_ok("---\n", MT_YTREE_EMPTY_MAP);
	assert_int_equal(mt_ytree_root(t)->kind, MT_YNODE_SCALAR);
	assert_string_equal(mt_ytree_root(t)->text, "");
	mt_ytree_free(t);
	t = parse_ok(NULL, 0);
	assert_int_equal(mt_ytree_root(t)->kind, MT_YNODE_NONE);
	mt_ytree_free(t);
}

static void test_refusals(void **state)
{
	mt_yfault f;

	(void)state;
	f = fails("a: &x 1\nb: *x\n", "t.yaml:1:4: anchors (&x) are not supported");
	assert_int_equal(f.kind, MT_YFAULT_ANCHOR);
	assert_string_equal(f.detail, "x");
	f = parse_fails("a: &x 1\nb: *x\n", 14, MT_YTREE_ANCHORS,
			"t.yaml:2:4: aliases (*x) are not supported: write the value out");
	assert_int_equal(f.kind, MT_YFAULT_ALIAS);
	assert_int_equal(f.line, 2);
	assert_int_equal(f.col, 4);
	assert_false(f.at_key);
	assert_string_equal(f.detail, "x");
	f = parse_fails("a: &x 1\n*x : 2\n", 15, MT_YTREE_ANCHORS,
			"t.yaml:2:1: aliases (*x) are not supported: write the value out");
	assert_true(f.at_key);
	f = fails("a: !!str 8\n",
		  "t.yaml:1:4: tags (!!str) are not supported: quote a value to make it text");
	assert_int_equal(f.kind, MT_YFAULT_TAG);
	fails("a: !local 8\n", "t.yaml:1:4: tags (!local) are not supported");
	fails("a: !!map {b: 1}\n",
	      "t.yaml:1:4: tags (!!map) are not supported: quote a value to make it text");
	f = fails("a: 1\nb: 2\na: 3\n", "t.yaml:3:1: duplicate key 'a' (first at line 1)");
	assert_int_equal(f.kind, MT_YFAULT_DUPLICATE);
	assert_true(f.at_key);
	assert_string_equal(f.detail, "a");
	fails("s:\n  b: {}\n  b: {}\n", "t.yaml:3:3: duplicate key 'b' (first at line 2)");
	f = fails("a: 1\n? [b]\n: c\n", "t.yaml:2:3: a key must be plain text, not a list or map");
	assert_int_equal(f.kind, MT_YFAULT_KEY);
	assert_true(f.at_key);
	fails("? {b: 1}\n: c\n", "t.yaml:1:3: a key must be plain text, not a list or map");
	f = fails("a: \"x\\0y\"\n", "t.yaml:1:4: a value must not contain a NUL character");
	assert_int_equal(f.kind, MT_YFAULT_NUL);
	assert_false(f.at_key);
	fails("\"k\\0\": 1\n", "t.yaml:1:1: a value must not contain a NUL character");
	f = fails("a: 1\n---\nb: 2\n", "t.yaml:2:1: only one YAML document is allowed");
	assert_int_equal(f.kind, MT_YFAULT_DOCUMENTS);
	fails("a: 1\n...\n---\n", "t.yaml:3:1: only one YAML document is allowed");
}

static void test_relaxed(void **state)
{
	mt_ytree *t;
	const mt_ynode *root;

	(void)state;
	t = parse_ok("a: &x 1\nb: &y [2]\n", MT_YTREE_ANCHORS);
	assert_string_equal(mt_ytree_get(mt_ytree_root(t), "a")->text, "1");
	mt_ytree_free(t);
	t = parse_ok("a: !!int 8\nb: !x {c: 1}\n", MT_YTREE_TAGS);
	root = mt_ytree_root(t);
	assert_string_equal(mt_ytree_get(root, "a")->text, "8");
	assert_true(mt_ytree_get(root, "a")->plain);
	assert_int_equal(mt_ytree_get(root, "b")->kind, MT_YNODE_MAP);
	mt_ytree_free(t);
	t = parse_ok("a: \"x\\0y\"\n", MT_YTREE_NUL);
	assert_string_equal(mt_ytree_get(mt_ytree_root(t), "a")->text, "x");
	mt_ytree_free(t);
	t = parse_ok("a: 1\nb: 2\na: 3\n", MT_YTREE_DUPLICATES);
	root = mt_ytree_root(t);
	assert_int_equal(root->n, 3);
	assert_string_equal(mt_ytree_get(root, "a")->text, "1"); /* the first */
	assert_string_equal(root->kids[2]->text, "3");
	mt_ytree_free(t);
	/* aliases are refused whatever the flags */
	parse_fails("a: &x 1\nb: *x\n", 14, ~(unsigned)MT_YTREE_PARTIAL,
		    "t.yaml:2:4: aliases (*x) are not supported: write the value out");
}

static void test_libyaml_words(void **state)
{
	mt_yfault f;

	(void)state;
	f = fails("schema: 1\nname: \"x\nsystems:\n",
		  "t.yaml:4:1: found unexpected end of stream (while scanning a quoted scalar at "
		  "2:7)");
	assert_int_equal(f.kind, MT_YFAULT_SYNTAX);
	assert_int_equal(f.line, 4);
	assert_int_equal(f.col, 1);
	assert_string_equal(f.problem, "found unexpected end of stream");
	assert_string_equal(f.context, "while scanning a quoted scalar");
	/* the context's position is left out when it is the problem's */
	fails("a: 1\nb:\n\tc: 2\n",
	      "t.yaml:3:1: found character that cannot start any token (while scanning for the "
	      "next token)");
	f = fails("a: 1\n  b: 2\n", "t.yaml:2:4: mapping values are not allowed in this context");
	assert_null(f.context);
	fails("rules: [\n  - id: x\n",
	      "t.yaml:2:3: did not find expected node content (while parsing a flow node)");
	/* bad UTF-8: the line and column of the byte, and the byte */
	f = fails("a: 1\nb: x\xff\n", "t.yaml:2:5: invalid leading UTF-8 octet (byte 0xFF)");
	assert_int_equal(f.kind, MT_YFAULT_ENCODING);
	assert_int_equal(f.offset, 9);
	assert_string_equal(f.problem, "invalid leading UTF-8 octet");
	fails("a: \x01\n", "t.yaml:1:4: control characters are not allowed (byte 0x01)");
	/* a NUL byte in the file itself is a control character to libyaml */
	parse_fails("a: b\0c\n", 7, 0,
		    "t.yaml:1:5: control characters are not allowed (byte 0x00)");
}

static char *nested(int levels, const char *open, const char *inner, const char *close)
{
	mt_buf b = MT_BUF_INIT;

	mt_buf_puts(&b, "a: ");
	for (int i = 0; i < levels; i++)
		mt_buf_puts(&b, open);
	mt_buf_puts(&b, inner);
	for (int i = 0; i < levels; i++)
		mt_buf_puts(&b, close);
	mt_buf_puts(&b, "\n");
	return mt_buf_detach(&b);
}

/* The top map is level 0 and the value of `a:` level 1, so `a: [[...]]`
 * with 64 brackets reaches level 64, where only an empty list fits:
 * anything inside is level 65, refused where it starts. */
static void test_depth(void **state)
{
	char *ok = nested(MT_YTREE_MAX_DEPTH, "[", "", "]");
	char *deep = nested(MT_YTREE_MAX_DEPTH, "[", "x", "]");
	char *deeper = nested(MT_YTREE_MAX_DEPTH + 1, "[", "", "]");
	char *maps = nested(MT_YTREE_MAX_DEPTH, "{b: ", "1", "}");
	char *hostile = nested(100000, "[", "", "");
	char *alias = nested(MT_YTREE_MAX_DEPTH, "[", "*a", "]");
	mt_ytree *t = parse_ok(ok, 0);
	const mt_ynode *n = mt_ytree_get(mt_ytree_root(t), "a");
	mt_yfault f;
	int depth = 1;

	(void)state;
	while (n->kind == MT_YNODE_LIST && n->n == 1 && n->kids[0]->kind == MT_YNODE_LIST) {
		n = n->kids[0];
		depth++;
	}
	assert_int_equal(depth, MT_YTREE_MAX_DEPTH);
	mt_ytree_free(t);
	f = fails(deep, "t.yaml:1:68: nested deeper than 64 levels");
	assert_int_equal(f.kind, MT_YFAULT_DEPTH);
	fails(deeper, "t.yaml:1:68: nested deeper than 64 levels");
	/* {b: ...} 64 times puts the scalar 1 at level 65 */
	fails(maps, "t.yaml:1:260: nested deeper than 64 levels");
	fails(hostile, "t.yaml:1:68: nested deeper than 64 levels");
	/* an alias that deep: the alias is named, the depth noted */
	f = parse_fails(alias, strlen(alias), MT_YTREE_ANCHORS,
			"t.yaml:1:68: aliases (*a) are not supported: write the value out");
	assert_true(f.too_deep);
	free(ok);
	free(deep);
	free(deeper);
	free(maps);
	free(hostile);
	free(alias);
}

/* MT_YTREE_PARTIAL: what was read before the failure, with open nodes. */
static void test_partial(void **state)
{
	static const char broken[] = "a: 1\n"
				     "b:\n"
				     "  c: [x, y\n"
				     "d: 2\n";
	mt_ytree *t = NULL;
	const mt_ynode *root, *b, *c;
	mt_yfault f;

	(void)state;
	assert_int_equal(mt_ytree_parse(&t, broken, strlen(broken), "t.yaml", MT_YTREE_PARTIAL, &f),
			 MT_EINVALID);
	assert_int_equal(f.kind, MT_YFAULT_SYNTAX);
	assert_non_null(t);
	root = mt_ytree_root(t);
	assert_true(root->open);
	assert_string_equal(mt_ytree_get(root, "a")->text, "1");
	b = mt_ytree_get(root, "b");
	assert_true(b->open);
	c = mt_ytree_get(b, "c");
	assert_int_equal(c->kind, MT_YNODE_LIST);
	assert_true(c->open);
	assert_at(c, 3, 6);
	assert_null(mt_ytree_get(root, "d"));
	mt_ytree_free(t);

	/* nothing read at all: an empty root */
	assert_int_equal(mt_ytree_parse(&t, "*a\n", 3, "t.yaml", MT_YTREE_PARTIAL, &f),
			 MT_EINVALID);
	assert_int_equal(mt_ytree_root(t)->kind, MT_YNODE_NONE);
	mt_ytree_free(t);
	mt_ytree_free(NULL);
}

/* A member whose key was read but not its value ends its map with a
 * MT_YNODE_NONE value; a key that is a list or map leaves key NULL. */
static void test_partial_member(void **state)
{
	static const char key_first[] = "a: 1\n? [k]\n: v\n";
	static const char value_bad[] = "a: 1\nb: *nope\n";
	mt_ytree *t = NULL;
	const mt_ynode *root;
	mt_yfault f;

	(void)state;
	assert_int_equal(mt_ytree_parse(&t, key_first, strlen(key_first), "t.yaml",
					MT_YTREE_PARTIAL, &f),
			 MT_EINVALID);
	assert_int_equal(f.kind, MT_YFAULT_KEY);
	root = mt_ytree_root(t);
	assert_int_equal(root->n, 2);
	assert_null(root->kids[1]->key);
	assert_int_equal(root->kids[1]->kind, MT_YNODE_NONE);
	assert_key_at(root->kids[1], 2, 3);
	mt_ytree_free(t);

	assert_int_equal(mt_ytree_parse(&t, value_bad, strlen(value_bad), "t.yaml",
					MT_YTREE_PARTIAL, &f),
			 MT_EINVALID);
	assert_string_equal(mt_error_last(),
			    "t.yaml:2:4: aliases (*nope) are not supported: write the value out");
	root = mt_ytree_root(t);
	assert_string_equal(root->kids[1]->key, "b");
	assert_int_equal(root->kids[1]->kind, MT_YNODE_NONE);
	mt_ytree_free(t);
}

/* The tables' reading: what it lets pass, and each refusal in the words
 * the tables' authors saw before the shared reader. */
static void test_table_reading(void **state)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
		{"a: 1\na: 2\n", "t.yaml:2:1: duplicate key a"},
		{"a: &x 1\nb: *x\n", "t.yaml:2:4: aliases are not supported: write the value out"},
		{"? [k]\n: 1\n", "t.yaml:1:3: a key must be plain text"},
		{"a: \"\\x01\"\n", NULL}, /* a control character, escaped, is fine */
		{"a: [1\n", "t.yaml:2:1: did not find expected ',' or ']' while parsing a flow sequence"},
	};
	mt_ytree *t = NULL;
	(void)state;

	assert_int_equal(mt_ytree_parse_table(&t, "", 0, "t.yaml"), 0);
	assert_int_equal(mt_ytree_root(t)->kind, MT_YNODE_MAP);
	mt_ytree_free(t);
	assert_int_equal(mt_ytree_parse_table(&t, "a: &x !!str 1\n", 14, "t.yaml"), 0);
	assert_string_equal(mt_ytree_get(mt_ytree_root(t), "a")->text, "1");
	mt_ytree_free(t);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int error = mt_ytree_parse_table(&t, bad[i].text, strlen(bad[i].text), "t.yaml");
		if (!bad[i].message) {
			assert_int_equal(error, 0);
			mt_ytree_free(t);
			continue;
		}
		if (error != MT_EINVALID || strcmp(mt_error_last(), bad[i].message) != 0)
			fail_msg("for input:\n%s\nwant '%s'\ngot  %d '%s'", bad[i].text,
				 bad[i].message, error, mt_error_last());
		assert_null(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_positions),      cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_order_and_lookup), cmocka_unit_test(test_empty_streams),
		cmocka_unit_test(test_refusals),       cmocka_unit_test(test_relaxed),
		cmocka_unit_test(test_libyaml_words),  cmocka_unit_test(test_depth),
		cmocka_unit_test(test_partial),        cmocka_unit_test(test_partial_member),
		cmocka_unit_test(test_table_reading),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
