"""The shared command-line table (testdata/cli/cases.txt, docs/cli.md) against outpost-cli and a real service."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from outpost.cli.main import main

CASES = Path(__file__).resolve().parents[2] / "testdata" / "cli" / "cases.txt"


@dataclass
class Case:
    line: int
    args: list[str]
    expected: list[str] = field(default_factory=list)
    contains: list[str] = field(default_factory=list)
    any_output: bool = False
    exit: int = 0


def load_cases() -> list[Case]:
    cases: list[Case] = []
    current: Case | None = None
    for n, line in enumerate(CASES.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("$ "):
            current = Case(n, line[2:].split())
        elif current is None:
            continue
        elif line == ">*":
            current.any_output = True
        elif line.startswith(">"):
            current.expected.append(line[2:])
        elif line.startswith("~ "):
            current.contains.append(line[2:])
        elif line.startswith("exit "):
            current.exit = int(line[5:])
            cases.append(current)
            current = None
    return cases


ALL_CASES = load_cases()


def test_the_table_has_cases() -> None:
    assert len(ALL_CASES) > 30


def cli_command() -> list[str]:
    installed = shutil.which("outpost-cli", path=str(Path(sys.executable).parent))
    return [installed] if installed else [sys.executable, "-m", "outpost.cli.main"]


def environment(server: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OUTPOST_", "FRONTIER_"))}
    env["OUTPOST_SERVER"] = server
    return env


def check(case: Case, code: int, stdout: str, stderr: str) -> None:
    where = f"line {case.line}: outpost-cli {' '.join(case.args)}\nstderr: {stderr[-2000:]}"
    assert code == case.exit, where
    if not case.any_output and not case.contains:
        assert stdout.splitlines() == case.expected, where
        assert stdout == "".join(e + "\n" for e in case.expected), where
    for text in case.contains:
        assert text in stdout, where


@pytest.mark.parametrize("case", ALL_CASES, ids=[f"line{c.line}" for c in ALL_CASES])
def test_case(case: Case, server: str) -> None:
    """In-process (one interpreter start for the whole table)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(case.args, out, err, environment(server))
    check(case, code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("line", [c.line for c in ALL_CASES if c.args[:1] in (["browse"], ["find"], ["nodes"])][:4]
                         + [c.line for c in ALL_CASES if c.exit in (2, 3, 5)][:3])
def test_installed_console_script(line: int, server: str) -> None:
    """The installed ``outpost-cli`` itself, on a few cases of each kind of outcome."""
    case = next(c for c in ALL_CASES if c.line == line)
    done = subprocess.run(cli_command() + case.args, capture_output=True, text=True, env=environment(server),
                          timeout=120)
    check(case, done.returncode, done.stdout, done.stderr)
