"""A plain ``pip install`` of the client (no extras) into a fresh virtual environment: it pulls neither pypac (with
requests and dukpy) nor cryptography nor isal, reads answers, and a configuration that needs a missing extra is a
configuration error naming it, from the library and from the command line. The packages come from PyPI (pip's
cache when it has them); the answers from a real HTTP server in this test serving the shared vector nodes.bin."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

import outpost
from conftest import FaultyServer, send

CLIENT = Path(__file__).resolve().parents[1]
TESTDATA = CLIENT.parent / "testdata"
NODES = (TESTDATA / "nodes.bin").read_bytes()
Start = Callable[[Callable[[BaseHTTPRequestHandler], None]], FaultyServer]

# Run by the plain environment's Python: what is installed, a read, and the two configurations needing extras.
PROBE = r"""
import importlib.metadata, json, sys
from outpost import Client, OutpostError, __version__
url, pac, key = sys.argv[1:4]
out = {"installed": sorted(d.metadata["Name"].lower() for d in importlib.metadata.distributions()),
       "version": importlib.metadata.version("outpost-client"), "__version__": __version__,
       "rows": len(Client(url).nodes().rows)}
for name, spec in [("pac", f"(serverurl={url})(proxyconfigurl={pac})"),
                   ("sig", f"(serverurl={url})(security=sig)(verifykey={key})")]:
    try:
        Client(config=spec)
        out[name] = "created"
    except OutpostError as e:
        out[name] = [e.kind.value, e.message]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh virtual environment with ``pip install outpost-client`` (from this source)."""
    work = tmp_path_factory.mktemp("plain")
    source = work / "source"  # built from a copy: no build output in the source folder
    source.mkdir()
    shutil.copy(CLIENT / "pyproject.toml", source)
    shutil.copy(CLIENT / "README.md", source)
    shutil.copytree(CLIENT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True, timeout=300)
    pip = subprocess.run([str(work / "venv" / "bin" / "pip"), "install", "-q", str(source)], capture_output=True,
                         text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr
    return work / "venv" / "bin"


def test_a_plain_install_pulls_no_optional_package_and_reads(plain: Path, faulty: Start, tmp_path: Path) -> None:
    server = faulty(lambda h: send(h, 200, NODES))
    pac = tmp_path / "direct.pac"
    pac.write_text('function FindProxyForURL(url, host) { return "DIRECT"; }\n')
    key = f"test-2026:{TESTDATA / 'signatures' / 'test-2026.pub.pem'}"
    run = subprocess.run([str(plain / "python"), "-c", PROBE, server.url, pac.as_uri(), key], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)

    installed = set(out["installed"])
    assert {"outpost-client", "zstandard", "numpy"} <= installed
    assert not installed & {"pypac", "dukpy", "requests", "cryptography", "cffi", "isal"}, installed
    # the version has one source: the installed metadata and outpost.__version__ agree, here and in this run's
    assert out["version"] == out["__version__"] == outpost.__version__

    assert out["rows"] == len(outpost.decode(NODES).rows) > 0
    assert out["pac"] == ["config", "proxy auto-config (proxyconfigurl, --proxy-config) needs the package pypac, "
                                    "which is not installed: pip install 'outpost-client[pac]'"]
    assert out["sig"] == ["config", "security=sig needs the package cryptography, which is not installed: "
                                    "pip install 'outpost-client[sig]'"]
    assert len(server.targets) == 1, "only the plain read asked the server"


def test_the_command_line_names_the_missing_extra(plain: Path, faulty: Start, tmp_path: Path) -> None:
    server = faulty(lambda h: send(h, 200, NODES))
    pac = tmp_path / "direct.pac"
    pac.write_text('function FindProxyForURL(url, host) { return "DIRECT"; }\n')
    ok = subprocess.run([str(plain / "outpost-cli"), "--server", server.url, "--format", "csv", "nodes"],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("path,folder,")
    run = subprocess.run([str(plain / "outpost-cli"), "--server", server.url, "--proxy-config", pac.as_uri(),
                          "nodes"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "pip install 'outpost-client[pac]'" in run.stderr
    assert run.stdout == ""
