/* `mtrial scan --path DIR`: the limit a scan is held to (scan.h,
 * mt_scan_options.paths). Private to mt_scan. */
#include "scan_int.h"
#include "error.h"
#include "jsonw.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static void strs_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* One path as the listing writes them: relative, '/'-separated, no "./",
 * no trailing '/'; "" for the whole repository. NULL (error set) when it
 * leaves the repository. */
static char *norm_one(const char *in, const char *root)
{
	size_t rn = strlen(root), n;
	const char *p = in;
	char *out;

	if (in[0] == '/') { /* absolute: inside the work tree */
		if (strncmp(in, root, rn) != 0 || (in[rn] != '/' && in[rn] != '\0')) {
			mt_error_set(MT_EUSAGE, "--path '%s' is outside the repository %s", in, root);
			return NULL;
		}
		p = in + rn;
	}
	while (*p == '/' || (p[0] == '.' && (p[1] == '/' || p[1] == '\0')))
		p += p[0] == '.' ? 1 : 1; /* "./", "/" */
	out = mt_strdup(p);
	for (n = strlen(out); n > 0 && out[n - 1] == '/';)
		out[--n] = '\0';
	if (!strcmp(out, "..") || !strncmp(out, "../", 3) || strstr(out, "/../") ||
	    (n >= 3 && !strcmp(out + n - 3, "/.."))) {
		mt_error_set(MT_EUSAGE, "--path '%s' leaves the repository (give a path inside it, "
			     "relative to its root)", in);
		free(out);
		return NULL;
	}
	return out;
}

int mt_scan__paths_norm(char ***out, size_t *n, const char *const *in, size_t nin,
			const char *root)
{
	char **v;

	*out = NULL;
	*n = 0;
	if (!nin)
		return 0;
	if (!(v = calloc(nin, sizeof(*v))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < nin; i++) {
		if (!(v[i] = norm_one(in[i], root))) {
			strs_free(v, i);
			return MT_EUSAGE;
		}
		if (!v[i][0]) { /* "." is the whole repository: no limit */
			strs_free(v, i + 1);
			return 0;
		}
	}
	*out = v;
	*n = nin;
	return 0;
}

/* 1 if path is p or under it. */
static int under(const char *path, const char *p)
{
	size_t n = strlen(p);
	return strncmp(path, p, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int under_any(const char *path, char **paths, size_t n, unsigned char *seen)
{
	int hit = 0;

	for (size_t i = 0; i < n; i++)
		if (under(path, paths[i]))
			hit = seen[i] = 1;
	return hit;
}

int mt_scan__paths_filter(mt_gitlisting *l, char **paths, size_t n, char ***missing,
			  size_t *nmissing)
{
	unsigned char *seen = calloc(n + 1, 1);
	size_t ke = 0, ks = 0;

	*missing = NULL;
	*nmissing = 0;
	if (!seen || !(*missing = calloc(n + 1, sizeof(**missing)))) {
		free(seen);
		return mt_error_set(MT_EIO, "out of memory");
	}
	for (size_t i = 0; i < l->nentries; i++) {
		if (under_any(l->entries[i].path, paths, n, seen))
			l->entries[ke++] = l->entries[i];
		else
			free(l->entries[i].path);
	}
	for (size_t i = 0; i < l->nskipped; i++) {
		if (under_any(l->skipped[i].path, paths, n, seen)) {
			l->skipped[ks++] = l->skipped[i];
		} else {
			free(l->skipped[i].path);
			free(l->skipped[i].reason);
		}
	}
	l->nentries = ke;
	l->nskipped = ks;
	for (size_t i = 0; i < n; i++)
		if (!seen[i])
			(*missing)[(*nmissing)++] = mt_strdup(paths[i]);
	free(seen);
	return 0;
}

char *mt_scan__paths_members(char **paths, size_t n, char **missing, size_t nmissing)
{
	mt_buf b = MT_BUF_INIT;

	mt_buf_puts(&b, "\"paths\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			mt_buf_puts(&b, ",");
		mt_json_quote(&b, paths[i]);
	}
	mt_buf_puts(&b, "],\"paths_missing\":[");
	for (size_t i = 0; i < nmissing; i++) {
		if (i)
			mt_buf_puts(&b, ",");
		mt_json_quote(&b, missing[i]);
	}
	mt_buf_puts(&b, "]");
	return mt_buf_detach(&b);
}

uint64_t mt_scan__paths_hash(char **paths, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		for (const char *p = paths[i];; p++) {
			h = (h ^ (unsigned char)*p) * 1099511628211ULL; /* the NUL separates */
			if (!*p)
				break;
		}
	return h;
}
