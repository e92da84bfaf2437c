"""Large jackpot awards held for a supervisor (STANDARDS: a hand-paid
jackpot above a threshold is authorised and logged).

A table service given a threshold (``TableService(hold_awards_from=…)``; the server passes
``Settings.jackpot_supervisor_threshold``) holds every jackpot award (CSP-10, BAC-17) of at
least that amount:

* **Hold.** The settlement is the law's and is recorded unchanged (it pays the award to the
  winner's wallet, and re-derivation still finds exactly it). In the SAME database transaction
  (:func:`hold_awards`, called by the service before it persists a batch) an
  :class:`~.model.AwardHeld` table event follows the settlement in the table's log, moving the
  award from the wallet to its own held account ``held_award:<hold id>``
  (:func:`macau_tables.ledger.award_held`), and the audit log records ``award_held`` (table,
  round, player, spot, combination, amount). A crash leaves either the settlement with its
  hold, or neither: the award is never in the wallet unauthorised.
* **Release.** A supervisor's :class:`~.model.ReleaseAward` (``hold_id``, ``supervisor``,
  ``reason``; through ``POST /api/tables/{id}/commands``) records an
  :class:`~.model.AwardReleased` moving the held account back to the wallet, with the audit
  log's ``award_released`` (who, when, why), in one transaction (:func:`release_awards`).
  Once only: a second release is refused (``holds.already_released``, 409), and the held account may
  not go negative, so the store refuses it even if two processes raced. A release is taken
  while a fault stops the table (the award is owed whatever the table does next).

The hold id is ``"<round id>:<n>"``: the round and the place (1-based) of the wager result in
its settlement. :func:`waiting_holds` lists the holds not yet released (``GET
/api/authorisations``); :func:`hold_postings` is what re-derivation (:mod:`.rederive`) expects a
hold's events to move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

from ..ledger import Posting, award_held, award_released
from ..rounds import WagerResult
from ..store import Tx, TxKind
from .engine import Batch, Record
from .model import AwardHeld, AwardReleased, ReleaseAward, TableError, text_field

if TYPE_CHECKING:  # pragma: no cover
    from .model import Submitted
    from .service import TableService

__all__ = [
    "HOLD_EVENTS",
    "Hold",
    "HoldError",
    "held_awards",
    "hold_awards",
    "hold_postings",
    "release_awards",
    "settled_results",
    "waiting_holds",
]


class HoldError(TableError):
    """A release the table refuses because the award was already paid (409)."""

    http_status: ClassVar[int] = 409


HOLD_EVENTS = (AwardHeld, AwardReleased)
"""The table events that move held awards."""


@dataclass(frozen=True, slots=True)
class Hold:
    """A held award as the audit log records it; ``released_by`` / ``reason``: the release
    (``None`` while it waits)."""

    hold_id: str
    table_id: str
    round_id: str
    player: str
    spot: str
    combination: str
    amount: int
    released_by: str | None = None
    reason: str | None = None

    @property
    def waiting(self) -> bool:
        """Not released yet."""
        return self.released_by is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def settled_results(event: object) -> tuple[WagerResult, ...]:
    """The :class:`~macau_tables.rounds.WagerResult` lines of a settling event's
    ``settlement`` (whatever the game names the field; ``()`` for any other event)."""
    settlement = getattr(event, "settlement", None)
    if settlement is None:
        return ()
    for f in fields(settlement):
        value = getattr(settlement, f.name)
        if isinstance(value, tuple) and value and all(isinstance(v, WagerResult) for v in value):
            return value
    return ()


def hold_postings(event: object) -> tuple[Posting, ...]:
    """What a hold event moves (``()`` for any other event)."""
    if isinstance(event, AwardHeld):
        return award_held(event.player, event.hold_id, event.amount)
    if isinstance(event, AwardReleased):
        return award_released(event.player, event.hold_id, event.amount)
    return ()


def _combination(batch: Batch, event: object, amount: int) -> str:
    """The combination of the award of ``amount`` the event paid (the adapter's hits)."""
    names = sorted({h.combination for h in batch.dealing.hits(event) if h.amount == amount})
    return "/".join(names) or "-"


def hold_awards(tx: Tx, batch: Batch, hold_from: int | None) -> None:
    """In the transaction that persists ``batch``: every jackpot award of at least
    ``hold_from`` (``None``: none is held) paid by a settlement of the batch is held (an
    :class:`AwardHeld` record right after the settlement, audited ``award_held``); every
    release in the batch is audited ``award_released``."""
    table_id = batch.state.setup.table_id
    out: list[Record] = []
    for rec in batch.records:
        out.append(rec)
        if isinstance(rec.event, AwardReleased):
            e = rec.event
            tx.audit(
                "award_released",
                actor=e.supervisor,
                table_id=table_id,
                reason=e.reason,
                detail={
                    "hold_id": e.hold_id,
                    "round_id": e.round_id,
                    "player": e.player,
                    "amount": e.amount,
                },
            )
        if hold_from is None or rec.round_id is None:
            continue
        for n, w in enumerate(settled_results(rec.event), start=1):
            if w.award <= 0 or w.award < hold_from:
                continue
            held = AwardHeld(
                f"{rec.round_id}:{n}",
                rec.round_id,
                w.player,
                w.spot,
                _combination(batch, rec.event, w.award),
                w.award,
            )
            out.append(Record(rec.round_id, held, hold_postings(held)))
            tx.audit(
                "award_held",
                actor=batch.actor,
                table_id=table_id,
                reason=f"jackpot award of {w.award} reaches the threshold of {hold_from}",
                detail=_held_detail(held),
            )
    batch.records[:] = out


def _held_detail(e: AwardHeld) -> dict[str, Any]:
    return {
        "hold_id": e.hold_id,
        "round_id": e.round_id,
        "player": e.player,
        "spot": e.spot,
        "combination": e.combination,
        "amount": e.amount,
    }


def held_awards(tx: Tx, table_id: str | None = None) -> list[Hold]:
    """Every hold (of ``table_id`` if given) with its release, oldest first."""
    released = {
        str((a.detail or {}).get("hold_id")): a
        for a in tx.audit_entries(table_id=table_id, action="award_released")
    }
    out = []
    for a in tx.audit_entries(table_id=table_id, action="award_held"):
        d = a.detail or {}
        hold_id = str(d.get("hold_id"))
        r = released.get(hold_id)
        out.append(
            Hold(
                hold_id,
                str(a.table_id),
                str(d.get("round_id")),
                str(d.get("player")),
                str(d.get("spot")),
                str(d.get("combination")),
                int(d.get("amount", 0)),
                None if r is None else r.actor,
                None if r is None else r.reason,
            )
        )
    return out


def waiting_holds(tx: Tx, table_id: str | None = None) -> list[Hold]:
    """The holds waiting for a supervisor (of ``table_id`` if given), oldest first."""
    return [h for h in held_awards(tx, table_id) if h.waiting]


def release_awards(
    service: TableService,
    commands: Sequence[object],
    request: str,
    idempotency_key: str,
    actor: str,
) -> Submitted:
    """Run ``commands`` — every one a :class:`ReleaseAward` — at ``service``'s table as ONE
    idempotent request (see the module docstring). Refuses, with nothing written: a request
    mixing a release with other commands (``holds.release_alone``); an unknown hold
    (``holds.hold_unknown``, 404); a hold already released (``holds.already_released``,
    409); an empty supervisor or reason (``tables.text_required``); the same key with another
    request (``tables.idempotency_mismatch``)."""
    key = text_field(idempotency_key, "idempotency_key")
    who = text_field(actor, "actor")
    releases = [c for c in commands if isinstance(c, ReleaseAward)]
    if len(releases) != len(commands):
        raise TableError("holds.release_alone")
    table_id = service.table_id
    events: list[AwardReleased] = []
    with service._lock:  # the service's own lock: one writer per table
        # A retry (its key already used) gets the first answer from the service, or the
        # refusal of another request under that key: nothing is checked again here.
        if service.store.read(lambda tx: tx.idempotency_get(key)) is None:
            holds = {h.hold_id: h for h in service.store.read(lambda tx: held_awards(tx, table_id))}
            for c in releases:
                hold_id = text_field(c.hold_id, "hold_id")
                supervisor = text_field(c.supervisor, "supervisor")
                reason = text_field(c.reason, "reason")
                h = holds.get(hold_id)
                if h is None:
                    raise TableError("holds.hold_unknown", hold_id=hold_id, table=table_id)
                if not h.waiting or any(e.hold_id == hold_id for e in events):
                    raise HoldError(
                        "holds.already_released", hold_id=hold_id, supervisor=h.released_by or who
                    )
                events.append(
                    AwardReleased(hold_id, h.round_id, h.player, h.amount, supervisor, reason)
                )

        def step(batch: Batch) -> None:
            for e in events:
                batch.records.append(Record(None, e, hold_postings(e)))

        return service._run(  # the service's one transaction per request
            step, key=key, request=request, actor=who, kind=TxKind.ROUND
        )
