/* `mtrial bundle -o FILE`: the trial's files gathered, the manifest made,
 * the whole written as one tar.gz. */
#include "bundle_trial.h"
#include "bundle_int.h"
#include "error.h"
#include "events.h"
#include "jsonutil.h"
#include "jsonw.h"
#include "render.h"
#include "runview.h"
#include "sha256.h"
#include "tar.h"
#include "tracks.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OBJECTS_DIR "objects"

static const char format_text[] =
	"An mtrial bundle: a migration trial packed so that another team can inspect\n"
	"it and derive its verdict again (mtrial init --from-bundle FILE DIR, then\n"
	"mtrial decide and mtrial report there).\n\n"
	"MANIFEST            the first entry: \"SHA256  SIZE  NAME\" for every other entry,\n"
	"                    one a line, sorted by name; mtrial bundle verify checks it\n"
	"FORMAT              this text\n"
	"trial.yaml          the trial's specification, as it was\n"
	"record/events/      the record: one JSON Lines file per writer, one event a\n"
	"                    line ({v, id, t, author, host, kind, data}), append-only;\n"
	"                    every figure is derived from these and trial.yaml\n"
	"record/objects/     content-hashed artefacts the events name (when any)\n"
	"logs/ID-SYSTEM.log  each run's log as it was read, by the run's id and system\n"
	"checks.json         the checks' results (tensor comparisons, models, curves)\n"
	"environment.json    each system's software versions, from trial.yaml\n"
	"origin.json         the trial's directory and repository where it was made\n"
	"tracks/NAME.patch   each track's changes, base to head, as a unified diff\n"
	"tracks/NAME.json    the same as mtrial counted them (files, lines by rule):\n"
	"                    what a trial made from the bundle reads, repository or not\n"
	"report.md           the report, as `mtrial report --format md` made it\n"
	"report.html         the same as HTML\n\n"
	"A bundle made with --redact has the notes tagged private left out, host\n"
	"names replaced by {host} and absolute paths by {path}/NAME in trial.yaml,\n"
	"the record, the artefacts, the logs and the patches. An artefact whose\n"
	"content changed is named by its new sha256, and the events name that;\n"
	"one the trial did not have is not carried, nor an object no event names.\n"
	"A host name is replaced as a whole word only, never inside a longer one.\n"
	"The report is made from the redacted record, as a trial made from the\n"
	"bundle makes it.\n";

int bundle_files_take(struct bundle_files *f, const char *name, char *data, size_t len)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 32;
		struct bundle_file *v = realloc(f->v, cap * sizeof(*v));
		if (!v) {
			free(data);
			return mt_error_set(MT_EIO, "out of memory");
		}
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n++] = (struct bundle_file){mt_strdup(name), data ? data : mt_strdup(""), len};
	return 0;
}

void bundle_files_dispose(struct bundle_files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].data);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}

static int take_json(struct bundle_files *f, const char *name, json_t *v)
{
	char *text = v ? mt_json_dumps(v, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
	mt_buf b = MT_BUF_INIT;

	json_decref(v);
	if (!text)
		return mt_error_set(MT_ERROR, "%s: cannot be made", name);
	mt_buf_printf(&b, "%s\n", text);
	free(text);
	return bundle_files_take(f, name, b.ptr, b.len);
}

void mt_bundle_result_dispose(mt_bundle_result *r)
{
	free(r->notes);
	memset(r, 0, sizeof(*r));
}

static void note(mt_bundle_result *out, const char *fmt, const char *a, const char *b)
{
	mt_buf buf = MT_BUF_INIT;

	if (out->notes)
		mt_buf_puts(&buf, out->notes);
	mt_buf_printf(&buf, fmt, a, b ? b : "");
	mt_buf_puts(&buf, "\n");
	free(out->notes);
	out->notes = mt_buf_detach(&buf);
}

/* Says which host names replaced are short or common words: ordinary
 * words of the same spelling were replaced too. */
static void note_common_hosts(mt_bundle_result *out, const struct bundle_redactor *r)
{
	mt_buf names = MT_BUF_INIT;

	if (bundle_redact_common_hosts(r, &names))
		note(out, "--redact: short or common host name(s) %s: replaced wherever they stand "
		     "alone as a word, never inside one, so the same word meaning something else "
		     "was replaced too: read the bundle before you publish it%s",
		     mt_buf_cstr(&names), NULL);
	mt_buf_dispose(&names);
}

/* The events files, as they are or redacted (learnt whole first: a private
 * note's withdrawal may be in another writer's file). */
static int add_record(struct bundle_files *f, const char *trial_dir, struct bundle_redactor *r)
{
	mt_events *ev = NULL;
	char **names = NULL, **texts = NULL;
	size_t *lens = NULL, n = 0;
	int error;

	if ((error = mt_events_open(&ev, trial_dir)) < 0 || (error = mt_events_names(ev, &names)) < 0)
		goto cleanup;
	while (names[n])
		n++;
	texts = calloc(n + 1, sizeof(*texts));
	lens = calloc(n + 1, sizeof(*lens));
	for (size_t i = 0; i < n && error == 0; i++) {
		char *path = mt_path_join(mt_events_dir(ev), names[i]);
		if ((error = mt_file_read(&texts[i], &lens[i], path)) == 0 && r)
			bundle_redact_learn(r, texts[i], lens[i]);
		free(path);
	}
	for (size_t i = 0; i < n && error == 0; i++) {
		char *name = r ? bundle_redact_name(r, names[i]) : mt_strdup(names[i]), *entry;
		size_t len = lens[i];
		char *data = r ? bundle_redact_events(r, texts[i], lens[i], &len) : texts[i];
		if (r)
			free(texts[i]);
		texts[i] = NULL;
		entry = mt_path_join("record/" MT_EVENTS_DIR, name);
		error = bundle_files_take(f, entry, data, len);
		free(entry);
		free(name);
	}
cleanup:
	for (size_t i = 0; texts && i < n; i++)
		free(texts[i]);
	free(texts);
	free(lens);
	mt_events_names_free(names);
	mt_events_free(ev);
	return error;
}

/* Every regular file under dir/rel, as record/objects/rel/... */
static int add_objects(struct bundle_files *f, const char *dir, const char *rel)
{
	char *path = rel ? mt_path_join(dir, rel) : mt_strdup(dir);
	DIR *d = opendir(path);
	struct dirent *de;
	int error = 0;

	if (!d) {
		error = errno == ENOENT && !rel ? 0 : mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		free(path);
		return error;
	}
	while (error == 0 && (de = readdir(d))) {
		char *sub, *full, *data = NULL;
		struct stat st;
		size_t len;
		/* NAME.tmp.PID: an artefact being written, or a writer's killed */
		if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp."))
			continue;
		sub = rel ? mt_path_join(rel, de->d_name) : mt_strdup(de->d_name);
		full = mt_path_join(dir, sub);
		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			error = add_objects(f, dir, sub);
		} else if (S_ISREG(st.st_mode) && (error = mt_file_read(&data, &len, full)) == 0) {
			char *entry = mt_path_join("record/" OBJECTS_DIR, sub);
			error = bundle_files_take(f, entry, data, len);
			free(entry);
		}
		free(sub);
		free(full);
	}
	closedir(d);
	free(path);
	return error;
}

/* Each run's log (withdrawn runs too: the record holds them) as
 * logs/ID-SYSTEM.log; one that cannot be read is noted, not fatal. */
static int add_logs(struct bundle_files *f, mt_bundle_result *out, mt_trial *t,
		    struct bundle_redactor *r)
{
	json_t *runs = mt_journal_runs_json(t->journal, MT_JOURNAL_RUNS_ALL), *run;
	size_t i;
	int error = 0;

	if (!runs)
		return mt_error_last_code() ? mt_error_last_code() : MT_ERROR;
	json_array_foreach(runs, i, run) {
		mt_run_view v;
		char name[96], id[32], *data = NULL;
		size_t len = 0;
		if (mt_runview_read(&v, run) < 0 || !v.system)
			continue;
		snprintf(id, sizeof(id), "%lld", (long long)v.id);
		if (!v.source || mt_file_read(&data, &len, v.source) < 0) {
			out->logs_missing++;
			note(out, "run %s: its log %s could not be read; left out", id,
			     v.source ? v.source : "(none)");
			mt_error_clear();
			continue;
		}
		if (r) {
			char *red = bundle_redact_text(r, data, len, &len);
			free(data);
			data = red;
		}
		snprintf(name, sizeof(name), MT_TRIAL_BUNDLE_LOG, (long long)v.id, v.system);
		if ((error = bundle_files_take(f, name, data, len)) < 0)
			break;
		out->logs++;
	}
	json_decref(runs);
	return error;
}

/* systems.NAME.software of trial.yaml, by system. */
static json_t *environment(const mt_trial *t)
{
	json_t *spec = mt_spec_to_json(t->spec), *out = json_object(), *sys;
	const char *name;

	json_object_foreach(json_object_get(spec, "systems"), name, sys) {
		json_t *sw = json_object_get(sys, "software");
		json_object_set_new(out, name, json_pack("{sO}", "software", sw ? sw : json_null()));
	}
	json_decref(spec);
	return out;
}

/* Track `name`'s changes as tracks/NAME.json (what a trial made from the
 * bundle reads instead of a diff) and tracks/NAME.patch (for people). */
static int add_track(struct bundle_files *f, mt_bundle_result *out, mt_trial *t,
		     const mt_tracks_rules *rules, const char *name, struct bundle_redactor *r)
{
	mt_buf patch = MT_BUF_INIT, path = MT_BUF_INIT;
	json_t *changes = NULL;
	char base[96], head[96];
	int error;

	snprintf(base, sizeof(base), "tracks.%s.base", name);
	snprintf(head, sizeof(head), "tracks.%s.head", name);
	/* the changes first: they say why when the revisions are not given */
	if (mt_tracks_changes(&changes, t, rules, name) < 0 ||
	    mt_tracks_patch(&patch, t, mt_spec_get(t->spec, base), mt_spec_get(t->spec, head)) < 0) {
		out->tracks_skipped++;
		note(out, "track %s: not carried: %s", name, mt_error_last());
		mt_error_clear();
		json_decref(changes);
		mt_buf_dispose(&patch);
		return 0;
	}
	mt_buf_printf(&path, MT_TRACKS_SAVED_DIR "/%s.patch", name);
	if (r) {
		size_t len;
		char *red = bundle_redact_text(r, patch.ptr ? patch.ptr : "", patch.len, &len);
		mt_buf_dispose(&patch);
		patch.ptr = red;
		patch.len = len;
		bundle_redact_json(r, changes);
	}
	if ((error = bundle_files_take(f, path.ptr, patch.ptr, patch.len)) == 0) {
		path.len -= strlen("patch");
		mt_buf_puts(&path, "json");
		error = take_json(f, path.ptr, changes);
		changes = NULL;
	}
	json_decref(changes);
	mt_buf_dispose(&path);
	out->tracks += error == 0;
	return error;
}

static int add_tracks(struct bundle_files *f, mt_bundle_result *out, mt_trial *t,
		      struct bundle_redactor *r)
{
	mt_tracks_rules *rules = NULL;
	int error;

	if ((error = mt_tracks_rules_load(&rules)) < 0)
		return error;
	for (const char *const *n = mt_tracks; *n && error == 0; n++)
		error = add_track(f, out, t, rules, *n, r);
	mt_tracks_rules_free(rules);
	return error;
}

/* text with each `from` replaced by `to`. Caller frees. */
static char *replace_all(const char *text, size_t len, const char *from, const char *to,
			 size_t *out_len)
{
	mt_buf b = MT_BUF_INIT;
	size_t n = strlen(from);

	for (size_t i = 0; i < len;) {
		if (n && i + n <= len && memcmp(text + i, from, n) == 0) {
			mt_buf_puts(&b, to);
			i += n;
		} else {
			mt_buf_put(&b, text + i++, 1);
		}
	}
	*out_len = b.len;
	return mt_buf_detach(&b);
}

/* report.md and report.html of `src`, redacted as text with r; made in
 * the stage, they name the trial's directory, as the record's writer
 * knew it, where they name the stage's. */
static int add_reports(struct bundle_files *f, mt_trial *src, const char *trial_dir,
		       int64_t now_ms, struct bundle_redactor *r)
{
	static const char *const formats[] = {"md", "html"};
	int error = 0;

	for (size_t i = 0; i < 2 && error == 0; i++) {
		char *text = NULL, name[32];
		size_t len;
		if ((error = mt_report_render(&text, src, formats[i], now_ms)) < 0)
			break;
		len = strlen(text);
		if (r) {
			char *named = replace_all(text, len, src->dir, trial_dir ? trial_dir : "", &len);
			char *red = bundle_redact_text(r, named, len, &len);
			free(named);
			free(text);
			text = red;
		}
		snprintf(name, sizeof(name), "report.%s", formats[i]);
		error = bundle_files_take(f, name, text, len);
	}
	return error;
}

/* 1 when name is DIR/ONE_NAME.EXT: a file directly in dir with that ending. */
static int one_in(const char *name, const char *dir, const char *ext)
{
	size_t d = strlen(dir), n = strlen(name), e = strlen(ext);

	return strncmp(name, dir, d) == 0 && name[d] == '/' && !strchr(name + d + 1, '/') &&
	       n > d + 1 + e && strcmp(name + n - e, ext) == 0;
}

const char *bundle_destination(const char *name)
{
	/* only what a trial directory holds: never a journal.db, a writer or a
	 * marker a bundle could slip in */
	if (strcmp(name, MT_TRIAL_SPEC) == 0 || one_in(name, "logs", ".log") ||
	    one_in(name, MT_TRACKS_SAVED_DIR, ".json"))
		return name;
	if (one_in(name, "record/" MT_EVENTS_DIR, MT_EVENTS_EXT) ||
	    strncmp(name, "record/" OBJECTS_DIR "/", strlen("record/" OBJECTS_DIR "/")) == 0)
		return name + strlen("record/");
	return NULL;
}

int bundle_write_file(const char *root, const char *rel, const char *data, size_t len)
{
	char *path = mt_path_join(root, rel), *slash = strrchr(path, '/');
	int error = 0;

	*slash = '\0'; /* root has no trailing '/' and rel is a checked name */
	if (slash > path + strlen(root))
		error = mt_mkdir_p(path);
	*slash = '/';
	if (error == 0)
		error = mt_file_write_atomic(path, data, len, 1);
	free(path);
	return error;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path) == 0 ? 0 : -1;
}

static void remove_tree(const char *dir)
{
	if (dir)
		(void)nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The trial made of f as mt_bundle_init makes it (the record redacted), in a
 * temporary directory *dir (the caller removes it): what the redacted
 * report and checks are made from, so that they say no more than the
 * record does. */
static int stage(mt_trial **out, char **dir, const struct bundle_files *f, const char *repo)
{
	const char *tmp = getenv("TMPDIR");
	mt_buf b = MT_BUF_INIT;
	int error = 0;

	*out = NULL;
	mt_buf_printf(&b, "%s/mtrial-bundle.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(b.ptr)) {
		error = mt_error_set(MT_EIO, "%s: %s", b.ptr, strerror(errno));
		mt_buf_dispose(&b);
		return error;
	}
	*dir = mt_buf_detach(&b);
	for (size_t i = 0; i < f->n && error == 0; i++) {
		const char *to = bundle_destination(f->v[i].name);
		if (to)
			error = bundle_write_file(*dir, to, f->v[i].data, f->v[i].len);
	}
	/* made from the bundle as it will be: the tracks' changes it carries,
	 * the repository read as origin.json gives it */
	if (error == 0) {
		mt_buf_printf(&b, "(being written)\n");
		if (repo && *repo && !strchr(repo, '\n'))
			mt_buf_printf(&b, "%s\n", repo);
		error = bundle_write_file(*dir, MT_EVENTS_FROM_BUNDLE, b.ptr, b.len);
		mt_buf_dispose(&b);
	}
	return error < 0 ? error : mt_trial_open(out, *dir, 1);
}

static int cmp_files(const void *a, const void *b)
{
	return strcmp(((const struct bundle_file *)a)->name, ((const struct bundle_file *)b)->name);
}

/* The files sorted, MANIFEST first, as a tar.gz. */
static int pack(unsigned char **gz, size_t *gz_len, struct bundle_files *f, int64_t now_ms)
{
	mt_buf manifest = MT_BUF_INIT, tar = MT_BUF_INIT;
	int64_t mtime = now_ms / 1000;
	int error;

	qsort(f->v, f->n, sizeof(*f->v), cmp_files);
	for (size_t i = 0; i < f->n; i++) {
		char hex[65];
		mt_sha256_hex(hex, f->v[i].data, f->v[i].len);
		mt_buf_printf(&manifest, "%s  %zu  %s\n", hex, f->v[i].len, f->v[i].name);
	}
	error = mt_tar_add(&tar, MT_BUNDLE_MANIFEST, manifest.ptr ? manifest.ptr : "", manifest.len,
			   mtime);
	for (size_t i = 0; i < f->n && error == 0; i++)
		error = mt_tar_add(&tar, f->v[i].name, f->v[i].data, f->v[i].len, mtime);
	if (error == 0 && tar.len + 1024 > MT_TAR_MAX_SIZE) /* a bundle no reader would take */
		error = mt_error_set(MT_EINVALID, "the bundle would inflate to %zu bytes, more than the "
				     "%llu a reader accepts: the logs are too large to carry",
				     tar.len + 1024, (unsigned long long)MT_TAR_MAX_SIZE);
	if (error == 0)
		error = mt_tar_finish_gz(gz, gz_len, &tar);
	mt_buf_dispose(&manifest);
	mt_buf_dispose(&tar);
	return error;
}

/* Where the trial was: its directory and its repository as this host
 * reads workload.repository (a trial made from the bundle reads a relative
 * one so, to say the same), redacted with r. */
static json_t *origin(const mt_trial *t, struct bundle_redactor *r)
{
	char *repo = mt_trial_repository(t);
	json_t *o = json_pack("{so, so}", "trial", mt_json_text(t->dir), "repository",
			      repo ? mt_json_text(repo) : json_null());

	free(repo);
	if (r)
		bundle_redact_json(r, o);
	return o;
}

/* What the record says, from src (the trial, or its redacted stage). */
static int add_derived(struct bundle_files *f, json_t *orig, mt_trial *src,
		       const mt_bundle_options *o, struct bundle_redactor *r)
{
	int error;

	if ((error = take_json(f, BUNDLE_ORIGIN, json_incref(orig))) < 0 ||
	    (error = take_json(f, "checks.json", mt_journal_checks_json(src->journal, NULL, 0))) < 0 ||
	    (error = take_json(f, "environment.json", environment(src))) < 0 ||
	    (error = add_reports(f, src, mt_json_str(orig, "trial"), o->now_ms, r)) < 0)
		return error;
	return bundle_files_take(f, "FORMAT", mt_strdup(format_text), strlen(format_text));
}

int mt_bundle_write(mt_bundle_result *out, mt_trial *t, const mt_bundle_options *o)
{
	struct bundle_files f = {0};
	struct bundle_redactor red, *r = o->redact ? &red : NULL;
	mt_trial *staged = NULL;
	char *spec = NULL, *stage_dir = NULL;
	json_t *orig = NULL;
	unsigned char *gz = NULL;
	size_t len = 0, gz_len = 0;
	int error;

	memset(out, 0, sizeof(*out));
	if (r)
		bundle_redactor_init(r, &out->redacted, t->dir);
	/* the record first: it names the hosts that trial.yaml's redaction replaces */
	if ((error = add_record(&f, t->dir, r)) < 0 ||
	    (r && (error = bundle_take_artefacts(&f, r)) < 0) ||
	    (error = mt_file_read(&spec, &len, t->spec_path)) < 0)
		goto cleanup;
	if (r) {
		char *yaml = bundle_redact_yaml(r, spec, len, &len);
		free(spec);
		spec = yaml;
	}
	orig = origin(t, r);
	if ((error = bundle_files_take(&f, MT_TRIAL_SPEC, spec, len)) < 0 ||
	    (error = add_tracks(&f, out, t, r)) < 0 || (error = add_logs(&f, out, t, r)) < 0)
		goto cleanup;
	if (!r) {
		char *objects = mt_path_join(t->dir, OBJECTS_DIR);
		error = add_objects(&f, objects, NULL);
		free(objects);
	} else {
		error = stage(&staged, &stage_dir, &f, mt_json_str(orig, "repository"));
		if (error < 0) /* a line of trial.yaml the redaction broke, named */
			mt_error_prefix(error, "--redact: the redacted trial cannot be read back: ");
	}
	if (r && error == 0) {
		bundle_count_unnamed(r);
		if (out->redacted.objects_unnamed) {
			char count[32];
			snprintf(count, sizeof(count), "%zu", out->redacted.objects_unnamed);
			note(out, "--redact: %s object(s) in .mtrial/objects that no event names: not "
			     "carried (a redacted bundle holds what its record names)%s", count, NULL);
		}
	}
	if (r && out->redacted.artefacts_missing) {
		char count[32];
		snprintf(count, sizeof(count), "%zu", out->redacted.artefacts_missing);
		note(out, "--redact: %s artefact(s) the record names are not in the trial (missing or "
		     "damaged): not carried; the trial made from the bundle names them%s", count, NULL);
	}
	if (error < 0 || (error = add_derived(&f, orig, staged ? staged : t, o, r)) < 0 ||
	    (error = pack(&gz, &gz_len, &f, o->now_ms)) < 0)
		goto cleanup;
	if (r)
		note_common_hosts(out, r);
	if ((error = mt_file_write_atomic(o->output, (const char *)gz, gz_len, 0)) == 0) {
		out->files = f.n + 1;
		out->bytes = gz_len;
	}
cleanup:
	json_decref(orig);
	mt_trial_free(staged);
	remove_tree(stage_dir);
	free(stage_dir);
	free(gz);
	bundle_files_dispose(&f);
	if (r)
		bundle_redactor_dispose(r);
	return error;
}
