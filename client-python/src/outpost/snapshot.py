"""Snapshot sessions: a job's consistent view of every folder of a global tag (docs/api.md, "Global tags, states,
pinned URLs and snapshots").

The session learns a state once, from its first snapshot (which names its state in X-Outpost-State), and keeps
it for the state's lifetime; meanwhile every request goes to URLs pinned to that state, which caches keep for
good. When the service answers that a pinned state or generation is gone (410) or not known yet (404), the
session reads the current state once and asks again. Folders given by URL are fetched in parallel.
"""

from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .errors import ErrorKind, OutpostError
from .query import check_key, check_path, check_tag
from .wire import Answer, AnswerKind, decode, expect_kind

if TYPE_CHECKING:
    import pandas as pd

    from .client import Client

_PARALLEL_FETCHES = 8
_STATE = re.compile(r"[0-9a-f]{16}")


@dataclass(frozen=True)
class FolderSnapshot:
    folder: str
    tag: str  # the folder's own tag the global tag chose, HEAD where it chose none
    generation: str
    answer: Answer  # an iovs answer: the objects valid at the key, all channels


@dataclass(frozen=True)
class Snapshot:
    """Every folder at one key, all at the generations of one state."""

    global_tag: str
    state: str
    valid_since: int  # the same snapshot holds for every key in [valid_since, valid_until)
    valid_until: int
    folders: dict[str, FolderSnapshot] = field(default_factory=dict)  # in path order
    requests: int = 0  # HTTP requests it took (0 when reused from the session)

    def covers(self, t: int) -> bool:
        return self.valid_since <= t < self.valid_until

    def __getitem__(self, folder: str) -> Answer:
        return self.folders[folder].answer

    def to_pandas(self) -> dict[str, pd.DataFrame]:
        """One data frame per folder (requires the ``pandas`` extra)."""
        from .frames import to_pandas
        return {path: to_pandas(f.answer) for path, f in self.folders.items()}


class SnapshotSession:
    def __init__(self, client: Client, global_tag: str, subtree: str = "") -> None:
        self._client = client
        self.global_tag = check_tag(global_tag)
        self.subtree = "" if subtree in ("", "/") else check_path(subtree)
        self._lock = threading.Lock()
        self._state = ""
        self._expires = 0.0
        self._last: Snapshot | None = None

    @property
    def state(self) -> str:
        """The state hash the session is pinned to ("" before the first request)."""
        return self._state

    def at(self, t: int) -> Snapshot:
        """Every folder at key t, pinned to the session's state; a snapshot of that state covering t is reused."""
        check_key("t", t)
        try:
            return self._fetch(t)
        except OutpostError as e:
            if e.http_status not in (404, 410) or e.kind not in (ErrorKind.NOT_FOUND, ErrorKind.REJECTED):
                raise
        with self._lock:  # the state moved on: read the current one once, then ask again
            self._state, self._last = "", None
        return self._fetch(t)

    def _fetch(self, t: int) -> Snapshot:
        clock = self._client._clock
        with self._lock:
            fresh = bool(self._state) and clock() < self._expires
            last = self._last
            if fresh and last is not None and last.state == self._state and last.covers(t):
                return replace(last, requests=0)
            pinned = self._state if fresh else ""
        path = (f"/v1/bin/pin/{pinned}/snapshot/{self.global_tag}/{t}{self.subtree}" if pinned
                else f"/v1/bin/snapshot/{self.global_tag}/{t}{self.subtree}")
        answer, fresh_for, exchange = self._client.fetch(path)
        expect_kind(answer, AnswerKind.SNAPSHOT, f"GET {path}")
        state = pinned or exchange.header("x-outpost-state")
        if not _STATE.fullmatch(state):
            raise OutpostError(ErrorKind.PROTOCOL, f"GET {path}: no valid X-Outpost-State header")
        snap = self._assemble(answer, state)
        with self._lock:
            if not pinned:
                self._state, self._expires = state, clock() + max(0, fresh_for)
            self._last = snap
        return snap

    def _assemble(self, a: Answer, state: str) -> Snapshot:
        if len(a.columns) < 6:
            raise OutpostError(ErrorKind.PROTOCOL, f"a snapshot answer with columns {[c.name for c in a.columns]}")
        parts: dict[str, Answer] = {}
        by_url: dict[str, str] = {}
        rows = a.rows
        for folder, tag, generation, _, url, inline in (r[:6] for r in rows):
            if not isinstance(folder, str) or not isinstance(tag, str) or not isinstance(generation, str):
                raise OutpostError(ErrorKind.PROTOCOL, "a snapshot row without folder, tag or generation")
            if isinstance(url, str):
                by_url[folder] = url
            elif isinstance(inline, bytes):
                parts[folder] = decode(inline)
            else:
                raise OutpostError(ErrorKind.PROTOCOL, f"the snapshot row of {folder} has neither url nor answer")
        if by_url:
            with ThreadPoolExecutor(min(_PARALLEL_FETCHES, len(by_url))) as pool:
                for folder, part in zip(by_url, pool.map(self._client.get, by_url.values())):
                    parts[folder] = part
        folders = {}
        for folder, tag, generation in (r[:3] for r in rows):
            assert isinstance(folder, str)
            folders[folder] = FolderSnapshot(folder, str(tag), str(generation),
                                             expect_kind(parts[folder], AnswerKind.IOVS, f"snapshot part {folder}"))
        return Snapshot(self.global_tag, state, a.valid_since, a.valid_until, folders, 1 + len(by_url))
