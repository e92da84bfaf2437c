"""Exact baccarat mathematics: every wager of the 2004 regulation and its amendments.

What is counted
---------------
The shoe holds ``52 * decks`` distinct cards (two 7♠ of different decks are different cards).
Every figure is a count of **ordered 6-card sequences** dealt from the full shoe, the convention
of the published tables: a round that uses 4 or 5 cards is weighted by the number of ways to
complete it to 6 cards, so ``total_combinations = (52N)(52N-1)…(52N-5)``. Probabilities and
house edges are exact :class:`fractions.Fraction` values of those counts.

How (fast and exact)
--------------------
* Banker / player / tie, the no-commission banker and Lucky 6 depend only on the BAC-5 card
  *values*. A numba kernel lists every value sequence that is a complete round once (339,400 of
  them) and groups them by the *multiset* of values they use: a round's weight in a shoe with
  ``u_v`` cards of value ``v`` (``U`` in all) is ``Π_v u_v (u_v-1)…`` (one falling factorial per
  value) times the completion ``(U-k)…(U-5)``, the same for every ordering of one multiset. So
  one table ``coef[multiset, outcome]`` (composition-free, built once) turns any shoe into exact
  outcome counts with a single integer matrix product: a full shoe, a shoe with one card
  removed (effects of removal), or a shoe in the middle of play.
* Pairs and the jackpot combinations depend on ranks and suits of the first four (five) cards
  and have closed forms in the rank/suit counts (see :func:`jackpot_counts`).

The counting functions live in :mod:`.baccarat_counts` (and are importable from here too);
this module turns their counts into the wagers, the jackpot's return and the effects of
removal, with the law's odds (:mod:`macau_tables.baccarat.bets`) and the table's jackpot
settings (:meth:`JackpotAwards.from_rules`).

Independent checks in ``tests/analysis/test_baccarat_exact.py``: a plain-Python enumeration of
value sequences for 1, 2, 6 and 8 decks, a card-by-card enumeration of the jackpot combinations
over small shoes, and the published 8- and 6-deck figures.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from ..baccarat.bets import (
    EVEN_MONEY,
    LUCKY_6_THREE_CARD_ODDS,
    LUCKY_6_TWO_CARD_ODDS,
    PAIR_ODDS,
    TIE_ODDS,
)
from ..baccarat.jackpot_combos import HEAVENLY_STRAIGHT_METER_FRACTION
from ..baccarat.rules import BACCARAT_JACKPOT_COMBINATIONS, COMMISSION_DIVISOR, BaccaratRules
from ..errors import ConfigError
from ..jackpot import Combination, fixed_award, meter_portion, share_equally
from .baccarat_counts import (
    MAX_DECKS,
    MIN_DECKS,
    MainCounts,
    check_decks,
    class_counts,
    composition_after,
    falling,
    full_shoe,
    jackpot_counts,
    law_note,
    main_counts,
    pair_count,
)

__all__ = [
    "MAX_DECKS",
    "MIN_DECKS",
    "WAGERS",
    "BaccaratAnalysis",
    "JackpotAwards",
    "JackpotLine",
    "JackpotReturn",
    "MainCounts",
    "WagerStats",
    "analyze",
    "break_even_meter",
    "check_decks",
    "class_counts",
    "composition_after",
    "effects_of_removal",
    "falling",
    "full_shoe",
    "jackpot_counts",
    "jackpot_return",
    "law_note",
    "main_counts",
    "pair_count",
    "wager_stats",
]

WAGERS: Final = (
    "banker",
    "banker_no_commission",
    "player",
    "tie",
    "player_pair",
    "banker_pair",
    "lucky_six",
)
"""The fixed-odds wagers, in report order (keys of the JSON ``house_edge`` object)."""

# ---------------------------------------------------------------------------------------------
# Wagers


@dataclass(frozen=True, slots=True)
class WagerStats:
    """One wager's exact mathematics per unit wagered and per round dealt.

    ``outcomes`` lists ``(description, count, net payoff per unit)``; ``expectation`` is the
    player's expected net result (negative: the house wins), ``house_edge = -expectation``.
    """

    key: str
    name: str
    pays: str
    outcomes: tuple[tuple[str, int, Fraction], ...]
    total: int

    @property
    def expectation(self) -> Fraction:
        return Fraction(sum(c * x for _, c, x in self.outcomes), self.total)

    @property
    def house_edge(self) -> Fraction:
        return -self.expectation

    @property
    def variance(self) -> Fraction:
        second = Fraction(sum(c * x * x for _, c, x in self.outcomes), self.total)
        return second - self.expectation**2

    @property
    def standard_deviation(self) -> float:
        return math.sqrt(self.variance)

    @property
    def win_probability(self) -> Fraction:
        return Fraction(sum(c for _, c, x in self.outcomes if x > 0), self.total)


def _lose_rest(
    total: int, *events: tuple[str, int, Fraction]
) -> tuple[tuple[str, int, Fraction], ...]:
    rest = total - sum(c for _, c, _x in events)
    return (*events, ("loses", rest, Fraction(-1)))


def wager_stats(main: MainCounts, pairs: int) -> dict[str, WagerStats]:
    """The fixed-odds wagers of BAC-13/BAC-17/BAC-18 (and Lucky 6, 56/2018) from exact counts.

    Ties push banker and player wagers (BAC-12: they neither win nor lose)."""
    t = main.total
    b6 = main.banker_six
    zero = Fraction(0)
    even = Fraction(EVEN_MONEY)
    # BAC-18: the banker's win less the commission of 1/20; 73/2005: a win on 6 pays half.
    banker_win = even - Fraction(EVEN_MONEY, COMMISSION_DIVISOR)
    banker_six_win = Fraction(EVEN_MONEY, 2)
    return {
        "banker": WagerStats(
            "banker",
            "Banker (5 % commission)",
            "1:1 less 5 % (BAC-17, BAC-18.1)",
            (
                ("banker wins", main.banker, banker_win),
                ("tie (push)", main.tie, zero),
                ("player wins", main.player, -even),
            ),
            t,
        ),
        "banker_no_commission": WagerStats(
            "banker_no_commission",
            "Banker, no commission",
            "1:1, a win on 6 pays 1:2 (BAC-18.2)",
            (
                ("banker wins, not on 6", main.banker - b6, even),
                ("banker wins on 6", b6, banker_six_win),
                ("tie (push)", main.tie, zero),
                ("player wins", main.player, -even),
            ),
            t,
        ),
        "player": WagerStats(
            "player",
            "Player",
            "1:1 (BAC-17)",
            (
                ("player wins", main.player, even),
                ("tie (push)", main.tie, zero),
                ("banker wins", main.banker, -even),
            ),
            t,
        ),
        "tie": WagerStats(
            "tie",
            "Tie",
            f"{TIE_ODDS}:1 (BAC-17)",
            _lose_rest(t, ("tie", main.tie, Fraction(TIE_ODDS))),
            t,
        ),
        "player_pair": WagerStats(
            "player_pair",
            "Player pair",
            f"{PAIR_ODDS}:1 (BAC-17)",
            _lose_rest(t, ("P1 and P2 one rank", pairs, Fraction(PAIR_ODDS))),
            t,
        ),
        "banker_pair": WagerStats(
            "banker_pair",
            "Banker pair",
            f"{PAIR_ODDS}:1 (BAC-17)",
            _lose_rest(t, ("B1 and B2 one rank", pairs, Fraction(PAIR_ODDS))),
            t,
        ),
        "lucky_six": WagerStats(
            "lucky_six",
            "Lucky 6",
            f"{LUCKY_6_TWO_CARD_ODDS}:1 two cards, {LUCKY_6_THREE_CARD_ODDS}:1 three cards "
            "(56/2018)",
            _lose_rest(
                t,
                (
                    "banker wins on a two-card 6",
                    main.banker_six_two_cards,
                    Fraction(LUCKY_6_TWO_CARD_ODDS),
                ),
                (
                    "banker wins on a three-card 6",
                    main.banker_six_three_cards,
                    Fraction(LUCKY_6_THREE_CARD_ODDS),
                ),
            ),
            t,
        ),
    }


# ---------------------------------------------------------------------------------------------
# The progressive jackpot's return (BAC-13.4, BAC-17)


@dataclass(frozen=True, slots=True)
class JackpotAwards:
    """The jackpot table settings an analysis needs, in minor units.

    ``wager`` is the fixed jackpot wager (collected every round); ``meter`` the meter's current
    amount; the fixed awards are regulator-approved table settings (BAC-17.7); ``bettors`` the
    number of jackpot wagers in the round (royal flush and heavenly straight are shared equally
    by the round's winners, BAC-17.4/17.5; everybody with a jackpot wager wins together since
    the combination is made by the round's cards). Refuses negative amounts, a wager below 1,
    fewer than 1 bettor (:class:`ConfigError`). :meth:`from_rules` takes the settings of a
    table's :class:`~macau_tables.baccarat.rules.BaccaratRules`.
    """

    wager: int
    meter: int
    heavenly_straight: int
    four_of_a_kind: int
    double_pair: int
    three_of_a_kind: int
    single_pair: int
    bettors: int = 1

    def __post_init__(self) -> None:
        for name in (
            "meter",
            "heavenly_straight",
            "four_of_a_kind",
            "double_pair",
            "three_of_a_kind",
            "single_pair",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(
                    "analysis.bad_jackpot_amount", what=name.replace("_", " "), value=repr(value)
                )
        for name in ("wager", "bettors"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError("analysis.bad_jackpot_count", what=name, value=repr(value))

    @classmethod
    def from_rules(cls, rules: BaccaratRules, meter: int, bettors: int = 1) -> JackpotAwards:
        """The jackpot settings of a table: ``rules.jackpot_wager`` and its fixed awards
        (BAC-17.7), with the meter at ``meter`` and ``bettors`` jackpot wagers per round.

        Refuses (``ConfigError``) rules without the fixed awards and what :class:`JackpotAwards`
        refuses.

        >>> from macau_tables.baccarat.rules import BaccaratRules
        >>> JackpotAwards.from_rules(BaccaratRules(), meter=2_000_000).heavenly_straight
        500000
        """
        fixed = rules.jackpot_fixed_awards
        missing = [c.value for c in BACCARAT_JACKPOT_COMBINATIONS[1:] if c not in fixed]
        if missing:
            raise ConfigError("analysis.missing_fixed_awards", combinations=", ".join(missing))
        return cls(
            wager=rules.jackpot_wager,
            meter=meter,
            heavenly_straight=fixed[Combination.HEAVENLY_STRAIGHT],
            four_of_a_kind=fixed[Combination.FOUR_OF_A_KIND],
            double_pair=fixed[Combination.DOUBLE_PAIR],
            three_of_a_kind=fixed[Combination.THREE_OF_A_KIND],
            single_pair=fixed[Combination.SINGLE_PAIR],
            bettors=bettors,
        )

    def award(self, combination: Combination, meter: int | None = None) -> int:
        """What one winning jackpot wager receives for ``combination`` (minor units), with the
        meter at ``meter`` (default: :attr:`meter`). Rounded down (CSP-10.8 via BAC-17)."""
        m = self.meter if meter is None else meter
        # Each winner's share as macau_tables.jackpot.award_shared computes it,
        # floor(max(fixed, meter part) / winners), without building one split per winner
        # (a large --jackpot-bettors would otherwise allocate that many objects).
        if combination is Combination.ROYAL_FLUSH:  # the whole meter, shared (BAC-17.4)
            return share_equally(meter_portion(m, 1), self.bettors)[0]
        if combination is Combination.HEAVENLY_STRAIGHT:  # max(fixed, 10 % meter), shared
            pool = max(self.heavenly_straight, meter_portion(m, HEAVENLY_STRAIGHT_METER_FRACTION))
            return share_equally(pool, self.bettors)[0]
        fixed = {
            Combination.FOUR_OF_A_KIND: self.four_of_a_kind,
            Combination.DOUBLE_PAIR: self.double_pair,
            Combination.THREE_OF_A_KIND: self.three_of_a_kind,
            Combination.SINGLE_PAIR: self.single_pair,
        }[combination]
        return fixed_award(fixed).amount  # each winner (BAC-17.6)


@dataclass(frozen=True, slots=True)
class JackpotLine:
    """One combination's probability, award and share of the return."""

    combination: Combination
    count: int
    probability: Fraction
    award: int
    return_share: Fraction  # probability × award / wager


@dataclass(frozen=True, slots=True)
class JackpotReturn:
    """The jackpot wager's return to the player: ``Σ p × award / wager`` (the wager is collected
    every round; awards are paid as amounts). ``house_edge = 1 − return``."""

    lines: tuple[JackpotLine, ...]
    awards: JackpotAwards

    @property
    def total_return(self) -> Fraction:
        return sum((line.return_share for line in self.lines), Fraction(0))

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.total_return

    @property
    def hit_probability(self) -> Fraction:
        return sum((line.probability for line in self.lines), Fraction(0))

    @property
    def standard_deviation(self) -> float:
        """SD of the net result per unit wagered."""
        w = self.awards.wager
        second = sum(
            (line.probability * Fraction(line.award - w, w) ** 2 for line in self.lines),
            Fraction(0),
        ) + (1 - self.hit_probability)
        mean = self.total_return - 1
        return math.sqrt(second - mean * mean)


def break_even_meter(
    counts: Mapping[Combination, int], total: int, awards: JackpotAwards
) -> int | None:
    """The smallest meter (minor units) at which the jackpot wager returns at least 100 %
    with the other settings of ``awards``, or ``None`` if no meter does (no royal flush is
    possible). Exact: the return never falls as the meter grows, so a bisection finds it."""

    def pays(meter: int) -> bool:
        changed = dataclasses.replace(awards, meter=meter)
        return jackpot_return(counts, total, changed).total_return >= 1

    if pays(0):
        return 0
    if counts[Combination.ROYAL_FLUSH] == 0:
        return None
    high = max(awards.meter, 1)
    while not pays(high):
        high *= 2
    low = 0  # pays(low) is False, pays(high) is True
    while high - low > 1:
        mid = (low + high) // 2
        if pays(mid):
            high = mid
        else:
            low = mid
    return high


def jackpot_return(
    counts: Mapping[Combination, int], total: int, awards: JackpotAwards
) -> JackpotReturn:
    """The jackpot wager's exact return for the combination ``counts`` (of ``total`` rounds)."""
    lines = []
    for combo in BACCARAT_JACKPOT_COMBINATIONS:
        p = Fraction(counts[combo], total)
        award = awards.award(combo)
        lines.append(JackpotLine(combo, counts[combo], p, award, p * Fraction(award, awards.wager)))
    return JackpotReturn(tuple(lines), awards)


# ---------------------------------------------------------------------------------------------
# Effects of removal and the whole analysis


def _fixed_odds_expectations(comp: Sequence[int]) -> dict[str, Fraction]:
    stats = wager_stats(main_counts(comp), pair_count(comp))
    return {k: s.expectation for k, s in stats.items()}


def _jackpot_expectation(comp: Sequence[int], awards: JackpotAwards) -> Fraction:
    total = falling(sum(comp), 6)
    return jackpot_return(jackpot_counts(comp), total, awards).total_return - 1


def effects_of_removal(
    decks: int, awards: JackpotAwards | None = None
) -> dict[int, dict[str, Fraction]]:
    """For each rank 2 … 14: the change of each wager's expectation (per unit wagered, the
    player's view) when ONE card of that rank is removed from the full shoe. The jackpot (which
    depends on suits) averages the four suits. Exact; summed over all 52·N cards of the shoe the
    EORs of a wager add up to 0.

    The fixed-odds wagers depend only on values and ranks, so one removal per rank suffices."""
    full = full_shoe(decks)
    base = _fixed_odds_expectations(full)
    base_jackpot = _jackpot_expectation(full, awards) if awards is not None else Fraction(0)
    out: dict[int, dict[str, Fraction]] = {}
    for rank in range(2, 15):
        ev = _fixed_odds_expectations(composition_after(full, [(rank - 2) * 4]))
        row = {key: ev[key] - base[key] for key in base}
        if awards is not None:
            jackpot = sum(
                (
                    _jackpot_expectation(composition_after(full, [(rank - 2) * 4 + s]), awards)
                    for s in range(4)
                ),
                Fraction(0),
            )
            row["jackpot"] = jackpot / 4 - base_jackpot
        out[rank] = row
    return out


@dataclass(frozen=True, slots=True)
class BaccaratAnalysis:
    """The exact analysis of one shoe size: every wager, the jackpot and the effects of removal."""

    decks: int
    main: MainCounts
    pairs: int
    wagers: dict[str, WagerStats]
    jackpot_counts: dict[Combination, int]
    jackpot: JackpotReturn
    eor: dict[int, dict[str, Fraction]]

    @property
    def total(self) -> int:
        return self.main.total

    def probability(self, count: int) -> Fraction:
        return Fraction(count, self.main.total)


def analyze(decks: int, awards: JackpotAwards) -> BaccaratAnalysis:
    """The complete exact analysis of a full shoe of ``decks`` decks (1 … 12) with the jackpot
    settings ``awards``. Refuses a bad deck count (:class:`ConfigError`)."""
    check_decks(decks)
    full = full_shoe(decks)
    main = main_counts(full)
    pairs = pair_count(full)
    jackpot = jackpot_counts(full)
    return BaccaratAnalysis(
        decks,
        main,
        pairs,
        wager_stats(main, pairs),
        jackpot,
        jackpot_return(jackpot, main.total, awards),
        effects_of_removal(decks, awards),
    )
