"""The client against the real service (OUTPOST_TEST_SERVER), a real Squid, dead endpoints, and a real HTTP server
sending the faults the service cannot be made to send; the failover decisions are checked on the event log."""

from __future__ import annotations

from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
import struct
import zlib
from pathlib import Path

import pytest

from conftest import FaultyServer, free_port, send, squid_log
from outpost import Channels, Client, Config, Decision, ErrorKind, Event, OutpostError, Order, run_lumi
from outpost.cli.times import parse_time

VECTOR = (Path(__file__).resolve().parents[2] / "testdata" / "nodes.bin").read_bytes()
Start = Callable[[Callable[[BaseHTTPRequestHandler], None]], FaultyServer]


def dead() -> str:
    """A URL where nothing listens."""
    return f"http://127.0.0.1:{free_port()}"


class Log:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, e: Event) -> None:
        self.events.append(e)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


def client(servers: list[str], proxies: list[str] | None = None, log: Log | None = None, retries: int = 0,
           sleeps: list[float] | None = None) -> Client:
    cfg = Config(retries=retries, connect_timeout=2, read_timeout=5)
    return Client(servers, proxies or [], cfg, on_event=log,
                  sleep=(sleeps.append if sleeps is not None else lambda s: None))


# --- queries on the real service ----------------------------------------------------------------------------

def test_queries_on_the_demo_database(server: str) -> None:
    with client([server]) as c:
        nodes = c.nodes()
        assert "/DEMO/Calo/Pedestals" in nodes.values("path")
        assert c.channels("/DEMO/DCS/HV").values("name")[:2] == ["HV_A", "HV_B"]
        assert "GAINS-v1" in c.tags("/DEMO/Calo/Gains").values("name")
        assert c.resolve_tag("/DEMO/Calo/Gains", "DEMO-2026").values("name") == ["GAINS-v2"]
        assert c.count("/DEMO/Calo/Gains") == 12
        assert c.count("/DEMO/Calo/Gains", channels=Channels.of((0, 1))) == len(c.browse("/DEMO/Calo/Gains",
                                                                                          channels="0-1"))


def test_aligned_find_selects_the_same_rows_as_the_exact_query(server: str) -> None:
    t = parse_time("2026-01-01T05:30:00.5Z")
    with client([server]) as c:
        aligned = c.find("/DEMO/Calo/Pedestals", t, "1-3")
        exact = c.find("/DEMO/Calo/Pedestals", t, "1-3", align=False)
        assert aligned.rows == exact.rows and len(aligned) == 3
        assert (aligned.valid_since, aligned.valid_until) == (parse_time("2026-01-01T05:30Z"),
                                                              parse_time("2026-01-01T05:40Z"))
        gains = c.find("/DEMO/Calo/Gains", run_lumi(301, 5), tag="GAINS-v2")
        assert gains.values("comment") == ["recalibrated runs 301-302"] * 4


def test_the_in_process_cache_answers_repeated_queries(server: str) -> None:
    log = Log()
    with client([server], log=log) as c:
        first = c.browse("/DEMO/Calo/Gains", channels="0")
        requests = c.stats.requests
        again = c.browse("/DEMO/Calo/Gains", channels="0")
        assert again.rows == first.rows
        assert c.stats.requests == requests and log.kinds()[-1] == "cache-hit"


def test_a_streamed_browse_gives_the_rows_of_the_whole_one(server: str) -> None:
    with client([server]) as c:
        whole = c.browse("/DEMO/DCS/HV", order=Order.SINCE_CHANNEL)
        with c.browse_stream("/DEMO/DCS/HV", order=Order.SINCE_CHANNEL) as stream:
            assert stream.columns[:3] == ["channel", "since", "until"]
            streamed = list(stream)
        assert streamed == whole.rows and len(streamed) > 100


def test_bad_arguments_are_refused_before_any_request(server: str) -> None:
    log = Log()
    with client([server], log=log) as c:
        calls: list[Callable[[], object]] = [
            lambda: c.channels("DEMO/DCS/HV"), lambda: c.find("/DEMO/DCS/HV", -1),
            lambda: c.browse("/DEMO/DCS/HV", 5, 4), lambda: c.find("/DEMO/DCS/HV", 0, tag="bad!tag")]
        for call in calls:
            with pytest.raises(OutpostError) as e:
                call()
            assert e.value.kind == ErrorKind.INVALID_ARGUMENT
    assert log.events == []


# --- failover ---------------------------------------------------------------------------------------------

def test_a_dead_server_is_skipped_then_tried_last(server: str) -> None:
    down = dead()
    log = Log()
    with client([down, server], log=log) as c:
        assert len(c.channels("/DEMO/DCS/HV")) == 8
        assert log.kinds() == ["attempt", "connect-failed", "attempt", "success"]
        assert [e.server for e in log.events] == [down, down, server, server]
        log.events.clear()
        c.clear_cache()
        c.channels("/DEMO/DCS/HV")  # the failed server is postponed: the healthy one first
        assert log.kinds() == ["attempt", "success"] and log.events[0].server == server


def test_a_dead_proxy_is_skipped_for_the_servers_directly(server: str) -> None:
    proxy = dead()
    log = Log()
    with client([server], [proxy], log=log) as c:
        c.nodes()
    assert [(e.kind, e.proxy) for e in log.events] == [("attempt", proxy), ("connect-failed", proxy),
                                                       ("attempt", ""), ("success", "")]


def test_route_order_proxies_then_backup_proxies_and_never_direct_after_a_backup() -> None:
    p1, p2, backup, s1, s2 = dead(), dead(), dead(), dead(), dead()
    log = Log()
    cfg = Config.parse(f"(serverurl={s1})(serverurl={s2})(proxyurl={p1})(proxyurl={p2})(backupproxyurl={backup})"
                       "(retries=0)(connecttimeout=2)")
    with Client(config=cfg, on_event=log) as c:
        with pytest.raises(OutpostError):
            c.nodes()
    # a proxy that cannot be reached is skipped with all its servers; a backup proxy means no direct route
    assert [(e.kind, e.proxy, e.server) for e in log.events if e.kind == "attempt"] == [
        ("attempt", p1, s1), ("attempt", p2, s1), ("attempt", backup, s1)]


def test_every_route_dead_gives_unavailable_after_backoff() -> None:
    log, sleeps = Log(), list[float]()
    with client([dead(), dead()], log=log, retries=2, sleeps=sleeps) as c:
        with pytest.raises(OutpostError) as e:
            c.nodes()
    assert e.value.kind == ErrorKind.UNAVAILABLE and len(e.value.attempts) == 6
    assert log.kinds().count("backoff") == 2 and log.kinds()[-1] == "give-up"
    assert len(sleeps) <= 2 and all(0 <= s <= 0.2 * 2 ** i for i, s in enumerate(sleeps))


def test_a_request_error_fails_at_once_on_the_first_route(server: str) -> None:
    log = Log()
    with client([server, server + "/"], log=log) as c:
        with pytest.raises(OutpostError) as e:
            c.channels("/DEMO/Missing")
    assert e.value.kind == ErrorKind.NOT_FOUND and e.value.http_status == 404
    assert log.kinds() == ["attempt", "request-error"]


def test_a_server_error_moves_to_the_next_server(server: str, faulty: Start) -> None:
    broken = faulty(lambda h: send(h, 503, b'{"title":"database down"}', {"Content-Type": "application/json"}))
    log = Log()
    with client([broken.url, server], log=log) as c:
        c.nodes()
    assert log.kinds() == ["attempt", "server-error", "attempt", "success"]
    assert "database down" in log.events[1].detail


# --- corrupt, truncated and stale answers -----------------------------------------------------------------

def damaged(data: bytes) -> bytes:
    out = bytearray(data)
    out[-6] ^= 0xFF  # inside the CRC-32 of the trailer
    return bytes(out)


def test_a_corrupt_answer_is_refreshed_soft_then_hard_then_failed_over(server: str, faulty: Start) -> None:
    bad = faulty(lambda h: send(h, 200, damaged(VECTOR)))
    log = Log()
    with client([bad.url, server], log=log) as c:
        nodes = c.nodes()
    assert "/DEMO" in nodes.values("path")
    assert [r.get("cache-control") for r in bad.requests] == [None, "max-age=0", "no-cache"]
    assert bad.requests[2].get("pragma") == "no-cache"
    assert [(e.kind, e.refresh) for e in log.events] == [
        ("attempt", ""), ("corrupt", ""), ("attempt", "max-age=0"), ("corrupt", "max-age=0"),
        ("attempt", "no-cache"), ("corrupt", "no-cache"), ("attempt", ""), ("success", "")]
    assert [e.decision for e in log.events if e.kind == "corrupt"] == [
        Decision.REFRESH_SOFT, Decision.REFRESH_HARD, Decision.NEXT_SERVER]


def test_corrupt_answers_everywhere_are_unavailable_with_corrupt_attempts(faulty: Start) -> None:
    bad = faulty(lambda h: send(h, 200, damaged(VECTOR)))
    with client([bad.url]) as c:
        with pytest.raises(OutpostError) as e:
            c.nodes()
    assert e.value.kind == ErrorKind.UNAVAILABLE
    assert [a.kind for a in e.value.attempts] == [ErrorKind.CORRUPT] * 3
    assert "CRC-32" in e.value.attempts[0].message


def test_a_truncated_answer_is_corrupt_and_the_refresh_repairs_it(faulty: Start) -> None:
    def answer(h: BaseHTTPRequestHandler) -> None:
        if h.headers.get("Cache-Control"):
            send(h, 200, VECTOR)
        else:  # the connection closes 10 bytes early
            send(h, 200, VECTOR[:-10], content_length=len(VECTOR))

    bad = faulty(answer)
    log = Log()
    with client([bad.url], log=log) as c:
        assert c.nodes().values("path") == ["/", "/A/b"]
    assert log.kinds() == ["attempt", "corrupt", "attempt", "success"]
    assert "truncated" in log.events[1].detail


def test_an_answer_older_than_the_server_allows_is_refreshed(faulty: Start) -> None:
    def answer(h: BaseHTTPRequestHandler) -> None:
        age = "0" if h.headers.get("Cache-Control") else "100"
        send(h, 200, VECTOR, {"Cache-Control": "public, max-age=10", "Age": age})

    bad = faulty(answer)
    log = Log()
    with client([bad.url], log=log) as c:
        c.nodes()
    assert log.kinds() == ["attempt", "stale", "attempt", "success"]
    assert log.events[2].refresh == "max-age=0"


# --- through a real Squid ---------------------------------------------------------------------------------

def test_through_squid_repeated_queries_are_cache_hits(server: str, squid: tuple[str, Path]) -> None:
    proxy, access_log = squid
    t = parse_time("2026-01-01T05:00:00Z")
    answers = []
    for _ in range(2):  # two clients: the second one's queries come from Squid
        log = Log()
        with client([server], [proxy], log=log) as c:
            answers.append((c.find("/DEMO/Calo/Pedestals", t).rows, c.browse("/DEMO/Calo/Gains").rows))
        assert all(e.proxy == proxy for e in log.events if e.kind in ("attempt", "success"))
    assert answers[0] == answers[1]
    assert any("HIT/200" in line and "outpost-python" in line
               for line in squid_log(access_log, lambda ls: any("HIT/200" in x and "outpost-python" in x for x in ls)))


def test_through_squid_forcereload_fetches_a_new_copy_and_a_freshkey_revalidates(
        server: str, squid: tuple[str, Path]) -> None:
    proxy, access_log = squid
    target = "/v1/bin/tags/DEMO/Calo/Pedestals"  # a short-lived answer, asked by no other test
    for spec in ("", "", "(forcereload=short)", "(freshkey=job-1)"):
        with Client(config=f"(serverurl={server})(proxyurl={proxy})(retries=0){spec}") as c:
            c.tags("/DEMO/Calo/Pedestals")
    lines = squid_log(access_log, lambda ls: sum(server + target in x for x in ls) >= 4)
    codes = [line.split()[3] for line in lines if server + target in line]
    assert len(codes) == 4 and "HIT/200" in codes[1]  # the second plain client got Squid's copy
    assert "MISS/200" in codes[2]  # no-cache: a new copy from the service
    assert codes[3].startswith("TCP_REFRESH_")  # max-age=0: Squid revalidated its copy with the service


def big_answer(copies: int) -> bytes:
    """The likeluis vector's rows ``copies`` times, uncompressed (larger than one read of the stream)."""
    from outpost import decode
    from outpost.wire import parse_content_header
    a = decode((Path(__file__).resolve().parents[2] / "testdata" / "iovs_likeluis_2000.bin").read_bytes())
    start = parse_content_header(a.content).rows_start
    content = a.content[:start] + a.content[start:-1] * copies + b"\0"
    return (b"OUTP\x01\x00\x00\x00" + struct.pack(">Q", len(content)) + content
            + struct.pack(">QI", len(a) * copies, zlib.crc32(content)) + b"PTUO")


def test_a_streamed_answer_damaged_after_its_first_rows_raises_from_the_iteration(faulty: Start) -> None:
    data = big_answer(5)
    bad = faulty(lambda h: send(h, 200, damaged(data)))
    rows = 0
    with client([bad.url]) as c:
        with pytest.raises(OutpostError) as e:
            for _ in c.browse_stream("/T/all"):
                rows += 1
    assert e.value.kind == ErrorKind.CORRUPT and "CRC-32" in e.value.message
    assert 0 < rows <= 10_000 and len(bad.requests) == 1  # rows were handed out: no refresh, browse again


def test_a_streamed_answer_damaged_before_its_rows_is_refreshed(faulty: Start) -> None:
    data = big_answer(5)
    bad = faulty(lambda h: send(h, 200, data if h.headers.get("Cache-Control") else b"XUTP" + data[4:]))
    with client([bad.url]) as c:
        assert sum(1 for _ in c.browse_stream("/T/all")) == 10_000
    assert [r.get("cache-control") for r in bad.requests] == [None, "max-age=0"]
