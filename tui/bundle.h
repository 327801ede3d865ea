/* The Summary step's dialogue that writes a bundle for another team (b,
 * issue 20): the output path in the step's prompt (the trial's name and
 * -bundle.tar.gz beside the trial directory, to accept or edit), then
 * whether to redact in its menu, then `mtrial bundle`'s core function
 * (core/bundle_trial.h). The step keeps the dialogue in its state, hands
 * it every key while it is open, and draws what the last one wrote. */
#ifndef MT_TUI_BUNDLE_H
#define MT_TUI_BUNDLE_H

#include "wizard.h"

struct tui_bundle {
	enum { BUNDLE_NONE, BUNDLE_PATH, BUNDLE_REDACT } stage;
	char *path;   /* owned: the file typed, while the redaction is asked */
	char *said;   /* owned: what the last bundle wrote or why it did not,
			 one line a part; NULL before */
	int failed;   /* said is an error */
};

/* Opens the path's prompt. Returns result bits. */
int tui_bundle_begin(struct tui_bundle *b, struct tui_wizard *w);

/* Takes a key while the dialogue is open (stage not NONE) and, after the
 * redaction's answer, writes the bundle; TUI_UNHANDLED when it is not open. */
int tui_bundle_input(struct tui_bundle *b, struct tui_wizard *w, const struct tui_key *k);

/* The Summary's "Bundle" section: how to write one, or what the last did. */
void tui_bundle_section(struct tui_page *p, const struct tui_bundle *b);

/* Releases what the dialogue owns. */
void tui_bundle_done(struct tui_bundle *b);

#endif
