"""The time arguments of docs/cli.md ("Times"): min/max, raw:N, decimal numbers, RUN/LUMI, ISO dates and date-times.

A key is parsed first (:func:`parse_key`), then read in a folder of a key type (:meth:`CliKey.in_folder`): a bare
number is no run-lumi key (320 could be run 320 or the raw key 320), a date no run-lumi key, RUN/LUMI no time."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from enum import Enum

from ..query import MAX_KEY

_RUN_LUMI = re.compile(r"([0-9]{1,10})[/:]([0-9]{1,10})")
_ISO = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
                  r"(?:T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?")


class KeyForm(Enum):
    """How a key was written: forms that fit folders of either key type (min, max, raw:N), or of one only."""
    ANY = "any"
    NUMBER = "number"
    RUN_LUMI = "run-lumi"
    DATE = "date"


@dataclass(frozen=True)
class CliKey:
    """A key as typed: its text, its value and its form."""
    text: str
    value: int
    form: KeyForm

    def in_folder(self, run_lumi: bool) -> int:
        """The key read in a folder of that key type; raises ValueError when its form does not fit."""
        if run_lumi and self.form == KeyForm.NUMBER:
            raise ValueError(bare_number(self.text, self.value))
        if run_lumi and self.form == KeyForm.DATE:
            raise ValueError(f"'{self.text}' is a date, not a run-lumi key: write RUN/LUMI, e.g. 305/50")
        if not run_lumi and self.form == KeyForm.RUN_LUMI:
            raise ValueError(f"'{self.text}' is RUN/LUMI, not a time: write ns since 1970 or an ISO date/time, "
                             "e.g. 2026-01-01T01:00:00Z")
        return self.value


def bare_number(text: str, n: int) -> str:
    """Why a bare number is no run-lumi key, as the loader and the write API say it."""
    why = f"'{text}' is not a run-lumi key: write RUN/LUMI"
    if n <= 0x7FFFFFFF:
        why += f", e.g. {n}/0 for run {n}, lumi 0"
    if n > 0xFFFFFFFF:
        why += f" ({n >> 32}/{n & 0xFFFFFFFF} is the raw key {n})"
    return why + f"; a raw key is written raw:{n}"


def parse_time(text: str) -> int:
    """The key a time argument means whatever the folder; raises ValueError saying why not."""
    return parse_key(text).value


def _decimal(digits: str) -> int:
    if int(digits) > MAX_KEY:
        raise ValueError("over 2^63-1")
    return int(digits)


def parse_key(text: str) -> CliKey:
    """A key as typed; raises ValueError saying why the text is no key in any folder."""
    if text in ("min", "max"):
        return CliKey(text, 0 if text == "min" else MAX_KEY, KeyForm.ANY)
    if text.startswith("raw:"):
        if not re.fullmatch(r"[0-9]{1,19}", text[4:]):
            raise ValueError("raw: is followed by the key as a whole number, e.g. raw:1297080123392")
        return CliKey(text, _decimal(text[4:]), KeyForm.ANY)
    if re.fullmatch(r"[0-9]{1,19}", text):
        return CliKey(text, _decimal(text), KeyForm.NUMBER)
    m = _RUN_LUMI.fullmatch(text)
    if m:
        run, lumi = int(m[1]), int(m[2])
        if run > 0x7FFFFFFF or lumi > 0xFFFFFFFF:
            raise ValueError("run must be below 2^31 and lumi below 2^32")
        return CliKey(text, run << 32 | lumi, KeyForm.RUN_LUMI)
    return CliKey(text, _date(text), KeyForm.DATE)


def _date(text: str) -> int:
    m = _ISO.fullmatch(text)
    if not m:
        raise ValueError("use min, max, RUN/LUMI, ns since 1970 (UTC), an ISO date/time such as "
                         "2026-01-01T01:00:00Z, or raw:N for a raw key")
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
