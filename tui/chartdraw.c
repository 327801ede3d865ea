/* The error histogram and the overlaid loss curves. */
#include "chartdraw.h"
#include "check_view.h"
#include "error.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A figure of the result as text: "-" for none (the JSON's null). */
static const char *num_text(char *buf, size_t size, double d, int digits)
{
	return isnan(d) ? "-" : mt_check_num(buf, size, d, digits);
}

/* --- the error histogram ---------------------------------------------------- */

#define NBUCKETS 11
#define LABEL_W 11 /* "1e-8..1e-7" and a space */
#define COUNT_W 5

static const char *const bucket_labels[NBUCKETS] = {
	"0",          "<1e-8",      "1e-8..1e-7", "1e-7..1e-6", "1e-6..1e-5", "1e-5..1e-4",
	"1e-4..1e-3", "1e-3..1e-2", "1e-2..1e-1", "1e-1..1",    ">=1",
};

/* The decade of a difference: 0 exactly, below 1e-8, the decades up to 1,
 * then 1 and more (with inf and NaN, which no atol passes). */
static int bucket_of(double v)
{
	static const double edges[NBUCKETS - 2] = {1e-8, 1e-7, 1e-6, 1e-5, 1e-4,
						   1e-3, 1e-2, 1e-1, 1};

	if (v <= 0)
		return 0;
	for (int b = 0; b < NBUCKETS - 2; b++)
		if (v < edges[b] * (1 - 1e-9)) /* 1e-7 a hair below is 1e-7 (float32's atol) */
			return b + 1;
	return NBUCKETS - 1; /* with NaN */
}

struct histogram {
	int count[NBUCKETS];
	double atol[NBUCKETS]; /* the first atol in each decade, NAN for none */
	int max, not_compared;
	int lo, hi; /* the decades with a tensor or an atol */
	int tol_hi; /* the highest decade of an atol, -1 with none */
};

static void histogram_count(struct histogram *h, const mt_check_tensor *tensors, size_t n)
{
	memset(h, 0, sizeof(*h));
	for (int b = 0; b < NBUCKETS; b++)
		h->atol[b] = NAN;
	h->lo = NBUCKETS - 1;
	h->tol_hi = -1;
	for (size_t i = 0; i < n; i++) {
		const mt_check_tensor *t = &tensors[i];
		double atol = t->atol;
		int b;
		if (t->reason) { /* not compared: no figures */
			h->not_compared++;
			continue;
		}
		b = bucket_of(t->min_atol);
		h->max = ++h->count[b] > h->max ? h->count[b] : h->max;
		h->lo = b < h->lo ? b : h->lo;
		h->hi = b > h->hi ? b : h->hi;
		if (!isfinite(atol)) /* none: JSON's numbers are finite */
			continue;
		b = bucket_of(atol);
		h->atol[b] = isnan(h->atol[b]) ? atol : h->atol[b];
		h->lo = b < h->lo ? b : h->lo;
		h->hi = b > h->hi ? b : h->hi;
		h->tol_hi = b > h->tol_hi ? b : h->tol_hi;
	}
}

int chart_histogram_rows(void)
{
	return 1 + NBUCKETS;
}

/* "1e-5..1e-4  ███ 3  ◂ atol 1e-05": tensors past the highest atol's
 * decade in the error style, since rtol alone must pass them. */
static void histogram_line(struct tui_page *p, const struct histogram *h, int b, int bar_w)
{
	mt_buf bar = MT_BUF_INIT;
	int len = h->max ? (h->count[b] * bar_w + h->max - 1) / h->max : 0;
	char num[32];

	page_line(p);
	page_add_at(p, 2, STYLE_DIM, bucket_labels[b]);
	page_add_at(p, 2 + LABEL_W, STYLE_NORMAL, "");
	for (int i = 0; i < len; i++)
		mt_buf_puts(&bar, draw_glyph(GLYPH_BAR_FULL));
	if (len)
		page_add(p, b > h->tol_hi && h->tol_hi >= 0 ? STYLE_ERROR : STYLE_OK,
			 mt_buf_cstr(&bar));
	page_addf(p, h->count[b] ? STYLE_NORMAL : STYLE_DIM, "%s%d", len ? " " : "", h->count[b]);
	if (!isnan(h->atol[b]))
		page_addf(p, STYLE_WARN, "  %s atol %s", draw_glyph(GLYPH_POINT_LEFT),
			  mt_check_num(num, sizeof(num), h->atol[b], 0));
	mt_buf_dispose(&bar);
}

void chart_histogram(struct tui_page *p, const mt_check_tensor *tensors, size_t n, int rows)
{
	struct histogram h;
	int lo = 0, hi = NBUCKETS - 1;
	int bar_w = p->width - 2 - LABEL_W - COUNT_W - 16; /* 16: the atol mark */

	if (rows < 2)
		return;
	histogram_count(&h, tensors, n);
	if (rows < 1 + NBUCKETS && h.hi >= h.lo) {
		lo = h.lo;
		hi = h.hi - h.lo + 2 > rows ? h.lo + rows - 2 : h.hi;
	}
	page_line(p);
	page_add(p, STYLE_HEADING, "Error histogram");
	page_add(p, STYLE_DIM, ": tensors by greatest |cand - ref|");
	if (h.not_compared)
		page_addf(p, STYLE_WARN, " (%d not compared)", h.not_compared);
	for (int b = lo; b <= hi; b++)
		histogram_line(p, &h, b, bar_w < 4 ? 4 : bar_w);
}

/* --- two curves overlaid ---------------------------------------------------- */

#define AXIS_W 8 /* "  4.761 " before the axis */

enum cell { CELL_EMPTY, CELL_REF, CELL_CAND, CELL_BOTH, CELL_MARK, CELL_TARGET };

static const struct {
	const char *ch;
	enum draw_style style;
} cell_looks[] = {
	[CELL_EMPTY] = {" ", STYLE_NORMAL}, [CELL_REF] = {"*", STYLE_PLOT_REF},
	[CELL_CAND] = {"o", STYLE_PLOT_CAND}, [CELL_BOTH] = {"#", STYLE_PLOT_BOTH},
	[CELL_MARK] = {NULL, STYLE_ERROR}, /* a vertical line */
	[CELL_TARGET] = {"-", STYLE_WARN},
};

struct plot {
	const double *steps, *ref, *cand; /* borrowed from the result's series */
	size_t n;
	int w, h;
	double s0, s1, lo, hi;
	int mark; /* the column of the first step outside the band, -1 none */
	unsigned char *cells; /* h rows of w */
};

static int plot_col(const struct plot *pl, double step)
{
	return pl->s1 > pl->s0 ? (int)lround((step - pl->s0) / (pl->s1 - pl->s0) * (pl->w - 1)) : 0;
}

static int plot_row(const struct plot *pl, double v)
{
	return (int)lround((pl->hi - v) / (pl->hi - pl->lo) * (pl->h - 1));
}

/* The range of the finite values of both series, widened when flat. */
static void plot_range(struct plot *pl)
{
	pl->lo = INFINITY;
	pl->hi = -INFINITY;
	for (size_t i = 0; i < pl->n; i++) {
		double v[2] = {pl->ref[i], pl->cand[i]};
		for (int k = 0; k < 2; k++) {
			if (!isfinite(v[k]))
				continue;
			pl->lo = v[k] < pl->lo ? v[k] : pl->lo;
			pl->hi = v[k] > pl->hi ? v[k] : pl->hi;
		}
	}
	if (!isfinite(pl->lo))
		pl->lo = 0, pl->hi = 1;
	if (pl->hi - pl->lo < 1e-12 * (fabs(pl->hi) + 1)) {
		pl->lo -= 0.5;
		pl->hi += 0.5;
	}
}

static void plot_fill(struct plot *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		int col = plot_col(pl, pl->steps[i]);
		double v[2] = {pl->ref[i], pl->cand[i]};
		for (int k = 0; k < 2; k++)
			if (isfinite(v[k]) && col >= 0 && col < pl->w)
				pl->cells[plot_row(pl, v[k]) * pl->w + col] |= (unsigned char)(1 << k);
	}
}

/* A row of the plot: its value on the axis for the top, middle and bottom
 * rows, then runs of cells of one look as one segment each. */
static void plot_line(struct tui_page *p, const struct plot *pl, int r)
{
	mt_buf run = MT_BUF_INIT;
	char label[32] = "";
	int prev = -1;

	if (r == 0 || r == pl->h - 1 || r == pl->h / 2)
		snprintf(label, sizeof(label), "%*.4g ", AXIS_W - 1,
			 pl->hi - (pl->hi - pl->lo) * r / (pl->h - 1));
	page_line(p);
	page_add(p, STYLE_DIM, label);
	page_add_at(p, AXIS_W, STYLE_DIM, draw_glyph(GLYPH_VLINE));
	for (int c = 0; c <= pl->w; c++) {
		int look = c == pl->w ? -1 : pl->cells[r * pl->w + c];
		if (look == CELL_EMPTY && c == pl->mark)
			look = CELL_MARK;
		if (look != prev && prev >= 0) {
			page_add(p, cell_looks[prev].style, mt_buf_cstr(&run));
			mt_buf_dispose(&run);
		}
		if (look >= 0)
			mt_buf_puts(&run, cell_looks[look].ch ? cell_looks[look].ch
							      : draw_glyph(GLYPH_VLINE));
		prev = look;
	}
	mt_buf_dispose(&run);
}

/* The plot's x axis: a corner and a line under its w columns. */
static void axis_rule(struct tui_page *p, int w)
{
	mt_buf axis = MT_BUF_INIT;

	mt_buf_puts(&axis, draw_glyph(GLYPH_CORNER_BL));
	for (int c = 0; c < w; c++)
		mt_buf_puts(&axis, draw_glyph(GLYPH_HLINE));
	page_line(p);
	page_add_at(p, AXIS_W, STYLE_DIM, mt_buf_cstr(&axis));
	mt_buf_dispose(&axis);
}

/* The axis, the first and last steps under it and the divergence named at
 * its column. */
static void plot_axis(struct tui_page *p, const struct plot *pl, double div)
{
	char num[32], last[32];

	axis_rule(p, pl->w);
	page_line(p);
	page_addf(p, STYLE_DIM, "%*s", AXIS_W + 1, "step ");
	page_add(p, STYLE_DIM, num_text(num, sizeof(num), pl->steps[0], 6));
	if (pl->mark >= 0) {
		int at = AXIS_W + 1 + pl->mark;
		char mark[48];
		snprintf(mark, sizeof(mark), "^ %s", num_text(num, sizeof(num), div, 6));
		page_add_at(p, at > p->cur_col ? at : p->cur_col + 1, STYLE_ERROR, mark);
	}
	snprintf(last, sizeof(last), "%s", num_text(num, sizeof(num), pl->steps[pl->n - 1], 6));
	if (p->cur_col + 2 + (int)strlen(last) <= AXIS_W + 1 + pl->w)
		page_add_at(p, AXIS_W + 1 + pl->w - (int)strlen(last), STYLE_DIM, last);
}

static void plot_legend(struct tui_page *p, const struct plot *pl)
{
	size_t nan_ref = 0, nan_cand = 0;

	for (size_t i = 0; i < pl->n; i++) {
		nan_ref += !isfinite(pl->ref[i]);
		nan_cand += !isfinite(pl->cand[i]);
	}
	page_line(p);
	page_add_at(p, 2, STYLE_PLOT_REF, "*");
	page_add(p, STYLE_NORMAL, " reference  ");
	page_add(p, STYLE_PLOT_CAND, "o");
	page_add(p, STYLE_NORMAL, " candidate  ");
	page_add(p, STYLE_PLOT_BOTH, "#");
	page_add(p, STYLE_NORMAL, " both");
	if (pl->mark >= 0) {
		page_add(p, STYLE_ERROR, "  ");
		page_add(p, STYLE_ERROR, draw_glyph(GLYPH_VLINE));
		page_add(p, STYLE_NORMAL, " first outside");
	}
	if (nan_ref + nan_cand && p->cur_col + 24 <= p->width)
		page_addf(p, STYLE_WARN, "  %zu NaN or inf not drawn", nan_ref + nan_cand);
}

void chart_curves(struct tui_page *p, const mt_check_curves *c, int rows)
{
	double div = c->first_divergent_step;
	struct plot pl = {.steps = c->series_steps,
			  .ref = c->series_reference,
			  .cand = c->series_candidate};

	pl.n = c->nseries;
	pl.w = p->width - AXIS_W - 2;
	pl.h = rows - 3; /* the axis, the steps under it, the legend */
	if (!pl.n || pl.h < 3 || pl.w < 10) {
		page_line(p);
		page_add_at(p, 2, STYLE_DIM, pl.n ? "(no room for the plot)" : "(no points)");
		return;
	}
	pl.s0 = pl.steps[0];
	pl.s1 = pl.steps[pl.n - 1];
	pl.mark = isfinite(div) ? plot_col(&pl, div) : -1;
	pl.cells = calloc((size_t)pl.w * (size_t)pl.h, 1);
	if (!pl.cells)
		abort();
	plot_range(&pl);
	plot_fill(&pl);
	for (int r = 0; r < pl.h; r++)
		plot_line(p, &pl, r);
	plot_axis(p, &pl, div);
	plot_legend(p, &pl);
	free(pl.cells);
}

/* --- a run's evaluations against its target ---------------------------------- */

/* The evaluations of `metric` as seconds since origin_ms (x) and values (y)
 * into xs/ys (n of them, caller frees both). */
static size_t eval_points(const mt_run_figures *f, const char *metric, int64_t origin_ms,
			  double **xs, double **ys)
{
	size_t n = 0;
	mt_run_eval_view e;

	*xs = calloc(json_array_size(f->evaluations) + 1, sizeof(double));
	*ys = calloc(json_array_size(f->evaluations) + 1, sizeof(double));
	if (!*xs || !*ys)
		abort();
	for (size_t i = 0; mt_runview_eval(&e, f, i) != MT_ENOTFOUND; i++) {
		if ((metric && (!e.metric || strcmp(e.metric, metric) != 0)) ||
		    e.t_ms == MT_RUNLOG_NO_TIME || !isfinite(e.value))
			continue;
		(*xs)[n] = (double)(e.t_ms - origin_ms) / 1000.0;
		(*ys)[n++] = e.value;
	}
	return n;
}

/* The values' range with the target in it, widened when flat. */
static void eval_range(struct plot *pl, const double *xs, const double *ys, double target)
{
	pl->lo = isfinite(target) ? target : INFINITY;
	pl->hi = isfinite(target) ? target : -INFINITY;
	pl->s0 = xs[0] < 0 ? xs[0] : 0;
	pl->s1 = xs[0];
	for (size_t i = 0; i < pl->n; i++) {
		pl->lo = ys[i] < pl->lo ? ys[i] : pl->lo;
		pl->hi = ys[i] > pl->hi ? ys[i] : pl->hi;
		pl->s1 = xs[i] > pl->s1 ? xs[i] : pl->s1;
	}
	if (pl->hi - pl->lo < 1e-12 * (fabs(pl->hi) + 1)) {
		pl->lo -= 0.5;
		pl->hi += 0.5;
	}
}

static void eval_axis(struct tui_page *p, const struct plot *pl)
{
	char last[32];

	axis_rule(p, pl->w);
	page_line(p);
	page_addf(p, STYLE_DIM, "%*s%.4g", AXIS_W + 1, "s ", pl->s0);
	snprintf(last, sizeof(last), "%.4g", pl->s1);
	if (p->cur_col + 2 + (int)strlen(last) <= AXIS_W + 1 + pl->w)
		page_add_at(p, AXIS_W + 1 + pl->w - (int)strlen(last), STYLE_DIM, last);
}

void chart_evals(struct tui_page *p, const mt_run_figures *f, const char *metric, double target,
		 int64_t origin_ms, int rows)
{
	struct plot pl = {.mark = -1};
	double *xs, *ys;

	pl.n = eval_points(f, metric, origin_ms, &xs, &ys);
	pl.w = p->width - AXIS_W - 2;
	pl.h = rows - 3; /* the axis, the seconds under it, the legend */
	if (!pl.n || pl.h < 3 || pl.w < 10) {
		page_line(p);
		page_add_at(p, 2, STYLE_DIM,
		            pl.n ? "(no room for the plot)" : "(no evaluation yet)");
		free(xs);
		free(ys);
		return;
	}
	pl.cells = calloc((size_t)pl.w * (size_t)pl.h, 1);
	if (!pl.cells)
		abort();
	eval_range(&pl, xs, ys, target);
	if (isfinite(target))
		memset(pl.cells + plot_row(&pl, target) * pl.w, CELL_TARGET, (size_t)pl.w);
	for (size_t i = 0; i < pl.n; i++)
		pl.cells[plot_row(&pl, ys[i]) * pl.w + plot_col(&pl, xs[i])] = CELL_REF;
	for (int r = 0; r < pl.h; r++)
		plot_line(p, &pl, r);
	eval_axis(p, &pl);
	page_line(p);
	page_add_at(p, 2, STYLE_PLOT_REF, "*");
	page_addf(p, STYLE_NORMAL, " %s", metric ? metric : "evaluations");
	if (isfinite(target)) {
		page_add(p, STYLE_WARN, "  ---");
		page_addf(p, STYLE_NORMAL, " target %.6g", target);
	}
	free(pl.cells);
	free(xs);
	free(ys);
}

/* --- total time against run length ------------------------------------------- */

void chart_breakeven(struct tui_page *p, const struct chart_breakeven *be, double run_length,
		     int rows)
{
	double bs = be->base_start_s, bt = be->base_step_s;
	double cs = be->cand_start_s, ct = be->cand_step_s;
	double n = be->steps, xmax = 100;
	struct plot pl = {.mark = -1};
	char last[32];

	pl.w = p->width - AXIS_W - 2;
	pl.h = rows - 3; /* the axis, the steps under it, the legend */
	if (!isfinite(bs + bt + cs + ct) || pl.h < 3 || pl.w < 10) {
		page_line(p);
		page_add_at(p, 2, STYLE_DIM, isfinite(bs + bt + cs + ct) ? "(no room for the plot)"
									: "(no break-even to draw)");
		return;
	}
	if (isfinite(n) && 1.5 * n > xmax)
		xmax = 1.5 * n;
	if (isfinite(run_length) && 1.2 * run_length > xmax)
		xmax = 1.2 * run_length;
	pl.s0 = 0, pl.s1 = xmax;
	pl.lo = 0, pl.hi = fmax(bs + xmax * bt, cs + xmax * ct) / 3600;
	if (pl.hi <= 0)
		pl.hi = 1;
	pl.cells = calloc((size_t)pl.w * (size_t)pl.h, 1);
	if (!pl.cells)
		abort();
	if (isfinite(n))
		pl.mark = plot_col(&pl, n);
	for (int c = 0; c < pl.w; c++) {
		double x = xmax * c / (pl.w - 1);
		pl.cells[plot_row(&pl, (bs + x * bt) / 3600) * pl.w + c] |= 1;
		pl.cells[plot_row(&pl, (cs + x * ct) / 3600) * pl.w + c] |= 2;
	}
	for (int r = 0; r < pl.h; r++)
		plot_line(p, &pl, r);
	axis_rule(p, pl.w);
	page_line(p);
	page_addf(p, STYLE_DIM, "%*s0", AXIS_W + 1, "steps ");
	if (isfinite(run_length)) {
		int at = AXIS_W + 1 + plot_col(&pl, run_length);
		page_add_at(p, at > p->cur_col ? at : p->cur_col + 1, STYLE_WARN, "^ run length");
	}
	snprintf(last, sizeof(last), "%.4g", xmax);
	if (p->cur_col + 2 + (int)strlen(last) <= AXIS_W + 1 + pl.w)
		page_add_at(p, AXIS_W + 1 + pl.w - (int)strlen(last), STYLE_DIM, last);
	page_line(p);
	page_add_at(p, 2, STYLE_PLOT_REF, "*");
	page_add(p, STYLE_NORMAL, " baseline  ");
	page_add(p, STYLE_PLOT_CAND, "o");
	page_add(p, STYLE_NORMAL, " candidate (hours)");
	if (pl.mark >= 0) {
		page_add(p, STYLE_ERROR, "  ");
		page_add(p, STYLE_ERROR, draw_glyph(GLYPH_VLINE));
		page_addf(p, STYLE_NORMAL, " break-even, %.0f steps", n);
	}
	free(pl.cells);
}
