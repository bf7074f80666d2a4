"""The bounds of one HTTP attempt (attempttimeout, the read timeout, maxanswerbytes), and the socket view that
holds http.client to them while it reads status, headers and body."""

from __future__ import annotations

import http.client
import io
import socket
import time
from typing import Any


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


def bounded_response(sock: socket.socket, *args: Any, limits: Limits, **kwargs: Any) -> http.client.HTTPResponse:
    return http.client.HTTPResponse(_BoundedSocket(sock, limits), *args, **kwargs)  # type: ignore[arg-type]
