/* The Scaling section's charts for the HTML report (inline SVG). */
#ifndef MT_REPORT_SCALING_CHARTS_H
#define MT_REPORT_SCALING_CHARTS_H

#include <jansson.h>

/* {scaling_time, scaling_hours}: time and device-hours against devices per
 * system, each with the ideal line from its smallest topology, read from
 * the model's "scaling" (the matched design's); with best-recipe runs
 * (scaling.best_recipe) also {scaling_best_time, scaling_best_hours}, apart. New
 * reference. */
json_t *mt_report_scaling_charts(json_t *model);

#endif
