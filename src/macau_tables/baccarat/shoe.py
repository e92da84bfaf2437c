"""The baccarat shoe procedure as a pure state machine (BAC-1 … BAC-3, BAC-7.2, BAC-8).

A shoe is a value (:class:`ShoeState`) changed only by events: :func:`apply` turns a command
into events (or refuses it with a :class:`~macau_tables.errors.RuleViolation`, nothing changed)
and :func:`replay` folds a shoe's events back into the identical state.

The shoe does not hold the cards. It counts them: how many left the shoe and, for every one of
the 52 faces, how many copies were seen, so it can refuse a card the decks cannot hold
(:meth:`ShoeState.available` is what a round checks its cards against). Where the cards come
from is abstract (:class:`CardSource`): a committed CSPRNG shuffle (:func:`shuffle_shoe`,
virtual mode) or physical cards typed or read at the dealer's console (live mode) go through the
same commands.

Procedure (commands in order):

1. :func:`open_table_shoe` (approvals checked, BAC-19) or :func:`open_shoe` — a new shoe;
   virtual mode publishes the shuffle's commitment.
2. :class:`Cut` — a player or the dealer cuts (who and where are recorded) and the cut card is
   placed with ``cut_card_behind`` (≥ the table's setting, ≥ 12) cards behind it (BAC-2.1).
3. :class:`Burn` — the start-of-shoe burn by the table's rule (BAC-2.1; 83/2011).
4. Rounds: :class:`StartRound` (``demo=True`` for up to the table's demonstration rounds at the
   start, BAC-2.2) … :class:`EndRound` with the cards the round took. Between rounds the house
   may :class:`Burn` (BAC-8, when the table allows it) or :class:`ChangeShoe` (BAC-3.2).
5. When the cut card comes out (automatically from its position in virtual mode, or
   :class:`CutCardOut` from the live console) that round is the last, or one more round is
   dealt (BAC-3.1); then the shoe is finished and a new one is shuffled.

Automatic shuffling-and-dealing machine (BAC-2.3, BAC-7.2): no cut, no burn; after every round
the cards go back into the machine, so every round is dealt from the full set (the counts reset
after each :class:`EndRound`; virtual mode shuffles and commits the full set for every round).

Decisions (documented):

* Burn by the first card (BAC-2.1): the first card is shown and burned, then as many more cards
  as its value (A=1, 2..9 face value, 10/J/Q/K = 10): ``1 + value`` cards in all.
* Burned cards may be unidentified (``None``) in live mode: they count as cards out of the shoe
  but not against any face; the first card of the first-card rule must be identified.
* The cut (virtual mode) rotates the committed order: the card dealt at position ``i`` is
  ``order[(cut_position + i) % size]``; the commitment is over the uncut order and the cut is
  recorded, so the dealt order stays verifiable.
* The cut card comes out when a card is drawn at position ``size - cut_card_behind``; if that
  happens between rounds (e.g. a per-round burn reaches it, or a round ends just before it) the
  next round is "the round in which the cut card came out".
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from enum import StrEnum
from functools import reduce
from typing import Protocol

from ..cards import Card, new_shoe
from ..errors import RuleViolation
from ..rng import RandomSource, ShoeCommitment, ShoeReveal, commit_shoe, shuffle
from .rules import BaccaratRules, BurnRule, LastRoundRule, ShoeSettings

__all__ = [
    "Burn",
    "CardSource",
    "CardsBurned",
    "ChangeShoe",
    "Cut",
    "CutCardCameOut",
    "CutCardOut",
    "Cutter",
    "EndRound",
    "RoundEnded",
    "RoundStarted",
    "SequenceSource",
    "ShoeCut",
    "ShoeFinished",
    "ShoeOpened",
    "ShoePhase",
    "ShoeState",
    "StartRound",
    "VirtualOrder",
    "apply",
    "burn_value",
    "can_apply",
    "open_shoe",
    "open_table_shoe",
    "replay",
    "shuffle_shoe",
]


class Cutter(StrEnum):
    """Who cut the shoe (BAC-2.1)."""

    PLAYER = "player"
    DEALER = "dealer"


class ShoePhase(StrEnum):
    """Where the shoe procedure stands."""

    AWAITING_CUT = "awaiting_cut"
    AWAITING_BURN = "awaiting_burn"
    READY = "ready"  # between rounds
    IN_ROUND = "in_round"
    FINISHED = "finished"


def burn_value(card: Card) -> int:
    """The number a first card shows for the burn (BAC-2.1): A=1, 2..9 face value, 10/J/Q/K=10.

    (Not the BAC-5 value: a ten or a court card burns ten cards.)
    """
    rank = int(card.rank)
    return 1 if rank == 14 else min(rank, 10)


# -- card sources -----------------------------------------------------------------------------


class CardSource(Protocol):
    """Where cards come from: ``card_at(position)`` is the card at ``position`` (0-based, cards
    already out of the shoe counted) of the shoe in play. Live mode needs no source: the console
    enters the physical cards as :class:`~.round.DealCard` commands."""

    def card_at(self, position: int) -> Card:
        """The card at ``position``; ``IndexError`` past the end."""
        ...


@dataclass(frozen=True, slots=True)
class SequenceSource:
    """A recorded sequence (replay, tests, analysis): ``card_at(i) == cards[i]``."""

    cards: tuple[Card, ...]

    def card_at(self, position: int) -> Card:
        """The recorded card at ``position``."""
        return self.cards[position]


@dataclass(frozen=True, slots=True)
class VirtualOrder:
    """A shuffled, committed shoe (virtual mode). ``cut`` rotates it (see module docstring).

    ``commitment`` is published at once; ``reveal`` only when the shoe is finished. The order
    and the salt are hidden information: they are left out of ``repr`` (logs, error messages).
    ``production`` tells whether the shuffle came from the CSPRNG, so a live table can refuse a
    seeded shoe with :func:`~macau_tables.rng.require_production`.
    """

    order: tuple[Card, ...] = field(repr=False)
    commitment: ShoeCommitment
    reveal: ShoeReveal = field(repr=False)
    cut: int = 0
    production: bool = False

    def card_at(self, position: int) -> Card:
        """The card dealt at ``position`` after the cut."""
        if not 0 <= position < len(self.order):
            raise IndexError(f"the shoe has {len(self.order)} cards, no position {position}")
        return self.order[(self.cut + position) % len(self.order)]

    def after_cut(self, position: int) -> VirtualOrder:
        """The same committed order, cut at ``position``."""
        return replace(self, cut=position)


def shuffle_shoe(settings: ShoeSettings, source: RandomSource) -> VirtualOrder:
    """Shuffle ``settings.decks`` decks with ``source`` (unbiased Fisher-Yates) and commit to
    the order (BAC-2.1; Common rules "Randomness"). A live table passes the CSPRNG
    (:class:`~macau_tables.rng.SystemRandom`; see :func:`~macau_tables.rng.require_production`).
    """
    order = tuple(shuffle(new_shoe(settings.decks), source))
    commitment, reveal = commit_shoe(order, source)
    production = bool(getattr(source, "production", False))
    return VirtualOrder(order, commitment, reveal, production=production)


# -- commands ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cut:
    """BAC-2.1: ``cutter`` (``cutter_id``: the player's or dealer's id) cuts at ``position``
    (1 .. size-1 cards moved from the top to the bottom) and the cut card is placed with
    ``cut_card_behind`` cards behind it (``None``: the table's setting)."""

    cutter: Cutter
    cutter_id: str
    position: int
    cut_card_behind: int | None = None


@dataclass(frozen=True, slots=True)
class Burn:
    """Burn ``cards`` (BAC-2.1 at the start of the shoe; BAC-8 before a round). ``None`` is a
    face-down card not identified (live mode)."""

    cards: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True)
class StartRound:
    """A round begins; ``demo`` for a demonstration round (BAC-2.2, no wagers). With the
    automatic machine in virtual mode, ``commitment`` is that round's shuffle of the full set
    (BAC-7.2)."""

    round_id: str
    demo: bool = False
    commitment: ShoeCommitment | None = None


@dataclass(frozen=True, slots=True)
class EndRound:
    """The round ended having taken ``cards`` from the shoe (dealt, in order) and
    ``discarded`` (drawn but withdrawn by a supervisor, BAC-10; ``None``: not identified)."""

    cards: tuple[Card, ...]
    discarded: tuple[Card | None, ...] = ()


@dataclass(frozen=True, slots=True)
class CutCardOut:
    """Live console: the cut card came out of the shoe (BAC-3.1)."""


@dataclass(frozen=True, slots=True)
class ChangeShoe:
    """BAC-3.2: the house changes the shoe (between rounds); ``damaged``: damaged cards, so
    a new set of decks is needed (BAC-3.1)."""

    reason: str
    damaged: bool = False


ShoeCommand = Cut | Burn | StartRound | EndRound | CutCardOut | ChangeShoe

# -- events -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShoeOpened:
    """A shoe opened with ``settings``; ``commitment`` (virtual mode) is the published digest."""

    shoe_id: str
    settings: ShoeSettings
    live: bool
    commitment: str | None
    approval_references: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ShoeCut:
    """BAC-2.1: who cut, where, and how many cards are behind the cut card."""

    cutter: Cutter
    cutter_id: str
    position: int
    cut_card_behind: int


@dataclass(frozen=True, slots=True)
class CardsBurned:
    """Cards burned (``start_of_shoe``: BAC-2.1; otherwise a per-round burn, BAC-8)."""

    cards: tuple[Card | None, ...]
    start_of_shoe: bool


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """Round ``number`` (1-based, demonstration rounds included) began."""

    round_id: str
    number: int
    demo: bool
    commitment: str | None = None


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """The round took ``cards`` and ``discarded`` from the shoe."""

    round_id: str
    cards: tuple[Card, ...]
    discarded: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True)
class CutCardCameOut:
    """BAC-3.1: the cut card came out; round ``last_round`` is the shoe's last."""

    in_round: int
    last_round: int


@dataclass(frozen=True, slots=True)
class ShoeFinished:
    """The shoe is over (``reason``); ``damaged`` asks for a new set of decks (BAC-3.1)."""

    reason: str
    damaged: bool


ShoeEvent = (
    ShoeOpened | ShoeCut | CardsBurned | RoundStarted | RoundEnded | CutCardCameOut | ShoeFinished
)

# -- state ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShoeState:
    """A shoe between commands. Immutable; see the module docstring.

    * ``out``: cards out of the shoe so far (burned, dealt, discarded; the next card's position);
    * ``seen``: copies seen of each face, by :attr:`Card.index` (52 counts);
    * ``rounds``: rounds started (demonstration rounds included), ``demo_rounds`` of them demos;
    * ``cut_card_at``: the position at which the cut card comes out (``None`` before the cut
      and with the machine); ``last_round``: the number of the shoe's last round once known.
    """

    shoe_id: str
    settings: ShoeSettings
    live: bool
    commitment: str | None
    phase: ShoePhase
    out: int = 0
    seen: tuple[int, ...] = (0,) * 52
    cut: ShoeCut | None = None
    cut_card_at: int | None = None
    rounds: int = 0
    demo_rounds: int = 0
    current_round: str | None = None
    last_round: int | None = None
    finished: ShoeFinished | None = None

    @property
    def size(self) -> int:
        """Cards in a full shoe (``decks × 52``)."""
        return self.settings.cards

    @property
    def remaining(self) -> int:
        """Cards still in the shoe."""
        return self.size - self.out

    def available(self) -> tuple[int, ...]:
        """For each face (by :attr:`Card.index`), how many copies may still come out of the
        shoe: ``decks - seen`` (BAC-1). A round refuses a card whose count is 0."""
        decks = self.settings.decks
        return tuple(decks - n for n in self.seen)

    @property
    def cut_card_out(self) -> bool:
        """True once the cut card has come out (BAC-3.1)."""
        return self.last_round is not None

    def expected(self) -> type[ShoeCommand] | None:
        """The command the procedure waits for (``Cut``, ``Burn``, ``StartRound``/``EndRound``),
        or ``None`` when the shoe is finished."""
        return {
            ShoePhase.AWAITING_CUT: Cut,
            ShoePhase.AWAITING_BURN: Burn,
            ShoePhase.READY: StartRound,
            ShoePhase.IN_ROUND: EndRound,
            ShoePhase.FINISHED: None,
        }[self.phase]


def open_shoe(
    shoe_id: str,
    settings: ShoeSettings,
    *,
    commitment: ShoeCommitment | None = None,
    live: bool = False,
    approval_references: tuple[str, ...] = (),
) -> tuple[ShoeState, list[ShoeEvent]]:
    """Open a new shoe. Virtual mode (``live=False``) requires the shuffle's ``commitment``
    (published before the first card); live mode has none (physical cards).

    Returns the state and its first event. Refuses (``RuleViolation`` BAC-2.1) a virtual shoe
    without a commitment. :func:`open_table_shoe` also checks the table's approvals.
    """
    if not live and commitment is None:
        raise RuleViolation("BAC-2.1", "a virtual shoe must be shuffled and committed first")
    digest = commitment.digest if commitment else None
    event = ShoeOpened(shoe_id, settings, live, digest, approval_references)
    return _opened(event), [event]


def open_table_shoe(
    rules: BaccaratRules,
    shoe_id: str,
    opening_date: date,
    *,
    commitment: ShoeCommitment | None = None,
    live: bool = False,
    holidays: Collection[date] = (),
) -> tuple[ShoeState, list[ShoeEvent]]:
    """:func:`open_shoe` with ``rules.shoe`` after checking the table's approvals on
    ``opening_date`` (BAC-19: the shoe options of BAC-2, BAC-3 and BAC-7 among them).

    Refuses (``RuleViolation`` BAC-19 / BAC-17) an option without a valid, effective approval,
    and (BAC-2.1) a virtual shoe without a commitment.
    """
    used = rules.check_approvals(opening_date, holidays)
    return open_shoe(
        shoe_id,
        rules.shoe,
        commitment=commitment,
        live=live,
        approval_references=tuple(a.reference for a in used),
    )


def _opened(e: ShoeOpened) -> ShoeState:
    phase = ShoePhase.READY if e.settings.machine else ShoePhase.AWAITING_CUT
    return ShoeState(e.shoe_id, e.settings, e.live, e.commitment, phase)


def _count(seen: tuple[int, ...], cards: Iterable[Card | None]) -> tuple[int, ...]:
    counts = list(seen)
    for c in cards:
        if c is not None:
            counts[c.index] += 1
    return tuple(counts)


def _check_cards(state: ShoeState, cards: Sequence[Card | None], what: str) -> None:
    if len(cards) > state.remaining:
        raise RuleViolation(
            "BAC-1", f"{what}: {len(cards)} cards but only {state.remaining} left in the shoe"
        )
    counts = _count(state.seen, cards)
    for index, n in enumerate(counts):
        if n > state.settings.decks:
            face = Card.from_index(index)
            raise RuleViolation(
                "BAC-1",
                f"{what}: {face} would be copy {n} of a face the {state.settings.decks} decks "
                f"hold only {state.settings.decks} times",
            )


def _cut_card_events(state: ShoeState, taken: int, in_round: int) -> list[ShoeEvent]:
    """A CutCardCameOut when positions ``out .. out+taken-1`` reach the cut card."""
    at = state.cut_card_at
    if at is None or state.last_round is not None or state.live:
        return []
    if not state.out <= at < state.out + taken:
        return []
    return [_cut_event(state, in_round)]


def _cut_event(state: ShoeState, in_round: int) -> CutCardCameOut:
    extra = 1 if state.settings.last_round is LastRoundRule.ONE_MORE else 0
    return CutCardCameOut(in_round, in_round + extra)


def apply(state: ShoeState, cmd: ShoeCommand) -> tuple[ShoeState, list[ShoeEvent]]:
    """Apply ``cmd`` to ``state``: returns the new state and the events it produced.

    Refuses (``RuleViolation`` naming the rule, nothing changed): a command out of order
    (BAC-2.1, BAC-3.1: e.g. a round or a burn before the cut, or a round after the last one); a
    cut or a burn with the automatic machine (BAC-2.3); a cut at
    an impossible position or with fewer than the required cards behind the cut card (BAC-2.1);
    a burn of the wrong number of cards for the table's rule (BAC-2.1), a per-round burn the
    table does not allow (BAC-8); a demonstration round beyond the allowed ones or after a real
    round (BAC-2.2); cards the shoe cannot hold (more copies of a face than the decks hold, or
    more cards than are left, BAC-1); a change of shoe in the middle of a round (BAC-3.2).
    """
    events = _decide(state, cmd)
    return reduce(_evolve, events, state), events


def can_apply(state: ShoeState, cmd: ShoeCommand) -> bool:
    """True when :func:`apply` would accept ``cmd``."""
    try:
        _decide(state, cmd)
    except RuleViolation:
        return False
    return True


def replay(events: Iterable[ShoeEvent]) -> ShoeState:
    """The shoe state that ``events`` (starting with :class:`ShoeOpened`) describe."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, ShoeOpened):
        raise ValueError("a shoe's events start with ShoeOpened")
    return reduce(_evolve, it, _opened(first))


def _decide(state: ShoeState, cmd: ShoeCommand) -> list[ShoeEvent]:
    s = state.settings
    if state.phase is ShoePhase.FINISHED:
        raise RuleViolation("BAC-3.1", "the shoe is finished: shuffle a new one")
    if isinstance(cmd, Cut):
        if s.machine:
            raise RuleViolation("BAC-2.3", "the automatic machine deals without a cut")
        if state.phase is not ShoePhase.AWAITING_CUT:
            raise RuleViolation("BAC-2.1", "no cut now: the shoe is already cut")
        if not isinstance(cmd.cutter_id, str) or not cmd.cutter_id:
            raise RuleViolation("BAC-2.1", "record who cut the shoe")
        if isinstance(cmd.position, bool) or not isinstance(cmd.position, int):
            raise RuleViolation("BAC-2.1", f"cut position: a number, got {cmd.position!r}")
        if not 1 <= cmd.position < state.size:
            raise RuleViolation("BAC-2.1", f"cut position must be 1..{state.size - 1}")
        behind = s.cut_card_behind if cmd.cut_card_behind is None else cmd.cut_card_behind
        if isinstance(behind, bool) or not isinstance(behind, int):
            raise RuleViolation("BAC-2.1", f"cards behind the cut card: a number, got {behind!r}")
        if not s.cut_card_behind <= behind <= state.size - 60:
            raise RuleViolation(
                "BAC-2.1",
                f"the cut card goes in with {s.cut_card_behind}..{state.size - 60} cards behind "
                f"it (at least the table's {s.cut_card_behind}; at most leaving 60 to play), "
                f"got {behind}",
            )
        try:
            cutter = Cutter(cmd.cutter)
        except ValueError:
            raise RuleViolation(
                "BAC-2.1", f"a player or the dealer cuts, not {cmd.cutter!r}"
            ) from None
        return [ShoeCut(cutter, cmd.cutter_id, cmd.position, behind)]
    if isinstance(cmd, Burn):
        cards = tuple(cmd.cards)
        if state.phase is ShoePhase.AWAITING_BURN:
            _check_start_burn(s, cards)
            _check_cards(state, cards, "burn")
            return [CardsBurned(cards, True), *_cut_card_events(state, len(cards), 1)]
        if state.phase is ShoePhase.READY and not s.machine:
            if not s.per_round_burn:
                raise RuleViolation("BAC-8", "this table does not burn cards before a round")
            if not cards:
                raise RuleViolation("BAC-8", "a burn takes at least one card")
            _check_cards(state, cards, "burn")
            return [
                CardsBurned(cards, False),
                *_cut_card_events(state, len(cards), state.rounds + 1),
            ]
        if s.machine:
            raise RuleViolation("BAC-2.3", "the automatic machine deals without burning cards")
        if state.phase is ShoePhase.AWAITING_CUT:
            raise RuleViolation("BAC-2.1", "the shoe is cut before the start-of-shoe burn")
        raise RuleViolation("BAC-8", "cards are burned between rounds, not during one")
    if isinstance(cmd, StartRound):
        if state.phase is not ShoePhase.READY:
            raise RuleViolation(
                "BAC-2.1", f"no round now: the shoe is {state.phase.value.replace('_', ' ')}"
            )
        if cmd.demo:
            if state.demo_rounds >= s.demo_rounds:
                raise RuleViolation(
                    "BAC-2.2", f"at most {s.demo_rounds} demonstration rounds at this table"
                )
            if state.rounds > state.demo_rounds:
                raise RuleViolation(
                    "BAC-2.2", "demonstration rounds come only at the start of a shoe"
                )
        if s.machine and not state.live and cmd.commitment is None:
            raise RuleViolation(
                "BAC-7.2", "the machine deals each round from a freshly shuffled, committed set"
            )
        digest = cmd.commitment.digest if cmd.commitment is not None else None
        return [RoundStarted(cmd.round_id, state.rounds + 1, cmd.demo, digest)]
    if isinstance(cmd, EndRound):
        if state.phase is not ShoePhase.IN_ROUND or state.current_round is None:
            raise RuleViolation("BAC-7", "no round is in progress")
        taken = (*cmd.cards, *cmd.discarded)
        _check_cards(state, taken, "round")
        events: list[ShoeEvent] = [RoundEnded(state.current_round, cmd.cards, cmd.discarded)]
        events += _cut_card_events(state, len(taken), state.rounds)
        last = state.last_round
        for e in events:
            if isinstance(e, CutCardCameOut):
                last = e.last_round
        if last is not None and state.rounds >= last:
            events.append(ShoeFinished("the cut card's last round is over (BAC-3.1)", False))
        return events
    if isinstance(cmd, CutCardOut):
        if not state.live:
            raise RuleViolation("BAC-3.1", "a virtual shoe knows where its cut card is")
        if state.cut_card_out or state.phase not in (ShoePhase.READY, ShoePhase.IN_ROUND):
            raise RuleViolation("BAC-3.1", "the cut card is not in play")
        in_round = state.rounds if state.phase is ShoePhase.IN_ROUND else state.rounds + 1
        return [_cut_event(state, in_round)]
    if isinstance(cmd, ChangeShoe):
        if state.phase is ShoePhase.IN_ROUND:
            raise RuleViolation("BAC-3.2", "the shoe is changed after a round, not during one")
        if not isinstance(cmd.reason, str) or not cmd.reason:
            raise RuleViolation("BAC-3.2", "record why the shoe is changed")
        return [ShoeFinished(cmd.reason, bool(cmd.damaged))]
    raise TypeError(f"not a shoe command: {cmd!r}")


def _check_start_burn(s: ShoeSettings, cards: tuple[Card | None, ...]) -> None:
    if s.burn_rule is BurnRule.DECKS:
        need = s.decks
        rule_text = f"as many cards as decks ({s.decks})"
    elif s.burn_rule is BurnRule.FIXED:
        need = s.fixed_burn
        rule_text = f"the fixed number {s.fixed_burn} (83/2011)"
    else:
        first = cards[0] if cards else None
        if first is None:
            raise RuleViolation("BAC-2.1", "the first card must be shown to burn by its value")
        need = 1 + burn_value(first)
        rule_text = f"the first card {first} and {burn_value(first)} more"
    if len(cards) != need:
        raise RuleViolation("BAC-2.1", f"burn {rule_text}: {need} cards in all, got {len(cards)}")


def _evolve(state: ShoeState, e: ShoeEvent) -> ShoeState:
    if isinstance(e, ShoeCut):
        return replace(
            state,
            cut=e,
            cut_card_at=state.size - e.cut_card_behind,
            phase=ShoePhase.AWAITING_BURN,
        )
    if isinstance(e, CardsBurned):
        return replace(
            state,
            out=state.out + len(e.cards),
            seen=_count(state.seen, e.cards),
            phase=ShoePhase.READY,
        )
    if isinstance(e, RoundStarted):
        return replace(
            state,
            rounds=e.number,
            demo_rounds=state.demo_rounds + (1 if e.demo else 0),
            current_round=e.round_id,
            phase=ShoePhase.IN_ROUND,
        )
    if isinstance(e, RoundEnded):
        if state.settings.machine:
            # BAC-7.2: the cards go back into the machine; the next round has the full set.
            return replace(state, current_round=None, phase=ShoePhase.READY, out=0, seen=(0,) * 52)
        return replace(
            state,
            out=state.out + len(e.cards) + len(e.discarded),
            seen=_count(state.seen, (*e.cards, *e.discarded)),
            current_round=None,
            phase=ShoePhase.READY,
        )
    if isinstance(e, CutCardCameOut):
        return replace(state, last_round=e.last_round)
    if isinstance(e, ShoeFinished):
        return replace(state, finished=e, phase=ShoePhase.FINISHED)
    if isinstance(e, ShoeOpened):
        return _opened(e)
    raise TypeError(f"not a shoe event: {e!r}")
