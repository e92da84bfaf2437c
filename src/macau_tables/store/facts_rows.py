"""The settlement facts as stored (schema v10, ``settlement_facts``): written with each
settlement, summed by the per-position report, read back whole by ``verify``.

A row is one :class:`~macau_tables.facts.FactLine` of one round: the projection of the
``tables.SettlementFacts`` event recorded after the round's settlement (``derived``
false, ``seq`` that event's), or — for a round settled before schema v10 — the line derived once
by ``db upgrade`` from the settlement itself (``derived`` true, ``seq`` the settlement's: the
old chain is not rewritten). The SQL stays here, in the store; what a fact means is
:mod:`macau_tables.facts`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime

from sqlalchemy import func, insert, select

from ..facts import FactLine
from . import schema as s
from .tx import Tx

__all__ = ["FactRow", "fact_rows", "position_sums", "put_facts"]

_LINE = tuple(f.name for f in fields(FactLine))
_AMOUNTS = _LINE[2:]


@dataclass(frozen=True, slots=True)
class FactRow:
    """One stored line of a round's facts."""

    round_id: str
    seq: int
    derived: bool
    at: datetime
    line: FactLine


def put_facts(
    tx: Tx,
    table_id: str,
    round_id: str,
    *,
    seq: int,
    at: datetime,
    derived: bool,
    lines: Sequence[FactLine],
) -> None:
    """Store round ``round_id``'s facts (``lines``; none: nothing to store)."""
    tx.writable()
    if not lines:
        return
    tx.connection.execute(
        insert(s.settlement_facts),
        [
            {
                "table_id": table_id,
                "round_id": round_id,
                "seq": seq,
                "derived": derived,
                "at": at,
                **{name: getattr(line, name) for name in _LINE},
            }
            for line in lines
        ],
    )


def fact_rows(tx: Tx, table_id: str) -> list[FactRow]:
    """Every stored fact of ``table_id``, by round and line (for ``verify``)."""
    c = s.settlement_facts.c
    rows = tx.connection.execute(
        select(s.settlement_facts)
        .where(c.table_id == table_id)
        .order_by(c.seq, c.round_id, c.spot, c.kind)
    )
    return [
        FactRow(
            r.round_id,
            int(r.seq),
            bool(r.derived),
            r.at,
            FactLine(r.spot, r.kind, *(int(getattr(r, name)) for name in _AMOUNTS)),
        )
        for r in rows
    ]


def position_sums(tx: Tx, start: datetime, end: datetime) -> dict[tuple[str, str], FactLine]:
    """The facts of every round settled in ``[start, end)``, summed per table and position
    (``(table_id, spot)`` → a line of kind ``""``): one query, whatever the number of rounds."""
    c = s.settlement_facts.c
    query = (
        select(c.table_id, c.spot, *(func.sum(getattr(c, name)).label(name) for name in _AMOUNTS))
        .where(c.at >= start, c.at < end)
        .group_by(c.table_id, c.spot)
    )
    return {
        (r.table_id, r.spot): FactLine(
            r.spot, "", *(int(getattr(r, name) or 0) for name in _AMOUNTS)
        )
        for r in tx.connection.execute(query)
    }
