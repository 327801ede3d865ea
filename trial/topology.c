#include "topology.h"
#include "jview.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const field_names[MT_TOPO_FIELDS] = {
    [MT_TOPO_DEVICES] = "devices",
    [MT_TOPO_HOSTS] = "hosts",
    [MT_TOPO_DATA] = "data",
    [MT_TOPO_TENSOR] = "tensor",
    [MT_TOPO_PIPELINE] = "pipeline",
    [MT_TOPO_GLOBAL_BATCH] = "global_batch",
    [MT_TOPO_MICRO_BATCH] = "micro_batch",
    [MT_TOPO_ACCELERATOR] = "accelerator",
    [MT_TOPO_INTERCONNECT] = "interconnect",
};

const char *mt_topology_field_name(enum mt_topo_field f)
{
	return (unsigned)f < MT_TOPO_FIELDS ? field_names[f] : "?";
}

void mt_topology_init(mt_topology *t)
{
	memset(t, 0, sizeof(*t));
}

/* src into dst[size], cut to fit (a source named by a long path). */
static void copy(char *dst, size_t size, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= size)
		n = size - 1;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

void mt_topology_set(mt_topology *t, enum mt_topo_field f, int64_t v, const char *from)
{
	if ((unsigned)f >= MT_TOPO_NUMBERS || t->n[f] || v < 1)
		return;
	t->n[f] = v;
	copy(t->from[f], sizeof(t->from[f]), from);
}

static char *text_of(mt_topology *t, enum mt_topo_field f)
{
	return f == MT_TOPO_ACCELERATOR    ? t->accelerator
	       : f == MT_TOPO_INTERCONNECT ? t->interconnect
	                                   : NULL;
}

void mt_topology_set_text(mt_topology *t, enum mt_topo_field f, const char *v, const char *from)
{
	char *dst = text_of(t, f);

	if (!dst || *dst || !v || !*v)
		return;
	copy(dst, sizeof(t->accelerator), v);
	copy(t->from[f], sizeof(t->from[f]), from);
}

void mt_topology_fill(mt_topology *t, const mt_topology *weaker)
{
	for (int f = 0; f < MT_TOPO_NUMBERS; f++)
		mt_topology_set(t, f, weaker->n[f], weaker->from[f]);
	mt_topology_set_text(t, MT_TOPO_ACCELERATOR, weaker->accelerator,
	                     weaker->from[MT_TOPO_ACCELERATOR]);
	mt_topology_set_text(t, MT_TOPO_INTERCONNECT, weaker->interconnect,
	                     weaker->from[MT_TOPO_INTERCONNECT]);
}

int mt_topology_empty(const mt_topology *t)
{
	for (int f = 0; f < MT_TOPO_NUMBERS; f++)
		if (t->n[f])
			return 0;
	return !*t->accelerator && !*t->interconnect;
}

/* A whole number >= 1, or 0 (not known: "auto", "1:4", garbage). */
static int64_t count_of(const char *s)
{
	char *end;
	long long v;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || *end || v < 1 || v > INT_MAX ? 0 : v;
}

/* --- launchers ------------------------------------------------------------------ */

/* One option a launcher reads: its spellings (NUL-separated, as written
 * after the dashes), whether it takes a value, and what the value is. */
struct opt {
	const char *names;
	int field; /* an mt_topo_field, -1: a value we skip, -2: a flag */
};

struct launcher {
	const char *name;
	const struct opt *opts;
	int nested_devices; /* its tasks run another launcher: not devices */
	int one_node;       /* processes per node without a node count: one node */
};

#define OPT_SKIP -1
#define OPT_FLAG -2
#define OPT_PER_NODE 100 /* processes per node: devices once nodes are known */
#define OPT_HOSTLIST 101 /* a comma-separated list of hosts */

static const struct opt torchrun_opts[] = {
    {"nproc-per-node\0nproc_per_node\0", OPT_PER_NODE},
    {"nnodes\0", MT_TOPO_HOSTS},
    {"standalone\0no-python\0no_python\0m\0module\0run-path\0run_path\0use_env\0use-env\0",
     OPT_FLAG},
    {NULL, OPT_SKIP}, /* any other --opt takes a value */
};

static const struct opt srun_opts[] = {
    {"n\0ntasks\0", MT_TOPO_DEVICES},
    {"N\0nodes\0", MT_TOPO_HOSTS},
    {"ntasks-per-node\0", OPT_PER_NODE},
    {"c\0cpus-per-task\0p\0partition\0t\0time\0A\0account\0J\0job-name\0o\0output\0e\0error\0"
     "w\0nodelist\0x\0exclude\0G\0gpus\0gres\0gpus-per-node\0gpus-per-task\0mem\0"
     "mem-per-cpu\0mem-per-gpu\0cpu-bind\0mpi\0C\0constraint\0q\0qos\0D\0chdir\0export\0"
     "container-image\0container-mounts\0container-name\0distribution\0m\0",
     OPT_SKIP},
    {NULL, OPT_FLAG}, /* srun's other options are flags or use '=' */
};

static const struct opt mpirun_opts[] = {
    {"np\0n\0c\0", MT_TOPO_DEVICES},
    {"H\0host\0", OPT_HOSTLIST},
    {"npernode\0N\0", OPT_PER_NODE},
    {"x\0mca\0hostfile\0machinefile\0map-by\0bind-to\0rank-by\0wdir\0", OPT_SKIP},
    {NULL, OPT_FLAG},
};

static const struct opt accelerate_opts[] = {
    {"num_processes\0num-processes\0", MT_TOPO_DEVICES},
    {"num_machines\0num-machines\0", MT_TOPO_HOSTS},
    {"multi_gpu\0multi-gpu\0cpu\0use_deepspeed\0use_fsdp\0tpu\0m\0module\0no_python\0"
     "debug\0",
     OPT_FLAG},
    {NULL, OPT_SKIP},
};

static const struct opt deepspeed_opts[] = {
    {"num_gpus\0num-gpus\0", OPT_PER_NODE},
    {"num_nodes\0num-nodes\0", MT_TOPO_HOSTS},
    {"no_python\0no_local_rank\0module\0autotuning\0", OPT_FLAG},
    {NULL, OPT_SKIP},
};

static const struct launcher launchers[] = {
    {"torchrun", torchrun_opts, 0, 1},
    {"torch.distributed.run", torchrun_opts, 0, 1},
    {"torch.distributed.launch", torchrun_opts, 0, 1},
    {"srun", srun_opts, 1, 0},
    {"mpirun", mpirun_opts, 1, 0},
    {"mpiexec", mpirun_opts, 1, 0},
    {"accelerate", accelerate_opts, 0, 0},
    {"deepspeed", deepspeed_opts, 0, 0}, /* its hostfile may name several */
};

static int has_name(const char *names, const char *name, size_t len)
{
	for (const char *p = names; *p; p += strlen(p) + 1)
		if (strlen(p) == len && memcmp(p, name, len) == 0)
			return 1;
	return 0;
}

static const struct opt *find_opt(const struct opt *opts, const char *name, size_t len)
{
	const struct opt *o = opts;
	for (; o->names; o++)
		if (has_name(o->names, name, len))
			return o;
	return o; /* the launcher's default for options it does not list */
}

/* The launcher argv[0] names (python -m MODULE, accelerate launch), with
 * *first set to its first option; NULL when it is none. */
static const struct launcher *launcher_of(char *const *argv, int *first)
{
	const char *base;
	int i = 1;

	if (!argv || !argv[0])
		return NULL;
	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	if (strncmp(base, "python", 6) == 0) {
		while (argv[i] && argv[i][0] == '-' && strcmp(argv[i], "-m") != 0)
			i++; /* python's own flags: -u, -O */
		if (!argv[i] || !argv[i + 1] || strcmp(argv[i], "-m") != 0)
			return NULL;
		base = argv[i + 1];
		i += 2;
	} else if (strcmp(base, "accelerate") == 0) {
		if (!argv[1] || strcmp(argv[1], "launch") != 0)
			return NULL;
		i = 2;
	}
	for (size_t k = 0; k < sizeof(launchers) / sizeof(launchers[0]); k++)
		if (strcmp(base, launchers[k].name) == 0) {
			*first = i;
			return &launchers[k];
		}
	return NULL;
}

/* Hosts in "a,b:4,a": distinct names before any ':slots'. */
static int64_t host_count(const char *list)
{
	int64_t n = 0;
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ":,"), seen = 0;
		for (const char *q = list; q < p && !seen;) {
			size_t l2 = strcspn(q, ":,");
			seen = l2 == len && memcmp(q, p, len) == 0;
			q += l2;
			q += strcspn(q, ",");
			q += *q == ',';
		}
		n += !seen && len > 0;
		p += len;
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return n;
}

struct parsed {
	int64_t n[MT_TOPO_NUMBERS], per_node;
	const char *from[MT_TOPO_NUMBERS], *per_node_from;
};

static void take(struct parsed *p, const struct opt *o, const char *spelled, const char *value)
{
	int64_t v = o->field == OPT_HOSTLIST ? host_count(value) : count_of(value);

	if (o->field == OPT_PER_NODE) {
		p->per_node = v, p->per_node_from = spelled;
	} else if (o->field == OPT_HOSTLIST) {
		p->n[MT_TOPO_HOSTS] = v, p->from[MT_TOPO_HOSTS] = spelled;
	} else if (o->field >= 0) {
		p->n[o->field] = v, p->from[o->field] = spelled;
	}
}

/* Reads a launcher's options from argv[i]; returns the index of the
 * command it launches (its first word that is not an option). */
static int read_opts(struct parsed *p, const struct launcher *l, char *const *argv, int i)
{
	for (; argv[i] && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *name = argv[i] + 1 + (argv[i][1] == '-'), *eq;
		size_t len;
		const struct opt *o;

		if (strcmp(argv[i], "--") == 0)
			return i + 1;
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		o = find_opt(l->opts, name, len);
		if (!eq && argv[i][1] != '-' && len > 1 && !o->names) {
			/* a short option with its value glued on: -n8, -N2 */
			o = find_opt(l->opts, name, 1);
			if (o->names && o->field != OPT_FLAG) {
				take(p, o, argv[i], name + 1);
				continue;
			}
		}
		if (o->field == OPT_FLAG)
			continue;
		if (eq) {
			take(p, o, argv[i], eq + 1);
		} else if (argv[i + 1]) {
			take(p, o, argv[i], argv[i + 1]);
			i++;
		}
	}
	return i;
}

static void apply(mt_topology *t, const struct parsed *p, const struct launcher *l, int devices_too)
{
	const char *launcher = l->name;
	char from[MT_TOPO_FROM_MAX];

	for (int f = 0; f < MT_TOPO_NUMBERS; f++) {
		if (!p->n[f] || (f == MT_TOPO_DEVICES && !devices_too))
			continue;
		snprintf(from, sizeof(from), "%s %s", launcher, p->from[f]);
		mt_topology_set(t, f, p->n[f], from);
	}
	if (devices_too && p->per_node &&
	    (p->n[MT_TOPO_HOSTS] || (!p->from[MT_TOPO_HOSTS] && l->one_node))) {
		/* per node x nodes; torchrun without --nnodes: one */
		int64_t hosts = p->n[MT_TOPO_HOSTS] ? p->n[MT_TOPO_HOSTS] : 1;
		snprintf(from, sizeof(from), "%s %s x %s", launcher, p->per_node_from,
		         p->from[MT_TOPO_HOSTS] ? p->from[MT_TOPO_HOSTS] : "1 node");
		mt_topology_set(t, MT_TOPO_DEVICES, p->per_node * hosts, from);
	}
}

/* The first of keys set to a count: its value, and its name in *which. */
static int64_t env_count(char *const *envp, const char *const *keys, const char **which)
{
	for (; *keys; keys++) {
		int64_t v = count_of(mt_env_get(envp, *keys));
		if (v) {
			*which = *keys;
			return v;
		}
	}
	return 0;
}

static void from_env(mt_topology *t, char *const *envp, int wraps_srun)
{
	static const char *const ranks[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL};
	static const char *const step_tasks[] = {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS",
	                                         "SLURM_NPROCS", NULL};
	static const char *const alloc_tasks[] = {"SLURM_NTASKS", "SLURM_NPROCS", NULL};
	static const char *const step_nodes[] = {"SLURM_STEP_NUM_NODES", "SLURM_JOB_NUM_NODES",
	                                         "SLURM_NNODES", NULL};
	static const char *const alloc_nodes[] = {"SLURM_JOB_NUM_NODES", "SLURM_NNODES", NULL};
	int in_step = mt_env_get(envp, "SLURM_PROCID") != NULL;
	const char *which = NULL;
	char from[MT_TOPO_FROM_MAX];
	int64_t v;

	/* mtrial itself runs as one rank of a job: the job's size */
	if ((v = env_count(envp, ranks, &which)) ||
	    (in_step && (v = env_count(envp, step_tasks, &which))) ||
	    (wraps_srun && (v = env_count(envp, alloc_tasks, &which)))) {
		snprintf(from, sizeof(from), "environment %s", which);
		mt_topology_set(t, MT_TOPO_DEVICES, v, from);
	}
	if ((in_step && (v = env_count(envp, step_nodes, &which))) ||
	    (wraps_srun && (v = env_count(envp, alloc_nodes, &which)))) {
		snprintf(from, sizeof(from), "environment %s", which);
		mt_topology_set(t, MT_TOPO_HOSTS, v, from);
	}
}

void mt_topology_from_launcher(mt_topology *t, char *const *argv, char *const *envp)
{
	const struct launcher *l;
	int i = 0, first, wraps_srun = 0;

	/* each launcher in turn: srun torchrun train.py is both */
	while (argv && argv[i] && (l = launcher_of(argv + i, &first))) {
		struct parsed p = {0};
		int next = read_opts(&p, l, argv + i, first);
		const struct launcher *inner =
		    argv[i + next] ? launcher_of(argv + i + next, &first) : NULL;
		/* srun -N2 torchrun: srun's tasks run torchrun, not training */
		apply(t, &p, l, !(l->nested_devices && inner));
		wraps_srun |= strcmp(l->name, "srun") == 0;
		i += next;
	}
	from_env(t, envp, wraps_srun);
}

/* --- trial.yaml ------------------------------------------------------------------ */

static int64_t spec_count(const mt_spec *spec, const char *path)
{
	return count_of(mt_spec_get(spec, path));
}

/* The fields of a topology map at `at` ("systems.candidate.topologies.1",
 * "topology"). */
static void spec_fields(mt_topology *t, const mt_spec *spec, const char *at)
{
	static const struct {
		enum mt_topo_field f;
		const char *key;
	} keys[] = {
	    {MT_TOPO_DEVICES, "devices"},
	    {MT_TOPO_HOSTS, "hosts"},
	    {MT_TOPO_DATA, "parallelism.data"},
	    {MT_TOPO_TENSOR, "parallelism.tensor"},
	    {MT_TOPO_PIPELINE, "parallelism.pipeline"},
	    {MT_TOPO_GLOBAL_BATCH, "global_batch"},
	    {MT_TOPO_MICRO_BATCH, "micro_batch"},
	};
	char path[160], from[MT_TOPO_FROM_MAX];

	snprintf(from, sizeof(from), "trial.yaml %s", at);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		snprintf(path, sizeof(path), "%s.%s", at, keys[k].key);
		mt_topology_set(t, keys[k].f, spec_count(spec, path), from);
	}
	snprintf(path, sizeof(path), "%s.interconnect", at);
	mt_topology_set_text(t, MT_TOPO_INTERCONNECT, mt_spec_get(spec, path), from);
}

int mt_topology_from_spec(mt_topology *t, const mt_spec *spec, const char *system, int64_t devices,
                          int *ambiguous)
{
	char at[128], path[160];
	size_t n, match = 0, found = 0;
	mt_topology s;

	if (ambiguous)
		*ambiguous = 0;
	if (!spec || !system)
		return 0;
	mt_topology_init(&s);
	snprintf(at, sizeof(at), "systems.%s.topologies", system);
	n = mt_spec_count(spec, at);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s.%zu.devices", at, i);
		if (!devices || spec_count(spec, path) == devices)
			match = i, found++;
	}
	if (n && found == 1) {
		snprintf(path, sizeof(path), "%s.%zu", at, match);
		spec_fields(&s, spec, path);
	} else if (n && found > 1 && ambiguous) {
		*ambiguous = 1;
	} else if (!n) {
		/* no list: the system's count of chips per host x hosts */
		int64_t count, hosts;
		snprintf(path, sizeof(path), "systems.%s.count", system);
		count = spec_count(spec, path);
		snprintf(path, sizeof(path), "systems.%s.hosts", system);
		hosts = spec_count(spec, path);
		snprintf(path, sizeof(path), "trial.yaml systems.%s count x hosts", system);
		if (count && (!devices || count * (hosts ? hosts : 1) == devices)) {
			mt_topology_set(&s, MT_TOPO_DEVICES, count * (hosts ? hosts : 1), path);
			mt_topology_set(&s, MT_TOPO_HOSTS, hosts ? hosts : 1, path);
		}
		snprintf(path, sizeof(path), "systems.%s.interconnect", system);
		snprintf(at, sizeof(at), "trial.yaml systems.%s", system);
		if (!mt_topology_empty(&s))
			mt_topology_set_text(&s, MT_TOPO_INTERCONNECT, mt_spec_get(spec, path), at);
	}
	/* the trial's own layout, where it is for this many devices */
	if (!mt_topology_empty(&s) || (!n && !devices)) {
		int64_t d = spec_count(spec, "topology.devices");
		if (!d || d == (s.n[MT_TOPO_DEVICES] ? s.n[MT_TOPO_DEVICES] : devices))
			spec_fields(&s, spec, "topology");
	}
	snprintf(path, sizeof(path), "systems.%s.accelerator", system);
	snprintf(at, sizeof(at), "trial.yaml systems.%s", system);
	if (!mt_topology_empty(&s))
		mt_topology_set_text(&s, MT_TOPO_ACCELERATOR, mt_spec_get(spec, path), at);
	mt_topology_fill(t, &s);
	return 0;
}

double mt_topology_hourly_cost(const mt_topology *t, const mt_spec *spec, const char *system,
                               const char **why)
{
	char path[96];
	const char *price, *per;
	int by_device;
	int64_t n;

	snprintf(path, sizeof(path), "systems.%s.price.hourly", system ? system : "");
	price = spec && system ? mt_spec_get(spec, path) : NULL;
	snprintf(path, sizeof(path), "systems.%s.price.per", system ? system : "");
	per = price ? mt_spec_get(spec, path) : NULL;
	by_device = per && strcmp(per, "device") == 0;
	n = t->n[by_device ? MT_TOPO_DEVICES : MT_TOPO_HOSTS];
	*why = !price  ? "trial.yaml gives no hourly price for its system"
	       : !n    ? (by_device ? "its device count is not known (the price is per device)"
	                            : "its host count is not known (the price is per instance: "
	                              "runs import --hosts H, or the system's hosts in trial.yaml)")
	               : NULL;
	return *why ? NAN : strtod(price, NULL) * (double)n;
}

/* --- JSON ------------------------------------------------------------------------- */

json_t *mt_topology_json(const mt_topology *t)
{
	json_t *o = json_object(), *from = json_object();

	for (int f = 0; f < MT_TOPO_FIELDS; f++) {
		const char *text = f >= MT_TOPO_NUMBERS ? text_of((mt_topology *)t, f) : NULL;
		if (f < MT_TOPO_NUMBERS ? !t->n[f] : !*text)
			continue;
		json_object_set_new(o, field_names[f],
		                    f < MT_TOPO_NUMBERS ? json_integer(t->n[f])
		                                        : json_string(text));
		if (*t->from[f])
			json_object_set_new(from, field_names[f], json_string(t->from[f]));
	}
	json_object_set_new(o, "from", from);
	return o;
}

json_t *mt_topology_stored(const mt_topology *t, const json_t *extra)
{
	json_t *out, *own;

	if (mt_topology_empty(t) && !json_is_object(extra))
		return NULL;
	out = json_is_object(extra) ? json_deep_copy(extra) : json_object();
	own = mt_topology_json(t);
	json_object_update(out, own);
	json_decref(own);
	return out;
}

void mt_topology_read(mt_topology *t, const json_t *j)
{
	mt_jview v, from;
	const char *src;
	char legacy[MT_TOPO_FROM_MAX];

	mt_topology_init(t);
	if (!json_is_object(j))
		return;
	mt_jview_init(&v, j, "topology");
	mt_jview_init(&from, mt_jview_opt_get(&v, "from"), "topology.from");
	/* an MLPerf system description as runs import stored it before */
	src = mt_jview_opt_str(&v, "source");
	snprintf(legacy, sizeof(legacy), "system description %s", src ? src : "");
	for (int f = 0; f < MT_TOPO_FIELDS; f++) {
		const char *name = field_names[f], *where = mt_jview_opt_str(&from, name);
		if (!where && src)
			where = legacy;
		if (f < MT_TOPO_NUMBERS) {
			double d = mt_jview_opt_num(&v, name);
			if (f == MT_TOPO_HOSTS && !(d >= 1))
				d = mt_jview_opt_num(&v, "nodes");
			mt_topology_set(t, f, d >= 1 && d <= INT_MAX ? (int64_t)d : 0, where);
		} else {
			mt_topology_set_text(t, f, mt_jview_opt_str(&v, name), where);
		}
	}
}

void mt_topology_describe(const mt_topology *t, char *buf, size_t size)
{
	size_t len = 0;
	static const char *const par[] = {
	    [MT_TOPO_DATA] = "data", [MT_TOPO_TENSOR] = "tensor", [MT_TOPO_PIPELINE] = "pipeline"};

#define PUT(...)                                                                                   \
	(len += (size_t)snprintf(buf + (len < size ? len : size), len < size ? size - len : 0,     \
	                         __VA_ARGS__))
	if (size)
		*buf = '\0';
	if (t->n[MT_TOPO_DEVICES])
		PUT("%lld device%s", (long long)t->n[MT_TOPO_DEVICES],
		    t->n[MT_TOPO_DEVICES] == 1 ? "" : "s");
	else
		PUT("devices unknown");
	if (t->n[MT_TOPO_HOSTS])
		PUT(" on %lld host%s", (long long)t->n[MT_TOPO_HOSTS],
		    t->n[MT_TOPO_HOSTS] == 1 ? "" : "s");
	if (*t->accelerator)
		PUT(" (%s)", t->accelerator);
	for (int f = MT_TOPO_DATA; f <= MT_TOPO_PIPELINE; f++)
		if (t->n[f])
			PUT(", %s %lld", par[f], (long long)t->n[f]);
	if (t->n[MT_TOPO_GLOBAL_BATCH])
		PUT(", global batch %lld", (long long)t->n[MT_TOPO_GLOBAL_BATCH]);
	if (t->n[MT_TOPO_MICRO_BATCH])
		PUT(", micro batch %lld", (long long)t->n[MT_TOPO_MICRO_BATCH]);
#undef PUT
}
