"""Settlement of a Caribbean Stud round: who won what, who pays, and the money check.

A :class:`Settlement` is a value carried by the round's final event (showdown or void). It lists
every wager (ante, raise, jackpot) of every box as a shared
:class:`~macau_tables.rounds.WagerResult` (``spot`` ``"box 3"``, ``kind`` a :class:`WagerKind`
value), the box's hand as shown (:class:`BoxResult`), the jackpot awards in payment order with
the meter movements, and the three money totals — players, house, meter — which always sum to
zero. :func:`showdown_settlement` (CSP-9, CSP-10) and :func:`void_settlement` (CSP-11.1,
CSP-11.4) compute it from the round's boxes and the dealer's cards.

Money conventions (all ``int`` minor units; the identity of
:class:`~macau_tables.rounds.WagerResult` holds for every wager):

* ante and raise: ``paid`` is what the player receives back (stake included). ``WON`` ante:
  ``2 × stake`` (``house`` = −stake); ``RETURNED``: ``stake``; ``LOST``: 0 (``house`` = stake).
* a jackpot wager that is settled (``WON`` or ``LOST``) is split into its meter contribution
  (``meter``) and the house share (``house``) (:func:`macau_tables.jackpot.split_contribution`);
  a ``WON`` jackpot wager's ``paid`` is the jackpot award, funded as ``award_from_meter`` +
  ``award_from_house`` (the wager itself is not returned).
* ``CARRIED_OVER`` (CSP-11.1, CSP-11.4): the jackpot wager is not settled in this round; it
  stays the player's stake (``carried``) for the next round, so its net for this round is 0.
  ``carried_in``: the wager came from an earlier round (its stake was not taken in this one).
* ``players_net + house_net + meter_net == 0`` (the house funds fixed awards, top-ups and the
  seed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..cards import Card
from ..jackpot import (
    Award,
    Combination,
    JackpotResult,
    Meter,
    resolve_caribbean,
    split_contribution,
)
from ..rounds import Outcome, WagerResult
from .hands import HandCategory, HandValue, compare, evaluate, qualifies
from .rules import CaribbeanRules, jackpot_combination
from .state import BoxState, spot

__all__ = [
    "BoxOutcome",
    "BoxResult",
    "CarriedWager",
    "Settlement",
    "WagerKind",
    "box_of",
    "showdown_settlement",
    "void_settlement",
]


class WagerKind(StrEnum):
    """CSP-5: the three wagers of a box (``WagerResult.kind`` holds the value)."""

    ANTE = "ante"
    RAISE = "raise"
    JACKPOT = "jackpot"


class BoxOutcome(StrEnum):
    """How a box's hand ended (for display and audit)."""

    FOLDED = "folded"
    """CSP-6.7: no raise; ante and jackpot wager lost."""
    TIMED_OUT = "timed_out"
    """CSP-6.4: the decision timer ran out; folded."""
    DEALER_NOT_QUALIFIED = "dealer_not_qualified"
    """CSP-9.2: ante wins 1:1, raise returned."""
    WON = "won"
    """CSP-9.5: player's hand higher."""
    LOST = "lost"
    """CSP-9.4: dealer's hand higher."""
    TIED = "tied"
    """Equal hands: impossible from one deck under Macau ranking (CSP-8); ante and raise
    returned if it ever happened."""
    VOID = "void"
    """CSP-11.1 / CSP-11.4: the round was void."""


@dataclass(frozen=True, slots=True)
class CarriedWager:
    """A jackpot wager carried over to the next round (CSP-11.1): box, player and stake."""

    box: int
    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class BoxResult:
    """A box's hand at the end of the round: its cards, category and how it ended."""

    box: int
    player: str
    cards: tuple[Card, ...]
    category: HandCategory | None
    outcome: BoxOutcome

    @property
    def shown(self) -> bool:
        """The hand was turned over at the showdown: the box raised (CSP-9.3). A folded box's
        cards are collected unseen (CSP-6.7); a void round shows nothing."""
        return self.outcome not in (BoxOutcome.FOLDED, BoxOutcome.TIMED_OUT, BoxOutcome.VOID)


def box_of(result: WagerResult) -> int:
    """The box number of a Caribbean Stud wager result (its ``spot`` is ``"box N"``)."""
    return int(result.spot.removeprefix("box "))


@dataclass(frozen=True, slots=True)
class Settlement:
    """The money result of one round (see the module docstring for conventions).

    ``voided`` rounds have no dealer evaluation and no jackpot; every ante/raise is returned and
    every jackpot wager carried over. ``meter_contribution`` is what the round's settled jackpot
    wagers credited to the meter, before the awards were resolved (``jackpot.meter_before``
    includes it). ``carried_over``: the jackpot wagers the next round takes
    (``CaribbeanRound.carried_out``).
    """

    voided: bool
    dealer_cards: tuple[Card, ...]
    dealer_category: HandCategory | None
    dealer_qualifies: bool | None
    boxes: tuple[BoxResult, ...]
    wagers: tuple[WagerResult, ...]
    meter_contribution: int
    jackpot: JackpotResult | None
    carried_over: tuple[CarriedWager, ...]

    @property
    def seed_funding(self) -> int:
        """What the house put into the meter to restart it from its seed (CSP-10.8)."""
        return 0 if self.jackpot is None else self.jackpot.seed_funding

    @property
    def players_net(self) -> int:
        """Sum of every player's gain (negative: the players lost money overall)."""
        return sum(w.net for w in self.wagers)

    @property
    def meter_net(self) -> int:
        """The meter's change: contributions − paid out of the meter + seed funding."""
        return sum(w.meter - w.award_from_meter for w in self.wagers) + self.seed_funding

    @property
    def house_net(self) -> int:
        """The house's gain, computed from its own movements: lost antes/raises − ante/raise
        wins + house share of jackpot wagers − house-paid awards − seed funding."""
        return sum(w.house - w.award_from_house for w in self.wagers) - self.seed_funding

    def net_by_player(self) -> dict[str, int]:
        """Each player's gain (negative: loss) in this round; a carried stake is still theirs."""
        totals: dict[str, int] = {}
        for w in self.wagers:
            totals[w.player] = totals.get(w.player, 0) + w.net
        return totals

    def for_box(self, box: int) -> tuple[WagerResult, ...]:
        """The wager results of ``box``."""
        where = spot(box)
        return tuple(w for w in self.wagers if w.spot == where)

    def wager(self, box: int, kind: WagerKind) -> WagerResult | None:
        """The result of ``box``'s wager of ``kind``, or ``None`` if it had none."""
        for w in self.for_box(box):
            if w.kind == kind:
                return w
        return None

    def awarded(self, award: Award) -> WagerResult | None:
        """The jackpot wager ``award`` (one of ``jackpot.awards``) paid: its box's, whose
        ``spot`` names the winning box (CSP-10.4); ``None`` if the round had none there."""
        return self.wager(award.box, WagerKind.JACKPOT)


# -- computing a settlement ----------------------------------------------------------------------


def _result(
    b: BoxState, kind: WagerKind, stake: int, outcome: Outcome, **money: int
) -> WagerResult:
    carried_in = kind is WagerKind.JACKPOT and b.jackpot_carried
    return WagerResult(b.player, b.spot, kind.value, stake, outcome, carried_in=carried_in, **money)


def _won(b: BoxState, kind: WagerKind, stake: int, win: int) -> WagerResult:
    return _result(b, kind, stake, Outcome.WON, paid=stake + win, house=-win)


def _lost(b: BoxState, kind: WagerKind, stake: int) -> WagerResult:
    return _result(b, kind, stake, Outcome.LOST, house=stake)


def _returned(b: BoxState, kind: WagerKind, stake: int) -> WagerResult:
    return _result(b, kind, stake, Outcome.RETURNED, paid=stake)


def _carried(b: BoxState) -> WagerResult:
    return _result(b, WagerKind.JACKPOT, b.jackpot, Outcome.CARRIED_OVER, carried=b.jackpot)


def void_settlement(boxes: Sequence[BoxState], dealer_cards: tuple[Card, ...]) -> Settlement:
    """CSP-11.1 / CSP-11.4: every ante and raise returned, every jackpot wager carried over."""
    wagers: list[WagerResult] = []
    results: list[BoxResult] = []
    carried: list[CarriedWager] = []
    for b in boxes:
        if b.ante:
            wagers.append(_returned(b, WagerKind.ANTE, b.ante))
        if b.raise_amount:
            wagers.append(_returned(b, WagerKind.RAISE, b.raise_amount))
        if b.jackpot:
            wagers.append(_carried(b))
            carried.append(CarriedWager(b.box, b.player, b.jackpot))
        results.append(BoxResult(b.box, b.player, b.cards, None, BoxOutcome.VOID))
    return Settlement(
        voided=True,
        dealer_cards=dealer_cards,
        dealer_category=None,
        dealer_qualifies=None,
        boxes=tuple(results),
        wagers=tuple(wagers),
        meter_contribution=0,
        jackpot=None,
        carried_over=tuple(carried),
    )


def _table_wagers(
    rules: CaribbeanRules, b: BoxState, value: HandValue, dealer: HandValue, dealer_ok: bool
) -> tuple[BoxOutcome, list[WagerResult]]:
    """CSP-9: the ante and raise of one box in play, and how its hand ended."""
    ante, raised = b.ante, b.raise_amount
    if not b.raised:
        # CSP-6.7 / CSP-6.4: folded, ante lost (the jackpot wager is lost too, see below).
        outcome = BoxOutcome.TIMED_OUT if b.timed_out else BoxOutcome.FOLDED
        return outcome, [_lost(b, WagerKind.ANTE, ante)]
    if not dealer_ok:
        # CSP-9.2: ante wins 1:1, raise returned.
        return BoxOutcome.DEALER_NOT_QUALIFIED, [
            _won(b, WagerKind.ANTE, ante, ante),
            _returned(b, WagerKind.RAISE, raised),
        ]
    cmp = compare(value, dealer)
    if cmp > 0:
        # CSP-9.5: ante 1:1, raise by the paytable (capped per box for the top three).
        return BoxOutcome.WON, [
            _won(b, WagerKind.ANTE, ante, ante),
            _won(b, WagerKind.RAISE, raised, rules.raise_win(value.category, raised)),
        ]
    if cmp < 0:
        # CSP-9.4: dealer higher, ante and raise lose.
        return BoxOutcome.LOST, [_lost(b, WagerKind.ANTE, ante), _lost(b, WagerKind.RAISE, raised)]
    # Equal hands: impossible from one deck under Macau ranking (CSP-8).
    return BoxOutcome.TIED, [
        _returned(b, WagerKind.ANTE, ante),
        _returned(b, WagerKind.RAISE, raised),
    ]


def showdown_settlement(
    rules: CaribbeanRules,
    boxes: Sequence[BoxState],
    dealer_cards: tuple[Card, ...],
    meter: Meter,
) -> Settlement:
    """CSP-9 (ante and raise against the dealer) and CSP-10 (jackpot on the box's own cards).

    ``boxes`` are the round's boxes (every box in play holds five cards, every decision made);
    ``meter`` the jackpot meter as it stood before this round's contributions. A carried-over
    jackpot wager whose box took no ante this round is carried again (CSP-11.1).
    """
    dealer_value = evaluate(dealer_cards)
    dealer_ok = qualifies(dealer_value)
    results: list[BoxResult] = []
    table_wagers: dict[int, list[WagerResult]] = {}
    split: dict[int, tuple[int, int]] = {}
    winners: list[tuple[int, Combination]] = []
    carried: list[CarriedWager] = []
    contribution = 0
    for b in boxes:
        if not b.in_play:
            carried.append(CarriedWager(b.box, b.player, b.jackpot))
            continue
        value = evaluate(b.cards)
        outcome, table_wagers[b.box] = _table_wagers(rules, b, value, dealer_value, dealer_ok)
        results.append(BoxResult(b.box, b.player, b.cards, value.category, outcome))
        if b.jackpot:
            split[b.box] = split_contribution(b.jackpot, rules.jackpot_contribution)
            contribution += split[b.box][0]
            combo = jackpot_combination(value.category)
            # CSP-10.1/10.2: ante + jackpot wager, on the box's own cards, not if folded (CSP-6.7).
            if b.raised and combo is not None:
                winners.append((b.box, combo))
    jackpot = resolve_caribbean(
        meter.credit(contribution), winners, rules.jackpot_fixed_awards.as_mapping()
    )
    wagers: list[WagerResult] = []
    for b in boxes:
        wagers.extend(table_wagers.get(b.box, ()))
        if not b.jackpot:
            continue
        if not b.in_play:
            wagers.append(_carried(b))
            continue
        to_meter, to_house = split[b.box]
        awards = jackpot.for_box(b.box)
        from_meter = sum(a.from_meter for a in awards)
        from_house = sum(a.from_house for a in awards)
        wagers.append(
            _result(
                b,
                WagerKind.JACKPOT,
                b.jackpot,
                Outcome.WON if awards else Outcome.LOST,
                paid=from_meter + from_house,
                house=to_house,
                meter=to_meter,
                award_from_meter=from_meter,
                award_from_house=from_house,
            )
        )
    return Settlement(
        voided=False,
        dealer_cards=dealer_cards,
        dealer_category=dealer_value.category,
        dealer_qualifies=dealer_ok,
        boxes=tuple(results),
        wagers=tuple(wagers),
        meter_contribution=contribution,
        jackpot=jackpot,
        carried_over=tuple(carried),
    )
