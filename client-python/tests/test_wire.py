"""The shared wire-format vectors of testdata/ and every integrity check of docs/wire-format.md."""

from __future__ import annotations

import base64
import json
import math
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from outpost import wire
from outpost.errors import CorruptAnswer

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"
VECTORS = sorted(p.stem for p in TESTDATA.glob("*.bin"))


def expected_value(value: Any, type_name: str) -> Any:
    t = wire.ColumnType[type_name]
    if value is None:
        return None
    if t in (wire.ColumnType.Float, wire.ColumnType.Double):
        x = float(value) if not isinstance(value, str) else {"NaN": math.nan, "Infinity": math.inf,
                                                               "-Infinity": -math.inf}[value]
        return float(np.float32(x)) if t == wire.ColumnType.Float else x
    if t.is_blob:
        return base64.b64decode(value)
    return value


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, float) and a == 0.0:
        return b == 0.0 and math.copysign(1, a) == math.copysign(1, b)
    return bool(a == b) and type(a) is type(b) or (isinstance(a, bool) is isinstance(b, bool) and a == b)


@pytest.mark.parametrize("name", VECTORS)
def test_vector_decodes_to_its_json(name: str) -> None:
    answer = wire.decode((TESTDATA / f"{name}.bin").read_bytes())
    want = json.loads((TESTDATA / f"{name}.json").read_text())
    assert answer.kind.json_name == want["kind"]
    assert (answer.folder, answer.tag) == (want["folder"], want["tag"])
    assert (answer.valid_since, answer.valid_until) == (want["validSince"], want["validUntil"])
    assert [(c.name, c.type.name) for c in answer.columns] == [(c["name"], c["type"]) for c in want["columns"]]
    assert len(answer) == want["rowCount"] == len(want["rows"])
    types = [c["type"] for c in want["columns"]]
    for r, (got, exp) in enumerate(zip(answer.rows, want["rows"])):
        for c, (g, e) in enumerate(zip(got, exp)):
            e = expected_value(e, types[c])
            assert same(e, g), f"{name} row {r} column {want['columns'][c]['name']}: {g!r} != {e!r}"


def test_there_are_vectors_of_every_codec() -> None:
    codecs = {(TESTDATA / f"{n}.bin").read_bytes()[5] for n in VECTORS}
    assert codecs == {0, 1, 2}


def test_numeric_columns_are_numpy_arrays_with_nulls_marked() -> None:
    answer = wire.decode((TESTDATA / "iovs_all_types.bin").read_bytes())
    i32 = answer.column("f_Int32")
    assert i32.dtype == np.int32 and i32.tolist() == [-2147483648, 2147483647, 0]
    assert answer.nulls("f_Int32").tolist() == [False, False, True]
    assert answer.column("since").dtype == np.int64


def test_constant_rows_take_the_numpy_path_and_agree_with_the_row_walk() -> None:
    data = (TESTDATA / "iovs_likeluis_2000.bin").read_bytes()
    answer = wire.decode(data)
    head = wire.parse_content_header(answer.content)
    walked, _ = wire._index_rows(answer.content, head.rows_start, [c.type for c in answer.columns])
    fast = wire._index_constant_rows(answer.content, head.rows_start, [c.type for c in answer.columns], len(answer))
    assert fast is not None
    for a, b in zip(fast[0], walked):
        assert a.tolist() == b.tolist()


# --- damaged documents: each must be refused ---------------------------------------------------------------

def good(name: str = "iovs_all_types") -> bytearray:
    return bytearray((TESTDATA / f"{name}.bin").read_bytes())


def with_content(content: bytes, rows: int, codec: int = 0, crc: int | None = None) -> bytes:
    body = {0: content, 1: zlib.compress(content)}[codec]
    return (b"OUTP" + bytes([1, codec]) + b"\0\0" + struct.pack(">Q", len(body)) + body
            + struct.pack(">QI", rows, zlib.crc32(content) if crc is None else crc) + b"PTUO")


def plain_content(name: str = "iovs_all_types_uncompressed") -> bytes:
    data = good(name)
    return bytes(data[16:-16])


@pytest.mark.parametrize("name", ["iovs_all_types", "iovs_all_types_zlib", "iovs_all_types_uncompressed",
                                  "iovs_likeluis_2000"])
def test_no_single_byte_change_goes_unnoticed(name: str) -> None:
    """A changed byte is refused, or (a bit the codec does not use) decodes to exactly the same content."""
    data = good(name)
    content = wire.decode(bytes(data)).content
    refused = 0
    step = max(1, len(data) // 300)
    for i in list(range(16, len(data), step)) + [len(data) - 1]:
        damaged = bytearray(data)
        damaged[i] ^= 0x10
        try:
            assert wire.decode(bytes(damaged)).content == content, f"byte {i} changed the content unnoticed"
        except CorruptAnswer:
            refused += 1
    assert refused > 0.9 * len(range(16, len(data), step))


@pytest.mark.parametrize("cut", [1, 10, 16, 17, 40])
def test_truncated_answers_are_refused(cut: int) -> None:
    data = good()
    with pytest.raises(CorruptAnswer):
        wire.decode(bytes(data[:-cut]))


@pytest.mark.parametrize("offset,value,why", [(0, ord("X"), "magic"), (4, 2, "version"), (5, 3, "codec"),
                                              (7, 1, "flags")])
def test_header_fields_are_checked(offset: int, value: int, why: str) -> None:
    data = good()
    data[offset] = value
    with pytest.raises(CorruptAnswer, match=why):
        wire.decode(bytes(data))


def test_extra_bytes_after_the_answer_are_refused() -> None:
    with pytest.raises(CorruptAnswer):
        wire.decode(bytes(good()) + b"\0")


def test_row_count_crc_and_end_marker_are_checked() -> None:
    content = plain_content()
    rows = len(wire.decode(with_content(content, 3)))
    with pytest.raises(CorruptAnswer, match="rows"):
        wire.decode(with_content(content, rows + 1))
    with pytest.raises(CorruptAnswer, match="CRC"):
        wire.decode(with_content(content, rows, crc=zlib.crc32(content) ^ 1))
    with pytest.raises(CorruptAnswer, match="end marker"):
        wire.decode(with_content(content[:-1], rows))
    with pytest.raises(CorruptAnswer, match="after the end marker"):
        wire.decode(with_content(content + b"\0", rows))


def test_a_deflate_stream_ending_early_or_late_is_refused() -> None:
    content = plain_content()
    body = zlib.compress(content) + b"\0"
    data = (b"OUTP\x01\x01\0\0" + struct.pack(">Q", len(body)) + body
            + struct.pack(">QI", 3, zlib.crc32(content)) + b"PTUO")
    with pytest.raises(CorruptAnswer, match="deflate"):
        wire.decode(data)
    body = zlib.compress(content)[:-3]
    data = (b"OUTP\x01\x01\0\0" + struct.pack(">Q", len(body)) + body
            + struct.pack(">QI", 3, zlib.crc32(content)) + b"PTUO")
    with pytest.raises(CorruptAnswer, match="deflate"):
        wire.decode(data)


def test_a_zstd_body_must_be_exactly_one_frame() -> None:
    data = good("iovs_all_types")
    assert data[5] == 2
    body_len = struct.unpack(">Q", data[8:16])[0]
    body = bytes(data[16:16 + body_len])
    for bad in (body + body, b"\x50\x2a\x4d\x18\0\0\0\0" + body, body[:-2]):
        damaged = data[:8] + struct.pack(">Q", len(bad)) + bad + data[16 + body_len:]
        with pytest.raises(CorruptAnswer, match="zstd"):
            wire.decode(bytes(damaged))


def iovs_content(rows: list[tuple[int, int, int, str]]) -> bytes:
    """An iovs content of channel UInt32, since/until UInt63, ok Bool, s String255 (no NULLs)."""
    def text(s: str) -> bytes:
        return struct.pack(">I", len(s.encode())) + s.encode()

    head = (b"\x01" + text("/T/v") + text("HEAD") + struct.pack(">qqH", 0, 0, 5)
            + b"".join(text(n) + bytes([t]) for n, t in (("channel", 5), ("since", 6), ("until", 6), ("ok", 0),
                                                         ("s", 10))))
    return head + b"".join(b"\x01\x00" + struct.pack(">IQQB", ch, since, 99, ok) + text(s)
                           for ch, since, ok, s in rows) + b"\x00"


@pytest.mark.parametrize("strings", [["ab", "cd", "ef"], ["a", "bcd", "ef"]], ids=["constant rows", "walked rows"])
def test_a_negative_uint63_or_a_bool_over_1_is_refused_in_every_row(strings: list[str]) -> None:
    fine = [(i, 5, 1, s) for i, s in enumerate(strings)]
    assert len(wire.decode(with_content(iovs_content(fine), 3))) == 3
    for row in range(3):
        negative = list(fine)
        negative[row] = (row, 1 << 63, 1, strings[row])
        with pytest.raises(CorruptAnswer, match="negative UInt63"):
            wire.decode(with_content(iovs_content(negative), 3))
        bad_bool = list(fine)
        bad_bool[row] = (row, 5, 2, strings[row])
        with pytest.raises(CorruptAnswer, match="Bool"):
            wire.decode(with_content(iovs_content(bad_bool), 3))
