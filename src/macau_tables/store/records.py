"""What the store returns: frozen records of its rows, and the enums of its columns.

Every record is a plain value (no connection behind it). JSON columns come back as ``dict``s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from .. import codec
from ..rounds import TableMode  # the round contract's: which commands a table accepts
from .chain import GENESIS

__all__ = [
    "AccountRecord",
    "AuditEntry",
    "ChainHead",
    "ConfigRecord",
    "EventRecord",
    "IdempotencyRecord",
    "MeterHit",
    "MeterRecord",
    "PlayerRecord",
    "PostingRecord",
    "ShoeCursor",
    "ShoeRecord",
    "ShoesPage",
    "Snapshot",
    "TableMode",
    "TableRecord",
    "TableStatus",
    "TransactionRecord",
    "TxKind",
]


class TableStatus(StrEnum):
    """A casino table's state: open, closed, or stopped by a recorded fault."""

    OPEN = "open"
    CLOSED = "closed"
    FAULT = "fault"


class TxKind(StrEnum):
    """Why a ledger transaction was written."""

    ROUND = "round"  # the postings of a round's event
    DEPOSIT = "deposit"  # cashier -> wallet
    WITHDRAWAL = "withdrawal"  # wallet -> cashier
    CORRECTION = "correction"  # a new transaction correcting an earlier one
    METER_SEED = "meter_seed"  # house funding -> a new meter
    METER_ADJUSTMENT = "meter_adjustment"  # an audited change of a meter's amount
    RECOVERY = "recovery"  # a round resolved at start-up (void, returns)


@dataclass(frozen=True, slots=True)
class ChainHead:
    """The last record of a chain: its ``seq`` (0 when empty) and ``hash`` (genesis then)."""

    seq: int = 0
    hash: str = GENESIS


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One stored event of a table's log: ``payload`` is the codec's canonical JSON text."""

    table_id: str
    seq: int
    round_id: str | None
    type: str
    payload: str
    prev_hash: str
    hash: str
    recorded_at: datetime

    def decode(self, rules: codec.RulesResolver | None = None) -> Any:
        """The event (``codec.decode``; ``rules`` gives back the configuration by id, e.g.
        ``tx.config_resolver()``). Refuses (``CodecError``) a payload it cannot read."""
        return codec.decode(json.loads(self.payload), rules=rules)

    def data(self) -> dict[str, Any]:
        """The payload as JSON (a ``dict``)."""
        value: dict[str, Any] = json.loads(self.payload)
        return value


@dataclass(frozen=True, slots=True)
class ConfigRecord:
    """A stored table configuration: its rules' codec encoding and SHA-256."""

    config_id: str
    game: str
    sha256: str
    payload: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player and the balance of their wallet."""

    player_id: str
    name: str
    balance: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A casino table's row."""

    table_id: str
    name: str
    game: str
    mode: TableMode
    demo: bool
    config_id: str
    meter_id: str | None
    status: TableStatus
    fault: dict[str, Any] | None
    lease_owner: str | None
    lease_until: datetime | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class AccountRecord:
    """A ledger account and its balance."""

    account_id: str
    kind: str
    owner: str | None
    balance: int
    may_go_negative: bool


@dataclass(frozen=True, slots=True)
class PostingRecord:
    """One line of a transaction."""

    line: int
    account_id: str
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class TransactionRecord:
    """A ledger transaction with its postings (which sum to zero)."""

    tx_id: int
    table_id: str | None
    event_seq: int | None
    kind: str
    actor: str | None
    reason: str | None
    corrects: int | None
    digest: str
    created_at: datetime
    postings: tuple[PostingRecord, ...]


@dataclass(frozen=True, slots=True)
class MeterRecord:
    """A linked meter: its ``amount`` is the balance of its ledger account."""

    meter_id: str
    game: str
    seed: int
    amount: int
    params: dict[str, Any]
    params_pending: dict[str, Any] | None
    seed_pending: int | None
    hits: int
    version: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class MeterHit:
    """One jackpot award taken from a meter (``seq`` is the meter's hit order). ``box`` is the
    award's key in its round's settlement (a box at Caribbean Stud, a wager id at baccarat);
    ``place`` the winning box or seat as the settlement names it (``"box 3"``, ``"seat 2"``;
    CSP-10.4, BAC-17) — ``None`` for a hit recorded before places were (schema v9)."""

    meter_id: str
    seq: int
    table_id: str
    round_id: str
    box: int
    combination: str
    amount: int
    at: datetime
    place: str | None = None


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    """The first result of an idempotent command."""

    key: str
    scope: str
    request_sha256: str
    response: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A table's state after event ``seq`` (the service's JSON)."""

    table_id: str
    seq: int
    payload: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ShoeRecord:
    """A virtual shoe's commitment and, once it ended, its reveal and the check's result."""

    table_id: str
    shoe_no: int
    commitment: str
    revealed: dict[str, Any] | None
    verified: bool | None
    created_at: datetime
    revealed_at: datetime | None


@dataclass(frozen=True, slots=True)
class ShoeCursor:
    """Where a page of revealed shoes ends (:meth:`~macau_tables.store.Tx.revealed_shoes_page`):
    its last shoe's reveal time, table and number — the listing's order, newest first, so two
    shoes revealed at the same instant are still told apart."""

    revealed_at: datetime
    table_id: str
    shoe_no: int


@dataclass(frozen=True, slots=True)
class ShoesPage:
    """A page of revealed shoes, newest first, and the cursor of the next (older) page:
    ``None`` when none is left."""

    shoes: tuple[ShoeRecord, ...]
    next: ShoeCursor | None


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """A privileged action or a fault."""

    id: int
    at: datetime
    actor: str
    action: str
    table_id: str | None
    reason: str | None
    detail: dict[str, Any] | None


def loads_object(text: str | None) -> dict[str, Any] | None:
    """A JSON object column read back (``None`` stays ``None``)."""
    if text is None:
        return None
    value = json.loads(text)
    if not isinstance(value, dict):  # pragma: no cover - written only by the store
        raise ValueError("a JSON object column holds something else")
    return value


def dumps(value: Mapping[str, Any] | list[Any] | None) -> str | None:
    """Canonical JSON text of a column value (sorted keys, no spaces; ``None`` stays)."""
    if value is None:
        return None
    return codec.canonical_bytes(value).decode("utf-8")
