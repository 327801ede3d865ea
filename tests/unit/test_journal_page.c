/* The journal's notes a page at a time and its counts (journal_page.c), on
 * a real SQLite file in a scratch directory: pages newest first, keyed by
 * the last id shown, with tags, withdrawn notes left out of both. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixtures.h"
#include "journal.h"
#include "journal_page.h"
#include "util.h"

struct ctx {
	char *dir;
	mt_journal *j;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	char *path;

	c->dir = mt_fx_tmpdir("journal_page");
	path = mt_path_join(c->dir, "journal.db");
	assert_int_equal(mt_journal_open(&c->j, path, 1), 0);
	free(path);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	mt_journal_free(c->j);
	mt_fx_rmtree(c->dir);
	free(c->dir);
	free(c);
	return 0;
}

struct seen {
	int64_t ids[16];
	char texts[16][32];
	size_t ntags[16];
	char first_tag[16][32];
	size_t n;
};

static int collect(const mt_note *note, void *payload)
{
	struct seen *s = payload;

	s->ids[s->n] = note->id;
	snprintf(s->texts[s->n], sizeof(s->texts[0]), "%s", note->text);
	s->ntags[s->n] = note->ntags;
	snprintf(s->first_tag[s->n], sizeof(s->first_tag[0]), "%s",
		 note->ntags ? note->tags[0] : "");
	s->n++;
	return 0;
}

/* Seven notes, #3 withdrawn and #6 tagged. */
static void seven_notes(mt_journal *j)
{
	const char *tags[] = {"blocker", "compile"};
	char text[16];

	for (int i = 1; i <= 7; i++) {
		snprintf(text, sizeof(text), "note %d", i);
		assert_int_equal(mt_journal_note_add(j, text, NULL, i == 6 ? tags : NULL,
						     i == 6 ? 2 : 0, NULL), 0);
	}
	assert_int_equal(mt_journal_withdraw(j, "note", 3, "tester", "a mistake", NULL), 0);
}

static void test_pages_newest_first(void **state)
{
	struct ctx *c = *state;
	struct seen s = {0};

	seven_notes(c->j);
	assert_int_equal(mt_journal_notes_page(c->j, 0, 3, collect, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.ids[0], 7);
	assert_int_equal(s.ids[1], 6);
	assert_string_equal(s.texts[1], "note 6");
	assert_int_equal(s.ntags[1], 2);
	assert_string_equal(s.first_tag[1], "blocker");
	assert_int_equal(s.ids[2], 5);
	/* the next page from the last id shown: #3 is withdrawn, left out */
	assert_int_equal(mt_journal_notes_page(c->j, s.ids[2], 3, collect, &s), 0);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.ids[3], 4);
	assert_int_equal(s.ids[4], 2);
	assert_int_equal(s.ids[5], 1);
	assert_int_equal(s.ntags[5], 0);
	/* past the oldest: nothing */
	assert_int_equal(mt_journal_notes_page(c->j, 1, 3, collect, &s), 0);
	assert_int_equal(s.n, 6);
}

static int stop_at_once(const mt_note *note, void *payload)
{
	(void)note;
	(void)payload;
	return 42;
}

static void test_callback_stops_the_walk(void **state)
{
	struct ctx *c = *state;

	seven_notes(c->j);
	assert_int_equal(mt_journal_notes_page(c->j, 0, 10, stop_at_once, NULL), 42);
}

static void test_counts(void **state)
{
	struct ctx *c = *state;
	size_t n = 99;
	int has = -1;
	char *newest = NULL;

	assert_int_equal(mt_journal_note_count(c->j, 0, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(mt_journal_has(c->j, "note", &has), 0);
	assert_int_equal(has, 0);
	seven_notes(c->j);
	assert_int_equal(mt_journal_note_count(c->j, 0, &n), 0);
	assert_int_equal(n, 6); /* the withdrawn one is not counted */
	assert_int_equal(mt_journal_note_count(c->j, 5, &n), 0);
	assert_int_equal(n, 2); /* those since #5 */
	assert_int_equal(mt_journal_has(c->j, "note", &has), 0);
	assert_int_equal(has, 1);
	assert_int_equal(mt_journal_has(c->j, "run", &has), 0);
	assert_int_equal(has, 0);
	assert_int_equal(mt_journal_has(c->j, "effort", &has), 0);
	assert_int_equal(has, 0);
	assert_int_equal(mt_journal_has(c->j, "nonsense", &has), MT_EINVALID);
	mt_error_clear();
	assert_int_equal(mt_journal_note_add(c->j, "on a track", "portability", NULL, 0, NULL), 0);
	assert_int_equal(mt_journal_track_notes(c->j, "portability", &n, &newest), 0);
	assert_int_equal(n, 1);
	assert_string_equal(newest, "on a track");
	free(newest);
	assert_int_equal(mt_journal_track_notes(c->j, "optimized", &n, &newest), 0);
	assert_int_equal(n, 0);
	assert_null(newest);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pages_newest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_stops_the_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counts, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
