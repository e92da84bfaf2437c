"""Baccarat's progressive jackpot: which combination a round's cards make (BAC-13.4) and what
it pays (BAC-17), through the shared primitives of :mod:`macau_tables.jackpot`.

Combinations, highest first (only the highest pays, BAC-13.4):

1. royal flush — the first five cards are A K Q J 10 of one suit, any order;
2. heavenly straight — the first five are K Q J 10 of one suit and an A of another suit;
3. four of a kind — the first four cards are of one rank, in four different suits;
4. double pair — a banker pair and a player pair of different ranks;
5. three of a kind — three of the first four cards are of one rank;
6. single pair — a banker pair or a player pair.

"First four" are P1 B1 P2 B2; "first five" add the next card dealt (the player's third card, or
else the banker's); a round of four cards has no five-card combination.

Readings of the law (documented):

* A banker pair and a player pair of the *same* rank are not a double pair (BAC-13.4(4):
  "of different ranks"). Their four cards are one rank, so they are a four of a kind when the
  four suits differ, otherwise a three of a kind (three of the first four are of one rank) —
  either way above a single pair.
* Four cards of one rank with a repeated suit (possible with several decks) are not a four of a
  kind; they are a three of a kind.

Payment (BAC-17): every jackpot wager of the round wins the same combination (the cards are
common to all). Royal flush: the whole meter shared equally (rounded down; the remainder stays
and the meter restarts from its seed on top, funded by the house). Heavenly straight: the higher
of the fixed award and 10 % of the meter, shared equally. The others: the fixed award to each
winner, paid by the house.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Final

from ..cards import Card, Rank
from ..errors import ConfigError
from ..jackpot import (
    Award,
    Combination,
    JackpotResult,
    Meter,
    award_shared,
    build_result,
    fixed_award,
)
from .rules import BACCARAT_JACKPOT_COMBINATIONS
from .tableau import RoundResult

__all__ = [
    "BACCARAT_JACKPOT_COMBINATIONS",
    "HEAVENLY_STRAIGHT_METER_FRACTION",
    "first_five",
    "first_four",
    "jackpot_combination",
    "resolve_baccarat",
]

HEAVENLY_STRAIGHT_METER_FRACTION: Final = Fraction(1, 10)
"""BAC-17: the heavenly straight pays at least 10 % of the meter."""

_BROADWAY: Final = frozenset({Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE})


def first_four(result: RoundResult) -> tuple[Card, Card, Card, Card]:
    """P1, B1, P2, B2 (BAC-13.4)."""
    p, b = result.player_cards, result.banker_cards
    return (p[0], b[0], p[1], b[1])


def first_five(result: RoundResult) -> tuple[Card, ...] | None:
    """The first four plus the next card dealt, or ``None`` for a four-card round (BAC-13.4)."""
    if result.cards_used < 5:
        return None
    return result.cards_in_order[:5]


def _royal_or_heavenly(five: Sequence[Card]) -> Combination | None:
    if frozenset(c.rank for c in five) != _BROADWAY:
        return None
    suits = {c.suit for c in five}
    if len(suits) == 1:
        return Combination.ROYAL_FLUSH
    ace = next(c for c in five if c.rank == Rank.ACE)
    others = {c.suit for c in five if c.rank != Rank.ACE}
    if len(others) == 1 and ace.suit not in others:
        return Combination.HEAVENLY_STRAIGHT
    return None


def jackpot_combination(result: RoundResult) -> Combination | None:
    """The highest jackpot combination of the round (BAC-13.4), or ``None``."""
    five = first_five(result)
    if five is not None:
        top = _royal_or_heavenly(five)
        if top is not None:
            return top
    four = first_four(result)
    ranks = [c.rank for c in four]
    if len(set(ranks)) == 1 and len({c.suit for c in four}) == 4:
        return Combination.FOUR_OF_A_KIND
    pp, bp = result.player_pair, result.banker_pair
    if pp and bp and four[0].rank != four[1].rank:
        return Combination.DOUBLE_PAIR
    if max(ranks.count(r) for r in ranks) >= 3:
        return Combination.THREE_OF_A_KIND
    if pp or bp:
        return Combination.SINGLE_PAIR
    return None


def resolve_baccarat(
    meter: Meter,
    combination: Combination | None,
    winners: Sequence[int],
    fixed_awards: Mapping[Combination, int],
) -> JackpotResult:
    """Pay the round's jackpot (BAC-17) to ``winners`` (ids of the round's jackpot wagers, in
    payment order), all winning ``combination``; ``meter`` as it stands when the jackpot pays.

    Returns the :class:`~macau_tables.jackpot.JackpotResult` (awards in ``winners`` order; an
    :class:`~macau_tables.jackpot.Award`'s ``box`` is the wager id). No combination or no
    winners: nothing is paid. Refuses (``ConfigError``) a combination that does not pay in
    baccarat, a missing fixed award or a repeated winner.
    """
    if len(set(winners)) != len(winners):
        raise ConfigError("baccarat.jackpot_winner_repeated", winners=str(list(winners)))
    if combination is None or not winners:
        return build_result(meter, (), whole_meter_paid=False)
    if combination not in BACCARAT_JACKPOT_COMBINATIONS:
        raise ConfigError("baccarat.combination_does_not_pay", combination=combination)
    n = len(winners)
    if combination is Combination.ROYAL_FLUSH:
        # BAC-17.4: the whole meter, shared equally; the meter restarts from its seed.
        splits = award_shared(meter.amount, 1, 0, n)
        awards = [Award.of(w, combination, s) for w, s in zip(winners, splits, strict=True)]
        return build_result(meter, awards, whole_meter_paid=True)
    if combination not in fixed_awards:
        raise ConfigError("baccarat.no_fixed_award", combination=combination)
    fixed = fixed_awards[combination]
    if combination is Combination.HEAVENLY_STRAIGHT:
        # BAC-17.5: max(fixed, 10 % of the meter), shared equally by the round's winners.
        splits = award_shared(meter.amount, HEAVENLY_STRAIGHT_METER_FRACTION, fixed, n)
        awards = [Award.of(w, combination, s) for w, s in zip(winners, splits, strict=True)]
        return build_result(meter, awards, whole_meter_paid=False)
    # BAC-17.6: the fixed award to each winner, paid by the house (the meter is unchanged).
    awards = [Award.of(w, combination, fixed_award(fixed)) for w in winners]
    return build_result(meter, awards, whole_meter_paid=False)
