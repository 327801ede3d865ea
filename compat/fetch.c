#include "fetch.h"
#include "error.h"
#include "sha256.h"
#include "util.h"

#include "curl_dl.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if LIBCURL_VERSION_NUM < 0x075400
#error "mt_fetch needs libcurl 7.84 or later (curl_easy_header)"
#endif
#ifndef MT_VERSION
#define MT_VERSION "unknown" /* normally a compile definition from CMake */
#endif

#define FETCH_MAX_REDIRECTS 3
#define FETCH_DEFAULT_MAX ((uint64_t)8 << 20)
#define FETCH_DEFAULT_CONNECT_MS 10000L
#define FETCH_DEFAULT_TOTAL_MS 60000L
#define FETCH_STALL_SECONDS 15L /* under 1 byte/s for this long: stalled */

#define FETCH_POLICY "only https is allowed (plain http only to a loopback address)"

/* ---- URL policy ---------------------------------------------------------- */

static int host_is_loopback(const char *host)
{
	struct in_addr v4;
	struct in6_addr v6;
	char inner[64];
	size_t n = strlen(host);

	if (strcasecmp(host, "localhost") == 0 || strcasecmp(host, "localhost.") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &v4) == 1)
		return (ntohl(v4.s_addr) >> 24) == 127;
	if (n < 3 || n - 2 >= sizeof(inner) || host[0] != '[' || host[n - 1] != ']')
		return 0;
	memcpy(inner, host + 1, n - 2);
	inner[n - 2] = '\0';
	return inet_pton(AF_INET6, inner, &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

/* Sets *https and *loopback for url; MT_EINVALID for an unparsable URL or a
 * scheme other than http and https. */
static int classify_url(const char *url, int *https, int *loopback)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	CURLUcode rc;
	int error = 0;

	if (!u)
		return mt_error_set(MT_EIO, "%s: out of memory", url);
	rc = curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
	if (rc == CURLUE_OK)
		rc = curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	if (rc == CURLUE_OK) {
		*https = strcasecmp(scheme, "https") == 0;
		if (!*https && strcasecmp(scheme, "http") != 0) {
			error = mt_error_set(MT_EINVALID, "refusing %s: %s", url, FETCH_POLICY);
			goto cleanup;
		}
		rc = curl_url_get(u, CURLUPART_HOST, &host, 0);
	}
	if (rc != CURLUE_OK) {
		error = mt_error_set(MT_EINVALID, "invalid URL %s: %s", url, curl_url_strerror(rc));
		goto cleanup;
	}
	*loopback = host_is_loopback(host);
cleanup:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return error;
}

/* Checks url against the policy; `from` is the URL that redirected to it, or
 * NULL for the first request. *loopback tells whether url is local. */
static int check_url(const char *url, const char *from, int *loopback)
{
	int https, from_https, from_loopback = 1;
	int error = classify_url(url, &https, loopback);

	if (error < 0)
		return from ? mt_error_prefix(error, "redirect from %s: ", from) : error;
	if (from && (error = classify_url(from, &from_https, &from_loopback)) < 0)
		return error;
	if (https || (*loopback && from_loopback))
		return 0;
	if (from)
		return mt_error_set(MT_EINVALID, "refusing the redirect from %s to %s: %s", from,
				    url, FETCH_POLICY);
	return mt_error_set(MT_EINVALID, "refusing %s: %s", url, FETCH_POLICY);
}

static int header_value_ok(const char *v)
{
	return v == NULL || strpbrk(v, "\r\n") == NULL;
}

static int check_request(const mt_fetch_request *req)
{
	if (!req || !req->url || !*req->url)
		return mt_error_set(MT_EINVALID, "fetch: no URL");
	if (!header_value_ok(req->etag) || !header_value_ok(req->last_modified))
		return mt_error_set(MT_EINVALID, "%s: the etag or last-modified value has a line break",
				    req->url);
	if (req->sha256 &&
	    (strlen(req->sha256) != 64 || strspn(req->sha256, "0123456789abcdefABCDEF") != 64))
		return mt_error_set(MT_EINVALID, "%s: expected sha256 \"%s\" is not 64 hex digits",
				    req->url, req->sha256);
	if (req->connect_timeout_ms < 0 || req->total_timeout_ms < 0)
		return mt_error_set(MT_EINVALID, "%s: negative timeout", req->url);
	return 0;
}

/* ---- libcurl ------------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init_once(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
	/* So that leak checkers see libcurl's (and its TLS library's) global
	 * state released; mt_fetch must not run after exit() has started. */
	if (curl_init_rc == CURLE_OK)
		atexit(curl_global_cleanup);
}

/* One download, possibly over several redirects; the write callback's state. */
struct transfer {
	CURL *curl;
	mt_buf body;
	uint64_t max;
	int too_big, skipped, no_memory;
	char errbuf[CURL_ERROR_SIZE];
};

/* Keeps the body of a 200 response up to the cap. Any other status (error
 * pages, redirects) needs no body: the transfer stops at its first byte. */
static size_t on_body(char *data, size_t size, size_t nmemb, void *payload)
{
	struct transfer *t = payload;
	size_t n = size * nmemb;
	long status = 0;

	curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		t->skipped = 1;
		return 0;
	}
	if (n > t->max - t->body.len) {
		t->too_big = 1;
		return 0;
	}
	if (mt_buf_put(&t->body, data, n) < 0) {
		t->no_memory = 1;
		return 0;
	}
	return n;
}

static int set_protocols(CURL *c)
{
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85.0: the _STR options */
	if (curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "https") != CURLE_OK)
		return -1;
#else
	if (curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS, (long)CURLPROTO_HTTPS) != CURLE_OK)
		return -1;
#endif
	return 0;
}

/* Options that hold for every hop. Redirects are followed here, not by
 * libcurl, so that each target is checked before it is connected to. */
static int configure(struct transfer *t, const mt_fetch_request *req, struct curl_slist *headers)
{
	CURL *c = t->curl;
	long connect_ms = req->connect_timeout_ms ? req->connect_timeout_ms : FETCH_DEFAULT_CONNECT_MS;
	CURLcode rc = CURLE_OK;

#define SET(opt, val) \
	if (rc == CURLE_OK) \
		rc = curl_easy_setopt(c, opt, val)
	SET(CURLOPT_ERRORBUFFER, t->errbuf);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	SET(CURLOPT_LOW_SPEED_LIMIT, 1L);
	SET(CURLOPT_LOW_SPEED_TIME, FETCH_STALL_SECONDS);
	SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)(t->max > INT64_MAX ? INT64_MAX : t->max));
	SET(CURLOPT_USERAGENT, "mtrial/" MT_VERSION);
	SET(CURLOPT_HTTPHEADER, headers);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, t);
#undef SET
	if (rc != CURLE_OK || set_protocols(c) < 0)
		return mt_error_set(MT_EIO, "%s: libcurl setup: %s", req->url,
				    rc != CURLE_OK ? curl_easy_strerror(rc) : "protocols");
	return 0;
}

/* If-None-Match and If-Modified-Since, for the values the caller has. */
static int conditional_headers(struct curl_slist **out, const mt_fetch_request *req)
{
	const char *const names[2] = {"If-None-Match", "If-Modified-Since"};
	const char *const values[2] = {req->etag, req->last_modified};
	mt_buf b = MT_BUF_INIT;
	struct curl_slist *next;
	int error = 0;

	*out = NULL;
	for (int i = 0; i < 2; i++) {
		if (!values[i])
			continue;
		mt_buf_dispose(&b);
		mt_buf_printf(&b, "%s: %s", names[i], values[i]);
		if (!(next = curl_slist_append(*out, mt_buf_cstr(&b)))) {
			error = mt_error_set(MT_EIO, "%s: out of memory", req->url);
			goto cleanup;
		}
		*out = next;
	}
cleanup:
	mt_buf_dispose(&b);
	return error;
}

/* Turns a failed curl_easy_perform into a message naming the URL. */
static int transfer_error(struct transfer *t, const char *url, CURLcode rc)
{
	const char *why = t->errbuf[0] ? t->errbuf : curl_easy_strerror(rc);

	if (t->too_big || rc == CURLE_FILESIZE_EXCEEDED)
		return mt_error_set(MT_EIO, "%s: the response is larger than the %llu-byte limit",
				    url, (unsigned long long)t->max);
	if (t->no_memory)
		return mt_error_set(MT_EIO, "%s: out of memory", url);
	if (rc == CURLE_PARTIAL_FILE)
		return mt_error_set(MT_EIO, "%s: truncated download: %s", url, why);
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return mt_error_set(MT_EIO, "%s: timed out: %s", url, why);
	return mt_error_set(MT_EIO, "%s: %s", url, why);
}

/* The absolute target of a redirect from `url` (caller frees), or NULL when
 * the response has no Location. Read here rather than from libcurl's
 * CURLINFO_REDIRECT_URL, which is only set once the (unwanted) body of the
 * redirect has been read to the end. */
static int redirect_target(char **out, CURL *c, const char *url)
{
	struct curl_header *h = NULL;
	CURLU *u = NULL;
	CURLUcode rc;
	char *next = NULL;
	int error = 0;

	*out = NULL;
	if (curl_easy_header(c, "Location", 0, CURLH_HEADER, -1, &h) != CURLHE_OK || !*h->value)
		return 0;
	if (!(u = curl_url()))
		return mt_error_set(MT_EIO, "%s: out of memory", url);
	rc = curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
	if (rc == CURLUE_OK)
		rc = curl_url_set(u, CURLUPART_URL, h->value, CURLU_NON_SUPPORT_SCHEME);
	if (rc == CURLUE_OK)
		rc = curl_url_get(u, CURLUPART_URL, &next, 0);
	if (rc != CURLUE_OK)
		error = mt_error_set(MT_EINVALID, "%s: invalid redirect to %s: %s", url, h->value,
				     curl_url_strerror(rc));
	else
		*out = mt_strdup(next);
	curl_free(next);
	curl_url_cleanup(u);
	return error;
}

/* Fetches one URL; on a redirect *next is its absolute target (caller frees). */
static int perform_hop(struct transfer *t, const char *url, int loopback, long timeout_ms,
		       long *status, char **next)
{
	CURLcode rc;
	curl_off_t expect = -1;

	*next = NULL;
	mt_buf_dispose(&t->body);
	t->too_big = t->skipped = t->no_memory = 0;
	t->errbuf[0] = '\0';
	/* "" disables proxies: a loopback URL means this machine, not the proxy's. */
	curl_easy_setopt(t->curl, CURLOPT_PROXY, loopback ? "" : NULL);
	curl_easy_setopt(t->curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	if (curl_easy_setopt(t->curl, CURLOPT_URL, url) != CURLE_OK)
		return mt_error_set(MT_EINVALID, "invalid URL %s", url);
	rc = curl_easy_perform(t->curl);
	*status = 0;
	curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, status);
	/* Not an error: the body of a non-200 response is not wanted (and its
	 * Content-Length may exceed the cap, which libcurl checks first). */
	if ((rc == CURLE_WRITE_ERROR && t->skipped) ||
	    (rc == CURLE_FILESIZE_EXCEEDED && *status != 200))
		rc = CURLE_OK;
	if (rc != CURLE_OK)
		return transfer_error(t, url, rc);
	curl_easy_getinfo(t->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expect);
	if (*status == 200 && expect >= 0 && (uint64_t)expect != t->body.len)
		return mt_error_set(MT_EIO, "%s: truncated download: %zu of %lld bytes", url,
				    t->body.len, (long long)expect);
	if (*status == 301 || *status == 302 || *status == 303 || *status == 307 ||
	    *status == 308)
		return redirect_target(next, t->curl, url);
	return 0;
}

static char *header_dup(CURL *c, const char *name)
{
	struct curl_header *h = NULL;

	if (curl_easy_header(c, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK || !h->value)
		return NULL;
	return mt_strdup(h->value);
}

/* Checks the final response and moves it into *out. */
static int finish(mt_fetch_response *out, struct transfer *t, const mt_fetch_request *req,
		  const char *url, long status)
{
	char got[65];

	if (status == 304 && !req->etag && !req->last_modified)
		return mt_error_set(MT_EIO, "%s: HTTP status 304 (Not Modified) to a request "
				    "that was not conditional", url);
	if (status != 200 && status != 304)
		return mt_error_set(MT_EIO, "%s: HTTP status %ld%s", url, status,
				    status >= 300 && status < 400 ? " without a Location" : "");
	if (status == 200 && req->sha256) {
		mt_sha256_hex(got, mt_buf_cstr(&t->body), t->body.len);
		if (strcasecmp(got, req->sha256) != 0)
			return mt_error_set(MT_EINVALID, "%s: sha256 mismatch: expected %s, got %s",
					    url, req->sha256, got);
	}
	out->status = status;
	out->not_modified = status == 304;
	if (status == 200) {
		out->len = t->body.len;
		out->body = t->body.ptr ? mt_buf_detach(&t->body) : mt_strdup("");
	}
	out->etag = header_dup(t->curl, "ETag");
	out->last_modified = header_dup(t->curl, "Last-Modified");
	out->final_url = mt_strdup(url);
	return 0;
}

/* Follows redirects from req->url under the policy; *url is the last one. */
static int follow(struct transfer *t, const mt_fetch_request *req, char **url, long *status)
{
	long total = req->total_timeout_ms ? req->total_timeout_ms : FETCH_DEFAULT_TOTAL_MS;
	int64_t deadline = mt_mono_ms() + total;
	int loopback = 0, error;
	char *next = NULL;

	if ((error = check_url(req->url, NULL, &loopback)) < 0)
		return error;
	*url = mt_strdup(req->url);
	for (int redirects = 0;; redirects++) {
		int64_t left = deadline - mt_mono_ms();

		if (left <= 0)
			return mt_error_set(MT_EIO, "%s: timed out after %ld ms (following redirects "
					    "from %s)", *url, total, req->url);
		if ((error = perform_hop(t, *url, loopback, (long)left, status, &next)) < 0)
			return error;
		if (!next)
			return 0;
		if (redirects == FETCH_MAX_REDIRECTS)
			error = mt_error_set(MT_EIO, "%s: too many redirects (more than %d), the "
					     "last from %s to %s", req->url, FETCH_MAX_REDIRECTS,
					     *url, next);
		else
			error = check_url(next, *url, &loopback);
		free(*url);
		*url = next;
		if (error < 0)
			return error;
	}
}

int mt_fetch(mt_fetch_response *out, const mt_fetch_request *req)
{
	struct transfer t = {.body = MT_BUF_INIT};
	struct curl_slist *headers = NULL;
	char *url = NULL;
	long status = 0;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = mt_curl_load()) < 0)
		return error;
	if ((error = check_request(req)) < 0 || (error = conditional_headers(&headers, req)) < 0)
		goto cleanup;
	pthread_once(&curl_once, curl_init_once);
	if (curl_init_rc != CURLE_OK) {
		error = mt_error_set(MT_EIO, "%s: libcurl: %s", req->url,
				     curl_easy_strerror(curl_init_rc));
		goto cleanup;
	}
	t.max = req->max_bytes ? req->max_bytes : FETCH_DEFAULT_MAX;
	if (!(t.curl = curl_easy_init())) {
		error = mt_error_set(MT_EIO, "%s: libcurl: cannot create a handle", req->url);
		goto cleanup;
	}
	if ((error = configure(&t, req, headers)) < 0 ||
	    (error = follow(&t, req, &url, &status)) < 0)
		goto cleanup;
	error = finish(out, &t, req, url, status);
cleanup:
	if (error < 0)
		mt_fetch_response_dispose(out);
	if (t.curl)
		curl_easy_cleanup(t.curl);
	curl_slist_free_all(headers);
	mt_buf_dispose(&t.body);
	free(url);
	return error;
}

void mt_fetch_response_dispose(mt_fetch_response *r)
{
	if (!r)
		return;
	free(r->body);
	free(r->etag);
	free(r->last_modified);
	free(r->final_url);
	memset(r, 0, sizeof(*r));
}
