"""One rule for keys as text (docs/cli.md, "Times"), and the offline form the tool refuses as the others do."""

from __future__ import annotations

import io

import pytest

from outpost.cli.main import EXIT_USAGE, main
from outpost.cli.times import KeyForm, parse_key


def test_a_bare_number_is_no_run_lumi_key() -> None:
    with pytest.raises(ValueError) as e:
        parse_key("320").in_folder(run_lumi=True)
    assert str(e.value) == ("'320' is not a run-lumi key: write RUN/LUMI, e.g. 320/0 for run 320, lumi 0;"
                            " a raw key is written raw:320")
    with pytest.raises(ValueError, match=r"\(302/150 is the raw key 1297080123542\); a raw key is written "
                                         r"raw:1297080123542"):
        parse_key("1297080123542").in_folder(run_lumi=True)
    assert parse_key("320").in_folder(run_lumi=False) == 320


def test_each_form_is_read_in_the_folders_it_fits() -> None:
    assert parse_key("raw:320").in_folder(run_lumi=True) == 320
    assert parse_key("raw:320").form == KeyForm.ANY
    assert parse_key("302/150").in_folder(run_lumi=True) == (302 << 32) | 150
    with pytest.raises(ValueError, match="is RUN/LUMI, not a time"):
        parse_key("302/150").in_folder(run_lumi=False)
    with pytest.raises(ValueError, match="is a date, not a run-lumi key"):
        parse_key("2026-01-01").in_folder(run_lumi=True)
    assert parse_key("min").in_folder(run_lumi=True) == 0
    for bad in ("raw:", "raw:-1", "raw:x", "raw:9223372036854775808", "RAW:5"):
        with pytest.raises(ValueError):
            parse_key(bad)


@pytest.mark.parametrize("args", [["--server", "sqlite:outpost-demo.db", "nodes"],
                                  ["--config", "(serverurl=sqlite:/tmp/outpost-snapshot.db)", "globaltags"]])
def test_a_snapshot_file_is_refused_with_the_java_tools_advice(args: list[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(args, out, err, {}) == EXIT_USAGE
    assert "to query a snapshot file, serve it (./outpost start --snapshot FILE" in err.getvalue()
    assert out.getvalue() == ""


def test_an_environment_naming_a_snapshot_file_is_refused_alike() -> None:
    err = io.StringIO()
    assert main(["nodes"], io.StringIO(), err, {"OUTPOST_SERVER": "sqlite:outpost-demo.db"}) == EXIT_USAGE
    assert "serve it" in err.getvalue()
