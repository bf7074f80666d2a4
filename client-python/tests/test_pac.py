"""Proxy auto-config (docs/client-failover.md, "Proxy auto-config"): the shared cases testdata/pac/cases.txt, reading
from file:// and a real HTTP server, and the routes a PAC answer gives (checked on the event log, dead endpoints on
127.0.0.1 only)."""

from __future__ import annotations

import io
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from conftest import FaultyServer, free_port, send
from outpost import Client, Config, ErrorKind, Event, OutpostError
from outpost.cli.main import main
from outpost.pac import REFRESH_SECONDS, ProxyAutoConfig

PAC = Path(__file__).resolve().parents[2] / "testdata" / "pac"
Start = Callable[[Callable[[BaseHTTPRequestHandler], None]], FaultyServer]


def shared_cases() -> list[tuple[str, str, str]]:
    cases = []
    for line in (PAC / "cases.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            left, expected = line.split("=>")
            pac_file, server = left.split()
            cases.append((pac_file, server, expected.strip()))
    return cases


@pytest.mark.parametrize(("pac_file", "server", "expected"), shared_cases())
def test_the_shared_cases(pac_file: str, server: str, expected: str) -> None:
    url = (PAC / pac_file).as_uri()
    try:
        answer = ProxyAutoConfig([url], 2, 2).for_server(server)
    except OutpostError as e:
        assert expected == "error", e.message
        assert e.kind == ErrorKind.CONFIG and url in e.message
        return
    got = [f"PROXY {p.removeprefix('http://')}" for p in answer.proxies] + (["DIRECT"] if answer.direct else [])
    assert "; ".join(got) == expected


def pac_text(answer: str) -> str:
    return f'function FindProxyForURL(url, host) {{ return "{answer}"; }}\n'


def test_unreadable_files_are_skipped_and_none_readable_is_an_error_naming_each(tmp_path: Path,
                                                                               faulty: Start) -> None:
    missing = (tmp_path / "missing.pac").as_uri()
    not_there = faulty(lambda h: send(h, 404, b"no"))
    good = faulty(lambda h: send(h, 200, pac_text("PROXY 127.0.0.1:3128").encode()))
    pac = ProxyAutoConfig([missing, not_there.url + "/wpad.dat", good.url + "/proxy.pac"], 2, 2)
    assert pac.source == good.url + "/proxy.pac"
    assert pac.for_server("http://127.0.0.1:8000").proxies == ("http://127.0.0.1:3128",)
    with pytest.raises(OutpostError) as e:
        ProxyAutoConfig([missing, not_there.url + "/wpad.dat"], 2, 2)
    assert e.value.kind == ErrorKind.CONFIG
    assert missing in e.value.message and f"{not_there.url}/wpad.dat (HTTP 404)" in e.value.message


def test_the_answer_is_read_again_after_five_minutes_and_kept_when_that_fails(tmp_path: Path) -> None:
    file = tmp_path / "site.pac"
    file.write_text(pac_text("PROXY 127.0.0.1:3128"))
    now = [0.0]
    warnings: list[str] = []
    pac = ProxyAutoConfig([file.as_uri()], 2, 2, clock=lambda: now[0], warn=warnings.append)
    assert pac.for_server("http://127.0.0.1:8000").proxies == ("http://127.0.0.1:3128",)
    file.write_text(pac_text("PROXY 127.0.0.1:3129"))
    assert pac.for_server("http://127.0.0.1:8000").proxies == ("http://127.0.0.1:3128",)  # cached
    now[0] = REFRESH_SECONDS
    assert pac.for_server("http://127.0.0.1:8000").proxies == ("http://127.0.0.1:3129",)
    file.unlink()
    now[0] = 2 * REFRESH_SECONDS
    assert pac.for_server("http://127.0.0.1:8000").proxies == ("http://127.0.0.1:3129",)
    assert len(warnings) == 1 and file.as_uri() in warnings[0]


def dead() -> str:
    return f"http://127.0.0.1:{free_port()}"


def attempts(cfg: Config) -> list[tuple[str, str]]:
    log: list[Event] = []
    with Client(config=cfg, on_event=log.append, sleep=lambda s: None) as c:
        with pytest.raises(OutpostError):
            c.nodes()
    return [(e.proxy, e.server) for e in log if e.kind == "attempt"]


def test_pac_proxies_come_first_per_server_then_configured_ones_then_direct(tmp_path: Path) -> None:
    # answers are kept per server host: the second server is named localhost
    s1, s2, p1, p2, configured = dead(), dead().replace("127.0.0.1", "localhost"), dead(), dead(), dead()
    file = tmp_path / "site.pac"
    # s1 through p1 then p2, s2 through p2 only; DIRECT keeps s2's direct route though failovertoserver=no
    file.write_text("function FindProxyForURL(url, host) {\n"
                    f'  if (host == "127.0.0.1") return "PROXY {p1.removeprefix("http://")}; '
                    f'HTTP {p2.removeprefix("http://")}";\n'
                    f'  return "PROXY {p2.removeprefix("http://")}; DIRECT";\n}}\n')
    cfg = Config.parse(f"(serverurl={s1})(serverurl={s2})(proxyconfigurl={file.as_uri()})(proxyurl={configured})"
                       "(failovertoserver=no)(retries=0)(connecttimeout=2)(loadbalance=proxies)")
    # a proxy that cannot be reached is skipped with all its servers
    assert attempts(cfg) == [(p1, s1), (p2, s1), (configured, s1), ("", s2)]
    with Client(config=cfg) as c:
        assert c.config.load_balance == "none" and any("loadbalance=proxies" in w for w in c.config.warnings)


def test_direct_alone_goes_straight_to_the_server(tmp_path: Path) -> None:
    s = dead()
    file = tmp_path / "direct.pac"
    file.write_text(pac_text("DIRECT"))
    assert attempts(Config.parse(f"(serverurl={s})(proxyconfigurl={file.as_uri()})(retries=0)")) == [("", s)]


def test_the_command_line_takes_proxy_config_and_refuses_an_unreadable_one(tmp_path: Path) -> None:
    file = tmp_path / "direct.pac"
    file.write_text(pac_text("DIRECT"))
    server = dead()
    out, err = io.StringIO(), io.StringIO()
    env = {"FRONTIER_PROXYCONFIGS": (tmp_path / "missing.pac").as_uri()}
    assert main(["nodes", "--server", server, "--retries", "0"], out, err, env) == 2
    assert (tmp_path / "missing.pac").as_uri() in err.getvalue()
    err = io.StringIO()
    assert main(["nodes", "--server", server, "--retries", "0", "--proxy-config", file.as_uri(), "-v"],
                out, err, env) == 5  # --proxy-config replaces the environment's, and the PAC says DIRECT
    assert f"attempt {server}/v1/bin/nodes\n" in err.getvalue() and " via " not in err.getvalue()
