#include "probe_trial.h"
#include "compat_import.h"
#include "error.h"
#include "journal_view.h"
#include "jsonutil.h"
#include "opinventory.h"
#include "probe.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* trial.yaml's probe.overrides.I as the probe takes it (a skeleton not
 * filled in yet names nothing, and keeps its place in the numbering). */
static void written_override(mt_probe_override *o, const mt_spec *spec, size_t i)
{
	char path[64];

#define FIELD(key) (snprintf(path, sizeof(path), "probe.overrides.%zu." key, i), \
		    mt_spec_get(spec, path))
	o->name = FIELD("op");
	if (!o->name)
		o->is_api = (o->name = FIELD("api")) != NULL;
	o->status = FIELD("status");
	o->note = FIELD("note");
#undef FIELD
}

int mt_probe_overrides_read(mt_probe_overrides *o, mt_trial *t)
{
	size_t written = t->spec ? mt_spec_count(t->spec, "probe.overrides") : 0, i, n;
	mt_override_view v;

	memset(o, 0, sizeof(*o));
	if (!(o->recorded = mt_journal_overrides_json(t->journal)))
		return mt_error_last_code();
	n = written + json_array_size(o->recorded);
	if (n && !(o->v = calloc(n, sizeof(*o->v)))) {
		mt_probe_overrides_dispose(o);
		return mt_error_set(MT_EIO, "out of memory");
	}
	for (i = 0; i < written; i++)
		written_override(&o->v[o->n++], t->spec, i);
	for (i = 0; i < json_array_size(o->recorded); i++) {
		mt_probe_override *p = &o->v[o->n++];
		if (mt_override_view_read(&v, json_array_get(o->recorded, i)) < 0) {
			mt_probe_overrides_dispose(o);
			return mt_error_last_code();
		}
		*p = (mt_probe_override){.name = v.key, .is_api = v.is_api, .status = v.status,
					 .note = v.note, .source = v.source};
	}
	return 0;
}

void mt_probe_overrides_dispose(mt_probe_overrides *o)
{
	free(o->v);
	json_decref(o->recorded);
	memset(o, 0, sizeof(*o));
}

int mt_probe_load_observed(mt_compat_table **out, const char *what)
{
	mt_compat_import_convert_options o = {.name = "observed", .format = MT_IMPORT_ANALYZE,
				       .origin = what};
	char *text = NULL, *yaml = NULL, source[1024];
	size_t len = 0;
	int error;

	*out = NULL;
	if (!mt_path_exists(what) || strstr(what, ".yaml"))
		error = mt_compat_load(out, what);
	else if ((error = mt_file_read(&text, &len, what)) == 0) {
		snprintf(source, sizeof(source), "file %s", what);
		o.source = source;
		if ((error = mt_compat_convert(&yaml, NULL, text, len, &o)) == 0)
			error = mt_compat_parse(out, yaml, strlen(yaml), what);
	}
	free(text);
	free(yaml);
	if (error == 0 && strcmp(mt_compat_kind(*out), "observed") != 0) {
		error = mt_error_set(MT_EINVALID, "%s: table '%s' is %s, not observed on hardware "
				     "(use --table for documented tables)", what,
				     mt_compat_name(*out), mt_compat_kind(*out));
		mt_compat_free(*out);
		*out = NULL;
	}
	return error;
}

static const char *table_for(mt_trial *t, const char *table_name)
{
	const char *spec_table = t && t->spec ? mt_spec_get(t->spec, "probe.table") : NULL;
	if (table_name && *table_name)
		return table_name;
	return spec_table && *spec_table ? spec_table : MT_PROBE_DEFAULT_TABLE;
}

int mt_probe_trial(json_t **out, int64_t *probe_id, mt_trial *t, const char *table_name,
		   const char *observed, json_t *inventory, int64_t scan_id)
{
	mt_compat_table *table = NULL, *seen = NULL;
	mt_probe_inputs in = {0};
	mt_probe_overrides ov = {0};
	json_t *res = NULL;
	int64_t id = 0;
	int error;

	*out = NULL;
	if (t && (error = mt_probe_overrides_read(&ov, t)) < 0)
		return error;
	in.overrides = ov.v;
	in.noverrides = ov.n;
	if ((error = mt_compat_load(&table, table_for(t, table_name))) < 0 ||
	    (observed && (error = mt_probe_load_observed(&seen, observed)) < 0))
		goto cleanup;
	in.table = table;
	in.observed = seen;
	if ((error = mt_probe_inventory(&res, &in, inventory)) < 0)
		goto cleanup;
	if (t) {
		mt_journal_probe rec = {mt_compat_name(table), mt_compat_version(table),
					mt_compat_retrieved(table), mt_compat_source(table), res,
					scan_id};
		if ((error = mt_journal_probe_add(t->journal, &rec, &id)) < 0)
			goto cleanup;
	}
	json_object_set_new(res, "probe_id", id ? json_integer(id) : json_null());
	if (probe_id)
		*probe_id = id;
	*out = res;
	res = NULL;
cleanup:
	json_decref(res);
	mt_probe_overrides_dispose(&ov);
	mt_compat_free(table);
	mt_compat_free(seen);
	return error;
}

const char *mt_inventory_file_kind(const char *path)
{
	unsigned char magic[4] = {0};
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(magic, 1, sizeof(magic), f) : 0;
	if (f)
		fclose(f);
	/* a zip, or a pickle (torch.save's legacy format, refused with advice) */
	return n == 4 && (memcmp(magic, "PK\3\4", 4) == 0 || (magic[0] == 0x80 && magic[1] <= 5))
		       ? "torchscript"
		       : "trace";
}

static int load_file(json_t **out, const char *path, const char *kind)
{
	if (!mt_path_exists(path))
		return mt_error_set(MT_ENOTFOUND, "%s: no such file", path);
	if (!kind)
		kind = mt_inventory_file_kind(path);
	if (strcmp(kind, "torchscript") == 0)
		return mt_opinventory_torchscript_inventory(out, path);
	if (strcmp(kind, "trace") == 0)
		return mt_opinventory_trace(out, path);
	return mt_error_set(MT_EUSAGE, "unknown inventory source '%s' (scan, torchscript, trace)",
			    kind);
}

/* Records inventory inv in t's journal under its source and file. */
static int record_inventory(mt_trial *t, json_t *inv, int64_t *id, int *unchanged)
{
	mt_opinventory_view v;
	int error = mt_opinventory_view_read(&v, inv);

	if (error == 0)
		error = mt_journal_inventory_add(t->journal, v.source, v.file, inv, id, unchanged);
	mt_opinventory_view_dispose(&v);
	return error;
}

int mt_inventory_resolve(json_t **out, mt_trial *t, const char *what, const char *kind,
			 int *recorded)
{
	static const char *const names[] = {"scan", "torchscript", "trace", NULL};
	int64_t id = 0;
	int unchanged = 0, error;

	*out = NULL;
	if (recorded)
		*recorded = 0;
	if (mt_str_in(what, names)) { /* a file of that name is ./scan */
		if (!t)
			return mt_error_set(MT_ENOTFOUND,
					    "'%s' names the trial's latest %s, and there is no trial "
					    "here (give a file, or --trial DIR)",
					    what, what);
		if (strcmp(what, "scan") != 0)
			return mt_journal_inventory_latest(t->journal, what, out, NULL);
		if ((error = mt_journal_scan_latest(t->journal, 1, out, &id, NULL)) < 0)
			return error;
		json_object_set_new(*out, "source", json_string("scan"));
		json_object_set_new(*out, "scan_id", json_integer(id));
		return 0;
	}
	if ((error = load_file(out, what, kind)) < 0 || !t)
		return error;
	if ((error = record_inventory(t, *out, &id, &unchanged)) < 0) {
		json_decref(*out);
		*out = NULL;
		return error;
	}
	json_object_set_new(*out, "inventory_id", json_integer(id));
	if (recorded)
		*recorded = !unchanged;
	return 0;
}
