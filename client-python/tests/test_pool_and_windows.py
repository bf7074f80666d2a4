"""The connection pool after fork(), and per-folder cache windows; against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import os
import select
import signal
import threading
import warnings
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from conftest import FaultyServer, send
from outpost import Client, Config, Window

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"
NODES = (TESTDATA / "nodes.bin").read_bytes()
IOVS = (TESTDATA / "iovs_all_types.bin").read_bytes()
Start = Callable[[Callable[[BaseHTTPRequestHandler], None]], FaultyServer]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")
def test_a_forked_child_opens_its_own_connection_and_the_parent_keeps_its_one(faulty: Start) -> None:
    ports: list[int] = []  # the client port of each request: one per TCP connection

    def answer(h: BaseHTTPRequestHandler) -> None:
        ports.append(h.client_address[1])
        send(h, 200, NODES, {"Cache-Control": "no-store"})

    s = faulty(answer)
    with Client(s.url) as c:
        c.nodes()  # the connection goes back to the pool, kept alive
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: the inherited pool is empty, so it connects anew
            ok = False
            try:
                ok = c.nodes().values("path") == ["/", "/A/b"] and c.stats.requests == 2
            finally:
                os.write(write_end, b"ok" if ok else b"failed")
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as child:
            assert child.read() == b"ok"
        assert os.waitpid(pid, 0)[1] == 0
        c.nodes()  # the parent still has its connection
    assert len(ports) == 3 and ports[0] == ports[2] != ports[1]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")
def test_a_child_forked_while_another_thread_holds_the_clients_locks_still_reads(faulty: Start) -> None:
    s = faulty(lambda h: send(h, 200, NODES, {"Cache-Control": "max-age=60"}))
    with Client(s.url) as c:
        c.nodes()  # kept in the answer cache: the child's read takes the cache's lock
        held, release = threading.Event(), threading.Event()

        def hold() -> None:
            with c._cache._lock, c._failover._lock, c._transport._lock:
                held.set()
                release.wait(30)

        holder = threading.Thread(target=hold)
        holder.start()
        assert held.wait(30)
        read_end, write_end = os.pipe()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork() with threads: what this test is about
            pid = os.fork()
        if pid == 0:  # the child: the locks' holder does not exist here
            ok = False
            try:
                ok = c.nodes().values("path") == ["/", "/A/b"]
            finally:
                os.write(write_end, b"ok" if ok else b"failed")
                os._exit(0)
        release.set()
        holder.join()
        os.close(write_end)
        with os.fdopen(read_end, "rb") as child:
            ready, _, _ = select.select([child], [], [], 30)
            if not ready:  # the child hangs on a lock it inherited held
                os.kill(pid, signal.SIGKILL)
            answer = child.read() if ready else b"hung"
        os.waitpid(pid, 0)
        assert answer == b"ok"


def test_folder_windows_before_the_key_type(faulty: Start) -> None:
    s = faulty(lambda h: send(h, 200, IOVS))
    cfg = Config(servers=[s.url], time_window=Window(0), run_lumi_window=Window(0),
                 folder_windows={"/A/": Window(0), "/A/b": Window(1000), "/B/": Window(100, 4)})
    with Client(config=cfg) as c:
        for folder in ("/A/b", "/A/c", "/B/x/y", "/C"):
            c.find(folder, 1030)
    assert s.targets == ["/v1/bin/browse/HEAD/1000/1999/all/cs/A/b",  # its own window
                         "/v1/bin/at/HEAD/1030/all/A/c",  # /A/'s: direct /at/ queries
                         "/v1/bin/browse/HEAD/1025/1124/all/cs/B/x/y",  # a quarter-aligned window of 100
                         "/v1/bin/at/HEAD/1030/all/C"]  # no window: the key type's, here none
