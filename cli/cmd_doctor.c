/* mtrial doctor: the libraries mtrial uses, their versions, and libtorch
 * through the dlopen'd shim (the one place a command loads it on purpose);
 * in a trial, what is wrong with its record: lines of events files refused,
 * artefacts missing, a journal.db committed to git. */
#include "cli.h"
#include "doctor_trial.h"
#include "error.h"
#include "jsonutil.h"
#include "sanitize.h"
#include "mt_torch.h"
#include "repo.h"
#include "tui.h"
#include "util.h"

#include "curl_dl.h"
#include <sqlite3.h>
#include <yaml.h>

static json_t *lib(const char *name, const char *version, const char *purpose)
{
	return json_pack("{ss, sb, ss?, ss}", "name", name, "found", version != NULL, "version",
			 version, "purpose", purpose);
}

static json_t *torch_json(void)
{
	char version[64] = "";
	size_t nops = 0;
	int64_t t0 = mt_mono_ms();
	int error = mt_torch_version(version, sizeof(version));

	if (error == 0)
		error = mt_torch_operator_count(&nops);
	if (error < 0)
		return json_pack("{ss, sb, ss}", "name", "libtorch", "found", 0, "error",
				 mt_error_last());
	return json_pack("{ss, sb, ss, ss, sI, sI, ss}", "name", "libtorch", "found", 1,
			 "version", version, "module", mt_torch_module_path(), "operators",
			 (json_int_t)nops, "load_ms", (json_int_t)(mt_mono_ms() - t0), "purpose",
			 "TorchScript graphs, torch.save files (loaded on first use)");
}

static json_t *doctor_json(void)
{
	json_t *libs = json_array();
	const char *git2 = mt_repo_libgit2_version();

	if (git2)
		json_array_append_new(libs, lib("libgit2", git2,
						"reading repositories (loaded on first use)"));
	else
		json_array_append_new(libs, json_pack("{ss, sb, ss, ss}", "name", "libgit2", "found", 0,
						      "error", mt_error_last(), "purpose",
						      "reading repositories"));
	json_array_append_new(libs, lib("libyaml", yaml_get_version_string(),
					"trial.yaml and compatibility tables"));
	if (mt_curl_load() == 0)
		json_array_append_new(libs, lib("libcurl", curl_version_info(CURLVERSION_NOW)->version,
						"updating compatibility tables (loaded on first use)"));
	else
		json_array_append_new(libs, json_pack("{ss, sb, ss, ss}", "name", "libcurl", "found", 0,
						      "error", mt_error_last(), "purpose",
						      "updating compatibility tables"));
	json_array_append_new(libs, lib("sqlite", sqlite3_libversion(), "the trial journal"));
	json_array_append_new(libs, lib("jansson", jansson_version_str(), "JSON output"));
	json_array_append_new(libs, lib("ncurses", mt_tui_curses_version(), "the wizard"));
	json_array_append_new(libs, torch_json());
	return json_pack("{ss, so}", "mtrial", MT_VERSION, "libraries", libs);
}

/* The trial's record as doctor sees it; NULL outside a trial. */
static json_t *trial_json(struct cli *cli)
{
	mt_trial *t = NULL;
	mt_doctor_trial_result r;
	json_t *out = NULL, *refused = json_array(), *missing = json_array();

	if (cli_open_trial(cli, &t, 0) < 0) {
		mt_error_clear(); /* no trial here: the libraries alone */
		json_decref(refused);
		json_decref(missing);
		return NULL;
	}
	if (mt_doctor_trial(&r, t) < 0) {
		json_array_append_new(refused, json_pack("{ss, si, so, ss}", "file", "journal.db",
							 "line", 0, "id", json_null(), "reason",
							 mt_error_last()));
		mt_error_clear();
	}
	for (size_t i = 0; i < r.record.nfirst; i++) {
		const mt_refused_line *l = &r.record.first[i];
		json_array_append_new(refused, json_pack("{ss, sI, ss?, ss}", "file", l->file, "line",
							 (json_int_t)l->line, "id", l->uid,
							 "reason", l->reason));
	}
	for (size_t i = 0; i < r.record.nmissing; i++)
		json_array_append_new(missing, json_pack("{ss, ss, ss}", "object",
							 r.record.missing[i].ref, "what",
							 r.record.missing[i].what, "event",
							 r.record.missing[i].uid));
	out = json_pack("{ss, sI, sI, so, so, so, so, so, s{sI, sI, so}}", "dir", t->dir, "events",
			(json_int_t)r.record.events, "writers", (json_int_t)r.record.writers,
			"refused", refused, "missing_artefacts", missing, "journal_tracked",
			r.journal_tracked < 0 ? json_null() : json_boolean(r.journal_tracked),
			"journal_path", mt_json_text(r.journal_rel), "journal_tracked_unknown",
			mt_json_text(r.why_unknown), "artefact_temporaries", "removed",
			(json_int_t)r.swept.removed, "live", (json_int_t)r.swept.live, "error",
			mt_json_text(r.sweep_error));
	mt_doctor_trial_result_dispose(&r);
	mt_trial_free(t);
	return out;
}

/* 1 when the trial's record has something to fix. */
static int trial_problems(json_t *tr)
{
	return json_array_size(json_object_get(tr, "refused")) ||
	       json_array_size(json_object_get(tr, "missing_artefacts")) ||
	       json_is_true(json_object_get(tr, "journal_tracked"));
}

/* One line of free text from a file (a reason quotes it) made safe. */
static void put_safe(const char *fmt, const char *s)
{
	char *safe = mt_term_safe(s ? s : "", MT_TERM_LINE);
	printf(fmt, safe);
	free(safe);
}

static void print_trial(json_t *tr)
{
	json_t *v;
	size_t i;

	put_safe("trial %s\n", mt_json_str(tr, "dir"));
	printf("  record    %lld events from %lld writers\n", (long long)mt_json_int(tr, "events"),
	       (long long)mt_json_int(tr, "writers"));
	json_array_foreach(json_object_get(tr, "refused"), i, v) {
		put_safe("  refused   %s", mt_json_str(v, "file"));
		printf(":%lld: ", (long long)mt_json_int(v, "line"));
		put_safe("%s\n", mt_json_str(v, "reason"));
	}
	json_array_foreach(json_object_get(tr, "missing_artefacts"), i, v)
		printf("  missing   artefact %s, the %s of event %s: what is read from it is "
		       "unknown\n", mt_json_str(v, "object"), mt_json_str(v, "what"),
		       mt_json_str(v, "event"));
	v = json_object_get(tr, "artefact_temporaries");
	if (mt_json_int(v, "removed"))
		printf("  removed   %lld temporary artefact file(s) left by writers killed mid-write\n",
		       (long long)mt_json_int(v, "removed"));
	if (mt_json_int(v, "live"))
		printf("  kept      %lld temporary artefact file(s) of a writer still running\n",
		       (long long)mt_json_int(v, "live"));
	if (mt_json_str(v, "error"))
		put_safe("  cannot remove a temporary artefact file: %s\n", mt_json_str(v, "error"));
	if (json_is_true(json_object_get(tr, "journal_tracked")))
		put_safe("  journal.db is tracked by git: run `git rm --cached %s` (it is a local "
			 "index of events/, made again when missing)\n",
			 mt_json_str(tr, "journal_path"));
	else if (json_is_null(json_object_get(tr, "journal_tracked")))
		put_safe("  journal.db: cannot tell whether git tracks it: %s\n",
			 mt_json_str(tr, "journal_tracked_unknown"));
}

static void print_text(json_t *d)
{
	json_t *l;
	size_t i;

	printf("mtrial %s\n", json_string_value(json_object_get(d, "mtrial")));
	json_array_foreach(json_object_get(d, "libraries"), i, l) {
		int found = json_is_true(json_object_get(l, "found"));
		const char *v = json_string_value(json_object_get(l, "version"));
		printf("  %-9s %-8s %s\n", json_string_value(json_object_get(l, "name")),
		       found ? "found" : "MISSING",
		       found ? v : json_string_value(json_object_get(l, "error")));
		if (json_object_get(l, "operators"))
			printf("            %lld registered operators, loaded in %lld ms from %s\n",
			       (long long)json_integer_value(json_object_get(l, "operators")),
			       (long long)json_integer_value(json_object_get(l, "load_ms")),
			       json_string_value(json_object_get(l, "module")));
	}
	if (json_object_get(d, "trial"))
		print_trial(json_object_get(d, "trial"));
}

int cmd_doctor(struct cli *cli, int argc, char **argv)
{
	json_t *d;
	int status, missing = 0;
	size_t i;
	json_t *l;

	if (cli_parse_plain(cli, argc, argv, &status))
		return status;
	d = doctor_json();
	json_array_foreach(json_object_get(d, "libraries"), i, l)
		missing += !json_is_true(json_object_get(l, "found"));
	if ((l = trial_json(cli))) {
		missing += trial_problems(l);
		json_object_set_new(d, "trial", l);
	}
	if (cli->json)
		cli_print_json(d);
	else {
		print_text(d);
		json_decref(d);
	}
	return missing ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
