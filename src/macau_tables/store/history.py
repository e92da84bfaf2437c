"""Read-only queries over a casino's history, for recall, reports, verification and audit
archives (``macau-tables recall | report | verify | audit export``).

Each function takes an open :class:`~macau_tables.store.Tx` (inside ``store.read``) and only
reads; the SQL stays here, in the store. Times are aware ``datetime``s (UTC); a *range* is
``[start, end)``.

* :func:`balances_before` — accounts' balances just before a transaction (sum of their postings
  in earlier transactions): a player's wallet before a round, a meter before a settlement;
  :func:`balances_at` — at a moment (the meters and carried wagers at the end of a day);
* :func:`meter_postings` — every posting to every meter account, in transaction order;
* :func:`event_range`, :func:`tx_range`, :func:`round_start` — where a day begins and ends in
  a table's log and in the ledger;
* :func:`transactions_of_events` — the transactions recording some events of a table;
* :func:`posting_totals`, :func:`round_end_counts` — sums per account kind and reason, rounds
  settled and voided, of a table over a range (the daily report);
* :func:`meter_log`, :func:`meter_hit_rows` — a meter's hash-chained log and hits as stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from . import schema as s
from .records import MeterHit, TransactionRecord
from .tx import Tx

__all__ = [
    "MeterLogRow",
    "audit_segment",
    "balances_at",
    "balances_before",
    "config_ids",
    "event_range",
    "meter_hit_rows",
    "meter_log",
    "meter_postings",
    "posting_totals",
    "round_end_counts",
    "round_start",
    "settled_round_ids",
    "transactions_of_events",
    "tx_range",
]

MeterLogRow = tuple[int, str, str, str, str]
"""A meter log entry as stored: ``(seq, kind, payload, prev_hash, hash)``."""


def balances_before(tx: Tx, account_ids: Iterable[str] | None, tx_id: int) -> dict[str, int]:
    """The balance of each of ``account_ids`` (``None``: every account that has postings) just
    before transaction ``tx_id``: the sum of its postings in transactions with a smaller id.
    An account without such postings is 0."""
    p = s.postings.c
    query = select(p.account_id, func.sum(p.amount).label("total")).where(p.tx_id < tx_id)
    wanted = None if account_ids is None else sorted(set(account_ids))
    if wanted is not None:
        if not wanted:
            return {}
        query = query.where(p.account_id.in_(wanted))
    rows = tx.connection.execute(query.group_by(p.account_id))
    out = {r.account_id: int(r.total) for r in rows}
    if wanted is not None:
        return {a: out.get(a, 0) for a in wanted}
    return out


def meter_postings(tx: Tx) -> dict[str, list[tuple[int, int]]]:
    """Every posting to a jackpot meter account: account id → ``[(tx_id, amount), …]`` in
    transaction order."""
    p, a = s.postings.c, s.accounts.c
    rows = tx.connection.execute(
        select(p.account_id, p.tx_id, p.amount)
        .join(s.accounts, a.account_id == p.account_id)
        .where(a.kind == "jackpot_meter")
        .order_by(p.tx_id, p.line)
    )
    out: dict[str, list[tuple[int, int]]] = {}
    for r in rows:
        out.setdefault(r.account_id, []).append((int(r.tx_id), int(r.amount)))
    return out


def event_range(
    tx: Tx, table_id: str, start: datetime | None, end: datetime | None
) -> tuple[int, int] | None:
    """The first and last ``seq`` of ``table_id``'s events recorded in ``[start, end)``
    (``None`` bounds are open); ``None`` when there is none."""
    c = s.events.c
    query = select(func.min(c.seq), func.max(c.seq)).where(c.table_id == table_id)
    if start is not None:
        query = query.where(c.recorded_at >= start)
    if end is not None:
        query = query.where(c.recorded_at < end)
    low, high = tx.connection.execute(query).one()
    return None if low is None else (int(low), int(high))


def tx_range(tx: Tx, start: datetime | None, end: datetime | None) -> tuple[int, int] | None:
    """The first and last ``tx_id`` of the transactions created in ``[start, end)``; ``None``
    when there is none."""
    c = s.transactions.c
    query = select(func.min(c.tx_id), func.max(c.tx_id))
    if start is not None:
        query = query.where(c.created_at >= start)
    if end is not None:
        query = query.where(c.created_at < end)
    low, high = tx.connection.execute(query).one()
    return None if low is None else (int(low), int(high))


def audit_segment(tx: Tx, start: datetime, end: datetime) -> list[Any]:
    """The audit log's entries from the first made at or after ``start`` to the last made
    before ``end``, every entry between them by id (one unbroken piece of its chain): rows
    with ``id, at, actor, action, table_id, reason, detail, prev_hash, hash``, by id."""
    c = s.audit_log.c
    low = tx.connection.execute(select(func.min(c.id)).where(c.at >= start)).scalar_one()
    high = tx.connection.execute(select(func.max(c.id)).where(c.at < end)).scalar_one()
    if low is None or high is None or low > high:
        return []
    return list(
        tx.connection.execute(select(s.audit_log).where(c.id >= low, c.id <= high).order_by(c.id))
    )


def settled_round_ids(tx: Tx, table_id: str, start: datetime, end: datetime) -> list[str]:
    """The rounds of ``table_id`` whose settlement (an event ``….RoundSettled``) was recorded
    in ``[start, end)``, in the order they settled."""
    c = s.events.c
    rows = tx.connection.execute(
        select(c.round_id)
        .where(
            c.table_id == table_id,
            c.recorded_at >= start,
            c.recorded_at < end,
            c.type.like("%.RoundSettled"),
            c.round_id.is_not(None),
        )
        .order_by(c.seq)
    )
    return [r.round_id for r in rows]


def round_start(tx: Tx, table_id: str, seq: int) -> int:
    """Where the round in progress at record ``seq`` of ``table_id`` began: the first ``seq``
    of the round of the last record at or before ``seq`` that belongs to a round (``seq``
    itself when none does)."""
    c = s.events.c
    round_id = tx.connection.execute(
        select(c.round_id)
        .where(c.table_id == table_id, c.seq <= seq, c.round_id.is_not(None))
        .order_by(c.seq.desc())
        .limit(1)
    ).scalar_one_or_none()
    if round_id is None:
        return seq
    first = tx.connection.execute(
        select(func.min(c.seq)).where(c.table_id == table_id, c.round_id == round_id)
    ).scalar_one()
    return min(int(first), seq)


def transactions_of_events(
    tx: Tx, table_id: str, first_seq: int, last_seq: int
) -> list[TransactionRecord]:
    """The transactions recording ``table_id``'s events ``first_seq`` … ``last_seq``, in id
    order, with their postings."""
    c = s.transactions.c
    ids = tx.connection.execute(
        select(c.tx_id).where(
            c.table_id == table_id, c.event_seq >= first_seq, c.event_seq <= last_seq
        )
    ).scalars()
    wanted = [int(i) for i in ids]
    return tx.transactions(tx_ids=wanted) if wanted else []


def posting_totals(
    tx: Tx, table_id: str, start: datetime | None, end: datetime | None
) -> dict[tuple[str, str], int]:
    """The sum of the postings of ``table_id``'s transactions created in ``[start, end)``, by
    ``(account kind, posting reason)`` (e.g. ``("wallet", "stake")``)."""
    p, t, a = s.postings.c, s.transactions.c, s.accounts.c
    query = (
        select(a.kind, p.reason, func.sum(p.amount).label("total"))
        .select_from(s.postings)
        .join(s.transactions, t.tx_id == p.tx_id)
        .join(s.accounts, a.account_id == p.account_id)
        .where(t.table_id == table_id)
    )
    if start is not None:
        query = query.where(t.created_at >= start)
    if end is not None:
        query = query.where(t.created_at < end)
    rows = tx.connection.execute(query.group_by(a.kind, p.reason))
    return {(r.kind, r.reason): int(r.total) for r in rows}


def round_end_counts(
    tx: Tx, table_id: str, start: datetime | None, end: datetime | None
) -> dict[str, int]:
    """How many events ending a round (``….RoundSettled``, ``….RoundVoided``) of each type
    ``table_id`` recorded in ``[start, end)``: read from the partial index of the rounds' ends
    (schema v11), not from the day's events."""
    c = s.events.c
    query = select(c.type, func.count().label("n")).where(c.table_id == table_id, s.ROUND_END)
    if start is not None:
        query = query.where(c.recorded_at >= start)
    if end is not None:
        query = query.where(c.recorded_at < end)
    return {r.type: int(r.n) for r in tx.connection.execute(query.group_by(c.type))}


def meter_log(tx: Tx, meter_id: str) -> list[MeterLogRow]:
    """Meter ``meter_id``'s hash-chained log as stored, in order."""
    c = s.meter_log.c
    rows = tx.connection.execute(
        select(c.seq, c.kind, c.payload, c.prev_hash, c.hash)
        .where(c.meter_id == meter_id)
        .order_by(c.seq)
    )
    return [(int(r.seq), r.kind, r.payload, r.prev_hash, r.hash) for r in rows]


def meter_hit_rows(tx: Tx, meter_id: str) -> list[MeterHit]:
    """Every hit of meter ``meter_id`` as stored, oldest first."""
    c = s.meter_hits.c
    rows = tx.connection.execute(select(s.meter_hits).where(c.meter_id == meter_id).order_by(c.seq))
    return [_hit(r) for r in rows]


def _hit(r: Any) -> MeterHit:
    return MeterHit(
        r.meter_id,
        int(r.seq),
        r.table_id,
        r.round_id,
        int(r.box),
        r.combination,
        int(r.amount),
        r.at,
        r.place,
    )


def balances_at(tx: Tx, account_ids: Iterable[str], at: datetime) -> dict[str, int]:
    """The balance of each of ``account_ids`` at time ``at``: the sum of its postings in the
    transactions created before ``at`` (0 without any)."""
    wanted = sorted(set(account_ids))
    if not wanted:
        return {}
    p, t = s.postings.c, s.transactions.c
    rows = tx.connection.execute(
        select(p.account_id, func.sum(p.amount).label("total"))
        .join(s.transactions, t.tx_id == p.tx_id)
        .where(p.account_id.in_(wanted), t.created_at < at)
        .group_by(p.account_id)
    )
    found = {r.account_id: int(r.total) for r in rows}
    return {a: found.get(a, 0) for a in wanted}


def config_ids(tx: Tx) -> list[str]:
    """Every stored configuration's id, in order."""
    c = s.configs.c
    return [
        str(i) for i in tx.connection.execute(select(c.config_id).order_by(c.config_id)).scalars()
    ]
