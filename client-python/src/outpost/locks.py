"""A lock that a forked child gets unlocked, and the hook that renews such state in a forked child.

A process forked while another of its threads holds a ``threading.Lock`` (multiprocessing, a batch system's
workers) inherits the lock held by a thread that does not exist in the child, and the child's first use of the
client would hang. Every lock of the client is a :class:`ForkSafeLock`: the child replaces each with a new one."""

from __future__ import annotations

import os
import threading
import weakref
from types import TracebackType
from typing import Protocol


class ForkSafeLock:
    """``with lock:`` as with ``threading.Lock``; new and unlocked in a forked child."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        renew_in_forked_child(self)

    def __enter__(self) -> ForkSafeLock:
        self._lock.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._lock.release()

    def _after_fork_in_child(self) -> None:
        self._lock = threading.Lock()


class _ForkAware(Protocol):
    def _after_fork_in_child(self) -> None: ...


_renewed: weakref.WeakSet[_ForkAware] = weakref.WeakSet()


def renew_in_forked_child(obj: _ForkAware) -> None:
    """Calls ``obj._after_fork_in_child()`` in every child this process forks, for as long as ``obj`` lives."""
    _renewed.add(obj)


def _reset_after_fork() -> None:
    for obj in list(_renewed):
        obj._after_fork_in_child()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_reset_after_fork)
