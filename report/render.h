/* The report as a document: the model (model.h) rendered through
 * templates/summary.md or summary.html, or printed as JSON. What `mtrial
 * report` writes and the wizard's Summary step saves. */
#ifndef MT_REPORT_RENDER_H
#define MT_REPORT_RENDER_H

#include <stdint.h>
#include <stdio.h>
#include "trial.h"

/* The report of trial `t` as of now_ms in `format`: "md", "html" (with the
 * charts of charts.h inline) or "json" (the model, indented, ending with a
 * newline). *out: caller frees. MT_EINVALID names an unknown format. */
int mt_report_render(char **out, mt_trial *t, const char *format, int64_t now_ms);

/* The same, written as it is made: to `path` (through a temporary name,
 * renamed when complete) or, when path is NULL, to `out`. A page keeps the
 * newest notes and a part of each long list (the runs, their compilations,
 * the rehearsals, the withdrawn records, a blocker's call sites) and says
 * how many it leaves out; with a path, the lists in full go to a page
 * beside it, PATH.lists.EXT (its .html or .md replaced), which it links;
 * without one, it names the command listing them (mt_report_render does
 * the same). The JSON holds everything. */
int mt_report_write(mt_trial *t, const char *format, int64_t now_ms, const char *path, FILE *out);

#endif
