/* The trial's record as events (issue 19): `.mtrial/events/WRITER.jsonl`,
 * one JSON object a line, one file per writer, never rewritten.
 *
 * A writer is this host's short name and a random 64-bit id, made once per
 * trial directory and host and remembered in `.mtrial/writer` (local, kept
 * out of git by `.mtrial/.gitignore`). Processes of one host share their
 * writer's file: each event is one write(2) of one whole line on an
 * O_APPEND descriptor under flock(LOCK_EX), then fdatasync. journal.db is an
 * index of these files (trial/journal_event.c). */
#ifndef MT_EVENTS_H
#define MT_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* 2: a scan's, probe's or inventory's result may be a reference to an
 * artefact (trial/objects.h) instead of the payload itself; a run names its
 * log's artefact. Version 1 events (payloads inline) are read as ever. */
#define MT_EVENTS_VERSION 2
#define MT_EVENTS_VERSION_MIN 1
#define MT_EVENTS_DIR "events"
#define MT_EVENTS_EXT ".jsonl"
/* In a trial directory made from a bundle (core/bundle_trial.h): the
 * bundle's name. Its presence makes the trial read-only: every append is
 * refused, naming it. */
#define MT_EVENTS_FROM_BUNDLE "from-bundle"
/* 12 hex digits of the time in ms, then 14 random ones: sorted as text,
 * ids sort by time. */
#define MT_EVENT_ID_LEN 26

typedef struct mt_events mt_events;

/* The event log of trial directory `dir` (nothing is created until the
 * first append). */
int mt_events_open(mt_events **out, const char *dir);
void mt_events_free(mt_events *ev);

/* The directory holding the events files. Borrowed, lives as long as ev. */
const char *mt_events_dir(const mt_events *ev);

/* The trial directory (`.mtrial`) the events are in, which holds the
 * artefacts too (trial/objects.h). Borrowed, lives as long as ev. */
const char *mt_events_trial_dir(const mt_events *ev);

/* This host's writer ("host-0123456789abcdef"), made and remembered on
 * first use. Borrowed, lives as long as ev. */
int mt_events_writer(mt_events *ev, const char **out);

/* Writes trial_dir/.gitignore, when there is none, keeping the local files
 * out of git: the writer file and journal.db (an index of events/). */
void mt_events_ignore_local(const char *trial_dir);

/* A new event id for time `ms`: later ids of one process sort after
 * earlier ones even within one ms. */
void mt_event_id(char out[MT_EVENT_ID_LEN + 1], int64_t ms);

/* A new event {"v", "id", "t", "author", "host", "kind", "data"} by this
 * writer's author; `data` is stolen. `id` NULL makes a new one for t.
 * New reference. */
json_t *mt_events_make(mt_events *ev, const char *id, const char *kind, int64_t t, json_t *data);

/* Where an append landed in the writer's file: the bytes it started and
 * ended at, and whether it first closed an incomplete last line (a file
 * truncated by a crash) with a newline. */
typedef struct {
	char file[96]; /* the file's name in the events directory */
	uint64_t start, end;
	int closed_tail;
	/* the file after the append: its identity (mt_events_mark), and the
	 * digest of its first line when the append made it (start 0) */
	uint64_t ino;
	int64_t mtime_ns;
	char head[65];
} mt_events_pos;

/* This writer's author (git's user.name, user.email: NULL when unset) and
 * host, as mt_events_make writes them; borrowed from ev. */
void mt_events_author(mt_events *ev, const char **name, const char **email, const char **host);

/* MT_ESTATE naming the bundle when the trial was made from one (its
 * MT_EVENTS_FROM_BUNDLE marker), else 0: a copy of someone's record, to
 * which an append would pass off new records as theirs. Every append asks
 * it; a writer that does work before appending may ask it first. */
int mt_events_refuse_read_only(const mt_events *ev);

/* Appends `len` bytes of whole lines (each ending in '\n') to this
 * writer's file in one write, durably. MT_ESTATE in a trial made from a
 * bundle (MT_EVENTS_FROM_BUNDLE). */
int mt_events_append(mt_events *ev, const char *lines, size_t len, mt_events_pos *pos);

/* One line of an events file as read. Borrowed for the callback's call. */
typedef struct {
	const char *file;   /* the file's name in the events directory */
	uint64_t line;      /* 1-based */
	const char *text;   /* the line, without its newline */
	size_t len;
	json_t *obj;        /* the event, NULL when the line is not an event */
	const char *id, *kind; /* set when obj is */
	int64_t t;
	json_t *data;
	const char *error;  /* why the line is not an event, NULL when it is */
} mt_event;

/* Checks an event's shape (version, id, time, kind, data object) and fills
 * e's fields from e->obj; 0, or MT_EINVALID with e->error set. */
int mt_event_parse(mt_event *e, char *why, size_t why_size);

/* Parses e->text (e->len bytes) into e->obj (the caller's to decref) and
 * checks it as mt_event_parse; 0, or MT_EINVALID with e->error set (into
 * `why`) and e->obj NULL. */
int mt_event_load(mt_event *e, char *why, size_t why_size);

/* The JSON text of one line as json_loadb(text, len, JSON_REJECT_DUPLICATES)
 * makes it, read faster (trial/events_json.c); NULL when jansson may refuse
 * it or make another value: then jansson reads it, and says why. New
 * reference. */
json_t *mt_event_json_fast(const char *text, size_t len);

typedef int (*mt_event_cb)(const mt_event *e, void *payload);

/* Where a read of one file stopped: after the last whole line. `tail` is
 * the size of an incomplete last line (a truncated file), which is left
 * unread: the caller warns about it, it is never an error. */
typedef struct {
	uint64_t bytes, lines, tail;
	/* the file's identity when read: inode, mtime (ns) and the SHA-256 of
	 * its first line ("" before one was read) */
	uint64_t ino;
	int64_t mtime_ns;
	char head[65];
	/* set by mt_events_read: the file is not the one `from` read (shorter,
	 * or another first line), so it was read again from its start */
	int renewed;
} mt_events_mark;

/* 1 when marks a and b differ in what was read or the file's identity. */
int mt_events_mark_differs(const mt_events_mark *a, const mt_events_mark *b);

/* m after this writer's append `pos` to the end of what m read (the
 * caller counts the lines). */
void mt_events_mark_appended(mt_events_mark *m, const mt_events_pos *pos);

/* 1 when file `name`, as it is now (one stat), may hold lines that mark m
 * has not read: another size, inode or mtime. */
int mt_events_changed(mt_events *ev, const char *name, const mt_events_mark *m);

/* 1 when file `name` is not the one mark `from` read: shorter than what
 * was read, or another first line (deleted and made anew). */
int mt_events_renewed(mt_events *ev, const char *name, const mt_events_mark *from);

/* Reads events file `name` from `from` (the bytes and lines already read)
 * and calls cb for each whole line, event or not; at is where it stopped.
 * A file that is no longer the one `from` read (shorter, or its first line
 * another: deleted and made anew) is read from its start, at->renewed set.
 * A non-zero return from cb stops the read and is returned. */
int mt_events_read(mt_events *ev, const char *name, const mt_events_mark *from, mt_event_cb cb,
		   void *payload, mt_events_mark *at);

/* The events files' names, sorted; *out a NULL-terminated array the caller
 * frees with mt_events_names_free. An absent directory is none. */
int mt_events_names(mt_events *ev, char ***out);
void mt_events_names_free(char **names);

#endif
