"""The event log: per table, append-only, each record hash-chained to the previous one.

There is no UPDATE or DELETE of ``events`` anywhere in the code: a record, once committed, only
ever gains successors. ``seq`` is gap-free from 1: the key ``(table_id, seq)`` lets only one of
two racing appends commit (SQLite writers are serial anyway; on PostgreSQL one process holds a
table's lease), and ``expected_seq`` refuses an append built from a stale state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, func, select

from .. import codec
from ..errors import StoreError
from . import schema as s
from .catalog_ops import FENCE_CLASS, CatalogOps
from .chain import chain_hash
from .records import ChainHead, EventRecord

__all__ = ["EventOps"]

_INSERT_EVENTS = (
    "INSERT INTO events (table_id, seq, round_id, type, payload, prev_hash, hash, recorded_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
"""Every request's events (sent to the driver: :meth:`~._base.TxBase.driver_many`)."""
_INSERT_EVENTS_PG = (
    "INSERT INTO events (table_id, seq, round_id, type, payload, prev_hash, hash, recorded_at) "
    "SELECT e.* FROM unnest(CAST(? AS varchar[]), CAST(? AS integer[]), CAST(? AS varchar[]), "
    "CAST(? AS varchar[]), CAST(? AS text[]), CAST(? AS varchar[]), CAST(? AS varchar[]), "
    "CAST(? AS timestamptz[])) AS e, "
    f"(SELECT pg_advisory_xact_lock_shared({FENCE_CLASS}, hashtext(CAST(? AS text)))) AS fence"
)
"""PostgreSQL: a request's events as ONE statement (its columns as arrays), not a statement
per event; it also takes the table's fence, shared, until the transaction ends
(:meth:`~.catalog_ops.CatalogOps.acquire_lease` waits for it)."""
_E = s.events.c
_CHAIN_HEAD = (
    select(_E.seq, _E.hash)
    .where(_E.table_id == bindparam("table_id"))
    .order_by(_E.seq.desc())
    .limit(1)
)


class EventOps(CatalogOps):
    """The event log (part of :class:`~macau_tables.store.Tx`)."""

    def append_events(
        self,
        table_id: str,
        events: Sequence[object],
        *,
        round_id: str | None = None,
        expected_seq: int | None = None,
        head: ChainHead | None = None,
    ) -> list[EventRecord]:
        """Append ``events`` (registered codec dataclasses) to ``table_id``'s log, in order,
        each chained to the one before; returns the stored records (seq, hash…).

        ``expected_seq`` is the last seq the caller's state was built from: the append is
        refused (``store.chain_conflict``) when the log has moved on since (another process
        wrote this table). Two appends racing for the same seq cannot both commit (the key
        ``(table_id, seq)``): the second is refused with ``store.chain_race``.
        Also refuses an unknown table (``store.unknown_table``) and an event the codec cannot
        store (``CodecError``); nothing is written then.

        ``head``: the chain head the caller has just read in this same transaction (its state
        was built from it), which is then not read again; an append that races another for the
        same seq is still refused by the key.

        Once the transaction defers its writes (PostgreSQL, :meth:`~._base.TxBase.defer_writes`)
        the records are written with the commit (or before the transaction's next statement),
        the race for a seq refused there.
        """
        self.writable()
        payloads = [codec.canonical_bytes(e) for e in events]  # all encoded before any insert
        if head is None:
            head = self.chain_head(table_id)
            if head.seq == 0 and self._table_row(table_id) is None:
                raise StoreError("store.unknown_table", table_id=table_id)
        if expected_seq is not None and expected_seq != head.seq:
            raise StoreError(
                "store.chain_conflict", table_id=table_id, expected=expected_seq, found=head.seq
            )
        at = self.now()
        records: list[EventRecord] = []
        prev, seq = head.hash, head.seq
        for event, payload in zip(events, payloads, strict=True):
            seq += 1
            digest = chain_hash(prev, payload)
            records.append(
                EventRecord(
                    table_id=table_id,
                    seq=seq,
                    round_id=round_id,
                    type=codec.type_name(type(event)),
                    payload=payload.decode("utf-8"),
                    prev_hash=prev,
                    hash=digest,
                    recorded_at=at,
                )
            )
            prev = digest
        if records:
            last = records[-1]
            if self.deferring or table_id in self.heads:
                self.heads[table_id] = ChainHead(last.seq, last.hash)
            if self.deferring:  # PostgreSQL: with the commit (TxBase.defer_writes)
                self.pending.events += [
                    (r.table_id, r.seq, r.round_id, r.type, r.payload, r.prev_hash, r.hash, at)
                    for r in records
                ]
                self.pending.fences[table_id] = None
                self.note_pending()
                return records
            when = self.bind_time(at)
            rows = [
                (r.table_id, r.seq, r.round_id, r.type, r.payload, r.prev_hash, r.hash, when)
                for r in records
            ]
            if self.postgres:
                columns: list[Any] = [list(column) for column in zip(*rows, strict=True)]
                self.driver_rows(_INSERT_EVENTS_PG, [*columns, table_id])
            else:
                self.driver_many(_INSERT_EVENTS, rows)
        return records

    def read_events(
        self,
        table_id: str,
        *,
        after: int = 0,
        limit: int | None = None,
        round_id: str | None = None,
    ) -> list[EventRecord]:
        """``table_id``'s events with ``seq > after`` in order (at most ``limit``; only those
        of ``round_id`` if given). Reading does not verify the chain (see ``verify``)."""
        c = s.events.c
        query = select(s.events).where(c.table_id == table_id, c.seq > after)
        if round_id is not None:
            query = query.where(c.round_id == round_id)
        query = query.order_by(c.seq)
        if limit is not None:
            query = query.limit(limit)
        return [_record(r) for r in self.connection.execute(query)]

    def chain_head(self, table_id: str) -> ChainHead:
        """The last record of ``table_id``'s chain (seq 0 and the genesis hash when empty)."""
        row = self.connection.execute(_CHAIN_HEAD, {"table_id": table_id}).first()
        return ChainHead() if row is None else ChainHead(int(row.seq), row.hash)

    def chain_heads(self) -> dict[str, ChainHead]:
        """Every table's chain head (tables with no events are left out)."""
        c = s.events.c
        last = select(c.table_id, func.max(c.seq).label("seq")).group_by(c.table_id).subquery()
        rows = self.connection.execute(
            select(c.table_id, c.seq, c.hash).join(
                last, (last.c.table_id == c.table_id) & (last.c.seq == c.seq)
            )
        )
        return {r.table_id: ChainHead(int(r.seq), r.hash) for r in rows}

    def round_ids(self, table_id: str) -> list[str]:
        """The ids of the rounds in ``table_id``'s log, in the order they first appear."""
        c = s.events.c
        first = func.min(c.seq)
        rows = self.connection.execute(
            select(c.round_id, first)
            .where(c.table_id == table_id, c.round_id.is_not(None))
            .group_by(c.round_id)
            .order_by(first)
        )
        return [r.round_id for r in rows]


def _record(row: Any) -> EventRecord:
    return EventRecord(
        table_id=row.table_id,
        seq=int(row.seq),
        round_id=row.round_id,
        type=row.type,
        payload=row.payload,
        prev_hash=row.prev_hash,
        hash=row.hash,
        recorded_at=row.recorded_at,
    )
