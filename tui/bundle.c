/* Writing a bundle from the Summary step (b): the file in the step's
 * prompt, prefilled with NAME-bundle.tar.gz in the directory that holds
 * the trial, then whether to redact in its menu (y or n answer it too),
 * then the same core function as `mtrial bundle` (core/bundle_trial.h).
 * What it wrote (the file, its size, the files counted, what the
 * redaction dropped, the core's notes) or the core's error goes into the
 * step's page and, in short, the message line; both are drawn through the
 * terminal's sanitising (draw.c), whatever the path or the record hold. */
#include "bundle.h"
#include "bundle_trial.h"
#include "error.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const redact_items[] = {
	"no (n): everything as recorded",
	"yes (y): drop private notes, host names and absolute paths (--redact)", NULL};

/* NAME-bundle.tar.gz beside the trial directory, NAME trial.yaml's name
 * with anything but letters, digits, '.', '_' and '-' made '-'. */
static char *default_path(const mt_trial *t)
{
	const char *name = t->spec ? mt_spec_get(t->spec, "name") : NULL;
	const char *slash = strrchr(t->dir, '/');
	mt_buf b = MT_BUF_INIT;
	size_t at;

	if (slash && slash != t->dir)
		mt_buf_put(&b, t->dir, (size_t)(slash - t->dir));
	mt_buf_puts(&b, "/");
	at = b.len;
	mt_buf_puts(&b, name && *name ? name : "trial");
	for (size_t i = at; i < b.len; i++)
		if (!strchr("._-", b.ptr[i]) && !((b.ptr[i] >= 'a' && b.ptr[i] <= 'z') ||
		    (b.ptr[i] >= 'A' && b.ptr[i] <= 'Z') || (b.ptr[i] >= '0' && b.ptr[i] <= '9')))
			b.ptr[i] = '-';
	mt_buf_puts(&b, "-bundle.tar.gz");
	return mt_buf_detach(&b);
}

int tui_bundle_begin(struct tui_bundle *b, struct tui_wizard *w)
{
	char *path;

	if (!w->trial) {
		tui_message(w, 0, "No trial open: no bundle to write");
		return TUI_HANDLED | TUI_REDRAW;
	}
	path = default_path(w->trial);
	tui_screen_prompt(w, "bundle to (Enter writes, Esc cancels): ", path);
	free(path);
	b->stage = BUNDLE_PATH;
	return TUI_HANDLED | TUI_REDRAW;
}

/* "12.3 KiB (12583 bytes)". */
static void size_text(mt_buf *out, uint64_t bytes)
{
	if (bytes < 1024)
		mt_buf_printf(out, "%llu bytes", (unsigned long long)bytes);
	else
		mt_buf_printf(out, "%.1f %s (%llu bytes)",
			      bytes < 1048576 ? bytes / 1024.0 : bytes / 1048576.0,
			      bytes < 1048576 ? "KiB" : "MiB", (unsigned long long)bytes);
}

/* What a bundle written holds, for the page: a line a part. */
static void said_written(mt_buf *s, const char *path, const mt_bundle_result *r, int redact)
{
	mt_buf_printf(s, "Wrote %s: %zu files, ", path, r->files);
	size_text(s, r->bytes);
	mt_buf_printf(s, "; %zu run log(s), %zu track patch(es).", r->logs, r->tracks);
	if (redact) {
		mt_buf_puts(s, "\n");
		mt_bundle_redacted_text(s, &r->redacted);
	}
	for (const char *p = r->notes; p && *p;) {
		size_t n = strcspn(p, "\n");
		mt_buf_printf(s, "\nnote: %.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
	mt_buf_printf(s, "\nCheck it with: mtrial bundle verify %s", path);
}

/* Writes the bundle to b->path and says what it holds, or why not. */
static int write_bundle(struct tui_bundle *b, struct tui_wizard *w, int redact)
{
	mt_bundle_options o = {.output = b->path, .redact = redact, .now_ms = mt_now_ms()};
	mt_bundle_result r;
	mt_buf s = MT_BUF_INIT, size = MT_BUF_INIT;

	free(b->said);
	b->failed = mt_bundle_write(&r, w->trial, &o) < 0;
	if (b->failed) {
		mt_buf_printf(&s, "Not written: %s", mt_error_last());
		tui_message(w, 1, "Bundle not written: %s", mt_error_last());
		mt_error_clear();
	} else {
		said_written(&s, b->path, &r, redact);
		size_text(&size, r.bytes);
		tui_message(w, 0, "Bundle written%s: %s (%zu files, %s)", redact ? ", redacted" : "",
			    b->path, r.files, mt_buf_cstr(&size));
	}
	mt_bundle_result_dispose(&r);
	mt_buf_dispose(&size);
	b->said = mt_buf_detach(&s);
	return TUI_HANDLED | TUI_REDRAW;
}

static int on_path(struct tui_bundle *b, struct tui_wizard *w, const struct tui_key *k)
{
	enum prompt_result r = prompt_input(&w->prompt, k);

	if (r == PROMPT_CONTINUE)
		return TUI_REDRAW;
	tui_screen_ask_done(w);
	b->stage = BUNDLE_NONE;
	free(b->path);
	b->path = prompt_text(&w->prompt);
	if (r == PROMPT_CANCEL || !*b->path) {
		tui_message(w, 0, "%s: no bundle written", r == PROMPT_CANCEL ? "Cancelled"
									   : "No file given");
		return TUI_REDRAW;
	}
	tui_screen_menu(w, "Redact the bundle?", redact_items, 0);
	b->stage = BUNDLE_REDACT;
	return TUI_REDRAW;
}

int tui_bundle_input(struct tui_bundle *b, struct tui_wizard *w, const struct tui_key *k)
{
	int i;

	if (b->stage == BUNDLE_PATH)
		return on_path(b, w, k);
	if (b->stage == BUNDLE_NONE)
		return TUI_UNHANDLED;
	if (!k->fkey && (k->ch == 'y' || k->ch == 'n'))
		i = k->ch == 'y';
	else if ((i = menu_input(&w->menu, k)) == MENU_CONTINUE)
		return TUI_REDRAW;
	tui_screen_ask_done(w);
	b->stage = BUNDLE_NONE;
	if (i == MENU_CANCEL) {
		tui_message(w, 0, "Cancelled: no bundle written");
		return TUI_REDRAW;
	}
	return write_bundle(b, w, i == 1);
}

void tui_bundle_section(struct tui_page *p, const struct tui_bundle *b)
{
	mt_buf s = MT_BUF_INIT;

	tui_heading(p, "Bundle");
	page_add(p, STYLE_DIM, "  b writes one");
	if (!b->said) {
		mt_buf_printf(&s, "Not written from here yet: b packs trial.yaml, the record, every "
			      "run's log, the checks, the tracks' patches and the report, with a "
			      "MANIFEST of their sha256, for another team to inspect and repeat the "
			      "trial (`mtrial bundle -o FILE [--redact]` does the same).");
		page_para(p, TUI_LABEL_COL, STYLE_DIM, mt_buf_cstr(&s));
		mt_buf_dispose(&s);
		return;
	}
	for (const char *q = b->said; *q;) {
		size_t n = strcspn(q, "\n");
		mt_buf_dispose(&s);
		mt_buf_put(&s, q, n);
		page_para(p, TUI_LABEL_COL, b->failed ? STYLE_ERROR : q == b->said ? STYLE_OK
											    : STYLE_NORMAL,
			  mt_buf_cstr(&s));
		q += n + (q[n] == '\n');
	}
	mt_buf_dispose(&s);
}

void tui_bundle_done(struct tui_bundle *b)
{
	free(b->path);
	free(b->said);
	b->path = b->said = NULL;
}
