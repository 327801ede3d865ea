/* mtrial bundle: pack the trial for another team; verify a bundle. */
#include "cli.h"
#include "bundle_trial.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static json_t *notes_json(const char *notes)
{
	json_t *a = json_array();

	for (const char *p = notes; p && *p;) {
		size_t n = strcspn(p, "\n");
		json_array_append_new(a, json_stringn(p, n));
		p += n + (p[n] == '\n');
	}
	return a;
}

/* The artefacts rewritten by kind: {"scan": N, ...} of those there are. */
static json_t *by_kind_json(const mt_bundle_redacted *d)
{
	json_t *o = json_object();

	for (int k = 0; k < MT_BUNDLE_ART_KINDS; k++)
		if (d->artefacts_by_kind[k])
			json_object_set_new(o, mt_bundle_artefact_kinds[k],
					    json_integer((json_int_t)d->artefacts_by_kind[k]));
	return o;
}

/* " (scan 2, run log 1)", or "" with none. */
static void print_written(struct cli *cli, const char *path, const mt_bundle_result *r, int redact)
{
	const mt_bundle_redacted *d = &r->redacted;

	if (cli->json) {
		cli_print_json(json_pack("{ss, sI, sI, sI, sI, sI, sI, so, so}", "bundle", path, "files",
					 (json_int_t)r->files, "bytes", (json_int_t)r->bytes, "logs",
					 (json_int_t)r->logs, "logs_missing", (json_int_t)r->logs_missing,
					 "tracks", (json_int_t)r->tracks, "tracks_skipped",
					 (json_int_t)r->tracks_skipped, "redacted",
					 redact ? json_pack("{sI, sI, sI, sI, sI, so, sI, sI, sI}",
							    "private_note_events", (json_int_t)d->notes,
							    "host_names", (json_int_t)d->hosts,
							    "absolute_paths", (json_int_t)d->paths,
							    "events_files_renamed", (json_int_t)d->files,
							    "artefacts_rewritten", (json_int_t)d->artefacts,
							    "artefacts_rewritten_by_kind",
							    by_kind_json(d),
							    "artefacts_unchanged",
							    (json_int_t)d->artefacts_same,
							    "artefacts_not_carried",
							    (json_int_t)d->artefacts_missing,
							    "objects_unnamed_not_carried",
							    (json_int_t)d->objects_unnamed)
						: json_null(),
					 "notes", notes_json(r->notes)));
		return;
	}
	printf("Wrote %s: %zu files, %llu bytes; %zu run log(s), %zu track patch(es).\n",
	       cli_line(path), r->files, (unsigned long long)r->bytes, r->logs, r->tracks);
	if (redact) {
		mt_buf b = MT_BUF_INIT;
		mt_bundle_redacted_text(&b, d);
		printf("%s\n", mt_buf_cstr(&b));
		mt_buf_dispose(&b);
	}
	for (const char *p = r->notes; p && *p;) {
		size_t n = strcspn(p, "\n");
		printf("  note: %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	printf("Check it with: mtrial bundle verify %s\n", cli_line(path));
}

static int write_bundle(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS,
					     {"output", required_argument, NULL, 'o'},
					     {"redact", no_argument, NULL, 'R'},
					     {0}};
	mt_bundle_options o = {.now_ms = mt_now_ms()};
	mt_bundle_result r;
	mt_trial *t = NULL;
	int opt, error;

	while ((opt = cli_getopt(cli, argc, argv, "ho:", opts)) >= 0) {
		if (opt == 'o')
			o.output = optarg;
		else if (opt == 'R')
			o.redact = 1;
		else
			return cli_usage_error(cli, "bad option");
	}
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind < argc)
		return cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if (!o.output || !*o.output)
		return cli_usage_error(cli, "missing -o FILE.tar.gz");
	if ((error = cli_open_trial(cli, &t, 1)) < 0)
		return cli_fail(cli, error);
	error = mt_bundle_write(&r, t, &o);
	mt_trial_free(t);
	if (error == 0)
		print_written(cli, o.output, &r, o.redact);
	mt_bundle_result_dispose(&r);
	return error < 0 ? cli_fail(cli, error) : CLI_EXIT_OK;
}

static int verify(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {CLI_COMMON_OPTIONS, {0}};
	mt_bundle_verified v;
	const char *path;
	int opt, error;

	while ((opt = cli_getopt(cli, argc, argv, "h", opts)) >= 0)
		return cli_usage_error(cli, "bad option");
	if (opt == CLI_GETOPT_HELP)
		return CLI_EXIT_OK;
	if (optind + 1 != argc)
		return optind == argc ? cli_usage_error(cli, "missing the bundle FILE to verify")
				      : cli_usage_error(cli, "unexpected argument '%s'", argv[optind + 1]);
	path = argv[optind];
	if ((error = mt_bundle_verify(&v, path)) < 0)
		return cli_fail(cli, error);
	if (cli->json)
		cli_print_json(json_pack("{ss, sb, sI, sI, sI, sI}", "bundle", path, "verified", 1,
					 "files", (json_int_t)v.files, "bytes", (json_int_t)v.bytes,
					 "events_files", (json_int_t)v.events_files, "logs",
					 (json_int_t)v.logs));
	else
		printf("%s: verified: %zu files (%llu bytes) match the manifest; %zu events file(s), "
		       "%zu run log(s).\n",
		       cli_line(path), v.files, (unsigned long long)v.bytes, v.events_files, v.logs);
	return CLI_EXIT_OK;
}

int cmd_bundle(struct cli *cli, int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "verify") == 0)
		return verify(cli, argc - 1, argv + 1);
	return write_bundle(cli, argc, argv);
}
