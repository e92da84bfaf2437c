"""Exact baccarat counts: how many ordered 6-card sequences of a shoe give each outcome.

The shoe holds ``52 * decks`` distinct cards (two 7♠ of different decks are different cards).
Every figure is a count of **ordered 6-card sequences** dealt from the shoe, the convention of
the published tables: a round that uses 4 or 5 cards is weighted by the number of ways to
complete it to 6 cards, so a full shoe's total is ``(52N)(52N-1)…(52N-5)``.

* Banker / player / tie, the no-commission banker and Lucky 6 depend only on the BAC-5 card
  *values*: :func:`main_counts` (the multiset table, see :mod:`.baccarat_exact`).
* Pairs and the jackpot combinations depend on ranks and suits of the first four (five) cards
  and have closed forms in the rank/suit counts (:func:`pair_count`, :func:`jackpot_counts`).

:mod:`.baccarat_exact` turns these counts into the wagers' mathematics.

>>> main_counts(full_shoe(8)).total == falling(416, 6)
True
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from ..baccarat.rules import MAX_DECKS as LAW_MAX_DECKS
from ..baccarat.rules import MIN_DECKS as LAW_MIN_DECKS
from ..baccarat.tableau import banker_draws, player_draws
from ..errors import ConfigError
from ..jackpot import Combination

__all__ = [
    "MAX_DECKS",
    "MIN_DECKS",
    "MainCounts",
    "check_decks",
    "class_counts",
    "composition_after",
    "falling",
    "full_shoe",
    "jackpot_counts",
    "law_note",
    "main_counts",
    "multiset_table",
    "pair_count",
]

MIN_DECKS: Final = 1
MAX_DECKS: Final = LAW_MAX_DECKS
"""The analysis accepts 1 … 12 decks. The law's tables use 6 … 12 (BAC-1,
:data:`macau_tables.baccarat.rules.MIN_DECKS` … ``MAX_DECKS``); fewer decks are useful for
checks and comparison, and a sheet for one says it is outside the law (:func:`law_note`)."""

_ROYAL_RANKS: Final = (10, 11, 12, 13, 14)
_N_CLASSES: Final = 150


def check_decks(decks: object) -> int:
    """Return ``decks`` if it is a whole number 1 … 12; raise :class:`ConfigError` otherwise.

    >>> check_decks(8)
    8
    """
    if isinstance(decks, bool) or not isinstance(decks, int) or not MIN_DECKS <= decks <= MAX_DECKS:
        raise ConfigError(
            "analysis.bad_decks", minimum=MIN_DECKS, maximum=MAX_DECKS, decks=repr(decks)
        )
    return decks


def law_note(decks: int) -> str | None:
    """``None`` for a shoe of 6 … 12 decks (BAC-1); for any other number of decks the sentence a
    sheet states in its header: the shoe is outside the law.

    >>> law_note(8) is None
    True
    >>> print(law_note(1))
    Outside the law (BAC-1: a shoe of 6 to 12 decks): this 1-deck shoe is for comparison only.
    """
    if LAW_MIN_DECKS <= decks <= LAW_MAX_DECKS:
        return None
    return (
        f"Outside the law (BAC-1: a shoe of {LAW_MIN_DECKS} to {LAW_MAX_DECKS} decks): this "
        f"{decks}-deck shoe is for comparison only."
    )


def falling(n: int, k: int) -> int:
    """``n (n-1) … (n-k+1)``: the number of ordered ways to draw ``k`` of ``n`` distinct cards
    (0 when ``k > n``; refuses a negative ``k``)."""
    if k < 0:
        raise ValueError(f"falling factorial needs k >= 0, got {k}")
    if k > n:
        return 0
    return math.perm(n, k)


def full_shoe(decks: int) -> tuple[int, ...]:
    """The composition of a full shoe: 52 counts, one per card index (``decks`` each)."""
    check_decks(decks)
    return (decks,) * 52


def composition_after(composition: Sequence[int], removed: Sequence[int]) -> tuple[int, ...]:
    """``composition`` (52 counts by card index) less the cards ``removed`` (card indices).
    Refuses (``ValueError``) to remove a card the shoe does not hold."""
    out = list(composition)
    for index in removed:
        if out[index] <= 0:
            raise ValueError(f"the shoe holds no more card index {index}")
        out[index] -= 1
    return tuple(out)


def _check_composition(composition: Sequence[int]) -> tuple[int, ...]:
    comp = tuple(int(c) for c in composition)
    if len(comp) != 52 or min(comp) < 0:
        raise ValueError("a composition is 52 non-negative counts, one per card index")
    if sum(comp) < 6:
        raise ValueError("a shoe needs at least 6 cards for a full round")
    return comp


def _values(comp: Sequence[int]) -> list[int]:
    """Counts of BAC-5 values 0..9 (10/J/Q/K count 0, A counts 1)."""
    out = [0] * 10
    for index, n in enumerate(comp):
        rank = index // 4 + 2
        out[1 if rank == 14 else (0 if rank >= 10 else rank)] += n
    return out


def _ranks(comp: Sequence[int]) -> list[int]:
    return [sum(comp[4 * r : 4 * r + 4]) for r in range(13)]


# ---------------------------------------------------------------------------------------------
# Banker / player / tie, no commission, Lucky 6: the multiset table


@functools.cache
def multiset_table() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``(mult, k, coef)``: for each multiset of values that is a complete round, its value
    multiplicities (M×10), its size k (4..6) and the number of its orderings in each outcome
    class (M×150)."""
    from . import _baccarat_kernels as kern

    size = 10**4 + 10**5 + 10**6
    keys = np.empty(size, np.int64)
    classes = np.empty(size, np.int64)
    m = kern.enumerate_value_rounds(keys, classes)
    uniq, inverse = np.unique(keys[:m], return_inverse=True)
    coef = np.zeros((uniq.size, _N_CLASSES), np.int64)
    np.add.at(coef, (inverse.ravel(), classes[:m]), 1)
    mult = np.zeros((uniq.size, 10), np.int64)
    rest = uniq.copy()
    for v in range(10):
        mult[:, v] = rest % 7
        rest //= 7
    return mult, mult.sum(axis=1), coef


def class_counts(value_counts: Sequence[int]) -> npt.NDArray[np.int64]:
    """Exact counts (over ordered 6-card sequences) of the 150 outcome classes of
    :mod:`._baccarat_kernels` for a shoe with ``value_counts[v]`` cards of value ``v``.

    Refuses (``ValueError``) fewer than 6 cards or more than 12 decks' worth (int64 range).
    """
    u = np.array([int(x) for x in value_counts], np.int64)
    if u.shape != (10,) or (u < 0).any():
        raise ValueError("value_counts must be 10 non-negative counts")
    total_cards = int(u.sum())
    if not 6 <= total_cards <= 52 * MAX_DECKS:
        raise ValueError(f"a shoe of {total_cards} cards is outside 6 … {52 * MAX_DECKS}")
    mult, k, coef = multiset_table()
    ff = np.ones((10, 7), np.int64)
    for j in range(1, 7):
        ff[:, j] = ff[:, j - 1] * np.maximum(u - (j - 1), 0)
    weight = ff[np.arange(10), mult].prod(axis=1)
    completion = np.array([falling(total_cards - kk, 6 - kk) for kk in (4, 5, 6)], np.int64)
    weight = weight * completion[k - 4]
    counts: npt.NDArray[np.int64] = weight @ coef
    # Every 6-card sequence is one round's completion: the counts must add up exactly (this
    # also proves no int64 overflow happened).
    if int(counts.sum()) != falling(total_cards, 6):
        raise AssertionError("outcome counts do not add up to the number of 6-card sequences")
    return counts


@dataclass(frozen=True, slots=True)
class MainCounts:
    """Exact outcome counts of the banker/player/tie game (ordered 6-card sequences)."""

    total: int
    classes: tuple[int, ...]  # 150 outcome classes, see _baccarat_kernels

    def count_where(
        self, kinds: Sequence[int], winners: Sequence[int], totals: Sequence[int]
    ) -> int:
        """Rounds of the given kinds (0 natural, 1 both stand, 2 only the player draws, 3 only
        the banker draws, 4 both draw), winners (0 player, 1 banker, 2 tie) and banker totals."""
        return sum(
            self.classes[(kind * 3 + w) * 10 + t] for kind in kinds for w in winners for t in totals
        )

    @property
    def banker(self) -> int:
        """Banker wins (BAC-11)."""
        return self.count_where(range(5), (1,), range(10))

    @property
    def player(self) -> int:
        """Player wins (BAC-11)."""
        return self.count_where(range(5), (0,), range(10))

    @property
    def tie(self) -> int:
        """Ties (BAC-12)."""
        return self.count_where(range(5), (2,), range(10))

    def banker_wins_on(self, total: int) -> int:
        """Banker wins with final total ``total``."""
        return self.count_where(range(5), (1,), (total,))

    @property
    def banker_six_two_cards(self) -> int:
        """Banker wins with a two-card 6 (Lucky 6 pays 12:1)."""
        return self.count_where((0, 1, 2), (1,), (6,))

    @property
    def banker_six_three_cards(self) -> int:
        """Banker wins with a three-card 6 (Lucky 6 pays 20:1)."""
        return self.count_where((3, 4), (1,), (6,))

    @property
    def banker_six(self) -> int:
        """Banker wins with 6 (the no-commission banker pays 1:2, BAC-18)."""
        return self.banker_wins_on(6)

    def cards_dealt(self, n: int) -> int:
        """Rounds that use ``n`` cards (4, 5 or 6)."""
        kinds = {4: (0, 1), 5: (2, 3), 6: (4,)}[n]
        return self.count_where(kinds, range(3), range(10))

    @property
    def natural(self) -> int:
        """Rounds decided by a natural (either side's first two cards total 8 or 9, BAC-9.2)."""
        return self.count_where((0,), range(3), range(10))


def main_counts(composition: Sequence[int]) -> MainCounts:
    """Exact banker/player/tie outcome counts for a shoe (52 counts by card index)."""
    comp = _check_composition(composition)
    counts = class_counts(_values(comp))
    return MainCounts(falling(sum(comp), 6), tuple(int(c) for c in counts))


# ---------------------------------------------------------------------------------------------
# Pairs and the jackpot (BAC-13, BAC-13.4): closed forms in rank and suit counts


def pair_count(composition: Sequence[int]) -> int:
    """Ordered 6-card sequences in which the player's first two cards (P1, P2) have one rank
    (BAC-13). By symmetry the banker pair (B1, B2) has the same count."""
    comp = _check_composition(composition)
    total = sum(comp)
    return sum(falling(c, 2) for c in _ranks(comp)) * falling(total - 2, 4)


@functools.cache
def _five_card_orders() -> int:
    """How many of the 120 orders of A K Q J 10 (as P1 B1 P2 B2 fifth) deal a fifth card.

    The first four of them are worth 0 or 1 (BAC-5), so no natural is possible and the player
    always draws (BAC-9.1): all 120. Computed from the rule functions rather than assumed."""
    values = {10: 0, 11: 0, 12: 0, 13: 0, 14: 1}
    dealt = 0
    for order in itertools.permutations(_ROYAL_RANKS):
        p = (values[order[0]] + values[order[2]]) % 10
        b = (values[order[1]] + values[order[3]]) % 10
        if p >= 8 or b >= 8:
            continue
        if player_draws(p) or banker_draws(b, None):
            dealt += 1
    return dealt


def jackpot_counts(composition: Sequence[int]) -> dict[Combination, int]:
    """Exact counts (ordered 6-card sequences) of the highest BAC-13.4 combination of a round,
    for every combination, plus ``None``-free totals: the values add up to the number of rounds
    with *some* combination (the rest pay nothing).

    Closed forms over the first four cards P1 B1 P2 B2 (``c_r`` cards of rank ``r``, ``n_rs``
    of rank ``r`` and suit ``s``, ``U`` cards, ``F`` falling factorial):

    * four of a kind (four different suits): ``Σ_r 4! Π_s n_rs``;
    * double pair: player pair rank ``a`` ≠ banker pair rank ``b``: ``S² − Σ_r F(c_r,2)²`` with
      ``S = Σ_r F(c_r,2)``;
    * three of a kind: exactly three of one rank (``Σ 4 F(c_r,3)(U − c_r)``), or four of one
      rank not in four different suits;
    * single pair: a side pair and none of the above;

    each times ``F(U−4, 2)``; royal flush and heavenly straight over the first five cards
    (every order of A K Q J 10 deals a fifth card), times ``U − 5``.
    """
    comp = _check_composition(composition)
    total = sum(comp)
    ranks = _ranks(comp)

    def n(rank: int, suit: int) -> int:
        return comp[(rank - 2) * 4 + suit]

    f2 = [falling(c, 2) for c in ranks]
    s2 = sum(f2)
    four_same = sum(falling(c, 4) for c in ranks)
    four_distinct = sum(24 * math.prod(n(r, s) for s in range(4)) for r in range(2, 15))
    three_exact = sum(4 * falling(c, 3) * (total - c) for c in ranks)
    double = s2 * s2 - sum(x * x for x in f2)
    player_pair4 = s2 * falling(total - 2, 2)
    single = 2 * player_pair4 - 2 * double - 2 * four_same - three_exact
    three = three_exact + four_same - four_distinct
    rest4 = falling(total - 4, 2)

    orders = _five_card_orders()
    royal = 0
    heavenly = 0
    for s in range(4):
        faces = math.prod(n(r, s) for r in (10, 11, 12, 13))
        royal += faces * n(14, s)
        heavenly += faces * sum(n(14, t) for t in range(4) if t != s)
    rest5 = total - 5
    return {
        Combination.ROYAL_FLUSH: royal * orders * rest5,
        Combination.HEAVENLY_STRAIGHT: heavenly * orders * rest5,
        Combination.FOUR_OF_A_KIND: four_distinct * rest4,
        Combination.DOUBLE_PAIR: double * rest4,
        Combination.THREE_OF_A_KIND: three * rest4,
        Combination.SINGLE_PAIR: single * rest4,
    }
