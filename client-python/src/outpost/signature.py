"""Signed answers (``security=sig``): the service signs each answer with an Ed25519 key, and a client configured with
the public keys accepts only answers whose signature verifies (docs/client-failover.md, "Signed answers").

Header ``X-Outpost-Signature: ed25519 KEYID BASE64SIG``; the signed message is the UTF-8 of
``"outpost-sig-1\\n" + PATH_AND_QUERY + "\\n" + lowercase hex SHA-256 of the body as received``, PATH_AND_QUERY the
request target in origin form as sent for the final URL (after redirects). Binding the URL means an answer cannot
be replayed for another query; hashing the body as received means nothing on the way may change a byte of it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from pathlib import Path

from .errors import ErrorKind, OutpostError

HEADER = "X-Outpost-Signature"
_KEY_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def key_spec(spec: str) -> tuple[str, str]:
    """(key id, file) of a ``verifykey`` value: ``KEYID:FILE``, or ``FILE`` whose base name without its extension
    is the key id (``keys/site-2026.pub`` is ``site-2026``)."""
    spec = spec.strip()
    key_id, sep, file = spec.partition(":")
    if sep and _KEY_ID.fullmatch(key_id) and file.strip():
        return key_id, file.strip()
    key_id = Path(spec).stem
    if not _KEY_ID.fullmatch(key_id):
        raise OutpostError(ErrorKind.CONFIG, f"(verifykey={spec}): expected FILE or KEYID:FILE, the key id of "
                                             f"letters, digits, '.', '_' and '-'")
    return key_id, spec


class AnswerVerifier:
    """The public keys answers may be signed with, by key id (several during a key rotation)."""

    def __init__(self, specs: list[str]) -> None:
        from cryptography.exceptions import UnsupportedAlgorithm
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
        from cryptography.hazmat.primitives.serialization import load_pem_public_key

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

    def problem(self, target: str, header: str, body: bytes) -> str:
        """Why the answer to ``target`` must not be trusted, or "" when its signature verifies."""
        from cryptography.exceptions import InvalidSignature

        parts = header.split()
        if not parts:
            return f"unsigned answer: no {HEADER} header"
        if len(parts) != 3 or parts[0] != "ed25519":
            return f"unsigned answer: {HEADER} is not 'ed25519 KEYID SIGNATURE'"
        key = self._keys.get(parts[1])
        if key is None:
            return f"unsigned answer: signed with key '{parts[1][:64]}', not one of {self.key_ids}"
        try:
            signature = base64.b64decode(parts[2], validate=True)
        except binascii.Error:
            return f"unsigned answer: the signature of key '{parts[1]}' is not base64"
        message = f"outpost-sig-1\n{target}\n{hashlib.sha256(body).hexdigest()}".encode()
        try:
            key.verify(signature, message)
        except InvalidSignature:
            return f"unsigned answer: the signature of key '{parts[1]}' does not verify"
        return ""
