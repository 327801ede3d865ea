/* Content-addressed artefacts: gzip files named by the SHA-256 of what
 * they hold. */
#include "objects.h"
#include "error.h"
#include "sha256.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREFIX "sha256:"
/* libdeflate's levels run 1..12; 6 is zlib's default: a 12 MB scan result
 * in tens of ms, most of the ratio of the slower levels */
#define LEVEL 6

/* 1 when s[0..n) are n lower-case hex digits. */
static int lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return 0;
	return 1;
}

int mt_object_ref_valid(const char *ref)
{
	return ref && strncmp(ref, PREFIX, strlen(PREFIX)) == 0 &&
	       strlen(ref) == MT_OBJECT_REF_LEN && lower_hex(ref + strlen(PREFIX), 64);
}

int mt_object_ref_of_path(const char *rel, char ref[MT_OBJECT_REF_LEN + 1])
{
	static const char dir[] = "sha256/";
	const size_t d = sizeof(dir) - 1;

	ref[0] = '\0';
	if (!rel || strncmp(rel, dir, d) != 0 || strlen(rel) != d + 2 + 1 + 62 ||
	    rel[d + 2] != '/' || !lower_hex(rel + d, 2) || !lower_hex(rel + d + 3, 62))
		return mt_error_set(MT_EINVALID, "%s: not an object's name (sha256/XX/ and the"
				    " other 62 digits of a SHA-256, XX its first two;"
				    " lower-case hex)", rel ? rel : "");
	snprintf(ref, MT_OBJECT_REF_LEN + 1, PREFIX "%.2s%s", rel + d, rel + d + 3);
	return 0;
}

char *mt_object_path(const char *trial_dir, const char *ref)
{
	const char *hex = ref + strlen(PREFIX);
	char rel[128], *path;

	if (!mt_object_ref_valid(ref))
		return NULL;
	snprintf(rel, sizeof(rel), MT_OBJECTS_DIR "/sha256/%.2s/%s", hex, hex + 2);
	path = mt_path_join(trial_dir, rel);
	return path;
}

/* The object's bytes, gzip-compressed: a new buffer into *out. */
static int compress(const void *data, size_t len, char **out, size_t *out_len)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(LEVEL);
	size_t cap;

	*out = NULL;
	if (!c)
		return mt_error_set(MT_EIO, "out of memory compressing an artefact");
	cap = libdeflate_gzip_compress_bound(c, len);
	if ((*out = malloc(cap)))
		*out_len = libdeflate_gzip_compress(c, data, len, *out, cap);
	libdeflate_free_compressor(c);
	if (!*out || !*out_len) {
		free(*out);
		*out = NULL;
		return mt_error_set(MT_EIO, "cannot compress an artefact of %zu bytes", len);
	}
	return 0;
}

void mt_object_ref_for(const void *data, size_t len, char ref[MT_OBJECT_REF_LEN + 1])
{
	char hex[65];

	mt_sha256_hex(hex, data, len);
	snprintf(ref, MT_OBJECT_REF_LEN + 1, PREFIX "%s", hex);
}

int mt_object_pack(const void *data, size_t len, char ref[MT_OBJECT_REF_LEN + 1], char **packed,
		   size_t *packed_len)
{
	mt_object_ref_for(data, len, ref);
	return compress(data, len, packed, packed_len);
}

/* The PID of a temporary file's name, NAME.tmp.PID; 0 when it is not one. */
static long tmp_pid(const char *name)
{
	const char *t = strstr(name, ".tmp."), *p;
	char *end;
	long pid;

	for (; t && strstr(t + 1, ".tmp."); t = strstr(t + 1, ".tmp."))
		;
	if (!t || t == name || !isdigit((unsigned char)t[5]))
		return 0;
	for (p = t + 5; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	errno = 0;
	pid = strtol(t + 5, &end, 10);
	return errno || pid <= 0 ? 0 : pid;
}

/* 1 unless no process has `pid` (kill(2) with no signal: EPERM says one
 * exists, another user's). */
static int pid_alive(long pid)
{
	return kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

int mt_objects_sweep_dir(const char *dir, mt_objects_swept *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int error = 0;

	if (!d)
		return errno == ENOENT ? 0 : mt_error_set(MT_EIO, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		long pid = tmp_pid(de->d_name);
		char *path;
		if (!pid)
			continue;
		if (pid_alive(pid)) {
			out->live++;
			continue;
		}
		path = mt_path_join(dir, de->d_name);
		if (unlink(path) == 0)
			out->removed++;
		else if (errno != ENOENT && error == 0) /* ENOENT: another sweep took it */
			error = mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		free(path);
	}
	closedir(d);
	return error;
}

int mt_objects_sweep(const char *trial_dir, mt_objects_swept *out)
{
	char *root = mt_path_join(trial_dir, MT_OBJECTS_DIR "/sha256");
	DIR *d = opendir(root);
	struct dirent *de;
	int error = 0;

	if (!d) {
		error = errno == ENOENT ? 0 : mt_error_set(MT_EIO, "%s: %s", root, strerror(errno));
		free(root);
		return error;
	}
	while (error == 0 && (de = readdir(d))) {
		char *sub;
		if (de->d_name[0] == '.')
			continue;
		sub = mt_path_join(root, de->d_name);
		if (mt_path_is_dir(sub))
			error = mt_objects_sweep_dir(sub, out);
		free(sub);
	}
	closedir(d);
	free(root);
	return error;
}

int mt_object_put(const char *trial_dir, const void *data, size_t len,
		  char ref[MT_OBJECT_REF_LEN + 1])
{
	char *path, *dir, *packed = NULL;
	size_t packed_len = 0;
	mt_objects_swept swept = {0};
	int error = 0;

	mt_object_ref_for(data, len, ref);
	path = mt_object_path(trial_dir, ref);
	if (mt_path_exists(path))
		goto cleanup; /* named by its content: there is nothing to write */
	dir = mt_strdup(path);
	*strrchr(dir, '/') = '\0';
	error = mt_mkdir_p(dir);
	/* what a writer killed here left; a failure to remove it is not this
	 * write's */
	if (error == 0 && mt_objects_sweep_dir(dir, &swept) < 0)
		mt_error_clear();
	free(dir);
	if (error == 0 && (error = compress(data, len, &packed, &packed_len)) == 0)
		error = mt_file_write_atomic(path, packed, packed_len, 1);
	if (error == MT_EEXISTS) { /* another writer stored the same bytes first */
		mt_error_clear();
		error = 0;
	}
	if (error < 0)
		mt_error_prefix(error, "storing artefact %s: ", ref);
cleanup:
	free(packed);
	free(path);
	return error;
}

int mt_object_put_file(const char *trial_dir, const char *path, char ref[MT_OBJECT_REF_LEN + 1],
		       uint64_t *bytes)
{
	char *text = NULL;
	size_t len = 0;
	int error = mt_file_read(&text, &len, path);

	if (error == 0)
		error = mt_object_put(trial_dir, text, len, ref);
	if (error == 0 && bytes)
		*bytes = len;
	free(text);
	return error;
}

/* Inflates gzip `in` into a new NUL-terminated buffer: the size its
 * trailer gives first (the size modulo 4 GiB), more while it does not
 * fit. */
static int inflate_gz(const char *in, size_t in_len, char **out, size_t *len)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	enum libdeflate_result r = LIBDEFLATE_BAD_DATA;
	size_t cap = 0;

	*out = NULL;
	if (!d)
		return mt_error_set(MT_EIO, "out of memory");
	if (in_len >= 18) {
		const unsigned char *t = (const unsigned char *)in + in_len - 4;
		cap = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
		r = LIBDEFLATE_INSUFFICIENT_SPACE;
	}
	/* deflate packs at most 1032 to 1: a size beyond says the trailer lies */
	while (r == LIBDEFLATE_INSUFFICIENT_SPACE && cap <= in_len * 1032) {
		free(*out);
		if (!(*out = malloc(cap + 1)))
			break;
		r = libdeflate_gzip_decompress(d, in, in_len, *out, cap, len);
		cap += (size_t)1 << 32; /* the trailer gives the size modulo 4 GiB */
	}
	libdeflate_free_decompressor(d);
	if (r != LIBDEFLATE_SUCCESS) {
		free(*out);
		*out = NULL;
		return mt_error_set(MT_EINVALID, "not a whole gzip stream");
	}
	(*out)[*len] = '\0';
	return 0;
}

static int not_a_name(const char *ref)
{
	return mt_error_set(MT_EINVALID, "'%.80s' is not the name of an artefact (sha256:HEX)",
			    ref ? ref : "");
}

/* 0 when content[0..len) hashes to ref, else MT_EINVALID saying to what. */
static int hashes_to(const char *ref, const char *content, size_t len)
{
	char hex[65];

	mt_sha256_hex(hex, content, len);
	if (strcmp(hex, ref + strlen(PREFIX)) != 0)
		return mt_error_set(MT_EINVALID, "its content hashes to sha256:%s", hex);
	return 0;
}

int mt_object_check(const char *ref, const void *packed, size_t len)
{
	char *content = NULL;
	size_t clen = 0;
	int error;

	if (!mt_object_ref_valid(ref))
		return not_a_name(ref);
	if ((error = inflate_gz(packed, len, &content, &clen)) == 0)
		error = hashes_to(ref, content, clen);
	free(content);
	return error;
}

int mt_object_get(const char *trial_dir, const char *ref, char **out, size_t *len)
{
	char *path = mt_object_path(trial_dir, ref), *packed = NULL;
	size_t packed_len = 0;
	int error;

	*out = NULL;
	*len = 0;
	if (!path)
		return not_a_name(ref);
	if (!mt_path_exists(path)) {
		error = mt_error_set(MT_ENOTFOUND, "artefact %s is missing (%s)", ref, path);
		goto cleanup;
	}
	if ((error = mt_file_read(&packed, &packed_len, path)) < 0)
		goto cleanup;
	if ((error = inflate_gz(packed, packed_len, out, len)) == 0)
		error = hashes_to(ref, *out, *len);
	if (error < 0) {
		mt_error_prefix(error, "artefact %s is corrupt (%s): ", ref, path);
		free(*out);
		*out = NULL;
	}
cleanup:
	free(packed);
	free(path);
	return error;
}

/* like's extension (".csv"), "" when it has none or a long one. */
static const char *extension(const char *like)
{
	const char *base = like ? strrchr(like, '/') : NULL, *dot;

	base = base ? base + 1 : like;
	dot = base ? strrchr(base, '.') : NULL;
	return dot && dot != base && strlen(dot) <= 16 ? dot : "";
}

int mt_object_get_file(const char *trial_dir, const char *ref, const char *like,
		       char **path_out)
{
	const char *tmp = getenv("TMPDIR"), *ext = extension(like);
	char *text = NULL, *path;
	size_t len = 0, off = 0;
	int fd, error = mt_object_get(trial_dir, ref, &text, &len);

	*path_out = NULL;
	if (error < 0)
		return error;
	path = malloc(strlen(tmp && *tmp ? tmp : "/tmp") + strlen(ext) + 32);
	sprintf(path, "%s/mtrial-object-XXXXXX%s", tmp && *tmp ? tmp : "/tmp", ext);
	if ((fd = mkstemps(path, (int)strlen(ext))) < 0) {
		error = mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		goto cleanup;
	}
	while (error == 0 && off < len) {
		ssize_t w = write(fd, text + off, len - off);
		if (w < 0 && errno != EINTR)
			error = mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		off += w > 0 ? (size_t)w : 0;
	}
	close(fd);
	if (error < 0)
		unlink(path);
cleanup:
	if (error == 0)
		*path_out = path;
	else
		free(path);
	free(text);
	return error;
}

json_t *mt_object_ref_json(const char *ref, uint64_t bytes)
{
	return json_pack("{ss, sI}", "object", ref, "bytes", (json_int_t)bytes);
}

int mt_object_ref_of(const json_t *v, const char **ref, uint64_t *bytes)
{
	json_t *o = json_object_get(v, "object"), *b = json_object_get(v, "bytes");

	if (json_object_size(v) != 2 || !mt_object_ref_valid(json_string_value(o)) ||
	    !json_is_integer(b) || json_integer_value(b) < 0)
		return 0;
	*ref = json_string_value(o);
	if (bytes)
		*bytes = (uint64_t)json_integer_value(b);
	return 1;
}
