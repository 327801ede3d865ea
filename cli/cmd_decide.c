/* mtrial decide: the go/no-go verdict with each criterion of trial.yaml
 * judged from the record, as a checklist (trial/decide.h says how). */
#include "cli.h"
#include "decide.h"
#include "decide_view.h"
#include "decision.h"
#include "error.h"
#include "util.h"

#include <string.h>

static const char *mark(const char *status)
{
	return strcmp(status, "met") == 0 ? "[x]" : strcmp(status, "not_met") == 0 ? "[ ]" : "[?]";
}

static const char *status_words(const char *status)
{
	return strcmp(status, "met") == 0 ? "met" : strcmp(status, "not_met") == 0 ? "NOT MET" : "unknown";
}

static void print_criterion(const mt_criterion_view *c)
{
	const char *what, *command;

	printf("%s %s (%s): %s\n", mark(c->status), c->name, c->kind ?: "no kind",
	       status_words(c->status));
	if (c->description)
		printf("    %s\n", c->description);
	printf("    evidence: %s\n", c->evidence);
	printf("    source: %s\n", c->source);
	for (size_t i = 0; i < c->n_conditions; i++)
		printf("    condition: %s\n", mt_decide_view_condition(c, i));
	for (size_t i = 0; mt_decide_view_missing(c, i, &what, &command) != MT_ENOTFOUND; i++)
		printf("    missing: %s; record it with: %s\n", what, command);
}

static void print_decision(const json_t *decision)
{
	mt_decision_view d;
	mt_criterion_view c;

	(void)mt_decide_view_read(&d, decision); /* a key missing: its line says (null) */
	printf("Verdict: %s (%s)\n", d.headline, d.summary);
	if (d.caveat)
		printf("Main caveat: %s\n", d.caveat);
	printf("\n");
	for (size_t i = 0; mt_decide_view_criterion(&c, &d, i) != MT_ENOTFOUND; i++)
		print_criterion(&c);
	if (d.n_caveats > 1) {
		printf("\nOther caveats:\n");
		for (size_t i = 1; i < d.n_caveats; i++)
			printf("  - %s\n", mt_decide_view_caveat(&d, i));
	}
	mt_error_clear();
}

int cmd_decide(struct cli *cli, int argc, char **argv)
{
	mt_trial *t = NULL;
	json_t *d = NULL;
	int status, error, go;

	if (cli_parse_plain(cli, argc, argv, &status))
		return status;
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	if ((error = mt_decision(&d, t, mt_now_ms())) < 0) {
		mt_trial_free(t);
		return cli_fail(cli, error);
	}
	go = mt_decide_is_go(d);
	if (cli->json)
		cli_print_json(d);
	else {
		print_decision(d);
		json_decref(d);
	}
	mt_trial_free(t);
	return go ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
