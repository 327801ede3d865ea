/* Private to core/bundle_*.c: the files a bundle is made of, and the
 * redaction of the record and the logs. */
#ifndef MT_BUNDLE_INT_H
#define MT_BUNDLE_INT_H

#include <stddef.h>

#include <jansson.h>

#include "bundle_trial.h"
#include "objects.h"
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

/* An artefact the redacted record names: its content redacted, named
 * again by the hash of that. */
struct bundle_artefact {
	char old[MT_OBJECT_REF_LEN + 1], new[MT_OBJECT_REF_LEN + 1];
	uint64_t bytes;  /* of the redacted content */
	char *packed;    /* its object file (gzip); NULL when the trial has it not */
	size_t packed_len;
};

/* What --redact replaces: the host names the record names (each event's
 * host) and this host's. */
struct bundle_redactor {
	char **hosts;
	size_t *host_hits; /* how many times each was replaced */
	size_t nhosts;
	char **dropped; /* the ids of the events dropped (private notes) */
	size_t ndropped;
	mt_bundle_redacted *counts;
	const char *trial_dir; /* where the artefacts are read */
	struct bundle_artefact *arts;
	size_t narts;
	int error; /* the first error of reading an artefact */
};

void bundle_redactor_init(struct bundle_redactor *r, mt_bundle_redacted *counts,
			  const char *trial_dir);
void bundle_redactor_dispose(struct bundle_redactor *r);

/* Learns the host names of events file `text` (before any is redacted). */
void bundle_redact_learn(struct bundle_redactor *r, const char *text, size_t len);

/* Text (a log, the report) with host names and absolute paths replaced;
 * caller frees. */
char *bundle_redact_text(struct bundle_redactor *r, const char *text, size_t len, size_t *out_len);

/* trial.yaml redacted as text, line by line, a value the redaction made
 * start with "{" quoted so that it stays a string. Caller frees. */
char *bundle_redact_yaml(struct bundle_redactor *r, const char *text, size_t len, size_t *out_len);

/* Each string inside v redacted in place as text. */
void bundle_redact_json(struct bundle_redactor *r, json_t *v);

/* An events file redacted: the events of notes tagged private dropped, and
 * the events that name them, host names and absolute paths replaced in
 * every string; the lines that are not events are kept as they are, but
 * redacted as text. Caller frees. */
char *bundle_redact_events(struct bundle_redactor *r, const char *text, size_t len,
			   size_t *out_len);

/* Each artefact reference of event ev ({"object", "bytes"}) made the
 * redacted artefact's: the artefact read, its content redacted (JSON as
 * JSON, anything else as text), named again by its new hash; one read
 * once however many events name it. An artefact the trial has not is
 * left named (the trial made from the bundle says it is missing); one that
 * cannot be read sets r->error. */
void bundle_redact_artefacts(struct bundle_redactor *r, json_t *ev);

/* The artefacts the redacted events name, as record/objects/... */
int bundle_take_artefacts(struct bundle_files *f, struct bundle_redactor *r);

/* Counts into r->counts->objects_unnamed the objects of the trial's
 * .mtrial/objects that no event names (after bundle_redact_events): they
 * are not carried, a redacted bundle holding only what its record names. */
void bundle_count_unnamed(struct bundle_redactor *r);

/* The host names replaced that are short or common words ("vm", "gpu",
 * "node"), which ordinary words in prose and logs may be too: "NAME (N
 * times)", comma-separated, into out; 0 when none. */
int bundle_redact_common_hosts(const struct bundle_redactor *r, mt_buf *out);

/* An events file's name with the host in it replaced: a writer's file,
 * HOST-<16 hex digits>.jsonl, and no other name. Caller frees. */
char *bundle_redact_name(struct bundle_redactor *r, const char *name);

#endif
