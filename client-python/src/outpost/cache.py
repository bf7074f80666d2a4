"""The in-process answer cache (docs/client-failover.md, "In-process cache"): decoded answers under their
canonical path while their max-age lasts, least recently used dropped past the size limit, one answer never
more than a quarter of it."""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable

from .locks import ForkSafeLock
from .wire import Answer


class AnswerCache:
    def __init__(self, max_bytes: int, clock: Callable[[], float]) -> None:
        self.max_bytes = max_bytes
        self._clock = clock
        self._entries: OrderedDict[str, tuple[Answer, float, int]] = OrderedDict()
        self._bytes = 0
        self._lock = ForkSafeLock()

    def get(self, path: str) -> Answer | None:
        with self._lock:
            entry = self._entries.get(path)
            if entry is None:
                return None
            if entry[1] <= self._clock():
                self._drop(path)
                return None
            self._entries.move_to_end(path)
            return entry[0]

    def put(self, path: str, answer: Answer, fresh_for: float) -> None:
        size = len(answer.content) + 64 * len(answer.columns)
        if fresh_for <= 0 or size > self.max_bytes // 4:
            return
        with self._lock:
            if path in self._entries:
                self._drop(path)
            self._entries[path] = (answer, self._clock() + fresh_for, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                self._drop(next(iter(self._entries)))

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def _drop(self, path: str) -> None:
        _, _, size = self._entries.pop(path)
        self._bytes -= size
