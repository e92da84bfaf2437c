"""One baccarat round as a pure state machine on any card source (BAC-4, BAC-7 … BAC-18).

A :class:`BaccaratRound` is an immutable value. :meth:`BaccaratRound.apply` turns a command into
events and the new state, or refuses it with a :class:`~macau_tables.errors.RuleViolation`
naming the rule (nothing changes). The state is a fold over its events, so
``BaccaratRound.replay(events) == live state``.

Flow::

    BaccaratRound.new(...)              RoundOpened (approvals checked, BAC-19)
    PlaceWager / ChangeCarried ...      betting (BAC-12 … BAC-15)
    CloseBetting (or the first card)    BettingClosed
    DealCard ...                        one card at a time; expected_next() says which is due
    Reveal / RevealTimeout ...          card holding, when the table allows it (BAC-16)
    Settle(meter)                       RoundSettled: every wager settled (BAC-17, BAC-18)
    Correct / Void                      a supervisor corrects a dealing error or voids (BAC-10)

Cards: the round checks every card against BAC-7 (order P1 B1 P2 B2), BAC-9 (third cards) and
the shoe (no more copies of a face than the decks hold, given the cards already out of the shoe:
the ``available`` counts from :meth:`~.shoe.ShoeState.available`). In live mode (``live=True``,
physical cards entered at the console) a wrong card is *refused and flagged* (BAC-10): the
round records a :class:`CardRefused` event for the supervisor, the cards and wagers are
unchanged, and no other card is taken until the supervisor resolves it with :class:`Correct`
(reassign it to the slot that is due, or withdraw it) or voids the round. In virtual mode the
cards come from the committed shoe, so a wrong card is a bug and is refused with an exception,
and there is nothing for a supervisor to correct (:class:`Correct` is refused; :class:`Void`
stays available).

Ties (BAC-12): a banker/player wager on a tied round is carried (:meth:`carried_out`). The next
round is opened with those wagers (``carried=``); before its betting closes each may be
withdrawn, left or changed (reduced, or switched to the other side) as the table's
``tie_options`` allow (:class:`ChangeCarried`). A carried wager nobody acts on is left (when the
table allows "left"), otherwise returned when betting closes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from enum import Enum, StrEnum
from functools import reduce
from typing import TypeVar

from ..cards import Card
from ..errors import ParseError, RuleViolation
from ..jackpot import AwardSplit, Combination, JackpotResult, Meter, split_contribution
from .bets import (
    Area,
    Outcome,
    Wager,
    WagerSettlement,
    card_holder,
    check_area,
    check_difference,
    check_stake,
    returned,
    settle_wager,
)
from .jackpot_combos import jackpot_combination, resolve_baccarat
from .rules import BaccaratRules, TieOption, WagerKind
from .shoe import CardSource, ShoePhase, ShoeState
from .sides import Side
from .tableau import BANKER_DRAW_TABLE, RoundResult, card_value, deal_round

__all__ = [
    "DEALER",
    "BaccaratRound",
    "BettingClosed",
    "CardCorrected",
    "CardDealt",
    "CardRefused",
    "CardSlot",
    "CarriedChanged",
    "ChangeCarried",
    "CloseBetting",
    "Correct",
    "CorrectionAction",
    "DealCard",
    "PlaceWager",
    "Reveal",
    "RevealPart",
    "RevealStep",
    "RevealTimedOut",
    "RevealTimeout",
    "RoundOpened",
    "RoundPhase",
    "RoundSettled",
    "RoundSettlement",
    "RoundVoided",
    "Settle",
    "Void",
    "WagerPlaced",
    "deal_from",
]

DEALER = "dealer"
"""The id used for the dealer in :class:`Reveal` (BAC-16)."""


class CardSlot(StrEnum):
    """Where a card goes, in dealing order (BAC-7.1, BAC-9)."""

    PLAYER_1 = "P1"
    BANKER_1 = "B1"
    PLAYER_2 = "P2"
    BANKER_2 = "B2"
    PLAYER_3 = "P3"
    BANKER_3 = "B3"


_FIRST_FOUR = (CardSlot.PLAYER_1, CardSlot.BANKER_1, CardSlot.PLAYER_2, CardSlot.BANKER_2)


class RoundPhase(StrEnum):
    BETTING = "betting"
    DEALING = "dealing"
    COMPLETE = "complete"  # every card dealt (and revealed): waiting for Settle
    SETTLED = "settled"
    VOID = "void"


class RevealPart(StrEnum):
    """BAC-16.2: a side's first two cards, then its drawn card separately."""

    FIRST_TWO = "first_two"
    THIRD = "third"


@dataclass(frozen=True, slots=True)
class RevealStep:
    side: Side
    part: RevealPart


class CorrectionAction(StrEnum):
    """BAC-10: what a supervisor does with a wrongly dealt card."""

    REASSIGN = "reassign"  # the refused card goes to the slot that is due
    WITHDRAW = "withdraw"  # the refused card (or, with none refused, the last card) is removed


# -- commands ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlaceWager:
    """``player`` places ``amount`` on ``kind`` in betting ``area`` (BAC-13 … BAC-15)."""

    player: str
    area: Area
    kind: WagerKind
    amount: int


@dataclass(frozen=True, slots=True)
class ChangeCarried:
    """BAC-12: the owner of a carried wager withdraws it, leaves it, reduces it to ``amount``
    or switches it to the other side (``amount`` optional, a reduction when given)."""

    wager_id: int
    player: str
    option: TieOption
    amount: int | None = None


@dataclass(frozen=True, slots=True)
class CloseBetting:
    """No more bets (the first card also closes betting)."""


@dataclass(frozen=True, slots=True)
class DealCard:
    """A card leaves the shoe. ``slot`` (optional) says where the dealer put it; ``exposed``:
    it came out face up in error (BAC-4: it stays valid, and is recorded)."""

    card: Card | str
    slot: CardSlot | None = None
    exposed: bool = False


@dataclass(frozen=True, slots=True)
class Reveal:
    """BAC-16: ``by`` (the card holder's id, or :data:`DEALER`) turns ``side``'s cards."""

    side: Side
    part: RevealPart
    by: str


@dataclass(frozen=True, slots=True)
class RevealTimeout:
    """BAC-16: the holder's time (the table's ``holding_timeout_seconds``, measured by the
    table service: the rules never read a clock) ran out; from then on only the dealer reveals
    that step."""

    side: Side
    part: RevealPart


@dataclass(frozen=True, slots=True)
class Correct:
    """BAC-10 (live mode): supervisor ``supervisor`` corrects a dealing error, saying
    ``reason``."""

    supervisor: str
    reason: str
    action: CorrectionAction


@dataclass(frozen=True, slots=True)
class Void:
    """BAC-10: supervisor ``supervisor`` voids the round (every wager returned)."""

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class Settle:
    """Settle the complete round; ``meter``: the jackpot meter as it stands before this round's
    contributions (required when the round has jackpot wagers)."""

    meter: Meter | None = None


Command = (
    PlaceWager
    | ChangeCarried
    | CloseBetting
    | DealCard
    | Reveal
    | RevealTimeout
    | Correct
    | Void
    | Settle
)

# -- events -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundOpened:
    """The round opened (after the BAC-19 approval check: ``approval_references``)."""

    round_id: str
    rules: BaccaratRules
    live: bool
    demo: bool
    seated: tuple[tuple[int, str], ...]
    available: tuple[int, ...]
    cards_left: int
    carried: tuple[Wager, ...]
    opening_date: date
    approval_references: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WagerPlaced:
    wager: Wager


@dataclass(frozen=True, slots=True)
class CarriedChanged:
    """BAC-12: a carried wager was withdrawn (``new`` None), left, reduced or switched;
    ``returned`` is the part handed back."""

    wager_id: int
    option: TieOption
    new: Wager | None
    returned: WagerSettlement | None


@dataclass(frozen=True, slots=True)
class BettingClosed:
    """Betting closed; ``returned``: carried wagers handed back because the table does not
    allow leaving them (BAC-12)."""

    returned: tuple[WagerSettlement, ...] = ()


@dataclass(frozen=True, slots=True)
class CardDealt:
    """A card was accepted into ``slot``; ``exposed``: face up in error, still valid (BAC-4)."""

    slot: CardSlot
    card: Card
    exposed: bool = False


@dataclass(frozen=True, slots=True)
class CardRefused:
    """Live mode (BAC-10): a card not due (BAC-7, BAC-9, BAC-16) or not possible in this shoe
    (BAC-1) was refused and flagged for the supervisor. ``possible``: it can be a card of this
    shoe (so, if withdrawn, it is out of the shoe)."""

    card: Card
    slot: CardSlot | None
    rule: str
    message: str
    possible: bool
    exposed: bool = False


@dataclass(frozen=True, slots=True)
class CardCorrected:
    """BAC-10: a supervisor reassigned the refused card to ``slot`` or withdrew ``card``."""

    supervisor: str
    reason: str
    action: CorrectionAction
    card: Card
    slot: CardSlot | None
    discarded: bool


@dataclass(frozen=True, slots=True)
class CardsRevealed:
    step: RevealStep
    by: str


@dataclass(frozen=True, slots=True)
class RevealTimedOut:
    step: RevealStep


@dataclass(frozen=True, slots=True)
class RoundSettlement:
    """All money of a round. ``lines`` satisfy ``stake == paid + commission + house + meter +
    carried`` each; :attr:`balance` is ``players + commission + house + meter + carried = 0``
    with the accounts' nets below. ``meter_before`` is the meter before the round's
    contributions; ``meter_after`` after its jackpot."""

    lines: tuple[WagerSettlement, ...]
    combination: Combination | None = None
    jackpot: JackpotResult | None = None
    meter_before: Meter | None = None
    meter_after: Meter | None = None

    @property
    def seed_funding(self) -> int:
        return self.jackpot.seed_funding if self.jackpot is not None else 0

    @property
    def players(self) -> int:
        """Players' net: paid out minus new stakes (carried-in stakes were staked before)."""
        return sum(x.paid - (0 if x.wager.carried else x.wager.amount) for x in self.lines)

    @property
    def carried(self) -> int:
        """The carried-wager account's net: carried out minus carried in."""
        return sum(x.carried - (x.wager.amount if x.wager.carried else 0) for x in self.lines)

    @property
    def commission(self) -> int:
        return sum(x.commission for x in self.lines)

    @property
    def house(self) -> int:
        """The house's net, including its funding of a meter restart."""
        return sum(x.house for x in self.lines) - self.seed_funding

    @property
    def meter(self) -> int:
        """The meter's net: contributions − awards from it + seed funding."""
        return sum(x.meter for x in self.lines) + self.seed_funding

    @property
    def balance(self) -> int:
        """Always 0: money is only moved, never made."""
        return self.players + self.carried + self.commission + self.house + self.meter


@dataclass(frozen=True, slots=True)
class RoundSettled:
    result: RoundResult
    settlement: RoundSettlement


@dataclass(frozen=True, slots=True)
class RoundVoided:
    """BAC-10: the round is void; every wager is returned (``settlement``)."""

    supervisor: str
    reason: str
    settlement: RoundSettlement


Event = (
    RoundOpened
    | WagerPlaced
    | CarriedChanged
    | BettingClosed
    | CardDealt
    | CardRefused
    | CardCorrected
    | CardsRevealed
    | RevealTimedOut
    | RoundSettled
    | RoundVoided
)

# -- the round --------------------------------------------------------------------------------


def _card(value: object) -> Card:
    if isinstance(value, Card):
        return value
    if isinstance(value, str):
        return Card.parse(value)
    raise ParseError(f"not a card: {value!r}")


_E = TypeVar("_E", bound=Enum)


def _choice(cls: type[_E], value: object, what: str) -> _E:
    """``value`` as a member of ``cls``; refuses anything else with :class:`ParseError`."""
    try:
        return cls(value)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in cls)
        raise ParseError(f"not a {what}: {value!r} (one of {allowed})") from None


def _due_slot(cards: tuple[tuple[CardSlot, Card], ...]) -> CardSlot | None:
    """The card slot due after ``cards`` (BAC-7.1, BAC-9), or ``None`` when complete."""
    n = len(cards)
    if n < 4:
        return _FIRST_FOUR[n]
    c = [card for _, card in cards]
    pt = (card_value(c[0]) + card_value(c[2])) % 10
    bt = (card_value(c[1]) + card_value(c[3])) % 10
    if pt >= 8 or bt >= 8:  # BAC-9.2 / 9.4: a natural, nobody draws
        return None
    if n == 4:
        if pt <= 5:  # BAC-9.1
            return CardSlot.PLAYER_3
        return CardSlot.BANKER_3 if bt <= 5 else None  # BAC-9.3: player stood
    if n == 5 and cards[4][0] is CardSlot.PLAYER_3:
        return CardSlot.BANKER_3 if BANKER_DRAW_TABLE[bt][card_value(c[4])] else None
    return None


def _next_reveal(r: BaccaratRound) -> RevealStep | None:
    if not r.rules.card_holding:
        return None
    done = {x.step for x in r.revealed}
    for step in _required_reveals(r.cards):
        if step not in done:
            return step
    return None


def _required_reveals(cards: tuple[tuple[CardSlot, Card], ...]) -> tuple[RevealStep, ...]:
    steps: list[RevealStep] = []
    if len(cards) >= 4:
        # BAC-7.1: the player's hand is turned first.
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


@dataclass(frozen=True, slots=True)
class BaccaratRound:
    """A baccarat round. Immutable; change it only with :meth:`apply`.

    Fields are the full state: ``wagers`` in play (carried ones included), ``returned``
    (carried wagers handed back before the cards), ``cards`` as ``(slot, card)`` in dealing
    order, ``exposed`` (slots of cards exposed in error, BAC-4), ``discarded`` (cards withdrawn by
    a supervisor; out of the shoe), ``pending`` (a refused live card awaiting the supervisor),
    ``flags`` (every refusal, for the supervisor's log), ``corrections``, the card-holding
    ``revealed`` and ``timed_out`` steps, and at the end ``result`` and ``settlement``.
    """

    rules: BaccaratRules
    round_id: str
    opening_date: date
    live: bool = False
    demo: bool = False
    phase: RoundPhase = RoundPhase.BETTING
    seated: tuple[tuple[int, str], ...] = ()
    available: tuple[int, ...] = (8,) * 52
    cards_left: int = 416
    wagers: tuple[Wager, ...] = ()
    next_wager_id: int = 1
    decided: frozenset[int] = frozenset()
    returned: tuple[WagerSettlement, ...] = ()
    cards: tuple[tuple[CardSlot, Card], ...] = ()
    exposed: tuple[CardSlot, ...] = ()
    discarded: tuple[Card, ...] = ()
    pending: CardRefused | None = None
    flags: tuple[CardRefused, ...] = ()
    corrections: tuple[CardCorrected, ...] = ()
    revealed: tuple[CardsRevealed, ...] = ()
    timed_out: tuple[RevealStep, ...] = ()
    result: RoundResult | None = None
    settlement: RoundSettlement | None = None
    void: RoundVoided | None = None
    approval_references: tuple[str, ...] = ()
    events: tuple[Event, ...] = field(default=(), compare=False, repr=False)

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        rules: BaccaratRules,
        round_id: str,
        opening_date: date,
        *,
        seated: Mapping[int, str] | None = None,
        available: Sequence[int] | None = None,
        cards_left: int | None = None,
        carried: Sequence[Wager] = (),
        live: bool = False,
        demo: bool = False,
        holidays: Iterable[date] = (),
    ) -> tuple[BaccaratRound, tuple[Event, ...]]:
        """Open a round. ``seated``: seat → player id (BAC-15, BAC-16); ``available`` /
        ``cards_left``: from the shoe (:meth:`~.shoe.ShoeState.available`, default a full
        shoe); ``carried``: the wagers carried from a tied round (BAC-12).

        Refuses (``RuleViolation``): an option without a valid, effective approval (BAC-19,
        BAC-17); carried wagers in a demonstration round (BAC-2.2); a seat that does not exist
        (BAC-15).
        """
        used = rules.check_approvals(opening_date, frozenset(holidays))
        seats = dict(seated or {})
        for s, p in seats.items():
            if not 1 <= s <= rules.seats or not isinstance(p, str) or not p:
                raise RuleViolation("BAC-15", f"bad seat assignment {s} → {p!r}")
        if demo and carried:
            raise RuleViolation("BAC-2.2", "a demonstration round takes no wagers, carried or new")
        avail = tuple(available) if available is not None else (rules.shoe.decks,) * 52
        if len(avail) != 52 or any(a < 0 or a > rules.shoe.decks for a in avail):
            raise ValueError("available must be 52 counts within 0..decks")
        left = rules.shoe.cards if cards_left is None else cards_left
        renumbered = tuple(
            replace(w, wager_id=i, carried=True)
            for i, w in enumerate(carried, start=1)
            if w.kind in (WagerKind.PLAYER, WagerKind.BANKER)
        )
        if len(renumbered) != len(carried):
            raise RuleViolation("BAC-12", "only banker and player wagers are carried after a tie")
        event = RoundOpened(
            round_id,
            rules,
            live,
            demo,
            tuple(sorted(seats.items())),
            avail,
            left,
            renumbered,
            opening_date,
            tuple(a.reference for a in used),
        )
        return cls._opened(event), (event,)

    @classmethod
    def from_shoe(
        cls,
        shoe: ShoeState,
        rules: BaccaratRules,
        round_id: str,
        opening_date: date,
        *,
        seated: Mapping[int, str] | None = None,
        carried: Sequence[Wager] = (),
        demo: bool | None = None,
        holidays: Iterable[date] = (),
    ) -> tuple[BaccaratRound, tuple[Event, ...]]:
        """:meth:`new` for the round ``shoe`` is dealing (after its :class:`~.shoe.StartRound`
        ``round_id``), with ``available``, ``cards_left`` and ``live`` taken from ``shoe`` and
        ``demo`` too when not given: a round the shoe recorded as a demonstration round takes
        no wagers (BAC-2.2).

        Refuses (``RuleViolation``): rules whose shoe settings differ from the shoe's (BAC-1);
        a shoe not dealing round ``round_id`` (BAC-7); a ``demo`` flag that contradicts the
        shoe's record of the round (BAC-2.2).
        """
        if shoe.settings != rules.shoe:
            raise RuleViolation("BAC-1", "the round's rules and the shoe's settings differ")
        if shoe.phase is not ShoePhase.IN_ROUND or shoe.current_round != round_id:
            raise RuleViolation(
                "BAC-7", f"the shoe is not dealing round {round_id!r}: start it in the shoe first"
            )
        # Demonstration rounds come only at the start of a shoe, so the current round is one
        # exactly when every round started so far was.
        shoe_demo = shoe.rounds <= shoe.demo_rounds
        if demo is None:
            demo = shoe_demo
        elif bool(demo) != shoe_demo:
            what = "a demonstration round" if shoe_demo else "not a demonstration round"
            raise RuleViolation("BAC-2.2", f"the shoe recorded round {round_id!r} as {what}")
        return cls.new(
            rules,
            round_id,
            opening_date,
            available=shoe.available(),
            cards_left=shoe.remaining,
            live=shoe.live,
            seated=seated,
            carried=carried,
            demo=demo,
            holidays=holidays,
        )

    @classmethod
    def _opened(cls, e: RoundOpened) -> BaccaratRound:
        carried = e.carried
        return cls(
            rules=e.rules,
            round_id=e.round_id,
            opening_date=e.opening_date,
            live=e.live,
            demo=e.demo,
            seated=e.seated,
            available=e.available,
            cards_left=e.cards_left,
            wagers=carried,
            next_wager_id=len(carried) + 1,
            approval_references=e.approval_references,
            events=(e,),
        )

    @classmethod
    def replay(cls, events: Iterable[Event]) -> BaccaratRound:
        """The round ``events`` describe (the first must be :class:`RoundOpened`)."""
        it = iter(events)
        first = next(it, None)
        if not isinstance(first, RoundOpened):
            raise ValueError("a round's events start with RoundOpened")
        return reduce(_evolve, it, cls._opened(first))

    # -- queries --------------------------------------------------------------------------

    @property
    def seats(self) -> Mapping[int, str]:
        """Seat number → player id."""
        return dict(self.seated)

    def expected_next(self) -> CardSlot | None:
        """The card slot due next (BAC-7.1, BAC-9), or ``None``: betting not yet closed is
        fine (the first card closes it); ``None`` when the round is over, a refused card awaits
        the supervisor, a reveal is due (BAC-16), or no card is due."""
        if self.phase not in (RoundPhase.BETTING, RoundPhase.DEALING) or self.pending:
            return None
        if self.pending_reveal() is not None:
            return None
        return _due_slot(self.cards)

    def pending_reveal(self) -> RevealStep | None:
        """The card-holding reveal due next (BAC-16), or ``None``."""
        if self.phase is not RoundPhase.DEALING:
            return None
        return _next_reveal(self)

    def holder(self, side: Side) -> str | None:
        """BAC-16: the player holding ``side``'s cards, or ``None`` (the dealer reveals)."""
        return card_holder(self.rules, side, self.wagers)

    def carried_out(self) -> tuple[Wager, ...]:
        """Wagers carried into the next round after a tie (BAC-12)."""
        if self.settlement is None:
            return ()
        return tuple(x.wager for x in self.settlement.lines if x.outcome is Outcome.CARRIED)

    def used_in_round(self, card: Card) -> int:
        """Copies of ``card`` this round has taken from the shoe (dealt or discarded)."""
        return sum(1 for _, c in self.cards if c is card) + self.discarded.count(card)

    def is_possible(self, card: Card) -> bool:
        """Whether ``card`` can still come out of this shoe (BAC-1)."""
        taken = len(self.cards) + len(self.discarded)
        return taken < self.cards_left and self.available[card.index] > self.used_in_round(card)

    @property
    def is_over(self) -> bool:
        return self.phase in (RoundPhase.SETTLED, RoundPhase.VOID)

    # -- commands -------------------------------------------------------------------------

    def decide(self, command: Command) -> tuple[Event, ...]:
        """The events ``command`` produces; raises ``RuleViolation`` if it is refused."""
        return _dispatch(self, command)

    def check(self, command: Command) -> RuleViolation | None:
        """``None`` if ``command`` would be accepted, else the refusal."""
        try:
            self.decide(command)
        except RuleViolation as exc:
            return exc
        return None

    def can_apply(self, command: Command) -> bool:
        """True when :meth:`apply` would accept ``command``."""
        return self.check(command) is None

    def apply(self, command: Command) -> tuple[BaccaratRound, tuple[Event, ...]]:
        """Apply ``command``: returns the new round and the events. Refuses (``RuleViolation``
        naming the rule; this round is unchanged) anything the law does not allow."""
        events = self.decide(command)
        return reduce(_evolve, events, self), events

    def apply_all(self, commands: Iterable[Command]) -> BaccaratRound:
        """Apply ``commands`` in order; the final round."""
        state = self
        for c in commands:
            state, _ = state.apply(c)
        return state

    def accepted_cards(self) -> tuple[Card, ...]:
        """The round's cards in dealing order."""
        return tuple(c for _, c in self.cards)


# -- deciding ---------------------------------------------------------------------------------


def _betting_open(r: BaccaratRound, what: str) -> None:
    if r.phase is not RoundPhase.BETTING:
        raise RuleViolation("BAC-13", f"{what}: betting is closed")
    if r.demo:
        raise RuleViolation("BAC-2.2", f"{what}: a demonstration round takes no wagers")


def _in_play(r: BaccaratRound, wagers: Iterable[Wager]) -> tuple[Wager, ...]:
    """The ``wagers`` that will be in play when betting closes: where the table does not allow
    "left" (BAC-12), a carried wager nobody has acted on is returned then, so it does not count
    towards the BAC-14 difference."""
    if TieOption.LEAVE in r.rules.tie_options:
        return tuple(wagers)
    return tuple(w for w in wagers if not w.carried or w.wager_id in r.decided)


def _place(r: BaccaratRound, c: PlaceWager) -> tuple[Event, ...]:
    _betting_open(r, "wager")
    try:
        kind = WagerKind(c.kind)
    except ValueError:
        raise RuleViolation("BAC-13", f"no such wager: {c.kind!r}") from None
    if not isinstance(c.area, Area):
        raise RuleViolation("BAC-15", f"not a betting area: {c.area!r}")
    check_area(r.rules, c.area, c.player, r.seats)
    already = sum(
        w.amount for w in r.wagers if w.area == c.area and w.kind is kind and w.player == c.player
    )
    amount = check_stake(r.rules, kind, c.amount, already)
    wager = Wager(r.next_wager_id, c.player, c.area, kind, amount)
    check_difference(r.rules, _in_play(r, (*r.wagers, wager)))
    return (WagerPlaced(wager),)


def _change_carried(r: BaccaratRound, c: ChangeCarried) -> tuple[Event, ...]:
    _betting_open(r, "change of a carried wager")
    wager = next((w for w in r.wagers if w.wager_id == c.wager_id and w.carried), None)
    if wager is None:
        raise RuleViolation("BAC-12", f"no carried wager {c.wager_id} in this round")
    if wager.player != c.player:
        raise RuleViolation("BAC-12", f"carried wager {c.wager_id} is not {c.player}'s")
    try:
        option = TieOption(c.option)
    except ValueError:
        raise RuleViolation("BAC-12", f"no such choice after a tie: {c.option!r}") from None
    allowed = r.rules.tie_options
    if option not in allowed:
        raise RuleViolation("BAC-12", f"this table does not allow '{option.value}' after a tie")
    others = [w for w in r.wagers if w.wager_id != wager.wager_id]
    if option is TieOption.WITHDRAW:
        check_difference(r.rules, _in_play(r, others))
        return (CarriedChanged(wager.wager_id, option, None, returned(wager)),)
    if option is TieOption.LEAVE:
        return (CarriedChanged(wager.wager_id, option, wager, None),)
    kind = wager.kind
    if option is TieOption.SWITCH:
        kind = WagerKind.BANKER if kind is WagerKind.PLAYER else WagerKind.PLAYER
    amount = wager.amount if c.amount is None else c.amount
    if amount != wager.amount:
        if option is TieOption.SWITCH and TieOption.REDUCE not in allowed:
            raise RuleViolation("BAC-12", "this table allows switching but not reducing")
        if isinstance(amount, bool) or not isinstance(amount, int) or not amount > 0:
            raise RuleViolation("BAC-12", f"a reduced wager is a positive amount: {amount!r}")
        if amount > wager.amount:
            raise RuleViolation(
                "BAC-12", "a carried wager may be reduced, not raised (place a new wager)"
            )
    elif option is TieOption.REDUCE:
        raise RuleViolation("BAC-12", "a reduction needs a smaller amount")
    if r.rules.offers(kind):
        check_stake(r.rules, kind, amount)
    new = replace(wager, kind=kind, amount=amount)
    check_difference(r.rules, (*_in_play(r, others), new))
    back = wager.amount - amount
    part = returned(replace(wager, amount=back)) if back else None
    return (CarriedChanged(wager.wager_id, option, new, part),)


def _close(r: BaccaratRound, c: CloseBetting | None = None) -> tuple[Event, ...]:
    if r.phase is not RoundPhase.BETTING:
        raise RuleViolation("BAC-13", "betting is already closed")
    back: tuple[WagerSettlement, ...] = ()
    if TieOption.LEAVE not in r.rules.tie_options:
        # BAC-12: the table does not let a carried wager simply stay: hand back the undecided.
        back = tuple(returned(w) for w in r.wagers if w.carried and w.wager_id not in r.decided)
    return (BettingClosed(back),)


def _refuse(
    r: BaccaratRound, card: Card, slot: CardSlot | None, rule: str, msg: str, exposed: bool
) -> tuple[Event, ...]:
    if not r.live:
        raise RuleViolation(rule, msg)
    return (CardRefused(card, slot, rule, msg, r.is_possible(card), exposed),)


def _deal(r: BaccaratRound, c: DealCard) -> tuple[Event, ...]:
    card = _card(c.card)
    slot = _choice(CardSlot, c.slot, "card slot") if c.slot is not None else None
    exposed = bool(c.exposed)
    if r.is_over:
        raise RuleViolation("BAC-9", "the round is over: no card is due")
    if r.pending is not None:
        raise RuleViolation(
            "BAC-10", "a refused card awaits the supervisor: correct it or void the round"
        )
    pre: tuple[Event, ...] = ()
    if r.phase is RoundPhase.BETTING:
        pre = _close(r)
    if not r.is_possible(card):
        return pre + _refuse(
            r,
            card,
            slot,
            "BAC-1",
            f"{card} cannot be in this shoe: all {r.rules.shoe.decks} copies are out or the "
            "shoe is empty",
            exposed,
        )
    reveal = r.pending_reveal()
    if reveal is not None:
        verb = "is" if reveal.part is RevealPart.THIRD else "are"
        return pre + _refuse(
            r,
            card,
            slot,
            "BAC-16",
            f"no card before the {_step_text(reveal)} {verb} revealed",
            exposed,
        )
    due = _due_slot(r.cards)
    if due is None:
        return pre + _refuse(r, card, slot, "BAC-9", "no card is due: nobody draws", exposed)
    if slot is not None and slot is not due:
        rule = "BAC-7" if due in _FIRST_FOUR and slot in _FIRST_FOUR else "BAC-9"
        return pre + _refuse(
            r, card, slot, rule, f"card to {slot.value} but {due.value} is due", exposed
        )
    return (*pre, CardDealt(due, card, exposed))


def _step_text(step: RevealStep) -> str:
    """``"player's first two cards"``, ``"banker's third card"``: for dealer-readable messages."""
    part = "first two cards" if step.part is RevealPart.FIRST_TWO else "third card"
    return f"{step.side.value}'s {part}"


def _reveal(r: BaccaratRound, c: Reveal) -> tuple[Event, ...]:
    if not r.rules.card_holding:
        raise RuleViolation("BAC-16.1", "this table does not let players hold the cards")
    step = RevealStep(_choice(Side, c.side, "side"), _choice(RevealPart, c.part, "reveal part"))
    due = r.pending_reveal()
    if due is None or step != due:
        what = "nothing" if due is None else f"the {_step_text(due)}"
        raise RuleViolation("BAC-16.2", f"{what} is to be revealed now, not the {_step_text(step)}")
    holder = r.holder(step.side)
    if c.by == DEALER:
        if holder is not None and step not in r.timed_out:
            raise RuleViolation("BAC-16.2", f"{holder} holds the {step.side.value}'s cards")
    elif step in r.timed_out:
        # BAC-16: once the holder's time has run out the dealer reveals, nobody else.
        raise RuleViolation(
            "BAC-16.2", f"{c.by}'s time to reveal the {_step_text(step)} ran out: the dealer does"
        )
    elif c.by != holder:
        raise RuleViolation(
            "BAC-16.2", f"{c.by} does not hold the {step.side.value}'s cards ({holder or DEALER})"
        )
    return (CardsRevealed(step, c.by),)


def _reveal_timeout(r: BaccaratRound, c: RevealTimeout) -> tuple[Event, ...]:
    step = RevealStep(_choice(Side, c.side, "side"), _choice(RevealPart, c.part, "reveal part"))
    if r.pending_reveal() != step or r.holder(step.side) is None or step in r.timed_out:
        raise RuleViolation("BAC-16.2", f"no holder's time is running for the {_step_text(step)}")
    return (RevealTimedOut(step),)


def _supervisor(supervisor: object, reason: object, what: str) -> None:
    if not isinstance(supervisor, str) or not supervisor.strip():
        raise RuleViolation("BAC-10", f"{what} needs a supervisor's id")
    if not isinstance(reason, str) or not reason.strip():
        raise RuleViolation("BAC-10", f"{what} needs a reason")


def _correct(r: BaccaratRound, c: Correct) -> tuple[Event, ...]:
    _supervisor(c.supervisor, c.reason, "a correction")
    if r.is_over:
        raise RuleViolation("BAC-10", "the round is over")
    if not r.live:
        # Virtual mode deals the committed shoe and refuses a wrong card outright, so there is
        # no dealing error to correct; taking a dealt card back would change a committed deal.
        raise RuleViolation(
            "BAC-10",
            "a virtual round deals the committed shoe: nothing to correct (void it if it "
            "cannot go on)",
        )
    action = _choice(CorrectionAction, c.action, "correction")
    p = r.pending
    if p is not None:
        if action is CorrectionAction.WITHDRAW:
            return (CardCorrected(c.supervisor, c.reason, action, p.card, None, p.possible),)
        if not r.is_possible(p.card):
            raise RuleViolation("BAC-1", f"{p.card} cannot be in this shoe: withdraw it")
        if r.pending_reveal() is not None:
            raise RuleViolation("BAC-16", "reveal the cards before reassigning a card")
        due = _due_slot(r.cards)
        if due is None:
            raise RuleViolation("BAC-9", "no card is due: withdraw it")
        return (
            CardCorrected(c.supervisor, c.reason, action, p.card, due, False),
            CardDealt(due, p.card, p.exposed),
        )
    if action is CorrectionAction.REASSIGN or not r.cards:
        raise RuleViolation("BAC-10", "there is no refused card to reassign or card to withdraw")
    slot, card = r.cards[-1]
    return (CardCorrected(c.supervisor, c.reason, action, card, slot, True),)


def _void(r: BaccaratRound, c: Void) -> tuple[Event, ...]:
    _supervisor(c.supervisor, c.reason, "voiding a round")
    if r.is_over:
        raise RuleViolation("BAC-10", "the round is already over")
    lines = r.returned + tuple(returned(w) for w in r.wagers)
    return (RoundVoided(c.supervisor, c.reason, RoundSettlement(lines)),)


def _settle(r: BaccaratRound, c: Settle) -> tuple[Event, ...]:
    if r.phase is not RoundPhase.COMPLETE:
        raise RuleViolation("BAC-11", f"the round is not complete ({r.phase.value})")
    if r.pending is not None:
        # A card drawn after the last due one was refused: it is out of the shoe and must be
        # withdrawn (counted as discarded) or the round voided before anything is paid.
        raise RuleViolation(
            "BAC-10", "a refused card awaits the supervisor: correct it or void the round"
        )
    result = deal_round(r.accepted_cards())
    jackpot_wagers = [w for w in r.wagers if w.kind is WagerKind.JACKPOT]
    lines: list[WagerSettlement] = list(r.returned)
    if not jackpot_wagers:
        lines += [settle_wager(r.rules, w, result) for w in r.wagers]
        return (RoundSettled(result, RoundSettlement(tuple(lines))),)
    if not isinstance(c.meter, Meter):
        raise ValueError("a round with jackpot wagers is settled against the jackpot meter")
    contributions = sum(
        split_contribution(w.amount, r.rules.jackpot_contribution)[0] for w in jackpot_wagers
    )
    # This round's contributions are credited before its jackpot pays (documented choice).
    meter = c.meter.credit(contributions)
    combo = jackpot_combination(result)
    jackpot = resolve_baccarat(
        meter, combo, [w.wager_id for w in jackpot_wagers], r.rules.jackpot_fixed_awards
    )
    awards = {a.box: a for a in jackpot.awards}
    for w in r.wagers:
        award = awards.get(w.wager_id) if w.kind is WagerKind.JACKPOT else None
        split = AwardSplit(award.from_meter, award.from_house) if award is not None else None
        lines.append(settle_wager(r.rules, w, result, split))
    settlement = RoundSettlement(tuple(lines), combo, jackpot, c.meter, jackpot.meter_after)
    return (RoundSettled(result, settlement),)


def _dispatch(r: BaccaratRound, c: Command) -> tuple[Event, ...]:
    if isinstance(c, PlaceWager):
        return _place(r, c)
    if isinstance(c, ChangeCarried):
        return _change_carried(r, c)
    if isinstance(c, CloseBetting):
        return _close(r, c)
    if isinstance(c, DealCard):
        return _deal(r, c)
    if isinstance(c, Reveal):
        return _reveal(r, c)
    if isinstance(c, RevealTimeout):
        return _reveal_timeout(r, c)
    if isinstance(c, Correct):
        return _correct(r, c)
    if isinstance(c, Void):
        return _void(r, c)
    if isinstance(c, Settle):
        return _settle(r, c)
    raise TypeError(f"not a baccarat round command: {c!r}")


# -- evolving ---------------------------------------------------------------------------------


def _complete(r: BaccaratRound) -> BaccaratRound:
    """DEALING → COMPLETE once every due card is dealt and revealed (and back, after a
    supervisor withdraws a card)."""
    if r.phase not in (RoundPhase.DEALING, RoundPhase.COMPLETE):
        return r
    done = (
        len(r.cards) >= 4
        and r.pending is None
        and _due_slot(r.cards) is None
        and _next_reveal(r) is None
    )
    return replace(r, phase=RoundPhase.COMPLETE if done else RoundPhase.DEALING)


def _evolve(r: BaccaratRound, e: Event) -> BaccaratRound:
    r = replace(r, events=(*r.events, e))
    if isinstance(e, WagerPlaced):
        return replace(r, wagers=(*r.wagers, e.wager), next_wager_id=e.wager.wager_id + 1)
    if isinstance(e, CarriedChanged):
        wagers = tuple(
            w2
            for w in r.wagers
            for w2 in ((e.new,) if w.wager_id == e.wager_id else (w,))
            if w2 is not None
        )
        back = r.returned + ((e.returned,) if e.returned is not None else ())
        return replace(r, wagers=wagers, returned=back, decided=r.decided | {e.wager_id})
    if isinstance(e, BettingClosed):
        gone = {x.wager.wager_id for x in e.returned}
        return replace(
            r,
            phase=RoundPhase.DEALING,
            wagers=tuple(w for w in r.wagers if w.wager_id not in gone),
            returned=r.returned + e.returned,
        )
    if isinstance(e, CardDealt):
        exposed = (*r.exposed, e.slot) if e.exposed else r.exposed
        return _complete(replace(r, cards=(*r.cards, (e.slot, e.card)), exposed=exposed))
    if isinstance(e, CardRefused):
        return replace(r, pending=e, flags=(*r.flags, e))
    if isinstance(e, CardCorrected):
        r = replace(r, corrections=(*r.corrections, e), pending=None)
        if e.action is CorrectionAction.WITHDRAW:
            if r.cards and e.slot is not None and r.cards[-1] == (e.slot, e.card):
                cards = r.cards[:-1]
                keep = set(_required_reveals(cards))
                r = replace(
                    r,
                    cards=cards,
                    exposed=tuple(s for s in r.exposed if s is not e.slot),
                    revealed=tuple(x for x in r.revealed if x.step in keep),
                    timed_out=tuple(s for s in r.timed_out if s in keep),
                )
            if e.discarded:
                r = replace(r, discarded=(*r.discarded, e.card))
        return _complete(r)
    if isinstance(e, CardsRevealed):
        return _complete(replace(r, revealed=(*r.revealed, e)))
    if isinstance(e, RevealTimedOut):
        return replace(r, timed_out=(*r.timed_out, e.step))
    if isinstance(e, RoundSettled):
        return replace(r, phase=RoundPhase.SETTLED, result=e.result, settlement=e.settlement)
    if isinstance(e, RoundVoided):
        discarded = r.discarded
        if r.pending is not None and r.pending.possible:
            # the refused card left the shoe too (it is reported to the shoe as discarded)
            discarded = (*discarded, r.pending.card)
        return replace(
            r,
            phase=RoundPhase.VOID,
            void=e,
            settlement=e.settlement,
            pending=None,
            discarded=discarded,
        )
    if isinstance(e, RoundOpened):
        return BaccaratRound._opened(e)
    raise TypeError(f"not a baccarat round event: {e!r}")


def deal_from(
    r: BaccaratRound, source: CardSource, position: int
) -> tuple[BaccaratRound, tuple[Event, ...], int]:
    """Deal every due card of ``r`` from ``source`` starting at shoe ``position`` (virtual
    mode; stops at a reveal step or when no card is due). Returns the round, the events and
    the next position."""
    events: list[Event] = []
    while (slot := r.expected_next()) is not None:
        r, ev = r.apply(DealCard(source.card_at(position), slot))
        events += ev
        position += 1
    return r, tuple(events), position
