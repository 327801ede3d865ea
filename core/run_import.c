#include "run_import.h"
#include "error.h"
#include "runview.h"
#include "topology.h"
#include "util.h"

#include <math.h>
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

int mt_run_import(mt_run_import_result *out, mt_trial *t, const mt_runlog_rules *rules,
		  const mt_run_attempt *at, const char *path, enum mt_runs_log_format format,
		  json_t *topology)
{
	mt_run_figures f;
	json_t *runs, *stored;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = mt_run_design_check(t->spec, at->design)) < 0)
		return error;
	if ((error = mt_runs_metrics_with(&out->metrics, rules, path, format, t->spec, 0, -1)) < 0)
		return error;
	(void)mt_runview_figures(&f, out->metrics);
	if (!f.steps && !json_array_size(f.evaluations) && isnan(f.run_minutes)) {
		out->empty = 1;
		return mt_error_set(MT_EINVALID, "%s: no training events in it (MLPerf :::MLLOG lines, "
				    "mtrial: lines, or CSV/JSONL rows with a step); nothing imported", path);
	}
	if ((stored = import_topology(at, topology)))
		json_object_set_new(out->metrics, "topology", stored);
	/* the journal refuses a log that is a standing run's already, naming it:
	 * one attempt counts once (mt_journal_run_add) */
	if ((error = record(out, t, at, path)) < 0)
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
