/* Compatibility tables (docs/compat-tables.md): for one backend version, the
 * status of each aten op and of each public PyTorch API it lists. Loaded from the bundled tables/compat-*.yaml, from
 * the user's cache of imported and updated tables, or from a file. */
#ifndef MT_COMPAT_H
#define MT_COMPAT_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
	MT_COMPAT_UNKNOWN = 0,
	MT_COMPAT_DEVICE,
	MT_COMPAT_CPU_FALLBACK,
	MT_COMPAT_UNSUPPORTED,
	MT_COMPAT_PARTIAL,
} mt_compat_status;

/* The statuses' names, blockers first, as the probe orders its ops:
 * unsupported, partial, cpu_fallback, unknown, device. NULL-terminated. */
extern const char *const mt_compat_status_order[];

/* "device", "cpu_fallback", "unsupported", "partial", "unknown". Static. */
const char *mt_compat_status_str(mt_compat_status s);
/* The status named s, or -1. */
int mt_compat_status_parse(const char *s);

typedef struct {
	const char *op;               /* "aten::add" or "aten::add.Tensor" */
	mt_compat_status status;
	const char *const *conditions; /* NULL-terminated, may be empty */
	const char *const *dtypes_supported;
	const char *const *dtypes_fallback; /* a cpu_fallback limited to these dtypes;
					       empty = every dtype */
	const char *const *modes;
	const char *since, *removed, *notes; /* NULL when absent */
	uint32_t line;                /* of the op's key in the file */
} mt_compat_op;

/* How a supported API runs (TorchNeuron's `Y` entries say which). */
typedef enum {
	MT_COMPAT_API_UNSPECIFIED = 0,
	MT_COMPAT_API_NATIVE,        /* `Native`: runs on the device */
	MT_COMPAT_API_HOST_ONLY,     /* `Host-only`: Python on the host, no tensor computation */
	MT_COMPAT_API_PROCESS_GROUP, /* `Needs a process group`: init_process_group first */
} mt_compat_api_kind;

/* "native", "host-only", "process-group"; NULL for unspecified. Static. */
const char *mt_compat_api_kind_str(mt_compat_api_kind k);
/* The kind named s ("native", "host-only", "process-group"), or -1. */
int mt_compat_api_kind_parse(const char *s);

/* One public API entry (the table's `apis:`), keyed by its fully qualified
 * Python name. */
typedef struct {
	const char *api;              /* fully qualified: "torch.Tensor.abs" */
	mt_compat_status status;      /* device | cpu_fallback | unsupported | partial */
	mt_compat_api_kind kind;
	const char *const *ops;       /* aten ops it names ("aten::cumsum"); NULL-terminated,
					 may be empty */
	const char *const *fallback_dtypes; /* a cpu_fallback limited to these dtypes; empty =
					       every dtype */
	const char *const *conditions;
	const char *notes;            /* NULL when absent */
	uint32_t line;                /* of the API's key in the file */
} mt_compat_api;

typedef struct {
	const char *id, *text;
	const char *const *applies;
	uint32_t line;
} mt_compat_rule;

typedef struct mt_compat_table mt_compat_table;

/* Parses one table; MT_EINVALID "name:LINE:COL: what" on any error, never a
 * half-loaded table. */
int mt_compat_parse(mt_compat_table **out, const char *text, size_t len, const char *name);

/* Loads a table by name (bundled, or cached by import/update) or by path. */
int mt_compat_load(mt_compat_table **out, const char *name_or_path);

/* The YAML text of the table mt_compat_load would load (*out, caller frees),
 * as it is written: what `tables show NAME --format yaml` prints, which
 * imports again as the same table. Not validated here. */
int mt_compat_read_text(char **out, size_t *len, const char *name_or_path);

void mt_compat_free(mt_compat_table *t);

/* Where imported and updated tables are kept ($XDG_DATA_HOME/mtrial/tables,
 * else ~/.local/share/mtrial/tables). Caller frees. */
char *mt_compat_user_dir(void);

/* Identity: name, backend, version, device, kind ("documented"|"observed"),
 * retrieved, and a one-line source ("repo path@commit" or the url). All
 * borrowed, live as long as the table. */
const char *mt_compat_name(const mt_compat_table *t);
const char *mt_compat_backend(const mt_compat_table *t);
const char *mt_compat_version(const mt_compat_table *t);
const char *mt_compat_kind(const mt_compat_table *t);
const char *mt_compat_retrieved(const mt_compat_table *t);
const char *mt_compat_source(const mt_compat_table *t);

/* The names mt_compat_load finds: the user's imported and updated tables
 * first (sorted; they shadow bundled tables of the same name; *nuser of
 * them, may be NULL), then the bundled ones. NULL-terminated; free with
 * mt_compat_names_free. */
char **mt_compat_names(size_t *nuser);
void mt_compat_names_free(char **names);

/* 1 if a table of that name is bundled with mtrial. */
int mt_compat_is_bundled(const char *name);

/* The entry for op: an exact match, else (for "aten::add.Tensor") the base
 * name's entry; NULL when the table does not list it (status unknown). */
const mt_compat_op *mt_compat_lookup(const mt_compat_table *t, const char *op);

size_t mt_compat_nops(const mt_compat_table *t);
const mt_compat_op *mt_compat_op_at(const mt_compat_table *t, size_t i);
size_t mt_compat_nrules(const mt_compat_table *t);

/* The API entry of exactly that name; NULL if the table does not list it. */
const mt_compat_api *mt_compat_lookup_api(const mt_compat_table *t, const char *api);
/* The API entries in table (file) order; borrowed, live as long as the table. */
size_t mt_compat_napis(const mt_compat_table *t);
const mt_compat_api *mt_compat_api_at(const mt_compat_table *t, size_t i);
/* The API entries that name op (or its base name for "aten::x.overload"), in
 * table order: up to max into out; returns how many there are in all. */
size_t mt_compat_apis_naming(const mt_compat_table *t, const char *op, const mt_compat_api **out,
			     size_t max);
const mt_compat_rule *mt_compat_rule_at(const mt_compat_table *t, size_t i);

#endif
