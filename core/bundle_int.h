/* Private to core/bundle_*.c: the files a bundle is made of, and the
 * redaction of the record and the logs. */
#ifndef MT_BUNDLE_INT_H
#define MT_BUNDLE_INT_H

#include <stddef.h>

#include <jansson.h>

#include "bundle_trial.h"
#include "util.h"

#define BUNDLE_ORIGIN "origin.json"

/* One file of the bundle as it will be written. */
struct bundle_file {
	char *name;
	char *data;
	size_t len;
};

struct bundle_files {
	struct bundle_file *v;
	size_t n, cap;
};

/* Adds a file; `data` (len bytes, malloc'd) is taken, on failure too. */
int bundle_files_take(struct bundle_files *f, const char *name, char *data, size_t len);
void bundle_files_dispose(struct bundle_files *f);

/* Where bundle entry `name` goes in a trial made from the bundle (its
 * name there, borrowed from name): trial.yaml, the events files, the
 * objects, the logs and the tracks' changes; NULL for the rest, which
 * stays in the bundle (the report and the manifest are made again there;
 * an entry of another name is not the trial's). */
const char *bundle_destination(const char *name);

/* Writes root/rel (rel a name mt_tar_name_check accepts), its directories
 * made; never over a file that exists. */
int bundle_write_file(const char *root, const char *rel, const char *data, size_t len);

/* What --redact replaces: the host names the record names (each event's
 * host) and this host's. */
struct bundle_redactor {
	char **hosts;
	size_t nhosts;
	char **dropped; /* the ids of the events dropped (private notes) */
	size_t ndropped;
	mt_bundle_redacted *counts;
};

void bundle_redactor_init(struct bundle_redactor *r, mt_bundle_redacted *counts);
void bundle_redactor_dispose(struct bundle_redactor *r);

/* Learns the host names of events file `text` (before any is redacted). */
void bundle_redact_learn(struct bundle_redactor *r, const char *text, size_t len);

/* Text (a log, the report) with host names and absolute paths replaced;
 * caller frees. */
char *bundle_redact_text(struct bundle_redactor *r, const char *text, size_t len, size_t *out_len);

/* Each string inside v redacted in place as text. */
void bundle_redact_json(struct bundle_redactor *r, json_t *v);

/* An events file redacted: the events of notes tagged private dropped, and
 * the events that name them, host names and absolute paths replaced in
 * every string; the lines that are not events are kept as they are, but
 * redacted as text. Caller frees. */
char *bundle_redact_events(struct bundle_redactor *r, const char *text, size_t len,
			   size_t *out_len);

/* An events file's name with the host in it replaced. Caller frees. */
char *bundle_redact_name(struct bundle_redactor *r, const char *name);

#endif
