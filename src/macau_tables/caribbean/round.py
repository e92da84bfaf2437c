"""The Caribbean Stud round: a pure, replayable state machine (SPEC CSP-5 … CSP-13).

A :class:`CaribbeanRound` is an immutable value satisfying :class:`macau_tables.rounds.Round`.
:meth:`CaribbeanRound.apply` validates a command (:mod:`.commands`, handled in :mod:`.handlers`)
against the law and returns ``(new_round, events)``, or raises a
:class:`~macau_tables.errors.RuleViolation` naming the rule — the round it was called on is never
changed. Every state is a fold over its events, so :meth:`CaribbeanRound.replay` rebuilds the
identical round from the log (``replay(r.events) == r``).

Lifecycle (:class:`Phase`)::

    BETTING ──CloseBetting──► DEALING ──last card──► DECIDING ──Showdown──► SETTLED
       └──────────────── Void / ShufflerFailure / ReportMisdeal / 2nd exposure ──► VOID

Ask before acting: :meth:`~CaribbeanRound.expected_next` says what is due (the next card's
recipient, the pending decisions, the showdown) and the commands that make sense now;
:meth:`~CaribbeanRound.check` / :meth:`~CaribbeanRound.can_apply` say whether one command would
be accepted, and why not — they never raise, whatever they are given.

Positions: boxes are 1..7 from the dealer's left (CSP-2); :data:`~macau_tables.rounds.DEALER`
is the dealer.

Hand-off after a void round (CSP-11.1, CSP-11.4): the void round's :meth:`carried_out` go into
``CaribbeanRound.new(..., carried=...)`` of the next round, where they count as already placed
(the box is reserved for that player; the player still places an ante, CSP-10.1). A carried
wager whose box gets no ante is carried again; one whose player left the table is handed back
with a supervisor's authorisation (:class:`~.commands.ReturnCarriedWager`, documented reading).

Jackpot contributions: a jackpot wager is credited to the meter when it is settled (at the
showdown, before the awards are resolved; a folded box's wager too, CSP-6.7). A carried-over
wager is not settled, so it contributes nothing until the round that settles it.

Money: :meth:`~CaribbeanRound.postings` turns each event into balanced ledger postings
(:mod:`macau_tables.ledger`): a wager placed is a stake, the final event posts its settlement.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from .. import ledger
from ..cards import Card
from ..errors import ConfigError, MacauTablesError, ParseError, RuleViolation
from ..ledger import Posting
from ..rounds import (
    DEALER,
    Audience,
    Dealer,
    Due,
    DueKind,
    Expected,
    Round,
    approvals_in_use,
    replacer,
    require_audience,
)
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
    RoundOpened,
    RoundSettled,
    RoundVoided,
)
from .handlers import HANDLERS, box_number, player_id, shown
from .rules import CaribbeanRules
from .settlement import CarriedWager, Settlement
from .state import HAND_SIZE, BoxState, Phase, deal_order
from .view import PlayerView, PublicView, TableView, view_of

__all__ = [
    "HAND_SIZE",
    "BoxState",
    "CaribbeanRound",
    "Phase",
    "deal_order",
]

_FAULTS: tuple[type, ...] = (ShufflerFailure, Void)
_DEALING_FIRST: tuple[type, ...] = (DealCard, DealtToEmptyBox, ReportMisdeal, *_FAULTS)
_DEALING_LATER: tuple[type, ...] = (*_DEALING_FIRST[:3], ReportExposedCard, *_FAULTS)
_CARD_DUE: dict[object, tuple[Due]] = {
    p: (Due(DueKind.CARD, position=p),) for p in (*range(1, 11), DEALER)
}
"""``expected_next()`` while dealing: the commands before and after the first card, and what
is due per position (values: made once, not per card)."""


def _check_carried(rules: CaribbeanRules, carried: Iterable[object]) -> tuple[CarriedWager, ...]:
    """CSP-11.1: the jackpot wagers a round takes over, each a valid :class:`CarriedWager`, at
    most one per box and per player."""
    wagers: list[CarriedWager] = []
    for w in carried:
        if not isinstance(w, CarriedWager):
            raise RuleViolation("CSP-11.1", "caribbean.not_a_carried_wager", wager=shown(w))
        box_number(w.box, rules.boxes)
        player_id(w.player)
        if isinstance(w.amount, bool) or not isinstance(w.amount, int) or w.amount <= 0:
            raise RuleViolation(
                "CSP-11.1", "caribbean.carried_wager_amount", amount=shown(w.amount)
            )
        if any(o.box == w.box or o.player == w.player for o in wagers):
            raise RuleViolation(
                "CSP-11.1", "caribbean.carried_wagers_twice", box=w.box, player=shown(w.player)
            )
        wagers.append(w)
    return tuple(wagers)


@dataclass(frozen=True, slots=True)
class CaribbeanRound:
    """One round of Caribbean Stud Poker at one table: an immutable value.

    Build with :meth:`new` (checks approvals, CSP-13) or :meth:`replay`; advance with
    :meth:`apply`. Fields are the full (unredacted) state: use :meth:`view` for anything an
    audience receives.
    """

    rules: CaribbeanRules
    round_id: str
    opening_date: date
    config_id: str = "default"
    phase: Phase = Phase.BETTING
    boxes: tuple[BoxState, ...] = ()
    deal_order: tuple[int | Dealer, ...] = ()
    dealt: int = 0
    dealer_cards: tuple[Card, ...] = ()
    dealer_face_up: tuple[bool, ...] = ()
    exposed: tuple[CardExposed, ...] = ()
    dead_hands: tuple[DeadHandDealt, ...] = ()
    settlement: Settlement | None = None
    void_rule: str | None = None
    void_reason: str | None = None
    shoe_commitment: str | None = None
    held: FaultReported | None = None
    events: tuple[Event, ...] = ()

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        rules: CaribbeanRules,
        round_id: str,
        opening_date: date,
        *,
        carried: Iterable[CarriedWager] = (),
        config_id: str = "default",
        holidays: Collection[date] = (),
    ) -> CaribbeanRound:
        """Open a round on ``opening_date`` under ``rules`` (known to the table service as
        ``config_id``), taking over the jackpot wagers ``carried`` from the previous round's
        :meth:`carried_out` (CSP-11.1).

        Refuses (``ConfigError``) a rules object that is not :class:`CaribbeanRules`, an empty
        ``round_id`` or ``config_id`` and an ``opening_date`` that is not a date; refuses
        (``RuleViolation`` CSP-13) a table with an option in use that has no valid, effective
        approval; refuses (CSP-11.1) malformed carried-over jackpot wagers (box out of range,
        two on one box, two for one player, non-positive amount).
        """
        if not isinstance(rules, CaribbeanRules):
            raise ConfigError("caribbean.bad_rules", rules=shown(rules))
        if not isinstance(round_id, str) or not round_id:
            raise ConfigError("caribbean.bad_round_id", round_id=shown(round_id))
        if not isinstance(config_id, str) or not config_id:
            raise ConfigError("caribbean.bad_config_id", config_id=shown(config_id))
        if not isinstance(opening_date, date) or isinstance(opening_date, datetime):
            raise ConfigError("caribbean.bad_opening_date", opening_date=shown(opening_date))
        used = approvals_in_use(rules, opening_date, holidays)
        opened = RoundOpened(
            round_id,
            rules,
            config_id,
            opening_date,
            tuple(a.reference for a in used),
            _check_carried(rules, carried),
        )
        return _evolve(cls(rules, round_id, opening_date), opened)

    @classmethod
    def replay(cls, events: Sequence[Event]) -> CaribbeanRound:
        """Rebuild a round from its events (the first is :class:`RoundOpened`, which carries
        the rules).

        The log is trusted (it is written only by :meth:`apply`); this is a pure fold, so
        ``replay(r.events) == r`` for every round ``r``. Refuses (``ParseError``, a
        ``ValueError``) an empty log, one not starting with ``RoundOpened`` and one holding
        anything that is not a Caribbean Stud event.
        """
        if not events or not isinstance(events[0], RoundOpened):
            raise ParseError("caribbean.log_without_opening")
        first = events[0]
        state = cls(first.rules, first.round_id, first.opening_date)
        for event in events:
            state = _evolve(state, event)
        return state

    def folded(self, event: Event) -> CaribbeanRound:
        """This round with one more recorded ``event``: one step of :meth:`replay` (the
        plug-in's ``fold``)."""
        return _evolve(self, event)

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
    def next_card_to(self) -> int | Dealer | None:
        """The box (or :data:`~macau_tables.rounds.DEALER`) due the next card, or ``None``
        when not dealing."""
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

    def carried_out(self) -> tuple[CarriedWager, ...]:
        """The jackpot wagers the next round takes over (CSP-11.1): those of a void round and
        those whose box took no ante; empty until the round is over. A wager handed back
        (:class:`~.commands.ReturnCarriedWager`) is not among them."""
        return () if self.settlement is None else self.settlement.carried_over

    def expected_next(self) -> Expected:
        """What is due now (:class:`~macau_tables.rounds.Expected`): while betting, wagers;
        while dealing, the next card's position; while deciding, each pending decision (box
        and player), then the showdown (``SETTLEMENT``); nothing once the round is over. The
        commands are those that can be accepted now (each still checked on its own)."""
        phase = self.phase._value_  # (what .value reads, without its descriptor call)
        if self.held is not None and not self.is_over:
            # A dealer's report holds the round (CSP-11.1, CSP-11.4): a supervisor decides.
            return Expected(phase, (Due(DueKind.SUPERVISOR),), (Void, RejectReport))
        if self.phase is Phase.BETTING:
            cmds: tuple[type, ...] = (PlaceAnte, PlaceJackpotWager)
            if any(b.jackpot_carried and not b.in_play for b in self.boxes):
                cmds += (ReturnCarriedWager,)
            if self.in_play:
                cmds += (CloseBetting,)
            return Expected(phase, (Due(DueKind.WAGERS),), cmds + _FAULTS)
        if self.phase is Phase.DEALING:
            # (one card per event: the values of this branch are made once, see below)
            position = self.deal_order[self.dealt]
            due = _CARD_DUE.get(position) if type(position) is int or position is DEALER else None
            if due is None:
                due = (Due(DueKind.CARD, position=position),)
            return Expected(phase, due, _DEALING_LATER if self.dealt else _DEALING_FIRST)
        if self.phase is Phase.DECIDING:
            pending = tuple(
                Due(DueKind.DECISION, position=b.box, player=b.player)
                for b in self.in_play
                if not b.decided
            )
            cmds = (Raise, Fold, DecisionTimeout) if pending else (Showdown,)
            cmds += (ReportExposedCard, DealtToEmptyBox, ReportMisdeal)
            return Expected(phase, pending or (Due(DueKind.SETTLEMENT),), cmds + _FAULTS)
        return Expected(phase, (), ())

    def view(self, audience: Audience) -> PlayerView | TableView | PublicView:
        """What ``audience`` may see (:mod:`.view`: a player their own cards and the dealer's
        face-up cards; the dealer and a supervisor every box's wagers and only face-up cards;
        the public no cards). Refuses (``RuleViolation``) anything that is not an
        :class:`~macau_tables.rounds.Audience`."""
        return view_of(self, require_audience(audience))

    def postings(self, event: object) -> tuple[Posting, ...]:
        """The balanced ledger postings ``event`` moves (``()`` for one that moves no money):
        an ante, a jackpot wager or a raise is a stake; a carried wager handed back goes from
        the carried account to the wallet; the round's settlement (showdown or void) posts
        every wager's result and the meter's seed funding. Refuses (``ParseError``) anything
        that is not a Caribbean Stud event."""
        if type(event) in _SILENT_TYPES:  # most events (each card): before the checks below
            return ()
        if isinstance(event, AntePlaced | JackpotWagerPlaced):
            return ledger.stake(event.player, event.amount)
        if isinstance(event, DecisionMade):
            return ledger.stake(event.player, event.raise_amount) if event.raise_amount else ()
        if isinstance(event, CarriedWagerReturned):
            return ledger.carried_back(event.player, event.amount)
        if isinstance(event, RoundSettled | RoundVoided):
            s = event.settlement
            return ledger.settlement(s.wagers, seed_funding=s.seed_funding)
        if isinstance(event, _SILENT_EVENTS):
            return ()
        raise ParseError("caribbean.not_an_event", event=shown(event))

    # -- commands --------------------------------------------------------------------------

    def decide(self, command: object) -> tuple[Event, ...]:
        """The events ``command`` produces, or raise a :class:`RuleViolation` (nothing
        changes): CSP-5 for anything that is not a Caribbean Stud command (or whose fields
        cannot even be read), the rule broken otherwise."""
        try:
            handler = HANDLERS.get(type(command))
            if handler is None:
                raise RuleViolation("CSP-5", "caribbean.not_a_command", command=shown(command))
            if self.is_over:
                raise RuleViolation(
                    self.void_rule or "CSP-6.8",
                    "caribbean.round_over",
                    round_id=self.round_id,
                    phase=self.phase,
                )
            if self.held is not None and _not_a_decision(command):
                raise RuleViolation(
                    self.held.ground.rule, "caribbean.round_held", ground=self.held.ground.value
                )
            return handler(self, command)
        except MacauTablesError:
            raise
        except Exception as exc:  # an object whose fields misbehave: refused, never a crash
            raise RuleViolation(
                "CSP-5",
                "caribbean.unreadable_command",
                command=shown(command),
                error=type(exc).__name__,
            ) from exc

    def check(self, command: object) -> MacauTablesError | None:
        """``None`` if ``command`` would be accepted now, else the error it would raise.
        Never raises, whatever ``command`` is."""
        try:
            self.decide(command)
        except MacauTablesError as exc:
            return exc
        return None

    def can_apply(self, command: object) -> bool:
        """Whether ``command`` would be accepted now. Never raises."""
        return self.check(command) is None

    def apply(self, command: object) -> tuple[CaribbeanRound, tuple[Event, ...]]:
        """Apply ``command``: returns ``(new_round, events)``.

        Raises :class:`RuleViolation` (with the rule id) for a command the law does not allow;
        this round is unchanged (it is immutable).
        """
        events = self.decide(command)
        state = self
        for event in events:
            state = _evolve(state, event)
        return state, events

    def apply_all(self, commands: Iterable[object]) -> CaribbeanRound:
        """Apply ``commands`` in order; the first refused one raises."""
        state = self
        for command in commands:
            state, _ = state.apply(command)
        return state


_SILENT_EVENTS = (
    RoundOpened,
    BettingClosed,
    CardDealt,
    CardExposed,
    DeadHandDealt,
    FaultReported,
    ReportRejected,
)
"""Events that move no money."""
_SILENT_TYPES: frozenset[type] = frozenset(_SILENT_EVENTS)


def _not_a_decision(command: object) -> bool:
    """Whether ``command`` is not a supervisor's decision on a held round (``Void``,
    :class:`RejectReport`)."""
    return type(command) not in (Void, RejectReport)


def _conforms(r: CaribbeanRound) -> Round:
    return r  # mypy checks that CaribbeanRound satisfies the shared round contract


# -- the fold: state + event -> state (no validation: events are facts) ----------------------


_round = replacer(CaribbeanRound)
_box = replacer(BoxState)


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
                    for w in e.carried
                ),
                key=lambda b: b.box,
            )
        )
        return _round(r, config_id=e.config_id, boxes=boxes, events=log)
    if isinstance(e, AntePlaced):
        current = r.box(e.box) or BoxState(e.box, e.player)
        return _round(r, boxes=_set_box(r, _box(current, ante=e.amount)), events=log)
    if isinstance(e, JackpotWagerPlaced):
        current = r.box(e.box) or BoxState(e.box, e.player)
        return _round(r, boxes=_set_box(r, _box(current, jackpot=e.amount)), events=log)
    if isinstance(e, CarriedWagerReturned):
        return _round(r, boxes=tuple(b for b in r.boxes if b.box != e.box), events=log)
    if isinstance(e, BettingClosed):
        return _round(
            r,
            phase=Phase.DEALING,
            deal_order=e.deal_order,
            shoe_commitment=e.shoe_commitment,
            events=log,
        )
    if isinstance(e, CardDealt):
        dealt = r.dealt + 1
        phase = Phase.DECIDING if dealt == len(r.deal_order) else r.phase
        if e.to is DEALER:
            return _round(
                r,
                dealer_cards=(*r.dealer_cards, e.card),
                dealer_face_up=(*r.dealer_face_up, e.face_up),
                dealt=dealt,
                phase=phase,
                events=log,
            )
        current = r.box(e.to) or BoxState(e.to, "")
        new_box = _box(current, cards=(*current.cards, e.card))
        return _round(r, boxes=_set_box(r, new_box), dealt=dealt, phase=phase, events=log)
    if isinstance(e, CardExposed):
        face_up = r.dealer_face_up
        if e.position is DEALER:
            i = r.dealer_cards.index(e.card)
            face_up = (*face_up[:i], True, *face_up[i + 1 :])
        return _round(r, exposed=(*r.exposed, e), dealer_face_up=face_up, events=log)
    if isinstance(e, DeadHandDealt):
        return _round(r, dead_hands=(*r.dead_hands, e), events=log)
    if isinstance(e, DecisionMade):
        current = r.box(e.box) or BoxState(e.box, e.player)
        new_box = _box(current, decided=True, raise_amount=e.raise_amount, timed_out=e.timed_out)
        return _round(r, boxes=_set_box(r, new_box), events=log)
    if isinstance(e, FaultReported):
        return _round(r, held=e if e.holds else None, events=log)
    if isinstance(e, ReportRejected):
        return _round(r, held=None, events=log)
    if isinstance(e, RoundSettled):
        return _round(r, phase=Phase.SETTLED, settlement=e.settlement, events=log)
    if isinstance(e, RoundVoided):
        return _round(
            r,
            phase=Phase.VOID,
            settlement=e.settlement,
            void_rule=e.rule,
            void_reason=e.reason,
            held=None,
            events=log,
        )
    raise ParseError("caribbean.not_an_event", event=shown(e))
