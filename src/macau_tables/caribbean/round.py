"""The Caribbean Stud round: a pure, replayable state machine (SPEC CSP-5 … CSP-13).

A :class:`CaribbeanRound` is an immutable value. :meth:`CaribbeanRound.apply` validates a command
(:mod:`.actions`) against the law and returns ``(new_round, events)``, or raises a
:class:`~macau_tables.errors.RuleViolation` naming the rule — the round it was called on is never
changed. Every state is a fold over its events, so :meth:`CaribbeanRound.replay` rebuilds the
identical round from the log (``replay(r.events) == r``).

Lifecycle (:class:`Phase`)::

    BETTING ──CloseBetting──► DEALING ──last card──► DECIDING ──Showdown──► SETTLED
       └──────────────── Void / ShufflerFailure / ReportMisdeal / 2nd exposure ──► VOID

Ask before acting: :meth:`expected_next` says what is due (the next card's recipient, the
pending decisions, the commands that make sense now) and :meth:`check` / :meth:`can_apply` say
whether one command would be accepted, and why not.

Positions: boxes are 1..7 from the dealer's left (CSP-2); :data:`DEALER` (0) is the dealer.

Hand-off after a void round (CSP-11.1, CSP-11.4): the void round's
:meth:`carried_jackpot_wagers` go into ``CaribbeanRound.new(..., carried_jackpot_wagers=...)`` of
the next round, where they count as already placed (the box is reserved for that player; the
player still places an ante, CSP-10.1). A carried wager whose box gets no ante is carried again.

Jackpot contributions: a jackpot wager is credited to the meter when it is settled (at the
showdown, before the awards are resolved; a folded box's wager too, CSP-6.7). A carried-over
wager is not settled, so it contributes nothing until the round that settles it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from enum import StrEnum
from typing import Any, Final

from ..cards import Card
from ..errors import MacauTablesError, ParseError, RuleViolation
from ..jackpot import Combination, Meter, resolve_caribbean, split_contribution
from ..money import check_stake
from ..rng import ShoeCommitment
from .actions import (
    CloseBetting,
    Command,
    DealCard,
    DealtToEmptyBox,
    DecisionTimeout,
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    ReportExposedCard,
    ReportMisdeal,
    Showdown,
    ShufflerFailure,
    Void,
)
from .events import (
    AntePlaced,
    BettingClosed,
    CardDealt,
    CardExposed,
    DeadHandDealt,
    DecisionMade,
    Event,
    JackpotWagerPlaced,
    RoundOpened,
    RoundSettled,
    RoundVoided,
)
from .hands import HandValue, compare, evaluate, qualifies
from .rules import CaribbeanRules, DealingProcedure, jackpot_combination
from .settlement import (
    BoxOutcome,
    BoxResult,
    CarriedWager,
    Outcome,
    Settlement,
    WagerKind,
    WagerResult,
)

__all__ = [
    "DEALER",
    "HAND_SIZE",
    "BoxState",
    "CaribbeanRound",
    "Expected",
    "Phase",
    "PlayerView",
    "deal_order",
]

DEALER: Final = 0
"""The dealer's position in ``DealCard.to`` / ``CardDealt.to`` (boxes are 1..7)."""

HAND_SIZE: Final = 5
"""CSP-7: five cards to each box with a bet and to the dealer."""


class Phase(StrEnum):
    """Where a round is in its lifecycle."""

    BETTING = "betting"
    DEALING = "dealing"
    DECIDING = "deciding"
    SETTLED = "settled"
    VOID = "void"


def deal_order(procedure: DealingProcedure, boxes: Iterable[int]) -> tuple[int, ...]:
    """The recipient of every card, in order, for the boxes with a bet (CSP-7).

    SHOE (CSP-7.1): one card at a time to each box from box 1 upward, the dealer last, five
    times. SHUFFLER (CSP-7.2): five cards at a time to each box from box 1, the dealer last.
    """
    seats = (*sorted(boxes), DEALER)
    if procedure is DealingProcedure.SHOE:
        return tuple(seat for _ in range(HAND_SIZE) for seat in seats)
    return tuple(seat for seat in seats for _ in range(HAND_SIZE))


@dataclass(frozen=True, slots=True)
class BoxState:
    """One box in the round: its player, wagers, cards and decision.

    ``ante == 0`` means the box only holds a jackpot wager carried over (not in play yet).
    """

    box: int
    player: str
    ante: int = 0
    jackpot: int = 0
    jackpot_carried: bool = False
    cards: tuple[Card, ...] = ()
    decided: bool = False
    raise_amount: int = 0
    timed_out: bool = False

    @property
    def in_play(self) -> bool:
        """The box has an ante this round (CSP-6.2) and so receives cards (CSP-7)."""
        return self.ante > 0

    @property
    def raised(self) -> bool:
        """The player raised (CSP-6.5); False before the decision and after a fold."""
        return self.raise_amount > 0


@dataclass(frozen=True, slots=True)
class Expected:
    """What a round expects next (:meth:`CaribbeanRound.expected_next`).

    ``next_card_to``: the box (or :data:`DEALER`) due the next card while dealing;
    ``pending_decisions``: boxes still to raise or fold; ``commands``: the command types that
    can be accepted now (each still validated on its own).
    """

    phase: Phase
    next_card_to: int | None
    pending_decisions: tuple[int, ...]
    commands: tuple[type, ...]


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What the player of ``box`` may see (CSP-6.5, CSP-12): their own cards and the dealer's
    face-up cards (``None`` stands for a face-down card); the dealer's whole hand only after the
    showdown. Never another box's cards."""

    box: int
    phase: Phase
    player: str | None
    cards: tuple[Card, ...]
    dealer_cards: tuple[Card | None, ...]
    ante: int
    jackpot: int
    raise_amount: int
    decided: bool
    results: tuple[WagerResult, ...]


_OPEN = (Phase.BETTING, Phase.DEALING, Phase.DECIDING)


def _card(value: object) -> Card:
    # CSP-1: one 52-card deck; anything that is not one of its cards is refused.
    if isinstance(value, Card):
        return value
    try:
        if not isinstance(value, str):
            raise ParseError(f"not a card: {value!r}")
        return Card.parse(value)
    except ParseError as exc:
        raise RuleViolation("CSP-1", f"unknown card {value!r}: {exc}") from None


def _box_number(value: object, boxes: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= boxes:
        raise RuleViolation("CSP-2", f"no box {value!r}: boxes are 1..{boxes}")
    return value


def _player_id(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RuleViolation("CSP-6.1", f"a box is played by one identified player, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class CaribbeanRound:
    """One round of Caribbean Stud Poker at one table: an immutable value.

    Build with :meth:`new` (checks approvals, CSP-13) or :meth:`replay`; advance with
    :meth:`apply`. Fields are the full (unredacted) state: use :meth:`view_for_player` for
    anything a player receives.
    """

    rules: CaribbeanRules
    round_id: str
    opening_date: date
    phase: Phase = Phase.BETTING
    boxes: tuple[BoxState, ...] = ()
    deal_order: tuple[int, ...] = ()
    dealt: int = 0
    dealer_cards: tuple[Card, ...] = ()
    dealer_face_up: tuple[bool, ...] = ()
    exposed: tuple[CardExposed, ...] = ()
    dead_hands: tuple[DeadHandDealt, ...] = ()
    settlement: Settlement | None = None
    void_rule: str | None = None
    void_reason: str | None = None
    shoe_commitment: str | None = None
    events: tuple[Event, ...] = ()

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        rules: CaribbeanRules,
        round_id: str,
        opening_date: date,
        *,
        carried_jackpot_wagers: Iterable[CarriedWager] = (),
        holidays: Collection[date] = (),
    ) -> CaribbeanRound:
        """Open a round on ``opening_date``.

        Refuses (``RuleViolation`` CSP-13) a table with an option in use that has no valid,
        effective approval; refuses (CSP-11.1) malformed carried-over jackpot wagers (box out of
        range, two on one box, two for one player, non-positive amount).
        """
        if not isinstance(rules, CaribbeanRules):
            raise TypeError(f"rules must be CaribbeanRules, got {rules!r}")
        if not isinstance(round_id, str) or not round_id:
            raise ValueError(f"round_id must be a non-empty string, got {round_id!r}")
        if not isinstance(opening_date, date) or isinstance(opening_date, datetime):
            raise TypeError(f"opening_date must be a datetime.date, got {opening_date!r}")
        used = rules.check_approvals(opening_date, holidays)
        carried = tuple(carried_jackpot_wagers)
        seen_boxes: set[int] = set()
        seen_players: set[str] = set()
        for w in carried:
            if not isinstance(w, CarriedWager):
                raise RuleViolation("CSP-11.1", f"not a carried jackpot wager: {w!r}")
            _box_number(w.box, rules.boxes)
            _player_id(w.player)
            if isinstance(w.amount, bool) or not isinstance(w.amount, int) or w.amount <= 0:
                raise RuleViolation("CSP-11.1", f"carried jackpot wager amount {w.amount!r}")
            if w.box in seen_boxes or w.player in seen_players:
                raise RuleViolation(
                    "CSP-11.1", f"two carried jackpot wagers for box {w.box} / {w.player!r}"
                )
            seen_boxes.add(w.box)
            seen_players.add(w.player)
        opened = RoundOpened(
            round_id, rules, opening_date, tuple(a.reference for a in used), tuple(carried)
        )
        return _evolve(cls(rules, round_id, opening_date), opened)

    @classmethod
    def replay(cls, events: Sequence[Event]) -> CaribbeanRound:
        """Rebuild a round from its events (the first is :class:`RoundOpened`, which carries
        the rules).

        The log is trusted (it is written only by :meth:`apply`); this is a pure fold, so
        ``replay(r.events) == r`` for every round ``r``. Refuses an empty log or one not
        starting with ``RoundOpened`` (ValueError).
        """
        if not events or not isinstance(events[0], RoundOpened):
            raise ValueError("a round's event log starts with RoundOpened")
        first = events[0]
        state = cls(first.rules, first.round_id, first.opening_date)
        for event in events:
            state = _evolve(state, event)
        return state

    # -- queries ---------------------------------------------------------------------------

    def box(self, box: int) -> BoxState | None:
        """The state of ``box``, or ``None`` if nobody is on it."""
        for b in self.boxes:
            if b.box == box:
                return b
        return None

    @property
    def in_play(self) -> tuple[BoxState, ...]:
        """Boxes with an ante this round, from box 1 up."""
        return tuple(b for b in self.boxes if b.in_play)

    @property
    def cards_in_round(self) -> frozenset[Card]:
        """Every card dealt in this round (boxes, dealer, dead hands)."""
        cards: set[Card] = set(self.dealer_cards)
        for b in self.boxes:
            cards.update(b.cards)
        for d in self.dead_hands:
            cards.update(d.cards)
        return frozenset(cards)

    @property
    def next_card_to(self) -> int | None:
        """The box (or :data:`DEALER`) due the next card, or ``None`` when not dealing."""
        if self.phase is Phase.DEALING:
            return self.deal_order[self.dealt]
        return None

    @property
    def pending_decisions(self) -> tuple[int, ...]:
        """Boxes in play that have not raised or folded yet."""
        return tuple(b.box for b in self.in_play if not b.decided)

    @property
    def is_over(self) -> bool:
        """The round is settled or void."""
        return self.phase in (Phase.SETTLED, Phase.VOID)

    def carried_jackpot_wagers(self) -> tuple[CarriedWager, ...]:
        """Jackpot wagers to hand to the next round (CSP-11.1); empty until the round is over."""
        return () if self.settlement is None else self.settlement.carried_over

    def expected_next(self) -> Expected:
        """What is due now: the next card's recipient, pending decisions, plausible commands."""
        faults: tuple[type, ...] = (ShufflerFailure, Void)
        if self.phase is Phase.BETTING:
            cmds: tuple[type, ...] = (PlaceAnte, PlaceJackpotWager)
            if self.in_play:
                cmds += (CloseBetting,)
            return Expected(self.phase, None, (), cmds + faults)
        if self.phase is Phase.DEALING:
            cmds = (DealCard, DealtToEmptyBox, ReportMisdeal)
            if self.dealt:
                cmds += (ReportExposedCard,)
            return Expected(self.phase, self.next_card_to, (), cmds + faults)
        if self.phase is Phase.DECIDING:
            pending = self.pending_decisions
            cmds = (Raise, Fold, DecisionTimeout) if pending else (Showdown,)
            cmds += (ReportExposedCard, DealtToEmptyBox, ReportMisdeal)
            return Expected(self.phase, None, pending, cmds + faults)
        return Expected(self.phase, None, (), ())

    def view_for_player(self, box: int) -> PlayerView:
        """The redacted view for the player of ``box`` (CSP-6.5, CSP-12).

        Contains that box's own cards and wagers, the dealer's face-up cards (the up card and any
        card exposed in error, CSP-11.2) and, after the showdown, the dealer's whole hand and the
        box's own results. Never another box's cards, never a face-down dealer card before the
        showdown.
        """
        _box_number(box, self.rules.boxes)
        mine = self.box(box)
        reveal = self.phase is Phase.SETTLED
        dealer = tuple(
            card if (up or reveal) else None
            for card, up in zip(self.dealer_cards, self.dealer_face_up, strict=True)
        )
        results = () if self.settlement is None else self.settlement.for_box(box)
        if mine is None:
            return PlayerView(box, self.phase, None, (), dealer, 0, 0, 0, False, results)
        return PlayerView(
            box,
            self.phase,
            mine.player,
            mine.cards,
            dealer,
            mine.ante,
            mine.jackpot,
            mine.raise_amount,
            mine.decided,
            results,
        )

    # -- commands --------------------------------------------------------------------------

    def decide(self, command: Command) -> tuple[Event, ...]:
        """The events ``command`` produces, or raise :class:`RuleViolation` (nothing changes)."""
        if self.is_over:
            rule = self.void_rule or "CSP-6.8"
            raise RuleViolation(rule, f"round {self.round_id} is over ({self.phase})")
        handler = _HANDLERS.get(type(command))
        if handler is None:
            raise TypeError(f"not a Caribbean Stud command: {command!r}")
        return handler(self, command)

    def check(self, command: Command) -> MacauTablesError | None:
        """``None`` if ``command`` would be accepted now, else the error it would raise."""
        try:
            self.decide(command)
        except MacauTablesError as exc:
            return exc
        return None

    def can_apply(self, command: Command) -> bool:
        """Whether ``command`` would be accepted now."""
        return self.check(command) is None

    def apply(self, command: Command) -> tuple[CaribbeanRound, tuple[Event, ...]]:
        """Apply ``command``: returns ``(new_round, events)``.

        Raises :class:`RuleViolation` (with the rule id) for a command the law does not allow;
        this round is unchanged (it is immutable).
        """
        events = self.decide(command)
        state = self
        for event in events:
            state = _evolve(state, event)
        return state, events

    def apply_all(self, commands: Iterable[Command]) -> CaribbeanRound:
        """Apply ``commands`` in order; the first refused one raises."""
        state = self
        for command in commands:
            state, _ = state.apply(command)
        return state

    # -- helpers used by the handlers ------------------------------------------------------

    def _procedure_rule(self) -> str:
        return "CSP-7.1" if self.rules.dealing_procedure is DealingProcedure.SHOE else "CSP-7.2"

    def _fresh_card(self, value: object) -> Card:
        card = _card(value)
        if card in self.cards_in_round:
            raise RuleViolation(
                "CSP-1", f"{card} was already dealt in this round (one 52-card deck)"
            )
        return card

    def _decision_box(self, box: object, player: str | None) -> BoxState:
        if self.phase is not Phase.DECIDING:
            raise RuleViolation("CSP-6.5", "a player decides only after every card has been dealt")
        number = _box_number(box, self.rules.boxes)
        state = self.box(number)
        if state is None or not state.in_play:
            raise RuleViolation("CSP-6.5", f"box {number} has no hand to decide on")
        if player is not None and state.player != player:
            raise RuleViolation(
                "CSP-6.1", f"box {number} is played by another player, not {player!r}"
            )
        if state.decided:
            raise RuleViolation("CSP-6.5", f"box {number} has already decided")
        return state

    def _void(self, rule: str, reason: str) -> RoundVoided:
        return RoundVoided(rule, reason, _void_settlement(self))


# -- handlers: state + command -> events (validation only; no state change) ------------------


def _place_ante(r: CaribbeanRound, c: PlaceAnte) -> tuple[Event, ...]:
    if r.phase is not Phase.BETTING:
        raise RuleViolation("CSP-6.2", "betting is closed: no ante after the first card")
    number = _box_number(c.box, r.rules.boxes)
    player = _player_id(c.player)
    existing = r.box(number)
    if existing is not None and existing.player != player:
        raise RuleViolation("CSP-6.1", f"box {number} is played by {existing.player!r}")
    for b in r.boxes:
        if b.box != number and b.player == player:
            raise RuleViolation(
                "CSP-6.1", f"player {player!r} already plays box {b.box}: one box per player"
            )
    if existing is not None and existing.ante:
        raise RuleViolation("CSP-6.2", f"box {number} already has an ante")
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
        raise RuleViolation("CSP-6.3", "the jackpot wager is placed only before the first card")
    number = _box_number(c.box, r.rules.boxes)
    player = _player_id(c.player)
    existing = r.box(number)
    if existing is not None and existing.player != player:
        raise RuleViolation("CSP-6.1", f"box {number} is played by {existing.player!r}")
    if existing is None or not existing.ante:
        raise RuleViolation("CSP-6.3", f"box {number}: no jackpot wager without an ante")
    if existing.jackpot:
        raise RuleViolation("CSP-10.1", f"box {number} already has a jackpot wager")
    amount = r.rules.jackpot_wager
    if c.amount is not None and (
        isinstance(c.amount, bool) or not isinstance(c.amount, int) or c.amount != amount
    ):
        raise RuleViolation(
            "CSP-6.3", f"the jackpot wager is exactly the table's {amount}, not {c.amount!r}"
        )
    return (JackpotWagerPlaced(number, player, amount),)


def _close_betting(r: CaribbeanRound, c: CloseBetting) -> tuple[Event, ...]:
    if r.phase is not Phase.BETTING:
        raise RuleViolation("CSP-6.2", "betting is already closed")
    boxes = [b.box for b in r.in_play]
    if not boxes:
        raise RuleViolation("CSP-6.2", "no box has an ante: nothing to deal")
    commitment = c.shoe_commitment
    if isinstance(commitment, ShoeCommitment):
        commitment = commitment.digest
    if commitment is not None and (
        not isinstance(commitment, str)
        or len(commitment) != 64
        or not all(ch in "0123456789abcdef" for ch in commitment)
    ):
        raise RuleViolation(
            "CSP-3",
            f"a shoe commitment is a SHA-256 digest in 64 lowercase hex digits: {commitment!r}",
        )
    return (BettingClosed(deal_order(r.rules.dealing_procedure, boxes), commitment),)


def _deal_card(r: CaribbeanRound, c: DealCard) -> tuple[Event, ...]:
    rule = r._procedure_rule()
    if r.phase is Phase.BETTING:
        raise RuleViolation(rule, "close betting before the first card is dealt")
    if r.phase is not Phase.DEALING:
        raise RuleViolation(
            rule,
            "every hand already has five cards: no sixth card (if one was dealt, that is a wrong "
            "number of cards: report a misdeal, CSP-11.1)",
        )
    card = r._fresh_card(c.card)
    due = r.deal_order[r.dealt]
    if c.to is not None:
        to = c.to
        if isinstance(to, bool) or not isinstance(to, int):
            raise RuleViolation(rule, f"no such position {to!r}")
        if to == DEALER:
            held = len(r.dealer_cards)
        else:
            _box_number(to, r.rules.boxes)
            target = r.box(to)
            held = len(target.cards) if target is not None else 0
        if held >= HAND_SIZE:
            name = "the dealer" if to == DEALER else f"box {to}"
            raise RuleViolation(
                rule,
                f"{name} already has five cards: a sixth card is refused (if it was dealt, "
                "that is a wrong number of cards: report a misdeal, CSP-11.1)",
            )
        if to != due:
            due_name = "the dealer" if due == DEALER else f"box {due}"
            raise RuleViolation(
                rule,
                f"wrong dealing order: this card is due to {due_name} (if it was dealt elsewhere, "
                "that is a wrong dealing procedure: report a misdeal, CSP-11.1)",
            )
    # CSP-7: the dealer's fifth card is dealt face up — unless a dealer card was exposed in
    # error, after which the dealer's remaining cards all go face down (CSP-11.2).
    dealer_exposed = any(e.position == DEALER for e in r.exposed)
    face_up = due == DEALER and len(r.dealer_cards) == HAND_SIZE - 1 and not dealer_exposed
    return (CardDealt(card, due, face_up),)


def _raise(r: CaribbeanRound, c: Raise) -> tuple[Event, ...]:
    box = r._decision_box(c.box, _player_id(c.player))
    wanted = 2 * box.ante
    if isinstance(c.amount, bool) or not isinstance(c.amount, int) or c.amount != wanted:
        raise RuleViolation(
            "CSP-6.6", f"the raise is exactly twice the ante ({wanted}), not {c.amount!r}"
        )
    return (DecisionMade(box.box, box.player, wanted),)


def _fold(r: CaribbeanRound, c: Fold) -> tuple[Event, ...]:
    box = r._decision_box(c.box, _player_id(c.player))
    return (DecisionMade(box.box, box.player, 0),)


def _timeout(r: CaribbeanRound, c: DecisionTimeout) -> tuple[Event, ...]:
    box = r._decision_box(c.box, None)
    return (DecisionMade(box.box, box.player, 0, timed_out=True),)


def _showdown(r: CaribbeanRound, c: Showdown) -> tuple[Event, ...]:
    if r.phase is not Phase.DECIDING:
        raise RuleViolation("CSP-6.8", "the showdown comes after the deal and every decision")
    if r.pending_decisions:
        raise RuleViolation(
            "CSP-6.8", f"waiting for the decisions of boxes {list(r.pending_decisions)}"
        )
    if not isinstance(c.meter, Meter):
        raise RuleViolation("CSP-10.8", f"the showdown needs the jackpot meter, got {c.meter!r}")
    if c.meter.seed != r.rules.jackpot_seed:
        raise RuleViolation(
            "CSP-10.8",
            f"meter seed {c.meter.seed} differs from the table's jackpot seed "
            f"{r.rules.jackpot_seed}",
        )
    return (RoundSettled(_showdown_settlement(r, c.meter)),)


def _report_exposed(r: CaribbeanRound, c: ReportExposedCard) -> tuple[Event, ...]:
    if r.phase not in (Phase.DEALING, Phase.DECIDING):
        raise RuleViolation("CSP-11.2", "a card can be exposed in error only once cards are out")
    card = _card(c.card)
    position: int | None = None
    if card in r.dealer_cards:
        index = r.dealer_cards.index(card)
        if r.dealer_face_up[index]:
            raise RuleViolation("CSP-11.2", f"{card} is already face up")
        position = DEALER
    else:
        for b in r.in_play:
            if card in b.cards:
                position = b.box
    if position is None:
        raise RuleViolation("CSP-11.2", f"{card} was not dealt to a hand in this round")
    if any(e.card == card for e in r.exposed):
        raise RuleViolation("CSP-11.2", f"{card} was already reported exposed")
    exposed = CardExposed(card, position)
    if r.exposed:
        # CSP-11.1: two or more cards exposed in error void the round.
        after = _evolve(r, exposed)
        return (exposed, after._void("CSP-11.1", "two or more cards exposed in error"))
    return (exposed,)


def _report_misdeal(r: CaribbeanRound, c: ReportMisdeal) -> tuple[Event, ...]:
    if r.phase not in (Phase.DEALING, Phase.DECIDING):
        raise RuleViolation("CSP-11.1", "a misdeal can be reported only once dealing has begun")
    if not isinstance(c.reason, str) or not c.reason.strip():
        raise RuleViolation("CSP-11.1", "a misdeal needs a reason")
    return (r._void("CSP-11.1", c.reason),)


def _dealt_to_empty(r: CaribbeanRound, c: DealtToEmptyBox) -> tuple[Event, ...]:
    if r.phase not in (Phase.DEALING, Phase.DECIDING):
        raise RuleViolation("CSP-11.3", "cards can be dealt only after betting closed")
    number = _box_number(c.box, r.rules.boxes)
    state = r.box(number)
    if state is not None and state.in_play:
        raise RuleViolation("CSP-11.3", f"box {number} has a bet: its cards are not a dead hand")
    if any(d.box == number for d in r.dead_hands):
        raise RuleViolation("CSP-11.3", f"box {number}'s dead hand was already recorded")
    raw = tuple(c.cards) if isinstance(c.cards, tuple | list) else ()
    if not 1 <= len(raw) <= HAND_SIZE:
        raise RuleViolation("CSP-11.3", f"a dead hand is 1..5 cards, got {c.cards!r}")
    cards: list[Card] = []
    for value in raw:
        card = r._fresh_card(value)
        if card in cards:
            raise RuleViolation("CSP-1", f"{card} appears twice (one 52-card deck)")
        cards.append(card)
    return (DeadHandDealt(number, tuple(cards)),)


def _shuffler_failure(r: CaribbeanRound, c: ShufflerFailure) -> tuple[Event, ...]:
    return (r._void("CSP-11.4", "shuffling machine failure"),)


def _void_cmd(r: CaribbeanRound, c: Void) -> tuple[Event, ...]:
    if not isinstance(c.reason, str) or not c.reason.strip():
        raise RuleViolation("CSP-11.4", "voiding a round needs a reason")
    return (r._void("CSP-11.4", c.reason),)


_HANDLERS: Final[Mapping[type, Callable[[CaribbeanRound, Any], tuple[Event, ...]]]] = {
    PlaceAnte: _place_ante,
    PlaceJackpotWager: _place_jackpot,
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
    Void: _void_cmd,
}


# -- the fold: state + event -> state (no validation: events are facts) ----------------------


def _set_box(r: CaribbeanRound, new: BoxState) -> tuple[BoxState, ...]:
    others = [b for b in r.boxes if b.box != new.box]
    return tuple(sorted([*others, new], key=lambda b: b.box))


def _evolve(r: CaribbeanRound, e: Event) -> CaribbeanRound:
    log = (*r.events, e)
    if isinstance(e, RoundOpened):
        boxes = tuple(
            sorted(
                (
                    BoxState(w.box, w.player, jackpot=w.amount, jackpot_carried=True)
                    for w in e.carried_jackpot_wagers
                ),
                key=lambda b: b.box,
            )
        )
        return replace(r, boxes=boxes, events=log)
    if isinstance(e, AntePlaced):
        current = r.box(e.box) or BoxState(e.box, e.player)
        return replace(r, boxes=_set_box(r, replace(current, ante=e.amount)), events=log)
    if isinstance(e, JackpotWagerPlaced):
        current = r.box(e.box) or BoxState(e.box, e.player)
        return replace(r, boxes=_set_box(r, replace(current, jackpot=e.amount)), events=log)
    if isinstance(e, BettingClosed):
        return replace(
            r,
            phase=Phase.DEALING,
            deal_order=e.deal_order,
            shoe_commitment=e.shoe_commitment,
            events=log,
        )
    if isinstance(e, CardDealt):
        dealt = r.dealt + 1
        phase = Phase.DECIDING if dealt == len(r.deal_order) else r.phase
        if e.to == DEALER:
            return replace(
                r,
                dealer_cards=(*r.dealer_cards, e.card),
                dealer_face_up=(*r.dealer_face_up, e.face_up),
                dealt=dealt,
                phase=phase,
                events=log,
            )
        current = r.box(e.to) or BoxState(e.to, "")
        new_box = replace(current, cards=(*current.cards, e.card))
        return replace(r, boxes=_set_box(r, new_box), dealt=dealt, phase=phase, events=log)
    if isinstance(e, CardExposed):
        face_up = r.dealer_face_up
        if e.position == DEALER:
            i = r.dealer_cards.index(e.card)
            face_up = (*face_up[:i], True, *face_up[i + 1 :])
        return replace(r, exposed=(*r.exposed, e), dealer_face_up=face_up, events=log)
    if isinstance(e, DeadHandDealt):
        return replace(r, dead_hands=(*r.dead_hands, e), events=log)
    if isinstance(e, DecisionMade):
        current = r.box(e.box) or BoxState(e.box, e.player)
        new_box = replace(current, decided=True, raise_amount=e.raise_amount, timed_out=e.timed_out)
        return replace(r, boxes=_set_box(r, new_box), events=log)
    if isinstance(e, RoundSettled):
        return replace(r, phase=Phase.SETTLED, settlement=e.settlement, events=log)
    if isinstance(e, RoundVoided):
        return replace(
            r,
            phase=Phase.VOID,
            settlement=e.settlement,
            void_rule=e.rule,
            void_reason=e.reason,
            events=log,
        )
    raise TypeError(f"not a Caribbean Stud event: {e!r}")  # pragma: no cover


# -- settlement ------------------------------------------------------------------------------


def _void_settlement(r: CaribbeanRound) -> Settlement:
    """CSP-11.1 / CSP-11.4: antes and raises returned, every jackpot wager carried over."""
    wagers: list[WagerResult] = []
    boxes: list[BoxResult] = []
    carried: list[CarriedWager] = []
    for b in r.boxes:
        if b.ante:
            wagers.append(
                WagerResult(b.box, b.player, WagerKind.ANTE, b.ante, Outcome.RETURNED, b.ante)
            )
        if b.raise_amount:
            wagers.append(
                WagerResult(
                    b.box, b.player, WagerKind.RAISE, b.raise_amount, Outcome.RETURNED,
                    b.raise_amount,
                )
            )  # fmt: skip
        if b.jackpot:
            wagers.append(
                WagerResult(b.box, b.player, WagerKind.JACKPOT, b.jackpot, Outcome.CARRIED_OVER, 0)
            )
            carried.append(CarriedWager(b.box, b.player, b.jackpot))
        boxes.append(BoxResult(b.box, b.player, b.cards, None, BoxOutcome.VOID))
    return Settlement(
        voided=True,
        dealer_cards=r.dealer_cards,
        dealer_category=None,
        dealer_qualifies=None,
        boxes=tuple(boxes),
        wagers=tuple(wagers),
        meter_contribution=0,
        jackpot=None,
        carried_over=tuple(carried),
    )


def _showdown_settlement(r: CaribbeanRound, meter: Meter) -> Settlement:
    """CSP-9 (ante/raise against the dealer) and CSP-10 (jackpot on the box's own cards)."""
    rules = r.rules
    dealer_value: HandValue = evaluate(r.dealer_cards)
    dealer_ok = qualifies(dealer_value)
    boxes: list[BoxResult] = []
    table_wagers: dict[int, list[WagerResult]] = {}
    jackpot_split: dict[int, tuple[int, int]] = {}
    winners: list[tuple[int, Combination]] = []
    carried: list[CarriedWager] = []
    contribution = 0
    for b in r.boxes:
        results: list[WagerResult] = []
        table_wagers[b.box] = results
        if not b.in_play:
            # A carried-over jackpot wager whose box took no ante this round: carried again.
            carried.append(CarriedWager(b.box, b.player, b.jackpot))
            continue
        value = evaluate(b.cards)
        category = value.category
        ante, raised = b.ante, b.raise_amount
        if not b.raised:
            # CSP-6.7 / CSP-6.4: folded, ante lost (the jackpot wager below is lost too).
            outcome = BoxOutcome.TIMED_OUT if b.timed_out else BoxOutcome.FOLDED
            results.append(WagerResult(b.box, b.player, WagerKind.ANTE, ante, Outcome.LOST, 0))
        else:
            if not dealer_ok:
                # CSP-9.2: ante wins 1:1, raise returned.
                outcome = BoxOutcome.DEALER_NOT_QUALIFIED
                a = (Outcome.WON, 2 * ante)
                x = (Outcome.RETURNED, raised)
            else:
                cmp = compare(value, dealer_value)
                if cmp > 0:
                    # CSP-9.5: ante 1:1, raise by the paytable (capped per box, CSP-9.5).
                    outcome = BoxOutcome.WON
                    a = (Outcome.WON, 2 * ante)
                    x = (Outcome.WON, raised + rules.raise_win(category, raised))
                elif cmp < 0:
                    outcome = BoxOutcome.LOST  # CSP-9.4
                    a = (Outcome.LOST, 0)
                    x = (Outcome.LOST, 0)
                else:  # impossible from one deck under Macau ranking (CSP-8)
                    outcome = BoxOutcome.TIED
                    a = (Outcome.RETURNED, ante)
                    x = (Outcome.RETURNED, raised)
            results.append(WagerResult(b.box, b.player, WagerKind.ANTE, ante, *a))
            results.append(WagerResult(b.box, b.player, WagerKind.RAISE, raised, *x))
        boxes.append(BoxResult(b.box, b.player, b.cards, category, outcome))
        if b.jackpot:
            split = split_contribution(b.jackpot, rules.jackpot_contribution)
            jackpot_split[b.box] = split
            contribution += split[0]
            combo = jackpot_combination(category)
            # CSP-10.1/10.2: ante + jackpot wager, on the box's own cards, not if folded.
            if b.raised and combo is not None:
                winners.append((b.box, combo))
    result = resolve_caribbean(
        meter.credit(contribution), winners, rules.jackpot_fixed_awards.as_mapping()
    )
    wagers: list[WagerResult] = []
    for b in r.boxes:
        wagers.extend(table_wagers[b.box])
        if not b.jackpot:
            continue
        if not b.in_play:
            wagers.append(
                WagerResult(b.box, b.player, WagerKind.JACKPOT, b.jackpot, Outcome.CARRIED_OVER, 0)
            )
            continue
        to_meter, to_house = jackpot_split[b.box]
        awards = result.for_box(b.box)
        paid = sum(a.amount for a in awards)
        wagers.append(
            WagerResult(
                b.box,
                b.player,
                WagerKind.JACKPOT,
                b.jackpot,
                Outcome.WON if awards else Outcome.LOST,
                paid,
                to_meter,
                to_house,
            )
        )
    return Settlement(
        voided=False,
        dealer_cards=r.dealer_cards,
        dealer_category=dealer_value.category,
        dealer_qualifies=dealer_ok,
        boxes=tuple(boxes),
        wagers=tuple(wagers),
        meter_contribution=contribution,
        jackpot=result,
        carried_over=tuple(carried),
    )
