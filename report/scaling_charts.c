/* The Scaling section's charts: time and device-hours against devices per
 * system, each with the ideal (linear scaling) line from the system's
 * smallest topology, dashed in grey (a system's own colour, dashed, is its
 * rehearsals' in the quality chart). */
#include "scaling_charts.h"
#include "jsonutil.h"
#include "svg.h"

#include <math.h>
#include <string.h>

#define MAX_ROWS 64

/* A system's points: devices and, per row, the median time in hours and
 * the device-hours; *n rows with both. */
struct points {
	double x[MAX_ROWS], hours[MAX_ROWS], dev_hours[MAX_ROWS];
	double ideal_hours[MAX_ROWS], ideal_dev_hours[MAX_ROWS];
	size_t n;
};

static void read_points(struct points *p, const json_t *sys)
{
	const json_t *row;
	size_t i;

	p->n = 0;
	json_array_foreach(json_object_get(sys, "rows"), i, row) {
		double d = mt_json_num(row, "devices"), t = mt_json_num(row, "median_s");
		if (p->n == MAX_ROWS || !isfinite(d) || !isfinite(t) || d <= 0)
			continue;
		p->x[p->n] = d;
		p->hours[p->n] = t / 3600;
		p->dev_hours[p->n] = d * t / 3600;
		p->n++;
	}
	/* linear scaling from the smallest topology: D0 T0 / D, and D0 T0 */
	for (size_t k = 0; k < p->n; k++) {
		p->ideal_dev_hours[k] = p->dev_hours[0];
		p->ideal_hours[k] = p->dev_hours[0] / p->x[k];
	}
}

static const char *color_of(const char *system)
{
	return system && strcmp(system, "baseline") == 0 ? "#1f77b4" : "#ff7f0e";
}

/* One chart of `systems` (a design's), its title and empty text naming
 * the best recipe when `best`. */
static json_t *chart(const json_t *systems, struct points *pts, int device_hours, int best)
{
	mt_svg_series s[8];
	const json_t *sys;
	size_t i, k = 0;
	mt_buf b = MT_BUF_INIT;
	json_t *out;

	json_array_foreach(systems, i, sys) {
		const char *name = mt_json_str(sys, "system");
		if (i >= 2)
			break;
		read_points(&pts[i], sys);
		if (!pts[i].n)
			continue;
		s[k++] = (mt_svg_series){name, name, color_of(name), pts[i].x,
					 device_hours ? pts[i].dev_hours : pts[i].hours, pts[i].n, 0,
					 i ? MT_SVG_SQUARE : MT_SVG_CIRCLE};
		if (pts[i].n > 1)
			s[k++] = (mt_svg_series){name && strcmp(name, "baseline") == 0
							 ? "linear from the baseline's smallest"
							 : "linear from the candidate's smallest",
						 "ideal", i ? "#999" : "#555", pts[i].x,
						 device_hours ? pts[i].ideal_dev_hours
							      : pts[i].ideal_hours,
						 pts[i].n, 1, MT_SVG_DIAMOND};
	}
	mt_svg_line_chart(&b, &(mt_svg_lines){
				      .title = device_hours ? (best ? "Best recipe: device-hours against devices"
								     : "Device-hours against devices")
							    : (best ? "Best recipe: time against devices"
								    : "Time against devices"),
				      .x_label = "devices",
				      .y_label = device_hours ? "device-hours" : "hours (median)",
				      .series = s,
				      .n_series = k,
				      .target = NAN,
				      .empty = "No topology with a time: runs need a device count "
					       "and a time to the target or MLPerf's minutes",
			      });
	out = json_string(mt_buf_cstr(&b));
	mt_buf_dispose(&b);
	return out;
}

json_t *mt_report_scaling_charts(json_t *model)
{
	const json_t *systems = mt_json_path(model, "scaling.systems");
	const json_t *best = mt_json_path(model, "scaling.best_recipe.systems");
	struct points pts[2];
	json_t *out = json_pack("{s:o, s:o}", "scaling_time", chart(systems, pts, 0, 0),
				"scaling_hours", chart(systems, pts, 1, 0));

	/* the best recipe's runs: charts of their own, never a series beside
	 * the matched ones */
	if (out && best) {
		json_object_set_new(out, "scaling_best_time", chart(best, pts, 0, 1));
		json_object_set_new(out, "scaling_best_hours", chart(best, pts, 1, 1));
	}
	return out;
}
