/* How a track's changes are classed: each file model code, harness or
 * other (by its path, or as a training script by its text), each line
 * platform-specific or generic (the bundled tables/platform_changes.yaml). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tracks.h"
#include "error.h"

static const char train_script[] =
	"import argparse\nimport torch\nimport model\n\n"
	"parser = argparse.ArgumentParser()\nargs = parser.parse_args()\n\n"
	"def train():\n    for batch in data:\n        loss = criterion(net(batch))\n"
	"        loss.backward()\n        optimizer.step()\n";

static const char model_code[] =
	"import torch.nn as nn\n\nclass RNNModel(nn.Module):\n"
	"    def forward(self, x):\n        return self.decoder(x)\n\n"
	"if __name__ == '__main__':\n    print(RNNModel())\n";

static mt_tracks_rules *rules(void)
{
	mt_tracks_rules *r = NULL;

	if (mt_tracks_rules_load(&r) < 0)
		fail_msg("bundled rules: %s", mt_error_last());
	return r;
}

static const char *kind(const mt_tracks_rules *r, const char *path, const char *text)
{
	return mt_tracks_rules_kind(r, path, text, text ? strlen(text) : 0);
}

/* The word_language_model layout: the training loop lives in main.py,
 * inside a directory whose name holds "model". */
static void test_training_script_is_harness(void **state)
{
	mt_tracks_rules *r = rules();
	(void)state;

	assert_string_equal(kind(r, "word_language_model/main.py", train_script), "harness");
	assert_string_equal(kind(r, "word_language_model/main.py", NULL), "other");
	assert_string_equal(kind(r, "word_language_model/model.py", model_code), "model");
	assert_string_equal(kind(r, "src/models/gpt.py", model_code), "model");
	assert_string_equal(kind(r, "models/gpt.py", NULL), "model");
	assert_string_equal(kind(r, "word_language_model/data.py", "import os\n"), "harness");
	assert_string_equal(kind(r, "train_model.py", train_script), "harness");
	assert_string_equal(kind(r, "README.md", "run with argparse and .backward("), "other");
	assert_string_equal(kind(r, "README.md", "hello"), "other");
	mt_tracks_rules_free(r);
}

static void test_dependency_lines_are_platform(void **state)
{
	static const struct {
		const char *line, *rule;
	} lines[] = {
		{"torch-neuronx==2.1.2.2.1.0", "neuron-package"},
		{"neuronx-cc==2.*", "neuron-package"},
		{"--extra-index-url https://pip.repos.neuron.amazonaws.com", "neuron-package"},
		{"    \"torch-neuronx>=2.1\",", "neuron-package"},
		{"  - pytorch-cuda=12.1", "cuda-build"},
		{"torch==2.1.0+cu118", "cuda-build"},
		{"flash-attn==2.5.0", "cuda-package"},
		{"numpy==1.26.4", NULL},
		{"torch==2.1.0", NULL},
	};
	mt_tracks_rules *r = rules();
	(void)state;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const char *got = mt_tracks_rules_match(r, lines[i].line, strlen(lines[i].line));
		if ((got == NULL) != (lines[i].rule == NULL) ||
		    (got && strcmp(got, lines[i].rule) != 0))
			fail_msg("'%s': rule %s, want %s", lines[i].line, got ? got : "none",
				 lines[i].rule ? lines[i].rule : "none");
	}
	mt_tracks_rules_free(r);
}

static void test_bad_training_script_rules(void **state)
{
	mt_tracks_rules *r = NULL;
	const char text[] = "schema: mtrial-changes/1\nplatform: []\nmodel: []\nharness: []\n"
			    "training_script:\n  entry: argparse\n  loop: []\n";
	(void)state;

	assert_int_equal(mt_tracks_rules_parse(&r, text, strlen(text), "p.yaml"), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "p.yaml:6:10: training_script.entry"));
	assert_null(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_training_script_is_harness),
		cmocka_unit_test(test_dependency_lines_are_platform),
		cmocka_unit_test(test_bad_training_script_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
