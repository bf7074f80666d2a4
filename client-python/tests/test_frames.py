"""to_pandas() and to_arrow(): columns typed from the schema, the same values as the rows."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from outpost import decode

pd = pytest.importorskip("pandas", reason="the pandas extra is not installed")
pa = pytest.importorskip("pyarrow", reason="the pandas extra is not installed")

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"


def same(a: object, b: object) -> bool:
    if a is None or a is pd.NA or (isinstance(a, float) and math.isnan(a) and not isinstance(b, float)):
        return b is None or b is pd.NA or (isinstance(b, float) and math.isnan(b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def test_every_type_with_nulls() -> None:
    answer = decode((TESTDATA / "iovs_all_types.bin").read_bytes())
    frame = answer.to_pandas()
    assert list(frame.columns) == [c.name for c in answer.columns]
    assert frame["channel"].dtype == np.uint32 and frame["since"].dtype == np.int64
    assert str(frame["f_Int32"].dtype) == "Int32" and str(frame["f_Float"].dtype) == "Float32"
    assert str(frame["f_Bool"].dtype) == "boolean"
    assert frame["f_Int32"].isna().tolist() == [False, False, True]
    for r, row in enumerate(answer.rows):
        for c, value in enumerate(row):
            got = frame.iat[r, c]
            got = got.item() if hasattr(got, "item") else got
            want = float(np.float32(value)) if answer.columns[c].type.name == "Float" and value is not None else value
            assert same(want, got) or (isinstance(want, bytes) and got == want), (r, answer.columns[c].name)
    table = answer.to_arrow()
    assert table.schema.field("f_String255").type == pa.string()
    assert table.schema.field("f_Blob64k").type == pa.binary()
    assert table.column("f_String4k").to_pylist() == answer.values("f_String4k")
    assert table.column("f_Blob16M").to_pylist() == answer.values("f_Blob16M")
    assert table.column("f_Int64").to_pylist() == answer.values("f_Int64")


def test_constant_rows_and_time_columns() -> None:
    answer = decode((TESTDATA / "iovs_likeluis_2000.bin").read_bytes())
    frame = answer.to_pandas(datetimes=True)
    assert len(frame) == 2000 and frame["s"].tolist() == answer.values("s")
    assert str(frame["since"].dtype) == "datetime64[ns, UTC]"
    assert frame["since"].iloc[0] == pd.Timestamp(answer.values("since")[0], unit="ns", tz="UTC")
    assert answer.to_arrow().column("channel").to_pylist() == answer.values("channel")
