"""A lock that a forked child gets unlocked.

A process forked while another of its threads holds a ``threading.Lock`` (multiprocessing, a batch system's
workers) inherits the lock held by a thread that does not exist in the child, and the child's first use of the
client would hang. Every lock of the client is a :class:`ForkSafeLock`: the child replaces each with a new one."""

from __future__ import annotations

import os
import threading
import weakref
from types import TracebackType


class ForkSafeLock:
    """``with lock:`` as with ``threading.Lock``; new and unlocked in a forked child."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        _locks.add(self)

    def __enter__(self) -> ForkSafeLock:
        self._lock.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._lock.release()

    def _after_fork_in_child(self) -> None:
        self._lock = threading.Lock()


_locks: weakref.WeakSet[ForkSafeLock] = weakref.WeakSet()


def _reset_after_fork() -> None:
    for lock in list(_locks):
        lock._after_fork_in_child()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_reset_after_fork)
