/* --redact: what a bundle leaves out of the record and the logs before it
 * is published. Notes tagged private go, with the events that name them;
 * host names become "{host}" and absolute paths "{path}/NAME" (the file's
 * own name kept: it says which file it was, not where it lived), in the
 * events and in the artefacts they name (core/bundle_artefacts.c). */
#include "bundle_int.h"
#include "error.h"
#include "jsonw.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define PRIVATE_TAG "private"
#define HOST_MARK "{host}"
#define PATH_MARK "{path}"
#define DEV_NULL "/dev/null"

static void add_unique(char ***v, size_t *n, const char *s)
{
	char **grown;

	if (!s || strlen(s) < 2 || strcmp(s, HOST_MARK) == 0)
		return;
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return;
	if (!(grown = realloc(*v, (*n + 1) * sizeof(*grown))))
		return;
	*v = grown;
	(*v)[(*n)++] = mt_strdup(s);
}

/* A host name of r, with its count of replacements. */
static void add_one_host(struct bundle_redactor *r, const char *host)
{
	size_t n = r->nhosts, *hits;

	add_unique(&r->hosts, &r->nhosts, host);
	if (r->nhosts == n)
		return;
	if (!(hits = realloc(r->host_hits, r->nhosts * sizeof(*hits)))) {
		free(r->hosts[--r->nhosts]); /* no count, no name: the two stay one list */
		return;
	}
	r->host_hits = hits;
	hits[n] = 0;
}

/* A host and, for a dotted name, its short name (what writer names hold). */
static void add_host(struct bundle_redactor *r, const char *host)
{
	char shortname[256];

	add_one_host(r, host);
	snprintf(shortname, sizeof(shortname), "%s", host ? host : "");
	shortname[strcspn(shortname, ".")] = '\0';
	add_one_host(r, shortname);
	shortname[32] = '\0'; /* a writer's name holds 32 characters of it at most */
	add_one_host(r, shortname);
}

void bundle_redactor_init(struct bundle_redactor *r, mt_bundle_redacted *counts,
			  const char *trial_dir)
{
	char host[256] = "";

	memset(r, 0, sizeof(*r));
	r->counts = counts;
	r->trial_dir = trial_dir;
	if (gethostname(host, sizeof(host) - 1) == 0)
		add_host(r, host);
}

void bundle_redactor_dispose(struct bundle_redactor *r)
{
	for (size_t i = 0; i < r->nhosts; i++)
		free(r->hosts[i]);
	for (size_t i = 0; i < r->ndropped; i++)
		free(r->dropped[i]);
	for (size_t i = 0; i < r->narts; i++)
		free(r->arts[i].packed);
	free(r->hosts);
	free(r->host_hits);
	free(r->dropped);
	free(r->arts);
	memset(r, 0, sizeof(*r));
}

static int is_private_note(const json_t *ev)
{
	const char *kind = json_string_value(json_object_get(ev, "kind"));
	json_t *tags = json_object_get(json_object_get(ev, "data"), "tags"), *tag;
	size_t i;

	if (!kind || strcmp(kind, "note.add") != 0)
		return 0;
	json_array_foreach(tags, i, tag)
		if (json_is_string(tag) && strcmp(json_string_value(tag), PRIVATE_TAG) == 0)
			return 1;
	return 0;
}

/* Calls fn on each line of text with its JSON object (NULL when the line
 * is not one). */
static void each_line(const char *text, size_t len,
		      void (*fn)(const char *line, size_t n, json_t *obj, void *payload), void *payload)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		json_t *obj = json_loadb(p, n, 0, NULL);
		fn(p, n, json_is_object(obj) ? obj : NULL, payload);
		json_decref(obj);
		p += n + (nl != NULL);
	}
}

static void learn_line(const char *line, size_t n, json_t *obj, void *payload)
{
	struct bundle_redactor *r = payload;

	(void)line, (void)n;
	if (!obj)
		return;
	add_host(r, json_string_value(json_object_get(obj, "host")));
	if (is_private_note(obj))
		add_unique(&r->dropped, &r->ndropped, json_string_value(json_object_get(obj, "id")));
}

void bundle_redact_learn(struct bundle_redactor *r, const char *text, size_t len)
{
	each_line(text, len, learn_line, r);
}

static int path_start(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '~' || c == '-';
}

/* What may stand before an absolute path: the start, a space, '=' (--out=/x),
 * a quote or bracket, ':' (PATH=/a:/b). */
static int path_lead(char c)
{
	return isspace((unsigned char)c) || strchr("=\"'`(:,[{;", c) != NULL;
}

static int path_end(char c)
{
	return isspace((unsigned char)c) || strchr("\"'`,;:)]}<>", c) != NULL || c == '\0';
}

/* A character of a word a host name is never cut out of: [A-Za-z0-9_-],
 * and any byte of a UTF-8 sequence (a letter beyond ASCII: "ägpu" is one
 * word). */
static int host_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || (unsigned char)c >= 0x80;
}

/* The length of a host name of r at s[i] standing alone (not inside a longer
 * name), else 0; counted. */
static size_t host_at(struct bundle_redactor *r, const char *s, size_t len, size_t i)
{
	if (i > 0 && (host_char(s[i - 1]) || s[i - 1] == '.'))
		return 0;
	for (size_t h = 0; h < r->nhosts; h++) {
		size_t hl = strlen(r->hosts[h]);
		if (hl > len - i || memcmp(s + i, r->hosts[h], hl) != 0)
			continue;
		if (i + hl < len && (host_char(s[i + hl]) ||
				     (s[i + hl] == '.' && i + hl + 1 < len && host_char(s[i + hl + 1]))))
			continue;
		r->host_hits[h]++;
		return hl;
	}
	return 0;
}

/* A host name short enough, or common enough as a word, that prose and
 * logs may use it for something else ("vm", "gpu", "node"). */
static int common_host(const char *h)
{
	static const char *const words[] = {
	    "localhost", "local",   "host",  "node",   "server", "worker",   "master", "main",
	    "login",     "head",    "compute", "train", "test",  "runner",   "builder", "machine",
	    "instance",  "container", "docker", "ubuntu", "debian", "default", "linux",  "cluster"};

	if (strlen(h) <= 3)
		return 1;
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strcasecmp(h, words[i]) == 0)
			return 1;
	return 0;
}

int bundle_redact_common_hosts(const struct bundle_redactor *r, mt_buf *out)
{
	int n = 0;

	for (size_t h = 0; h < r->nhosts; h++) {
		if (!r->host_hits[h] || !common_host(r->hosts[h]))
			continue;
		mt_buf_printf(out, "%s%s (%zu time%s)", n++ ? ", " : "", r->hosts[h], r->host_hits[h],
			      r->host_hits[h] == 1 ? "" : "s");
	}
	return n;
}

/* An absolute path (two components at least) at s[i] replaced in out:
 * its length, else 0. */
static size_t path_at(struct bundle_redactor *r, const char *s, size_t len, size_t i, mt_buf *out)
{
	size_t j = i + 1, base;

	if (s[i] != '/' || (i > 0 && !path_lead(s[i - 1])) || j >= len || !path_start(s[j]))
		return 0;
	while (j < len && !path_end(s[j]))
		j++;
	for (base = j; base > i && s[base - 1] != '/'; base--)
		;
	if (base == i + 1) /* one component, "/s" of "tokens (/s)": a path has two */
		return 0;
	if (j - i == strlen(DEV_NULL) && memcmp(s + i, DEV_NULL, j - i) == 0)
		return 0; /* a patch's side that is no file: everyone's, no host's */
	mt_buf_puts(out, PATH_MARK);
	if (base < j) {
		mt_buf_puts(out, "/");
		mt_buf_put(out, s + base, j - base);
	}
	r->counts->paths++;
	return j - i;
}

char *bundle_redact_text(struct bundle_redactor *r, const char *s, size_t len, size_t *out_len)
{
	mt_buf out = MT_BUF_INIT;

	mt_buf_reserve(&out, len + 1);
	for (size_t i = 0; i < len;) {
		size_t n = path_at(r, s, len, i, &out);
		if (!n && (n = host_at(r, s, len, i))) {
			mt_buf_puts(&out, HOST_MARK);
			r->counts->hosts++;
		}
		if (!n) {
			mt_buf_put(&out, s + i, 1);
			n = 1;
		}
		i += n;
	}
	*out_len = out.len;
	return out.ptr ? mt_buf_detach(&out) : mt_strdup("");
}

/* The keys of object v redacted too (a map by file path): a key the
 * redaction makes the same as another's gets "#2", "#3"... */
static void redact_keys(struct bundle_redactor *r, json_t *v)
{
	const char *key;
	json_t *item;
	void *tmp;

	json_object_foreach_safe(v, tmp, key, item) {
		size_t n;
		char *red = bundle_redact_text(r, key, strlen(key), &n);
		if (strcmp(red, key) != 0) {
			mt_buf name = MT_BUF_INIT;
			mt_buf_puts(&name, red);
			for (int k = 2; json_object_get(v, mt_buf_cstr(&name)); k++) {
				name.len = 0;
				mt_buf_printf(&name, "%s#%d", red, k);
			}
			json_object_set(v, mt_buf_cstr(&name), item);
			json_object_del(v, key);
			mt_buf_dispose(&name);
		}
		free(red);
	}
}

void bundle_redact_json(struct bundle_redactor *r, json_t *v)
{
	const char *key;
	json_t *item;
	size_t i, n;

	if (json_is_string(v)) {
		char *red = bundle_redact_text(r, json_string_value(v), json_string_length(v), &n);
		if (n != json_string_length(v) || memcmp(red, json_string_value(v), n) != 0)
			json_string_setn(v, red, n);
		free(red);
	} else if (json_is_object(v)) {
		json_object_foreach(v, key, item)
			bundle_redact_json(r, item);
		redact_keys(r, v);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			bundle_redact_json(r, item);
	}
}

/* Text of line[i..j) redacted into out. */
static void put_redacted(struct bundle_redactor *r, const char *s, size_t n, mt_buf *out)
{
	size_t len;
	char *red = bundle_redact_text(r, s, n, &len);

	mt_buf_put(out, red, len);
	free(red);
}

/* The end of the quoted scalar starting at line[i] (its closing quote's
 * index + 1, or n when the line ends first). */
static size_t quoted_end(const char *line, size_t n, size_t i)
{
	char q = line[i];

	for (size_t k = i + 1; k < n; k++) {
		if (q == '"' && line[k] == '\\')
			k++;
		else if (line[k] == q && q == '\'' && k + 1 < n && line[k + 1] == '\'')
			k++;
		else if (line[k] == q)
			return k + 1;
	}
	return n;
}

/* The end of the plain scalar starting at line[i]: before ": ", " #", the
 * line's end, and in a flow collection (flow > 0) before , [ ] { }. */
static size_t plain_end(const char *line, size_t n, size_t i, int flow)
{
	size_t k = i;

	for (; k < n; k++) {
		char c = line[k], next = k + 1 < n ? line[k + 1] : ' ';
		if (c == ':' && (next == ' ' || next == '\t' || (flow && strchr(",]}", next))))
			break;
		if (c == '#' && k > i && (line[k - 1] == ' ' || line[k - 1] == '\t'))
			break;
		if (flow && strchr(",[]{}", c))
			break;
	}
	while (k > i && (line[k - 1] == ' ' || line[k - 1] == '\t'))
		k--;
	return k;
}

/* One line of YAML redacted into out, scalar by scalar: a plain scalar the
 * redaction changed is single-quoted (its "{path}" would otherwise open a
 * mapping, or end one in a flow collection); quoted scalars and comments
 * are redacted as they are. The flow depth carries over lines. */
static void redact_yaml_line(struct bundle_redactor *r, const char *line, size_t n, mt_buf *out,
			     int *flow)
{
	for (size_t i = 0; i < n;) {
		char c = line[i];
		size_t j;
		if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
			put_redacted(r, line + i, n - i, out); /* a comment */
			return;
		}
		if (c == '"' || c == '\'') {
			j = quoted_end(line, n, i);
			put_redacted(r, line + i, j - i, out);
			i = j;
			continue;
		}
		if (strchr("{[}],: \t", c) || (c == '-' && (i + 1 == n || line[i + 1] == ' '))) {
			*flow += (c == '{' || c == '[') - (c == '}' || c == ']');
			*flow = *flow < 0 ? 0 : *flow;
			mt_buf_put(out, line + i, 1);
			i++;
			continue;
		}
		j = plain_end(line, n, i, *flow);
		if (j == i) { /* a ':' or '#' that ends nothing: as it is */
			mt_buf_put(out, line + i, 1);
			i++;
			continue;
		}
		{
			size_t len;
			char *red = bundle_redact_text(r, line + i, j - i, &len);
			if (len == j - i && memcmp(red, line + i, len) == 0) {
				mt_buf_put(out, red, len);
			} else {
				mt_buf_puts(out, "'");
				for (size_t k = 0; k < len; k++)
					mt_buf_put(out, red[k] == '\'' ? "''" : red + k, red[k] == '\'' ? 2 : 1);
				mt_buf_puts(out, "'");
			}
			free(red);
		}
		i = j;
	}
}

char *bundle_redact_yaml(struct bundle_redactor *r, const char *text, size_t len, size_t *out_len)
{
	mt_buf out = MT_BUF_INIT;
	int flow = 0;

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		redact_yaml_line(r, p, n, &out, &flow);
		if (nl)
			mt_buf_puts(&out, "\n");
		p += n + (nl != NULL);
	}
	*out_len = out.len;
	return out.ptr ? mt_buf_detach(&out) : mt_strdup("");
}

/* 1 when v holds the id of a dropped event anywhere (a withdrawal of a
 * private note, a later event pointing at it). */
static int names_dropped(const struct bundle_redactor *r, const json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_string(v)) {
		for (i = 0; i < r->ndropped; i++)
			if (strcmp(json_string_value(v), r->dropped[i]) == 0)
				return 1;
	} else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, item)
			if (names_dropped(r, item))
				return 1;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			if (names_dropped(r, item))
				return 1;
	}
	return 0;
}

struct events_out {
	struct bundle_redactor *r;
	mt_buf out;
};

static void redact_line(const char *line, size_t n, json_t *obj, void *payload)
{
	struct events_out *eo = payload;
	char *text;
	size_t len;

	if (obj && names_dropped(eo->r, obj)) {
		eo->r->counts->notes++;
		return;
	}
	if (obj) {
		bundle_redact_artefacts(eo->r, obj); /* before the strings: a name stays whole */
		bundle_redact_json(eo->r, obj);
		text = mt_json_dumps(obj, JSON_COMPACT);
		len = text ? strlen(text) : 0;
	} else {
		text = bundle_redact_text(eo->r, line, n, &len);
	}
	mt_buf_put(&eo->out, text ? text : "", len);
	mt_buf_puts(&eo->out, "\n");
	free(text);
}

char *bundle_redact_events(struct bundle_redactor *r, const char *text, size_t len,
			   size_t *out_len)
{
	struct events_out eo = {r, MT_BUF_INIT};

	each_line(text, len, redact_line, &eo);
	*out_len = eo.out.len;
	return eo.out.ptr ? mt_buf_detach(&eo.out) : mt_strdup("");
}

/* 1 when s is '-' and 16 hex digits, then the end or a '.': a writer's
 * suffix (trial/events.c). */
static int writer_suffix(const char *s)
{
	if (*s++ != '-')
		return 0;
	for (int k = 0; k < 16; k++)
		if (!isxdigit((unsigned char)s[k]))
			return 0;
	return s[16] == '\0' || s[16] == '.';
}

char *bundle_redact_name(struct bundle_redactor *r, const char *name)
{
	for (size_t h = 0; h < r->nhosts; h++) {
		size_t hl = strlen(r->hosts[h]);
		/* the host's writer alone: "vm" is no part of "vm-build-2-<hex>" */
		if (strncmp(name, r->hosts[h], hl) == 0 && writer_suffix(name + hl)) {
			mt_buf b = MT_BUF_INIT;
			mt_buf_printf(&b, "redacted%s", name + hl);
			r->counts->files++;
			return mt_buf_detach(&b);
		}
	}
	return mt_strdup(name);
}
