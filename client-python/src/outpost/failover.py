"""The failover policy of docs/client-failover.md: which route a request takes, what a failed attempt leads to
(``decide``: refresh on the same route, next server, next proxy, give up), the postponing of endpoints that
failed, and the jittered backoff between passes. ``Client`` runs its requests through ``Failover.run``."""

from __future__ import annotations

import enum
import random as _random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from .errors import ErrorKind, OutpostError
from .exchange import Exchange, Outcome
from .locks import ForkSafeLock
from .reload import HARD, SOFT
from .signature import HEADER as SIGNATURE_HEADER
from .signature import AnswerVerifier, Hop
from .transport import Transport

if TYPE_CHECKING:
    from .config import Config
    from .pac import ProxyAutoConfig

T = TypeVar("T")
_REFRESHES = ("", SOFT, HARD)  # plain, soft refresh (max-age=0), hard refresh (no-cache)


class EventKind(str, enum.Enum):
    """What an ``Event`` reports. A failed attempt is reported by the kind of its failure."""

    ATTEMPT = "attempt"  # a request is about to be sent on a route
    SUCCESS = "success"  # a whole, verified answer arrived
    CONNECT_FAILED = "connect-failed"  # could not connect to the proxy (or, direct, to the server)
    SERVER_ERROR = "server-error"  # HTTP 5xx
    TRANSFER_FAILED = "transfer-failed"  # connected, then the transfer broke or timed out
    CORRUPT = "corrupt"  # a corrupt or truncated answer
    STALE = "stale"  # an answer older than the server allows (Age over its max-age)
    UNSIGNED = "unsigned"  # security=sig and the answer is not signed as it must be
    REQUEST_ERROR = "request-error"  # HTTP 4xx: the query is wrong
    BACKOFF = "backoff"  # every route of a pass failed: waiting before the next pass
    GIVE_UP = "give-up"  # every pass failed
    CACHE_HIT = "cache-hit"  # answered from the in-process cache

    def __str__(self) -> str:
        return self.value


class Decision(str, enum.Enum):
    """What the client does after a failed attempt (``Event.decision``); NONE on other events."""

    NONE = ""
    REFRESH_SOFT = "refresh-soft"  # the same route again, caches revalidating (max-age=0)
    REFRESH_HARD = "refresh-hard"  # the same route again, caches reloading (no-cache)
    NEXT_SERVER = "next-server"  # the next server through the same proxy (or directly)
    NEXT_PROXY = "next-proxy"  # the proxy cannot be reached: skip its other servers
    GIVE_UP = "give-up"  # the failure is final (4xx, a stopped transfer): no other route is tried

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Event:
    """One step of the failover logic, in the order they happen (for logs and tests)."""

    kind: EventKind
    proxy: str = ""  # "" = direct
    server: str = ""
    url: str = ""
    refresh: str = ""  # the Cache-Control sent: "", "max-age=0", "no-cache" (or maxagesecs' "max-age=N")
    http_status: int = 0
    detail: str = ""
    decision: Decision = Decision.NONE
    pass_no: int = 0  # for BACKOFF: the pass about to start (1, 2, …)


@dataclass
class Stats:
    requests: int = 0
    cache_hits: int = 0
    failovers: int = 0
    refreshes: int = 0


@dataclass
class _Result(Generic[T]):
    outcome: Outcome
    error: OutpostError | None = None
    value: T | None = None
    exchange: Exchange | None = None


_REFRESHED = (Outcome.CORRUPT, Outcome.STALE)  # most likely a bad copy in a cache: refreshed on the same route
_NOT_POSTPONED = (Outcome.CORRUPT, Outcome.STALE, Outcome.UNSIGNED)  # may be one cached copy: the route stays


def _event_kind(outcome: Outcome) -> EventKind:
    """The event reporting a failed attempt: its outcome's, an odd answer (unexpected status, too many redirects, an
    answer of another kind) as a failed transfer, as the C++ client reports it."""
    return EventKind.TRANSFER_FAILED if outcome == Outcome.PROTOCOL else EventKind(outcome.value)


def decide(outcome: Outcome, proxy: str, refresh: str) -> Decision:
    """docs/client-failover.md's table: what follows a failed attempt with ``refresh`` on a route through ``proxy``
    ("" = direct). One guard per row."""
    if outcome in (Outcome.REQUEST_ERROR, Outcome.CANCELLED):
        return Decision.GIVE_UP  # the query is wrong (or the application stopped): any route would say the same
    if outcome in _REFRESHED:
        if refresh not in (SOFT, HARD):
            return Decision.REFRESH_SOFT
        return Decision.REFRESH_HARD if refresh == SOFT else Decision.NEXT_SERVER
    if outcome == Outcome.CONNECT_FAILED and proxy:
        return Decision.NEXT_PROXY  # the proxy is down: no server behind it can be reached either
    return Decision.NEXT_SERVER  # 5xx, direct connect failure, broken transfer, an odd answer, unsigned answer


class Failover:
    """Runs one GET over the routes until an attempt yields an answer ``consume`` accepts. Thread-safe; the only
    shared state is the memory of failed endpoints."""

    def __init__(self, config: Config, transport: Transport, pac: ProxyAutoConfig | None, client_id: str,
                 on_event: Callable[[Event], None] | None, clock: Callable[[], float],
                 sleep: Callable[[float], None], rng: _random.Random, wall_clock: Callable[[], float]) -> None:
        self.config = config
        self.stats = Stats()
        self.reload = config.reload_policy()
        self._transport = transport
        self._pac = pac
        self._client_id = client_id
        self._on_event = on_event
        self._clock = clock
        self._sleep = sleep
        self._rng = rng
        self._verifier = AnswerVerifier(config.verify_keys, config.accept_sig1, wall_clock) \
            if config.signed_answers else None
        self._postponed: dict[str, float] = {}
        self._lock = ForkSafeLock()

    def run(self, path: str, consume: Callable[[Exchange], T]) -> tuple[T, Exchange]:
        cfg = self.config
        failures: list[OutpostError] = []
        for pass_no in range(cfg.retries + 1):
            if pass_no:
                self._backoff(pass_no, path)
            for proxy, servers in self._routes():
                for server in servers:
                    refresh = self.reload.initial_refresh(path)
                    while True:
                        r = self._attempt(proxy, server, path, refresh, consume)
                        url = self._url(proxy, server, path)
                        if r.outcome == Outcome.OK:
                            self._forgive(proxy, server)
                            self.emit(Event(EventKind.SUCCESS, proxy, server, url, refresh, 200))
                            assert r.exchange is not None
                            return cast(T, r.value), r.exchange
                        assert r.error is not None
                        failures.append(r.error)
                        decision = decide(r.outcome, proxy, refresh)
                        if r.outcome != Outcome.CANCELLED:
                            self.emit(Event(_event_kind(r.outcome), proxy, server, url, refresh,
                                            r.error.http_status, r.error.message, decision))
                        if decision == Decision.GIVE_UP:
                            raise r.error
                        self.stats.failovers += 1
                        if decision == Decision.REFRESH_SOFT:
                            refresh = SOFT
                        elif decision == Decision.REFRESH_HARD:
                            refresh = HARD
                        else:
                            break
                    if decision == Decision.NEXT_PROXY:
                        self._postpone(proxy)
                        break
                    if r.outcome not in _NOT_POSTPONED:
                        self._postpone(server)
        self.emit(Event(EventKind.GIVE_UP, url=path, detail=f"{len(failures)} failed attempts"))
        last = failures[-1] if failures else None
        raise OutpostError(
            ErrorKind.UNAVAILABLE,
            f"GET {path} failed on every route ({len(cfg.servers)} servers, {len(cfg.proxies)} proxies, "
            f"{cfg.retries + 1} passes, {len(failures)} attempts); last: {last.message if last else 'none'}",
            last.http_status if last else 0, failures)

    def _attempt(self, proxy: str, server: str, path: str, refresh: str,
                 consume: Callable[[Exchange], T]) -> _Result[T]:
        headers = {"X-Outpost-Client": self._client_id, "User-Agent": self._client_id,
                   "Accept": "application/vnd.outpost.v1+binary, */*"}
        cache_control = refresh or self.reload.plain_cache_control()
        if cache_control:
            headers["Cache-Control"] = cache_control
        if refresh == HARD:
            headers["Pragma"] = "no-cache"
        if refresh:
            self.stats.refreshes += 1
        url = self._url(proxy, server, path)
        self.emit(Event(EventKind.ATTEMPT, proxy, server, url, cache_control))
        self.stats.requests += 1
        verifier = self._verifier
        cfg = self.config
        x = self._transport.open(url, proxy, headers, cfg.connect_timeout, cfg.read_timeout, cfg.write_timeout,
                                 attempt_timeout=cfg.attempt_timeout, max_answer_bytes=cfg.max_answer_bytes,
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
        self.emit(Event(EventKind.BACKOFF, url=path, detail=f"{wait * 1000:.0f} ms", pass_no=pass_no))
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

    def emit(self, event: Event) -> None:
        if self._on_event is not None:
            self._on_event(event)
