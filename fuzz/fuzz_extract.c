/* libFuzzer harness for call extraction (python/extract.c), what the scan
 * runs on every Python file of a repository: any bytes must either extract
 * or fail with a "LINE:COL: what" message, never read out of bounds, crash
 * or leak.
 *
 * Extracted means: every call has a callee whose lengths agree with the
 * strings; its line and column fall inside the input and point at the
 * callee's first name as written (or at the method's name for a method
 * call); every ref, string literal and import has its text. The second
 * half of the input is extracted again through a token buffer kept from the
 * first, as a scan's thread does from one file to the next. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz_extract: %s failed\n", #cond);                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* Offsets of the start of each line, with pylex's breaks (\n, \r\n, a lone
 * \r) and a UTF-8 BOM left out of the first line's columns. */
static size_t *line_starts(const uint8_t *s, size_t size, size_t *nlines)
{
	size_t *at = malloc((size + 2) * sizeof(*at)), n = 0;

	CHECK(at != NULL);
	at[n++] = size >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	for (size_t i = 0; i < size; i++) {
		if (s[i] == '\r' && i + 1 < size && s[i + 1] == '\n')
			continue;
		if (s[i] == '\n' || s[i] == '\r')
			at[n++] = i + 1;
	}
	*nlines = n;
	return at;
}

/* The name the call's position points at, as the call spells it. */
static void check_position(const uint8_t *s, size_t size, const size_t *at, size_t nlines,
			   const mt_call *c)
{
	const char *name = c->method ? c->method : c->callee;
	size_t len = strcspn(name, "."), off;

	CHECK(c->line >= 1 && c->line <= nlines);
	off = at[c->line - 1] + c->col;
	CHECK(off < size);
	if (!c->method && c->callee[0] == '.')
		return; /* a receiver that is not a name chain: nothing to compare */
	CHECK(off + len <= size && memcmp(s + off, name, len) == 0);
}

static void check_file(const uint8_t *s, size_t size, const mt_pyfile *f)
{
	size_t nlines, *at = line_starts(s, size, &nlines);

	for (size_t i = 0; i < f->ncalls; i++) {
		const mt_call *c = &f->calls[i];
		CHECK(c->callee && c->callee[0] && c->callee_len == strlen(c->callee));
		CHECK(c->api_len == (c->api ? strlen(c->api) : 0));
		CHECK(c->method_len == (c->method ? strlen(c->method) : 0));
		CHECK(!c->method || c->method[0]);
		for (size_t k = 0; k < c->nkwargs; k++)
			CHECK(c->kwargs[k].key && c->kwargs[k].key[0]);
		check_position(s, size, at, nlines, c);
	}
	for (size_t i = 0; i < f->nrefs; i++)
		CHECK(f->refs[i].api && f->refs[i].api[0] && f->refs[i].line >= 1 &&
		      f->refs[i].line <= nlines);
	for (size_t i = 0; i < f->nstrings; i++)
		CHECK(f->strings[i].text && f->strings[i].text[0] && f->strings[i].line >= 1);
	for (size_t i = 0; i < f->nimports; i++)
		CHECK(f->imports[i].module && f->imports[i].line >= 1 &&
		      f->imports[i].line <= nlines);
	free(at);
}

static void extract(const uint8_t *s, size_t size, mt_lexbuf *lb)
{
	mt_pyfile f;
	unsigned line = 0, col = 0;
	int used = 0;
	int rc = lb ? mt_extract_buf(&f, (const char *)s, size, lb)
		    : mt_extract(&f, (const char *)s, size);

	if (rc < 0) {
		CHECK(rc == MT_EINVALID && f.ncalls == 0);
		CHECK(sscanf(mt_error_last(), "%u:%u: %n", &line, &col, &used) == 2 && used > 0);
		mt_pyfile_dispose(&f);
		return;
	}
	check_file(s, size, &f);
	mt_pyfile_dispose(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mt_lexbuf lb = {0};
	size_t half = size / 2;
	uint8_t *second = malloc(size - half + 1); /* its own buffer: ASan sees its end */

	CHECK(second != NULL);
	extract(data, size, NULL);
	extract(data, half, &lb);
	memcpy(second, data + half, size - half);
	extract(second, size - half, &lb);
	mt_lexbuf_dispose(&lb);
	free(second);
	return 0;
}
