/* The report model's sections over the correctness checks. */
#include "model_int.h"
#include "check_view.h"
#include "error.h"

#include <math.h>
#include <string.h>

/* The report lists this many checks, newest first. */
#define REPORT_CHECKS 20

/* A figure as the report has always written it: an infinity (a string in
 * the result's JSON) as nan. */
static double finite_or_nan(double d)
{
	return isfinite(d) ? d : NAN;
}

/* One line on a tensor comparison (compare, model): how many tensors
 * failed, the worst one, its tolerances and where they came from. */
static void tensors_summary(mt_buf *b, const mt_check_tensors *c)
{
	const mt_check_tensor *worst = c->ntensors ? &c->tensors[0] : NULL;

	if (c->has_recipe)
		mt_buf_printf(b, "recipe %s (%s); ", c->recipe.name, c->recipe.what);
	mt_buf_printf(b, "%zu of %zu tensors failed", c->failed, c->ntensors);
	if (c->only_in_reference.n || c->only_in_candidate.n)
		mt_buf_printf(b, ", %zu only in the reference, %zu only in the candidate",
			      c->only_in_reference.n, c->only_in_candidate.n);
	if (worst)
		mt_buf_printf(b, "; worst `%s`: %lld of %lld mismatched, greatest |diff| %.3g, "
			      "rtol %.3g atol %.3g (%s)",
			      worst->name, (long long)worst->mismatched, (long long)worst->numel,
			      finite_or_nan(worst->max_abs), finite_or_nan(worst->rtol), finite_or_nan(worst->atol),
			      worst->tolerance_source ?: "default");
}

/* One line on a loss-curve comparison. */
static void curves_summary(mt_buf *b, const mt_check_curves *c)
{
	double div = c->first_divergent_step;

	mt_buf_printf(b, "%lld steps compared, band rtol %.3g atol %.3g", (long long)c->points,
		      finite_or_nan(c->rtol), finite_or_nan(c->atol));
	if (c->window > 1)
		mt_buf_printf(b, ", smoothed over %lld", (long long)c->window);
	if (!isnan(div) && div == floor(div)) /* a step that is not whole is left out */
		mt_buf_printf(b, "; first outside the band at step %lld", (long long)div);
	mt_buf_printf(b, "; final values %.4g (reference) and %.4g: %s", c->final_reference,
		      c->final_candidate, c->final_agree ? "agree" : "differ");
}

/* One check in the report's list. */
static json_t *check_model(const mt_check_view *c)
{
	mt_buf b = MT_BUF_INIT;
	json_t *m;

	if (c->is_curves)
		curves_summary(&b, &c->c);
	else
		tensors_summary(&b, &c->t);
	m = json_pack("{sI, ss?, ss?, ss?, ss?, ss, ss, sb}", "id", (json_int_t)c->id, "created",
		      c->created, "kind", c->kind, "reference", c->reference, "candidate",
		      c->candidate, "verdict", c->passed ? "pass" : "FAIL", "summary",
		      mt_buf_cstr(&b), "rehearsal", c->rehearsal);
	mt_buf_dispose(&b);
	return m;
}

/* The checks as the report's Correctness section shows them: "evidence",
 * the checks decide counts, and "rehearsals" (stand-ins compared to test
 * the comparison) listed apart, never evidence. null without any check. */
static json_t *correctness(json_t *evidence, json_t *rehearsals)
{
	return json_pack("{so, so, so, so}", "evidence", evidence, "no_evidence",
			 json_array_size(evidence) ? json_null() : json_true(), "rehearsals", rehearsals,
			 "rehearsal_count",
			 json_array_size(rehearsals) ? json_integer((json_int_t)json_array_size(rehearsals))
						     : json_null());
}

/* The recorded correctness checks, newest first, each in one line with
 * whether it is a rehearsal; null without any. */
json_t *mt_model_checks_list(mt_journal *j, json_t **section, int *state)
{
	json_t *all = mt_journal_checks_json(j, NULL, REPORT_CHECKS), *out = json_array();
	json_t *evidence = json_array(), *rehearsals = json_array();
	mt_check_view *views = NULL;
	size_t n = 0;

	*section = json_null();
	*state = 0;
	if (!all || mt_check_view_read_list(&views, &n, all) < 0) {
		mt_error_clear();
		json_decref(all);
		json_decref(out);
		json_decref(evidence);
		json_decref(rehearsals);
		return json_null();
	}
	for (size_t i = 0; i < n; i++) {
		json_t *m = check_model(&views[i]);
		json_array_append_new(out, m);
		json_array_append(views[i].rehearsal ? rehearsals : evidence, m);
		if (*state < 2) /* 2: a check that is evidence; 1: rehearsals alone */
			*state = views[i].rehearsal ? 1 : 2;
	}
	mt_check_view_free_list(views, n);
	json_decref(all);
	if (!json_array_size(out)) {
		json_decref(out);
		json_decref(evidence);
		json_decref(rehearsals);
		return json_null();
	}
	*section = correctness(evidence, rehearsals);
	return out;
}
