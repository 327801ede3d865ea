#include "launcher.h"
#include "error.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole number >= 0 written plainly; -1 otherwise. */
static long whole(const char *s)
{
	char *end;
	long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	v = strtol(s, &end, 10);
	return *end || v < 0 || v > 100000000 ? -1 : v;
}

struct source {
	const char *name, *rank, *size, *job;
	const char *needs; /* set too, or RANK alone is not a launcher's */
};

static const struct source sources[] = {
	{"slurm", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_JOB_ID", "SLURM_JOB_ID"},
	{"mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_MCA_ess_base_jobid", NULL},
	{"mpi", "PMIX_RANK", "PMIX_SIZE", "PMIX_NAMESPACE", NULL},
	{"mpi", "PMI_RANK", "PMI_SIZE", NULL, NULL},
	{"torchrun", "RANK", "WORLD_SIZE", "TORCHELASTIC_RUN_ID", "WORLD_SIZE"},
};

static void slurm_hosts(mt_launcher *l, char *const *envp)
{
	static const char *const keys[] = {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST",
					   "SLURM_NODELIST"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		const char *v = mt_env_get(envp, keys[i]);
		if (!v || !*v)
			continue;
		l->hosts_from = keys[i];
		if (mt_hostlist_expand(v, &l->hosts, &l->nhosts, MT_LAUNCHER_MAX_HOSTS) < 0) {
			mt_error_clear();
			l->hosts_text = mt_strdup(v);
		}
		return;
	}
}

int mt_launcher_detect(mt_launcher *out, char *const *envp)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < sizeof(sources) / sizeof(*sources); i++) {
		const struct source *s = &sources[i];
		const char *job = s->job ? mt_env_get(envp, s->job) : NULL;
		long rank = whole(mt_env_get(envp, s->rank)), size;
		if (rank < 0 || (s->needs && !mt_env_get(envp, s->needs)))
			continue;
		out->name = s->name;
		out->rank_from = s->rank;
		out->rank = rank;
		if ((size = whole(mt_env_get(envp, s->size))) > 0) {
			out->ranks = size, out->ranks_from = s->size;
		} else if (strcmp(s->name, "slurm") == 0 &&
			   (size = whole(mt_env_get(envp, "SLURM_NTASKS"))) > 0) {
			out->ranks = size, out->ranks_from = "SLURM_NTASKS";
		}
		if (job && *job) {
			const char *step = strcmp(s->name, "slurm") == 0
					       ? mt_env_get(envp, "SLURM_STEP_ID") : NULL;
			mt_buf b = MT_BUF_INIT;
			mt_buf_printf(&b, step && *step ? "%s.%s" : "%s", job, step);
			out->job = mt_buf_detach(&b);
		}
		if (strcmp(s->name, "slurm") == 0)
			slurm_hosts(out, envp);
		return 1;
	}
	return 0;
}

void mt_launcher_dispose(mt_launcher *l)
{
	for (size_t i = 0; i < l->nhosts; i++)
		free(l->hosts[i]);
	free(l->hosts);
	free(l->job);
	free(l->hosts_text);
	memset(l, 0, sizeof(*l));
}

json_t *mt_launcher_json(const mt_launcher *l)
{
	json_t *hosts = json_null();

	if (l->hosts) {
		hosts = json_array();
		for (size_t i = 0; i < l->nhosts; i++)
			json_array_append_new(hosts, json_string(l->hosts[i]));
	}
	return json_pack("{s:s, s:s, s:o, s:s?, s:s?, s:o, s:s?, s:s?}", "launcher", l->name,
			 "rank_from", l->rank_from, "ranks",
			 l->ranks ? json_integer(l->ranks) : json_null(), "ranks_from",
			 l->ranks_from, "job", l->job, "hosts", hosts, "hosts_from", l->hosts_from,
			 "hosts_text", l->hosts_text);
}

/* --- Slurm node lists ----------------------------------------------------- */

struct hosts {
	char **v;
	size_t n, max;
};

static int add_host(struct hosts *h, const char *s, size_t len)
{
	if (h->n == h->max)
		return mt_error_set(MT_EINVALID, "more than %zu hosts", h->max);
	if (!(h->n % 64) && !(h->v = realloc(h->v, (h->n + 64) * sizeof(*h->v))))
		abort();
	if (!(h->v[h->n] = malloc(len + 1)))
		abort();
	memcpy(h->v[h->n], s, len);
	h->v[h->n++][len] = '\0';
	return 0;
}

/* Expands `pattern` (one host's name, its brackets not yet expanded),
 * with `done` the expanded start, into h. */
static int expand(struct hosts *h, mt_buf *done, const char *p, const char *end)
{
	const char *open = memchr(p, '[', (size_t)(end - p)), *close, *r;
	size_t keep = done->len;
	int error = 0;

	if (!open) {
		mt_buf_put(done, p, (size_t)(end - p));
		error = add_host(h, done->ptr, done->len);
		done->len = keep;
		return error;
	}
	if (!(close = memchr(open, ']', (size_t)(end - open))))
		return mt_error_set(MT_EINVALID, "'[' without ']'");
	mt_buf_put(done, p, (size_t)(open - p));
	for (r = open + 1; r < close && !error;) {
		const char *comma = memchr(r, ',', (size_t)(close - r)), *dash;
		const char *item_end = comma ? comma : close;
		char *e1, *e2;
		long lo, hi;
		int width;
		if (!isdigit((unsigned char)*r))
			return mt_error_set(MT_EINVALID, "a range holds numbers: '%.*s'",
					    (int)(close - open + 1), open);
		dash = memchr(r, '-', (size_t)(item_end - r));
		width = (int)((dash ? dash : item_end) - r);
		lo = strtol(r, &e1, 10);
		hi = dash ? strtol(dash + 1, &e2, 10) : lo;
		if (e1 != (dash ? dash : item_end) || (dash && e2 != item_end) || hi < lo ||
		    width > 18)
			return mt_error_set(MT_EINVALID, "not a range: '%.*s'",
					    (int)(item_end - r), r);
		if ((size_t)(hi - lo) >= h->max)
			return mt_error_set(MT_EINVALID, "more than %zu hosts", h->max);
		for (long v = lo; v <= hi && !error; v++) {
			size_t at = done->len;
			mt_buf_printf(done, "%0*ld", width, v);
			error = expand(h, done, close + 1, end);
			done->len = at;
		}
		r = comma ? comma + 1 : close;
	}
	done->len = keep;
	return error;
}

int mt_hostlist_expand(const char *list, char ***hosts, size_t *n, size_t max)
{
	struct hosts h = {NULL, 0, max};
	mt_buf done = MT_BUF_INIT;
	const char *p = list;
	int error = 0;

	*hosts = NULL, *n = 0;
	while (*p && !error) {
		const char *q = p;
		int depth = 0;
		/* a host ends at a comma outside brackets */
		for (; *q && (depth || *q != ','); q++) {
			depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
			if (depth < 0 || depth > 1 || (unsigned char)*q <= ' ')
				error = mt_error_set(MT_EINVALID, "not a node list: '%s'", list);
		}
		if (!error && q > p)
			error = expand(&h, &done, p, q);
		p = *q ? q + 1 : q;
	}
	mt_buf_dispose(&done);
	if (!error && !h.n)
		error = mt_error_set(MT_EINVALID, "an empty node list");
	if (error) {
		for (size_t i = 0; i < h.n; i++)
			free(h.v[i]);
		free(h.v);
		return error;
	}
	*hosts = h.v, *n = h.n;
	return 0;
}
