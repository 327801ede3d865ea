/* A small, fast JSON writer into an mt_buf, for results too large to build
 * as jansson objects (a scan of a large repository has tens of thousands of
 * call sites). The caller writes the structure; the writer inserts commas
 * and escapes strings. */
#ifndef MT_JSONW_H
#define MT_JSONW_H

#include <stdint.h>
#include <jansson.h>
#include "util.h"

typedef struct {
	mt_buf *out;
	int depth;
	uint8_t first[64]; /* per nesting level: nothing written yet */
} mt_jw;

void mt_jw_init(mt_jw *w, mt_buf *out);
void mt_jw_object(mt_jw *w);
void mt_jw_array(mt_jw *w);
void mt_jw_end_object(mt_jw *w);
void mt_jw_end_array(mt_jw *w);
/* A member's key (inside an object); the value follows. */
void mt_jw_key(mt_jw *w, const char *key);
void mt_jw_str(mt_jw *w, const char *s); /* NULL writes null */
void mt_jw_int(mt_jw *w, int64_t v);
void mt_jw_bool(mt_jw *w, int v);
void mt_jw_null(mt_jw *w);
/* Already-encoded JSON text as one value. */
void mt_jw_raw(mt_jw *w, const char *json, size_t len);

/* Appends s as a quoted, escaped JSON string; a byte that is not part of
 * valid UTF-8 becomes \ufffd, so the text always parses. */
void mt_json_quote(mt_buf *out, const char *s);

/* Appends v in the shortest decimal form that reads back as the same double
 * (262.16, not 262.16000000000003), always marked as a real ("2.0"). */
void mt_json_real(mt_buf *out, double v);

/* json_dumps(v, flags) with every real written as mt_json_real() does:
 * every JSON document mtrial prints goes through here, so that no figure
 * shows binary noise. Caller frees; NULL when jansson cannot encode v. */
char *mt_json_dumps(const json_t *v, size_t flags);

#endif
