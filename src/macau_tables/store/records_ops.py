"""Idempotency records, snapshots, shoes and the audit log."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam, func, insert, literal, select, true, update
from sqlalchemy.dialects import postgresql, sqlite

from ..errors import StoreError
from . import schema as s
from ._base import TxBase, require_int, require_text
from .records import (
    AuditEntry,
    ChainHead,
    IdempotencyRecord,
    ShoeRecord,
    Snapshot,
    dumps,
    loads_object,
)

__all__ = ["RecordOps"]

_SH = s.shoes.c
_SHOE_PUT_PG = (
    postgresql.insert(s.shoes)
    .on_conflict_do_nothing(index_elements=[_SH.table_id, _SH.shoe_no])
    .returning(_SH.shoe_no)
)
_SHOE_PUT_LITE = (
    sqlite.insert(s.shoes)
    .on_conflict_do_nothing(index_elements=[_SH.table_id, _SH.shoe_no])
    .returning(_SH.shoe_no)
)
_SHOE_REVEAL = (
    update(s.shoes)
    .where(
        _SH.table_id == bindparam("b_table_id"),
        _SH.shoe_no == bindparam("b_shoe_no"),
        _SH.revealed.is_(None),
    )
    .values(
        revealed=bindparam("revealed"),
        verified=bindparam("verified"),
        revealed_at=bindparam("revealed_at"),
    )
    .returning(_SH.shoe_no)
)
_IDEMPOTENCY_GET = select(s.idempotency).where(s.idempotency.c.key == bindparam("key"))
_EV = s.events.c
_HEAD = (
    select(_EV.seq, _EV.hash)
    .where(_EV.table_id == bindparam("table_id"))
    .order_by(_EV.seq.desc())
    .limit(1)
    .subquery("head")
)
_ID = s.idempotency.c
_KEYED = select(s.idempotency).where(_ID.key == bindparam("key")).subquery("keyed")
_ONE = select(literal(1).label("one")).subquery("one")
_REQUEST_START = select(
    _HEAD.c.seq,
    _HEAD.c.hash,
    _KEYED.c.key,
    _KEYED.c.scope,
    _KEYED.c.request_sha256,
    _KEYED.c.response,
    _KEYED.c.created_at,
).select_from(_ONE.outerjoin(_HEAD, true()).outerjoin(_KEYED, true()))
_IDEMPOTENCY_PUT_PG = (
    postgresql.insert(s.idempotency)
    .on_conflict_do_nothing(index_elements=[s.idempotency.c.key])
    .returning(s.idempotency.c.key)
)
_IDEMPOTENCY_PUT_LITE = (
    sqlite.insert(s.idempotency)
    .on_conflict_do_nothing(index_elements=[s.idempotency.c.key])
    .returning(s.idempotency.c.key)
)


class RecordOps(TxBase):
    """Idempotency, snapshots, shoes, audit (part of :class:`~macau_tables.store.Tx`)."""

    # -- idempotency --------------------------------------------------------------------------

    def idempotency_get(self, key: str) -> IdempotencyRecord | None:
        """The first result stored under ``key``, or ``None``."""
        found = self.connection.execute(_IDEMPOTENCY_GET, {"key": key}).first()
        if found is None:
            return None
        response = loads_object(found.response) or {}
        return IdempotencyRecord(
            found.key, found.scope, found.request_sha256, response, found.created_at
        )

    def request_start(self, table_id: str, key: str) -> tuple[ChainHead, IdempotencyRecord | None]:
        """``(chain_head(table_id), idempotency_get(key))`` read by one statement: what a
        table's request reads first."""
        row = self.connection.execute(_REQUEST_START, {"table_id": table_id, "key": key}).one()
        head = ChainHead() if row.seq is None else ChainHead(int(row.seq), row.hash)
        if row.key is None:
            return head, None
        response = loads_object(row.response) or {}
        record = IdempotencyRecord(row.key, row.scope, row.request_sha256, response, row.created_at)
        return head, record

    def idempotency_put(
        self, key: str, *, scope: str, request_sha256: str, response: Mapping[str, Any]
    ) -> None:
        """Store the first result of the command ``key``. Refuses a key already stored
        (``store.idempotency_exists``: look it up first) and an empty key or scope. The key is
        not read first: the primary key refuses a duplicate (``ON CONFLICT DO NOTHING``, so
        the transaction stays usable), nothing written then."""
        self.writable()
        require_text(key, "key")
        require_text(scope, "scope")
        statement = _IDEMPOTENCY_PUT_PG if self.dialect == "postgresql" else _IDEMPOTENCY_PUT_LITE
        stored = self.connection.execute(
            statement,
            {
                "key": key,
                "scope": scope,
                "request_sha256": request_sha256,
                "response": dumps(dict(response)),
                "created_at": self.now(),
            },
        ).first()
        if stored is None:
            raise StoreError("store.idempotency_exists", key=key)

    # -- snapshots ----------------------------------------------------------------------------

    def snapshot_put(self, table_id: str, seq: int, payload: Mapping[str, Any]) -> None:
        """Store ``table_id``'s state after event ``seq``. The same snapshot again is a no-op;
        another payload at the same seq is refused (``store.snapshot_conflict``)."""
        self.writable()
        require_int(seq, "seq", minimum=0)
        text = dumps(dict(payload))
        existing = self.connection.execute(
            select(s.snapshots.c.payload).where(
                s.snapshots.c.table_id == table_id, s.snapshots.c.seq == seq
            )
        ).scalar_one_or_none()
        if existing is not None:
            if existing != text:
                raise StoreError("store.snapshot_conflict", table_id=table_id, seq=seq)
            return
        self.connection.execute(
            insert(s.snapshots).values(
                table_id=table_id, seq=seq, payload=text, created_at=self.now()
            )
        )

    def snapshot_latest(self, table_id: str, *, at_most: int | None = None) -> Snapshot | None:
        """The latest snapshot of ``table_id`` (at or before event ``at_most`` if given)."""
        query = select(s.snapshots).where(s.snapshots.c.table_id == table_id)
        if at_most is not None:
            query = query.where(s.snapshots.c.seq <= at_most)
        row = self.connection.execute(query.order_by(s.snapshots.c.seq.desc()).limit(1)).first()
        if row is None:
            return None
        return Snapshot(row.table_id, row.seq, loads_object(row.payload) or {}, row.created_at)

    # -- shoes --------------------------------------------------------------------------------

    def shoe_put(self, table_id: str, shoe_no: int, commitment: str) -> None:
        """Record a virtual shoe's published commitment. Refuses a shoe number already used
        (``store.shoe_exists``: the key refuses it, nothing written)."""
        self.writable()
        require_int(shoe_no, "shoe_no", minimum=0)
        require_text(commitment, "commitment")
        statement = _SHOE_PUT_PG if self.dialect == "postgresql" else _SHOE_PUT_LITE
        stored = self.connection.execute(
            statement,
            {
                "table_id": table_id,
                "shoe_no": shoe_no,
                "commitment": commitment,
                "created_at": self.now(),
            },
        ).first()
        if stored is None:
            raise StoreError("store.shoe_exists", table_id=table_id, shoe_no=shoe_no)

    def shoe_reveal(
        self, table_id: str, shoe_no: int, revealed: Mapping[str, Any], verified: bool
    ) -> None:
        """Record a shoe's reveal and whether the cards dealt matched it. Refuses an unknown
        shoe (``store.unknown_shoe``) or one already revealed (``store.shoe_revealed``)."""
        self.writable()
        done = self.connection.execute(
            _SHOE_REVEAL,
            {
                "b_table_id": table_id,
                "b_shoe_no": shoe_no,
                "revealed": dumps(dict(revealed)),
                "verified": bool(verified),
                "revealed_at": self.now(),
            },
        ).first()
        if done is not None:
            return
        if self._shoe_row(table_id, shoe_no) is None:
            raise StoreError("store.unknown_shoe", table_id=table_id, shoe_no=shoe_no)
        raise StoreError("store.shoe_revealed", table_id=table_id, shoe_no=shoe_no)

    def shoes(self, table_id: str) -> list[ShoeRecord]:
        """Every shoe of ``table_id``, in order."""
        rows = self.connection.execute(
            select(s.shoes).where(s.shoes.c.table_id == table_id).order_by(s.shoes.c.shoe_no)
        )
        return [
            ShoeRecord(
                r.table_id,
                r.shoe_no,
                r.commitment,
                loads_object(r.revealed),
                r.verified,
                r.created_at,
                r.revealed_at,
            )
            for r in rows
        ]

    def next_shoe_no(self, table_id: str) -> int:
        """One more than the highest shoe number of ``table_id`` (1 for the first)."""
        top = self.connection.execute(
            select(func.max(s.shoes.c.shoe_no)).where(s.shoes.c.table_id == table_id)
        ).scalar_one_or_none()
        return int(top or 0) + 1

    def _shoe_row(self, table_id: str, shoe_no: int) -> Any:
        return self.connection.execute(
            select(s.shoes).where(s.shoes.c.table_id == table_id, s.shoes.c.shoe_no == shoe_no)
        ).first()

    # -- audit --------------------------------------------------------------------------------

    def audit(
        self,
        action: str,
        *,
        actor: str,
        table_id: str | None = None,
        reason: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> int:
        """Record a privileged action or a fault; returns its id. Refuses an empty action or
        actor (``store.bad_value``)."""
        self.writable()
        require_text(action, "action")
        require_text(actor, "actor")
        result = self.connection.execute(
            insert(s.audit_log)
            .values(
                at=self.now(),
                actor=actor,
                action=action,
                table_id=table_id,
                reason=reason,
                detail=dumps(dict(detail)) if detail is not None else None,
            )
            .returning(s.audit_log.c.id)
        )
        return int(result.scalar_one())

    def audit_entries(
        self, *, table_id: str | None = None, action: str | None = None
    ) -> list[AuditEntry]:
        """The audit log, oldest first (of one table and/or one action if given)."""
        query = select(s.audit_log)
        if table_id is not None:
            query = query.where(s.audit_log.c.table_id == table_id)
        if action is not None:
            query = query.where(s.audit_log.c.action == action)
        rows = self.connection.execute(query.order_by(s.audit_log.c.id))
        return [
            AuditEntry(r.id, r.at, r.actor, r.action, r.table_id, r.reason, loads_object(r.detail))
            for r in rows
        ]
