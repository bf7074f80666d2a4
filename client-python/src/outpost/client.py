"""``outpost.Client``: routes, failover, refresh escalation, backoff and the in-process cache exactly as
docs/client-failover.md describes them for all three clients, and the queries of docs/api.md."""

from __future__ import annotations

import getpass
import os
import random as _random
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from . import query as q
from ._version import __version__
from .cache import AnswerCache
from .config import Config, log_warnings
from .errors import ErrorKind, InvalidArgument, OutpostError
from .locks import ForkSafeLock
from .query import MAX_KEY, Channels, Order, Window
from .reload import HARD, SOFT
from .signature import HEADER as SIGNATURE_HEADER
from .signature import AnswerVerifier, Hop
from .stream import StreamDecoder
from .transport import Exchange, Outcome, Transport
from .wire import Answer, AnswerKind, Value, decode, expect_kind

if TYPE_CHECKING:
    from .pac import ProxyAutoConfig
    from .snapshot import SnapshotSession, State

VERSION = __version__  # from _version.py, the one source
T = TypeVar("T")
_REFRESHES = ("", SOFT, HARD)  # plain, soft refresh (max-age=0), hard refresh (no-cache)


@dataclass(frozen=True)
class Event:
    """One decision of the failover logic, in the order they happen (for logs and tests).

    ``kind``: attempt, success, connect-failed, server-error, transfer-failed, corrupt, stale, request-error,
    backoff, give-up, cache-hit."""

    kind: str
    proxy: str = ""  # "" = direct
    server: str = ""
    url: str = ""
    refresh: str = ""  # the Cache-Control sent: "", "max-age=0", "no-cache" (or maxagesecs' "max-age=N")
    http_status: int = 0
    detail: str = ""


@dataclass
class Stats:
    requests: int = 0
    cache_hits: int = 0
    failovers: int = 0
    refreshes: int = 0


@dataclass
class _Result:
    outcome: Outcome
    error: OutpostError | None = None
    value: Any = None
    exchange: Exchange | None = None


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
        self.stats = Stats()
        self._on_event = on_event
        self._clock = clock
        self._sleep = sleep
        self._rng = rng or _random.Random()
        self._reload = cfg.reload_policy()
        self._verifier = AnswerVerifier(cfg.verify_keys, cfg.accept_sig1, wall_clock) if cfg.signed_answers else None
        self._transport = Transport(cfg.prefer_ip_family)
        self._cache = AnswerCache(cfg.cache_max_bytes, clock)
        self._postponed: dict[str, float] = {}
        self._lock = ForkSafeLock()
        self._key_types: dict[str, str] | None = None
        app = cfg.client_id or f"outpost-python/{VERSION}"
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "unknown"
        self.client_id = f"{app} {os.getpid()} {user}"

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

        stream: RowStream = self._fetch(path, start)[0]
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
        hit = None if self._reload.forces(path) else self._cache.get(path)
        if hit is not None:
            self.stats.cache_hits += 1
            self._emit(Event("cache-hit", url=path))
            return hit
        answer, fresh_for, _ = self.fetch(path, asked)
        self._cache.put(path, answer, self._reload.cap_fresh(fresh_for))
        return answer

    def fetch(self, path: str, asked: Callable[[Answer], str] | None = None) -> tuple[Answer, int, Exchange]:
        """The answer of a path through the failover policy, not cached: (answer, seconds it may be kept or -1,
        the exchange with the response headers)."""
        max_content = self.config.max_answer_bytes
        check = asked if self._verifier is not None else None

        def consume(ex: Exchange) -> Answer:
            answer = decode(ex.read(), max_content)
            problem = check(answer) if check is not None else ""
            if problem:
                raise OutpostError(ErrorKind.UNSIGNED, f"unsigned answer: not the answer asked for: {problem} "
                                                       f"({ex.where})", 200)
            return answer

        value, x = self._fetch(path, consume)
        return value, x.fresh_for(), x

    # --- the failover policy ------------------------------------------------------------------------------------

    def _fetch(self, path: str, consume: Callable[[Exchange], T]) -> tuple[T, Exchange]:
        cfg = self.config
        failures: list[OutpostError] = []
        for pass_no in range(cfg.retries + 1):
            if pass_no:
                self._backoff(pass_no, path)
            for proxy, servers in self._routes():
                for server in servers:
                    r = self._attempt_with_refresh(proxy, server, path, consume, failures)
                    url = self._url(proxy, server, path)
                    if r.outcome == Outcome.OK:
                        self._forgive(proxy, server)
                        self._emit(Event("success", proxy, server, url, http_status=200))
                        assert r.exchange is not None
                        return r.value, r.exchange
                    assert r.error is not None
                    if r.outcome == Outcome.REQUEST_ERROR:  # the query is wrong: any route would say the same
                        self._emit(Event("request-error", proxy, server, url, "", r.error.http_status,
                                         r.error.message))
                        raise r.error
                    if r.outcome in (Outcome.CANCELLED, Outcome.PROTOCOL):
                        raise r.error
                    self.stats.failovers += 1
                    if r.outcome not in (Outcome.CORRUPT, Outcome.STALE):
                        failures.append(r.error)  # corrupt ones already are
                    if r.outcome == Outcome.CONNECT_FAILED and proxy:  # the proxy is down: skip its servers
                        self._emit(Event("connect-failed", proxy, server, url, detail=r.error.message))
                        self._postpone(proxy)
                        break
                    self._emit(Event(r.outcome.value, proxy, server, url, "", r.error.http_status,
                                     r.error.message))
                    if not proxy or r.outcome not in (Outcome.CORRUPT, Outcome.STALE, Outcome.UNSIGNED):
                        self._postpone(server)
        self._emit(Event("give-up", url=path, detail=f"{len(failures)} failed attempts"))
        last = failures[-1] if failures else None
        raise OutpostError(
            ErrorKind.UNAVAILABLE,
            f"GET {path} failed on every route ({len(cfg.servers)} servers, {len(cfg.proxies)} proxies, "
            f"{cfg.retries + 1} passes, {len(failures)} attempts); last: {last.message if last else 'none'}",
            last.http_status if last else 0, failures)

    def _attempt_with_refresh(self, proxy: str, server: str, path: str, consume: Callable[[Exchange], T],
                              failures: list[OutpostError]) -> _Result:
        """Plain, then on a corrupt or stale answer a soft refresh (max-age=0), then a hard one (no-cache); where
        the reload controls apply, from the refresh they ask for."""
        r = _Result(Outcome.OK)
        for refresh in _REFRESHES[_REFRESHES.index(self._reload.initial_refresh(path)):]:
            if refresh:
                self.stats.refreshes += 1
            r = self._attempt(proxy, server, path, refresh, consume)
            if r.outcome not in (Outcome.CORRUPT, Outcome.STALE):
                return r
            assert r.error is not None
            failures.append(r.error)
            self._emit(Event(r.outcome.value, proxy, server, self._url(proxy, server, path), refresh,
                             r.error.http_status, r.error.message))
        return r

    def _attempt(self, proxy: str, server: str, path: str, refresh: str, consume: Callable[[Exchange], T]) -> _Result:
        headers = {"X-Outpost-Client": self.client_id, "User-Agent": self.client_id,
                   "Accept": "application/vnd.outpost.v1+binary, */*"}
        cache_control = refresh or self._reload.plain_cache_control()
        if cache_control:
            headers["Cache-Control"] = cache_control
        if refresh == HARD:
            headers["Pragma"] = "no-cache"
        url = self._url(proxy, server, path)
        self._emit(Event("attempt", proxy, server, url, cache_control))
        self.stats.requests += 1
        verifier = self._verifier
        x = self._transport.open(url, proxy, headers, self.config.connect_timeout, self.config.read_timeout,
                                 self.config.write_timeout, attempt_timeout=self.config.attempt_timeout,
                                 max_answer_bytes=self.config.max_answer_bytes,
                                 check_hop=verifier.problem if verifier is not None else None)
        if x.outcome != Outcome.OK:
            return _Result(x.outcome, x.error)
        if x.is_stale():
            x.close()
            return _Result(Outcome.STALE, OutpostError(
                ErrorKind.STALE, f"answer older than the server allows: Age {x.age()} over "
                                 f"{x.header('cache-control')} ({x.where})", 200))
        try:
            if verifier is not None:  # the whole answer, verified before any of it is used
                x.buffer()
                problem = verifier.problem(Hop(x.target, 200, "", x.header("etag"), x.body_sha256),
                                           x.header(SIGNATURE_HEADER))
                if problem:
                    x.close()
                    return _Result(Outcome.UNSIGNED, OutpostError(ErrorKind.UNSIGNED, f"{problem} ({x.where})", 200))
            return _Result(Outcome.OK, value=consume(x), exchange=x)
        except OutpostError as e:
            x.close()
            e.__traceback__ = None  # its frames hold the body read so far: a failed attempt keeps none of it
            if e.kind == ErrorKind.CORRUPT:
                e.message = f"{e.message} ({x.where}, after {x.bytes_read} bytes)" if "(" not in e.message \
                    else e.message
                return _Result(Outcome.CORRUPT, e)
            if e.kind in (ErrorKind.TRANSFER, ErrorKind.TIMEOUT):
                return _Result(Outcome.TRANSFER_FAILED, e)
            if e.kind == ErrorKind.UNSIGNED:
                return _Result(Outcome.UNSIGNED, e)
            return _Result(Outcome.CANCELLED if e.kind == ErrorKind.CANCELLED else Outcome.PROTOCOL, e)

    def _url(self, proxy: str, server: str, path: str) -> str:
        """Through a proxy the logical server (logicalserverurl), when set, is named: every physical server then
        shares one cache entry per query; direct requests go to the physical server."""
        return (self.config.logical_server if proxy and self.config.logical_server else server) + path

    def _routes(self) -> list[tuple[str, list[str]]]:
        """One pass: each proxy (then direct) with the servers asked through it, in order."""
        cfg = self.config
        servers = self._ordered(cfg.servers, cfg.load_balance == "servers")
        proxies = self._ordered(cfg.proxies, cfg.load_balance == "proxies") + self._ordered(cfg.backup_proxies)
        if self._pac is None:
            groups = [(p, servers) for p in proxies]
            return groups + [("", servers)] if cfg.failover_to_server or not proxies else groups
        # with a proxy auto-config each server has its own proxies: the PAC ones, then the configured ones; a
        # group per proxy in order of first appearance, holding the servers whose list has it
        per_server: dict[str, list[str]] = {}
        direct: list[str] = []
        for s in servers:
            answer = self._pac.for_server(s)
            pac = self._ordered(list(answer.proxies))
            per_server[s] = pac + [p for p in proxies if p not in pac]
            if answer.direct or cfg.failover_to_server or not per_server[s]:
                direct.append(s)
        order: list[str] = []
        for s in servers:
            order += [p for p in per_server[s] if p not in order]
        groups = [(p, [s for s in servers if p in per_server[s]]) for p in order]
        return groups + [("", direct)] if direct else groups

    def _backoff(self, pass_no: int, path: str) -> None:
        cap = min(self.config.max_backoff, self.config.backoff * 2 ** (pass_no - 1))
        wait = self._rng.uniform(0, cap)  # full jitter: many jobs do not come back in step
        self._emit(Event("backoff", url=path, detail=f"{wait * 1000:.0f} ms"))
        if wait > 0:
            self._sleep(wait)

    def _ordered(self, endpoints: list[str], rotate: bool = False) -> list[str]:
        """Healthy endpoints first, those that failed within the route memory after them (each group in order)."""
        if rotate and endpoints:
            start = self._rng.randrange(len(endpoints))
            endpoints = endpoints[start:] + endpoints[:start]
        now = self._clock()
        with self._lock:
            bad = {e for e, when in self._postponed.items() if now - when < self.config.route_memory}
        return [e for e in endpoints if e not in bad] + [e for e in endpoints if e in bad]

    def _postpone(self, endpoint: str) -> None:
        with self._lock:
            self._postponed[endpoint] = self._clock()

    def _forgive(self, proxy: str, server: str) -> None:
        with self._lock:
            self._postponed.pop(proxy, None)
            self._postponed.pop(server, None)

    def _emit(self, event: Event) -> None:
        if self._on_event is not None:
            self._on_event(event)

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
