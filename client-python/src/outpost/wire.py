"""The native binary format (docs/wire-format.md): every integrity check, then a column index.

``decode`` checks the whole document (header, exact size, one codec stream ending at ``body_len``, flags, end
marker, row count, CRC-32, trailer magic) and records where every value starts. Values become Python objects or
numpy arrays only when a column is asked for (``Answer.column``, ``Answer.rows``, ``frames.to_pandas``), and numeric
columns are read with numpy in one step, not row by row.

Rows of a constant size (fixed-width columns, strings of one length, the same NULLs in every row: most
conditions answers) are indexed with numpy; other answers are walked row by row in Python.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import numpy as np
import numpy.typing as npt

from ._extras import crc32
from .envelope import HEADER_SIZE, TRAILER_SIZE, check_header, decompress, parse_trailer
from .errors import CorruptAnswer, ErrorKind, OutpostError

MAX_KEY = (1 << 63) - 1
_MAX_VALUE_LENGTH = 16 << 20


class AnswerKind(enum.IntEnum):
    IOVS = 1
    NODES = 2
    CHANNELS = 3
    TAGS = 4
    COUNT = 5
    TAG = 6
    GLOBALTAGS = 7
    RESOLVE = 8
    STATE = 9
    SNAPSHOT = 10

    @property
    def json_name(self) -> str:
        return self.name.lower()


class ColumnType(enum.IntEnum):
    Bool = 0
    UChar = 1
    Int16 = 2
    UInt16 = 3
    Int32 = 4
    UInt32 = 5
    UInt63 = 6
    Int64 = 7
    Float = 8
    Double = 9
    String255 = 10
    String4k = 11
    String64k = 12
    String16M = 13
    Blob64k = 14
    Blob16M = 15

    @property
    def width(self) -> int:
        """Bytes of a value; 0 for the length-prefixed types."""
        return _WIDTHS[self]

    @property
    def numpy_type(self) -> str:
        """The big-endian numpy type of a fixed-width value ('' for strings and blobs)."""
        return _NUMPY[self]

    @property
    def is_numeric(self) -> bool:
        return ColumnType.UChar <= self <= ColumnType.Double

    @property
    def is_string(self) -> bool:
        return ColumnType.String255 <= self <= ColumnType.String16M

    @property
    def is_blob(self) -> bool:
        return self >= ColumnType.Blob64k


_WIDTHS = {t: w for t, w in zip(ColumnType, [1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 0, 0, 0, 0, 0, 0])}
_NUMPY = {t: n for t, n in zip(ColumnType, ["u1", "u1", ">i2", ">u2", ">i4", ">u4", ">i8", ">i8", ">f4", ">f8",
                                             "", "", "", "", "", ""])}


@dataclass(frozen=True)
class Column:
    name: str
    type: ColumnType


Value = Any  # None, bool, int, float, str or bytes


@dataclass(eq=False)  # compared by identity: its columns are numpy arrays
class Answer:
    """One decoded answer: its header fields, schema, and the verified content with a value index.

    ``positions[c]`` holds the content offset of column c's value in every row (-1 for NULL); ``lengths[c]`` the
    byte length of length-prefixed values (their bytes start 4 after the position).
    """

    kind: AnswerKind
    folder: str
    tag: str
    valid_since: int
    valid_until: int
    columns: list[Column]
    row_count: int
    content: bytes = field(repr=False)
    positions: list[npt.NDArray[np.int64]] = field(repr=False)
    lengths: list[npt.NDArray[np.int64] | None] = field(repr=False)
    encoded_bytes: int = 0
    row_size: int = 0  # > 0: every row has this size, NULLs and value lengths (values are evenly spaced)
    _cache: dict[int, Any] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return self.row_count

    def column_index(self, name: str) -> int:
        for i, c in enumerate(self.columns):
            if c.name == name:
                return i
        raise KeyError(f"no column '{name}' in {[c.name for c in self.columns]}")

    def nulls(self, column: int | str) -> npt.NDArray[np.bool_]:
        """True where the column is NULL."""
        return self.positions[self._index(column)] < 0

    def has_nulls(self, column: int | str) -> bool:
        """Whether any value of the column is NULL (without a pass over the rows when they have a constant size:
        then every row has the first row's NULLs)."""
        pos = self.positions[self._index(column)]
        if self.row_size:
            return bool(len(pos)) and bool(pos[0] < 0)
        return bool((pos < 0).any())

    def column(self, column: int | str) -> Any:
        """A numeric or Bool column as a numpy array (NULL as 0 or False; see ``nulls``), a string or blob
        column as a list (NULL as None)."""
        i = self._index(column)
        if i not in self._cache:
            self._cache[i] = self._materialise(i)
        return self._cache[i]

    def values(self, column: int | str) -> list[Value]:
        """A column as Python values, NULL as None."""
        i = self._index(column)
        col = self.column(i)
        if isinstance(col, list):
            return col
        out: list[Value] = col.tolist()
        if self.columns[i].type == ColumnType.Float:  # the float32 value itself, not its double widening
            out = [float(np.float32(v).item()) for v in out]
        nulls = self.nulls(i)
        if nulls.any():
            for r in np.flatnonzero(nulls).tolist():
                out[r] = None
        return out

    @property
    def rows(self) -> list[tuple[Value, ...]]:
        """Every row as a tuple of Python values (NULL as None)."""
        if -1 not in self._cache:
            self._cache[-1] = list(zip(*(self.values(i) for i in range(len(self.columns))))) \
                if self.columns else [() for _ in range(self.row_count)]
        rows: list[tuple[Value, ...]] = self._cache[-1]
        return rows

    def select(self, rows: npt.NDArray[Any], valid_since: int | None = None,
               valid_until: int | None = None) -> Answer:
        """The answer with only the given rows (a boolean mask or row numbers), sharing this one's content."""
        positions = [p[rows] for p in self.positions]
        return Answer(self.kind, self.folder, self.tag,
                      self.valid_since if valid_since is None else valid_since,
                      self.valid_until if valid_until is None else valid_until,
                      self.columns, len(positions[0]) if positions else 0, self.content, positions,
                      [None if n is None else n[rows] for n in self.lengths], self.encoded_bytes)

    def to_pandas(self, *, datetimes: bool = False) -> Any:
        """A pandas DataFrame (the ``pandas`` extra); see ``outpost.frames.to_pandas``."""
        from .frames import to_pandas
        return to_pandas(self, datetimes=datetimes)

    def to_arrow(self) -> Any:
        """A pyarrow Table (the ``pandas`` extra); see ``outpost.frames.to_arrow``."""
        from .frames import to_arrow
        return to_arrow(self)

    def __iter__(self) -> Iterator[tuple[Value, ...]]:
        return iter(self.rows)

    def _index(self, column: int | str) -> int:
        return self.column_index(column) if isinstance(column, str) else column

    def _materialise(self, i: int) -> Any:
        t = self.columns[i].type
        pos = self.positions[i]
        if t.width:
            has_nulls = self.has_nulls(i)
            nulls = pos < 0 if has_nulls else None
            arr: npt.NDArray[Any]
            if self.row_size and not has_nulls and len(pos):  # a strided view: one copy, in astype below
                arr = np.ndarray((len(pos),), dtype=t.numpy_type, buffer=self.content, offset=int(pos[0]),
                                 strides=(self.row_size,))
            else:
                raw = value_bytes(self.content, pos if nulls is None else np.where(nulls, 0, pos), t.width)
                arr = raw.view(t.numpy_type).reshape(len(pos))
            native = arr.astype(bool if t == ColumnType.Bool else arr.dtype.newbyteorder("="))
            if nulls is not None:
                native[nulls] = 0
            return native
        lengths = self.lengths[i]
        assert lengths is not None
        content = self.content
        if t.is_string:
            try:
                return [None if p < 0 else content[p + 4:p + 4 + n].decode("utf-8")
                        for p, n in zip(pos.tolist(), lengths.tolist())]
            except UnicodeDecodeError:
                raise CorruptAnswer(f"column '{self.columns[i].name}' holds a string that is not UTF-8") from None
        return [None if p < 0 else content[p + 4:p + 4 + n] for p, n in zip(pos.tolist(), lengths.tolist())]


def value_bytes(content: bytes, pos: npt.NDArray[np.int64], width: int, stride: int = 0) -> npt.NDArray[np.uint8]:
    """The ``width`` bytes at each position, as an (n, width) array: one strided copy when the positions are ``stride``
    bytes apart (constant rows), else a gather."""
    u8 = np.frombuffer(content, dtype=np.uint8)
    n = len(pos)
    if n == 0:
        return np.zeros((0, width), dtype=np.uint8)
    if stride > 0:
        view = np.lib.stride_tricks.as_strided(u8[int(pos[0]):], shape=(n, width), strides=(stride, 1),
                                               writeable=False)
        return np.ascontiguousarray(view)
    gathered: npt.NDArray[np.uint8] = u8[pos[:, None] + np.arange(width)]
    return gathered


def decode(data: bytes | bytearray | memoryview, max_content: int = 1 << 62) -> Answer:
    """Checks and indexes one whole document; raises CorruptAnswer when any check fails or its content is over
    ``max_content`` bytes once decompressed. A bytearray is read in place (no copy of the whole answer)."""
    if not isinstance(data, (bytes, bytearray)):
        data = bytes(data)
    if len(data) < HEADER_SIZE + TRAILER_SIZE:
        raise CorruptAnswer(f"{len(data)} bytes, shorter than a header and a trailer")
    codec, body_len = check_header(bytes(data[:HEADER_SIZE]))
    if len(data) != HEADER_SIZE + body_len + TRAILER_SIZE:
        raise CorruptAnswer(f"{len(data)} bytes, expected 16 + body_len {body_len} + 16")
    body = memoryview(data)[HEADER_SIZE:HEADER_SIZE + body_len]
    content = decompress(codec, body, max_content)
    rows, crc = parse_trailer(bytes(data[HEADER_SIZE + body_len:]))
    if crc32(content) != crc:
        raise CorruptAnswer(f"CRC-32 mismatch: trailer {crc:08x}, content {crc32(content):08x}")
    answer = index_content(content, rows)
    answer.encoded_bytes = len(data)
    return answer


class Incomplete(CorruptAnswer):
    """The content ended inside a value: corrupt in a whole answer, "wait for more" in a stream."""


class _Reader:
    """Bounds-checked reads from the content."""

    def __init__(self, content: bytes | bytearray, pos: int = 0) -> None:
        self.content = content
        self.pos = pos

    def take(self, n: int) -> int:
        p = self.pos
        if p + n > len(self.content):
            raise Incomplete(f"content ends inside a value at byte {p}")
        self.pos = p + n
        return p

    def u8(self) -> int:
        return self.content[self.take(1)]

    def u16(self) -> int:
        p = self.take(2)
        return int.from_bytes(self.content[p:p + 2], "big")

    def u32(self) -> int:
        p = self.take(4)
        return int.from_bytes(self.content[p:p + 4], "big")

    def i64(self) -> int:
        p = self.take(8)
        return int.from_bytes(self.content[p:p + 8], "big", signed=True)

    def string(self) -> str:
        n = self.u32()
        if n > _MAX_VALUE_LENGTH:
            raise CorruptAnswer(f"string of {n} bytes at byte {self.pos - 4}")
        p = self.take(n)
        try:
            return self.content[p:p + n].decode("utf-8")
        except UnicodeDecodeError:
            raise CorruptAnswer(f"a string at byte {p} is not UTF-8") from None


@dataclass(frozen=True)
class ContentHeader:
    kind: AnswerKind
    folder: str
    tag: str
    valid_since: int
    valid_until: int
    columns: list[Column]
    rows_start: int


def parse_content_header(content: bytes | bytearray) -> ContentHeader:
    """The content fields before the rows; raises Incomplete when the content ends inside them."""
    r = _Reader(content)
    kind_code = r.u8()
    try:
        kind = AnswerKind(kind_code)
    except ValueError:
        raise CorruptAnswer(f"unknown answer kind {kind_code}") from None
    folder, tag = r.string(), r.string()
    since, until = r.i64(), r.i64()
    columns = []
    for _ in range(r.u16()):
        name = r.string()
        code = r.u8()
        try:
            columns.append(Column(name, ColumnType(code)))
        except ValueError:
            raise CorruptAnswer(f"unknown type code {code} of column '{name}'") from None
    return ContentHeader(kind, folder, tag, since, until, columns, r.pos)


def walk_row(content: bytes | bytearray, pos: int, types: Sequence[ColumnType], out: list[list[int]],
             lens: list[list[int]]) -> int:
    """Indexes the row at ``pos`` (after its 0x01 marker) into ``out``/``lens``; returns the next row's offset."""
    ncols = len(types)
    nb = (ncols + 7) // 8
    end = len(content)
    if pos + nb > end:
        raise Incomplete(f"content ends inside a null bitmap at byte {pos}")
    bitmap = int.from_bytes(content[pos:pos + nb], "little")
    pos += nb
    for c in range(ncols):
        if bitmap >> c & 1:
            out[c].append(-1)
            lens[c].append(0)
            continue
        out[c].append(pos)
        w = types[c].width
        if w:
            pos += w
            lens[c].append(w)
        else:
            if pos + 4 > end:
                raise Incomplete(f"content ends inside a length at byte {pos}")
            n = int.from_bytes(content[pos:pos + 4], "big")
            if n > _MAX_VALUE_LENGTH:
                raise CorruptAnswer(f"value of {n} bytes at byte {pos}")
            pos += 4 + n
            lens[c].append(n)
        if pos > end:
            raise Incomplete(f"content ends inside a value at byte {pos}")
    return pos


def index_content(content: bytes, trailer_rows: int) -> Answer:
    """Checks the content's structure against the trailer's row count and indexes every value."""
    head = parse_content_header(content)
    types = [c.type for c in head.columns]
    ncols = len(types)
    if trailer_rows > len(content):  # every row takes at least one byte
        raise CorruptAnswer(f"trailer says {trailer_rows} rows, content has at most {len(content)} bytes")
    constant = _index_constant_rows(content, head.rows_start, types, trailer_rows)
    positions, lengths = constant[:2] if constant else _index_rows(content, head.rows_start, types)
    found = len(positions[0]) if ncols else _count_empty_rows(content, head.rows_start)
    if found != trailer_rows:
        raise CorruptAnswer(f"trailer says {trailer_rows} rows, content has {found}")
    _check_values(content, types, positions, constant[2] if constant else 0)
    return Answer(head.kind, head.folder, head.tag, head.valid_since, head.valid_until, head.columns, found,
                  content, positions, lengths, row_size=constant[2] if constant else 0)


def _index_rows(content: bytes, pos: int, types: Sequence[ColumnType]) \
        -> tuple[list[npt.NDArray[np.int64]], list[npt.NDArray[np.int64] | None]]:
    out: list[list[int]] = [[] for _ in types]
    lens: list[list[int]] = [[] for _ in types]
    end = len(content)
    while True:
        if pos >= end:
            raise CorruptAnswer("content ends without the end marker")
        marker = content[pos]
        if marker == 0:
            break
        if marker != 1:
            raise CorruptAnswer(f"row marker {marker} at byte {pos}")
        pos = walk_row(content, pos + 1, types, out, lens)
    if pos + 1 != end:
        raise CorruptAnswer(f"{end - pos - 1} bytes after the end marker")
    return ([np.array(o, dtype=np.int64) for o in out],
            [None if t.width else np.array(n, dtype=np.int64) for t, n in zip(types, lens)])


def _index_constant_rows(content: bytes, start: int, types: Sequence[ColumnType], n: int) \
        -> tuple[list[npt.NDArray[np.int64]], list[npt.NDArray[np.int64] | None], int] | None:
    """The numpy path: if every row has the first row's size, NULLs and value lengths, index all rows at once
    (checking each row's marker, bitmap and lengths); None when they do not (then rows are walked one by one)."""
    if n < 2 or not types or start >= len(content) or content[start] != 1:
        return None
    first: list[list[int]] = [[] for _ in types]
    first_lens: list[list[int]] = [[] for _ in types]
    try:
        size = walk_row(content, start + 1, types, first, first_lens) - start
    except CorruptAnswer:
        return None
    if start + n * size + 1 != len(content) or content[-1] != 0:
        return None
    u8 = np.frombuffer(content, dtype=np.uint8, count=n * size, offset=start).reshape(n, size)
    # the bytes every row must share with the first: its marker, NULL bitmap and the lengths of its values
    nb = (len(types) + 7) // 8
    shared = list(range(1 + nb))
    for c, t in enumerate(types):
        p = first[c][0]
        if not t.width and p >= 0:
            shared += range(p - start, p - start + 4)
    picked = u8[:, shared]
    if u8[0, 0] != 1 or not (picked == picked[0]).all():
        return None
    bases = start + np.arange(n, dtype=np.int64) * size
    positions = [bases + (first[c][0] - start) if first[c][0] >= 0 else np.full(n, -1, dtype=np.int64)
                 for c in range(len(types))]
    lengths = [None if t.width else np.full(n, first_lens[c][0], dtype=np.int64) for c, t in enumerate(types)]
    return positions, lengths, size


def _count_empty_rows(content: bytes, pos: int) -> int:
    """Rows of an answer without columns (marker and an empty bitmap each)."""
    rows = 0
    while pos < len(content) and content[pos] == 1:
        rows += 1
        pos += 1
    if pos + 1 != len(content) or content[pos] != 0:
        raise CorruptAnswer("content ends without the end marker")
    return rows


def _check_values(content: bytes, types: Sequence[ColumnType], positions: list[npt.NDArray[np.int64]],
                  row_size: int) -> None:
    """Values a correct encoder never writes: a Bool other than 0/1, a negative UInt63, a string not UTF-8."""
    u8 = np.frombuffer(content, dtype=np.uint8)
    for t, pos in zip(types, positions):
        if t not in (ColumnType.Bool, ColumnType.UInt63):
            continue
        if row_size:  # constant rows: the first bytes of the column's values, one strided view
            if not len(pos) or pos[0] < 0:
                continue
            first = u8[int(pos[0])::row_size][:len(pos)]
            if first.max() > (1 if t == ColumnType.Bool else 0x7F):
                raise CorruptAnswer("a Bool value other than 0 or 1" if t == ColumnType.Bool
                                    else "a negative UInt63 value")
            continue
        valid = pos[pos >= 0]
        if t == ColumnType.Bool and valid.size and (u8[valid] > 1).any():
            raise CorruptAnswer("a Bool value other than 0 or 1")
        if t == ColumnType.UInt63 and valid.size and (u8[valid] & 0x80).any():
            raise CorruptAnswer("a negative UInt63 value")


def expect_kind(answer: Answer, kind: AnswerKind, what: str) -> Answer:
    if answer.kind != kind:
        raise OutpostError(ErrorKind.PROTOCOL, f"{what} answered a {answer.kind.json_name} answer, "
                                               f"expected {kind.json_name}")
    return answer
