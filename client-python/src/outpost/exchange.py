"""The answer of one HTTP attempt: its outcome in docs/client-failover.md's terms, its headers (freshness, age)
and its body, read in chunks within the attempt's limits."""

from __future__ import annotations

import enum
import hashlib
import http.client
import socket
from dataclasses import dataclass, field
from typing import Callable

from .errors import ErrorKind, OutpostError
from .limits import Limits

_CHUNK = 256 * 1024


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
