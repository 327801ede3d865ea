/* libFuzzer harness for the report's template language: any template text,
 * rendered for Markdown, HTML or plain text over a model with nested
 * objects, arrays and strings full of markup, must either render or fail
 * with a message naming the template, never crash or leak; HTML output must
 * never carry a model string's markup (<zq9>) unescaped. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"f.md", "f.html", "f.txt"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_t *model;
	char *tmpl, *out = NULL;
	const char *name;

	if (!model)
		model = json_pack("{ss, s[{ss, s[ss]}, {ss}], s{s{si, sf}}, sb, sn, s[]}", "a",
				  "x|y <zq9>`z`\n", "l", "n", "<i>", "t", "p", "q", "n", "r\r\n|",
				  "o", "k", "i", 3, "r", 1.5, "b", 1, "z", "e");
	if (size < 1)
		return 0;
	name = names[data[0] % 3];
	tmpl = malloc(size);
	if (!tmpl)
		return 0;
	memcpy(tmpl, data + 1, size - 1);
	tmpl[size - 1] = '\0'; /* the engine reads C strings: stop at the first NUL */
	if (mt_template_render(&out, tmpl, model, name) < 0) {
		if (!mt_error_last()[0] || strncmp(mt_error_last(), name, strlen(name)) != 0)
			abort();
	} else if (strcmp(name, "f.html") == 0 && strstr(out, "<zq9") && !strstr(tmpl, "zq9") &&
		   !strstr(tmpl, "{{&")) {
		abort(); /* a value's markup came through unescaped */
	}
	free(out);
	free(tmpl);
	return 0;
}
