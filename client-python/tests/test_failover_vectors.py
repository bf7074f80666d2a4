"""The shared failover vectors (testdata/failover): each case's scripted servers and proxies, run by
failover_server.py on real sockets; the client's events, written in the vectors' vocabulary, must be exactly the
expected trace, as the Java and C++ clients' are."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from outpost import Client, Decision, ErrorKind, Event, EventKind, OutpostError

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "testdata" / "failover"
DOC = json.loads((VECTORS / "cases.json").read_text())
CASES = {c["name"]: c for c in DOC["cases"]}
REFRESH = {"": "plain", "max-age=0": "soft", "no-cache": "hard"}
RESULT = {"unavailable": ErrorKind.UNAVAILABLE, "not-found": ErrorKind.NOT_FOUND}


class Script:
    """The fixture process of one case; its stdin is a pipe, so it ends with this test."""

    def __init__(self, case: str) -> None:
        self.process = subprocess.Popen([sys.executable, str(VECTORS / "failover_server.py"), "--case", case],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdin is not None and self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.startswith("PORTS "), line
        self.urls = {n: f"http://127.0.0.1:{p}" for n, p in (w.split("=") for w in line.split()[1:])}

    def request(self, i: int) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"request {i}\n")
        self.process.stdin.flush()
        assert self.process.stdout.readline().strip() == f"ready {i}"

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
def script(request: pytest.FixtureRequest) -> Iterator[Script]:
    s = Script(request.param)
    yield s
    s.close()


def vocabulary(e: Event, names: dict[str, str]) -> str | None:
    """An event in the vectors' words (README.md); None for events the vectors leave out."""
    route = names.get(e.server, "") if not e.proxy else f"{names[e.proxy]}>{names[e.server]}"
    if e.kind == EventKind.ATTEMPT:
        return f"attempt route={route} refresh={REFRESH[e.refresh]}"
    if e.kind == EventKind.SUCCESS:
        return f"answer route={route}"
    if e.kind == EventKind.BACKOFF:
        return f"backoff pass={e.pass_no}"
    if e.kind == EventKind.GIVE_UP:
        return "give-up"
    if e.kind == EventKind.CACHE_HIT:
        return None
    assert e.decision != Decision.NONE, e
    status = f" status={e.http_status}" if e.kind in (EventKind.SERVER_ERROR, EventKind.REQUEST_ERROR) else ""
    return f"failed route={route} reason={e.kind.value}{status} next={e.decision.value}"


@pytest.mark.parametrize("script", sorted(CASES), indirect=True)
def test_failover_vector(script: Script, request: pytest.FixtureRequest) -> None:
    case: dict[str, Any] = CASES[request.node.callspec.params["script"]]
    keys = {**DOC["base_config"], **case["config"]}
    spec = "".join(f"(serverurl={script.urls[s]})" for s in case["servers"])
    spec += "".join(f"(proxyurl={script.urls[p]})" for p in case["proxies"])
    spec += "".join(f"({k}={v})" for k, v in keys.items())
    names = {url: name for name, url in script.urls.items()}
    now = [1000.0]
    events: list[Event] = []
    sleeps: list[float] = []
    with Client(config=spec, on_event=events.append, clock=lambda: now[0], sleep=sleeps.append) as client:
        for i, req in enumerate(case["requests"]):
            now[0] += req.get("advance", 0)
            script.request(i)
            events.clear()
            if req["result"] == "answer":
                assert len(client.nodes()) == 2
            else:
                with pytest.raises(OutpostError) as e:
                    client.nodes()
                assert e.value.kind == RESULT[req["result"]]
            trace = [line for line in (vocabulary(e, names) for e in events) if line is not None]
            assert trace == req["trace"], f"request {i}"
    assert sleeps == [], "backoff=0: no pass waits, whatever Retry-After says"


def test_the_command_line_exits_6_only_when_every_route_gave_an_unusable_answer() -> None:
    from outpost.cli.main import exit_code

    def unavailable(*kinds: ErrorKind) -> OutpostError:
        return OutpostError(ErrorKind.UNAVAILABLE, "every route failed", 0,
                            [OutpostError(k, "an attempt") for k in kinds])

    assert exit_code(unavailable(ErrorKind.UNSIGNED, ErrorKind.CORRUPT, ErrorKind.STALE)) == 6
    assert exit_code(unavailable(ErrorKind.UNSIGNED, ErrorKind.TRANSFER)) == 5
    assert exit_code(unavailable()) == 5
