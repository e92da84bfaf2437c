"""Idempotency records, snapshots, shoes and the audit log."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from sqlalchemy import and_, bindparam, delete, func, insert, or_, select

from ..errors import StoreError
from . import pgwire
from . import schema as s
from ._base import TxBase, require_int, require_text
from .chain import GENESIS, audit_payload, chain_hash
from .pgwire import abandon, begin_statement, escaping, text_array, text_rows
from .records import (
    AuditEntry,
    ChainHead,
    IdempotencyRecord,
    ShoeCursor,
    ShoeRecord,
    ShoesPage,
    Snapshot,
    dumps,
    loads_object,
)

AUDIT_LOCK: Final = 0x6D61_6361_7561_0001
"""PostgreSQL: the advisory lock a transaction takes to append to the audit log's chain."""

__all__ = ["RecordOps"]

_IDEMPOTENCY_GET = select(s.idempotency).where(s.idempotency.c.key == bindparam("key"))
# The statements every request runs, sent to the driver (:meth:`~._base.TxBase.driver_rows`).
_REQUEST_START = (
    "SELECT head.seq, head.hash, keyed.scope FROM (SELECT 1 AS one) AS one "
    "LEFT OUTER JOIN (SELECT seq, hash FROM events WHERE table_id = ? "
    "ORDER BY seq DESC LIMIT 1) AS head ON 1 = 1 "
    'LEFT OUTER JOIN (SELECT scope FROM idempotency WHERE "key" = ?) AS keyed ON 1 = 1'
)
_PREFETCH = (
    b"SELECT 'h', t.id, head.seq, head.hash FROM unnest(%b) AS t(id) "
    b"LEFT JOIN LATERAL (SELECT seq, hash FROM events WHERE table_id = t.id "
    b"ORDER BY seq DESC LIMIT 1) AS head ON true "
    b'UNION ALL SELECT \'k\', "key", NULL, scope FROM idempotency WHERE "key" = ANY(%b)'
)
"""PostgreSQL: the heads of a group's tables and its keys stored (``prefetch_requests``)."""
_IDEMPOTENCY_PUT = (
    'INSERT INTO idempotency ("key", scope, request_sha256, response, created_at) '
    'VALUES (?, ?, ?, ?, ?) ON CONFLICT ("key") DO NOTHING RETURNING "key"'
)
_SHOE_PUT = (
    "INSERT INTO shoes (table_id, shoe_no, commitment, created_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (table_id, shoe_no) DO NOTHING RETURNING shoe_no"
)
_SHOE_REVEAL = (
    "UPDATE shoes SET revealed = ?, verified = ?, revealed_at = ? "
    "WHERE table_id = ? AND shoe_no = ? AND revealed IS NULL RETURNING shoe_no"
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
        table's request reads first (a key already used — a retry — is then read whole).
        Nothing is read for a table and key :meth:`prefetch_requests` read: the head as this
        transaction left it, the key's record if this transaction stored it. On PostgreSQL,
        as a transaction's first statement it is read so, with the ``BEGIN``."""
        head = self.heads.get(table_id)
        if head is not None:
            mine = self.written.get(key)
            if mine is not None:
                scope, digest, text, at = mine
                return head, IdempotencyRecord(key, scope, digest, loads_object(text) or {}, at)
            if key in self.keys:
                return head, None if self.keys[key] is None else self.idempotency_get(key)
        if self.postgres and not self.pending and self.idle():  # read with the BEGIN
            self.prefetch_requests([table_id], [key])
            return self.request_start(table_id, key)
        ((seq, hash_, scope),) = self.driver_rows(_REQUEST_START, (table_id, key))
        head = ChainHead() if seq is None else ChainHead(int(seq), hash_)
        return head, None if scope is None else self.idempotency_get(key)

    def prefetch_requests(self, table_ids: Sequence[str], keys: Sequence[str]) -> None:
        """PostgreSQL: read the heads of ``table_ids``' logs and which of ``keys`` are stored,
        in ONE round trip — with the transaction's ``BEGIN`` when nothing of it was sent yet —
        for the table requests this transaction runs next (:meth:`request_start` then reads
        nothing for them). SQLite: nothing (no round trips; :meth:`request_start` reads)."""
        if not self.postgres:
            return
        if self.pending:
            self.flush_writes()
        raw = self.driver_connection()
        escape = escaping(raw)
        query = _PREFETCH % (text_array(escape, table_ids), text_array(escape, keys))
        begin = begin_statement(raw)
        if begin is not None:
            query = begin + b"; " + query
        try:
            results = pgwire.simple_query(raw, query)
        except self._driver_error as exc:
            if begin is not None:
                abandon(raw)
            raise self.driver_failure(query.decode(), None, exc) from exc
        self.keys.update(dict.fromkeys(keys))
        for kind, name, seq, value in text_rows(results[-1]):
            assert name is not None
            if kind == "h":
                at_seq = ChainHead() if seq is None or value is None else ChainHead(int(seq), value)
                self.heads[name] = at_seq
            else:
                self.keys[name] = value

    def idempotency_put(
        self, key: str, *, scope: str, request_sha256: str, response: Mapping[str, Any]
    ) -> None:
        """Store the first result of the command ``key``. Refuses a key already stored
        (``store.idempotency_exists``: look it up first) and an empty key or scope. The key is
        not read first: the primary key refuses a duplicate (``ON CONFLICT DO NOTHING``, so
        the transaction stays usable), nothing written then. Once the transaction defers its
        writes (PostgreSQL, :meth:`~._base.TxBase.defer_writes`) the record is written with
        the commit, a key stored meanwhile by another transaction refused there (a key this
        transaction stored: here)."""
        self.writable()
        require_text(key, "key")
        require_text(scope, "scope")
        if key in self.written:
            raise StoreError("store.idempotency_exists", key=key)
        text, at = dumps(dict(response)), self.now()
        assert text is not None
        if self.deferring:  # PostgreSQL: with the commit (TxBase.defer_writes)
            self.pending.keys.append((key, scope, request_sha256, text, at))
            self.note_pending()
        else:
            stored = self.driver_rows(
                _IDEMPOTENCY_PUT, (key, scope, request_sha256, text, self.bind_time(at))
            )
            if not stored:
                raise StoreError("store.idempotency_exists", key=key)
        self.written[key] = (scope, request_sha256, text, at)

    def idempotency_prune(self, before: datetime, *, limit: int = 10_000) -> int:
        """Delete the idempotency records stored before ``before`` (the oldest first, at most
        ``limit``, so that one transaction stays short: call again while it returns
        ``limit``); returns how many. A retry of a pruned key then runs as a new command: the
        retention (the server's ``idempotency_days``) must be far longer than any client
        retries. Nothing else refers to these records (not the logs, the ledger or verify)."""
        self.writable()
        require_int(limit, "limit", minimum=1)
        if not isinstance(before, datetime) or before.tzinfo is None:
            raise StoreError("store.bad_value", field="before", value=repr(before))
        i = s.idempotency.c
        oldest = select(i.key).where(i.created_at < before).order_by(i.created_at).limit(limit)
        gone = self.connection.execute(delete(s.idempotency).where(i.key.in_(oldest)))
        return int(gone.rowcount)

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
        stored = self.driver_rows(
            _SHOE_PUT, (table_id, shoe_no, commitment, self.bind_time(self.now()))
        )
        if not stored:
            raise StoreError("store.shoe_exists", table_id=table_id, shoe_no=shoe_no)

    def shoe_reveal(
        self, table_id: str, shoe_no: int, revealed: Mapping[str, Any], verified: bool
    ) -> None:
        """Record a shoe's reveal and whether the cards dealt matched it. Refuses an unknown
        shoe (``store.unknown_shoe``) or one already revealed (``store.shoe_revealed``)."""
        self.writable()
        done = self.driver_rows(
            _SHOE_REVEAL,
            (
                dumps(dict(revealed)),
                bool(verified),
                self.bind_time(self.now()),
                table_id,
                shoe_no,
            ),
        )
        if done:
            return
        if self._shoe_row(table_id, shoe_no) is None:
            raise StoreError("store.unknown_shoe", table_id=table_id, shoe_no=shoe_no)
        raise StoreError("store.shoe_revealed", table_id=table_id, shoe_no=shoe_no)

    def shoes(self, table_id: str) -> list[ShoeRecord]:
        """Every shoe of ``table_id``, in order."""
        rows = self.connection.execute(
            select(s.shoes).where(s.shoes.c.table_id == table_id).order_by(s.shoes.c.shoe_no)
        )
        return [_shoe_record(r) for r in rows]

    def revealed_shoes_page(
        self, table_id: str | None = None, *, before: ShoeCursor | None = None, limit: int
    ) -> ShoesPage:
        """The revealed shoes (of ``table_id``, else of every table) newest first — by reveal
        time, then table and number, descending — after ``before`` (the previous page's
        ``next``), at most ``limit``. One statement reads at most ``limit + 1`` rows along an
        index (schema v8: ``ix_shoes_revealed``, ``ix_shoes_table_revealed``), so a page costs
        the same whatever the history; an unfinished shoe (no reveal) is never listed."""
        require_int(limit, "limit", minimum=1)
        c = s.shoes.c
        query = select(s.shoes).where(c.revealed_at.is_not(None))
        if table_id is not None:
            query = query.where(c.table_id == table_id)
        if before is not None:
            at = before.revealed_at
            query = query.where(
                c.revealed_at <= at,  # the index's range; the rest orders the ties
                or_(
                    c.revealed_at < at,
                    and_(
                        c.revealed_at == at,
                        or_(
                            c.table_id < before.table_id,
                            and_(c.table_id == before.table_id, c.shoe_no < before.shoe_no),
                        ),
                    ),
                ),
            )
        query = query.order_by(c.revealed_at.desc(), c.table_id.desc(), c.shoe_no.desc())
        rows = self.connection.execute(query.limit(limit + 1)).all()
        shoes = tuple(_shoe_record(r) for r in rows[:limit])
        if len(rows) <= limit:
            return ShoesPage(shoes, None)
        last = shoes[-1]
        assert last.revealed_at is not None  # (the query's own condition)
        return ShoesPage(shoes, ShoeCursor(last.revealed_at, last.table_id, last.shoe_no))

    def next_shoe_no(self, table_id: str) -> int:
        """One more than the highest shoe number of ``table_id`` (1 for the first)."""
        top = self.connection.execute(
            select(func.max(s.shoes.c.shoe_no)).where(s.shoes.c.table_id == table_id)
        ).scalar_one_or_none()
        return int(top or 0) + 1

    def shoe(self, table_id: str, shoe_no: int) -> ShoeRecord | None:
        """Shoe ``shoe_no`` of ``table_id`` (one row by its key), or ``None``."""
        r = self._shoe_row(table_id, shoe_no)
        return None if r is None else _shoe_record(r)

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
        """Record a privileged action or a fault, chained to the entry before it (schema v6:
        :func:`~.chain.audit_payload`); returns its id. Refuses an empty action or actor
        (``store.bad_value``).

        The entries form ONE chain in id order: on PostgreSQL this transaction first takes the
        audit log's advisory lock (held to its commit), so writers from any process append one
        after the other; SQLite's writers are serial already."""
        self.writable()
        require_text(action, "action")
        require_text(actor, "actor")
        if self.postgres:
            self.connection.execute(select(func.pg_advisory_xact_lock(AUDIT_LOCK)))
        c = s.audit_log.c
        prev = self.connection.execute(
            select(c.hash).order_by(c.id.desc()).limit(1)
        ).scalar_one_or_none()
        prev = GENESIS if prev is None else prev
        at = self.now()
        text = dumps(dict(detail)) if detail is not None else None
        result = self.connection.execute(
            insert(s.audit_log)
            .values(
                at=at,
                actor=actor,
                action=action,
                table_id=table_id,
                reason=reason,
                detail=text,
                prev_hash=prev,
                hash=chain_hash(prev, audit_payload(at, actor, action, table_id, reason, text)),
            )
            .returning(s.audit_log.c.id)
        )
        return int(result.scalar_one())

    def last_audit(self, action: str) -> AuditEntry | None:
        """The audit log's latest entry of ``action`` (``None``: there is none)."""
        row = self.connection.execute(
            select(s.audit_log)
            .where(s.audit_log.c.action == action)
            .order_by(s.audit_log.c.id.desc())
            .limit(1)
        ).first()
        if row is None:
            return None
        return AuditEntry(
            row.id,
            row.at,
            row.actor,
            row.action,
            row.table_id,
            row.reason,
            loads_object(row.detail),
        )

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


def _shoe_record(r: Any) -> ShoeRecord:
    return ShoeRecord(
        r.table_id,
        r.shoe_no,
        r.commitment,
        loads_object(r.revealed),
        r.verified,
        r.created_at,
        r.revealed_at,
    )
