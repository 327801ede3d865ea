#include "render.h"
#include "scaling_charts.h"
#include "charts.h"
#include "error.h"
#include "jsonw.h"
#include "model.h"
#include "sanitize.h"
#include "template.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int render_json(char **out, json_t *model)
{
	mt_buf b = MT_BUF_INIT;
	char *text = mt_json_dumps(model, JSON_INDENT(2)), *safe;

	if (!text)
		return mt_error_set(MT_EIO, "could not encode the report as JSON");
	/* the same document, with C1 and bidi controls \u-escaped as jansson
	 * escapes C0: the file can be shown in a terminal */
	safe = mt_term_safe_json(text, strlen(text));
	mt_buf_puts(&b, safe);
	mt_buf_puts(&b, "\n");
	free(safe);
	free(text);
	*out = mt_buf_detach(&b);
	return 0;
}

static int render_template(char **out, json_t *model, const char *name)
{
	char *tmpl = NULL;
	int error = mt_template_load(&tmpl, name);

	if (error == 0)
		error = mt_template_render(out, tmpl, model, name);
	free(tmpl);
	return error;
}

int mt_report_render(char **out, mt_trial *t, const char *format, int64_t now_ms)
{
	json_t *model;
	int error;

	*out = NULL;
	if (strcmp(format, "md") != 0 && strcmp(format, "html") != 0 && strcmp(format, "json") != 0)
		return mt_error_set(MT_EINVALID, "unknown report format '%s' (md, html or json)", format);
	if (!(model = mt_report_model(t, now_ms)))
		return mt_error_last_code();
	if (strcmp(format, "json") == 0) {
		error = render_json(out, model);
	} else if (strcmp(format, "md") == 0) {
		error = render_template(out, model, "summary.md");
	} else {
		json_t *charts = mt_report_charts(model);
		json_object_update_new(charts, mt_report_scaling_charts(model));
		json_object_set_new(model, "charts", charts);
		error = render_template(out, model, "summary.html");
	}
	json_decref(model);
	return error;
}
