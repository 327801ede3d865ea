/* trial/launcher.c: which rank of a launched job mtrial runs as (Slurm,
 * Open MPI, PMI, torchrun --no-python), the job's size and id, and the
 * hosts of a Slurm node list, expanded as Slurm writes them; a list that
 * does not read, or expands past the cap, is kept as written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "launcher.h"

static char *joined(char **v, size_t n)
{
	static char buf[512];
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && at < sizeof(buf) - 64; i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s", i ? " " : "", v[i]);
	return buf;
}

static void expect_hosts(const char *list, const char *want)
{
	char **h;
	size_t n;

	assert_int_equal(mt_hostlist_expand(list, &h, &n, 100), 0);
	assert_string_equal(joined(h, n), want);
	for (size_t i = 0; i < n; i++)
		free(h[i]);
	free(h);
}

static void expect_refused(const char *list, size_t max, const char *why)
{
	char **h = (char **)1;
	size_t n = 7;

	assert_int_equal(mt_hostlist_expand(list, &h, &n, max), MT_EINVALID);
	assert_null(h);
	assert_int_equal(n, 0);
	assert_non_null(strstr(mt_error_last(), why));
	mt_error_clear();
}

static void test_hostlists(void **state)
{
	(void)state;
	expect_hosts("login1", "login1");
	expect_hosts("gpu[01-03,07],login1", "gpu01 gpu02 gpu03 gpu07 login1");
	expect_hosts("r[1-2]-n[8-9]", "r1-n8 r1-n9 r2-n8 r2-n9");
	expect_hosts("n[098-101]", "n098 n099 n100 n101");
	expect_hosts("a,,b", "a b");
	expect_refused("gpu[01-03", 100, "'[' without ']'");
	expect_refused("gpu[a-b]", 100, "a range holds numbers");
	expect_refused("gpu[3-1]", 100, "not a range");
	expect_refused("gpu[1-99999999999]", 100, "more than 100 hosts");
	expect_refused("a[1-60],b[1-60]", 100, "more than 100 hosts");
	expect_refused("a[[1]]", 100, "not a node list");
	expect_refused("a b", 100, "not a node list");
	expect_refused("a]", 100, "not a node list");
	expect_refused("", 100, "an empty node list");
}

static void test_ranks(void **state)
{
	char *slurm[] = {"SLURM_JOB_ID=77",    "SLURM_STEP_ID=0", "SLURM_PROCID=2",
			 "SLURM_NTASKS=16",    "SLURM_STEP_NODELIST=gpu[1-2]", NULL};
	char *ompi[] = {"OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=8", NULL};
	char *torch[] = {"RANK=3", "WORLD_SIZE=4", "TORCHELASTIC_RUN_ID=abc", NULL};
	char *rank_alone[] = {"RANK=3", NULL};    /* a shell's variable, no launcher */
	char *salloc[] = {"SLURM_JOB_ID=77", NULL}; /* an allocation's shell: no rank */
	char *bad[] = {"PMI_RANK=-1", "OMPI_COMM_WORLD_RANK=x", NULL};
	char *huge[] = {"SLURM_JOB_ID=1", "SLURM_PROCID=0", "SLURM_JOB_NODELIST=n[1-9999]", NULL};
	mt_launcher l;
	json_t *j;

	(void)state;
	assert_int_equal(mt_launcher_detect(&l, slurm), 1);
	assert_string_equal(l.name, "slurm");
	assert_int_equal(l.rank, 2);
	assert_int_equal(l.ranks, 16); /* the step's count not set: the job's */
	assert_string_equal(l.ranks_from, "SLURM_NTASKS");
	assert_string_equal(l.job, "77.0");
	assert_string_equal(joined(l.hosts, l.nhosts), "gpu1 gpu2");
	assert_string_equal(l.hosts_from, "SLURM_STEP_NODELIST");
	j = mt_launcher_json(&l);
	assert_string_equal(json_string_value(json_object_get(j, "launcher")), "slurm");
	assert_int_equal(json_array_size(json_object_get(j, "hosts")), 2);
	json_decref(j);
	mt_launcher_dispose(&l);

	assert_int_equal(mt_launcher_detect(&l, ompi), 1);
	assert_string_equal(l.name, "mpi");
	assert_int_equal(l.rank, 0);
	assert_int_equal(l.ranks, 8);
	assert_null(l.hosts); /* Open MPI does not list them: unknown, not one */
	mt_launcher_dispose(&l);

	assert_int_equal(mt_launcher_detect(&l, torch), 1);
	assert_string_equal(l.name, "torchrun");
	assert_int_equal(l.rank, 3);
	assert_string_equal(l.job, "abc");
	mt_launcher_dispose(&l);

	assert_int_equal(mt_launcher_detect(&l, rank_alone), 0);
	assert_int_equal(mt_launcher_detect(&l, salloc), 0);
	assert_int_equal(mt_launcher_detect(&l, bad), 0);

	assert_int_equal(mt_launcher_detect(&l, huge), 1);
	assert_null(l.hosts);
	assert_string_equal(l.hosts_text, "n[1-9999]"); /* kept as written */
	j = mt_launcher_json(&l);
	assert_true(json_is_null(json_object_get(j, "hosts")));
	json_decref(j);
	mt_launcher_dispose(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hostlists),
	    cmocka_unit_test(test_ranks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
