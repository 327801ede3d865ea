/* mtrial decide: the go/no-go verdict with each criterion of trial.yaml
 * judged from the record, as a checklist (trial/decide.h says how). */
#include "cli.h"
#include "decide.h"
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

static void print_criterion(json_t *c)
{
	const char *st = json_string_value(json_object_get(c, "status"));
	json_t *v;
	size_t i;

	printf("%s %s (%s): %s\n", mark(st), json_string_value(json_object_get(c, "name")),
	       json_string_value(json_object_get(c, "kind")) ?: "no kind", status_words(st));
	if (json_string_value(json_object_get(c, "description")))
		printf("    %s\n", json_string_value(json_object_get(c, "description")));
	printf("    evidence: %s\n", json_string_value(json_object_get(c, "evidence")));
	printf("    source: %s\n", json_string_value(json_object_get(c, "source")));
	json_array_foreach(json_object_get(c, "conditions"), i, v)
		printf("    condition: %s\n", json_string_value(v));
	json_array_foreach(json_object_get(c, "missing"), i, v)
		printf("    missing: %s; record it with: %s\n",
		       json_string_value(json_object_get(v, "what")),
		       json_string_value(json_object_get(v, "command")));
}

static void print_decision(json_t *d)
{
	json_t *c;
	size_t i;

	printf("Verdict: %s (%s)\n", json_string_value(json_object_get(d, "headline")),
	       json_string_value(json_object_get(d, "summary")));
	if (json_string_value(json_object_get(d, "caveat")))
		printf("Main caveat: %s\n", json_string_value(json_object_get(d, "caveat")));
	printf("\n");
	json_array_foreach(json_object_get(d, "criteria"), i, c)
		print_criterion(c);
	if (json_array_size(json_object_get(d, "caveats")) > 1) {
		printf("\nOther caveats:\n");
		json_array_foreach(json_object_get(d, "caveats"), i, c)
			if (i > 0)
				printf("  - %s\n", json_string_value(c));
	}
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
	if ((error = mt_decide(&d, t, mt_now_ms())) < 0) {
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
