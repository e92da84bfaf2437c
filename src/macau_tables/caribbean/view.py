"""What each audience may see of a Caribbean Stud round (CSP-6.5, CSP-6.7, CSP-11.2, CSP-12).

``CaribbeanRound.view(audience)`` returns one of three frozen values:

* :class:`PlayerView` — a player (by id): their own box's cards, wagers and results; the
  dealer's face-up cards (the up card of CSP-7 and a dealer card exposed in error, which stays
  face up for everyone, CSP-11.2); after the showdown the dealer's whole hand. Never another
  box's cards — not even a hand turned over at the showdown, nor a box card exposed in error
  (the law keeps only an exposed *dealer* card face up) — and never a face-down dealer card
  before the showdown. A void round shows no more than it did before it was void.
* :class:`TableView` — the dealer's console and a supervisor: every box's player, wagers and
  decision, the number of cards each box holds and only the cards that are face up: the
  dealer's face-up cards and any card reported exposed in error (the dealer saw it). At the
  showdown the dealer's hand and every *raised* box's hand are turned over (CSP-9.3) and so
  shown, with their categories; a folded box's cards are collected unseen (CSP-6.7) and stay
  hidden. Dead hands (CSP-11.3) are shown as their number of cards.
* :class:`PublicView` — the lobby and the jackpot display: the phase, the boxes taken and the
  number of jackpot wagers; after the showdown the jackpot result (awards by box and
  combination, the meter). No cards at all (not even the dealer's up card: the public needs
  none, and a view the law does not require is not given) and no player ids or amounts.

No view carries the shoe order or a face-down card that the law has not turned over.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ..cards import Card
from ..jackpot import JackpotResult
from ..rounds import Audience, Role, WagerResult
from .hands import HandCategory, evaluate
from .settlement import BoxOutcome, BoxResult
from .state import BoxState, Phase

if TYPE_CHECKING:  # pragma: no cover
    from .round import CaribbeanRound

__all__ = [
    "BoxView",
    "DeadHandView",
    "NamedHand",
    "PlayerView",
    "PublicView",
    "TableView",
    "named_hand",
    "view_of",
]


@dataclass(frozen=True, slots=True)
class NamedHand:
    """A five-card hand as it is named at the showdown (CSP-8): its ``category`` and the ranks
    its name gives, as rank letters (``"Q"``, ``"T"``), most significant first — two for a high
    card (``A``, ``K``: "ace-king high", what the dealer's qualification turns on, CSP-9.1), the
    pair (one pair), both pairs (two pair), the three and the pair (full house), the four or
    the three, the highest card (straight, flush, straight flush: ``5`` in 5-4-3-2-A), none for
    a royal flush. Language-neutral: a page puts the words (the catalog's ``play.hand_*``)."""

    category: HandCategory
    ranks: tuple[str, ...]


# How many ranks name a hand of each category (HandCategory order), read off the "standard"
# ranking's compared ranks (full kickers: the full house's pair too, which Macau's CSP-8.4
# never compares but a name gives).
_NAMED_RANKS: Final = (2, 1, 2, 1, 1, 1, 2, 1, 1, 0)


def named_hand(cards: Iterable[Card]) -> NamedHand:
    """The name of five ``cards`` (:class:`NamedHand`): the category of CSP-8 and the ranks
    that name it. Refuses what :func:`~.hands.evaluate` refuses (not five distinct cards)."""
    value = evaluate(tuple(cards), "standard")  # the same categories as "macau", full ranks
    category = value.category
    return NamedHand(category, tuple(r.letter for r in value.ranks[: _NAMED_RANKS[category]]))


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What the player ``player`` may see (CSP-6.5, CSP-12; see the module docstring).

    ``box`` is the box they play (``None`` when they have none this round); ``cards`` their own
    cards; ``dealer_cards`` the dealer's cards with ``None`` for a face-down card (all shown
    after the showdown); ``results`` their own wagers as settled, ``outcome`` how their hand
    ended (both empty until the round is over). ``timed_out``: the decision timer folded their
    box (CSP-6.4). At the showdown (``None`` until then): ``dealer_hand`` the dealer's hand
    named, ``dealer_qualifies`` whether it qualifies (CSP-9.1), ``hand`` their own hand named
    when it was turned over (raised, CSP-9.3; a folded hand is collected unseen, CSP-6.7).
    ``awaiting_supervisor``: a dealer's report holds the round until a supervisor decides
    (CSP-11.1, CSP-11.4) — what the round's expectation already says to everyone.
    """

    round_id: str
    phase: Phase
    player: str
    box: int | None
    cards: tuple[Card, ...]
    dealer_cards: tuple[Card | None, ...]
    ante: int
    jackpot: int
    jackpot_carried: bool
    raise_amount: int
    decided: bool
    results: tuple[WagerResult, ...]
    outcome: BoxOutcome | None
    timed_out: bool = False
    hand: NamedHand | None = None
    dealer_hand: NamedHand | None = None
    dealer_qualifies: bool | None = None
    awaiting_supervisor: bool = False


@dataclass(frozen=True, slots=True)
class BoxView:
    """One box as the dealer and a supervisor see it: ``cards`` has one entry per card the box
    holds, ``None`` for a face-down card; ``category`` and ``outcome`` once the round is over
    (the category only for a hand turned over at the showdown)."""

    box: int
    player: str
    ante: int
    jackpot: int
    jackpot_carried: bool
    raise_amount: int
    decided: bool
    timed_out: bool
    cards: tuple[Card | None, ...]
    category: HandCategory | None
    outcome: BoxOutcome | None


@dataclass(frozen=True, slots=True)
class DeadHandView:
    """CSP-11.3: ``cards`` cards were dealt to the empty ``box`` (faces not shown)."""

    box: int
    cards: int


@dataclass(frozen=True, slots=True)
class TableView:
    """The dealer's console or a supervisor's view (``role``; see the module docstring)."""

    round_id: str
    phase: Phase
    role: Role
    boxes: tuple[BoxView, ...]
    dealer_cards: tuple[Card | None, ...]
    dealer_category: HandCategory | None
    dealer_qualifies: bool | None
    dead_hands: tuple[DeadHandView, ...]
    shoe_commitment: str | None
    void_rule: str | None
    void_reason: str | None
    results: tuple[WagerResult, ...]
    jackpot: JackpotResult | None


@dataclass(frozen=True, slots=True)
class PublicView:
    """The lobby's and the jackpot display's view: no cards, no player ids, no amounts."""

    round_id: str
    phase: Phase
    boxes_taken: tuple[int, ...]
    jackpot_wagers: int
    jackpot: JackpotResult | None


def _dealer_cards(r: CaribbeanRound) -> tuple[Card | None, ...]:
    # CSP-7 / CSP-11.2: face-up dealer cards; the whole hand once turned over at the showdown.
    reveal = r.phase is Phase.SETTLED
    return tuple(
        c if (up or reveal) else None
        for c, up in zip(r.dealer_cards, r.dealer_face_up, strict=True)
    )


def _result_of(r: CaribbeanRound, box: int) -> BoxResult | None:
    if r.settlement is None:
        return None
    return next((b for b in r.settlement.boxes if b.box == box), None)


def _dealer_named(r: CaribbeanRound) -> tuple[NamedHand | None, bool | None]:
    # CSP-9.1 / CSP-9.3: the dealer's hand is turned over and judged at the showdown; a void
    # round (no dealer evaluation) names nothing.
    s = r.settlement
    if s is None or s.dealer_category is None or r.phase is not Phase.SETTLED:
        return None, None
    return named_hand(s.dealer_cards), s.dealer_qualifies


def _player_view(r: CaribbeanRound, player: str) -> PlayerView:
    mine: BoxState | None = next((b for b in r.boxes if b.player == player), None)
    dealer = _dealer_cards(r)
    dealer_hand, dealer_ok = _dealer_named(r)
    held = r.held is not None and not r.is_over
    if mine is None:
        return PlayerView(
            r.round_id,
            r.phase,
            player,
            None,
            (),
            dealer,
            0,
            0,
            False,
            0,
            False,
            (),
            None,
            dealer_hand=dealer_hand,
            dealer_qualifies=dealer_ok,
            awaiting_supervisor=held,
        )
    result = _result_of(r, mine.box)
    results = () if r.settlement is None else r.settlement.for_box(mine.box)
    hand = named_hand(result.cards) if result is not None and result.shown else None
    return PlayerView(
        r.round_id,
        r.phase,
        player,
        mine.box,
        mine.cards,
        dealer,
        mine.ante,
        mine.jackpot,
        mine.jackpot_carried,
        mine.raise_amount,
        mine.decided,
        results,
        None if result is None else result.outcome,
        mine.timed_out,
        hand,
        dealer_hand,
        dealer_ok,
        held,
    )


def _box_view(r: CaribbeanRound, b: BoxState) -> BoxView:
    result = _result_of(r, b.box)
    shown = result is not None and result.shown
    exposed = {e.card for e in r.exposed}
    cards = tuple(c if (shown or c in exposed) else None for c in b.cards)
    return BoxView(
        b.box,
        b.player,
        b.ante,
        b.jackpot,
        b.jackpot_carried,
        b.raise_amount,
        b.decided,
        b.timed_out,
        cards,
        result.category if result is not None and shown else None,
        None if result is None else result.outcome,
    )


def _table_view(r: CaribbeanRound, role: Role) -> TableView:
    s = r.settlement
    return TableView(
        r.round_id,
        r.phase,
        role,
        tuple(_box_view(r, b) for b in r.boxes),
        _dealer_cards(r),  # a dealer card exposed in error is face up (CSP-11.2)
        None if s is None else s.dealer_category,
        None if s is None else s.dealer_qualifies,
        tuple(DeadHandView(d.box, len(d.cards)) for d in r.dead_hands),
        r.shoe_commitment,
        r.void_rule,
        r.void_reason,
        () if s is None else s.wagers,
        None if s is None else s.jackpot,
    )


def _public_view(r: CaribbeanRound) -> PublicView:
    return PublicView(
        r.round_id,
        r.phase,
        tuple(b.box for b in r.boxes),
        sum(1 for b in r.boxes if b.jackpot),
        None if r.settlement is None else r.settlement.jackpot,
    )


def view_of(r: CaribbeanRound, audience: Audience) -> PlayerView | TableView | PublicView:
    """The view of ``r`` for ``audience`` (an :class:`~macau_tables.rounds.Audience` already
    checked by the caller)."""
    if audience.role is Role.PLAYER:
        return _player_view(r, audience.player or "")
    if audience.role in (Role.DEALER, Role.SUPERVISOR):
        return _table_view(r, audience.role)
    return _public_view(r)  # the least: whatever else reaches here sees no card
