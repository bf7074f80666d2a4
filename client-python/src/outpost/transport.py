"""One HTTP attempt on one route, classified as docs/client-failover.md's table needs it.

The standard library's http.client, because the policy needs what higher-level libraries hide: a connect timeout
apart from the read timeout, "could not connect" apart from "broke after connecting", a truncated body apart from
a reset connection, and a pool of keep-alive connections per route that a stale connection can be retried from.
"""

from __future__ import annotations

import functools
import hashlib
import http.client
import json
import socket
import urllib.parse
from typing import Callable

from .errors import ErrorKind, OutpostError
from .exchange import Exchange, Outcome
from .limits import Limits, bounded_response
from .locks import ForkSafeLock, renew_in_forked_child
from .signature import HEADER as SIGNATURE_HEADER
from .signature import Hop

_MAX_ERROR_BODY = 4096
_MAX_REDIRECT_BODY = 64 * 1024
_MAX_HOPS = 5  # the first request and at most four redirects

HopCheck = Callable[[Hop, str], str]  # (hop, signature header) -> why it must not be trusted, "" when it may


def _problem_detail(body: bytes) -> str:
    """The detail (else title) of an RFC 9457 problem answer, else the start of the body."""
    try:
        problem = json.loads(body)
        if isinstance(problem, dict):
            text = problem.get("detail") or problem.get("title")
            if text:
                return str(text)
    except ValueError:
        pass
    return body[:200].decode("utf-8", "replace").replace("\n", " ").replace("\r", " ")


class Transport:
    """Keep-alive connections per (proxy, server) pair, shared by the client's threads.

    A forked child (multiprocessing, a batch system's workers) starts with an empty pool: the connections it
    inherited belong to the parent, and two processes writing requests on one connection would read each other's
    answers. The lock is new too, as another thread of the parent may have held it at the fork."""

    def __init__(self, prefer_ip_family: int = 4, max_idle: int = 8) -> None:
        self._prefer_ip_family = prefer_ip_family
        self._idle: dict[tuple[str, str], list[http.client.HTTPConnection]] = {}
        self._lock = ForkSafeLock()
        self._max_idle = max_idle
        renew_in_forked_child(self)

    def _after_fork_in_child(self) -> None:
        inherited, self._idle = self._idle, {}  # the lock is new already (ForkSafeLock)
        for conns in inherited.values():
            for c in conns:  # closes this process's copy of the socket only: the parent's connection stays up
                c.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, {}
        for conns in idle.values():
            for c in conns:
                c.close()

    def open(self, url: str, proxy: str, headers: dict[str, str], connect_timeout: float,
             read_timeout: float, write_timeout: float | None = None, *, attempt_timeout: float | None = None,
             max_answer_bytes: int | None = None, check_hop: HopCheck | None = None) -> Exchange:
        """Sends the GET (within the write timeout, by default the read timeout) and reads status and headers,
        following redirects on the same route (at most 5 requests), all within ``attempt_timeout``. With
        ``check_hop`` (security=sig) a redirect is followed only when its signature verifies for the target asked
        at that hop; any other is refused (outcome UNSIGNED)."""
        limits = Limits(connect_timeout, read_timeout, read_timeout if write_timeout is None else write_timeout,
                        attempt_timeout, max_answer_bytes)
        for _ in range(_MAX_HOPS):
            x = self._open_once(url, proxy, headers, limits)
            if x.status in (301, 302, 307, 308) and x.header("location"):
                if check_hop is not None:
                    refused = self._refused_redirect(x, check_hop)
                    if refused is not None:
                        return refused
                x.close(reusable=False)
                url = urllib.parse.urljoin(url, x.header("location"))
                continue
            return x
        return Exchange(Outcome.PROTOCOL, x.status, error=OutpostError(
            ErrorKind.PROTOCOL, f"more than {_MAX_HOPS - 1} redirects ({x.where})", x.status), where=x.where)

    @staticmethod
    def _refused_redirect(x: Exchange, check_hop: HopCheck) -> Exchange | None:
        """None when the redirect's signature verifies; else the refusal (an unsigned redirect is a bad answer)."""
        try:
            length = int(x.header("content-length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= _MAX_REDIRECT_BODY:
            x.close()
            return Exchange(Outcome.UNSIGNED, x.status, x.headers, OutpostError(
                ErrorKind.UNSIGNED, f"redirect refused: a body of {x.header('content-length') or 'unknown'} bytes "
                                    f"({x.where})", x.status), x.where)
        try:
            body = x.read()
        except OutpostError as e:
            return Exchange(Outcome.CORRUPT if e.kind == ErrorKind.CORRUPT else Outcome.TRANSFER_FAILED, x.status,
                            x.headers, e, x.where)
        hop = Hop(x.target, x.status, x.header("location"), x.header("etag"), hashlib.sha256(body).hexdigest())
        problem = check_hop(hop, x.header(SIGNATURE_HEADER))
        if not problem:
            return None
        x.close()
        return Exchange(Outcome.UNSIGNED, x.status, x.headers, OutpostError(
            ErrorKind.UNSIGNED, f"redirect to {x.header('location')[:200]} refused: {problem} ({x.where})", x.status),
            x.where)

    def _open_once(self, url: str, proxy: str, headers: dict[str, str], limits: Limits) -> Exchange:
        where = f"GET {url}" + (f" via proxy {proxy}" if proxy else " (direct)")
        if headers.get("Cache-Control"):
            where += f" [Cache-Control: {headers['Cache-Control']}]"
        target = urllib.parse.urlsplit(url)
        key = (proxy, f"{target.scheme}://{target.netloc}")
        conn, reused = self._acquire(key)
        for fresh_retry in (False, True):
            if conn is None:
                try:
                    conn = self._connect(target, proxy, limits.timeout(limits.connect_timeout),
                                         self._prefer_ip_family)
                except OSError as e:
                    if limits.expired and isinstance(e, (TimeoutError, socket.timeout)):
                        return Exchange(Outcome.TRANSFER_FAILED, error=OutpostError(
                            ErrorKind.TIMEOUT, f"{limits.timeout_message('')} ({where})"), where=where)
                    return Exchange(Outcome.CONNECT_FAILED, error=OutpostError(
                        ErrorKind.CONNECT, f"could not connect: {_reason(e)} ({where})"), where=where)
                reused = False
            assert conn.sock is not None
            path = url if proxy and target.scheme == "http" else urllib.parse.urlunsplit(
                ("", "", target.path, target.query, ""))
            sending = True
            try:
                # The socket timeout bounds the whole sendall (Python 3.5+): only a request larger than the
                # socket buffers, to a peer that does not read, can wait on it.
                conn.sock.settimeout(limits.timeout(limits.write_timeout))
                # status, headers and body are read through the attempt's deadline
                conn.response_class = functools.partial(bounded_response, limits=limits)  # type: ignore[assignment]
                conn.request("GET", path, headers=headers)
                sending = False
                resp = conn.getresponse()
                break
            except (TimeoutError, socket.timeout):
                conn.close()
                what = limits.timeout_message("the request was not sent within the write timeout" if sending else
                                              "no answer within the read timeout")
                return Exchange(Outcome.TRANSFER_FAILED, error=OutpostError(
                    ErrorKind.TIMEOUT, f"{what} ({where})"), where=where)
            except (http.client.LineTooLong, http.client.HTTPException) as e:
                conn.close()
                if isinstance(e, http.client.LineTooLong) or "more than" in str(e):
                    # header lines without end: http.client stops at 100 lines of 64 KiB
                    return Exchange(Outcome.CORRUPT, error=OutpostError(
                        ErrorKind.CORRUPT, f"corrupt answer: its headers are too large: {str(e)[:200]} ({where})"),
                        where=where)
                conn = None
                if reused and not fresh_retry:
                    continue
                return Exchange(Outcome.TRANSFER_FAILED, error=OutpostError(
                    ErrorKind.TRANSFER, f"transfer failed: {_reason(e)} ({where})"), where=where)
            except OSError as e:
                conn.close()
                conn = None
                # A keep-alive connection the other side had closed: one retry on a fresh connection.
                if reused and not fresh_retry:
                    continue
                return Exchange(Outcome.TRANSFER_FAILED, error=OutpostError(
                    ErrorKind.TRANSFER, f"transfer failed: {_reason(e)} ({where})"), where=where)
        response_headers = {k.lower(): v for k, v in resp.getheaders()}
        assert conn is not None
        pooled = conn

        def release(reusable: bool) -> None:
            if reusable and not resp.will_close:
                self._release(key, pooled)
            else:
                pooled.close()

        x = Exchange(Outcome.OK, resp.status, response_headers, where=where, response=resp, release=release,
                     target=urllib.parse.urlunsplit(("", "", target.path or "/", target.query, "")), limits=limits)
        if resp.status == 200:
            try:
                length = int(x.header("content-length") or -1)
            except ValueError:
                length = -1
            if limits.too_large(length):
                x.close()
                x.response = None
                x.outcome = Outcome.CORRUPT
                x.error = OutpostError(ErrorKind.CORRUPT, f"answer too large: Content-Length {length} over "
                                                          f"maxanswerbytes={limits.max_answer_bytes} ({where})", 200)
            return x
        if resp.status in (301, 302, 307, 308):
            return x
        try:
            body = resp.read(_MAX_ERROR_BODY)
        except (http.client.HTTPException, OSError):
            body = b""
        x.close(reusable=False)
        x.response = None
        detail = _problem_detail(body)
        if resp.status >= 500:
            x.outcome = Outcome.SERVER_ERROR
            x.error = OutpostError(ErrorKind.SERVER, f"HTTP {resp.status} {detail} ({where})", resp.status)
        elif resp.status >= 400:
            x.outcome = Outcome.REQUEST_ERROR
            kind = ErrorKind.NOT_FOUND if resp.status == 404 else ErrorKind.REJECTED
            x.error = OutpostError(kind, f"HTTP {resp.status}: {detail} ({where})", resp.status)
        else:
            x.outcome = Outcome.PROTOCOL
            x.error = OutpostError(ErrorKind.PROTOCOL, f"unexpected HTTP {resp.status} ({where})", resp.status)
        return x

    @staticmethod
    def _connect(target: urllib.parse.SplitResult, proxy: str, timeout: float,
                 prefer_ip_family: int) -> http.client.HTTPConnection:
        host, port = target.hostname or "", target.port
        conn: http.client.HTTPConnection
        if proxy:
            p = urllib.parse.urlsplit(proxy)
            if target.scheme == "https":
                conn = http.client.HTTPSConnection(p.hostname or "", p.port or 3128, timeout=timeout)
                conn.set_tunnel(host, port or 443)
            else:
                conn = http.client.HTTPConnection(p.hostname or "", p.port or 3128, timeout=timeout)
        elif target.scheme == "https":
            conn = http.client.HTTPSConnection(host, port or 443, timeout=timeout)
        else:
            conn = http.client.HTTPConnection(host, port or 80, timeout=timeout)
        if prefer_ip_family:
            conn._create_connection = lambda address, timeout, source=None: connect_preferring(  # type: ignore
                address, timeout, prefer_ip_family)
        conn.connect()
        return conn

    def _acquire(self, key: tuple[str, str]) -> tuple[http.client.HTTPConnection | None, bool]:
        with self._lock:
            idle = self._idle.get(key)
            if idle:
                return idle.pop(), True
        return None, False

    def _release(self, key: tuple[str, str], conn: http.client.HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if len(idle) < self._max_idle:
                idle.append(conn)
                return
        conn.close()


def connect_preferring(address: tuple[str, int], timeout: float | None, family: int) -> socket.socket:
    """A TCP connection to the first address of ``address``'s name that answers, those of IP version ``family`` (4
    or 6) tried first, each within the connect timeout (frontier_client's preferipfamily)."""
    first = socket.AF_INET6 if family == 6 else socket.AF_INET
    infos = sorted(socket.getaddrinfo(address[0], address[1], 0, socket.SOCK_STREAM), key=lambda i: i[0] != first)
    error: OSError = OSError(f"no address for {address[0]}")
    for af, kind, proto, _, sockaddr in infos:
        sock = socket.socket(af, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(sockaddr)
            return sock
        except OSError as e:
            sock.close()
            error = e
    raise error


def _reason(e: BaseException) -> str:
    if isinstance(e, (TimeoutError, socket.timeout)):
        return "timed out"
    return str(e) or type(e).__name__
