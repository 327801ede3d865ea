/* mtrial sync: see sync_trial.h. The git side (trees, commits, refs,
 * fetch and push) is git/gitsync.c; here the trial's files and the union. */
#include "sync_trial.h"
#include "error.h"
#include "events.h"
#include "gitsync.h"
#include "jsonutil.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EVENTS_DIR "events"
#define OBJECTS_DIR "objects"

/* One sync: the repository, the trial's files, the remote's tree. */
struct sync {
	mt_gitrepo *repo;
	const char *dir; /* the trial directory */
	mt_sync_trial_result *out;
	char ref[PATH_MAX], tracking[PATH_MAX];
	mt_gitsync_file *remote; /* the remote tip's files, sorted */
	size_t nremote;
	size_t *rlen;  /* each remote file's size */
	char *taken;   /* 1: merged into the local files; 0: refused, the remote's
			  copy kept; 2: refused, the local copy replaces it */
	mt_gitsync_file *files; /* the union */
	size_t nfiles, capfiles;
	size_t sent_events, sent_objects;
	int reindex;     /* the index must be made again (marked in MT_SYNC_FILE) */
	/* the index's last event (time, then id) before the sync: lines
	 * received after it are indexed as they are, one before it asks for
	 * the index to be made again (its local ids in the union's order) */
	int64_t last_t;
	char last_uid[64];
	char writer[96]; /* this host's writer, "" when it has none yet */
};

static size_t count_lines(const char *s, size_t n)
{
	size_t lines = 0;
	for (const char *p = s, *end = s + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		lines++;
	return lines;
}

static void refuse(struct sync *s, const char *file, const char *reason)
{
	mt_sync_trial_result *o = s->out;

	for (size_t i = 0; i < o->nrefused; i++)
		if (strcmp(o->refused[i].file, file) == 0)
			return; /* said once, though every round meets it */
	o->refused = realloc(o->refused, (o->nrefused + 1) * sizeof(*o->refused));
	if (!o->refused)
		abort();
	o->refused[o->nrefused].file = mt_strdup(file);
	o->refused[o->nrefused].reason = mt_strdup(reason);
	o->nrefused++;
}

/* The ref's KEY: "trial" for REPO/.mtrial, else "trial-" and the trial
 * directory's path in the repository, sanitised. */
static void trial_key(char *out, size_t size, const char *root, const char *dir)
{
	char rr[PATH_MAX], rd[PATH_MAX];
	const char *rel = NULL;
	size_t n, len;

	if (realpath(root, rr) && realpath(dir, rd)) {
		len = strlen(rr);
		if (strncmp(rd, rr, len) == 0 && rd[len] == '/')
			rel = rd + len + 1;
	}
	if (!rel || strcmp(rel, MT_TRIAL_DEFAULT_DIR) == 0) {
		snprintf(out, size, "trial");
		return;
	}
	n = (size_t)snprintf(out, size, "trial-");
	for (; *rel && n + 1 < size; rel++)
		out[n++] = (*rel >= 'a' && *rel <= 'z') || (*rel >= 'A' && *rel <= 'Z') ||
				   (*rel >= '0' && *rel <= '9') || *rel == '-'
			       ? *rel
			       : '_';
	out[n] = '\0';
}

/* A remote's name (or URL, or path) as one component of a ref name. */
static void remote_component(char *out, size_t size, const char *remote)
{
	size_t n = 0;

	for (const char *p = remote; *p && n + 1 < size && n < 100; p++)
		out[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				   (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'
			       ? *p
			       : '_';
	out[n] = '\0';
	if (!n)
		snprintf(out, size, "remote");
}

/* Why a path of the remote's tree cannot be one of the trial's files, or
 * NULL when it can: events/NAME.jsonl, or objects/... */
static const char *bad_path(const char *path)
{
	const char *c = path, *slash;

	if (strncmp(path, EVENTS_DIR "/", sizeof(EVENTS_DIR)) != 0 &&
	    strncmp(path, OBJECTS_DIR "/", sizeof(OBJECTS_DIR)) != 0)
		return "outside events/ and objects/";
	for (; c; c = slash ? slash + 1 : NULL) {
		slash = strchr(c, '/');
		size_t len = slash ? (size_t)(slash - c) : strlen(c);
		if (len == 0 || c[0] == '.' || (len >= 2 && memcmp(c, "..", 2) == 0))
			return "a path with an empty, '.' or '..' component";
	}
	if (strncmp(path, EVENTS_DIR "/", sizeof(EVENTS_DIR)) == 0) {
		const char *name = path + sizeof(EVENTS_DIR);
		size_t len = strlen(name);
		if (strchr(name, '/') || len <= strlen(MT_EVENTS_EXT) ||
		    strcmp(name + len - strlen(MT_EVENTS_EXT), MT_EVENTS_EXT) != 0)
			return "not an events file (events/WRITER.jsonl)";
	}
	return NULL;
}

/* 1 when rel is this host's writer's file: only this host appends to it,
 * so its local copy is the record. */
static int own_file(const struct sync *s, const char *rel)
{
	size_t n = strlen(s->writer);
	return *s->writer && !strncmp(rel, EVENTS_DIR "/", sizeof(EVENTS_DIR)) &&
	       !strncmp(rel + sizeof(EVENTS_DIR), s->writer, n) &&
	       !strcmp(rel + sizeof(EVENTS_DIR) + n, MT_EVENTS_EXT);
}

/* Reads the whole of fd from its start. */
static int read_fd(int fd, mt_buf *b, const char *path)
{
	char chunk[65536];
	off_t off = 0;
	ssize_t got;

	while ((got = pread(fd, chunk, sizeof(chunk), off)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		}
		mt_buf_put(b, chunk, (size_t)got);
		off += got;
	}
	return 0;
}

static int write_all(int fd, const char *p, size_t n, const char *path)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The line (1-based) holding byte `at` of s. */
static size_t line_at(const char *s, size_t at)
{
	return count_lines(s, at) + 1;
}

/* 1 when a line of [p, end) is not an event after the index's last one
 * (time, then id): taken in, it would get a local id out of the union's
 * order, or it is not an event at all (the index says why when made). */
static int before_last(const struct sync *s, const char *p, const char *end)
{
	const char *nl;

	for (; p < end; p = nl + 1) {
		json_t *o;
		const char *id;
		json_int_t t;
		int before;
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		o = json_loadb(p, (size_t)(nl - p), 0, NULL);
		id = mt_json_str(o, "id");
		t = json_integer_value(json_object_get(o, "t"));
		before = !id || t < s->last_t || (t == s->last_t && strcmp(id, s->last_uid) <= 0);
		json_decref(o);
		if (before)
			return 1;
	}
	return 0;
}

/* Marks in MT_SYNC_FILE, before the first line received is appended,
 * that the index must be made again: a sync killed before it did it
 * leaves the mark for the next one. */
static void mark_reindex(struct sync *s)
{
	char *path = mt_path_join(s->dir, MT_SYNC_FILE), *text;
	json_t *o;

	if (s->reindex & 2)
		goto done;
	if (!(o = json_load_file(path, 0, NULL)) || !json_is_object(o)) {
		json_decref(o);
		o = json_object();
	}
	json_object_set_new(o, "reindex", json_true());
	if ((text = json_dumps(o, JSON_COMPACT)) &&
	    mt_file_write_atomic(path, text, strlen(text), 0) < 0)
		mt_error_clear(); /* the rebuild at the end still comes */
	free(text);
	json_decref(o);
	s->reindex |= 3;
done:
	free(path);
}

/* The id of the event on the line of s[0..n) that starts at `start`, or
 * NULL (caller frees). */
static char *event_id_at(const char *s, size_t n, size_t start)
{
	const char *nl = memchr(s + start, '\n', n - start);
	json_t *o = json_loadb(s + start, (nl ? (size_t)(nl - s) : n) - start, 0, NULL);
	const char *id = mt_json_str(o, "id");
	char *out = id ? mt_strdup(id) : NULL;

	json_decref(o);
	return out;
}

/* 1 when the line holding byte `at` (where a and b part) is one event,
 * the same id, in both. */
static int same_event(const char *a, size_t alen, const char *b, size_t blen, size_t at)
{
	size_t start = at;
	char *ia, *ib;
	int same;

	while (start && a[start - 1] != '\n') /* a and b agree before `at` */
		start--;
	ia = event_id_at(a, alen, start);
	ib = event_id_at(b, blen, start);
	same = ia && ib && !strcmp(ia, ib);
	free(ia);
	free(ib);
	return same;
}

/* Merges the remote's version of an events file into the local one, under
 * the writer's lock (the lock its appends take): the longer wins when one
 * is a prefix of the other, and the local file only ever grows. *taken 1
 * when merged, 0 when refused, 2 when refused but this host's own copy
 * is the record (`own`, and the copies part on one event). */
static int merge_events(struct sync *s, const char *path, int own, const char *rdata,
			size_t rlen, int *taken, size_t *line)
{
	mt_buf local = MT_BUF_INIT;
	int fd, error = 0;
	size_t common = 0, llen;

	*taken = 0;
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		error = mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		goto cleanup;
	}
	if ((error = read_fd(fd, &local, path)) < 0)
		goto cleanup;
	llen = local.len;
	while (common < llen && common < rlen && local.ptr[common] == rdata[common])
		common++;
	if (common < llen && common < rlen) {
		*line = line_at(rdata, common);
		/* this host's own event changed elsewhere: its copy here is the
		 * record; a file of this name made anew here (the old one
		 * lost) has other events, and the remote's copy stays */
		if (own && same_event(local.ptr, llen, rdata, rlen, common))
			*taken = 2;
		goto cleanup; /* refused by the caller */
	}
	*taken = 1;
	if (rlen > llen) {
		if (before_last(s, rdata + llen, rdata + rlen))
			mark_reindex(s);
		if ((error = write_all(fd, rdata + llen, rlen - llen, path)) < 0 ||
		    (fdatasync(fd) != 0 && (error = mt_error_set(MT_EIO, "%s: %s", path,
								  strerror(errno))) < 0))
			goto cleanup;
		s->out->events_received += count_lines(rdata + llen, rlen - llen);
	}
cleanup:
	if (fd >= 0)
		close(fd);
	mt_buf_dispose(&local);
	return error;
}

/* An object is immutable: a missing one is copied, another content under
 * the same name is refused (*taken 0). */
static int merge_object(struct sync *s, const char *path, const char *rdata, size_t rlen,
			int *taken)
{
	char *local = NULL, *dir = mt_strdup(path), *slash = strrchr(dir, '/');
	size_t llen;
	int error = 0;

	*taken = 1;
	if (mt_path_exists(path)) {
		if ((error = mt_file_read(&local, &llen, path)) == 0)
			*taken = llen == rlen && memcmp(local, rdata, rlen) == 0;
	} else {
		*slash = '\0';
		if ((error = mt_mkdir_p(dir)) == 0 &&
		    (error = mt_file_write_atomic(path, rdata, rlen, 1)) == 0)
			s->out->objects_received++;
		else if (error == MT_EEXISTS) /* written meanwhile by another sync */
			error = merge_object(s, path, rdata, rlen, taken);
	}
	free(local);
	free(dir);
	return error;
}

/* Takes the remote's files into the trial's, refusing those that cannot
 * be (named in s->out->refused). */
static int merge_remote(struct sync *s)
{
	char *events = mt_path_join(s->dir, EVENTS_DIR);
	int error = mt_mkdir_p(events);

	free(events);
	for (size_t i = 0; i < s->nremote && !error; i++) {
		const mt_gitsync_file *f = &s->remote[i];
		const char *why = f->why ? f->why : bad_path(f->path);
		char *data = NULL, *path, why_line[300];
		size_t at = 0;
		int taken = 0;

		s->taken[i] = 0;
		if (why) {
			refuse(s, f->path, why);
			continue;
		}
		if ((error = mt_gitsync_blob(s->repo, f->oid, &data, &s->rlen[i])) < 0)
			break;
		path = mt_path_join(s->dir, f->path);
		if (f->path[0] == 'e') {
			error = merge_events(s, path, own_file(s, f->path), data, s->rlen[i],
					     &taken, &at);
			snprintf(why_line, sizeof(why_line), "the remote's copy and this one differ"
				 " from line %zu on (neither is the start of the other: changed"
				 " after it was written?); the local file is kept as it is", at);
			if (!error && taken == 2)
				refuse(s, f->path, "the remote's copy of this host's own file has"
				       " an event of it changed (after it was written?): the local"
				       " one replaces it");
			else if (!error && !taken)
				refuse(s, f->path, why_line);
		} else {
			error = merge_object(s, path, data, s->rlen[i], &taken);
			if (!error && !taken)
				refuse(s, f->path, "another content under the same name here;"
				       " the local file is kept as it is");
		}
		s->taken[i] = (char)taken;
		free(path);
		free(data);
	}
	return error;
}

static void add_union(struct sync *s, const char *path, const char *oid)
{
	if (s->nfiles == s->capfiles) {
		s->capfiles = s->capfiles ? s->capfiles * 2 : 64;
		if (!(s->files = realloc(s->files, s->capfiles * sizeof(*s->files))))
			abort();
	}
	s->files[s->nfiles].path = mt_strdup(path);
	snprintf(s->files[s->nfiles].oid, 41, "%s", oid);
	s->files[s->nfiles].why = NULL;
	s->nfiles++;
}

/* The remote file at `path`, or -1. */
static long find_remote(const struct sync *s, const char *path)
{
	size_t lo = 0, hi = s->nremote;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->remote[mid].path, path);
		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Adds a local file to the union: a refused one keeps the remote's blob,
 * but for this host's own file. */
static int add_local(struct sync *s, const char *rel, const char *path)
{
	long ri = find_remote(s, rel);
	int events = rel[0] == 'e', fd = -1, error = 0;
	mt_buf data = MT_BUF_INIT;
	char oid[41];

	if (ri >= 0 && !s->taken[ri] && !s->remote[ri].why) {
		add_union(s, rel, s->remote[ri].oid);
		return 0;
	}
	/* whole lines: a writer's append holds the lock for its write */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (events && flock(fd, LOCK_SH) != 0)) {
		error = mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		goto cleanup;
	}
	if ((error = read_fd(fd, &data, path)) < 0 ||
	    (error = mt_gitsync_put(s->repo, mt_buf_cstr(&data), data.len, oid)) < 0)
		goto cleanup;
	add_union(s, rel, oid);
	if (events) {
		s->out->events += count_lines(mt_buf_cstr(&data), data.len);
		s->out->writers++;
	}
	if (ri < 0 && events)
		s->sent_events += count_lines(mt_buf_cstr(&data), data.len);
	else if (ri < 0)
		s->sent_objects++;
	else if (events && s->taken[ri] == 1 && data.len > s->rlen[ri])
		s->sent_events += count_lines(data.ptr + s->rlen[ri], data.len - s->rlen[ri]);
cleanup:
	if (fd >= 0)
		close(fd);
	mt_buf_dispose(&data);
	return error;
}

/* Adds the files under dir/rel to the union, every level. Files being
 * written atomically (NAME.tmp.PID) and dot files are not the trial's. */
static int walk(struct sync *s, const char *rel, int depth)
{
	char *path = mt_path_join(s->dir, rel);
	DIR *d = opendir(path);
	struct dirent *e;
	int error = 0;

	if (!d) {
		free(path);
		return errno == ENOENT ? 0 : mt_error_set(MT_EIO, "%s: %s", rel, strerror(errno));
	}
	while (!error && (e = readdir(d))) {
		char *sub, *full;
		struct stat st;
		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp."))
			continue;
		sub = mt_path_join(rel, e->d_name);
		full = mt_path_join(path, e->d_name);
		if (lstat(full, &st) != 0)
			error = errno == ENOENT ? 0 : mt_error_set(MT_EIO, "%s: %s", full,
								    strerror(errno));
		else if (S_ISDIR(st.st_mode) && rel[0] == 'o' && depth < 8)
			error = walk(s, sub, depth + 1);
		else if (S_ISREG(st.st_mode) && !bad_path(sub))
			error = add_local(s, sub, full);
		free(sub);
		free(full);
	}
	closedir(d);
	free(path);
	return error;
}

/* The union's tree: the local files after the merge. */
static int union_tree(struct sync *s, char tree[41])
{
	int error;

	mt_gitsync_files_free(s->files, s->nfiles);
	s->files = NULL;
	s->nfiles = s->capfiles = 0;
	s->sent_events = s->sent_objects = 0;
	s->out->events = s->out->writers = 0;
	if ((error = walk(s, EVENTS_DIR, 0)) < 0 || (error = walk(s, OBJECTS_DIR, 0)) < 0)
		return error;
	return mt_gitsync_tree(s->repo, s->files, s->nfiles, tree);
}

/* The commit to push: the local tip when it already holds this tree over
 * the remote's, else a new one over both tips. */
static int make_commit(struct sync *s, const char *tree, const char *rtip, const char *ltip,
		       char commit[41])
{
	char ltree[41], msg[200], host[128] = "";
	const char *p1 = rtip, *p2 = NULL;
	int rc;

	if (*ltip && mt_gitsync_commit_tree(s->repo, ltip, ltree) == 0 && !strcmp(ltree, tree) &&
	    (!*rtip || mt_gitsync_contains(s->repo, ltip, rtip) == 1)) {
		snprintf(commit, 41, "%s", ltip); /* made by a sync that did not push */
		return 0;
	}
	mt_error_clear();
	if (*ltip && strcmp(ltip, rtip) != 0) {
		if (!*rtip || (rc = mt_gitsync_contains(s->repo, ltip, rtip)) == 1)
			p1 = ltip;
		else if (rc == 0 && mt_gitsync_contains(s->repo, rtip, ltip) == 0)
			p2 = ltip;
	}
	gethostname(host, sizeof(host) - 1);
	snprintf(msg, sizeof(msg), "mtrial sync from %s: %zu events files, %zu objects\n", host,
		 s->out->writers, s->nfiles - s->out->writers);
	return mt_gitsync_commit(s->repo, tree, p1, p2, msg, commit);
}

/* One round: fetch, merge, commit, push. 0 when done, 1 when the remote
 * moved before the push (another round), else an error. */
static int round_trip(struct sync *s, const char *remote)
{
	char rtip[41], ltip[41], rtree[41] = "", tree[41], commit[41];
	const char *pause = getenv("MTRIAL_SYNC_TEST_PAUSE");
	int error;

	mt_gitsync_files_free(s->remote, s->nremote);
	s->remote = NULL;
	s->nremote = 0;
	if ((error = mt_gitsync_fetch(s->repo, remote, s->ref, s->tracking, rtip)) < 0 ||
	    (error = mt_gitsync_ref(s->repo, s->ref, ltip)) < 0)
		return error;
	if (*rtip && ((error = mt_gitsync_list(s->repo, rtip, &s->remote, &s->nremote)) < 0 ||
		      (error = mt_gitsync_commit_tree(s->repo, rtip, rtree)) < 0))
		return error;
	free(s->rlen);
	free(s->taken);
	s->rlen = calloc(s->nremote + 1, sizeof(*s->rlen));
	s->taken = calloc(s->nremote + 1, 1);
	if ((error = merge_remote(s)) < 0 || (error = union_tree(s, tree)) < 0)
		return error;
	snprintf(s->out->tip, sizeof(s->out->tip), "%s", rtip);
	if (!strcmp(tree, rtree) || (!*rtip && !s->nfiles)) {
		/* nothing to send: the local ref follows the remote's */
		if (*rtip && strcmp(ltip, rtip) != 0)
			error = mt_gitsync_set_ref(s->repo, s->ref, rtip, "mtrial sync: fetched");
		return error;
	}
	if ((error = make_commit(s, tree, rtip, ltip, commit)) < 0 ||
	    (error = mt_gitsync_set_ref(s->repo, s->ref, commit, "mtrial sync")) < 0)
		return error;
	if (pause && *pause) /* the tests' window to kill a sync before its push */
		sleep((unsigned)atoi(pause));
	if ((error = mt_gitsync_push(s->repo, remote, s->ref)) != 0)
		return error;
	s->out->pushed = 1;
	s->out->events_sent = s->sent_events;
	s->out->objects_sent = s->sent_objects;
	snprintf(s->out->tip, sizeof(s->out->tip), "%s", commit);
	return mt_gitsync_set_ref(s->repo, s->tracking, commit, "mtrial sync: pushed");
}

/* This host's writer, when it has written: its file is its own. MT_ESTATE
 * in a trial made from a bundle: a copy of someone's record, which a sync
 * would push into their team's remote as if recorded there (and take
 * into the copy what was never in the bundle). */
static int this_writer(struct sync *s)
{
	char *path = mt_path_join(s->dir, "writer");
	mt_events *ev = NULL;
	const char *w = NULL;
	int error;

	if ((error = mt_events_open(&ev, s->dir)) < 0 ||
	    (error = mt_events_refuse_read_only(ev)) < 0)
		goto cleanup;
	if (mt_path_exists(path) && mt_events_writer(ev, &w) == 0 && w)
		snprintf(s->writer, sizeof(s->writer), "%s", w);
	mt_error_clear();
cleanup:
	mt_events_free(ev);
	free(path);
	return error;
}

/* The hosts among the union's writers ("HOST-0123456789abcdef.jsonl"). */
static size_t count_machines(const struct sync *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nfiles; i++) {
		const char *a = s->files[i].path, *dash = strrchr(a, '-');
		size_t len = dash ? (size_t)(dash - a) : strlen(a), j;
		if (strncmp(a, EVENTS_DIR "/", sizeof(EVENTS_DIR)) != 0)
			continue;
		for (j = 0; j < i; j++) { /* a few writers: quadratic is fine */
			const char *b = s->files[j].path, *d = strrchr(b, '-');
			if ((d ? (size_t)(d - b) : strlen(b)) == len && !strncmp(a, b, len))
				break;
		}
		n += j == i;
	}
	return n;
}

/* Keeps MT_SYNC_FILE out of git beside the trial's other local files. */
static void ignore_record(const char *dir)
{
	char *path = mt_path_join(dir, ".gitignore"), *text = NULL;
	static const char line[] = "/" MT_SYNC_FILE "\n";
	size_t len = 0;
	FILE *f;

	if (mt_file_read(&text, &len, path) < 0)
		mt_error_clear();
	if (!text || !strstr(text, line)) {
		if ((f = fopen(path, "a"))) {
			if (len && text[len - 1] != '\n')
				fputc('\n', f);
			fputs(line, f);
			fclose(f);
		}
	}
	free(text);
	free(path);
}

/* Writes MT_SYNC_FILE: when, with which remote, its tip, the union's size. */
static int record_sync(const char *dir, const mt_sync_trial_result *r)
{
	json_t *o = json_pack("{sI, ss, ss, ss, sI, sI, sI}", "at_ms", (json_int_t)r->at_ms,
			      "remote", r->remote, "ref", r->ref, "tip", r->tip, "events",
			      (json_int_t)r->events, "writers", (json_int_t)r->writers,
			      "machines", (json_int_t)r->machines);
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL, *path = mt_path_join(dir, MT_SYNC_FILE);
	int error = text ? mt_file_write_atomic(path, text, strlen(text), 0)
			 : mt_error_set(MT_EIO, "out of memory");

	ignore_record(dir);
	json_decref(o);
	free(text);
	free(path);
	return error;
}

/* 1 when a sync that received events was stopped before it made the
 * index again. */
static int reindex_marked(const char *dir)
{
	char *path = mt_path_join(dir, MT_SYNC_FILE);
	json_t *o = json_load_file(path, 0, NULL);
	int marked = json_is_true(json_object_get(o, "reindex"));

	json_decref(o);
	free(path);
	return marked;
}

/* The repository the trial's directory is in, else (a trial kept outside
 * it) the trial's repository (trial.yaml workload.repository). */
static int open_repo(mt_gitrepo **out, const mt_trial *t)
{
	mt_trial read = *t;
	char *repo;
	int error;

	if (mt_gitrepo_open(out, t->dir) == 0)
		return 0;
	if (!read.spec && mt_spec_load(&read.spec, t->spec_path) < 0)
		read.spec = NULL;
	repo = mt_trial_repository(&read);
	if (read.spec != t->spec)
		mt_spec_free(read.spec);
	if (!repo)
		return mt_error_prefix(MT_EINVALID, "the trial's directory is not in a git"
				       " repository: ");
	mt_error_clear();
	if ((error = mt_gitrepo_open(out, repo)) < 0)
		mt_error_prefix(error, "the trial's repository (trial.yaml workload.repository): ");
	free(repo);
	return error;
}

int mt_sync_trial_run(mt_sync_trial_result *out, mt_trial *t, const mt_sync_trial_options *o)
{
	const char *remote = o && o->remote && *o->remote ? o->remote : MT_SYNC_DEFAULT_REMOTE;
	int attempts = o && o->attempts > 0 ? o->attempts : 5, error = 0;
	struct sync s = {0};
	char key[PATH_MAX - 256], rc[128]; /* both fit in s.tracking */

	memset(out, 0, sizeof(*out));
	out->remote = mt_strdup(remote);
	s.out = out;
	s.dir = t->dir;
	if ((error = this_writer(&s)) < 0 || (error = open_repo(&s.repo, t)) < 0)
		goto cleanup;
	trial_key(key, sizeof(key), mt_gitrepo_path(s.repo), t->dir);
	remote_component(rc, sizeof(rc), remote);
	snprintf(s.ref, sizeof(s.ref), "refs/mtrial/%s", key);
	snprintf(s.tracking, sizeof(s.tracking), "refs/mtrial/remotes/%s/%s", rc, key);
	out->ref = mt_strdup(s.ref);
	s.reindex = reindex_marked(t->dir);
	if (t->journal && (error = mt_journal_last_event(t->journal, &s.last_t, s.last_uid,
							 sizeof(s.last_uid))) < 0)
		goto cleanup;
	for (error = 1; error == 1 && out->attempts < attempts;) {
		if (out->attempts++)
			usleep(100000u * (unsigned)out->attempts);
		error = round_trip(&s, remote);
	}
	if (error == 1)
		error = mt_error_set(MT_EIO, "%s kept moving: gave up after %d attempts to push %s",
				     remote, attempts, s.ref);
	if (error < 0)
		goto cleanup;
	out->machines = count_machines(&s);
	out->at_ms = mt_now_ms();
	/* the index takes the new events when the journal opens, in the
	 * union's order (time, then id) when all come after its last one;
	 * when some are older than that, the index is made again: the local
	 * ids then read the same on every clone */
	mt_journal_free(t->journal);
	t->journal = NULL;
	if ((error = mt_journal_open(&t->journal, t->journal_path, 0)) == 0 && s.reindex) {
		error = mt_journal_rebuild(t->journal);
		out->reindexed = 1;
	}
	if (error == 0)
		error = record_sync(t->dir, out); /* and the mark goes */
cleanup:
	mt_gitsync_files_free(s.remote, s.nremote);
	mt_gitsync_files_free(s.files, s.nfiles);
	free(s.rlen);
	free(s.taken);
	mt_gitrepo_free(s.repo);
	return error;
}

void mt_sync_trial_result_dispose(mt_sync_trial_result *r)
{
	for (size_t i = 0; i < r->nrefused; i++) {
		free(r->refused[i].file);
		free(r->refused[i].reason);
	}
	free(r->refused);
	free(r->remote);
	free(r->ref);
	memset(r, 0, sizeof(*r));
}

int mt_sync_trial_last(mt_sync_last *out, const char *trial_dir)
{
	char *path = mt_path_join(trial_dir, MT_SYNC_FILE);
	json_t *o = json_load_file(path, 0, NULL);
	const char *remote = mt_json_str(o, "remote"), *tip = mt_json_str(o, "tip");

	memset(out, 0, sizeof(*out));
	free(path);
	if (!o || !remote || mt_json_int(o, "at_ms") <= 0) {
		json_decref(o);
		return 0;
	}
	out->at_ms = mt_json_int(o, "at_ms");
	out->remote = mt_strdup(remote);
	snprintf(out->tip, sizeof(out->tip), "%s", tip ? tip : "");
	out->events = (size_t)mt_json_int(o, "events");
	out->writers = (size_t)mt_json_int(o, "writers");
	out->machines = (size_t)mt_json_int(o, "machines");
	json_decref(o);
	return 1;
}

void mt_sync_last_dispose(mt_sync_last *l)
{
	free(l->remote);
	memset(l, 0, sizeof(*l));
}
