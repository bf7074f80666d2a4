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


def _var_buffers(answer: Answer, i: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """Arrow-style offsets and data of a string or blob column, gathered from the content: one strided copy when
    the values have one length at evenly spaced positions (constant rows), else one join of the value slices."""
    pos, lengths = answer.positions[i], answer.lengths[i]
    assert lengths is not None
    n = len(pos)
    lengths = np.where(pos < 0, 0, lengths)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if not offsets[-1]:
        return offsets, np.zeros(0, dtype=np.uint8)
    if answer.row_size and pos[0] >= 0:  # constant rows: every value has the first one's length
        return offsets, value_bytes(answer.content, pos + 4, int(lengths[0]), answer.row_size).reshape(-1)
    content = memoryview(answer.content)
    data = b"".join([content[p + 4:p + 4 + k] for p, k in zip(pos.tolist(), lengths.tolist()) if p >= 0])
    return offsets, np.frombuffer(data, dtype=np.uint8)


def _arrow_column(answer: Answer, i: int) -> pa.Array:
    import pyarrow as pa

    t = answer.columns[i].type
    nulls = answer.nulls(i)
    mask = nulls if nulls.any() else None
    if t.width:
        return pa.array(answer.column(i), mask=mask)
    offsets, data = _var_buffers(answer, i)
    large = offsets[-1] >= 2 ** 31
    arrow_type = (pa.large_string() if large else pa.string()) if t.is_string else \
        (pa.large_binary() if large else pa.binary())
    validity = None if mask is None else pa.py_buffer(np.packbits(~nulls, bitorder="little"))
    arr = pa.Array.from_buffers(arrow_type, len(nulls), [
        validity, pa.py_buffer(offsets if large else offsets.astype(np.int32)), pa.py_buffer(data)],
        null_count=int(nulls.sum()))
    try:
        arr.validate(full=True)  # UTF-8 of every string
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
        nulls = answer.nulls(i)
        if c.type.width:
            values = answer.column(i)
            if nulls.any():  # pandas' nullable arrays take the values and the NULL mask as they are
                masked = pd.arrays.BooleanArray if c.type == ColumnType.Bool else \
                    pd.arrays.FloatingArray if values.dtype.kind == "f" else pd.arrays.IntegerArray
                values = masked(values, nulls)
            columns[c.name] = values
        elif c.type.is_string and _has_pyarrow():
            columns[c.name] = pd.arrays.ArrowStringArray(_arrow_column(answer, i))
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
