"""The shared signed-answer vectors (testdata/signatures/cases.json): the Python verifier reaches every verdict the
Java and C++ verifiers reach and the service's signer is checked against."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from outpost.signature import AnswerVerifier, Hop, Verdict

VECTORS = Path(__file__).resolve().parents[2] / "testdata" / "signatures"
CASES: list[dict[str, Any]] = json.loads((VECTORS / "cases.json").read_text())["cases"]


def verdict(case: dict[str, Any], accept_sig1: bool = False) -> Verdict:
    verifier = AnswerVerifier([f"test-2026:{VECTORS / 'test-2026.pub.pem'}"], accept_sig1, now=lambda: case["now"])
    body = base64.b64decode(case["body_base64"])
    hop = Hop(case["target"], case["status"], case["location"], case["etag"], hashlib.sha256(body).hexdigest())
    return verifier.check(hop, case["header"])[0]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_verdict(case: dict[str, Any]) -> None:
    assert verdict(case).value == case["verdict"]


def test_every_verdict_is_reached() -> None:
    assert {verdict(c).value for c in CASES} == {v.value for v in Verdict}


def test_outpost_sig_1_verifies_where_accepted() -> None:
    sig1 = [c for c in CASES if c["verdict"] == "sig1-refused"]
    assert sig1 and all(verdict(c, accept_sig1=True) == Verdict.OK for c in sig1)
    # acceptsig1 changes nothing else
    assert all(verdict(c, accept_sig1=True).value == c["verdict"] for c in CASES if c not in sig1)


def test_one_second_after_its_expiry_a_signature_is_expired() -> None:
    case = next(c for c in CASES if c["name"] == "expires-now")
    assert verdict({**case, "now": case["now"] + 1}) == Verdict.EXPIRED
