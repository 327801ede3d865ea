/* tracks_view: the tracks as the CLI and the wizard read them, from the
 * real mt_tracks_json of a repository made here (a CUDA training script,
 * then its port) with one track over the port and one with a budget only:
 * every key read, values as in the JSON, a mark carried, and a key renamed
 * on the producer's side named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixtures.h"
#include "tracks.h"
#include "util.h"

#define YAML                                                                             \
	"schema: 1\nname: t\ntracks:\n"                                                  \
	"  portability: {base: HEAD~1, head: HEAD, description: \"minimal port\"}\n"    \
	"  optimized: {budget_hours: 10}\n"

static struct {
	char *tmp;
	json_t *tracks;
} fx;

static int setup(void **state)
{
	mt_tracks_rules *rules = NULL;
	mt_trial *t = NULL;
	char *dir;

	(void)state;
	fx.tmp = mt_fx_tmpdir("tracks_view");
	mt_fx_copy(fx.tmp, "train.py", "tests/data/scan/cuda_heavy.py");
	mt_fx_write(fx.tmp, "requirements.txt", "torch\nflash-attn\n");
	mt_fx_commit(fx.tmp, (const char *const[]){"train.py", "requirements.txt", NULL});
	mt_fx_write(fx.tmp, "train.py", "import torch\nimport torch_neuronx\ndevice = \"neuron\"\n");
	mt_fx_write(fx.tmp, "requirements.txt", "torch\n");
	mt_fx_commit(fx.tmp, (const char *const[]){"train.py", "requirements.txt", NULL});
	dir = mt_path_join(fx.tmp, ".mtrial");
	if (mt_trial_create(dir, "t", fx.tmp, NULL) < 0)
		fail_msg("%s", mt_error_last());
	mt_fx_write(dir, "trial.yaml", YAML);
	if (mt_trial_open(&t, dir, 1) < 0 || mt_tracks_rules_load(&rules) < 0 ||
	    mt_tracks_mark(t, rules, "portability", "train.py", "reusable", "any model", NULL) < 0 ||
	    mt_tracks_json(&fx.tracks, t, rules, mt_now_ms()) < 0)
		fail_msg("%s", mt_error_last());
	mt_tracks_rules_free(rules);
	mt_trial_free(t);
	free(dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	json_decref(fx.tracks);
	mt_fx_rmtree(fx.tmp);
	free(fx.tmp);
	return 0;
}

static const mt_track_view *named(const mt_track_view *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].name && strcmp(v[i].name, name) == 0)
			return &v[i];
	fail_msg("no track %s", name);
	return NULL;
}

static const mt_track_file *file(const mt_track_view *t, const char *path)
{
	for (size_t i = 0; i < t->nfiles; i++)
		if (strcmp(t->files[i].path, path) == 0)
			return &t->files[i];
	fail_msg("no file %s", path);
	return NULL;
}

static void test_reads_real_tracks(void **state)
{
	const json_t *port = json_array_get(fx.tracks, 0), *tot;
	const mt_track_view *p, *o;
	const mt_track_file *train;
	mt_track_view *v;
	size_t n, plat = 0;

	(void)state;
	if (mt_tracks_view_read(&v, &n, fx.tracks) < 0)
		fail_msg("%s", mt_error_last());
	assert_int_equal(n, json_array_size(fx.tracks));
	p = named(v, n, "portability");
	assert_true(p->has_changes);
	assert_string_equal(p->description, "minimal port");
	tot = json_object_get(json_object_get(port, "changes"), "totals");
	assert_int_equal(p->totals.platform, json_integer_value(json_object_get(tot, "platform")));
	assert_int_equal(p->totals.platform + p->totals.generic,
			 p->totals.added + p->totals.deleted);
	train = file(p, "train.py");
	assert_string_equal(train->mark, "reusable");
	assert_string_equal(train->mark_note, "any model");
	assert_true(train->platform > 0);
	assert_int_equal(train->nlines, (size_t)train->platform);
	for (size_t i = 0; i < p->nby_rule; i++)
		plat += (size_t)p->by_rule[i].lines;
	assert_int_equal(plat, (size_t)p->totals.platform);
	assert_int_equal(p->totals.reusable, train->added + train->deleted);
	assert_true(isnan(p->budget_hours));
	o = named(v, n, "optimized"); /* no revisions in trial.yaml */
	assert_false(o->has_changes);
	assert_non_null(o->missing);
	assert_true(o->budget_hours == 10.0);
	assert_true(o->budget_used == 0.0);
	mt_tracks_view_free(v, n);
}

static void test_names_a_renamed_key(void **state)
{
	json_t *copy = json_deep_copy(fx.tracks);
	json_t *files = json_object_get(json_object_get(json_array_get(copy, 0), "changes"), "files");
	json_t *f = json_array_get(files, 0);
	mt_track_view *v;
	size_t n;

	(void)state;
	json_object_set(f, "lines_added", json_object_get(f, "added"));
	json_object_del(f, "added");
	assert_int_equal(mt_tracks_view_read(&v, &n, copy), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "'added'"));
	mt_tracks_view_free(v, n);
	json_decref(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_real_tracks),
		cmocka_unit_test(test_names_a_renamed_key),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
