/* mtrial tracks: what each track changed (files and lines, platform-specific
 * or generic, model code or harness) and what it cost in engineering time,
 * against the optimized track's budget. */
#include "changes.h"
#include "cli.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char *const track_names[] = {"portability", "optimized", NULL};

/* The repository the tracks' revisions live in: workload.repository when it
 * is a directory here, else the one holding the trial. */
static const char *repo_of(const mt_trial *t)
{
	const char *r = t->spec ? mt_spec_get(t->spec, "workload.repository") : NULL;
	return r && mt_path_is_dir(r) ? r : t->dir;
}

static json_t *track_json(mt_trial *t, const mt_change_rules *rules, const char *name,
			  json_t *effort)
{
	char key[64];
	const char *base, *head, *budget;
	json_t *tr = json_pack("{ss}", "name", name), *changes = NULL;
	json_t *spent = json_object_get(json_object_get(effort, "by_track"), name);

#define SPEC(field) (snprintf(key, sizeof(key), "tracks.%s." field, name), mt_spec_get(t->spec, key))
	base = SPEC("base");
	head = SPEC("head");
	budget = SPEC("budget_hours");
	json_object_set_new(tr, "base", base ? json_string(base) : json_null());
	json_object_set_new(tr, "head", head ? json_string(head) : json_null());
	json_object_set_new(tr, "description", SPEC("description") ? json_string(SPEC("description"))
								     : json_null());
#undef SPEC
	json_object_set_new(tr, "budget_hours", budget ? json_real(strtod(budget, NULL)) : json_null());
	json_object_set_new(tr, "effort", spent ? json_incref(spent)
						: json_pack("{sI, s{}}", "total_ms", (json_int_t)0,
							    "by_category"));
	if (budget && strtod(budget, NULL) > 0)
		json_object_set_new(tr, "budget_used",
				    json_real((double)json_integer_value(json_object_get(
						      json_object_get(tr, "effort"), "total_ms")) /
					      3600000.0 / strtod(budget, NULL)));
	if (!base || !head) {
		json_object_set_new(tr, "changes", json_null());
		json_object_set_new(tr, "missing", json_string("tracks.<name>.base and .head in trial.yaml"));
	} else if (mt_changes_diff(&changes, repo_of(t), base, head, rules) < 0) {
		json_object_set_new(tr, "changes", json_null());
		json_object_set_new(tr, "error", json_string(mt_error_last()));
		mt_error_clear();
	} else {
		json_object_set_new(tr, "changes", changes);
	}
	return tr;
}

static void print_track(json_t *tr)
{
	json_t *ch = json_object_get(tr, "changes"), *tot = json_object_get(ch, "totals"), *f, *e;
	json_t *effort = json_object_get(tr, "effort");
	const char *rule;
	size_t i;

	printf("%s track: %s..%s\n", json_string_value(json_object_get(tr, "name")),
	       json_string_value(json_object_get(tr, "base")) ?: "?",
	       json_string_value(json_object_get(tr, "head")) ?: "?");
	if (json_string_value(json_object_get(tr, "description")))
		printf("  %s\n", json_string_value(json_object_get(tr, "description")));
	if (json_string_value(json_object_get(tr, "error")))
		printf("  changes: %s\n", json_string_value(json_object_get(tr, "error")));
	else if (json_string_value(json_object_get(tr, "missing")))
		printf("  changes: unknown: set %s\n", json_string_value(json_object_get(tr, "missing")));
	if (ch) {
		printf("  %lld files, +%lld -%lld lines: %lld platform-specific, %lld generic; "
		       "model %lld, harness %lld, other %lld\n",
		       (long long)json_integer_value(json_object_get(tot, "files")),
		       (long long)json_integer_value(json_object_get(tot, "added")),
		       (long long)json_integer_value(json_object_get(tot, "deleted")),
		       (long long)json_integer_value(json_object_get(tot, "platform")),
		       (long long)json_integer_value(json_object_get(tot, "generic")),
		       (long long)json_integer_value(json_object_get(json_object_get(tot, "by_kind"), "model")),
		       (long long)json_integer_value(json_object_get(json_object_get(tot, "by_kind"), "harness")),
		       (long long)json_integer_value(json_object_get(json_object_get(tot, "by_kind"), "other")));
		json_array_foreach(json_object_get(ch, "files"), i, f)
			printf("    %-9s %-8s %-40s +%lld -%lld (%lld platform)\n",
			       json_string_value(json_object_get(f, "status")),
			       json_string_value(json_object_get(f, "kind")),
			       json_string_value(json_object_get(f, "path")),
			       (long long)json_integer_value(json_object_get(f, "added")),
			       (long long)json_integer_value(json_object_get(f, "deleted")),
			       (long long)json_integer_value(json_object_get(f, "platform")));
		json_object_foreach(json_object_get(tot, "by_rule"), rule, e)
			printf("    %-20s %lld lines\n", rule, (long long)json_integer_value(e));
	}
	printf("  effort: %.1f h", (double)json_integer_value(json_object_get(effort, "total_ms")) /
				       3600000.0);
	if (json_is_number(json_object_get(tr, "budget_hours")))
		printf(" of a %.1f h budget (%.0f%%)",
		       json_number_value(json_object_get(tr, "budget_hours")),
		       100 * json_number_value(json_object_get(tr, "budget_used")));
	printf("\n");
}

int cmd_tracks(struct cli *cli, int argc, char **argv)
{
	mt_change_rules *rules = NULL;
	mt_trial *t = NULL;
	json_t *effort, *out, *tr;
	int status, error, broken = 0;
	size_t i;

	if (cli_parse_plain(cli, argc, argv, &status))
		return status;
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	if ((error = mt_change_rules_load(&rules)) < 0) {
		mt_trial_free(t);
		return cli_fail(cli, error);
	}
	effort = mt_journal_effort_summary_json(t->journal, mt_now_ms());
	out = json_array();
	for (const char *const *n = track_names; *n; n++)
		json_array_append_new(out, track_json(t, rules, *n, effort));
	if (cli->json) {
		cli_print_json(json_incref(out));
	} else {
		json_array_foreach(out, i, tr)
			print_track(tr);
	}
	json_array_foreach(out, i, tr) /* a revision that is not there: bad input */
		if (json_string_value(json_object_get(tr, "error"))) {
			fprintf(stderr, "mtrial tracks: %s track: %s\n",
				json_string_value(json_object_get(tr, "name")),
				json_string_value(json_object_get(tr, "error")));
			broken = 1;
		}
	json_decref(out);
	json_decref(effort);
	mt_change_rules_free(rules);
	mt_trial_free(t);
	return broken ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}
