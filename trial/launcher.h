/* The job a launcher started mtrial in (issue 19: `srun mtrial run -- ...`
 * records one attempt per job, not one per rank). The rank comes from the
 * launcher's environment: Slurm (SLURM_PROCID), Open MPI
 * (OMPI_COMM_WORLD_RANK), MPICH, Intel MPI and PMIx (PMI_RANK,
 * PMIX_RANK), torchrun --no-python (RANK with WORLD_SIZE). Rank 0 records
 * the attempt with the job's size and hosts; the others run the command
 * and record nothing. */
#ifndef MT_LAUNCHER_H
#define MT_LAUNCHER_H

#include <jansson.h>
#include <stddef.h>

/* Hosts a job lists at most: a node list that expands to more is kept as
 * it was written. */
#define MT_LAUNCHER_MAX_HOSTS 4096

typedef struct {
	const char *name;      /* "slurm", "mpi", "torchrun"; static */
	const char *rank_from; /* the variable the rank came from; static */
	long rank;
	long ranks;            /* the job's size, 0 when not known */
	const char *ranks_from;
	char *job;             /* the job's id, NULL when not known */
	char **hosts;          /* the hosts the job ran on, as the launcher
				  lists them; NULL when it does not */
	size_t nhosts;
	const char *hosts_from; /* the variable they came from; static */
	char *hosts_text;      /* that variable's text when it could not be
				  expanded (too many, or not a node list) */
} mt_launcher;

/* 1 with *out filled when envp (environ's shape) says this process is a
 * rank of a launched job, 0 when it is not (*out zeroed). A rank that is
 * not a whole number >= 0 is not a rank. The caller disposes *out. */
int mt_launcher_detect(mt_launcher *out, char *const *envp);
void mt_launcher_dispose(mt_launcher *l);

/* {launcher, rank_from, ranks, ranks_from, job, hosts, hosts_from,
 * hosts_text}: what the attempt records. New reference. */
json_t *mt_launcher_json(const mt_launcher *l);

/* Expands a Slurm node list ("gpu[01-03,07],login1", "r[1-2]-n[1-2]") into
 * *hosts (caller frees each and the array), at most `max`. MT_EINVALID
 * with the reason for a list that does not read or expands to more. */
int mt_hostlist_expand(const char *list, char ***hosts, size_t *n, size_t max);

#endif
