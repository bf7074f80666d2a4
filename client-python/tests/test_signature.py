"""Signed answers (security=sig): test servers that sign their answers with a key generated here (as the service
does, docs/client-failover.md "Signed answers"), and routes that change, drop or misattribute the signature. An
answer that is not signed as it must be is a failed route: the client moves on and never returns its data."""

from __future__ import annotations

import base64
import hashlib
import os
import struct
import time
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

    def header(self, target: str, body: bytes, status: int = 200, location: str = "", etag: str = "",
               expires: int | None = None) -> str:
        """outpost-sig-2, as the service signs (testdata/signatures/README.md)."""
        expires = int(time.time()) + 360 if expires is None else expires
        message = "\n".join(["outpost-sig-2", "GET", target, str(status), location, etag, str(expires),
                             hashlib.sha256(body).hexdigest()]).encode()
        return f"outpost-sig-2 ed25519 {self.key_id} {expires} {base64.b64encode(self.key.sign(message)).decode()}"

    def v1_header(self, target: str, body: bytes) -> str:
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
    spec = "".join(f"(serverurl={s})" for s in servers)
    spec += f"(security=sig)(verifykey=site-2026:{key_file})(retries=0){extra}"
    return Client(config=spec, on_event=log.append)


def test_a_signed_answer_is_accepted(faulty: Start, keys: tuple[Signer, Path]) -> None:
    signer, key_file = keys
    good = faulty(signed(signer))
    log: list[Event] = []
    with sig_client([good.url], key_file, log) as c:
        assert same_rows(c.get(PATH).rows)
    assert [e.kind for e in log] == ["attempt", "success"]


@pytest.mark.parametrize("route", ["byte flipped, CRC fixed", "byte flipped", "no signature", "unknown key id",
                                   "another key, same id", "another URL's signature", "not base64", "expired",
                                   "another ETag", "outpost-sig-1"])
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
        "not base64": lambda h: send(h, 200, ANSWER, {"X-Outpost-Signature": "outpost-sig-2 ed25519 site-2026 "
                                                                             f"{int(time.time()) + 60} !!!"}),
        "expired": lambda h: send(h, 200, ANSWER, {"X-Outpost-Signature": signer.header(
            origin_form(h), ANSWER, expires=int(time.time()) - 1)}),
        "another ETag": lambda h: send(h, 200, ANSWER, {"ETag": '"g2"', "X-Outpost-Signature": signer.header(
            origin_form(h), ANSWER, etag='"g1"')}),
        "outpost-sig-1": lambda h: send(h, 200, ANSWER, {"X-Outpost-Signature": signer.v1_header(origin_form(h),
                                                                                                 ANSWER)}),
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


def test_an_outpost_sig_1_answer_is_accepted_only_where_configured(faulty: Start, keys: tuple[Signer, Path]) -> None:
    signer, key_file = keys
    old = faulty(lambda h: send(h, 200, ANSWER, {"X-Outpost-Signature": signer.v1_header(origin_form(h), ANSWER)}))
    log: list[Event] = []
    with sig_client([old.url], key_file, log, "(acceptsig1=yes)") as c:
        assert same_rows(c.get(PATH).rows)
    with sig_client([old.url], key_file, log) as c, pytest.raises(OutpostError) as e:
        c.get(PATH)
    assert "acceptsig1=yes" in e.value.attempts[0].message


def test_an_expired_signature_says_so(faulty: Start, keys: tuple[Signer, Path]) -> None:
    signer, key_file = keys
    old = faulty(lambda h: send(h, 200, ANSWER, {"X-Outpost-Signature": signer.header(
        origin_form(h), ANSWER, expires=int(time.time()) - 600)}))
    with sig_client([old.url], key_file, []) as c, pytest.raises(OutpostError) as e:
        c.get(PATH)
    assert e.value.attempts[0].kind == ErrorKind.UNSIGNED and "expired" in e.value.attempts[0].message
    assert exit_code(e.value) == 6


def redirecting(signer: Signer, redirect_header: Callable[[str, str], str]) -> Callable[[BaseHTTPRequestHandler],
                                                                                        None]:
    """Redirects /v1/bin/old/nodes to PATH with the signature header ``redirect_header(target, location)``, and
    answers PATH signed."""
    answer = signed(signer)

    def moved(h: BaseHTTPRequestHandler) -> None:
        if h.path == "/v1/bin/old/nodes":
            header = redirect_header(h.path, PATH)
            send(h, 301, b"", {"Location": PATH, **({"X-Outpost-Signature": header} if header else {})})
        else:
            answer(h)
    return moved


def test_a_signed_redirect_is_followed(faulty: Start, keys: tuple[Signer, Path]) -> None:
    signer, key_file = keys
    s = faulty(redirecting(signer, lambda target, location: signer.header(target, b"", 301, location)))
    with sig_client([s.url], key_file, []) as c:
        assert len(c.get("/v1/bin/old/nodes")) == len(decode(ANSWER))
    assert s.targets == ["/v1/bin/old/nodes", PATH]


@pytest.mark.parametrize("redirect", ["unsigned", "signed for another location", "signed for another target",
                                      "expired"])
def test_a_redirect_not_signed_for_this_hop_is_refused_like_a_bad_answer(
        faulty: Start, keys: tuple[Signer, Path], redirect: str) -> None:
    signer, key_file = keys
    headers: dict[str, Callable[[str, str], str]] = {
        "unsigned": lambda target, location: "",
        "signed for another location": lambda target, location: signer.header(target, b"", 301, "/v1/bin/x"),
        "signed for another target": lambda target, location: signer.header("/v1/bin/y", b"", 301, location),
        "expired": lambda target, location: signer.header(target, b"", 301, location, expires=int(time.time()) - 1),
    }
    bad, good = faulty(redirecting(signer, headers[redirect])), faulty(redirecting(
        signer, lambda target, location: signer.header(target, b"", 301, location)))
    log: list[Event] = []
    with sig_client([bad.url, good.url], key_file, log) as c:
        assert len(c.get("/v1/bin/old/nodes")) == len(decode(ANSWER))
    assert bad.targets == ["/v1/bin/old/nodes"]  # never followed
    assert [e.kind for e in log] == ["attempt", "unsigned", "attempt", "success"]
    assert "redirect to /v1/bin/nodes refused: unsigned answer" in log[1].detail


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
    assert key_spec(f"rotated:{key_file}") == ("rotated", str(key_file))
    with pytest.raises(OutpostError, match="expected KEYID:FILE"):
        key_spec(str(key_file))  # the key id is never guessed from the file name
    assert Config.parse(f"(serverurl=a)(security=sig)(verifykey=site-2026:{key_file})").verify_keys == [
        f"site-2026:{key_file}"]
    Client(config=f"(serverurl=a)(security=sig)(verifykey=site-2026:{key_file})(verifykey=next:{key_file})").close()
    ec_file = tmp_path / "ec.pub"
    ec_file.write_bytes(ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    junk = tmp_path / "junk.pub"
    junk.write_text("not a key")
    for spec, says in (("(security=sig)", "needs at least one verifykey"), ("(security=maybe)", "sig or none"),
                       (f"(security=sig)(verifykey=ec:{ec_file})", "not an Ed25519 public key"),
                       (f"(security=sig)(verifykey=junk:{junk})", "not a PEM public key"),
                       (f"(security=sig)(verifykey=missing:{tmp_path / 'missing.pub'})", "cannot read"),
                       (f"(security=sig)(verifykey=k:{key_file})(verifykey=k:{key_file}.old)", "given twice")):
        with pytest.raises(OutpostError) as e:
            Client(config="(serverurl=a)" + spec)
        assert e.value.kind == ErrorKind.CONFIG and says in e.value.message, spec
    unverified = Config.parse(f"(serverurl=a)(verifykey=site-2026:{key_file})")
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


@pytest.mark.parametrize("query, says", [
    (lambda c: c.find("/T/all", 50, align=False), "not at key 50"),
    (lambda c: c.browse("/T/all", 200, 300), "not at [200, 300]"),
    (lambda c: c.browse("/T/other"), "an answer for folder /T/all, asked /T/other"),
    (lambda c: c.browse("/T/all", channels="0-6"), "channel 4294967295 was not asked for"),
])
def test_a_signed_answer_for_another_query_is_refused(faulty: Start, keys: tuple[Signer, Path],
                                                      query: Callable[[Client], object], says: str) -> None:
    """The service's own answer, correctly signed for the URL asked, yet not what the URL asks (folder /T/all, rows
    [0, 100) of channel 0, [100, max) of 4294967295, [5, 6) of 7): the client checks what it can (a signing key
    that leaked, or a server that answers wrongly, must not make a job read other conditions)."""
    signer, key_file = keys
    s = faulty(signed(signer))
    with sig_client([s.url], key_file, []) as c, pytest.raises(OutpostError) as e:
        query(c)
    assert [a.kind for a in e.value.attempts] == [ErrorKind.UNSIGNED]
    assert "not the answer asked for" in e.value.attempts[0].message and says in e.value.attempts[0].message


def test_a_signed_answer_for_the_query_asked_passes_the_check(faulty: Start, keys: tuple[Signer, Path]) -> None:
    signer, key_file = keys
    s = faulty(signed(signer))
    with sig_client([s.url], key_file, []) as c:
        assert len(c.browse("/T/all", 0, 100)) == 3
        assert len(c.browse("/T/all", 5, 100, channels="0,7,4294967295")) == 3
