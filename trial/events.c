/* The event log: writer ids, event ids, appending a line, reading lines
 * back with their file and line. */
#include "events.h"
#include "error.h"
#include "jsonutil.h"
#include "jsonw.h"
#include "sha256.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define WRITER_FILE "writer"

struct mt_events {
	char *trial_dir, *dir;
	char *writer;          /* NULL until first asked */
	char host[256];
	char *author_name, *author_email; /* NULL until first made */
};

int mt_events_open(mt_events **out, const char *dir)
{
	mt_events *ev = calloc(1, sizeof(*ev));

	*out = NULL;
	if (!ev)
		return mt_error_set(MT_EIO, "out of memory");
	ev->trial_dir = mt_strdup(dir);
	ev->dir = mt_path_join(dir, MT_EVENTS_DIR);
	if (gethostname(ev->host, sizeof(ev->host) - 1) != 0 || !ev->host[0])
		strcpy(ev->host, "localhost");
	*out = ev;
	return 0;
}

void mt_events_free(mt_events *ev)
{
	if (!ev)
		return;
	free(ev->trial_dir);
	free(ev->dir);
	free(ev->writer);
	free(ev->author_name);
	free(ev->author_email);
	free(ev);
}

const char *mt_events_dir(const mt_events *ev)
{
	return ev->dir;
}

const char *mt_events_trial_dir(const mt_events *ev)
{
	return ev->trial_dir;
}

static uint64_t random64(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v)) /* no entropy yet: still unique enough */
		v = ((uint64_t)getpid() << 40) ^ (uint64_t)mt_now_ms() ^ (uint64_t)(uintptr_t)&v;
	return v;
}

void mt_event_id(char out[MT_EVENT_ID_LEN + 1], int64_t ms)
{
	/* monotonic within a process: the same ms counts up from the last id */
	static int64_t last_ms = -1;
	static uint64_t last_rand;
	uint64_t r;

	if (ms == last_ms) {
		r = (last_rand + 1) & 0xffffffffffffffULL;
	} else {
		r = random64() & 0x7fffffffffffffULL; /* room to count up */
		last_ms = ms;
	}
	last_rand = r;
	snprintf(out, MT_EVENT_ID_LEN + 1, "%012llx%014llx",
		 (unsigned long long)ms & 0xffffffffffffULL, (unsigned long long)r);
}

/* The host's short name as a file name: up to the first dot, letters,
 * digits, '-' and '_' only. */
static void short_host(char *out, size_t size, const char *host)
{
	size_t n = 0;

	for (const char *p = host; *p && *p != '.' && n + 1 < size && n < 32; p++)
		out[n++] = isalnum((unsigned char)*p) || *p == '-' || *p == '_' ? *p : '_';
	out[n] = '\0';
	if (!n)
		snprintf(out, size, "host");
}

/* The writer remembered for this host in dir/writer ("HOST WRITER" lines:
 * a trial directory on a shared disk has one a host), or NULL. */
static char *remembered_writer(const char *path, const char *host)
{
	char *text = NULL, *line, *save = NULL, *found = NULL;
	size_t len, hl = strlen(host);

	if (mt_file_read(&text, &len, path) < 0) {
		mt_error_clear();
		return NULL;
	}
	for (line = strtok_r(text, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, host, hl) == 0 && line[hl] == ' ' && line[hl + 1])
			found = mt_strdup(line + hl + 1);
	free(text);
	return found;
}

void mt_events_ignore_local(const char *trial_dir)
{
	char *path = mt_path_join(trial_dir, ".gitignore");
	static const char text[] = "# local to this clone (mtrial): the writer of this host, and\n"
				   "# journal.db, an index made again from events/ when missing\n"
				   "/" WRITER_FILE "\n/journal.db\n/journal.db-*\n"
				   "# when mtrial sync last ran, and with what\n/synced\n";

	if (!mt_path_exists(path) && mt_file_write_atomic(path, text, strlen(text), 1) < 0)
		mt_error_clear(); /* a read-only or raced directory: the writer still works */
	free(path);
}

int mt_events_writer(mt_events *ev, const char **out)
{
	char *path = mt_path_join(ev->trial_dir, WRITER_FILE), line[400], name[64];
	int fd = -1, error = 0;

	if (ev->writer)
		goto done;
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		error = mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		goto done;
	}
	/* under the lock: two first writes on one host make one writer */
	if (!(ev->writer = remembered_writer(path, ev->host))) {
		short_host(name, sizeof(name), ev->host);
		ev->writer = malloc(strlen(name) + 18);
		sprintf(ev->writer, "%s-%016llx", name, (unsigned long long)random64());
		snprintf(line, sizeof(line), "%s %s\n", ev->host, ev->writer);
		if (write(fd, line, strlen(line)) != (ssize_t)strlen(line) || fsync(fd) != 0) {
			error = mt_error_set(MT_EIO, "%s: cannot record the writer: %s", path,
					     strerror(errno));
			free(ev->writer);
			ev->writer = NULL;
		}
		mt_events_ignore_local(ev->trial_dir);
	}
done:
	if (fd >= 0)
		close(fd);
	free(path);
	*out = ev->writer;
	return error;
}

/* user.name or user.email (`key`, without "user.") from one git config
 * file: the last one set wins, as in git. Kept minimal: [user] sections,
 * "key = value", quotes, comments; no includes. */
static void config_user(const char *path, const char *key, char **out)
{
	char *text = NULL, *line, *save = NULL;
	int in_user = 0;
	size_t len;

	if (mt_file_read(&text, &len, path) < 0) {
		mt_error_clear();
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line + strspn(line, " \t"), *v, *end;
		if (*p == '[') {
			in_user = strncasecmp(p, "[user]", 6) == 0;
			continue;
		}
		if (!in_user || strncasecmp(p, key, strlen(key)) != 0)
			continue;
		v = p + strlen(key);
		v += strspn(v, " \t");
		if (*v++ != '=')
			continue;
		v += strspn(v, " \t\"");
		end = v + strcspn(v, "\"#;");
		while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		*end = '\0';
		free(*out);
		*out = *v ? mt_strdup(v) : NULL;
	}
	free(text);
}

/* The repository's config at or above the trial directory, or NULL. */
static char *repo_config(const char *trial_dir)
{
	char *dir = mt_strdup(trial_dir), *slash;

	for (;;) {
		char *git = mt_path_join(dir, ".git"), *cfg = mt_path_join(git, "config");
		int found = mt_path_is_dir(git) && mt_path_exists(cfg);
		free(git);
		if (found) {
			free(dir);
			return cfg;
		}
		free(cfg);
		if (!(slash = strrchr(dir, '/')) || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	return NULL;
}

/* The author, as git would name it (GIT_AUTHOR_*, then user.name and
 * user.email of the repository, the global and the XDG config), else $USER.
 * Read without libgit2: a note must not load it (tests/cli/lazy_git.sh). */
static void make_author(mt_events *ev)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	char *paths[3] = {NULL, NULL, NULL};
	const char *name = getenv("GIT_AUTHOR_NAME"), *email = getenv("GIT_AUTHOR_EMAIL");

	if (xdg && *xdg)
		paths[0] = mt_path_join(xdg, "git/config");
	else if (home && *home)
		paths[0] = mt_path_join(home, ".config/git/config");
	if (home && *home)
		paths[1] = mt_path_join(home, ".gitconfig");
	paths[2] = repo_config(ev->trial_dir);
	for (int i = 0; i < 3; i++) {
		if (paths[i] && !(name && *name))
			config_user(paths[i], "name", &ev->author_name);
		if (paths[i] && !(email && *email))
			config_user(paths[i], "email", &ev->author_email);
		free(paths[i]);
	}
	if (name && *name) {
		free(ev->author_name);
		ev->author_name = mt_strdup(name);
	}
	if (email && *email) {
		free(ev->author_email);
		ev->author_email = mt_strdup(email);
	}
	if (!ev->author_name)
		ev->author_name = mt_strdup(getenv("USER") && *getenv("USER") ? getenv("USER")
									 : "unknown");
}

void mt_events_author(mt_events *ev, const char **name, const char **email, const char **host)
{
	if (!ev->author_name)
		make_author(ev);
	*name = ev->author_name;
	*email = ev->author_email;
	*host = ev->host;
}

json_t *mt_events_make(mt_events *ev, const char *given, const char *kind, int64_t t, json_t *data)
{
	char id[MT_EVENT_ID_LEN + 1];

	if (!ev->author_name)
		make_author(ev);
	if (given)
		snprintf(id, sizeof(id), "%s", given);
	else
		mt_event_id(id, t);
	return json_pack("{si, ss, sI, s{so, so}, so, ss, so}", "v", MT_EVENTS_VERSION, "id", id,
			 "t", (json_int_t)t, "author", "name", mt_json_text(ev->author_name),
			 "email", ev->author_email ? mt_json_text(ev->author_email) : json_null(),
			 "host", mt_json_text(ev->host), "kind", kind, "data", data);
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t w;

	/* one write(2): a short one is an error (a full disk), never a line
	 * finished by a second write another process could interleave with */
	while ((w = write(fd, buf, len)) < 0 && errno == EINTR)
		;
	return w == (ssize_t)len ? 0 : -1;
}

/* 1 when the file of fd (size bytes) ends in the middle of a line. */
static int ends_mid_line(int fd, off_t size)
{
	char last = '\n';

	return size > 0 && pread(fd, &last, 1, size - 1) == 1 && last != '\n';
}

int mt_events_refuse_read_only(const mt_events *ev)
{
	char *marker = mt_path_join(ev->trial_dir, MT_EVENTS_FROM_BUNDLE), *name = NULL;
	int error = 0;

	if (mt_path_exists(marker)) {
		(void)mt_file_read(&name, NULL, marker);
		if (name)
			name[strcspn(name, "\n")] = '\0';
		error = mt_error_set(MT_ESTATE, "this trial was made from bundle %s: read-only",
				     name && *name ? name : "(unnamed)");
	}
	free(name);
	free(marker);
	return error;
}

int mt_events_append(mt_events *ev, const char *lines, size_t len, mt_events_pos *pos)
{
	const char *writer;
	char *path = NULL, *buf = NULL;
	struct stat stbuf;
	int fd = -1, error;

	memset(pos, 0, sizeof(*pos));
	if ((error = mt_events_refuse_read_only(ev)) < 0 || (error = mt_events_writer(ev, &writer)) < 0 ||
	    (error = mt_mkdir_p(ev->dir)) < 0)
		return error;
	snprintf(pos->file, sizeof(pos->file), "%s%s", writer, MT_EVENTS_EXT);
	path = mt_path_join(ev->dir, pos->file);
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) != 0 || fstat(fd, &stbuf) != 0) {
		error = mt_error_set(MT_EIO, "%s: %s", path, strerror(errno));
		goto cleanup;
	}
	pos->start = (uint64_t)stbuf.st_size;
	if ((pos->closed_tail = ends_mid_line(fd, stbuf.st_size))) {
		/* a file cut short by a crash: the cut line stays a line of its own */
		buf = malloc(len + 1);
		buf[0] = '\n';
		memcpy(buf + 1, lines, len);
	}
	if (write_all(fd, buf ? buf : lines, len + (buf != NULL)) < 0 || fdatasync(fd) != 0) {
		error = mt_error_set(MT_EIO, "%s: cannot append the event: %s", path,
				     errno ? strerror(errno) : "short write");
		goto cleanup;
	}
	pos->end = pos->start + len + (buf != NULL);
	if (fstat(fd, &stbuf) == 0) {
		pos->ino = (uint64_t)stbuf.st_ino;
		pos->mtime_ns = (int64_t)stbuf.st_mtim.tv_sec * 1000000000 + stbuf.st_mtim.tv_nsec;
	}
	if (pos->start == 0) /* lines end in '\n': the first is whole */
		mt_sha256_hex(pos->head, lines, (size_t)((const char *)memchr(lines, '\n', len) - lines));
cleanup:
	if (fd >= 0)
		close(fd); /* and the lock with it */
	free(buf);
	free(path);
	return error;
}

static int bad(mt_event *e, char *why, size_t size, const char *what)
{
	snprintf(why, size, "%s", what);
	e->error = why;
	return MT_EINVALID;
}

/* 1 when s is an event id: MT_EVENT_ID_LEN lowercase hex digits. */
static int is_event_id(const char *s)
{
	return s && strlen(s) == MT_EVENT_ID_LEN &&
	       strspn(s, "0123456789abcdef") == MT_EVENT_ID_LEN;
}

int mt_event_parse(mt_event *e, char *why, size_t why_size)
{
	json_t *v = json_object_get(e->obj, "v"), *t = json_object_get(e->obj, "t");

	e->error = NULL;
	if (!json_is_object(e->obj))
		return bad(e, why, why_size, "not a JSON object");
	if (!json_is_integer(v) || json_integer_value(v) < MT_EVENTS_VERSION_MIN ||
	    json_integer_value(v) > MT_EVENTS_VERSION) {
		if (json_is_integer(v))
			snprintf(why, why_size, "event version %lld is not %d to %d (a newer mtrial "
				 "wrote it?)", (long long)json_integer_value(v), MT_EVENTS_VERSION_MIN,
				 MT_EVENTS_VERSION);
		else
			snprintf(why, why_size, "no event version \"v\"");
		e->error = why;
		return MT_EINVALID;
	}
	e->id = json_string_value(json_object_get(e->obj, "id"));
	e->kind = json_string_value(json_object_get(e->obj, "kind"));
	e->data = json_object_get(e->obj, "data");
	if (!is_event_id(e->id))
		return bad(e, why, why_size, "no valid \"id\" (26 lowercase hex digits)");
	if (!json_is_integer(t) || json_integer_value(t) <= 0)
		return bad(e, why, why_size, "no valid \"t\" (ms since 1970)");
	if (!e->kind || !*e->kind)
		return bad(e, why, why_size, "no \"kind\"");
	if (!json_is_object(e->data))
		return bad(e, why, why_size, "no \"data\" object");
	e->t = json_integer_value(t);
	return 0;
}

int mt_event_load(mt_event *e, char *why, size_t why_size)
{
	json_error_t jerr;

	if (!(e->obj = mt_event_json_fast(e->text, e->len)))
		e->obj = json_loadb(e->text, e->len, JSON_REJECT_DUPLICATES, &jerr);
	if (!e->obj) {
		snprintf(why, why_size, "not JSON: %s (column %d)", jerr.text, jerr.column);
		e->error = why;
		return MT_EINVALID;
	}
	if (mt_event_parse(e, why, why_size) < 0) {
		json_decref(e->obj);
		e->obj = NULL;
		return MT_EINVALID;
	}
	return 0;
}

/* Calls cb for the line [p, nl) as line `line` of `name`. */
static int one_line(const char *name, uint64_t line, const char *p, const char *nl,
		    mt_event_cb cb, void *payload)
{
	mt_event e = {.file = name, .line = line, .text = p, .len = (size_t)(nl - p)};
	char why[200];
	int rc;

	mt_event_load(&e, why, sizeof(why));
	rc = cb(&e, payload);
	json_decref(e.obj);
	return rc;
}

int mt_events_mark_differs(const mt_events_mark *a, const mt_events_mark *b)
{
	return a->bytes != b->bytes || a->lines != b->lines || a->tail != b->tail ||
	       a->ino != b->ino || a->mtime_ns != b->mtime_ns || strcmp(a->head, b->head) != 0;
}

void mt_events_mark_appended(mt_events_mark *m, const mt_events_pos *pos)
{
	m->bytes = pos->end;
	m->ino = pos->ino;
	m->mtime_ns = pos->mtime_ns;
	if (pos->start == 0)
		snprintf(m->head, sizeof(m->head), "%s", pos->head);
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

int mt_events_changed(mt_events *ev, const char *name, const mt_events_mark *m)
{
	char *path = mt_path_join(ev->dir, name);
	struct stat st;
	int changed = stat(path, &st) != 0 || (uint64_t)st.st_size != m->bytes + m->tail ||
		      (uint64_t)st.st_ino != m->ino || mtime_ns(&st) != m->mtime_ns;

	free(path);
	return changed;
}

/* The SHA-256 of the first whole line of [map, map + size) into head, ""
 * when there is none yet. */
static void first_line_digest(const char *map, uint64_t size, char head[65])
{
	const char *nl = size ? memchr(map, '\n', (size_t)size) : NULL;

	head[0] = '\0';
	if (nl)
		mt_sha256_hex(head, map, (size_t)(nl - map));
}

static int renewed(const unsigned char *map, uint64_t size, const mt_events_mark *from,
		   char head[65])
{
	first_line_digest((const char *)map, size, head);
	return from->bytes && (size < from->bytes || (from->head[0] && strcmp(head, from->head)));
}

int mt_events_renewed(mt_events *ev, const char *name, const mt_events_mark *from)
{
	char *path = mt_path_join(ev->dir, name), head[65];
	const unsigned char *map = NULL;
	uint64_t size = 0;
	int yes = 0;

	if (from->bytes && mt_file_map(path, &map, &size) == 0)
		yes = renewed(map, size, from, head);
	else if (from->bytes)
		mt_error_clear(); /* a file gone: the read says so */
	if (map)
		mt_file_unmap(map, size);
	free(path);
	return yes;
}

int mt_events_read(mt_events *ev, const char *name, const mt_events_mark *from, mt_event_cb cb,
		   void *payload, mt_events_mark *at)
{
	char *path = mt_path_join(ev->dir, name), head[65];
	const unsigned char *map = NULL;
	uint64_t size = 0;
	const char *p, *end, *nl;
	struct stat st;
	int error;

	*at = *from;
	at->tail = 0;
	at->renewed = 0;
	/* the identity before the map: a line appended meanwhile makes the
	 * next look read again, never skip */
	if (stat(path, &st) == 0) {
		at->ino = (uint64_t)st.st_ino;
		at->mtime_ns = mtime_ns(&st);
	}
	if ((error = mt_file_map(path, &map, &size)) < 0)
		goto cleanup;
	if (renewed(map, size, from, head)) {
		/* deleted and made anew (by hand, a restore): what the index
		 * read of it is no guide to what it holds now */
		at->bytes = at->lines = 0;
		at->renewed = 1;
	}
	memcpy(at->head, head, sizeof(head));
	if (!map) /* an empty file is not mapped: no pointer to offset */
		goto cleanup;
	p = (const char *)map + at->bytes;
	end = (const char *)map + size;
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		at->lines++;
		if ((error = one_line(name, at->lines, p, nl, cb, payload)) != 0)
			goto cleanup;
		at->bytes += (uint64_t)(nl + 1 - p);
		p = nl + 1;
	}
	at->tail = (uint64_t)(end - p);
cleanup:
	if (map)
		mt_file_unmap(map, size);
	free(path);
	return error;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int mt_events_names(mt_events *ev, char ***out)
{
	DIR *d = opendir(ev->dir);
	struct dirent *de;
	size_t n = 0, cap = 8, el = strlen(MT_EVENTS_EXT);
	char **names = calloc(cap, sizeof(*names));

	*out = NULL;
	if (!d && errno != ENOENT) {
		free(names);
		return mt_error_set(MT_EIO, "%s: %s", ev->dir, strerror(errno));
	}
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len <= el || strcmp(de->d_name + len - el, MT_EVENTS_EXT))
			continue;
		if (n + 1 >= cap)
			names = realloc(names, (cap *= 2) * sizeof(*names));
		names[n++] = mt_strdup(de->d_name);
	}
	if (d)
		closedir(d);
	names[n] = NULL;
	qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	return 0;
}

void mt_events_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}
