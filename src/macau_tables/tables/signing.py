"""Signed audit archives: who exported a day, proven to anyone holding their public key.

An archive's manifest lists every other member's SHA-256, so a signature over the manifest's
bytes covers the whole archive. The operator keeps an Ed25519 private key (``macau-tables audit
keygen -o FILE``: a PKCS #8 PEM file readable by its owner only, and ``FILE.pub``) and signs the
archives it exports (``audit export --sign-key FILE``; the server's ``audit_sign_key``
setting for the archives its reports page hands out). The regulator or test lab checks them
against the operator's published public key (``verify --archive FILE --public-key KEY``).

The public key is one line of text, ``ed25519:<base64 of its 32 bytes>``; its fingerprint the
first 16 hexadecimal digits of the SHA-256 of those bytes. The signature is the member
:data:`SIGNATURE` beside the manifest (not listed in it: it signs it), a JSON object
``{"algorithm": "ed25519", "public_key": …, "signature": <base64>, "signs": "manifest.json"}``.

A hash chain shows an archive was not changed after its chain heads were published; a signature
shows whose archive it is, so that its exporter cannot disown it and nobody else can pass off a
day recomputed from scratch as theirs.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..errors import ConfigError

__all__ = [
    "ALGORITHM",
    "SIGNATURE",
    "ArchiveKey",
    "fingerprint",
    "generate_key",
    "load_key",
    "parse_public_key",
    "sign_manifest",
    "signature_of",
    "write_key",
]

ALGORITHM: Final = "ed25519"
SIGNATURE: Final = "manifest.sig"
"""The archive member holding the manifest's signature."""
_PREFIX: Final = f"{ALGORITHM}:"


@dataclass(frozen=True, slots=True)
class ArchiveKey:
    """A private key that signs archives, and its public key's text."""

    private: Ed25519PrivateKey
    public: str


def _public_text(key: Ed25519PublicKey) -> str:
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return _PREFIX + base64.b64encode(raw).decode("ascii")


def fingerprint(public: str) -> str:
    """The first 16 hexadecimal digits of the SHA-256 of the public key's 32 bytes."""
    return hashlib.sha256(_raw(public)).hexdigest()[:16]


def _raw(public: str) -> bytes:
    if not public.startswith(_PREFIX):
        raise ConfigError("operations.public_key_bad", key=public[:80])
    try:
        raw = base64.b64decode(public[len(_PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError("operations.public_key_bad", key=public[:80]) from None
    if len(raw) != 32:
        raise ConfigError("operations.public_key_bad", key=public[:80])
    return raw


def parse_public_key(text: str) -> str:
    """The public key ``text`` (``ed25519:…``) or the one in the file named ``text`` (a
    ``.pub`` file), checked; refuses anything else (``operations.public_key_bad``)."""
    value = text.strip()
    if not value.startswith(_PREFIX):
        path = Path(value)
        try:
            value = path.read_text(encoding="utf-8").strip() if path.is_file() else value
        except (OSError, UnicodeDecodeError):
            raise ConfigError("operations.public_key_bad", key=text[:80]) from None
    _raw(value)
    return value


def generate_key() -> ArchiveKey:
    """A new signing key."""
    private = Ed25519PrivateKey.generate()
    return ArchiveKey(private, _public_text(private.public_key()))


def write_key(key: ArchiveKey, path: Path) -> Path:
    """Write ``key`` to ``path`` (PKCS #8 PEM, readable by its owner only) and its public key
    to ``path`` + ``.pub``; returns the latter. Refuses (``operations.key_exists``) to replace
    either file; ``OSError`` when they cannot be written."""
    public_path = path.with_name(path.name + ".pub")
    for existing in (path, public_path):
        if existing.exists():
            raise ConfigError("operations.key_exists", path=str(existing))
    pem = key.private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(pem)
        public_path.write_text(key.public + "\n", encoding="utf-8")
    except BaseException:  # both files or neither: a half-made key is never left behind
        path.unlink(missing_ok=True)
        raise
    return public_path


def load_key(path: Path) -> ArchiveKey:
    """The signing key in the PEM file ``path``; refuses (``operations.sign_key_bad``) a file
    that cannot be read or holds no Ed25519 private key."""
    try:
        loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ConfigError("operations.sign_key_bad", path=str(path), reason=reason) from None
    except (ValueError, TypeError):  # not PEM, or a key that needs a password
        reason = "not an unencrypted PEM private key"
        raise ConfigError("operations.sign_key_bad", path=str(path), reason=reason) from None
    if not isinstance(loaded, Ed25519PrivateKey):
        raise ConfigError(
            "operations.sign_key_bad", path=str(path), reason="not an Ed25519 private key"
        )
    return ArchiveKey(loaded, _public_text(loaded.public_key()))


def sign_manifest(manifest: bytes, key: ArchiveKey) -> bytes:
    """The :data:`SIGNATURE` member for the manifest's bytes ``manifest``."""
    body = {
        "algorithm": ALGORITHM,
        "public_key": key.public,
        "signature": base64.b64encode(key.private.sign(manifest)).decode("ascii"),
        "signs": "manifest.json",
    }
    return (json.dumps(body, indent=2, sort_keys=True) + "\n").encode("utf-8")


def signature_of(manifest: bytes, member: bytes) -> str | None:
    """The public key that signed ``manifest`` according to the :data:`SIGNATURE` member
    ``member``, or ``None`` when that member is malformed or its signature does not hold."""
    try:
        body: Any = json.loads(member)
        if not isinstance(body, dict) or body.get("algorithm") != ALGORITHM:
            return None
        public = str(body["public_key"])
        signature = base64.b64decode(str(body["signature"]), validate=True)
        Ed25519PublicKey.from_public_bytes(_raw(public)).verify(signature, manifest)
    except (ValueError, KeyError, TypeError, binascii.Error, InvalidSignature, ConfigError):
        return None
    return public
