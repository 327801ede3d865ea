#include "trial.h"
#include "error.h"
#include "events.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int holds_trial(const char *dir)
{
	char *spec = mt_path_join(dir, MT_TRIAL_SPEC);
	int yes = mt_path_exists(spec);
	free(spec);
	return yes;
}

/* A directory laid out as a trial, as init (--trial DIR) and init
 * --from-bundle DIR make one: trial.yaml beside its record (journal.db, or
 * events/ where the index is not made yet). A trial.yaml alone, of some
 * other tool, is not taken for one. */
static int is_trial_dir(const char *dir)
{
	static const char *const record[] = {MT_TRIAL_JOURNAL, MT_EVENTS_DIR};
	int yes = 0;

	if (!holds_trial(dir))
		return 0;
	for (size_t i = 0; i < sizeof(record) / sizeof(record[0]) && !yes; i++) {
		char *p = mt_path_join(dir, record[i]);
		yes = mt_path_exists(p);
		free(p);
	}
	return yes;
}

/* The trial at dir: dir itself, else its .mtrial (init's default), NULL. */
static char *trial_at(const char *dir)
{
	char *cand;

	if (is_trial_dir(dir))
		return mt_strdup(dir);
	cand = mt_path_join(dir, MT_TRIAL_DEFAULT_DIR);
	if (holds_trial(cand))
		return cand;
	free(cand);
	return NULL;
}

int mt_trial_find(char **out, const char *explicit_dir, const char *cwd)
{
	const char *env = getenv("MTRIAL_DIR");
	char *dir, *slash;

	*out = NULL;
	if (!explicit_dir && env && *env)
		explicit_dir = env;
	if (explicit_dir) {
		if (!holds_trial(explicit_dir))
			return mt_error_set(MT_ENOTFOUND, "%s: no %s here (create a trial with "
					    "'mtrial init')", explicit_dir, MT_TRIAL_SPEC);
		*out = mt_path_abs(explicit_dir);
		return *out ? 0 : mt_error_last_code();
	}
	dir = mt_path_abs(cwd);
	if (!dir)
		return mt_error_last_code();
	for (;;) {
		if ((*out = trial_at(dir))) {
			free(dir);
			return 0;
		}
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	return mt_error_set(MT_ENOTFOUND, "no trial found: no %s/%s, nor a trial's own "
			    "directory, in %s or any parent (run 'mtrial init' in the "
			    "repository, or pass --trial DIR)",
			    MT_TRIAL_DEFAULT_DIR, MT_TRIAL_SPEC, cwd);
}

int mt_trial_open(mt_trial **out, const char *dir, int load_spec)
{
	mt_trial *t = calloc(1, sizeof(*t));
	int error;

	*out = NULL;
	if (!t)
		return mt_error_set(MT_EIO, "out of memory");
	t->dir = mt_strdup(dir);
	t->spec_path = mt_path_join(dir, MT_TRIAL_SPEC);
	t->journal_path = mt_path_join(dir, MT_TRIAL_JOURNAL);
	if (load_spec && (error = mt_spec_load(&t->spec, t->spec_path)) < 0)
		goto cleanup;
	/* journal.db is an index of events/, local to each clone: a clone of
	 * a repository with the trial committed makes its own */
	if ((error = mt_journal_open(&t->journal, t->journal_path,
				     mt_path_exists(t->spec_path))) < 0)
		goto cleanup;
	*out = t;
	return 0;
cleanup:
	mt_trial_free(t);
	return error;
}

void mt_trial_free(mt_trial *t)
{
	if (!t)
		return;
	json_decref(t->runs_held);
	mt_spec_free(t->spec);
	mt_journal_free(t->journal);
	free(t->dir);
	free(t->spec_path);
	free(t->journal_path);
	free(t);
}

/* repository relative to dir ("..", "../..") when dir lies inside it, else a
 * copy. dir must exist. Caller frees. */
static char *repository_from(const char *dir, const char *repository)
{
	char *abs = mt_path_abs(dir);
	char *root = repository && repository[0] == '/' ? mt_path_abs(repository) : NULL;
	size_t n = root ? strlen(root) : 0;
	mt_buf b = MT_BUF_INIT;

	if (!abs || !n || strncmp(abs, root, n) != 0 || abs[n] != '/') {
		free(abs);
		free(root);
		return repository ? mt_strdup(repository) : NULL;
	}
	for (const char *p = abs + n; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			mt_buf_printf(&b, "%s..", b.len ? "/" : "");
	free(abs);
	free(root);
	return mt_buf_detach(&b);
}

/* Line `n` (1-based) of the marker of a trial made from a bundle, NULL
 * for a trial that is not or a line that is not there. Caller frees. */
static char *bundle_marker_line(const mt_trial *t, int n)
{
	char *marker = mt_path_join(t->dir, MT_EVENTS_FROM_BUNDLE), *text = NULL, *p, *out = NULL;

	if (mt_file_read(&text, NULL, marker) == 0) {
		for (p = text; p && n > 1; n--)
			if ((p = strchr(p, '\n')))
				p++;
		if (p && *p && *p != '\n')
			out = strndup(p, strcspn(p, "\n"));
	}
	mt_error_clear(); /* no marker: not made from a bundle */
	free(text);
	free(marker);
	return out;
}

char *mt_trial_repository(const mt_trial *t)
{
	const char *r = t && t->spec ? mt_spec_get(t->spec, "workload.repository") : NULL;
	char *joined, *abs;

	if (!r || strstr(r, "://") || (strchr(r, '@') && strchr(r, ':')))
		return NULL; /* none, or a URL (git@host:path) */
	if (r[0] == '/')
		return mt_strdup(r);
	/* read against the directory of the trial the bundle was made from,
	 * as its writer resolved it: not against the copy's */
	if ((joined = bundle_marker_line(t, 2)))
		return joined;
	joined = mt_path_join(t->dir, r);
	abs = mt_path_abs(joined);
	if (!abs)
		return joined; /* not there: named as written, for the error to show */
	free(joined);
	return abs;
}

int mt_trial_create(const char *dir, const char *name, const char *repository,
		    const char *revision)
{
	char *spec_path = mt_path_join(dir, MT_TRIAL_SPEC);
	char *journal_path = mt_path_join(dir, MT_TRIAL_JOURNAL);
	char *text = NULL, *repo = NULL;
	mt_journal *j = NULL;
	int error;

	if (mt_path_exists(spec_path) || mt_path_exists(journal_path)) {
		error = mt_error_set(MT_EEXISTS, "%s already holds a trial; not overwriting it "
				     "(remove it first, or choose another --trial DIR)", dir);
		goto cleanup;
	}
	if ((error = mt_mkdir_p(dir)) < 0)
		goto cleanup;
	repo = repository_from(dir, repository);
	text = mt_spec_template(name, repo, revision);
	if ((error = mt_file_write_atomic(spec_path, text, strlen(text), 1)) < 0)
		goto cleanup;
	if ((error = mt_journal_open(&j, journal_path, 1)) < 0) {
		remove(spec_path); /* leave no half-made trial behind */
		goto cleanup;
	}
	mt_events_ignore_local(dir);
cleanup:
	mt_journal_free(j);
	free(repo);
	free(text);
	free(spec_path);
	free(journal_path);
	return error;
}

char *mt_trial_run_log(const mt_trial *t, int64_t id, const char *system, const char *source)
{
	char *marker = mt_path_join(t->dir, MT_EVENTS_FROM_BUNDLE), *copy = NULL;
	mt_buf b = MT_BUF_INIT;

	if (system && !strchr(system, '/') && mt_path_exists(marker)) { /* a name, never a path */
		mt_buf_printf(&b, "%s/" MT_TRIAL_BUNDLE_LOG, t->dir, (long long)id, system);
		copy = mt_buf_detach(&b);
		if (!mt_path_exists(copy)) {
			free(copy);
			copy = NULL;
		}
	}
	free(marker);
	return copy ? copy : source ? mt_strdup(source) : NULL;
}
