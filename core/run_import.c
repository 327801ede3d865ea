#include "run_import.h"
#include "error.h"
#include "runview.h"
#include "topology.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2000-01-01 in ms: a first event before it is seconds since the series'
 * start, not a date. */
#define DATED_MS 946684800000LL

/* Records the figures as a run of origin "import". */
static int record(mt_run_import_result *out, mt_trial *t, const mt_run_attempt *at,
		  const char *path)
{
	mt_run_figures f;
	const char *st;
	int64_t first;
	char *abs = mt_path_abs(path), *text = json_dumps(out->metrics, JSON_COMPACT);
	mt_journal_run rec = {.system = at->system, .track = at->track, .label = at->label,
			      .cache = at->cache, .origin = "import", .rehearsal = at->rehearsal,
			      .design = at->design};
	int error;

	(void)mt_runview_figures(&f, out->metrics); /* mt_runs_metrics's own: complete */
	st = f.status, first = f.first_ms;
	rec.log = abs ? abs : path;
	rec.status = out->status = st && strcmp(st, "unknown") != 0 ? st : "success";
	/* a series in seconds since its start has no date: it is dated now */
	rec.started_ms = first > DATED_MS ? first : mt_now_ms();
	rec.ended_ms = first > DATED_MS && f.last_ms != MT_RUNLOG_NO_TIME ? f.last_ms : 0;
	rec.metrics = text;
	error = mt_journal_run_add(t->journal, &rec, &out->id);
	free(text);
	free(abs);
	return error;
}

/* What the import records of the topology: --devices and --hosts over the
 * system description's (kept whole: its name, submitter, nodes). */
static json_t *import_topology(const mt_run_attempt *at, const json_t *description)
{
	json_t *flags = mt_run_attempt_topology(at, NULL, NULL), *stored;
	mt_topology t, d;

	mt_topology_read(&t, flags);
	mt_topology_read(&d, description);
	mt_topology_fill(&t, &d);
	stored = mt_topology_stored(&t, description);
	json_decref(flags);
	return stored;
}

/* A system description where a run's log was expected. */
static int refuse_system(const char *path)
{
	return mt_error_set(MT_EINVALID, "%s is a system description, not a run's log: import it "
			    "with the logs of the runs it made", path);
}

int mt_run_import_sniff(enum mt_runs_log_format *out, const char *path, int logs_only)
{
	char head[4096];
	size_t len;
	FILE *f = fopen(path, "rb");

	if (!f)
		return mt_error_set(MT_ENOTFOUND, "%s: %s", path, strerror(errno));
	len = fread(head, 1, sizeof(head), f);
	fclose(f);
	*out = mt_runs_sniff(path, head, len);
	return logs_only && *out == MT_RUNS_SYSTEM ? refuse_system(path) : 0;
}

/* The figures of the log, with o's rules or rules read for it. */
static int read_metrics(json_t **out, const mt_run_import_options *o, const mt_spec *spec)
{
	mt_runlog_rules *own = NULL;
	int error;

	if (!o->rules && (error = mt_runlog_rules_load(&own)) < 0)
		return error;
	error = mt_runs_metrics_with(out, o->rules ? o->rules : own, o->path, o->format, spec, 0, -1);
	mt_runlog_rules_free(own);
	return error;
}

int mt_run_import(mt_run_import_result *out, mt_trial *t, const mt_run_import_options *o)
{
	mt_run_figures f;
	json_t *runs, *stored;
	int error;

	memset(out, 0, sizeof(*out));
	if (o->format == MT_RUNS_SYSTEM)
		return refuse_system(o->path);
	if ((error = mt_run_design_check(t->spec, o->at.design)) < 0)
		return error;
	if ((error = read_metrics(&out->metrics, o, t->spec)) < 0)
		return error;
	(void)mt_runview_figures(&f, out->metrics);
	if (!f.steps && !json_array_size(f.evaluations) && isnan(f.run_minutes)) {
		out->empty = 1;
		return mt_error_set(MT_EINVALID, "%s: no training events in it (MLPerf :::MLLOG lines, "
				    "mtrial: lines, or CSV/JSONL rows with a step); nothing imported",
				    o->path);
	}
	if ((stored = import_topology(&o->at, o->topology)))
		json_object_set_new(out->metrics, "topology", stored);
	/* the journal refuses a log that is a standing run's already, naming it:
	 * one attempt counts once (mt_journal_run_add) */
	if ((error = record(out, t, &o->at, o->path)) < 0)
		return error;
	runs = mt_journal_runs_json(t->journal, out->id);
	out->run = json_incref(json_array_get(runs, 0));
	mt_runs_flatten(out->run, t->spec);
	json_decref(runs);
	mt_error_clear(); /* the record reads back or not: what the import says does without */
	return 0;
}

void mt_run_import_result_dispose(mt_run_import_result *r)
{
	json_decref(r->metrics);
	json_decref(r->run);
	memset(r, 0, sizeof(*r));
}
