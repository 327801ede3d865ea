/* The trial.yaml schema as one table, and everything driven by it: the
 * validation of a parsed tree, its typed JSON, and the commented template.
 * Adding a key is adding a row; the template and the checks follow. */
#include "spec_int.h"
#include "error.h"
#include "journal.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR(p, h) {.path = (p), .type = F_STRING, .help = (h)}
#define INT(p, h) {.path = (p), .type = F_INTEGER, .help = (h)}
#define NUM(p, h) {.path = (p), .type = F_NUMBER, .help = (h)}
#define COUNT(p, h) {.path = (p), .type = F_INTEGER, .help = (h), .bound = B_COUNT}
#define AMOUNT(p, h) {.path = (p), .type = F_NUMBER, .help = (h), .bound = B_AMOUNT}
#define BOOL(p, h) {.path = (p), .type = F_BOOLEAN, .help = (h)}
#define ENUM(p, v, h) {.path = (p), .type = F_ENUM, .values = (v), .help = (h)}
#define MAP(p, h) {.path = (p), .type = F_MAP, .help = (h)}
#define DICT(p, ex, h) {.path = (p), .type = F_DICT, .example = (ex), .help = (h)}
#define LIST(p, h) {.path = (p), .type = F_LIST, .help = (h)}

static const char *const precisions[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "mixed", NULL};
static const char *const token_units[] = {"input", "target", "padded", NULL};
static const char *const directions[] = {"lower", "higher", NULL};
static const char *const treatments[] = {"measured", "public_rate", "omitted", NULL};
static const char *const op_statuses[] = {"device", "cpu_fallback", "unsupported", "partial",
					  NULL};
static const char *const judgements[] = {"met", "not_met", NULL};
static const char *const designs[] = {"matched", "best", NULL};
static const char *const price_units[] = {"instance", "device", NULL};
static const char *const criterion_kinds[] = {
	"quality", "correctness", "ops", "time_to_quality", "cost_to_quality", "device_hours",
	"effort", "custom",
	NULL};

/* A scaling study runs one workload at several sizes. */
#define TOPOLOGIES_HELP                                                                           \
	"The layouts this system is run at, when it is run at several (a scaling study: 4, 8 "    \
	"and 16 devices). A run is counted at the one with its device count (mtrial run "         \
	"--devices N, an MLPerf system description, or the launcher: torchrun, srun); figures "   \
	"are never pooled across them. Without this list a run has count x hosts devices."

/* baseline and candidate are described by the same rows. */
#define SYSTEM(p, h)                                                                              \
	MAP(p, h),                                                                                \
	STR(p ".accelerator", "Accelerator model as the vendor names it, e.g. \"NVIDIA H100 "   \
			      "80GB\" or \"AWS Trainium2\"."),                                    \
	COUNT(p ".count", "Accelerator chips per host (a trn1.32xlarge has 16 Trainium chips, "     \
			"32 NeuronCores)."),                                                      \
	COUNT(p ".hosts", "Number of hosts (instances) in the system."),                            \
	STR(p ".interconnect", "Links between devices and hosts, e.g. \"NVLink, 3200 Gbps "     \
			       "EFA\"."),                                                         \
	LIST(p ".topologies", TOPOLOGIES_HELP),                                                    \
	MAP(p ".topologies.*", "One layout the system is run at."),                               \
	COUNT(p ".topologies.*.devices", "Devices over all hosts (required: a run is counted at " \
					 "the topology with its device count)."),                  \
	COUNT(p ".topologies.*.hosts", "Hosts."),                                                 \
	STR(p ".topologies.*.interconnect", "Links between its devices and hosts."),              \
	MAP(p ".topologies.*.parallelism", "Degree of each kind of parallelism; 1 when not used."),\
	COUNT(p ".topologies.*.parallelism.data", "Data-parallel replicas."),                     \
	COUNT(p ".topologies.*.parallelism.tensor", "Tensor-parallel degree."),                   \
	COUNT(p ".topologies.*.parallelism.pipeline", "Pipeline stages."),                        \
	COUNT(p ".topologies.*.global_batch", "Sequences per optimizer step, over all devices."), \
	COUNT(p ".topologies.*.micro_batch", "Sequences per device in one forward and backward "  \
					     "pass."),                                             \
	COUNT(p ".topologies.*.gradient_accumulation", "Micro-batches per optimizer step."),      \
	DICT(p ".software", "torch: \"2.4.0\"",                                                   \
	     "Versions of the software stack, one package: \"version\" per line; quote "         \
	     "versions so that 2.10 stays 2.10."),                                                \
	MAP(p ".price", "What an hour of the system costs; a run pays it for the hosts or "      \
			"devices it used."),                                                      \
	AMOUNT(p ".price.hourly", "Price per hour of one instance (host), or of one device with " \
				  "per: device, as a plain number."),                             \
	ENUM(p ".price.per", price_units, "What the hourly price is for: instance (the "           \
	     "default: a run costs it x its hosts) or device (x its devices). A run whose hosts "  \
	     "(or devices) are not known is not priced."),                                         \
	STR(p ".price.currency", "Currency of the hourly price, e.g. USD."),                      \
	STR(p ".price.source", "Where the price comes from: the URL of a public rate page (the " \
			       "provider's on-demand pricing page) and the date it was read.")

/* The layout of the precision section: five tensor kinds, one choice each;
 * the matched recipe at precision.KIND, each platform's best at
 * precision.best.SYSTEM.KIND. */
#define PRECISION(k, h) ENUM("precision." k, precisions, h)
#define RECIPE(p)                                                                                 \
	ENUM(p ".weights", precisions, "Master weights."),                                       \
	ENUM(p ".activations", precisions, "Activations."),                                      \
	ENUM(p ".gradients", precisions, "Gradients before the optimizer step."),                \
	ENUM(p ".optimizer_state", precisions, "The optimizer's state."),                        \
	ENUM(p ".accumulation", precisions, "Accumulation.")

#define OVERRIDE_HELP "Tolerances for particular tensors, matched by name."

const struct field mt_spec__fields[] = {
	{.path = "schema", .type = F_INTEGER, .required = 1,
	 .help = "Version of this file's layout; this mtrial reads 1. Leave it as it is."},
	{.path = "name", .type = F_STRING, .required = 1,
	 .help = "A short name for the trial, shown in reports."},

	MAP("systems", "The two systems compared: where the training runs today and the "
		       "Trainium system it moves to."),
	SYSTEM("systems.baseline", "The reference system, usually the current GPU setup."),
	SYSTEM("systems.candidate", "The system migrated to, e.g. trn1 or trn2 instances."),

	MAP("workload", "What is trained, pinned so that both systems run the same thing."),
	STR("workload.repository", "Git repository of the training code (URL or path)."),
	STR("workload.revision", "Commit the baseline runs from: a full hash, not a branch."),
	MAP("workload.model", "The model being trained."),
	STR("workload.model.name", "Model name, e.g. \"llama-3-8b\"."),
	STR("workload.model.config", "The config that fixes the architecture: a path in the "
				     "repository or a hub id with its revision."),
	STR("workload.tokenizer", "Tokenizer name and revision, so that token counts compare."),
	MAP("workload.dataset", "The training data."),
	STR("workload.dataset.name", "Dataset name or path."),
	STR("workload.dataset.snapshot", "A fixed version of it (revision, checksum or snapshot "
					 "date), so that both runs read the same data."),
	MAP("workload.sequence_lengths", "How long the training sequences are."),
	STR("workload.sequence_lengths.source", "Where the lengths come from: a fixed length "
						"(give it), packing, or the data's own "
						"distribution (name the file)."),
	STR("workload.data_order", "How examples are ordered (sampler and shuffle seed), so "
				   "that both systems see the same batches."),
	STR("workload.padding", "How sequences are padded or packed, e.g. \"right-pad to "
				"2048\" or \"packed, no padding\"."),
	ENUM("workload.token_unit", token_units,
	     "What one counted token is, for throughput: input = a token fed to the model, "
	     "target = a position with a loss target, padded = every position, padding "
	     "included."),

	MAP("precision", "Number formats the training uses, per kind of tensor: the matched "
			 "recipe, the same formats for weights, activations, gradients, optimizer "
			 "state and accumulation on both systems, wherever both support them. Runs "
			 "under it compare implementation efficiency. If the matched setting "
			 "leaves useful hardware features idle, that is a limit of that "
			 "comparison, not proof that the platform lacks potential."),
	PRECISION("weights", "Format of the master weights."),
	PRECISION("activations", "Format activations are computed in."),
	PRECISION("gradients", "Format of gradients before the optimizer step."),
	PRECISION("optimizer_state", "Format of the optimizer's state (e.g. Adam's moments)."),
	PRECISION("accumulation", "Format sums are accumulated in (matmul accumulators, "
				  "gradient accumulation)."),
	MAP("precision.best", "Optional: each platform's best supported recipe, for the second "
			      "design, practical performance. It counts only if both systems reach "
			      "the same independently measured quality target: if the fastest "
			      "setting misses it, it has not won the time-to-quality comparison. "
			      "Runs of one design are never compared with runs of the other, and a report shows the "
			      "two as two comparisons. Leave it empty to run the matched design "
			      "alone."),
	MAP("precision.best.baseline", "The baseline's best recipe."),
	RECIPE("precision.best.baseline"),
	MAP("precision.best.candidate", "The candidate's best recipe."),
	RECIPE("precision.best.candidate"),

	MAP("topology", "How the training is laid out over devices."),
	COUNT("topology.devices", "Devices the run uses over all hosts, one per training process "
				"(a GPU, or a NeuronCore on Trainium)."),
	COUNT("topology.hosts", "Hosts the run uses."),
	MAP("topology.parallelism", "Degree of each kind of parallelism; 1 when it is not used."),
	COUNT("topology.parallelism.data", "Data-parallel replicas."),
	COUNT("topology.parallelism.tensor", "Tensor-parallel degree."),
	COUNT("topology.parallelism.pipeline", "Pipeline stages."),
	COUNT("topology.parallelism.sequence", "Sequence (context) parallel degree."),
	COUNT("topology.parallelism.expert", "Expert-parallel degree (mixture-of-experts models)."),
	COUNT("topology.global_batch", "Sequences per optimizer step, over all devices."),
	COUNT("topology.micro_batch", "Sequences per device in one forward and backward pass."),
	COUNT("topology.gradient_accumulation", "Micro-batches per optimizer step (global_batch = "
					      "micro_batch x data x gradient_accumulation)."),

	MAP("quality_target", "The quality both systems must reach; time and cost to quality "
			      "are measured up to it."),
	STR("quality_target.metric", "The metric as the training logs it, e.g. \"eval/loss\"."),
	NUM("quality_target.threshold", "The value of the metric that counts as reached."),
	ENUM("quality_target.direction", directions, "Whether lower or higher values are better."),
	STR("quality_target.eval_set", "The held-out data the metric is measured on."),
	STR("quality_target.eval_every", "How often it is evaluated, e.g. \"500 steps\"."),

	MAP("tolerances", "How close the candidate's tensors must be to the baseline's: "
			  "|a - b| <= atol + rtol * |b|."),
	MAP("tolerances.default", "Tolerances for every tensor no override names."),
	AMOUNT("tolerances.default.atol", "Absolute tolerance."),
	AMOUNT("tolerances.default.rtol", "Relative tolerance."),
	LIST("tolerances.overrides", OVERRIDE_HELP),
	MAP("tolerances.overrides.*", OVERRIDE_HELP),
	STR("tolerances.overrides.*.name", "A glob over tensor names, e.g. \"*.attn.*\"."),
	AMOUNT("tolerances.overrides.*.atol", "Absolute tolerance."),
	AMOUNT("tolerances.overrides.*.rtol", "Relative tolerance."),
	BOOL("tolerances.equal_nan", "true when NaN in both tensors counts as equal."),

	MAP("accounting", "What the cost comparison counts."),
	STR("accounting.boundary", "What is inside the cost boundary, in words, e.g. "
				   "\"accelerator hours of training runs; not storage\"."),
	STR("accounting.currency", "Currency of every amount, e.g. USD."),
	LIST("accounting.items", "Each thing paid for, and how its cost is obtained."),
	MAP("accounting.items.*", "One cost item."),
	STR("accounting.items.*.name", "What is paid for, e.g. \"trn1.32xlarge hours\"."),
	ENUM("accounting.items.*.treatment", treatments,
	     "measured = metered during the trial, public_rate = a public price times measured "
	     "use, omitted = left out (say why in reason)."),
	AMOUNT("accounting.items.*.rate", "Price per unit, for public_rate."),
	STR("accounting.items.*.unit", "What the rate is per, e.g. \"instance-hour\"."),
	STR("accounting.items.*.source", "Where the rate comes from: the URL of a public rate "
					 "page."),
	STR("accounting.items.*.reason", "Why the item is treated this way."),

	MAP("tracks", "The two lines of migration work, each a range of git revisions."),
	MAP("tracks.portability", "The fewest changes that make the code run on the candidate."),
	STR("tracks.portability.base", "Revision the changes start from."),
	STR("tracks.portability.head", "Revision (branch or commit) with the latest changes."),
	STR("tracks.portability.description", "What the track changes, in a sentence."),
	MAP("tracks.optimized", "Further changes made for speed or cost on the candidate."),
	STR("tracks.optimized.base", "Revision the changes start from."),
	STR("tracks.optimized.head", "Revision (branch or commit) with the latest changes."),
	STR("tracks.optimized.description", "What the track changes, in a sentence."),
	AMOUNT("tracks.optimized.budget_hours", "Engineering hours allowed for this track."),

	LIST("criteria", "What decides the trial: each criterion is judged from the record."),
	MAP("criteria.*", "One criterion."),
	STR("criteria.*.name", "A short identifier, e.g. \"loss-parity\"."),
	ENUM("criteria.*.kind", criterion_kinds,
	     "What is judged: reaching the quality target, matching the baseline within "
	     "tolerances, operator coverage on the candidate, time or cost to quality, "
	     "device-hours to quality (scarce devices, apart from turnaround), "
	     "engineering effort, or something else (custom)."),
	COUNT("criteria.*.devices", "The topology judged, by its device count: only runs at it "
				    "count, on both systems, so that they compare like for like. "
				    "Needed by time, cost and device-hours criteria when a "
				    "system's runs are at several device counts."),
	ENUM("criteria.*.design", designs,
	     "For a criterion judged from runs: the comparison it judges, matched (the "
	     "default: both systems on trial.yaml's precision, implementation efficiency) "
	     "or best (each on its precision.best recipe, practical performance). Runs of "
	     "one design are never compared with runs of the other."),
	NUM("criteria.*.threshold", "The number it is judged against; its unit follows from "
				    "kind (e.g. a ratio to the baseline's cost)."),
	STR("criteria.*.description", "The criterion in words, as the report shows it."),
	ENUM("criteria.*.judgement", judgements,
	     "For a custom criterion only: the team's judgement (every other kind is judged "
	     "from the record by `mtrial decide`)."),
	STR("criteria.*.evidence", "For a custom criterion: what the judgement rests on, in a "
				   "sentence."),

	MAP("scan", "What `mtrial scan` (and the wizard's scan) reads."),
	LIST("scan.paths", "Folders or files to limit the scan to, relative to the repository "
			   "root, e.g. [word_language_model]; the probe then judges only their "
			   "ops. A path with nothing at the scanned revision gets a warning."),
	STR("scan.paths.*", "A folder or file, relative to the repository root."),

	MAP("probe", "How `mtrial probe` judges the repository's ops."),
	STR("probe.table", "The compatibility table `mtrial probe` uses by default (a name from "
			   "`mtrial tables list`, or a file)."),
	LIST("probe.overrides", "What the team found out about ops or APIs itself; these outrank a "
				"documented table (only ops observed on hardware outrank them)."),
	MAP("probe.overrides.*", "One op, or one API."),
	STR("probe.overrides.*.op", "The op, e.g. \"aten::foo\" (an overload matches its base)."),
	STR("probe.overrides.*.api", "Or a public torch API instead of an op, e.g. \"torch.cumsum\" "
				     "or \"torch.Tensor.masked_scatter\": it decides that API's calls."),
	ENUM("probe.overrides.*.status", op_statuses, "How it runs on the candidate."),
	STR("probe.overrides.*.note", "Who found it, where, on which version, e.g. \"works in "
				      "eager on 2.14.3 (Ada, 2026-11-20)\"."),
};

const size_t mt_spec__nfields = sizeof(mt_spec__fields) / sizeof(mt_spec__fields[0]);
#define N_FIELDS mt_spec__nfields

/* The top level, as if it were a field; "" joins without a dot. */
static const struct field root_field = {.path = "", .type = F_MAP, .required = 1};
/* What every value of a free dict is. */
static const struct field dict_value = {.path = "", .type = F_STRING};

static const struct field *field_find(const char *path)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if (strcmp(mt_spec__fields[i].path, path) == 0)
			return &mt_spec__fields[i];
	return NULL;
}

static const struct field *field_join(const struct field *parent, const char *key)
{
	char path[256];
	int n = parent->path[0] ? snprintf(path, sizeof(path), "%s.%s", parent->path, key)
				: snprintf(path, sizeof(path), "%s", key);

	return n >= 0 && (size_t)n < sizeof(path) ? field_find(path) : NULL;
}

/* The field for a key of a map; a key with a dot or a star is never one,
 * though "default.atol" spelled as one key would otherwise find a row. */
static const struct field *field_child(const struct field *parent, const char *key)
{
	return strpbrk(key, ".*") ? NULL : field_join(parent, key);
}

/* The field every item of a list is. */
const struct field *mt_spec__field_item(const struct field *list)
{
	return field_join(list, "*");
}

/* The last part of f's path if f is a direct child of parent, else NULL. */
const char *mt_spec__child_key(const struct field *f, const struct field *parent)
{
	size_t n = strlen(parent->path);

	if (n && (strncmp(f->path, parent->path, n) != 0 || f->path[n] != '.'))
		return NULL;
	if (n)
		n++;
	return strchr(f->path + n, '.') ? NULL : f->path + n;
}

/* ---- validation ---------------------------------------------------------- */

struct check {
	const char *name; /* file name for messages */
	mt_buf path;      /* dotted path of the node being checked, for messages */
	mt_buf *all;      /* every error's message so far, one a line */
	int *count;       /* how many */
};

static int fail(const struct check *c, size_t line, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(const struct check *c, size_t line, size_t col, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = mt_error_vat(MT_EINVALID, c->name, line, col, fmt, ap);
	va_end(ap);
	/* kept for the whole file's report: the checks go on past an error */
	mt_buf_printf(c->all, "%s%s", *c->count ? "\n" : "", mt_error_last());
	++*c->count;
	return error;
}

static size_t path_push(struct check *c, const char *part)
{
	size_t len = c->path.len;

	if (len)
		mt_buf_puts(&c->path, ".");
	mt_buf_puts(&c->path, part);
	return len;
}

static void path_pop(struct check *c, size_t len)
{
	if (c->path.ptr) {
		c->path.len = len;
		c->path.ptr[len] = '\0';
	}
}

/* A value as quoted in a message: long ones are cut, on a character edge. */
const char *mt_spec__shown(const char *text, char *buf, size_t size)
{
	size_t n = strlen(text);

	if (n < size)
		return text;
	n = size - 4;
	while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
		n--;
	snprintf(buf, size, "%.*s...", (int)n, text);
	return buf;
}

static const char *kind_name(const mt_snode *n)
{
	return n->kind == MT_SNODE_MAP ? "a map" : n->kind == MT_SNODE_LIST ? "a list" : "a value";
}

void mt_spec__put_values(mt_buf *b, const char *const *values)
{
	for (size_t i = 0; values[i]; i++)
		mt_buf_printf(b, "%s%s", i ? ", " : "", values[i]);
}

static int wrong_type(const struct check *c, const mt_snode *n, const char *want)
{
	char buf[64];

	if (n->kind != MT_SNODE_SCALAR)
		return fail(c, n->line, n->col, "'%s' must be %s, got %s", mt_buf_cstr(&c->path),
			    want, kind_name(n));
	return fail(c, n->line, n->col, "'%s' must be %s, got '%s'%s", mt_buf_cstr(&c->path), want,
		    mt_spec__shown(n->text, buf, sizeof(buf)),
		    n->plain ? "" : " (quoted, so text: remove the quotes)");
}

static int is_integer(const char *s)
{
	const char *digits = s + (*s == '-');
	size_t n = strspn(digits, "0123456789");

	/* Plain decimal only: YAML 1.1 would read 010 as octal, so no leading
	 * zero. How large it may be is check_range's business. */
	return n > 0 && digits[n] == '\0' && (digits[0] != '0' || n == 1);
}

/* Numbers are read in the C locale: a TUI may have set LC_NUMERIC to one
 * whose decimal point is a comma. */
static double number_value(const char *s)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	double v = strtod(s, NULL);

	if (c) {
		uselocale(old);
		freelocale(c);
	}
	return v;
}

static const char *skip_digits(const char *p, int *seen)
{
	*seen = *p >= '0' && *p <= '9';
	while (*p >= '0' && *p <= '9')
		p++;
	return p;
}

/* [-+]digits[.digits][e[-+]digits], with digits on at least one side of the dot. */
static int is_number(const char *s)
{
	const char *p = s + (*s == '-' || *s == '+');
	int whole, frac = 0, exp;

	p = skip_digits(p, &whole);
	if (*p == '.')
		p = skip_digits(p + 1, &frac);
	if (!whole && !frac)
		return 0;
	if (*p == 'e' || *p == 'E') {
		p += 1 + (p[1] == '-' || p[1] == '+');
		p = skip_digits(p, &exp);
		if (!exp)
			return 0;
	}
	return *p == '\0';
}

static const mt_snode *member(const mt_snode *map, const char *key)
{
	if (map->kind != MT_SNODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->kids[i]->key, key) == 0)
			return map->kids[i];
	return NULL;
}

static int unknown_key(const struct check *c, const mt_snode *kid, const struct field *f)
{
	mt_buf where = MT_BUF_INIT, keys = MT_BUF_INIT;
	char buf[64];
	int error;

	if (c->path.len)
		mt_buf_printf(&where, "in '%s'", mt_buf_cstr(&c->path));
	else
		mt_buf_puts(&where, "at the top level");
	for (size_t i = 0; i < N_FIELDS; i++) {
		const char *key = mt_spec__child_key(&mt_spec__fields[i], f);
		if (key)
			mt_buf_printf(&keys, "%s%s", keys.len ? ", " : "", key);
	}
	error = fail(c, kid->key_line, kid->key_col, "unknown key '%s' %s (expected one of: %s)",
		     mt_spec__shown(kid->key, buf, sizeof(buf)), mt_buf_cstr(&where), mt_buf_cstr(&keys));
	mt_buf_dispose(&where);
	mt_buf_dispose(&keys);
	return error;
}

/* A missing required key is reported where its map starts: at the map's own
 * key when it has one, since a nested map starts at its first member. */
static int check_required(const struct check *c, const mt_snode *map, const struct field *f)
{
	size_t line = map->key ? map->key_line : map->line;
	size_t col = map->key ? map->key_col : map->col;

	for (size_t i = 0; i < N_FIELDS; i++) {
		const char *key = mt_spec__child_key(&mt_spec__fields[i], f);

		if (!key || !mt_spec__fields[i].required || member(map, key))
			continue;
		if (c->path.len)
			return fail(c, line, col, "missing required key '%s' in '%s'", key,
				    mt_buf_cstr(&c->path));
		return fail(c, line, col, "missing required key '%s'", key);
	}
	return 0;
}

static int enum_error(const struct check *c, const mt_snode *n, const struct field *f)
{
	mt_buf want = MT_BUF_INIT;
	char buf[64];
	int error;

	mt_spec__put_values(&want, f->values);
	if (n->kind == MT_SNODE_SCALAR)
		error = fail(c, n->line, n->col, "'%s' must be one of: %s (got '%s')",
			     mt_buf_cstr(&c->path), mt_buf_cstr(&want),
			     mt_spec__shown(n->text, buf, sizeof(buf)));
	else
		error = fail(c, n->line, n->col, "'%s' must be one of: %s (got %s)",
			     mt_buf_cstr(&c->path), mt_buf_cstr(&want), kind_name(n));
	mt_buf_dispose(&want);
	return error;
}

static int is_boolean(const char *s)
{
	return strcmp(s, "true") == 0 || strcmp(s, "false") == 0;
}

static const char *range_text(const struct field *f, char *buf, size_t size)
{
	if (f->bound == B_COUNT)
		snprintf(buf, size, "1 to %lld", COUNT_MAX);
	else if (f->bound == B_AMOUNT)
		snprintf(buf, size, "0 or more");
	else if (f->type == F_INTEGER)
		snprintf(buf, size, "%lld to %lld", LLONG_MIN, LLONG_MAX);
	else
		snprintf(buf, size, "a finite number");
	return buf;
}

/* A well-formed number that does not fit its type or make sense for its
 * field (-1 devices, a negative tolerance) is out of range, and says so:
 * "must be an integer" for 9223372036854775808 would send the user looking
 * for a typo. */
static int check_range(const struct check *c, const mt_snode *n, const struct field *f)
{
	char buf[64], range[64];
	double v;
	int ok;

	errno = 0;
	if (f->type == F_INTEGER) {
		long long i = strtoll(n->text, NULL, 10);
		ok = errno != ERANGE && (f->bound != B_COUNT || (i >= 1 && i <= COUNT_MAX));
	} else {
		v = number_value(n->text);
		ok = isfinite(v) && (f->bound != B_AMOUNT || v >= 0);
	}
	if (ok)
		return 0;
	return fail(c, n->line, n->col, "'%s' is out of range: %s (expected %s)",
		    mt_buf_cstr(&c->path), mt_spec__shown(n->text, buf, sizeof(buf)),
		    range_text(f, range, sizeof(range)));
}

/* Integers, numbers and booleans must be plain: "8" in quotes is text. */
static int check_scalar(const struct check *c, const mt_snode *n, const struct field *f)
{
	int ok = n->kind == MT_SNODE_SCALAR;

	switch (f->type) {
	case F_STRING:
		return ok ? 0 : wrong_type(c, n, "text");
	case F_ENUM:
		return ok && mt_str_in(n->text, f->values) ? 0 : enum_error(c, n, f);
	case F_INTEGER:
		return ok && n->plain && is_integer(n->text) ? check_range(c, n, f)
							     : wrong_type(c, n, "an integer");
	case F_NUMBER:
		return ok && n->plain && is_number(n->text) ? check_range(c, n, f)
							    : wrong_type(c, n, "a number");
	case F_BOOLEAN:
		return ok && n->plain && is_boolean(n->text) ? 0
							     : wrong_type(c, n, "true or false");
	default:
		return 0;
	}
}

static int check_node(struct check *c, const mt_snode *n, const struct field *f);

static int check_map(struct check *c, const mt_snode *n, const struct field *f)
{
	int first = 0, error;

	if (n->kind != MT_SNODE_MAP)
		return wrong_type(c, n, "a map of keys");
	for (size_t i = 0; i < n->n; i++) {
		const mt_snode *kid = n->kids[i];
		const struct field *cf = field_child(f, kid->key);
		size_t saved;

		if (!cf) {
			first = first ? first : unknown_key(c, kid, f);
			continue;
		}
		saved = path_push(c, kid->key);
		error = check_node(c, kid, cf);
		path_pop(c, saved);
		first = first ? first : error;
	}
	error = check_required(c, n, f);
	return first ? first : error;
}

/* A free dict (software versions): any keys, each naming a text value. */
static int check_dict(struct check *c, const mt_snode *n)
{
	if (n->kind != MT_SNODE_MAP)
		return wrong_type(c, n, "a map of names to text");
	for (size_t i = 0; i < n->n; i++) {
		size_t saved;
		int error;

		if (n->kids[i]->kind == MT_SNODE_SCALAR)
			continue;
		saved = path_push(c, n->kids[i]->key);
		error = wrong_type(c, n->kids[i], "text");
		path_pop(c, saved);
		return error;
	}
	return 0;
}

static int check_list(struct check *c, const mt_snode *n, const struct field *f)
{
	const struct field *item = mt_spec__field_item(f);
	char index[32];
	int first = 0;

	if (n->kind != MT_SNODE_LIST)
		return wrong_type(c, n, "a list");
	for (size_t i = 0; item && i < n->n; i++) {
		size_t saved;
		int error;

		snprintf(index, sizeof(index), "%zu", i);
		saved = path_push(c, index);
		error = check_node(c, n->kids[i], item);
		path_pop(c, saved);
		first = first ? first : error;
	}
	return first;
}

/* An empty value is "not yet known": fine anywhere but in a required field. */
static int check_node(struct check *c, const mt_snode *n, const struct field *f)
{
	if (n->kind == MT_SNODE_SCALAR && n->text[0] == '\0')
		return f->required ? fail(c, n->line, n->col, "'%s' must not be empty",
					  mt_buf_cstr(&c->path))
				   : 0;
	switch (f->type) {
	case F_MAP:
		return check_map(c, n, f);
	case F_DICT:
		return check_dict(c, n);
	case F_LIST:
		return check_list(c, n, f);
	default:
		return check_scalar(c, n, f);
	}
}

/* Checked first: a file from a newer mtrial may have keys this one does not
 * know, and "unknown key" would hide the real reason. */
static int check_version(const struct check *c, const mt_snode *root)
{
	const mt_snode *v = member(root, "schema");
	char want[16], buf[64];

	snprintf(want, sizeof(want), "%d", MT_SPEC_SCHEMA_VERSION);
	if (!v || v->kind != MT_SNODE_SCALAR || !v->text[0] || strcmp(v->text, want) == 0)
		return 0;
	return fail(c, v->line, v->col, "'schema' is '%s', but this mtrial reads schema %s",
		    mt_spec__shown(v->text, buf, sizeof(buf)), want);
}

/* ---- rules between fields --------------------------------------------------- */

/* The filled-in scalar at a dotted path below map, or NULL. */
static const mt_snode *filled(const mt_snode *map, const char *path)
{
	char part[64];

	while (map && *path) {
		size_t len = strcspn(path, ".");
		snprintf(part, sizeof(part), "%.*s", (int)len, path);
		map = member(map, part);
		path += len + (path[len] == '.');
	}
	return map && map->kind == MT_SNODE_SCALAR && map->text[0] ? map : NULL;
}

/* Each criterion is judged and reported by its name: two of one name would
 * leave the report and `decide` unable to tell which is which. */
static int check_criterion_names(const struct check *c, const mt_snode *root)
{
	const mt_snode *list = member(root, "criteria");
	char buf[64];

	for (size_t i = 0; list && list->kind == MT_SNODE_LIST && i < list->n; i++) {
		const mt_snode *name = filled(list->kids[i], "name");

		for (size_t k = 0; name && k < i; k++) {
			const mt_snode *earlier = filled(list->kids[k], "name");
			if (earlier && strcmp(earlier->text, name->text) == 0)
				return fail(c, name->line, name->col, "'criteria.%zu.name' is '%s', "
					    "already the name of criteria.%zu (line %u): each "
					    "criterion needs its own name", i,
					    mt_spec__shown(name->text, buf, sizeof(buf)), k, earlier->line);
		}
	}
	return 0;
}

/* global_batch = micro_batch x data x gradient_accumulation (the template
 * says so). With a factor not yet known, the known ones must still divide
 * global_batch, whatever the missing one turns out to be. */
static int check_batch(const struct check *c, const mt_snode *topo, const char *at)
{
	static const char *const factors[] = {"micro_batch", "parallelism.data",
					      "gradient_accumulation"};
	const mt_snode *global = filled(topo, "global_batch");
	long long want, product = 1;
	int known = 0;
	mt_buf how = MT_BUF_INIT;
	int error = 0;

	if (!global)
		return 0;
	want = strtoll(global->text, NULL, 10);
	for (size_t i = 0; i < 3; i++) {
		const mt_snode *f = filled(topo, factors[i]);
		long long v = f ? strtoll(f->text, NULL, 10) : 0;

		mt_buf_printf(&how, "%s%s", i ? " x " : "", f ? f->text : "?");
		if (!f)
			continue;
		known++;
		product = product > want / v ? want + 1 : product * v; /* no overflow */
	}
	if (known && (known == 3 ? product != want : product > want || want % product))
		error = fail(c, global->line, global->col, "'%s.global_batch' is %lld, but "
			     "micro_batch x data x gradient_accumulation = %s %s", at, want,
			     mt_buf_cstr(&how), known == 3 ? "is not that"
							   : "cannot make it whatever ? is");
	mt_buf_dispose(&how);
	return error;
}

/* 1 when a scalar below n is filled in. */
static int any_filled(const mt_snode *n)
{
	if (n->kind == MT_SNODE_SCALAR)
		return n->text[0] != '\0';
	for (size_t i = 0; i < n->n; i++)
		if (any_filled(n->kids[i]))
			return 1;
	return 0;
}

/* A system's topologies: each names its devices (a run is matched to one by
 * them), no two the same, each with a consistent batch. */
static int check_topologies(const struct check *c, const mt_snode *root)
{
	static const char *const systems[] = {"baseline", "candidate"};
	int error = 0;

	for (size_t s = 0; error == 0 && s < 2; s++) {
		const mt_snode *all = member(root, "systems");
		const mt_snode *sys = all ? member(all, systems[s]) : NULL;
		const mt_snode *list = sys ? member(sys, "topologies") : NULL;
		char at[96];

		for (size_t i = 0; error == 0 && list && list->kind == MT_SNODE_LIST && i < list->n; i++) {
			const mt_snode *t = list->kids[i], *d = filled(t, "devices");
			snprintf(at, sizeof(at), "systems.%s.topologies.%zu", systems[s], i);
			if (t->kind != MT_SNODE_MAP)
				continue;
			if (!d && !any_filled(t))
				continue; /* a skeleton still empty is no topology */
			if (!d)
				error = fail(c, t->line, t->col, "'%s' has no devices: a run is counted "
					     "at the topology with its device count", at);
			for (size_t k = 0; error == 0 && k < i; k++) {
				const mt_snode *e = filled(list->kids[k], "devices");
				if (e && strcmp(e->text, d->text) == 0)
					error = fail(c, d->line, d->col, "'%s.devices' is %s, as "
						     "topology %zu's is: a run could not tell them "
						     "apart", at, d->text, k);
			}
			if (error == 0)
				error = check_batch(c, t, at);
		}
	}
	return error;
}

/* A criterion of the best design compares each platform's best recipe:
 * without precision.best there is none, and no run could be of it. */
static int check_criterion_designs(const struct check *c, const mt_snode *root)
{
	const mt_snode *list = member(root, "criteria"), *precision = member(root, "precision");
	const mt_snode *best = precision && precision->kind == MT_SNODE_MAP
	                           ? member(precision, "best") : NULL;

	if (best && any_filled(best))
		return 0;
	for (size_t i = 0; list && list->kind == MT_SNODE_LIST && i < list->n; i++) {
		const mt_snode *d = filled(list->kids[i], "design");
		if (d && strcmp(d->text, "best") == 0)
			return fail(c, d->line, d->col, "'criteria.%zu.design' is best, but trial.yaml "
				    "gives no precision.best: set each platform's best recipe there "
				    "(precision.best.baseline, precision.best.candidate), or design: "
				    "matched", i);
	}
	return 0;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && strcmp(s + n - k, tail) == 0;
}

/* probe.table names a table (bundled, or imported on this machine) or a
 * file. Whether that table exists here is not the spec's business: trial.yaml
 * is committed and shared, and a colleague may import the table later, so
 * `mtrial spec` warns about a missing one. A name no table can have is an
 * error: `tables import` accepts only [a-z0-9][a-z0-9._-]*. */
static int check_table_name(const struct check *c, const mt_snode *root)
{
	const mt_snode *t = filled(member(root, "probe"), "table");
	const char *s = t ? t->text : NULL;
	char buf[64];

	if (!s || strchr(s, '/') || ends_with(s, ".yaml") || ends_with(s, ".yml"))
		return 0;
	if (((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')) &&
	    s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-")] == '\0')
		return 0;
	return fail(c, t->line, t->col, "'probe.table' is '%s': no table can have that name "
		    "(table names match [a-z0-9][a-z0-9._-]*; a file needs a '/' or a .yaml "
		    "ending; mtrial tables list shows them)", mt_spec__shown(s, buf, sizeof(buf)));
}

/* One probe override names one op (aten::add) or one torch API
 * (torch.cumsum), each in its own key: the probe matches them differently. */
static int check_override(const struct check *c, const mt_snode *o, size_t i)
{
	const mt_snode *op = filled(o, "op"), *api = filled(o, "api");
	const char *op_kind = op ? mt_override_key_kind(op->text) : NULL;
	const char *api_kind = api ? mt_override_key_kind(api->text) : NULL;
	char buf[64];

	if (op && api)
		return fail(c, api->line, api->col, "'probe.overrides.%zu' names both an op and an "
			    "API: give each its own override", i);
	if (!op && !api && filled(o, "status")) /* a skeleton still empty is no override */
		return fail(c, o->line, o->col, "'probe.overrides.%zu' names no op and no api "
			    "(op: aten::add, or api: torch.cumsum)", i);
	if (api && (!api_kind || strcmp(api_kind, "api") != 0))
		return fail(c, api->line, api->col, "'probe.overrides.%zu.api' is '%s', not a "
			    "dotted torch API (torch.cumsum, torch.Tensor.masked_scatter)", i,
			    mt_spec__shown(api->text, buf, sizeof(buf)));
	if (op && (!op_kind || strcmp(op_kind, "op") != 0))
		return fail(c, op->line, op->col, "'probe.overrides.%zu.op' is '%s', %s", i,
			    mt_spec__shown(op->text, buf, sizeof(buf)),
			    op_kind ? "a torch API: write it as api:" : "not an aten op (aten::add)");
	return 0;
}

static int check_overrides(const struct check *c, const mt_snode *root)
{
	const mt_snode *probe = member(root, "probe");
	const mt_snode *list = probe ? member(probe, "overrides") : NULL;
	int error = 0;

	for (size_t i = 0; error == 0 && list && list->kind == MT_SNODE_LIST && i < list->n; i++)
		if (list->kids[i]->kind == MT_SNODE_MAP)
			error = check_override(c, list->kids[i], i);
	return error;
}

/* Every check runs, whatever an earlier one found: the error says all of
 * them, one a line, the first's code kept. */
int mt_spec__validate(const mt_snode *root, const char *name)
{
	mt_buf all = MT_BUF_INIT;
	int count = 0;
	struct check c = {.name = name, .path = MT_BUF_INIT, .all = &all, .count = &count};
	int error = check_version(&c, root), e;

	if (error == 0) { /* a newer file's keys would only be "unknown" */
		int (*const more[])(const struct check *, const mt_snode *) = {
			check_criterion_names, check_criterion_designs, check_topologies,
			check_table_name, check_overrides};

		error = check_node(&c, root, &root_field);
		e = check_batch(&c, member(root, "topology"), "topology");
		error = error ? error : e;
		for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
			e = more[i](&c, root);
			error = error ? error : e;
		}
	}
	if (error < 0 && count > 1)
		mt_error_set(error, "%s", mt_buf_cstr(&all));
	mt_buf_dispose(&c.path);
	mt_buf_dispose(&all);
	return error;
}

/* ---- JSON ------------------------------------------------------------------ */

static const struct field *kid_field(const struct field *f, const char *key)
{
	if (!f)
		return NULL;
	if (f->type == F_DICT)
		return &dict_value;
	if (f->type == F_MAP)
		return field_child(f, key);
	return f->type == F_LIST ? mt_spec__field_item(f) : NULL;
}

static json_t *scalar_json(const mt_snode *n, const struct field *f)
{
	if (n->text[0] == '\0')
		return json_null();
	switch (f ? f->type : F_STRING) {
	case F_INTEGER:
		return json_integer(strtoll(n->text, NULL, 10));
	case F_NUMBER:
		return json_real(number_value(n->text));
	case F_BOOLEAN:
		return json_boolean(strcmp(n->text, "true") == 0);
	default:
		return json_string(n->text);
	}
}

static json_t *node_json(const mt_snode *n, const struct field *f)
{
	json_t *out;

	if (n->kind == MT_SNODE_SCALAR)
		return scalar_json(n, f);
	out = n->kind == MT_SNODE_MAP ? json_object() : json_array();
	for (size_t i = 0; out && i < n->n; i++) {
		const mt_snode *kid = n->kids[i];
		json_t *v = node_json(kid, kid_field(f, kid->key));

		if (n->kind == MT_SNODE_MAP)
			json_object_set_new(out, kid->key, v);
		else
			json_array_append_new(out, v);
	}
	return out;
}

json_t *mt_spec__json(const mt_snode *root)
{
	return node_json(root, &root_field);
}

const char *const *mt_spec_enum_values(const char *path)
{
	char norm[256];
	size_t o = 0;
	const struct field *f;

	/* "criteria.0.kind" and "criteria.*.kind" name the same field. */
	while (path && *path) {
		size_t len = strcspn(path, ".");
		int index = len > 0 && strspn(path, "0123456789") >= len;
		size_t plen = index ? 1 : len;

		if (o + plen + 2 > sizeof(norm))
			return NULL;
		memcpy(norm + o, index ? "*" : path, plen);
		o += plen;
		path += len;
		if (*path == '.')
			norm[o++] = *path++;
	}
	norm[o] = '\0';
	f = field_find(norm);
	return f && f->type == F_ENUM ? f->values : NULL;
}

