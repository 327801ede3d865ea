/* A small logic-less template language (a mustache subset) over JSON:
 *   {{path.to.value}}      the value, as text
 *   {{#path}}...{{/path}}  a section: once per array item (the item becomes
 *                          the context, {{.}} is the item itself), once for a
 *                          true/non-empty value, never for false/null/empty
 *   {{^path}}...{{/path}}  an inverted section: only when missing or empty
 *   {{&path}}              the value without escaping (markup made by the caller)
 *   {{<name}}...{{/name}}  a block: rendered nowhere by itself, but wherever
 *                          {{>name}} appears, in that place's context (one
 *                          row's markup shared by the report and its lists)
 *   {{! comment }}
 * Names are looked up in the current context, then outwards.
 *
 * Values are escaped for the format the template's name ends with: ".html"
 * escapes & < > " ' as entities and marks a `span` in backticks up as
 * <code> (outside a <code> element); ".md" escapes what would break the
 * document's structure (a '|' in a table row, a '<' that could open an HTML
 * tag outside a code span, line breaks); any other name, nothing. */
#ifndef MT_REPORT_TEMPLATE_H
#define MT_REPORT_TEMPLATE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "util.h"

enum mt_template_escape {
	MT_TEMPLATE_TEXT,
	MT_TEMPLATE_MARKDOWN,
	MT_TEMPLATE_HTML,
};

/* The escaping for a template called `name`, by its extension. */
enum mt_template_escape mt_template_escape_for(const char *name);

/* Renders `tmpl` with `model`, escaping values as `name`'s extension says.
 * `name` is used in error messages, which give name:line for an unclosed or
 * mismatched section. *out: caller frees. */
int mt_template_render(char **out, const char *tmpl, json_t *model, const char *name);

/* A list the caller reads itself, item by item, instead of holding it in
 * the model: a section {{#name}} (that exact name) calls foreach, which
 * calls item(each, renderer) once per item, in order, and returns what the
 * first failing call returned, else 0. The item is not kept. */
typedef int (*mt_template_item_fn)(json_t *item, void *renderer);
struct mt_template_list {
	const char *name;
	int (*foreach)(void *payload, mt_template_item_fn item, void *renderer);
	void *payload;
};

/* As mt_template_render, written to `out` as it goes (a line is kept until
 * it is complete), with the streamed `lists` (ended by {NULL}; NULL for
 * none). MT_EIO when a write fails. */
int mt_template_write(FILE *out, const char *tmpl, json_t *model, const char *name,
		      const struct mt_template_list *lists);

/* Appends s[0..n) to `out` with & < > " ' as HTML entities, and controls,
 * C1, bidi overrides and invalid UTF-8 as '?' (common/sanitize.h). */
void mt_html_escape(mt_buf *out, const char *s, size_t n);

/* The template text called `name` ("summary.md"): from $MTRIAL_TEMPLATE_DIR
 * when set, else the copy compiled into the binary from templates/.
 * *out: caller frees. */
int mt_template_load(char **out, const char *name);

#endif
