/* Keys become named actions first, as in tig: this one table binds each
 * action to its keys and carries the help text; the help screen is generated
 * from it, so a binding cannot exist without being documented.
 *
 * _(ID, "name", "help text", key, key...)  -- up to TUI_ACTION_MAX_KEYS keys,
 * curses KEY_* codes or ASCII characters. */
#ifndef MT_TUI_ACTIONS_H
#define MT_TUI_ACTIONS_H

#include "tui_curses.h"

#define TUI_CTRL(c) ((c) & 0x1f)
#define TUI_KEY_ESC 27

#define TUI_ACTIONS(_)                                                                  \
	_(MOVE_UP, "move-up", "Move up in the step list, or scroll the content up",     \
	  KEY_UP, 'k')                                                                  \
	_(MOVE_DOWN, "move-down", "Move down in the step list, or scroll the content down", \
	  KEY_DOWN, 'j')                                                                \
	_(PAGE_UP, "page-up", "Scroll the content up one page", KEY_PPAGE, TUI_CTRL('b')) \
	_(PAGE_DOWN, "page-down", "Scroll the content down one page", KEY_NPAGE,       \
	  TUI_CTRL('f'), ' ')                                                           \
	_(FIRST, "first", "Go to the first step, or the top of the content", 'g', KEY_HOME) \
	_(LAST, "last", "Go to the last step, or the end of the content", 'G', KEY_END)  \
	_(FOCUS, "switch-focus", "Switch focus between the step list and the content",  \
	  '\t')                                                                         \
	_(OPEN, "open-step", "Open the selected step (focus moves to its content)",    \
	  '\n', '\r', KEY_ENTER, KEY_RIGHT, 'l')                                        \
	_(BACK, "back",                                                                 \
	  "Back: closes help, an op's call sites or details, the ops' differences, an "  \
	  "inventory view, the ops filter, a check's details, then goes to the step list", \
	  KEY_LEFT, 'h', TUI_KEY_ESC)                                                   \
	_(NOTE, "add-note", "Add a friction note (a one-line prompt; Enter saves, Esc cancels)", \
	  'n')                                                                          \
	_(TIMER, "toggle-timer",                                                        \
	  "Start the effort timer (choose its category and track), or stop it", 't')   \
	_(SCAN, "scan",                                                                 \
	  "Scan the repository for its op inventory (asks for the path and the "         \
	  "revision; the result is recorded in the trial)", 's')                        \
	_(BY_OP, "by-op",                                                               \
	  "Repository: the inventory by op (Enter lists an op's call sites); again for " \
	  "the summary", 'o')                                                           \
	_(BY_FILE, "by-file", "Repository: the inventory by file; again for the summary", \
	  'f')                                                                          \
	_(BY_FINDING, "by-finding",                                                     \
	  "Repository: the findings, most effort first; again for the summary", 'e')    \
	_(PROBE, "probe",                                                               \
	  "Probe the ops against a compatibility table chosen in a menu: the ops of "    \
	  "the source shown (the latest scan, unless another was chosen with i); the "  \
	  "result is recorded in the trial", 'p')                                        \
	_(OP_SOURCE, "op-source",                                                       \
	  "Ops: where the ops come from, in a menu: the static scan, a TorchScript "     \
	  "archive's graphs or a dispatch trace of a real run (recorded with `mtrial "   \
	  "ops show FILE`); the choice is probed with the table shown and recorded", 'i') \
	_(OP_DIFF, "op-differences",                                                    \
	  "Ops: the differences between the source shown and the static scan (or, when " \
	  "the scan is shown, the latest trace or TorchScript archive): ops the scan "   \
	  "missed, ops seen only in backward, ops only in the scan", 'D')               \
	_(FILTER, "filter-ops",                                                         \
	  "Ops: show only the ops whose name or API contains the text typed (empty: "    \
	  "all)", '/')                                                                  \
	_(SHOW_STATUS, "show-status",                                                   \
	  "Ops: show only the ops of one status, or all again (a menu)", 'v')           \
	_(IMPORT_TABLE, "import-table",                                                 \
	  "Ops: import a compatibility table (asks for a file or an https URL: the "     \
	  "vendor's Markdown table, an RST list, analyze JSON or a team's mtrial YAML, " \
	  "as `mtrial tables import`); it is then in p's menu", 'T')                    \
	_(FINDING, "record-finding",                                                    \
	  "Ops: record a team finding about the selected op or API (its status on the "  \
	  "candidate and a note saying who, where, which version); the probe runs "      \
	  "again with it", 'r')                                                         \
	_(COMPARE, "compare-tensors",                                                   \
	  "Correctness: compare a candidate's tensors with the reference's (asks for "   \
	  "the two safetensors or torch.save files or directories, then rtol and atol: " \
	  "empty takes trial.yaml's tolerances, else the dtype's defaults); the result " \
	  "is recorded in the trial and shown", 'c')                                   \
	_(CURVES, "compare-curves",                                                     \
	  "Correctness: compare a candidate's loss curve with the reference's (asks "    \
	  "for the two files: CSV, JSON Lines or an MLPerf log; band rtol 0.05); the "   \
	  "result is recorded and drawn", 'L')                                         \
	_(HISTOGRAM, "error-histogram",                                                 \
	  "Correctness: in a tensor comparison, the error histogram in place of the "    \
	  "tensor table (when the pane is too short for both), and back", 'H')          \
	_(SYSTEMS, "systems-side-by-side",                                              \
	  "Runs: baseline and candidate side by side (runs, failed attempts, medians of " \
	  "time to target, clock 1, steady step and cost to target, candidate / "       \
	  "baseline), and back to the list", 'S')                                       \
	_(COMPILATION, "compilation-and-shapes",                                        \
	  "Runs: compilation and shapes (each run's compilations and their share, the "  \
	  "break-even run length of the two systems drawn as total time against run "   \
	  "length, and the bucket advice: the report's section), and back to the list", \
	  'B')                                                                          \
	_(SCALING, "scaling",                                                           \
	  "Runs: scaling, each system per device count as `mtrial scaling` gives it "   \
	  "(time to target, device-hours, throughput per device, efficiency against "   \
	  "the smallest topology, the throughput each added device brings, waits for "  \
	  "data and communication), and back to the list", 'E')                        \
	_(START_RUN, "start-run",                                                       \
	  "Runs: start a training run (choose its system and track, type the command; " \
	  "`mtrial run` runs it in the background and records it, and the list shows "  \
	  "its progress: elapsed time, step, loss and evaluation)", 'x')                \
	_(WITHDRAW, "withdraw-run",                                                     \
	  "Runs: withdraw the selected run, made by mistake (asks why; the journal "    \
	  "keeps it with who, when and why, and every figure leaves it out, as `mtrial " \
	  "rm run ID --why TEXT`)", 'W')                                                \
	_(IMPORT_RUN, "import-run",                                                     \
	  "Runs: import a run made elsewhere (asks for its log: an MLPerf log, mtrial: "  \
	  "lines, CSV or JSON Lines; then its system, track and, when trial.yaml sets "  \
	  "precision.best, its comparison; as `mtrial runs import`), then selects it", 'I') \
	_(MARK, "mark-change",                                                          \
	  "Tracks: mark the selected file's change reusable, then model-specific, then "  \
	  "not at all (Enter in Tracks & effort lists the changed files)", 'm')          \
	_(WRITE_REPORT, "write-report",                                                 \
	  "Summary: write the report into the trial directory (report.md and "          \
	  "report.html, as `mtrial report` renders them)", 'w')                         \
	_(BUNDLE, "write-bundle",                                                       \
	  "Summary: write a bundle for another team (asks for the file, "                \
	  "NAME-bundle.tar.gz beside the trial, and whether to redact private notes, "   \
	  "host names and absolute paths; as `mtrial bundle -o FILE [--redact]`)", 'b')  \
	_(RELOAD, "reload", "Reload the record now (it also reloads every 2 seconds)", 'R') \
	_(HELP, "help", "Show or hide this help", '?', KEY_F(1))                        \
	_(REDRAW, "redraw", "Redraw the screen", TUI_CTRL('l'))                        \
	_(QUIT, "quit", "Quit the wizard (closes help first)", 'q')

enum tui_action {
	TUI_ACT_NONE = -1,
#define TUI_ACTION_ENUM(id, name, help, ...) TUI_ACT_##id,
	TUI_ACTIONS(TUI_ACTION_ENUM)
#undef TUI_ACTION_ENUM
	TUI_ACT__COUNT
};

#define TUI_ACTION_MAX_KEYS 6

/* The action bound to a curses key code or ASCII character, or TUI_ACT_NONE. */
enum tui_action tui_action_for_key(int key);

/* The action's name and help text (static). */
const char *tui_action_name(enum tui_action a);
const char *tui_action_help(enum tui_action a);

/* The keys bound to the action for people to read ("Up, k") into buf. */
void tui_action_keys(enum tui_action a, char *buf, size_t size);

#endif
