#!/usr/bin/env python3
"""A tiny HTTP server for the fetch tests (standard library only).

Binds 127.0.0.1 on an ephemeral port, prints the port on the first line of
stdout, serves each request in its own thread, and exits by itself after
--lifetime seconds (default 60, at most 600) so that a test that dies cannot leave it
behind.

Routes:
  /table.yaml          200 with ETag and Last-Modified; 304 when If-None-Match
                       matches the ETag (or If-Modified-Since is given and no
                       If-None-Match is)
  /truncated           Content-Length 100 with a 10-byte body, then close
  /slow?s=N            sleeps N seconds (default 5, at most 5) before answering
  /stall?s=N           sends headers and 5 bytes, then sleeps N s (at most 5)
  /redirect-http       302 to http://example.invalid/table.yaml
  /redirect-https      302 to https://127.0.0.1:1/table.yaml (nothing listens)
  /redirect-loop       302 to itself
  /redirect/N          N redirects in a row, then /table.yaml: 302 to
                       /redirect/N-1, and /redirect/1 to /table.yaml
  /big?n=N             200 with Content-Length N (default 1 MiB)
  /big-stream?n=N      200 with N bytes (default 1 MiB), no Content-Length,
                       the end marked by closing the connection
  /big-error           500 with Content-Length 64 MiB (body never sent)
  /empty               200 with an empty body
  /status/N            status N with a short body
  /user-agent          200 with the request's User-Agent as the body
  /doc/NAME            PUT stores the request body under NAME (204); GET
                       answers it (404 before a PUT) with an ETag of its
                       SHA-256 and a Last-Modified of its PUT, and 304 as
                       /table.yaml does, so a test can change a document
                       between two downloads of the same URL
"""

import argparse
import email.utils
import hashlib
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

TABLE = b"schema: 1\nops:\n  - aten::add\n  - aten::mm\n"
ETAG = '"table-v1"'
LAST_MODIFIED = "Sat, 01 Nov 2025 12:00:00 GMT"
MAX_SLEEP = 5.0
DOCS = {}  # /doc/NAME: name -> (body, etag, last_modified)
DOCS_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    server_version = "mtrial-test/1"

    def log_message(self, format, *args):  # quiet: the C test owns stderr
        pass

    def arg(self, name, default):
        query = parse_qs(urlsplit(self.path).query)
        try:
            return float(query[name][0])
        except (KeyError, ValueError):
            return default

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304:
            self.wfile.write(body)

    def redirect(self, location):
        self.answer(302, b"moved\n", [("Location", location)])

    def do_GET(self):
        try:
            self.route(urlsplit(self.path).path)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up, as tests intend

    def route(self, path):
        if path == "/table.yaml":
            self.table()
        elif path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"0123456789")
            self.wfile.flush()
            self.close_connection = True
        elif path == "/slow":
            time.sleep(min(self.arg("s", MAX_SLEEP), MAX_SLEEP))
            self.answer(200, TABLE)
        elif path == "/stall":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"start")
            self.wfile.flush()
            time.sleep(min(self.arg("s", MAX_SLEEP), MAX_SLEEP))
            self.close_connection = True
        elif path == "/redirect-http":
            self.redirect("http://example.invalid/table.yaml")
        elif path == "/redirect-https":
            self.redirect("https://127.0.0.1:1/table.yaml")
        elif path == "/redirect-loop":
            self.redirect("/redirect-loop")
        elif path.startswith("/redirect/"):
            self.counted_redirect(path[len("/redirect/"):])
        elif path == "/big":
            self.big(int(self.arg("n", 1 << 20)), True)
        elif path == "/big-stream":
            self.big(int(self.arg("n", 1 << 20)), False)
        elif path == "/big-error":
            self.send_response(500)
            self.send_header("Content-Length", str(64 << 20))
            self.end_headers()
            self.close_connection = True
        elif path == "/empty":
            self.answer(200, b"")
        elif path == "/user-agent":
            self.answer(200, self.headers.get("User-Agent", "").encode())
        elif path.startswith("/status/"):
            self.status(path[len("/status/"):])
        elif path.startswith("/doc/"):
            self.doc(path[len("/doc/"):])
        else:
            self.answer(404, b"no such route\n")

    def table(self):
        inm = self.headers.get("If-None-Match")
        ims = self.headers.get("If-Modified-Since")
        headers = [("ETag", ETAG), ("Last-Modified", LAST_MODIFIED)]
        if (inm is not None and ETAG in [t.strip() for t in inm.split(",")]) or (
            inm is None and ims == LAST_MODIFIED
        ):
            self.answer(304, headers=headers)
        else:
            self.answer(200, TABLE, headers + [("Content-Type", "application/yaml")])

    def do_PUT(self):
        path = urlsplit(self.path).path
        if not path.startswith("/doc/"):
            self.answer(405, b"PUT only to /doc/NAME\n")
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        etag = '"%s"' % hashlib.sha256(body).hexdigest()[:16]
        with DOCS_LOCK:
            DOCS[path[len("/doc/"):]] = (body, etag, email.utils.formatdate(usegmt=True))
        self.answer(204)

    def doc(self, name):
        with DOCS_LOCK:
            stored = DOCS.get(name)
        if stored is None:
            self.answer(404, b"no such document\n")
            return
        body, etag, modified = stored
        inm = self.headers.get("If-None-Match")
        ims = self.headers.get("If-Modified-Since")
        headers = [("ETag", etag), ("Last-Modified", modified)]
        if (inm is not None and etag in [t.strip() for t in inm.split(",")]) or (
            inm is None and ims == modified
        ):
            self.answer(304, headers=headers)
        else:
            self.answer(200, body, headers)

    def counted_redirect(self, n):
        try:
            left = int(n)
        except ValueError:
            self.answer(400, b"bad count\n")
            return
        self.redirect("/table.yaml" if left <= 1 else "/redirect/%d" % (left - 1))

    def big(self, n, with_length):
        self.send_response(200)
        if with_length:
            self.send_header("Content-Length", str(n))
        self.end_headers()
        chunk = b"x" * 16384
        while n > 0:
            self.wfile.write(chunk[: min(n, len(chunk))])
            n -= len(chunk)
        self.close_connection = True

    def status(self, code):
        try:
            self.answer(int(code), b"status %s\n" % code.encode())
        except ValueError:
            self.answer(400, b"bad status\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that hangs up mid-answer is what several tests do


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lifetime", type=float, default=60.0)
    args = parser.parse_args()

    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    # os._exit, not shutdown(): a handler asleep in /slow must not delay it.
    timer = threading.Timer(min(args.lifetime, 600.0), os._exit, args=(0,))
    timer.daemon = True
    timer.start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
