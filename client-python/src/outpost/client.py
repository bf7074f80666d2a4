"""``outpost.Client``: routes, failover, refresh escalation, backoff and the in-process cache exactly as
docs/client-failover.md describes them for all three clients, and the queries of docs/api.md."""

from __future__ import annotations

import getpass
import os
import random as _random
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import query as q
from ._version import __version__
from .cache import AnswerCache
from .config import Config, log_warnings
from .errors import ErrorKind, InvalidArgument, OutpostError
from .exchange import Exchange
from .query import MAX_KEY, Channels, Order, Window
from .failover import Event, EventKind, Failover, Stats
from .stream import StreamDecoder
from .transport import Transport
from .wire import Answer, AnswerKind, Value, decode, expect_kind

if TYPE_CHECKING:
    from .pac import ProxyAutoConfig
    from .snapshot import SnapshotSession, State

VERSION = __version__  # from _version.py, the one source


class Client:
    """One client, safe to share between threads.

    ``Client(servers=…, proxies=…)``, ``Client(config="(serverurl=…)(proxyurl=…)")`` or, with neither,
    ``Client()`` from the environment (OUTPOST_SERVER, FRONTIER_SERVER, …). ``servers``/``proxies`` replace
    those of ``config``.
    """

    def __init__(self, servers: str | Sequence[str] | None = None, proxies: str | Sequence[str] | None = None,
                 config: str | Config | None = None, *, on_event: Callable[[Event], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 rng: _random.Random | None = None, wall_clock: Callable[[], float] = time.time) -> None:
        if isinstance(config, Config):
            cfg = config.copy()
        elif isinstance(config, str):
            cfg = Config.parse(config)
        elif servers is None:
            cfg = Config.from_environment()
        else:
            cfg = Config()
        if servers is not None:
            cfg.servers = []
            for s in [servers] if isinstance(servers, str) else servers:
                cfg.set("serverurl", s)
        if proxies is not None:
            cfg.proxies = []
            for p in [proxies] if isinstance(proxies, str) else proxies:
                cfg.set("proxyurl", p)
        cfg.validate()
        self._pac: ProxyAutoConfig | None = None
        if cfg.proxy_configs:
            if cfg.load_balance == "proxies":
                cfg.load_balance = "none"
                cfg.warn("loadbalance=proxies is turned off: the proxy auto-config decides the order of the proxies")
            from .pac import ProxyAutoConfig  # pypac (and the requests it brings) only when configured

            self._pac = ProxyAutoConfig(cfg.proxy_configs, cfg.connect_timeout, cfg.read_timeout, clock)
            for server in cfg.servers:  # a bad file or answer is an error now, not at the first request
                self._pac.for_server(server)
        log_warnings(cfg)
        self.config = cfg
        self._clock = clock
        self._transport = Transport(cfg.prefer_ip_family)
        self._cache = AnswerCache(cfg.cache_max_bytes, clock)
        self._key_types: dict[str, str] | None = None
        app = cfg.client_id or f"outpost-python/{VERSION}"
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "unknown"
        self.client_id = f"{app} {os.getpid()} {user}"
        self._failover = Failover(cfg, self._transport, self._pac, self.client_id, on_event, clock, sleep,
                                  rng or _random.Random(), wall_clock)
        self.stats = self._failover.stats

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._transport.close()

    def clear_cache(self) -> None:
        self._cache.clear()

    # --- queries ----------------------------------------------------------------------------------------------

    def nodes(self) -> Answer:
        """Every folder and folderset (path, folder, versioning, keyType, payloadSpec, description)."""
        return self._expect(q.nodes_path(), AnswerKind.NODES)

    def channels(self, folder: str) -> Answer:
        return self._expect(q.channels_path(folder), AnswerKind.CHANNELS)

    def tags(self, node: str) -> Answer:
        return self._expect(q.tags_path(node), AnswerKind.TAGS)

    def resolve_tag(self, folder: str, tag: str) -> Answer:
        """The tag of ``folder`` that ``tag`` (its own or a parent's, e.g. a global tag) resolves to."""
        return self._expect(q.tag_path(folder, tag), AnswerKind.TAG)

    def find(self, folder: str, t: int, channels: Channels | str = "all", tag: str = "HEAD", *,
             align: bool = True) -> Answer:
        """The objects valid at key ``t``. Asks for the folder's cache-aligned window and selects locally;
        ``valid_since``/``valid_until`` say for which keys the same rows are valid."""
        sel = _channels(channels)
        q.check_path(folder)
        q.check_tag(tag)
        q.check_key("t", t)
        w = self._window_for(folder) if align else Window(0)
        if w.length <= 0:
            return self._expect(q.at_path(folder, tag, t, sel), AnswerKind.IOVS, _asked(folder, sel, t, t))
        lo, hi = q.aligned_window(t, w)
        window = self._expect(q.browse_path(folder, tag, lo, hi, sel), AnswerKind.IOVS, _asked(folder, sel, lo, hi))
        since, until = window.column(1), window.column(2)
        edges = np.concatenate([since, until])
        below, above = edges[edges <= t], edges[edges > t]
        valid_since = max(lo, int(below.max())) if below.size else lo
        valid_until = hi + 1 if hi < MAX_KEY else MAX_KEY
        if above.size:
            valid_until = min(valid_until, int(above.min()))
        return window.select((since <= t) & (t < until), valid_since, valid_until)

    def browse(self, folder: str, t1: int = 0, t2: int = MAX_KEY, channels: Channels | str = "all",
               tag: str = "HEAD", order: Order = Order.CHANNEL_SINCE) -> Answer:
        """Every IOV with since <= t2 and until > t1, whole (and cached while its max-age lasts)."""
        sel = _channels(channels)
        return self._expect(q.browse_path(folder, tag, t1, t2, sel, order), AnswerKind.IOVS,
                            _asked(folder, sel, t1, t2))

    def browse_stream(self, folder: str, t1: int = 0, t2: int = MAX_KEY, channels: Channels | str = "all",
                      tag: str = "HEAD", order: Order = Order.CHANNEL_SINCE) -> RowStream:
        """The same rows as ``browse``, decoded as they arrive, in constant memory. Failover and refresh apply until
        the answer's header is verified; the row count and CRC-32 are checked after the last row, and a mismatch
        (or a connection lost half way) raises from the iteration: drop the rows already seen and browse again."""
        path = q.browse_path(folder, tag, t1, t2, _channels(channels), order)

        def start(x: Exchange) -> RowStream:
            stream = RowStream(x, self.config.max_answer_bytes)
            stream.prime()
            return stream

        stream: RowStream = self._failover.run(path, start)[0]
        return stream

    def count(self, folder: str, t1: int = 0, t2: int = MAX_KEY, channels: Channels | str = "all",
              tag: str = "HEAD") -> int:
        a = self.count_answer(folder, t1, t2, channels, tag)
        if len(a) != 1 or not a.columns or a.nulls(0)[0]:
            raise OutpostError(ErrorKind.PROTOCOL, "a count answer has one row with one value")
        return int(a.column(0)[0])

    def count_answer(self, folder: str, t1: int = 0, t2: int = MAX_KEY, channels: Channels | str = "all",
                     tag: str = "HEAD") -> Answer:
        return self._expect(q.count_path(folder, tag, t1, t2, _channels(channels)), AnswerKind.COUNT)

    def global_tags(self) -> Answer:
        """Every global tag: name, lock, description, insertionTime."""
        return self._expect(q.globaltags_path(), AnswerKind.GLOBALTAGS)

    def resolve(self, global_tag: str) -> Answer:
        """Every folder a global tag reaches: folder, tag (HEAD where it reaches none), lock, versioning, keyType,
        generation."""
        return self._expect(q.resolve_path(global_tag), AnswerKind.RESOLVE)

    def state(self, global_tag: str = "HEAD", subtree: str = "") -> State:
        """The current state of a global tag (or of every folder's HEAD) under ``subtree``: its hash and each
        folder's tag and generation, for pinned URLs (``State.pinned``). Always asked (not from the in-process
        cache): a state is what a job pins itself to."""
        from .snapshot import State
        return State.of(self.fetch(q.state_path(global_tag, subtree)), f"state of {global_tag}")

    def snapshot_session(self, global_tag: str, subtree: str = "") -> SnapshotSession:
        """A consistent view of every folder of ``global_tag`` (or HEAD), see ``outpost.snapshot``."""
        from .snapshot import SnapshotSession
        return SnapshotSession(self, global_tag, subtree)

    def get(self, path: str, asked: Callable[[Answer], str] | None = None) -> Answer:
        """The answer of a canonical path (``/v1/bin/…``), from the in-process cache while it is fresh. With
        ``security=sig``, ``asked`` says why a decoded answer is not the one asked for ("" when it is): such an
        answer is refused like a bad signature."""
        reload = self._failover.reload
        hit = None if reload.forces(path) else self._cache.get(path)
        if hit is not None:
            self.stats.cache_hits += 1
            self._failover.emit(Event(EventKind.CACHE_HIT, url=path))
            return hit
        answer, fresh_for, _ = self.fetch(path, asked)
        self._cache.put(path, answer, reload.cap_fresh(fresh_for))
        return answer

    def fetch(self, path: str, asked: Callable[[Answer], str] | None = None) -> tuple[Answer, int, Exchange]:
        """The answer of a path through the failover policy, not cached: (answer, seconds it may be kept or -1,
        the exchange with the response headers)."""
        max_content = self.config.max_answer_bytes
        check = asked if self.config.signed_answers else None

        def consume(ex: Exchange) -> Answer:
            answer = decode(ex.read(), max_content)
            problem = check(answer) if check is not None else ""
            if problem:
                raise OutpostError(ErrorKind.UNSIGNED, f"unsigned answer: not the answer asked for: {problem} "
                                                       f"({ex.where})", 200)
            return answer

        value, x = self._failover.run(path, consume)
        return value, x.fresh_for(), x

    # --- helpers ------------------------------------------------------------------------------------------------

    def _expect(self, path: str, kind: AnswerKind, asked: Callable[[Answer], str] | None = None) -> Answer:
        return expect_kind(self.get(path, asked), kind, f"GET {path}")

    def _window_for(self, folder: str) -> Window:
        """The folder's own window if configured (exact path, else the longest node prefix ending in "/"), else by
        the folder's key type, from the node list (fetched once); direct /at/ queries when unknown."""
        matches = [k for k in self.config.folder_windows if k == folder or (k.endswith("/") and folder.startswith(k))]
        if matches:
            return self.config.folder_windows[max(matches, key=len)]
        key_type = self._key_type(folder)
        if key_type == "time":
            return self.config.time_window
        if key_type == "run-lumi":
            return self.config.run_lumi_window
        return Window(0)

    def _key_type(self, folder: str) -> str:
        if self._key_types is None:
            if self.config.time_window.length <= 0 and self.config.run_lumi_window.length <= 0:
                return ""
            try:
                nodes = self.nodes()
            except OutpostError:
                return ""
            self._key_types = {p: k for p, k in zip(nodes.values("path"), nodes.values("keyType")) if k}
        return self._key_types.get(folder, "")


class RowStream:
    """The rows of a streamed answer; iterate once. ``header`` (columns, folder, tag) is known before the first
    row. Use as a context manager (or iterate to the end) so that the connection is released."""

    def __init__(self, exchange: Exchange, max_content: int = 1 << 62) -> None:
        self._exchange = exchange
        self._chunks = exchange.read_chunks()
        self._decoder = StreamDecoder(max_content)
        self._pending: deque[tuple[Value, ...]] = deque()
        self.rows = 0

    def prime(self) -> None:
        """Reads until the content header (columns) is known, so that failover still applies."""
        while self._decoder.header is None:
            chunk = next(self._chunks, None)
            if chunk is None:
                raise OutpostError(ErrorKind.CORRUPT, "truncated answer: it ended before its header")
            self._pending.extend(self._decoder.feed(chunk))

    @property
    def columns(self) -> list[str]:
        assert self._decoder.header is not None
        return [c.name for c in self._decoder.header.columns]

    @property
    def header(self) -> Any:
        return self._decoder.header

    def __iter__(self) -> Iterator[tuple[Value, ...]]:
        try:
            while True:
                while self._pending:
                    self.rows += 1
                    yield self._pending.popleft()
                chunk = next(self._chunks, None)
                if chunk is None:
                    self._decoder.finish()
                    return
                self._pending.extend(self._decoder.feed(chunk))
        finally:
            self._exchange.close()

    def __enter__(self) -> RowStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self._exchange.close()


def _asked(folder: str, channels: Channels, t1: int, t2: int) -> Callable[[Answer], str]:
    """Why an IOV answer is not the one asked for (folder, channels, every row valid somewhere in [t1, t2]; t1 = t2
    for a read at one key), "" when it is: a signed answer of another query, served in this one's place."""
    def problem(answer: Answer) -> str:
        if answer.kind != AnswerKind.IOVS:
            return ""  # expect_kind says what is wrong
        if answer.folder and answer.folder != folder:
            return f"an answer for folder {answer.folder[:200]}, asked {folder}"
        if not len(answer):
            return ""
        since, until = answer.column(1), answer.column(2)
        outside = (since > t2) | (until <= t1)
        if outside.any():
            i = int(np.argmax(outside))
            where = f"key {t1}" if t1 == t2 else f"[{t1}, {t2}]"
            return f"row {i} is valid [{int(since[i])}, {int(until[i])}), not at {where}"
        if channels.ranges:
            ids = answer.column(0)
            inside = np.zeros(len(answer), dtype=bool)
            for first, last in channels.ranges:
                inside |= (ids >= first) & (ids <= last)
            if not inside.all():
                return f"channel {int(ids[int(np.argmin(inside))])} was not asked for"
        return ""
    return problem


def _channels(channels: Channels | str) -> Channels:
    return channels if isinstance(channels, Channels) else Channels.parse(channels)
