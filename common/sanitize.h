/* Text from outside (repository file names, notes, imported tables, journals
 * written by other tools, logs) made safe to show: one sanitiser for the
 * CLI's output stream, the wizard and the Markdown report, so that no such
 * string can move the cursor, set the terminal's title, clear the screen or
 * reorder what the reader sees.
 *
 * Replaced by a visible '?': C0 controls (but see the modes for \t \n \r),
 * DEL, C1 controls (raw bytes 0x80-0x9f are invalid UTF-8; U+0080-U+009F
 * encoded in UTF-8), invalid UTF-8 (overlong forms, surrogates, stray
 * continuation bytes, beyond U+10FFFF), and the bidirectional controls
 * (U+202A-U+202E embeddings and overrides, U+2066-U+2069 isolates, U+200E,
 * U+200F, U+061C marks: the "Trojan Source" trick) and U+2028/U+2029 line
 * and paragraph separators. Valid printable UTF-8 is kept byte for byte. */
#ifndef MT_SANITIZE_H
#define MT_SANITIZE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define MT_TERM_PLACEHOLDER '?'

enum mt_term_mode {
	MT_TERM_STRICT, /* every control becomes '?' */
	MT_TERM_LINE,   /* one line of a list: \t \n \r become spaces, so a value
			   cannot start a line of its own */
	MT_TERM_TEXT,   /* running text: \t, \n and \r\n kept, a lone \r '?' */
};

/* Decodes one UTF-8 character of s[0..n) strictly: its length (1-4) with
 * *cp set, 0 when s[0] does not start a valid character, -1 when s[0..n) is
 * a valid but incomplete start of one (more bytes may complete it). */
int mt_utf8_decode(const char *s, size_t n, uint32_t *cp);

/* 1 when code point cp must not reach a terminal as it is (the list above,
 * \t \n \r included: the modes decide about those). */
int mt_term_cp_unsafe(uint32_t cp);

/* Appends s[0..n) made safe to out; returns how many bytes of s it took:
 * fewer than n only when s ends inside a character (or, in TEXT mode, on a
 * \r that a \n may follow) and `last` is 0; the caller passes the rest again
 * in front of what follows. 0 or more; aborts when memory runs out. */
size_t mt_term_safe_put(mt_buf *out, const char *s, size_t n, enum mt_term_mode mode, int last);

/* A safe copy of s (NULL: ""). Caller frees. */
char *mt_term_safe(const char *s, enum mt_term_mode mode);

/* A safe copy of JSON text: each unsafe character, which in JSON can only
 * stand inside a string, becomes its \uXXXX escape (invalid UTF-8 \ufffd),
 * so the document means the same and a terminal sees no control. Caller
 * frees. */
char *mt_term_safe_json(const char *json, size_t len);

#endif
