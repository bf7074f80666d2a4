"""Signed answers (security=sig): test servers that sign their answers with a key generated here (as the service
does, docs/client-failover.md "Signed answers"), and routes that change, drop or misattribute the signature. An
answer that is not signed as it must be is a failed route: the client moves on and never returns its data."""

from __future__ import annotations

import base64
import hashlib
import os
import struct
import urllib.parse
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from conftest import FaultyServer, send, squid_log
from outpost import Client, Config, ErrorKind, Event, OutpostError, decode
from outpost.cli.main import exit_code
from outpost.signature import key_spec

TESTDATA = Path(__file__).resolve().parents[2] / "testdata"
ANSWER = (TESTDATA / "iovs_all_types_uncompressed.bin").read_bytes()
PATH = "/v1/bin/nodes"
Start = Callable[[Callable[[BaseHTTPRequestHandler], None]], FaultyServer]


class Signer:
    def __init__(self, key_id: str) -> None:
        self.key_id = key_id
        self.key = Ed25519PrivateKey.generate()

    def write_public(self, folder: Path) -> Path:
        file = folder / f"{self.key_id}.pub"
        file.write_bytes(self.key.public_key().public_bytes(serialization.Encoding.PEM,
                                                            serialization.PublicFormat.SubjectPublicKeyInfo))
        return file

    def header(self, target: str, body: bytes) -> str:
        message = f"outpost-sig-1\n{target}\n{hashlib.sha256(body).hexdigest()}".encode()
        return f"ed25519 {self.key_id} {base64.b64encode(self.key.sign(message)).decode()}"


def origin_form(handler: BaseHTTPRequestHandler) -> str:
    """The target as the client sent it, in origin form (a proxy receives the absolute URL)."""
    t = urllib.parse.urlsplit(handler.path)
    return t.path + (f"?{t.query}" if t.query else "")


def signed(signer: Signer, body: bytes = ANSWER, signed_body: bytes | None = None,
           target: Callable[[BaseHTTPRequestHandler], str] = origin_form) -> Callable[[BaseHTTPRequestHandler], None]:
    """Answers ``body`` with the signature of ``signed_body`` (default: the body) for ``target``."""
    def answer(h: BaseHTTPRequestHandler) -> None:
        send(h, 200, body, {"Cache-Control": "public, max-age=60",
                            "X-Outpost-Signature": signer.header(target(h), body if signed_body is None
                                                                 else signed_body)})
    return answer


def tampered(document: bytes) -> bytes:
    """The document with one value changed and its CRC-32 fixed: every check of the format passes, only the
    signature can tell (codec 0, so the content is the body)."""
    answer = decode(document)
    content = bytearray(answer.content)
    content[int(answer.positions[0][0]) + 3] ^= 0x01  # channel of the first row
    return document[:16] + bytes(content) + struct.pack(">QI", len(answer), zlib.crc32(content)) + b"PTUO"


def same_rows(rows: list[tuple[object, ...]]) -> bool:
    """The rows of ANSWER (compared as text: a NaN is not equal to itself)."""
    return repr(rows) == repr(decode(ANSWER).rows)


@pytest.fixture
def keys(tmp_path: Path) -> tuple[Signer, Path]:
    signer = Signer("site-2026")
    return signer, signer.write_public(tmp_path)


def sig_client(servers: list[str], key_file: Path, log: list[Event], extra: str = "") -> Client:
    spec = "".join(f"(serverurl={s})" for s in servers) + f"(security=sig)(verifykey={key_file})(retries=0){extra}"
    return Client(config=spec, on_event=log.append)


def test_a_signed_answer_is_accepted(faulty: Start, keys: tuple[Signer, Path]) -> None:
    signer, key_file = keys
    good = faulty(signed(signer))
    log: list[Event] = []
    with sig_client([good.url], key_file, log) as c:
        assert same_rows(c.get(PATH).rows)
    assert [e.kind for e in log] == ["attempt", "success"]


@pytest.mark.parametrize("route", ["byte flipped, CRC fixed", "byte flipped", "no signature", "unknown key id",
                                   "another key, same id", "another URL's signature", "not base64"])
def test_an_answer_not_signed_as_it_must_be_fails_over_to_the_next_server(
        faulty: Start, keys: tuple[Signer, Path], route: str) -> None:
    signer, key_file = keys
    flipped = bytearray(ANSWER)
    flipped[40] ^= 0xFF
    answers: dict[str, Callable[[BaseHTTPRequestHandler], None]] = {
        "byte flipped, CRC fixed": signed(signer, tampered(ANSWER), signed_body=ANSWER),
        "byte flipped": signed(signer, bytes(flipped), signed_body=ANSWER),
        "no signature": lambda h: send(h, 200, ANSWER),
        "unknown key id": signed(Signer("elsewhere")),
        "another key, same id": signed(Signer(signer.key_id)),
        "another URL's signature": signed(signer, target=lambda h: "/v1/bin/channels/DEMO/DCS/HV"),
        "not base64": lambda h: send(h, 200, ANSWER, {"X-Outpost-Signature": "ed25519 site-2026 !!!"}),
    }
    bad, good = faulty(answers[route]), faulty(signed(signer))
    log: list[Event] = []
    with sig_client([bad.url, good.url], key_file, log) as c:
        answer = c.get(PATH)
    assert same_rows(answer.rows)
    assert [(e.kind, e.server) for e in log] == [("attempt", bad.url), ("unsigned", bad.url),
                                                 ("attempt", good.url), ("success", good.url)]
    assert "unsigned answer" in log[1].detail and len(bad.requests) == 1  # no refresh: a signature is not a copy


def test_unsigned_answers_everywhere_are_refused(faulty: Start, keys: tuple[Signer, Path]) -> None:
    signer, key_file = keys
    bad = faulty(lambda h: send(h, 200, ANSWER))
    with sig_client([bad.url], key_file, []) as c:
        with pytest.raises(OutpostError) as e:
            c.get(PATH)
    assert e.value.kind == ErrorKind.UNAVAILABLE and [a.kind for a in e.value.attempts] == [ErrorKind.UNSIGNED]
    assert exit_code(e.value) == 6  # as corrupt answers everywhere


def test_the_signature_binds_the_final_url_after_a_redirect(faulty: Start, keys: tuple[Signer, Path]) -> None:
    signer, key_file = keys
    answer = signed(signer)

    def moved(h: BaseHTTPRequestHandler) -> None:
        if h.path == "/v1/bin/old/nodes":
            send(h, 301, b"", {"Location": PATH})
        else:
            answer(h)

    s = faulty(moved)
    with sig_client([s.url], key_file, []) as c:
        assert len(c.get("/v1/bin/old/nodes")) == len(decode(ANSWER))
    assert s.targets == ["/v1/bin/old/nodes", PATH]


def test_through_a_proxy_the_origin_form_is_signed(faulty: Start, keys: tuple[Signer, Path]) -> None:
    signer, key_file = keys
    proxy = faulty(signed(signer))
    with sig_client(["http://conditions.example:8000"], key_file, [],
                    f"(proxyurl={proxy.url})(failovertoserver=no)") as c:
        assert len(c.get(PATH)) == len(decode(ANSWER))
    assert proxy.targets == ["http://conditions.example:8000" + PATH]


def test_a_streamed_browse_is_verified_before_its_first_row(faulty: Start, keys: tuple[Signer, Path]) -> None:
    signer, key_file = keys
    bad, good = faulty(lambda h: send(h, 200, ANSWER)), faulty(signed(signer))
    log: list[Event] = []
    with sig_client([bad.url, good.url], key_file, log) as c:
        with c.browse_stream("/T/all") as stream:
            assert same_rows(list(stream))
    assert [e.kind for e in log] == ["attempt", "unsigned", "attempt", "success"]


def test_verify_keys_in_the_configuration(tmp_path: Path, keys: tuple[Signer, Path]) -> None:
    _, key_file = keys
    assert key_spec(str(key_file)) == ("site-2026", str(key_file))
    assert key_spec(f"rotated:{key_file}") == ("rotated", str(key_file))
    assert Config.parse(f"(serverurl=a)(security=sig)(verifykey={key_file})").verify_keys == [str(key_file)]
    Client(config=f"(serverurl=a)(security=sig)(verifykey={key_file})(verifykey=next:{key_file})").close()
    ec_file = tmp_path / "ec.pub"
    ec_file.write_bytes(ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    junk = tmp_path / "junk.pub"
    junk.write_text("not a key")
    for spec, says in (("(security=sig)", "needs at least one verifykey"), ("(security=maybe)", "sig or none"),
                       (f"(security=sig)(verifykey={ec_file})", "not an Ed25519 public key"),
                       (f"(security=sig)(verifykey={junk})", "not a PEM public key"),
                       (f"(security=sig)(verifykey={tmp_path / 'missing.pub'})", "cannot read"),
                       (f"(security=sig)(verifykey={key_file})(verifykey={key_file})", "given twice")):
        with pytest.raises(OutpostError) as e:
            Client(config="(serverurl=a)" + spec)
        assert e.value.kind == ErrorKind.CONFIG and says in e.value.message, spec
    unverified = Config.parse(f"(serverurl=a)(verifykey={key_file})")
    unverified.validate()
    assert unverified.warnings == ["verifykey is ignored without security=sig: answers are not verified"]


def test_the_real_service_signs_and_the_client_verifies_directly_and_through_squid(
        server: str, squid: tuple[str, Path]) -> None:
    key = os.environ.get("OUTPOST_TEST_VERIFYKEY", "")
    if not key:
        pytest.skip("needs OUTPOST_TEST_VERIFYKEY=KEYID:FILE, the public key of the service's signing key "
                    "(./outpost test starts the service with one)")
    proxy, access_log = squid
    rows = []
    # directly, then through Squid until it answers from its cache (the header kept with the answer): Squid may
    # still be storing the first copy when the second read arrives, so a few reads rather than exactly two
    routes: list[list[str]] = [[]] + [[proxy]] * 5
    for proxies in routes:
        cfg = Config(servers=[server], proxies=proxies, signed_answers=True, verify_keys=[key])
        with Client(config=cfg) as c:
            rows.append(c.browse("/DEMO/Calo/Gains").rows)
    assert len(rows[0]) > 0 and all(r == rows[0] for r in rows)
    assert any("HIT/200" in line and "/Calo/Gains" in line
               for line in squid_log(access_log, lambda ls: any("HIT/200" in x and "/Calo/Gains" in x for x in ls)))
