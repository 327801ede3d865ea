/* The commented trial.yaml that `mtrial init` writes, from the schema
 * table of spec_schema.c: every key under a comment saying what it means. */
#include "spec_int.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_FIELDS mt_spec__nfields

/* ---- the template ---------------------------------------------------------- */

static const char template_head[] =
	"# trial.yaml: the specification of one migration trial of PyTorch training\n"
	"# code to AWS Trainium, read by mtrial.\n"
	"#\n"
	"# Every key of the schema is here, each under a comment saying what it means.\n"
	"# An empty value means \"not yet known\": fill values in as the trial settles\n"
	"# them. Put text in double quotes when it contains \": \" or \" #\", or when it\n"
	"# could be read as a number (\"2.10\"). Anchors (&) and aliases (*) are not\n"
	"# accepted.\n";

#define TEMPLATE_WIDTH 79

/* text as comment lines no wider than TEMPLATE_WIDTH where its words allow;
 * `first` starts the first line, `cont` the others. */
static void put_wrapped(mt_buf *b, int indent, const char *first, const char *cont,
			const char *text)
{
	const char *prefix = first;

	while (*text) {
		int room = TEMPLATE_WIDTH - indent - (int)strlen(prefix);
		size_t n = strlen(text);

		if (room < 20)
			room = 20;
		if (n > (size_t)room) {
			n = (size_t)room;
			while (n > 0 && text[n] != ' ')
				n--;
			if (n == 0)
				n = strcspn(text, " ");
		}
		mt_buf_printf(b, "%*s%s%.*s\n", indent, "", prefix, (int)n, text);
		text += n;
		while (*text == ' ')
			text++;
		prefix = cont;
	}
}

static void put_help(mt_buf *b, int indent, const char *first, const char *cont,
		     const struct field *f, const char *key)
{
	mt_buf text = MT_BUF_INIT;

	if (key)
		mt_buf_printf(&text, "%s: ", key);
	mt_buf_puts(&text, f->help);
	if (f->bound == B_COUNT)
		mt_buf_puts(&text, " 1 or more.");
	else if (f->bound == B_AMOUNT)
		mt_buf_puts(&text, " 0 or more.");
	if (f->type == F_ENUM) {
		mt_buf_puts(&text, " One of: ");
		mt_spec__put_values(&text, f->values);
		mt_buf_puts(&text, ".");
	}
	put_wrapped(b, indent, first, cont, mt_buf_cstr(&text));
	mt_buf_dispose(&text);
}

/* One UTF-8 character as strictly as libyaml reads it (no overlong forms,
 * no surrogates); its length, or 0 when the bytes are not UTF-8. */
static size_t utf8_decode(const unsigned char *p, uint32_t *cp)
{
	uint32_t c = p[0];
	size_t n;

	if (c < 0x80)
		n = 1;
	else if ((c & 0xE0) == 0xC0)
		n = 2, c &= 0x1F;
	else if ((c & 0xF0) == 0xE0)
		n = 3, c &= 0x0F;
	else if ((c & 0xF8) == 0xF0)
		n = 4, c &= 0x07;
	else
		return 0;
	/* A NUL terminator fails the continuation test, so this stops in time. */
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3F);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return n;
}

/* What libyaml accepts unescaped inside a double-quoted scalar. */
static int yaml_printable(uint32_t c)
{
	return (c >= 0x20 && c <= 0x7E) || c == 0x85 || (c >= 0xA0 && c <= 0xD7FF) ||
	       (c >= 0xE000 && c <= 0xFFFD && c != 0xFEFF) || (c >= 0x10000 && c <= 0x10FFFF);
}

/* s as a double-quoted YAML scalar that reads back as s: a name such as
 * 'a: "b" #c' must not become a map, a comment or a syntax error. Bytes that
 * are not UTF-8 cannot be written in YAML at all and become U+FFFD. */
static void put_quoted(mt_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	mt_buf_puts(b, "\"");
	while (*p) {
		uint32_t c = 0;
		size_t n = utf8_decode(p, &c);

		if (n == 0) {
			mt_buf_puts(b, "\\uFFFD");
			p++;
			continue;
		}
		if (c == '"' || c == '\\')
			mt_buf_printf(b, "\\%c", (char)c);
		else if (!yaml_printable(c))
			mt_buf_printf(b, c <= 0xFF ? "\\x%02X" : "\\u%04X", (unsigned)c);
		else
			mt_buf_put(b, (const char *)p, n);
		p += n;
	}
	mt_buf_puts(b, "\"");
}

/* The facts the user gave to `mtrial init`; every other value starts empty. */
struct facts {
	const char *name, *repository, *revision;
};

static void put_value(mt_buf *b, const struct field *f, const struct facts *facts)
{
	const char *value = NULL;

	if (strcmp(f->path, "schema") == 0) {
		mt_buf_printf(b, " %d", MT_SPEC_SCHEMA_VERSION);
		return;
	}
	if (strcmp(f->path, "name") == 0)
		value = facts->name;
	else if (strcmp(f->path, "workload.repository") == 0)
		value = facts->repository;
	else if (strcmp(f->path, "workload.revision") == 0)
		value = facts->revision;
	if (value && *value) {
		mt_buf_puts(b, " ");
		put_quoted(b, value);
	}
}

/* A list's items are described in its comment and shown as a commented-out
 * skeleton under its key, so that the list starts empty and uncommenting
 * the skeleton gives a valid item. */
static void put_item_help(mt_buf *b, const struct field *list, int indent)
{
	const struct field *item = mt_spec__field_item(list);

	if (!item)
		return;
	mt_buf_printf(b, "%*s# Each item:\n", indent, "");
	if (item->type != F_MAP) {
		put_help(b, indent, "#   ", "#     ", item, NULL);
		return;
	}
	for (size_t i = 0; i < N_FIELDS; i++) {
		const char *key = mt_spec__child_key(&mt_spec__fields[i], item);
		if (key)
			put_help(b, indent, "#   ", "#     ", &mt_spec__fields[i], key);
	}
}

static void put_item_skeleton(mt_buf *b, const struct field *list, int indent)
{
	const struct field *item = mt_spec__field_item(list);
	int first = 1;

	if (item && item->type != F_MAP)
		mt_buf_printf(b, "%*s# -\n", indent, "");
	for (size_t i = 0; item && item->type == F_MAP && i < N_FIELDS; i++) {
		const char *key = mt_spec__child_key(&mt_spec__fields[i], item);
		if (!key)
			continue;
		mt_buf_printf(b, "%*s# %s%s:\n", indent, "", first ? "- " : "  ", key);
		first = 0;
	}
}

static void put_field(mt_buf *b, const struct field *f, const struct facts *facts)
{
	int depth = 0, indent;
	const char *key = strrchr(f->path, '.');

	if (strchr(f->path, '*'))
		return; /* shown by its list */
	for (const char *p = f->path; *p; p++)
		depth += *p == '.';
	indent = 2 * depth;
	if (depth == 0 && (f->type == F_MAP || f->type == F_LIST))
		mt_buf_puts(b, "\n");
	put_help(b, indent, "# ", "# ", f, NULL);
	if (f->type == F_LIST)
		put_item_help(b, f, indent);
	mt_buf_printf(b, "%*s%s:", indent, "", key ? key + 1 : f->path);
	put_value(b, f, facts);
	mt_buf_puts(b, "\n");
	if (f->type == F_LIST)
		put_item_skeleton(b, f, indent + 2);
	if (f->type == F_DICT && f->example)
		mt_buf_printf(b, "%*s# %s\n", indent + 2, "", f->example);
}

char *mt_spec_template(const char *name, const char *repository, const char *revision)
{
	/* name is required to be non-empty; with none given, the template must
	 * still parse, so it gets a placeholder the user will see and change. */
	struct facts facts = {name && *name ? name : "trial", repository, revision};
	mt_buf b = MT_BUF_INIT;

	mt_buf_puts(&b, template_head);
	mt_buf_puts(&b, "\n");
	for (size_t i = 0; i < N_FIELDS; i++)
		put_field(&b, &mt_spec__fields[i], &facts);
	return mt_buf_detach(&b);
}
