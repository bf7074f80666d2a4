"""The shared hostile-server fixture (testdata/hostile): answers without end, dripping, lying about their length,
with endless headers, truncated, redirected to another key, replayed after their signature's expiry. The library
and the command line end each with their normal error kind and exit code, in bounded time and memory, with and
without security=sig."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from outpost import Client, ErrorKind, OutpostError
from outpost.cli.main import exit_code

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "testdata" / "hostile" / "hostile_server.py"
SIGNATURES = REPO / "testdata" / "signatures"
TEST_KEY = f"test-2026:{SIGNATURES / 'test-2026.pub.pem'}"
VECTORS = {c["name"]: c for c in json.loads((SIGNATURES / "cases.json").read_text())["cases"]}
AT_TARGET = VECTORS["expired-replay"]["target"]  # /v1/json/at/HEAD/…/1/DEMO/Calo/Pedestals
SIG = f"(security=sig)(verifykey={TEST_KEY})"
GB = 1 << 30


class Hostile:
    """One fixture process; its stdin is a pipe, so it ends with this test even if the test is killed."""

    def __init__(self, case: str, upstream: str = "") -> None:
        args = [sys.executable, str(FIXTURE), "--case", case] + (["--upstream", upstream] if upstream else [])
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.startswith("PORT "), line
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
def hostile() -> Iterator[type[Hostile]]:
    started: list[Hostile] = []

    def start(case: str, upstream: str = "") -> Hostile:
        started.append(Hostile(case, upstream))
        return started[-1]

    yield start  # type: ignore[misc]
    for h in started:
        h.close()


def run_cli(*args: str, limit: float = 60.0) -> tuple[int, str, str, float, int]:
    """(exit code, stdout, stderr, seconds, peak resident bytes) of the command line, killed after ``limit``."""
    started = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "outpost.cli.main", *args], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "OUTPOST_SERVER": ""})
    killer = threading.Timer(limit, p.kill)
    killer.start()
    stdout: list[bytes] = []
    stderr: list[bytes] = []

    def drain(stream: Any, into: list[bytes]) -> None:
        into.append(stream.read())

    readers = [threading.Thread(target=drain, args=(p.stdout, stdout)),
               threading.Thread(target=drain, args=(p.stderr, stderr))]
    for r in readers:
        r.start()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    killer.cancel()
    for r in readers:
        r.join()
    return (p.returncode, stdout[0].decode(errors="replace"), stderr[0].decode(errors="replace"), seconds,
            usage.ru_maxrss * 1024)


# case -> (error kind of every attempt, exit code of the command line)
CASES = {
    "endless": (ErrorKind.CORRUPT, 6),
    "chunked-forever": (ErrorKind.CORRUPT, 6),
    "oversized": (ErrorKind.CORRUPT, 6),
    "big-headers": (ErrorKind.CORRUPT, 6),
    "truncated": (ErrorKind.CORRUPT, 6),
    "drip": (ErrorKind.TIMEOUT, 5),
}


@pytest.mark.parametrize("signed", [False, True], ids=["plain", "security=sig"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_library_ends_a_hostile_answer_in_bounded_memory(hostile: type[Hostile], case: str,
                                                             signed: bool) -> None:
    kind, _ = CASES[case]
    server = hostile(case)
    config = (f"(serverurl={server.url})(retries=0)(maxanswerbytes={4 << 20})(attempttimeout=3)"
              + (SIG if signed else ""))
    tracemalloc.start()
    started = time.monotonic()
    try:
        with Client(config=config) as c, pytest.raises(OutpostError) as e:
            c.browse("/DEMO/Calo/Pedestals")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert e.value.kind == ErrorKind.UNAVAILABLE and {a.kind for a in e.value.attempts} == {kind}, e.value.describe()
    if case in ("endless", "chunked-forever", "oversized"):
        assert "answer too large" in e.value.attempts[0].message
    if case == "drip":
        assert "attempttimeout=3 s" in e.value.attempts[0].message
    assert time.monotonic() - started < 20
    assert peak < 3 * (4 << 20), f"{peak} bytes allocated at the peak"  # the body once, not twice


def test_the_library_refuses_a_replayed_expired_answer(hostile: type[Hostile]) -> None:
    server = hostile("replay")
    replay = VECTORS["expired-replay"]
    with Client(config=f"(serverurl={server.url})(retries=0){SIG}", wall_clock=lambda: replay["now"]) as c:
        with pytest.raises(OutpostError) as e:
            c.get(AT_TARGET)
        with pytest.raises(OutpostError) as other:
            c.get(AT_TARGET.replace("/1/DEMO", "/2/DEMO"))  # the same answer for another query
    assert [a.kind for a in e.value.attempts] == [ErrorKind.UNSIGNED] and "expired" in e.value.attempts[0].message
    assert exit_code(e.value) == 6
    assert "does not verify" in other.value.attempts[0].message


def test_the_library_refuses_a_signed_redirect_sent_elsewhere(hostile: type[Hostile]) -> None:
    server = hostile("signed-redirect-elsewhere")
    with Client(config=f"(serverurl={server.url})(retries=0){SIG}") as c, pytest.raises(OutpostError) as e:
        c.get(AT_TARGET)
    assert [a.kind for a in e.value.attempts] == [ErrorKind.UNSIGNED]
    assert "redirect to" in e.value.attempts[0].message and "does not verify" in e.value.attempts[0].message


@pytest.mark.parametrize("signed", [False, True], ids=["plain", "security=sig"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_command_line_ends_a_hostile_answer_within_a_minute_and_a_gigabyte(
        hostile: type[Hostile], case: str, signed: bool) -> None:
    """The defaults (maxanswerbytes 256 MiB, attempttimeout 30 s), one pass over the one server."""
    _, code = CASES[case]
    server = hostile(case)
    config = f"(serverurl={server.url})(retries=0)" + (SIG if signed else "")
    rc, out, err, seconds, peak = run_cli("--config", config, "find", "/DEMO/Calo/Pedestals",
                                          "2026-01-01T05:00:00Z", "-c", "1", "--no-align")
    assert (rc, out) == (code, ""), err
    assert seconds < 60 and peak < GB, f"{seconds:.1f} s, {peak >> 20} MiB"


@pytest.mark.parametrize("case", ["replay", "signed-redirect-elsewhere"])
def test_the_command_line_refuses_replayed_and_redirected_signed_answers(hostile: type[Hostile], case: str) -> None:
    server = hostile(case)
    rc, out, err, seconds, peak = run_cli("--config", f"(serverurl={server.url})(retries=0){SIG}", "find",
                                          "/DEMO/Calo/Pedestals", "2026-01-01T05:00:00Z", "-c", "1", "--no-align")
    assert (rc, out) == (6, ""), err
    assert "unsigned answer" in err and seconds < 60 and peak < GB


def test_the_command_line_never_prints_another_keys_answer_under_a_redirecting_cache(
        hostile: type[Hostile], server: str) -> None:
    """issue 41's man in the middle: a 301 to the same folder an hour earlier. With security=sig the redirect is
    refused (the service's own redirects are signed), for the exact at-time read and for the cache-aligned one."""
    mitm = hostile("redirect-other-key", upstream=server)
    key = os.environ.get("OUTPOST_TEST_VERIFYKEY", TEST_KEY)
    for align in (["--no-align"], []):
        rc, out, err, seconds, _ = run_cli("--config", f"(serverurl={mitm.url})(retries=0)(security=sig)"
                                                       f"(verifykey={key})", "find", "/DEMO/Calo/Pedestals",
                                           "2026-01-01T05:00:00Z", "-c", "1", *align)
        assert (rc, out) == (6, ""), err
        assert "redirect to" in err and "refused" in err


def bomb(codec: int, content_size: bool = True) -> bytes:
    """An answer whose 10 KB-or-so body decompresses to 64 MiB of zeros (never a valid content: the size check comes
    first)."""
    import struct
    import zlib

    import zstandard

    content = bytes(64 << 20)
    body = zlib.compress(content) if codec == 1 else zstandard.ZstdCompressor(
        write_content_size=content_size).compress(content)
    return struct.pack(">4sBBHQ", b"OUTP", 1, codec, 0, len(body)) + body + struct.pack(">QI4s", 0, 0, b"PTUO")


@pytest.mark.parametrize("codec, content_size", [(1, True), (2, True), (2, False)],
                         ids=["zlib", "zstd", "zstd without content size"])
def test_a_small_body_that_decompresses_past_maxanswerbytes_is_refused_in_bounded_memory(
        codec: int, content_size: bool) -> None:
    from outpost.stream import StreamDecoder
    from outpost.errors import CorruptAnswer
    from outpost.wire import decode

    answer = bomb(codec, content_size)
    assert len(answer) < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(CorruptAnswer, match="answer too large"):
            decode(answer, 4 << 20)
        with pytest.raises(CorruptAnswer, match="answer too large"):
            StreamDecoder(4 << 20).feed(answer)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"{peak} bytes allocated at the peak"
