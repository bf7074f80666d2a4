"""Answers as text (docs/cli.md, "Output"): table, csv and json, value by value as the other two tools write them."""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable
from decimal import Decimal
from typing import TextIO

import numpy as np

from ..wire import Column, ColumnType, Value

_MAX_WIDTH = 48
_LOOKAHEAD = 1000


def shortest(x: float, single: bool) -> str:
    """The shortest decimal that reads back to the same Float (binary32) or Double, fixed or scientific (exponent
    with a sign and two digits or more) whichever is shorter, fixed on a tie."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    text = np.format_float_scientific(np.float32(x), unique=True) if single else repr(x)
    sign, digit_tuple, exp = Decimal(text).as_tuple()
    assert isinstance(exp, int)
    digits = "".join(map(str, digit_tuple)).lstrip("0") or "0"
    while len(digits) > 1 and digits.endswith("0"):
        digits, exp = digits[:-1], exp + 1
    if digits == "0":
        exp = 0
    if exp >= 0:
        fixed = digits + "0" * exp
    elif len(digits) + exp > 0:
        fixed = digits[:len(digits) + exp] + "." + digits[len(digits) + exp:]
    else:
        fixed = "0." + "0" * -(len(digits) + exp) + digits
    e10 = exp + len(digits) - 1
    sci = digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + f"e{'+' if e10 >= 0 else '-'}{abs(e10):02d}"
    return ("-" if sign else "") + (fixed if len(fixed) <= len(sci) else sci)


def text_value(v: Value, t: ColumnType) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return shortest(v, t == ColumnType.Float)
    if isinstance(v, bytes):
        return base64.b64encode(v).decode("ascii")
    return str(v)


def json_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def json_value(v: Value, t: ColumnType) -> str:
    if v is None:
        return "null"
    if isinstance(v, str):
        return json_string(v)
    s = text_value(v, t)
    return f'"{s}"' if isinstance(v, (bytes, float)) and not (isinstance(v, float) and math.isfinite(v)) else s


def csv_field(s: str) -> str:
    if any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


class Printer:
    """Writes one answer: ``head`` once, ``row`` per row as they come (csv, json), ``end`` with the row count.
    The table format needs widths, so it collects rows and writes everything at ``end``."""

    def __init__(self, out: TextIO, fmt: str, kind: str, folder: str, tag: str, valid_since: int, valid_until: int,
                 columns: list[Column]) -> None:
        self.out, self.fmt, self.columns = out, fmt, columns
        self.types = [c.type for c in columns]
        self.rows = 0
        self._table: list[tuple[Value, ...]] = []
        if fmt == "json":
            cols = ",".join(f'{{"name":{json_string(c.name)},"type":"{c.type.name}"}}' for c in columns)
            out.write(f'{{"kind":"{kind}","folder":{json_string(folder)},"tag":{json_string(tag)},'
                      f'"validSince":{valid_since},"validUntil":{valid_until},\n "columns":[{cols}],\n "rows":[')
        elif fmt == "csv":
            out.write(",".join(csv_field(c.name) for c in columns) + "\n")

    def write_rows(self, rows: Iterable[tuple[Value, ...]]) -> None:
        out, types = self.out, self.types
        if self.fmt == "table":
            self._table.extend(rows)
            return
        for r in rows:
            if self.fmt == "json":
                out.write(("\n  [" if self.rows == 0 else ",\n  [")
                          + ",".join(json_value(v, t) for v, t in zip(r, types)) + "]")
            else:
                out.write(",".join("" if v is None else csv_field(text_value(v, t)) for v, t in zip(r, types)) + "\n")
            self.rows += 1

    def end(self) -> None:
        if self.fmt == "json":
            self.out.write(f'],\n "rowCount":{self.rows}}}\n')
        elif self.fmt == "table":
            self._write_table()

    def _write_table(self) -> None:
        rows = self._table
        cells = [[self._cell(v, t) for v, t in zip(r, self.types)] for r in rows]
        width = [len(c.name) for c in self.columns]
        for row in cells[:_LOOKAHEAD]:
            width = [max(w, len(s)) for w, s in zip(width, row)]
        right = [t.is_numeric for t in self.types]

        def line(values: list[str]) -> str:
            parts = [v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, width, right)]
            return "  ".join(parts).rstrip(" ") + "\n"

        out = self.out
        out.write(line([c.name for c in self.columns]))
        out.write(line(["-" * w for w in width]))
        for row in cells:
            out.write(line(row))
        out.write(f"({len(rows)} row{'' if len(rows) == 1 else 's'})\n")

    @staticmethod
    def _cell(v: Value, t: ColumnType) -> str:
        s = text_value(v, t).replace("\n", " ").replace("\r", " ").replace("\t", " ")
        return s[:_MAX_WIDTH - 3] + "..." if len(s) > _MAX_WIDTH else s
