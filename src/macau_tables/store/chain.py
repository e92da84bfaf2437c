"""Hash chains and digests (pure: no SQL), shared by the store, its verifier and an offline
archive check.

A chain links each record to the previous one: ``hash = SHA-256(bytes.fromhex(prev_hash) +
payload)`` where ``payload`` is the record's canonical bytes (for an event, the codec's
:func:`~macau_tables.codec.canonical_bytes`); the first record's ``prev_hash`` is
:data:`GENESIS` (64 zeros). Changing, removing or reordering any record changes every hash after
it, so a published chain head pins the whole log.

>>> h1 = chain_hash(GENESIS, b'{"a":1}')
>>> h1 == hashlib.sha256(bytes(32) + b'{"a":1}').hexdigest()
True
>>> canonical_json({"b": [1, "是"], "a": None})
b'{"a":null,"b":[1,"\\xe6\\x98\\xaf"]}'
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Final

from .. import codec

__all__ = [
    "GENESIS",
    "audit_payload",
    "canonical_json",
    "chain_hash",
    "iso",
    "transaction_digest",
]

GENESIS: Final = "0" * 64
"""The ``prev_hash`` of a chain's first record."""


def canonical_json(value: Any) -> bytes:
    """``value`` as canonical UTF-8 JSON (sorted keys, no spaces, no NaN): the codec's format,
    for the store's own JSON (meter log entries, digests). Refuses (``TypeError``/``ValueError``)
    what JSON cannot hold."""
    return codec.canonical_json(value).encode("utf-8")


def chain_hash(prev_hash: str, payload: bytes) -> str:
    """SHA-256 (hex) of the previous record's hash (32 raw bytes) followed by ``payload``.

    Refuses (``ValueError``) a ``prev_hash`` that is not 64 hex digits.
    """
    if len(prev_hash) != 64:
        raise ValueError(f"a chain hash is 64 hex digits, got {prev_hash!r}")
    return hashlib.sha256(bytes.fromhex(prev_hash) + payload).hexdigest()


def iso(at: datetime) -> str:
    """``at`` as UTC ISO-8601 text with microseconds (how times enter digests)."""
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def transaction_digest(
    fields: Mapping[str, Any], postings: Iterable[tuple[int, str, int, str]]
) -> str:
    """SHA-256 (hex) of a ledger transaction: its ``fields`` (table id, event seq, kind, actor,
    reason, corrects, created_at as :func:`iso` text) and its postings ``(line, account_id,
    amount, reason)``. The tx id is not part of it (it is assigned by the database)."""
    body = {"fields": dict(fields), "postings": [list(p) for p in postings]}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def audit_payload(
    at: datetime,
    actor: str,
    action: str,
    table_id: str | None,
    reason: str | None,
    detail: str | None,
) -> bytes:
    """The bytes an audit log entry's chain hash covers: its time (:func:`iso`), actor,
    action, table, reason and its detail as stored (JSON text, or ``None``). Its id is not
    part of it (assigned by the database): the chain runs in id order."""
    return canonical_json(
        {
            "at": iso(at),
            "actor": actor,
            "action": action,
            "table_id": table_id,
            "reason": reason,
            "detail": detail,
        }
    )
