/* `mtrial bundle verify FILE` and `mtrial init --from-bundle FILE DIR`: a
 * bundle read whole and checked against its manifest before anything of
 * it is believed or written. */
#include "bundle_trial.h"
#include "bundle_int.h"
#include "error.h"
#include "events.h"
#include "jsonutil.h"
#include "sha256.h"
#include "tar.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One line of MANIFEST: "SHA256  SIZE  NAME". */
struct manifest_line {
	char hex[65];
	unsigned long long size;
	char name[MT_TAR_NAME_MAX + 1];
};

static int parse_line(struct manifest_line *m, const char *line, size_t len, size_t no)
{
	const char *p = line, *end = line + len;
	char *num_end;

	if (len < 64 + 2 + 1 + 2 + 1)
		return mt_error_at(MT_EINVALID, MT_BUNDLE_MANIFEST, no, 0, "too short for \"SHA256  SIZE  NAME\"");
	for (int i = 0; i < 64; i++)
		if (!strchr("0123456789abcdef", p[i]) || !p[i])
			return mt_error_at(MT_EINVALID, MT_BUNDLE_MANIFEST, no, (unsigned long)i + 1,
					   "the sha256 is not 64 lowercase hex digits");
	memcpy(m->hex, p, 64);
	m->hex[64] = '\0';
	p += 64;
	if (p[0] != ' ' || p[1] != ' ' || p[2] < '0' || p[2] > '9')
		return mt_error_at(MT_EINVALID, MT_BUNDLE_MANIFEST, no, 65, "two spaces and a size expected");
	errno = 0;
	m->size = strtoull(p + 2, &num_end, 10);
	if (errno || num_end + 2 >= end || num_end[0] != ' ' || num_end[1] != ' ')
		return mt_error_at(MT_EINVALID, MT_BUNDLE_MANIFEST, no, (unsigned long)(p + 3 - line),
				   "the size is not a whole number followed by two spaces");
	p = num_end + 2;
	if ((size_t)(end - p) > MT_TAR_NAME_MAX || memchr(p, '\0', (size_t)(end - p)))
		return mt_error_at(MT_EINVALID, MT_BUNDLE_MANIFEST, no, (unsigned long)(p - line) + 1,
				   "the name is too long or holds a NUL");
	memcpy(m->name, p, (size_t)(end - p));
	m->name[end - p] = '\0';
	if (mt_tar_name_check(m->name) < 0)
		return mt_error_prefix(MT_EINVALID, "%s:%zu: '%s': ", MT_BUNDLE_MANIFEST, no, m->name);
	return 0;
}

/* The entry m names checked against m: found, of its size and sha256. */
static int check_entry(const mt_tar *tar, const struct manifest_line *m, uint64_t *bytes)
{
	const mt_tar_entry *e = mt_tar_find(tar, m->name);
	char hex[65];

	if (!e)
		return mt_error_set(MT_EINVALID, "entry '%s': listed in the manifest, missing", m->name);
	if (e->size != m->size)
		return mt_error_set(MT_EINVALID, "entry '%s': %zu bytes, the manifest says %llu", m->name,
				    e->size, m->size);
	mt_sha256_hex(hex, e->data, e->size);
	if (strcmp(hex, m->hex) != 0)
		return mt_error_set(MT_EINVALID, "entry '%s': sha256 %.16s..., the manifest says %.16s...",
				    m->name, hex, m->hex);
	*bytes += e->size;
	return 0;
}

static int cmp_name(const void *key, const void *item)
{
	return strcmp(key, *(char *const *)item);
}

/* An entry the manifest does not list (listed: its names, sorted). */
static int check_extra(const mt_tar *tar, char **listed, size_t n)
{
	for (size_t i = 1; i < tar->n; i++)
		if (!bsearch(tar->entries[i].name, listed, n, sizeof(*listed), cmp_name))
			return mt_error_set(MT_EINVALID, "entry '%s': not in the manifest",
					    tar->entries[i].name);
	return 0;
}

/* Every line of the manifest against the entries, and every entry against
 * the manifest. */
static int check_manifest(const mt_tar *tar, mt_bundle_verified *out)
{
	const mt_tar_entry *man = tar->n ? &tar->entries[0] : NULL;
	const char *p, *end;
	char **listed = NULL;
	size_t n = 0;
	int error = 0;

	if (!man || strcmp(man->name, MT_BUNDLE_MANIFEST) != 0)
		return mt_error_set(MT_EINVALID, "%s is not the first entry (%s is)", MT_BUNDLE_MANIFEST,
				    man ? man->name : "there is none");
	p = (const char *)man->data;
	end = p + man->size;
	if (man->size && end[-1] != '\n')
		return mt_error_set(MT_EINVALID, "%s: the last line has no newline (cut short?)",
				    MT_BUNDLE_MANIFEST);
	listed = calloc(tar->n + man->size / 64 + 1, sizeof(*listed));
	for (; p < end && error == 0; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct manifest_line m;
		if ((error = parse_line(&m, p, (size_t)(nl - p), n + 1)) < 0)
			break;
		if ((n && strcmp(m.name, listed[n - 1]) <= 0) || strcmp(m.name, MT_BUNDLE_MANIFEST) == 0)
			error = mt_error_at(MT_EINVALID, MT_BUNDLE_MANIFEST, n + 1, 0,
					    "'%s' is out of order, twice, or the manifest itself", m.name);
		else if ((error = check_entry(tar, &m, &out->bytes)) == 0) {
			out->events_files += strncmp(m.name, "record/" MT_EVENTS_DIR "/", 14) == 0;
			out->logs += strncmp(m.name, "logs/", 5) == 0;
			listed[n] = mt_strdup(m.name);
		}
		p = nl + 1;
	}
	if (error == 0 && (error = check_extra(tar, listed, n)) == 0)
		out->files = tar->n;
	for (size_t i = 0; i < n; i++)
		free(listed[i]);
	free(listed);
	return error;
}

/* The bundle read and verified into *tar (mt_tar_dispose it). */
static int read_verified(mt_tar *tar, mt_bundle_verified *out, const char *path)
{
	const unsigned char *data = NULL;
	uint64_t len = 0;
	int error;

	memset(out, 0, sizeof(*out));
	memset(tar, 0, sizeof(*tar));
	if ((error = mt_file_map(path, &data, &len)) < 0)
		return error;
	if (len > MT_TAR_MAX_SIZE)
		error = mt_error_set(MT_EINVALID, "%s: larger than the %llu bytes a bundle may be", path,
				     (unsigned long long)MT_TAR_MAX_SIZE);
	else if ((error = mt_tar_read_gz(tar, data, (size_t)len)) < 0 ||
		 (error = check_manifest(tar, out)) < 0)
		mt_error_prefix(error, "%s: refused: ", path);
	mt_file_unmap(data, len);
	if (error < 0)
		mt_tar_dispose(tar);
	return error;
}

int mt_bundle_verify(mt_bundle_verified *out, const char *path)
{
	mt_tar tar;
	int error = read_verified(&tar, out, path);

	mt_tar_dispose(&tar);
	return error;
}

/* dir absent, or an empty directory. */
static int dir_usable(const char *dir)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int empty = 1;

	if (lstat(dir, &st) != 0)
		return errno == ENOENT ? 0 : mt_error_set(MT_EIO, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return mt_error_set(MT_EEXISTS, "%s exists and is not a directory", dir);
	if (!(d = opendir(dir)))
		return mt_error_set(MT_EIO, "%s: %s", dir, strerror(errno));
	while (empty && (de = readdir(d)))
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	return empty ? 0 : mt_error_set(MT_EEXISTS, "%s is not empty: a trial is made only in a new "
						    "or empty directory", dir);
}

/* The repository origin.json names, NULL for none (or one that cannot be
 * a line of the marker). Caller frees. */
static char *origin_repository(const mt_tar *tar)
{
	const mt_tar_entry *e = mt_tar_find(tar, BUNDLE_ORIGIN);
	json_t *o = e ? json_loadb((const char *)e->data, e->size, 0, NULL) : NULL;
	const char *repo = mt_json_str(o, "repository");
	char *out = repo && *repo && !strchr(repo, '\n') ? mt_strdup(repo) : NULL;

	json_decref(o);
	return out;
}

static int extract(const mt_tar *tar, const char *path, const char *dir)
{
	const char *base = strrchr(path, '/');
	char *repo;
	mt_buf marker = MT_BUF_INIT;
	int error = mt_mkdir_p(dir);

	for (size_t i = 0; i < tar->n && error == 0; i++) {
		const char *to = bundle_destination(tar->entries[i].name);
		if (to)
			error = bundle_write_file(dir, to, (const char *)tar->entries[i].data,
						  tar->entries[i].size);
	}
	mt_buf_printf(&marker, "%s\n", base ? base + 1 : path);
	repo = origin_repository(tar);
	if (repo) /* the second line: mt_trial_repository reads a relative one so */
		mt_buf_printf(&marker, "%s\n", repo);
	free(repo);
	if (error == 0)
		error = bundle_write_file(dir, MT_EVENTS_FROM_BUNDLE, marker.ptr, marker.len);
	mt_buf_dispose(&marker);
	return error;
}

int mt_bundle_init(mt_bundle_verified *out, const char *path, const char *dir)
{
	mt_trial *t = NULL;
	mt_tar tar;
	int error;

	if ((error = read_verified(&tar, out, path)) < 0)
		return error;
	if (!mt_tar_find(&tar, MT_TRIAL_SPEC))
		error = mt_error_set(MT_EINVALID, "%s: refused: no %s in the bundle", path, MT_TRIAL_SPEC);
	else if ((error = dir_usable(dir)) == 0 && (error = extract(&tar, path, dir)) == 0) {
		mt_events_ignore_local(dir);
		/* the index made from the events now, where a refused line says so */
		error = mt_trial_open(&t, dir, 0);
		mt_trial_free(t);
	}
	mt_tar_dispose(&tar);
	return error;
}
