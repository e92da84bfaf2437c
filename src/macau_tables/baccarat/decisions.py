"""How a baccarat round decides a command: the events it produces, or the rule that refuses it.

:func:`decide` is the only entry point (``BaccaratRound.decide`` calls it). Every refusal is a
:class:`~macau_tables.errors.RuleViolation` naming the rule, with a message key of
``messages/baccarat.toml``; a command's fields are checked here, so a command built from an API
payload with anything in it is refused with the rule of the field, never a ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from enum import Enum
from typing import TYPE_CHECKING, Any, Final, TypeVar

from ..cards import Card
from ..errors import MacauTablesError, RuleViolation
from ..rng import card_leaf
from ..rounds import DEALER
from ..voids import Ground, basis_of
from .bets import Wager, area_total, check_area, check_difference, check_stake
from .commands import (
    ChangeCarried,
    CloseBetting,
    Correct,
    CorrectionAction,
    DealCard,
    PlaceWager,
    Reveal,
    RevealPart,
    RevealStep,
    RevealTimeout,
    Settle,
    Void,
    WithdrawWager,
)
from .events import (
    BettingClosed,
    CardCorrected,
    CardDealt,
    CardRefused,
    CardsRevealed,
    CarriedChanged,
    Event,
    RevealTimedOut,
    RoundPhase,
    RoundSettled,
    RoundVoided,
    WagerPlaced,
    WagerWithdrawn,
)
from .rules import TieOption, WagerKind
from .settlement import settle_round, void_settlement
from .sides import Side
from .tableau import CardSlot, deal_round, next_slot

if TYPE_CHECKING:  # pragma: no cover
    from .round import BaccaratRound

__all__ = ["decide", "show"]

_E = TypeVar("_E", bound=Enum)

_FIRST_FOUR: Final = frozenset(
    {CardSlot.PLAYER_1, CardSlot.BANKER_1, CardSlot.PLAYER_2, CardSlot.BANKER_2}
)


def show(value: object, limit: int = 80) -> str:
    """``repr(value)`` for a message, shortened; never raises (a value whose ``repr`` fails is
    named by its type)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _choice(cls: type[_E], value: object, rule: str, what: str) -> _E:
    """``value`` as a member of ``cls``; refuses anything else (``RuleViolation`` ``rule``,
    naming the field ``what`` and the allowed values)."""
    if isinstance(value, cls):
        return value
    try:
        return cls(value)
    except Exception:
        allowed = ", ".join(str(m.value) for m in cls)
        raise RuleViolation(
            rule, "baccarat.bad_choice", what=what, value=show(value), allowed=allowed
        ) from None


def _card(value: object) -> Card:
    """``value`` as a card of the 52 faces; refuses (BAC-1: a shoe holds 52-card decks) anything
    unreadable."""
    if isinstance(value, Card):
        return value
    try:
        if isinstance(value, str):
            return Card.parse(value)
    except MacauTablesError:
        pass
    raise RuleViolation("BAC-1", "baccarat.unreadable_card", card=show(value))


def _int(value: object) -> int | None:
    return None if isinstance(value, bool) or not isinstance(value, int) else value


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


# -- betting -----------------------------------------------------------------------------------


def _betting_open(r: BaccaratRound) -> None:
    if r.phase is not RoundPhase.BETTING:
        raise RuleViolation("BAC-13", "baccarat.betting_closed")
    if r.demo:
        raise RuleViolation("BAC-2.2", "baccarat.demo_no_wagers")


def _place(r: BaccaratRound, c: PlaceWager) -> tuple[Event, ...]:
    _betting_open(r)
    kind = _choice(WagerKind, c.kind, "BAC-13", "wager")
    player = check_area(r.rules, c.area, c.player, r.seats)
    # BAC-14: the area's limits count what this player already has there on the same wager.
    amount = check_stake(r.rules, kind, c.amount, area_total(r.wagers, player, c.area, kind))
    return (WagerPlaced(Wager(r.next_wager_id, player, c.area, kind, amount)),)


def _withdraw(r: BaccaratRound, c: WithdrawWager) -> tuple[Event, ...]:
    _betting_open(r)
    wager_id = _int(c.wager_id)
    wager = next((w for w in r.wagers if w.wager_id == wager_id), None)
    if wager is None:
        raise RuleViolation("BAC-13", "baccarat.no_such_wager_id", wager_id=show(c.wager_id))
    if wager.carried:
        raise RuleViolation("BAC-12", "baccarat.withdraw_carried", wager_id=wager.wager_id)
    if _text(c.player) != wager.player:
        raise RuleViolation(
            "BAC-13", "baccarat.not_players_wager", wager_id=wager.wager_id, player=show(c.player)
        )
    return (WagerWithdrawn(wager),)


def _change_carried(r: BaccaratRound, c: ChangeCarried) -> tuple[Event, ...]:
    _betting_open(r)
    wager_id = _int(c.wager_id)
    wager = next((w for w in r.wagers if w.wager_id == wager_id and w.carried), None)
    if wager is None:
        raise RuleViolation("BAC-12", "baccarat.no_carried_wager", wager_id=show(c.wager_id))
    if _text(c.player) != wager.player:
        raise RuleViolation(
            "BAC-12", "baccarat.not_players_carried", wager_id=wager.wager_id, player=show(c.player)
        )
    if wager.wager_id in r.decided:
        # BAC-12: withdrawn, left *or* changed — one choice per carried wager.
        raise RuleViolation("BAC-12", "baccarat.carried_already_decided", wager_id=wager.wager_id)
    option = _choice(TieOption, c.option, "BAC-12", "choice after a tie")
    allowed = r.rules.tie_options
    if option not in allowed:
        raise RuleViolation("BAC-12", "baccarat.tie_option_not_allowed", option=option)
    if option is TieOption.WITHDRAW:
        return (CarriedChanged(wager.wager_id, wager.player, option, None, wager.amount),)
    if option is TieOption.LEAVE:
        return (CarriedChanged(wager.wager_id, wager.player, option, wager, 0),)
    kind = wager.kind
    if option is TieOption.SWITCH:
        kind = WagerKind.BANKER if kind is WagerKind.PLAYER else WagerKind.PLAYER
    amount = wager.amount if c.amount is None else _int(c.amount)
    if amount is None or amount <= 0:
        raise RuleViolation("BAC-12", "baccarat.reduced_not_positive", amount=show(c.amount))
    if amount != wager.amount:
        if option is TieOption.SWITCH and TieOption.REDUCE not in allowed:
            raise RuleViolation("BAC-12", "baccarat.switch_not_reduce")
        if amount > wager.amount:
            raise RuleViolation("BAC-12", "baccarat.carried_not_raised")
    elif option is TieOption.REDUCE:
        raise RuleViolation("BAC-12", "baccarat.reduce_needs_smaller")
    # BAC-12 with BAC-14: the changed wager respects the limits of the side it is now on,
    # counting what the same player already has there in the same area.
    already = area_total(r.wagers, wager.player, wager.area, kind, but=wager.wager_id)
    stake = check_stake(r.rules, kind, amount, already)
    new = replace(wager, kind=kind, amount=stake)
    return (CarriedChanged(wager.wager_id, wager.player, option, new, wager.amount - stake),)


def _close_events(r: BaccaratRound) -> tuple[Event, ...]:
    if r.phase is not RoundPhase.BETTING:
        raise RuleViolation("BAC-13", "baccarat.betting_already_closed")
    back: tuple[Wager, ...] = ()
    if TieOption.LEAVE not in r.rules.tie_options:
        # BAC-12: the table does not let a carried wager simply stay: hand back the undecided.
        back = tuple(w for w in r.wagers if w.carried and w.wager_id not in r.decided)
    # BAC-14 (documented): the banker/player difference is a property of the round's totals,
    # checked once they are final, over the wagers still in play after the close.
    check_difference(r.rules, (w for w in r.wagers if w not in back))
    return (BettingClosed(back),)


def _close(r: BaccaratRound, c: CloseBetting) -> tuple[Event, ...]:
    return _close_events(r)


# -- cards -------------------------------------------------------------------------------------


def _refuse(
    r: BaccaratRound, card: Card, slot: CardSlot | None, err: RuleViolation, exposed: bool
) -> tuple[Event, ...]:
    """Live mode: the card is refused and flagged for the supervisor (BAC-10); virtual mode
    deals the committed shoe, so a wrong card is refused outright."""
    if not r.live:
        raise err
    params = tuple(err.params.items())
    return (CardRefused(card, slot, err.rule, err.key, params, r.is_possible(card), exposed),)


def _reveal_first(step: RevealStep) -> RuleViolation:
    if step.part is RevealPart.FIRST_TWO:
        return RuleViolation("BAC-16", "baccarat.deal_before_first_two", side=step.side)
    return RuleViolation("BAC-16", "baccarat.deal_before_third", side=step.side)


def _deal(r: BaccaratRound, c: DealCard) -> tuple[Event, ...]:
    card = _card(c.card)
    slot = None if c.slot is None else _choice(CardSlot, c.slot, "BAC-7", "card slot")
    if not isinstance(c.exposed, bool):
        raise RuleViolation("BAC-4", "baccarat.exposed_not_bool", exposed=show(c.exposed))
    exposed = c.exposed
    if r.is_over:
        raise RuleViolation("BAC-9", "baccarat.round_over_no_card")
    if r.pending is not None:
        raise RuleViolation("BAC-10", "baccarat.refused_card_pending")
    pre = _close_events(r) if r.phase is RoundPhase.BETTING else ()
    if not r.is_possible(card):
        err = RuleViolation(
            "BAC-1", "baccarat.card_not_in_shoe", card=card, decks=r.rules.shoe.decks
        )
        return pre + _refuse(r, card, slot, err, exposed)
    reveal = r.pending_reveal()
    if reveal is not None:
        return pre + _refuse(r, card, slot, _reveal_first(reveal), exposed)
    due = r.due_slot()
    if due is None:
        err = RuleViolation("BAC-9", "baccarat.no_card_due")
        return pre + _refuse(r, card, slot, err, exposed)
    if slot is not None and slot is not due:
        rule = "BAC-7" if due in _FIRST_FOUR and slot in _FIRST_FOUR else "BAC-9"
        err = RuleViolation(rule, "baccarat.wrong_slot", slot=slot, due=due)
        return pre + _refuse(r, card, slot, err, exposed)
    return (*pre, CardDealt(due, card, exposed, card_leaf(c.leaf, "BAC-7")))


# -- card holding (BAC-16) ---------------------------------------------------------------------


def _step(c: Reveal | RevealTimeout) -> RevealStep:
    side = _choice(Side, c.side, "BAC-16", "side")
    if side is Side.TIE:
        raise RuleViolation("BAC-16", "baccarat.tie_has_no_cards")
    return RevealStep(side, _choice(RevealPart, c.part, "BAC-16", "reveal part"))


def _wrong_reveal(due: RevealStep | None) -> RuleViolation:
    if due is None:
        return RuleViolation("BAC-16.2", "baccarat.nothing_to_reveal")
    if due.part is RevealPart.FIRST_TWO:
        return RuleViolation("BAC-16.2", "baccarat.first_two_to_reveal", side=due.side)
    return RuleViolation("BAC-16.2", "baccarat.third_to_reveal", side=due.side)


def _reveal(r: BaccaratRound, c: Reveal) -> tuple[Event, ...]:
    if not r.rules.card_holding:
        raise RuleViolation("BAC-16.1", "baccarat.no_card_holding")
    step = _step(c)
    due = r.pending_reveal()
    if due is None or step != due:
        raise _wrong_reveal(due)
    holder = r.holder(step.side)
    by = c.by
    if by is DEALER or (isinstance(by, str) and by == str(DEALER)):  # "dealer" is reserved
        if holder is not None and step not in r.timed_out:
            raise RuleViolation("BAC-16.2", "baccarat.holder_holds", holder=holder, side=step.side)
        return (CardsRevealed(step, DEALER),)
    who = _text(by)
    if who is None:
        raise RuleViolation("BAC-16.2", "baccarat.reveal_needs_who", by=show(by))
    if step in r.timed_out:
        # BAC-16: once the holder's time has run out the dealer reveals, nobody else.
        if step.part is RevealPart.FIRST_TWO:
            raise RuleViolation(
                "BAC-16.2", "baccarat.first_two_time_ran_out", by=who, side=step.side
            )
        raise RuleViolation("BAC-16.2", "baccarat.third_time_ran_out", by=who, side=step.side)
    if who != holder:
        raise RuleViolation(
            "BAC-16.2",
            "baccarat.not_the_holder",
            by=who,
            side=step.side,
            holder=holder or DEALER,
        )
    return (CardsRevealed(step, who),)


def _reveal_timeout(r: BaccaratRound, c: RevealTimeout) -> tuple[Event, ...]:
    step = _step(c)
    if r.pending_reveal() != step or r.holder(step.side) is None or step in r.timed_out:
        if step.part is RevealPart.FIRST_TWO:
            raise RuleViolation("BAC-16.2", "baccarat.no_time_first_two", side=step.side)
        raise RuleViolation("BAC-16.2", "baccarat.no_time_third", side=step.side)
    return (RevealTimedOut(step),)


# -- supervisor (BAC-10) -----------------------------------------------------------------------


def _supervisor(c: Correct | Void) -> tuple[str, str]:
    supervisor, reason = _text(c.supervisor), _text(c.reason)
    if supervisor is None:
        raise RuleViolation("BAC-10", "baccarat.needs_supervisor")
    if reason is None:
        raise RuleViolation("BAC-10", "baccarat.needs_reason")
    return supervisor, reason


def _correct(r: BaccaratRound, c: Correct) -> tuple[Event, ...]:
    supervisor, reason = _supervisor(c)
    if r.is_over:
        raise RuleViolation("BAC-10", "baccarat.round_over")
    if not r.live:
        # Virtual mode deals the committed shoe and refuses a wrong card outright, so there is
        # no dealing error to correct; taking a dealt card back would change a committed deal.
        raise RuleViolation("BAC-10", "baccarat.virtual_nothing_to_correct")
    action = _choice(CorrectionAction, c.action, "BAC-10", "correction")
    p = r.pending
    if p is not None:
        if action is CorrectionAction.WITHDRAW:
            return (CardCorrected(supervisor, reason, action, p.card, None, p.possible),)
        if action is CorrectionAction.MISTYPED:
            raise RuleViolation("BAC-10", "baccarat.resolve_refused_first")
        if not r.is_possible(p.card):
            raise RuleViolation("BAC-1", "baccarat.withdraw_impossible", card=p.card)
        if r.pending_reveal() is not None:
            raise RuleViolation("BAC-16", "baccarat.reveal_before_reassign")
        due = r.due_slot()
        if due is None:
            raise RuleViolation("BAC-9", "baccarat.no_card_due_withdraw")
        return (
            CardCorrected(supervisor, reason, action, p.card, due, False),
            CardDealt(due, p.card, p.exposed),
        )
    if action is not CorrectionAction.MISTYPED:
        raise RuleViolation("BAC-10", "baccarat.no_refused_card", action=action)
    return (_mistyped(r, supervisor, reason),)


def _mistyped(r: BaccaratRound, supervisor: str, reason: str) -> CardCorrected:
    """BAC-4 / BAC-10: strike the last card entered, which the dealer reports as mistyped.

    Refused when there is no card, when it was exposed (BAC-4: it stays valid), when it was
    revealed (BAC-16: everyone has seen it), when it is a held card from the fourth on (it may
    have completed the hand, and whether it did must not tell the supervisor, to whom it is face
    down, what the cards are) or when it completed the hand (the round's outcome is known
    from it). The card is not out of the shoe: the card really on the table is entered
    again."""
    if not r.cards:
        raise RuleViolation("BAC-10", "baccarat.no_card_to_strike")
    slot, card = r.cards[-1]
    if slot in r.exposed:
        raise RuleViolation("BAC-4", "baccarat.exposed_stays_valid", slot=slot)
    if any(slot in x.step.slots for x in r.revealed):
        raise RuleViolation("BAC-10", "baccarat.revealed_stays", slot=slot)
    if r.rules.card_holding and len(r.cards) >= 4:
        # BAC-16, Common rules "Hidden information": a held card not yet revealed is face down
        # to the supervisor, so whether it completed the hand (a natural, a stand) would tell
        # them what it and the cards before it are. From the fourth card on a held card may
        # complete the hand: it stays, whatever it is (void the round if it is wrong).
        raise RuleViolation("BAC-10", "baccarat.held_card_may_complete", slot=slot)
    if next_slot(r.accepted_cards()) is None:
        raise RuleViolation("BAC-10", "baccarat.completing_card_stays", slot=slot)
    return CardCorrected(supervisor, reason, CorrectionAction.MISTYPED, card, slot, False)


GROUNDS: Final = frozenset({Ground.UNCORRECTABLE, Ground.SHOE_LOST})
"""The grounds a baccarat round may be void on (BAC-10; a virtual shoe lost mid-deal)."""


def _void(r: BaccaratRound, c: Void) -> tuple[Event, ...]:
    if r.is_over:
        raise RuleViolation("BAC-10", "baccarat.round_already_over")
    # "During the deal": before the hand's last card. Once the hand is complete (a natural
    # showing, the outcome known) only an error that cannot be corrected voids it (BAC-10).
    complete = r.phase is RoundPhase.COMPLETE or (len(r.cards) >= 4 and r.due_slot() is None)
    basis = basis_of(
        c,
        grounds=GROUNDS,
        rule="BAC-10",
        before_last_card=not complete,
        after_outcome=complete,
    )
    return (RoundVoided(basis.supervisor or "", basis.reason, void_settlement(r.wagers), basis),)


def _settle(r: BaccaratRound, c: Settle) -> tuple[Event, ...]:
    if r.phase is not RoundPhase.COMPLETE:
        raise RuleViolation("BAC-11", "baccarat.round_not_complete", phase=r.phase)
    if r.pending is not None:
        # A card drawn after the last due one was refused: it is out of the shoe and must be
        # withdrawn (counted as discarded) or the round voided before anything is paid.
        raise RuleViolation("BAC-10", "baccarat.refused_card_pending")
    result = deal_round(r.accepted_cards())
    return (RoundSettled(result, settle_round(r.rules, r.wagers, result, c.meter)),)


_HANDLERS: Final[Mapping[type, Callable[[BaccaratRound, Any], tuple[Event, ...]]]] = {
    PlaceWager: _place,
    WithdrawWager: _withdraw,
    ChangeCarried: _change_carried,
    CloseBetting: _close,
    DealCard: _deal,
    Reveal: _reveal,
    RevealTimeout: _reveal_timeout,
    Correct: _correct,
    Void: _void,
    Settle: _settle,
}


def decide(r: BaccaratRound, command: object) -> tuple[Event, ...]:
    """The events ``command`` produces on ``r``. Refuses (``RuleViolation``) anything the law
    does not allow, and anything that is not a baccarat round command
    (``baccarat.not_a_command``, rule ``COMMAND``)."""
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise RuleViolation("COMMAND", "baccarat.not_a_command", command=show(command))
    return handler(r, command)
