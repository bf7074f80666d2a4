"""Query vocabulary and canonical URL paths (docs/api.md): keys, run/lumi and time helpers, channel selections,
orders, and the cache-aligned window of an at-time query (docs/client-failover.md, "At-time queries")."""

from __future__ import annotations

import datetime as _dt
import enum
import re
from dataclasses import dataclass

from .errors import InvalidArgument

MIN_KEY = 0
MAX_KEY = (1 << 63) - 1
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def run_lumi(run: int, lumi: int = 0) -> int:
    """The key of a run-lumi folder: (RUN << 32) | LUMI, RUN < 2^31, LUMI < 2^32."""
    if not 0 <= run <= 0x7FFFFFFF:
        raise InvalidArgument(f"run {run} is outside 0 ... 2147483647")
    if not 0 <= lumi <= 0xFFFFFFFF:
        raise InvalidArgument(f"lumiblock {lumi} is outside 0 ... 4294967295")
    return run << 32 | lumi


def split_run_lumi(key: int) -> tuple[int, int]:
    """(run, lumi) of a run-lumi key."""
    return key >> 32, key & 0xFFFFFFFF


def time_key(t: _dt.datetime) -> int:
    """The key of a time folder: nanoseconds since 1970 UTC (a naive datetime counts as UTC)."""
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    delta = t - _EPOCH
    key = (delta.days * 86400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000
    return check_key("time", key)


def key_time(key: int) -> _dt.datetime:
    """The UTC datetime of a time folder's key (to the microsecond; datetime holds no nanoseconds)."""
    return _EPOCH + _dt.timedelta(microseconds=key // 1000)


def check_key(what: str, key: int) -> int:
    if not MIN_KEY <= key <= MAX_KEY:
        raise InvalidArgument(f"{what} {key} is outside the keys 0 ... 2^63-1")
    return key


_PATH_BAD = re.compile(r"[\x00-\x20?#%\x7f]")
_TAG = re.compile(r"[A-Za-z0-9_.\-]+")


def check_path(path: str) -> str:
    if not path.startswith("/"):
        raise InvalidArgument(f"a folder or node path starts with '/', got '{path}'")
    if len(path) > 1 and path.endswith("/"):
        raise InvalidArgument(f"a folder or node path does not end with '/', got '{path}'")
    if _PATH_BAD.search(path):
        raise InvalidArgument(f"bad character in folder or node path '{path}'")
    return path


def check_tag(tag: str) -> str:
    if not _TAG.fullmatch(tag):
        raise InvalidArgument(f"a tag is HEAD or letters, digits, '_', '.', '-', got '{tag}'")
    return tag


class Order(enum.Enum):
    """Row order of a browse."""

    CHANNEL_SINCE = "cs"
    SINCE_CHANNEL = "sc"
    CHANNEL_SINCE_DESC = "csd"
    SINCE_DESC_CHANNEL = "sdc"


def percent_encode(s: str) -> str:
    """RFC 3986: unreserved characters kept, every other byte %XX upper-case."""
    return "".join(chr(b) if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "-._~") else f"%{b:02X}"
                   for b in s.encode("utf-8"))


_CHANNEL_ID = re.compile(r"[0-9]{1,10}")


@dataclass(frozen=True)
class Channels:
    """A channel selection: every channel, ranges of ids, or one channel by name."""

    ranges: tuple[tuple[int, int], ...] = ()
    name: str | None = None

    @staticmethod
    def all() -> Channels:
        return Channels()

    @staticmethod
    def of(*ranges: int | tuple[int, int]) -> Channels:
        """Ids and (first, last) ranges, merged into the canonical ascending, non-touching form."""
        rs = sorted((r, r) if isinstance(r, int) else r for r in ranges)
        if not rs:
            raise InvalidArgument("a channel selection needs at least one range")
        merged: list[tuple[int, int]] = []
        for first, last in rs:
            if not 0 <= first <= last <= 0xFFFFFFFF:
                raise InvalidArgument(f"channel range {first}-{last} is not 0 <= first <= last < 2^32")
            if merged and first <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], last))
            else:
                merged.append((first, last))
        return Channels(tuple(merged))

    @staticmethod
    def named(name: str) -> Channels:
        if not name:
            raise InvalidArgument("a channel name must not be empty")
        return Channels(name=name)

    @staticmethod
    def parse(text: str) -> Channels:
        """``all``, ``N``, ``N-M``, lists such as ``1-4,7``, or ``name:X`` (X may be percent-encoded)."""
        if text in ("all", "*"):
            return Channels.all()
        if text.startswith("name:"):
            from urllib.parse import unquote
            return Channels.named(unquote(text[5:]))
        ranges: list[tuple[int, int]] = []
        for part in text.split(","):
            ends = part.split("-")
            if len(ends) > 2 or not all(_CHANNEL_ID.fullmatch(e) for e in ends):
                raise InvalidArgument(f"bad channel selection '{text}': use all, N, N-M, 1-4,7 or name:X")
            first, last = int(ends[0]), int(ends[-1])
            if first > last:
                raise InvalidArgument(f"channel range {part} has first > last")
            ranges.append((first, last))
        return Channels.of(*ranges)

    def canonical(self) -> str:
        if self.name is not None:
            return "name:" + percent_encode(self.name)
        if not self.ranges:
            return "all"
        return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in self.ranges)

    def __str__(self) -> str:
        return self.canonical()


PREFIX = "/v1/bin"


def nodes_path() -> str:
    return PREFIX + "/nodes"


def globaltags_path() -> str:
    return PREFIX + "/globaltags"


def resolve_path(global_tag: str) -> str:
    return f"{PREFIX}/resolve/{check_tag(global_tag)}"


def state_path(global_tag: str, subtree: str = "") -> str:
    return f"{PREFIX}/state/{check_tag(global_tag)}{check_path(subtree) if subtree not in ('', '/') else ''}"


def pinned(path: str, generation: str) -> str:
    """A canonical path pinned to a folder generation (or a state): ``/v1/bin/pin/{generation}/…``."""
    return f"{PREFIX}/pin/{generation}{path[len(PREFIX):]}"


def channels_path(folder: str) -> str:
    return PREFIX + "/channels" + check_path(folder)


def tags_path(node: str) -> str:
    return PREFIX + "/tags" + check_path(node)


def tag_path(folder: str, tag: str) -> str:
    return f"{PREFIX}/tag/{check_tag(tag)}{check_path(folder)}"


def at_path(folder: str, tag: str, t: int, channels: Channels) -> str:
    return f"{PREFIX}/at/{check_tag(tag)}/{check_key('t', t)}/{channels.canonical()}{check_path(folder)}"


def _interval(t1: int, t2: int) -> str:
    check_key("t1", t1)
    check_key("t2", t2)
    if t1 > t2:
        raise InvalidArgument(f"t1 {t1} > t2 {t2}")
    return f"{t1}/{t2}"


def browse_path(folder: str, tag: str, t1: int, t2: int, channels: Channels,
                order: Order = Order.CHANNEL_SINCE) -> str:
    return (f"{PREFIX}/browse/{check_tag(tag)}/{_interval(t1, t2)}/{channels.canonical()}/{order.value}"
            f"{check_path(folder)}")


def count_path(folder: str, tag: str, t1: int, t2: int, channels: Channels) -> str:
    return f"{PREFIX}/count/{check_tag(tag)}/{_interval(t1, t2)}/{channels.canonical()}{check_path(folder)}"


@dataclass(frozen=True)
class Window:
    """The cache-aligned window of at-time queries: length L (0 = direct /at/ queries) and N divisions."""

    length: int
    divisions: int = 1


TIME_WINDOW = Window(600 * 1_000_000_000)  # 600 s of nanoseconds
RUN_LUMI_WINDOW = Window(1 << 32)  # one run


def aligned_window(t: int, w: Window) -> tuple[int, int]:
    """(lo, hi inclusive): lo = t - t mod (L/N), hi = lo + L - 1, capped at 2^63-1."""
    check_key("t", t)
    step = max(1, w.length // max(1, w.divisions))
    lo = t - t % step
    return lo, min(MAX_KEY, lo + w.length - 1)
