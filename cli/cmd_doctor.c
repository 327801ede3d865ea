/* mtrial doctor: the libraries mtrial uses, their versions, and libtorch
 * through the dlopen'd shim (the one place a command loads it on purpose). */
#include "cli.h"
#include "error.h"
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
	if (cli->json)
		cli_print_json(d);
	else {
		print_text(d);
		json_decref(d);
	}
	return missing ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
