/* mt_fetch against tests/http/server.py on 127.0.0.1 (never the real
 * network): every route's outcome and message, the ETag round trip, sha256
 * checks, the https-only policy, and SHA-256 test vectors (FIPS 180-4 and
 * lengths around the padding boundary, cross-checked with Python's hashlib). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "error.h"
#include "fetch.h"
#include "fixtures.h"
#include "util.h"

#define TABLE_BODY "schema: 1\nops:\n  - aten::add\n  - aten::mm\n"
#define TABLE_SHA256 "c89cd8374566e2b3b4990cc0ffc5c12d6dd1dc911b8459326287ff65abdadcfe"
#define POLICY "only https is allowed (plain http only to a loopback address)"

/* The test server: started once for the group, killed in its teardown (which
 * cmocka runs even when tests fail); it also exits by itself after 60 s and,
 * on Linux, when this process dies. */
static pid_t server_pid;
static char base[64]; /* "http://127.0.0.1:PORT" */

/* ---- helpers ------------------------------------------------------------- */

/* base + path in a rotating set of buffers, so one call may use several. */
static const char *url(const char *path)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s%s", base, path);
	return b;
}

static void fetch_ok(mt_fetch_response *r, const mt_fetch_request *req)
{
	if (mt_fetch(r, req) < 0)
		fail_msg("%s: %s", req->url, mt_error_last());
}

static int response_is_zero(const mt_fetch_response *r)
{
	return !r->not_modified && !r->body && !r->len && !r->etag && !r->last_modified &&
	       !r->final_url && !r->status;
}

/* Expects mt_fetch to fail with `code` and message `want`; a `want` ending in
 * '*' is a prefix (for the parts written by libcurl). */
static void fetch_fails(const mt_fetch_request *req, int code, const char *want)
{
	mt_fetch_response r;
	size_t n = strlen(want);
	int error;

	memset(&r, 0x5a, sizeof(r));
	error = mt_fetch(&r, req);
	if (error != code)
		fail_msg("%s: got %d (%s), want %d", req->url, error, mt_error_last(), code);
	assert_true(response_is_zero(&r));
	if (n && want[n - 1] == '*' ? strncmp(mt_error_last(), want, n - 1) != 0
				    : strcmp(mt_error_last(), want) != 0)
		fail_msg("message:\n  %s\nwant:\n  %s", mt_error_last(), want);
}

static void fails_at(const char *path, int code, const char *want)
{
	mt_fetch_request req = {.url = url(path)};

	fetch_fails(&req, code, want);
}

/* ---- the server ---------------------------------------------------------- */

/* Reads the first line the server prints (its port), waiting at most 10 s. */
static int read_port(int fd)
{
	char line[32];
	size_t n = 0;
	struct pollfd p = {.fd = fd, .events = POLLIN};

	while (n < sizeof(line) - 1 && poll(&p, 1, 10000) == 1) {
		ssize_t got = read(fd, line + n, 1);

		if (got <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	return atoi(line);
}

static int start_server(void **state)
{
	const char *script = MT_SOURCE_DIR "/tests/http/server.py";
	int fds[2], port;

	(void)state;
	if (pipe(fds) < 0 || (server_pid = fork()) < 0)
		return -1;
	if (server_pid == 0) {
#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execlp("python3", "python3", script, "--lifetime", "60", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	port = read_port(fds[0]);
	close(fds[0]);
	if (port <= 0) {
		fprintf(stderr, "test_fetch: cannot start python3 %s\n", script);
		return -1;
	}
	snprintf(base, sizeof(base), "http://127.0.0.1:%d", port);
	return 0;
}

static int stop_server(void **state)
{
	(void)state;
	if (server_pid > 0) {
		kill(server_pid, SIGKILL);
		while (waitpid(server_pid, NULL, 0) < 0 && errno == EINTR)
			;
		server_pid = 0;
	}
	return 0;
}

/* ---- SHA-256 ------------------------------------------------------------- */

static void check_sha(const char *data, size_t len, const char *want)
{
	char got[65];

	assert_int_equal(mt_sha256_hex(got, data, len), 0);
	assert_string_equal(got, want);
}

static void test_sha256_vectors(void **state)
{
	char *million = malloc(1000000);

	(void)state;
	check_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha(NULL, 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	assert_non_null(million);
	memset(million, 'a', 1000000);
	check_sha(million, 1000000,
		  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* Lengths around the padding boundaries (one or two final blocks). */
	check_sha(million, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check_sha(million, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	check_sha(million, 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34");
	check_sha(million, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
	check_sha(million, 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0");
	check_sha(million, 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb");
	check_sha(million, 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c");
	check_sha(TABLE_BODY, strlen(TABLE_BODY), TABLE_SHA256);
	free(million);
}

/* ---- policy, without the server (and without any network) ---------------- */

static void refused(const char *u)
{
	mt_fetch_request req = {.url = u};
	char want[512];

	snprintf(want, sizeof(want), "refusing %s: " POLICY, u);
	fetch_fails(&req, MT_EINVALID, want);
}

static void test_https_only(void **state)
{
	(void)state;
	refused("http://example.com/");
	refused("http://127.0.0.1.example.com/table.yaml");
	refused("http://localhost.example.com/");
	refused("http://127.0.0.1@example.com/table.yaml");
	refused("HTTP://example.com/");
	refused("http://[::2]/");
	refused("ftp://127.0.0.1/table.yaml");
	refused("file:///etc/passwd");
	refused("gopher://localhost/");
}

static void test_bad_requests(void **state)
{
	mt_fetch_request req = {.url = "https://example.com/t.yaml", .sha256 = "abc"};

	(void)state;
	fetch_fails(&req, MT_EINVALID,
		    "https://example.com/t.yaml: expected sha256 \"abc\" is not 64 hex digits");
	req.sha256 = NULL;
	req.etag = "\"x\"\r\nX-Injected: 1";
	fetch_fails(&req, MT_EINVALID,
		    "https://example.com/t.yaml: the etag or last-modified value has a line break");
	req.etag = NULL;
	req.url = "";
	fetch_fails(&req, MT_EINVALID, "fetch: no URL");
	req.url = "not a url";
	fetch_fails(&req, MT_EINVALID, "invalid URL not a url: *");
}

/* Loopback addresses pass the policy: nothing listens on port 1, so the
 * failure is libcurl's connect error, not a refusal. */
static void test_loopback_allowed(void **state)
{
	(void)state;
	mt_fetch_request req = {.url = "http://127.1.2.3:1/t.yaml", .connect_timeout_ms = 2000};

	fetch_fails(&req, MT_EIO, "http://127.1.2.3:1/t.yaml: Failed to connect to 127.1.2.3 port 1*");
	req.url = "http://[::1]:1/t.yaml";
	fetch_fails(&req, MT_EIO, "http://[::1]:1/t.yaml: *");
	assert_null(strstr(mt_error_last(), "refusing"));
}

static void test_dispose_zeroed(void **state)
{
	mt_fetch_response r = {0};

	(void)state;
	mt_fetch_response_dispose(&r);
	mt_fetch_response_dispose(NULL);
	assert_true(response_is_zero(&r));
}

/* ---- routes ---------------------------------------------------------------- */

static void test_table(void **state)
{
	mt_fetch_request req = {.url = url("/table.yaml")};
	mt_fetch_response r;

	(void)state;
	fetch_ok(&r, &req);
	assert_int_equal(r.status, 200);
	assert_false(r.not_modified);
	assert_int_equal(r.len, strlen(TABLE_BODY));
	assert_string_equal(r.body, TABLE_BODY);
	assert_string_equal(r.etag, "\"table-v1\"");
	assert_string_equal(r.last_modified, "Sat, 01 Nov 2025 12:00:00 GMT");
	assert_string_equal(r.final_url, req.url);
	mt_fetch_response_dispose(&r);
	assert_true(response_is_zero(&r));
}

static void test_etag_round_trip(void **state)
{
	mt_fetch_request req = {.url = url("/table.yaml")};
	mt_fetch_response first, second;

	(void)state;
	fetch_ok(&first, &req);
	req.etag = first.etag;
	fetch_ok(&second, &req);
	assert_int_equal(second.status, 304);
	assert_true(second.not_modified);
	assert_null(second.body);
	assert_int_equal(second.len, 0);
	assert_string_equal(second.etag, first.etag);
	mt_fetch_response_dispose(&second);
	/* Last-Modified alone, and a stale ETag that must download again. */
	req.etag = NULL;
	req.last_modified = first.last_modified;
	fetch_ok(&second, &req);
	assert_true(second.not_modified);
	mt_fetch_response_dispose(&second);
	req.etag = "\"table-v0\"";
	fetch_ok(&second, &req);
	assert_int_equal(second.status, 200);
	assert_string_equal(second.body, TABLE_BODY);
	mt_fetch_response_dispose(&second);
	mt_fetch_response_dispose(&first);
}

static void test_sha256_check(void **state)
{
	mt_fetch_request req = {.url = url("/table.yaml"), .sha256 = TABLE_SHA256};
	mt_fetch_response r;
	char want[512];

	(void)state;
	fetch_ok(&r, &req);
	assert_string_equal(r.body, TABLE_BODY);
	mt_fetch_response_dispose(&r);
	req.sha256 = "C89CD8374566E2B3B4990CC0FFC5C12D6DD1DC911B8459326287FF65ABDADCFE";
	fetch_ok(&r, &req);
	mt_fetch_response_dispose(&r);
	req.sha256 = "0000000000000000000000000000000000000000000000000000000000000000";
	snprintf(want, sizeof(want), "%s: sha256 mismatch: expected %s, got %s", req.url,
		 req.sha256, TABLE_SHA256);
	fetch_fails(&req, MT_EINVALID, want);
}

static void test_truncated(void **state)
{
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "%s: truncated download: transfer closed with 90 bytes "
		 "remaining to read", url("/truncated"));
	fails_at("/truncated", MT_EIO, want);
}

static void test_slow(void **state)
{
	mt_fetch_request req = {.url = url("/slow?s=3"), .total_timeout_ms = 300};
	int64_t start = mt_mono_ms();
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "%s: timed out: Operation timed out after *", req.url);
	fetch_fails(&req, MT_EIO, want);
	assert_true(mt_mono_ms() - start < 2000);
	/* A body that stops half way. */
	req.url = url("/stall?s=3");
	snprintf(want, sizeof(want), "%s: timed out: Operation timed out after *", req.url);
	fetch_fails(&req, MT_EIO, want);
}

static void test_redirect_to_http(void **state)
{
	char want[512];

	(void)state;
	snprintf(want, sizeof(want), "refusing the redirect from %s to "
		 "http://example.invalid/table.yaml: " POLICY, url("/redirect-http"));
	fails_at("/redirect-http", MT_EINVALID, want);
}

/* Loopback http to https is a permitted redirect: it is followed (and fails
 * to connect, since nothing listens on port 1). */
static void test_redirect_to_https(void **state)
{
	(void)state;
	fails_at("/redirect-https", MT_EIO,
		 "https://127.0.0.1:1/table.yaml: Failed to connect to 127.0.0.1 port 1*");
}

static void test_redirects(void **state)
{
	mt_fetch_request req = {.url = url("/redirect/3")};
	mt_fetch_response r;
	char want[512];

	(void)state;
	fetch_ok(&r, &req);
	assert_string_equal(r.body, TABLE_BODY);
	assert_string_equal(r.final_url, url("/table.yaml"));
	mt_fetch_response_dispose(&r);
	snprintf(want, sizeof(want), "%s: too many redirects (more than 3), the last from %s to %s",
		 url("/redirect/4"), url("/redirect/1"), url("/table.yaml"));
	fails_at("/redirect/4", MT_EIO, want);
	snprintf(want, sizeof(want), "%s: too many redirects (more than 3), the last from %s to %s",
		 url("/redirect-loop"), url("/redirect-loop"), url("/redirect-loop"));
	fails_at("/redirect-loop", MT_EIO, want);
}

static void big(const char *path, uint64_t max, const char *want_tail)
{
	mt_fetch_request req = {.url = url(path), .max_bytes = max};
	char want[256];

	snprintf(want, sizeof(want), "%s: %s", req.url, want_tail);
	fetch_fails(&req, MT_EIO, want);
}

static void test_big(void **state)
{
	mt_fetch_request req = {.max_bytes = 1024};
	mt_fetch_response r;

	(void)state;
	big("/big", 1024, "the response is larger than the 1024-byte limit");
	big("/big-stream", 1024, "the response is larger than the 1024-byte limit");
	big("/big-stream?n=1025", 1024, "the response is larger than the 1024-byte limit");
	big("/big-stream?n=9437184", 0, "the response is larger than the 8388608-byte limit");
	big("/big?n=9437184", 0, "the response is larger than the 8388608-byte limit");
	req.url = url("/big?n=1024");
	fetch_ok(&r, &req); /* exactly at the cap */
	assert_int_equal(r.len, 1024);
	mt_fetch_response_dispose(&r);
	req.url = url("/big-stream?n=1024");
	fetch_ok(&r, &req);
	assert_int_equal(r.len, 1024);
	mt_fetch_response_dispose(&r);
}

static void test_status(void **state)
{
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "%s: HTTP status 500", url("/status/500"));
	fails_at("/status/500", MT_EIO, want);
	snprintf(want, sizeof(want), "%s: HTTP status 404", url("/status/404"));
	fails_at("/status/404", MT_EIO, want);
	snprintf(want, sizeof(want), "%s: HTTP status 204", url("/status/204"));
	fails_at("/status/204", MT_EIO, want);
	snprintf(want, sizeof(want), "%s: HTTP status 302 without a Location", url("/status/302"));
	fails_at("/status/302", MT_EIO, want);
	snprintf(want, sizeof(want), "%s: HTTP status 304 (Not Modified) to a request that was "
		 "not conditional", url("/status/304"));
	fails_at("/status/304", MT_EIO, want);
	/* An error page announced larger than the cap is still reported by status. */
	snprintf(want, sizeof(want), "%s: HTTP status 500", url("/big-error"));
	fails_at("/big-error", MT_EIO, want);
}

static void test_empty_and_user_agent(void **state)
{
	mt_fetch_request req = {.url = url("/empty")};
	mt_fetch_response r;

	(void)state;
	fetch_ok(&r, &req);
	assert_non_null(r.body);
	assert_int_equal(r.len, 0);
	assert_string_equal(r.body, "");
	assert_null(r.etag);
	mt_fetch_response_dispose(&r);
	req.url = url("/user-agent");
	fetch_ok(&r, &req);
	assert_string_equal(r.body, "mtrial/" MT_VERSION);
	mt_fetch_response_dispose(&r);
}

/* A proxy from the environment is not used for loopback URLs. */
static void test_loopback_skips_proxy(void **state)
{
	static const char *const vars[] = {"http_proxy", "HTTPS_PROXY", "ALL_PROXY"};
	mt_fetch_request req = {.url = url("/table.yaml")};
	mt_fetch_response r;
	int error;

	(void)state;
	for (size_t i = 0; i < 3; i++)
		setenv(vars[i], "http://127.0.0.1:1", 1);
	error = mt_fetch(&r, &req);
	for (size_t i = 0; i < 3; i++)
		unsetenv(vars[i]);
	if (error < 0)
		fail_msg("%s", mt_error_last());
	assert_string_equal(r.body, TABLE_BODY);
	mt_fetch_response_dispose(&r);
}

/* Fetches from several threads at once: libcurl is initialised once, and
 * each thread's error message is its own. */
static void *fetch_in_thread(void *arg)
{
	mt_fetch_request req = {.url = arg, .max_bytes = 1024};
	mt_fetch_response r;
	int error = mt_fetch(&r, &req);
	char *result;

	if (error == 0) {
		result = mt_strdup(r.body);
		mt_fetch_response_dispose(&r);
	} else {
		result = mt_strdup(mt_error_last());
	}
	return result;
}

static void test_threads(void **state)
{
	char urls[8][128];
	pthread_t threads[8];

	(void)state;
	for (int i = 0; i < 8; i++) {
		snprintf(urls[i], sizeof(urls[i]), "%s%s", base, i % 2 ? "/big" : "/table.yaml");
		assert_int_equal(pthread_create(&threads[i], NULL, fetch_in_thread, urls[i]), 0);
	}
	for (int i = 0; i < 8; i++) {
		mt_buf want = MT_BUF_INIT;
		void *result;

		assert_int_equal(pthread_join(threads[i], &result), 0);
		if (i % 2)
			mt_buf_printf(&want, "%s: the response is larger than the 1024-byte limit",
				      urls[i]);
		else
			mt_buf_puts(&want, TABLE_BODY);
		assert_string_equal(result, mt_buf_cstr(&want));
		mt_buf_dispose(&want);
		free(result);
	}
}

int main(void)
{
	const struct CMUnitTest offline[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_https_only),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_loopback_allowed),
		cmocka_unit_test(test_dispose_zeroed),
	};
	const struct CMUnitTest served[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_etag_round_trip),
		cmocka_unit_test(test_sha256_check),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_slow),
		cmocka_unit_test(test_redirect_to_http),
		cmocka_unit_test(test_redirect_to_https),
		cmocka_unit_test(test_redirects),
		cmocka_unit_test(test_big),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_empty_and_user_agent),
		cmocka_unit_test(test_loopback_skips_proxy),
		cmocka_unit_test(test_threads),
	};
	int failed = cmocka_run_group_tests_name("fetch offline", offline, NULL, NULL);

	return failed + cmocka_run_group_tests_name("fetch served", served, start_server, stop_server);
}
