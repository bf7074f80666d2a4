#!/usr/bin/env python3
"""The servers and proxies of one failover case of cases.json, scripted request by request, for the clients' tests.

    python3 failover_server.py --case NAME [--cases cases.json]

Opens one listening port per endpoint of the case on 127.0.0.1 and prints ``PORTS A=N B=N P=N`` as its first
stdout line. Then, for each line ``request I`` read from stdin, it puts every endpoint in the state the case's
request I asks for (``down``: connections refused; ``answers``: one answer per request received, the last one
repeated) and prints ``ready I``. It ends when stdin closes. Standard library only; every answer says
``Connection: close``."""

import argparse
import json
import socket
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
NODES = (HERE.parent / "nodes.bin").read_bytes()  # a valid binary answer (docs/wire-format.md) of /v1/bin/nodes
# the same answer with a wrong CRC-32 in its trailer (row count 8 bytes, CRC 4 bytes, magic 4 bytes)
CORRUPT = NODES[:-5] + bytes([NODES[-5] ^ 0xFF]) + NODES[-4:]
BINARY = "application/vnd.outpost.v1+binary"
HOLD_SECONDS = 30  # a "timeout" answer holds the connection at most this long (the client gives up before)
ANSWERS = ("ok", "corrupt", "truncated", "stale", "500", "503", "503-retry-after", "404", "204", "timeout",
           "hangup", "forward")


def head(status, reason, headers, length):
    lines = [f"HTTP/1.1 {status} {reason}", f"Content-Length: {length}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def reply(sock, answer):
    """Sends one scripted answer (not "forward") on an accepted connection whose request head was read."""
    if answer == "ok":
        sock.sendall(head(200, "OK", [("Content-Type", BINARY), ("Cache-Control", "max-age=60")], len(NODES)) + NODES)
    elif answer == "corrupt":
        sock.sendall(head(200, "OK", [("Content-Type", BINARY), ("Cache-Control", "max-age=60")], len(CORRUPT))
                     + CORRUPT)
    elif answer == "truncated":
        sock.sendall(head(200, "OK", [("Content-Type", BINARY), ("Cache-Control", "max-age=60")], len(NODES))
                     + NODES[:len(NODES) // 2])
    elif answer == "stale":  # a cached copy older than its own max-age allows
        sock.sendall(head(200, "OK", [("Content-Type", BINARY), ("Cache-Control", "max-age=60"), ("Age", "120")],
                          len(NODES)) + NODES)
    elif answer in ("500", "503", "503-retry-after", "404"):
        status = int(answer[:3])
        body = json.dumps({"title": "scripted", "status": status, "detail": f"scripted {answer}"}).encode()
        headers = [("Content-Type", "application/problem+json"), ("Cache-Control", "no-store")]
        if answer == "503-retry-after":
            headers.append(("Retry-After", "120"))
        reason = {500: "Internal Server Error", 503: "Service Unavailable", 404: "Not Found"}[status]
        sock.sendall(head(status, reason, headers, len(body)) + body)
    elif answer == "204":  # a status no Outpost service answers a read with
        sock.sendall(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
    elif answer == "timeout":  # connected, then nothing: the client's read timeout ends it
        sock.settimeout(HOLD_SECONDS)
        try:
            while sock.recv(4096):
                pass
        except OSError:
            pass
    elif answer == "hangup":  # the request was read, then the connection closes without a byte
        pass
    else:
        raise ValueError(f"unknown answer {answer!r}")


def read_head(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        part = sock.recv(8192)
        if not part or len(data) > 65536:
            return None
        data += part
    return data.split(b"\r\n", 1)[0].decode("latin-1")


class Endpoint:
    """One server or proxy: a port that is either listening or refusing connections (bound, not listening)."""

    def __init__(self, name, role, fixture):
        self.name, self.role, self.fixture = name, role, fixture
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.up = False
        self.answers = ["forward" if role == "proxy" else "ok"]
        self.hits = 0

    def set_up(self, up):
        if up == self.up:
            return
        self.sock.close()  # a listening socket cannot stop listening: a new one takes the port
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", self.port))
        self.up = up
        if up:
            self.sock.listen(64)
            threading.Thread(target=self.accept, args=(self.sock,), daemon=True).start()

    def next_answer(self):
        with self.fixture.lock:
            answer = self.answers[min(self.hits, len(self.answers) - 1)]
            self.hits += 1
            return answer

    def accept(self, listener):
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return  # closed: the endpoint went down
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        try:
            with conn:
                line = read_head(conn)
                if line is None:
                    return
                answer = self.next_answer()
                if answer == "forward":
                    answer = self.fixture.behind_proxy(line)
                reply(conn, answer)
                try:
                    conn.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
        except OSError:
            pass  # the client gave up


class Fixture:
    def __init__(self, case):
        self.case = case
        self.lock = threading.Lock()
        self.endpoints = {}
        for name in case["servers"]:
            self.endpoints[name] = Endpoint(name, "server", self)
        for name in case.get("proxies", []):
            self.endpoints[name] = Endpoint(name, "proxy", self)
        self.by_port = {e.port: e for e in self.endpoints.values()}

    def behind_proxy(self, request_line):
        """What a proxy relays for an absolute-form request: the server's own answer, or 503 when the server
        cannot be reached (as Squid's ERR_CONNECT_FAIL)."""
        target = request_line.split(" ")[1] if " " in request_line else ""
        try:
            port = int(target.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        except (IndexError, ValueError):
            return "503"
        server = self.by_port.get(port)
        if server is None or server.role != "server" or not server.up:
            return "503"
        return server.next_answer()

    def apply(self, index):
        request = self.case["requests"][index]
        down = set(request.get("down", []))
        with self.lock:
            for e in self.endpoints.values():
                e.answers = request.get("answers", {}).get(e.name) or ["forward" if e.role == "proxy" else "ok"]
                e.hits = 0
        for e in self.endpoints.values():
            e.set_up(e.name not in down)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", required=True)
    parser.add_argument("--cases", default=str(HERE / "cases.json"))
    args = parser.parse_args()
    cases = {c["name"]: c for c in json.loads(Path(args.cases).read_text())["cases"]}
    fixture = Fixture(cases[args.case])
    print("PORTS " + " ".join(f"{n}={e.port}" for n, e in fixture.endpoints.items()), flush=True)
    for line in sys.stdin:
        words = line.split()
        if len(words) == 2 and words[0] == "request":
            fixture.apply(int(words[1]))
            print(f"ready {words[1]}", flush=True)


if __name__ == "__main__":
    main()
