/* The wizard's state, shared by the files of tui/: tui.c (terminal, loop,
 * dispatch), frame.c (layout and the parts around the content), and
 * record_model.c (reading the record, a section at a time) with record.c
 * (writing it): the code that reads or writes the trial, besides the steps
 * that build costly views of it themselves (screen.h's tui_ctx.trial). */
#ifndef MT_TUI_WIZARD_H
#define MT_TUI_WIZARD_H

#include <stdint.h>
#include <jansson.h>

#include "trial.h"
#include "model.h"
#include "scan_view.h"
#include "screen.h"
#include "prompt.h"
#include "menu.h"

#define TUI_MIN_COLS 60
#define TUI_MIN_LINES 16
#define TUI_RELOAD_MS 2000
#define TUI_NSOURCES 3 /* where a probe's ops come from: record_source_names */

enum tui_focus { FOCUS_SIDE, FOCUS_CONTENT };

/* What keys go to: the screens, or an open prompt or menu. The wizard's
 * own prompts are listed; a step's prompts and menus are its screen's own
 * (MODE_SCREEN_*: the screen's input takes the keys). */
enum tui_mode {
	MODE_NORMAL,
	MODE_NOTE,
	MODE_CATEGORY,
	MODE_TRACK,
	MODE_IMPORT_TABLE,   /* the file or URL of a table to import */
	MODE_SCREEN_PROMPT,  /* a screen's prompt (tui_screen_prompt) */
	MODE_SCREEN_MENU,    /* a screen's menu (tui_screen_menu) */
};

/* The modes that edit a line in the message line, and those that show a
 * menu over the content. */
static inline int tui_mode_prompts(enum tui_mode m)
{
	return m == MODE_NOTE || m == MODE_IMPORT_TABLE || m == MODE_SCREEN_PROMPT;
}

static inline int tui_mode_menu(enum tui_mode m)
{
	return m == MODE_CATEGORY || m == MODE_TRACK || m == MODE_SCREEN_MENU;
}

struct tui_layout {
	int cols, lines;
	int too_small;
	struct draw_rect title, side, head, content, status, message;
};

struct tui_wizard {
	mt_trial *trial;              /* borrowed from the caller */
	json_t *model;                /* owned; the sections of the report model
					 built since the last reload: the frame's
					 and those of the steps shown since */
	mt_report_parts *parts;       /* owned; the builder they come from */
	unsigned reloads;             /* reloads that built a model */
	unsigned runs_reload;         /* `reloads` when `runs` was read */
	unsigned tried;               /* the costly parts tried since the reload
					 (bits: record.c's step_parts) */
	int64_t model_mono;           /* monotonic ms of the last build attempt */
	int64_t newest_note;          /* the newest note's id at the last reload */
	size_t own_notes;             /* notes this wizard added since the last build */
	int64_t spec_mtime_ns;        /* trial.yaml's mtime when last read, -1 unknown */
	int64_t data_version;         /* the journal's, when the model was built */
	size_t live_runs;             /* runs going when it was: their logs grow */
	struct tui_timer timer;
	struct tui_screen steps[TUI_NSTEPS];
	struct tui_screen help;
	int selected;                 /* index into steps */
	enum tui_focus focus;
	int help_open;
	enum tui_mode mode;
	int asker;                    /* the step whose MODE_SCREEN_* is open */
	struct tui_prompt prompt;
	struct tui_menu menu;
	int category;                 /* chosen in MODE_CATEGORY */
	json_t *scan;                 /* owned; the latest scan's full result,
					 read when a step needs it (record_full) */
	int64_t scan_id;              /* its id, 0 with none */
	int64_t scan_want;            /* the latest scan's id in the record */
	json_t *probe;                /* owned; the latest probe's full result,
					 read as the scan's */
	int64_t probe_id;             /* its id, 0 with none */
	int64_t probe_want;           /* the latest probe's id in the record */
	int64_t probe_bytes;          /* and the size of its result */
	unsigned full_tried;          /* reloads + 1 when record_full ran for the
					 Ops step (a failure is said once a reload) */
	const char *probe_table;      /* its table's name, borrowed from probe */
	const char *probe_from;       /* the source of its ops, borrowed from probe */
	int64_t probe_steps;          /* its trace's optimizer steps, -1 not known */
	mt_scan_view scan_view;       /* scan read, borrowing from it */
	json_t *checks;               /* owned; the recorded checks' full results,
					 newest first (at most RECORD_CHECKS) */
	int64_t checks_id;            /* the newest one's id, 0 with none */
	struct tui_runs runs;         /* owned; all NULL unread. Read when the
					 Runs step shows */
	char *tables[TUI_MENU_MAX + 1];     /* owned; the table menu's names */
	char *table_items[TUI_MENU_MAX + 1]; /* owned; and its items */
	char *source_items[TUI_NSOURCES + 1]; /* owned; the source menu's items */
	char message[512];
	int message_error;
	struct tui_layout layout;
};

/* record.c */
/* Notes trial.yaml's current mtime as the version already loaded. */
void record_init(struct tui_wizard *w);
/* Starts the model again from the record (the frame's sections and the
 * step shown's cheap ones) and reads the timer; a failure keeps the last
 * model and puts the error in the message line. */
void record_reload(struct tui_wizard *w);
/* Adds section `key` of the report model to w->model unless it is there
 * (the effort for the timer's menu); 0, or the error in the message line. */
int record_part(struct tui_wizard *w, const char *key);
/* Adds to the model what the step shown reads that costs little (the
 * effort; what trial.yaml misses), before it draws. */
void record_step_parts(struct tui_wizard *w);

/* The latest scan's and probe's full results (w->scan, w->probe), read
 * when they are not the record's latest: megabytes on a large repository,
 * so only for a step or an action that needs them (the Ops step, the
 * Repository step's lists, probing). */
void record_full(struct tui_wizard *w);
/* Whether the step shown waits for something costly (the decision over
 * every run, the runs with their logs): it draws once saying so, then the
 * loop calls record_build_pending and draws again. */
int record_pending(const struct tui_wizard *w);
void record_build_pending(struct tui_wizard *w);
/* Whether the record may have changed since the last build: another process
 * committed to the journal, trial.yaml changed, a run is going (its log
 * grows without a commit) or the effort timer runs. Cheap: the wizard asks
 * it on the clock, and rebuilds only when it says so. */
int record_stale(struct tui_wizard *w);
/* Adds a note made of UTF-8 text; empty text saves nothing. Returns result bits. */
int record_add_note(struct tui_wizard *w, const char *text);
int record_timer_start(struct tui_wizard *w, const char *category, const char *track);
int record_timer_stop(struct tui_wizard *w);
/* The repository and revision a scan starts from: workload.repository
 * (relative to the directory holding the trial) or that directory, and
 * workload.revision or "HEAD". Caller frees both. */
void record_scan_defaults(struct tui_wizard *w, char **repo, char **rev);
/* Scans repo at rev ("" or "HEAD": HEAD) with a progress bar in the content
 * pane, records the result and says so; a failure goes to the message line
 * and leaves the last scan in place. Returns result bits. */
int record_scan(struct tui_wizard *w, const char *repo, const char *rev);
/* The tables a probe can use, for a menu: in w->tables the names (the
 * user's imported and updated tables, then the bundled ones, and
 * trial.yaml's probe.table when neither has it; at most TUI_MENU_MAX) and
 * in w->table_items each with its date. Returns the index of trial.yaml's
 * probe.table, or of the table `mtrial probe` uses by default. */
int record_tables(struct tui_wizard *w);
/* Probes the ops of the source shown (record_shown_source: the latest scan,
 * archive or trace) against `table` with the overrides of trial.yaml and
 * the journal, as `mtrial probe` does, records the result and says so; a
 * failure goes to the message line. Returns result bits. */
int record_probe(struct tui_wizard *w, const char *table);
/* The sources of ops a probe reads, in the menu's order: "scan",
 * "torchscript", "trace", NULL. */
extern const char *const record_source_names[TUI_NSOURCES + 1];
/* The source of the probe shown: its "from", "scan" with no probe or for a
 * probe recorded before probes had one. Static. */
const char *record_shown_source(const struct tui_wizard *w);
/* The sources for a menu: in w->source_items what each is (the scan's
 * revision, the archive's or the trace's file) or, when the record has
 * none, how to record one. Returns
 * the index of the source shown. A journal that cannot be read is an item
 * saying so. */
int record_sources(struct tui_wizard *w);
/* Probes the latest inventory of `source` (one of record_source_names)
 * with the table of the probe shown (trial.yaml's or the default with
 * none), records it and says so; with none recorded, says how to record
 * one. Returns result bits. */
int record_probe_source(struct tui_wizard *w, const char *source);
/* Compares the source shown with the latest scan, or when the scan is
 * shown, with the latest exact inventory (a trace before a TorchScript
 * archive): *diff gets mt_opinventory_diff's result and steps each side's
 * trace's optimizer steps (-1: not a trace's, or not known), or *why
 * (caller frees) says what to record first; neither when the record cannot
 * be read (the message line says why). */
void record_diff(struct tui_wizard *w, json_t **diff, int64_t steps[2], char **why);
/* Records a team finding (an override: op, status, a required note), then
 * probes again with the latest probe's table and source so that the op
 * shows it.
 * Returns result bits. */
int record_finding(struct tui_wizard *w, const char *op, const char *status,
		   const char *note);
/* The recorded checks the Correctness step lists, newest first. */
#define RECORD_CHECKS 50
/* Compares the tensors of cand with ref's (tensor files or directories)
 * as `mtrial check compare` does, with rtol and atol (NaN: trial.yaml's,
 * else the dtype's default), a progress bar over the content pane; records
 * the result and says so. *id gets the check's id, 0 when nothing was
 * recorded (the message line says why). Returns result bits. */
int record_compare(struct tui_wizard *w, const char *ref, const char *cand, double rtol,
		   double atol, int64_t *id);
/* Compares two loss curves as `mtrial check curves` does with its
 * defaults, records the result and says so; as record_compare. */
int record_curves(struct tui_wizard *w, const char *ref, const char *cand, int64_t *id);
/* Withdraws run #id (why: required) as `mtrial rm run ID --why` does, in
 * the name of the same user, and says so. Returns result bits. */
int record_withdraw_run(struct tui_wizard *w, int64_t id, const char *why);
/* Imports the table at `file_or_url` as `mtrial tables import` does (the
 * same core, its name from the file's), and says what it holds and how to
 * probe with it. Returns result bits. */
int record_import_table(struct tui_wizard *w, const char *file_or_url);
/* Releases what record.c keeps in w. */
void record_dispose(struct tui_wizard *w);
/* Sets the message line (printf-style); is_error styles it as an error. */
void tui_message(struct tui_wizard *w, int is_error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* dispatch.c */
/* Opens a prompt (initial may be NULL) or a menu (items and title
 * borrowed while it is open) for the selected step's screen, with the
 * keyboard in its content: its input takes every key until it calls
 * tui_screen_ask_done. */
void tui_screen_prompt(struct tui_wizard *w, const char *title, const char *initial);
void tui_screen_menu(struct tui_wizard *w, const char *title, const char *const *items, int sel);
void tui_screen_ask_done(struct tui_wizard *w);

/* frame.c */
/* Computes the regions for the terminal's current size. */
void frame_layout(struct tui_wizard *w);
/* Draws everything: frame, side list, the visible screen's page, status,
 * message and any open prompt or menu. */
void frame_draw(struct tui_wizard *w, const struct tui_ctx *ctx);
/* Draws a scan's progress over the content pane and the message line and
 * shows it now: the scan holds the main loop, so this is the one drawing
 * that does not wait for it. total 0: the files are still being listed. */
void frame_progress(struct tui_wizard *w, const char *repo, const char *rev, size_t done,
		    size_t total, const char *path);
/* Draws a tensor comparison's progress as frame_progress does: `done` of
 * `total` bytes of tensor data compared. */
void frame_check_progress(struct tui_wizard *w, const char *ref, const char *cand,
			  uint64_t done, uint64_t total);
/* The screen the content pane shows (help when open). */
struct tui_screen *frame_content_screen(struct tui_wizard *w);

#endif
