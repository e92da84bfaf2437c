"""What the table service reads from the store and writes to it (always through ``Tx``).

:func:`read_table` loads a table: its row, configuration, latest snapshot and the events after
it, folded into a :class:`~.engine.TableState`. :func:`persist` writes one
:class:`~.engine.Batch` inside the caller's transaction: the sealed shoes' commitments, the
events (hash-chained by the store), each event's ledger postings, the side records of table
events (shoe reveals, faults, recoveries: the shoes table, the table's status, the audit log),
the meter's hits (awards that took money from the meter, in the order they were paid), each
settlement's facts (:mod:`.facts`, beside their event) and, now and then between rounds, a
snapshot.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from .. import codec
from ..rng import ShoeOpening, ShoeReveal, leaf_of, verify_leaves
from ..store import (
    ChainHead,
    EventRecord,
    LedgerEntry,
    MeterRecord,
    TableMode,
    TableStatus,
    Tx,
    TxKind,
)
from .adapters import dealing_for
from .dealing import Dealing
from .engine import Batch, TableState, load, restore, snapshot
from .facts import project
from .model import (
    FaultCleared,
    RoundRecovered,
    ShoeLost,
    ShoeRevealed,
    Submitted,
    TableError,
    TableFaulted,
    TableSetup,
)

__all__ = ["Loaded", "persist", "read_table"]


@dataclass(frozen=True, slots=True)
class Loaded:
    """A table as read: its status, dealing adapter, state, chain head, the seq of the
    snapshot it started from (0: none) and its meter (``None``: no meter)."""

    status: TableStatus
    dealing: Dealing
    state: TableState
    head: ChainHead
    snapshot_seq: int
    meter: MeterRecord | None


def read_table(tx: Tx, table_id: str) -> Loaded:
    """Load ``table_id``. Refuses an unknown table (``store.unknown_table``) and a table whose
    meter does not restart from its configuration's seed (``tables.meter_seed_mismatch``)."""
    rec = tx.table(table_id)
    rules = tx.get_config(rec.config_id)
    resolver = tx.config_resolver()
    setup = TableSetup(
        rec.table_id, rec.game, rec.mode is TableMode.LIVE, rec.demo, rec.config_id, rec.meter_id
    )
    dealing = dealing_for(rec.game, live=setup.live)
    snap = tx.snapshot_latest(table_id)
    if snap is None:
        base = TableState(setup, rules, dealing.initial())
    else:
        base = restore(setup, rules, snap.payload, dealing, resolver)
    after = snap.seq if snap is not None else 0
    events = [r.decode(resolver) for r in tx.read_events(table_id, after=after)]
    meter = tx.meter(rec.meter_id) if rec.meter_id is not None else None
    seed = getattr(rules, "jackpot_seed", None)
    if meter is not None and seed is not None and meter.seed != seed:
        raise TableError(
            "tables.meter_seed_mismatch",
            table=table_id,
            meter=meter.meter_id,
            seed=meter.seed,
            table_seed=seed,
        )
    return Loaded(
        rec.status, dealing, load(base, events, dealing), tx.chain_head(table_id), after, meter
    )


def persist(
    tx: Tx,
    batch: Batch,
    *,
    actor: str,
    kind: TxKind,
    seq: int,
    head: str,
    snapshot_after: int,
    respond: Callable[[Submitted], None],
) -> tuple[Submitted, bool]:
    """Write everything ``batch`` did in ``tx`` (the table's log stood at ``seq``/``head``);
    a snapshot is written when the table ends between rounds at or past ``snapshot_after``.
    ``respond`` is called with the result (the request's idempotency record) before the
    ledger's transactions are posted, so that on PostgreSQL they can go with the commit, in its
    round trip (``Tx.post_deferred``). Returns the result and whether a snapshot was written."""
    state = batch.state
    table_id, meter_id = state.setup.table_id, state.setup.meter_id
    for sealed in batch.sealed:
        tx.shoe_put(table_id, sealed.shoe_no, sealed.commitment)
    stored: list[EventRecord] = []
    for round_id, group in itertools.groupby(batch.records, key=lambda r: r.round_id):
        # The head the service read in this transaction (then each group's last record): not
        # read again; a writer that moved on meanwhile makes the insert fail on the log's key.
        at = ChainHead(seq, head) if not stored else ChainHead(stored[-1].seq, stored[-1].hash)
        events = [r.event for r in group]
        appended = tx.append_events(
            table_id, events, round_id=round_id, expected_seq=at.seq, head=at
        )
        project(tx, table_id, events, appended)  # a settlement's facts, for the reports
        stored += appended
    entries = [
        LedgerEntry(
            rec.postings,
            kind,
            table_id=table_id,
            meter_id=meter_id,
            actor=actor,
            reason=ev.type,
            event_seq=ev.seq,
        )
        for rec, ev in zip(batch.records, stored, strict=True)
        if rec.postings
    ]
    last = stored[-1] if stored else None
    new_seq = last.seq if last is not None else seq
    r: Any = state.round
    result = Submitted(
        table_id,
        None if r is None else str(r.round_id),
        stored[0].seq if stored else seq + 1,
        new_seq,
        last.hash if last is not None else head,
        None if r is None else str(r.expected_next().phase),
        tuple(ev.type for ev in stored),
    )
    respond(result)
    if entries:  # one ledger transaction per event, all written at once
        # On PostgreSQL with the commit, in its round trip, unless one of the writes below
        # comes first (it then writes them before itself: the order of the locks is kept).
        tx.post_deferred(entries)
    for rec in batch.records:
        if isinstance(rec.event, _SIDE_RECORDED):
            _side_record(tx, table_id, rec.event, actor)
    if meter_id is not None:
        for round_id, hit in batch.hits:
            if hit.from_meter > 0:
                tx.record_hit(
                    meter_id,
                    table_id=table_id,
                    round_id=round_id,
                    box=hit.box,
                    combination=hit.combination,
                    amount=hit.amount,
                    place=hit.place,
                )
    snap = last is not None and not state.round_open and new_seq >= snapshot_after
    if snap:
        tx.snapshot_put(table_id, new_seq, snapshot(state, batch.dealing))
    return result, snap


_SIDE_RECORDED: Final = (ShoeRevealed, ShoeLost, TableFaulted, FaultCleared, RoundRecovered)
"""The table events :func:`_side_record` writes beside the log (a round's events: none)."""


def _leaves(event: ShoeRevealed) -> tuple[str, ...]:
    return tuple(
        leaf_of(i, card, salt)
        for i, (card, salt) in enumerate(zip(event.order, event.salts, strict=True))
    )


def _side_record(tx: Tx, table_id: str, event: object, actor: str) -> None:
    """What a table event changes beside the log: the shoes table, the table's status, the
    audit log."""
    if isinstance(event, ShoeRevealed):
        # The shoes table keeps what may be published: a card-by-card shoe's leaf hashes and
        # the cards the public view showed (ShoeOpening; the whole order and every salt stay in
        # the log, for the audit archive); a whole-shoe commitment's reveal as the core
        # ShoeReveal. The store's verification checks either against the commitment.
        if event.salts:
            revealed = codec.encode(ShoeOpening(event.commitment, _leaves(event), event.public))
        else:
            revealed = codec.encode(ShoeReveal(event.order, event.salt))
        tx.shoe_reveal(table_id, event.shoe_no, revealed, event.verified)
    elif isinstance(event, ShoeLost):
        if event.leaves:
            # A lost card-by-card shoe still proves what was dealt: its leaves are kept.
            opening = ShoeOpening(event.commitment, event.leaves, event.public)
            ok = verify_leaves(event.commitment, event.leaves)
            tx.shoe_reveal(table_id, event.shoe_no, codec.encode(opening), ok)
        tx.audit(
            "shoe_lost",
            actor=actor,
            table_id=table_id,
            reason=event.reason,
            detail={"shoe_no": event.shoe_no, "shoe_id": event.shoe_id},
        )
    elif isinstance(event, TableFaulted):
        tx.set_table_status(
            table_id,
            TableStatus.FAULT,
            actor=actor,
            reason=event.reason,
            fault={"reason": event.reason, "reported_by": event.reported_by},
        )
    elif isinstance(event, FaultCleared):
        tx.set_table_status(table_id, TableStatus.OPEN, actor=event.supervisor, reason=event.reason)
    elif isinstance(event, RoundRecovered):
        tx.audit(
            "round_recovered",
            actor=actor,
            table_id=table_id,
            reason=event.reason,
            detail={"round_id": event.round_id, "action": event.action, "rule": event.rule},
        )
