"""Answers as data frames (the ``pandas`` extra): ``to_pandas`` and ``to_arrow``, columns typed from the answer's
schema and built from the answer's bytes with numpy and Arrow, without a Python object per value (except blobs
in pandas, which are Python bytes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .errors import CorruptAnswer
from .wire import Answer, ColumnType, value_bytes

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


def _var_buffers(answer: Answer, i: int, large: bool) \
        -> tuple[npt.NDArray[np.int64] | npt.NDArray[np.int32], npt.NDArray[np.uint8]]:
    """Arrow-style offsets (int64 when ``large``, else int32) and data of a string or blob column, gathered from the
    content: with constant rows (every value of the first one's length, evenly spaced) the offsets are a range and
    the data one strided copy; otherwise one join of the value slices."""
    pos, lengths = answer.positions[i], answer.lengths[i]
    assert lengths is not None
    n = len(pos)
    offset_type = np.int64 if large else np.int32
    if answer.row_size:  # the same NULLs and lengths in every row
        width = 0 if not n or pos[0] < 0 else int(lengths[0])
        offsets: npt.NDArray[Any] = np.arange(n + 1, dtype=offset_type)
        offsets *= width
        if not width:
            return offsets, np.zeros(0, dtype=np.uint8)
        return offsets, value_bytes(answer.content, pos + 4, width, answer.row_size).reshape(-1)
    lengths = np.where(pos < 0, 0, lengths)
    ends = np.cumsum(lengths)
    offsets = np.zeros(n + 1, dtype=offset_type)
    offsets[1:] = ends
    content = memoryview(answer.content)
    data = b"".join([content[p + 4:p + 4 + k] for p, k in zip(pos.tolist(), lengths.tolist()) if p >= 0])
    return offsets, np.frombuffer(data, dtype=np.uint8)


def _var_width_total(answer: Answer, i: int) -> int:
    """The bytes of all values of a string or blob column (to choose 32- or 64-bit Arrow offsets)."""
    pos, lengths = answer.positions[i], answer.lengths[i]
    assert lengths is not None
    if answer.row_size:
        return 0 if not len(pos) or pos[0] < 0 else len(pos) * int(lengths[0])
    return int(lengths[pos >= 0].sum())


def _arrow_column(answer: Answer, i: int, *, large: bool = False) -> pa.Array:
    """One column as an Arrow array over buffers built with numpy. Strings and blobs are large_string/large_binary
    when ``large`` (what pandas keeps) or when they need 64-bit offsets, else string/binary."""
    import pyarrow as pa

    t = answer.columns[i].type
    has_nulls = answer.has_nulls(i)
    nulls = answer.nulls(i) if has_nulls else None
    if t.width:
        return pa.array(answer.column(i), mask=nulls)
    large = large or _var_width_total(answer, i) >= 2 ** 31
    offsets, data = _var_buffers(answer, i, large)
    arrow_type = (pa.large_string() if large else pa.string()) if t.is_string else \
        (pa.large_binary() if large else pa.binary())
    n = len(answer.positions[i])
    validity = None if nulls is None else pa.py_buffer(np.packbits(~nulls, bitorder="little"))
    arr = pa.Array.from_buffers(arrow_type, n, [validity, pa.py_buffer(offsets), pa.py_buffer(data)],
                                null_count=0 if nulls is None else int(nulls.sum()))
    # Every string must be UTF-8: all-ASCII data (one vectorised pass) is, anything else gets Arrow's full check.
    if t.is_string and data.size and data.max() >= 0x80:
        try:
            arr.validate(full=True)
        except pa.ArrowInvalid as e:
            raise CorruptAnswer(f"column '{answer.columns[i].name}': {e}") from None
    return arr


def to_arrow(answer: Answer) -> pa.Table:
    """A pyarrow Table with one column per answer column (UInt63 as int64, Float as float32, NULL as null)."""
    import pyarrow as pa

    return pa.table({c.name: _arrow_column(answer, i) for i, c in enumerate(answer.columns)})


def to_pandas(answer: Answer, *, datetimes: bool = False) -> pd.DataFrame:
    """A pandas DataFrame typed from the schema: numpy integer/float/bool columns (pandas' nullable types where a
    column holds NULLs), Arrow-backed strings when pyarrow is installed, bytes for blobs. ``datetimes=True`` makes
    ``since``/``until`` of an iovs answer UTC datetimes (for time folders; keys are ns since 1970)."""
    import pandas as pd

    columns: dict[str, Any] = {}
    for i, c in enumerate(answer.columns):
        if c.type.width:
            values = answer.column(i)
            if answer.has_nulls(i):  # pandas' nullable arrays take the values and the NULL mask as they are
                masked = pd.arrays.BooleanArray if c.type == ColumnType.Bool else \
                    pd.arrays.FloatingArray if values.dtype.kind == "f" else pd.arrays.IntegerArray
                values = masked(values, answer.nulls(i))
            columns[c.name] = values
        elif c.type.is_string and _has_pyarrow():  # large_string: the Arrow type pandas keeps, so not cast again
            columns[c.name] = pd.arrays.ArrowStringArray(_arrow_column(answer, i, large=True))
        else:
            columns[c.name] = pd.array(answer.column(i), dtype=object)
    frame = pd.DataFrame(columns, copy=False)
    if datetimes and answer.columns[1:3] and all(col.type == ColumnType.UInt63 for col in answer.columns[1:3]):
        for name in (answer.columns[1].name, answer.columns[2].name):
            frame[name] = pd.to_datetime(frame[name], unit="ns", utc=True)
    return frame


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True
