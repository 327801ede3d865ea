/* A run's topology: how many devices on how many hosts, the accelerator,
 * the parallelism degrees and the batch, each value with where it came
 * from. A chip-level advantage can vanish across devices, so no figure may
 * mix topologies; this is what groups them.
 *
 * The sources, strongest first (mt_topology_fill keeps what a stronger one
 * gave):
 *   1. the user's flags (mtrial run --devices N --hosts H; runs import too);
 *   2. an MLPerf system description imported with the log;
 *   3. the launcher mtrial run wraps (torchrun, srun, mpirun: its options)
 *      or the environment it runs in (SLURM_NTASKS, WORLD_SIZE, ...);
 *   4. trial.yaml's topology for the run's system (worked out when the run
 *      is read, never stored: trial.yaml may change). */
#ifndef MT_TOPOLOGY_H
#define MT_TOPOLOGY_H

#include <jansson.h>
#include <stdint.h>

#include "spec.h"

enum mt_topo_field {
	MT_TOPO_DEVICES, /* training processes over all hosts: GPUs, NeuronCores */
	MT_TOPO_HOSTS,
	MT_TOPO_DATA, /* parallelism degrees */
	MT_TOPO_TENSOR,
	MT_TOPO_PIPELINE,
	MT_TOPO_GLOBAL_BATCH, /* sequences per optimizer step over all devices */
	MT_TOPO_MICRO_BATCH,  /* sequences per device per forward and backward */
	MT_TOPO_NUMBERS,
	MT_TOPO_ACCELERATOR = MT_TOPO_NUMBERS,
	MT_TOPO_INTERCONNECT,
	MT_TOPO_FIELDS
};

#define MT_TOPO_FROM_MAX 128

typedef struct {
	int64_t n[MT_TOPO_NUMBERS]; /* 0: not known */
	char accelerator[96];       /* "": not known */
	char interconnect[96];
	char from[MT_TOPO_FIELDS][MT_TOPO_FROM_MAX]; /* where each value came from, "" when
	                                                unknown: "--devices", "srun --ntasks",
	                                                "environment SLURM_NTASKS", "system
	                                                description FILE", "trial.yaml
	                                                systems.candidate.topologies.1" */
} mt_topology;

/* The field's name in JSON and trial.yaml ("devices", "global_batch"). Static. */
const char *mt_topology_field_name(enum mt_topo_field f);

/* Everything unknown. */
void mt_topology_init(mt_topology *t);

/* Sets a number (v >= 1) with its source, unless the field is already known. */
void mt_topology_set(mt_topology *t, enum mt_topo_field f, int64_t v, const char *from);

/* Sets a text field (accelerator, interconnect) the same way. */
void mt_topology_set_text(mt_topology *t, enum mt_topo_field f, const char *v, const char *from);

/* Fills what t does not know from `weaker`, keeping its sources. */
void mt_topology_fill(mt_topology *t, const mt_topology *weaker);

/* 1 when nothing is known. */
int mt_topology_empty(const mt_topology *t);

/* What the launcher of a wrapped command says: torchrun (or python -m
 * torch.distributed.run / .launch) --nproc-per-node and --nnodes, srun
 * --ntasks/-n and --nodes/-N, mpirun/mpiexec -np/-n and its hosts; options
 * after the training script are the script's own and are not read. Then
 * the environment the command starts in (envp, NULL-terminated "K=V"):
 * SLURM_NTASKS and SLURM_JOB_NUM_NODES inside an allocation, WORLD_SIZE,
 * OMPI_COMM_WORLD_SIZE. A value that is not a whole number >= 1 (torchrun's
 * "auto", a range of nodes) is not known. */
void mt_topology_from_launcher(mt_topology *t, char *const *argv, char *const *envp);

/* trial.yaml's topology for `system` ("baseline", "candidate"): among
 * systems.SYSTEM.topologies the one with `devices` devices, or the only
 * one when devices is 0; else, with no topologies listed, the system's
 * count x hosts (and accelerator, interconnect). 0 with *t filled, or 0
 * with *t untouched when trial.yaml says nothing that applies; when several
 * topologies could apply and devices is 0, *ambiguous is set (the run must
 * say its devices). */
int mt_topology_from_spec(mt_topology *t, const mt_spec *spec, const char *system, int64_t devices,
                          int *ambiguous);

/* What an hour of run topology t costs on `system`: trial.yaml's
 * systems.SYSTEM.price.hourly x t's hosts (price.per instance, the
 * default) or x its devices (price.per device). NAN when there is no price,
 * or when the hosts (devices) it is per are not known, with *why (static)
 * saying which; a run is never priced as if it were on one host. */
double mt_topology_hourly_cost(const mt_topology *t, const mt_spec *spec, const char *system,
                               const char **why);

/* As JSON: {"devices": 8, "hosts": 2, ..., "from": {"devices": "..."}},
 * unknown fields left out. New reference. */
json_t *mt_topology_json(const mt_topology *t);

/* Reads what mt_topology_json wrote, and the older MLPerf system
 * description record ({nodes, devices, accelerator, source}). NULL or not
 * an object: nothing known. */
void mt_topology_read(mt_topology *t, const json_t *j);

/* What a run's record keeps of its topology (metrics.topology): `extra`'s
 * keys (an MLPerf system description as mt_runs_system_read gives it; may
 * be NULL) with t's fields and their sources over them; NULL when neither
 * says anything. New reference. */
json_t *mt_topology_stored(const mt_topology *t, const json_t *extra);

/* "8 devices on 2 hosts (AWS Trainium2), data 8" into buf; "unknown"
 * when nothing is known. */
void mt_topology_describe(const mt_topology *t, char *buf, size_t size);

#endif
