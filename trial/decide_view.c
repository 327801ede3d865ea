/* Reading a decision (mt_decide_from's JSON) into decide.h's views: the only
 * place its keys are spelled outside decide.c, which writes them. */
#include "decide_view.h"
#include "error.h"
#include "jview.h"

#include <math.h>
#include <string.h>

static mt_criterion_state state_of(const char *status)
{
	if (status && strcmp(status, "met") == 0)
		return MT_CRITERION_MET;
	if (status && strcmp(status, "not_met") == 0)
		return MT_CRITERION_NOT_MET;
	return MT_CRITERION_UNKNOWN;
}

int mt_decide_view_read(mt_decision_view *d, const json_t *decision)
{
	mt_jview v, counts;

	memset(d, 0, sizeof(*d));
	mt_jview_init(&v, decision, "decision");
	d->verdict = mt_jview_str(&v, "verdict");
	d->headline = mt_jview_str(&v, "headline");
	d->summary = mt_jview_str(&v, "summary");
	d->caveat = mt_jview_str(&v, "caveat");
	mt_jview_sub(&counts, &v, "counts");
	d->met = mt_jview_int(&counts, "met", 0);
	d->not_met = mt_jview_int(&counts, "not_met", 0);
	d->unknown = mt_jview_int(&counts, "unknown", 0);
	mt_jview_close(&counts, &v);
	d->criteria = mt_jview_get(&v, "criteria");
	d->caveats = mt_jview_get(&v, "caveats");
	d->n_criteria = json_array_size(d->criteria);
	d->n_caveats = json_array_size(d->caveats);
	return mt_jview_complete(&v);
}

int mt_decide_view_criterion(mt_criterion_view *c, const mt_decision_view *d, size_t i)
{
	const json_t *obj = json_array_get(d->criteria, i);
	mt_jview v;

	memset(c, 0, sizeof(*c));
	c->threshold = c->value = NAN;
	if (!obj)
		return MT_ENOTFOUND;
	mt_jview_init(&v, obj, "decision criterion");
	c->name = mt_jview_str(&v, "name");
	c->kind = mt_jview_str(&v, "kind");
	c->description = mt_jview_str(&v, "description");
	c->status = mt_jview_str(&v, "status");
	c->state = state_of(c->status);
	c->evidence = mt_jview_str(&v, "evidence");
	c->source = mt_jview_str(&v, "source");
	c->track = mt_jview_str(&v, "track");
	c->design = mt_jview_opt_str(&v, "design");
	c->threshold = mt_jview_num(&v, "threshold");
	c->value = mt_jview_num(&v, "value");
	c->conditions = mt_jview_get(&v, "conditions");
	c->missing = mt_jview_get(&v, "missing");
	c->n_conditions = json_array_size(c->conditions);
	c->n_missing = json_array_size(c->missing);
	return mt_jview_complete(&v);
}

const char *mt_decide_view_caveat(const mt_decision_view *d, size_t i)
{
	return json_string_value(json_array_get(d->caveats, i));
}

const char *mt_decide_view_condition(const mt_criterion_view *c, size_t i)
{
	return json_string_value(json_array_get(c->conditions, i));
}

int mt_decide_view_missing(const mt_criterion_view *c, size_t i, const char **what,
			 const char **command)
{
	const json_t *m = json_array_get(c->missing, i);
	mt_jview v;

	if (!m)
		return MT_ENOTFOUND;
	mt_jview_init(&v, m, "decision missing");
	*what = mt_jview_str(&v, "what");
	*command = mt_jview_str(&v, "command");
	return mt_jview_complete(&v);
}
