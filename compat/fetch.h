/* A careful HTTP(S) download for compatibility-table updates. It only
 * fetches into memory: nothing is written to disk here, so the caller can
 * validate the body and then write it with mt_file_write_atomic().
 *
 * Policy, enforced for every request and every redirect:
 *  - https only; plain http only to a loopback host (127.0.0.0/8, localhost,
 *    ::1), for tests and local mirrors, and a redirect may go to plain http
 *    only from a loopback URL to a loopback URL. Never any other scheme.
 *  - at most 3 redirects, each checked against the policy before any
 *    connection is made to its target.
 *  - connect and total timeouts (the total covers all redirects), and a
 *    stall limit: under 1 byte/s for 15 s aborts the transfer.
 *  - a size cap enforced while receiving: the transfer is aborted as soon as
 *    the body would exceed it, nothing past it is buffered.
 *  - a final status other than 200 or 304 is an error; a truncated body is
 *    an error; a body that does not match the expected SHA-256 is an error.
 *  - loopback URLs never go through a proxy; others honour the usual proxy
 *    environment variables, as curl(1) does.
 *
 * Errors: MT_EINVALID for the request itself (a refused URL or redirect, a
 * malformed sha256 or header value) and for a body whose digest does not
 * match; MT_EIO for the network and the server (libcurl's own words from its
 * error buffer, a bad status, a truncated or oversized body). Every message
 * names the URL. */
#ifndef MT_FETCH_H
#define MT_FETCH_H

#include "sha256.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
	const char *url;
	const char *etag;          /* from the last download, or NULL: sent as If-None-Match */
	const char *last_modified; /* or NULL: sent as If-Modified-Since */
	const char *sha256;        /* expected hex digest of the body (64 chars), or NULL */
	uint64_t max_bytes;        /* size cap (0 = 8 MiB) */
	long connect_timeout_ms, total_timeout_ms; /* 0 = 10 s and 60 s */
} mt_fetch_request;

/* Filled by mt_fetch(); every pointer is owned by the caller, released with
 * mt_fetch_response_dispose(). */
typedef struct {
	int not_modified;           /* 304: nothing downloaded, body NULL */
	char *body;                 /* NUL-terminated for convenience (len excludes it) */
	size_t len;
	char *etag, *last_modified; /* from the response, or NULL */
	char *final_url;            /* after redirects */
	long status;                /* 200 or 304 */
} mt_fetch_response;

/* Downloads req->url into *out under the policy above. On error *out is left
 * all zero and the message (mt_error_last()) names the URL. Thread-safe: the
 * first call initialises libcurl once for the process (and registers
 * curl_global_cleanup with atexit). */
int mt_fetch(mt_fetch_response *out, const mt_fetch_request *req);

/* Frees the contents of *r and zeroes it; safe on a zeroed response. */
void mt_fetch_response_dispose(mt_fetch_response *r);


#endif
