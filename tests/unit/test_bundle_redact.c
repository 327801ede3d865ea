/* bundle --redact's redactor (core/bundle_redact.c, bundle_artefacts.c):
 * absolute paths and host names replaced in text, JSON values and keys,
 * trial.yaml kept YAML (a plain scalar changed is quoted, in a flow
 * collection too); an artefact an event names redacted, named by its
 * new hash, the event naming that; one the trial lacks left named and
 * counted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle_int.h"
#include "error.h"
#include "fixtures.h"
#include "objects.h"
#include "sha256.h"
#include "util.h"

static int setup(void **state)
{
	*state = mt_fx_tmpdir("bundle-redact");
	return 0;
}

#define teardown mt_fx_teardown_tmpdir

/* A redactor that knows host "gpu-node-7" from an event. */
static void redactor(struct bundle_redactor *r, mt_bundle_redacted *counts, const char *dir)
{
	const char ev[] = "{\"v\":2,\"id\":\"a\",\"host\":\"gpu-node-7.example.org\",\"kind\":\"note.add\","
			  "\"data\":{\"text\":\"x\"}}\n";

	memset(counts, 0, sizeof(*counts));
	bundle_redactor_init(r, counts, dir);
	bundle_redact_learn(r, ev, strlen(ev));
}

static char *redact(struct bundle_redactor *r, const char *s)
{
	size_t n;
	return bundle_redact_text(r, s, strlen(s), &n);
}

static void test_text(void **state)
{
	struct bundle_redactor r;
	mt_bundle_redacted c;
	char *out;

	redactor(&r, &c, *state);
	out = redact(&r, "ran on gpu-node-7 with --data=/home/ana/imagenet/train: ok");
	assert_string_equal(out, "ran on {host} with --data={path}/train: ok");
	free(out);
	assert_int_equal(c.hosts, 1);
	assert_int_equal(c.paths, 1);
	/* one component is not a path; /dev/null is no host's; a longer name or
	 * a dotted word is not the host */
	out = redact(&r, "tokens (/s) --- /dev/null gpu-node-70 gpu-node-7.x1 gpu-node-7.example.org");
	assert_string_equal(out, "tokens (/s) --- /dev/null gpu-node-70 gpu-node-7.x1 {host}");
	free(out);
	bundle_redactor_dispose(&r);
}

/* Short host names ("vm", "gpu") replaced only as whole words, never
 * inside a longer one ([A-Za-z0-9_-] and letters beyond ASCII), in text
 * and in events files' names; the summary names the short ones replaced. */
static void test_short_hosts(void **state)
{
	const char ev[] = "{\"v\":2,\"id\":\"a\",\"host\":\"vm\",\"kind\":\"note.add\"}\n"
			  "{\"v\":2,\"id\":\"b\",\"host\":\"gpu.lab.example\",\"kind\":\"note.add\"}\n";
	struct bundle_redactor r;
	mt_bundle_redacted c;
	mt_buf said = MT_BUF_INIT;
	char *out;

	memset(&c, 0, sizeof(c));
	bundle_redactor_init(&r, &c, *state);
	bundle_redact_learn(&r, ev, strlen(ev));
	out = redact(&r, "kvm vmware my_vm vm-2 x-vm vm7 llvm gpus egpu gpu0 nvgpu_x "
			 "\xc3\xa4gpu gpu\xc3\xa9 vm.\xc3\xa9 on vm, gpu.lab.example.");
	assert_string_equal(out, "kvm vmware my_vm vm-2 x-vm vm7 llvm gpus egpu gpu0 nvgpu_x "
				 "\xc3\xa4gpu gpu\xc3\xa9 vm.\xc3\xa9 on {host}, {host}.");
	free(out);
	assert_int_equal(c.hosts, 2);
	/* "vm" replaced once, "gpu" never alone: the summary names "vm" */
	assert_int_equal(bundle_redact_common_hosts(&r, &said), 1);
	assert_string_equal(mt_buf_cstr(&said), "vm (1 time)");
	mt_buf_dispose(&said);
	/* a writer's file of host vm, renamed; another host's whose name
	 * starts with "vm-", kept */
	out = bundle_redact_name(&r, "vm-0123456789abcdef.jsonl");
	assert_string_equal(out, "redacted-0123456789abcdef.jsonl");
	free(out);
	out = bundle_redact_name(&r, "vm-build-2-0123456789abcdef.jsonl");
	assert_string_equal(out, "vm-build-2-0123456789abcdef.jsonl");
	free(out);
	assert_int_equal(c.files, 1);
	bundle_redactor_dispose(&r);
}

static void test_json_values_and_keys(void **state)
{
	struct bundle_redactor r;
	mt_bundle_redacted c;
	json_t *v = json_pack("{s{si, si}, ss, s[s]}", "files", "/srv/a/train.py", 1,
			      "/srv/b/train.py", 2, "repo", "/srv/a", "hosts", "gpu-node-7");
	json_t *files;

	redactor(&r, &c, *state);
	bundle_redact_json(&r, v);
	files = json_object_get(v, "files");
	assert_int_equal(json_object_size(files), 2); /* two keys made one stay two */
	assert_non_null(json_object_get(files, "{path}/train.py"));
	assert_non_null(json_object_get(files, "{path}/train.py#2"));
	assert_string_equal(json_string_value(json_object_get(v, "repo")), "{path}/a");
	assert_string_equal(json_string_value(json_array_get(json_object_get(v, "hosts"), 0)), "{host}");
	json_decref(v);
	bundle_redactor_dispose(&r);
}

static void test_yaml_stays_yaml(void **state)
{
	struct bundle_redactor r;
	mt_bundle_redacted c;
	const char in[] = "workload:\n  repository: /srv/code/proj\n  name: \"/srv/x/y\"\n"
			  "  # the data is in /srv/data/set\n  list:\n    - /srv/a/b # on gpu-node-7\n"
			  "  command: python /srv/a/train.py\n"
			  "  model: {name: tiny, config: /srv/cfg/model.json, url: \"http://h/x\"}\n"
			  "  seq: [/srv/a/b, 'it''s /srv/c/d']\n";
	size_t n;
	char *out;

	redactor(&r, &c, *state);
	out = bundle_redact_yaml(&r, in, strlen(in), &n);
	assert_string_equal(out, "workload:\n  repository: '{path}/proj'\n  name: \"{path}/y\"\n"
				 "  # the data is in {path}/set\n  list:\n    - '{path}/b' # on {host}\n"
				 "  command: 'python {path}/train.py'\n"
				 "  model: {name: tiny, config: '{path}/model.json', url: \"http://h/x\"}\n"
				 "  seq: ['{path}/b', 'it''s {path}/d']\n");
	free(out);
	bundle_redactor_dispose(&r);
}

static void test_artefacts_rehashed_events_renamed(void **state)
{
	const char *dir = *state, log[] = "step 1 in /srv/runs/out on gpu-node-7\n";
	const char clean[] = "{\"ops\":{\"aten::add\":3}}";
	char ref[MT_OBJECT_REF_LEN + 1], same[MT_OBJECT_REF_LEN + 1], hex[65], *events, *out, *back;
	struct bundle_redactor r;
	struct bundle_files f = {0};
	mt_bundle_redacted c;
	json_t *ev;
	size_t n, len;

	assert_int_equal(mt_object_put(dir, log, strlen(log), ref), 0);
	assert_int_equal(mt_object_put(dir, clean, strlen(clean), same), 0);
	events = mt_strdup("");
	{
		mt_buf b = MT_BUF_INIT;
		/* the log named twice (run.add, run.end), a clean result, one missing */
		mt_buf_printf(&b, "{\"v\":2,\"id\":\"1\",\"host\":\"gpu-node-7\",\"kind\":\"run.add\",\"data\":"
			      "{\"log_object\":{\"object\":\"%s\",\"bytes\":%zu}}}\n", ref, strlen(log));
		mt_buf_printf(&b, "{\"v\":2,\"id\":\"2\",\"host\":\"gpu-node-7\",\"kind\":\"run.end\",\"data\":"
			      "{\"log_object\":{\"object\":\"%s\",\"bytes\":%zu}}}\n", ref, strlen(log));
		mt_buf_printf(&b, "{\"v\":2,\"id\":\"3\",\"host\":\"gpu-node-7\",\"kind\":\"probe.add\",\"data\":"
			      "{\"result\":{\"object\":\"%s\",\"bytes\":%zu}}}\n", same, strlen(clean));
		mt_buf_printf(&b, "{\"v\":2,\"id\":\"4\",\"host\":\"gpu-node-7\",\"kind\":\"scan.add\",\"data\":"
			      "{\"result\":{\"object\":\"sha256:%064d\",\"bytes\":9}}}\n", 0);
		free(events);
		events = mt_buf_detach(&b);
	}
	redactor(&r, &c, dir);
	out = bundle_redact_events(&r, events, strlen(events), &n);
	assert_int_equal(r.error, 0);
	assert_int_equal(c.artefacts, 1);
	assert_int_equal(c.artefacts_by_kind[MT_BUNDLE_ART_RUN_LOG], 1);
	assert_int_equal(c.artefacts_same, 1);
	assert_int_equal(c.artefacts_missing, 1);
	assert_null(strstr(out, ref)); /* the old name is gone from the record */
	assert_non_null(strstr(out, same));
	ev = json_loadb(out, strcspn(out, "\n"), 0, NULL);
	assert_non_null(ev);
	{
		const char *got = NULL;
		uint64_t bytes = 0;
		const char want[] = "step 1 in {path}/out on {host}\n";
		assert_true(mt_object_ref_of(json_object_get(json_object_get(ev, "data"), "log_object"),
					     &got, &bytes));
		mt_sha256_hex(hex, want, strlen(want));
		assert_string_equal(got + 7, hex);
		assert_int_equal(bytes, strlen(want));
	}
	json_decref(ev);
	/* the redacted log once (named twice), the clean result as it was */
	assert_int_equal(bundle_take_artefacts(&f, &r), 0);
	assert_int_equal(f.n, 2);
	assert_memory_equal(f.v[0].name, "record/objects/sha256/", 22);
	assert_string_equal(f.v[0].name + 22 + 3, hex + 2);
	{
		char *tmpdir = mt_path_join(dir, "copy"), *path;
		mt_buf rel = MT_BUF_INIT;
		mt_buf_printf(&rel, "sha256:%s", hex);
		path = mt_object_path(tmpdir, mt_buf_cstr(&rel));
		*strrchr(path, '/') = '\0';
		assert_int_equal(mt_mkdir_p(path), 0);
		*strchr(path + strlen(path), '\0') = '/';
		assert_int_equal(mt_file_write_atomic(path, f.v[0].data, f.v[0].len, 1), 0);
		assert_int_equal(mt_object_get(tmpdir, mt_buf_cstr(&rel), &back, &len), 0);
		assert_string_equal(back, "step 1 in {path}/out on {host}\n");
		free(back);
		free(path);
		free(tmpdir);
		mt_buf_dispose(&rel);
	}
	bundle_files_dispose(&f);
	bundle_redactor_dispose(&r);
	free(out);
	free(events);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_hosts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_values_and_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_yaml_stays_yaml, setup, teardown),
		cmocka_unit_test_setup_teardown(test_artefacts_rehashed_events_renamed, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
