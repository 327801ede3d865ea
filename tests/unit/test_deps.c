/* Dependency manifests: each format with tricky lines (exact line numbers,
 * PEP 503 names, cuda_only from tables/cuda_packages.yaml), includes listed
 * but not followed, and malformed files reported with file:line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deps.h"
#include "error.h"
#include "fixtures.h"
#include "util.h"

/* What one dependency must look like; effort NULL means not CUDA-only. */
struct want {
	const char *name;
	uint32_t line;
	const char *effort;
	int include;
	const char *spec; /* NULL: not checked */
};

static void parse_ok(const char *path, const char *text, mt_dependency **deps, size_t *n)
{
	int error = mt_deps_parse(deps, n, path, text, strlen(text));

	if (error < 0)
		fail_msg("%s: %s", path, mt_error_last());
}

static void check(const char *path, const char *text, const struct want *want, size_t nwant)
{
	mt_dependency *d = NULL;
	size_t n = 0;

	parse_ok(path, text, &d, &n);
	for (size_t i = 0; i < n && i < nwant; i++) {
		if (strcmp(d[i].name, want[i].name) != 0 || d[i].line != want[i].line)
			fail_msg("%s #%zu: got %s line %u, want %s line %u", path, i, d[i].name,
				 d[i].line, want[i].name, want[i].line);
		assert_string_equal(d[i].file, path);
		assert_int_equal(d[i].include, want[i].include);
		assert_int_equal(d[i].cuda_only, want[i].effort != NULL);
		if (want[i].effort) {
			assert_string_equal(d[i].effort, want[i].effort);
			assert_non_null(d[i].why);
		} else {
			assert_null(d[i].why);
		}
		if (want[i].spec)
			assert_string_equal(d[i].spec, want[i].spec);
	}
	if (n != nwant)
		fail_msg("%s: %zu dependencies, want %zu", path, n, nwant);
	mt_deps_free(d, n);
}

static void expect_error(const char *path, const char *text, const char *message)
{
	mt_dependency *d = (mt_dependency *)1;
	size_t n = 99;

	assert_int_equal(mt_deps_parse(&d, &n, path, text, strlen(text)), MT_EINVALID);
	assert_null(d);
	assert_int_equal(n, 0);
	assert_string_equal(mt_error_last(), message);
}

static int setup(void **state)
{
	(void)state;
	unsetenv("MTRIAL_TABLES_DIR");
	return 0;
}

static void test_normalize(void **state)
{
	static const char *const cases[][2] = {
		{"Flash_Attn", "flash-attn"}, {"a.-_b", "a-b"},   {"Foo__Bar", "foo-bar"},
		{"torch", "torch"},           {"CUDA.Python", "cuda-python"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = mt_deps_normalize(cases[i][0], strlen(cases[i][0]));
		assert_string_equal(s, cases[i][1]);
		free(s);
	}
}

static void test_is_manifest(void **state)
{
	static const char *const yes[] = {"requirements.txt", "requirements-dev.txt",
					  "dev-requirements.txt", "requirements/base.txt",
					  "a/requirements/gpu.txt", "requirements.in", "pyproject.toml",
					  "sub/setup.py", "setup.cfg", "environment.yml",
					  "env/environment-gpu.yaml", NULL};
	static const char *const no[] = {"README.md", "requirements.md", "myrequirements/base.txt",
					 "setup.pyc", "tox.ini", "data.txt", "pyproject.toml.bak",
					 "my_setup.py", NULL};

	(void)state;
	for (const char *const *p = yes; *p; p++)
		if (!mt_deps_is_manifest(*p))
			fail_msg("%s should be a manifest", *p);
	for (const char *const *p = no; *p; p++)
		if (mt_deps_is_manifest(*p))
			fail_msg("%s should not be a manifest", *p);
}

static void test_requirements(void **state)
{
	static const char text[] =
		"# top comment\n"                                                        /* 1 */
		"torch==2.1.0+cu121 --hash=sha256:abc\n"                                 /* 2 */
		"Flash_Attn>=2.5 ; platform_system == \"Linux\"  # fast attention\n"     /* 3 */
		"\n"                                                                     /* 4 */
		"-r requirements/base.txt\n"                                             /* 5 */
		"--extra-index-url https://download.pytorch.org/whl/cu121\n"             /* 6 */
		"numpy \\\n"                                                             /* 7 */
		"    >=1.24\n"                                                           /* 8 */
		"git+https://github.com/NVIDIA/apex.git@master#egg=apex\n"               /* 9 */
		"-e ./local_pkg\n"                                                       /* 10 */
		"bitsandbytes[extra]~=0.41\n"                                            /* 11 */
		"https://example.com/w/xformers-0.0.23-cp310-cp310-linux_x86_64.whl\n"   /* 12 */
		"transformers @ git+https://github.com/huggingface/transformers@main\n"  /* 13 */
		"nvidia-cublas-cu12==12.1.3.1\r\n"                                       /* 14 */
		"-e .\n"                                                                 /* 15 */
		"--requirement=more.txt\n"                                               /* 16 */
		"git+https://github.com/Dao-AILab/flash-attention.git\n"                 /* 17 */
		"deepspeed>=0.12\n"                                                     /* 18 */
		"mamba_ssm@https://example.com/mamba.zip\n"                             /* 19 */
		"./wheels/causal_conv1d-1.2.0-cp310-cp310-linux_x86_64.whl\n"           /* 20 */
		"Old_Style (>=1.0)\n";                                                  /* 21 */
	static const struct want want[] = {
		{"torch", 2, NULL, 0, "torch==2.1.0+cu121"},
		{"flash-attn", 3, "high", 0, "Flash_Attn>=2.5 ; platform_system == \"Linux\""},
		{"requirements/base.txt", 5, NULL, 1, "-r requirements/base.txt"},
		{"numpy", 7, NULL, 0, NULL},
		{"apex", 9, "high", 0, NULL},
		{"local-pkg", 10, NULL, 0, "-e ./local_pkg"},
		{"bitsandbytes", 11, "high", 0, "bitsandbytes[extra]~=0.41"},
		{"xformers", 12, "high", 0, NULL},
		{"transformers", 13, NULL, 0, NULL},
		{"nvidia-cublas-cu12", 14, "low", 0, "nvidia-cublas-cu12==12.1.3.1"},
		{"more.txt", 16, NULL, 1, NULL},
		{"flash-attention", 17, "high", 0, NULL},
		{"deepspeed", 18, "medium", 0, "deepspeed>=0.12"},
		{"mamba-ssm", 19, "high", 0, "mamba_ssm@https://example.com/mamba.zip"},
		{"causal-conv1d", 20, "high", 0, NULL},
		{"old-style", 21, NULL, 0, NULL},
	};

	(void)state;
	check("requirements-gpu.txt", text, want, sizeof(want) / sizeof(want[0]));
	expect_error("requirements.txt", "torch\n<<<<<<< HEAD\nnumpy\n",
		     "requirements.txt:2: not a requirement: '<<<<<<< HEAD'");
	expect_error("requirements.txt", "torch\n\nnumpy scipy\n",
		     "requirements.txt:3: not a requirement: 'numpy scipy'");
}

static void test_pyproject(void **state)
{
	static const char text[] =
		"[build-system]\n"                                           /* 1 */
		"requires = [\"setuptools>=61\", \"wheel\"]\n"               /* 2 */
		"\n"                                                         /* 3 */
		"[project]\n"                                                /* 4 */
		"name = \"demo\"  # not a dependency\n"                      /* 5 */
		"dependencies = [\n"                                         /* 6 */
		"  \"torch>=2.1\",  # trailing comment, \"quoted\"\n"        /* 7 */
		"  'flash-attn>=2; sys_platform == \"linux\"',\n"            /* 8 */
		"  \"\"\"xformers\"\"\",\n"                                  /* 9 */
		"]\n"                                                        /* 10 */
		"classifiers = [\"License :: OSI Approved\"]\n"              /* 11 */
		"\n"                                                         /* 12 */
		"[project.optional-dependencies]\n"                          /* 13 */
		"gpu = [\n"                                                  /* 14 */
		"    \"bitsandbytes\",\n"                                    /* 15 */
		"    \"cupy-cuda12x\", ]\n"                                  /* 16 */
		"\n"                                                         /* 17 */
		"[dependency-groups]\n"                                      /* 18 */
		"dev = [\"ruff\", {include-group = \"test\"}]\n"             /* 19 */
		"\n"                                                         /* 20 */
		"[tool.setuptools.dynamic]\n"                                /* 21 */
		"dependencies = {file = [\"requirements.txt\"]}\n"           /* 22 */
		"\n"                                                         /* 23 */
		"[tool.ruff]\n"                                              /* 24 */
		"line-length = 100\n"                                        /* 25 */
		"select = [\"E\", \"F\"]\n"                                  /* 26 */
		"date = 1979-05-27T07:32:00Z\n";                             /* 27 */
	static const struct want want[] = {
		{"setuptools", 2, NULL, 0, "setuptools>=61"},
		{"wheel", 2, NULL, 0, NULL},
		{"torch", 7, NULL, 0, "torch>=2.1"},
		{"flash-attn", 8, "high", 0, "flash-attn>=2; sys_platform == \"linux\""},
		{"xformers", 9, "high", 0, NULL},
		{"bitsandbytes", 15, "high", 0, NULL},
		{"cupy-cuda12x", 16, "high", 0, NULL},
		{"ruff", 19, NULL, 0, NULL},
		{"requirements.txt", 22, NULL, 1, NULL},
	};

	(void)state;
	check("pyproject.toml", text, want, sizeof(want) / sizeof(want[0]));
}

static void test_poetry(void **state)
{
	static const char text[] =
		"[tool.poetry]\n"                                                 /* 1 */
		"name = \"demo\"\n"                                               /* 2 */
		"dependencies.triton = \"^2\"\n"                                  /* 3 */
		"\n"                                                              /* 4 */
		"[tool.poetry.dependencies]\n"                                    /* 5 */
		"python = \"^3.10\"\n"                                            /* 6 */
		"torch = { version = \"^2.1\", source = \"pytorch\" }\n"          /* 7 */
		"Flash_Attn = \"^2.5\"\n"                                         /* 8 */
		"vllm = [\n"                                                      /* 9 */
		"  { version = \"0.4\", markers = \"sys_platform == 'linux'\" },\n" /* 10 */
		"]\n"                                                             /* 11 */
		"\n"                                                              /* 12 */
		"[tool.poetry.group.dev.dependencies]\n"                          /* 13 */
		"pytest = \"^7\"\n"                                               /* 14 */
		"\n"                                                              /* 15 */
		"[tool.poetry.dependencies.deepspeed]\n"                          /* 16 */
		"version = \"^0.12\"\n"                                           /* 17 */
		"\n"                                                              /* 18 */
		"[[tool.poetry.source]]\n"                                        /* 19 */
		"name = \"pytorch\"\n"                                            /* 20 */
		"url = 'https://download.pytorch.org/whl/cu121'\n";               /* 21 */
	static const struct want want[] = {
		{"triton", 3, "high", 0, "\"^2\""},
		{"torch", 7, NULL, 0, "{ version = \"^2.1\", source = \"pytorch\" }"},
		{"flash-attn", 8, "high", 0, "\"^2.5\""},
		{"vllm", 9, "high", 0, NULL},
		{"pytest", 14, NULL, 0, NULL},
		{"deepspeed", 16, "medium", 0, ""},
	};

	(void)state;
	check("sub/pyproject.toml", text, want, sizeof(want) / sizeof(want[0]));
}

static void test_pyproject_malformed(void **state)
{
	(void)state;
	expect_error("pyproject.toml", "[project]\ndependencies = [\n  \"torch\",\n  \"numpy\n]\n",
		     "pyproject.toml:4: unterminated string");
	expect_error("pyproject.toml", "[project\nname = \"x\"\n",
		     "pyproject.toml:1: expected ']' after a table name");
	expect_error("pyproject.toml", "[project]\nname \"x\"\n",
		     "pyproject.toml:2: expected '=' after a key");
	expect_error("pyproject.toml", "[project]\ndependencies = [\"a\" \"b\"]\n",
		     "pyproject.toml:2: expected ',' or ']' in an array");
	expect_error("pyproject.toml", "[project]\nname = \"x\" trailing\n",
		     "pyproject.toml:2: expected the end of the line");
	expect_error("pyproject.toml", "[project]\ndependencies = [\"torch\",\n",
		     "pyproject.toml:3: expected a value");
	expect_error("pyproject.toml", "[project]\ndependencies = [\"<<<\"]\n",
		     "pyproject.toml:2: not a requirement: '<<<'");
}

static void test_setup_py(void **state)
{
	static const char text[] =
		"from setuptools import setup\n"                                   /* 1 */
		"# install_requires=[\"commented-out\"]\n"                         /* 2 */
		"REQS = open(\"requirements.txt\").read()\n"                      /* 3 */
		"setup(\n"                                                         /* 4 */
		"    name=\"demo\",\n"                                             /* 5 */
		"    description=\"install_requires=['in-a-string']\",\n"          /* 6 */
		"    install_requires=[\n"                                         /* 7 */
		"        \"torch>=2.0\",\n"                                        /* 8 */
		"        'flash-attn>=2.0',  # comment with \"quotes\"\n"          /* 9 */
		"        \"\"\"numpy\"\"\",\n"                                     /* 10 */
		"    ],\n"                                                         /* 11 */
		"    extras_require={\n"                                           /* 12 */
		"        \"gpu\": [\"bitsandbytes\", \"triton>=2\"],\n"            /* 13 */
		"        'dev': ('pytest',),\n"                                    /* 14 */
		"    },\n"                                                         /* 15 */
		"    ext_modules=[CUDAExtension(\"k\", [\"k.cu\"])],\n"            /* 16 */
		"    setup_requires=[l.strip() for l in open(\"req.txt\")],\n"     /* 17 */
		"    tests_require=read_reqs(\"test-requirements.txt\"),\n"       /* 18 */
		"    **{\"install_requires\": [\"xformers\"]},\n"                  /* 19 */
		")\n";                                                             /* 20 */
	static const struct want want[] = {
		{"torch", 8, NULL, 0, "torch>=2.0"},  {"flash-attn", 9, "high", 0, NULL},
		{"numpy", 10, NULL, 0, NULL},         {"bitsandbytes", 13, "high", 0, NULL},
		{"triton", 13, "high", 0, "triton>=2"}, {"pytest", 14, NULL, 0, NULL},
		{"xformers", 19, "high", 0, NULL},
	};

	(void)state;
	check("setup.py", text, want, sizeof(want) / sizeof(want[0]));
	expect_error("setup.py", "setup(\n  install_requires=[\"torch,\n \"numpy\"])\n",
		     "setup.py:2: unterminated string");
}

static void test_setup_cfg(void **state)
{
	static const char text[] =
		"[metadata]\n"                                                   /* 1 */
		"name = demo\n"                                                  /* 2 */
		"\n"                                                             /* 3 */
		"[options]\n"                                                    /* 4 */
		"packages = find:\n"                                             /* 5 */
		"install_requires =\n"                                           /* 6 */
		"    torch>=2.0\n"                                               /* 7 */
		"    # a comment\n"                                              /* 8 */
		"    flash-attn>=2 ; platform_system==\"Linux\"\n"               /* 9 */
		"    numpy  # inline\n"                                          /* 10 */
		"setup_requires = file: requirements/build.txt, extra.txt\n"     /* 11 */
		"python_requires = >=3.9\n"                                      /* 12 */
		"\n"                                                             /* 13 */
		"[options.extras_require]\n"                                     /* 14 */
		"gpu =\n"                                                        /* 15 */
		"    xformers\n"                                                 /* 16 */
		"dev = pytest\n"                                                 /* 17 */
		"\n"                                                             /* 18 */
		"[flake8]\n"                                                     /* 19 */
		"max-line-length = 100\n"                                        /* 20 */
		"exclude =\n"                                                    /* 21 */
		"    build\n";                                                   /* 22 */
	static const struct want want[] = {
		{"torch", 7, NULL, 0, "torch>=2.0"},
		{"flash-attn", 9, "high", 0, "flash-attn>=2 ; platform_system==\"Linux\""},
		{"numpy", 10, NULL, 0, "numpy"},
		{"requirements/build.txt", 11, NULL, 1, NULL},
		{"extra.txt", 11, NULL, 1, NULL},
		{"xformers", 16, "high", 0, NULL},
		{"pytest", 17, NULL, 0, NULL},
	};

	(void)state;
	check("setup.cfg", text, want, sizeof(want) / sizeof(want[0]));
	expect_error("setup.cfg", "[metadata]\nname = x\n[options\n",
		     "setup.cfg:3: expected ']' after a section name");
	expect_error("setup.cfg", "[options]\njust words\n",
		     "setup.cfg:2: expected 'key = value': 'just words'");
}

static void test_environment(void **state)
{
	static const char text[] =
		"name: demo\n"                                                   /* 1 */
		"channels:\n"                                                    /* 2 */
		"  - pytorch\n"                                                  /* 3 */
		"  - nvidia\n"                                                   /* 4 */
		"dependencies:\n"                                                /* 5 */
		"  - python=3.10\n"                                              /* 6 */
		"  - pytorch::pytorch=2.1.0=py3.10_cuda12.1_cudnn8.9.2_0\n"      /* 7 */
		"  - pytorch-cuda=12.1\n"                                        /* 8 */
		"  - conda-forge::cupy>=12\n"                                    /* 9 */
		"  - pip\n"                                                      /* 10 */
		"  - pip:\n"                                                     /* 11 */
		"      - flash-attn==2.5.0  # comment\n"                         /* 12 */
		"      - -r requirements.txt\n"                                  /* 13 */
		"      - \"transformers>=4.36\"\n";                              /* 14 */
	static const struct want want[] = {
		{"python", 6, NULL, 0, "python=3.10"},
		{"pytorch", 7, NULL, 0, NULL},
		{"pytorch-cuda", 8, "low", 0, NULL},
		{"cupy", 9, "high", 0, "conda-forge::cupy>=12"},
		{"pip", 10, NULL, 0, NULL},
		{"flash-attn", 12, "high", 0, "flash-attn==2.5.0"},
		{"requirements.txt", 13, NULL, 1, NULL},
		{"transformers", 14, NULL, 0, NULL},
	};

	(void)state;
	check("environment.yml", text, want, sizeof(want) / sizeof(want[0]));
	check("environment.yaml", "name: empty\ndependencies:\n", NULL, 0);
	expect_error("environment.yml", "name: x\ndependencies:\n  - a\n  b: c\n",
		     "environment.yml:4:3: did not find expected '-' indicator while parsing a "
		     "block collection");
	expect_error("environment.yml", "name: x\ndependencies: 3\n",
		     "environment.yml:2: dependencies: must be a list");
	expect_error("environment.yml", "- a\n- b\n",
		     "environment.yml:1: the top level must be a map (name:, dependencies:)");
	expect_error("environment.yml", "dependencies:\n  - pip:\n      x: 1\n",
		     "environment.yml:3: pip: must be a list of requirements");
}

/* A table directory given by $MTRIAL_TABLES_DIR replaces the bundled one:
 * cuda_only follows it, and a broken table is an error, not a silent
 * "nothing is CUDA-only". */
static void test_table_override(void **state)
{
	char *dir = mt_fx_tmpdir("deps");
	mt_dependency *d = NULL;
	size_t n = 0;

	(void)state;
	mt_fx_write(dir, "cuda_packages.yaml",
		    "schema: mtrial-cuda-packages/1\npackages:\n"
		    "  - name: [numpy*]\n    effort: none\n    why: test entry\n");
	setenv("MTRIAL_TABLES_DIR", dir, 1);
	parse_ok("requirements.txt", "numpy\nflash-attn\n", &d, &n);
	assert_int_equal(n, 2);
	assert_int_equal(d[0].cuda_only, 1);
	assert_string_equal(d[0].why, "test entry");
	assert_string_equal(d[0].effort, "none");
	assert_int_equal(d[1].cuda_only, 0);
	mt_deps_free(d, n);
	mt_fx_write(dir, "cuda_packages.yaml",
		    "schema: mtrial-cuda-packages/1\npackages:\n  - name: x\n    effort: lots\n"
		    "    why: y\n");
	expect_error("requirements.txt", "numpy\n",
		     "cuda_packages.yaml:4:13: effort must be none, low, medium or high");
	unsetenv("MTRIAL_TABLES_DIR");
	mt_fx_rmtree(dir);
	free(dir);
}

static void test_not_a_manifest(void **state)
{
	mt_dependency *d = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(mt_deps_parse(&d, &n, "README.md", "x", 1), MT_ENOTFOUND);
	assert_null(d);
	/* empty files are fine */
	parse_ok("requirements.txt", "", &d, &n);
	assert_int_equal(n, 0);
	mt_deps_free(d, n);
	parse_ok("pyproject.toml", "", &d, &n);
	assert_int_equal(n, 0);
	mt_deps_free(d, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_is_manifest),
		cmocka_unit_test(test_requirements),
		cmocka_unit_test(test_pyproject),
		cmocka_unit_test(test_poetry),
		cmocka_unit_test(test_pyproject_malformed),
		cmocka_unit_test(test_setup_py),
		cmocka_unit_test(test_setup_cfg),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_table_override),
		cmocka_unit_test(test_not_a_manifest),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
