/* The Scaling section's charts for the HTML report (inline SVG). */
#ifndef MT_REPORT_SCALING_CHARTS_H
#define MT_REPORT_SCALING_CHARTS_H

#include <jansson.h>

/* {scaling_time, scaling_hours}: time and device-hours against devices per
 * system, each with the ideal line from its smallest topology, read from
 * the model's "scaling". New reference. */
json_t *mt_report_scaling_charts(json_t *model);

#endif
