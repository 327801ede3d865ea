/* The trial's artefacts by content (issue 19): a scan's, probe's or
 * inventory's whole result and a run's log, kept out of the events files.
 *
 * An object is `.mtrial/objects/sha256/AB/CDEF...` named by the SHA-256 of
 * its uncompressed content, stored gzip-compressed (zcat reads it), written
 * once through a temporary file and a link (a name that exists is done),
 * never rewritten. Its name says everything about it: a sync copies the
 * files as they are. An event refers to one as {"object": "sha256:HEX",
 * "bytes": N}, N the uncompressed size. */
#ifndef MT_OBJECTS_H
#define MT_OBJECTS_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#define MT_OBJECTS_DIR "objects"
/* "sha256:" and 64 hex digits */
#define MT_OBJECT_REF_LEN 71

/* The name ("sha256:HEX") the bytes would be stored under, without storing
 * them. */
void mt_object_ref_for(const void *data, size_t len, char ref[MT_OBJECT_REF_LEN + 1]);

/* Stores `len` bytes as an object of trial directory `trial_dir` (the
 * `.mtrial` directory), when it is not there yet; ref gets its name. */
int mt_object_put(const char *trial_dir, const void *data, size_t len,
		  char ref[MT_OBJECT_REF_LEN + 1]);

/* The object `len` bytes make, nothing written: its name into ref and
 * the bytes of its file (gzip) into *packed (the caller frees). */
int mt_object_pack(const void *data, size_t len, char ref[MT_OBJECT_REF_LEN + 1], char **packed,
		   size_t *packed_len);

/* What a sweep of temporary files found. */
typedef struct {
	size_t removed; /* NAME.tmp.PID of a PID no process has: a writer killed mid-write */
	size_t live;    /* of a process alive: left as they are */
} mt_objects_swept;

/* Removes the temporary files (NAME.tmp.PID, common/util.h's atomic write)
 * that writers killed mid-write left in directory `dir`, never one whose
 * PID is a live process's; adds to *out. mt_object_put sweeps the
 * directory it writes into. */
int mt_objects_sweep_dir(const char *dir, mt_objects_swept *out);

/* mt_objects_sweep_dir of every directory of trial_dir's objects. */
int mt_objects_sweep(const char *trial_dir, mt_objects_swept *out);

/* mt_object_put of the bytes of file `path`; *bytes (may be NULL) their
 * number. */
int mt_object_put_file(const char *trial_dir, const char *path, char ref[MT_OBJECT_REF_LEN + 1],
		       uint64_t *bytes);

/* The content of object `ref` into *out (NUL-terminated, the caller frees)
 * and *len, its hash verified: MT_ENOTFOUND naming the hash when missing,
 * MT_EINVALID when corrupt or not a name of an object. */
int mt_object_get(const char *trial_dir, const char *ref, char **out, size_t *len);

/* Writes object `ref` into a new temporary file named with `like`'s
 * extension (".csv" of a path that has one: readers that tell a format by
 * it read the copy alike; may be NULL); *path_out the caller unlinks and
 * frees. */
int mt_object_get_file(const char *trial_dir, const char *ref, const char *like,
		       char **path_out);

/* The path object `ref` has, whether it exists or not; NULL when ref is
 * not an object's name. Caller frees. */
char *mt_object_path(const char *trial_dir, const char *ref);

/* 1 when ref is an object's name: "sha256:" and 64 lower-case hex
 * digits. */
int mt_object_ref_valid(const char *ref);

/* The object's name ("sha256:HEX") of path `rel` under the objects
 * directory, when rel is "sha256/XX/REST": XX and REST lower-case hex,
 * XX the first two digits of HEX, REST the other 62. Else MT_EINVALID
 * naming rel and what it should be. For every reader of names: sync,
 * doctor, bundle verify. */
int mt_object_ref_of_path(const char *rel, char ref[MT_OBJECT_REF_LEN + 1]);

/* 0 when `packed` (the bytes of an object's file: gzip) inflates to a
 * content whose SHA-256 is ref's; else MT_EINVALID saying why ("not a
 * whole gzip stream", "its content hashes to sha256:OTHER"). What
 * mt_object_get checks; sync checks a received object with it, doctor
 * and bundle verify a stored one. */
int mt_object_check(const char *ref, const void *packed, size_t len);

/* {"object": ref, "bytes": bytes}. New reference. */
json_t *mt_object_ref_json(const char *ref, uint64_t bytes);

/* 1 when v is a reference to an object (exactly "object" and "bytes", the
 * name well formed), with *ref borrowed from v; 0 when v is anything else
 * (a payload kept inline by an older event). */
int mt_object_ref_of(const json_t *v, const char **ref, uint64_t *bytes);

#endif
