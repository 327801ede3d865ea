/* libFuzzer harness for the events files journal.db indexes (issue 19):
 * the input is one writer's events file as another host, a newer mtrial
 * or a tamperer may have left it. Rebuilding the index from it must never
 * crash or leak; a line is applied, refused with a reason, or the same
 * event again, and what was applied reads back through every listing. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static mt_journal *journal;
static char file[300];

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[256], path[300];

	snprintf(dir, sizeof(dir), "%s/fuzz_events.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/journal.db", dir);
	snprintf(file, sizeof(file), "%s/events", dir);
	if (mt_journal_open(&journal, path, 1) < 0 || mkdir(file, 0755) != 0)
		abort();
	snprintf(file, sizeof(file), "%s/events/fuzz-0000000000000000.jsonl", dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *views[6], *st;
	FILE *f;

	if (!journal)
		setup();
	if (!(f = fopen(file, "wb")))
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	if (mt_journal_rebuild(journal) < 0) {
		if (!mt_error_last()[0])
			abort(); /* a failure says why */
		mt_error_clear();
		return 0;
	}
	st = mt_journal_events_json(journal);
	if (!st)
		abort();
	views[0] = mt_journal_notes_json(journal);
	views[1] = mt_journal_effort_json(journal);
	views[2] = mt_journal_overrides_json(journal);
	views[3] = mt_journal_runs_json(journal, MT_JOURNAL_RUNS_ALL);
	views[4] = mt_journal_checks_json(journal, NULL, 0);
	views[5] = mt_journal_withdrawals_json(journal);
	for (int i = 0; i < 6; i++)
		json_decref(views[i]);
	/* a line is applied, refused with a reason, or the same event again:
	 * never more applied than there are lines */
	{
		json_t *fl = json_array_get(json_object_get(st, "files"), 0), *r;
		json_int_t lines = json_integer_value(json_object_get(fl, "lines"));
		size_t i;
		if (json_integer_value(json_object_get(st, "events")) > lines)
			abort();
		json_array_foreach(json_object_get(st, "refused"), i, r)
			if (!json_string_length(json_object_get(r, "reason")))
				abort();
	}
	json_decref(st);
	mt_error_clear();
	return 0;
}
