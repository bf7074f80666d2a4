"""frontier_client's reload controls (forcereload, maxagesecs, freshkey), logicalserverurl and preferipfamily, as
docs/client-failover.md maps them for every client; checked on the requests a real HTTP server receives."""

from __future__ import annotations

import socket
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from conftest import FaultyServer, free_port, send
from outpost import Client, Config, ErrorKind, Event, OutpostError
from outpost.reload import FOREVER, LONG, SHORT, lifetime_class
from outpost.transport import connect_preferring

VECTOR = (Path(__file__).resolve().parents[2] / "testdata" / "nodes.bin").read_bytes()
Start = Callable[[Callable[[BaseHTTPRequestHandler], None]], FaultyServer]
SHORT_PATH = "/v1/bin/nodes"
LONG_PATH = "/v1/bin/browse/GAINS-v2/0/100/all/channel,since/DEMO/Calo/Gains"
PINNED_PATH = "/v1/bin/pin/0123456789abcdef/browse/GAINS-v2/0/100/all/channel,since/DEMO/Calo/Gains"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def good(h: BaseHTTPRequestHandler) -> None:
    send(h, 200, VECTOR)  # Cache-Control: public, max-age=60


def cache_controls(s: FaultyServer) -> list[str | None]:
    return [r.get("cache-control") for r in s.requests]


def test_lifetime_classes_of_native_paths() -> None:
    assert lifetime_class(SHORT_PATH) == SHORT
    assert lifetime_class("/v1/bin/browse/HEAD/0/100/all/channel,since/DEMO/Calo/Gains") == SHORT
    assert lifetime_class("/v1/bin/tag/DEMO-2026/DEMO/Calo/Gains") == SHORT
    assert lifetime_class(LONG_PATH) == LONG
    assert lifetime_class("/v1/bin/count/GAINS-v2/0/100/all/DEMO/Calo/Gains") == LONG
    assert lifetime_class(PINNED_PATH) == FOREVER


def test_the_reload_keys_are_read_checked_and_written_back() -> None:
    c = Config.parse("(serverurl=a)(forcereload=SoftLong)(maxagesecs=30)(freshkey=long-7)"
                     "(logicalserverurl=logical:8000/)(preferipfamily=6)(writetimeoutsecs=2.5)")
    assert (c.force_reload, c.max_age_secs, c.fresh_key) == ("softlong", 30, "long-7")
    assert (c.logical_server, c.prefer_ip_family, c.write_timeout) == ("http://logical:8000", 6, 2.5)
    assert c.warnings == []
    again = Config.parse(c.to_string())
    assert (again.force_reload, again.max_age_secs, again.fresh_key, again.logical_server, again.prefer_ip_family,
            again.write_timeout) == ("softlong", 30, "long-7", "http://logical:8000", 6, 2.5)
    for bad in ("(forcereload=sometimes)", "(maxagesecs=-1)", "(preferipfamily=5)", "(writetimeout=0)"):
        with pytest.raises(OutpostError) as e:
            Config.parse("(serverurl=a)" + bad)
        assert e.value.kind == ErrorKind.CONFIG and bad[1:bad.index("=")] in e.value.message
    env = Config.from_environment({"OUTPOST_SERVER": "a", "FRONTIER_FORCERELOAD": "short", "FRONTIER_FRESHKEY": "k"})
    assert (env.force_reload, env.fresh_key) == ("short", "k")


def test_forcereload_short_reloads_short_requests_and_skips_the_in_process_cache(faulty: Start) -> None:
    s = faulty(good)
    with Client(config=f"(serverurl={s.url})(forcereload=short)") as c:
        c.get(SHORT_PATH)
        c.get(SHORT_PATH)
        c.get(LONG_PATH)
        c.get(LONG_PATH)  # a long request is not forced: the second one comes from the in-process cache
    assert cache_controls(s) == ["no-cache", "no-cache", None]
    assert [r.get("pragma") for r in s.requests] == ["no-cache", "no-cache", None]


def test_soft_forcereload_revalidates_up_to_its_class(faulty: Start) -> None:
    s = faulty(good)
    with Client(config=f"(serverurl={s.url})(forcereload=softlong)") as c:
        for path in (SHORT_PATH, LONG_PATH, PINNED_PATH, PINNED_PATH):
            c.get(path)
    assert cache_controls(s) == ["max-age=0", "max-age=0", None]
    assert all("pragma" not in r for r in s.requests)


def test_maxagesecs_asks_every_cache_and_caps_the_in_process_one(faulty: Start) -> None:
    s = faulty(good)
    clock = Clock()
    with Client(config=f"(serverurl={s.url})(maxagesecs=30)", clock=clock) as c:
        c.get(LONG_PATH)
        clock.now += 29
        c.get(LONG_PATH)  # still within 30 s: from the in-process cache
        clock.now += 2
        c.get(LONG_PATH)  # the server allows 60 s, maxagesecs 30 s
    assert cache_controls(s) == ["max-age=30", "max-age=30"]


def test_maxagesecs_0_is_softlong_and_freshkey_revalidates_short_or_long(faulty: Start) -> None:
    for spec, want in (("(maxagesecs=0)", ["max-age=0", "max-age=0", None]),
                       ("(freshkey=job42)", ["max-age=0", None, None]),
                       ("(freshkey=long42)", ["max-age=0", "max-age=0", None]),
                       ("(freshkey=job42)(forcereload=long)", ["no-cache", "no-cache", None])):
        s = faulty(good)
        with Client(config=f"(serverurl={s.url}){spec}") as c:
            for path in (SHORT_PATH, LONG_PATH, PINNED_PATH):
                c.get(path)
        assert cache_controls(s) == want, spec


def test_a_corrupt_answer_escalates_from_the_forced_refresh(faulty: Start) -> None:
    def answer(h: BaseHTTPRequestHandler) -> None:
        damaged = bytearray(VECTOR)
        damaged[-6] ^= 0xFF
        send(h, 200, VECTOR if h.headers.get("Cache-Control") == "no-cache" else bytes(damaged))

    s = faulty(answer)
    log: list[Event] = []
    with Client(config=f"(serverurl={s.url})(forcereload=softshort)", on_event=log.append) as c:
        assert c.nodes().values("path") == ["/", "/A/b"]
    assert [(e.kind, e.refresh) for e in log] == [("attempt", "max-age=0"), ("corrupt", "max-age=0"),
                                                  ("attempt", "no-cache"), ("success", "no-cache")]


def test_requests_through_a_proxy_name_the_logical_server(faulty: Start) -> None:
    proxy = faulty(good)
    logical = "(logicalserverurl=http://conditions.example:8000)"
    with Client(config=f"(serverurl=http://127.0.0.1:{free_port()})(proxyurl={proxy.url}){logical}") as c:
        c.get(SHORT_PATH)  # the physical server is down, but the proxy is asked for the logical one
    with Client(config=f"(serverurl={proxy.url}){logical}") as c:
        c.get(SHORT_PATH)  # direct: the physical server, in origin form
    assert proxy.targets == ["http://conditions.example:8000" + SHORT_PATH, SHORT_PATH]


@pytest.mark.parametrize("family,first", [(6, socket.AF_INET6), (4, socket.AF_INET)])
def test_preferipfamily_tries_that_family_first(monkeypatch: pytest.MonkeyPatch, family: int, first: int) -> None:
    v6 = socket.socket(socket.AF_INET6)
    try:
        v6.bind(("::1", 0))
    except OSError:
        v6.close()
        pytest.skip("no IPv6 loopback in this environment")
    v4 = socket.socket(socket.AF_INET)
    v4.bind(("127.0.0.1", 0))
    with v6, v4:
        v6.listen()
        v4.listen()
        # the resolver is the one part replaced: no name on this machine has both loopback addresses
        both = [(socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", v6.getsockname()),
                (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", v4.getsockname())]
        real = socket.getaddrinfo
        monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a: both if host == "dual.test" else real(host, *a))
        with connect_preferring(("dual.test", 80), 2.0, family) as conn:
            assert conn.family == first
        (v6 if first == socket.AF_INET6 else v4).close()  # the preferred family refuses: the other one is used
        with connect_preferring(("dual.test", 80), 2.0, family) as conn:
            assert conn.family != first


def test_writetimeout_bounds_sending_a_request_to_a_peer_that_does_not_read() -> None:
    # A listening socket that never accepts: the kernel takes the connection, and the request only fills its small
    # receive buffer. A request larger than the socket buffers (megabytes: a real one is a few hundred bytes) then
    # waits on the send, which the write timeout ends; the read timeout is far longer, so it cannot be the one.
    with socket.socket() as stalled:
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.bind(("127.0.0.1", 0))
        stalled.listen()
        port = stalled.getsockname()[1]
        with Client(config=f"(serverurl=http://127.0.0.1:{port})(writetimeoutsecs=0.5)(readtimeout=60)"
                           "(retries=0)") as c:
            with pytest.raises(OutpostError) as e:
                c.channels("/" + "x" * 16_000_000)
    assert "the request was not sent within the write timeout" in str(e.value)
