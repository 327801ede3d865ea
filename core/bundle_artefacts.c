/* --redact and the artefacts (trial/objects.h): the scans', probes',
 * inventories' results and the runs' logs the events name by the hash of
 * their content. They hold the same host names and paths as the events, so
 * they are redacted alike; their new content has a new hash, which the
 * redacted events then name: the trial made from the bundle reads every
 * one of them, verified, and reports nothing missing. */
#include "bundle_int.h"
#include "error.h"
#include "jsonw.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define LOG_KEY "log_object" /* a run's log: text, whatever it looks like */

const char *const mt_bundle_artefact_kinds[MT_BUNDLE_ART_KINDS] = {"scan", "probe", "inventory",
								   "run log", "other"};

void mt_bundle_redacted_text(mt_buf *out, const mt_bundle_redacted *d)
{
	const char *sep = " (";

	mt_buf_printf(out, "Redacted: %zu event(s) of private notes dropped, %zu host name(s) and "
		      "%zu absolute path(s) replaced, %zu events file(s) renamed; %zu artefact(s)",
		      d->notes, d->hosts, d->paths, d->files, d->artefacts);
	for (int k = 0; k < MT_BUNDLE_ART_KINDS; k++)
		if (d->artefacts_by_kind[k]) {
			mt_buf_printf(out, "%s%s %zu", sep, mt_bundle_artefact_kinds[k],
				      d->artefacts_by_kind[k]);
			sep = ", ";
		}
	mt_buf_printf(out, "%s rewritten and named by their new hash, %zu unchanged, %zu not "
		      "carried; %zu object(s) no event names not carried.",
		      d->artefacts ? ")" : "", d->artefacts_same, d->artefacts_missing,
		      d->objects_unnamed);
}

/* What an artefact named by event kind `kind` holds (as_text: a log). */
static int kind_of(const char *kind, int as_text)
{
	static const char *const prefixes[] = {"scan.", "probe.", "inventory."};

	if (as_text)
		return MT_BUNDLE_ART_RUN_LOG;
	for (int k = 0; kind && k < 3; k++)
		if (strncmp(kind, prefixes[k], strlen(prefixes[k])) == 0)
			return k;
	return MT_BUNDLE_ART_OTHER;
}

/* The redacted content of an artefact into *out (caller frees): JSON as
 * JSON, dumped as it was (keys sorted or in their order); text as text. */
static char *redact_content(struct bundle_redactor *r, const char *text, size_t len, int as_text,
			    size_t *out_len)
{
	json_t *v = as_text ? NULL : json_loadb(text, len, JSON_DECODE_ANY, NULL);
	size_t flags = JSON_COMPACT | JSON_ENCODE_ANY;
	char *out;

	if (!v)
		return bundle_redact_text(r, text, len, out_len);
	out = json_dumps(v, flags);
	if (!out || strlen(out) != len || memcmp(out, text, len) != 0)
		flags |= JSON_SORT_KEYS; /* an inventory: its digest is of the sorted text */
	free(out);
	bundle_redact_json(r, v);
	out = mt_json_dumps(v, flags);
	json_decref(v);
	*out_len = out ? strlen(out) : 0;
	return out;
}

/* Artefact `ref` read, redacted and packed as a new entry of r->arts. */
static struct bundle_artefact *redact_one(struct bundle_redactor *r, const char *ref,
					  uint64_t bytes, int as_text, const char *kind)
{
	struct bundle_artefact *a, *grown = realloc(r->arts, (r->narts + 1) * sizeof(*grown));
	char *text = NULL, *red = NULL;
	size_t len = 0, red_len = 0;
	int error;

	if (!grown) {
		r->error = r->error ? r->error : mt_error_set(MT_EIO, "out of memory");
		return NULL;
	}
	r->arts = grown;
	a = memset(&r->arts[r->narts++], 0, sizeof(*a));
	snprintf(a->old, sizeof(a->old), "%s", ref);
	snprintf(a->new, sizeof(a->new), "%s", ref);
	a->bytes = bytes;
	if ((error = mt_object_get(r->trial_dir, ref, &text, &len)) < 0) {
		/* missing or damaged: named as it was, not carried; what cannot be
		 * read cannot leak */
		if (error == MT_EIO && !r->error)
			r->error = error;
		else
			mt_error_clear();
		r->counts->artefacts_missing++;
		return a;
	}
	red = redact_content(r, text, len, as_text, &red_len);
	if (!red)
		r->error = r->error ? r->error : mt_error_set(MT_ERROR, "artefact %s: cannot be redacted", ref);
	else if ((error = mt_object_pack(red, red_len, a->new, &a->packed, &a->packed_len)) < 0)
		r->error = r->error ? r->error : error;
	else {
		a->bytes = red_len;
		if (strcmp(a->new, a->old) == 0)
			r->counts->artefacts_same++;
		else {
			r->counts->artefacts++;
			r->counts->artefacts_by_kind[kind_of(kind, as_text)]++;
		}
	}
	free(text);
	free(red);
	return a;
}

/* Reference v (an {"object", "bytes"}) made the redacted artefact's. */
static void rewrite_ref(struct bundle_redactor *r, json_t *v, const char *ref, uint64_t bytes,
			int as_text, const char *kind)
{
	struct bundle_artefact *a = NULL;

	for (size_t i = 0; i < r->narts && !a; i++)
		if (strcmp(r->arts[i].old, ref) == 0)
			a = &r->arts[i];
	if (!a && !(a = redact_one(r, ref, bytes, as_text, kind)))
		return;
	json_object_set_new(v, "object", json_string(a->new));
	json_object_set_new(v, "bytes", json_integer((json_int_t)a->bytes));
}

static void walk(struct bundle_redactor *r, json_t *v, const char *key, const char *kind)
{
	const char *ref, *k;
	uint64_t bytes;
	json_t *item;
	size_t i;

	if (json_is_object(v) && mt_object_ref_of(v, &ref, &bytes)) {
		char copy[MT_OBJECT_REF_LEN + 1];
		snprintf(copy, sizeof(copy), "%s", ref); /* ref is v's, which changes */
		rewrite_ref(r, v, copy, bytes, key && strcmp(key, LOG_KEY) == 0, kind);
	} else if (json_is_object(v)) {
		json_object_foreach(v, k, item)
			walk(r, item, k, kind);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			walk(r, item, key, kind);
	}
}

void bundle_redact_artefacts(struct bundle_redactor *r, json_t *ev)
{
	walk(r, json_object_get(ev, "data"), NULL, json_string_value(json_object_get(ev, "kind")));
}

int bundle_take_artefacts(struct bundle_files *f, struct bundle_redactor *r)
{
	int error = r->error;

	for (size_t i = 0; i < r->narts && error == 0; i++) {
		struct bundle_artefact *a = &r->arts[i];
		char *name;
		int twice = 0;
		if (!a->packed)
			continue;
		/* two artefacts that differed only in what was redacted are one now */
		for (size_t k = 0; k < i && !twice; k++)
			twice = r->arts[k].packed_len && strcmp(r->arts[k].new, a->new) == 0;
		if (twice) {
			free(a->packed);
			a->packed = NULL;
			a->packed_len = 0;
			continue;
		}
		name = mt_object_path("record", a->new);
		error = bundle_files_take(f, name, a->packed, a->packed_len);
		a->packed = NULL; /* taken */
		free(name);
	}
	return error;
}

/* 1 when an event names artefact `ref` (the redaction read it). */
static int named(const struct bundle_redactor *r, const char *ref)
{
	for (size_t i = 0; i < r->narts; i++)
		if (strcmp(r->arts[i].old, ref) == 0)
			return 1;
	return 0;
}

/* The objects of directory sha256/XX (`sub`) that no event names. */
static size_t unnamed_in(const struct bundle_redactor *r, const char *dir, const char *sub)
{
	char *path = mt_path_join(dir, sub);
	DIR *d = opendir(path);
	struct dirent *de;
	size_t n = 0;

	free(path);
	while (d && (de = readdir(d))) {
		char ref[MT_OBJECT_REF_LEN + 16];
		/* NAME.tmp.PID: being written, or a killed writer's; not an object */
		if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp."))
			continue;
		if (snprintf(ref, sizeof(ref), "sha256:%s%s", sub, de->d_name) != MT_OBJECT_REF_LEN)
			continue; /* no object's name */
		n += !named(r, ref);
	}
	if (d)
		closedir(d);
	return n;
}

void bundle_count_unnamed(struct bundle_redactor *r)
{
	char *dir = mt_path_join(r->trial_dir, MT_OBJECTS_DIR "/sha256");
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (strlen(de->d_name) == 2 && de->d_name[0] != '.')
			r->counts->objects_unnamed += unnamed_in(r, dir, de->d_name);
	if (d)
		closedir(d);
	free(dir);
}
