"""Snapshot sessions: a job's consistent view of every folder of a global tag (docs/api.md, "Global tags, states,
pinned URLs and snapshots").

The session learns a state once, from its first snapshot (which names its state in X-Outpost-State), and keeps
it for the state's lifetime; meanwhile every request goes to URLs pinned to that state, which caches keep for
good. When the service answers that a pinned state or generation is gone (410) or not known yet (404), the
session reads the current state once and asks again. Folders given by URL are fetched in parallel.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

from .errors import ErrorKind, OutpostError
from .locks import ForkSafeLock
from .query import MAX_KEY, Channels, Order, browse_path, check_key, check_path, check_tag, state_path
from .query import pinned as pinned_path
from .wire import Answer, AnswerKind, decode, expect_kind

if TYPE_CHECKING:
    import pandas as pd

    from .client import Client
    from .exchange import Exchange

_PARALLEL_FETCHES = 8
_STATE = re.compile(r"[0-9a-f]{16}")


@dataclass(frozen=True)
class State:
    """A state of a global tag (or of HEAD): its hash and the tag and generation of every folder it holds."""

    hash: str
    folders: dict[str, tuple[str, str]]  # folder -> (tag, generation)
    answer: Answer = field(repr=False)
    fresh_for: int = 0  # seconds the service lets caches keep it

    @staticmethod
    def of(fetched: tuple[Answer, int, Exchange], what: str) -> State:
        answer, fresh_for, exchange = fetched
        expect_kind(answer, AnswerKind.STATE, what)
        state = exchange.header("x-outpost-state")
        if not _STATE.fullmatch(state):
            raise OutpostError(ErrorKind.PROTOCOL, f"{what}: no valid X-Outpost-State header")
        folders = {str(f): (str(t), str(g)) for f, t, g in zip(answer.values("folder"), answer.values("tag"),
                                                                answer.values("generation"))}
        return State(state, folders, answer, fresh_for)

    def pinned(self, folder: str, t1: int = 0, t2: int = MAX_KEY, channels: Channels | str = "all",
               order: Order = Order.CHANNEL_SINCE) -> str:
        """The browse URL of one folder of this state, pinned to the folder's generation (caches keep it for good)."""
        return _pinned_browse(self.folders, folder, t1, t2, channels, order, "this state")


@dataclass(frozen=True)
class FolderSnapshot:
    folder: str
    tag: str  # the folder's own tag the global tag chose, HEAD where it chose none
    generation: str
    answer: Answer  # an iovs answer: the objects valid at the key of its key type, all channels
    key_type: str = ""  # "time" or "run-lumi" ("" from a service older than per key type validity)


@dataclass(frozen=True)
class Validity:
    """Every key in [since, until) of one key type gives the same answers."""

    since: int
    until: int

    def covers(self, key: int) -> bool:
        return self.since <= key < self.until


@dataclass(frozen=True)
class Snapshot:
    """Every folder at one key (or at a time and a run-lumi key), all at the generations of one state."""

    global_tag: str
    state: str
    valid_since: int  # the same snapshot holds for every key in [valid_since, valid_until)
    valid_until: int  # (both 0 for a snapshot of time and run-lumi folders: see time, run_lumi)
    folders: dict[str, FolderSnapshot] = field(default_factory=dict)  # in path order
    requests: int = 0  # HTTP requests it took (0 when reused from the session)
    time: Validity | None = None  # common to the time folders; None when there are none
    run_lumi: Validity | None = None  # common to the run-lumi folders; None when there are none

    def covers(self, t: int) -> bool:
        return self.valid_since <= t < self.valid_until

    def covers_both(self, time: int, run_lumi: int) -> bool:
        """Both keys inside the validity of their key type (a key type without folders always covers)."""
        if self.time is None and self.run_lumi is None:
            return self.covers(time) and self.covers(run_lumi)
        return ((self.time is None or self.time.covers(time))
                and (self.run_lumi is None or self.run_lumi.covers(run_lumi)))

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
        self._lock = ForkSafeLock()
        self._state = ""
        self._expires = 0.0
        self._last: Snapshot | None = None
        self._folders: dict[str, tuple[str, str]] = {}  # of the pinned state: folder -> (tag, generation)

    @property
    def state(self) -> str:
        """The state hash the session is pinned to ("" before the first request)."""
        return self._state

    def at(self, t: int, run_lumi: int | None = None) -> Snapshot:
        """Every folder at key t, pinned to the session's state; a snapshot of that state covering t is reused.

        A global tag holding time and run-lumi folders needs both keys: ``at(time, run_lumi)`` reads each folder at
        the key of its own key type (docs/api.md, "Mixed key types"); one of one key type uses the key of its type.
        """
        check_key("t", t)
        if run_lumi is None:
            return self._at(str(t), lambda s: s.covers(t))
        check_key("run_lumi", run_lumi)
        return self._at(f"{t},{run_lumi}", lambda s: s.covers_both(t, run_lumi))

    def refresh_state(self) -> str:
        """Reads the current state now (one short-lived request) and pins the session to it."""
        state = State.of(self._client.fetch(state_path(self.global_tag, self.subtree)),
                         f"state of {self.global_tag}")
        with self._lock:
            if state.hash != self._state:
                self._last = None
            self._state, self._expires = state.hash, self._client._clock() + max(0, state.fresh_for)
            self._folders = state.folders
        return state.hash

    def browse(self, folder: str, t1: int = 0, t2: int = MAX_KEY, channels: Channels | str = "all",
               order: Order = Order.CHANNEL_SINCE) -> Answer:
        """Every IOV of one folder of the session's state in [t1, t2], through its URL pinned to the folder's
        generation (with the tag the state chose for it); the state is read first if the session has none, and
        once more when the generation is gone (410) or not known yet (404)."""
        for attempt in (0, 1):
            with self._lock:
                fresh = bool(self._state) and self._client._clock() < self._expires
                folders = self._folders
            if not fresh:
                self.refresh_state()
                with self._lock:
                    folders = self._folders
            path = _pinned_browse(folders, folder, t1, t2, channels, order,
                                  f"the state of {self.global_tag}{self.subtree}")
            try:
                return expect_kind(self._client.get(path), AnswerKind.IOVS, f"GET {path}")
            except OutpostError as e:
                if attempt or not _gone(e):
                    raise
            with self._lock:
                self._state, self._last = "", None
        raise AssertionError("unreachable")

    def _at(self, keys: str, covers: Callable[[Snapshot], bool]) -> Snapshot:
        try:
            return self._fetch(keys, covers)
        except OutpostError as e:
            if not _gone(e):
                raise
        with self._lock:  # the state moved on: read the current one once, then ask again
            self._state, self._last = "", None
        return self._fetch(keys, covers)

    def _fetch(self, t: str, covers: Callable[[Snapshot], bool]) -> Snapshot:
        clock = self._client._clock
        with self._lock:
            fresh = bool(self._state) and clock() < self._expires
            last = self._last
            if fresh and last is not None and last.state == self._state and covers(last):
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
                self._folders = {f.folder: (f.tag, f.generation) for f in snap.folders.values()}
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
        common: dict[str, Validity] = {}  # per key type: the interval common to its folders
        for r in rows:
            folder, tag, generation = r[0], r[1], r[2]
            assert isinstance(folder, str)
            key_type = r[6] if len(r) > 8 and isinstance(r[6], str) else ""
            if key_type:
                since, until = r[7], r[8]
                if not isinstance(since, int) or not isinstance(until, int):
                    raise OutpostError(ErrorKind.PROTOCOL, f"the snapshot row of {folder} has no validity")
                had = common.get(key_type, Validity(0, 2**63 - 1))
                common[key_type] = Validity(max(had.since, since), min(had.until, until))
            folders[folder] = FolderSnapshot(folder, str(tag), str(generation),
                                             expect_kind(parts[folder], AnswerKind.IOVS, f"snapshot part {folder}"),
                                             key_type)
        return Snapshot(self.global_tag, state, a.valid_since, a.valid_until, folders, 1 + len(by_url),
                        common.get("time"), common.get("run-lumi"))


def _gone(e: OutpostError) -> bool:
    """A pinned state or generation the service no longer has (410) or does not know yet (404)."""
    return e.http_status in (404, 410) and e.kind in (ErrorKind.NOT_FOUND, ErrorKind.REJECTED)


def _pinned_browse(folders: dict[str, tuple[str, str]], folder: str, t1: int, t2: int, channels: Channels | str,
                   order: Order, where: str) -> str:
    if folder not in folders:
        raise OutpostError(ErrorKind.INVALID_ARGUMENT, f"'{folder}' is not in {where}")
    tag, generation = folders[folder]
    sel = channels if isinstance(channels, Channels) else Channels.parse(channels)
    return pinned_path(browse_path(folder, tag, t1, t2, sel, order), generation)
