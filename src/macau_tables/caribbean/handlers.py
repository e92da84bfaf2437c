"""What a Caribbean Stud round makes of each command: validation against the law, then events.

A handler takes the round and one command (:mod:`.commands`) and returns the events it produces,
or raises a :class:`~macau_tables.errors.RuleViolation` naming the rule and a message key of
``messages/caribbean.toml``. Handlers never change the round (it is immutable); the round folds
their events (:mod:`.round`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from ..cards import Card
from ..errors import ParseError, RuleViolation
from ..jackpot import Meter
from ..money import check_stake
from ..rng import ShoeCommitment, card_leaf, commitment_scheme
from ..rounds import DEALER, Audience, Dealer
from ..voids import Ground, VoidBasis, basis_of
from .commands import (
    CloseBetting,
    DealCard,
    DealtToEmptyBox,
    DecisionTimeout,
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    RejectReport,
    ReportExposedCard,
    ReportMisdeal,
    ReturnCarriedWager,
    Showdown,
    ShufflerFailure,
    Void,
)
from .events import (
    AntePlaced,
    BettingClosed,
    CardDealt,
    CardExposed,
    CarriedWagerReturned,
    DeadHandDealt,
    DecisionMade,
    Event,
    FaultReported,
    JackpotWagerPlaced,
    ReportRejected,
    RoundSettled,
    RoundVoided,
)
from .rules import DealingProcedure
from .settlement import showdown_settlement, void_settlement
from .state import HAND_SIZE, BoxState, Phase, deal_order

if TYPE_CHECKING:  # pragma: no cover
    from .round import CaribbeanRound

__all__ = ["HANDLERS", "box_number", "card", "player_id", "shown", "void_event"]


def shown(value: object, limit: int = 80) -> str:
    """``repr(value)`` for a message, cut to ``limit`` characters; never raises (an object whose
    ``repr`` fails is shown by its type name)."""
    try:
        text = repr(value)
    except Exception:
        try:
            text = f"<{type(value).__name__}>"
        except Exception:
            text = "<object>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def card(value: object) -> Card:
    """``value`` as a card of the one 52-card deck (a Card or text such as ``"As"``); refuses
    anything else (RuleViolation CSP-1)."""
    if isinstance(value, Card):
        return value
    try:
        if not isinstance(value, str):
            raise ParseError("caribbean.not_a_card_value", value=shown(value))
        return Card.parse(value)
    except ParseError as exc:
        raise RuleViolation(
            "CSP-1", "caribbean.unknown_card", card=shown(value), detail=exc
        ) from None


def box_number(value: object, boxes: int) -> int:
    """``value`` if it is a box number 1..``boxes``; otherwise a RuleViolation CSP-2."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= boxes:
        raise RuleViolation("CSP-2", "caribbean.no_such_box", box=shown(value), boxes=boxes)
    return int(value)


def player_id(value: object) -> str:
    """``value`` if it is a non-empty player id; otherwise a RuleViolation CSP-6.1."""
    if not isinstance(value, str) or not value.strip():
        raise RuleViolation("CSP-6.1", "caribbean.bad_player", player=shown(value))
    return str(value)


def _text(value: object) -> str | None:
    """``value`` if it is a non-empty text (a reason, a supervisor's id), else ``None``."""
    return str(value) if isinstance(value, str) and value.strip() else None


def void_event(r: CaribbeanRound, basis: VoidBasis) -> RoundVoided:
    """The round is void on ``basis`` (CSP-11.1 / CSP-11.4): antes and raises returned,
    jackpot wagers carried over."""
    settlement = void_settlement(r.boxes, r.dealer_cards)
    return RoundVoided(basis.rule, basis.reason, settlement, basis)


GROUNDS: Final = frozenset(
    {
        Ground.WRONG_PROCEDURE,
        Ground.WRONG_CARD_COUNT,
        Ground.EXPOSURES,
        Ground.SHUFFLER_FAILURE,
        Ground.SHOE_LOST,
    }
)
"""The grounds a Caribbean Stud round may be void on (CSP-11.1, CSP-11.4)."""
_CARDS_GROUNDS: Final = frozenset(
    {Ground.WRONG_PROCEDURE, Ground.WRONG_CARD_COUNT, Ground.EXPOSURES}
)
"""CSP-11.1 grounds about the cards dealt: they fit once a card is dealt, before the showdown."""


def seen_by_a_player(r: CaribbeanRound) -> bool:
    """Whether some player's view (the visibility gate, :meth:`CaribbeanRound.view`) shows a
    card of the round: their own box's cards, the dealer's face-up card, a card exposed."""
    for b in r.boxes:
        if not b.player:
            continue
        view = r.view(Audience.of_player(b.player))
        cards = (*getattr(view, "cards", ()), *getattr(view, "dealer_cards", ()))
        if any(c is not None for c in cards):
            return True
    return False


def _reported(r: CaribbeanRound, ground: Ground, reason: str) -> tuple[Event, ...]:
    """A dealer's report of ``ground`` (CSP-11.1 / CSP-11.4): void at once while no player has
    seen a card of the round (the report is the void's evidence); otherwise the round is held
    for a supervisor (a ``Void`` on the ground, or :class:`RejectReport`)."""
    if r.held is not None:
        raise RuleViolation(ground.rule, "caribbean.round_held", ground=r.held.ground.value)
    if seen_by_a_player(r):
        return (FaultReported(ground, reason, True),)
    basis = VoidBasis(ground, ground.rule, None, reason)
    return (FaultReported(ground, reason, False), void_event(r, basis))


def _fresh_card(r: CaribbeanRound, value: object) -> Card:
    c = card(value)
    # ``c in r.cards_in_round``, without building that set for every card dealt
    if (
        c in r.dealer_cards
        or any(c in b.cards for b in r.boxes)
        or any(c in d.cards for d in r.dead_hands)
    ):
        raise RuleViolation("CSP-1", "caribbean.card_already_dealt", card=c)
    return c


def _procedure_rule(r: CaribbeanRound) -> str:
    return "CSP-7.1" if r.rules.dealing_procedure is DealingProcedure.SHOE else "CSP-7.2"


def _decision_box(r: CaribbeanRound, box: object, player: str | None) -> BoxState:
    if r.phase is not Phase.DECIDING:
        raise RuleViolation("CSP-6.5", "caribbean.decision_before_last_card")
    number = box_number(box, r.rules.boxes)
    state = r.box(number)
    if state is None or not state.in_play:
        raise RuleViolation("CSP-6.5", "caribbean.no_hand_to_decide", box=number)
    if player is not None and state.player != player:
        raise RuleViolation("CSP-6.1", "caribbean.not_your_box", box=number, player=shown(player))
    if state.decided:
        raise RuleViolation("CSP-6.5", "caribbean.already_decided", box=number)
    return state


def _seat(r: CaribbeanRound, number: int, player: str) -> BoxState | None:
    """CSP-6.1: ``player`` may bet on ``number``: nobody else holds it, they hold no other."""
    existing = r.box(number)
    if existing is not None and existing.player != player:
        raise RuleViolation(
            "CSP-6.1", "caribbean.box_taken", box=number, player=shown(existing.player)
        )
    return existing


# -- betting ---------------------------------------------------------------------------------


def _place_ante(r: CaribbeanRound, c: PlaceAnte) -> tuple[Event, ...]:
    if r.phase is not Phase.BETTING:
        raise RuleViolation("CSP-6.2", "caribbean.betting_closed_ante")
    number = box_number(c.box, r.rules.boxes)
    player = player_id(c.player)
    existing = _seat(r, number, player)
    for b in r.boxes:
        if b.box != number and b.player == player:
            raise RuleViolation(
                "CSP-6.1", "caribbean.one_box_per_player", player=shown(player), box=b.box
            )
    if existing is not None and existing.ante:
        raise RuleViolation("CSP-6.2", "caribbean.ante_already_placed", box=number)
    rules = r.rules
    amount = check_stake(
        c.amount,
        unit=rules.bet_unit,
        minimum=rules.ante_minimum,
        maximum=rules.ante_maximum,
        rule="CSP-6.2",
        what="ante",
    )
    return (AntePlaced(number, player, amount),)


def _place_jackpot(r: CaribbeanRound, c: PlaceJackpotWager) -> tuple[Event, ...]:
    if r.phase is not Phase.BETTING:
        raise RuleViolation("CSP-6.3", "caribbean.betting_closed_jackpot")
    number = box_number(c.box, r.rules.boxes)
    player = player_id(c.player)
    existing = _seat(r, number, player)
    if existing is None or not existing.ante:
        raise RuleViolation("CSP-6.3", "caribbean.jackpot_without_ante", box=number)
    if existing.jackpot:
        raise RuleViolation("CSP-10.1", "caribbean.jackpot_already_placed", box=number)
    amount = r.rules.jackpot_wager
    if c.amount is not None and (
        isinstance(c.amount, bool) or not isinstance(c.amount, int) or c.amount != amount
    ):
        raise RuleViolation(
            "CSP-6.3", "caribbean.jackpot_fixed_amount", wanted=amount, amount=shown(c.amount)
        )
    return (JackpotWagerPlaced(number, player, amount),)


def _return_carried(r: CaribbeanRound, c: ReturnCarriedWager) -> tuple[Event, ...]:
    # CSP-11.1 (documented interpretation): a carried jackpot wager whose player left the
    # table goes back to the player, with a supervisor's authorisation, before the cards.
    if r.phase is not Phase.BETTING:
        raise RuleViolation("CSP-11.1", "caribbean.return_only_while_betting")
    number = box_number(c.box, r.rules.boxes)
    state = r.box(number)
    if state is None or not state.jackpot_carried:
        raise RuleViolation("CSP-11.1", "caribbean.no_carried_wager", box=number)
    if state.in_play:
        raise RuleViolation("CSP-11.1", "caribbean.carried_wager_in_play", box=number)
    supervisor = _text(c.supervisor)
    if supervisor is None:
        raise RuleViolation("CSP-11.1", "caribbean.supervisor_required")
    reason = _text(c.reason)
    if reason is None:
        raise RuleViolation("CSP-11.1", "caribbean.return_reason_required")
    return (CarriedWagerReturned(number, state.player, state.jackpot, supervisor, reason),)


def _close_betting(r: CaribbeanRound, c: CloseBetting) -> tuple[Event, ...]:
    if r.phase is not Phase.BETTING:
        raise RuleViolation("CSP-6.2", "caribbean.betting_already_closed")
    boxes = [b.box for b in r.in_play]
    if not boxes:
        raise RuleViolation("CSP-6.2", "caribbean.nothing_to_deal")
    commitment = c.shoe_commitment
    if isinstance(commitment, ShoeCommitment):
        commitment = commitment.digest
    if commitment is not None and (
        not isinstance(commitment, str) or not commitment_scheme(commitment)[0]
    ):
        raise RuleViolation("CSP-3", "caribbean.bad_shoe_commitment", commitment=shown(commitment))
    return (BettingClosed(deal_order(r.rules.dealing_procedure, boxes), commitment),)


# -- dealing ---------------------------------------------------------------------------------


def _position_name(position: int | Dealer) -> str:
    return "the dealer" if position is DEALER else f"box {position}"


def _check_stated_position(r: CaribbeanRound, to: object, due: int | Dealer, rule: str) -> None:
    """A console stated where the card went (``DealCard.to``): refused unless it is ``due``."""
    if to is DEALER:
        held = len(r.dealer_cards)
        position: int | Dealer = DEALER
    elif isinstance(to, int) and not isinstance(to, bool):
        position = box_number(to, r.rules.boxes)
        target = r.box(position)
        held = len(target.cards) if target is not None else 0
    else:
        raise RuleViolation(rule, "caribbean.no_such_position", position=shown(to))
    if held >= HAND_SIZE:
        raise RuleViolation(rule, "caribbean.sixth_card_to", position=_position_name(position))
    if position != due:
        raise RuleViolation(rule, "caribbean.wrong_dealing_order", due=_position_name(due))


def _deal_card(r: CaribbeanRound, c: DealCard) -> tuple[Event, ...]:
    rule = _procedure_rule(r)
    if r.phase is Phase.BETTING:
        raise RuleViolation(rule, "caribbean.deal_before_close")
    if r.phase is not Phase.DEALING:
        raise RuleViolation(rule, "caribbean.sixth_card")
    dealt = _fresh_card(r, c.card)
    due = r.deal_order[r.dealt]
    if c.to is not None:
        _check_stated_position(r, c.to, due, rule)
    # CSP-7: the dealer's fifth card is dealt face up — unless a dealer card was exposed in
    # error, after which the dealer's remaining cards all go face down (CSP-11.2).
    dealer_exposed = any(e.position is DEALER for e in r.exposed)
    face_up = due is DEALER and len(r.dealer_cards) == HAND_SIZE - 1 and not dealer_exposed
    return (CardDealt(dealt, due, face_up, card_leaf(c.leaf, rule)),)


def _dealt_to_empty(r: CaribbeanRound, c: DealtToEmptyBox) -> tuple[Event, ...]:
    if r.phase not in (Phase.DEALING, Phase.DECIDING):
        raise RuleViolation("CSP-11.3", "caribbean.dead_hand_before_close")
    number = box_number(c.box, r.rules.boxes)
    state = r.box(number)
    if state is not None and state.in_play:
        raise RuleViolation("CSP-11.3", "caribbean.dead_hand_on_live_box", box=number)
    if any(d.box == number for d in r.dead_hands):
        raise RuleViolation("CSP-11.3", "caribbean.dead_hand_recorded", box=number)
    raw = tuple(c.cards) if isinstance(c.cards, tuple | list) else ()
    if not 1 <= len(raw) <= HAND_SIZE:
        raise RuleViolation("CSP-11.3", "caribbean.dead_hand_size", cards=shown(c.cards))
    cards: list[Card] = []
    for value in raw:
        fresh = _fresh_card(r, value)
        if fresh in cards:
            raise RuleViolation("CSP-1", "caribbean.card_twice", card=fresh)
        cards.append(fresh)
    return (DeadHandDealt(number, tuple(cards)),)


# -- decisions and showdown ------------------------------------------------------------------


def _raise(r: CaribbeanRound, c: Raise) -> tuple[Event, ...]:
    box = _decision_box(r, c.box, player_id(c.player))
    wanted = 2 * box.ante
    if isinstance(c.amount, bool) or not isinstance(c.amount, int) or c.amount != wanted:
        raise RuleViolation(
            "CSP-6.6", "caribbean.raise_not_twice_ante", wanted=wanted, amount=shown(c.amount)
        )
    return (DecisionMade(box.box, box.player, wanted),)


def _fold(r: CaribbeanRound, c: Fold) -> tuple[Event, ...]:
    box = _decision_box(r, c.box, player_id(c.player))
    return (DecisionMade(box.box, box.player, 0),)


def _timeout(r: CaribbeanRound, c: DecisionTimeout) -> tuple[Event, ...]:
    box = _decision_box(r, c.box, None)
    return (DecisionMade(box.box, box.player, 0, timed_out=True),)


def _showdown(r: CaribbeanRound, c: Showdown) -> tuple[Event, ...]:
    if r.phase is not Phase.DECIDING:
        raise RuleViolation("CSP-6.8", "caribbean.showdown_too_early")
    if r.pending_decisions:
        raise RuleViolation(
            "CSP-6.8",
            "caribbean.waiting_for_decisions",
            boxes=", ".join(str(b) for b in r.pending_decisions),
        )
    if not isinstance(c.meter, Meter):
        raise RuleViolation("CSP-10.8", "caribbean.meter_required", meter=shown(c.meter))
    if c.meter.seed != r.rules.jackpot_seed:
        raise RuleViolation(
            "CSP-10.8",
            "caribbean.meter_seed_mismatch",
            seed=c.meter.seed,
            table_seed=r.rules.jackpot_seed,
        )
    settlement = showdown_settlement(r.rules, r.boxes, r.dealer_cards, c.meter)
    return (RoundSettled(settlement),)


# -- faults (CSP-11) -------------------------------------------------------------------------


def _report_exposed(r: CaribbeanRound, c: ReportExposedCard) -> tuple[Event, ...]:
    if r.phase not in (Phase.DEALING, Phase.DECIDING):
        raise RuleViolation("CSP-11.2", "caribbean.exposed_before_deal")
    exposed_card = card(c.card)
    position: int | Dealer | None = None
    if exposed_card in r.dealer_cards:
        if r.dealer_face_up[r.dealer_cards.index(exposed_card)]:
            raise RuleViolation("CSP-11.2", "caribbean.already_face_up", card=exposed_card)
        position = DEALER
    else:
        for b in r.in_play:
            if exposed_card in b.cards:
                position = b.box
    if position is None:
        raise RuleViolation("CSP-11.2", "caribbean.exposed_not_dealt", card=exposed_card)
    if any(e.card == exposed_card for e in r.exposed):
        raise RuleViolation("CSP-11.2", "caribbean.exposed_already", card=exposed_card)
    exposed = CardExposed(exposed_card, position)
    if r.exposed:
        # CSP-11.1: two or more cards exposed in error void the round (at once only while no
        # player has seen a card of it; else a supervisor confirms or rejects the report).
        if r.held is not None:
            raise RuleViolation("CSP-11.1", "caribbean.round_held", ground=r.held.ground.value)
        after = type(r).replay((*r.events, exposed))  # the gate sees the exposure
        return (exposed, *_reported(after, Ground.EXPOSURES, "two or more cards exposed in error"))
    return (exposed,)


def _report_misdeal(r: CaribbeanRound, c: ReportMisdeal) -> tuple[Event, ...]:
    if r.phase not in (Phase.DEALING, Phase.DECIDING):
        raise RuleViolation("CSP-11.1", "caribbean.misdeal_before_deal")
    reason = _text(c.reason)
    if reason is None:
        raise RuleViolation("CSP-11.1", "caribbean.misdeal_reason_required")
    if c.ground not in (Ground.WRONG_PROCEDURE, Ground.WRONG_CARD_COUNT):
        raise RuleViolation("CSP-11.1", "caribbean.misdeal_ground", ground=shown(c.ground))
    return _reported(r, c.ground, reason)


def _shuffler_failure(r: CaribbeanRound, c: ShufflerFailure) -> tuple[Event, ...]:
    reason = _text(c.reason) or "shuffling machine failure"
    if r.phase is Phase.DECIDING:
        # After the last card the failure voids nothing (CSP-11.4 "during the deal"): the
        # round goes on; the report stands for the table (no round until it is replaced).
        if r.held is not None:
            raise RuleViolation("CSP-11.4", "caribbean.round_held", ground=r.held.ground.value)
        return (FaultReported(Ground.SHUFFLER_FAILURE, reason, False),)
    return _reported(r, Ground.SHUFFLER_FAILURE, reason)


def _void(r: CaribbeanRound, c: Void) -> tuple[Event, ...]:
    basis = basis_of(
        c,
        grounds=GROUNDS,
        rule="CSP-11.4",
        before_last_card=r.phase in (Phase.BETTING, Phase.DEALING),
    )
    if basis.ground in _CARDS_GROUNDS and r.phase not in (Phase.DEALING, Phase.DECIDING):
        raise RuleViolation(basis.rule, "voids.ground_not_now", ground=basis.ground.value)
    return (void_event(r, basis),)


def _reject(r: CaribbeanRound, c: RejectReport) -> tuple[Event, ...]:
    if r.held is None:
        raise RuleViolation("CSP-11.1", "caribbean.no_report_held")
    supervisor, reason = _text(c.supervisor), _text(c.reason)
    if supervisor is None:
        raise RuleViolation(r.held.ground.rule, "caribbean.reject_needs_supervisor")
    if reason is None:
        raise RuleViolation(r.held.ground.rule, "caribbean.void_reason_required")
    return (ReportRejected(supervisor, reason),)


HANDLERS: Final[Mapping[type, Callable[[CaribbeanRound, Any], tuple[Event, ...]]]] = {
    PlaceAnte: _place_ante,
    PlaceJackpotWager: _place_jackpot,
    ReturnCarriedWager: _return_carried,
    CloseBetting: _close_betting,
    DealCard: _deal_card,
    Raise: _raise,
    Fold: _fold,
    DecisionTimeout: _timeout,
    Showdown: _showdown,
    ReportExposedCard: _report_exposed,
    ReportMisdeal: _report_misdeal,
    DealtToEmptyBox: _dealt_to_empty,
    ShufflerFailure: _shuffler_failure,
    RejectReport: _reject,
    Void: _void,
}
"""The handler of each command type (exactly that type: a subclass is not a command)."""
