/* Shared pieces of the mtrial command line: the command table, option
 * helpers and output conventions. Exit codes: 0 ok, 1 a check failed or the
 * verdict is negative, 2 usage or input error. */
#ifndef MT_CLI_H
#define MT_CLI_H

#include <getopt.h>
#include <stdio.h>
#include <jansson.h>
#include "run_trial.h"
#include "trial.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* State shared by every command: global options given before the command. */
struct cli {
	const char *trial_dir; /* --trial DIR, NULL when not given */
	int json;              /* --json */
	const struct cli_command *cmd;
};

struct cli_command {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv);
	const char *summary; /* one line for 'mtrial --help' */
	const char *usage;   /* full text for 'mtrial COMMAND --help' */
};

/* The table in main.c, NULL-name terminated. */
extern const struct cli_command cli_commands[];

/* Options every command accepts: --trial DIR, --json, --help. Commands list
 * CLI_COMMON_OPTIONS first in their option arrays and pass each option to
 * cli_common_option(), which returns 1 if it handled it, -1 for --help
 * (usage printed; the command returns 0), 0 otherwise. */
#define CLI_OPT_TRIAL 0x1001
#define CLI_OPT_JSON 0x1002
#define CLI_OPT_HELP 'h'
#define CLI_COMMON_OPTIONS                                                                         \
	{"trial", required_argument, NULL, CLI_OPT_TRIAL},                                         \
		{"json", no_argument, NULL, CLI_OPT_JSON}, {"help", no_argument, NULL, CLI_OPT_HELP}
int cli_common_option(struct cli *cli, int opt);

/* getopt_long with the common options handled: the command's next own
 * option, CLI_GETOPT_END after the last, or CLI_GETOPT_HELP when --help was
 * printed (the command returns 0). Commands loop while it is >= 0. */
#define CLI_GETOPT_END (-1)
#define CLI_GETOPT_HELP (-2)
int cli_getopt(struct cli *cli, int argc, char **argv, const char *shortopts,
	       const struct option *opts);

/* For commands that take only the common options and no arguments: parses
 * them. Returns 1 when the command must return *status at once (help was
 * printed, or a usage error), 0 to go on. */
int cli_parse_plain(struct cli *cli, int argc, char **argv, int *status);

/* Reports a usage error about the current command and returns exit code 2. */
int cli_usage_error(struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints mt_error_last() (stderr, and as {"error":..} on stdout with --json)
 * and returns the exit code for `code`. */
int cli_fail(struct cli *cli, int code);

/* Finds and opens the trial (from --trial, $MTRIAL_DIR or the cwd upward).
 * `load_spec`: also validate trial.yaml. Returns 0 or an MT_E* code. */
int cli_open_trial(struct cli *cli, mt_trial **out, int load_spec);

/* Prints a JSON value on stdout (indented, one trailing newline); steals it.
 * Controls and bidi characters inside its strings are \u escaped. */
int cli_print_json(json_t *v);

/* Output safety (cli/output.c). cli_output_filter() replaces stdout and
 * stderr, once, by streams that pass every byte through the sanitiser
 * (common/sanitize.h): text from outside never reaches the terminal raw,
 * whichever command prints it. cli_output_raw() puts the real streams back
 * (the wizard draws through curses, which sanitises itself). */
void cli_output_filter(void);
void cli_output_raw(void);
/* The real streams, for output that is not mtrial's to sanitise: `mtrial
 * run` passes the training command's own output through as it is. Flushes
 * the filtered stream first, so the order holds. */
FILE *cli_raw_stdout(void);
FILE *cli_raw_stderr(void);
/* s for one line of a list: what the output filter replaces, and also \n,
 * \r and \t as spaces, so a file name cannot start a line that passes for
 * another entry. Borrowed until 8 more calls; NULL gives "". */
const char *cli_line(const char *s);
/* A progress line on stderr rewritten in place ("\r\033[K" + the text, made
 * safe); NULL clears it. Nothing when stderr is not a terminal. */
void cli_status_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What `mtrial run` and `mtrial runs import` record about an attempt
 * (core/run_trial.h's mt_run_attempt): --system (default candidate),
 * --track, --label, --cache, --rehearsal, --devices, --hosts (the run's
 * topology: stronger than what its launcher or trial.yaml say), --design
 * (matched, the default, or best: the comparison the run belongs to). */
#define CLI_ATTEMPT_OPTIONS                                 \
	{"system", required_argument, NULL, 's'},           \
	{"track", required_argument, NULL, 't'},            \
	{"label", required_argument, NULL, 'l'},            \
	{"cache", required_argument, NULL, 'c'},            \
	{"rehearsal", no_argument, NULL, 'R'},              \
	{"devices", required_argument, NULL, CLI_OPT_DEVICES}, \
	{"hosts", required_argument, NULL, CLI_OPT_HOSTS},  \
	{"design", required_argument, NULL, CLI_OPT_DESIGN}
#define CLI_ATTEMPT_SHORT "s:t:l:c:"
#define CLI_OPT_DEVICES 0x101
#define CLI_OPT_HOSTS 0x102
#define CLI_OPT_DESIGN 0x103
/* Takes opt when it is one of CLI_ATTEMPT_OPTIONS: 1, else 0. */
int cli_attempt_opt(mt_run_attempt *a, int opt);
/* 0, or a usage error (exit 2) naming the option and its bad value. */
int cli_attempt_check(struct cli *cli, const mt_run_attempt *a);

/* `COMMAND mark ID --rehearsal|--evidence` (runs mark, check mark): makes a
 * recorded run or check a rehearsal (listed, never evidence) or evidence
 * again through set(); `what` names the command ("runs", "check") and
 * `noun` the record ("run", "check") in messages. */
int cli_mark_rehearsal(struct cli *cli, int argc, char **argv, const char *what,
		       const char *noun, int (*set)(mt_journal *j, int64_t id, int rehearsal));

/* Joins argv[from..argc) with single spaces; caller frees. NULL if none. */
char *cli_join_args(int argc, char **argv, int from);

/* The commands, one file each. */
int cmd_init(struct cli *cli, int argc, char **argv);
int cmd_note(struct cli *cli, int argc, char **argv);
int cmd_notes(struct cli *cli, int argc, char **argv);
int cmd_effort(struct cli *cli, int argc, char **argv);
int cmd_report(struct cli *cli, int argc, char **argv);
int cmd_doctor(struct cli *cli, int argc, char **argv);
int cmd_index(struct cli *cli, int argc, char **argv);
int cmd_sync(struct cli *cli, int argc, char **argv);
int cmd_tui(struct cli *cli, int argc, char **argv);
int cmd_spec(struct cli *cli, int argc, char **argv);
int cmd_scan(struct cli *cli, int argc, char **argv);
int cmd_probe(struct cli *cli, int argc, char **argv);
int cmd_override(struct cli *cli, int argc, char **argv);
int cmd_tables(struct cli *cli, int argc, char **argv);
int cmd_ops(struct cli *cli, int argc, char **argv);
int cmd_check(struct cli *cli, int argc, char **argv);
int cmd_run(struct cli *cli, int argc, char **argv);
int cmd_runs(struct cli *cli, int argc, char **argv);
int cmd_buckets(struct cli *cli, int argc, char **argv);
int cmd_breakeven(struct cli *cli, int argc, char **argv);
int cmd_scaling(struct cli *cli, int argc, char **argv);
int cmd_tracks(struct cli *cli, int argc, char **argv);
int cmd_decide(struct cli *cli, int argc, char **argv);
int cmd_rm(struct cli *cli, int argc, char **argv);
int cmd_bundle(struct cli *cli, int argc, char **argv);

#endif
