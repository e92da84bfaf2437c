"""How each event changes a baccarat round: the fold behind ``apply`` and ``replay``.

:func:`evolve` is pure and trusts its event (events are written only by ``apply``, which
decided them): ``BaccaratRound.replay(events)`` is ``reduce(evolve, events)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..cards import Card
from ..errors import ParseError
from ..rounds import replacer
from .commands import CorrectionAction, RevealPart, RevealStep
from .decisions import show
from .events import (
    BettingClosed,
    CardCorrected,
    CardDealt,
    CardRefused,
    CardsRevealed,
    CarriedChanged,
    Event,
    RevealTimedOut,
    RoundOpened,
    RoundPhase,
    RoundSettled,
    RoundVoided,
    WagerPlaced,
    WagerWithdrawn,
)
from .settlement import returned
from .sides import Side
from .tableau import CardSlot

if TYPE_CHECKING:  # pragma: no cover
    from .round import BaccaratRound

__all__ = ["evolve", "next_reveal", "required_reveals"]


def required_reveals(cards: Sequence[tuple[CardSlot, Card]]) -> tuple[RevealStep, ...]:
    """The BAC-16 reveal steps the dealt ``cards`` call for, in order (BAC-7.1: the player's
    hand first; each drawn card on its own)."""
    steps: list[RevealStep] = []
    if len(cards) >= 4:
        steps += [
            RevealStep(Side.PLAYER, RevealPart.FIRST_TWO),
            RevealStep(Side.BANKER, RevealPart.FIRST_TWO),
        ]
    slots = {s for s, _ in cards}
    if CardSlot.PLAYER_3 in slots:
        steps.append(RevealStep(Side.PLAYER, RevealPart.THIRD))
    if CardSlot.BANKER_3 in slots:
        steps.append(RevealStep(Side.BANKER, RevealPart.THIRD))
    return tuple(steps)


def next_reveal(r: BaccaratRound) -> RevealStep | None:
    """The BAC-16 reveal step ``r``'s cards call for next (whatever the phase), or ``None``."""
    if not r.rules.card_holding:
        return None
    done = {x.step for x in r.revealed}
    return next((s for s in required_reveals(r.cards) if s not in done), None)


def _complete(r: BaccaratRound) -> BaccaratRound:
    """DEALING → COMPLETE once every due card is dealt and revealed (and back, after a
    supervisor strikes a card)."""
    if r.phase not in (RoundPhase.DEALING, RoundPhase.COMPLETE):
        return r
    done = (
        len(r.cards) >= 4 and r.pending is None and r.due_slot() is None and next_reveal(r) is None
    )
    phase = RoundPhase.COMPLETE if done else RoundPhase.DEALING
    return r if phase is r.phase else replacer(type(r))(r, phase=phase)


def _strike_last(r: BaccaratRound, e: CardCorrected) -> BaccaratRound:
    if not r.cards or e.slot is None or r.cards[-1] != (e.slot, e.card):
        return r
    cards = r.cards[:-1]
    keep = set(required_reveals(cards))
    return replacer(type(r))(
        r,
        cards=cards,
        exposed=tuple(s for s in r.exposed if s is not e.slot),
        revealed=tuple(x for x in r.revealed if x.step in keep),
        timed_out=tuple(s for s in r.timed_out if s in keep),
    )


def evolve(r: BaccaratRound, e: Event) -> BaccaratRound:
    # One new value per event (the event logged with its change), through ``replacer``.
    new = replacer(type(r))
    log = (*r.events, e)
    if isinstance(e, WagerPlaced):
        return new(r, events=log, wagers=(*r.wagers, e.wager), next_wager_id=e.wager.wager_id + 1)
    if isinstance(e, WagerWithdrawn):
        return new(
            r,
            events=log,
            wagers=tuple(w for w in r.wagers if w.wager_id != e.wager.wager_id),
            returned=(*r.returned, returned(e.wager)),
        )
    if isinstance(e, CarriedChanged):
        old = next(w for w in r.wagers if w.wager_id == e.wager_id)
        wagers = tuple(
            w2
            for w in r.wagers
            for w2 in ((e.new,) if w.wager_id == e.wager_id else (w,))
            if w2 is not None
        )
        back = r.returned
        if e.returned:
            back = (*back, returned(replace(old, amount=e.returned)))
        return new(r, events=log, wagers=wagers, returned=back, decided=r.decided | {e.wager_id})
    if isinstance(e, BettingClosed):
        gone = {w.wager_id for w in e.returned}
        return new(
            r,
            events=log,
            phase=RoundPhase.DEALING,
            wagers=tuple(w for w in r.wagers if w.wager_id not in gone),
            returned=r.returned + tuple(returned(w) for w in e.returned),
        )
    if isinstance(e, CardDealt):
        exposed = (*r.exposed, e.slot) if e.exposed else r.exposed
        return _complete(new(r, events=log, cards=(*r.cards, (e.slot, e.card)), exposed=exposed))
    if isinstance(e, CardRefused):
        return new(r, events=log, pending=e, flags=(*r.flags, e))
    if isinstance(e, CardCorrected):
        r = new(r, events=log, corrections=(*r.corrections, e), pending=None)
        if e.action is CorrectionAction.MISTYPED:
            r = _strike_last(r, e)
        if e.discarded:
            r = new(r, discarded=(*r.discarded, e.card))
        return _complete(r)
    if isinstance(e, CardsRevealed):
        return _complete(new(r, events=log, revealed=(*r.revealed, e)))
    if isinstance(e, RevealTimedOut):
        return new(r, events=log, timed_out=(*r.timed_out, e.step))
    if isinstance(e, RoundSettled):
        return new(
            r, events=log, phase=RoundPhase.SETTLED, result=e.result, settlement=e.settlement
        )
    if isinstance(e, RoundVoided):
        discarded = r.discarded
        if r.pending is not None and r.pending.possible:
            # the refused card left the shoe too (it is reported to the shoe as discarded)
            discarded = (*discarded, r.pending.card)
        return new(
            r,
            events=log,
            phase=RoundPhase.VOID,
            void=e,
            settlement=e.settlement,
            pending=None,
            discarded=discarded,
        )
    if isinstance(e, RoundOpened):
        return type(r)._opened(e)
    raise ParseError("baccarat.not_an_event", event=show(e))
