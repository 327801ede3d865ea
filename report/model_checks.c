/* The report model's sections over the correctness checks. */
#include "model_int.h"
#include "error.h"
#include "jsonutil.h"

#include <string.h>

/* The report lists this many checks, newest first. */
#define REPORT_CHECKS 20

/* One line on a tensor comparison (compare, model): how many tensors
 * failed, the worst one, its tolerances and where they came from. */
static void tensors_summary(mt_buf *b, json_t *c)
{
	json_t *tensors = json_object_get(c, "tensors"), *t, *worst = json_array_get(tensors, 0);
	size_t i, failed = 0;

	json_array_foreach(tensors, i, t)
		failed += !json_is_true(json_object_get(t, "passed"));
	if (json_object_get(c, "recipe"))
		mt_buf_printf(b, "recipe %s (%s); ",
			      json_string_value(json_object_get(json_object_get(c, "recipe"), "name")),
			      json_string_value(json_object_get(json_object_get(c, "recipe"), "what")));
	mt_buf_printf(b, "%zu of %zu tensors failed", failed, json_array_size(tensors));
	if (json_array_size(json_object_get(c, "only_in_reference")) ||
	    json_array_size(json_object_get(c, "only_in_candidate")))
		mt_buf_printf(b, ", %zu only in the reference, %zu only in the candidate",
			      json_array_size(json_object_get(c, "only_in_reference")),
			      json_array_size(json_object_get(c, "only_in_candidate")));
	if (worst)
		mt_buf_printf(b, "; worst `%s`: %lld of %lld mismatched, greatest |diff| %.3g, "
			      "rtol %.3g atol %.3g (%s)",
			      json_string_value(json_object_get(worst, "name")),
			      (long long)json_integer_value(json_object_get(worst, "mismatched")),
			      (long long)json_integer_value(json_object_get(worst, "numel")),
			      num(json_object_get(worst, "max_abs")), num(json_object_get(worst, "rtol")),
			      num(json_object_get(worst, "atol")),
			      json_string_value(json_object_get(worst, "tolerance_source")) ?: "default");
}

/* One line on a loss-curve comparison. */
static void curves_summary(mt_buf *b, json_t *c)
{
	json_t *final = json_object_get(c, "final"), *div = json_object_get(c, "first_divergent_step");
	mt_buf_printf(b, "%lld steps compared, band rtol %.3g atol %.3g",
		      (long long)json_integer_value(json_object_get(c, "points")),
		      num(json_object_get(c, "rtol")), num(json_object_get(c, "atol")));
	if (json_integer_value(json_object_get(c, "window")) > 1)
		mt_buf_printf(b, ", smoothed over %lld",
			      (long long)json_integer_value(json_object_get(c, "window")));
	if (json_is_integer(div))
		mt_buf_printf(b, "; first outside the band at step %lld", (long long)json_integer_value(div));
	else if (json_is_object(div))
		mt_buf_printf(b, "; first outside the band at step %lld",
			      (long long)json_integer_value(json_object_get(div, "step")));
	if (final)
		mt_buf_printf(b, "; final values %.4g (reference) and %.4g: %s",
			      num(json_object_get(final, "reference")),
			      num(json_object_get(final, "candidate")),
			      json_is_true(json_object_get(final, "agree")) ? "agree" : "differ");
}

/* The recorded correctness checks, newest first, each in one line with
 * whether it is a rehearsal. null without any. */
json_t *mt_model_checks_list(mt_journal *j)
{
	json_t *all = mt_journal_checks_json(j, NULL, REPORT_CHECKS), *out = json_array(), *c;
	size_t i;

	if (!all) {
		mt_error_clear();
		json_decref(out);
		return json_null();
	}
	json_array_foreach(all, i, c) {
		const char *kind = json_string_value(json_object_get(c, "kind"));
		mt_buf b = MT_BUF_INIT;
		if (kind && strcmp(kind, "curves") == 0)
			curves_summary(&b, c);
		else
			tensors_summary(&b, c);
		json_array_append_new(
			out, json_pack("{sO, sO, sO, sO, sO, ss, ss, sb}", "id", json_object_get(c, "id"),
				       "created", json_object_get(c, "created"), "kind",
				       json_object_get(c, "kind"), "reference",
				       json_object_get(c, "reference"), "candidate",
				       json_object_get(c, "candidate"), "verdict",
				       json_is_true(json_object_get(c, "passed")) ? "pass" : "FAIL",
				       "summary", mt_buf_cstr(&b), "rehearsal",
				       json_is_true(json_object_get(c, "rehearsal"))));
		mt_buf_dispose(&b);
	}
	json_decref(all);
	if (!json_array_size(out)) {
		json_decref(out);
		return json_null();
	}
	return out;
}

/* The checks as the report's Correctness section shows them: "evidence",
 * the checks decide counts, and "rehearsals" (stand-ins compared to test
 * the comparison) listed apart, never evidence. null without any check. */
json_t *mt_model_checks_correctness(json_t *checks)
{
	json_t *evidence, *rehearsals, *c;
	size_t i;

	if (json_is_null(checks))
		return json_null();
	evidence = json_array();
	rehearsals = json_array();
	json_array_foreach(checks, i, c)
		json_array_append(json_is_true(json_object_get(c, "rehearsal")) ? rehearsals : evidence, c);
	return json_pack("{so, so, so, so}", "evidence", evidence, "no_evidence",
			 json_array_size(evidence) ? json_null() : json_true(), "rehearsals", rehearsals,
			 "rehearsal_count",
			 json_array_size(rehearsals) ? json_integer((json_int_t)json_array_size(rehearsals))
						     : json_null());
}
