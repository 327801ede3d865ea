#include "scaling_page.h"
#include "rows.h"
#include "error.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void sync(struct tui_scaling *s, mt_trial *t, json_t *attempts)
{
	json_t *of = json_pack("{s:O, s:o}", "attempts", attempts ? attempts : json_null(), "spec",
			       t->spec ? mt_spec_to_json(t->spec) : json_null());

	if (s->have && json_equal(s->of, of)) {
		json_decref(of);
		return;
	}
	tui_scaling_done(s);
	s->of = of;
	if (mt_scaling_trial(&s->r, t) < 0) {
		mt_error_clear();
		mt_scaling_trial_result_dispose(&s->r);
		return;
	}
	s->have = 1;
	if (!s->r.other_design[0] && !s->r.other_design[1])
		return;
	if (mt_scaling_trial_design(&s->best, t, "best") < 0) {
		mt_error_clear(); /* the page says how many were left out instead */
		mt_scaling_trial_result_dispose(&s->best);
		return;
	}
	s->have_best = 1;
}

static const char *duration_of(char *buf, size_t size, double seconds)
{
	if (!isfinite(seconds))
		return "-";
	mt_duration_fmt(buf, size, (int64_t)llround(seconds * 1000));
	return buf;
}

static const char *fig(char *buf, size_t size, const char *fmt, double v)
{
	if (!isfinite(v))
		return "-";
	snprintf(buf, size, fmt, v);
	return buf;
}

static void row_draw(struct tui_page *p, const mt_scaling_row *r)
{
	char med[24], dh[16], xd[16], eff[16], marg[48], data[16], comm[16];

	page_line(p);
	page_addf(p, STYLE_NORMAL, "  %6lld %4zu %3zu ", (long long)r->devices, r->runs, r->failures);
	page_addf(p, STYLE_NORMAL, "%9s %8s dev-h  ", duration_of(med, sizeof(med), r->median_s),
		  fig(dh, sizeof(dh), "%.3g", r->device_hours));
	page_addf(p, STYLE_NORMAL, "%8s/s/dev  eff %5s  ",
		  fig(xd, sizeof(xd), "%.4g", r->throughput_per_device),
		  fig(eff, sizeof(eff), "%.2f", r->efficiency));
	if (isfinite(r->marginal_per_device))
		snprintf(marg, sizeof(marg), "+%.3g/s per added (from %lld)", r->marginal_per_device,
			 (long long)r->marginal_from);
	else
		snprintf(marg, sizeof(marg), "-");
	page_add(p, STYLE_DIM, marg);
	page_line(p);
	if (isfinite(r->data_share) || isfinite(r->comm_share))
		page_addf(p, STYLE_DIM, "  %18swaiting for data %s, communicating %s", "",
			  fig(data, sizeof(data), "%.0f%%", 100 * r->data_share),
			  fig(comm, sizeof(comm), "%.0f%%", 100 * r->comm_share));
	else
		page_addf(p, STYLE_DIM, "  %18swaiting for data and communicating: not measured", "");
}

static void system_draw(struct tui_page *p, const mt_scaling_trial_result *r, int i,
			const char *name)
{
	size_t rows = 0;
	int mlperf = 0;

	page_line(p);
	page_line(p);
	page_add(p, STYLE_HEADING, name);
	if (*r->accelerator[i])
		page_addf(p, STYLE_DIM, " (%s)", r->accelerator[i]);
	for (size_t k = 0; k < r->scaling.n; k++) {
		const mt_scaling_row *row = &r->scaling.rows[k];
		if (strcmp(row->system, name) != 0)
			continue;
		if (!rows++) {
			page_line(p);
			page_add(p, STYLE_DIM, "  devices runs fail   median  device-hours  "
					       "throughput per device, efficiency");
		}
		row_draw(p, row);
		mlperf |= row->basis && strcmp(row->basis, "mlperf_minutes") == 0;
	}
	if (!rows)
		page_para(p, 2, STYLE_DIM, "No run with a device count.");
	if (rows > 1)
		page_para(p, 2, STYLE_DIM, "Every figure is per topology, never pooled.");
	if (mlperf)
		page_para(p, 2, STYLE_DIM, "Times are MLPerf's run minutes where no run reached "
					   "the trial's target.");
	if (*r->tradeoff[i])
		page_para(p, 2, STYLE_WARN, r->tradeoff[i] + strlen(name) + 2);
	if (r->scaling.unplaced[i]) {
		char text[200];
		snprintf(text, sizeof(text), "%zu run%s without a device count: in no topology%s.",
			 r->scaling.unplaced[i], r->scaling.unplaced[i] == 1 ? "" : "s",
			 r->ambiguous[i] ? " (trial.yaml lists several for this system)" : "");
		page_para(p, 2, STYLE_WARN, text);
	}
}

/* A design's rule above its tables, when the page shows two, and what it is. */
static void design_heading(struct tui_page *p, const char *title, const char *what)
{
	page_line(p);
	tui_rule(p, title);
	page_para(p, 2, STYLE_DIM, what);
}

void tui_scaling_draw(struct tui_scaling *s, struct tui_page *p, mt_trial *t, json_t *attempts)
{
	sync(s, t, attempts);
	page_line(p);
	page_add(p, STYLE_HEADING, "Scaling");
	page_add(p, STYLE_DIM, "  each system per device count (mtrial scaling); "
			       "efficiency (D0 T0)/(D T) against the smallest");
	if (!s->have) {
		page_para(p, 2, STYLE_ERROR, "The scaling figures could not be worked out.");
		return;
	}
	if (s->r.other_design[0] || s->r.other_design[1])
		design_heading(p, "Matched recipe (precision)",
			       "trial.yaml's precision, the same recipe on both systems.");
	system_draw(p, &s->r, 0, "baseline");
	system_draw(p, &s->r, 1, "candidate");
	if (s->have_best) {
		design_heading(p, "Best recipe (precision.best)",
			       "Each system's own best recipe: another experiment, never pooled "
			       "with the matched runs (`mtrial scaling --design best`).");
		system_draw(p, &s->best, 0, "baseline");
		system_draw(p, &s->best, 1, "candidate");
	} else if (s->r.other_design[0] || s->r.other_design[1]) {
		char text[200];
		snprintf(text, sizeof(text), "%zu best-recipe run%s left out: another experiment, "
			 "never pooled with these (`mtrial scaling --design best`).",
			 s->r.other_design[0] + s->r.other_design[1],
			 s->r.other_design[0] + s->r.other_design[1] == 1 ? "" : "s");
		page_para(p, 2, STYLE_WARN, text);
	}
}

void tui_scaling_done(struct tui_scaling *s)
{
	if (s->have)
		mt_scaling_trial_result_dispose(&s->r);
	if (s->have_best)
		mt_scaling_trial_result_dispose(&s->best);
	json_decref(s->of);
	s->have = s->have_best = 0;
	s->of = NULL;
}
