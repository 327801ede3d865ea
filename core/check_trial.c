#include "check_trial.h"
#include "error.h"
#include "jview.h"
#include "tensorfile.h"
#include "util.h"

#include <math.h>
#include <string.h>

void mt_check_trial_result_dispose(mt_check_trial_result *r)
{
	mt_check_view_dispose(&r->view);
	json_decref(r->result);
	memset(r, 0, sizeof(*r));
}

/* The result read into out's view: what the callers print and draw. */
static int read_view(mt_check_trial_result *out, const char *kind)
{
	mt_jview jv;
	int error;

	mt_jview_init(&jv, out->result, "check result");
	if ((error = mt_check_view_read(&out->view, &jv, kind)) < 0)
		return error;
	out->passed = out->view.passed;
	return 0;
}

int mt_check_trial_record(mt_check_trial_result *out, mt_trial *t, const char *kind,
			  int rehearsal)
{
	mt_journal_check rec = {kind, NULL, NULL, 0, rehearsal, out->result};
	int error, recorded = 0;

	out->check_id = 0;
	json_object_set_new(out->result, "rehearsal", json_boolean(rehearsal));
	/* read also when not recorded: the caller shows what ran */
	if ((error = read_view(out, kind)) < 0 || !t)
		return error;
	rec.reference = out->view.reference;
	rec.candidate = out->view.candidate;
	rec.passed = out->view.passed;
	if ((error = mt_journal_check_add(t->journal, &rec, &out->check_id)) < 0)
		out->check_id = 0;
	else
		recorded = 1;
	if (recorded) /* a new member: the view's strings stay where they are */
		json_object_set_new(out->result, "check_id", json_integer(out->check_id));
	return error;
}

int mt_check_trial_rules(mt_cmp_rules *rules, mt_check_trial_compare_options *o,
			 const mt_trial *t)
{
	int error = 0;

	if (!isnan(o->rtol) || !isnan(o->atol))
		error = mt_cmp_rules_add(rules, NULL, o->rtol, o->atol,
					 o->typed_source ? o->typed_source : "typed");
	if (error == 0 && t && t->spec)
		error = mt_cmp_rules_add_spec(rules, t->spec,
					      o->equal_nan_given ? NULL : &o->cmp.equal_nan);
	if (error == 0)
		mt_cmp_rules_apply(rules, &o->cmp);
	return error;
}

/* Opens what the comparison reads: both sides and the noise run. */
static int open_sets(mt_tensor_set *sets[3], const char *ref, const char *cand,
		     const char *noise)
{
	int error;

	if ((error = mt_tensor_set_open(&sets[0], ref)) < 0 ||
	    (error = mt_tensor_set_open(&sets[1], cand)) < 0)
		return error;
	return noise ? mt_tensor_set_open(&sets[2], noise) : 0;
}

int mt_check_trial_compare(mt_check_trial_result *out, mt_trial *t, const char *ref,
			   const char *cand, mt_cmp_rules *globs,
			   mt_check_trial_compare_options *o)
{
	mt_cmp_rules local = {0}, *rules = globs ? globs : &local;
	mt_tensor_set *sets[3] = {NULL, NULL, NULL};
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = mt_check_trial_rules(rules, o, t)) < 0 ||
	    (error = open_sets(sets, ref, cand, o->noise)) < 0 ||
	    (error = mt_cmp_run(&out->result, sets[0], sets[1], sets[2], ref, cand, o->noise,
				&o->cmp)) < 0)
		goto cleanup;
	error = mt_check_trial_record(out, t, "compare", o->rehearsal);
cleanup:
	for (int i = 0; i < 3; i++)
		mt_tensor_set_free(sets[i]);
	mt_cmp_rules_dispose(&local);
	return error;
}

void mt_check_trial_curves_defaults(mt_check_trial_curves_options *o)
{
	memset(o, 0, sizeof(*o));
	o->cmp.rtol = MT_CURVE_DEFAULT_RTOL;
	o->cmp.window = 1;
}

int mt_check_trial_curves(mt_check_trial_curves_result *out, mt_trial *t, const char *ref,
			  const char *cand, mt_check_trial_curves_options *o)
{
	mt_journal *j = t ? t->journal : NULL;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = mt_curve_open(&out->ref, ref, j, &o->read)) < 0 ||
	    (error = mt_curve_open(&out->cand, cand, j, &o->read)) < 0)
		return error;
	/* loss-like unless told, or the value's name says it is an accuracy */
	o->cmp.higher_is_better = o->direction ? o->direction > 0
					       : strcasestr(out->ref->value_name, "acc") != NULL;
	if ((error = mt_curve_compare(&out->cmp, out->ref, out->cand, &o->cmp)) < 0)
		return error;
	if (!(out->check.result = mt_curve_check_json(&out->cmp, &o->cmp, out->ref, out->cand)))
		return mt_error_set(MT_EIO, "out of memory");
	return mt_check_trial_record(&out->check, t, "curves", o->rehearsal);
}

void mt_check_trial_curves_dispose(mt_check_trial_curves_result *r)
{
	mt_check_trial_result_dispose(&r->check);
	mt_curve_cmp_dispose(&r->cmp);
	mt_curve_free(r->ref);
	mt_curve_free(r->cand);
	memset(r, 0, sizeof(*r));
}
