/* The event log (trial/events.c) and journal.db as its index: ids, the
 * writer, appending from four processes at once, a file cut short, lines
 * refused with their file and line, and the index made again from the
 * events alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "events.h"
#include "fixtures.h"
#include "journal.h"
#include "jsonutil.h"
#include "util.h"

struct ctx {
	char *dir;
	mt_events *ev;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	c->dir = mt_fx_tmpdir("events");
	assert_int_equal(mt_events_open(&c->ev, c->dir), 0);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	mt_events_free(c->ev);
	mt_fx_rmtree(c->dir);
	free(c->dir);
	free(c);
	return 0;
}

static void test_ids_sort_by_time(void **state)
{
	char a[MT_EVENT_ID_LEN + 1], b[MT_EVENT_ID_LEN + 1], d[MT_EVENT_ID_LEN + 1];

	(void)state;
	mt_event_id(a, 1000);
	mt_event_id(b, 1000);
	mt_event_id(d, 999999);
	assert_int_equal(strlen(a), MT_EVENT_ID_LEN);
	assert_int_equal(strspn(a, "0123456789abcdef"), MT_EVENT_ID_LEN);
	assert_memory_equal(a, "0000000003e8", 12);
	assert_true(strcmp(a, b) < 0); /* the same ms counts up */
	assert_true(strcmp(b, d) < 0);
}

static void test_writer_made_once_and_remembered(void **state)
{
	struct ctx *c = *state;
	mt_events *other = NULL;
	const char *w1, *w2;
	char *ignore = mt_path_join(c->dir, ".gitignore"), *text = NULL;
	size_t len;

	assert_int_equal(mt_events_writer(c->ev, &w1), 0);
	assert_non_null(strchr(w1, '-'));
	assert_int_equal(strlen(strrchr(w1, '-') + 1), 16);
	assert_int_equal(mt_events_open(&other, c->dir), 0);
	assert_int_equal(mt_events_writer(other, &w2), 0);
	assert_string_equal(w1, w2);
	assert_int_equal(mt_file_read(&text, &len, ignore), 0);
	assert_non_null(strstr(text, "/writer"));
	free(text);
	free(ignore);
	mt_events_free(other);
}

static void append_event(mt_events *ev, const char *kind, json_t *data)
{
	json_t *e = mt_events_make(ev, NULL, kind, mt_now_ms(), data);
	char *text = json_dumps(e, JSON_COMPACT), *line = malloc(strlen(text) + 2);
	mt_events_pos pos;

	sprintf(line, "%s\n", text);
	assert_int_equal(mt_events_append(ev, line, strlen(line), &pos), 0);
	assert_int_equal(pos.end - pos.start, strlen(line) + (pos.closed_tail != 0));
	free(line);
	free(text);
	json_decref(e);
}

struct seen {
	size_t n, bad;
	char errors[4][200];
	uint64_t bad_lines[4];
	json_t *per_writer; /* {"child N": last sequence number} */
	int out_of_order;
};

static int count_line(const mt_event *e, void *payload)
{
	struct seen *s = payload;

	if (e->error) {
		if (s->bad < 4) {
			snprintf(s->errors[s->bad], sizeof(s->errors[0]), "%s", e->error);
			s->bad_lines[s->bad] = e->line;
		}
		s->bad++;
		return 0;
	}
	s->n++;
	if (s->per_writer) {
		const char *who = mt_json_str(e->data, "who");
		json_int_t seq = mt_json_int(e->data, "seq");
		json_t *last = json_object_get(s->per_writer, who);
		if (last && json_integer_value(last) + 1 != seq)
			s->out_of_order++;
		json_object_set_new(s->per_writer, who, json_integer(seq));
	}
	return 0;
}

static void read_all(struct ctx *c, struct seen *s, mt_events_mark *at)
{
	char **names = NULL;
	mt_events_mark from = {0};

	assert_int_equal(mt_events_names(c->ev, &names), 0);
	assert_non_null(names[0]);
	assert_null(names[1]); /* one writer on one host */
	assert_int_equal(mt_events_read(c->ev, names[0], &from, count_line, s, at), 0);
	mt_events_names_free(names);
}

/* Four processes append at once: every line whole, none lost, each
 * process's in its order. */
static void test_four_processes_append(void **state)
{
	struct ctx *c = *state;
	struct seen s = {.per_writer = json_object()};
	mt_events_mark at;
	pid_t kids[4];
	enum { PER_CHILD = 150 };

	for (int k = 0; k < 4; k++) {
		if ((kids[k] = fork()) == 0) {
			mt_events *ev = NULL;
			char who[16], pad[600];
			if (mt_events_open(&ev, c->dir) < 0)
				_exit(2);
			snprintf(who, sizeof(who), "child %d", k);
			memset(pad, 'a' + k, sizeof(pad) - 1); /* lines of more than one page */
			pad[sizeof(pad) - 1] = '\0';
			for (int i = 0; i < PER_CHILD; i++) {
				json_t *e = mt_events_make(ev, NULL, "note.add", mt_now_ms(),
							   json_pack("{ss, si, ss}", "who", who, "seq",
								     i, "pad", i % 10 ? "" : pad));
				char *text = json_dumps(e, JSON_COMPACT);
				size_t n = strlen(text);
				mt_events_pos pos;
				text = realloc(text, n + 2);
				text[n] = '\n';
				text[n + 1] = '\0';
				if (mt_events_append(ev, text, n + 1, &pos) < 0)
					_exit(3);
				free(text);
				json_decref(e);
			}
			mt_events_free(ev);
			_exit(0);
		}
	}
	for (int k = 0; k < 4; k++) {
		int status = -1;
		waitpid(kids[k], &status, 0);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	read_all(c, &s, &at);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.n, 4 * PER_CHILD);
	assert_int_equal(s.out_of_order, 0);
	assert_int_equal(json_object_size(s.per_writer), 4);
	assert_int_equal(at.lines, 4 * PER_CHILD);
	assert_int_equal(at.tail, 0);
	json_decref(s.per_writer);
}

/* The file's path, for the test to damage it. */
static char *events_file(struct ctx *c)
{
	char **names = NULL, *path;

	assert_int_equal(mt_events_names(c->ev, &names), 0);
	path = mt_path_join(mt_events_dir(c->ev), names[0]);
	mt_events_names_free(names);
	return path;
}

static void append_raw(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A file cut short: its last line is left unread (a warning, not an
 * error); the next append closes it, and it is refused as a line of its
 * own with its number, while the events around it read. */
static void test_truncated_last_line(void **state)
{
	struct ctx *c = *state;
	struct seen s = {0};
	mt_events_mark at;
	char *path;

	append_event(c->ev, "note.add", json_pack("{ss}", "text", "one"));
	path = events_file(c);
	append_raw(path, "{\"v\":1,\"id\":\"01");
	read_all(c, &s, &at);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.bad, 0);
	assert_int_equal(at.lines, 1);
	assert_int_equal(at.tail, strlen("{\"v\":1,\"id\":\"01"));

	append_event(c->ev, "note.add", json_pack("{ss}", "text", "two"));
	memset(&s, 0, sizeof(s));
	read_all(c, &s, &at);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.bad, 1);
	assert_int_equal(s.bad_lines[0], 2);
	assert_non_null(strstr(s.errors[0], "not JSON"));
	assert_int_equal(at.lines, 3);
	assert_int_equal(at.tail, 0);
	free(path);
}

static void test_bad_lines_say_why(void **state)
{
	struct ctx *c = *state;
	struct seen s = {0};
	mt_events_mark at;
	char *path;

	append_event(c->ev, "note.add", json_pack("{ss}", "text", "one"));
	path = events_file(c);
	append_raw(path, "{\"v\":99,\"id\":\"0000000003e800000000000000\",\"t\":1,\"kind\":\"x\","
			 "\"data\":{}}\n"
			 "{\"v\":1,\"id\":\"nope\",\"t\":1,\"kind\":\"x\",\"data\":{}}\n"
			 "{\"v\":1,\"id\":\"0000000003e800000000000000\",\"t\":1,\"kind\":\"x\"}\n");
	read_all(c, &s, &at);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.bad, 3);
	assert_int_equal(s.bad_lines[0], 2);
	assert_non_null(strstr(s.errors[0], "version"));
	assert_non_null(strstr(s.errors[1], "\"id\""));
	assert_non_null(strstr(s.errors[2], "\"data\""));
	free(path);
}

/* What `notes`, `effort log`, `override --list`, `rm --list` and the
 * marks show. */
static json_t *listings(mt_journal *j)
{
	return json_pack("{so, so, so, so, so}", "notes", mt_journal_notes_json(j), "effort",
			 mt_journal_effort_json(j), "overrides", mt_journal_overrides_json(j),
			 "withdrawals", mt_journal_withdrawals_json(j), "marks",
			 mt_journal_marks_json(j));
}

/* journal.db is an index: deleted, it is made again from the events with
 * the same listings; a tampered line is refused with FILE:LINE and the
 * rest still loads. */
static void test_index_rebuilt_and_tampering_refused(void **state)
{
	struct ctx *c = *state;
	char *db = mt_path_join(c->dir, "journal.db"), *path, *text = NULL, *wal, *dup;
	const char *tags[] = {"env"};
	json_t *before, *after, *status, *refused;
	mt_journal *j = NULL;
	mt_effort e = {0};
	int64_t note = 0;
	size_t len;

	assert_int_equal(mt_journal_open(&j, db, 1), 0);
	assert_int_equal(mt_journal_effort_start(j, "portability", "setup", NULL, &e), 0);
	mt_effort_dispose(&e);
	assert_int_equal(mt_journal_note_add(j, "pip fails", NULL, tags, 1, &note), 0);
	assert_int_equal(mt_journal_effort_stop(j, &e), 0);
	mt_effort_dispose(&e);
	assert_int_equal(mt_journal_note_add(j, "mistake", NULL, NULL, 0, NULL), 0);
	assert_int_equal(mt_journal_withdraw(j, "note", 2, "me", "typo", NULL), 0);
	assert_int_equal(mt_journal_override_add(j, "aten::add", "device", "ok on 2.1", NULL), 0);
	assert_int_equal(mt_journal_mark_set(j, "portability", "a.py", "reusable", NULL), 0);
	before = listings(j);
	mt_journal_free(j);

	remove(db);
	wal = malloc(strlen(db) + 5);
	sprintf(wal, "%s-wal", db);
	remove(wal);
	sprintf(wal, "%s-shm", db);
	remove(wal);
	assert_int_equal(mt_journal_open(&j, db, 0), 0); /* no journal.db, but events */
	after = listings(j);
	/* the running durations differ by the clock only; none runs here */
	assert_true(json_equal(before, after));
	mt_journal_free(j);

	/* a copy of line 1 with another payload, and a line that is not JSON */
	path = events_file(c);
	assert_int_equal(mt_file_read(&text, &len, path), 0);
	*strchr(text, '\n') = '\0';
	dup = malloc(strlen(text) + 40);
	sprintf(dup, "%s\nnot json\n", text);
	memcpy(strstr(dup, "\"setup\""), "\"other\"", 7);
	append_raw(path, dup);
	assert_int_equal(mt_journal_open(&j, db, 0), 0);
	status = mt_journal_events_json(j);
	refused = json_object_get(status, "refused");
	assert_int_equal(json_array_size(refused), 2);
	assert_int_equal(mt_json_int(json_array_get(refused, 0), "line"), 8);
	assert_non_null(strstr(mt_json_str(json_array_get(refused, 0), "reason"),
			       "another payload"));
	assert_int_equal(mt_json_int(json_array_get(refused, 1), "line"), 9);
	assert_int_equal(mt_json_int(status, "events"), 7);
	json_decref(status);
	/* the rest loads: still one interval of setup */
	json_decref(after);
	after = mt_journal_effort_json(j);
	assert_int_equal(json_array_size(after), 1);
	assert_string_equal(mt_json_str(json_array_get(after, 0), "category"), "setup");
	json_decref(after);
	/* rebuilt in place: the same */
	assert_int_equal(mt_journal_rebuild(j), 0);
	after = listings(j);
	assert_true(json_equal(before, after));
	mt_journal_free(j);
	json_decref(before);
	json_decref(after);
	free(dup);
	free(text);
	free(path);
	free(wal);
	free(db);
}

/* The reader of events lines (trial/events_json.c) takes only what jansson
 * takes, as the same value with its keys in the same order; what it gives
 * up on, jansson reads (a line is still an event, or refused with
 * jansson's reason). */
static void test_fast_reader_is_jansson(void **state)
{
	static const struct {
		const char *text;
		int taken; /* by the fast reader */
	} cases[] = {
		{"{\"v\":2,\"id\":\"0000000003e800000000000000\",\"t\":1,\"kind\":\"note.add\","
		 "\"data\":{\"text\":\"x\",\"tags\":[\"a\",\"b\"],\"track\":null}}", 1},
		{"{\"a\":\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\\b\\f\\r\",\"b\":\"caf\xc3\xa9 "
		 "\xe2\x82\xac \xf0\x9f\x98\x80\",\"\":[]}", 1},
		{"{\"b\":[1,-0,0.5,-1.5e-6,1E+3,2e-400,123456789012345678,1234567890123456789,"
		 "-9223372036854775808,true,false,null,{},[]]}", 1},
		{" {\"z\":1,\"a\":{\"y\":2,\"b\":3}} \r\n\t", 1},
		{"{\"k\\u00e9y\":{\"k\\u00e9y\":\"v\\u00e9\"}}", 1},
		{"{\"a\":1,\"a\":2}", 0},
		{"{\"a\":{\"b\":1,\"b\":1}}", 0},
		{"{\"a\":\"\\u0000\"}", 0},
		{"{\"\\u0000\":1}", 0},
		{"{\"a\":\"\\ud800\"}", 0},
		{"{\"a\":\"\\udc00\"}", 0},
		{"{\"a\":\"\\ud800\\u0041\"}", 0},
		{"{\"a\":\"\\x\"}", 0},
		{"{\"a\":\"\xed\xa0\x80\"}", 0},
		{"{\"a\":\"\xc0\xaf\"}", 0},
		{"{\"a\":\"\xf4\x90\x80\x80\"}", 0},
		{"{\"a\":\"\xe2\x82\"}", 0},
		{"{\"a\":\"tab\there\"}", 0},
		{"{\"a\":01}", 0},
		{"{\"a\":-}", 0},
		{"{\"a\":1.}", 0},
		{"{\"a\":1e}", 0},
		{"{\"a\":1e999}", 0},
		{"{\"a\":99999999999999999999}", 0},
		{"{\"a\":truex}", 0},
		{"{\"a\":nul}", 0},
		{"{\"a\":1,}", 0},
		{"[1,]", 0},
		{"{\"a\":1} x", 0},
		{"{\"a\" 1}", 0},
		{"\"a\"", 0},
		{"1", 0},
		{"", 0},
		{"{\"a\":\"unterminated}", 0},
	};
	char deep[700];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *t = cases[i].text;
		json_t *fast = mt_event_json_fast(t, strlen(t));
		json_t *slow = json_loadb(t, strlen(t), JSON_REJECT_DUPLICATES, NULL);
		if (!cases[i].taken) {
			if (fast)
				fail_msg("case %zu taken: %s", i, t);
			json_decref(slow);
			continue;
		}
		if (!fast || !slow)
			fail_msg("case %zu not taken: %s", i, t);
		assert_true(json_equal(fast, slow));
		char *a = json_dumps(fast, JSON_COMPACT), *b = json_dumps(slow, JSON_COMPACT);
		assert_string_equal(a, b);
		free(a);
		free(b);
		json_decref(fast);
		json_decref(slow);
	}
	/* deeper than the fast reader goes: jansson reads it, an event still */
	memset(deep, 0, sizeof(deep));
	strcpy(deep, "{\"v\":1,\"id\":\"0000000003e800000000000000\",\"t\":1,\"kind\":\"x\","
		     "\"data\":{\"d\":");
	for (int i = 0; i < 300; i++)
		strcat(deep, "[");
	for (int i = 0; i < 300; i++)
		strcat(deep, "]");
	strcat(deep, "}}");
	assert_null(mt_event_json_fast(deep, strlen(deep)));
	{
		mt_event e = {.file = "f", .line = 1, .text = deep, .len = strlen(deep)};
		char why[200];
		assert_int_equal(mt_event_load(&e, why, sizeof(why)), 0);
		assert_string_equal(e.kind, "x");
		json_decref(e.obj);
	}
	/* a line it gives up on is refused with jansson's words */
	{
		mt_event e = {.file = "f", .line = 1, .text = "{\"a\":1,\"a\":2}", .len = 13};
		char why[200];
		assert_int_equal(mt_event_load(&e, why, sizeof(why)), MT_EINVALID);
		assert_non_null(strstr(why, "duplicate object key"));
	}
}

/* The index made from nothing is built aside and linked into place: no
 * file of the build is left, the journal is in WAL mode, and what a build
 * in place refuses it refuses too: a copy of an event with another
 * payload (its id below the greatest read: looked up), and a note whose
 * tag is not text, with nothing of it left behind. */
static void test_index_made_from_nothing(void **state)
{
	struct ctx *c = *state;
	char *db = mt_path_join(c->dir, "journal.db"), *path, *text = NULL, *extra;
	json_t *st, *refused, *notes, *again;
	mt_journal *j = NULL;
	size_t len;

	append_event(c->ev, "note.add", json_pack("{ss}", "text", "one"));
	append_event(c->ev, "note.add", json_pack("{ss, s[s]}", "text", "two", "tags", "t"));
	append_event(c->ev, "note.add", json_pack("{ss, s[si]}", "text", "half", "tags", "t", 5));
	path = events_file(c);
	assert_int_equal(mt_file_read(&text, &len, path), 0);
	*strchr(text, '\n') = '\0'; /* line 1 again, another text */
	extra = malloc(strlen(text) + 2);
	sprintf(extra, "%s\n", text);
	memcpy(strstr(extra, "\"one\""), "\"uno\"", 5);
	append_raw(path, extra);
	append_event(c->ev, "note.add", json_pack("{ss}", "text", "three"));

	assert_int_equal(mt_journal_open(&j, db, 0), 0);
	st = mt_journal_events_json(j);
	refused = json_object_get(st, "refused");
	assert_int_equal(json_array_size(refused), 2);
	assert_int_equal(mt_json_int(json_array_get(refused, 0), "line"), 3);
	assert_non_null(strstr(mt_json_str(json_array_get(refused, 0), "reason"), "tag"));
	assert_int_equal(mt_json_int(json_array_get(refused, 1), "line"), 4);
	assert_non_null(strstr(mt_json_str(json_array_get(refused, 1), "reason"),
			       "another payload"));
	assert_int_equal(mt_json_int(st, "events"), 3);
	notes = mt_journal_notes_json(j);
	assert_int_equal(json_array_size(notes), 3); /* one, two, three: no "half" */
	for (size_t i = 0; i < 3; i++)
		assert_string_not_equal(mt_json_str(json_array_get(notes, i), "text"), "half");
	/* rebuilt in place: the same */
	assert_int_equal(mt_journal_rebuild(j), 0);
	again = mt_journal_notes_json(j);
	assert_true(json_equal(notes, again));
	json_decref(again);
	again = mt_journal_events_json(j);
	assert_true(json_equal(st, again));
	json_decref(again);
	mt_journal_free(j);

	/* nothing of the build left beside the journal, which is in WAL mode */
	{
		DIR *d = opendir(c->dir);
		struct dirent *de;
		while ((de = readdir(d)))
			if (strstr(de->d_name, "rebuild"))
				fail_msg("left behind: %s", de->d_name);
		closedir(d);
		FILE *f = fopen(db, "rb");
		unsigned char head[20];
		assert_int_equal(fread(head, 1, 20, f), 20);
		fclose(f);
		assert_int_equal(head[18], 2); /* WAL */
	}
	json_decref(notes);
	json_decref(st);
	free(extra);
	free(text);
	free(path);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_sort_by_time),
		cmocka_unit_test_setup_teardown(test_writer_made_once_and_remembered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_four_processes_append, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_last_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_lines_say_why, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_rebuilt_and_tampering_refused, setup,
						teardown),
		cmocka_unit_test(test_fast_reader_is_jansson),
		cmocka_unit_test_setup_teardown(test_index_made_from_nothing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
