"""The shared configuration vectors (testdata/config/cases.json): every configuration string and environment gives
the normalised configuration, or the kind of error, that the Java and C++ clients reach too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from outpost.config import Config
from outpost.errors import ErrorKind, OutpostError

VECTORS = Path(__file__).resolve().parents[2] / "testdata" / "config" / "cases.json"
DOC: dict[str, Any] = json.loads(VECTORS.read_text())
CASES: list[dict[str, Any]] = DOC["cases"]


def normalised(c: Config) -> dict[str, Any]:
    """The configuration in the vectors' terms (testdata/config/README.md)."""
    return {
        "servers": c.servers,
        "proxies": c.proxies,
        "backup_proxies": c.backup_proxies,
        "proxy_config_urls": c.proxy_configs,
        "failover_to_server": c.failover_to_server,
        "load_balance": c.load_balance,
        "retries": c.retries,
        "connect_timeout_ms": round(c.connect_timeout * 1000),
        "read_timeout_ms": round(c.read_timeout * 1000),
        "write_timeout_ms": round(c.write_timeout * 1000),
        "attempt_timeout_ms": round(c.attempt_timeout * 1000),
        "backoff_ms": round(c.backoff * 1000),
        "max_backoff_ms": round(c.max_backoff * 1000),
        "cache_window_secs": c.time_window.length // 1_000_000_000,
        "cache_align": c.time_window.divisions,
        "cache_max_bytes": c.cache_max_bytes,
        "client_id": c.client_id or None,
        "force_reload": c.force_reload,
        "max_age_secs": c.max_age_secs,
        "fresh_key": c.fresh_key,
        "logical_server": c.logical_server,
        "prefer_ip_family": c.prefer_ip_family,
        "security": "sig" if c.signed_answers else "none",
        "verify_keys": [list(k.split(":", 1)) for k in c.verify_keys],
        "accept_sig1": c.accept_sig1,
        "max_answer_bytes": c.max_answer_bytes,
        "warnings": c.warnings,
    }


def configured(case: dict[str, Any]) -> Config:
    c = Config.parse(case["config"]) if "config" in case else Config.from_environment(case["env"])
    c.validate()  # as a client being created does
    return c


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_case(case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(OutpostError) as e:
            configured(case)
        assert e.value.kind == ErrorKind.CONFIG
        message = e.value.message.lower()
        assert DOC["error_kinds"][case["error"]["kind"]].lower() in message
        if case["error"]["key"]:
            assert case["error"]["key"] in message
    else:
        assert normalised(configured(case)) == {**DOC["defaults"], **case["expect"]}


def test_the_cases_reach_every_error_kind_and_warning() -> None:
    assert {c["error"]["kind"] for c in CASES if "error" in c} == set(DOC["error_kinds"])
    assert any(c["expect"]["warnings"] for c in CASES if "expect" in c)
    assert any("env" in c for c in CASES) and len(CASES) >= 100
