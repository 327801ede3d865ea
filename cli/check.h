/* The subcommands of `mtrial check`, one file each (cmd_check_*.c). Each
 * takes argv with the subcommand's name in argv[0] and returns an exit
 * status: 0 passed, 1 a mismatch, 2 a usage or input error. */
#ifndef MT_CLI_CHECK_H
#define MT_CLI_CHECK_H

#include "check_view.h"
#include "cli.h"

int check_compare(struct cli *cli, int argc, char **argv); /* cmd_check_compare.c */
int check_model(struct cli *cli, int argc, char **argv);   /* cmd_check_model.c */
int check_curves(struct cli *cli, int argc, char **argv);  /* cmd_check_curves.c */

/* --rehearsal, which compare, model and curves take: the check compares
 * stand-ins (two CPU runs, a smaller config) to test the comparison itself,
 * and is recorded as a rehearsal: listed, never evidence (trial/decide.h). */
#define CHECK_OPT_REHEARSAL 0x2100
#define CHECK_REHEARSAL_OPTION {"rehearsal", no_argument, NULL, CHECK_OPT_REHEARSAL}

/* The trial a check is recorded in: *t NULL and 0 when there is none (a
 * check needs no trial), an error for one that does not open. */
int check_open_trial(struct cli *cli, mt_trial **t, int load_spec);

/* Says where a check was recorded (check_id from mt_check_trial_record),
 * or that it was not for want of a trial; nothing with --json. */
void check_say_recorded(struct cli *cli, const mt_trial *t, int64_t check_id, int rehearsal);

/* Prints a tensor comparison (compare, model) as text: each failing tensor
 * in assert_close's words, then every tensor worst first
 * (cmd_check_compare.c). */
void check_print_tensors(const mt_check_view *v);

#endif
