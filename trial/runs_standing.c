/* The trial's standing runs read once for a whole report (see runs.h):
 * every section of the report, the decision, the break-even and the
 * scaling read the same runs, and parsing each run's metrics again for
 * each of them was a third of a report on a large trial. */
#include "runs.h"
#include "error.h"

json_t *mt_runs_standing(mt_trial *t)
{
	json_t *runs, *r;
	size_t i;

	if (t->runs_held)
		return json_incref(t->runs_held);
	if (!(runs = mt_journal_runs_json(t->journal, 0)))
		return NULL;
	json_array_foreach(runs, i, r)
		mt_runs_flatten(r, t->spec);
	if (t->runs_holds > 0)
		t->runs_held = json_incref(runs);
	return runs;
}

void mt_runs_hold(mt_trial *t)
{
	t->runs_holds++;
}

void mt_runs_release(mt_trial *t)
{
	if (t->runs_holds > 0 && --t->runs_holds == 0) {
		json_decref(t->runs_held);
		t->runs_held = NULL;
	}
}
