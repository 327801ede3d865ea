/* The Runs step's compilation and shapes page (B): the report's section
 * (report/compilation.h): each run's compilations and their share, the
 * bucket advice, and the break-even drawn as total time against run
 * length. */
#include "compilation_page.h"
#include "actions.h"
#include "chartdraw.h"
#include "compilation.h"
#include "error.h"
#include "model_path.h"
#include "rows.h"
#include "runview.h"
#include "util.h"

#include <stdlib.h>

/* The report's section for the runs as they are now (mt_report_compilation
 * reads the runs' logs again: worked out when the page opens and when the
 * attempts change, not at every reload, which rebuilds the same runs). */
static void sync(struct tui_compilation *c, mt_trial *t, json_t *attempts)
{
	size_t i, n = 0;
	mt_run_view *evidence;
	json_t *r, *comp;

	if (c->model && json_equal(c->of, attempts))
		return;
	if (!(evidence = calloc(json_array_size(attempts) + 1, sizeof(*evidence))))
		abort();
	json_array_foreach(attempts, i, r) {
		(void)mt_runview_read(&evidence[n], r);
		n += !evidence[n].rehearsal; /* a rehearsal is never evidence */
	}
	mt_error_clear(); /* an older record's absent keys read as unknown */
	json_decref(c->model);
	comp = mt_report_compilation(t, evidence, n);
	c->model = comp ? json_pack("{so}", "compilation", comp) : NULL;
	json_decref(c->of);
	c->of = json_deep_copy(attempts);
	free(evidence);
}

static void plan_row(struct tui_page *p, const char *name, json_t *model, const char *plan)
{
	int64_t n = jv_int_key(model, "compilation.buckets.*.compiles", plan, 0);
	char s[16];

	page_line(p);
	page_addf(p, STYLE_NORMAL, "  %-12s %3lld compile%s %7s %5.1f%% padding  ", name,
		  (long long)n, n == 1 ? " " : "s",
		  tui_secs(s, sizeof(s), jv_num_key(model, "compilation.buckets.*.predicted_s", plan)),
		  jv_num_key(model, "compilation.buckets.*.padding_pct", plan));
	page_add(p, STYLE_DIM, jv_string_key(model, "compilation.buckets.*.buckets", plan) ?: "");
}

/* Each run's compilations, then the bucket advice. */
static void compiles_draw(struct tui_page *p, json_t *model)
{
	size_t n = json_array_size(jv_get(model, "compilation.runs"));
	char s[16], t[16];

	for (size_t i = 0; i < n; i++) {
		int64_t count = jv_int_at(model, "compilation.runs.*.count", i, 0);
		page_line(p);
		page_addf(p, STYLE_NORMAL, "  #%-4lld %-9s %3lld compile%s, %s each, %s in all, %.0f%%",
			  (long long)jv_int_at(model, "compilation.runs.*.id", i, 0),
			  jv_string_at(model, "compilation.runs.*.system", i) ?: "", (long long)count,
			  count == 1 ? "" : "s",
			  tui_secs(s, sizeof(s), jv_num_at(model, "compilation.runs.*.each_s", i)),
			  tui_secs(t, sizeof(t), jv_num_at(model, "compilation.runs.*.total_s", i)),
			  jv_num_at(model, "compilation.runs.*.share_pct", i));
	}
	if (!n)
		page_para(p, 2, STYLE_DIM, "No run's log gives step times or compile-cache lines.");
	if (json_is_object(jv_get(model, "compilation.buckets"))) {
		page_line(p);
		page_addf(p, STYLE_HEADING, "Buckets");
		page_addf(p, STYLE_DIM, " from run #%lld, %s a compilation",
			  (long long)jv_int(model, "compilation.buckets.run", 0),
			  tui_secs(s, sizeof(s), jv_num(model, "compilation.buckets.compile_s")));
		plan_row(p, "best", model, "best");
		plan_row(p, "pad to max", model, "pad_to_max");
		plan_row(p, "per length", model, "per_length");
	} else {
		mt_buf b = MT_BUF_INIT;
		mt_buf_printf(&b, "No bucket advice: %s",
			      jv_string(model, "compilation.buckets_missing") ?: "");
		page_para(p, 2, STYLE_DIM, mt_buf_cstr(&b));
		mt_buf_dispose(&b);
	}
}

/* Pair i's verdict, on the line being drawn. */
static void breakeven_verdict(struct tui_page *p, json_t *model, size_t i)
{
	const char *after = jv_string_at(model, "compilation.breakeven.*.winner_after", i);

	if (json_is_integer(jv_get_at(model, "compilation.breakeven.*.steps", i)))
		page_addf(p, STYLE_NORMAL, ": %lld steps (the %s faster before, %s after)",
			  (long long)jv_int_at(model, "compilation.breakeven.*.steps", i, 0),
			  jv_string_at(model, "compilation.breakeven.*.winner_before", i), after);
	else
		page_addf(p, STYLE_NORMAL, ": none, the %s is faster at every length", after);
}

/* The chart of pair i, in the height left. */
static void breakeven_chart(struct tui_page *p, json_t *model, size_t i, int height)
{
	struct chart_breakeven be = {
		.base_start_s = jv_num_at(model, "compilation.breakeven.*.baseline.start_s", i),
		.base_step_s = jv_num_at(model, "compilation.breakeven.*.baseline.step_s", i),
		.cand_start_s = jv_num_at(model, "compilation.breakeven.*.candidate.start_s", i),
		.cand_step_s = jv_num_at(model, "compilation.breakeven.*.candidate.step_s", i),
		.steps = jv_num_at(model, "compilation.breakeven.*.steps", i),
	};

	chart_breakeven(p, &be, jv_num(model, "compilation.run_length_steps"),
			height - p->nlines > 8 ? height - p->nlines : 8);
}

/* One break-even per pair of topologies, never pooled: with one pair its
 * verdict on the heading line and its topology below; with more, a line
 * each; the chart is the first pair's. */
static void breakeven_draw(struct tui_page *p, json_t *model, int height)
{
	size_t n = json_array_size(jv_get(model, "compilation.breakeven"));

	page_line(p);
	page_add(p, STYLE_HEADING, "Break-even");
	if (!n) {
		mt_buf b = MT_BUF_INIT;
		mt_buf_printf(&b, "None: %s",
			      jv_string(model, "compilation.breakeven_missing") ?: "");
		page_para(p, 2, STYLE_DIM, mt_buf_cstr(&b));
		mt_buf_dispose(&b);
		return;
	}
	if (n == 1) {
		breakeven_verdict(p, model, 0);
		page_line(p);
		page_addf(p, STYLE_DIM, "  %s",
			  jv_string_at(model, "compilation.breakeven.*.topology", 0) ?: "");
	} else {
		page_addf(p, STYLE_DIM, " per pair of topologies, never pooled (chart: the first)");
	}
	for (size_t i = 0; n > 1 && i < n; i++) {
		page_line(p);
		page_addf(p, STYLE_NORMAL, "  %s",
			  jv_string_at(model, "compilation.breakeven.*.topology", i) ?: "");
		breakeven_verdict(p, model, i);
	}
	breakeven_chart(p, model, 0, height);
}

void tui_compilation_draw(struct tui_compilation *c, struct tui_page *p, mt_trial *t,
			  json_t *attempts, int height)
{
	char keys[32];

	sync(c, t, attempts);
	page_line(p);
	page_add(p, STYLE_HEADING, "Compilation and shapes");
	tui_action_keys(TUI_ACT_COMPILATION, keys, sizeof(keys));
	page_addf(p, STYLE_DIM, "  %s the list", keys);
	compiles_draw(p, c->model);
	breakeven_draw(p, c->model, height);
}

void tui_compilation_done(struct tui_compilation *c)
{
	json_decref(c->model);
	json_decref(c->of);
	c->model = c->of = NULL;
}
