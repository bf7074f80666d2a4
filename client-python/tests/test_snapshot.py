"""Snapshot sessions on the real service (global tag DEMO-GT-2026 of the demo database), also across a write made
by the loader into the service's database (OUTPOST_TEST_DATABASE, which ./outpost test sets)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from outpost import MAX_KEY, Client, ErrorKind, Event, OutpostError
from outpost.cli.times import parse_time

REPO = Path(__file__).resolve().parents[2]
T0 = parse_time("2026-01-01")
HOUR = 3600 * 10**9


RL = parse_time("302/17")  # the demo global tag holds time and run-lumi folders: a snapshot takes both keys


def test_a_snapshot_equals_the_folders_read_one_by_one_and_is_reused(server: str) -> None:
    with Client(server) as c:
        session = c.snapshot_session("DEMO-GT-2026")
        t = T0 + 3 * HOUR + 17
        snap = session.at(t, RL)
        assert len(session.state) == 16 and snap.state == session.state
        assert {"/DEMO/Calo/Gains", "/DEMO/Calo/Pedestals", "/DEMO/DCS/HV"} <= set(snap.folders)
        assert snap.folders["/DEMO/Calo/Gains"].tag == "GAINS-v2"
        assert snap.folders["/DEMO/Calo/Gains"].key_type == "run-lumi"
        assert snap.covers_both(t, RL) and snap.requests >= 1
        assert snap.time is not None and snap.time.covers(t) and snap.run_lumi is not None and snap.run_lumi.covers(RL)
        for f in snap.folders.values():
            key = RL if f.key_type == "run-lumi" else t
            direct = c.find(f.folder, key, tag=f.tag, align=False)
            assert f.answer.rows == direct.rows and direct.rows, f.folder
        again = session.at(t + 1000, RL + 1)
        assert again.requests == 0 and again.folders == snap.folders


def test_global_tags_resolution_and_state(server: str) -> None:
    with Client(server) as c:
        assert "DEMO-GT-2026" in c.global_tags().values("name")
        resolved = c.resolve("DEMO-GT-2026")
        gains = resolved.values("folder").index("/DEMO/Calo/Gains")
        assert resolved.values("tag")[gains] == "GAINS-v2" and resolved.values("keyType")[gains] == "run-lumi"
        state = c.state("DEMO-GT-2026")
        assert len(state.hash) == 16 and state.folders["/DEMO/Calo/Gains"] == ("GAINS-v2",
                                                                            resolved.values("generation")[gains])
        pinned = state.pinned("/DEMO/Calo/Gains", channels="0-1")
        assert pinned.startswith("/v1/bin/pin/" + state.folders["/DEMO/Calo/Gains"][1] + "/browse/GAINS-v2/")
        assert c.get(pinned).rows == c.browse("/DEMO/Calo/Gains", channels="0-1", tag="GAINS-v2").rows
        dcs = c.state(subtree="/DEMO/DCS").folders  # the HEAD of every folder under /DEMO/DCS
        assert "/DEMO/DCS/HV" in dcs and "/DEMO/Calo/Gains" not in dcs


def test_a_session_browses_through_urls_pinned_to_its_state(server: str) -> None:
    events: list[Event] = []
    with Client(server, on_event=events.append) as c:
        session = c.snapshot_session("DEMO-GT-2026")
        rows = session.browse("/DEMO/Calo/Gains", channels="0-1").rows
        assert rows == c.browse("/DEMO/Calo/Gains", channels="0-1", tag="GAINS-v2").rows and rows
        state = c.state("DEMO-GT-2026")
        assert session.state == state.hash
        assert [e.url for e in events if e.kind == "attempt"][:2] == [
            server + "/v1/bin/state/DEMO-GT-2026", server + state.pinned("/DEMO/Calo/Gains", channels="0-1")]
        with pytest.raises(OutpostError) as e:
            session.browse("/DEMO/Nowhere")
        assert e.value.kind == ErrorKind.INVALID_ARGUMENT


def test_one_key_for_a_global_tag_of_both_key_types_is_refused(server: str) -> None:
    with Client(server) as c:
        with pytest.raises(OutpostError) as e:
            c.snapshot_session("DEMO-GT-2026").at(T0)
        assert e.value.http_status == 400 and "{time},{runlumi}" in e.value.message
        dcs = c.snapshot_session("DEMO-GT-2026", "/DEMO/DCS").at(T0 + HOUR)  # time folders only: one key
        assert dcs.covers(T0 + HOUR) and dcs.run_lumi is None


def test_an_unknown_global_tag_is_not_found(server: str) -> None:
    with Client(server) as c:
        with pytest.raises(OutpostError) as e:
            c.snapshot_session("NO-SUCH-GT").at(5)
    assert e.value.kind == ErrorKind.NOT_FOUND


def load(csv_text: str, folder: str, tmp_path: Path) -> None:
    database = os.environ.get("OUTPOST_TEST_DATABASE", "")
    jars = sorted((REPO / "server" / "store" / "target").glob("outpost-store-*-loader.jar"))
    java = Path(os.environ.get("JAVA_HOME", "/nonexistent")) / "bin" / "java"
    if not database or not jars or not java.exists():
        pytest.skip("needs OUTPOST_TEST_DATABASE (the service's JDBC URL), JAVA_HOME and the built loader jar "
                    "(./outpost test provides all three)")
    data = tmp_path / "iovs.csv"
    data.write_text(csv_text)
    subprocess.run([str(java), "--enable-native-access=ALL-UNNAMED", "-jar", str(jars[-1]), "load", folder,
                    str(data), "--url", database], check=True, capture_output=True, timeout=120)


def test_a_session_across_a_write_reads_the_new_state_once(server: str, tmp_path: Path) -> None:
    events: list[Event] = []
    # a clock that stands still: the session's state never expires, so only the service's 410 moves it on
    with Client(server, clock=lambda: 0.0, on_event=events.append) as c:
        session = c.snapshot_session("DEMO-GT-2026")
        first = session.at(T0 + 3 * HOUR, RL)
        # after channel 3's last IOV (a new IOV closes its open one; folders other than this one do not change)
        last = c.browse("/DEMO/Calo/Pedestals", channels="3").rows[-1]
        since = last[1] + 1000 * HOUR if last[2] == MAX_KEY else last[2]
        until = since + 10 * HOUR
        load(f"channel,since,until,mean,rms,nsamples\n3,{since},{until},1.5,0.5,7\n", "/DEMO/Calo/Pedestals",
             tmp_path)
        # The service notices writes by other tools within its poll interval: wait (bounded) until the state
        # it names has moved on, then ask the session for a key it has not seen.
        deadline = time.monotonic() + 60
        while c.fetch("/v1/bin/state/DEMO-GT-2026")[2].header("x-outpost-state") == first.state:
            assert time.monotonic() < deadline, "the service did not notice the write within 60 s"
            time.sleep(0.2)
        events.clear()
        after = session.at(since + HOUR, RL)
        assert after.state != first.state and session.state == after.state
        gone = [e for e in events if e.kind == "request-error"]
        assert len(gone) == 1 and gone[0].http_status in (404, 410) and "/pin/" + first.state in gone[0].url
        pedestals = after.folders["/DEMO/Calo/Pedestals"]
        assert (3, since, until) in [r[:3] for r in pedestals.answer.rows]
        assert pedestals.generation != first.folders["/DEMO/Calo/Pedestals"].generation
        assert after.folders["/DEMO/Calo/Gains"].generation == first.folders["/DEMO/Calo/Gains"].generation
