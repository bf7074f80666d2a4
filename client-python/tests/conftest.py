"""Shared fixtures: the service under test (OUTPOST_TEST_SERVER, started by ./outpost test on the demo database)
and a real Squid in front of it (squid-config/run-squid.sh), both on 127.0.0.1 only."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def server() -> str:
    url = os.environ.get("OUTPOST_TEST_SERVER", "")
    if not url.startswith("http://127.0.0.1:"):
        pytest.skip("needs OUTPOST_TEST_SERVER=http://127.0.0.1:PORT, a service on the demo database "
                    "(./outpost test starts one)")
    return url


@pytest.fixture(scope="session")
def squid(server: str) -> Iterator[tuple[str, Path]]:
    """(proxy URL, access log) of a Squid started for this test run in front of ``server``."""
    if shutil.which("squid") is None:
        pytest.skip("squid is not installed (./outpost test installs it)")
    work = Path(tempfile.mkdtemp(prefix="squid-"))
    work.chmod(0o755)  # squid runs as its own user when started by root
    port = free_port()
    script = str(REPO / "squid-config" / "run-squid.sh")
    try:
        subprocess.run(["bash", script, "start", "--dir", str(work), "--port", str(port), "--outpost", server],
                       check=True, capture_output=True, timeout=120)
        yield f"http://127.0.0.1:{port}", work / "logs" / "access.log"
    finally:
        subprocess.run(["bash", script, "stop", "--dir", str(work)], capture_output=True, timeout=120)
        shutil.rmtree(work, ignore_errors=True)
