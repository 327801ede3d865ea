/* The report as a document: the model (model.h) rendered through
 * templates/summary.md or summary.html, or printed as JSON. What `mtrial
 * report` writes and the wizard's Summary step saves. */
#ifndef MT_REPORT_RENDER_H
#define MT_REPORT_RENDER_H

#include <stdint.h>
#include "trial.h"

/* The report of trial `t` as of now_ms in `format`: "md", "html" (with the
 * charts of charts.h inline) or "json" (the model, indented, ending with a
 * newline). *out: caller frees. MT_EINVALID names an unknown format. */
int mt_report_render(char **out, mt_trial *t, const char *format, int64_t now_ms);

#endif
