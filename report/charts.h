/* The report's charts, drawn from the report model (model.h) as inline SVG
 * (svg.h): quality versus time for both systems with the target line (each
 * system its colour and the shape of its points; the rehearsals dashed,
 * "rehearsal" in their legend entries), ops by status, effort by category
 * per track with each limit over the row it applies to (the optimized
 * track's budget, the effort criterion over all tracks), and what the runs
 * cost per system. */
#ifndef MT_REPORT_CHARTS_H
#define MT_REPORT_CHARTS_H

#include <jansson.h>

/* The charts of `model` (borrowed) as {quality, ops, effort, cost,
 * breakeven}, and breakeven_best when the model has best-recipe runs
 * (compilation.best_recipe), each an SVG document as a string: a chart
 * without data says what is missing. New reference. */
json_t *mt_report_charts(json_t *model);

#endif
