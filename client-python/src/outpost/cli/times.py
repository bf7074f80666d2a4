"""The time arguments of docs/cli.md ("Times"): decimal keys, min/max, RUN/LUMI, ISO dates and date-times."""

from __future__ import annotations

import calendar
import re

from ..query import MAX_KEY

_RUN_LUMI = re.compile(r"([0-9]{1,10})[/:]([0-9]{1,10})")
_ISO = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
                  r"(?:T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?")


def parse_time(text: str) -> int:
    """The key a time argument means; raises ValueError saying why not."""
    if text == "min":
        return 0
    if text == "max":
        return MAX_KEY
    if re.fullmatch(r"[0-9]{1,19}", text):
        if int(text) > MAX_KEY:
            raise ValueError("over 2^63-1")
        return int(text)
    m = _RUN_LUMI.fullmatch(text)
    if m:
        run, lumi = int(m[1]), int(m[2])
        if run > 0x7FFFFFFF or lumi > 0xFFFFFFFF:
            raise ValueError("run must be below 2^31 and lumi below 2^32")
        return run << 32 | lumi
    m = _ISO.fullmatch(text)
    if not m:
        raise ValueError("use ns since 1970 (UTC), min, max, RUN/LUMI, or an ISO date/time such as "
                         "2026-01-01T01:00:00Z")
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    hour, minute, second = int(m[4] or 0), int(m[5] or 0), int(m[6] or 0)
    nanos = int((m[7] or "").ljust(9, "0"))
    offset = 0
    if m[8] and m[8] != "Z":
        oh, om = int(m[8][1:3]), int(m[8][4:6])
        if om > 59 or oh * 3600 + om * 60 > 18 * 3600:
            raise ValueError("not a valid date/time (offset out of range)")
        offset = (-1 if m[8][0] == "-" else 1) * (oh * 3600 + om * 60)
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1] and hour <= 23 and minute <= 59
            and second <= 59):
        raise ValueError("not a valid date/time")
    secs = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)) - offset
    if secs < 0:
        raise ValueError("before 1970")
    key = secs * 1_000_000_000 + nanos
    if key > MAX_KEY:
        raise ValueError("after 2262-04-11T23:47:16.854775807Z")
    return key
