"""Signed answers (``security=sig``): the service signs each answer and each of its redirects with an Ed25519 key,
and a client configured with the public keys accepts only what verifies (docs/client-failover.md, "Signed answers";
the format in docs/api.md and testdata/signatures/README.md).

Header ``X-Outpost-Signature: outpost-sig-2 ed25519 KEYID EXPIRES BASE64SIG``; the signed message is the UTF-8 of
the lines ``outpost-sig-2``, ``GET``, the request target of this hop in origin form as sent, the status (200 or 301),
the Location of a 301 (else empty), the ETag as sent (else empty), EXPIRES (Unix seconds) and the lowercase hex
SHA-256 of the body, joined by ``\\n``. Binding the target of every hop means a redirect cannot send the client to
another query; the ETag and the expiry mean an old answer cannot be replayed for ever.

The older ``ed25519 KEYID BASE64SIG`` (``outpost-sig-1``: target and body digest only) verifies only with
``(acceptsig1=yes)``.
"""

from __future__ import annotations

import base64
import binascii
import enum
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ._extras import require
from .errors import ErrorKind, OutpostError

HEADER = "X-Outpost-Signature"
_KEY_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_EXPIRES = re.compile(r"[0-9]{1,19}")


def key_spec(spec: str) -> tuple[str, str]:
    """(key id, file) of a ``verifykey`` value ``KEYID:FILE``. The key id is never guessed from the file name: it
    must be the one the service signs with."""
    key_id, sep, file = spec.strip().partition(":")
    if sep and _KEY_ID.fullmatch(key_id.strip()) and file.strip():
        return key_id.strip(), file.strip()
    raise OutpostError(ErrorKind.CONFIG, f"(verifykey={spec}): expected KEYID:FILE, the key id of letters, digits, "
                                         f"'.', '_' and '-'")


class Verdict(enum.Enum):
    """What a verifier concludes (the verdicts of testdata/signatures/cases.json)."""

    OK = "ok"
    BAD_SIGNATURE = "bad-signature"
    EXPIRED = "expired"
    UNSIGNED = "unsigned"
    UNKNOWN_KEY = "unknown-key"
    MALFORMED = "malformed"
    SIG1_REFUSED = "sig1-refused"


@dataclass(frozen=True)
class Hop:
    """One response as the signature covers it: the target asked for at this hop and what came back."""

    target: str
    status: int
    location: str
    etag: str
    body_sha256: str  # lowercase hex


class AnswerVerifier:
    """The public keys answers may be signed with, by key id (several during a key rotation)."""

    def __init__(self, specs: list[str], accept_sig1: bool = False, now: Callable[[], float] = time.time) -> None:
        require("cryptography", "sig", "security=sig")
        from cryptography.exceptions import UnsupportedAlgorithm
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
        from cryptography.hazmat.primitives.serialization import load_pem_public_key

        self._accept_sig1 = accept_sig1
        self._now = now
        self._keys: dict[str, Ed25519PublicKey] = {}
        for spec in specs:
            key_id, file = key_spec(spec)
            try:
                key = load_pem_public_key(Path(file).read_bytes())
            except OSError as e:
                raise OutpostError(ErrorKind.CONFIG, f"(verifykey={spec}): cannot read the key: "
                                                     f"{e.strerror or e}") from None
            except (ValueError, UnsupportedAlgorithm):
                raise OutpostError(ErrorKind.CONFIG, f"(verifykey={spec}): not a PEM public key") from None
            if not isinstance(key, Ed25519PublicKey):
                raise OutpostError(ErrorKind.CONFIG, f"(verifykey={spec}): not an Ed25519 public key")
            if key_id in self._keys:
                raise OutpostError(ErrorKind.CONFIG, f"(verifykey={spec}): key id '{key_id}' given twice")
            self._keys[key_id] = key

    @property
    def key_ids(self) -> list[str]:
        return list(self._keys)

    def problem(self, hop: Hop, header: str) -> str:
        """Why ``hop`` must not be trusted, or "" when its signature verifies and has not expired."""
        verdict, why = self.check(hop, header)
        return "" if verdict == Verdict.OK else why

    def check(self, hop: Hop, header: str) -> tuple[Verdict, str]:
        """The verdict on ``hop`` with its signature header, and a message saying why when it is not OK."""
        parts = header.split()
        if not parts:
            return Verdict.UNSIGNED, f"unsigned answer: no {HEADER} header"
        if parts[0] == "ed25519" and len(parts) == 3:
            return self._check_sig1(hop, parts[1], parts[2])
        if len(parts) != 5 or parts[0] != "outpost-sig-2" or parts[1] != "ed25519" or not _EXPIRES.fullmatch(parts[3]):
            return Verdict.MALFORMED, f"unsigned answer: {HEADER} is not 'outpost-sig-2 ed25519 KEYID EXPIRES " \
                                      f"SIGNATURE'"
        key_id, expires = parts[2], int(parts[3])
        message = "\n".join(["outpost-sig-2", "GET", hop.target, str(hop.status), hop.location, hop.etag,
                             parts[3], hop.body_sha256])
        verdict, why = self._verify(key_id, parts[4], message, hop)
        if verdict != Verdict.OK:
            return verdict, why
        now = self._now()
        if now > expires:
            return Verdict.EXPIRED, (f"unsigned answer: the signature of key '{key_id}' expired "
                                     f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(expires))}, "
                                     f"{int(now - expires)} s ago (a replayed or superseded answer)")
        return Verdict.OK, ""

    def _check_sig1(self, hop: Hop, key_id: str, signature: str) -> tuple[Verdict, str]:
        if not self._accept_sig1:
            return Verdict.SIG1_REFUSED, ("unsigned answer: an outpost-sig-1 signature, which binds neither the "
                                          "answer's generation nor an expiry (accepted only with acceptsig1=yes)")
        if hop.status != 200:
            return Verdict.BAD_SIGNATURE, f"unsigned answer: an outpost-sig-1 signature on an HTTP {hop.status}"
        return self._verify(key_id, signature, f"outpost-sig-1\n{hop.target}\n{hop.body_sha256}", hop)

    def _verify(self, key_id: str, signature: str, message: str, hop: Hop) -> tuple[Verdict, str]:
        from cryptography.exceptions import InvalidSignature

        if not _KEY_ID.fullmatch(key_id):
            return Verdict.MALFORMED, f"unsigned answer: {HEADER} has no valid key id"
        key = self._keys.get(key_id)
        if key is None:
            return Verdict.UNKNOWN_KEY, f"unsigned answer: signed with key '{key_id}', not one of {self.key_ids}"
        try:
            raw = base64.b64decode(signature, validate=True)
        except binascii.Error:
            return Verdict.MALFORMED, f"unsigned answer: the signature of key '{key_id}' is not base64"
        try:
            key.verify(raw, message.encode())
        except InvalidSignature:
            return Verdict.BAD_SIGNATURE, (f"unsigned answer: the signature of key '{key_id}' does not verify for "
                                           f"HTTP {hop.status} {hop.target[:200]}")
        return Verdict.OK, ""
