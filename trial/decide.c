/* The go/no-go decision (decide.h): the helpers every judge shares, the
 * verdict across the criteria. The evidence is gathered from the journal
 * by report/decision.c. The judges are in decide_runs.c (quality, time and cost to quality) and
 * decide_records.c (correctness, ops, effort, custom). */
#include "decide_int.h"
#include "error.h"
#include "runs.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------- */

double mt_dc_num(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

json_t *mt_dc_real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

const char *mt_dc_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

int mt_dc_streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* A number of trial.yaml, NaN when absent or not a number. */
double mt_dc_spec_num(const mt_spec *spec, const char *path)
{
	const char *v = mt_spec_get(spec, path);
	char *end;
	double d;

	if (!v)
		return NAN;
	d = strtod(v, &end);
	return end != v && *end == '\0' ? d : NAN;
}

/* The name a table file declares on its top-level `name:` line (the
 * compatibility tables' format, docs/compat-tables.md), into buf; NULL
 * when the file cannot be read or has none. */
static const char *table_file_name(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[512];
	const char *found = NULL;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *v = line + 5, *end;
		if (strncmp(line, "name:", 5) != 0)
			continue;
		v += strspn(v, " \t\"'");
		end = v + strcspn(v, "\"'#\r\n");
		while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		snprintf(buf, size, "%.*s", (int)(end - v), v);
		found = *buf ? buf : NULL;
	}
	if (f)
		fclose(f);
	return found;
}

/* The table the trial judges ops against, as probes name it: trial.yaml's
 * probe.table (a table's name, or a file: the name it declares), else the
 * one `mtrial probe` uses by default. Borrowed from spec or a static buffer. */
const char *mt_decide_table(const mt_spec *spec)
{
	static char buf[256];
	const char *name = spec ? mt_spec_get(spec, "probe.table") : NULL;

	if (!name || !*name)
		return MT_DECIDE_DEFAULT_TABLE;
	if (strchr(name, '/') || strstr(name, ".yaml") || strstr(name, ".yml"))
		return table_file_name(name, buf, sizeof(buf)) ?: name;
	return name;
}

static void set_text(json_t *c, const char *key, const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	json_object_set_new(c, key, s ? json_string(s) : json_null());
	free(s);
}

/* Sets the criterion's status, the value compared and the evidence. */
void mt_dc_judge(json_t *c, const char *status, double value, const char *fmt, ...)
{
	va_list ap;
	json_object_set_new(c, "status", json_string(status));
	json_object_set_new(c, "value", mt_dc_real_or_null(value));
	va_start(ap, fmt);
	set_text(c, "evidence", fmt, ap);
	va_end(ap);
}

/* A criterion judged against a threshold it does not have: unknown. */
int mt_dc_lacks_threshold(struct ctx *x, json_t *c, double threshold)
{
	char what[64];
	if (isfinite(threshold))
		return 0;
	snprintf(what, sizeof(what), "criteria.%zu.threshold", x->index);
	mt_dc_judge(c, "unknown", NAN, "the criterion has no threshold to judge against");
	mt_dc_need(c, what, "edit trial.yaml");
	return 1;
}

/* Adds what would settle an unknown criterion and the command recording it. */
void mt_dc_need(json_t *c, const char *what, const char *command)
{
	json_array_append_new(json_object_get(c, "missing"),
			      json_pack("{ss, ss}", "what", what, "command", command));
}

void mt_dc_condition(json_t *c, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		json_array_append_new(json_object_get(c, "conditions"), json_string(s));
	va_end(ap);
	free(s);
}

void mt_dc_caveat(struct ctx *x, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0)
		json_array_append_new(x->caveats, json_string(s));
	va_end(ap);
	free(s);
}

void mt_dc_source(json_t *c, const char *text)
{
	json_object_set_new(c, "source", json_string(text));
}

/* "#3, #5" for the ids of the runs in `runs`. */
void mt_dc_put_ids(mt_buf *b, json_t *runs)
{
	json_t *r;
	size_t i;
	json_array_foreach(runs, i, r)
		mt_buf_printf(b, "%s#%lld", i ? ", " : "", (long long)json_integer_value(json_object_get(r, "id")));
}

/* The median of the finite values of `key` over `runs`; *n how many. */
double mt_dc_median_of(json_t *runs, const char *key, size_t *n)
{
	double *v = malloc((json_array_size(runs) + 1) * sizeof(*v)), m;
	json_t *r;
	size_t i, k = 0;

	json_array_foreach(runs, i, r)
		if (isfinite(mt_dc_num(json_object_get(r, key))))
			v[k++] = mt_dc_num(json_object_get(r, key));
	m = mt_median(v, k);
	free(v);
	*n = k;
	return m;
}

/* ---- the decision -------------------------------------------------------------- */

typedef void (*judge_fn)(struct ctx *x, json_t *c, double threshold);

static const struct {
	const char *kind;
	judge_fn judge;
	int runs; /* judged from run attempts */
} judges[] = {
	{"quality", mt_dc_judge_quality, 1},
	{"correctness", mt_dc_judge_correctness, 0},
	{"ops", mt_dc_judge_ops, 0},
	{"time_to_quality", mt_dc_judge_time, 1},
	{"cost_to_quality", mt_dc_judge_cost, 1},
	{"device_hours", mt_dc_judge_device_hours, 1},
	{"effort", mt_dc_judge_effort, 0},
	{"custom", mt_dc_judge_custom, 0},
};
#define N_JUDGES (sizeof(judges) / sizeof(judges[0]))

static const char *spec_item(const mt_spec *spec, size_t i, const char *field)
{
	char path[64];
	snprintf(path, sizeof(path), "criteria.%zu.%s", i, field);
	return mt_spec_get(spec, path);
}

/* The devices of a flattened run; 0 when not known. */
static int64_t run_devices(json_t *r)
{
	double d = mt_dc_num(json_object_get(r, "devices"));
	return isfinite(d) && d >= 1 ? (int64_t)d : 0;
}

/* The evidence a run criterion reads: with `devices:`, only the runs at
 * that device count (a chip-level advantage can vanish across devices, so
 * both systems compare like for like); without, all of them, unless a
 * comparison's system has runs at several counts: then NULL, and c is
 * judged unknown, since no figure may pool topologies. New reference. */
static json_t *topology_evidence(struct ctx *x, json_t *c, size_t i, const char *kind)
{
	char at[48];
	const char *dv;
	int64_t devices = 0;
	json_t *ev, *runs, *r;
	size_t k;

	snprintf(at, sizeof(at), "criteria.%zu.devices", i);
	if ((dv = mt_spec_get(x->spec, at)))
		devices = strtoll(dv, NULL, 10);
	if (!devices && strcmp(kind, "quality") != 0) {
		static const char *const systems[] = {"baseline", "candidate"};
		for (size_t s = 0; s < 2; s++) {
			int64_t seen = 0;
			json_array_foreach(json_object_get(x->ev, "runs"), k, r) {
				int64_t d = run_devices(r);
				if (!d || mt_dc_is_rehearsal(r) || !mt_dc_streq(mt_dc_str(r, "system"), systems[s]))
					continue;
				if (seen && d != seen) {
					mt_dc_source(c, "runs of both systems");
					mt_dc_judge(c, "unknown", NAN, "the %s's runs are at several device counts "
						    "(%lld and %lld, at least): a criterion judges one topology, "
						    "so that no figure pools them", systems[s], (long long)seen,
						    (long long)d);
					mt_dc_need(c, at, "edit trial.yaml: the device count judged");
					return NULL;
				}
				seen = d;
			}
		}
	}
	ev = json_copy(x->ev);
	if (!devices)
		return ev;
	runs = json_array();
	json_array_foreach(json_object_get(x->ev, "runs"), k, r)
		if (run_devices(r) == devices)
			json_array_append(runs, r);
	json_object_set_new(ev, "runs", runs);
	json_object_set_new(c, "devices", json_integer(devices));
	return ev;
}

/* The evidence of design `design` alone: runs of the other design are
 * another experiment, never compared with these (a run without one reads
 * as matched); x->other_design counts those left out. New reference. */
static json_t *design_evidence(struct ctx *x, const char *design)
{
	json_t *ev = json_copy(x->ev), *runs = json_array(), *r;
	size_t k;

	x->other_design = 0;
	json_array_foreach(json_object_get(x->ev, "runs"), k, r) {
		if (mt_dc_streq(mt_dc_str(r, "design") ?: "matched", design))
			json_array_append(runs, r);
		else
			x->other_design++;
	}
	json_object_set_new(ev, "runs", runs);
	return ev;
}

/* Appends to a run criterion's evidence the runs of the other design it
 * left out, so that a reader sees they were not overlooked nor merged. */
static void other_design_left_out(struct ctx *x, json_t *c, json_t *all)
{
	const char *design = mt_dc_design(x);
	json_t *other = json_array(), *r;
	mt_buf b = MT_BUF_INIT;
	size_t k;

	json_array_foreach(json_object_get(all, "runs"), k, r)
		if (!mt_dc_streq(mt_dc_str(r, "design") ?: "matched", design) && !mt_dc_is_rehearsal(r))
			json_array_append(other, r);
	if (json_array_size(other)) {
		mt_buf_printf(&b, "%s; %s run%s ", mt_dc_str(c, "evidence") ?: "",
			      strcmp(design, "best") == 0 ? "matched-recipe" : "best-recipe",
			      json_array_size(other) > 1 ? "s" : "");
		mt_dc_put_ids(&b, other);
		mt_buf_printf(&b, " left out: another design, never compared with the %s one", design);
		json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&b)));
	}
	mt_buf_dispose(&b);
	json_decref(other);
}

/* Criterion i of trial.yaml, judged. NULL with MT_EINVALID for a kind this
 * code does not know (the schema and this table out of step). */
static json_t *criterion(struct ctx *x, size_t i, int *runs)
{
	const char *name = spec_item(x->spec, i, "name"), *kind = spec_item(x->spec, i, "kind");
	const char *desc = spec_item(x->spec, i, "description");
	char at[32], th[64];
	double threshold;
	json_t *c;

	snprintf(at, sizeof(at), "criteria.%zu", i);
	snprintf(th, sizeof(th), "%s.threshold", at);
	threshold = mt_dc_spec_num(x->spec, th);
	c = json_pack("{ss, ss?, ss?, so, so, s[], s[]}", "name", name ? name : at, "kind", kind,
		      "description", desc, "threshold",
		      isfinite(threshold) ? json_real(threshold) : json_null(), "track", json_null(),
		      "conditions", "missing");
	x->index = i;
	if (!kind) {
		mt_dc_source(c, "trial.yaml");
		mt_dc_judge(c, "unknown", NAN, "the criterion names no kind, so nothing can judge it");
		snprintf(th, sizeof(th), "%s.kind", at);
		mt_dc_need(c, th, "edit trial.yaml");
		return c;
	}
	for (size_t k = 0; k < N_JUDGES; k++)
		if (strcmp(judges[k].kind, kind) == 0) {
			json_t *all = x->ev, *of_design = NULL, *at_topology = NULL;
			if (judges[k].runs) {
				x->design = spec_item(x->spec, i, "design") ?: "matched";
				json_object_set_new(c, "design", json_string(x->design));
				x->ev = of_design = design_evidence(x, x->design);
				at_topology = topology_evidence(x, c, i, kind);
				x->ev = all;
			}
			if (judges[k].runs && !at_topology) {
				json_decref(of_design);
				return c; /* judged unknown: which topology is not said */
			}
			if (at_topology)
				x->ev = at_topology;
			judges[k].judge(x, c, threshold);
			x->ev = all;
			json_decref(at_topology);
			json_decref(of_design);
			if (judges[k].runs)
				other_design_left_out(x, c, all);
			if (json_is_integer(json_object_get(c, "devices")) && mt_dc_str(c, "evidence")) {
				mt_buf b = MT_BUF_INIT;
				mt_buf_printf(&b, "at %lld devices: %s",
					      (long long)json_integer_value(json_object_get(c, "devices")),
					      mt_dc_str(c, "evidence"));
				json_object_set_new(c, "evidence", json_string(mt_buf_cstr(&b)));
				mt_buf_dispose(&b);
			}
			/* which design's run criterion was met: 1 matched, 2 best */
			if (judges[k].runs && mt_dc_streq(mt_dc_str(c, "status"), "met"))
				*runs |= strcmp(mt_dc_design(x), "best") == 0 ? 2 : 1;
			if (judges[k].runs) /* quality reads the candidate's runs alone */
				mt_dc_rehearsals_left_out(x, c, strcmp(kind, "quality") == 0 ? "candidate" : NULL);
			if (strcmp(kind, "custom") != 0 && spec_item(x->spec, i, "judgement"))
				mt_dc_caveat(x, "%s.judgement is ignored: a %s criterion is judged from the "
				       "record", at, kind);
			return c;
		}
	json_decref(c);
	mt_error_set(MT_EINVALID, "trial.yaml: %s.kind (%s): '%s' is not a kind mtrial decide "
		     "knows", at, name ? name : "unnamed", kind);
	return NULL;
}

/* Collects failed, missing and conditions across the criteria; counts. */
static void collect(json_t *d, json_t *criteria, size_t counts[3])
{
	json_t *failed = json_array(), *missing = json_array(), *conds = json_array(), *c, *v;
	size_t i, k;

	json_array_foreach(criteria, i, c) {
		const char *st = mt_dc_str(c, "status"), *name = mt_dc_str(c, "name");
		counts[mt_dc_streq(st, "met") ? 0 : mt_dc_streq(st, "not_met") ? 1 : 2]++;
		if (mt_dc_streq(st, "not_met"))
			json_array_append_new(failed, json_pack("{ss, sO}", "criterion", name,
								"evidence", json_object_get(c, "evidence")));
		json_array_foreach(json_object_get(c, "missing"), k, v)
			json_array_append_new(missing, json_pack("{ss, sO, sO}", "criterion", name, "what",
								 json_object_get(v, "what"), "command",
								 json_object_get(v, "command")));
		if (mt_dc_streq(st, "met"))
			json_array_foreach(json_object_get(c, "conditions"), k, v)
				json_array_append_new(conds, json_pack("{ss, sO}", "criterion", name,
								       "text", v));
	}
	json_object_set_new(d, "failed", failed);
	json_object_set_new(d, "missing", missing);
	json_object_set_new(d, "conditions", conds);
}

static const char *verdict_of(const size_t counts[3], size_t conditions)
{
	if (counts[1])
		return MT_VERDICT_NO_GO;
	if (counts[2] || !counts[0])
		return MT_VERDICT_NOT_ENOUGH_EVIDENCE;
	return conditions ? MT_VERDICT_GO_WITH_CONDITIONS : MT_VERDICT_GO;
}

/* The verdict in words, as the issue and the report write it. */
static const char *headline(const char *verdict)
{
	return mt_dc_streq(verdict, MT_VERDICT_GO_WITH_CONDITIONS) ? "GO WITH CONDITIONS"
	       : mt_dc_streq(verdict, MT_VERDICT_NO_GO)           ? "NO-GO"
	       : mt_dc_streq(verdict, MT_VERDICT_NOT_ENOUGH_EVIDENCE) ? "NOT ENOUGH EVIDENCE"
								 : "GO";
}

/* The caveat that comes with the verdict itself, before the general ones. */
static void verdict_caveat(json_t *d, json_t *caveats, const size_t counts[3])
{
	const char *v = mt_dc_str(d, "verdict");
	json_t *first;
	char *s = NULL;
	int n = -1;

	if (mt_dc_streq(v, MT_VERDICT_NO_GO)) {
		first = json_array_get(json_object_get(d, "failed"), 0);
		n = asprintf(&s, "%s is not met: %s%s", mt_dc_str(first, "criterion"), mt_dc_str(first, "evidence"),
			     counts[2] ? "; other criteria are still unknown" : "");
	} else if (mt_dc_streq(v, MT_VERDICT_NOT_ENOUGH_EVIDENCE) && !counts[0] && !counts[2]) {
		n = asprintf(&s, "trial.yaml lists no criteria: nothing decides the trial");
	} else if (mt_dc_streq(v, MT_VERDICT_NOT_ENOUGH_EVIDENCE)) {
		first = json_array_get(json_object_get(d, "missing"), 0);
		n = asprintf(&s, "%zu of %zu criteria cannot be judged yet; first missing, for %s: "
			     "%s; record it with: %s", counts[2], counts[0] + counts[2], mt_dc_str(first, "criterion"),
			     mt_dc_str(first, "what"), mt_dc_str(first, "command"));
	} else if (mt_dc_streq(v, MT_VERDICT_GO_WITH_CONDITIONS)) {
		first = json_array_get(json_object_get(d, "conditions"), 0);
		n = asprintf(&s, "a go only if this holds (%s): %s", mt_dc_str(first, "criterion"),
			     mt_dc_str(first, "text"));
	}
	if (n >= 0)
		json_array_insert_new(caveats, 0, json_string(s));
	free(s);
}

/* Caveats about the evidence as a whole, whatever the verdict. */
static void general_caveats(struct ctx *x, json_t *criteria, int runs_met)
{
	json_t *c, *probe = json_object_get(x->ev, "probe"), *o;
	int quality = 0, ops = 0;
	size_t i;

	json_array_foreach(criteria, i, c) {
		quality |= mt_dc_streq(mt_dc_str(c, "kind"), "quality");
		ops |= mt_dc_streq(mt_dc_str(c, "kind"), "ops");
	}
	if (json_array_size(criteria) && !quality)
		json_array_insert_new(x->caveats, 0, json_string(
			"no criterion judges the model's quality: the verdict says nothing about "
			"whether the candidate trains an equally good model"));
	for (int d = 0; d < 2; d++) { /* per design: runs of the other are not counted */
		const char *design = d ? "best" : "matched";
		json_t *all = x->ev, *ev, *cr, *br, *cn, *bn;
		if (!(runs_met & (1 << d)))
			continue;
		x->ev = ev = design_evidence(x, design);
		cr = mt_dc_runs_of(x->ev, "candidate", NULL, NULL), br = mt_dc_runs_of(x->ev, "baseline", NULL, NULL);
		cn = mt_dc_with_number(cr, "time_to_target_s"), bn = mt_dc_with_number(br, "time_to_target_s");
		x->ev = all;
		if ((json_array_size(cn) < 3 || json_array_size(bn) < 3) && (d || x->other_design))
			mt_dc_caveat(x, "the %s design's run figures rest on %zu candidate and %zu "
			       "baseline run(s) of it that reached the target: too few to show the "
			       "spread between runs (3 or more each)", design, json_array_size(cn),
			       json_array_size(bn));
		else if (json_array_size(cn) < 3 || json_array_size(bn) < 3) /* one design alone */
			mt_dc_caveat(x, "the run figures rest on %zu candidate and %zu baseline run(s) that "
			       "reached the target: too few to show the spread between runs (3 or more "
			       "each)", json_array_size(cn), json_array_size(bn));
		json_decref(ev), json_decref(cr), json_decref(br), json_decref(cn), json_decref(bn);
	}
	if (ops && json_is_object(probe) && mt_dc_streq(mt_dc_str(json_object_get(probe, "from"), "source"), "scan"))
		mt_dc_caveat(x, "the ops come from a static scan, which misses ops inside modules and in "
		       "the backward pass: probe a dispatch trace (mtrial ops tracer, then mtrial "
		       "probe --from trace)");
	json_array_foreach(json_object_get(x->ev, "overrides"), i, o)
		if (ops && json_is_object(probe) && mt_dc_str(o, "created") && mt_dc_str(probe, "created") &&
		    strcmp(mt_dc_str(o, "created"), mt_dc_str(probe, "created")) > 0) {
			mt_dc_caveat(x, "an override was recorded after the latest probe (%s on %s): run "
			       "mtrial probe again", mt_dc_str(o, "op") ?: mt_dc_str(o, "api"), mt_dc_str(o, "created"));
			break;
		}
}

int mt_decide_from(json_t **out, const mt_spec *spec, json_t *evidence)
{
	struct ctx x = {.spec = spec, .ev = evidence, .caveats = json_array()};
	json_t *criteria = json_array(), *lists = json_object(), *c;
	size_t n = spec ? mt_spec_count(spec, "criteria") : 0, counts[3] = {0, 0, 0};
	const char *verdict;
	int runs_met = 0;
	char summary[128];

	*out = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!(c = criterion(&x, i, &runs_met))) {
			json_decref(criteria);
			json_decref(lists);
			json_decref(x.caveats);
			return MT_EINVALID;
		}
		json_array_append_new(criteria, c);
	}
	collect(lists, criteria, counts);
	verdict = verdict_of(counts, json_array_size(json_object_get(lists, "conditions")));
	json_object_set_new(lists, "verdict", json_string(verdict));
	general_caveats(&x, criteria, runs_met);
	verdict_caveat(lists, x.caveats, counts);
	snprintf(summary, sizeof(summary), "%zu of %zu criteria met, %zu not met, %zu unknown",
		 counts[0], n, counts[1], counts[2]);
	*out = json_pack("{ss, ss, ss, sO, s{sI, sI, sI}, so, sO, sO, sO, so}", "verdict", verdict,
			 "headline", headline(verdict), "summary", summary, "caveat",
			 json_array_size(x.caveats) ? json_array_get(x.caveats, 0) : json_null(),
			 "counts", "met", (json_int_t)counts[0], "not_met", (json_int_t)counts[1],
			 "unknown", (json_int_t)counts[2], "criteria", criteria, "failed",
			 json_object_get(lists, "failed"), "missing", json_object_get(lists, "missing"),
			 "conditions", json_object_get(lists, "conditions"), "caveats", x.caveats);
	json_decref(lists);
	return *out ? 0 : mt_error_set(MT_EIO, "out of memory");
}

int mt_decide_is_go(const json_t *decision)
{
	return mt_dc_streq(json_string_value(json_object_get(decision, "verdict")), MT_VERDICT_GO);
}
