/* A small logic-less template language (a mustache subset) over JSON:
 *   {{path.to.value}}      the value, as text
 *   {{#path}}...{{/path}}  a section: once per array item (the item becomes
 *                          the context, {{.}} is the item itself), once for a
 *                          true/non-empty value, never for false/null/empty
 *   {{^path}}...{{/path}}  an inverted section: only when missing or empty
 *   {{! comment }}
 * Names are looked up in the current context, then outwards. */
#ifndef MT_REPORT_TEMPLATE_H
#define MT_REPORT_TEMPLATE_H

#include <jansson.h>

/* Renders `tmpl` with `model`. `name` is used in error messages, which give
 * name:line for an unclosed or mismatched section. *out: caller frees. */
int mt_template_render(char **out, const char *tmpl, json_t *model, const char *name);

/* The template text called `name` ("summary.md"): from $MTRIAL_TEMPLATE_DIR
 * when set, else the copy compiled into the binary from templates/.
 * *out: caller frees. */
int mt_template_load(char **out, const char *name);

#endif
