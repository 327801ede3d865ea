/* The report's SVG charts: round ticks, well-formed markup, values placed
 * where the axes say they are, escaped labels, charts without data that
 * say so, and the report's four charts drawn from a model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts.h"
#include "svg.h"

/* Tag balance and entity use of an XML fragment: 1 when well-formed. */
static int well_formed(const char *s)
{
	const char *stack[64];
	size_t lens[64], depth = 0;

	for (const char *p = s; *p; p++) {
		if (*p == '&') {
			if (strncmp(p, "&amp;", 5) && strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) &&
			    strncmp(p, "&quot;", 6) && strncmp(p, "&#", 2))
				return 0;
		} else if (*p == '<') {
			const char *end = strchr(p, '>'), *next = strchr(p + 1, '<');
			const char *name = p + 1 + (p[1] == '/');
			size_t n = strcspn(name, " \t\n/>");
			int quotes = 0;
			if (!end)
				return 0;
			for (const char *q = p; q < end; q++)
				quotes += *q == '"';
			if (quotes % 2 || (next && next < end))
				return 0;
			if (p[1] == '/') {
				if (!depth || lens[depth - 1] != n || strncmp(stack[depth - 1], name, n))
					return 0;
				depth--;
			} else if (end[-1] != '/') {
				if (depth == 64)
					return 0;
				stack[depth] = name;
				lens[depth++] = n;
			}
			p = end;
		} else if (*p == '>') {
			return 0;
		}
	}
	return depth == 0;
}

/* The number in attribute `attr` of the tag that ends just before the
 * first occurrence of `after` (e.g. the x of the tick whose text is "4"). */
static double attr_of_tag_before(const char *svg, const char *after, const char *attr)
{
	const char *hit = strstr(svg, after), *tag;
	char key[32];
	assert_non_null(hit);
	for (tag = hit - 1; tag > svg && *tag != '<'; tag--)
		;
	snprintf(key, sizeof(key), " %s=\"", attr);
	hit = strstr(tag, key);
	assert_non_null(hit);
	return strtod(hit + strlen(key), NULL);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void test_ticks_are_round(void **state)
{
	double t[16], step;
	size_t n;
	(void)state;

	n = mt_svg_ticks(0, 10, 5, t, 16, &step);
	assert_int_equal(n, 6);
	assert_true(step == 2 && t[0] == 0 && t[5] == 10);
	n = mt_svg_ticks(1.7, 3.2, 5, t, 16, &step);
	assert_true(step == 0.5);
	assert_true(t[0] == 1.5 && fabs(t[n - 1] - 3.5) < 1e-12);
	n = mt_svg_ticks(0, 0.037, 4, t, 16, &step);
	assert_true(fabs(step - 0.01) < 1e-15 && t[0] == 0 && fabs(t[n - 1] - 0.04) < 1e-12);
	n = mt_svg_ticks(5, 5, 5, t, 16, &step); /* an empty range still gets an axis */
	assert_true(n >= 2 && t[0] <= 5 && t[n - 1] >= 5);
}

static void test_line_chart_places_points_on_its_axes(void **state)
{
	static const double x[] = {0, 4, 10}, y[] = {3, 2, 1}, x2[] = {2, NAN}, y2[] = {2.5, 1};
	mt_svg_series series[] = {
		{.name = "baseline", .label = "run #1", .color = "#1f77b4", .x = x, .y = y, .n = 3},
		{.name = "baseline", .label = "run #2", .color = "#1f77b4", .x = x2, .y = y2, .n = 2},
		{.name = "cand <b>", .label = NULL, .color = "#ff7f0e", .x = x2, .y = y2, .n = 1},
	};
	mt_svg_lines c = {.title = "Q & time", .x_label = "minutes", .y_label = "loss",
			  .series = series, .n_series = 3, .target = 2, .target_label = "target 2"};
	mt_buf b = MT_BUF_INIT;
	const char *svg;
	char pt[64];
	(void)state;

	mt_svg_line_chart(&b, &c);
	svg = mt_buf_cstr(&b);
	assert_true(well_formed(svg));
	assert_non_null(strstr(svg, "<title>Q &amp; time</title>"));
	assert_non_null(strstr(svg, ">cand &lt;b&gt;</text>"));
	/* one legend entry per name: two baseline runs share one */
	assert_int_equal(count(svg, ">baseline</text>"), 1);
	/* the point (4, 2) sits on the x tick "4" and on the target line, which
	 * sits on the y tick "2.0" */
	double x4 = attr_of_tag_before(svg, "class=\"xtick\">4<", "x");
	double y2t = attr_of_tag_before(svg, "class=\"ytick\">2.0<", "y") - 4; /* baseline offset */
	double target = attr_of_tag_before(svg, "class=\"target\"", "y1");
	assert_true(fabs(target - y2t) < 0.11);
	snprintf(pt, sizeof(pt), "%.1f,%.1f", x4, target);
	assert_non_null(strstr(svg, pt));
	assert_non_null(strstr(svg, "<title>run #1: 2 at 4</title>"));
	/* a point that is not finite is left out, not drawn at NaN */
	assert_null(strstr(svg, "nan"));
	assert_int_equal(count(svg, "</title></circle>"), 5);
	mt_buf_dispose(&b);
}

static void test_chart_without_data_says_so(void **state)
{
	mt_svg_lines c = {.title = "Quality", .target = NAN, .empty = "no run yet"};
	static const char *const rows[] = {"a"}, *const seg[] = {"s"}, *const colors[] = {"#000"};
	static const double zero[] = {0};
	mt_svg_bars bars = {.title = "Bars", .rows = rows, .n_rows = 1, .segments = seg, .colors = colors,
			    .n_segments = 1, .values = zero, .empty = "nothing <timed>"};
	mt_buf b = MT_BUF_INIT;
	(void)state;

	mt_svg_line_chart(&b, &c);
	assert_true(well_formed(mt_buf_cstr(&b)));
	assert_non_null(strstr(mt_buf_cstr(&b), ">no run yet</text>"));
	assert_null(strstr(mt_buf_cstr(&b), "<line"));
	assert_null(strstr(mt_buf_cstr(&b), "<polyline"));
	mt_buf_dispose(&b);
	mt_svg_bar_chart(&b, &bars);
	assert_true(well_formed(mt_buf_cstr(&b)));
	assert_non_null(strstr(mt_buf_cstr(&b), ">nothing &lt;timed&gt;</text>"));
	assert_null(strstr(mt_buf_cstr(&b), "<rect"));
	mt_buf_dispose(&b);
}

static void test_stacked_bars_follow_the_value_axis(void **state)
{
	static const char *const rows[] = {"portability", "optimized"};
	static const char *const seg[] = {"setup", "debugging"}, *const colors[] = {"#111", "#222"};
	static const double v[] = {2, 6, 3, NAN}, limits[] = {NAN, 4};
	static const char *const labels[] = {NULL, "budget 4 h"};
	mt_svg_bars c = {.title = "Effort", .value_label = "hours", .rows = rows, .n_rows = 2,
			 .segments = seg, .colors = colors, .n_segments = 2, .values = v, .unit = "h",
			 .limits = limits, .limit_labels = labels};
	mt_buf b = MT_BUF_INIT;
	const char *svg;
	(void)state;

	mt_svg_bar_chart(&b, &c);
	svg = mt_buf_cstr(&b);
	assert_true(well_formed(svg));
	double x0 = attr_of_tag_before(svg, "class=\"xtick\">0<", "x");
	double x2 = attr_of_tag_before(svg, "class=\"xtick\">2<", "x");
	double x4 = attr_of_tag_before(svg, "class=\"xtick\">4<", "x");
	double x8 = attr_of_tag_before(svg, "class=\"xtick\">8<", "x");
	/* portability: setup 2 h from 0 to the "2" tick, then debugging 6 h to "8" */
	assert_true(fabs(attr_of_tag_before(svg, "<title>portability, setup: 2 h", "x") - x0) < 0.11);
	assert_true(fabs(attr_of_tag_before(svg, "<title>portability, setup: 2 h", "width") - (x2 - x0)) < 0.2);
	assert_true(fabs(attr_of_tag_before(svg, "<title>portability, debugging: 6 h", "x") - x2) < 0.2);
	assert_true(fabs(attr_of_tag_before(svg, "<title>portability, debugging: 6 h", "width") - (x8 - x2)) < 0.2);
	assert_non_null(strstr(svg, "class=\"total\">8 h</text>"));
	/* a value that is not a number counts as nothing: optimized totals 3 */
	assert_null(strstr(svg, "optimized, debugging"));
	assert_non_null(strstr(svg, ">3 h</text>"));
	/* the budget line at the "4" tick, across the optimized row only (the
	 * second: below the first bar's bottom), named beside it */
	assert_true(fabs(attr_of_tag_before(svg, "class=\"marker\"", "x1") - x4) < 0.11);
	assert_int_equal(count(svg, "class=\"marker\""), 1);
	assert_true(attr_of_tag_before(svg, "class=\"marker\"", "y1") >
		    attr_of_tag_before(svg, "<title>portability, setup", "y") + 18);
	assert_non_null(strstr(svg, ">budget 4 h</text>"));
	assert_non_null(strstr(svg, ">debugging</text>"));
	mt_buf_dispose(&b);
}

/* Ops by status: 1 op of 1000 on device still shows (a pixel at least), and
 * the 999 unknown get no less than their share of the axis. */
static void test_small_bars_show_and_large_keep_their_share(void **state)
{
	static const char *const rows[] = {"on device", "unknown"}, *const seg[] = {"ops"};
	static const char *const colors[] = {"#0a0", "#999"};
	static const double v[] = {1, 999};
	mt_svg_bars c = {.title = "Ops", .value_label = "ops", .rows = rows, .n_rows = 2, .segments = seg,
			 .colors = colors, .n_segments = 1, .values = v};
	mt_buf b = MT_BUF_INIT;
	const char *svg;
	(void)state;

	mt_svg_bar_chart(&b, &c);
	svg = mt_buf_cstr(&b);
	double x0 = attr_of_tag_before(svg, "class=\"xtick\">0<", "x");
	double x1000 = attr_of_tag_before(svg, "class=\"xtick\">1000<", "x");
	double one = attr_of_tag_before(svg, "<title>on device: 1<", "width");
	double many = attr_of_tag_before(svg, "<title>unknown: 999<", "width");
	assert_true(one >= 1);
	assert_true(many >= floor((x1000 - x0) * 999 / 1000));
	assert_true(many <= x1000 - x0);
	mt_buf_dispose(&b);
}

/* Every text from the record is escaped, the unit after a total too. */
static void test_bar_labels_are_escaped(void **state)
{
	static const char *const rows[] = {"a&b"}, *const seg[] = {"s"}, *const colors[] = {"#000"};
	static const double v[] = {1};
	mt_svg_bars c = {.title = "<t>", .value_label = "<v>", .rows = rows, .n_rows = 1, .segments = seg,
			 .colors = colors, .n_segments = 1, .values = v, .unit = "<u>"};
	mt_buf b = MT_BUF_INIT;
	(void)state;

	mt_svg_bar_chart(&b, &c);
	assert_true(well_formed(mt_buf_cstr(&b)));
	assert_non_null(strstr(mt_buf_cstr(&b), ">1 &lt;u&gt;</text>"));
	assert_non_null(strstr(mt_buf_cstr(&b), ">a&amp;b</text>"));
	assert_non_null(strstr(mt_buf_cstr(&b), "<title>a&amp;b: 1 &lt;u&gt;</title>"));
	assert_null(strstr(mt_buf_cstr(&b), "<u>"));
	assert_null(strstr(mt_buf_cstr(&b), "<v>"));
	mt_buf_dispose(&b);
}

static void test_report_charts_from_a_model(void **state)
{
	json_t *model = json_pack(
		"{s{s{ss, sf, ss}}, s{s[{sI, ss, ss, ss, s{sI, s[{ss, sf, sI, sI}, {ss, sf, sI, sI}], "
		"s{sb, sf, sI}}}]}, s{s{si, si, si, si, si}, s{ss}}}",
		"spec", "quality_target", "metric", "eval_loss", "threshold", 2.0, "direction", "lower",
		"runs", "attempts", "id", (json_int_t)1, "system", "candidate", "track", "portability",
		"origin", "import", "metrics", "first_ms", (json_int_t)1000, "evaluations", "metric",
		"eval_loss", "value", 2.5, "t_ms", (json_int_t)61000, "step", (json_int_t)10, "metric",
		"eval_loss", "value", 1.9, "t_ms", (json_int_t)121000, "step", (json_int_t)20, "target",
		"reached", 1, "from_submission_s", 120.0, "at_step", (json_int_t)20, "probe", "summary",
		"device", 3, "partial", 0, "cpu_fallback", 1, "unsupported", 0, "unknown", 2, "table", "name",
		"t1");
	json_t *charts;
	const char *q;
	(void)state;

	assert_non_null(model);
	charts = mt_report_charts(model);
	q = json_string_value(json_object_get(charts, "quality"));
	assert_true(well_formed(q));
	/* x from submission in seconds: the target was met 120 s after it */
	assert_non_null(strstr(q, "seconds from submission"));
	assert_non_null(strstr(q, "<title>run #1: 1.9 at 120</title>"));
	assert_non_null(strstr(q, ">candidate (portability)</text>"));
	assert_true(well_formed(json_string_value(json_object_get(charts, "ops"))));
	assert_non_null(strstr(json_string_value(json_object_get(charts, "ops")), "<title>CPU fallback: 1</title>"));
	/* nothing timed, nothing priced: those charts say what is missing */
	assert_non_null(strstr(json_string_value(json_object_get(charts, "effort")), "no effort recorded yet"));
	assert_non_null(strstr(json_string_value(json_object_get(charts, "cost")), "no priced run yet"));
	json_decref(charts);
	json_decref(model);
}

/* The stroke of the legend's line sample just before `name` in it. */
static void legend_stroke(const char *svg, const char *name, char *out, size_t size)
{
	const char *hit = strstr(svg, name), *line;
	assert_non_null(hit);
	for (line = hit; line > svg && strncmp(line, "<line ", 6); line--)
		;
	line = strstr(line, "stroke=\"");
	assert_non_null(line);
	snprintf(out, size, "%.*s", (int)strcspn(line + 8, "\""), line + 8);
}

/* Rehearsals of both systems: each in its system's colour and shape,
 * dashed, one legend entry each that tells them apart; the optimized
 * track's budget over that track only, the effort criterion over all. */
static void test_rehearsals_and_limits_read_apart(void **state)
{
	static const char *json =
		"{\"spec\": {\"quality_target\": {\"metric\": \"loss\", \"threshold\": 2},"
		" \"tracks\": {\"optimized\": {\"budget_hours\": 40}},"
		" \"criteria\": [{\"name\": \"porting-effort\", \"kind\": \"effort\", \"threshold\": 30}]},"
		" \"runs\": {\"attempts\": [], \"rehearsals\": ["
		"  {\"id\": 1, \"system\": \"baseline\", \"origin\": \"import\", \"metrics\": {\"first_ms\": 0,"
		"   \"evaluations\": [{\"metric\": \"loss\", \"value\": 3, \"t_ms\": 1000, \"step\": 1}]}},"
		"  {\"id\": 2, \"system\": \"candidate\", \"track\": \"portability\", \"origin\": \"import\","
		"   \"metrics\": {\"first_ms\": 0,"
		"   \"evaluations\": [{\"metric\": \"loss\", \"value\": 2.5, \"t_ms\": 2000, \"step\": 1}]}}]},"
		" \"effort\": {\"tracks\": ["
		"  {\"track\": \"portability\", \"categories\": [{\"category\": \"setup\", \"ms\": 36000000}]},"
		"  {\"track\": \"optimized\", \"categories\": [{\"category\": \"debugging\", \"ms\": 7200000}]}]}}";
	json_t *model = json_loads(json, 0, NULL), *charts;
	const char *q, *e;
	char base[16], cand[16];
	(void)state;

	assert_non_null(model);
	charts = mt_report_charts(model);
	q = json_string_value(json_object_get(charts, "quality"));
	assert_true(well_formed(q));
	legend_stroke(q, ">rehearsal: baseline</text>", base, sizeof(base));
	legend_stroke(q, ">rehearsal: candidate (portability)</text>", cand, sizeof(cand));
	assert_string_not_equal(base, cand);
	/* points: the baseline's circles, the candidate's squares, both dashed */
	assert_non_null(strstr(q, "(rehearsal): 3 at 1</title></circle>"));
	assert_non_null(strstr(q, "(rehearsal): 2.5 at 2</title></rect>"));
	assert_int_equal(count(q, "stroke-dasharray"), 2 + 2 + 2); /* lines, legend, target */
	e = json_string_value(json_object_get(charts, "effort"));
	assert_true(well_formed(e));
	assert_int_equal(count(e, "class=\"marker\""), 2);
	assert_non_null(strstr(e, ">optimized track&#39;s budget 40 h</text>"));
	assert_non_null(strstr(e, ">porting-effort: 30 h for all tracks</text>"));
	json_decref(charts);
	json_decref(model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ticks_are_round),
		cmocka_unit_test(test_line_chart_places_points_on_its_axes),
		cmocka_unit_test(test_chart_without_data_says_so),
		cmocka_unit_test(test_stacked_bars_follow_the_value_axis),
		cmocka_unit_test(test_small_bars_show_and_large_keep_their_share),
		cmocka_unit_test(test_bar_labels_are_escaped),
		cmocka_unit_test(test_report_charts_from_a_model),
		cmocka_unit_test(test_rehearsals_and_limits_read_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
