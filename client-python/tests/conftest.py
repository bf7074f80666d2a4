"""Shared fixtures: the service under test (OUTPOST_TEST_SERVER, started by ./outpost test on the demo database)
and a real Squid in front of it (squid-config/run-squid.sh), both on 127.0.0.1 only."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def server() -> str:
    url = os.environ.get("OUTPOST_TEST_SERVER", "")
    if not url.startswith("http://127.0.0.1:"):
        pytest.skip("needs OUTPOST_TEST_SERVER=http://127.0.0.1:PORT, a service on the demo database "
                    "(./outpost test starts one)")
    return url


@pytest.fixture(scope="session")
def squid(server: str) -> Iterator[tuple[str, Path]]:
    """(proxy URL, access log) of a Squid started for this test run in front of ``server``."""
    if shutil.which("squid") is None:
        pytest.skip("squid is not installed (./outpost test installs it)")
    work = Path(tempfile.mkdtemp(prefix="squid-"))
    work.chmod(0o755)  # squid runs as its own user when started by root
    port = free_port()
    script = str(REPO / "squid-config" / "run-squid.sh")
    try:
        subprocess.run(["bash", script, "start", "--dir", str(work), "--port", str(port), "--outpost", server],
                       check=True, capture_output=True, timeout=120)
        yield f"http://127.0.0.1:{port}", work / "logs" / "access.log"
    finally:
        subprocess.run(["bash", script, "stop", "--dir", str(work)], capture_output=True, timeout=120)
        shutil.rmtree(work, ignore_errors=True)


class FaultyServer:
    """A real HTTP server on 127.0.0.1 that answers every GET with ``answer(handler)``: for faults the real
    service cannot be made to show (damaged, truncated or stale answers). Records the request targets and headers."""

    def __init__(self, answer: Callable[[BaseHTTPRequestHandler], None]) -> None:
        self.requests: list[dict[str, str]] = []
        self.targets: list[str] = []  # as sent: origin form, or the absolute URL a proxy receives
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
                outer.targets.append(self.path)
                outer.requests.append({k.lower(): v for k, v in self.headers.items()})
                answer(self)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        # a short poll interval: shutdown() waits for the serving loop to look again (0.5 s by default)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None,
         content_length: int | None = None) -> None:
    handler.send_response(status)
    for k, v in (headers or {"Cache-Control": "public, max-age=60"}).items():
        handler.send_header(k, v)
    handler.send_header("Content-Length", str(len(body) if content_length is None else content_length))
    handler.end_headers()
    handler.wfile.write(body)
    if content_length is not None:
        handler.close_connection = True


@pytest.fixture
def faulty() -> Iterator[Callable[[Callable[[BaseHTTPRequestHandler], None]], FaultyServer]]:
    servers: list[FaultyServer] = []

    def start(answer: Callable[[BaseHTTPRequestHandler], None]) -> FaultyServer:
        servers.append(FaultyServer(answer))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def squid_log(access_log: Path, wanted: Callable[[list[str]], bool], timeout: float = 10.0) -> list[str]:
    """The lines of Squid's access log once ``wanted(lines)`` holds (or after ``timeout`` seconds, for the caller's
    assertion to fail on). Squid writes a transaction's line when it has finished it, which can be just after the
    client has read the whole answer, so a test reads the log until the lines it expects are there."""
    deadline = time.monotonic() + timeout
    while True:
        lines = access_log.read_text().splitlines()
        if wanted(lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.02)

