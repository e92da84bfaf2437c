"""One baccarat round as a pure state machine on any card source (BAC-4, BAC-7 … BAC-18).

A :class:`BaccaratRound` is an immutable value satisfying :class:`macau_tables.rounds.Round`.
:meth:`BaccaratRound.apply` turns a command (:mod:`.commands`) into events (:mod:`.events`) and
the new state, or refuses it with a :class:`~macau_tables.errors.RuleViolation` naming the rule
(nothing changes; :mod:`.decisions` says why). The state is a fold over its events, so
``BaccaratRound.replay(events) == live state``.

Flow::

    BaccaratRound.new(...)              RoundOpened (approvals checked, BAC-19)
    PlaceWager / WithdrawWager /        betting (BAC-12 … BAC-15)
      ChangeCarried ...
    CloseBetting (or the first card)    BettingClosed (the BAC-14 difference is checked here)
    DealCard ...                        one card at a time; expected_next() says which is due
    Reveal / RevealTimeout ...          card holding, when the table allows it (BAC-16)
    Settle(meter)                       RoundSettled: every wager settled (BAC-17, BAC-18)
    Correct / Void                      a supervisor corrects a dealing error or voids (BAC-10)

Cards: the round checks every card against BAC-7 (order P1 B1 P2 B2), BAC-9 (third cards, one
statement of the order: :func:`~.tableau.next_slot`) and the shoe (no more copies of a face
than the decks hold, given the cards already out of the shoe: the ``available`` counts from
:meth:`~.shoe.ShoeState.available`). In live mode (``live=True``, physical cards entered at the
console) a wrong card is *refused and flagged* (BAC-10): the round records a
:class:`~.events.CardRefused` event for the supervisor, the cards and wagers are unchanged, and
no other card is taken until the supervisor resolves it with :class:`~.commands.Correct`
(reassign it to the slot that is due, or withdraw it) or voids the round. A card the dealer
reports as mistyped may be struck (``CorrectionAction.MISTYPED``) only before it is revealed,
when it was not exposed (BAC-4) and did not complete the hand. In virtual mode the cards come
from the committed shoe, so a wrong card is refused outright and there is nothing for a
supervisor to correct (:class:`~.commands.Void` stays available).

Ties (BAC-12): a banker/player wager on a tied round is carried (:meth:`carried_out`). The next
round is opened with those wagers (``carried=``); before its betting closes each may be
withdrawn, left or changed (reduced, or switched to the other side, within that side's limits)
as the table's ``tie_options`` allow (:class:`~.commands.ChangeCarried`). A carried wager nobody
acts on is left (when the table allows "left"), otherwise returned when betting closes. A
demonstration round (BAC-2.2, the first rounds of a new shoe) takes no wagers: wagers carried
into it wait untouched (``waiting``) and its :meth:`carried_out` hands them to the next round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from functools import reduce
from typing import TYPE_CHECKING

from ..cards import Card
from ..errors import ConfigError, MacauTablesError, ParseError, RuleViolation
from ..ledger import Posting
from ..rounds import (
    DEALER,
    Audience,
    Due,
    DueKind,
    Expected,
    Outcome,
    Round,
    WagerResult,
    approvals_in_use,
)
from .bets import Wager, card_holder
from .commands import (
    ChangeCarried,
    CloseBetting,
    Command,
    Correct,
    DealCard,
    PlaceWager,
    Reveal,
    RevealStep,
    RevealTimeout,
    Settle,
    Void,
    WithdrawWager,
)
from .decisions import decide, show
from .events import (
    CardCorrected,
    CardRefused,
    CardsRevealed,
    Event,
    RoundOpened,
    RoundPhase,
    RoundVoided,
    postings,
)
from .evolve import evolve, next_reveal
from .rules import BaccaratRules, WagerKind
from .settlement import RoundSettlement
from .shoe import CardSource, ShoePhase, ShoeState
from .sides import Side
from .tableau import CardSlot, RoundResult, next_slot
from .view import RoundView, round_view

__all__ = ["DEALER", "BaccaratRound", "CardSlot", "deal_from"]

# What ``expected_next()`` says is due, made once (they are values), not per card.
_WAGERS_DUE = Due(DueKind.WAGERS)
_SETTLEMENT_DUE = Due(DueKind.SETTLEMENT)
_SUPERVISOR_DUE = Due(DueKind.SUPERVISOR)
_DEALER_REVEAL_DUE = Due(DueKind.REVEAL, position=DEALER)
_CARD_DUE: dict[CardSlot | None, Due] = {
    slot: Due(DueKind.CARD, slot=None if slot is None else slot.value) for slot in (*CardSlot, None)
}


@dataclass(frozen=True, slots=True)
class BaccaratRound:
    """A baccarat round. Immutable; change it only with :meth:`apply`.

    Fields are the full (unredacted) state — use :meth:`view` for anything a client receives:
    ``wagers`` in play (carried ones included), ``waiting`` (carried wagers waiting through a
    demonstration round), ``returned`` (wagers handed back before the cards), ``cards`` as
    ``(slot, card)`` in dealing order, ``exposed`` (slots of cards exposed in error, BAC-4),
    ``discarded`` (cards withdrawn by a supervisor; out of the shoe), ``pending`` (a refused
    live card awaiting the supervisor), ``flags`` (every refusal, for the supervisor's log),
    ``corrections``, the card-holding ``revealed`` and ``timed_out`` steps, and at the end
    ``result`` and ``settlement``.
    """

    rules: BaccaratRules
    round_id: str
    opening_date: date
    config_id: str = "default"
    live: bool = False
    demo: bool = False
    phase: RoundPhase = RoundPhase.BETTING
    seated: tuple[tuple[int, str], ...] = ()
    available: tuple[int, ...] = (8,) * 52
    cards_left: int = 416
    wagers: tuple[Wager, ...] = ()
    waiting: tuple[Wager, ...] = ()
    next_wager_id: int = 1
    decided: frozenset[int] = frozenset()
    returned: tuple[WagerResult, ...] = ()
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
        carried: Sequence[Wager] = (),
        config_id: str = "default",
        holidays: Iterable[date] = (),
        seated: Mapping[int, str] | None = None,
        available: Sequence[int] | None = None,
        cards_left: int | None = None,
        live: bool = False,
        demo: bool = False,
    ) -> BaccaratRound:
        """Open a round (its :class:`~.events.RoundOpened` is ``round.events[0]``).

        ``carried``: the wagers the previous round's :meth:`carried_out` returned (BAC-12);
        ``config_id``: the table configuration ``rules`` belong to (stored with the events);
        ``seated``: seat → player id (BAC-15, BAC-16); ``available`` / ``cards_left``: from the
        shoe (:meth:`~.shoe.ShoeState.available`, default a full shoe); ``live``: physical
        cards entered at a console (BAC-10); ``demo``: a demonstration round (BAC-2.2), which
        takes no wagers — carried wagers wait through it untouched.

        Refuses (``RuleViolation``): an option without a valid, effective approval (BAC-19,
        BAC-17); a seat that does not exist or a seat without a player id (BAC-15); a carried
        wager that is not a banker or player wager (BAC-12). Refuses (``ConfigError``) rules,
        ids, a date or shoe counts that are not what they should be.
        """
        if not isinstance(rules, BaccaratRules):
            raise ConfigError("baccarat.bad_rules", rules=show(rules))
        for name, text in (("round_id", round_id), ("config_id", config_id)):
            if not isinstance(text, str) or not text:
                raise ConfigError("baccarat.bad_id", name=name, value=show(text))
        if not isinstance(opening_date, date) or isinstance(opening_date, datetime):
            raise ConfigError("baccarat.bad_date", value=show(opening_date))
        used = approvals_in_use(rules, opening_date, frozenset(holidays))
        seats = dict(seated or {})
        for s, p in seats.items():
            if (
                isinstance(s, bool)
                or not isinstance(s, int)
                or not 1 <= s <= rules.seats
                or not isinstance(p, str)
                or not p.strip()
            ):
                raise RuleViolation("BAC-15", "baccarat.bad_seat", seat=show(s), player=show(p))
        decks = rules.shoe.decks
        avail = tuple(available) if available is not None else (decks,) * 52
        exact = len(avail) == 52 and set(map(type, avail)) == {int}  # plain ints: by min/max
        if not (exact and min(avail) >= 0 and max(avail) <= decks) and (
            len(avail) != 52
            or any(
                isinstance(a, bool) or not isinstance(a, int) or not 0 <= a <= decks for a in avail
            )
        ):
            raise ConfigError("baccarat.bad_available", decks=decks)
        left = rules.shoe.cards if cards_left is None else cards_left
        if isinstance(left, bool) or not isinstance(left, int) or not 0 <= left <= rules.shoe.cards:
            raise ConfigError("baccarat.bad_cards_left", value=show(left))
        for w in carried:
            if not isinstance(w, Wager) or w.kind not in (WagerKind.PLAYER, WagerKind.BANKER):
                raise RuleViolation("BAC-12", "baccarat.only_main_carried", wager=show(w))
        renumbered = tuple(
            replace(w, wager_id=i, carried=True) for i, w in enumerate(carried, start=1)
        )
        event = RoundOpened(
            round_id=round_id,
            rules=rules,
            config_id=config_id,
            live=bool(live),
            demo=bool(demo),
            seated=tuple(sorted(seats.items())),
            available=avail,
            cards_left=left,
            carried=renumbered,
            opening_date=opening_date,
            approval_references=tuple(a.reference for a in used),
        )
        return cls._opened(event)

    @classmethod
    def from_shoe(
        cls,
        shoe: ShoeState,
        rules: BaccaratRules,
        round_id: str,
        opening_date: date,
        *,
        carried: Sequence[Wager] = (),
        config_id: str = "default",
        holidays: Iterable[date] = (),
        seated: Mapping[int, str] | None = None,
        demo: bool | None = None,
    ) -> BaccaratRound:
        """:meth:`new` for the round ``shoe`` is dealing (after its :class:`~.shoe.StartRound`
        ``round_id``), with ``available``, ``cards_left`` and ``live`` taken from ``shoe`` and
        ``demo`` too when not given: a round the shoe recorded as a demonstration round takes
        no wagers (BAC-2.2), and the wagers ``carried`` into it (from a tie in the previous
        shoe's last round) wait through it for the first round with wagers.

        Refuses (``RuleViolation``): rules whose shoe settings differ from the shoe's (BAC-1);
        a shoe not dealing round ``round_id`` (BAC-7); a ``demo`` flag that contradicts the
        shoe's record of the round (BAC-2.2).
        """
        if shoe.settings != rules.shoe:
            raise RuleViolation("BAC-1", "baccarat.shoe_settings_differ")
        if shoe.phase is not ShoePhase.IN_ROUND or shoe.current_round != round_id:
            raise RuleViolation("BAC-7", "baccarat.shoe_not_dealing", round_id=round_id)
        # Demonstration rounds come only at the start of a shoe, so the current round is one
        # exactly when every round started so far was.
        shoe_demo = shoe.rounds <= shoe.demo_rounds
        if demo is None:
            demo = shoe_demo
        elif bool(demo) != shoe_demo:
            if shoe_demo:
                raise RuleViolation("BAC-2.2", "baccarat.shoe_says_demo", round_id=round_id)
            raise RuleViolation("BAC-2.2", "baccarat.shoe_says_not_demo", round_id=round_id)
        return cls.new(
            rules,
            round_id,
            opening_date,
            carried=carried,
            config_id=config_id,
            holidays=holidays,
            seated=seated,
            available=shoe.available(),
            cards_left=shoe.remaining,
            live=shoe.live,
            demo=demo,
        )

    @classmethod
    def _opened(cls, e: RoundOpened) -> BaccaratRound:
        return cls(
            rules=e.rules,
            round_id=e.round_id,
            opening_date=e.opening_date,
            config_id=e.config_id,
            live=e.live,
            demo=e.demo,
            seated=e.seated,
            available=e.available,
            cards_left=e.cards_left,
            wagers=() if e.demo else e.carried,
            waiting=e.carried if e.demo else (),
            next_wager_id=len(e.carried) + 1,
            approval_references=e.approval_references,
            events=(e,),
        )

    @classmethod
    def replay(cls, events: Iterable[Event]) -> BaccaratRound:
        """The round ``events`` describe (the first is :class:`~.events.RoundOpened`, which
        carries the rules). A pure fold: ``replay(r.events) == r``. Refuses (``ParseError``, a
        ``ValueError``) a log that does not start with ``RoundOpened`` and one holding anything
        that is not a baccarat round event."""
        it = iter(events)
        first = next(it, None)
        if not isinstance(first, RoundOpened):
            raise ParseError("baccarat.log_without_opening", got=show(first))
        return reduce(evolve, it, cls._opened(first))

    def folded(self, event: Event) -> BaccaratRound:
        """This round with one more recorded ``event``: one step of :meth:`replay` (the
        plug-in's ``fold``)."""
        return evolve(self, event)

    # -- queries --------------------------------------------------------------------------

    @property
    def seats(self) -> Mapping[int, str]:
        """Seat number → player id."""
        return dict(self.seated)

    @property
    def is_over(self) -> bool:
        """Settled or void."""
        return self.phase in (RoundPhase.SETTLED, RoundPhase.VOID)

    def accepted_cards(self) -> tuple[Card, ...]:
        """The round's cards in dealing order."""
        return tuple(c for _, c in self.cards)

    def due_slot(self) -> CardSlot | None:
        """The slot due after the cards dealt so far (BAC-7.1, BAC-9; ``None``: the hand is
        complete), whether or not a reveal or the supervisor comes first."""
        return next_slot(self.accepted_cards())

    def card_due(self) -> CardSlot | None:
        """The slot the next :class:`~.commands.DealCard` fills now, or ``None``: the round is
        over, a refused card awaits the supervisor, a reveal is due (BAC-16) or no card is due.
        Betting not yet closed is fine (the first card closes it)."""
        if self.phase not in (RoundPhase.BETTING, RoundPhase.DEALING) or self.pending is not None:
            return None
        if self.pending_reveal() is not None:
            return None
        return self.due_slot()

    def pending_reveal(self) -> RevealStep | None:
        """The card-holding reveal due next (BAC-16), or ``None``."""
        if self.phase is not RoundPhase.DEALING:
            return None
        return next_reveal(self)

    def holder(self, side: Side) -> str | None:
        """BAC-16: the player holding ``side``'s cards, or ``None`` (the dealer reveals)."""
        return card_holder(self.rules, side, self.wagers, self.seats)

    def used_in_round(self, card: Card) -> int:
        """Copies of ``card`` this round has taken from the shoe (dealt or discarded)."""
        return sum(1 for _, c in self.cards if c is card) + self.discarded.count(card)

    def is_possible(self, card: Card) -> bool:
        """Whether ``card`` can still come out of this shoe (BAC-1)."""
        taken = len(self.cards) + len(self.discarded)
        return taken < self.cards_left and self.available[card.index] > self.used_in_round(card)

    def carried_out(self) -> tuple[Wager, ...]:
        """What the next round takes over (``new(..., carried=...)``), once this one is over:
        the banker/player wagers of a tie (BAC-12) and the carried wagers that waited through
        this demonstration round (BAC-2.2). A void round returned its wagers in play (BAC-10);
        ``()`` while the round is not over."""
        s = self.settlement
        if not self.is_over or s is None:
            return ()
        tied = tuple(
            w
            for w in self.wagers
            if (line := s.line(w.wager_id)) is not None and line.outcome is Outcome.CARRIED_OVER
        )
        return self.waiting + tied

    def expected_next(self) -> Expected:
        """What is due now (:class:`~macau_tables.rounds.Expected`): the phase, what is awaited
        — wagers, a card to a slot, a reveal by the holder (``player``) or the dealer
        (``position=DEALER``), the supervisor (a refused card), the settlement — and the
        command types that can be accepted now (each still checked on its own)."""
        phase = self.phase._value_  # (what .value reads, without its descriptor call)
        if self.is_over:
            return Expected(phase, (), ())
        if self.pending is not None:
            # The supervisor resolves the refused card; a reveal due meanwhile may come first
            # (a card drawn before it is reassigned only after it, BAC-16).
            reveal = self._reveal_due()
            if reveal is None:
                return Expected(phase, (_SUPERVISOR_DUE,), (Correct, Void))
            due, turn = reveal
            return Expected(phase, (_SUPERVISOR_DUE, due), (*turn, Correct, Void))
        # Live mode: a card entered out of turn is taken and flagged for the supervisor (BAC-10).
        stray: tuple[type, ...] = (DealCard,) if self.live else ()
        fix: tuple[type, ...] = (Correct, Void) if self.live and self.cards else (Void,)
        if self.phase is RoundPhase.BETTING:
            first = _CARD_DUE[CardSlot.PLAYER_1]
            if self.demo:
                return Expected(phase, (first,), (CloseBetting, DealCard, Void))
            cmds: tuple[type, ...] = (PlaceWager, WithdrawWager)
            if any(w.carried and w.wager_id not in self.decided for w in self.wagers):
                cmds += (ChangeCarried,)
            return Expected(phase, (_WAGERS_DUE, first), (*cmds, CloseBetting, DealCard, Void))
        if self.phase is RoundPhase.COMPLETE:
            return Expected(phase, (_SETTLEMENT_DUE,), (Settle, *stray, Void))
        reveal = self._reveal_due()
        if reveal is not None:
            due, turn = reveal
            return Expected(phase, (due,), (*turn, *stray, *fix))
        return Expected(phase, (_CARD_DUE[self.due_slot()],), (DealCard, *fix))

    def _reveal_due(self) -> tuple[Due, tuple[type, ...]] | None:
        """The card-holding reveal due (BAC-16) and the commands for it, or ``None``: the
        holder's (who may also time out) or, with no holder or after the time-out, the
        dealer's."""
        step = self.pending_reveal()
        if step is None:
            return None
        holder = self.holder(step.side)
        if holder is not None and step not in self.timed_out:
            return Due(DueKind.REVEAL, player=holder), (Reveal, RevealTimeout)
        return _DEALER_REVEAL_DUE, (Reveal,)

    def view(self, audience: Audience) -> RoundView:
        """What ``audience`` may see (:func:`~.view.round_view`; BAC-16 hidden information).
        Refuses (``RuleViolation`` ``VIEW``) anything that is not an ``Audience``."""
        return round_view(self, audience)

    def postings(self, event: object) -> tuple[Posting, ...]:
        """The balanced ledger postings ``event`` moves (:func:`~.events.postings`)."""
        return postings(event)

    # -- commands -------------------------------------------------------------------------

    def decide(self, command: object) -> tuple[Event, ...]:
        """The events ``command`` produces. Refuses (``RuleViolation`` naming the rule)
        anything the law does not allow, and any command that cannot be read."""
        try:
            return decide(self, command)
        except MacauTablesError:
            raise
        except Exception as exc:
            raise RuleViolation(
                "COMMAND", "baccarat.unreadable_command", command=show(command)
            ) from exc

    def check(self, command: object) -> MacauTablesError | None:
        """``None`` if ``command`` would be accepted now, else the refusal. Never raises."""
        try:
            self.decide(command)
        except MacauTablesError as exc:
            return exc
        return None

    def can_apply(self, command: object) -> bool:
        """True when :meth:`apply` would accept ``command``. Never raises."""
        return self.check(command) is None

    def apply(self, command: Command) -> tuple[BaccaratRound, tuple[Event, ...]]:
        """Apply ``command``: returns the new round and the events. Refuses (``RuleViolation``
        naming the rule; this round is unchanged) anything the law does not allow."""
        events = self.decide(command)
        return reduce(evolve, events, self), events

    def apply_all(self, commands: Iterable[Command]) -> BaccaratRound:
        """Apply ``commands`` in order; the final round (the first refused one raises)."""
        state = self
        for c in commands:
            state, _ = state.apply(c)
        return state


def deal_from(
    r: BaccaratRound, source: CardSource, position: int
) -> tuple[BaccaratRound, tuple[Event, ...], int]:
    """Deal every due card of ``r`` from ``source`` starting at shoe ``position`` (virtual
    mode; stops at a reveal step or when no card is due). Returns the round, the events and
    the next position."""
    events: list[Event] = []
    while (slot := r.card_due()) is not None:
        r, ev = r.apply(DealCard(source.card_at(position), slot))
        events += ev
        position += 1
    return r, tuple(events), position


if TYPE_CHECKING:  # pragma: no cover - mypy checks that the round satisfies the contract

    def _satisfies_the_contract(r: BaccaratRound) -> Round:
        return r
