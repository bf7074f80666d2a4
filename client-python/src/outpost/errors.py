"""The one exception type of the client, with a kind that says what failed (docs/client-failover.md)."""

from __future__ import annotations

import enum


class ErrorKind(enum.Enum):
    NOT_FOUND = "not-found"  # HTTP 404: unknown folder, node, channel, tag or global tag
    REJECTED = "rejected"  # any other HTTP 4xx: the query itself is wrong
    UNAVAILABLE = "unavailable"  # every route of every pass failed; ``attempts`` says how
    CONNECT = "connect"  # one attempt: could not connect
    SERVER = "server"  # one attempt: HTTP 5xx
    TRANSFER = "transfer"  # one attempt: connected, then the transfer broke
    TIMEOUT = "timeout"  # one attempt: no byte for the read timeout, or the request not sent within the write timeout
    CORRUPT = "corrupt"  # a corrupt or truncated answer (docs/wire-format.md)
    STALE = "stale"  # an answer older than its own max-age allows
    UNSIGNED = "unsigned"  # security=sig: no signature, one that does not verify, or an unknown key id
    PROTOCOL = "protocol"  # an answer of another kind than asked, a missing header
    CANCELLED = "cancelled"  # the caller stopped a streamed answer
    INVALID_ARGUMENT = "invalid-argument"  # a badly spelled path, tag, key or channel selection
    CONFIG = "config"  # an impossible configuration


class OutpostError(Exception):
    """What failed, with the HTTP status (0 when none) and, for UNAVAILABLE, every failed attempt in order."""

    def __init__(self, kind: ErrorKind, message: str, http_status: int = 0,
                 attempts: list[OutpostError] | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.http_status = http_status
        self.attempts: list[OutpostError] = attempts or []

    def describe(self) -> str:
        """The message, then one line per failed attempt."""
        return "\n".join([self.message] + ["  " + a.message for a in self.attempts])


class InvalidArgument(OutpostError, ValueError):
    """A query argument that no server could accept, refused before any request."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorKind.INVALID_ARGUMENT, message)


class CorruptAnswer(OutpostError):
    """An answer that fails a check of docs/wire-format.md."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorKind.CORRUPT, "corrupt answer: " + message, 200)
