"""Settlement facts in the store: recorded with each settlement, back-filled once for the
rounds settled before schema v10, and checked by ``verify`` (:mod:`macau_tables.facts` says
what a fact is).

* :func:`project` — in the settling transaction (:func:`.storage.persist`): each
  ``tables.SettlementFacts`` event just appended is stored in ``settlement_facts`` too, the
  table the per-position report sums (:func:`macau_tables.store.facts_rows.position_sums`);
* :func:`backfill` — ``db upgrade`` to schema v10 (migration ``v0010_settlement_facts``): each
  round settled before, which has no facts event in its chain, gets its facts derived by its
  game's plug-in from its settlement event and stored *derived* (the chain is not rewritten);
* :func:`check_facts` — ``verify``: for every table, the facts the plug-in derives from each
  settlement event equal the facts event recorded after it (if any) and the stored rows
  (``derived`` exactly when no facts event was recorded, at the settlement's time); no fact is
  stored for a round that did not settle. The first difference is a finding.

Nothing here names a game: the plug-in says which events settle a round (``settling``) and
what their facts are (``facts``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import fields
from datetime import datetime

from sqlalchemy import select

from .. import codec
from ..facts import FactLine, SettlementFacts
from ..games import GAMES
from ..store import EventRecord, TableRecord, Tx
from ..store import schema as s
from ..store.facts_rows import FactRow, fact_rows, put_facts
from .findings import Finding, finding

__all__ = [
    "FACTS_TYPE",
    "FactsPicker",
    "FactsStored",
    "Picked",
    "backfill",
    "check_facts",
    "check_table_facts",
    "facts_kinds",
    "facts_stored",
    "project",
]

FACTS_TYPE = "tables.SettlementFacts"
"""The codec name of the facts event (:class:`~macau_tables.facts.SettlementFacts`)."""


def project(tx: Tx, table_id: str, events: Sequence[object], stored: Sequence[EventRecord]) -> None:
    """Store the facts among ``events`` just appended as ``stored`` (same order)."""
    for event, record in zip(events, stored, strict=True):
        if isinstance(event, SettlementFacts) and record.round_id is not None:
            put_facts(
                tx,
                table_id,
                record.round_id,
                seq=record.seq,
                at=record.recorded_at,
                derived=False,
                lines=event.lines,
            )


def _settlements(tx: Tx, table: TableRecord) -> list[tuple[EventRecord, SettlementFacts]]:
    """``table``'s settling events, in chain order, each with the facts its plug-in derives."""
    plugin = GAMES[table.game]
    names = [codec.type_name(t) for t in plugin.settling]
    if not names:
        return []
    return [
        (r, facts)
        for r in _records(tx, table.table_id, names)
        if (facts := plugin.facts(r.decode(tx.config_resolver()))) is not None
    ]


def _records(tx: Tx, table_id: str, types: Sequence[str]) -> list[EventRecord]:
    """``table_id``'s records of ``types``, in chain order."""
    c = s.events.c
    rows = tx.connection.execute(
        select(s.events).where(c.table_id == table_id, c.type.in_(types)).order_by(c.seq)
    )
    return [
        EventRecord(
            r.table_id,
            int(r.seq),
            r.round_id,
            r.type,
            r.payload,
            r.prev_hash,
            r.hash,
            r.recorded_at,
        )
        for r in rows
    ]


def backfill(tx: Tx) -> int:
    """Derive and store the facts of every settled round that has none (no facts event in its
    chain, no stored row; a facts event without its rows is stored as recorded); returns how
    many rounds got them. Run by ``db upgrade`` (schema v10); running it again does nothing."""
    done = 0
    for table in sorted(tx.tables(), key=lambda t: t.table_id):
        stored = {row.round_id for row in fact_rows(tx, table.table_id)}
        recorded = set()
        resolver = tx.config_resolver()
        for r in _records(tx, table.table_id, [FACTS_TYPE]):
            recorded.add(r.round_id)
            if r.round_id is not None and r.round_id not in stored:
                # A facts event whose rows are gone (a database downgraded and upgraded again).
                project(tx, table.table_id, [r.decode(resolver)], [r])
                done += 1
        for record, facts in _settlements(tx, table):
            rid = record.round_id
            if rid is None or rid in recorded or rid in stored or not facts.lines:
                continue
            put_facts(
                tx,
                table.table_id,
                rid,
                seq=record.seq,
                at=record.recorded_at,
                derived=True,
                lines=facts.lines,
            )
            done += 1
    return done


def check_facts(tx: Tx) -> Finding | None:
    """The first settlement fact, of any table, that is not what its round's plug-in derives
    from its settlement (module docstring); ``None`` when all hold."""
    for table in sorted(tx.tables(), key=lambda t: t.table_id):
        found = check_table_facts(tx, table)
        if found is not None:
            return found
    return None


def facts_kinds(game: str) -> tuple[type, ...]:
    """The event classes the facts check of a table of ``game`` reads: the facts event and
    the game's settling events."""
    return (SettlementFacts, *GAMES[game].settling)


Picked = tuple[int, str | None, bool, SettlementFacts]
"""What the facts check needs of one event: its ``seq``, ``round_id``, whether it is a
recorded facts event (else a settling event) and the facts (recorded, or derived by the
game's plug-in)."""


class FactsPicker:
    """The events the facts check of a table of ``game`` needs, picked from a pass over its
    decoded log (``picker(seq, round_id, event)`` for every event, in chain order): each
    recorded facts event and each settling event's facts as its plug-in derives them
    (:attr:`picked`)."""

    def __init__(self, game: str) -> None:
        self.plugin = GAMES[game]
        self.kinds = facts_kinds(game)
        self.picked: list[Picked] = []

    def __call__(self, seq: int, round_id: str | None, event: object) -> None:
        if not isinstance(event, self.kinds):
            return
        if isinstance(event, SettlementFacts):
            self.picked.append((seq, round_id, True, event))
        elif (facts := self.plugin.facts(event)) is not None:
            self.picked.append((seq, round_id, False, facts))


def check_table_facts(
    tx: Tx,
    table: TableRecord,
    *,
    logged: Iterable[tuple[int, str | None, object]] | None = None,
    until_seq: int | None = None,
    picked: Iterable[Picked] | None = None,
    stored: FactsStored | None = None,
) -> Finding | None:
    """:func:`check_facts` for one table (what a verification that splits its work by table
    runs in each table's job). ``logged``: the table's events already read and decoded by the
    caller, ``(seq, round_id, event)`` in chain order up to ``until_seq`` (``verify``'s one
    pass over the log; ``None``: read here); only the settling and facts events among them are
    looked at, and only the stored facts up to ``until_seq`` (if given) are compared.
    ``picked``: instead, what a :class:`FactsPicker` picked from that pass; ``stored``: the
    table's stored facts, read before (:func:`facts_stored`, in the same snapshot)."""
    table_id = table.table_id

    def fail(record: str, key: str, /, **params: object) -> Finding:
        return finding("facts", "settlement_facts", record, table_id, key, **params)

    plugin = GAMES[table.game]
    names = [FACTS_TYPE, *(codec.type_name(t) for t in plugin.settling)]
    if picked is None:
        if logged is None:
            resolver = tx.config_resolver()
            logged = (
                (r.seq, r.round_id, r.decode(resolver))
                for r in _records(tx, table_id, names)
                if until_seq is None or r.seq <= until_seq
            )
        picker = FactsPicker(table.game)
        for seq, rid, event in logged:
            picker(seq, rid, event)
        picked = picker.picked
    stored_rows, at = facts_stored(tx, table) if stored is None else stored
    events: dict[str | None, tuple[int, SettlementFacts]] = {}
    settlements: list[tuple[int, str | None, SettlementFacts]] = []
    for seq, rid, recorded, facts in picked:
        if recorded:
            events[rid] = (seq, facts)
        else:
            settlements.append((seq, rid, facts))
    rows: dict[str, list[FactRow]] = {}
    for row in stored_rows:
        if until_seq is None or row.seq <= until_seq:
            rows.setdefault(row.round_id, []).append(row)
    settled: set[str | None] = set()
    for settled_seq, rid, facts in settlements:
        settled.add(rid)
        here = f"{table_id}#{settled_seq}"
        logged_facts = events.get(rid)
        if logged_facts is not None and logged_facts[1] != facts:
            return fail(
                f"{table_id}#{logged_facts[0]}", "operations.verify_facts_event", round_id=rid
            )
        mine = rows.get(rid or "", [])
        seq, derived = (logged_facts[0], False) if logged_facts is not None else (settled_seq, True)
        if _ordered(r.line for r in mine) != _ordered(facts.lines) or any(
            not _same(r, seq, derived, at[seq]) for r in mine
        ):
            return fail(here, "operations.verify_facts", round_id=rid)
    for rid, (event_seq, _) in events.items():
        if rid not in settled:
            return fail(f"{table_id}#{event_seq}", "operations.verify_facts_event", round_id=rid)
    for rid, mine in rows.items():
        if rid not in settled:
            return fail(f"{table_id}#{mine[0].seq}", "operations.verify_facts", round_id=rid)
    return None


FactsStored = tuple[list[FactRow], dict[int, datetime]]
"""A table's stored facts rows and when each facts and settling event was recorded."""


def facts_stored(tx: Tx, table: TableRecord) -> FactsStored:
    """What the facts check of ``table`` compares with: its stored facts rows and when each
    of its facts and settling events was recorded, by ``seq``."""
    plugin = GAMES[table.game]
    names = [FACTS_TYPE, *(codec.type_name(t) for t in plugin.settling)]
    return _fact_rows(tx, table.table_id), _recorded_at(tx, table.table_id, names)


_AMOUNTS = tuple(f.name for f in fields(FactLine))[2:]


def _fact_rows(tx: Tx, table_id: str) -> list[FactRow]:
    """What :func:`~macau_tables.store.facts_rows.fact_rows` reads (every stored fact of
    ``table_id``, by round and line), its columns read as plain rows."""
    c = s.settlement_facts.c
    rows = tx.connection.execute(
        select(c.round_id, c.seq, c.derived, c.at, c.spot, c.kind, *(c[n] for n in _AMOUNTS))
        .where(c.table_id == table_id)
        .order_by(c.seq, c.round_id, c.spot, c.kind)
    ).all()
    return [
        FactRow(r[0], int(r[1]), bool(r[2]), r[3], FactLine(r[4], r[5], *map(int, r[6:])))
        for r in rows
    ]


def _recorded_at(tx: Tx, table_id: str, types: Sequence[str]) -> dict[int, datetime]:
    """When each event of ``types`` of ``table_id`` was recorded, by ``seq``."""
    c = s.events.c
    rows = tx.connection.execute(
        select(c.seq, c.recorded_at).where(c.table_id == table_id, c.type.in_(types))
    ).all()
    return {int(seq): at for seq, at in rows}


def _ordered(lines: Iterable[FactLine]) -> tuple[FactLine, ...]:
    """``lines`` by spot, then kind (whatever order the database read them in)."""
    return tuple(sorted(lines, key=lambda x: (x.spot, x.kind)))


def _same(row: FactRow, seq: int, derived: bool, at: datetime) -> bool:
    return row.seq == seq and row.derived == derived and row.at == at
