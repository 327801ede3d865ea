/* The Correctness step: the recorded checks, newest first, each with its
 * verdict, what it compared and a short summary; under the list the
 * selected one's files. Enter gives a check the whole pane: a tensor
 * comparison as a table worst first, the selected tensor's failure in
 * assert_close's words and the error histogram (in place of the table on
 * a short pane); a curve comparison as the two curves overlaid with the
 * first step outside the band marked. The page is laid out to the pane's
 * height, as the Ops step's, so the lists scroll themselves. Rehearsal
 * checks (stand-ins compared, never evidence) are marked R in the list and
 * said in the preview and the check's page. */
#include "screen.h"
#include "wizard.h"
#include "rows.h"
#include "model_path.h"
#include "chartdraw.h"
#include "util.h"
#include "check_view.h"
#include "journal_view.h"
#include "error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_W 4
#define KIND_W 7
#define VERDICT_W 4
#define PREVIEW_ROWS 5 /* the selected check under the list */
#define TEXT_ROWS 6    /* the selected tensor under the table */
#define FIELD_COL 13   /* values after "  reference  " */
#define NAME_MIN 14    /* the tensor names' column keeps this much */

struct corr_state {
	json_t *checks; /* own reference; NULL with none */
	mt_check_view *views; /* of checks, newest first; owned */
	size_t nviews;
	int64_t follow; /* the selected check's id, kept across reloads */
	int cursor, top, list_rows;
	int details;   /* the selected check has the whole pane */
	int tensor, tensor_top, tensor_rows;
	int histogram; /* the histogram in place of the table */
	int asking;    /* 1 + the index in check_prompts of the prompt open, 0: none */
	char *answers[3]; /* owned; a check's earlier prompts' answers */
};

static int is_kind(const mt_check_view *check, const char *kind)
{
	return check && check->kind && strcmp(check->kind, kind) == 0;
}

static const mt_check_view *selected(const struct corr_state *st)
{
	return (size_t)st->cursor < st->nviews ? &st->views[st->cursor] : NULL;
}

/* Who recorded the selected check (its event's author, from whichever
 * machine: drawn through the terminal's sanitising), NULL when not known. */
static const char *selected_author(const struct corr_state *st)
{
	return selected(st) ? mt_author_name(json_array_get(st->checks, (size_t)st->cursor))
			    : NULL;
}

static int64_t selected_id(const struct corr_state *st)
{
	return selected(st) ? selected(st)->id : 0;
}

/* The cursor on the followed check, the details closed when it is gone. */
static void refind(struct corr_state *st)
{
	st->cursor = 0;
	for (size_t i = 0; i < st->nviews; i++)
		if (st->views[i].id == st->follow)
			st->cursor = (int)i;
	if (selected_id(st) != st->follow)
		st->details = 0;
	st->follow = selected_id(st);
}

/* Takes the checks the wizard read last (a check from here or another
 * terminal); the selection follows its check. */
static void sync(struct corr_state *st, const struct tui_ctx *ctx)
{
	if (ctx->checks == st->checks)
		return;
	mt_check_view_free_list(st->views, st->nviews);
	json_decref(st->checks);
	st->checks = json_incref(ctx->checks);
	if (mt_check_view_read_list(&st->views, &st->nviews, st->checks) < 0)
		tui_message(ctx->wizard, 1, "cannot read the checks: %s", mt_error_last());
	refind(st);
}

/* Opens the check with this id in the details (once the record holds it:
 * a check just recorded shows after the reload). */
static void show_check(struct corr_state *st, int64_t id)
{

	st->follow = id;
	st->details = 1;
	st->tensor = st->tensor_top = st->histogram = 0;
	refind(st); /* a check just recorded: the reload brings it, sync finds it */
	st->follow = id;
	st->details = 1;
}

/* --- the prompts of a comparison (c, L) ------------------------------------ */

static void answers_clear(struct corr_state *st)
{
	for (size_t i = 0; i < sizeof(st->answers) / sizeof(st->answers[0]); i++) {
		free(st->answers[i]);
		st->answers[i] = NULL;
	}
}

/* The newest check of `kind`'s reference (`candidate` 0) or candidate, a
 * path to start from, or NULL. Borrowed from the checks. */
static const char *last_check_path(const struct corr_state *st, const char *kind, int candidate)
{
	for (size_t i = 0; i < st->nviews; i++)
		if (is_kind(&st->views[i], kind))
			return candidate ? st->views[i].candidate : st->views[i].reference;
	return NULL;
}

/* The prompts of each comparison, in order: the action that starts it,
 * where the answer goes in answers (-1: the last, which runs it), and the
 * newest check of which kind gives the path to start from. */
static const struct {
	enum tui_action first;
	int slot;
	const char *label, *kind;
	int candidate; /* the path to start from is the candidate's */
} check_prompts[] = {
	{TUI_ACT_COMPARE, 0, "reference tensors (file or directory): ", "compare", 0},
	{TUI_ACT_NONE, 1, "candidate tensors: ", "compare", 1},
	{TUI_ACT_NONE, 2, "rtol (empty: trial.yaml's, else the dtype's default): ", NULL, 0},
	{TUI_ACT_NONE, -1, "atol (empty: trial.yaml's, else the dtype's default): ", NULL, 0},
	{TUI_ACT_CURVES, 0, "reference loss curve (a CSV, JSONL or MLPerf file, or run:N): ",
	 "curves", 0},
	{TUI_ACT_NONE, -1, "candidate loss curve: ", "curves", 1},
};
#define N_CHECK_PROMPTS (sizeof(check_prompts) / sizeof(check_prompts[0]))

static void check_prompt(struct corr_state *st, const struct tui_ctx *ctx, size_t i)
{
	const char *initial;

	sync(st, ctx);
	initial = check_prompts[i].kind
				      ? last_check_path(st, check_prompts[i].kind, check_prompts[i].candidate)
				      : NULL;
	st->asking = (int)i + 1;
	tui_screen_prompt(ctx->wizard, check_prompts[i].label, initial);
}

/* `c` and `L` from any step: this step shows the result. */
static int check_start(struct corr_state *st, const struct tui_ctx *ctx, enum tui_action a)
{
	answers_clear(st);
	for (size_t i = 0; i < N_CHECK_PROMPTS; i++)
		if (check_prompts[i].first == a && a != TUI_ACT_NONE) {
			check_prompt(st, ctx, i);
			return TUI_HANDLED | TUI_REDRAW;
		}
	return TUI_UNHANDLED;
}

/* A tolerance typed: empty is NaN (the trial's or the dtype's); else a
 * number >= 0, or -1 after saying what is wrong. */
static int tolerance(struct tui_wizard *w, const char *name, const char *text, double *out)
{
	char *end;

	*out = NAN;
	if (!*text)
		return 0;
	*out = strtod(text, &end);
	if (end != text && !*end && *out >= 0 && isfinite(*out))
		return 0;
	tui_message(w, 1, "%s '%s' is not a number >= 0: nothing compared", name, text);
	return -1;
}

/* The last prompt answered: runs the comparison and shows its check. */
static int check_run(struct corr_state *st, const struct tui_ctx *ctx, size_t i,
		     const char *last)
{
	struct tui_wizard *w = ctx->wizard;
	double rtol, atol;
	int64_t id = 0;
	int result;

	if (check_prompts[i].kind && strcmp(check_prompts[i].kind, "curves") == 0)
		result = record_curves(w, st->answers[0], last, &id);
	else if (tolerance(w, "rtol", st->answers[2], &rtol) < 0 ||
		 tolerance(w, "atol", last, &atol) < 0)
		return TUI_REDRAW;
	else
		result = record_compare(w, st->answers[0], st->answers[1], rtol, atol, &id);
	if (id)
		show_check(st, id);
	return result;
}

static int check_input(void *state, const struct tui_ctx *ctx, const struct tui_key *k)
{
	struct corr_state *st = state;
	struct tui_wizard *w = ctx->wizard;
	enum prompt_result r = prompt_input(&w->prompt, k);
	size_t i = st->asking ? (size_t)st->asking - 1 : 0;
	char *text;
	int result = TUI_REDRAW;

	if (r == PROMPT_CONTINUE)
		return TUI_REDRAW;
	text = prompt_text(&w->prompt);
	if (r == PROMPT_CANCEL || (!*text && check_prompts[i].kind)) {
		tui_message(w, 0, "%s: nothing compared", r == PROMPT_CANCEL ? "Cancelled"
									    : "No path given");
	} else if (i + 1 < N_CHECK_PROMPTS && check_prompts[i].slot >= 0) {
		free(st->answers[check_prompts[i].slot]);
		st->answers[check_prompts[i].slot] = text;
		check_prompt(st, ctx, i + 1);
		return TUI_REDRAW;
	} else {
		result = check_run(st, ctx, i, text);
	}
	st->asking = 0;
	tui_screen_ask_done(w);
	free(text);
	answers_clear(st);
	return result;
}

/* --- what a check says, in a few words --------------------------------- */

/* A figure of a check: a tensor's as the comparison spells it ("inf",
 * "nan"); a curve's NaN is "-" (a step or value the comparison has not). */
static const char *tnum(char *buf, size_t size, double d, int digits)
{
	return mt_check_num(buf, size, d, digits);
}

static const char *cnum(char *buf, size_t size, double d, int digits)
{
	return isnan(d) ? "-" : mt_check_num(buf, size, d, digits);
}

/* "2026-11-29 18:20" of the journal's ISO time. */
static const char *when_text(const char *iso, char *buf, size_t size)
{
	if (!iso || strlen(iso) < 16)
		return iso ? iso : "";
	snprintf(buf, size, "%.10s %.5s", iso, iso + 11);
	return buf;
}

/* "pickle calls posix.system; " (torch.load would run it) for a torch.save file whose
 * pickle calls a global beyond tensors (checks/compare.h): said first in
 * the summary, where a narrow list keeps it, since the verdict leaves it
 * out. */
static void pickle_calls(mt_buf *b, const mt_check_tensors *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->npickle; i++)
		if (c->pickle_globals[i].called)
			mt_buf_printf(b, "%s%s", n++ ? ", " : "pickle calls ",
				      c->pickle_globals[i].name);
	if (!n && c->npickle)
		mt_buf_printf(b, "pickle names %s", c->pickle_globals[0].name), n = 1;
	if (n)
		mt_buf_puts(b, "; ");
}

/* "1 of 3 tensors failed", "diverged from step 30" into b. */
static void summary(mt_buf *b, const mt_check_view *c)
{
	size_t n = c->t.ntensors, failed = c->t.failed;
	size_t only = c->t.only_in_reference.n + c->t.only_in_candidate.n;
	char num[32];

	if (is_kind(c, "curves")) {
		if (c->c.value_name) /* two checks of the same runs differ by what they compare */
			mt_buf_printf(b, "%s: ", c->c.value_name);
		if (c->passed)
			mt_buf_printf(b, "%lld points in the band", (long long)c->c.points);
		else if (!isnan(c->c.diverged_from_step))
			mt_buf_printf(b, "diverged from step %s",
				      cnum(num, sizeof(num), c->c.diverged_from_step, 6));
		else
			mt_buf_printf(b, "outside the band at step %s",
				      cnum(num, sizeof(num), c->c.first_divergent_step, 6));
		return;
	}
	pickle_calls(b, &c->t);
	if (c->t.has_recipe)
		mt_buf_printf(b, "%s: ", c->t.recipe.name ?: "?");
	if (failed)
		mt_buf_printf(b, "%zu of %zu tensors failed", failed, n);
	else
		mt_buf_printf(b, "%zu tensor%s pass", n, n == 1 ? "" : "s");
	if (only)
		mt_buf_printf(b, ", %zu on one side only", only);
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash && slash[1] ? slash + 1 : path ? path : "?";
}

/* The length of a run's label at the start of a curve's side, "run #3
 * (candidate): " as check curves writes it for run:N, else 0. */
static size_t run_label_len(const char *side)
{
	const char *end = side && strncmp(side, "run #", 5) == 0 ? strstr(side, "): ") : NULL;
	return end ? (size_t)(end + 3 - side) : 0;
}

/* A side as the list names it: "run #3" for a run, else the file's name. */
static void side_name(mt_buf *b, const char *side)
{
	size_t n = run_label_len(side);
	const char *space = n ? strchr(side + 5, ' ') : NULL;

	if (space)
		mt_buf_put(b, side, (size_t)(space - side));
	else
		mt_buf_puts(b, base_name(side));
}

static enum draw_style verdict_style(int passed)
{
	return passed ? STYLE_OK : STYLE_ERROR;
}

static const char *verdict(int passed)
{
	return passed ? "pass" : "FAIL";
}

/* --- the list ------------------------------------------------------------ */

/* The "ref vs cand" column's width: none on a narrow pane. */
static int compared_width(int width, int idw)
{
	int rest = width - (idw + 1 + 1 + 1 + KIND_W + 1 + VERDICT_W + 1);
	return rest >= 40 ? rest / 2 : 0;
}

static void check_row(struct tui_page *p, const mt_check_view *c, int idw, int selected_row,
		      int focused)
{
	mt_buf what = MT_BUF_INIT, sum = MT_BUF_INIT;
	char id[24];
	int cw = compared_width(p->width, idw);

	snprintf(id, sizeof(id), "#%lld", (long long)c->id);
	side_name(&what, c->reference);
	mt_buf_puts(&what, " vs ");
	side_name(&what, c->candidate);
	summary(&sum, c);
	struct tui_cell cells[] = {
		{id, idw, 1, 0, STYLE_DIM},
		{c->rehearsal ? "R" : "", 1, 0, 0, STYLE_WARN},
		{c->kind, KIND_W, 0, 0, STYLE_NORMAL},
		{verdict(c->passed), VERDICT_W, 0, 0, verdict_style(c->passed)},
		{mt_buf_cstr(&what), cw, 0, 0, STYLE_NORMAL},
		{mt_buf_cstr(&sum), 0, 0, 0, STYLE_DIM},
	};
	if (!cw)
		cells[4] = cells[5];
	tui_row(p, cells, cw ? 6 : 5, selected_row, focused);
	mt_buf_dispose(&what);
	mt_buf_dispose(&sum);
}

static void header_row(struct tui_page *p, int idw)
{
	int cw = compared_width(p->width, idw);
	struct tui_cell cells[] = {
		{"id", idw, 1, 0, STYLE_DIM},    {"", 1, 0, 0, STYLE_DIM},
		{"kind", KIND_W, 0, 0, STYLE_DIM}, {"", VERDICT_W, 0, 0, STYLE_DIM},
		{"compared", cw, 0, 0, STYLE_DIM}, {"summary", 0, 0, 0, STYLE_DIM},
	};
	if (!cw)
		cells[4] = cells[5];
	tui_row(p, cells, cw ? 6 : 5, 0, 0);
}

/* How many of the checks are rehearsals. */
static size_t rehearsals(const struct corr_state *st)
{
	size_t n = 0;

	for (size_t i = 0; i < st->nviews; i++)
		n += st->views[i].rehearsal != 0;
	return n;
}

/* "3 checks, newest first  c tensors  L curves", the keys from actions.h;
 * with rehearsals, what the R column means in place of the order (which
 * the ids show). */
static void title_row(struct tui_page *p, size_t n, size_t rehearsed)
{
	char keys[32], title[96];
	int width;

	if (rehearsed)
		snprintf(title, sizeof(title), "%zu check%s, %zu rehearsal%s (R)", n, n == 1 ? "" : "s",
			 rehearsed, rehearsed == 1 ? "" : "s");
	else
		snprintf(title, sizeof(title), "%zu check%s, newest first", n, n == 1 ? "" : "s");
	page_line(p);
	page_add(p, STYLE_HEADING, title);
	width = draw_width(title);
	tui_action_keys(TUI_ACT_COMPARE, keys, sizeof(keys));
	if (width + 24 <= p->width) {
		page_addf(p, STYLE_DIM, "  %s tensors  ", keys);
		tui_action_keys(TUI_ACT_CURVES, keys, sizeof(keys));
		page_addf(p, STYLE_DIM, "%s curves", keys);
	}
}

/* label and value; a cut value keeps its end (a path's file name) when
 * keep_end, and a run's label in front of it whole ("run #3 (candidate): "). */
static void field(struct tui_page *p, const char *label, const char *value, int keep_end)
{
	size_t head = keep_end ? run_label_len(value) : 0;
	int room = p->width - FIELD_COL - (int)head;
	char *fit = draw_fit(value ? value + (room > 12 ? head : 0) : "?",
			     room > 12 ? room : p->width - FIELD_COL, keep_end);

	page_line(p);
	page_add_at(p, 2, STYLE_DIM, label);
	if (room > 12 && head) {
		page_add_at(p, FIELD_COL, STYLE_NORMAL, "");
		page_addf(p, STYLE_NORMAL, "%.*s", (int)head, value);
		page_add(p, STYLE_NORMAL, fit);
	} else {
		page_add_at(p, FIELD_COL, STYLE_NORMAL, fit);
	}
	free(fit);
}

/* The selected check under the list: its files and its summary. */
static void preview(struct tui_page *p, const mt_check_view *c, const char *by)
{
	mt_buf title = MT_BUF_INIT, sum = MT_BUF_INIT;
	char when[32];

	/* the author last, which a narrow pane cuts first */
	mt_buf_printf(&title, "#%lld %s%s, %s%s%s", (long long)c->id, c->kind,
		      c->rehearsal ? ", a rehearsal" : "",
		      when_text(c->created, when, sizeof(when)), by ? " by " : "", by ?: "");
	tui_rule(p, mt_buf_cstr(&title));
	field(p, "reference", c->reference, 1);
	field(p, "candidate", c->candidate, 1);
	page_line(p);
	page_add_at(p, 2, verdict_style(c->passed), verdict(c->passed));
	summary(&sum, c);
	page_addf(p, STYLE_NORMAL, " %s", mt_buf_cstr(&sum));
	page_line(p);
	page_add_at(p, 2, STYLE_DIM, "Enter shows it");
	mt_buf_dispose(&title);
	mt_buf_dispose(&sum);
}

static void list_draw(struct tui_page *p, struct corr_state *st, const struct tui_ctx *ctx,
		      int height)
{
	int n = (int)st->nviews, below = height >= 14 ? PREVIEW_ROWS : 0;
	int rows = tui_list_fit(height - 2 - below, n), idw;
	long long max = 0;

	for (int r = 0; r < n; r++)
		max = st->views[r].id > max ? st->views[r].id : max;
	idw = tui_id_width(max, ID_W);
	st->list_rows = rows;
	tui_list_scroll(&st->cursor, &st->top, rows, n);
	title_row(p, (size_t)n, rehearsals(st));
	header_row(p, idw);
	for (int r = st->top; r < st->top + rows; r++)
		check_row(p, &st->views[r], idw, r == st->cursor, ctx->focused);
	tui_list_more(p, st->top, rows, n);
	if (below)
		preview(p, selected(st), selected_author(st));
}

/* --- a check in full: the header ----------------------------------------- */

static void check_header(struct tui_page *p, const mt_check_view *c, const char *by)
{
	char when[32], buf[160];

	page_line(p);
	page_addf(p, STYLE_HEADING, "Check #%lld %s", (long long)c->id, c->kind);
	page_addf(p, verdict_style(c->passed), " %s", verdict(c->passed));
	/* on the heading's line, so that the page keeps its rows, and before
	 * the time, which the preview shows too, so that a narrow pane keeps it */
	if (c->rehearsal)
		page_add(p, STYLE_WARN, "  rehearsal: not evidence");
	page_addf(p, STYLE_DIM, "  %s", when_text(c->created, when, sizeof(when)));
	page_addf(p, STYLE_DIM, " by %s", by ?: "someone not known");
	field(p, "reference", c->reference, 1);
	field(p, "candidate", c->candidate, 1);
	if (c->t.has_recipe) {
		snprintf(buf, sizeof(buf), "%s: %s", c->t.recipe.name ?: "?",
			 c->t.recipe.what ?: "");
		field(p, "recipe", buf, 0);
	}
}

/* "a, b" of a list of names; "" for none. Caller frees. */
static char *names(const mt_check_strs *list)
{
	mt_buf b = MT_BUF_INIT;

	for (size_t i = 0; i < list->n; i++)
		mt_buf_printf(&b, "%s%s", i ? ", " : "", list->v[i]);
	return mt_buf_detach(&b);
}

/* Tensors on one side only, on a line each side that has some. */
static void one_side_only(struct tui_page *p, const mt_check_view *c)
{
	const mt_check_strs *lists[] = {&c->t.only_in_reference, &c->t.only_in_candidate};
	static const char *const labels[] = {"only ref", "only cand"};

	for (int i = 0; i < 2; i++) {
		char *list = names(lists[i]);
		if (*list) {
			page_line(p);
			page_add_at(p, 2, STYLE_DIM, labels[i]);
			page_add_at(p, FIELD_COL, STYLE_WARN, list);
		}
		free(list);
	}
}

/* --- a tensor comparison: the table -------------------------------------- */

enum col {
	C_VERDICT, C_NAME, C_DTYPE, C_SHAPE, C_MISMATCH, C_MAX_ABS, C_WHERE,
	C_MIN_ATOL, C_MIN_RTOL, C_COSINE, C_TOL, NCOLS
};

/* The columns in the order shown; `rank` says which go first when the
 * pane is narrow (0: always). */
static const struct {
	const char *head;
	int width, right, rank;
} cols[NCOLS] = {
	[C_VERDICT] = {"", 4, 0, 0},          [C_NAME] = {"tensor", 0, 0, 0},
	[C_DTYPE] = {"dtype", 8, 0, 5},       [C_SHAPE] = {"shape", 10, 0, 6},
	[C_MISMATCH] = {"mismatch", 9, 1, 1}, [C_MAX_ABS] = {"max |diff|", 10, 1, 2},
	[C_WHERE] = {"at", 8, 0, 7},          [C_MIN_ATOL] = {"min atol", 9, 1, 3},
	[C_MIN_RTOL] = {"min rtol", 9, 1, 4}, [C_COSINE] = {"cosine", 8, 1, 8},
	[C_TOL] = {"rtol/atol (from)", 26, 0, 9},
};

/* Which columns fit the width: by rank while the names keep NAME_MIN.
 * Returns the names' width. */
static int choose_cols(int width, int *shown)
{
	int used = cols[C_VERDICT].width + 1 + NAME_MIN;

	for (int c = 0; c < NCOLS; c++)
		shown[c] = cols[c].rank == 0;
	for (int rank = 1; rank < NCOLS; rank++)
		for (int c = 0; c < NCOLS; c++)
			if (cols[c].rank == rank && used + 1 + cols[c].width <= width) {
				shown[c] = 1;
				used += 1 + cols[c].width;
			}
	return NAME_MIN + width - used;
}

/* "[2, 3]" or "(0, 2)" of a list of integers. */
static const char *int_list(char *buf, size_t size, const mt_check_dims *list, const char *open,
			    const char *close)
{
	size_t len = (size_t)snprintf(buf, size, "%s", open);

	for (int i = 0; i < list->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
					(long long)list->v[i]);
	if (len < size) /* (3,) as Python writes a tuple of one */
		snprintf(buf + len, size - len, "%s%s", list->n == 1 && *open == '(' ? "," : "",
			 close);
	return buf;
}

/* The cells' texts of a tensor (or of the header, with t NULL). */
static void cell_texts(const mt_check_tensor *t, char text[NCOLS][96])
{
	char a[32], b[32];

	for (int c = 0; c < NCOLS; c++)
		snprintf(text[c], 96, "%s", t ? "-" : cols[c].head);
	if (!t)
		return;
	snprintf(text[C_VERDICT], 96, "%s", t->passed ? "ok" : "FAIL");
	snprintf(text[C_NAME], 96, "%s", t->name ?: "?");
	snprintf(text[C_DTYPE], 96, "%s", t->dtype ?: "?");
	int_list(text[C_SHAPE], 96, &t->shape, "[", "]");
	if (t->reason)
		return;
	snprintf(text[C_MISMATCH], 96, "%lld/%lld", (long long)t->mismatched,
		 (long long)t->numel);
	snprintf(text[C_MAX_ABS], 96, "%s", tnum(a, sizeof(a), t->max_abs, 3));
	int_list(text[C_WHERE], 96, &t->max_abs_index, "(", ")");
	snprintf(text[C_MIN_ATOL], 96, "%s", tnum(a, sizeof(a), t->min_atol, 3));
	snprintf(text[C_MIN_RTOL], 96, "%s", tnum(a, sizeof(a), t->min_rtol, 3));
	snprintf(text[C_COSINE], 96, "%s", tnum(a, sizeof(a), t->cosine, 4));
	snprintf(text[C_TOL], 96, "%s/%s %s", tnum(a, sizeof(a), t->rtol, 3),
		 tnum(b, sizeof(b), t->atol, 3), t->tolerance_source ?: "");
}

static void tensor_row(struct tui_page *p, const mt_check_tensor *t, int sel, int focused)
{
	char text[NCOLS][96];
	struct tui_cell cells[NCOLS];
	int shown[NCOLS], n = 0, name_w = choose_cols(p->width, shown);

	cell_texts(t, text);
	for (int c = 0; c < NCOLS; c++) {
		enum draw_style s = t ? STYLE_NORMAL : STYLE_DIM;
		if (!shown[c])
			continue;
		if (t && c == C_VERDICT)
			s = verdict_style(t->passed);
		else if (t && (c == C_TOL || c == C_WHERE || c == C_DTYPE || c == C_SHAPE))
			s = STYLE_DIM;
		cells[n++] = (struct tui_cell){text[c], c == C_NAME ? name_w : cols[c].width,
					       cols[c].right, 0, s};
	}
	tui_row(p, cells, n, sel, focused);
}

/* --- a tensor comparison: the selected tensor in assert_close's words ----- */

/* The lines that say why the tensor failed (or how close it passed). */
static void failure_lines(const mt_check_tensor *t, mt_buf *lines, enum draw_style *styles, int *n)
{
	char a[40], b[40], idx[128];
	long long mism = t->mismatched, numel = t->numel;

#define LINE(style, ...) (styles[*n] = (style), mt_buf_printf(&lines[(*n)++], __VA_ARGS__))
	if (t->reason) {
		LINE(STYLE_ERROR, "Not compared: %s", t->reason);
		return;
	}
	if (t->passed)
		LINE(STYLE_OK, "Close: every element within atol + rtol * |ref|");
	else
		LINE(STYLE_ERROR, "Tensor-likes are not close!");
	LINE(STYLE_NORMAL, "Mismatched elements: %lld / %lld (%.1f%%)", mism, numel,
	     numel ? 100.0 * (double)mism / (double)numel : 0.0);
	LINE(STYLE_NORMAL, "Greatest absolute difference: %s at index %s (up to %s allowed)",
	     tnum(a, sizeof(a), t->max_abs, 0), int_list(idx, sizeof(idx), &t->max_abs_index, "(", ")"),
	     tnum(b, sizeof(b), t->atol, 0));
	LINE(STYLE_NORMAL, "Greatest relative difference: %s at index %s (up to %s allowed)",
	     tnum(a, sizeof(a), t->max_rel, 0), int_list(idx, sizeof(idx), &t->max_rel_index, "(", ")"),
	     tnum(b, sizeof(b), t->rtol, 0));
	if (mism && (t->min_atol > t->max_abs || t->min_rtol > t->max_rel))
		LINE(STYLE_NORMAL, "Over all elements: greatest absolute %s, relative %s (above: "
		     "the mismatched elements', as assert_close)", tnum(a, sizeof(a), t->min_atol, 0),
		     tnum(b, sizeof(b), t->min_rtol, 0));
	LINE(STYLE_DIM, "Tolerance rtol %s, atol %s from %s", tnum(a, sizeof(a), t->rtol, 0),
	     tnum(b, sizeof(b), t->atol, 0), t->tolerance_source ?: "?");
	for (size_t i = 0; i < t->warnings.n; i++)
		if (*n < TEXT_ROWS * 2)
			LINE(STYLE_WARN, "warning: %s", t->warnings.v[i]);
#undef LINE
}

/* A rule naming the tensor, then its lines, wrapped, in `rows` lines. */
static void failure_text(struct tui_page *p, const mt_check_tensor *t, int rows)
{
	mt_buf lines[TEXT_ROWS * 2 + 2];
	enum draw_style styles[TEXT_ROWS * 2 + 2];
	int n = 0, left = rows - 1;

	memset(lines, 0, sizeof(lines));
	tui_rule(p, t->name);
	failure_lines(t, lines, styles, &n);
	for (int i = 0; i < n; i++) {
		int need = tui_wrap_count(mt_buf_cstr(&lines[i]), p->width - 4);
		/* each line gets a row; a line that wraps takes more when the rest fit */
		int take = left - (n - i - 1) >= need ? need : 1;
		if (left > 0)
			left -= tui_wrap_rows(p, mt_buf_cstr(&lines[i]), 2, take, styles[i]);
		mt_buf_dispose(&lines[i]);
	}
}

/* --- a tensor comparison in full ----------------------------------------- */

static void table_title(struct tui_page *p, const mt_check_view *c, int hint)
{
	size_t n = c->t.ntensors, failed = c->t.failed;
	char keys[32];

	page_line(p);
	page_addf(p, STYLE_HEADING, "%zu tensor%s, worst first", n, n == 1 ? "" : "s");
	if (failed)
		page_addf(p, STYLE_ERROR, ": %zu failed", failed);
	tui_action_keys(TUI_ACT_HISTOGRAM, keys, sizeof(keys));
	if (hint)
		page_addf(p, STYLE_DIM, "  %s histogram", keys);
}

static void tensors_draw(struct tui_page *p, struct corr_state *st, const mt_check_view *c,
			 int height, int focused)
{
	int n = (int)c->t.ntensors, hist = chart_histogram_rows();
	int fixed, both, rows;
	char keys[32];

	check_header(p, c, selected_author(st));
	one_side_only(p, c);
	fixed = p->nlines + 2 + TEXT_ROWS; /* the table's title and header */
	both = height - fixed - (n < 3 ? n : 3) >= hist;
	if (st->histogram && !both) {
		chart_histogram(p, c->t.tensors, c->t.ntensors, height - p->nlines - 1);
		tui_action_keys(TUI_ACT_HISTOGRAM, keys, sizeof(keys));
		page_line(p);
		page_addf(p, STYLE_DIM, "  %s the tensor table", keys);
		return;
	}
	rows = tui_list_fit(height - fixed - (both ? hist : 0), n);
	st->tensor_rows = rows;
	tui_list_scroll(&st->tensor, &st->tensor_top, rows, n);
	table_title(p, c, !both);
	tensor_row(p, NULL, 0, 0);
	for (int r = st->tensor_top; r < st->tensor_top + rows && r < n; r++)
		tensor_row(p, &c->t.tensors[r], r == st->tensor, focused);
	tui_list_more(p, st->tensor_top, rows, n);
	if (!n) {
		page_line(p);
		page_add_at(p, 2, STYLE_DIM, "(no tensor in common)");
	} else {
		failure_text(p, &c->t.tensors[st->tensor], height - p->nlines - (both ? hist : 0));
	}
	if (both)
		chart_histogram(p, c->t.tensors, c->t.ntensors, hist);
}

/* --- a curve comparison in full ------------------------------------------ */

/* Where the curves left the band, if they did. */
static void divergence_line(struct tui_page *p, const mt_check_curves *c)
{
	char a[32], b[32];
	mt_buf line = MT_BUF_INIT;

	if (isnan(c->first_divergent_step))
		return;
	mt_buf_printf(&line, "first outside at step %s",
		      cnum(a, sizeof(a), c->first_divergent_step, 6));
	if (!isnan(c->diverged_from_step))
		mt_buf_printf(&line, "; diverged from step %s (outside to the end)",
			      cnum(b, sizeof(b), c->diverged_from_step, 6));
	else
		mt_buf_puts(&line, "; back inside by the end");
	tui_wrap_rows(p, mt_buf_cstr(&line), 2, 1, STYLE_WARN);
	mt_buf_dispose(&line);
}

static void curves_draw(struct tui_page *p, const mt_check_view *v, const char *by, int height)
{
	const mt_check_curves *c = &v->c;
	char a[32], b[32], d[32];
	mt_buf line = MT_BUF_INIT;

	check_header(p, v, by);
	page_line(p);
	page_add_at(p, 2, verdict_style(v->passed), verdict(v->passed));
	page_addf(p, STYLE_NORMAL, ": %lld of %lld points outside", (long long)c->outside_band,
		  (long long)c->points);
	page_addf(p, STYLE_DIM, " rtol %s, atol %s", cnum(a, sizeof(a), c->rtol, 0),
		  cnum(b, sizeof(b), c->atol, 0));
	divergence_line(p, c);
	mt_buf_printf(&line, "final (step %s): reference %s, candidate %s: %s",
		      cnum(a, sizeof(a), c->final_step, 6), cnum(b, sizeof(b), c->final_reference, 5),
		      isnan(c->final_candidate) ? "NaN" : cnum(d, sizeof(d), c->final_candidate, 5),
		      c->final_agree ? "agree" : "differ");
	if (c->has_max_abs_gap_key)
		mt_buf_printf(&line, "; largest gap %s at step %s",
			      cnum(a, sizeof(a), c->max_abs_gap.value, 4),
			      cnum(b, sizeof(b), c->max_abs_gap.step, 6));
	tui_wrap_rows(p, mt_buf_cstr(&line), 2, 1, STYLE_NORMAL);
	mt_buf_dispose(&line);
	chart_curves(p, c, height - p->nlines);
}

/* --- the screen ------------------------------------------------------------ */

static void nothing_yet(struct tui_page *p, const struct tui_ctx *ctx)
{
	char buf[64], keys[2][32];
	mt_buf text = MT_BUF_INIT;

	tui_heading(p, "Comparisons");
	page_line(p);
	page_add_at(p, TUI_LABEL_COL, STYLE_WARN, "Nothing recorded yet.");
	tui_action_keys(TUI_ACT_COMPARE, keys[0], sizeof(keys[0]));
	tui_action_keys(TUI_ACT_CURVES, keys[1], sizeof(keys[1]));
	mt_buf_printf(&text, "`mtrial check` fills this: the candidate's tensors and loss curve "
			     "compared with the baseline's, within the tolerances below. Press `%s` "
			     "to compare tensors, `%s` to compare loss curves (files, or runs as run:N).",
		      keys[0], keys[1]);
	page_para(p, TUI_LABEL_COL, STYLE_NORMAL, mt_buf_cstr(&text));
	mt_buf_dispose(&text);
	tui_heading(p, "Tolerances (trial.yaml)");
	tui_field(p, "atol", jv_str(ctx->model, "spec.tolerances.default.atol", buf, sizeof(buf)));
	tui_field(p, "rtol", jv_str(ctx->model, "spec.tolerances.default.rtol", buf, sizeof(buf)));
	snprintf(buf, sizeof(buf), "%zu",
		 json_array_size(jv_get(ctx->model, "spec.tolerances.overrides")));
	tui_field(p, "overrides", buf);
}

static void correctness_draw(void *state, const struct tui_ctx *ctx, struct tui_page *p)
{
	struct corr_state *st = state;
	int height = p->height > 0 ? p->height : 20;
	const mt_check_view *c;

	sync(st, ctx);
	c = selected(st);
	if (!c)
		nothing_yet(p, ctx);
	else if (st->details && is_kind(c, "curves"))
		curves_draw(p, c, selected_author(st), height);
	else if (st->details)
		tensors_draw(p, st, c, height, ctx->focused);
	else
		list_draw(p, st, ctx, height);
}

/* Moves the cursor of what is shown: the checks, or a comparison's tensors. */
static int move_to(struct corr_state *st, long to)
{
	int tensors = st->details && !is_kind(selected(st), "curves");
	int n = tensors ? (int)selected(st)->t.ntensors : (int)st->nviews;

	to = to >= n ? n - 1 : to;
	to = to < 0 ? 0 : to;
	if (tensors) {
		st->tensor = (int)to;
	} else {
		st->cursor = (int)to;
		st->follow = selected_id(st);
	}
	return TUI_HANDLED | TUI_REDRAW;
}

static int correctness_handle(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	struct corr_state *st = state;
	long to;

	sync(st, ctx);
	if (a == TUI_ACT_COMPARE || a == TUI_ACT_CURVES)
		return check_start(st, ctx, a);
	if (!selected(st) || (st->details && is_kind(selected(st), "curves") &&
			      a != TUI_ACT_BACK))
		return TUI_UNHANDLED; /* the frame scrolls the page */
	if (tui_list_target(a, st->details ? st->tensor : st->cursor,
			    st->details ? st->tensor_rows : st->list_rows, &to))
		return move_to(st, to);
	switch (a) {
	case TUI_ACT_OPEN:
		if (!st->details)
			st->details = 1, st->tensor = st->tensor_top = st->histogram = 0;
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_ACT_BACK:
		if (!st->details)
			return TUI_UNHANDLED; /* the frame moves to the step list */
		st->details = 0;
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_ACT_HISTOGRAM:
		if (!st->details)
			return TUI_UNHANDLED;
		st->histogram = !st->histogram;
		return TUI_HANDLED | TUI_REDRAW;
	default:
		return TUI_UNHANDLED;
	}
}

static void correctness_done(void *state)
{
	struct corr_state *st = state;
	mt_check_view_free_list(st->views, st->nviews);
	json_decref(st->checks);
	answers_clear(st);
}

/* c and L from any step: this step shows the check they record. */
static const enum tui_action summoned_by[] = {TUI_ACT_COMPARE, TUI_ACT_CURVES, TUI_ACT_NONE};

static int correctness_summon(void *state, const struct tui_ctx *ctx, enum tui_action a)
{
	sync(state, ctx);
	return check_start(state, ctx, a);
}

const struct tui_screen_ops tui_correctness_ops = {
	.name = "Correctness",
	.step_id = "correctness",
	.draw = correctness_draw,
	.handle = correctness_handle,
	.summoned_by = summoned_by,
	.summon = correctness_summon,
	.input = check_input,
	.done = correctness_done,
	.private_size = sizeof(struct corr_state),
};
