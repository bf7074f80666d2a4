#!/usr/bin/env python3
"""A hostile HTTP server (or proxy) for the clients' test suites: answers that never end, drip, lie about their
length, bury the status in endless headers, redirect to another key, or replay an expired signed answer.

    python3 hostile_server.py --case NAME [--upstream URL] [--port 0]

Prints ``PORT N`` on its first stdout line once it listens on 127.0.0.1, then serves until it is killed or, when
stdin is a pipe, until stdin closes. Works as a server (the client's serverurl) and as a proxy (absolute-form
request targets). Standard library only. Every case is bounded on this side: a request head over 64 KiB is refused,
bodies are written from one fixed buffer, relayed answers are streamed, never held whole."""

import argparse
import base64
import http.client
import json
import os
import re
import socket
import socketserver
import stat
import sys
import threading
import time
import urllib.parse
from collections import OrderedDict
from pathlib import Path

CASES = ("endless", "chunked-forever", "oversized", "drip", "big-headers", "truncated", "redirect-other-key",
         "replay", "signed-redirect-elsewhere")
VECTORS = Path(__file__).resolve().parent.parent / "signatures" / "cases.json"
MAX_HEAD = 64 * 1024
MAX_FORWARDED_BODY = 1024 * 1024
CHUNK = 64 * 1024
# A JSON-looking filler, so a client that decodes as it reads does not stop early on a syntax error.
FILLER = (b"[1,1767225600000000000,1767229200000000000,1.0]," * (CHUNK // 48 + 1))[:CHUNK]
HOUR_NS = 3600 * 10**9
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te",
              "trailer", "transfer-encoding", "upgrade"}
# /v1/{format}[/pin/{generation}]/at/{tag}/{t}/... and .../browse/{tag}/{t1}/{t2}/...
AT = re.compile(r"^(/v1/[^/]+(?:/pin/[^/]+)?/at/[^/]+/)(\d+)(/.*)$")
BROWSE = re.compile(r"^(/v1/[^/]+(?:/pin/[^/]+)?/browse/[^/]+/)(\d+)/(\d+)(/.*)$")


def earlier(key):
    """Another key, an hour earlier for a time key (nanoseconds), a run earlier for a run-lumi key."""
    if key >= HOUR_NS:
        return key - HOUR_NS
    return max(0, key - (1 << 32))


def other_key_target(path):
    """The same read with another key (or window), or None when the target is not a read at a key."""
    m = AT.match(path)
    if m:
        key = int(m.group(2))
        moved = earlier(key)
        return None if moved == key else f"{m.group(1)}{moved}{m.group(3)}"
    m = BROWSE.match(path)
    if m:
        t1, t2 = int(m.group(2)), int(m.group(3))
        m1, m2 = earlier(t1), earlier(t2)
        return None if (m1, m2) == (t1, t2) else f"{m.group(1)}{m1}/{m2}{m.group(4)}"
    return None


class Request:
    def __init__(self, method, target, version, headers, absolute):
        self.method, self.target, self.version, self.headers = method, target, version, headers
        self.absolute = absolute  # (scheme, netloc) of an absolute-form target, else None


def read_head(sock):
    """The request head, at most MAX_HEAD bytes; None when the peer closed or sent too much."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > MAX_HEAD:
            return None, data
        part = sock.recv(8192)
        if not part:
            return None, data
        data += part
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    try:
        method, target, version = lines[0].split(" ", 2)
    except ValueError:
        return None, data
    headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers.append((name.strip(), value.strip()))
    absolute = None
    if "://" in target:
        parsed = urllib.parse.urlsplit(target)
        absolute = (parsed.scheme, parsed.netloc)
        target = parsed.path or "/"
        if parsed.query:
            target += "?" + parsed.query
    return Request(method, target, version, headers, absolute), rest


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        sock.settimeout(None)
        try:
            req, rest = read_head(sock)
            if req is None:
                if len(rest) > MAX_HEAD:
                    sock.sendall(b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n"
                                 b"Connection: close\r\n\r\n")
                return
            self.server.log(f"{self.server.case} {req.method} {req.target}")
            getattr(self, "case_" + self.server.case.replace("-", "_"))(sock, req, rest)
        except (ConnectionError, socket.timeout, OSError):
            pass  # the client gave up: that is what the cases are for

    # -- endless answers ------------------------------------------------------------------------------------------

    def case_endless(self, sock, req, rest):
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
                     b'{"rows":[')
        while True:
            sock.sendall(FILLER)

    def case_chunked_forever(self, sock, req, rest):
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n" % len(FILLER) + FILLER + b"\r\n"
        while True:
            sock.sendall(chunk)

    def case_oversized(self, sock, req, rest):
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n"
                     b"Connection: close\r\n\r\n")
        while True:
            sock.sendall(FILLER)

    def case_drip(self, sock, req, rest):
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.outpost.v1+binary\r\n"
                     b"Content-Length: 100000\r\nConnection: close\r\n\r\n")
        # a valid header of the binary format (docs/wire-format.md) first: a client that decodes as it reads
        # waits for the rest, so only its overall deadline can end the attempt
        body = b"OUTP\x01\x00\x00\x00" + (100000 - 32).to_bytes(8, "big") + FILLER
        for i in range(100000):
            sock.sendall(body[i % len(body):i % len(body) + 1])
            time.sleep(1)

    def case_big_headers(self, sock, req, rest):
        sock.sendall(b"HTTP/1.1 200 OK\r\n")
        line = b"X-Filler: " + b"a" * 1000 + b"\r\n"
        block = line * (CHUNK // len(line))
        while True:
            sock.sendall(block)

    def case_truncated(self, sock, req, rest):
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n"
                     b"Connection: close\r\n\r\n" + FILLER[:1000])
        sock.shutdown(socket.SHUT_RDWR)

    # -- replayed signed answers ----------------------------------------------------------------------------------

    def send_vector(self, sock, name):
        v = self.server.vector(name)
        body = base64.b64decode(v["body_base64"])
        reason = {200: "OK", 301: "Moved Permanently"}.get(v["status"], "Status")
        head = [f"HTTP/1.1 {v['status']} {reason}", "Content-Type: application/json",
                f"Content-Length: {len(body)}", "Connection: close"]
        if v["location"]:
            head.append(f"Location: {v['location']}")
        if v["etag"]:
            head.append(f"ETag: {v['etag']}")
        if v["header"]:
            head.append(f"X-Outpost-Signature: {v['header']}")
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)

    def case_replay(self, sock, req, rest):
        self.send_vector(sock, "expired-replay")

    def case_signed_redirect_elsewhere(self, sock, req, rest):
        self.send_vector(sock, "redirect-elsewhere")

    # -- a man in the middle --------------------------------------------------------------------------------------

    def case_redirect_other_key(self, sock, req, rest):
        moved = None if self.server.was_redirect_target(req.target) else other_key_target(req.target)
        if moved is not None:
            self.server.remember_redirect_target(moved)
            location = moved
            if req.absolute:
                location = f"{req.absolute[0]}://{req.absolute[1]}{moved}"
            sock.sendall((f"HTTP/1.1 301 Moved Permanently\r\nLocation: {location}\r\nContent-Length: 0\r\n"
                          "Connection: close\r\n\r\n").encode("latin-1"))
            return
        self.forward(sock, req, rest)

    def forward(self, sock, req, rest):
        upstream = self.server.upstream
        if upstream is None and req.absolute:
            upstream = urllib.parse.urlsplit(f"{req.absolute[0]}://{req.absolute[1]}/")
        if upstream is None:
            sock.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        length = int(dict((k.lower(), v) for k, v in req.headers).get("content-length", "0") or 0)
        if length > MAX_FORWARDED_BODY:
            sock.sendall(b"HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        body = rest
        while len(body) < length:
            part = sock.recv(min(CHUNK, length - len(body)))
            if not part:
                return
            body += part
        conn_class = http.client.HTTPSConnection if upstream.scheme == "https" else http.client.HTTPConnection
        conn = conn_class(upstream.hostname, upstream.port, timeout=30)
        try:
            conn.putrequest(req.method, req.target, skip_host=True, skip_accept_encoding=True)
            for name, value in req.headers:
                if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                    conn.putheader(name, value)
            if body or length:
                conn.putheader("Content-Length", str(len(body[:length])))
            conn.putheader("Connection", "close")
            conn.endheaders(body[:length] if length else None)
            resp = conn.getresponse()
            out = [f"HTTP/1.1 {resp.status} {resp.reason}"]
            out += [f"{k}: {v}" for k, v in resp.getheaders() if k.lower() not in HOP_BY_HOP]
            out.append("Connection: close")
            sock.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
            if req.method != "HEAD":
                while True:
                    part = resp.read(CHUNK)
                    if not part:
                        break
                    sock.sendall(part)
        finally:
            conn.close()


class HostileServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, port, case, upstream, vectors, verbose):
        super().__init__(("127.0.0.1", port), Handler)
        self.case = case
        self.upstream = urllib.parse.urlsplit(upstream) if upstream else None
        self.vectors_path = vectors
        self.verbose = verbose
        self._vectors = None
        self._redirected = OrderedDict()  # targets this server sent a client to: forwarded, not redirected again
        self._lock = threading.Lock()

    def vector(self, name):
        with self._lock:
            if self._vectors is None:
                doc = json.loads(Path(self.vectors_path).read_text())
                self._vectors = {c["name"]: c for c in doc["cases"]}
            return self._vectors[name]

    def remember_redirect_target(self, target):
        with self._lock:
            self._redirected[target] = True
            while len(self._redirected) > 4096:
                self._redirected.popitem(last=False)

    def was_redirect_target(self, target):
        with self._lock:
            return target in self._redirected

    def log(self, message):
        if self.verbose:
            print(message, file=sys.stderr, flush=True)


def end_when_stdin_closes():
    """Ends the process when stdin is a pipe or socket and its writer closes it (the test that started us ended).
    A terminal or /dev/null (a shell's background job) is not watched: such a server runs until killed."""
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return

    def watch():
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", required=True, choices=CASES)
    parser.add_argument("--upstream", help="the service behind redirect-other-key (http://host:port)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--vectors", default=str(VECTORS), help="signed-answer vectors (default: "
                        "testdata/signatures/cases.json)")
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    args = parser.parse_args()
    server = HostileServer(args.port, args.case, args.upstream, args.vectors, args.verbose)
    print(f"PORT {server.server_address[1]}", flush=True)
    end_when_stdin_closes()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
