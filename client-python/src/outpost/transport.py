"""One HTTP attempt on one route, classified as docs/client-failover.md's table needs it.

The standard library's http.client, because the policy needs what higher-level libraries hide: a connect timeout
apart from the read timeout, "could not connect" apart from "broke after connecting", a truncated body apart from
a reset connection, and a pool of keep-alive connections per route that a stale connection can be retried from.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import http.client
import io
import json
import socket
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import ErrorKind, OutpostError
from .locks import ForkSafeLock, renew_in_forked_child
from .signature import HEADER as SIGNATURE_HEADER
from .signature import Hop

_MAX_ERROR_BODY = 4096
_MAX_REDIRECT_BODY = 64 * 1024
_MAX_HOPS = 5  # the first request and at most four redirects
_CHUNK = 256 * 1024

HopCheck = Callable[[Hop, str], str]  # (hop, signature header) -> why it must not be trusted, "" when it may


class Limits:
    """The bounds of one attempt: an overall deadline (attempttimeout) over connect, send and every byte of the
    answer, the read timeout between bytes, and the largest body (maxanswerbytes)."""

    def __init__(self, connect_timeout: float, read_timeout: float, write_timeout: float,
                 attempt_timeout: float | None = None, max_answer_bytes: int | None = None) -> None:
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.write_timeout = write_timeout
        self.attempt_timeout = attempt_timeout
        self.max_answer_bytes = max_answer_bytes
        self.deadline = float("inf") if attempt_timeout is None else time.monotonic() + attempt_timeout
        self.expired = False  # the deadline, not the read timeout, ended a wait

    def timeout(self, per_wait: float) -> float:
        """The socket timeout for the next wait: ``per_wait``, shortened to what is left of the attempt."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.expired = True
            raise socket.timeout("attempt timeout")
        if left <= per_wait:
            self.expired = True  # if this wait times out, the deadline ended it
            return left
        self.expired = False
        return per_wait

    def too_large(self, n: int) -> bool:
        return self.max_answer_bytes is not None and n > self.max_answer_bytes

    def timeout_message(self, what: str) -> str:
        if self.expired:
            return f"transfer failed: the attempt took longer than attempttimeout={self.attempt_timeout:g} s"
        return f"transfer failed: {what}"


class _DeadlineReader(io.RawIOBase):
    """The response's view of the socket: each read waits at most the read timeout and never past the attempt's
    deadline, so that an answer dripping a byte at a time still ends (http.client reads status, headers and body
    through this)."""

    def __init__(self, sock: socket.socket, limits: Limits) -> None:
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)  # keeps the socket open while the response reads it
        self._limits = limits

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        self._sock.settimeout(self._limits.timeout(self._limits.read_timeout))
        return self._raw.readinto(buffer)

    def close(self) -> None:
        self._raw.close()
        super().close()


class _BoundedSocket:
    def __init__(self, sock: socket.socket, limits: Limits) -> None:
        self._sock = sock
        self._limits = limits

    def makefile(self, mode: str, *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._limits))


def _bounded_response(sock: socket.socket, *args: Any, limits: Limits, **kwargs: Any) -> http.client.HTTPResponse:
    return http.client.HTTPResponse(_BoundedSocket(sock, limits), *args, **kwargs)  # type: ignore[arg-type]


class Outcome(enum.Enum):
    OK = "ok"
    CONNECT_FAILED = "connect-failed"
    SERVER_ERROR = "server-error"
    TRANSFER_FAILED = "transfer-failed"
    CORRUPT = "corrupt"
    STALE = "stale"
    UNSIGNED = "unsigned"
    REQUEST_ERROR = "request-error"
    CANCELLED = "cancelled"
    PROTOCOL = "protocol"


@dataclass
class Exchange:
    """A response whose status and headers arrived; for status 200 the body is still to be read (``read``)."""

    outcome: Outcome
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    error: OutpostError | None = None
    where: str = ""
    response: http.client.HTTPResponse | None = None
    release: Callable[[bool], None] | None = None  # give the connection back (True: reusable)
    bytes_read: int = 0
    target: str = ""  # the request target in origin form (path and query) of the final URL, after redirects
    body: bytearray | None = None  # the whole body once ``buffer`` read it
    limits: Limits | None = None
    body_sha256: str = ""  # lowercase hex, once ``buffer`` read the body

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")

    def fresh_for(self) -> int:
        """Seconds the answer may be kept: max-age minus Age, -1 when it must not be kept."""
        cc = self.header("cache-control").lower()
        if any(word in cc for word in ("no-store", "no-cache", "private")):
            return -1
        max_age = _directive(cc, "max-age")
        if max_age is None:
            return -1
        return max(0, max_age - self.age())

    def age(self) -> int:
        try:
            return int(self.header("age") or 0)
        except ValueError:
            return 0

    def is_stale(self) -> bool:
        """Age over the max-age of its own Cache-Control: a copy older than the server allows."""
        max_age = _directive(self.header("cache-control").lower(), "max-age")
        return max_age is not None and self.age() > max_age

    def read_chunks(self) -> "ChunkReader":
        return ChunkReader(self)

    def read(self) -> bytearray:
        """The whole body (Content-Length bytes), in one buffer. Raises OutpostError CORRUPT when the connection
        closed early or the body is over maxanswerbytes, TRANSFER/TIMEOUT when it broke."""
        if self.body is not None:
            return self.body
        body = bytearray()
        for chunk in self.read_chunks():
            body += chunk
        return body

    def buffer(self) -> bytearray:
        """Reads the whole body now, hashing it as it arrives (to verify it before anything uses it, without a
        second copy); later reads give it from memory."""
        if self.body is None:
            digest = hashlib.sha256()
            body = bytearray()
            for chunk in self.read_chunks():
                digest.update(chunk)
                body += chunk
            self.body, self.body_sha256 = body, digest.hexdigest()
        return self.body

    def close(self, reusable: bool = False) -> None:
        if self.release is not None:
            self.release(reusable)
            self.release = None


class ChunkReader:
    """The body in chunks; the connection goes back to the pool after the last byte."""

    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self.remaining = int(exchange.header("content-length") or -1)

    def __iter__(self) -> "ChunkReader":
        return self

    def __next__(self) -> bytes | bytearray:
        x = self.exchange
        if x.body is not None:  # buffered: the whole body once
            body, self.remaining = (x.body if self.remaining else b""), 0
            if not body:
                raise StopIteration
            return body
        resp = x.response
        limits = x.limits or Limits(0, 0, 0)
        if resp is None or self.remaining == 0:
            if resp is not None:
                resp.read()  # marks the response finished, so that the connection can send the next request
            x.close(reusable=self.remaining == 0)
            raise StopIteration
        try:
            chunk = resp.read1(_CHUNK if self.remaining < 0 else min(_CHUNK, self.remaining))
        except http.client.IncompleteRead as e:
            chunk = e.partial
        except (TimeoutError, socket.timeout):
            x.close()
            what = limits.timeout_message("no byte for the read timeout")
            raise OutpostError(ErrorKind.TIMEOUT, f"{what} after {x.bytes_read} bytes ({x.where})",
                               x.status) from None
        except http.client.HTTPException as e:  # a broken chunked encoding
            x.close()
            raise OutpostError(ErrorKind.CORRUPT, f"corrupt answer: {type(e).__name__} {str(e)[:200]} after "
                                                  f"{x.bytes_read} bytes ({x.where})", x.status) from None
        except OSError as e:
            x.close()
            raise OutpostError(ErrorKind.TRANSFER, f"transfer failed: {e} after {x.bytes_read} bytes ({x.where})",
                               x.status) from None
        if not chunk:
            x.close()
            if self.remaining < 0:
                raise StopIteration
            raise OutpostError(ErrorKind.CORRUPT, f"truncated answer: connection closed after {x.bytes_read} bytes "
                                                  f"({x.where})", x.status)
        x.bytes_read += len(chunk)
        if limits.too_large(x.bytes_read):
            x.close()
            raise OutpostError(ErrorKind.CORRUPT, f"answer too large: over maxanswerbytes={limits.max_answer_bytes} "
                                                  f"bytes ({x.where})", x.status)
        if self.remaining > 0:
            self.remaining -= len(chunk)
        return chunk


def _directive(cache_control: str, name: str) -> int | None:
    for part in cache_control.split(","):
        k, _, v = part.strip().partition("=")
        if k == name:
            try:
                return int(v.strip('"'))
            except ValueError:
                return None
    return None


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
                conn.response_class = functools.partial(_bounded_response, limits=limits)  # type: ignore[assignment]
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
