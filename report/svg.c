#include "svg.h"
#include "template.h"
#include "share.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#define W 640.0
#define FONT "font-family=\"sans-serif\" font-size=\"12\""
#define AXIS_COLOR "#555"
#define GRID_COLOR "#ddd"
#define MAX_TICKS 16

/* The line chart's plot area, in SVG units. */
#define LINE_LEFT 64.0
#define LINE_RIGHT (W - 24.0)
#define LINE_TOP 40.0
#define LINE_BOTTOM 264.0

/* Bars: rows of ROW_H with a bar of BAR_H. */
#define BAR_TOP 40.0
#define ROW_H 30.0
#define BAR_H 18.0
#define BAR_RIGHT (W - 90.0)
#define BAR_AXIS_H 44.0

size_t mt_svg_ticks(double lo, double hi, int want, double *ticks, size_t max, double *step)
{
	double raw, mag, s, first;
	size_t n = 0;

	if (!(hi > lo))
		hi = lo + 1;
	raw = (hi - lo) / (want > 0 ? want : 1);
	mag = pow(10, floor(log10(raw)));
	s = raw <= mag ? mag : raw <= 2 * mag ? 2 * mag : raw <= 5 * mag ? 5 * mag : 10 * mag;
	first = floor(lo / s + 1e-9) * s;
	for (double t = first; n < max; t = first + (double)n * s) {
		ticks[n++] = fabs(t) < s * 1e-9 ? 0 : t;
		if (t >= hi - s * 1e-9)
			break;
	}
	if (step)
		*step = s;
	return n;
}

/* A tick's label with as many decimals as the step needs. */
static void tick_label(mt_buf *b, double v, double step)
{
	int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	mt_buf_printf(b, "%.*f", decimals, v);
}

static void text(mt_buf *b, double x, double y, const char *anchor, const char *extra,
		 const char *s)
{
	mt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y, anchor,
		      extra ? " " : "", extra ? extra : "");
	mt_html_escape(b, s, strlen(s));
	mt_buf_puts(b, "</text>\n");
}

static void open_svg(mt_buf *b, double h, const char *title)
{
	mt_buf_printf(b,
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 %.0f %.0f\" "
		      "width=\"%.0f\" height=\"%.0f\" role=\"img\" " FONT ">\n<title>",
		      W, h, W, h);
	mt_html_escape(b, title, strlen(title));
	mt_buf_puts(b, "</title>\n");
	text(b, 8, 20, "start", "font-size=\"14\" font-weight=\"bold\"", title);
}

/* A chart without data: its title and what is missing, no axes. */
static void empty_chart(mt_buf *b, const char *title, const char *why)
{
	open_svg(b, 80, title);
	text(b, W / 2, 54, "middle", "class=\"no-data\" fill=\"#666\"", why ? why : "no data");
	mt_buf_puts(b, "</svg>\n");
}

#define LEGEND_MAX 24
#define LEGEND_LINE 18.0

/* A legend: entries laid out left to right, wrapping before the right edge. */
struct legend {
	const char *name[LEGEND_MAX], *color[LEGEND_MAX];
	int dashed[LEGEND_MAX];
	int marker[LEGEND_MAX]; /* -1: a swatch (a bar's), else a line with this marker */
	size_t n;
};

/* Adds an entry unless one of that name is there already. */
static void legend_add(struct legend *l, const char *name, const char *color, int dashed, int marker)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->name[i], name) == 0)
			return;
	if (l->n == LEGEND_MAX)
		return;
	l->name[l->n] = name;
	l->color[l->n] = color;
	l->marker[l->n] = marker;
	l->dashed[l->n++] = dashed;
}

/* Opens a point's shape centred on (x, y), filled with `color`, for a
 * <title> to follow; returns the tag to close it with. */
static const char *marker_open(mt_buf *b, mt_svg_marker m, double x, double y, const char *color)
{
	switch (m) {
	case MT_SVG_SQUARE:
		mt_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"%s\">",
			      x - 3, y - 3, color);
		return "rect";
	case MT_SVG_TRIANGLE:
		mt_buf_printf(b, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\">", x, y - 4,
			      x + 4, y + 3, x - 4, y + 3, color);
		return "path";
	case MT_SVG_DIAMOND:
		mt_buf_printf(b, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\">", x,
			      y - 4, x + 4, y, x, y + 4, x - 4, y, color);
		return "path";
	default:
		mt_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">", x, y, color);
		return "circle";
	}
}

/* A legend entry's sample: a swatch for a bar, a short line with its
 * marker in the middle for a line. */
static void legend_sample(mt_buf *b, const struct legend *l, size_t i, double x, double y)
{
	if (l->marker[i] < 0 && !l->dashed[i]) {
		mt_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"10\" fill=\"%s\"/>\n",
			      x, y - 9, l->color[i]);
		return;
	}
	mt_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		      "stroke-width=\"2\"%s/>\n", x, y - 4, x + 18, y - 4, l->color[i],
		      l->dashed[i] ? " stroke-dasharray=\"6 4\"" : "");
	if (l->marker[i] >= 0)
		mt_buf_printf(b, "</%s>\n", marker_open(b, (mt_svg_marker)l->marker[i], x + 9, y - 4,
							 l->color[i]));
}

static double legend_width(const char *name)
{
	return 24 + 7.0 * (double)strlen(name) + 18;
}

/* Draws the legend from (x0, y) and returns the number of lines it took
 * (with b NULL, only counts them). */
static int legend_draw(mt_buf *b, const struct legend *l, double x0, double y)
{
	double x = x0;
	int lines = l->n ? 1 : 0;

	for (size_t i = 0; i < l->n; i++) {
		if (x > x0 && x + legend_width(l->name[i]) > W - 8) {
			x = x0;
			y += LEGEND_LINE;
			lines++;
		}
		if (b) {
			legend_sample(b, l, i, x, y);
			text(b, x + 24, y, "start", NULL, l->name[i]);
		}
		x += legend_width(l->name[i]);
	}
	return lines;
}

struct range {
	double lo, hi;
};

static void widen(struct range *r, double v)
{
	if (!isfinite(v))
		return;
	r->lo = v < r->lo ? v : r->lo;
	r->hi = v > r->hi ? v : r->hi;
}

/* Value to SVG coordinate along an axis from a (at lo) to b (at hi). */
static double scale(double v, struct range r, double a, double b)
{
	return a + (v - r.lo) / (r.hi - r.lo) * (b - a);
}

static void line_axes(mt_buf *b, const mt_svg_lines *c, struct range *xr, struct range *yr)
{
	double xt[MAX_TICKS], yt[MAX_TICKS], xs, ys;
	size_t nx = mt_svg_ticks(xr->lo, xr->hi, 6, xt, MAX_TICKS, &xs);
	size_t ny = mt_svg_ticks(yr->lo, yr->hi, 5, yt, MAX_TICKS, &ys);

	*xr = (struct range){xt[0], xt[nx - 1]};
	*yr = (struct range){yt[0], yt[ny - 1]};
	for (size_t i = 0; i < ny; i++) {
		double y = scale(yt[i], *yr, LINE_BOTTOM, LINE_TOP);
		mt_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			      LINE_LEFT, y, LINE_RIGHT, y, GRID_COLOR);
		mt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"ytick\">",
			      LINE_LEFT - 6, y + 4);
		tick_label(b, yt[i], ys);
		mt_buf_puts(b, "</text>\n");
	}
	for (size_t i = 0; i < nx; i++) {
		double x = scale(xt[i], *xr, LINE_LEFT, LINE_RIGHT);
		mt_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			      x, LINE_BOTTOM, x, LINE_BOTTOM + 5, AXIS_COLOR);
		mt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"xtick\">", x,
			      LINE_BOTTOM + 18);
		tick_label(b, xt[i], xs);
		mt_buf_puts(b, "</text>\n");
	}
	mt_buf_printf(b, "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"%s\"/>\n", LINE_LEFT,
		      LINE_TOP, LINE_BOTTOM, LINE_RIGHT, AXIS_COLOR);
	text(b, (LINE_LEFT + LINE_RIGHT) / 2, LINE_BOTTOM + 36, "middle", NULL, c->x_label ? c->x_label : "");
	mt_buf_printf(b, "<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">",
		      (LINE_TOP + LINE_BOTTOM) / 2, (LINE_TOP + LINE_BOTTOM) / 2);
	mt_html_escape(b, c->y_label ? c->y_label : "", c->y_label ? strlen(c->y_label) : 0);
	mt_buf_puts(b, "</text>\n");
}

static void line_series(mt_buf *b, const mt_svg_series *s, struct range xr, struct range yr)
{
	mt_buf_printf(b, "<g class=\"series\" stroke=\"%s\" fill=\"%s\">\n<polyline fill=\"none\" "
		      "stroke-width=\"2\"%s points=\"", s->color, s->color,
		      s->dashed ? " stroke-dasharray=\"6 4\"" : "");
	for (size_t i = 0, k = 0; i < s->n; i++)
		if (isfinite(s->x[i]) && isfinite(s->y[i]))
			mt_buf_printf(b, "%s%.1f,%.1f", k++ ? " " : "",
				      scale(s->x[i], xr, LINE_LEFT, LINE_RIGHT),
				      scale(s->y[i], yr, LINE_BOTTOM, LINE_TOP));
	mt_buf_puts(b, "\"/>\n");
	for (size_t i = 0; i < s->n; i++) {
		char tip[160];
		if (!isfinite(s->x[i]) || !isfinite(s->y[i]))
			continue;
		snprintf(tip, sizeof(tip), "%s%s%.4g at %.4g", s->label ? s->label : "",
			 s->label ? ": " : "", s->y[i], s->x[i]);
		const char *tag = marker_open(b, s->marker, scale(s->x[i], xr, LINE_LEFT, LINE_RIGHT),
					      scale(s->y[i], yr, LINE_BOTTOM, LINE_TOP), s->color);
		mt_buf_puts(b, "<title>");
		mt_html_escape(b, tip, strlen(tip));
		mt_buf_printf(b, "</title></%s>\n", tag);
	}
	mt_buf_puts(b, "</g>\n");
}

static void line_legend(const mt_svg_lines *c, struct legend *l)
{
	for (size_t i = 0; i < c->n_series; i++)
		legend_add(l, c->series[i].name, c->series[i].color, c->series[i].dashed,
			   (int)c->series[i].marker);
	if (isfinite(c->target))
		legend_add(l, c->target_label ? c->target_label : "target", "#000", 1, -1);
}

static void finish(locale_t old, locale_t cl)
{
	uselocale(old);
	freelocale(cl);
}

void mt_svg_line_chart(mt_buf *b, const mt_svg_lines *c)
{
	locale_t cl = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old = uselocale(cl);
	struct range xr = {INFINITY, -INFINITY}, yr = {INFINITY, -INFINITY};
	struct legend legend = {.n = 0};

	for (size_t i = 0; i < c->n_series; i++)
		for (size_t k = 0; k < c->series[i].n; k++)
			if (isfinite(c->series[i].x[k]) && isfinite(c->series[i].y[k])) {
				widen(&xr, c->series[i].x[k]);
				widen(&yr, c->series[i].y[k]);
			}
	if (xr.lo > xr.hi) {
		empty_chart(b, c->title, c->empty);
		finish(old, cl);
		return;
	}
	widen(&xr, 0); /* time axes start at 0 */
	widen(&yr, c->target);
	line_legend(c, &legend);
	open_svg(b, LINE_BOTTOM + 48 + LEGEND_LINE * legend_draw(NULL, &legend, LINE_LEFT, 0), c->title);
	line_axes(b, c, &xr, &yr);
	if (isfinite(c->target)) {
		double y = scale(c->target, yr, LINE_BOTTOM, LINE_TOP);
		mt_buf_printf(b, "<line class=\"target\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			      "stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
			      LINE_LEFT, y, LINE_RIGHT, y);
	}
	for (size_t i = 0; i < c->n_series; i++)
		line_series(b, &c->series[i], xr, yr);
	legend_draw(b, &legend, LINE_LEFT, LINE_BOTTOM + 60);
	mt_buf_puts(b, "</svg>\n");
	finish(old, cl);
}

static double value_at(const mt_svg_bars *c, size_t row, size_t seg)
{
	double v = c->values[row * c->n_segments + seg];
	return isfinite(v) && v > 0 ? v : 0;
}

static double bar_left(const mt_svg_bars *c)
{
	size_t longest = 0;
	for (size_t i = 0; i < c->n_rows; i++)
		longest = strlen(c->rows[i]) > longest ? strlen(c->rows[i]) : longest;
	return 16 + 7.0 * (double)(longest > 24 ? 24 : longest);
}

static void bar_axis(mt_buf *b, const mt_svg_bars *c, struct range *vr, double left, double bottom)
{
	double t[MAX_TICKS], step;
	size_t n = mt_svg_ticks(0, vr->hi, 5, t, MAX_TICKS, &step);

	vr->hi = t[n - 1];
	for (size_t i = 0; i < n; i++) {
		double x = scale(t[i], *vr, left, BAR_RIGHT);
		mt_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x,
			      BAR_TOP - 6, x, bottom + 5, i ? GRID_COLOR : AXIS_COLOR);
		mt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"xtick\">", x,
			      bottom + 18);
		tick_label(b, t[i], step);
		mt_buf_puts(b, "</text>\n");
	}
	text(b, (left + BAR_RIGHT) / 2, bottom + 36, "middle", NULL, c->value_label ? c->value_label : "");
}

#define MAX_SEGMENTS 16

/* Whole pixels for each segment of a row, with mt_share_cells as the
 * wizard's bars: the bar's length its share of the axis, then each segment
 * its share of the bar; a value above 0 is never drawn thinner than a
 * pixel, nor thinner than its share through rounding. */
static void bar_pixels(const mt_svg_bars *c, size_t row, struct range vr, double left, int *px)
{
	double v[MAX_SEGMENTS], total = 0, of_axis[2];
	int length[2];
	size_t n = c->n_segments < MAX_SEGMENTS ? c->n_segments : MAX_SEGMENTS;

	for (size_t s = 0; s < n; s++)
		total += v[s] = value_at(c, row, s);
	of_axis[0] = total;
	of_axis[1] = vr.hi - total;
	mt_share_cells(of_axis, 2, (int)(BAR_RIGHT - left), 0, length);
	mt_share_cells(v, n, length[0], -1, px);
}

static void bar_row(mt_buf *b, const mt_svg_bars *c, size_t row, struct range vr, double left)
{
	double y = BAR_TOP + (double)row * ROW_H + (ROW_H - BAR_H) / 2, x = left, total = 0;
	int px[MAX_SEGMENTS];
	char tip[200];

	text(b, left - 8, y + BAR_H / 2 + 4, "end", NULL, c->rows[row]);
	bar_pixels(c, row, vr, left, px);
	for (size_t s = 0; s < c->n_segments && s < MAX_SEGMENTS; s++) {
		double v = value_at(c, row, s);
		if (v <= 0)
			continue;
		snprintf(tip, sizeof(tip), "%s%s%s: %.4g%s%s", c->rows[row], c->n_segments > 1 ? ", " : "",
			 c->n_segments > 1 ? c->segments[s] : "", v, c->unit ? " " : "", c->unit ? c->unit : "");
		mt_buf_printf(b, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
			      "fill=\"%s\"><title>", x, y, px[s], BAR_H,
			      c->colors[c->n_segments > 1 ? s : row]);
		mt_html_escape(b, tip, strlen(tip));
		mt_buf_puts(b, "</title></rect>\n");
		x += px[s];
		total += v;
	}
	snprintf(tip, sizeof(tip), "%.4g%s%s", total, c->unit ? " " : "", c->unit ? c->unit : "");
	text(b, x + 6, y + BAR_H / 2 + 4, "start", "class=\"total\"", tip);
}

static double limit_at(const mt_svg_bars *c, size_t row)
{
	return c->limits && isfinite(c->limits[row]) && c->limits[row] > 0 ? c->limits[row] : NAN;
}

/* Row `row`'s limit: a dashed line across its bar's height only, its label
 * above the bar at the line; the label's end is held inside the chart. */
static void bar_limit(mt_buf *b, const mt_svg_bars *c, size_t row, struct range vr, double left)
{
	double y = BAR_TOP + (double)row * ROW_H, x = scale(limit_at(c, row), vr, left, BAR_RIGHT);
	const char *label = c->limit_labels && c->limit_labels[row] ? c->limit_labels[row] : "";

	mt_buf_printf(b, "<line class=\"marker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		      "stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n",
		      x, y + 3, x, y + ROW_H - 3);
	text(b, x - 3, y + (ROW_H - BAR_H) / 2 - 1, "end", "class=\"limit\" font-size=\"10\"", label);
}

void mt_svg_bar_chart(mt_buf *b, const mt_svg_bars *c)
{
	locale_t cl = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old = uselocale(cl);
	struct range vr = {0, 0};
	struct legend legend = {.n = 0};
	double left = bar_left(c), bottom = BAR_TOP + (double)c->n_rows * ROW_H, h;

	for (size_t r = 0; r < c->n_rows; r++) {
		double total = 0;
		for (size_t s = 0; s < c->n_segments; s++)
			total += value_at(c, r, s);
		widen(&vr, total);
	}
	if (vr.hi <= 0) {
		empty_chart(b, c->title, c->empty);
		finish(old, cl);
		return;
	}
	for (size_t r = 0; r < c->n_rows; r++)
		widen(&vr, limit_at(c, r));
	for (size_t s = 0; c->n_segments > 1 && s < c->n_segments; s++)
		legend_add(&legend, c->segments[s], c->colors[s], 0, -1);
	h = bottom + BAR_AXIS_H + LEGEND_LINE * legend_draw(NULL, &legend, 16, 0) + 8;
	open_svg(b, h, c->title);
	bar_axis(b, c, &vr, left, bottom);
	for (size_t r = 0; r < c->n_rows; r++)
		bar_row(b, c, r, vr, left);
	for (size_t r = 0; r < c->n_rows; r++)
		if (isfinite(limit_at(c, r)))
			bar_limit(b, c, r, vr, left);
	legend_draw(b, &legend, 16, bottom + BAR_AXIS_H + 12);
	mt_buf_puts(b, "</svg>\n");
	finish(old, cl);
}
