#!/usr/bin/env python3
"""Writes cases.json: signed-answer vectors (docs/api.md, "Signed answers") that the service's signer and the three
clients' verifiers all check. The key is RFC 8032's first Ed25519 test key, so the signatures are fixed: a client
and the service cannot each agree with themselves and still disagree with each other. Run again only when the
signature format changes (needs the `cryptography` package)."""

import base64
import hashlib
import json
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

HERE = Path(__file__).resolve().parent
SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")  # RFC 8032, test 1
KEY = Ed25519PrivateKey.from_private_bytes(SEED)
KEY_ID = "test-2026"
NOW = 1798761600  # 2027-01-01T00:00:00Z: the clients' clock for every case


def message(method, target, status, location, etag, expires, body):
    digest = hashlib.sha256(body).hexdigest()
    return "\n".join(["outpost-sig-2", method, target, str(status), location, etag, str(expires), digest]).encode()


def header(method, target, status, location, etag, expires, body, key_id=KEY_ID):
    sig = base64.b64encode(KEY.sign(message(method, target, status, location, etag, expires, body))).decode()
    return f"outpost-sig-2 ed25519 {key_id} {expires} {sig}"


def v1_header(target, body):
    msg = ("outpost-sig-1\n" + target + "\n" + hashlib.sha256(body).hexdigest()).encode()
    return f"ed25519 {KEY_ID} " + base64.b64encode(KEY.sign(msg)).decode()


def case(name, verdict, *, target, status=200, location="", etag='"g42"', expires=NOW + 300, body=b"answer\n",
         signed_target=None, signed_body=None, signed_status=None, signed_location=None, signed_etag=None,
         sig=None, note=""):
    h = sig if sig is not None else header(
        "GET", signed_target if signed_target is not None else target,
        signed_status if signed_status is not None else status,
        signed_location if signed_location is not None else location,
        signed_etag if signed_etag is not None else etag, expires,
        signed_body if signed_body is not None else body)
    return {"name": name, "note": note, "target": target, "status": status, "location": location, "etag": etag,
            "body_base64": base64.b64encode(body).decode(), "header": h, "now": NOW, "verdict": verdict}


AT = "/v1/json/at/HEAD/1767243600000000000/1/DEMO/Calo/Pedestals"
OTHER = "/v1/json/at/HEAD/1767225600000000000/1/DEMO/Calo/Pedestals"
BODY = b'{"rows":[[1,1767225600000000000,1767229200000000000,1.0]]}'

cases = [
    case("answer", "ok", target=AT, body=BODY, note="a 200 answer, signed for the target asked"),
    case("empty-body", "ok", target="/v1/json/nodes", body=b"", etag="", note="empty body, no ETag"),
    case("percent-encoded-target", "ok", target="/v1/json/nodes/DEMO%2FCalo", body=b"[]",
         note="the target is signed raw, percent-encoding unchanged"),
    case("percent-decoded-other", "bad-signature", target="/v1/json/nodes/DEMO/Calo", body=b"[]",
         signed_target="/v1/json/nodes/DEMO%2FCalo", note="signed for the encoded spelling, asked decoded"),
    case("redirect", "ok", target="/v1/json/at/HEAD/1767243600000000000/1/DEMO%2FCalo%2FPedestals", status=301,
         location=AT, etag="", body=b"", expires=NOW + 86400 + 300,
         note="the service's own redirect, signed: the client may follow it"),
    case("redirect-unsigned", "unsigned", target=AT, status=301, location=OTHER, etag="", body=b"", sig="",
         note="a redirect without a signature is never followed under security=sig"),
    case("redirect-elsewhere", "bad-signature", target=AT, status=301, location=OTHER, etag="", body=b"",
         signed_location=AT, note="a signed redirect whose Location was changed on the way"),
    case("answer-for-another-key", "bad-signature", target=AT, body=BODY, signed_target=OTHER,
         note="another URL's signed answer served for this one"),
    case("body-changed", "bad-signature", target=AT, body=BODY.replace(b"1.0", b"2.0"), signed_body=BODY),
    case("etag-changed", "bad-signature", target=AT, body=BODY, etag='"g43"', signed_etag='"g42"',
         note="the answer's generation is part of the message"),
    case("status-changed", "bad-signature", target=AT, status=200, body=b"", etag="", signed_status=301,
         signed_location="", note="a signed redirect's signature replayed on a 200"),
    case("expired-replay", "expired", target=AT, body=BODY, expires=NOW - 1,
         note="a superseded answer replayed after its signature's expiry"),
    case("expires-now", "ok", target=AT, body=BODY, expires=NOW, note="valid up to and including EXPIRES"),
    case("expiry-forged", "bad-signature", target=AT, body=BODY, expires=NOW - 1,
         sig=header("GET", AT, 200, "", '"g42"', NOW - 1, BODY).replace(f" {NOW - 1} ", f" {NOW + 3600} "),
         note="EXPIRES rewritten to extend an old signature"),
    case("unknown-key", "unknown-key", target=AT, body=BODY,
         sig=header("GET", AT, 200, "", '"g42"', NOW + 300, BODY).replace(KEY_ID, "other-key")),
    case("unsigned", "unsigned", target=AT, body=BODY, sig=""),
    case("malformed", "malformed", target=AT, body=BODY, sig="outpost-sig-2 ed25519 test-2026 notanumber AAAA"),
    case("sig1", "sig1-refused", target=AT, body=BODY, sig=v1_header(AT, BODY),
         note="a valid outpost-sig-1 signature: accepted only where the client is configured to (acceptsig1=yes)"),
]

pem_private = KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
pem_public = KEY.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
(HERE / "test-2026.key.pem").write_bytes(pem_private)
(HERE / "test-2026.pub.pem").write_bytes(pem_public)
doc = {"format": "outpost-sig-2", "key_id": KEY_ID, "private_key": "test-2026.key.pem",
       "public_key": "test-2026.pub.pem", "cases": cases}
(HERE / "cases.json").write_text(json.dumps(doc, indent=1) + "\n")
print(f"{len(cases)} cases")
