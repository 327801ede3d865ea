/* A screen is one const table of functions, like tig's view_ops and tmux's
 * window_mode: the framework allocates `private_size` bytes of state for it,
 * calls enter/leave when it is shown or hidden, asks it to draw its content
 * into a page (the framework scrolls and clips that page), and offers it each
 * action first. Handlers return a result bitmask; only the main loop redraws,
 * reloads or quits. */
#ifndef MT_TUI_SCREEN_H
#define MT_TUI_SCREEN_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "actions.h"
#include "input.h"
#include "page.h"
#include "scan_view.h"
#include "trial.h"

struct tui_wizard;

/* The effort timer as the journal last reported it. */
struct tui_timer {
	int running;
	int64_t id;
	int64_t started_ms;
	char category[64];
	char track[64]; /* "" when the interval has no track */
};

/* The runs as the wizard read them last, for the Runs step: C fields, not
 * a JSON container (issue 15). Owned by the wizard; a screen that keeps
 * them takes its own references. */
struct tui_runs {
	json_t *attempts; /* every attempt, oldest first, flattened
			     (trial/runs.h), a running one with "live"
			     {started_ms} */
	json_t *systems;  /* mt_runs_by_system of them */
	size_t withdrawn; /* runs withdrawn, left out of both */
};

/* What a screen may look at. Everything is borrowed for the call only: a
 * screen that keeps `scan` or `probe` across calls takes its own reference. */
struct tui_ctx {
	json_t *model;                 /* the report model, may be NULL */
	json_t *scan;                  /* the latest scan's full result
					  (mt_journal_scan_latest), or NULL */
	int64_t scan_id;               /* its id in the journal, 0 with none */
	const mt_scan_view *scan_view; /* scan read (zeroed with none); never NULL */
	json_t *probe;                 /* the latest probe's full result
					  (mt_journal_probe_latest) with its
					  "id" and "created", or NULL */
	int64_t probe_id;              /* its id in the journal, 0 with none */
	int64_t probe_unread;          /* the record's latest probe, when its full
					  result is being read (the step that
					  needs it has drawn once saying so), else 0 */
	int probe_unreadable;          /* ... and that read failed (said on the
					  message line) */
	int64_t probe_steps;           /* its trace's optimizer steps, -1 not known */
	json_t *checks;                /* the recorded checks' full results,
					  newest first (mt_journal_checks_json),
					  or NULL with none */
	const struct tui_runs *runs;   /* the runs, NULL before they are read
					  (the Runs step reads them) */
	mt_trial *trial;               /* the trial, for the steps that build
					  costly views of it themselves (the
					  tracks' diffs, the decision) and that
					  write from their handlers (marks, the
					  report); never written while drawing */
	int64_t now_ms;                /* wall clock of this draw */
	const struct tui_timer *timer; /* never NULL */
	int focused;                   /* the content has the keyboard */
	struct tui_wizard *wizard;     /* for a screen's own prompts and menus
					  (tui_screen_prompt) and the record_*
					  functions its actions call */
};

/* Results of a handler, or-ed together. */
enum tui_result {
	TUI_UNHANDLED = 0,
	TUI_HANDLED = 1 << 0, /* the action was consumed */
	TUI_REDRAW = 1 << 1,  /* draw again */
	TUI_REPAINT = 1 << 2, /* clear the terminal and draw everything again */
	TUI_RELOAD = 1 << 3,  /* rebuild the model from the record first */
	TUI_CLOSE = 1 << 4,   /* close this screen (help) */
	TUI_QUIT = 1 << 5,    /* leave the wizard */
};

struct tui_screen_ops {
	const char *name;    /* the title shown in the step list and heading */
	const char *step_id; /* the id of this step in the model's "steps" */
	/* Called when the screen becomes visible; returns tui_result bits. */
	int (*enter)(void *state, const struct tui_ctx *ctx);
	/* Draws the whole content into page (already reset to the pane width). */
	void (*draw)(void *state, const struct tui_ctx *ctx, struct tui_page *page);
	/* Gets an action first while the content has focus; TUI_UNHANDLED lets
	 * the framework's generic handling (scrolling, focus) take it. May be NULL. */
	int (*handle)(void *state, const struct tui_ctx *ctx, enum tui_action a);
	/* The actions the screen answers from any step, TUI_ACT_NONE last: the
	 * dispatcher shows the screen, gives it the keyboard and calls summon
	 * (tig's requests that open their view). May be NULL. */
	const enum tui_action *summoned_by;
	int (*summon)(void *state, const struct tui_ctx *ctx, enum tui_action a);
	/* Takes every key while the screen's own prompt or menu is open (it
	 * opened one with tui_screen_prompt or tui_screen_menu). May be NULL. */
	int (*input)(void *state, const struct tui_ctx *ctx, const struct tui_key *k);
	/* What an action of the screen's own that acts only on what it shows
	 * says when pressed elsewhere, or NULL. May be NULL. */
	const char *(*elsewhere)(enum tui_action a);
	/* Called when the screen is hidden. May be NULL. */
	void (*leave)(void *state, const struct tui_ctx *ctx);
	/* Releases what the state owns (not the state itself) when the wizard
	 * ends, as tig's view_ops->done. May be NULL. */
	void (*done)(void *state);
	size_t private_size;
};

/* A screen in use: its ops, its state, its scroll position and last page. */
struct tui_screen {
	const struct tui_screen_ops *ops;
	void *state;
	int top;
	struct tui_page page;
};

#define TUI_NSTEPS 6

/* The steps of a trial, in order (steps.c). */
extern const struct tui_screen_ops *const tui_step_ops[TUI_NSTEPS];

/* The Repository step: workload, scan summary and inventory (repository.c). */
extern const struct tui_screen_ops tui_repository_ops;

/* The Ops & compatibility step: the latest probe's table, counts and ops,
 * filtered, with the selected op's details and call sites (ops.c). */
extern const struct tui_screen_ops tui_ops_ops;

/* The Correctness step: the recorded checks, a tensor comparison's table
 * worst first with its error histogram, two loss curves overlaid
 * (correctness.c). */
extern const struct tui_screen_ops tui_correctness_ops;

/* The Runs & clocks step: every attempt with its two clocks, a run's
 * evaluations against the target, baseline and candidate side by side,
 * a running one's progress (runs.c). */
extern const struct tui_screen_ops tui_runs_ops;

/* The Tracks & effort step: the tracks from trial.yaml, each one's code
 * changes, effort against the budget, the timer, notes and intervals; Enter
 * lists the changed files with the selected one's platform-specific lines,
 * and m marks a file reusable or model-specific (tracks.c). */
extern const struct tui_screen_ops tui_tracks_ops;

/* The Summary step: the verdict, the decision's criteria as a checklist
 * with the selected one's evidence, the report (w writes it), the quality
 * target and what is missing (summary.c). */
extern const struct tui_screen_ops tui_summary_ops;

/* What the steps draw with (steps.c): a section heading with a blank line
 * before it, and a "key  value" line ("(not set)" for a NULL value). */
void tui_heading(struct tui_page *p, const char *text);
void tui_field(struct tui_page *p, const char *key, const char *value);
#define TUI_LABEL_COL 2
#define TUI_VALUE_COL 16

/* The help screen, generated from the action table (help.c). */
extern const struct tui_screen_ops tui_help_ops;

/* A running time as "0:05:07" into buf. */
void tui_elapsed_fmt(char *buf, size_t size, int64_t ms);

/* The model's status of a step ("empty", "partial", "done"), or NULL: what
 * the side list's marker shows. */
const char *tui_step_status(json_t *model, const char *step_id);

/* What the step's heading says: the status, or for the Summary its verdict
 * ("NOT ENOUGH EVIDENCE", "GO", ...) once there is one. */
const char *tui_step_label(json_t *model, const char *step_id);

#endif
