/* trial/topology.c: a run's devices, hosts and layout from the launcher it
 * is started with (the command lines of torchrun, srun, mpirun, accelerate
 * and deepspeed as their documentation writes them), from the environment
 * of a Slurm allocation or a rank, and from trial.yaml's topologies; each
 * value says where it came from, a stronger source is never overwritten,
 * and what a launcher leaves open ("auto", a range of nodes) stays unknown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "error.h"
#include "spec.h"
#include "topology.h"

static mt_topology launched(char *const *argv, char *const *envp)
{
	mt_topology t;
	mt_topology_init(&t);
	mt_topology_from_launcher(&t, argv, envp);
	return t;
}

static void test_torchrun(void **state)
{
	char *a1[] = {"torchrun",   "--nnodes=2", "--nproc-per-node", "8", "--rdzv-endpoint",
	              "host:29500", "train.py",   "--nnodes",         "5", NULL};
	char *a2[] = {
	    "/usr/bin/python3",   "-u",       "-m", "torch.distributed.launch", "--use_env",
	    "--nproc_per_node=4", "train.py", NULL};
	char *a3[] = {"torchrun", "--nproc-per-node=auto", "train.py", NULL};
	char *a4[] = {"torchrun", "--nnodes=1:4", "--nproc-per-node=8", "train.py", NULL};
	char *a5[] = {"torchrun", "--standalone", "--nproc_per_node", "2", "-m", "pkg.train", NULL};
	mt_topology t;

	(void)state;
	/* the script's own --nnodes 5 is not torchrun's */
	t = launched(a1, NULL);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 16);
	assert_int_equal(t.n[MT_TOPO_HOSTS], 2);
	assert_string_equal(t.from[MT_TOPO_DEVICES], "torchrun --nproc-per-node x --nnodes=2");
	assert_string_equal(t.from[MT_TOPO_HOSTS], "torchrun --nnodes=2");
	/* python -m torch.distributed.launch without --nnodes: one node */
	t = launched(a2, NULL);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 4);
	assert_int_equal(t.n[MT_TOPO_HOSTS], 0);
	/* auto: unknown, never guessed */
	t = launched(a3, NULL);
	assert_true(mt_topology_empty(&t));
	/* an elastic range of nodes: neither hosts nor devices */
	t = launched(a4, NULL);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 0);
	assert_int_equal(t.n[MT_TOPO_HOSTS], 0);
	t = launched(a5, NULL);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 2);
}

static void test_srun_and_mpirun(void **state)
{
	char *a1[] = {"srun", "-N2", "--ntasks=16", "--gpus-per-node",
	              "8",    "-l",  "python",      "train.py",
	              "-n",   "3",   NULL};
	char *a2[] = {"srun",     "-N",       "2", "--ntasks-per-node=1",
	              "torchrun", "--nnodes", "2", "--nproc-per-node",
	              "8",        "train.py", NULL};
	char *a3[] = {"srun", "python", "train.py", NULL};
	char *env3[] = {"SLURM_NTASKS=32", "SLURM_JOB_NUM_NODES=4", "HOME=/root", NULL};
	char *a4[] = {"mpirun", "-np", "8", "-H", "a:4,b:4", "python", "train.py", NULL};
	char *a5[] = {"python", "train.py", NULL};
	mt_topology t;

	(void)state;
	t = launched(a1, NULL);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 16);
	assert_int_equal(t.n[MT_TOPO_HOSTS], 2);
	assert_string_equal(t.from[MT_TOPO_HOSTS], "srun -N2");
	/* srun's tasks run torchrun: torchrun's processes are the devices */
	t = launched(a2, NULL);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 16);
	assert_int_equal(t.n[MT_TOPO_HOSTS], 2);
	assert_string_equal(t.from[MT_TOPO_HOSTS], "srun -N");
	/* srun without sizes inside an allocation takes the allocation's */
	t = launched(a3, env3);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 32);
	assert_string_equal(t.from[MT_TOPO_DEVICES], "environment SLURM_NTASKS");
	assert_int_equal(t.n[MT_TOPO_HOSTS], 4);
	/* a plain python in the same allocation is one process: not its size */
	t = launched(a5, env3);
	assert_true(mt_topology_empty(&t));
	t = launched(a4, NULL);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 8);
	assert_int_equal(t.n[MT_TOPO_HOSTS], 2);
}

static void test_env_of_a_rank(void **state)
{
	char *a[] = {"python", "train.py", NULL};
	char *e1[] = {"WORLD_SIZE=64", NULL};
	char *e2[] = {"SLURM_PROCID=3", "SLURM_STEP_NUM_TASKS=8", "SLURM_STEP_NUM_NODES=1",
	              "SLURM_NTASKS=64", NULL};
	char *e3[] = {"WORLD_SIZE=auto", NULL};
	mt_topology t;

	(void)state;
	t = launched(a, e1);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 64);
	assert_string_equal(t.from[MT_TOPO_DEVICES], "environment WORLD_SIZE");
	/* inside a job step, the step's size, not the allocation's */
	t = launched(a, e2);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 8);
	assert_int_equal(t.n[MT_TOPO_HOSTS], 1);
	t = launched(a, e3);
	assert_true(mt_topology_empty(&t));
}

static void test_precedence_and_json(void **state)
{
	char *a[] = {"torchrun", "--nproc-per-node=8", "train.py", NULL};
	mt_topology t, back;
	json_t *j;
	char text[160];

	(void)state;
	mt_topology_init(&t);
	mt_topology_set(&t, MT_TOPO_DEVICES, 4, "--devices");
	mt_topology_from_launcher(&t, a, NULL);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 4); /* the flag wins */
	assert_string_equal(t.from[MT_TOPO_DEVICES], "--devices");
	mt_topology_set_text(&t, MT_TOPO_ACCELERATOR, "AWS Trainium2", "trial.yaml");
	j = mt_topology_json(&t);
	assert_int_equal(json_integer_value(json_object_get(j, "devices")), 4);
	assert_null(json_object_get(j, "hosts")); /* unknown is left out */
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(j, "from"), "devices")), "--devices");
	mt_topology_read(&back, j);
	assert_memory_equal(&back, &t, sizeof(t));
	json_decref(j);
	mt_topology_describe(&t, text, sizeof(text));
	assert_string_equal(text, "4 devices (AWS Trainium2)");

	/* what runs import stored from an MLPerf system description */
	j = json_pack("{s:f, s:f, s:f, s:s, s:s}", "nodes", 64.0, "accelerators_per_node", 8.0,
	              "devices", 512.0, "accelerator", "NVIDIA H100-SXM5-80GB", "source",
	              "/logs/systems/dgxh100_n64.json");
	mt_topology_read(&back, j);
	assert_int_equal(back.n[MT_TOPO_DEVICES], 512);
	assert_int_equal(back.n[MT_TOPO_HOSTS], 64);
	assert_string_equal(back.from[MT_TOPO_HOSTS],
	                    "system description /logs/systems/dgxh100_n64.json");
	assert_string_equal(back.accelerator, "NVIDIA H100-SXM5-80GB");
	json_decref(j);
}

static const char spec_text[] = "schema: 1\n"
                                "name: scaling\n"
                                "systems:\n"
                                "  baseline:\n"
                                "    accelerator: NVIDIA A100\n"
                                "    count: 8\n"
                                "    hosts: 1\n"
                                "  candidate:\n"
                                "    accelerator: AWS Trainium\n"
                                "    count: 16\n"
                                "    topologies:\n"
                                "      - devices: 8\n"
                                "        hosts: 1\n"
                                "        global_batch: 64\n"
                                "      - devices: 32\n"
                                "        hosts: 2\n"
                                "        interconnect: EFA\n"
                                "        parallelism:\n"
                                "          data: 4\n"
                                "          tensor: 8\n";

static void test_spec(void **state)
{
	mt_spec *spec = NULL;
	mt_topology t;
	int ambiguous;

	(void)state;
	assert_int_equal(mt_spec_parse(&spec, spec_text, strlen(spec_text), "t.yaml"), 0);
	/* the run's devices pick the topology */
	mt_topology_init(&t);
	mt_topology_set(&t, MT_TOPO_DEVICES, 32, "--devices");
	assert_int_equal(mt_topology_from_spec(&t, spec, "candidate", 32, &ambiguous), 0);
	assert_false(ambiguous);
	assert_int_equal(t.n[MT_TOPO_HOSTS], 2);
	assert_int_equal(t.n[MT_TOPO_TENSOR], 8);
	assert_string_equal(t.interconnect, "EFA");
	assert_string_equal(t.accelerator, "AWS Trainium");
	assert_string_equal(t.from[MT_TOPO_TENSOR], "trial.yaml systems.candidate.topologies.1");
	assert_string_equal(t.from[MT_TOPO_DEVICES], "--devices");
	/* no devices and two topologies: ambiguous, nothing guessed */
	mt_topology_init(&t);
	assert_int_equal(mt_topology_from_spec(&t, spec, "candidate", 0, &ambiguous), 0);
	assert_true(ambiguous);
	assert_true(mt_topology_empty(&t));
	/* devices no topology lists: nothing */
	assert_int_equal(mt_topology_from_spec(&t, spec, "candidate", 4, &ambiguous), 0);
	assert_false(ambiguous);
	assert_true(mt_topology_empty(&t));
	/* no list: count x hosts, as before */
	assert_int_equal(mt_topology_from_spec(&t, spec, "baseline", 0, &ambiguous), 0);
	assert_int_equal(t.n[MT_TOPO_DEVICES], 8);
	assert_string_equal(t.from[MT_TOPO_DEVICES], "trial.yaml systems.baseline count x hosts");
	mt_spec_free(spec);
}

static void test_spec_refuses(void **state)
{
	static const char dup[] = "schema: 1\n"
	                          "name: t\n"
	                          "systems:\n"
	                          "  candidate:\n"
	                          "    topologies:\n"
	                          "      - devices: 8\n"
	                          "      - devices: 8\n"
	                          "        hosts: 2\n";
	static const char none[] = "schema: 1\n"
	                           "name: t\n"
	                           "systems:\n"
	                           "  candidate:\n"
	                           "    topologies:\n"
	                           "      - hosts: 2\n";
	static const char batch[] = "schema: 1\n"
	                            "name: t\n"
	                            "systems:\n"
	                            "  candidate:\n"
	                            "    topologies:\n"
	                            "      - devices: 8\n"
	                            "        global_batch: 60\n"
	                            "        micro_batch: 8\n";
	mt_spec *spec = NULL;

	(void)state;
	assert_int_equal(mt_spec_parse(&spec, dup, strlen(dup), "t.yaml"), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(),
	                       "t.yaml:7:18: 'systems.candidate.topologies.1.devices' "
	                       "is 8, as topology 0's is"));
	assert_int_equal(mt_spec_parse(&spec, none, strlen(none), "t.yaml"), MT_EINVALID);
	assert_non_null(strstr(mt_error_last(), "'systems.candidate.topologies.0' has no devices"));
	assert_int_equal(mt_spec_parse(&spec, batch, strlen(batch), "t.yaml"), MT_EINVALID);
	assert_non_null(
	    strstr(mt_error_last(), "'systems.candidate.topologies.0.global_batch' is 60"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_torchrun),      cmocka_unit_test(test_srun_and_mpirun),
	    cmocka_unit_test(test_env_of_a_rank), cmocka_unit_test(test_precedence_and_json),
	    cmocka_unit_test(test_spec),          cmocka_unit_test(test_spec_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
