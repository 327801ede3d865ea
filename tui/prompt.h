/* A one-line editor for the message line: wide characters in, UTF-8 out, so
 * that text in any script survives editing (a backspace removes a whole
 * character, never a byte of one). */
#ifndef MT_TUI_PROMPT_H
#define MT_TUI_PROMPT_H

#include <stddef.h>
#include <wchar.h>

#include "draw.h"
#include "input.h"

#define TUI_PROMPT_MAX 1000

struct tui_prompt {
	const char *label; /* static, e.g. "note: " */
	wchar_t buf[TUI_PROMPT_MAX + 1];
	size_t len;   /* characters in buf */
	size_t cur;   /* cursor position, 0..len */
	size_t first; /* first character shown, for horizontal scrolling */
};

enum prompt_result { PROMPT_CONTINUE, PROMPT_DONE, PROMPT_CANCEL };

/* Starts editing an empty line after `label` (borrowed, must outlive the edit). */
void prompt_start(struct tui_prompt *p, const char *label);

/* Starts editing `initial` (UTF-8, may be NULL) with the cursor at its end:
 * a default the user accepts with Enter or edits. */
void prompt_start_with(struct tui_prompt *p, const char *label, const char *initial);

/* Applies one key: editing keys change the line, Enter finishes it, Esc and
 * Ctrl-G cancel it. */
enum prompt_result prompt_input(struct tui_prompt *p, const struct tui_key *k);

/* The line as UTF-8 with surrounding blanks trimmed; caller frees. */
char *prompt_text(const struct tui_prompt *p);

/* Draws label and line in row 0 of r, scrolled so the cursor shows, and
 * places the terminal's cursor there. */
void prompt_draw(struct tui_prompt *p, const struct draw_rect *r);

#endif
